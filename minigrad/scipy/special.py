"""``minigrad.scipy.special``: jax.scipy.special's functions, composites over minigrad's
primitives: ``logsumexp``, the error functions (``erf``, ``erfc``, ``erfinv``), ``gammaln``,
``digamma``, ``gammainc``, ``gammaincc``, ``betainc``, ``xlogy``, ``xlog1py``, ``entr``,
``expit``, ``logit``, the normal distribution's
``ndtr``, ``log_ndtr`` and ``ndtri`` (``_ndtr.py``), ``softmax`` and ``log_softmax``.

Where JAX gives a function its own derivative (``xlogy``, ``xlog1py``, ``entr``'s ``x log x``,
``logit``, ``log_ndtr``) so does minigrad, with JAX's formula (``custom_jvp``): the gradients
agree at the edges too (``xlogy(0, y)`` is 0, its x-derivative ``log y``).

``logsumexp``
``log(sum(b * exp(a)))`` is computed as ``m + log(sum(b * exp(a - m)))`` with ``m`` the
largest element (0 where it is not finite, so an all ``-inf`` slice gives ``-inf`` and a
``+inf`` gives ``+inf``), held constant for differentiation: ``m``'s derivative cancels
exactly, and the gradient is the softmax weights ``b * exp(a - out)``, finite for any finite
input however large.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from minigrad import numpy as mnp
from minigrad.core import Tracer, get_aval
from minigrad.custom_rules import custom_jvp
from minigrad.numpy import reductions as rd
from minigrad.numpy.util import ArrayLike, Axis, asarray, check_broadcast, float_dtype
from minigrad.ops import betainc as _betainc
from minigrad.ops import elementwise as ew
from minigrad.ops import incomplete as _inc
from minigrad.ops import special as _xla
from minigrad.ops import special_functions as sf
from minigrad.ops import structural as st
from minigrad.ops.stop_gradient import stop_gradient
from minigrad.scipy._ndtr import log_ndtr, ndtr, ndtri
from minigrad.scipy._util import inexact

__all__ = ["beta", "betainc", "betaln", "comb", "digamma", "entr", "erf", "erfc", "erfinv",
           "expit", "factorial", "gamma", "gammainc", "gammaincc", "gammaln", "gammasgn",
           "kl_div", "log_ndtr", "log_softmax", "loggamma", "logit", "logsumexp", "ndtr",
           "ndtri", "polygamma", "rel_entr", "softmax", "xlog1py", "xlogy"]


def _full(like: Any, value: float) -> Any:
    aval = get_aval(like)
    return st.full(aval.shape, value, aval.dtype)


def logsumexp(a: ArrayLike, axis: Axis = None, b: ArrayLike | None = None,
              keepdims: bool = False, return_sign: bool = False,
              where: ArrayLike | None = None) -> Any:
    """``log(sum(b * exp(a)))`` over ``axis``, without overflow; with ``return_sign``, the
    pair ``(log|s|, sign(s))`` for ``s = sum(b * exp(a))`` (else NaN where ``s < 0``).

    >>> import minigrad.numpy as mnp, numpy as np
    >>> from minigrad.scipy.special import logsumexp
    >>> logsumexp(np.array([1000.0, 1000.0]))  # no overflow
    Array(1000.69314718, dtype=float64)
    """
    rd.check_keepdims(keepdims, "logsumexp")
    if not isinstance(return_sign, (bool, np.bool_)):
        raise TypeError(f"logsumexp: return_sign must be a bool; got {return_sign!r}")
    x = asarray(a)
    if get_aval(x).dtype.kind not in "biuf":
        raise TypeError(f"logsumexp: a must be real; got dtype {get_aval(x).dtype}")
    if b is None:
        dtype = float_dtype(x)
        x = ew.convert_element_type(x, dtype)
    else:
        weights = asarray(b)
        if get_aval(weights).dtype.kind not in "biuf":
            raise TypeError(f"logsumexp: b must be real; got dtype {get_aval(weights).dtype}")
        dtype = float_dtype(x, weights)
        shape = check_broadcast("logsumexp", get_aval(x).shape, get_aval(weights).shape)
        x = st.broadcast_to(ew.convert_element_type(x, dtype), shape)
        weights = st.broadcast_to(ew.convert_element_type(weights, dtype), shape)
    axes = rd.reduction_axes(x, axis, keepdims, "logsumexp")
    peak = rd.max(x, axes, keepdims=True, initial=-np.inf, where=where)
    finite = ew.select(ew.gt(peak, _full(peak, -np.inf)), ew.lt(peak, _full(peak, np.inf)),
                       ew.ne(peak, peak))  # (NaN: False, so NaN propagates through the sum)
    peak = stop_gradient(ew.select(finite, peak, _full(peak, 0.0)))
    terms = ew.exp(ew.sub(x, st.broadcast_to(peak, get_aval(x).shape)))
    if b is not None:
        terms = ew.mul(terms, weights)
    total = rd.sum(terms, axes, keepdims=keepdims, where=where)
    peak = st.reshape(peak, get_aval(total).shape)
    negative = ew.lt(total, _full(total, 0.0))
    out = ew.add(ew.log(ew.select(negative, ew.neg(total), total)), peak)
    if return_sign:
        one, zero = _full(total, 1.0), _full(total, 0.0)
        sign = ew.select(ew.gt(total, zero), one,
                         ew.select(negative, ew.neg(one), ew.select(ew.eq(total, zero), zero,
                                                                    total)))
        return out, sign
    if b is None:
        return out
    return ew.select(negative, _full(out, np.nan), out)


# --------------------------------------------------------------------------- unary functions

def erf(x: ArrayLike) -> Any:
    """The error function ``2/sqrt(pi) * integral_0^x exp(-t**2) dt``."""
    return sf.erf(inexact("erf", x, names=("x",))[0])


def erfc(x: ArrayLike) -> Any:
    """``1 - erf(x)``, accurate where ``erf(x)`` is near 1."""
    return sf.erfc(inexact("erfc", x, names=("x",))[0])


def erfinv(x: ArrayLike) -> Any:
    """The inverse of ``erf`` on (-1, 1); ``+-inf`` at ``+-1``, NaN outside (XLA's kernel,
    JAX's values).

    >>> from minigrad.scipy.special import erfinv
    >>> erfinv(0.5)
    Array(0.47693628, dtype=float64)
    """
    return _via_float32(_xla.erf_inv, *inexact("erfinv", x, names=("x",)))


def gammaln(x: ArrayLike) -> Any:
    """``log |Gamma(x)|``; ``inf`` at the poles ``0, -1, -2, ...``."""
    return sf.lgamma(inexact("gammaln", x, names=("x",))[0])


def digamma(x: ArrayLike) -> Any:
    """``d/dx log Gamma(x)``."""
    return sf.digamma(inexact("digamma", x, names=("x",))[0])


def gammasgn(x: ArrayLike) -> Any:
    """The sign of ``Gamma(x)``: 1 for ``x > 0`` and +0, -1 where ``Gamma`` is negative (``x``
    in (-1, 0), (-3, -2), ... and -0), NaN at the poles (negative integers) and for NaN."""
    (x,) = inexact("gammasgn", x, names=("x",))
    negative = x < 0
    floor_x = mnp.floor(x)
    nan = (negative & (x == floor_x)) | mnp.isnan(x)
    minus = (negative & (mnp.fmod(floor_x, 2) != 0)) | ((x == 0) & mnp.signbit(x))
    one = mnp.ones_like(x)
    return mnp.where(nan, mnp.full_like(x, np.nan), mnp.where(minus, -one, one))


def gamma(x: ArrayLike) -> Any:
    """``Gamma(x)`` = ``gammasgn(x) * exp(gammaln(x))``; NaN at the poles (JAX's)."""
    (x,) = inexact("gamma", x, names=("x",))
    return gammasgn(x) * mnp.exp(sf.lgamma(x))


def loggamma(x: ArrayLike) -> Any:
    """``log Gamma(x)`` for real ``x > 0``; NaN for ``x <= 0`` (JAX's real branch: the
    complex logarithm there is not computed)."""
    (x,) = inexact("loggamma", x, names=("x",))
    return mnp.where(x > 0, sf.lgamma(x), mnp.full_like(x, np.nan))


def betaln(a: ArrayLike, b: ArrayLike) -> Any:
    """``log |B(a, b)|`` = ``gammaln(a) + gammaln(b) - gammaln(a + b)`` (JAX's own algorithm,
    TOMS 708's, loses less for large arguments: see divergences.md)."""
    a, b = inexact("betaln", a, b, names=("a", "b"))
    return sf.lgamma(a) + sf.lgamma(b) - sf.lgamma(a + b)


def beta(a: ArrayLike, b: ArrayLike) -> Any:
    """``B(a, b) = Gamma(a) Gamma(b) / Gamma(a + b)``, as its sign times ``exp(betaln)``."""
    a, b = inexact("beta", a, b, names=("a", "b"))
    sign = gammasgn(a) * gammasgn(b) * gammasgn(a + b)
    return sign * mnp.exp(betaln(a, b))


def factorial(n: ArrayLike, exact: bool = False) -> Any:
    """``n!`` as ``exp(gammaln(n + 1))`` (a float, for any real ``n``); 0 for ``n < 0``.
    ``exact=True`` is refused, as JAX does."""
    if exact:
        raise NotImplementedError("factorial: exact=True is not supported (as JAX)")
    (n,) = inexact("factorial", n, names=("n",))
    return mnp.where(n < 0, mnp.zeros_like(n), mnp.exp(sf.lgamma(n + 1)))


def comb(N: ArrayLike, k: ArrayLike, *, repetition: bool = False) -> Any:
    """The number of combinations of ``N`` things taken ``k`` at a time, as floats through
    ``gammaln``; 0 outside ``0 <= k <= N``. With ``repetition``, ``comb(N + k - 1, k)`` (1 for
    ``k = 0``, ``N >= 0``)."""
    if not isinstance(repetition, (bool, np.bool_)):
        raise TypeError(f"comb: repetition must be a bool; got {repetition!r}")
    big_n, k = inexact("comb", N, k, names=("N", "k"))
    if repetition:
        return mnp.where((k == 0) & (big_n >= 0), mnp.ones_like(k),
                         comb(big_n + k - 1, k, repetition=False))
    valid = (k <= big_n) & (big_n >= 0) & (k >= 0)
    safe_n, safe_k = mnp.where(valid, big_n, 0.0), mnp.where(valid, k, 0.0)
    count = mnp.exp(sf.lgamma(safe_n + 1) - sf.lgamma(safe_k + 1)
                    - sf.lgamma(safe_n + 1 - safe_k))
    return mnp.where(valid, count, mnp.zeros_like(count))


def polygamma(n: ArrayLike, x: ArrayLike) -> Any:
    """The n-th derivative of digamma, ``psi^(n)(x)``: ``digamma`` for n = 0, the ``polygamma``
    primitive (reflection below 0; inf or NaN at the poles) for n >= 1, NaN for n < 0. ``n``
    an integer array or int broadcast against ``x``, whose values must be known: each distinct
    value is one static order of the primitive (JAX also takes a traced ``n``)."""
    value = n.concrete() if isinstance(n, Tracer) else np.asarray(n)
    if value is None:
        raise TypeError("polygamma: n must be concrete (its values choose the primitive's "
                        "static order); got a traced value")
    if value.dtype.kind not in "iu":
        raise ValueError(f"polygamma: n must be of an integer type; got dtype {value.dtype}")
    (x,) = inexact("polygamma", x, names=("x",))
    shape = check_broadcast("polygamma", value.shape, get_aval(x).shape)
    x = st.broadcast_to(x, shape)
    orders = np.broadcast_to(value, shape)
    out = mnp.full_like(x, np.nan)
    for k in (int(k) for k in np.unique(orders[orders >= 0])):
        psi = sf.digamma(x) if k == 0 else _via_float32(partial(sf.polygamma, k), x)
        out = psi if np.all(orders == k) else mnp.where(orders == k, psi, out)
    return out


def _via_float32(prim_fn: Any, *xs: Any) -> Any:
    """``prim_fn(*xs)`` for a primitive defined on float32 and float64 only: float16 operands
    run in float32, the result rounded back (as XLA upcasts them)."""
    dtype = get_aval(xs[0]).dtype
    if dtype.itemsize >= 4:
        return prim_fn(*xs)
    up = [ew.convert_element_type(v, np.dtype(np.float32)) for v in xs]
    return ew.convert_element_type(prim_fn(*up), dtype)


def gammainc(a: ArrayLike, x: ArrayLike) -> Any:
    """The regularized lower incomplete gamma ``P(a, x) = gamma(a, x) / Gamma(a)``,
    differentiable in both (``a`` through ``d^k P / da^k``, ``ops/incomplete.py``).

    >>> from minigrad.scipy.special import gammainc
    >>> gammainc(1.0, 2.0)  # 1 - exp(-2)
    Array(0.86466472, dtype=float64)
    """
    return _via_float32(_inc.igamma, *inexact("gammainc", a, x, names=("a", "x")))


def gammaincc(a: ArrayLike, x: ArrayLike) -> Any:
    """The regularized upper incomplete gamma ``Q(a, x) = 1 - P(a, x)``, computed directly
    in the right tail (no cancellation)."""
    return _via_float32(_inc.igammac, *inexact("gammaincc", a, x, names=("a", "x")))


def betainc(a: ArrayLike, b: ArrayLike, x: ArrayLike) -> Any:
    """The regularized incomplete beta ``I_x(a, b) = 1/B(a, b) int_0^x t^(a-1) (1-t)^(b-1)
    dt`` (the ``regularized_incomplete_beta`` primitive, ``ops/betainc.py``); differentiable
    in ``x`` only, as JAX's (a gradient in ``a`` or ``b`` raises NotImplementedError).

    >>> from minigrad.scipy.special import betainc
    >>> betainc(1.0, 2.0, 0.5)  # 1 - (1 - x)^2
    Array(0.75, dtype=float64)
    """
    return _via_float32(_betainc.betainc, *inexact("betainc", a, b, x, names=("a", "b", "x")))


def expit(x: ArrayLike) -> Any:
    """The logistic sigmoid ``1 / (1 + exp(-x))``, from ``exp(-|x|)`` so nothing overflows."""
    (x,) = inexact("expit", x, names=("x",))
    pos = x >= 0
    e = mnp.exp(mnp.where(pos, -x, x))
    return mnp.where(pos, 1 / (1 + e), e / (1 + e))


def _logit_value(x: Any) -> Any:
    return mnp.log(x / (1 - x))


_logit = custom_jvp(_logit_value)
# out_dot = x_dot / (x (1 - x))
_logit.defjvps(lambda t, out, x: t / (x * (1 - x)))


def logit(x: ArrayLike) -> Any:
    """``log(x / (1 - x))``, the inverse of ``expit``: ``-inf`` at 0, ``inf`` at 1."""
    return _logit(inexact("logit", x, names=("x",))[0])


# --------------------------------------------------------------------------- x log y

def _xlogy_value(x: Any, y: Any) -> Any:
    # 0 where x == 0 (also at y == 0), unless y is NaN (SciPy's rule); the unused log sees 1
    # (the derivative is the rule below, not this formula's)
    use = (x != 0) | mnp.isnan(y)
    return mnp.where(use, x * mnp.log(mnp.where(use, y, 1)), mnp.zeros_like(x))


_xlogy = custom_jvp(_xlogy_value)


@_xlogy.defjvp
def _xlogy_jvp(primals: tuple, tangents: tuple) -> tuple:
    # out_dot = x_dot log(y) + y_dot x / y
    (x, y), (x_dot, y_dot) = primals, tangents
    return _xlogy(x, y), x_dot * mnp.log(y) + y_dot * x / y


def xlogy(x: ArrayLike, y: ArrayLike) -> Any:
    """``x * log(y)``, and 0 where ``x == 0`` (also at ``y == 0``); JAX's derivative
    ``(log y, x / y)`` everywhere.

    >>> from minigrad.scipy.special import xlogy
    >>> xlogy(0.0, 0.0)
    Array(0., dtype=float64)
    """
    return _xlogy(*inexact("xlogy", x, y, names=("x", "y")))


def _xlog1py_value(x: Any, y: Any) -> Any:
    use = (x != 0) | mnp.isnan(y)
    return mnp.where(use, x * mnp.log1p(mnp.where(use, y, 0)), mnp.zeros_like(x))


_xlog1py = custom_jvp(_xlog1py_value)


@_xlog1py.defjvp
def _xlog1py_jvp(primals: tuple, tangents: tuple) -> tuple:
    # out_dot = x_dot log1p(y) + y_dot x / (1 + y)
    (x, y), (x_dot, y_dot) = primals, tangents
    return _xlog1py(x, y), x_dot * mnp.log1p(y) + y_dot * x / (1 + y)


def xlog1py(x: ArrayLike, y: ArrayLike) -> Any:
    """``x * log1p(y)``, and 0 where ``x == 0`` (also at ``y == -1``)."""
    return _xlog1py(*inexact("xlog1py", x, y, names=("x", "y")))


def _xlogx_value(x: Any) -> Any:
    return _xlogy(x, x)


_xlogx = custom_jvp(_xlogx_value)
# out_dot = x_dot (log x + 1)
_xlogx.defjvps(lambda t, out, x: t * (mnp.log(x) + 1))


def entr(x: ArrayLike) -> Any:
    """The entropy term ``-x log x`` for ``x > 0``, 0 at 0, ``-inf`` below."""
    (x,) = inexact("entr", x, names=("x",))
    return mnp.where(x < 0, -np.inf, -_xlogx(x))


def rel_entr(p: ArrayLike, q: ArrayLike) -> Any:
    """The relative entropy term ``p log(p / q)`` for ``p, q > 0``; 0 where ``p == 0`` and
    ``q >= 0``; inf elsewhere. Computed, as JAX's, as ``p log p - p log q`` on the positive
    entries (derivatives ``log(p / q)`` and ``-p / q`` there, 0 elsewhere)."""
    p, q = inexact("rel_entr", p, q, names=("p", "q"))
    positive = (p > 0) & (q > 0)
    safe_p = mnp.where(positive, p, mnp.ones_like(p))
    safe_q = mnp.where(positive, q, mnp.ones_like(q))
    value = _xlogx(safe_p) - _xlogy(safe_p, safe_q)
    rest = mnp.where((p == 0) & (q >= 0), mnp.zeros_like(p), mnp.full_like(p, np.inf))
    return mnp.where(positive, value, rest)


def kl_div(p: ArrayLike, q: ArrayLike) -> Any:
    """``rel_entr(p, q) - p + q``: the Kullback-Leibler divergence term (SciPy's and JAX's)."""
    p, q = inexact("kl_div", p, q, names=("p", "q"))
    return rel_entr(p, q) - p + q


# --------------------------------------------------------------------------- softmax

def _shifted(x: ArrayLike, axis: Axis, fn: str) -> Any:
    """``x - max(x)`` over ``axis``, the maximum held constant (its derivative cancels)."""
    (x,) = inexact(fn, x, names=("x",))
    return x - stop_gradient(mnp.max(x, axis, keepdims=True))


def softmax(x: ArrayLike, /, *, axis: Axis = None) -> Any:
    """``exp(x) / sum(exp(x))`` over ``axis`` (all axes by default, as SciPy), without
    overflow."""
    e = mnp.exp(_shifted(x, axis, "softmax"))
    return e / mnp.sum(e, axis, keepdims=True)


def log_softmax(x: ArrayLike, /, *, axis: Axis = None) -> Any:
    """``x - logsumexp(x)`` over ``axis`` (all axes by default, as SciPy)."""
    shifted = _shifted(x, axis, "log_softmax")
    return shifted - mnp.log(mnp.sum(mnp.exp(shifted), axis, keepdims=True))

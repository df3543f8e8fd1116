"""The regularized incomplete gamma functions as elementwise primitives: ``igamma(a, x) =
P(a, x)``, ``igammac(a, x) = Q(a, x) = 1 - P(a, x)``, and their derivatives in ``a``,
``igamma_da(a, x, order=k) = d^k P / da^k`` (``k >= 1``).

The algorithms are Cephes' (the ones XLA runs for JAX): ``P`` from its power series where
``x < 1`` or ``x <= a``, else ``Q`` from its continued fraction. The derivatives in ``a`` run
the same recurrences on truncated Taylor series in ``a`` (``a + e``, coefficients of ``e^0 ..
e^k``), so ``d^k P / da^k`` is ``k!`` times the last coefficient; JAX's ``igamma_grad_a`` is
order 1. Every impl runs in float64, all elements at once, iterating until every element has
converged (at most 2000 steps): the loop is over terms, never over elements.

Derivatives: in ``x``, ``d/dx d^k P / da^k = d^k/da^k exp(g)``, ``g(a) = (a - 1) log x - x -
lgamma(a)`` (the density's derivatives in ``a``, complete Bell polynomials in ``g'``, ``g''``
...: a composite of log, digamma and polygamma); in ``a``, the next order.
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any

import numpy as np

from minigrad.core import Primitive, Zero, get_aval
from minigrad.ops import elementwise as ew
from minigrad.ops.special import _float_abstract_eval
from minigrad.ops.special_functions import (
    _digamma,
    _lgamma,
    _polygamma_impl,
    digamma,
    lgamma,
    polygamma,
)

_EPS = float(np.finfo(np.float64).eps)
_STEPS = 2000


# --------------------------------------------------------------------------- Taylor series
# A truncated series in e is an array (k + 1, *shape): entry j the coefficient of e^j.

def _mul(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    out = np.zeros(np.broadcast_shapes(u.shape, v.shape))
    for j in range(len(out)):
        for i in range(j + 1):
            out[j] += u[i] * v[j - i]
    return out


def _div(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    # (u / v)_j = (u_j - sum_{i >= 1} v_i (u/v)_{j-i}) / v_0
    out = np.zeros(np.broadcast_shapes(u.shape, v.shape))
    for j in range(len(out)):
        acc = u[j] - sum((v[i] * out[j - i] for i in range(1, j + 1)), np.zeros_like(u[j]))
        out[j] = acc / v[0]
    return out


def _exp(u: np.ndarray) -> np.ndarray:
    # exp(u)' = u' exp(u):  E_j = (1/j) sum_{i=1..j} i u_i E_{j-i}
    out = np.zeros_like(u)
    out[0] = np.exp(u[0])
    for j in range(1, u.shape[0]):
        out[j] = sum(i * u[i] * out[j - i] for i in range(1, j + 1)) / j
    return out


def _linear(value: np.ndarray, slope: float, k: int) -> np.ndarray:
    """``value + slope e`` as a series of k + 1 terms."""
    out = np.zeros((k + 1, *np.shape(value)))
    out[0] = value
    if k >= 1:
        out[1] = slope
    return out


def _log_prefactor(a: np.ndarray, x: np.ndarray, k: int, shift: float) -> np.ndarray:
    """``(a + e) log x - x - lgamma(a + shift + e)``: lgamma's coefficients are
    ``psi^(j-1)(a + shift) / j!``."""
    out = np.zeros((k + 1, *a.shape))
    out[0] = a * np.log(x) - x - _lgamma(a + shift)
    for j in range(1, k + 1):
        psi = _polygamma_impl(a + shift, n=j - 1) if j > 1 else _digamma(a + shift)
        out[j] = (np.log(x) if j == 1 else 0.0) - psi / math.factorial(j)
    return out


def _series(a: np.ndarray, x: np.ndarray, k: int) -> np.ndarray:
    """``S = sum_n x^n / ((a+1)...(a+n))`` in ``a + e``: ``P = S x^a e^-x / Gamma(a+1)``."""
    c = _linear(np.ones_like(a), 0.0, k)
    total = c.copy()
    active = np.ones(a.shape, bool)
    for n in range(1, _STEPS + 1):
        # c_n = c_{n-1} x / (a + n + e), 1 / (r + e) = sum_j (-1)^j e^j / r^(j+1)
        r = a + n
        inv = np.stack([(-1) ** j / r ** (j + 1) for j in range(k + 1)])
        c = np.where(active, _mul(c, inv) * x, c)
        total = np.where(active, total + c, total)
        active = active & np.any(np.abs(c) > _EPS * np.abs(total), axis=0)
        if not active.any():
            break
    return total


def _continued_fraction(a: np.ndarray, x: np.ndarray, k: int) -> np.ndarray:
    """Cephes' continued fraction ``F`` in ``a + e`` (convergents ``p_n / q_n``, rescaled when
    they grow): ``Q = F x^a e^-x / Gamma(a)``."""
    y = _linear(1 - a, -1.0, k)
    z = _linear(x + 2 - a, -1.0, k)
    pkm2, qkm2 = _linear(np.ones_like(x), 0.0, k), _linear(x, 0.0, k)
    pkm1, qkm1 = _linear(x + 1, 0.0, k), z * x
    ans = _div(pkm1, qkm1)
    active = np.ones(x.shape, bool)
    for c in range(1, _STEPS + 1):
        y[0] += 1
        z[0] += 2
        yc = y * c
        pk = _mul(pkm1, z) - _mul(pkm2, yc)
        qk = _mul(qkm1, z) - _mul(qkm2, yc)
        ok = qk[0] != 0
        r = np.where(ok, _div(pk, np.where(ok, qk, 1.0)), ans)
        moved = np.any(np.abs(r - ans) > _EPS * np.abs(r), axis=0)
        ans = np.where(active, r, ans)
        scale = np.where(np.abs(pk[0]) > 1 / _EPS, _EPS, 1.0)  # keep the convergents in range
        pkm2, pkm1 = np.where(active, pkm1 * scale, pkm2), np.where(active, pk * scale, pkm1)
        qkm2, qkm1 = np.where(active, qkm1 * scale, qkm2), np.where(active, qk * scale, qkm1)
        active = active & (moved | ~ok)
        if not active.any():
            break
    return ans


def _p_series(a: np.ndarray, x: np.ndarray, k: int) -> np.ndarray:
    """The series of ``P`` in ``a + e``, every element by the branch that converges for it
    (operands inside the domain: a > 0, 0 < x < inf)."""
    use_cf = (x >= 1) & (x > a)
    a_s, x_s = np.where(use_cf, 1.0, a), np.where(use_cf, 0.5, x)
    p = _mul(_exp(_log_prefactor(a_s, x_s, k, 1.0)), _series(a_s, x_s, k))
    a_c, x_c = np.where(use_cf, a, 1.0), np.where(use_cf, x, 2.0)
    q = _mul(_exp(_log_prefactor(a_c, x_c, k, 0.0)), _continued_fraction(a_c, x_c, k))
    one_minus_q = -q
    one_minus_q[0] = 1 - q[0]
    return np.where(use_cf, one_minus_q, p)  # type: ignore[no-any-return]


def _inside(a: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ok = (a > 0) & (x > 0) & np.isfinite(x)
    return ok, np.where(ok, a, 1.0), np.where(ok, x, 1.0)


def _float64(fn: Any) -> Any:
    """``fn`` on float64 operands (NumPy's warnings off), the result in a's dtype."""
    def impl(a: np.ndarray, x: np.ndarray, **params: Any) -> np.ndarray:
        with np.errstate(all="ignore"):
            a64, x64 = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
            out = fn(a64, x64, **params)
        return np.asarray(out, np.asarray(a).dtype)

    impl.__name__ = fn.__name__
    return impl


def _nan_where_invalid(out: np.ndarray, a: np.ndarray, x: np.ndarray) -> np.ndarray:
    bad = (x < 0) | (a < 0) | ((a == 0) & (x == 0)) | np.isnan(a) | np.isnan(x)
    return np.where(bad, np.nan, out)  # type: ignore[no-any-return]


@_float64
def _igamma(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    ok, a_in, x_in = _inside(a, x)
    p = np.where(ok, _p_series(a_in, x_in, 0)[0], 0.0)
    p = np.where(np.isposinf(x) | ((a == 0) & (x > 0)), 1.0, p)
    return _nan_where_invalid(p, a, x)


@_float64
def _igammac(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    ok, a_in, x_in = _inside(a, x)
    # Q directly where the continued fraction runs (no 1 - P cancellation in the far tail)
    use_cf = (x_in >= 1) & (x_in > a_in)
    q_cf = _exp(_log_prefactor(a_in, x_in, 0, 0.0))[0] * _continued_fraction(
        np.where(use_cf, a_in, 1.0), np.where(use_cf, x_in, 2.0), 0)[0]
    q = np.where(use_cf, q_cf, 1 - _p_series(np.where(use_cf, 1.0, a_in),
                                             np.where(use_cf, 0.5, x_in), 0)[0])
    q = np.where(ok, q, np.where(x == 0, 1.0, 0.0))
    return _nan_where_invalid(q, a, x)


@_float64
def _igamma_da(a: np.ndarray, x: np.ndarray, *, order: int) -> np.ndarray:
    ok, a_in, x_in = _inside(a, x)
    d = _p_series(a_in, x_in, order)[order] * math.factorial(order)
    d = np.where(ok, d, 0.0)  # P is 0 at x = 0 and 1 at x = inf for every a
    return np.where((a <= 0) | (x < 0) | np.isnan(a) | np.isnan(x), np.nan, d)  # type: ignore


# --------------------------------------------------------------------------- the primitives

def _density_da(a: Any, x: Any, order: int) -> Any:
    """``d^order/da^order exp(g)``, ``g = (a - 1) log x - x - lgamma(a)`` (the density of the
    gamma distribution, ``dP/dx``): ``exp(g) B_order(g', g'', ...)`` with the complete Bell
    polynomials ``B_{n+1} = sum_i C(n, i) B_{n-i} g^(i+1)``, ``g' = log x - digamma(a)``,
    ``g^(j) = -polygamma(j - 1, a)``."""
    one = ew.full_like(a, 1.0)
    g = ew.sub(ew.sub(ew.mul(ew.sub(a, one), ew.log(x)), x), lgamma(a))
    derivs = [ew.sub(ew.log(x), digamma(a))]
    derivs += [ew.neg(polygamma(j - 1, a)) for j in range(2, order + 1)]
    bell = [one]
    for n in range(order):
        total = ew.mul(bell[n], derivs[0])
        for i in range(1, n + 1):
            total = ew.add(total, ew.mul(ew.full_like(a, float(math.comb(n, i))),
                                         ew.mul(bell[n - i], derivs[i])))
        bell.append(total)
    return ew.mul(ew.exp(g), bell[order])


igamma_da_p = Primitive("igamma_da")


def igamma_da(a: Any, x: Any, order: int = 1) -> Any:
    """``d^order P(a, x) / da^order`` (JAX's ``igamma_grad_a`` is order 1), operands of one
    shape and float dtype."""
    if isinstance(order, bool) or not isinstance(order, int) or order < 1:
        raise ValueError(f"igamma_da: order must be an int >= 1; got {order!r}")
    return igamma_da_p.bind(a, x, order=order)


igamma_da_p.def_impl(_igamma_da)
igamma_da_p.def_abstract_eval(lambda a, x, *, order: _float_abstract_eval("igamma_da", a, x))
igamma_da_p.def_batch(partial(ew._elementwise_batch, igamma_da_p))


@igamma_da_p.def_jvp
def _igamma_da_jvp(primals: tuple, tangents: tuple, *, order: int) -> tuple:
    # out_dot = a_dot d^(k+1)P/da^(k+1) + x_dot d^k/da^k (dP/dx)
    (a, x), (a_dot, x_dot) = primals, tangents
    out = igamma_da(a, x, order)
    terms = []
    if not isinstance(a_dot, Zero):
        terms.append(ew.mul(a_dot, igamma_da(a, x, order + 1)))
    if not isinstance(x_dot, Zero):
        terms.append(ew.mul(x_dot, _density_da(a, x, order)))
    if not terms:
        return out, Zero(get_aval(out))
    return out, terms[0] if len(terms) == 1 else ew.add(terms[0], terms[1])


# P_dot = a_dot dP/da + x_dot x^(a-1) e^-x / Gamma(a)
igamma_p = ew.binary("igamma", _igamma, lambda t, a, x, out: ew.mul(t, igamma_da(a, x)),
                     lambda t, a, x, out: ew.mul(t, _density_da(a, x, 0)))
# Q = 1 - P: Q_dot = -P_dot
igammac_p = ew.binary("igammac", _igammac,
                      lambda t, a, x, out: ew.neg(ew.mul(t, igamma_da(a, x))),
                      lambda t, a, x, out: ew.neg(ew.mul(t, _density_da(a, x, 0))))
for _prim in (igamma_p, igammac_p):
    _prim.def_abstract_eval(partial(_float_abstract_eval, _prim.name))


def igamma(a: Any, x: Any) -> Any:
    """The regularized lower incomplete gamma ``P(a, x)``, operands of one shape and float
    dtype."""
    return igamma_p.bind(a, x)


def igammac(a: Any, x: Any) -> Any:
    """The regularized upper incomplete gamma ``Q(a, x) = 1 - P(a, x)``."""
    return igammac_p.bind(a, x)

"""The regularized incomplete beta function ``I_x(a, b)`` as an elementwise primitive,
``regularized_incomplete_beta(a, b, x)`` (JAX's primitive of that name, ``lax.betainc``):

    I_x(a, b) = 1/B(a, b) int_0^x t^(a-1) (1-t)^(b-1) dt.

Impl: the continued fraction of DLMF 8.17.22, ``I_x(a, b) = x^a (1-x)^b / (a B(a, b)) /
(1 + d_1 / (1 + d_2 / (1 + ...)))`` with ``d_(2m+1) = -(a+m)(a+b+m) x / ((a+2m)(a+2m+1))``
and ``d_(2m) = m (b-m) x / ((a+2m-1)(a+2m))``, evaluated by the modified Lentz method. It
converges fast for ``x < (a+1)/(a+b+2)``; the impl computes ``1 - I_(1-x)(b, a)`` (DLMF
8.17.4) above the mean ``a/(a+b)``, as Cephes does (JAX switches at ``(a+1)/(a+b+2)``), so
the tail computed is the smaller and ``1 - tail`` loses little (for shapes up to 100; above,
JAX's switch, where the fraction converges fast). The front factor ``x^a
(1-x)^b / (a B(a, b))`` avoids lgamma's cancellations (Stirling's series with the large
terms cancelled by hand for large ``a``, ``b``, as DiDonato and Morris do). All elements
at once, in float64: one loop over the fraction's terms (the elements whose factor is within
eps of 1 drop out), never over elements.

Edges (JAX's): NaN if any operand is NaN, ``a < 0``, ``b < 0``, ``x`` outside [0, 1], or
both ``a`` and ``b`` are degenerate; ``a = 0`` (or ``b = inf``) puts all the mass at 0 (the
result is 1 for ``x > 0``, 0 at ``x = 0``), ``b = 0`` (or ``a = inf``) at 1 (0 for ``x < 1``,
1 at ``x = 1``).

Derivatives: in ``x`` only, the beta density ``x^(a-1) (1-x)^(b-1) / B(a, b)`` (through
logs and lgamma, JAX's formula); JAX defines none in ``a`` or ``b``, and neither does
minigrad: a nonzero tangent there raises (a symbolic zero passes).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from minigrad.core import Primitive, Zero, get_aval
from minigrad.ops import elementwise as ew
from minigrad.ops.special import _float_abstract_eval
from minigrad.ops.special_functions import _BERNOULLI, _horner, _lgamma, lgamma
from minigrad.ops.unary import log1p

_EPS = float(np.finfo(np.float64).eps)
_TINY = 1e-300  # Lentz's stand-in for a zero denominator
_STEPS = 3000  # a cap: shapes below 1e6 need at most hundreds of terms
_SLOW = 100.0  # past its fast region, the fraction of a larger shape converges too slowly


def _fraction(a: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``1 / (1 + d_1 / (1 + d_2 / ...))`` by modified Lentz, every element at once; the
    elements still converging are compacted out of the others as they finish, so each step
    costs only what is left (slow elements do not make every element pay)."""
    shape = x.shape
    out = np.ones(x.size)
    live: np.ndarray = np.arange(x.size)
    a, b, x = a.ravel(), b.ravel(), x.ravel()
    f: np.ndarray = np.ones(x.size)
    c: np.ndarray = np.ones(x.size)
    d: np.ndarray = np.zeros(x.size)
    for j in range(1, _STEPS + 1 if x.size else 0):
        m = j // 2
        if j % 2:  # d_(2m+1)
            num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
        else:  # d_(2m)
            num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
        d = 1 + num * d
        d = 1 / np.where(d == 0, _TINY, d)
        c = 1 + num / c
        c = np.where(c == 0, _TINY, c)
        delta = c * d
        f = f * delta
        going = ~(np.abs(delta - 1) <= _EPS)
        if not going.all():
            out[live[~going]] = f[~going]
            live, a, b, x, f, c, d = (v[going] for v in (live, a, b, x, f, c, d))
            if live.size == 0:
                break
    out[live] = f  # (any left after _STEPS: their last convergent)
    return (1 / out).reshape(shape)  # type: ignore[no-any-return]


# --------------------------------------------------------------------------- the front factor
# x^p (1-x)^q / (p B(p, q)), in pieces whose rounding errors stay small (a naive
# exp(p log x + q log(1-x) - lbeta) loses |each term| * eps: hundreds of eps from p, q ~ 20).

_BIG = 8.0  # Stirling's series from here up
_STIRLING = [float(b / (2 * k * (2 * k - 1))) for k, b in enumerate(_BERNOULLI, 1)]


def _stirling_correction(z: np.ndarray) -> np.ndarray:
    """``lgamma(z) - ((z - 1/2) log z - z + log(2 pi) / 2)`` for ``z >= 8``."""
    w = 1 / z
    return w * _horner(_STIRLING, w * w)  # type: ignore[no-any-return]


def _log1p_minus(e: np.ndarray, log1p_e: np.ndarray) -> np.ndarray:
    """``e - log1p(e)`` for ``e > -1``, given ``log1p(e)`` computed from the data (``e``
    itself may carry a cancellation's error), without the cancellation near 0: with ``t = e /
    (2 + e)``, ``log1p(e) = 2 atanh(t)``, so ``e - log1p(e) = e^2 / (2 + e) - 2 (t^3/3 +
    t^5/5 + ...)`` (|t| <= 1/7 for |e| <= 1/4: ten terms)."""
    small = np.abs(e) <= 0.25
    es = np.where(small, e, 0.0)
    t = es / (2 + es)
    t2 = t * t
    tail = _horner([1 / (2 * k + 3) for k in range(10)], t2) * t2 * t
    series = es * es / (2 + es) - 2 * tail
    return np.where(small, series, e - log1p_e)  # type: ignore[no-any-return]


def _lgamma_shift(big: np.ndarray, small: np.ndarray) -> np.ndarray:
    """``lgamma(big + small) - lgamma(big)`` (``big >= small > 0``): by Stirling's series for
    ``big >= 8``, where the two lgammas would cancel."""
    b8 = np.maximum(big, _BIG)
    s = np.where(big >= _BIG, small, 0.0)
    stirling = ((b8 - 0.5) * np.log1p(s / b8) + s * np.log(b8 + s) - s
                + _stirling_correction(b8 + s) - _stirling_correction(b8))
    return np.where(big >= _BIG, stirling, _lgamma(big + small) - _lgamma(big))  # type: ignore


def _front(p: np.ndarray, q: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``y^p (1-y)^q / (p B(p, q))`` for ``0 <= y < p / (p + q)`` (the side the impl takes,
    where ``|q log(1-y)| <= p``)."""
    # p, q >= 8: y^p (1-y)^q / B(p, q) = sqrt(p q / (2 pi s)) exp(-(p u + q v) - bcorr),
    # u = rlog(-lam / p), v = rlog(lam / q), lam = p - s y, rlog(e) = e - log1p(e) (Stirling's
    # lgammas with the large terms cancelled by hand; DiDonato and Morris' way)
    both = (p >= _BIG) & (q >= _BIG)
    pb, qb, yb = np.where(both, p, _BIG), np.where(both, q, _BIG), np.where(both, y, 0.25)
    sb = pb + qb
    lam = pb - sb * yb
    # 1 - lam/p = s y / p and 1 + lam/q = s (1-y) / q, their logs from y (lam cancels)
    u = _log1p_minus(-lam / pb, np.log(yb * (sb / pb)))
    v = _log1p_minus(lam / qb, np.log1p(-yb) + np.log(sb / qb))
    bcorr = _stirling_correction(pb) + _stirling_correction(qb) - _stirling_correction(sb)
    large = np.sqrt(pb * qb / (2 * np.pi * sb)) * np.exp(-(pb * u + qb * v) - bcorr) / pb
    # otherwise: log(1 / (p B(p, q))) = lgamma(p + q) - lgamma(p + 1) - lgamma(q), with the
    # lgamma of the larger shape cancelled by _lgamma_shift; y^p by power, unless it underflows
    p_big = p >= q
    log_inv_pb = np.where(p_big, _lgamma_shift(p, q) - _lgamma(q) - np.log(p),
                          _lgamma_shift(q, p) - _lgamma(p + 1))
    rest = q * np.log1p(-y) + log_inv_pb
    power = np.power(y, p)
    by_power = power * np.exp(rest)
    by_logs = np.exp(p * np.log(y) + rest)
    small = np.where((power > 1e-290) & np.isfinite(by_power), by_power, by_logs)
    return np.where(both, large, small)  # type: ignore[no-any-return]


def _interior(a: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``I_x(a, b)`` for ``a, b > 0`` finite and ``0 <= x <= 1``. The fraction converges fast
    for ``x < (a+1)/(a+b+2)`` (JAX's switch). The impl switches at the mean ``a / (a+b)``
    instead, near the median, so the tail it computes is the smaller one and ``1 - value``
    loses little; unless the fraction that takes has a shape above 100, where past its fast
    region it would need thousands of terms (then JAX's switch)."""
    at_mean = x * (a + b) < a
    direct = np.where(np.where(at_mean, a, b) <= _SLOW, at_mean, x * (a + b + 2) < a + 1)
    p, q, y = np.where(direct, a, b), np.where(direct, b, a), np.where(direct, x, 1 - x)
    value = _front(p, q, y) * _fraction(p, q, y)
    return np.where(direct, value, 1 - value)  # type: ignore[no-any-return]


def _betainc(a: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
    dtype = np.asarray(a).dtype
    with np.errstate(all="ignore"):
        a, b, x = np.broadcast_arrays(*[np.asarray(v, np.float64) for v in (a, b, x)])
        mass_at_0 = (a == 0) | (b == np.inf)  # the distribution is a point mass at 0
        mass_at_1 = (b == 0) | (a == np.inf)
        nan = ((a < 0) | (b < 0) | (x < 0) | (x > 1) | (mass_at_0 & mass_at_1)
               | np.isnan(a) | np.isnan(b) | np.isnan(x))
        inside = ~(nan | mass_at_0 | mass_at_1)
        out = _interior(np.where(inside, a, 1.0), np.where(inside, b, 1.0),
                        np.where(inside, x, 0.5))
        out = np.where(mass_at_0, np.where(x == 0, 0.0, 1.0), out)
        out = np.where(mass_at_1, np.where(x == 1, 1.0, 0.0), out)
        out = np.where(nan, np.nan, out)
    return np.asarray(out, dtype)


def _density(a: Any, b: Any, x: Any) -> Any:
    """``exp((a-1) log x + (b-1) log1p(-x) - lbeta(a, b))`` (JAX's formula, so the values at
    the ends of [0, 1] agree: NaN where ``0 * log 0`` appears)."""
    one = ew.full_like(a, 1.0)
    lbeta = ew.sub(ew.add(lgamma(a), lgamma(b)), lgamma(ew.add(a, b)))
    log_density = ew.add(ew.mul(ew.sub(b, one), log1p(ew.neg(x))),
                         ew.mul(ew.sub(a, one), ew.log(x)))
    return ew.exp(ew.sub(log_density, lbeta))


regularized_incomplete_beta_p = Primitive("regularized_incomplete_beta")
regularized_incomplete_beta_p.def_impl(_betainc)
regularized_incomplete_beta_p.def_abstract_eval(partial(_float_abstract_eval, "betainc"))
regularized_incomplete_beta_p.def_batch(partial(ew._elementwise_batch,
                                                regularized_incomplete_beta_p))

# The operands whose tangents the JVP rejects (the closure meta-test and the checker
# differentiate in the others only).
NONDIFFERENTIABLE = (0, 1)


@regularized_incomplete_beta_p.def_jvp
def _betainc_jvp(primals: tuple, tangents: tuple) -> tuple:
    # out_dot = x_dot * x^(a-1) (1-x)^(b-1) / B(a, b)
    (a, b, x), (_, _, x_dot) = primals, tangents
    for name, t in zip(("a", "b"), tangents[:2], strict=True):
        if not isinstance(t, Zero):
            raise NotImplementedError(
                f"betainc: the derivative with respect to {name} is not implemented (JAX "
                f"defines none either); differentiate with respect to x only, or wrap {name} "
                "in stop_gradient")
    out = betainc(a, b, x)
    if isinstance(x_dot, Zero):
        return out, Zero(get_aval(out))
    return out, ew.mul(x_dot, _density(a, b, x))


def betainc(a: Any, b: Any, x: Any) -> Any:
    """The regularized incomplete beta ``I_x(a, b)``, operands of one shape and float dtype
    (float32 or float64)."""
    return regularized_incomplete_beta_p.bind(a, b, x)

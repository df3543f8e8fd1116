"""The regularized incomplete beta function ``I_x(a, b)`` as an elementwise primitive,
``regularized_incomplete_beta(a, b, x)`` (JAX's primitive of that name, ``lax.betainc``):

    I_x(a, b) = 1/B(a, b) int_0^x t^(a-1) (1-t)^(b-1) dt.

Impl: the continued fraction of DLMF 8.17.22, ``I_x(a, b) = x^a (1-x)^b / (a B(a, b)) /
(1 + d_1 / (1 + d_2 / (1 + ...)))`` with ``d_(2m+1) = -(a+m)(a+b+m) x / ((a+2m)(a+2m+1))``
and ``d_(2m) = m (b-m) x / ((a+2m-1)(a+2m))``, evaluated by the modified Lentz method. It
converges fast for ``x < (a+1)/(a+b+2)``; elsewhere the impl computes ``1 - I_(1-x)(b, a)``
(DLMF 8.17.4), as Cephes and JAX do. All elements at once, in float64: one loop over the
fraction's terms (an element stops updating once its factor is within eps of 1), never over
elements.

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
from minigrad.ops.special_functions import _lgamma, lgamma
from minigrad.ops.unary import log1p

_EPS = float(np.finfo(np.float64).eps)
_TINY = 1e-300  # Lentz's stand-in for a zero denominator
_STEPS = 3000  # enough for a, b up to ~1e6 (the fraction needs O(sqrt(min(a, b))) terms)


def _fraction(a: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``1 / (1 + d_1 / (1 + d_2 / ...))`` by modified Lentz, every element at once."""
    f = np.ones_like(x)
    c = np.ones_like(x)
    d = np.zeros_like(x)
    active = np.ones(x.shape, bool)
    for j in range(1, _STEPS + 1):
        m = j // 2
        if j % 2:  # d_(2m+1)
            num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
        else:  # d_(2m)
            num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
        d_new = 1 + num * d
        d_new = 1 / np.where(d_new == 0, _TINY, d_new)
        c_new = 1 + num / c
        c_new = np.where(c_new == 0, _TINY, c_new)
        delta = c_new * d_new
        f = np.where(active, f * delta, f)
        c, d = np.where(active, c_new, c), np.where(active, d_new, d)
        active &= ~(np.abs(delta - 1) <= _EPS)
        if not active.any():
            break
    return 1 / f  # type: ignore[no-any-return]


def _interior(a: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``I_x(a, b)`` for ``a, b > 0`` finite and ``0 <= x <= 1``."""
    direct = x < (a + 1) / (a + b + 2)
    p, q, y = np.where(direct, a, b), np.where(direct, b, a), np.where(direct, x, 1 - x)
    # x^p (1-x)^q / (p B(p, q)); p B(p, q) = Gamma(p + 1) Gamma(q) / Gamma(p + q), which
    # stays finite as p -> 0
    log_factor = (p * np.log(y) + q * np.log1p(-y)
                  - (_lgamma(p + 1) + _lgamma(q) - _lgamma(p + q)))
    value = np.exp(log_factor) * _fraction(p, q, y)
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

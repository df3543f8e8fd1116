"""Elementwise unary primitives beyond the base set: rounding, the sign, inverse trigonometric
and hyperbolic functions, ``log1p``/``expm1``/``exp2``/``cbrt``, ``logistic``, and the two
predicates ``is_finite`` and ``signbit`` (lax's set; the rest of NumPy's unary functions are
composites in ``minigrad.numpy``).

Each is one ``unary(name, impl, deriv)`` line from ``ops/elementwise.py``'s family: the impl is
NumPy's ufunc (so a jitted program can run it in place) and ``deriv(t, x, out=y)`` the tangent,
written with primitives so that it is differentiable and batchable in its turn. A derivative of
``None`` is zero: the piecewise-constant functions (sign, floor, ceil, round) have a zero JVP, as
in JAX. Operands are floating unless a line says otherwise: ``minigrad.numpy`` converts first.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from minigrad.core import Primitive, ShapedArray, Zero, float0, get_aval
from minigrad.ops.elementwise import (
    add,
    div,
    full_like,
    ge,
    integer_pow,
    mul,
    neg,
    select,
    sqrt,
    sub,
    unary,
)
from minigrad.ops.structural import vectorized_batch

_LN2 = float(np.log(2.0))


def _one_minus_square(x: Any) -> Any:
    # 1 - x**2 as (1 - x)(1 + x): no cancellation near |x| = 1
    one = full_like(x, 1)
    return mul(sub(one, x), add(one, x))


# --------------------------------------------------------------------------- piecewise constant
# Zero derivative everywhere (JAX's choice at the jumps too). sign and abs take integers as well.

sign_p = unary("sign", np.sign, None)
floor_p = unary("floor", np.floor, None)
ceil_p = unary("ceil", np.ceil, None)
round_p = unary("round", np.rint, None)  # half to even, as NumPy's round and rint
# abs'(x) = 1 for x >= 0 (so abs'(0) = abs'(-0.0) = 1, JAX's choice), -1 below
abs_p = unary("abs", np.absolute, lambda t, x, out: select(ge(x, full_like(x, 0)), t, neg(t)))


def sign(x: Any) -> Any: return sign_p.bind(x)
def floor(x: Any) -> Any: return floor_p.bind(x)
def ceil(x: Any) -> Any: return ceil_p.bind(x)
def round_(x: Any) -> Any: return round_p.bind(x)  # (lax.round; _ as pow_: a builtin's name)
def abs_(x: Any) -> Any: return abs_p.bind(x)


# --------------------------------------------------------------------------- exponentials, logs

# log1p'(x) = 1 / (1 + x)
log1p_p = unary("log1p", np.log1p, lambda t, x, out: div(t, add(full_like(x, 1), x)))


def _expm1_impl(x: np.ndarray) -> np.ndarray:
    """NumPy's expm1; for complex operands, whose NumPy loop gives NaN at every infinity,
    ``expm1(a + ib) = expm1(a) cos b - 2 sin(b / 2)**2 + i e**a sin b`` where both parts are
    finite and ``exp(x) - 1`` elsewhere (C99's exp carries the array API standard's special
    values: ``expm1(-inf + i inf)`` is -1, ``expm1(+inf + 0j)`` is inf + 0j)."""
    if x.dtype.kind != "c":
        return np.expm1(x)
    a, b = x.real, x.imag
    with np.errstate(all="ignore"):
        finite = np.expm1(a) * np.cos(b) - 2 * np.sin(b / 2) ** 2 + 1j * (np.exp(a) * np.sin(b))
        return np.where(np.isfinite(a) & np.isfinite(b), finite, np.exp(x) - 1).astype(x.dtype)


# expm1'(x) = expm1(x) + 1
expm1_p = unary("expm1", _expm1_impl, lambda t, x, out: mul(t, add(out, full_like(out, 1))))
# exp2'(x) = ln 2 * 2**x
exp2_p = unary("exp2", np.exp2, lambda t, x, out: mul(t, mul(out, full_like(out, _LN2))))
# cbrt'(x) = 1 / (3 cbrt(x)**2): inf at 0, as JAX
cbrt_p = unary("cbrt", np.cbrt,
               lambda t, x, out: mul(t, mul(full_like(out, 1 / 3), integer_pow(out, -2))))


def log1p(x: Any) -> Any: return log1p_p.bind(x)
def expm1(x: Any) -> Any: return expm1_p.bind(x)
def exp2(x: Any) -> Any: return exp2_p.bind(x)
def cbrt(x: Any) -> Any: return cbrt_p.bind(x)


def _logistic_impl(x: np.ndarray) -> np.ndarray:
    # 1 / (1 + exp(-x)), evaluated as exp(x) / (1 + exp(x)) below 0 so that exp never overflows
    e = np.exp(-np.absolute(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


# logistic'(x) = s (1 - s)
logistic_p = unary("logistic", _logistic_impl,
                   lambda t, x, out: mul(t, mul(out, sub(full_like(out, 1), out))))


def logistic(x: Any) -> Any:
    """The sigmoid 1 / (1 + exp(-x)), without overflow for large |x|."""
    return logistic_p.bind(x)


# --------------------------------------------------------------------------- trigonometric

# tan'(x) = 1 + tan(x)**2
tan_p = unary("tan", np.tan, lambda t, x, out: mul(t, add(full_like(out, 1), mul(out, out))))
# asin'(x) = 1 / sqrt(1 - x**2); acos' is its negative; atan'(x) = 1 / (1 + x**2)
asin_p = unary("asin", np.arcsin, lambda t, x, out: div(t, sqrt(_one_minus_square(x))))
acos_p = unary("acos", np.arccos, lambda t, x, out: neg(div(t, sqrt(_one_minus_square(x)))))
atan_p = unary("atan", np.arctan, lambda t, x, out: div(t, add(full_like(x, 1), mul(x, x))))


def tan(x: Any) -> Any: return tan_p.bind(x)
def asin(x: Any) -> Any: return asin_p.bind(x)
def acos(x: Any) -> Any: return acos_p.bind(x)
def atan(x: Any) -> Any: return atan_p.bind(x)


# --------------------------------------------------------------------------- hyperbolic

# sinh' = cosh, cosh' = sinh
sinh_p = unary("sinh", np.sinh, lambda t, x, out: mul(t, cosh(x)))
cosh_p = unary("cosh", np.cosh, lambda t, x, out: mul(t, sinh(x)))
# asinh'(x) = 1 / sqrt(x**2 + 1); acosh'(x) = 1 / sqrt(x**2 - 1); atanh'(x) = 1 / (1 - x**2)
asinh_p = unary("asinh", np.arcsinh,
                lambda t, x, out: div(t, sqrt(add(mul(x, x), full_like(x, 1)))))
acosh_p = unary("acosh", np.arccosh,
                lambda t, x, out: div(t, sqrt(sub(mul(x, x), full_like(x, 1)))))
atanh_p = unary("atanh", np.arctanh, lambda t, x, out: div(t, _one_minus_square(x)))


def sinh(x: Any) -> Any: return sinh_p.bind(x)
def cosh(x: Any) -> Any: return cosh_p.bind(x)
def asinh(x: Any) -> Any: return asinh_p.bind(x)
def acosh(x: Any) -> Any: return acosh_p.bind(x)
def atanh(x: Any) -> Any: return atanh_p.bind(x)


# --------------------------------------------------------------------------- predicates
# Boolean results: not differentiable (a float0 zero tangent), any numeric operand.


def _predicate_abstract_eval(x: ShapedArray) -> ShapedArray:
    return ShapedArray(x.shape, np.dtype(bool))


def _predicate_jvp(prim: Primitive, primals: tuple, tangents: tuple) -> tuple:
    out = prim.bind(*primals)
    return out, Zero(ShapedArray(get_aval(out).shape, float0))


def _predicate(name: str, impl: Any) -> Primitive:
    prim = Primitive(name)
    prim.def_impl(impl)
    prim.def_abstract_eval(_predicate_abstract_eval)
    prim.def_jvp(partial(_predicate_jvp, prim))
    prim.def_batch(partial(vectorized_batch, prim))
    return prim


is_finite_p = _predicate("is_finite", np.isfinite)
# the sign bit, which comparisons cannot see: signbit(-0.0) and signbit(-nan) are True
signbit_p = _predicate("signbit", np.signbit)


def is_finite(x: Any) -> Any: return is_finite_p.bind(x)
def signbit(x: Any) -> Any: return signbit_p.bind(x)

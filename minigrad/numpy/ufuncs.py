"""Elementwise functions: NumPy's ufuncs over the elementwise primitives.

Most are one primitive behind one of two family helpers: ``_unary(np.sin, ew.sin)`` and
``_binary(np.add, ew.add)`` take their operands' dtypes from NumPy's own loop for the ufunc
(``util.resolve_ufunc``: NumPy 2's promotion, Python scalars weak, ``sqrt`` of int8 computed in
float16 as NumPy does), convert and broadcast, and bind. The rest are short composites of
primitives (``log2 = log / ln 2``, ``isnan = x != x``, ``trunc = where(x < 0, ceil, floor)``).
Division, powers and the functions that pick between values live in ``division.py`` and
``selection.py``; the bit operations in ``bitwise.py``.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from minigrad.core import get_aval
from minigrad.custom_rules import custom_jvp
from minigrad.dtypes import canonicalize_dtype
from minigrad.numpy import util
from minigrad.numpy.util import OPERATORS, ArrayLike, asarray, resolve_ufunc
from minigrad.ops import binary as bi
from minigrad.ops import elementwise as ew
from minigrad.ops import unary as un

__all__ = [  # what minigrad.numpy exports from here
    "abs", "absolute", "acos", "acosh", "add", "arccos", "arccosh", "arcsin", "arcsinh", "arctan",
    "arctan2", "arctanh", "around", "asin", "asinh", "atan", "atan2", "atanh", "cbrt",
    "ceil", "cos", "cosh", "deg2rad", "degrees", "divide", "equal", "exp", "exp2", "expm1", "fabs",
    "fix", "floor", "greater", "greater_equal", "hypot", "isfinite", "isinf", "isnan", "isneginf",
    "isposinf", "less", "less_equal", "log", "log1p", "log2", "log10", "logaddexp", "logaddexp2",
    "logical_and", "logical_not", "logical_or", "logical_xor", "maximum", "minimum", "multiply",
    "negative", "nextafter", "not_equal", "positive", "rad2deg", "radians",
    "reciprocal", "rint", "round", "sign", "signbit", "sin", "sinc", "sinh",
    "spacing", "sqrt", "square", "subtract", "tan", "tanh", "true_divide", "trunc",
]



# --------------------------------------------------------------------------- family helpers


def _unary(ufunc: np.ufunc, prim_fn: Callable[[Any], Any], name: str | None = None
           ) -> Callable[[ArrayLike], Any]:
    """The ufunc as ``prim_fn`` of its operand in NumPy's dtype for it."""
    fname = name or ufunc.__name__

    def fn(x: ArrayLike, /) -> Any:
        return prim_fn(util.unary_operand(ufunc, fname, x))

    fn.__name__ = fname
    fn.__doc__ = f"NumPy's ``{ufunc.__name__}``, elementwise."
    return fn


def _binary(ufunc: np.ufunc, prim_fn: Callable[[Any, Any], Any], name: str | None = None
            ) -> Callable[[ArrayLike, ArrayLike], Any]:
    """The ufunc as ``prim_fn`` of its two operands, promoted and broadcast as NumPy does."""
    fname = name or ufunc.__name__

    def fn(x1: ArrayLike, x2: ArrayLike, /) -> Any:
        return prim_fn(*util.binary_operands(ufunc, fname, x1, x2))

    def operator(x: ArrayLike, y: ArrayLike) -> Any:
        # (a tracer's operator: weak operands stay weak if all are, as Python's numbers)
        dtype = util.float_dtype(x, y) if ufunc is np.divide else None
        return prim_fn(*util.promote(x, y, dtype=dtype, name=fname, keep_weak=True))

    OPERATORS.setdefault(prim_fn.__name__, operator)

    fn.__name__ = fname
    fn.__doc__ = f"NumPy's ``{ufunc.__name__}``, elementwise with broadcasting."
    return fn


def _const(x: Any, value: float) -> Any:
    """``value`` in ``x``'s shape and dtype."""
    return ew.full_like(x, value)


# --------------------------------------------------------------------------- arithmetic

add = _binary(np.add, ew.add)
subtract = _binary(np.subtract, ew.sub)  # bools: TypeError, as NumPy
multiply = _binary(np.multiply, ew.mul)
divide = _binary(np.divide, ew.div, "divide")  # integers: float64, NumPy's true division
true_divide = divide
negative = _unary(np.negative, ew.neg)
maximum = _binary(np.maximum, ew.maximum)
minimum = _binary(np.minimum, bi.minimum)


def positive(x: ArrayLike, /) -> Any:
    """``+x``: ``x`` itself, as an array (bools: TypeError, as NumPy)."""
    return util.copy_of(util.unary_operand(np.positive, "positive", x))


def square(x: ArrayLike, /) -> Any:
    """``x * x`` (bool: int8, as NumPy)."""
    return ew.integer_pow(util.unary_operand(np.square, "square", x), 2)


def reciprocal(x: ArrayLike, /) -> Any:
    """``1 / x``. For integers this is true division (float64), as in JAX: NumPy's integer
    reciprocal truncates (1/2 is 0) and its 1/0 is undefined.

    >>> import numpy as np, minigrad.numpy as mnp
    >>> mnp.reciprocal(np.array([2, -4]))
    Array([ 0.5 , -0.25], dtype=float64)
    """
    x = asarray(x)
    if get_aval(x).dtype.kind in "biu":
        return divide(1, x)
    x = util.unary_operand(np.reciprocal, "reciprocal", x)
    return ew.div(_const(x, 1), x)


# --------------------------------------------------------------------------- rounding, sign

def absolute(x: ArrayLike, /) -> Any:
    """``|x|`` (``abs'(0) = 1``, as JAX). Complex operands are not supported yet.

    >>> import minigrad as mg, minigrad.numpy as mnp
    >>> float(mg.grad(mnp.absolute)(0.0))
    1.0
    """
    x = util.unary_operand(np.absolute, "absolute", x)
    if get_aval(x).dtype.kind == "c":
        raise TypeError(f"absolute: complex arrays are not supported by minigrad.numpy yet; "
                        f"got {get_aval(x).dtype.name}")
    return un.abs_(x)


abs = absolute  # NumPy's name (a builtin's too: this module does not use the builtin)
fabs = _unary(np.fabs, un.abs_)
sign = _unary(np.sign, un.sign)  # sign(-0.0) is 0.0 as NumPy (JAX: -0.0)
floor = _unary(np.floor, un.floor)  # integers pass through, as NumPy 2
ceil = _unary(np.ceil, un.ceil)
rint = _unary(np.rint, un.round_)  # half to even


def trunc(x: ArrayLike, /) -> Any:
    """Round toward zero: ``where(x < 0, ceil(x), floor(x))``."""
    x = util.unary_operand(np.trunc, "trunc", x)
    if get_aval(x).dtype.kind in "biu":
        return util.copy_of(x)
    return ew.select(ew.lt(x, _const(x, 0)), un.ceil(x), un.floor(x))


fix = trunc  # NumPy's name (jax.numpy removed it in 0.10)


def round(a: ArrayLike, decimals: int = 0, out: None = None) -> Any:
    """Round half to even to ``decimals`` places (negative: to tens, hundreds ...), as NumPy:
    ``rint(x * 10**d) / 10**d``; integers stay integers (exactly, for ``decimals < 0``)."""
    if out is not None:
        raise TypeError("round: out must be None (minigrad's arrays are immutable values)")
    if isinstance(decimals, bool) or not isinstance(decimals, (int, np.integer)):
        raise TypeError(f"round: decimals must be an int; got {decimals!r}")
    x = asarray(a)
    dtype = get_aval(x).dtype
    if dtype.kind in "iu":
        return _round_integers(x, int(decimals)) if decimals < 0 else util.copy_of(x)
    if dtype.kind == "b":  # NumPy rounds bools in float16
        x = ew.convert_element_type(x, canonicalize_dtype(np.float16))
    if decimals == 0:
        return un.round_(x)
    if decimals > 0:
        scale = _const(x, 10.0 ** decimals)
        return ew.div(un.round_(ew.mul(x, scale)), scale)
    scale = _const(x, 10.0 ** -decimals)
    return ew.mul(un.round_(ew.div(x, scale)), scale)


def _round_integers(x: Any, decimals: int) -> Any:
    # to a multiple of 10**-decimals, half to even, in integer arithmetic (no float rounding)
    from minigrad.numpy.division import floor_divide

    dtype = get_aval(x).dtype
    if 10 ** -decimals > np.iinfo(dtype).max:
        return ew.full_like(x, 0)
    unit = _const(x, 10 ** -decimals)
    q = floor_divide(x, unit)
    r = ew.sub(x, ew.mul(q, unit))  # in [0, unit)
    twice = ew.add(r, r) if 2 * 10 ** -decimals <= np.iinfo(dtype).max else None
    half = _const(x, 10 ** -decimals // 2)
    above = ew.gt(r, half) if twice is None else ew.gt(twice, unit)
    tie = ew.eq(r, half) if twice is None else ew.eq(twice, unit)
    odd = ew.ne(bi.rem(q, _const(q, 2)), _const(q, 0))
    up = ew.select(above, ew.full_like(above, True), ew.select(tie, odd, ew.full_like(tie,
                                                                                      False)))
    return ew.mul(ew.select(up, ew.add(q, _const(q, 1)), q), unit)


around = round


# --------------------------------------------------------------------------- exponents, logs

exp = _unary(np.exp, ew.exp)
exp2 = _unary(np.exp2, un.exp2)
expm1 = _unary(np.expm1, un.expm1)
log = _unary(np.log, ew.log)
log1p = _unary(np.log1p, un.log1p)
sqrt = _unary(np.sqrt, ew.sqrt)
cbrt = _unary(np.cbrt, un.cbrt)


def log2(x: ArrayLike, /) -> Any:
    """``log(x) / log(2)``."""
    x = util.unary_operand(np.log2, "log2", x)
    return ew.div(ew.log(x), _const(x, math.log(2)))


def log10(x: ArrayLike, /) -> Any:
    """``log(x) / log(10)``."""
    x = util.unary_operand(np.log10, "log10", x)
    return ew.div(ew.log(x), _const(x, math.log(10)))


# --------------------------------------------------------------------------- trigonometric

sin = _unary(np.sin, ew.sin)
cos = _unary(np.cos, ew.cos)
tan = _unary(np.tan, un.tan)
arcsin = _unary(np.arcsin, un.asin)
arccos = _unary(np.arccos, un.acos)
arctan = _unary(np.arctan, un.atan)
arctan2 = _binary(np.arctan2, bi.atan2)
sinh = _unary(np.sinh, un.sinh)
cosh = _unary(np.cosh, un.cosh)
tanh = _unary(np.tanh, ew.tanh)
arcsinh = _unary(np.arcsinh, un.asinh)
arccosh = _unary(np.arccosh, un.acosh)
arctanh = _unary(np.arctanh, un.atanh)
# the array API's spellings
acos, asin, atan, atan2 = arccos, arcsin, arctan, arctan2
acosh, asinh, atanh = arccosh, arcsinh, arctanh


def deg2rad(x: ArrayLike, /) -> Any:
    """``x * pi / 180``."""
    x = util.unary_operand(np.deg2rad, "deg2rad", x)
    return ew.mul(x, _const(x, math.pi / 180))


def rad2deg(x: ArrayLike, /) -> Any:
    """``x * 180 / pi``."""
    x = util.unary_operand(np.rad2deg, "rad2deg", x)
    return ew.mul(x, _const(x, 180 / math.pi))


radians, degrees = deg2rad, rad2deg


def _sinc_taylor(k: int, u: Any) -> Any:
    """The k-th derivative of sin(u)/u at u = 0, in u's shape: 0 for odd k, (-1)**(k/2)/(k+1)
    for even k. Its JVP is the next one, so sinc below is right to every order at 0."""
    return ew.full_like(u, 0.0 if k % 2 else (-1) ** (k // 2) / (k + 1))


_sinc_taylor_fn = custom_jvp(_sinc_taylor, nondiff_argnums=(0,))


@_sinc_taylor_fn.defjvp
def _sinc_taylor_jvp(k: int, primals: tuple, tangents: tuple) -> tuple:
    (u,), (t,) = primals, tangents
    return _sinc_taylor_fn(k, u), ew.mul(_sinc_taylor_fn(k + 1, u), t)


def sinc(x: ArrayLike, /) -> Any:
    """``sin(pi x) / (pi x)``, 1 at 0 (with the right derivatives there, of every order)."""
    x = asarray(x)
    x = ew.convert_element_type(x, util.result_dtype(x, 1.0))  # integers: float64, as NumPy
    u = ew.mul(x, _const(x, math.pi))
    zero = ew.eq(x, _const(x, 0))
    safe = ew.select(zero, _const(u, 1), u)  # no 0/0, in the value or the derivative
    return ew.select(zero, _sinc_taylor_fn(0, u), ew.div(ew.sin(safe), safe))


# --------------------------------------------------------------------------- log-sum-exp

def _nonneg_inf_to_zero(x: Any) -> Any:
    return ew.select(ew.eq(x, _const(x, math.inf)), _const(x, 0), x)


def _log_add(base_e: bool) -> custom_jvp:
    """log(e**x + e**y) (or log2(2**x + 2**y)) without overflow, with JAX's derivative."""
    power = ew.exp if base_e else un.exp2

    def value(x: Any, y: Any) -> Any:
        # max + log1p(b**-|x - y|) (/ ln 2); where x - y is NaN (equal infinities, or a NaN),
        # x + y
        delta = ew.sub(x, y)
        tail = un.log1p(power(ew.neg(un.abs_(delta))))
        if not base_e:
            tail = ew.mul(tail, _const(tail, 1 / math.log(2)))  # (as NumPy: times log2(e))
        return ew.select(ew.ne(delta, delta), ew.add(x, y), ew.add(ew.maximum(x, y), tail))

    fn = custom_jvp(value)

    @fn.defjvp
    def jvp(primals: tuple, tangents: tuple) -> tuple:
        # d out = dx b**(x - out) + dy b**(y - out), +inf read as 0 in each exponent: 1 and 1 at
        # (inf, inf), 1/2 each at a tie, NaN at (-inf, -inf) (JAX's rule)
        (x, y), (tx, ty) = primals, tangents
        out = fn(x, y)
        shifted = _nonneg_inf_to_zero(out)
        wx = power(ew.sub(_nonneg_inf_to_zero(x), shifted))
        wy = power(ew.sub(_nonneg_inf_to_zero(y), shifted))
        return out, ew.add(ew.mul(tx, wx), ew.mul(ty, wy))

    return fn


_logaddexp = _log_add(base_e=True)
_logaddexp2 = _log_add(base_e=False)


def logaddexp(x1: ArrayLike, x2: ArrayLike, /) -> Any:
    """``log(exp(x1) + exp(x2))`` without overflow; the derivative at a tie is 1/2 each.

    >>> import minigrad as mg, minigrad.numpy as mnp
    >>> float(mnp.logaddexp(1000.0, 1000.0)), [float(g) for g in mg.grad(
    ...     mnp.logaddexp, argnums=(0, 1))(0.0, 0.0)]
    (1000.6931471805599, [0.5, 0.5])
    """
    x, y = util.ufunc_operands(np.logaddexp, "logaddexp", x1, x2)[0]
    return _logaddexp(*util.broadcast_all("logaddexp", x, y))


def logaddexp2(x1: ArrayLike, x2: ArrayLike, /) -> Any:
    """``log2(2**x1 + 2**x2)`` without overflow."""
    x, y = util.ufunc_operands(np.logaddexp2, "logaddexp2", x1, x2)[0]
    return _logaddexp2(*util.broadcast_all("logaddexp2", x, y))


def hypot(x1: ArrayLike, x2: ArrayLike, /) -> Any:
    """``sqrt(x1**2 + x2**2)`` without overflow: big * sqrt(1 + (small / big)**2), inf if
    either is infinite (even with a NaN), as NumPy."""
    x, y = util.ufunc_operands(np.hypot, "hypot", x1, x2)[0]
    x, y = util.broadcast_all("hypot", x, y)
    ax, ay = un.abs_(x), un.abs_(y)
    big, small = ew.maximum(ax, ay), bi.minimum(ax, ay)
    zero = ew.eq(big, _const(big, 0))
    ratio = ew.div(small, ew.select(zero, _const(big, 1), big))
    scaled = ew.mul(big, ew.sqrt(ew.add(_const(ratio, 1), ew.mul(ratio, ratio))))
    out = ew.select(zero, big, scaled)
    inf = _const(out, math.inf)
    return ew.select(ew.eq(ax, inf), inf, ew.select(ew.eq(ay, inf), inf, out))


# --------------------------------------------------------------------------- comparisons

equal = _binary(np.equal, ew.eq)
not_equal = _binary(np.not_equal, ew.ne)
less = _binary(np.less, ew.lt)
less_equal = _binary(np.less_equal, ew.le)
greater = _binary(np.greater, ew.gt)
greater_equal = _binary(np.greater_equal, ew.ge)


# --------------------------------------------------------------------------- predicates

def isnan(x: ArrayLike, /) -> Any:
    """``x != x``: True only at NaN."""
    x = util.unary_operand(np.isnan, "isnan", x)
    return ew.ne(x, x)


def isinf(x: ArrayLike, /) -> Any:
    """``|x| == inf``."""
    x = util.unary_operand(np.isinf, "isinf", x)
    if get_aval(x).dtype.kind in "biu":
        return ew.ne(x, x)  # all False, in x's shape
    return ew.eq(un.abs_(x), _const(x, math.inf))


def isposinf(x: ArrayLike, /) -> Any:
    """``x == +inf``."""
    x = util.unary_operand(np.isinf, "isposinf", x)
    return ew.ne(x, x) if get_aval(x).dtype.kind in "biu" else ew.eq(x, _const(x, math.inf))


def isneginf(x: ArrayLike, /) -> Any:
    """``x == -inf``."""
    x = util.unary_operand(np.isinf, "isneginf", x)
    return ew.ne(x, x) if get_aval(x).dtype.kind in "biu" else ew.eq(x, _const(x, -math.inf))


isfinite = _unary(np.isfinite, un.is_finite)
signbit = _unary(np.signbit, un.signbit)


# --------------------------------------------------------------------------- logical

def _truth(x: ArrayLike, name: str) -> Any:
    """``x != 0`` as bool (NaN is true, as in NumPy); bools as they are."""
    x = asarray(x)
    dtype = get_aval(x).dtype
    if dtype == np.bool_:
        return x
    resolve_ufunc(np.logical_not, name, dtype)  # (NumPy's error for what has no truth value)
    return ew.ne(x, _const(x, 0))


def logical_not(x: ArrayLike, /) -> Any:
    """``x == 0``."""
    t = _truth(x, "logical_not")
    return ew.eq(t, ew.full_like(t, False))


def _logical(name: str, combine: Callable[[Any, Any], Any]) -> Callable[..., Any]:
    def fn(x1: ArrayLike, x2: ArrayLike, /) -> Any:
        a, b = util.broadcast_all(name, _truth(x1, name), _truth(x2, name))
        return combine(a, b)

    fn.__name__ = name
    fn.__doc__ = f"NumPy's ``{name}`` of the operands' truth values."
    return fn


logical_and = _logical("logical_and", lambda a, b: ew.select(a, b, ew.full_like(a, False)))
logical_or = _logical("logical_or", lambda a, b: ew.select(a, ew.full_like(a, True), b))
logical_xor = _logical("logical_xor", ew.ne)


# --------------------------------------------------------------------------- floating point

nextafter = _binary(np.nextafter, bi.nextafter)


def spacing(x: ArrayLike, /) -> Any:
    """The distance from ``x`` to the next float away from zero, negative for x < 0 (-0.0
    counts as positive, as in NumPy): ``nextafter(x, +-inf) - x``. Zero derivative."""
    x = util.unary_operand(np.spacing, "spacing", x)
    away = ew.select(ew.lt(x, _const(x, 0)), _const(x, -math.inf), _const(x, math.inf))
    return ew.sub(bi.nextafter(x, away), x)

"""JAX's ``jax.lax`` elementwise functions by name, over minigrad's primitives.

lax is strict where ``minigrad.numpy`` is generous, and so are these (JAX 0.10's rules,
checked against ``jax.lax`` with x64 on):

* one dtype: the operands of an n-ary function must have one dtype, never promoted; a Python
  scalar counts as its default dtype (``1`` is int64, ``1.0`` float64), so ``add(f32, 1.0)`` is
  a TypeError as in JAX with x64;
* one shape: operands of one rank, each axis of one size or 1 (broadcast), or rank 0
  (broadcast to the others); anything else is a TypeError;
* each function takes JAX's dtype kinds: ``exp`` of an integer array, ``floor`` of an integer
  array, ``add`` of bools ... are TypeErrors naming the function and the dtype;
* integer ``div`` rounds toward zero and ``rem`` takes the dividend's sign (C's); an integer
  divided by 0 is -1 (every bit set: 255 for uint8) and its remainder is the dividend, as
  XLA's; ``round`` rounds half away from zero unless ``rounding_method`` says to even.

JAX spells the bitwise functions ``bitwise_and``, ``bitwise_or``, ``bitwise_xor``,
``bitwise_not`` (``jax.lax`` has no ``and_`` or ``not_``); so do we.

>>> import minigrad as mg, numpy as np
>>> mg.lax.div(np.array([7, -7]), np.array([2, 2]))
Array([ 3, -3], dtype=int64)
"""

from __future__ import annotations

import enum
import functools
import operator
from typing import Any, Callable

import numpy as np

from minigrad.api_util import as_operand
from minigrad.array import as_array
from minigrad.core import Tracer, get_aval
from minigrad.ops import binary as bi
from minigrad.ops import bitwise as bw
from minigrad.ops import complex as cx
from minigrad.ops import elementwise as ew
from minigrad.ops import incomplete as inc
from minigrad.ops import special as sp
from minigrad.ops import special_functions as sf
from minigrad.ops import unary as un
from minigrad.ops.structural import broadcast_in_dim

# JAX's dtype classes: which kinds each function takes
_NUMBER, _INEXACT, _FLOAT, _ANY = "iufc", "fc", "f", "biufc"
_SIGNED, _INTEGER, _LOGICAL = "ifc", "iu", "biu"
_KIND_NAMES = {"b": "bool", "i": "signed integer", "u": "unsigned integer", "f": "floating",
               "c": "complex"}


def operand(x: Any, fn: str, name: str) -> Any:
    """An argument of a lax function: a tracer, an array, or a Python or NumPy scalar (lists are
    refused, as JAX does: a list is not an array)."""
    if not isinstance(x, Tracer) and isinstance(x, (list, tuple)):
        raise TypeError(f"{fn}: {name} must be an array or a scalar; got {type(x).__name__} "
                        f"(lax takes no lists: pass np.asarray(...) )")
    return as_operand(x, fn, name)


def axis_arg(fn: str, axis: Any, ndim: int) -> int:
    """An axis argument of a lax function: an int in ``[-ndim, ndim)``, as a non-negative one."""
    try:
        a = operator.index(axis)
    except TypeError:
        raise TypeError(f"{fn}: axis must be an int; got {axis!r}") from None
    if not -ndim <= a < ndim:
        raise ValueError(f"{fn}: axis {a} is out of range for an array of rank {ndim}")
    return a % ndim


def array_result(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` whose eager result is always a ``minigrad.Array``, also where it is an argument
    returned as it is (a reshape to the same shape, a conversion to the same dtype ...)."""
    @functools.wraps(fn)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        return as_array(fn(*args, **kwargs))

    return wrapped


def check_kind(fn: str, x: Any, kinds: str, name: str = "x") -> None:
    dtype = get_aval(x).dtype
    if dtype.kind not in kinds:
        accepted = ", ".join(_KIND_NAMES[k] for k in kinds)
        raise TypeError(f"{fn}: {name} must have a dtype of kind {accepted}; got {dtype.name}")


def same_operands(fn: str, *xs: Any, names: tuple[str, ...] = ("x", "y")) -> list[Any]:
    """The operands of one dtype and (after broadcasting rank-0 and size-1 axes) one shape."""
    ops = [operand(x, fn, n) for x, n in zip(xs, names, strict=True)]
    avals = [get_aval(o) for o in ops]
    dtypes = [a.dtype for a in avals]
    if len(set(dtypes)) != 1:
        raise TypeError(f"{fn}: operands must have one dtype (lax never promotes: "
                        f"minigrad.numpy does); got {', '.join(d.name for d in dtypes)}")
    return broadcast_operands(fn, ops)


def broadcast_operands(fn: str, ops: list[Any]) -> list[Any]:
    """``ops`` broadcast to one shape by lax's rule: rank-0 operands and size-1 axes only."""
    shapes = [get_aval(o).shape for o in ops]
    ranks = {len(s) for s in shapes if s}
    if len(ranks) > 1:
        raise TypeError(f"{fn}: operands must have one rank (or rank 0); got shapes "
                        f"{', '.join(map(str, shapes))}")
    if not ranks:
        return ops
    out_shape = []
    for sizes in zip(*[s for s in shapes if s], strict=True):
        big = {n for n in sizes if n != 1}
        if len(big) > 1:
            raise TypeError(f"{fn}: incompatible shapes {', '.join(map(str, shapes))} (lax "
                            f"broadcasts only rank-0 operands and axes of size 1)")
        out_shape.append(big.pop() if big else 1)
    target = tuple(out_shape)
    # (broadcast_in_dim grows an axis of size 1 in place; a rank-0 operand maps to no axis)
    return [o if get_aval(o).shape == target else
            broadcast_in_dim(o, target, tuple(range(get_aval(o).ndim))) for o in ops]


def _unary(name: str, fn: Callable[[Any], Any], kinds: str, doc: str) -> Callable[..., Any]:
    def f(x: Any) -> Any:
        x = operand(x, name, "x")
        check_kind(name, x, kinds)
        return fn(x)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    return f


def _approximable(name: str, fn: Callable[[Any], Any], kinds: str, doc: str
                  ) -> Callable[..., Any]:
    """A unary function JAX lets ask for an ``accuracy`` (a hint to XLA's approximations);
    accepted and without effect here: NumPy computes every one at full accuracy."""
    g = _unary(name, fn, kinds, doc)

    def f(x: Any, *, accuracy: Any = None) -> Any:
        return g(x)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    return f


def _binary(name: str, fn: Callable[[Any, Any], Any], kinds: str, doc: str
            ) -> Callable[[Any, Any], Any]:
    def f(x: Any, y: Any) -> Any:
        x, y = same_operands(name, x, y)
        check_kind(name, x, kinds)
        return fn(x, y)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    return f


# --------------------------------------------------------------------------- arithmetic

def _div(x: Any, y: Any) -> Any:
    if get_aval(x).dtype.kind not in "iu":
        return ew.div(x, y)
    # C's division (toward zero); x / 0 is every bit set, as XLA's (-1, or the uint's max)
    zero = ew.eq(y, ew.full_like(y, 0))
    q = bi.integer_div(x, ew.select(zero, ew.full_like(y, 1), y))
    return ew.select(zero, bw.bitwise_not(ew.full_like(x, 0)), q)


def _sign(x: Any) -> Any:
    if get_aval(x).dtype.kind not in "fc":
        return un.sign(x)
    # sign(+-0.0) is +-0.0, as XLA's (NumPy's sign drops the zero's sign)
    return ew.select(ew.eq(x, ew.full_like(x, 0)), x, un.sign(x))


add = _binary("add", ew.add, _NUMBER, "``x + y``.")
sub = _binary("sub", ew.sub, _NUMBER, "``x - y``.")
_mul = _binary("mul", ew.mul, _NUMBER, "")


def mul(x: Any, y: Any, *, out_dtype: Any = None) -> Any:
    """``x * y``; with ``out_dtype`` the operands are first converted to it (JAX's way to ask
    for a wider product, ``int8 * int8 -> int32``)."""
    if out_dtype is None:
        return _mul(x, y)
    x, y = same_operands("mul", x, y)
    dtype = np.dtype(out_dtype)
    return _mul(ew.convert_element_type(x, dtype), ew.convert_element_type(y, dtype))
div = _binary("div", _div, _NUMBER,
              "``x / y``; integers round toward zero (C's), and ``x / 0`` has every bit set.")
rem = _binary("rem", ew.rem, "iuf",
              "C's remainder ``x - y * trunc(x / y)``, the sign of ``x``; ``x rem 0`` of an "
              "integer is ``x``.")
max = _binary("max", ew.maximum, _ANY, "The larger of ``x`` and ``y`` (NaN wins; a tie "
              "splits the derivative evenly).")
min = _binary("min", bi.minimum, _ANY, "The smaller of ``x`` and ``y`` (NaN wins).")
atan2 = _binary("atan2", bi.atan2, _FLOAT,
                "``arctan(x / y)`` in the quadrant of the point ``(y, x)``: ``np.arctan2(x, y)``.")
_nextafter = _binary("nextafter", bi.nextafter, _FLOAT, "")


def nextafter(x1: Any, x2: Any) -> Any:
    """The next float after ``x1`` toward ``x2``."""
    return _nextafter(x1, x2)


def pow(x: Any, y: Any) -> Any:
    """``x ** y``: ``x`` floating, ``y`` of ``x``'s dtype or an integer array (converted to
    ``x``'s dtype: an integer exponent has no derivative)."""
    x, y = operand(x, "pow", "x"), operand(y, "pow", "y")
    check_kind("pow", x, _INEXACT)
    check_kind("pow", y, _NUMBER, "y")
    xd, yd = get_aval(x).dtype, get_aval(y).dtype
    if yd.kind in "fc" and yd != xd:
        raise TypeError(f"pow: a floating y must have x's dtype {xd.name}; got {yd.name}")
    x, y = broadcast_operands("pow", [x, y])
    if yd != xd:
        y = ew.convert_element_type(y, xd)
    return ew.pow_(x, y)


def integer_pow(x: Any, y: int) -> Any:
    """``x ** y`` for a static Python int ``y`` (integers only to ``y >= 0``)."""
    x = operand(x, "integer_pow", "x")
    check_kind("integer_pow", x, _NUMBER)
    if not isinstance(y, (int, np.integer)) or isinstance(y, bool):
        raise TypeError(f"integer_pow: y must be a Python int; got {y!r}")
    if y < 0 and get_aval(x).dtype.kind in "iu":
        raise TypeError(f"integer_pow: integers cannot be raised to negative powers; got "
                        f"y={y} for {get_aval(x).str_short()}")
    return ew.integer_pow(x, int(y))


class RoundingMethod(enum.IntEnum):
    """How ``round`` breaks a tie at one half (JAX's ``lax.RoundingMethod``)."""

    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


def round(x: Any, rounding_method: Any = RoundingMethod.AWAY_FROM_ZERO) -> Any:
    """``x`` rounded to an integral value; a half rounds away from zero (the default) or to
    even with ``RoundingMethod.TO_NEAREST_EVEN`` (or ``1``).

    >>> import minigrad as mg, numpy as np
    >>> mg.lax.round(np.array([0.5, 1.5, -2.5]))
    Array([ 1.,  2., -3.], dtype=float64)
    """
    x = operand(x, "round", "x")
    check_kind("round", x, _FLOAT)
    try:
        method = RoundingMethod(rounding_method)
    except ValueError:
        raise ValueError(f"round: rounding_method must be a lax.RoundingMethod (0 or 1); got "
                         f"{rounding_method!r}") from None
    nearest_even = un.round_(x)
    if method == RoundingMethod.TO_NEAREST_EVEN:
        return nearest_even
    # a half (x - trunc(x) = +-0.5 exactly: the subtraction is exact) goes away from zero
    trunc = ew.select(ew.lt(x, ew.full_like(x, 0)), un.ceil(x), un.floor(x))
    half = ew.eq(un.abs_(ew.sub(x, trunc)), ew.full_like(x, 0.5))
    return ew.select(half, ew.add(trunc, un.sign(x)), nearest_even)


neg = _unary("neg", ew.neg, _NUMBER, "``-x``.")
sign = _unary("sign", _sign, _NUMBER, "-1, 0 or 1 by the sign of ``x`` (``+-0.0`` and NaN "
              "kept).")
floor = _unary("floor", un.floor, _FLOAT, "The largest integral value ``<= x``.")
ceil = _unary("ceil", un.ceil, _FLOAT, "The smallest integral value ``>= x``.")
abs = _unary("abs", un.abs_, _SIGNED, "``|x|``.")
exp = _approximable("exp", ew.exp, _INEXACT, "``e ** x``.")
exp2 = _approximable("exp2", un.exp2, _INEXACT, "``2 ** x``.")
expm1 = _approximable("expm1", un.expm1, _INEXACT, "``e ** x - 1``, accurate near 0.")
log = _approximable("log", ew.log, _INEXACT, "The natural logarithm.")
log1p = _approximable("log1p", un.log1p, _INEXACT, "``log(1 + x)``, accurate near 0.")
sqrt = _approximable("sqrt", ew.sqrt, _INEXACT, "The square root.")
rsqrt = _approximable("rsqrt", lambda x: ew.div(ew.full_like(x, 1), ew.sqrt(x)), _INEXACT,
               "``1 / sqrt(x)``.")
cbrt = _approximable("cbrt", un.cbrt, _FLOAT, "The real cube root.")
sin = _approximable("sin", ew.sin, _INEXACT, "The sine.")
cos = _approximable("cos", ew.cos, _INEXACT, "The cosine.")
tan = _approximable("tan", un.tan, _INEXACT, "The tangent.")
asin = _unary("asin", un.asin, _INEXACT, "The inverse sine.")
acos = _unary("acos", un.acos, _INEXACT, "The inverse cosine.")
atan = _unary("atan", un.atan, _INEXACT, "The inverse tangent.")
sinh = _unary("sinh", un.sinh, _INEXACT, "The hyperbolic sine.")
cosh = _unary("cosh", un.cosh, _INEXACT, "The hyperbolic cosine.")
tanh = _approximable("tanh", ew.tanh, _INEXACT, "The hyperbolic tangent.")
asinh = _unary("asinh", un.asinh, _INEXACT, "The inverse hyperbolic sine.")
acosh = _unary("acosh", un.acosh, _INEXACT, "The inverse hyperbolic cosine.")
atanh = _unary("atanh", un.atanh, _INEXACT, "The inverse hyperbolic tangent.")
logistic = _approximable("logistic", un.logistic, _INEXACT, "``1 / (1 + exp(-x))``.")
erf = _unary("erf", sp.xla_erf, _FLOAT, "The error function, as XLA computes it (JAX's "
             "values).")
erfc = _unary("erfc", sf.erfc, _FLOAT, "``1 - erf(x)``, accurate where erf is near 1.")
erf_inv = _unary("erf_inv", sp.erf_inv, _FLOAT, "The inverse error function (XLA's).")
lgamma = _unary("lgamma", sf.lgamma, _FLOAT, "``log |Gamma(x)|``.")
digamma = _unary("digamma", sf.digamma, _FLOAT, "The derivative of lgamma.")

# --------------------------------------------------------------------------- comparisons

eq = _binary("eq", ew.eq, _ANY, "``x == y`` (bool).")
ne = _binary("ne", ew.ne, _ANY, "``x != y`` (bool).")
lt = _binary("lt", ew.lt, _ANY, "``x < y`` (bool).")
le = _binary("le", ew.le, _ANY, "``x <= y`` (bool).")
gt = _binary("gt", ew.gt, _ANY, "``x > y`` (bool).")
ge = _binary("ge", ew.ge, _ANY, "``x >= y`` (bool).")

# --------------------------------------------------------------------------- bits

bitwise_and = _binary("bitwise_and", bw.bitwise_and, _LOGICAL, "Bitwise (bool: logical) and.")
bitwise_or = _binary("bitwise_or", bw.bitwise_or, _LOGICAL, "Bitwise (bool: logical) or.")
bitwise_xor = _binary("bitwise_xor", bw.bitwise_xor, _LOGICAL,
                      "Bitwise (bool: logical) exclusive or.")
bitwise_not = _unary("bitwise_not", bw.bitwise_not, _LOGICAL,
                     "Every bit flipped (bool: logical not).")
shift_left = _binary("shift_left", bw.shift_left, _INTEGER,
                     "``x << y``; a shift by the width or more gives 0.")
shift_right_logical = _binary("shift_right_logical", bw.shift_right_logical, _INTEGER,
                              "``x >> y`` filling with zeros (the bits read unsigned).")
shift_right_arithmetic = _binary("shift_right_arithmetic", bw.shift_right_arithmetic, _INTEGER,
                                 "``x >> y`` filling with the sign bit.")
population_count = _unary("population_count", bw.population_count, _INTEGER,
                          "The number of bits set in each element.")

# --------------------------------------------------------------------------- more by name

def _conj(x: Any) -> Any:
    # a real x becomes complex first, as JAX's conj of a real array returns a complex one
    return cx.conj(x if get_aval(x).dtype.kind == "c" else cx.complex_(x, ew.full_like(x, 0)))


reciprocal = _unary("reciprocal", lambda x: ew.div(ew.full_like(x, 1), x), _INEXACT,
                    "``1 / x``.")
square = _unary("square", lambda x: ew.mul(x, x), _NUMBER, "``x * x``.")
is_finite = _unary("is_finite", un.is_finite, _FLOAT,
                   "True where ``x`` is neither infinite nor NaN (bool).")
clz = _unary("clz", bw.clz, _INTEGER, "The number of leading zero bits of each element.")
real = _unary("real", cx.real, "c", "The real part of a complex ``x``.")
imag = _unary("imag", cx.imag, "c", "The imaginary part of a complex ``x``.")
conj = _unary("conj", _conj, _INEXACT, "The complex conjugate (of a real ``x``, a complex "
              "array, as JAX's).")
complex = _binary("complex", cx.complex_, _FLOAT, "``x + 1j * y`` of two real arrays.")


def igamma(a: Any, x: Any) -> Any:
    """The regularized lower incomplete gamma ``P(a, x)``."""
    a, x = same_operands("igamma", a, x, names=("a", "x"))
    check_kind("igamma", a, _FLOAT, "a")
    return inc.igamma(a, x)


def igammac(a: Any, x: Any) -> Any:
    """The regularized upper incomplete gamma ``Q(a, x) = 1 - P(a, x)``."""
    a, x = same_operands("igammac", a, x, names=("a", "x"))
    check_kind("igammac", a, _FLOAT, "a")
    return inc.igammac(a, x)

__all__ = [
    "RoundingMethod", "abs", "acos", "acosh", "add", "asin", "asinh", "atan", "atan2", "atanh",
    "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "cbrt", "ceil", "cos", "cosh",
    "digamma", "div", "eq", "erf", "erf_inv", "erfc", "exp", "exp2", "expm1", "floor", "ge",
    "gt", "integer_pow", "le", "lgamma", "log", "log1p", "logistic", "lt", "max", "min", "mul",
    "ne", "neg", "nextafter", "population_count", "pow", "rem", "round", "rsqrt",
    "shift_left", "shift_right_arithmetic", "shift_right_logical", "sign", "sin", "sinh",
    "sqrt", "sub", "tan", "tanh",
    "clz", "complex", "conj", "igamma", "igammac", "imag", "is_finite", "real", "reciprocal",
    "square",
]

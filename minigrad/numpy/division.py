"""Division, remainders, powers and exponents, with NumPy's values.

``floor_divide``, ``remainder`` and ``divmod`` are ``rem`` (C's fmod) and a division with the
sign fix-ups of NumPy's ``npy_divmod``: floats bit for bit as NumPy (x // 0 is +-inf or NaN,
x % 0 NaN) except where an operand is infinite, where ``floor_divide`` follows the array API
standard (``floor(x / y)``: NumPy gives -1 for ``-1 // inf`` and NaN for ``inf // 2``);
integers through ``integer_div`` (x // 0 and x % 0 are 0 as in NumPy, never XLA's -1 and x).
``power`` follows jax.numpy's dispatch (a concrete integer exponent uses ``integer_pow``)
with NumPy's dtypes and NumPy's error for integers to negative powers.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad.core import Tracer, get_aval
from minigrad.numpy import util
from minigrad.numpy.util import OPERATORS, ArrayLike, asarray, promotion_key
from minigrad.ops import binary as bi
from minigrad.ops import elementwise as ew
from minigrad.ops import unary as un
from minigrad.ops.stop_gradient import stop_gradient

__all__ = [  # what minigrad.numpy exports from here
    "divmod", "float_power", "floor_divide", "fmod", "frexp", "ldexp", "mod", "modf", "pow",
    "power", "remainder",
]


def _const(x: Any, value: float) -> Any:
    return ew.full_like(x, value)


def _and(a: Any, b: Any) -> Any:
    return ew.select(a, b, ew.full_like(a, False))


def _sign_fix(x: Any, y: Any, mod: Any) -> Any:
    """Where C's remainder (the sign of x) is not zero and its sign differs from y's: there
    the floored quotient is one less and the floored remainder is mod + y."""
    zero = _const(mod, 0)
    return _and(ew.ne(mod, zero), ew.ne(ew.lt(y, _const(y, 0)), ew.lt(mod, zero)))


def _divmod_floats(x: Any, y: Any, want_div: bool = True) -> tuple[Any, Any]:
    """NumPy's npy_divmod: (floor(x / y), x - y floor(x / y)) without a rounding of x / y."""
    mod = bi.rem(x, y)
    fix = _sign_fix(x, y, mod)
    floored_mod = _zero_with_sign_of(ew.select(fix, ew.add(mod, y), mod), y)
    if not want_div:
        return None, floored_mod
    div = ew.div(ew.sub(x, mod), y)  # (exact up to one rounding: x - mod is a multiple of y)
    div = ew.select(fix, ew.sub(div, _const(div, 1)), div)
    floordiv = un.floor(div)
    floordiv = ew.select(ew.gt(ew.sub(div, floordiv), _const(div, 0.5)),
                         ew.add(floordiv, _const(div, 1)), floordiv)
    # a zero quotient takes the sign of x / y; a zero divisor gives x / y itself (+-inf, NaN),
    # through floor so that no derivative passes (floor_divide's is 0 everywhere)
    quotient = un.floor(ew.div(x, y))  # (floor keeps a zero's sign)
    signed_zero = ew.select(un.signbit(quotient), _const(div, -0.0), _const(div, 0.0))
    floordiv = ew.select(ew.eq(div, _const(div, 0)), signed_zero, floordiv)
    # by zero, and with an infinite operand, the array API standard's floor(x / y): a finite x
    # by +-inf is a signed zero (NumPy: -1 where the signs differ), an infinite x by a finite
    # y is +-inf (NumPy: NaN)
    infinite = ew.select(un.is_finite(x), ew.eq(un.abs_(y), _const(y, math.inf)),
                         ew.eq(un.abs_(x), _const(x, math.inf)))
    floordiv = ew.select(ew.eq(y, _const(y, 0)), quotient, floordiv)
    floordiv = ew.select(infinite, quotient, floordiv)
    return floordiv, floored_mod


def _zero_with_sign_of(mod: Any, y: Any) -> Any:
    """``mod``, whose zeros take the sign of ``y`` (NumPy's and the array API standard's
    floored remainder: ``0.0 % -1.0`` is -0.0), with ``mod``'s derivative kept there: the zero
    is ``z + -(stop_gradient(mod) - mod)``, whose value is ``z + -0.0 = z`` for either signed
    zero ``z`` and whose tangent is ``mod``'s."""
    is_zero = ew.eq(mod, _const(mod, 0))
    zero = ew.select(is_zero, mod, _const(mod, 0))  # (no inf - inf where mod is not zero)
    z = ew.select(un.signbit(y), _const(mod, -0.0), _const(mod, 0.0))
    carried = ew.add(z, ew.neg(ew.sub(stop_gradient(zero), zero)))
    return ew.select(is_zero, carried, mod)


def _divmod_integers(x: Any, y: Any) -> tuple[Any, Any]:
    # C's truncated quotient and remainder, moved down by one where their signs disagree; by
    # zero both are 0, as NumPy's (integer_div gives 0 there; rem gives x, as lax.rem)
    x, y = util.broadcast_all("divmod", x, y)
    by_zero = ew.eq(y, _const(y, 0))
    mod = bi.rem(x, y)
    fix = _and(_sign_fix(x, y, mod), ew.ne(y, _const(y, 0)))
    q = bi.integer_div(x, y)
    mod = ew.select(by_zero, _const(mod, 0), ew.select(fix, ew.add(mod, y), mod))
    return ew.select(fix, ew.sub(q, _const(q, 1)), q), mod


def _is_integer(x: Any) -> bool:
    return bool(get_aval(x).dtype.kind in "biu")


def floor_divide(x1: ArrayLike, x2: ArrayLike, /) -> Any:
    """``x1 // x2``, rounded toward -inf; integer division by zero gives 0 (NumPy, with its
    warning), not JAX's -1. Zero derivative.

    >>> import numpy as np, minigrad.numpy as mnp
    >>> mnp.floor_divide(np.array([7, -7, 7]), np.array([2, 2, 0]))
    Array([ 3, -4,  0], dtype=int64)
    """
    x, y = util.binary_operands(np.floor_divide, "floor_divide", x1, x2)
    return (_divmod_integers if _is_integer(x) else _divmod_floats)(x, y)[0]


def remainder(x1: ArrayLike, x2: ArrayLike, /) -> Any:
    """``x1 % x2`` with the sign of ``x2``; integer ``x % 0`` is 0 as in NumPy. A zero result
    takes the sign of ``x2``, as NumPy and the array API standard (JAX: that of ``x1``); the
    derivative is 1 there too, as JAX.

    >>> import numpy as np, minigrad.numpy as mnp
    >>> mnp.remainder(np.array([-7.0, 7.0, 4.0]), np.array([2.0, -2.0, -2.0]))
    Array([ 1., -1., -0.], dtype=float64)
    """
    x, y = util.binary_operands(np.remainder, "remainder", x1, x2)
    if _is_integer(x):
        return _divmod_integers(x, y)[1]
    return _divmod_floats(x, y, want_div=False)[1]


mod = remainder


def fmod(x1: ArrayLike, x2: ArrayLike, /) -> Any:
    """C's remainder, with the sign of ``x1``; integer ``fmod(x, 0)`` is 0, as NumPy."""
    x, y = util.binary_operands(np.fmod, "fmod", x1, x2)
    if not _is_integer(x):
        return bi.rem(x, y)
    x, y = util.broadcast_all("fmod", x, y)
    return ew.select(ew.eq(y, _const(y, 0)), _const(x, 0), bi.rem(x, y))


def divmod(x1: ArrayLike, x2: ArrayLike, /) -> tuple[Any, Any]:
    """``(floor_divide(x1, x2), remainder(x1, x2))``, sharing their work."""
    (x, y), _ = util.ufunc_operands(np.divmod, "divmod", x1, x2)
    return (_divmod_integers if _is_integer(x) else _divmod_floats)(x, y)


# --------------------------------------------------------------------------- powers


def _concrete_integer(y: Any) -> int | None:
    """A Python int, NumPy integer scalar or 0-d integer ndarray exponent, as an int (jax.numpy
    uses integer_pow for these); None for anything else."""
    if isinstance(y, (bool, np.bool_)) or isinstance(y, Tracer):
        return None
    if isinstance(y, (int, np.integer)):
        return int(y)
    if isinstance(y, np.ndarray) and y.ndim == 0 and y.dtype.kind in "iu":
        return int(y)
    return None


def _negative_power_error(exponent: Any) -> ValueError:
    return ValueError(f"power: integers to negative integer powers are not allowed (NumPy "
                      f"raises too; JAX silently gives wrong values); got exponent {exponent}")


def power(x1: ArrayLike, x2: ArrayLike, /) -> Any:
    """``x1 ** x2``. A concrete integer exponent uses ``integer_pow`` (``x**0`` has derivative
    0 at 0); an integer exponent array keeps the derivative 0 where it is 0 (JAX's guard);
    a float exponent uses ``pow`` (``power(x, 0.0)`` has derivative NaN at 0, as JAX).

    >>> import numpy as np, minigrad as mg, minigrad.numpy as mnp
    >>> float(mg.grad(lambda x: x ** 0)(0.0)), float(mg.grad(lambda x: mnp.power(x, 0.0))(0.0))
    (0.0, nan)
    >>> mnp.power(np.array([2, 3]), -1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: power: integers to negative integer powers are not allowed ...
    """
    keys = promotion_key(x1, "power"), promotion_key(x2, "power")
    resolved = util.resolve_ufunc(np.power, "power", *keys)
    in_x = resolved.inputs[0]
    exponent = _concrete_integer(x2)
    if exponent is not None:
        if exponent < 0 and in_x.kind in "biu":
            raise _negative_power_error(exponent)
        return ew.integer_pow(asarray(util.convert(x1, in_x, "power")), exponent)
    x, y = util.binary_operands(np.power, "power", x1, x2)
    if in_x.kind in "iu" and not isinstance(y, Tracer) and np.any(np.asarray(y) < 0):
        raise _negative_power_error(np.asarray(y).min())
    if isinstance(keys[1], np.dtype) and keys[1].kind in "biu" and in_x.kind in "fc":
        # x**0 is 1 for every x: computed as 1**0, its derivative is 0 there, not 0 * x**-1
        x, y = util.broadcast_all("power", x, y)
        x = ew.select(ew.eq(y, _const(y, 0)), _const(x, 1), x)
    return ew.pow_(x, y)


pow = power


def float_power(x1: ArrayLike, x2: ArrayLike, /) -> Any:
    """``x1 ** x2`` in float64 (complex128) whatever the operands, as NumPy."""
    return ew.pow_(*util.binary_operands(np.float_power, "float_power", x1, x2))


# --------------------------------------------------------------------------- mantissas, exponents


def _scale_by_power_of_two(x: Any, n: Any) -> Any:
    """``x * 2**n`` for an integer array ``n``, in three exact steps of at most the dtype's
    largest exponent each (one 2**n overflows long before x * 2**n does)."""
    info = np.finfo(get_aval(x).dtype)
    step = info.maxexp - 2  # (exp2 of the largest exponent is not exact in float32)
    n = ew.maximum(ew.full_like(n, -3 * step), bi.minimum(ew.full_like(n, 3 * step), n))
    for _ in range(3):
        part = ew.maximum(ew.full_like(n, -step), bi.minimum(ew.full_like(n, step), n))
        x = ew.mul(x, un.exp2(ew.convert_element_type(part, get_aval(x).dtype)))
        n = ew.sub(n, part)
    return x


def ldexp(x1: ArrayLike, x2: ArrayLike, /) -> Any:
    """``x1 * 2**x2`` for an integer ``x2``, without overflow in the power."""
    x, n = util.binary_operands(np.ldexp, "ldexp", x1, x2)
    if get_aval(n).dtype.kind not in "iu":
        raise TypeError(f"ldexp: x2 must be an integer array; got {get_aval(n).dtype.name}")
    x, n = util.broadcast_all("ldexp", x, n)
    return _scale_by_power_of_two(x, n)


def frexp(x: ArrayLike, /) -> tuple[Any, Any]:
    """``(m, e)`` with ``x = m * 2**e``, ``0.5 <= |m| < 1`` (``m = x``, ``e = 0`` at 0, inf and
    NaN); ``e`` is int32, as NumPy."""
    x = util.unary_operand(np.frexp, "frexp", x)
    e_dtype = util.resolve_ufunc(np.frexp, "frexp", get_aval(x).dtype).outputs[1]
    regular = _and(un.is_finite(x), ew.ne(x, _const(x, 0)))
    safe = ew.select(regular, un.abs_(x), _const(x, 1))
    # log2 can be one off near a power of two: the two corrections below settle it
    e = ew.convert_element_type(
        ew.add(un.floor(ew.div(ew.log(safe), _const(safe, math.log(2)))), _const(safe, 1)),
        e_dtype)
    m = _scale_by_power_of_two(ew.select(regular, x, _const(x, 1)), ew.neg(e))
    one, half = _const(m, 1), _const(m, 0.5)
    too_big = ew.ge(un.abs_(m), one)
    m = ew.select(too_big, ew.mul(m, half), m)
    e = ew.select(too_big, ew.add(e, ew.full_like(e, 1)), e)
    too_small = ew.lt(un.abs_(m), half)
    m = ew.select(too_small, ew.add(m, m), m)
    e = ew.select(too_small, ew.sub(e, ew.full_like(e, 1)), e)
    return ew.select(regular, m, x), ew.select(regular, e, ew.full_like(e, 0))


def modf(x: ArrayLike, /, out: None = None) -> tuple[Any, Any]:
    """``(x - trunc(x), trunc(x))``; at +-inf the fraction is 0, as NumPy."""
    if out is not None:
        raise TypeError("modf: out must be None (minigrad's arrays are immutable values)")
    x = util.unary_operand(np.modf, "modf", x)
    whole = ew.select(ew.lt(x, _const(x, 0)), un.ceil(x), un.floor(x))
    infinite = ew.eq(un.abs_(x), _const(x, math.inf))
    finite_x = ew.select(infinite, _const(x, 0), x)  # (no inf - inf computed)
    frac = ew.sub(finite_x, ew.select(infinite, _const(x, 0), whole))
    signed_zero = ew.select(un.signbit(x), _const(x, -0.0), _const(x, 0.0))
    return ew.select(infinite, signed_zero, frac), whole


def power_operator(x: ArrayLike, y: ArrayLike) -> Any:
    """``x ** y`` on a tracer: ``power``, except that weak operands (Python numbers, traced)
    stay weak if all are, as Python's arithmetic keeps numbers numbers; a Python int exponent
    uses ``integer_pow`` on ``x`` as it is."""
    if isinstance(y, int) and not isinstance(y, bool) and util.is_array(x):
        if y < 0 and get_aval(x).dtype.kind in "biu":
            raise _negative_power_error(y)
        return ew.integer_pow(x, y)
    if util.is_weak(x) and util.is_weak(y):
        return ew.pow_(*util.promote(x, y, name="power", keep_weak=True))
    return power(x, y)


OPERATORS["power"] = power_operator
OPERATORS["negative"] = ew.neg  # (an operator's operand is a tracer: its weak type is kept)

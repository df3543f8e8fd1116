"""Elementwise binary primitives beyond the base set: ``min``, ``rem``, ``integer_div``, ``atan2``
and ``nextafter`` (lax's names). Operands have equal shapes and dtypes, as for every binary
primitive: ``minigrad.numpy`` promotes and broadcasts first.

NumPy's division family (floor_divide, remainder, fmod, divmod) is built from ``rem``,
``integer_div`` and the float ``div`` in ``minigrad.numpy``, with NumPy's sign fix-ups and its
zero for an integer division by zero.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.core import ShapedArray, Zero, float0, get_aval
from minigrad.ops.elementwise import _max_weight, add, binary, div, mul, neg, rem, rem_p  # noqa: F401
from minigrad.ops.unary import abs_, floor, sign

# min'(x, y): to x where x < y, to y where y < x, half to each at a tie (as max)
min_p = binary("min", np.minimum, lambda t, x, y, out: mul(t, _max_weight(y, x)),
               lambda t, x, y, out: mul(t, _max_weight(x, y)))


def minimum(x: Any, y: Any) -> Any: return min_p.bind(x, y)


def _trunc(q: Any) -> Any:
    return mul(sign(q), floor(abs_(q)))


# rem (C's remainder, the sign of x; an integer x rem 0 is x, as XLA's) lives in
# ops/elementwise.py beside div; imported here for the division family.


def _integer_div_impl(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    # C's division, rounding toward zero: NumPy's floor division plus one where the exact
    # quotient is negative and not whole. x / 0 is 0, as NumPy's floor_divide gives (with its
    # warning); XLA's -1 is not used. INT_MIN / -1 wraps to INT_MIN, as in NumPy and JAX.
    q = np.floor_divide(x, y)
    with np.errstate(divide="ignore"):
        inexact = np.fmod(x, y) != 0
    return q + (inexact & ((x < 0) != (y < 0)))  # type: ignore[no-any-return]


def _integer_div_abstract_eval(x: ShapedArray, y: ShapedArray) -> ShapedArray:
    if x.dtype.kind not in "iu" or x != y:
        raise TypeError(f"integer_div: operands must be integers of one shape and dtype; got "
                        f"{x.str_short()} and {y.str_short()}")
    return x


integer_div_p = binary("integer_div", _integer_div_impl, None, None)
integer_div_p.def_abstract_eval(_integer_div_abstract_eval)


@integer_div_p.def_jvp
def _integer_div_jvp(primals: tuple, tangents: tuple) -> tuple:
    out = integer_div(*primals)  # integers: a float0 zero tangent
    return out, Zero(ShapedArray(get_aval(out).shape, float0))


def integer_div(x: Any, y: Any) -> Any:
    """``x / y`` for integers, truncated toward zero (lax.div's integer case)."""
    return integer_div_p.bind(x, y)


def _atan2_denominator(x: Any, y: Any) -> Any:
    return add(mul(x, x), mul(y, y))


# atan2(x, y) = angle of the point (y, x): d/dx = y / (x² + y²), d/dy = -x / (x² + y²); NaN at
# the origin, as JAX
atan2_p = binary("atan2", np.arctan2,
                 lambda t, x, y, out: mul(t, div(y, _atan2_denominator(x, y))),
                 lambda t, x, y, out: mul(t, div(neg(x), _atan2_denominator(x, y))))


def atan2(x: Any, y: Any) -> Any: return atan2_p.bind(x, y)


# nextafter(x, y) moves x one ulp toward y: d/dx = 1, d/dy = 0 (JAX defines no derivative; a
# step of one ulp is the identity to first order)
nextafter_p = binary("nextafter", np.nextafter, lambda t, x, y, out: t, None)


def nextafter(x: Any, y: Any) -> Any: return nextafter_p.bind(x, y)

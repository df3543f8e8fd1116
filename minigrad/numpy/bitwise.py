"""Bit operations on integers and bools: NumPy's ``bitwise_and`` ... ``right_shift`` over the
bit primitives of ``ops/bitwise.py`` (the random branch's module, which this branch carries a
copy of until the lead merges them).

Shifts are defined for every count, as NumPy 2 and JAX agree: a count outside ``[0, width)``
gives 0, or -1 for a right shift of a negative value; ``right_shift`` is arithmetic for signed
dtypes and logical for unsigned ones. ``bitwise_count`` counts the bits of ``|x|`` as NumPy does
(JAX counts the two's complement bits), in uint8.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from minigrad.core import get_aval
from minigrad.numpy import util
from minigrad.numpy.util import ArrayLike
from minigrad.ops import bitwise as bw
from minigrad.ops import elementwise as ew
from minigrad.ops import unary as un

__all__ = [  # what minigrad.numpy exports from here
    "bitwise_and", "bitwise_count", "bitwise_invert", "bitwise_left_shift", "bitwise_not",
    "bitwise_or", "bitwise_right_shift", "bitwise_xor", "invert", "left_shift", "right_shift",
]


def _bits(name: str, ufunc: np.ufunc, prim_fn: Callable[..., Any]) -> Callable[..., Any]:
    def fn(x1: ArrayLike, x2: ArrayLike, /) -> Any:
        return prim_fn(*util.binary_operands(ufunc, name, x1, x2))

    fn.__name__ = name
    fn.__doc__ = f"NumPy's ``{ufunc.__name__}`` of integers or bools (floats: TypeError)."
    return fn


bitwise_and = _bits("bitwise_and", np.bitwise_and, bw.and_p.bind)
bitwise_or = _bits("bitwise_or", np.bitwise_or, bw.or_p.bind)
bitwise_xor = _bits("bitwise_xor", np.bitwise_xor, bw.xor_p.bind)
left_shift = _bits("left_shift", np.left_shift, bw.shift_left_p.bind)
left_shift.__doc__ = "``x1 << x2``; counts outside [0, width) give 0."


def _right_shift(x: Any, y: Any) -> Any:
    if get_aval(x).dtype.kind == "u":
        return bw.shift_right_logical_p.bind(x, y)
    return bw.shift_right_arithmetic_p.bind(x, y)


right_shift = _bits("right_shift", np.right_shift, _right_shift)
right_shift.__doc__ = ("``x1 >> x2``: arithmetic for signed dtypes, logical for unsigned; counts "
                       "outside [0, width) give 0 (-1 for a negative x1).")
# the array API's spellings
bitwise_left_shift, bitwise_right_shift = left_shift, right_shift


def invert(x: ArrayLike, /) -> Any:
    """``~x``: every bit flipped (bools: logical not)."""
    return bw.not_p.bind(util.unary_operand(np.invert, "invert", x))


bitwise_not = bitwise_invert = invert


def bitwise_count(x: ArrayLike, /) -> Any:
    """The number of one bits of ``|x|`` (NumPy's definition), as uint8.

    >>> import numpy as np, minigrad.numpy as mnp
    >>> mnp.bitwise_count(np.array([-1, 7]))
    Array([1, 3], dtype=uint8)
    """
    x = util.unary_operand(np.bitwise_count, "bitwise_count", x)
    out = util.resolve_ufunc(np.bitwise_count, "bitwise_count", get_aval(x).dtype).out
    magnitude = un.abs_(x) if get_aval(x).dtype.kind == "i" else x
    return ew.convert_element_type(bw.population_count_p.bind(magnitude), out)

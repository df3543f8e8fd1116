"""JAX's ``jax.lax`` dtype conversions by name: ``convert_element_type``,
``bitcast_convert_type`` and ``reduce_precision``.

``bitcast_convert_type`` between widths is JAX's too: to a narrower dtype each element becomes
a new last axis of ``old_width / new_width`` elements, to a wider one the last axis (of that
length) is merged, the bytes in memory order (little-endian, as JAX's CPU result and NumPy's
``view``). Both are composed of integer primitives: the same-width bitcast to the unsigned
integer of the old width, logical shifts by ``8 * width * k`` (an iota), a wrapping conversion
to the narrow unsigned type, or a widening one and a sum of the shifted parts (their bits are
disjoint), then the same-width bitcast to ``new_dtype``. A bit pattern has no derivative.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from minigrad.core import get_aval
from minigrad.lax.lax_ops import array_result, check_kind
from minigrad.lax.lax_ops import operand as _arg
from minigrad.ops import bitwise as bw
from minigrad.ops import elementwise as ew
from minigrad.ops import structural as st
from minigrad.ops.reduce_precision import reduce_precision as _reduce_precision
from minigrad.ops.sort import iota


def _dtype(fn: str, dtype: Any) -> np.dtype:
    try:
        return np.dtype(dtype)
    except TypeError:
        raise TypeError(f"{fn}: {dtype!r} is not a dtype") from None


@array_result
def convert_element_type(operand: Any, new_dtype: Any) -> Any:
    """``operand`` as ``new_dtype``. A float to an integer truncates toward zero and saturates
    as XLA does: NaN is 0, values past the range (and +-inf) are the dtype's max and min.

    >>> import minigrad as mg, numpy as np
    >>> mg.lax.convert_element_type(np.array([1.7, -1.7, np.nan, np.inf]), np.int32)
    Array([         1,         -1,          0, 2147483647], dtype=int32)
    """
    x = _arg(operand, "convert_element_type", "operand")
    new = _dtype("convert_element_type", new_dtype)
    if get_aval(x).dtype.kind == "f" and new.kind in "iu":
        info = np.iinfo(new)
        lo, hi = ew.full_like(x, info.min), ew.full_like(x, info.max + 1)  # (exact: powers of 2)
        below = ew.sub(lo, ew.full_like(x, 1))  # (lo itself where the float cannot tell)
        safe = ew.select(ew.lt(below, x), x, ew.full_like(x, 0))
        safe = ew.select(ew.lt(safe, hi), safe, ew.full_like(x, 0))
        out = ew.convert_element_type(ew.select(ew.eq(x, x), safe, ew.full_like(x, 0)), new)
        out = ew.select(ew.ge(x, hi), ew.full_like(out, info.max), out)
        return ew.select(ew.le(x, below), ew.full_like(out, info.min), out)
    return ew.convert_element_type(x, new, weak_type=False)


@array_result
def bitcast_convert_type(operand: Any, new_dtype: Any) -> Any:
    """The bits of ``operand`` read as ``new_dtype``: of the same width elementwise
    (``float32 <-> int32``), to a narrower dtype with a new last axis, from a narrower one
    merging the last axis.

    >>> import minigrad as mg, numpy as np
    >>> mg.lax.bitcast_convert_type(np.array([1.5], np.float32), np.uint8)
    Array([[  0,   0, 192,  63]], dtype=uint8)
    """
    x = _arg(operand, "bitcast_convert_type", "operand")
    new, old = _dtype("bitcast_convert_type", new_dtype), get_aval(x).dtype
    if new == old:
        return x
    if "b" in (new.kind, old.kind) or "c" in (new.kind, old.kind):
        raise TypeError(f"bitcast_convert_type: bool and complex bitcast only to themselves; "
                        f"got {old.name} to {new.name}")
    if new.itemsize == old.itemsize:
        return bw.bitcast_convert_type(x, new)
    shape = get_aval(x).shape
    u_old, u_new = np.dtype(f"u{old.itemsize}"), np.dtype(f"u{new.itemsize}")
    bits = bw.bitcast_convert_type(x, u_old)
    if new.itemsize < old.itemsize:
        # element -> its parts, lowest bytes first: (bits >> 8 * w * k) wrapped to w bytes
        r = old.itemsize // new.itemsize
        out_shape = (*shape, r)
        spread = st.broadcast_in_dim(bits, out_shape, tuple(range(len(shape))))
        shifts = ew.mul(iota(out_shape, len(shape), u_old),
                        ew.full_like(spread, 8 * new.itemsize))
        parts = ew.convert_element_type(bw.shift_right_logical(spread, shifts), u_new)
        return bw.bitcast_convert_type(parts, new)
    r = new.itemsize // old.itemsize
    if not shape or shape[-1] != r:
        raise ValueError(f"bitcast_convert_type: to a dtype {r} times as wide ({old.name} to "
                         f"{new.name}) the last axis must have size {r}; got shape {shape}")
    # parts -> element: sum of (part << 8 * w * k) over the last axis (disjoint bits)
    wide = ew.convert_element_type(bits, u_new)
    shifts = ew.mul(iota(shape, len(shape) - 1, u_new), ew.full_like(wide, 8 * old.itemsize))
    merged = st.reduce_sum(bw.shift_left(wide, shifts), (len(shape) - 1,))
    return bw.bitcast_convert_type(merged, new)


@array_result
def reduce_precision(operand: Any, exponent_bits: int, mantissa_bits: int) -> Any:
    """``operand`` rounded to a float format of ``exponent_bits`` and ``mantissa_bits``
    (``(5, 10)``: float16, ``(8, 7)``: bfloat16), as XLA rounds
    (``minigrad/ops/reduce_precision.py``)."""
    x = _arg(operand, "reduce_precision", "operand")
    check_kind("reduce_precision", x, "f", "operand")
    try:
        e, m = operator.index(exponent_bits), operator.index(mantissa_bits)
    except TypeError:
        raise TypeError(f"reduce_precision: exponent_bits and mantissa_bits must be ints; got "
                        f"{exponent_bits!r}, {mantissa_bits!r}") from None
    if e < 1:
        raise ValueError(f"reduce_precision: exponent_bits must be positive; got {e}")
    if m < 0:
        raise ValueError(f"reduce_precision: mantissa_bits must be non-negative; got {m}")
    return _reduce_precision(x, e, m)


__all__ = ["bitcast_convert_type", "convert_element_type", "reduce_precision"]

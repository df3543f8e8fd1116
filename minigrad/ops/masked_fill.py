"""masked_fill: ``where(mask, value, x)``, of shape ``broadcast(x.shape, mask.shape)``.

The user function broadcasts ``x`` and ``mask`` to the result's shape with ``broadcast_in_dim``
(whose transpose sums ``x``'s cotangent back to ``x``'s shape) and turns ``value`` into a 0-d
operand of ``x``'s dtype, so the primitive sees equal shapes and a differentiable, batchable
``value``. For a fixed ``mask`` the op is linear in ``(x, value)`` jointly; with a constant
``value`` it is affine in ``x``, so the JVP fills with ``value``'s tangent, never its value.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.core import Primitive, ShapedArray, UndefPrimal, Zero, get_aval
from minigrad.ops.elementwise import select
from minigrad.ops.indexing import as_array, check_mask, mask_canonical, value_operand
from minigrad.ops.structural import (
    bdim_to_front,
    broadcast_in_dim,
    broadcast_to,
    instantiate,
    reduce_sum,
    zeros,
)

masked_fill_p = Primitive("masked_fill")


def masked_fill(x: Any, mask: Any, value: Any) -> Any:
    """``x`` with ``value`` where the bool ``mask`` is true (PyTorch's ``Tensor.masked_fill``,
    out of place): ``where(mask, value, x)``, broadcasting ``x`` and ``mask`` together.

    >>> import numpy as np
    >>> from minigrad.ops.masked_fill import masked_fill
    >>> masked_fill(np.array([1., 2., 3.]), np.array([True, False, True]), 0.5)
    Array([0.5, 2. , 0.5], dtype=float64)
    """
    operands, params, _ = masked_fill_operands(x, mask, value)
    return masked_fill_p.bind(*operands, **params)


def masked_fill_operands(x: Any, mask: Any, value: Any) -> tuple[tuple, dict, None]:
    """masked_fill's arguments, checked, as ``masked_fill_p``'s operands (x and mask broadcast
    together) and parameters (none), and None: the result has the first operand's shape.
    ``masked_fill_`` writes with the same."""
    if mask_canonical(x, mask):
        return (x, mask, value_operand("masked_fill", value, x.dtype)), {}, None
    x, mask = as_array(x, "masked_fill", "x"), as_array(mask, "masked_fill", "mask")
    shape = check_mask("masked_fill", x, mask)
    value = value_operand("masked_fill", value, x.dtype)
    return ((x if x.shape == shape else broadcast_to(x, shape),
             mask if mask.shape == shape else broadcast_to(mask, shape), value), {}, None)


@masked_fill_p.def_impl  # (the impl itself: jit's in-place reuse passes inplace=True)
def masked_fill_into(x: np.ndarray, mask: np.ndarray, value: np.ndarray,
                     inplace: bool = False) -> np.ndarray:
    """masked_fill's result: a new array, or with ``inplace`` ``x`` itself, updated (jit's
    in-place reuse of a buffer nothing reads afterwards)."""
    if not fill_by_bits_pays(x, value, inplace):
        if inplace:
            np.copyto(x, value, where=mask)
            return x
        return np.where(mask, value, x)  # the semantics; a new array: x is never written
    return fill_by_bits(x, mask, value, inplace)


# --- speed: a fill is a selection of bit patterns, x's where mask is false, value's where it
# is true: an AND with all ones or all zeros, exact for every value and branch-free where
# np.where (and np.copyto's where=) mispredicts on an irregular mask. Measured in
# benchmarks/masked_fill_impls.py: filling with +0, 2.5-4x faster than np.where from ~100k
# elements at 30% true, np.where winning below ~32k and for a nonzero value (which takes two
# more passes) when a new array is made anyway. In place, np.copyto(where=) costs ~4.2 ns per
# element at 30% true (32k elements) against 0.85 for the AND and 1.5 with a nonzero value. The
# transposes fill with 0: on the benchmark workload the plain impl alone costs +4.2% of
# vmap(grad)'s instructions at B=16 and +10.5% at B=256. tests/test_masked_fill.py checks that
# both formulations agree.
def fill_by_bits_pays(x: np.ndarray, value: np.ndarray, inplace: bool = False) -> bool:
    if x.size < 32768 or x.dtype.itemsize not in (1, 2, 4, 8):
        return False
    return inplace or not np.asarray(value, x.dtype).view(f"i{x.dtype.itemsize}").any()


def fill_by_bits(x: np.ndarray, mask: np.ndarray, value: np.ndarray, inplace: bool = False
                 ) -> np.ndarray:
    """``np.where(mask, value, x)`` by bits: a new array (``x`` is never written), or ``x``
    itself with ``inplace``."""
    bits = np.dtype(f"i{x.dtype.itemsize}")
    fill = np.asarray(value, x.dtype).view(bits)
    if inplace:
        return fill_in_blocks(x, mask, fill, bits)
    keep = np.subtract(mask, 1, dtype=bits)  # 0 where mask is true, else all ones
    taken = np.invert(keep) if fill else None  # (keep is about to be written)
    np.bitwise_and(keep, x.view(bits), out=keep)
    if taken is not None:  # value's bits where mask is true: OR in (~keep & fill)
        np.bitwise_or(keep, np.bitwise_and(taken, fill, out=taken), out=keep)
    return keep.view(x.dtype)


# In place, the bit masks are made a block of _FILL_BLOCK elements at a time (in memory order,
# for any layout of x and mask: np.nditer's buffered blocks), so the fill allocates a block, not
# an array of x's size: peak memory 1.04x x's instead of 2x at 2M float64 elements, and no
# slower (a block stays in cache between its passes). benchmarks/run.py's in-place section
# measures the peak.
_FILL_BLOCK = 65536


def fill_in_blocks(x: np.ndarray, mask: np.ndarray, fill: np.ndarray, bits: np.dtype
                   ) -> np.ndarray:
    """``x`` with ``fill``'s bits where ``mask`` is true, written in place, block by block."""
    keep = np.empty(min(_FILL_BLOCK, x.size), bits)
    with np.nditer([x.view(bits), mask], flags=["external_loop", "buffered", "zerosize_ok"],
                   op_flags=[["readwrite"], ["readonly"]], buffersize=_FILL_BLOCK) as blocks:
        for xs, ms in blocks:
            k = keep[:xs.size]
            np.subtract(ms, 1, dtype=bits, out=k)  # 0 where mask is true, else all ones
            np.bitwise_and(xs, k, out=xs)
            if fill:  # value's bits where mask is true: OR in (~keep & fill)
                np.bitwise_or(xs, np.bitwise_and(np.invert(k, out=k), fill, out=k), out=xs)
    return x


@masked_fill_p.def_abstract_eval
def _masked_fill_abstract_eval(x: ShapedArray, mask: ShapedArray, value: ShapedArray
                               ) -> ShapedArray:
    if (mask.dtype != np.bool_ or mask.shape != x.shape or value.shape != ()
            or value.dtype != x.dtype):
        raise TypeError(f"masked_fill: operands {x.str_short()}, {mask.str_short()}, "
                        f"{value.str_short()} must be x, a bool mask of x's shape and a 0-d "
                        f"value of x's dtype")
    return x


def fill_zero(x: Any, mask: Any) -> Any:
    """``masked_fill(x, mask, 0)`` on operands of one shape: the projection that zeroes the
    masked entries (its own transpose)."""
    return masked_fill_p.bind(x, mask, np.zeros((), get_aval(x).dtype))


@masked_fill_p.def_jvp
def _masked_fill_jvp(primals: tuple, tangents: tuple) -> tuple:
    # out_dot = masked_fill(x_dot, mask, value_dot), with value_dot = 0 for a constant value
    (x, mask, value), (x_dot, _, value_dot) = primals, tangents
    out = masked_fill_p.bind(x, mask, value)
    if isinstance(value_dot, Zero):
        return out, fill_zero(x_dot, mask)
    return out, masked_fill_p.bind(instantiate(x_dot), mask, value_dot)


@masked_fill_p.def_transpose
def _masked_fill_transpose(ct: Any, x: Any, mask: Any, value: Any) -> tuple:
    # ct_x = masked_fill(ct, mask, 0); ct_value = reduce_sum(where(mask, ct, 0))
    if isinstance(mask, UndefPrimal):
        raise TypeError("masked_fill: mask is not a linear operand")
    if (isinstance(x, UndefPrimal) and isinstance(value, np.ndarray)
            and value.item() != 0):  # (value is 0-d)
        raise TypeError(f"masked_fill: not linear in x with a constant nonzero value "
                        f"{value.item()!r} (the op is affine in x); transpose needs value 0")
    ct_x = fill_zero(ct, mask) if isinstance(x, UndefPrimal) else None
    ct_value = None
    if isinstance(value, UndefPrimal):
        aval = get_aval(ct)
        ct_value = reduce_sum(select(mask, ct, zeros(aval)), range(aval.ndim))
    return ct_x, None, ct_value


@masked_fill_p.def_batch
def _masked_fill_batch(axis_size: int, vals: tuple, dims: tuple) -> tuple:
    (x, mask, value), (xd, md, vd) = vals, dims
    if md is None and vd is None:  # only x batched: broadcast the mask into x's layout (a view)
        shape = get_aval(x).shape
        mask = broadcast_in_dim(mask, shape, tuple(i for i in range(len(shape)) if i != xd))
        return masked_fill_p.bind(x, mask, value), xd
    x, mask = bdim_to_front(x, xd, axis_size), bdim_to_front(mask, md, axis_size)
    if vd is None:
        return masked_fill_p.bind(x, mask, value), 0
    # one value per example: broadcast it as (B, 1, ..., 1) and select
    return select(mask, broadcast_in_dim(value, get_aval(x).shape, (0,)), x), 0

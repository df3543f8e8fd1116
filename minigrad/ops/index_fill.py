"""index_fill: ``x`` with the slices at ``index`` along ``dim`` set to ``value``.

``value`` is always an operand of the primitive (a 0-d array of ``x``'s dtype), so a traced
value is differentiable and batchable. Duplicate entries of ``index`` fill a slice once, and the
value's gradient counts each filled element once. For a fixed ``index`` the op is linear in
``(x, value)`` jointly: the JVP is the op on the tangents (with ``value``'s tangent, never its
primal: with a constant value the op is affine in ``x``), and the transpose splits the
cotangent into ``ct_x = index_fill(ct, dim, index, 0)`` and ``ct_value`` = the sum of ``ct``
over the filled elements.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.core import Primitive, ShapedArray, UndefPrimal, Zero, get_aval
from minigrad.ops.elementwise import select
from minigrad.ops.indexing import (
    as_array,
    canonical_dim,
    canonical_eagerly,
    canonical_index,
    check_index,
    check_index_values,
    fold_index,
    fold_operand,
    logical_shape,
    unfold,
    value_operand,
)
from minigrad.ops.masked_fill import masked_fill_p
from minigrad.ops.structural import (
    bdim_to_front,
    broadcast_in_dim,
    full,
    instantiate,
    reduce_sum,
    reshape,
    zeros,
)

index_fill_p = Primitive("index_fill")


def index_fill(x: Any, dim: int, index: Any, value: Any) -> Any:
    """``x`` with the slices at ``index`` along ``dim`` set to ``value``, a Python scalar or a
    0-d array (PyTorch's ``Tensor.index_fill``, out of place). Unlike PyTorch, negative entries
    of ``index`` are rejected rather than wrapped.

    >>> import numpy as np
    >>> from minigrad.ops.index_fill import index_fill
    >>> index_fill(np.ones((2, 3)), 1, np.array([0, 2, 2]), -1.0)
    Array([[-1.,  1., -1.],
           [-1.,  1., -1.]], dtype=float64)
    """
    operands, params, out_shape = index_fill_operands(x, dim, index, value)
    out = index_fill_p.bind(*operands, **params)
    return out if out_shape is None else reshape(out, out_shape)


def index_fill_operands(x: Any, dim: int, index: Any, value: Any) -> tuple[tuple, dict, Any]:
    """index_fill's arguments, checked, as ``index_fill_p``'s operands and parameters, and the
    result's shape when it is not the first operand's (a 0-d ``x``), else None. ``index_fill_``
    writes with the same."""
    if canonical_eagerly(x, dim, index):
        return (x, index, value_operand("index_fill", value, x.dtype)), {"dim": dim}, None
    x = as_array(x, "index_fill", "x")
    dim = canonical_dim("index_fill", dim, x.ndim)
    shape = x.shape or (1,)  # a 0-d x is one slice of size 1, as in PyTorch
    index = canonical_index("index_fill", index, shape[dim], dim)
    value = value_operand("index_fill", value, x.dtype)
    if x.ndim > 0:
        return (x, index, value), {"dim": dim}, None
    return (reshape(x, shape), index, value), {"dim": dim}, ()


@index_fill_p.def_impl  # (the impl itself: jit's in-place reuse passes inplace=True)
def index_fill_into(x: np.ndarray, index: np.ndarray, value: np.ndarray, *, dim: int,
                    inplace: bool = False) -> np.ndarray:
    """index_fill's result: a new array, or with ``inplace`` ``x`` itself, updated (jit's
    in-place reuse of a buffer nothing reads afterwards)."""
    check_index_values(index, x.shape[dim], "index_fill", dim)
    out = x if inplace else x.copy()  # never write into the caller's array
    dest: tuple[Any, ...] = (*(slice(None),) * dim, index)
    out[dest] = value  # duplicates write the same value: harmless
    return out


@index_fill_p.def_abstract_eval
def _index_fill_abstract_eval(x: ShapedArray, index: ShapedArray, value: ShapedArray, *,
                              dim: int) -> ShapedArray:
    if (index.ndim != 1 or index.dtype.kind not in "iu" or value.shape != ()
            or value.dtype != x.dtype or not 0 <= dim < x.ndim):
        raise TypeError(f"index_fill: operands {x.str_short()}, {index.str_short()}, "
                        f"{value.str_short()} do not fit dim={dim}")
    return x


@index_fill_p.def_jvp
def _index_fill_jvp(primals: tuple, tangents: tuple, *, dim: int) -> tuple:
    # out_dot = index_fill(x_dot, dim, index, value_dot), value_dot = 0 for a constant value
    (x, index, value), (tx, _, tv) = primals, tangents
    out = index_fill_p.bind(x, index, value, dim=dim)
    tv = np.zeros((), get_aval(value).dtype) if isinstance(tv, Zero) else tv  # a constant 0
    return out, index_fill_p.bind(instantiate(tx), index, tv, dim=dim)


@index_fill_p.def_transpose
def _index_fill_transpose(ct: Any, x: Any, index: Any, value: Any, *, dim: int) -> tuple:
    # ct_x = index_fill(ct, dim, index, 0); ct_value = sum(ct at the filled elements)
    if isinstance(index, UndefPrimal):
        raise TypeError("index_fill: index is not a linear operand")
    if isinstance(value, np.ndarray) and value != 0:
        # Linear in (x, value) jointly: a constant value must be the zero of a JVP.
        raise TypeError(f"index_fill: cannot transpose with the constant value {value.item()}: "
                        f"the function is affine in x, not linear")
    aval = get_aval(ct)
    ct_x = ct_value = None
    if isinstance(x, UndefPrimal):
        ct_x = index_fill_p.bind(ct, index, np.zeros((), aval.dtype), dim=dim)
    if isinstance(value, UndefPrimal):
        filled = index_fill_p.bind(full(aval.shape, False, bool), index, np.asarray(True),
                                   dim=dim)
        ct_value = reduce_sum(select(filled, ct, zeros(aval)), range(aval.ndim))
    return ct_x, None, ct_value


@index_fill_p.def_batch
def _index_fill_batch(axis_size: int, vals: tuple, dims: tuple, *, dim: int) -> tuple:
    (x, index, value), (xd, idd, vd) = vals, dims
    if vd is None:
        return _fill_batched(axis_size, x, xd, index, idd, value, dim)
    # One value per example: select it where a bool mask, filled the same way, is True.
    shape = logical_shape(x, xd)
    mask = full(shape, False, bool)
    if idd is None:
        mask = index_fill_p.bind(mask, index, np.asarray(True), dim=dim)
        mask_bdim = None
    else:
        mask, mask_bdim = _fill_batched(axis_size, mask, None, index, idd, np.asarray(True), dim)
    values = broadcast_in_dim(value, (axis_size, *shape), (0,))
    return select(bdim_to_front(mask, mask_bdim, axis_size), values,
                  bdim_to_front(x, xd, axis_size)), 0


def _fill_batched(axis_size: int, x: Any, xd: int | None, index: Any, idd: int | None,
                  value: Any, dim: int) -> tuple:
    """index_fill with an unbatched ``value``, and ``x`` or ``index`` (or both) batched."""
    if idd is None:  # one index for all examples: index the axis after the batch axis
        return index_fill_p.bind(bdim_to_front(x, xd, axis_size), index, value, dim=dim + 1), 0
    # A batched index: fold the batch into dim, with example b's entries offset by b * n.
    n = logical_shape(x, xd)[dim]
    index = check_index(index, n, "index_fill", dim)
    folded = fold_index(index, idd, n, axis_size)
    if dim == 0 and xd == 0:  # (B, n, ...) -> (B * n, ...) is a free reshape
        out = index_fill_p.bind(fold_operand(x, xd, dim, axis_size), folded, value, dim=dim)
        return unfold(out, dim, axis_size, n), dim
    # Elsewhere folding x would transpose it (a copy, and another to unfold): fold a small
    # (B, n) bool mask instead, and fill x where it is True, broadcast over x's other axes.
    x = bdim_to_front(x, xd, axis_size)
    shape = get_aval(x).shape
    if isinstance(folded, np.ndarray):
        mask = concrete_fill_mask(folded, axis_size, n, dim, shape)
    else:
        filled = index_fill_p.bind(full((axis_size * n,), False, bool), folded,
                                   np.asarray(True), dim=0)
        mask = broadcast_in_dim(reshape(filled, (axis_size, n)), shape, (0, dim + 1))
    return masked_fill_p.bind(x, mask, value), 0


# --- speed: an index known when the rule runs gives a constant mask, built with NumPy on the
# spot (as fold_index folds it) instead of with four binds. Without it, vmap(grad) of the
# benchmark workload runs 3.5% more instructions at B=1. tests/test_index_fill.py checks it
# against the binds.
def concrete_fill_mask(folded: np.ndarray, axis_size: int, n: int, dim: int,
                       shape: tuple[int, ...]) -> np.ndarray:
    filled = np.zeros(axis_size * n, bool)
    filled[folded] = True
    lined_up = (axis_size,) + (1,) * dim + (n,) + (1,) * (len(shape) - dim - 2)
    return np.broadcast_to(filled.reshape(lined_up), shape)

"""index_copy: ``x`` with slice ``index[i]`` of ``dim`` replaced by ``source[i]``.

Duplicate entries of ``index`` are resolved explicitly: the last occurrence wins (NumPy makes no
promise about repeated fancy assignment, so the impl writes only the winners). Only the winner
receives gradient, so forward and reverse mode agree. The op is linear in ``(x, source)`` jointly
for a fixed ``index``: the JVP is the op on the tangents, and the transpose splits the cotangent
into ``ct_x = index_fill(ct, dim, index, 0)`` and ``ct_source = index_select(ct, dim, index)`` at
the winners (zero at the losers). The winners come from the helper primitive ``last_occurrence``
at the bottom of this file, so the transpose stays transformable when ``index`` is traced.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.core import Primitive, ShapedArray, UndefPrimal, Zero, float0, get_aval
from minigrad.ops.elementwise import select
from minigrad.ops.index_add import index_select
from minigrad.ops.index_fill import index_fill_p
from minigrad.ops.indexing import (
    check_index,
    check_index_values,
    fold_index,
    fold_operand,
    index_source_operands,
    logical_shape,
    unfold,
)
from minigrad.ops.structural import (
    bdim_to_front,
    broadcast_in_dim,
    instantiate,
    moveaxis,
    reshape,
    zeros,
)

index_copy_p = Primitive("index_copy")


def index_copy(x: Any, dim: int, index: Any, source: Any) -> Any:
    """``x`` with slice ``index[i]`` along ``dim`` replaced by ``source[i]`` (PyTorch's
    ``Tensor.index_copy``, out of place). Of repeated entries of ``index``, the last one wins.

    >>> import numpy as np
    >>> from minigrad.ops.index_copy import index_copy
    >>> index_copy(np.zeros(5), 0, np.array([1, 1, 3]), np.array([1., 2., 3.]))
    Array([0., 2., 0., 3., 0.], dtype=float64)
    """
    x, index, source, dim, out_shape = index_copy_operands(x, dim, index, source)
    out = index_copy_p.bind(x, index, source, dim=dim)
    return out if out_shape is None else reshape(out, out_shape)


def index_copy_operands(x: Any, dim: int, index: Any, source: Any
                        ) -> tuple[Any, Any, Any, int, Any]:
    """index_copy's arguments, checked: ``index_copy_p``'s operands ``x, index, source``, its
    parameter ``dim``, and the result's shape when it is not the first operand's (a 0-d ``x``),
    else None. ``index_copy_`` writes with the same."""
    x, dim, index, source, out_shape = index_source_operands("index_copy", x, dim, index,
                                                             source, 1)  # (scalar_source_rank)
    return x, index, source, dim, out_shape


@index_copy_p.def_impl  # (the impl itself: jit's in-place reuse passes inplace=True)
def index_copy_into(x: np.ndarray, index: np.ndarray, source: np.ndarray, *, dim: int,
                    inplace: bool = False) -> np.ndarray:
    """index_copy's result: a new array, or with ``inplace`` ``x`` itself, updated (jit's
    in-place reuse of a buffer nothing reads afterwards)."""
    n = x.shape[dim]
    check_index_values(index, n, "index_copy", dim)
    winners = _winners(index, n)  # each destination written once: deterministic
    if winners is not None:  # some entry repeats: keep its last occurrence only
        index, source = index[winners], np.compress(winners, source, axis=dim)
    out = x if inplace else x.copy()  # never write into the caller's array
    dest: Any = (slice(None),) * dim + (index,) if dim else index
    out[dest] = source
    return out


def _winners(index: np.ndarray, size: int) -> np.ndarray | None:
    """For a 1-D ``index`` into an axis of ``size``: None if its entries are distinct, else a
    bool array, True at the last occurrence of each value."""
    k = index.shape[0]
    if k <= 32:  # a few entries: Python's set and dict cost less than NumPy's calls
        entries = index.tolist()
        if len(set(entries)) == k:
            return None
        last = {v: i for i, v in enumerate(entries)}
        winners = np.zeros(k, bool)
        winners[list(last.values())] = True
        return winners
    # The largest position of each value, scattered deterministically (ufunc.at is ordered).
    last_pos = np.full(size, -1)
    positions = np.arange(k)
    np.maximum.at(last_pos, index, positions)
    winners = last_pos[index] == positions
    return None if winners.all() else winners


@index_copy_p.def_abstract_eval
def _index_copy_abstract_eval(x: ShapedArray, index: ShapedArray, source: ShapedArray, *,
                              dim: int) -> ShapedArray:
    expected = x.shape[:dim] + index.shape + x.shape[dim + 1:]
    if (index.ndim != 1 or index.dtype.kind not in "iu"
            or source.shape != expected or source.dtype != x.dtype):
        raise TypeError(f"index_copy: operands {x.str_short()}, {index.str_short()}, "
                        f"{source.str_short()} do not fit dim={dim}")
    return x


@index_copy_p.def_jvp
def _index_copy_jvp(primals: tuple, tangents: tuple, *, dim: int) -> tuple:
    # out_dot = index_copy(x_dot, dim, index, source_dot)
    (x, index, source), (tx, _, ts) = primals, tangents
    out = index_copy_p.bind(x, index, source, dim=dim)
    if isinstance(ts, Zero):  # copying zeros in: the same as filling with 0, with no source
        return out, index_fill_p.bind(tx, index, np.zeros((), get_aval(tx).dtype), dim=dim)
    return out, index_copy_p.bind(instantiate(tx), index, ts, dim=dim)


@index_copy_p.def_transpose
def _index_copy_transpose(ct: Any, x: Any, index: Any, source: Any, *, dim: int) -> tuple:
    # ct_x = index_fill(ct, dim, index, 0); ct_source = index_select(ct, dim, index) at winners
    if isinstance(index, UndefPrimal):
        raise TypeError("index_copy: index is not a linear operand")
    ct_x = ct_source = None
    if isinstance(x, UndefPrimal):
        zero = np.zeros((), x.aval.dtype)
        ct_x = index_fill_p.bind(ct, index, zero, dim=dim)
    if isinstance(source, UndefPrimal):
        picked = index_select(ct, dim, index)
        shape = get_aval(picked).shape
        winners = broadcast_in_dim(last_occurrence(index), shape, (dim,))
        ct_source = select(winners, picked, zeros(get_aval(picked)))
    return ct_x, None, ct_source


@index_copy_p.def_batch
def _index_copy_batch(axis_size: int, vals: tuple, dims: tuple, *, dim: int) -> tuple:
    (x, index, source), (xd, idd, sd) = vals, dims
    if idd is None:  # one index for all examples: index the axis after the batch axis
        x, source = bdim_to_front(x, xd, axis_size), bdim_to_front(source, sd, axis_size)
        return index_copy_p.bind(x, index, source, dim=dim + 1), 0
    # A batched index: fold the batch into dim, with example b's entries offset by b * n. The
    # folded index keeps each example's entries in order, so the same occurrence wins.
    n = logical_shape(x, xd)[dim]
    index = check_index(index, n, "index_copy", dim)
    out = index_copy_p.bind(fold_operand(x, xd, dim, axis_size),
                            fold_index(index, idd, n, axis_size),
                            fold_operand(source, sd, dim, axis_size), dim=dim)
    return unfold(out, dim, axis_size, n), dim


# --------------------------------------------------------------------------- last_occurrence
# The winners of index_copy: True where an entry of an integer array is the last occurrence of
# its value along the last axis. Integer in, bool out, so it has no derivative to speak of.

last_occurrence_p = Primitive("last_occurrence")


def last_occurrence(index: Any) -> Any:
    """A bool array of ``index``'s shape: True at the last occurrence of each value along the
    last axis, e.g. ``[1, 3, 1] -> [False, True, True]``."""
    return last_occurrence_p.bind(index)


def _last_occurrence_impl(index: np.ndarray) -> np.ndarray:
    if index.size == 0:
        return np.zeros(index.shape, bool)
    k = index.shape[-1]
    rows = np.repeat(np.arange(index.size // k), k)
    values = index.ravel()
    # Sort by (row, value); the sort is stable, so equal entries stay in position order and the
    # last of each run of equal (row, value) pairs is the last occurrence.
    order = np.lexsort((values, rows))
    rows, values = rows[order], values[order]
    last_in_run = np.ones(index.size, bool)
    last_in_run[:-1] = (rows[:-1] != rows[1:]) | (values[:-1] != values[1:])
    out = np.empty(index.size, bool)
    out[order] = last_in_run
    return out.reshape(index.shape)


last_occurrence_p.def_impl(_last_occurrence_impl)


@last_occurrence_p.def_abstract_eval
def _last_occurrence_abstract_eval(index: ShapedArray) -> ShapedArray:
    if index.ndim < 1 or index.dtype.kind not in "iu":
        raise TypeError(f"last_occurrence: index must be an integer array of rank >= 1; got "
                        f"{index.str_short()}")
    return ShapedArray(index.shape, np.dtype(bool))


@last_occurrence_p.def_jvp
def _last_occurrence_jvp(primals: tuple, tangents: tuple) -> tuple:
    # not differentiable: a float0 zero tangent
    out = last_occurrence(primals[0])
    return out, Zero(ShapedArray(get_aval(out).shape, float0))


@last_occurrence_p.def_batch
def _last_occurrence_batch(axis_size: int, vals: tuple, dims: tuple) -> tuple:
    # Rows are independent: with the batch axis first, the last axis is still the data axis.
    (index,), (d,) = vals, dims
    return last_occurrence(moveaxis(index, d, 0)), 0

"""index_add: ``x`` plus ``alpha * source[i]`` added at slice ``index[i]`` of ``dim``.

Duplicate entries of ``index`` accumulate. The op is linear in ``(x, source)`` jointly for a fixed
``index``, so the JVP is the op on the tangents and the transpose splits the cotangent:
``ct_x = ct`` and ``ct_source = alpha * index_select(ct, dim, index)``.

``index_select``, the gather that is index_add's transpose (and whose transpose is index_add),
is defined at the end of this file.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.core import Primitive, ShapedArray, UndefPrimal, Zero, get_aval
from minigrad.ops.elementwise import full_like, mul
from minigrad.ops.indexing import (
    check_index,
    check_index_values,
    fold_index,
    fold_operand,
    index_source_operands,
    logical_shape,
    static_scalar,
    unfold,
)
from minigrad.ops.structural import bdim_to_front, instantiate, moveaxis, reshape, zeros

index_add_p = Primitive("index_add")


def index_add(x: Any, dim: int, index: Any, source: Any, alpha: Any = 1) -> Any:
    """``x`` with ``alpha * source`` added along ``dim`` at ``index`` (PyTorch's
    ``Tensor.index_add``, out of place). Repeated entries of ``index`` accumulate.

    >>> import minigrad as mg, numpy as np
    >>> mg.index_add(np.zeros(5), 0, np.array([1, 1, 3]), np.array([1., 2., 3.]))
    Array([0., 3., 0., 3., 0.], dtype=float64)
    """
    x, index, source, dim, alpha, out_shape = index_add_operands(x, dim, index, source, alpha)
    out = index_add_p.bind(x, index, source, dim=dim, alpha=alpha)
    return out if out_shape is None else reshape(out, out_shape)


def index_add_operands(x: Any, dim: int, index: Any, source: Any, alpha: Any = 1
                       ) -> tuple[Any, Any, Any, int, Any, Any]:
    """index_add's arguments, checked: ``index_add_p``'s operands ``x, index, source``, its
    parameters ``dim, alpha``, and the result's shape when it is not the first operand's (a 0-d
    ``x``), else None. ``index_add_`` writes with the same. (One flat tuple: packing operands
    and parameters apart costs an eager call 0.1 us.)"""
    x, dim, index, source, out_shape = index_source_operands("index_add", x, dim, index, source,
                                                             0)  # (scalar_source_rank)
    alpha = static_scalar("index_add", "alpha", alpha, x.dtype)
    return x, index, source, dim, alpha, out_shape


@index_add_p.def_impl  # (the impl itself: jit's in-place reuse passes inplace=True)
def index_add_into(x: np.ndarray, index: np.ndarray, source: np.ndarray, *, dim: int,
                   alpha: Any, inplace: bool = False) -> np.ndarray:
    """index_add's result: a new array, or with ``inplace`` ``x`` itself, updated (jit's
    in-place reuse of a buffer nothing reads afterwards)."""
    check_index_values(index, x.shape[dim], "index_add", dim)
    if alpha != 1:
        source = source * np.asarray(alpha, x.dtype)
    # The semantics: a copy of x (x itself in place), with source's slice i added at slice
    # index[i] along dim, one addition at a time in x's dtype, in index order: np.add.at.
    out = x if inplace else x.copy()
    if source.size < _ROUNDS_MIN_ADDED or source.size < _ROUNDS_MIN_WIDTH * index.size:
        where: Any = (slice(None),) * dim + (index,) if dim else index
        np.add.at(out, where, source)
    else:
        add_in_rounds(out, dim, index, source)
    return out


# --- speed: the same additions in fewer NumPy calls. np.add.at costs ~15 ns per element added
# when the slices are rows (under 2 for single elements); ``out[rows] = out[rows] + s`` a few,
# but it is exact only when no row repeats. So the entries go in rounds: each round adds the
# first remaining entry of every slice, which are distinct slices. Each element of x then
# receives its additions in np.add.at's order, in x's dtype: the result is np.add.at's bit for
# bit (float16 saturating at 2048, a -0.0 left alone), and tests/test_adversarial_indexing.py
# holds it to that (an earlier np.bincount path summed in float64, and differed). A round costs
# a few passes over the remaining entries, so the rounds stop, and np.add.at takes the rest, when
# one would move fewer elements than that. Measured (benchmarks/index_add_impls.py, a shared
# machine): x (4096, 64) with 1024 or 8192 entries 2.5-5x faster than np.add.at, within 1.3x of
# np.bincount's float64 sums; x (100000, 8) with 50000 entries 1.5x faster than np.add.at.
_ROUNDS_MIN_ADDED = 4096  # elements of source; below, np.add.at's lower fixed cost wins
_ROUNDS_MIN_WIDTH = 4     # elements per slice; narrower, np.add.at is fast already
_ROUND_MIN_ADDED = 2048   # a round adding fewer elements hands the rest to np.add.at


def add_in_rounds(out: np.ndarray, dim: int, index: np.ndarray, source: np.ndarray) -> None:
    """``np.add.at(out, index along dim, source)``, bit for bit, in rounds of distinct slices."""
    k, n = index.shape[0], out.shape[dim]
    lead: tuple[Any, ...] = (slice(None),) * dim
    width = source.size // k
    todo, idx = np.arange(k), index  # the entries not added yet (positions, slices), in order
    first = np.full(n, k)  # per slice: its first entry in todo (k: none)
    while True:
        np.minimum.at(first, idx, todo)
        leads = first[idx] == todo
        now = todo[leads]
        if now.size * width < max(_ROUND_MIN_ADDED, todo.size):  # the rest, in index order
            np.add.at(out, (*lead, idx), np.take(source, todo, axis=dim))
            return
        rows = idx[leads]  # distinct: one fancy-indexed add is exact (np.take gathers faster)
        where = (*lead, rows)
        out[where] = np.take(out, rows, axis=dim) + np.take(source, now, axis=dim)
        if now.size == todo.size:
            return
        first[rows] = k  # every slice still in todo is among these
        todo, idx = todo[~leads], idx[~leads]


@index_add_p.def_abstract_eval
def _index_add_abstract_eval(x: ShapedArray, index: ShapedArray, source: ShapedArray, *,
                             dim: int, alpha: Any) -> ShapedArray:
    expected = x.shape[:dim] + index.shape + x.shape[dim + 1:]
    if index.ndim != 1 or source.shape != expected or source.dtype != x.dtype:
        raise TypeError(f"index_add: operands {x.str_short()}, {index.str_short()}, "
                        f"{source.str_short()} do not fit dim={dim}")
    return x


@index_add_p.def_jvp
def _index_add_jvp(primals: tuple, tangents: tuple, *, dim: int, alpha: Any) -> tuple:
    # out_dot = index_add(x_dot, dim, index, source_dot, alpha)
    (x, index, source), (tx, _, ts) = primals, tangents
    out = index_add_p.bind(x, index, source, dim=dim, alpha=alpha)
    if isinstance(ts, Zero):
        return out, tx
    return out, index_add_p.bind(instantiate(tx), index, ts, dim=dim, alpha=alpha)


@index_add_p.def_transpose
def _index_add_transpose(ct: Any, x: Any, index: Any, source: Any, *, dim: int, alpha: Any
                         ) -> tuple:
    # ct_x = ct; ct_source = alpha * index_select(ct, dim, index)
    if isinstance(index, UndefPrimal):
        raise TypeError("index_add: index is not a linear operand")
    ct_source = None
    if isinstance(source, UndefPrimal):
        ct_source = index_select(ct, dim, index)
        if alpha != 1:
            ct_source = mul(ct_source, full_like(ct_source, alpha))
    return (ct if isinstance(x, UndefPrimal) else None), None, ct_source


@index_add_p.def_batch
def _index_add_batch(axis_size: int, vals: tuple, dims: tuple, *, dim: int, alpha: Any
                     ) -> tuple:
    (x, index, source), (xd, idd, sd) = vals, dims
    if idd is None:  # one index for all examples: index the axis after the batch axis
        x, source = bdim_to_front(x, xd, axis_size), bdim_to_front(source, sd, axis_size)
        return index_add_p.bind(x, index, source, dim=dim + 1, alpha=alpha), 0
    # A batched index: fold the batch into dim, with example b's entries offset by b * n.
    n = logical_shape(x, xd)[dim]
    index = check_index(index, n, "index_add", dim)
    out = index_add_p.bind(fold_operand(x, xd, dim, axis_size),
                           fold_index(index, idd, n, axis_size),
                           fold_operand(source, sd, dim, axis_size), dim=dim, alpha=alpha)
    return unfold(out, dim, axis_size, n), dim


# --------------------------------------------------------------------------- index_select
# The gather whose transpose is index_add, and the transpose of index_add in its source: the
# two rules name each other, so the pair lives in one file.

index_select_p = Primitive("index_select")


def index_select(x: Any, dim: int, index: Any) -> Any:
    """The slices of ``x`` along ``dim`` at the entries of the 1-D integer ``index``."""
    return index_select_p.bind(x, index, dim=dim)


@index_select_p.def_impl
def _index_select_impl(x: np.ndarray, index: np.ndarray, *, dim: int) -> np.ndarray:
    check_index_values(index, x.shape[dim], "index_select", dim)
    return np.take(x, index, axis=dim)


@index_select_p.def_abstract_eval
def _index_select_abstract_eval(x: ShapedArray, index: ShapedArray, *, dim: int) -> ShapedArray:
    if not 0 <= dim < x.ndim:
        raise ValueError(f"index_select: dim must be in [0, {x.ndim}); got {dim}")
    if index.ndim != 1 or index.dtype.kind not in "iu":
        raise TypeError(f"index_select: index must be a 1-D integer array; got "
                        f"{index.str_short()}")
    shape = list(x.shape)
    shape[dim] = index.shape[0]
    return ShapedArray(tuple(shape), x.dtype)


@index_select_p.def_jvp
def _index_select_jvp(primals: tuple, tangents: tuple, *, dim: int) -> tuple:
    # out_dot = index_select(x_dot, dim, index)
    (x, index), (t, _) = primals, tangents
    return index_select(x, dim, index), index_select(t, dim, index)


@index_select_p.def_transpose
def _index_select_transpose(ct: Any, x: UndefPrimal, index: Any, *, dim: int) -> tuple:
    # ct_x = index_add(0, dim, index, ct): duplicates accumulate
    return index_add_p.bind(zeros(x.aval), index, ct, dim=dim, alpha=1), None


@index_select_p.def_batch
def _index_select_batch(axis_size: int, vals: tuple, dims: tuple, *, dim: int) -> tuple:
    (x, index), (xd, idd) = vals, dims
    if idd is None:  # one index for every example: index the axis after the batch axis
        return index_select(moveaxis(x, xd, 0), dim + 1, index), 0
    n = get_aval(x).shape[dim + (1 if xd is not None and xd <= dim else 0)]
    index = check_index(index, n, "index_select", dim)
    k = get_aval(index).shape[1 - idd]
    if xd is None:  # x shared: select every example's entries at once, then split them
        out = index_select(x, dim, reshape(moveaxis(index, idd, 0), (axis_size * k,)))
    else:
        out = index_select(fold_operand(x, xd, dim, axis_size), dim,
                           fold_index(index, idd, n, axis_size))
    return unfold(out, dim, axis_size, k), dim

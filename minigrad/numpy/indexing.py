"""Indexing: ``x[key]`` and ``take``. Negative indices count from the end, as in NumPy; an index
out of range is an IndexError (NumPy would wrap a too-negative one only in ``take(mode=)``;
JAX clamps: we never do silently)."""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.core import Tracer, get_aval
from minigrad.numpy.shape import ravel, reshape
from minigrad.numpy.ufuncs import add, less, where
from minigrad.numpy.util import ArrayLike, asarray, aval_of, canonical_axes, copy_of, is_array
from minigrad.ops import structural as st
from minigrad.ops.index_add import index_select
from minigrad.rebind import note_view

__all__ = [  # what minigrad.numpy exports from here
    "getitem", "take",
]


def _normalize_index_array(idx: Any, n: int, fn: str) -> Any:
    """Wrap NumPy-style negative entries of an integer index array, and reject entries outside
    [-n, n). A traced index is wrapped with primitives; its range is checked by the impl."""
    if isinstance(idx, Tracer):
        if not np.issubdtype(idx.dtype, np.integer):
            raise TypeError(f"{fn}: indices must be integers; got {idx.dtype}")
        return where(less(idx, 0), add(idx, n), idx)
    idx = np.asarray(idx)
    if not np.issubdtype(idx.dtype, np.integer):
        raise TypeError(f"{fn}: indices must be integers; got {idx.dtype}")
    if idx.size and (idx.min() < -n or idx.max() >= n):
        bad = idx[(idx < -n) | (idx >= n)].flat[0]
        raise IndexError(f"{fn}: index {bad} is out of bounds for an axis of size {n}")
    return np.where(idx < 0, idx + n, idx)


def take(x: ArrayLike, indices: ArrayLike, axis: int | None = None) -> Any:
    """``np.take``: elements of ``x`` along ``axis`` at integer ``indices`` (any shape)."""
    x = asarray(x)
    if axis is None:
        x, axis = ravel(x), 0
    shape = get_aval(x).shape
    (ax,) = canonical_axes(axis, len(shape), "take")
    idx = _normalize_index_array(indices, shape[ax], "take")
    idx_shape = get_aval(idx).shape
    out = index_select(x, ax, reshape(idx, -1))
    return st.reshape(out, (*shape[:ax], *idx_shape, *shape[ax + 1:]))


def getitem(x: ArrayLike, key: Any) -> Any:
    """Basic indexing (ints, slices, None, Ellipsis) and one integer-array index."""
    x = asarray(x)
    key = key if isinstance(key, tuple) else (key,)
    shape = get_aval(x).shape
    n_real = sum(1 for k in key if k is not None and k is not Ellipsis)
    scalar = len(key) == len(shape) and all(  # an int for every axis, nothing else
        isinstance(k, (int, np.integer)) and not isinstance(k, bool) for k in key)
    if n_real > len(shape):
        raise IndexError(f"too many indices for an array of rank {len(shape)}; got {key}")
    # Adjacency of the advanced indices is judged on the key as written: NumPy counts an
    # ellipsis as a separator even when it stands for no axes.
    adv_written = [i for i, k in enumerate(key)
                   if k is not None and k is not Ellipsis and not isinstance(k, slice)]
    n_ellipsis = sum(1 for k in key if k is Ellipsis)
    if n_ellipsis > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if n_ellipsis:
        i = next(j for j, k in enumerate(key) if k is Ellipsis)
        key = key[:i] + (slice(None),) * (len(shape) - n_real) + key[i + 1:]
    else:
        key = key + (slice(None),) * (len(shape) - n_real)
    arrays = [k for k in key if is_array(k) or isinstance(k, list)]
    if len(arrays) > 1:
        raise IndexError("minigrad supports one integer-array index at a time")
    starts, limits, steps, squeeze_axes, take_at, flips = [], [], [], [], None, []
    axis = 0
    for k in key:
        if k is None:
            continue
        n = shape[axis]
        if isinstance(k, slice):
            lo, hi, step = k.indices(n)
            if step < 0:
                flips.append(axis)
                lo, hi, step = _flipped(lo, hi, step, n)
            starts.append(lo)
            limits.append(max(hi, lo))
            steps.append(step)
        elif isinstance(k, (int, np.integer)) and not isinstance(k, bool):
            if not -n <= k < n:
                raise IndexError(f"index {k} is out of bounds for axis {axis} with size {n}")
            k = int(k) % n
            starts.append(k)
            limits.append(k + 1)
            steps.append(1)
            squeeze_axes.append(axis)
        elif is_array(k) or isinstance(k, list):
            starts.append(0)
            limits.append(n)
            steps.append(1)
            take_at = (axis, k)
        else:
            raise IndexError(f"unsupported index {k!r}: use ints, slices, None, ... or one "
                             f"integer array")
        axis += 1
    out = st.slice_array(x, starts, limits, steps)
    for a in flips:  # a negative step: the positive-step slice, read backwards
        if isinstance(out, np.ndarray):  # eagerly, NumPy's view (traced: noted as one below)
            out = out[(slice(None),) * a + (slice(None, None, -1),)]
            continue
        size = get_aval(out).shape[a]
        out = take(out, np.arange(size - 1, -1, -1), a)
    # NumPy's rule: with an array index, int indices are advanced indices too. If all advanced
    # indices are adjacent, the array's dimensions replace them in place; otherwise they go first.
    adv = [i for i, k in enumerate(key) if k is not None and not isinstance(k, slice)]
    adjacent = take_at is None or adv_written == list(range(adv_written[0],
                                                            adv_written[-1] + 1))
    out = st.squeeze(out, squeeze_axes)
    idx_ndim = 0
    if take_at is not None:
        tax, idx = take_at
        idx_ndim = aval_of(idx).ndim
        shifted = tax - sum(1 for s in squeeze_axes if s < tax)
        out = take(out, idx, shifted)
        if not adjacent:
            ndim = get_aval(out).ndim
            idx_dims = list(range(shifted, shifted + idx_ndim))
            out = st.transpose(out, idx_dims + [d for d in range(ndim) if d not in idx_dims])
    # Where the new axes (None) land in the result.
    slots = ["adv"] * idx_ndim if not adjacent else []
    for i, k in enumerate(key):
        if k is None:
            slots.append("new")
        elif isinstance(k, slice):
            slots.append("dim")
        elif take_at is not None and adjacent and i == adv[0]:
            slots.extend(["adv"] * idx_ndim)
    new_axes = [j for j, kind in enumerate(slots) if kind == "new"]
    out = st.expand_dims(out, new_axes) if new_axes else out
    if scalar:  # NumPy's result is then a scalar: a copy
        return copy_of(out)
    # basic indexing makes a view in NumPy; an integer-array index, a copy
    return note_view(out, x) if take_at is None and isinstance(x, Tracer) else out


def _flipped(lo: int, hi: int, step: int, n: int) -> tuple[int, int, int]:
    # The elements lo, lo+step, ... (step < 0) are, reversed, a positive-step slice.
    count = len(range(lo, hi, step))
    if count == 0:
        return 0, 0, 1
    last = lo + (count - 1) * step
    return last, lo + 1, -step

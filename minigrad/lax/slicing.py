"""JAX's ``jax.lax`` slicing by name: ``slice``, ``slice_in_dim``, ``index_in_dim`` (static
bounds: the ``slice`` primitive) and ``dynamic_slice``, ``dynamic_update_slice`` and their
``_in_dim`` / ``_index_in_dim`` forms (start indices that may be traced or batched: the
primitives of ``minigrad/ops/dynamic_slice.py``).

The dynamic functions follow JAX exactly, surprises included:

* a start is *clamped* so that the window fits: ``dynamic_slice(arange(5), (4,), (3,))``
  reads elements 2, 3, 4. Never an IndexError (the window's size is static, its position is
  data: there is nothing to raise on under jit);
* with ``allow_negative_indices`` (the default) a negative start counts from the end first
  (``-1`` is ``n - 1``), then is clamped; without it a negative start clamps to 0, and a
  *concrete* negative one is a ValueError (as JAX's);
* start indices are integer scalars of one dtype (Python ints take it).
"""

from __future__ import annotations

import builtins
import operator
from typing import Any, Sequence

import numpy as np

from minigrad.core import Tracer, get_aval
from minigrad.lax.lax_ops import array_result
from minigrad.lax.lax_ops import axis_arg as _axis
from minigrad.lax.lax_ops import operand as _arg
from minigrad.ops import elementwise as ew
from minigrad.ops import structural as st
from minigrad.ops.dynamic_slice import dynamic_slice as _dynamic_slice
from minigrad.ops.dynamic_slice import dynamic_update_slice as _dynamic_update_slice


@array_result
def slice(operand: Any, start_indices: Sequence[int], limit_indices: Sequence[int],
          strides: Sequence[int] | None = None) -> Any:
    """``operand[start:limit:stride, ...]``, every bound static, non-negative and inside the
    array (no wrapping, no clipping: a TypeError otherwise, as JAX's)."""
    x = _arg(operand, "slice", "operand")
    shape = get_aval(x).shape
    try:
        start = tuple(operator.index(s) for s in start_indices)
        limit = tuple(operator.index(s) for s in limit_indices)
        step = (1,) * len(shape) if strides is None else tuple(operator.index(s)
                                                                 for s in strides)
    except TypeError:
        raise TypeError(f"slice: start_indices, limit_indices and strides must be ints; got "
                        f"{start_indices!r}, {limit_indices!r}, {strides!r}") from None
    if not len(start) == len(limit) == len(step) == len(shape):
        raise ValueError(f"slice: start_indices, limit_indices and strides must have one "
                         f"entry per axis of {shape}; got {len(start)}, {len(limit)}, "
                         f"{len(step)}")
    for s, lim, k, n in zip(start, limit, step, shape, strict=True):
        if not 0 <= s <= lim <= n:
            raise TypeError(f"slice: need 0 <= start <= limit <= size in every axis; got "
                            f"start_indices {start}, limit_indices {limit} for shape {shape}")
        if k < 1:
            raise ValueError(f"slice: strides must be positive; got {step}")
    return st.slice_array(x, start, limit, step)


@array_result
def slice_in_dim(operand: Any, start_index: int | None, limit_index: int | None,
                 stride: int = 1, axis: int = 0) -> Any:
    """``slice`` along one ``axis``: ``operand[..., start:limit:stride]`` there (None is the
    start or the end; a negative bound counts from the end once)."""
    x = _arg(operand, "slice_in_dim", "operand")
    shape = get_aval(x).shape
    a = _axis("slice_in_dim", axis, len(shape))
    n = shape[a]
    start = 0 if start_index is None else operator.index(start_index)
    limit = n if limit_index is None else operator.index(limit_index)
    start, limit = start + n if start < 0 else start, limit + n if limit < 0 else limit
    starts, limits, strides = [0] * len(shape), list(shape), [1] * len(shape)
    starts[a], limits[a], strides[a] = start, limit, operator.index(stride)
    return slice(x, starts, limits, strides)


@array_result
def index_in_dim(operand: Any, index: int, axis: int = 0, keepdims: bool = True) -> Any:
    """The entry ``index`` (static; negative from the end) along ``axis``; an index outside
    is an IndexError."""
    x = _arg(operand, "index_in_dim", "operand")
    shape = get_aval(x).shape
    a = _axis("index_in_dim", axis, len(shape))
    i = operator.index(index)
    wrapped = i + shape[a] if i < 0 else i
    if not 0 <= wrapped < shape[a]:
        raise IndexError(f"index_in_dim: index {i} is out of bounds for axis {a} with size "
                         f"{shape[a]}")
    out = slice_in_dim(x, wrapped, wrapped + 1, 1, a)
    return out if keepdims else st.squeeze(out, (a,))


# --------------------------------------------------------------------------- dynamic

def _starts(fn: str, x: Any, start_indices: Any, allow_negative: Any) -> list[Any]:
    """The start indices as integer scalars of one dtype, negatives counted from the end where
    ``allow_negative`` says so (a concrete negative elsewhere is a ValueError, as JAX's)."""
    shape = get_aval(x).shape
    if isinstance(start_indices, (np.ndarray, Tracer)) and get_aval(start_indices).ndim == 1:
        arr = start_indices
        items: list[Any] = [st.reshape(st.slice_array(arr, [i], [i + 1]), ())
                            for i in range(get_aval(arr).shape[0])]
    elif isinstance(start_indices, (list, tuple)):
        items = list(start_indices)
    else:
        raise TypeError(f"{fn}: start_indices must be a sequence of integer scalars or a 1-d "
                        f"integer array; got {type(start_indices).__name__}")
    if len(items) != len(shape):
        raise ValueError(f"{fn}: needs one start index per axis of {shape}; got {len(items)}")
    flags = ([bool(allow_negative)] * len(shape) if isinstance(allow_negative, (bool, np.bool_))
             else [bool(b) for b in allow_negative])
    if len(flags) != len(shape):
        raise ValueError(f"{fn}: allow_negative_indices must be a bool or one per axis; got "
                         f"{allow_negative!r}")
    arrays = [i for i in items if type(i) is not int]  # (a Python int takes their dtype)
    ops = [_arg(i, fn, "start_indices") for i in arrays]
    dtypes = {get_aval(o).dtype for o in ops}
    for o in ops:
        if get_aval(o).ndim != 0:
            raise TypeError(f"{fn}: start indices must be scalars; got {get_aval(o).str_short()}")
    if any(d.kind not in "iu" for d in dtypes) or len(dtypes) > 1:
        raise TypeError(f"{fn}: start indices must be integers of one dtype; got "
                        f"{', '.join(sorted(d.name for d in dtypes))}")
    dtype = dtypes.pop() if dtypes else np.dtype(np.int64)
    out: list[Any] = []
    k = 0
    for item, n, neg in zip(items, shape, flags, strict=True):
        if type(item) is int:
            i = item
            if i < 0 and not neg:
                raise ValueError(f"{fn}: index {i} is out of bounds for an axis of size {n} "
                                 f"with allow_negative_indices=False")
            # clipped into [0, n] first: the clamp gives the same window, and the value fits
            i = builtins.min(builtins.max(i + n if i < 0 else i, 0), n)
            out.append(np.asarray(builtins.min(i, int(np.iinfo(dtype).max)), dtype))
            continue
        s = ops[k]
        k += 1
        if not isinstance(s, Tracer):  # concrete: counted from the end and clipped here
            v = int(s)
            if v < 0 and not neg:
                raise ValueError(f"{fn}: index {v} is out of bounds for an axis of size {n} "
                                 f"with allow_negative_indices=False")
            v = builtins.min(builtins.max(v + n if v < 0 else v, 0), n)
            out.append(np.asarray(builtins.min(v, int(np.iinfo(dtype).max)), dtype))
        elif neg and dtype.kind == "i":  # a negative start counts from the end: a select
            out.append(ew.select(ew.lt(s, ew.full_like(s, 0)), ew.add(s, ew.full_like(s, n)),
                                 s))
        else:
            out.append(s)
    return out


@array_result
def dynamic_slice(operand: Any, start_indices: Any, slice_sizes: Sequence[int], *,
                  allow_negative_indices: bool | Sequence[bool] = True) -> Any:
    """The window of ``operand`` of shape ``slice_sizes`` at ``start_indices`` (traced or
    not), each start clamped into ``[0, n - size]`` so that the window fits.

    >>> import minigrad as mg, numpy as np
    >>> mg.lax.dynamic_slice(np.arange(5.0), (4,), (3,))  # clamped: starts at 2
    Array([2., 3., 4.], dtype=float64)
    """
    x = _arg(operand, "dynamic_slice", "operand")
    starts = _starts("dynamic_slice", x, start_indices, allow_negative_indices)
    shape = get_aval(x).shape
    try:
        sizes = tuple(operator.index(s) for s in slice_sizes)
    except TypeError:
        raise TypeError(f"dynamic_slice: slice_sizes must be ints; got {slice_sizes!r}") from None
    if len(sizes) != len(shape) or any(not 0 <= z <= n for z, n in
                                       zip(sizes, shape, strict=True)):
        raise TypeError(f"dynamic_slice: slice_sizes must have one size in [0, n] per axis of "
                        f"{shape}; got {sizes}")
    return _dynamic_slice(x, starts, sizes)


@array_result
def dynamic_update_slice(operand: Any, update: Any, start_indices: Any, *,
                         allow_negative_indices: bool | Sequence[bool] = True) -> Any:
    """``operand`` with ``update`` written at ``start_indices`` (each start clamped so that
    ``update`` fits); ``operand`` itself is not written.

    >>> import minigrad as mg, numpy as np
    >>> mg.lax.dynamic_update_slice(np.zeros(5), np.ones(2), (4,))  # clamped: starts at 3
    Array([0., 0., 0., 1., 1.], dtype=float64)
    """
    x = _arg(operand, "dynamic_update_slice", "operand")
    u = _arg(update, "dynamic_update_slice", "update")
    xa, ua = get_aval(x), get_aval(u)
    if xa.dtype != ua.dtype:
        raise TypeError(f"dynamic_update_slice: operand and update must have one dtype; got "
                        f"{xa.dtype.name} and {ua.dtype.name}")
    if ua.ndim != xa.ndim or any(m > n for m, n in zip(ua.shape, xa.shape, strict=True)):
        raise TypeError(f"dynamic_update_slice: update must have the operand's rank and fit in "
                        f"it; got update {ua.shape} for operand {xa.shape}")
    starts = _starts("dynamic_update_slice", x, start_indices, allow_negative_indices)
    return _dynamic_update_slice(x, u, starts)


def _one_axis(fn: str, x: Any, start_index: Any, axis: int, allow_negative: bool
              ) -> tuple[int, list[Any], list[bool]]:
    ndim = get_aval(x).ndim
    a = _axis(fn, axis, ndim)
    starts: list[Any] = [0] * ndim
    starts[a] = start_index
    flags = [False] * ndim
    flags[a] = bool(allow_negative)
    return a, starts, flags


@array_result
def dynamic_slice_in_dim(operand: Any, start_index: Any, slice_size: int, axis: int = 0, *,
                         allow_negative_indices: bool = True) -> Any:
    """``dynamic_slice`` along one ``axis``: ``slice_size`` entries from ``start_index``
    (clamped), every other axis whole."""
    x = _arg(operand, "dynamic_slice_in_dim", "operand")
    a, starts, flags = _one_axis("dynamic_slice_in_dim", x, start_index, axis,
                                 allow_negative_indices)
    sizes = list(get_aval(x).shape)
    sizes[a] = slice_size
    return dynamic_slice(x, starts, sizes, allow_negative_indices=flags)


@array_result
def dynamic_index_in_dim(operand: Any, index: Any, axis: int = 0, keepdims: bool = True, *,
                         allow_negative_indices: bool = True) -> Any:
    """The entry at ``index`` (traced or not; clamped into the axis) along ``axis``."""
    x = _arg(operand, "dynamic_index_in_dim", "operand")
    out = dynamic_slice_in_dim(x, index, 1, axis,
                               allow_negative_indices=allow_negative_indices)
    return out if keepdims else st.squeeze(out, (_axis("dynamic_index_in_dim", axis,
                                                       get_aval(x).ndim),))


@array_result
def dynamic_update_slice_in_dim(operand: Any, update: Any, start_index: Any, axis: int, *,
                                allow_negative_indices: bool = True) -> Any:
    """``dynamic_update_slice`` along one ``axis`` (from 0 in every other axis)."""
    x = _arg(operand, "dynamic_update_slice_in_dim", "operand")
    _, starts, flags = _one_axis("dynamic_update_slice_in_dim", x, start_index, axis,
                                 allow_negative_indices)
    return dynamic_update_slice(x, update, starts, allow_negative_indices=flags)


@array_result
def dynamic_update_index_in_dim(operand: Any, update: Any, index: Any, axis: int, *,
                                allow_negative_indices: bool = True) -> Any:
    """``update`` (with or without the axis of size 1) written at entry ``index`` of
    ``axis``."""
    x = _arg(operand, "dynamic_update_index_in_dim", "operand")
    u = _arg(update, "dynamic_update_index_in_dim", "update")
    ndim = get_aval(x).ndim
    a = _axis("dynamic_update_index_in_dim", axis, ndim)
    if get_aval(u).ndim == ndim - 1:
        u = st.expand_dims(u, (a,))
    elif get_aval(u).ndim != ndim:
        raise TypeError(f"dynamic_update_index_in_dim: update must have rank {ndim} or "
                        f"{ndim - 1}; got {get_aval(u).str_short()}")
    return dynamic_update_slice_in_dim(x, u, index, a,
                                       allow_negative_indices=allow_negative_indices)


__all__ = [
    "dynamic_index_in_dim", "dynamic_slice", "dynamic_slice_in_dim", "dynamic_update_index_in_dim",
    "dynamic_update_slice", "dynamic_update_slice_in_dim", "index_in_dim", "slice",
    "slice_in_dim",
]

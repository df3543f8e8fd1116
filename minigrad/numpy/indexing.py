"""Indexing: ``x[key]``, ``take`` and ``take_along_axis``, over the
``slice`` and ``gather``/``scatter`` primitives (``ops/gather.py`` says why the gather takes
NumPy's advanced-indexing form).

A key is parsed once (``parse_key``) into one entry per position: ints, slices, new axes,
integer arrays (a boolean mask becomes the integer arrays of its true positions) and a marker
where an ellipsis stood. ``x[key]`` then slices (basic indexing), gathers the advanced indices
in one ``gather`` (they broadcast together), moves the gathered block where NumPy puts it
(in place when the advanced indices are adjacent in the key, else first) and inserts the new
axes. ``x.at[key]`` (``minigrad/numpy/at.py``) reuses the parse.

Negative indices count from the end, as in NumPy; an index out of range is an IndexError naming
the axis, the index and the size, eagerly and under every transform (the gather's impl checks
on every call). JAX clamps a gather and drops a scatter instead; ``mode=`` asks for that
explicitly ("clip", "fill", and ``take``'s "wrap").
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from minigrad.core import Tracer, current_trace, eval_trace, get_aval
from minigrad.numpy.util import ArrayLike, asarray, canonical_axes, check_broadcast, copy_of
from minigrad.ops import structural as st
from minigrad.ops.gather import gather_p
from minigrad.ops.rev import rev
from minigrad.rebind import note_view

__all__ = [  # what minigrad.numpy exports from here
    "getitem", "take", "take_along_axis",
]


# Entry kinds of a parsed key.
INT, SLICE, NEW, ARRAY, SEP, BOOL = "int", "slice", "new", "array", "sep", "bool"


# --------------------------------------------------------------------------- the key

def _concrete(x: Any) -> np.ndarray | None:
    """The value of a NumPy array or of a tracer that knows it (forward mode), else None."""
    if isinstance(x, Tracer):
        return x.concrete()
    return np.asarray(x)


def _mask_error(fn: str, mask: Tracer) -> IndexError:
    return IndexError(
        f"{fn}: a boolean index must be concrete: the result's shape depends on how many "
        f"entries are true (a data-dependent shape), which a traced mask "
        f"{mask.aval.str_short()} under {mask._trace.transform} does not know; use "
        f"where(mask, x, other), a NumPy mask, or nonzero(mask, size=...)")


def _entry(k: Any, fn: str) -> list[tuple[str, Any]]:
    """One element of a key as entries (a mask of rank r gives r integer arrays)."""
    if k is None:
        return [(NEW, None)]
    if isinstance(k, slice):
        for part in (k.start, k.stop, k.step):
            if part is not None and not isinstance(part, (int, np.integer)):
                if isinstance(part, Tracer) and part.concrete() is not None:
                    continue
                raise IndexError(f"{fn}: slice entries must be static integers or None; got "
                                 f"{part!r}")
        return [(SLICE, k)]
    if isinstance(k, (bool, np.bool_)):
        return [(BOOL, bool(k))]
    if isinstance(k, (int, np.integer)):
        return [(INT, int(k))]
    if isinstance(k, Tracer):
        if k.dtype.kind in "iu":
            return [(ARRAY, k)]
        if k.dtype != np.bool_:
            raise IndexError(f"{fn}: indices must be integers, slices, None, ..., or integer "
                             f"or boolean arrays; got a traced {k.aval.str_short()}")
        value = k.concrete()
        if value is None:
            raise _mask_error(fn, k)
        k = value
    if isinstance(k, (list, tuple)) and len(k) == 0:
        return [(ARRAY, np.zeros(0, np.intp))]  # (NumPy would make an empty list float64)
    arr = np.asarray(k) if not isinstance(k, np.ndarray) else k
    if arr.dtype == np.bool_:
        if arr.ndim == 0:
            return [(BOOL, bool(arr))]
        return [(ARRAY, i) for i in np.nonzero(arr)]
    if arr.dtype.kind not in "iu":
        raise IndexError(f"{fn}: indices must be integers, slices, None, ..., or integer or "
                         f"boolean arrays; got {type(k).__name__} of dtype {arr.dtype}")
    return [(ARRAY, arr)]


def _mask_shape(k: Any) -> tuple | None:
    """The shape of a boolean-mask index (of rank 1 or more), else None."""
    if isinstance(k, Tracer):
        return k.shape if k.dtype == np.bool_ and k.ndim else None
    if isinstance(k, (np.ndarray, list)):
        arr = np.asarray(k)
        return arr.shape if arr.dtype == np.bool_ and arr.ndim else None
    return None


def parse_key(key: Any, shape: tuple, fn: str) -> list[tuple[str, Any]]:
    """``key`` as entries, one per axis of ``x`` (an ellipsis expanded into full slices after a
    SEP marker), plus NEW and BOOL entries that take no axis. A boolean mask must have the
    shape of the axes it covers (NumPy's rule; reading its true positions alone would index a
    wrong-shaped mask silently)."""
    ndim = len(shape)
    if not isinstance(key, tuple):
        key = (key,)
    entries: list[tuple[str, Any]] = []
    masks: list[tuple[int, tuple]] = []
    ellipsis_at = None
    for k in key:
        if k is Ellipsis:
            if ellipsis_at is not None:
                raise IndexError(f"{fn}: an index can only have a single ellipsis ('...')")
            ellipsis_at = len(entries)
            continue
        mask_shape = _mask_shape(k)
        if mask_shape is not None:
            masks.append((len(entries), mask_shape))
        entries += _entry(k, fn)
    used = sum(1 for kind, _ in entries if kind in (INT, SLICE, ARRAY))
    if used > ndim:
        raise IndexError(f"{fn}: too many indices for an array of rank {ndim}: {used} were "
                         f"given")
    fill = [(SLICE, slice(None))] * (ndim - used)
    if ellipsis_at is None:
        out = entries + fill
    else:
        out = [*entries[:ellipsis_at], (SEP, None), *fill, *entries[ellipsis_at:]]
    if masks:
        axes = axes_of(out)
        for at, mask_shape in masks:
            if ellipsis_at is not None and at >= ellipsis_at:
                at += 1 + len(fill)
            a = axes[at]
            if tuple(shape[a:a + len(mask_shape)]) != tuple(mask_shape):
                raise IndexError(f"{fn}: a boolean index of shape {tuple(mask_shape)} does "
                                 f"not match the indexed axes {tuple(shape[a:a + len(mask_shape)])}"
                                 f" of an array of shape {tuple(shape)}")
    return out


def axes_of(entries: list[tuple[str, Any]]) -> list[Any]:
    """The axis of ``x`` each entry indexes (None for NEW, BOOL and SEP)."""
    out: list[Any] = []
    axis = 0
    for kind, _ in entries:
        if kind in (INT, SLICE, ARRAY):
            out.append(axis)
            axis += 1
        else:
            out.append(None)
    return out


def adjacent(positions: list[int]) -> bool:
    """Whether the advanced entries at ``positions`` stand together in the key (NumPy then
    puts their dimensions in place, else first)."""
    return not positions or positions == list(range(positions[0], positions[-1] + 1))


def gather_mode(mode: str | None, fn: str) -> str:
    """A user's ``mode=`` as the primitives' mode. None is ours ("raise"); JAX's
    "promise_in_bounds" is a promise we check, so it raises too."""
    if mode is None or mode in ("raise", "promise_in_bounds"):
        return "raise"
    if mode in ("clip", "wrap"):
        return mode
    if mode in ("fill", "drop"):
        return "fill"
    raise ValueError(f"{fn}: mode must be None, 'raise', 'promise_in_bounds', 'clip', 'fill', "
                     f"'drop' or 'wrap'; got {mode!r}")


def default_fill(dtype: np.dtype) -> Any:
    """JAX's fill value for mode "fill": NaN for inexact dtypes, the minimum of a signed int,
    the maximum of an unsigned one, True for bool."""
    if dtype.kind in "fc":
        return np.nan
    if dtype.kind == "i":
        return int(np.iinfo(dtype).min)
    if dtype.kind == "u":
        return int(np.iinfo(dtype).max)
    return True


def check_int(k: int, n: int, axis: int, fn: str, wrap_negative: bool = True) -> int:
    if not (-n if wrap_negative else 0) <= k < n:
        raise IndexError(f"{fn}: index {k} is out of bounds for axis {axis} with size {n}")
    return k % n


def broadcast_indices(arrays: list[Any], fn: str) -> list[Any]:
    """The advanced indices broadcast to one shape (views)."""
    shapes = [get_aval(a).shape for a in arrays]
    if all(s == shapes[0] for s in shapes):
        return arrays
    try:
        shape = tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise IndexError(f"{fn}: the integer and boolean array indices must broadcast "
                         f"together; got shapes {', '.join(map(str, shapes))}") from None
    return [np.broadcast_to(a, shape) if isinstance(a, np.ndarray) else st.broadcast_to(a, shape)
            for a in arrays]


def bind_gather(fn: str, x: Any, indices: list[Any], axes: tuple, **params: Any) -> Any:
    """gather, its out-of-range IndexError naming ``fn`` when raised eagerly."""
    try:
        return gather_p.bind(x, *indices, axes=axes, batch_dims=0, **params)
    except IndexError as e:
        message = str(e)
        if message.startswith("gather:") and current_trace() is eval_trace:
            raise IndexError(f"{fn}:" + message[len("gather:"):]) from None
        raise


# --------------------------------------------------------------------------- x[key]

def getitem(x: ArrayLike, key: Any, *, mode: str | None = None, fill_value: Any = None,
            wrap_negative: bool = True, fn: str = "getitem") -> Any:
    """``x[key]`` with NumPy's rules: ints, slices (any step), None, Ellipsis, integer arrays
    (broadcast together), boolean masks, and tuples of these. ``mode`` (JAX's ``.at[].get``):
    what an index out of range does (default: IndexError)."""
    x = asarray(x)
    shape = get_aval(x).shape
    entries = parse_key(key, shape, fn)
    kind_mode = gather_mode(mode, fn)
    axes = axes_of(entries)
    arrays = [i for i, (kind, _) in enumerate(entries) if kind == ARRAY]
    if not arrays and kind_mode == "raise" and wrap_negative:
        return _basic(x, shape, entries, axes, fn)
    # Advanced indexing: ints are advanced indices too (0-d arrays).
    if any(kind == BOOL for kind, _ in entries):
        raise IndexError(f"{fn}: a scalar boolean index together with array indices (or a "
                         f"mode) is not supported")
    adv = [i for i, (kind, _) in enumerate(entries) if kind in (ARRAY, INT)]
    starts, limits, strides, flips = _slices(shape, entries, axes)
    out = _slice(x, shape, starts, limits, strides, flips)
    indices = broadcast_indices([np.asarray(v) if kind == INT else v for kind, v in
                                 (entries[i] for i in adv)], fn)
    fill = default_fill(get_aval(x).dtype) if fill_value is None else fill_value
    out = bind_gather(fn, out, indices, tuple(axes[i] for i in adv),
                      mode=kind_mode, fill_value=fill, wrap_negative=wrap_negative)
    n_idx = get_aval(indices[0]).ndim
    together = adjacent(adv)
    labels: list[str] = [] if together else ["I"] * n_idx
    for i, (kind, _) in enumerate(entries):
        if kind == NEW:
            labels.append(NEW)
        elif kind == SLICE:
            labels.append(SLICE)
        elif together and i == adv[0]:
            labels += ["I"] * n_idx
    if together and n_idx:  # the gathered block goes where the advanced indices stood
        at = labels.index("I") - sum(1 for lab in labels[:labels.index("I")] if lab == NEW)
        if at:
            ndim = get_aval(out).ndim
            perm = [*range(n_idx, n_idx + at), *range(n_idx), *range(n_idx + at, ndim)]
            out = st.transpose(out, perm)
    new = [j for j, lab in enumerate(labels) if lab == NEW]
    return st.expand_dims(out, new) if new else out


def _slices(shape: tuple, entries: list, axes: list) -> tuple[list, list, list, list]:
    """slice's parameters for the SLICE entries (INT and ARRAY axes kept whole), and the axes
    read backwards (a negative step)."""
    starts, limits, strides, flips = [0] * len(shape), list(shape), [1] * len(shape), []
    for (kind, k), a in zip(entries, axes, strict=True):
        if kind == SLICE and a is not None:
            lo, hi, step = k.indices(shape[a])
            if step < 0:
                flips.append(a)
                count = len(range(lo, hi, step))
                lo, hi, step = (lo + (count - 1) * step, lo + 1, -step) if count else (0, 0, 1)
            starts[a], limits[a], strides[a] = lo, max(hi, lo), step
    return starts, limits, strides, flips


def _slice(x: Any, shape: tuple, starts: list, limits: list, strides: list, flips: list
           ) -> Any:
    out = x
    if starts != [0] * len(shape) or limits != list(shape) or strides != [1] * len(shape):
        out = st.slice_array(x, starts, limits, strides)
    # a negative step: the positive-step slice, read backwards (a view, as NumPy's)
    return rev(out, flips) if flips else out


def _basic(x: Any, shape: tuple, entries: list, axes: list, fn: str) -> Any:
    """Basic indexing: a slice, the int axes squeezed, the new axes inserted. A view."""
    starts, limits, strides, flips = _slices(shape, entries, axes)
    squeezed = []
    for (kind, k), a in zip(entries, axes, strict=True):
        if kind == INT:
            k = check_int(k, shape[a], a, fn)
            starts[a], limits[a] = k, k + 1
            squeezed.append(a)
    out = _slice(x, shape, starts, limits, strides, flips)
    out = st.squeeze(out, squeezed) if squeezed else out
    kept = [kind for kind, _ in entries if kind in (SLICE, NEW, BOOL)]
    new = [j for j, kind in enumerate(kept) if kind in (NEW, BOOL)]
    out = st.expand_dims(out, new) if new else out
    for j, (kind, k) in zip(new, [e for e in entries if e[0] in (NEW, BOOL)], strict=True):
        if kind == BOOL and not k:  # x[False]: the new axis is empty
            ndim = get_aval(out).ndim
            out = st.slice_array(out, [0] * ndim, [0 if i == j else s for i, s in
                                                   enumerate(get_aval(out).shape)], [1] * ndim)
    if len(squeezed) == len(shape) and len(kept) == 0 and all(
            kind != SEP for kind, _ in entries):  # an int for every axis, no ellipsis: NumPy's
        return copy_of(out)  # result is a scalar, a copy
    # basic indexing makes a view in NumPy
    return note_view(out, x) if isinstance(x, Tracer) else out


# --------------------------------------------------------------------------- take and friends

def _index_array(indices: Any, fn: str) -> Any:
    if isinstance(indices, Tracer):
        if indices.dtype.kind not in "iu":
            raise TypeError(f"{fn}: indices must be an integer array; got a traced "
                            f"{indices.aval.str_short()}")
        return indices
    if isinstance(indices, (list, tuple)) and len(indices) == 0:
        return np.zeros(0, np.intp)
    arr = np.asarray(indices)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{fn}: indices must be an integer array; got dtype {arr.dtype}")
    return arr


def _flatten(x: Any) -> Any:
    shape = get_aval(x).shape
    return x if len(shape) == 1 else st.reshape(x, (int(np.prod(shape, dtype=np.int64)),))


def take(a: ArrayLike, indices: ArrayLike, axis: int | None = None, out: None = None,
         mode: str | None = None, unique_indices: bool = False,
         indices_are_sorted: bool = False, fill_value: Any = None) -> Any:
    """``np.take``: the entries of ``a`` along ``axis`` (of the flattened ``a`` if None) at the
    integer ``indices``, of any shape. JAX's default mode is "fill"; ours raises on an index
    out of range unless ``mode`` says otherwise ("clip", "wrap", "fill"). As in NumPy and
    JAX, "clip" clamps a negative index to 0 rather than counting it from the end."""
    if out is not None:
        raise ValueError("take: out must be None (minigrad arrays are immutable)")
    x = asarray(a)
    if axis is None:
        x, axis = _flatten(x), 0
    shape = get_aval(x).shape
    ax = axis if type(axis) is int and 0 <= axis < len(shape) else \
        canonical_axes(axis, len(shape), "take")[0]
    idx = _index_array(indices, "take")
    fill = default_fill(get_aval(x).dtype) if fill_value is None else fill_value
    kind = gather_mode(mode, "take")
    result = bind_gather("take", x, [idx], (ax,), mode=kind, fill_value=fill,
                         wrap_negative=kind != "clip")
    k = get_aval(idx).ndim
    if ax and k:  # the gathered axes go where axis was
        ndim = get_aval(result).ndim
        result = st.transpose(result, [*range(k, k + ax), *range(k), *range(k + ax, ndim)])
    return result


def _along_axis(arr: Any, indices: Any, axis: int | None, fn: str
                ) -> tuple[Any, Any, int, tuple, int]:
    """``arr`` and ``indices`` with ``axis`` last and the other axes broadcast together:
    (arr, indices, axis, the broadcast shape of the other axes, the original rank)."""
    x = asarray(arr)
    idx = _index_array(indices, fn)
    if axis is None:
        x, axis = _flatten(x), 0
        idx = idx.reshape(-1) if isinstance(idx, np.ndarray) else _flatten(idx)
    shape, ishape = get_aval(x).shape, get_aval(idx).shape
    if len(shape) != len(ishape):
        raise ValueError(f"{fn}: indices must have arr's rank {len(shape)}; got shape {ishape}")
    (ax,) = canonical_axes(axis, len(shape), fn)
    x, idx = st.moveaxis(x, ax, len(shape) - 1), st.moveaxis(idx, ax, len(shape) - 1)
    others = check_broadcast(fn, get_aval(x).shape[:-1], get_aval(idx).shape[:-1])
    x = st.broadcast_to(x, (*others, get_aval(x).shape[-1]))
    idx = st.broadcast_to(idx, (*others, get_aval(idx).shape[-1]))
    return x, idx, ax, others, len(shape)


def take_along_axis(arr: ArrayLike, indices: ArrayLike, axis: int | None = -1,
                    mode: str | None = None, fill_value: Any = None) -> Any:
    """``np.take_along_axis``: ``out[..., j, ...] = arr[..., indices[..., j, ...], ...]``
    along ``axis`` (the array API's default -1; JAX's has none), the other axes broadcast
    together. A gather with those axes as paired batch dims."""
    x, idx, ax, others, ndim = _along_axis(arr, indices, axis, "take_along_axis")
    fill = default_fill(get_aval(x).dtype) if fill_value is None else fill_value
    k = len(others)
    try:
        out = gather_p.bind(x, idx, axes=(k,), batch_dims=k, fill_value=fill,
                            mode=gather_mode(mode, "take_along_axis"), wrap_negative=True)
    except IndexError as e:  # (the gather's axis counts from its batch dims: name arr's)
        message = re.sub(r"for axis \d+", f"for axis {ax}", str(e))
        raise IndexError(message.replace("gather:", "take_along_axis:", 1)) from None
    return st.moveaxis(out, ndim - 1, ax)

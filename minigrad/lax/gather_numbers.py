"""The dimension numbers of ``lax.gather`` and the ``lax.scatter`` family (JAX's
``GatherDimensionNumbers``, ``ScatterDimensionNumbers``, ``GatherScatterMode``), their checks,
and the *layout* that lowers them onto minigrad's indexing primitives
(``minigrad/lax/slicing_gather.py`` does the lowering; docs/gather_scatter.md the math).

A gather with ``start_indices`` of shape ``B + (k,)`` (the index vector last, as in JAX) reads,
for every batch position ``b`` in ``B``, one window of ``operand``: along operand axis ``d``, the
window starts at ``start[d]`` and has ``slice_sizes[d]`` elements, where ``start[d]`` is
``start_indices[b, i]`` if ``d = start_index_map[i]``, ``b[j]`` if ``d`` is the ``j``-th operand
batching axis (paired with index axis ``start_indices_batching_dims[j]``), else 0. Collapsed and
batching axes (size 1) are dropped from the window; the others are the *window axes*, placed at
the output's ``offset_dims`` (in operand order), the batch positions filling the other output
axes (in order). A scatter is the same map read backwards: ``updates`` has the gather's output
layout (``update_window_dims`` for ``offset_dims``, ``inserted_window_dims`` for
``collapsed_slice_dims``, window sizes read from ``updates``).

The layout states this as NumPy advanced indexing: one integer index array per *indexed*
operand axis, all of shape ``I = B + (sizes of the indexed window axes)``, with the operand's
other axes (window axes no index touches and that the window covers whole) kept as they are.
Then ``gather_p(operand, *index_arrays, axes=indexed)`` has shape ``I + rest`` and one transpose
gives JAX's output order; a scatter transposes ``updates`` back and binds the matching scatter.
"""

from __future__ import annotations

import enum
import functools
from dataclasses import dataclass
from typing import Any, NamedTuple, Sequence

import numpy as np

__all__ = ["GatherDimensionNumbers", "GatherScatterMode", "Layout", "ScatterDimensionNumbers",
           "gather_layout", "scatter_layout"]


class GatherDimensionNumbers(NamedTuple):
    """How the axes of ``operand``, ``start_indices`` (index vector last) and the output of
    ``lax.gather`` relate (see the module's doc)."""

    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    start_index_map: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    start_indices_batching_dims: tuple[int, ...] = ()


class ScatterDimensionNumbers(NamedTuple):
    """How the axes of ``operand``, ``scatter_indices`` (index vector last) and ``updates``
    relate: the mirror image of ``GatherDimensionNumbers``."""

    update_window_dims: Sequence[int]
    inserted_window_dims: Sequence[int]
    scatter_dims_to_operand_dims: Sequence[int]
    operand_batching_dims: Sequence[int] = ()
    scatter_indices_batching_dims: Sequence[int] = ()


class GatherScatterMode(enum.Enum):
    """What an out-of-bounds window does. ``CLIP``: its start is clamped so the whole window
    is inside. ``FILL_OR_DROP``: a gather reads ``fill_value`` for the whole window, a scatter
    drops the whole window. ``PROMISE_IN_BOUNDS``: JAX does not check; minigrad raises an
    IndexError (from the impl, also under jit) rather than clamp or wrap silently.
    ``ONE_HOT`` exists in JAX for ``jnp.take_along_axis`` only; lax's functions refuse it.

    >>> from minigrad.lax import GatherScatterMode
    >>> GatherScatterMode.from_any("clip"), GatherScatterMode.from_any(None)
    (<GatherScatterMode.CLIP: 1>, <GatherScatterMode.FILL_OR_DROP: 2>)
    """

    CLIP = enum.auto()
    FILL_OR_DROP = enum.auto()
    PROMISE_IN_BOUNDS = enum.auto()
    ONE_HOT = enum.auto()

    @staticmethod
    def from_any(s: Any) -> GatherScatterMode:
        """A mode from itself or JAX's names: None (FILL_OR_DROP), 'clip', 'fill', 'drop',
        'promise_in_bounds', 'one_hot'."""
        if isinstance(s, GatherScatterMode):
            return s
        names = {"clip": GatherScatterMode.CLIP, "fill": GatherScatterMode.FILL_OR_DROP,
                 "drop": GatherScatterMode.FILL_OR_DROP, None: GatherScatterMode.FILL_OR_DROP,
                 "promise_in_bounds": GatherScatterMode.PROMISE_IN_BOUNDS,
                 "one_hot": GatherScatterMode.ONE_HOT}
        if not isinstance(s, (str, type(None))) or s not in names:
            raise ValueError(f"mode must be None, a GatherScatterMode or one of 'clip', "
                             f"'fill', 'drop', 'promise_in_bounds'; got {s!r}")
        return names[s]


@dataclass(frozen=True)
class Layout:
    """A gather or scatter as advanced indexing (see the module's doc).

    * ``indexed``: the operand axes that get an index array (increasing);
    * ``index_shape``: ``I``, the shape of every index array;
    * ``starts``: for each indexed axis, the position in the index vector of its start (None:
      it has none, the start is 0 or a batch position);
    * ``batch_of``: for each indexed axis, the batch axis of ``B`` it is paired with, or None;
    * ``window_axis``: for each indexed axis, its axis in ``I`` if it is a window axis, else
      None;
    * ``limits``: for each indexed axis, the largest valid start (operand size - window size);
    * ``perm``: the transpose from ``I + rest`` to the output's (the updates') order.
    """

    indexed: tuple[int, ...]
    index_shape: tuple[int, ...]
    starts: tuple[int | None, ...]
    batch_of: tuple[int | None, ...]
    window_axis: tuple[int | None, ...]
    limits: tuple[int, ...]
    perm: tuple[int, ...]


def _numbers(dnums: Any, cls: type, fn: str) -> Any:
    """``dnums`` as ``cls``: any object with its fields will do (JAX's own NamedTuple too)."""
    if isinstance(dnums, cls):
        return dnums
    try:
        return cls(*(getattr(dnums, f) for f in cls._fields))  # type: ignore[attr-defined]
    except AttributeError:
        raise TypeError(f"{fn}: dimension_numbers must be a lax.{cls.__name__}; got "
                        f"{dnums!r}") from None


def _dims(value: Any, fn: str, what: str, bound: int, *, ordered: bool = True
          ) -> tuple[int, ...]:
    """``value`` as distinct ints in ``[0, bound)`` (increasing if ``ordered``)."""
    try:
        dims = tuple(value)
    except TypeError:
        raise TypeError(f"{fn}: {what} must be a sequence of ints; got {value!r}") from None
    if any(isinstance(d, (bool, np.bool_)) or not isinstance(d, (int, np.integer))
           for d in dims):
        raise TypeError(f"{fn}: {what} must hold ints; got {value!r}")
    dims = tuple(int(d) for d in dims)
    if any(not 0 <= d < bound for d in dims) or len(set(dims)) != len(dims):
        raise ValueError(f"{fn}: {what} must be distinct axes in [0, {bound}); got {dims}")
    if ordered and list(dims) != sorted(dims):
        raise ValueError(f"{fn}: {what} must be sorted; got {dims}")
    return dims


def _layout(fn: str, names: tuple[str, ...], operand_shape: tuple, batch_shape: tuple,
            window_sizes: dict[int, int], out_window: tuple[int, ...], dropped: tuple,
            start_map: tuple, operand_batching: tuple, index_batching: tuple) -> Layout:
    """The checks both families share, then the layout. ``window_sizes``: the size of every
    window (non-dropped, non-batching) operand axis; ``out_window``: where the window axes go
    in the output; ``names``: the user's names of (dropped, start_map, batching, index
    batching, out_window)."""
    r, nb = len(operand_shape), len(batch_shape)
    if set(dropped) & set(operand_batching):
        raise ValueError(f"{fn}: {names[0]} and {names[2]} must be disjoint; got {dropped} "
                         f"and {operand_batching}")
    if set(start_map) & set(operand_batching):
        raise ValueError(f"{fn}: {names[1]} and {names[2]} must be disjoint; got {start_map} "
                         f"and {operand_batching}")
    if len(operand_batching) != len(index_batching):
        raise ValueError(f"{fn}: {names[2]} and {names[3]} must be equally long; got "
                         f"{operand_batching} and {index_batching}")
    for d, j in zip(operand_batching, index_batching, strict=True):
        if operand_shape[d] != batch_shape[j]:
            raise ValueError(f"{fn}: operand batching axis {d} (size {operand_shape[d]}) and "
                             f"index batching axis {j} (size {batch_shape[j]}) must have one "
                             f"size")
    window = [d for d in range(r) if d not in dropped and d not in operand_batching]
    if len(window) != len(out_window):
        raise ValueError(f"{fn}: {names[4]} must name one axis per window axis (operand "
                         f"axes {tuple(window)}: those not in {names[0]} or {names[2]}); got "
                         f"{out_window}")
    size = {d: 1 for d in range(r)} | window_sizes
    for d in range(r):
        if not 0 <= size[d] <= operand_shape[d]:
            raise ValueError(f"{fn}: the window size of operand axis {d} must be in [0, "
                             f"{operand_shape[d]}]; got {size[d]}")
    # indexed: every axis but the window axes with no start that the window covers whole
    indexed = [d for d in range(r)
               if not (d in window and d not in start_map and size[d] == operand_shape[d])]
    if not indexed and r:  # (gather_p needs one index: the first axis, by an iota)
        indexed = [0]
    rest = [d for d in range(r) if d not in indexed]
    idx_window = [d for d in indexed if d in window]
    index_shape = batch_shape + tuple(size[d] for d in idx_window)
    # the result of the primitive: B, then the indexed window axes, then the rest
    result_window = idx_window + rest
    out_rank = nb + len(window)
    perm, batch_axis = [], iter(range(nb))
    for p in range(out_rank):
        if p in out_window:
            d = window[out_window.index(p)]
            perm.append(nb + result_window.index(d))
        else:
            perm.append(next(batch_axis))
    pair = dict(zip(operand_batching, index_batching, strict=True))
    return Layout(
        indexed=tuple(indexed), index_shape=index_shape,
        starts=tuple(start_map.index(d) if d in start_map else None for d in indexed),
        batch_of=tuple(pair.get(d) for d in indexed),
        window_axis=tuple(nb + idx_window.index(d) if d in idx_window else None
                          for d in indexed),
        limits=tuple(operand_shape[d] - size[d] for d in indexed),
        perm=tuple(perm))


def _index_batching(value: Any, fn: str, what: str, index_rank: int) -> tuple[int, ...]:
    dims = _dims(value, fn, what, index_rank, ordered=False)
    if index_rank - 1 in dims:
        raise ValueError(f"{fn}: {what} cannot name the index vector axis (the last, "
                         f"{index_rank - 1}); got {dims}")
    return dims


def _check_indices(fn: str, operand_shape: tuple, indices_shape: tuple, start_map: tuple,
                   what: str) -> None:
    if len(indices_shape) < 1:
        raise ValueError(f"{fn}: the indices must have at least one axis (the index vector, "
                         f"last); got shape {indices_shape}")
    if indices_shape[-1] != len(start_map):
        raise ValueError(f"{fn}: the index vector (the indices' last axis, {indices_shape[-1]}"
                         f" long) must have one entry per axis in {what} {start_map}")


def _ints(values: Any) -> tuple[int, ...]:
    out = tuple(values)
    if any(isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) for v in out):
        raise TypeError
    return tuple(int(v) for v in out)


def _key(dnums: Any, cls: type, *rest: Any) -> tuple | None:
    """Dimension numbers (of ``cls``'s fields) and sizes as plain tuples of ints, hashable;
    None when they are not such (then computed uncached, and the checks say what is wrong)."""
    try:
        return (tuple(_ints(getattr(dnums, f)) for f in cls._fields),  # type: ignore[attr-defined]
                *(_ints(r) for r in rest))
    except (TypeError, AttributeError):
        return None


# (speed: the checks and the layout are pure functions of static values; cached, an eager
# x[i]-style gather costs about a third less)
_cached = functools.lru_cache(maxsize=512)


def gather_layout(operand_shape: tuple, indices_shape: tuple, dnums: Any,
                  slice_sizes: Any) -> tuple[Layout, tuple]:
    """The layout of a gather and its output shape, after every check."""
    key = _key(dnums, GatherDimensionNumbers, slice_sizes)
    if key is None:
        return _gather_layout(operand_shape, indices_shape, dnums, slice_sizes)
    return _gather_layout_cached(tuple(operand_shape), tuple(indices_shape), key)


@_cached
def _gather_layout_cached(operand_shape: tuple, indices_shape: tuple, key: tuple
                          ) -> tuple[Layout, tuple]:
    fields, sizes = key
    return _gather_layout(operand_shape, indices_shape, GatherDimensionNumbers(*fields), sizes)


def _gather_layout(operand_shape: tuple, indices_shape: tuple, dnums: Any,
                   slice_sizes: Any) -> tuple[Layout, tuple]:
    fn = "gather"
    dnums = _numbers(dnums, GatherDimensionNumbers, fn)
    r, batch_shape = len(operand_shape), tuple(indices_shape[:-1])
    start_map = _dims(dnums.start_index_map, fn, "start_index_map", r, ordered=False)
    _check_indices(fn, operand_shape, indices_shape, start_map, "start_index_map")
    collapsed = _dims(dnums.collapsed_slice_dims, fn, "collapsed_slice_dims", r)
    operand_batching = _dims(dnums.operand_batching_dims, fn, "operand_batching_dims", r)
    index_batching = _index_batching(dnums.start_indices_batching_dims, fn,
                                     "start_indices_batching_dims", len(indices_shape))
    try:
        sizes = tuple(int(s) for s in slice_sizes)
        if any(isinstance(s, (bool, np.bool_)) or int(s) != s for s in slice_sizes):
            raise TypeError
    except (TypeError, ValueError):
        raise TypeError(f"{fn}: slice_sizes must be a sequence of ints; got "
                        f"{slice_sizes!r}") from None
    if len(sizes) != r:
        raise ValueError(f"{fn}: slice_sizes must have one size per operand axis ({r}); got "
                         f"{sizes}")
    for name, dims in (("collapsed_slice_dims", collapsed),
                       ("operand_batching_dims", operand_batching)):
        for d in dims:
            if sizes[d] != 1:
                raise ValueError(f"{fn}: the slice size of {name} axis {d} must be 1; got "
                                 f"{sizes[d]}")
    out_rank = len(batch_shape) + r - len(collapsed) - len(operand_batching)
    offset = _dims(dnums.offset_dims, fn, "offset_dims", max(out_rank, 0))
    window = [d for d in range(r) if d not in collapsed and d not in operand_batching]
    names = ("collapsed_slice_dims", "start_index_map", "operand_batching_dims",
             "start_indices_batching_dims", "offset_dims")
    layout = _layout(fn, names, tuple(operand_shape), batch_shape,
                     {d: sizes[d] for d in window}, offset, collapsed, start_map,
                     operand_batching, index_batching)
    it_b, it_w = iter(batch_shape), iter(sizes[d] for d in window)
    out_shape = tuple(next(it_w) if p in offset else next(it_b) for p in range(out_rank))
    return layout, out_shape


def scatter_layout(fn: str, operand_shape: tuple, indices_shape: tuple, updates_shape: tuple,
                   dnums: Any) -> Layout:
    """The layout of a scatter, after every check (``updates`` in the gather's output
    layout)."""
    key = _key(dnums, ScatterDimensionNumbers)
    if key is None:
        return _scatter_layout(fn, operand_shape, indices_shape, updates_shape, dnums)
    return _scatter_layout_cached(fn, tuple(operand_shape), tuple(indices_shape),
                                  tuple(updates_shape), key)


@_cached
def _scatter_layout_cached(fn: str, operand_shape: tuple, indices_shape: tuple,
                           updates_shape: tuple, key: tuple) -> Layout:
    return _scatter_layout(fn, operand_shape, indices_shape, updates_shape,
                           ScatterDimensionNumbers(*key[0]))


def _scatter_layout(fn: str, operand_shape: tuple, indices_shape: tuple,
                    updates_shape: tuple, dnums: Any) -> Layout:
    dnums = _numbers(dnums, ScatterDimensionNumbers, fn)
    r, batch_shape = len(operand_shape), tuple(indices_shape[:-1])
    start_map = _dims(dnums.scatter_dims_to_operand_dims, fn, "scatter_dims_to_operand_dims",
                      r, ordered=False)
    _check_indices(fn, operand_shape, indices_shape, start_map, "scatter_dims_to_operand_dims")
    inserted = _dims(dnums.inserted_window_dims, fn, "inserted_window_dims", r)
    operand_batching = _dims(dnums.operand_batching_dims, fn, "operand_batching_dims", r)
    index_batching = _index_batching(dnums.scatter_indices_batching_dims, fn,
                                     "scatter_indices_batching_dims", len(indices_shape))
    window = [d for d in range(r) if d not in inserted and d not in operand_batching]
    if len(updates_shape) != len(batch_shape) + len(window):
        raise ValueError(f"{fn}: updates must have rank {len(batch_shape) + len(window)} (the "
                         f"indices' {len(batch_shape)} batch axes and {len(window)} window "
                         f"axes); got shape {updates_shape}")
    update_window = _dims(dnums.update_window_dims, fn, "update_window_dims",
                          len(updates_shape))
    scatter_axes = [p for p in range(len(updates_shape)) if p not in update_window]
    got = tuple(updates_shape[p] for p in scatter_axes)
    if got != batch_shape:
        raise ValueError(f"{fn}: the update scatter axes {tuple(scatter_axes)} of updates "
                         f"{updates_shape} must be the indices' batch shape {batch_shape}; got "
                         f"{got}")
    sizes = {d: updates_shape[p] for d, p in zip(window, update_window, strict=True)}
    return _layout(fn, ("inserted_window_dims", "scatter_dims_to_operand_dims",
                        "operand_batching_dims", "scatter_indices_batching_dims",
                        "update_window_dims"),
                   tuple(operand_shape), batch_shape, sizes, update_window, inserted,
                   start_map, operand_batching, index_batching)

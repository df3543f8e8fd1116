"""``lax.gather`` and the ``lax.scatter`` family with JAX's dimension numbers and modes, lowered
exactly onto minigrad's indexing primitives (``gather_p``, ``scatter_p``, ``scatter_add_p``,
``scatter_mul_p``, ``scatter_min_p``, ``scatter_max_p`` of ``ops/gather.py`` and
``ops/scatter.py``, which carry every rule).

How: ``minigrad.lax.gather_numbers`` turns the dimension numbers into a layout (one index array
per indexed operand axis, all of one shape ``I = batch shape + indexed window sizes``); each
array is a start read from the index vector (plus an iota along its window axis), an iota over a
batch axis (operand batching dims), an iota over a window (a window axis with no start), or 0
(a collapsed axis with no start). The primitive's result is transposed into JAX's order (a
scatter transposes ``updates`` the other way first). So the rules are the primitives': the JVP
of a gather is the gather of the tangent, its transpose a scatter_add in the same mode, a
scatter's as ``ops/scatter.py`` states them, and batching adds a paired batch dim (no loop).

Modes (JAX's defaults: ``PROMISE_IN_BOUNDS`` for gather, ``FILL_OR_DROP`` for the scatters):

* ``CLIP``: each start is clamped into ``[0, operand size - window size]`` first;
* ``FILL_OR_DROP``: a window with any start outside that range is invalid as a whole: its starts
  are moved to the operand size, so the primitive (mode "fill", no negative wrapping) reads
  ``fill_value`` for every element of it, or drops every update of it;
* ``PROMISE_IN_BOUNDS``: the starts as given; an element outside the operand is an IndexError
  raised by the impl (minigrad never clamps or wraps silently; JAX leaves it undefined).

Negative starts are out of bounds (lax never counts from the end). ``indices_are_sorted`` and
``unique_indices`` are accepted and unused (the results do not depend on them). ``scatter``
with repeated slots: the last update (in row-major order of the update scatter axes) wins,
deterministically (JAX: implementation-defined).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.core import Primitive, Tracer, get_aval
from minigrad.lax.gather_numbers import (
    GatherDimensionNumbers,
    GatherScatterMode,
    Layout,
    ScatterDimensionNumbers,
    gather_layout,
    scatter_layout,
)
from minigrad.numpy.util import asarray
from minigrad.ops import binary as bi
from minigrad.ops import bitwise as bw
from minigrad.ops import elementwise as ew
from minigrad.ops import structural as st
from minigrad.ops.gather import gather_p, scatter_add_p
from minigrad.ops.scatter import scatter_max_p, scatter_min_p, scatter_mul_p, scatter_p

__all__ = ["GatherDimensionNumbers", "GatherScatterMode", "ScatterDimensionNumbers", "gather",
           "scatter", "scatter_add", "scatter_apply", "scatter_max", "scatter_min",
           "scatter_mul", "scatter_sub"]

_MODES = {GatherScatterMode.CLIP: "raise", GatherScatterMode.FILL_OR_DROP: "fill",
          GatherScatterMode.PROMISE_IN_BOUNDS: "raise"}  # (CLIP's starts are clamped first)
_I64 = np.dtype(np.int64)


def _mode(mode: Any, fn: str, default: GatherScatterMode) -> GatherScatterMode:
    try:
        parsed = default if mode is None else GatherScatterMode.from_any(mode)
    except ValueError as e:
        raise ValueError(f"{fn}: {e}") from None
    if parsed is GatherScatterMode.ONE_HOT:
        raise ValueError(f"{fn}: mode ONE_HOT is jnp.take_along_axis's, not a lax mode; use "
                         f"CLIP, FILL_OR_DROP or PROMISE_IN_BOUNDS")
    return parsed


def _flag(value: Any, fn: str, name: str) -> None:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{fn}: {name} must be a bool; got {value!r}")


def _operand_and_indices(fn: str, operand: Any, indices: Any, name: str) -> tuple[Any, Any]:
    x, idx = asarray(operand), asarray(indices)
    if get_aval(idx).dtype.kind not in "iu":
        raise TypeError(f"{fn}: {name} must be an integer array; got "
                        f"{get_aval(idx).str_short()}")
    return x, idx


def _scalar_operand(x: Any, layout: Layout) -> tuple[Any, list[Any], tuple[int, ...]]:
    """A 0-d operand (its dimension numbers all empty) as a 1-element axis read at 0 by every
    batch position: the operand, the index arrays and the axes for the primitive."""
    return st.reshape(x, (1,)), [np.zeros(layout.index_shape, _I64)], (0,)


def _start(idx: Any, i: int) -> Any:
    """Entry ``i`` of every index vector: shape B."""
    shape = get_aval(idx).shape
    if shape[-1] != 1:
        idx = st.slice_array(idx, [0] * (len(shape) - 1) + [i], (*shape[:-1], i + 1))
    return st.reshape(idx, shape[:-1])


def _as_i64(s: Any) -> Any:
    if get_aval(s).dtype == np.uint64:  # (past int64's range every start is out of bounds)
        s = bi.minimum(s, np.full(get_aval(s).shape, 2 ** 62, np.uint64))
    return ew.convert_element_type(s, _I64)


def _constant(values: np.ndarray, axis: int, shape: tuple) -> np.ndarray:
    """``values`` laid along ``axis`` of ``shape``, broadcast (a read-only view)."""
    along = [1] * len(shape)
    along[axis] = values.size
    return np.broadcast_to(values.reshape(along), shape)


def index_arrays(idx: Any, layout: Layout, operand_shape: tuple, mode: GatherScatterMode
                 ) -> list[Any]:
    """One index array per indexed operand axis, each of shape ``layout.index_shape``, with
    the mode's treatment of the starts (see the module's doc)."""
    shape, nb = layout.index_shape, len(get_aval(idx).shape) - 1
    batch = shape[:nb]
    starts: dict[int, Any] = {}
    for i, window in zip(layout.starts, layout.window_axis, strict=True):
        if i is None:
            continue
        s = _start(idx, i)
        if mode is not GatherScatterMode.PROMISE_IN_BOUNDS or window is not None:
            s = _as_i64(s)
        starts[i] = s
    if mode is GatherScatterMode.CLIP:
        for t, i in enumerate(layout.starts):
            if i is not None:
                hi = np.full(batch, layout.limits[t], _I64)
                starts[i] = bi.minimum(ew.maximum(starts[i], np.zeros(batch, _I64)), hi)
    elif mode is GatherScatterMode.FILL_OR_DROP and starts:
        valid: Any = None
        for t, i in enumerate(layout.starts):
            if i is not None:
                ok = bw.bitwise_and(ew.ge(starts[i], np.zeros(batch, _I64)),
                                    ew.le(starts[i], np.full(batch, layout.limits[t], _I64)))
                valid = ok if valid is None else bw.bitwise_and(valid, ok)
        for t, i in enumerate(layout.starts):  # an invalid window: every start past the end
            if i is not None:
                past = np.full(batch, operand_shape[layout.indexed[t]], _I64)
                starts[i] = ew.select(valid, starts[i], past)
    arrays = []
    for t in range(len(layout.indexed)):
        i, j, window = layout.starts[t], layout.batch_of[t], layout.window_axis[t]
        offsets = (None if window is None else
                   _constant(np.arange(shape[window], dtype=_I64), window, shape))
        if i is not None:
            a = st.broadcast_in_dim(starts[i], shape, tuple(range(nb)))
            arrays.append(a if offsets is None else ew.add(a, np.ascontiguousarray(offsets)))
        elif j is not None:
            arrays.append(_constant(np.arange(batch[j], dtype=_I64), j, shape))
        elif offsets is not None:
            arrays.append(offsets)
        else:  # a collapsed axis with no start: element 0
            arrays.append(np.broadcast_to(np.zeros((), _I64), shape))
    return arrays


def _identity(perm: tuple) -> bool:
    return perm == tuple(range(len(perm)))


# --------------------------------------------------------------------------- gather


def _fill_value(fill_value: Any, dtype: np.dtype) -> Any:
    """JAX's default: NaN for inexact dtypes, the lowest signed, the highest unsigned, True."""
    if fill_value is None:
        if dtype.kind in "fc":
            return np.nan
        if dtype.kind in "iu":
            return np.iinfo(dtype).min if dtype.kind == "i" else np.iinfo(dtype).max
        return True
    if np.ndim(fill_value) != 0:
        raise ValueError(f"gather: fill_value must be a scalar; got shape "
                         f"{np.shape(fill_value)}")
    return np.asarray(fill_value).astype(dtype).item()


def gather(operand: Any, start_indices: Any, dimension_numbers: GatherDimensionNumbers,
           slice_sizes: Any, *, unique_indices: bool = False, indices_are_sorted: bool = False,
           mode: Any = None, fill_value: Any = None) -> Any:
    """For each index vector of ``start_indices`` (its last axis), the window of
    ``slice_sizes`` of ``operand`` starting there (see the module's doc and
    docs/gather_scatter.md). The default mode is PROMISE_IN_BOUNDS (an IndexError here).

    >>> import numpy as np
    >>> from minigrad import lax
    >>> x = np.arange(12.).reshape(3, 4)
    >>> dnums = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
    ...                                    start_index_map=(0,))
    >>> lax.gather(x, np.array([[2], [0]]), dnums, (1, 4))  # x[[2, 0]]
    Array([[ 8.,  9., 10., 11.],
           [ 0.,  1.,  2.,  3.]], dtype=float64)
    """
    fn = "gather"
    _flag(unique_indices, fn, "unique_indices")
    _flag(indices_are_sorted, fn, "indices_are_sorted")
    parsed = _mode(mode, fn, GatherScatterMode.PROMISE_IN_BOUNDS)
    x, idx = _operand_and_indices(fn, operand, start_indices, "start_indices")
    aval = get_aval(x)
    layout, _ = gather_layout(aval.shape, get_aval(idx).shape, dimension_numbers, slice_sizes)
    fill = (_fill_value(fill_value, aval.dtype) if parsed is GatherScatterMode.FILL_OR_DROP
            else 0)
    if aval.ndim == 0:
        x, arrays, axes = _scalar_operand(x, layout)
    else:
        arrays, axes = index_arrays(idx, layout, aval.shape, parsed), layout.indexed
    out = gather_p.bind(x, *arrays, axes=axes, batch_dims=0, mode=_MODES[parsed],
                        fill_value=fill, wrap_negative=False)
    return out if _identity(layout.perm) else st.transpose(out, layout.perm)


# --------------------------------------------------------------------------- the scatters


def _scatter(fn: str, prim: Primitive, operand: Any, scatter_indices: Any, updates: Any,
             dimension_numbers: ScatterDimensionNumbers, indices_are_sorted: bool,
             unique_indices: bool, mode: Any, negate: bool = False) -> Any:
    _flag(unique_indices, fn, "unique_indices")
    _flag(indices_are_sorted, fn, "indices_are_sorted")
    parsed = _mode(mode, fn, GatherScatterMode.FILL_OR_DROP)
    x, idx = _operand_and_indices(fn, operand, scatter_indices, "scatter_indices")
    u = asarray(updates)
    aval, u_aval = get_aval(x), get_aval(u)
    if u_aval.dtype != aval.dtype:
        raise TypeError(f"{fn}: updates must have operand's dtype {aval.dtype} (lax never "
                        f"promotes); got {u_aval.str_short()}")
    if negate and aval.dtype.kind == "b":
        raise TypeError(f"{fn}: operand must be numeric, not bool; got {aval.str_short()}")
    layout = scatter_layout(fn, aval.shape, get_aval(idx).shape, u_aval.shape,
                            dimension_numbers)
    if not _identity(layout.perm):  # updates into the primitive's order: the inverse of perm
        u = st.transpose(u, tuple(int(p) for p in np.argsort(layout.perm)))
    if negate:
        u = ew.neg(u)
    if aval.ndim == 0:
        x1, arrays, axes = _scalar_operand(x, layout)
        out = prim.bind(x1, u, *arrays, axes=axes, batch_dims=0, mode=_MODES[parsed],
                        wrap_negative=False)
        return st.reshape(out, ())
    arrays = index_arrays(idx, layout, aval.shape, parsed)
    return prim.bind(x, u, *arrays, axes=layout.indexed, batch_dims=0, mode=_MODES[parsed],
                     wrap_negative=False)


def scatter(operand: Any, scatter_indices: Any, updates: Any,
            dimension_numbers: ScatterDimensionNumbers, *, indices_are_sorted: bool = False,
            unique_indices: bool = False, mode: Any = None) -> Any:
    """``operand`` with the windows ``updates`` written at ``scatter_indices``; of repeated
    slots the last update wins (deterministic; JAX leaves the order undefined).

    >>> import numpy as np
    >>> from minigrad import lax
    >>> dnums = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
    ...                                     scatter_dims_to_operand_dims=(0,))
    >>> lax.scatter(np.zeros(4), np.array([[1], [3], [1]]), np.array([1., 2., 3.]), dnums)
    Array([0., 3., 0., 2.], dtype=float64)
    """
    return _scatter("scatter", scatter_p, operand, scatter_indices, updates, dimension_numbers,
                    indices_are_sorted, unique_indices, mode)


def scatter_add(operand: Any, scatter_indices: Any, updates: Any,
                dimension_numbers: ScatterDimensionNumbers, *, indices_are_sorted: bool = False,
                unique_indices: bool = False, mode: Any = None) -> Any:
    """``operand`` with ``updates`` added at ``scatter_indices`` (repeats accumulate).

    >>> import numpy as np
    >>> from minigrad import lax
    >>> dnums = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
    ...                                     scatter_dims_to_operand_dims=(0,))
    >>> lax.scatter_add(np.ones(5), np.array([[1], [2], [4]]), np.array([2., 3., 4.]), dnums)
    Array([1., 3., 4., 1., 5.], dtype=float64)
    """
    return _scatter("scatter_add", scatter_add_p, operand, scatter_indices, updates,
                    dimension_numbers, indices_are_sorted, unique_indices, mode)


def scatter_sub(operand: Any, scatter_indices: Any, updates: Any,
                dimension_numbers: ScatterDimensionNumbers, *, indices_are_sorted: bool = False,
                unique_indices: bool = False, mode: Any = None) -> Any:
    """``operand`` with ``updates`` subtracted at ``scatter_indices``: ``scatter_add`` of
    ``-updates`` (exact: negation is)."""
    return _scatter("scatter_sub", scatter_add_p, operand, scatter_indices, updates,
                    dimension_numbers, indices_are_sorted, unique_indices, mode, negate=True)


def scatter_mul(operand: Any, scatter_indices: Any, updates: Any,
                dimension_numbers: ScatterDimensionNumbers, *, indices_are_sorted: bool = False,
                unique_indices: bool = False, mode: Any = None) -> Any:
    """``operand`` multiplied by ``updates`` at ``scatter_indices`` (repeats multiply). Its
    derivative in ``updates`` is defined with repeated slots too (JAX's needs
    ``unique_indices``)."""
    return _scatter("scatter_mul", scatter_mul_p, operand, scatter_indices, updates,
                    dimension_numbers, indices_are_sorted, unique_indices, mode)


def scatter_min(operand: Any, scatter_indices: Any, updates: Any,
                dimension_numbers: ScatterDimensionNumbers, *, indices_are_sorted: bool = False,
                unique_indices: bool = False, mode: Any = None) -> Any:
    """The minimum of ``operand`` and ``updates`` at ``scatter_indices``; ties share the
    derivative equally (as JAX's)."""
    return _scatter("scatter_min", scatter_min_p, operand, scatter_indices, updates,
                    dimension_numbers, indices_are_sorted, unique_indices, mode)


def scatter_max(operand: Any, scatter_indices: Any, updates: Any,
                dimension_numbers: ScatterDimensionNumbers, *, indices_are_sorted: bool = False,
                unique_indices: bool = False, mode: Any = None) -> Any:
    """The maximum of ``operand`` and ``updates`` at ``scatter_indices``; ties share the
    derivative equally (as JAX's)."""
    return _scatter("scatter_max", scatter_max_p, operand, scatter_indices, updates,
                    dimension_numbers, indices_are_sorted, unique_indices, mode)


def scatter_apply(operand: Any, scatter_indices: Any, func: Any,
                  dimension_numbers: ScatterDimensionNumbers, *, update_shape: Any = (),
                  indices_are_sorted: bool = False, unique_indices: bool = False,
                  mode: Any = None) -> Any:
    """``operand`` with ``func`` (elementwise) applied at the windows of ``scatter_indices``,
    once per window covering a slot (a slot covered twice gets ``func(func(x))``).
    ``update_shape`` is the shape updates would have. Differentiable (JAX's is not).

    >>> import numpy as np
    >>> from minigrad import lax
    >>> dnums = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
    ...                                     scatter_dims_to_operand_dims=(0,))
    >>> lax.scatter_apply(np.ones(3), np.array([[0], [2], [0]]), lambda v: v * 3, dnums,
    ...                   update_shape=(3,))
    Array([9., 1., 3.], dtype=float64)
    """
    fn = "scatter_apply"
    if not callable(func):
        raise TypeError(f"{fn}: func must be callable; got {func!r}")
    x = asarray(operand)
    aval = get_aval(x)
    try:
        shape = tuple(int(s) for s in update_shape)
    except (TypeError, ValueError):
        raise TypeError(f"{fn}: update_shape must be a sequence of ints; got "
                        f"{update_shape!r}") from None
    # how many windows cover each slot: a scatter_add of ones (the same checks and mode)
    counts = _scatter(fn, scatter_add_p, np.zeros(aval.shape, _I64), scatter_indices,
                      np.ones(shape, _I64), dimension_numbers, indices_are_sorted,
                      unique_indices, mode)
    if isinstance(counts, Tracer):  # traced indices: at most one round per window
        rounds = int(np.prod(get_aval(asarray(scatter_indices)).shape[:-1], dtype=np.int64))
    else:  # known: as many rounds as the most covered slot
        rounds = int(np.max(counts)) if np.size(counts) else 0
    if rounds == 0 and not isinstance(x, Tracer):
        return asarray(np.array(x))  # (a new array, never a view of the operand)
    out = x
    for r in range(1, rounds + 1):
        applied = ew.convert_element_type(asarray(func(out)), aval.dtype)
        out = ew.select(ew.ge(counts, np.full(aval.shape, r, _I64)), applied, out)
    return out

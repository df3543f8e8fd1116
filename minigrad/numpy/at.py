"""JAX's functional updates ``x.at[key].set(v)``, ``.add``, ``.subtract``, ``.multiply``
(``.mul``), ``.divide``, ``.power``, ``.min``, ``.max``, ``.apply`` and ``.get``, on tracers and
on eager ``minigrad.Array`` values alike, through the scatter primitives.

A key is parsed as ``x[key]`` parses it (``indexing.parse_key``), then turned into one scatter
over NumPy's advanced-indexing model (``ops/gather.py``): every index array, every int and
every slice that is not the whole axis becomes an index into its axis (a slice as the
``arange`` of its positions, standing orthogonally to the others), and the whole axes are the
scatter's untouched "rest" axes. The updates are broadcast to the shape ``x[key]`` has (NumPy's
rule), cast to ``x``'s dtype (as JAX does: an int array's ``.set(2.7)`` writes 2), and
transposed from that layout into the scatter's. So an index array has one entry per updated
element, apart from whole axes.

Repeated entries: ``set`` keeps the last write (deterministically; gradient to the winner
only), ``add`` accumulates, ``multiply`` multiplies, ``min``/``max`` combine, ``apply`` applies
the function once per occurrence. ``divide`` and ``power`` are JAX's ``x / scatter_mul(1, v)``
and ``x ** scatter_mul(1, v)``. An index out of range raises unless ``mode`` asks for JAX's
clip or drop; ``indices_are_sorted`` and ``unique_indices`` are accepted and change nothing (the
result never depends on a promise).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from minigrad import core
from minigrad.config import x64_enabled
from minigrad.core import Tracer, _get_current, current_trace, eval_trace, get_aval
from minigrad.dtypes import _TO_32 as _NARROWED
from minigrad.numpy import indexing as ix
from minigrad.numpy.division import power
from minigrad.numpy.eager import eager, wrap
from minigrad.numpy.shape import ravel
from minigrad.numpy.ufuncs import divide
from minigrad.numpy.util import ArrayLike, asarray, check_broadcast
from minigrad.ops import elementwise as ew
from minigrad.ops import structural as st
from minigrad.ops.gather import scatter_add_p
from minigrad.ops.scatter import scatter_max_p, scatter_min_p, scatter_mul_p, scatter_p

__all__ = [  # what minigrad.numpy exports from here
    "put", "put_along_axis",
]

_PRIMS = {"set": scatter_p, "add": scatter_add_p, "mul": scatter_mul_p, "min": scatter_min_p,
          "max": scatter_max_p}


class ScatterPlan:
    """A key of ``x`` as one scatter: the index arrays (one shape), the axes they index, the
    shape of ``x[key]`` (what updates broadcast to) and the permutation that takes updates
    from that shape (new axes dropped) into the scatter's layout."""

    __slots__ = ("indices", "axes", "view_shape", "drop", "perm")

    def __init__(self, indices: list, axes: tuple, view_shape: tuple, drop: tuple,
                 perm: list | None):
        self.indices, self.axes, self.view_shape = indices, axes, view_shape
        self.drop, self.perm = drop, perm


def plan(shape: tuple, key: Any, fn: str, raise_mode: bool, wrap_negative: bool) -> ScatterPlan:
    entries = ix.parse_key(key, shape, fn)
    if any(kind == ix.BOOL for kind, _ in entries):
        raise IndexError(f"{fn}: a scalar boolean index is not supported in .at[]")
    axes = ix.axes_of(entries)
    adv = [i for i, (kind, _) in enumerate(entries) if kind in (ix.ARRAY, ix.INT)]
    arrays = []
    for i in adv:
        kind, v = entries[i]
        if kind == ix.INT and raise_mode:  # a static int is checked now
            ix.check_int(v, shape[axes[i]], axes[i], fn, wrap_negative)
        arrays.append(np.asarray(v) if kind == ix.INT else v)
    arrays = ix.broadcast_indices(arrays, fn) if arrays else []
    b_shape = get_aval(arrays[0]).shape if arrays else ()
    # The view's layout, as NumPy's x[key] has it: labels ("b", j) for the broadcast block,
    # ("s", axis) for each slice, ("n", i) for each new axis.
    together = ix.adjacent(adv)
    view: list[tuple] = [] if together else [("b", j) for j in range(len(b_shape))]
    view_shape: list[int] = [] if together else list(b_shape)
    partial_slices, whole = [], []
    for i, ((kind, k), a) in enumerate(zip(entries, axes, strict=True)):
        if kind == ix.NEW:
            view.append(("n", i))
            view_shape.append(1)
        elif kind == ix.SLICE:
            positions = range(*k.indices(shape[a]))
            view.append(("s", a))
            view_shape.append(len(positions))
            if positions == range(shape[a]):
                whole.append(a)
            else:
                partial_slices.append((a, np.arange(positions.start, positions.stop,
                                                    positions.step)))
        elif together and adv and i == adv[0]:
            view += [("b", j) for j in range(len(b_shape))]
            view_shape += list(b_shape)
    if not arrays and not partial_slices:  # every axis whole: index axis 0
        partial_slices.append((0, np.arange(shape[0])))
        whole.remove(0)
        view = [("s", 0) if lab == ("s", 0) else lab for lab in view]
    # The scatter's index shape: the broadcast block, then one axis per partial slice.
    n_b, n_s = len(b_shape), len(partial_slices)
    index_shape = (*b_shape, *[len(p) for _, p in partial_slices])
    indices = []
    for arr in arrays:
        indices.append(_expand(arr, n_b, n_s, index_shape))
    for j, (_, pos) in enumerate(partial_slices):
        shaped = pos.reshape((1,) * (n_b + j) + (-1,) + (1,) * (n_s - j - 1))
        indices.append(np.broadcast_to(shaped, index_shape))
    target = ([("b", j) for j in range(n_b)] + [("s", a) for a, _ in partial_slices]
              + [("s", a) for a in whole])
    kept = [lab for lab in view if lab[0] != "n"]
    perm = [kept.index(t) for t in target]
    drop = tuple(j for j, lab in enumerate(view) if lab[0] == "n")
    scatter_axes = tuple(axes[i] for i in adv) + tuple(a for a, _ in partial_slices)
    return ScatterPlan(indices, scatter_axes, tuple(view_shape), drop,
                       None if perm == list(range(len(perm))) else perm)


def _expand(arr: Any, n_b: int, n_s: int, index_shape: tuple) -> Any:
    """An advanced index (of the broadcast block's shape) broadcast over the slice axes."""
    if not n_s:
        return arr
    if isinstance(arr, np.ndarray):
        return np.broadcast_to(arr.reshape(arr.shape + (1,) * n_s), index_shape)
    return st.broadcast_in_dim(arr, index_shape, tuple(range(n_b)))


def _updates(fn: str, values: Any, p: ScatterPlan, dtype: np.dtype) -> Any:
    """``values`` broadcast to ``x[key]``'s shape, cast to x's dtype, in the scatter's layout."""
    u = asarray(values)
    u = ew.convert_element_type(u, dtype)  # (JAX's cast: truncation for ints)
    u_shape = get_aval(u).shape
    if u_shape != p.view_shape:
        check_broadcast(fn + " (the updates against x[key])", u_shape, p.view_shape)
        u = st.broadcast_to(u, p.view_shape)
    if p.drop:
        u = st.squeeze(u, p.drop)
    return st.transpose(u, p.perm) if p.perm is not None else u


# --- speed: the eager call the benchmarks time, x.at[i].add(v) with x an array, i a 1-D
# integer NumPy array and v an array of the update's shape and x's dtype (or a Python number
# into a float x), is recognised in a few attribute reads and bound with fixed parameters:
# parsing the key and shaping the updates cost ~10 us more. tests/test_at.py checks both
# paths against each other.
_AXIS0 = {"axes": (0,), "batch_dims": 0, "mode": "raise", "wrap_negative": True}


def scatter_update(fn: str, x: ArrayLike, key: Any, values: Any, how: str,
                   mode: str | None = None, wrap_negative: bool = True) -> Any:
    """``x`` updated at ``key`` by the scatter ``how`` ("set", "add", "mul", "min", "max")."""
    prim = _PRIMS[how]
    try:
        if type(key) is np.ndarray and mode is None and wrap_negative:
            u = _eager_updates(x, key, values)
            if u is not None:
                return prim.bind(x, u, key, **_AXIS0)
        elif type(key) is int and mode is None and wrap_negative:  # x.at[i]: x[i]'s shape
            out = _eager_int_update(fn, x, key, values, how)
            if out is not None:
                return out
            u = _eager_updates(x, _SCALAR_KEY, values)
            if u is not None:
                ix.check_int(key, x.shape[0], 0, fn)  # (plan's check, its error)
                if eager():  # (what the eval trace's bind would do, without it)
                    return wrap(prim.impl(x.view(np.ndarray), np.asarray(u),  # type: ignore[misc]
                                          np.asarray(key), **_AXIS0))
                return prim.bind(x, u, np.asarray(key), **_AXIS0)
        x = asarray(x)
        aval = get_aval(x)
        if not aval.shape:  # a 0-d x: its one entry, as entry 0 of a 1-element x
            key = (0, *key) if isinstance(key, tuple) else (0, key)
            out = scatter_update(fn, st.reshape(x, (1,)), key, values, how, mode, wrap_negative)
            return st.reshape(out, ())
        kind_mode = ix.gather_mode(mode, fn)
        p = plan(aval.shape, key, fn, kind_mode == "raise", wrap_negative)
        u = _updates(fn, values, p, aval.dtype)
        return prim.bind(x, u, *p.indices, axes=p.axes, batch_dims=0, mode=kind_mode,
                         wrap_negative=wrap_negative)
    except IndexError as e:  # eagerly, name the user's function rather than the primitive
        message = str(e)
        if current_trace() is eval_trace and message.startswith(prim.name + ":"):
            raise IndexError(fn + message[len(prim.name):]) from None
        raise


# The ufunc scatter_min/max combine a slot with (ops/scatter.py): one slot has no repeats to
# combine in order, so the ufunc on a view of the slot is the scatter's result.
_SLOT_UFUNCS = {"min": np.minimum, "max": np.maximum}


def _eager_int_update(fn: str, x: Any, key: int, values: Any, how: str) -> Any:
    """``x.at[i].add(v)`` and its kin for a Python int ``i`` and a Python number ``v`` on an
    eager float array, without binding: the scatter's impl, the checks first (or None when the
    update is not that simple one). (speed: x.at[i].add(v) is an idiom of eager loops)"""
    tv = type(values)
    if (tv is not float and tv is not int) or type(x) is not core.eager_array_type \
            or not x.ndim or x.dtype.kind != "f" or _get_current() is not eval_trace \
            or (x.dtype in _NARROWED and not x64_enabled()):
        return None
    k = ix.check_int(key, x.shape[0], 0, fn)  # (plan's check, its error)
    value = x.dtype.type(values)  # (as the updates array would hold it)
    out = x.view(np.ndarray).copy()
    # (speed: the float arithmetic of a scalar or a row in place, the IEEE operation the ufunc
    # does, ~1 us faster than the ufunc with out= on one element)
    if how == "set":
        out[k] = value
    elif how == "add":
        out[k] += value
    elif how == "mul":
        out[k] *= value
    else:  # (min and max: the ufunc's NaN rule)
        slot = out[k, None]
        _SLOT_UFUNCS[how](slot, value, out=slot)
    return wrap(out)


_SCALAR_KEY = np.zeros((), np.int64)  # (a Python int key's shape and kind, for _eager_updates)


def _eager_updates(x: Any, key: Any, values: Any) -> Any:
    """The updates, if the update is the simple eager one (else None): ``key`` a 1-D integer
    array, or ``_SCALAR_KEY`` for a Python int."""
    tx = type(x)
    if (tx is not core.eager_array_type and tx is not np.ndarray) \
            or (key.ndim != 1 and key is not _SCALAR_KEY) or not x.ndim \
            or key.dtype.kind not in "iu" or _get_current() is not eval_trace:
        return None
    dtype = x.dtype
    if dtype in _NARROWED and not x64_enabled():
        return None
    tv = type(values)
    if tv is core.eager_array_type or tv is np.ndarray:
        if values.dtype == dtype and values.shape == key.shape + x.shape[1:]:
            return values
    elif (tv is float or tv is int) and dtype.kind == "f":
        return np.full(key.shape + x.shape[1:], values, dtype)
    return None


def along_axis_update(fn: str, arr: ArrayLike, indices: Any, values: Any, axis: int | None,
                      mode: str | None) -> Any:
    """``put_along_axis``: a scatter with the broadcast other axes as paired batch dims;
    ``values`` broadcast to ``indices``' shape first."""
    shape = get_aval(asarray(arr)).shape
    ishape = get_aval(ix._index_array(indices, fn)).shape
    x, idx, ax, others, ndim = ix._along_axis(arr, indices, axis, fn)
    u = ew.convert_element_type(asarray(values), get_aval(x).dtype)
    check_broadcast(fn + " (values against indices)", get_aval(u).shape, ishape)
    u = st.broadcast_to(u, ishape)
    u = st.reshape(u, (-1,)) if axis is None else st.moveaxis(u, ax, ndim - 1)
    u = st.broadcast_to(u, get_aval(idx).shape)
    k = len(others)
    out = scatter_p.bind(x, u, idx, axes=(k,), batch_dims=k, mode=ix.gather_mode(mode, fn),
                         wrap_negative=True)
    out = st.moveaxis(out, ndim - 1, ax)
    return st.reshape(out, shape) if axis is None else out


class IndexUpdateRef:
    """``x.at[key]``: the functional updates of ``x`` at ``key``."""

    __slots__ = ("array", "index")

    def __init__(self, array: Any, index: Any):
        self.array, self.index = array, index

    def __repr__(self) -> str:
        return f"IndexUpdateRef({self.array!r}, {self.index!r})"

    def get(self, *, indices_are_sorted: bool = False, unique_indices: bool = False,
            mode: str | None = None, fill_value: Any = None, out_sharding: Any = None,
            wrap_negative_indices: bool = True) -> Any:
        """``x[key]``; with ``mode`` "clip" or "fill" an index out of range clamps or reads
        ``fill_value`` instead of raising."""
        return ix.getitem(self.array, self.index, mode=mode, fill_value=fill_value,
                          wrap_negative=wrap_negative_indices, fn="at[].get")

    def set(self, values: ArrayLike, *, indices_are_sorted: bool = False,
            unique_indices: bool = False, mode: str | None = None, out_sharding: Any = None,
            wrap_negative_indices: bool = True) -> Any:
        """``x[key] = values`` as a new array; of repeated entries the last write wins."""
        return scatter_update("at[].set", self.array, self.index, values, "set", mode,
                              wrap_negative_indices)

    def add(self, values: ArrayLike, *, indices_are_sorted: bool = False,
            unique_indices: bool = False, mode: str | None = None, out_sharding: Any = None,
            wrap_negative_indices: bool = True) -> Any:
        """``x[key] += values``, repeated entries accumulating (``np.add.at``)."""
        return scatter_update("at[].add", self.array, self.index, values, "add", mode,
                              wrap_negative_indices)

    def subtract(self, values: ArrayLike, *, indices_are_sorted: bool = False,
                 unique_indices: bool = False, mode: str | None = None,
                 out_sharding: Any = None, wrap_negative_indices: bool = True) -> Any:
        """``x[key] -= values``, repeated entries accumulating."""
        dtype = get_aval(asarray(self.array)).dtype
        negated = ew.neg(ew.convert_element_type(asarray(values), dtype))
        return scatter_update("at[].subtract", self.array, self.index, negated, "add", mode,
                              wrap_negative_indices)

    def multiply(self, values: ArrayLike, *, indices_are_sorted: bool = False,
                 unique_indices: bool = False, mode: str | None = None,
                 out_sharding: Any = None, wrap_negative_indices: bool = True) -> Any:
        """``x[key] *= values``, repeated entries multiplying (``np.multiply.at``)."""
        return scatter_update("at[].multiply", self.array, self.index, values, "mul", mode,
                              wrap_negative_indices)

    mul = multiply

    def _of_ones(self, fn: str, values: Any, mode: str | None, wrap: bool) -> Any:
        x = asarray(self.array)
        return scatter_update(f"at[].{fn}", st.full(get_aval(x).shape, 1, get_aval(x).dtype),
                              self.index, values, "mul", mode, wrap)

    def divide(self, values: ArrayLike, *, indices_are_sorted: bool = False,
               unique_indices: bool = False, mode: str | None = None, out_sharding: Any = None,
               wrap_negative_indices: bool = True) -> Any:
        """``x[key] /= values``: JAX's ``x / scatter_mul(ones, values)``."""
        return divide(self.array, self._of_ones("divide", values, mode, wrap_negative_indices))

    def power(self, values: ArrayLike, *, indices_are_sorted: bool = False,
              unique_indices: bool = False, mode: str | None = None, out_sharding: Any = None,
              wrap_negative_indices: bool = True) -> Any:
        """``x[key] **= values``: JAX's ``x ** scatter_mul(ones, values)``, so repeated
        exponents multiply."""
        return power(self.array, self._of_ones("power", values, mode, wrap_negative_indices))

    def min(self, values: ArrayLike, *, indices_are_sorted: bool = False,
            unique_indices: bool = False, mode: str | None = None, out_sharding: Any = None,
            wrap_negative_indices: bool = True) -> Any:
        """``x[key] = minimum(x[key], values)``, over repeated entries too."""
        return scatter_update("at[].min", self.array, self.index, values, "min", mode,
                              wrap_negative_indices)

    def max(self, values: ArrayLike, *, indices_are_sorted: bool = False,
            unique_indices: bool = False, mode: str | None = None, out_sharding: Any = None,
            wrap_negative_indices: bool = True) -> Any:
        """``x[key] = maximum(x[key], values)``, over repeated entries too."""
        return scatter_update("at[].max", self.array, self.index, values, "max", mode,
                              wrap_negative_indices)

    def apply(self, func: Callable[[Any], Any], *, indices_are_sorted: bool = False,
              unique_indices: bool = False, mode: str | None = None,
              wrap_negative_indices: bool = True) -> Any:
        """``func`` applied at ``key``, once per occurrence of an entry (an entry given twice
        gets ``func(func(x))``). ``func`` is elementwise."""
        x = asarray(self.array)
        aval = get_aval(x)
        fn = "at[].apply"
        if not aval.shape:  # a 0-d x: its one entry, as entry 0 of a 1-element x
            key = (0, *self.index) if isinstance(self.index, tuple) else (0, self.index)
            out = IndexUpdateRef(st.reshape(x, (1,)), key).apply(
                func, mode=mode, wrap_negative_indices=wrap_negative_indices)
            return st.reshape(out, ())
        kind_mode = ix.gather_mode(mode, fn)
        p = plan(aval.shape, self.index, fn, kind_mode == "raise", wrap_negative_indices)
        ones = np.ones(p.view_shape, np.int64)
        updates = ones.squeeze(p.drop) if p.drop else ones
        updates = updates.transpose(p.perm) if p.perm is not None else updates
        params = {"axes": p.axes, "batch_dims": 0, "mode": kind_mode,
                  "wrap_negative": wrap_negative_indices}
        zero = np.zeros(aval.shape, np.int64)
        if all(isinstance(i, np.ndarray) for i in p.indices):
            # Known indices: the counts now, in NumPy (the impl on constants), and as many
            # rounds as the most repeated entry.
            counts: Any = scatter_add_p.impl(zero, updates, *p.indices, **params)  # type: ignore
            rounds = int(counts.max()) if counts.size else 0
        else:  # traced indices: at most one round per index position
            counts = scatter_add_p.bind(zero, updates, *p.indices, **params)
            rounds = int(np.prod(get_aval(p.indices[0]).shape, dtype=np.int64))
        out = x
        for r in range(1, rounds + 1):
            applied = ew.convert_element_type(asarray(func(out)), aval.dtype)
            out = ew.select(ew.ge(counts, np.full(aval.shape, r, np.int64)), applied, out)
        return out if rounds or isinstance(x, Tracer) else asarray(x)


class IndexUpdateHelper:
    """``x.at``: indexing it gives the updates at a key (``x.at[key].set(v)``)."""

    __slots__ = ("array",)

    def __init__(self, array: Any):
        self.array = array

    def __getitem__(self, index: Any) -> IndexUpdateRef:
        return IndexUpdateRef(self.array, index)

    def __repr__(self) -> str:
        return f"IndexUpdateHelper({self.array!r})"


# --------------------------------------------------------------------------- put

def put(a: ArrayLike, ind: ArrayLike, v: ArrayLike, mode: str | None = None, *,
        inplace: bool = True) -> Any:
    """JAX's ``put``: ``a`` with the entries of its flattened form at ``ind`` set to ``v``
    (repeated to ``ind``'s length), as a new array; ``inplace=False`` is required, as in
    JAX, since arrays are immutable."""
    if inplace:
        raise ValueError("put: minigrad arrays are immutable; pass inplace=False to get the "
                         "updated array")
    x = asarray(a)
    idx = ix._index_array(ind, "put")
    idx = idx.reshape(-1) if isinstance(idx, np.ndarray) else st.reshape(
        idx, (get_aval(idx).size,))
    values = ravel(asarray(v))
    n, m = get_aval(idx).shape[0], get_aval(values).shape[0]
    if not n or not get_aval(x).size:
        return x
    if m == 0:
        raise ValueError("put: v must not be empty when ind is not")
    if m != n:  # repeated (or cut) to ind's length, as np.put does
        values = ix.take(values, np.arange(n) % m)
    out = scatter_update("put", ravel(x), idx, values, "set", mode=mode)
    return st.reshape(out, get_aval(x).shape)


def put_along_axis(arr: ArrayLike, indices: ArrayLike, values: ArrayLike, axis: int | None,
                   inplace: bool = True, *, mode: str | None = None) -> Any:
    """JAX's ``put_along_axis``: ``arr`` with ``values`` (broadcast to ``indices``' shape) set
    along ``axis`` where ``take_along_axis`` reads; ``inplace=False`` is required."""
    if inplace:
        raise ValueError("put_along_axis: minigrad arrays are immutable; pass inplace=False "
                         "to get the updated array")
    return along_axis_update("put_along_axis", arr, indices, values, axis, mode)


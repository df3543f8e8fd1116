"""gather and scatter_add: NumPy's advanced indexing as a pair of primitives, each the other's
transpose. The rest of the scatter family (set, mul, min, max) is in ``ops/scatter.py``.

The model is NumPy's advanced indexing, not JAX's dimension numbers. With ``m`` integer index
arrays of one shape ``I``, one per axis in ``axes``,

    gather(x, *indices, axes)  ==  x'[indices[0], ..., indices[m-1]]

where ``x'`` is ``x`` with the indexed axes moved to the front: the result has shape ``I``
followed by ``x``'s other axes in their order, and ``scatter_add(x, updates, *indices, axes)``
adds ``updates`` (of that shape) into the slots the gather reads. Every NumPy index reduces to
this after basic slicing (``slice``), new axes and one transpose (``minigrad.numpy.indexing``).
JAX's dimension numbers (offset_dims, collapsed_slice_dims, start_index_map, slice_sizes)
describe windows of any size at every index: NumPy never needs them (a slice is the ``slice``
primitive), and they would make each impl and rule a page of bookkeeping. We keep one thing
from JAX's model, its operand batching dims, as ``batch_dims``: the leading ``batch_dims`` axes
of ``x``, of every index and of ``updates`` are paired (example ``b`` indexes only ``x[b]``).
A batching rule then only moves an axis and counts one more batch dim: no folding of the batch
into an axis, no offset indices, and negative indices need no care.

Index entries may have any integer dtype. ``mode`` says what an entry outside the axis does:

* ``"raise"`` (the default; NumPy's rule): entries in ``[-n, n)`` count from the end when
  negative; any other is an IndexError naming the axis, the entry and the size, raised by the
  impl on every call (under jit too);
* ``"clip"``: negatives counted from the end once, then clamped into ``[0, n)`` (JAX's clip);
* ``"fill"``: negatives counted from the end once; a gather reads ``fill_value`` where the
  entry is still outside, a scatter drops that update (JAX's fill / drop);
* ``"wrap"``: the entry modulo ``n`` (``np.take``'s wrap).

``wrap_negative=False`` makes every negative entry out of range (JAX's
``wrap_negative_indices=False``). Gradients: ``gather`` is linear in ``x`` (the transpose is a
scatter_add of the cotangent, in the same mode: what a fill read gets nothing); ``scatter_add``
is linear in ``(x, updates)`` jointly (``ct_x = ct``, ``ct_updates = gather(ct)``, 0 for dropped
updates).
"""

from __future__ import annotations

from functools import partial
from typing import Any, Sequence

import numpy as np

from minigrad.core import Primitive, ShapedArray, UndefPrimal, Zero, get_aval
from minigrad.ops.structural import bdim_to, instantiate, moveaxis, zeros

MODES = ("raise", "clip", "fill", "wrap")
_SMALL = 32  # index entries up to this many: Python's min and max beat NumPy's reductions
_UNSIGNED = {np.dtype(f"i{b}"): np.dtype(f"u{b}") for b in (1, 2, 4, 8)}


# --------------------------------------------------------------------------- positions

def positions(index: np.ndarray, n: int, mode: str, wrap_negative: bool, op: str, axis: int
              ) -> tuple[np.ndarray, np.ndarray | None]:
    """The entries of ``index`` (any integer dtype) as positions in ``[0, n)``, and, where mode
    "fill" leaves entries outside, a bool array of the valid ones (else None). See the module's
    doc for the modes; ``op`` and ``axis`` name the error."""
    if index.size <= _SMALL:
        entries = index.tolist() if index.ndim == 1 else index.ravel().tolist()
        lo, hi = (min(entries), max(entries)) if entries else (0, -1)
        if lo >= 0 and hi < n:  # every entry in range already: the usual case
            return index, None
    else:
        # One reduction for the usual case: viewed as unsigned, a negative entry is huge.
        unsigned = index.view(_UNSIGNED[index.dtype]) if index.dtype.kind == "i" else index
        if unsigned.max() < n:
            return index, None
        lo, hi = index.min(), index.max()
    if mode == "raise":
        first = -n if wrap_negative else 0
        if lo < first or hi >= n:
            bad = index[(index < first) | (index >= n)].flat[0]
            raise IndexError(f"{op}: index {bad} is out of bounds for axis {axis} with size {n}")
    if mode in ("clip", "wrap") and n == 0:
        raise IndexError(f"{op}: cannot {mode} index {lo} into axis {axis} of size 0")
    if index.dtype == np.uint64:  # entries past int64's range are all out of range alike
        index = np.minimum(index, n)
    i = index.astype(np.int64)  # (wide enough: i + n cannot overflow, whatever the dtype)
    if mode == "wrap":
        return np.mod(i, n), None
    if wrap_negative:
        i = np.where(i < 0, i + n, i)
    if mode == "raise":
        return i, None
    if mode == "clip":
        return np.clip(i, 0, n - 1), None
    valid = (i >= 0) & (i < n)
    return np.where(valid, i, 0), valid


# --- speed: in mode "raise", NumPy's own indexing checks exactly what we check (entries in
# [-n, n), negatives from the end; any other is an IndexError), for every integer dtype but
# uint64, whose entries past int64's range NumPy wraps silently. Where it applies, the impls
# index with NumPy directly and, on its IndexError, let ``positions`` raise ours: the range
# test costs nothing more (on a 1000-entry index it was ~1.4 us of an eager x.at[i].add).
# tests/test_gather_scatter.py checks every dtype and size at the edges.
def numpy_checks(index: np.ndarray, mode: str, wrap_negative: bool) -> bool:
    return mode == "raise" and wrap_negative and index.dtype != np.uint64


def _index_key(x_shape: tuple, indices: Sequence[np.ndarray], axes: tuple, batch_dims: int,
               mode: str, wrap_negative: bool, op: str) -> tuple[tuple, np.ndarray | None]:
    """The NumPy key that reads the slots of ``x`` (its indexed axes moved after its batch
    axes): an iota per batch axis, then the indices as positions; and the valid mask (None:
    every entry is valid)."""
    key: list[np.ndarray] = []
    valid = None
    for index, a in zip(indices, axes, strict=True):
        p, ok = positions(index, x_shape[a], mode, wrap_negative, op, a - batch_dims)
        key.append(p)
        if ok is not None:
            valid = ok if valid is None else valid & ok
    if batch_dims:
        ndim = indices[0].ndim
        key = [np.arange(x_shape[j]).reshape((1,) * j + (-1,) + (1,) * (ndim - j - 1))
               for j in range(batch_dims)] + key
    return tuple(key), valid


def slots_view(x: np.ndarray, axes: tuple, batch_dims: int) -> np.ndarray:
    """``x`` (a view of it) with the indexed ``axes`` right after the batch axes."""
    front = tuple(range(batch_dims, batch_dims + len(axes)))
    return x if axes == front else np.moveaxis(x, axes, front)


def check_operands(op: str, x: ShapedArray, updates: ShapedArray | None,
                   indices: Sequence[ShapedArray], axes: tuple, batch_dims: int,
                   mode: str) -> ShapedArray:
    """The shape rule of the whole family: the result of the gather (for a scatter, the shape
    ``updates`` must have)."""
    k, shape = batch_dims, x.shape
    if mode not in MODES:
        raise ValueError(f"{op}: mode must be one of {MODES}; got {mode!r}")
    if not indices or len(indices) != len(axes):
        raise TypeError(f"{op}: needs one index per axis in axes={axes}; got {len(indices)}")
    if len(set(axes)) != len(axes) or any(not k <= a < len(shape) for a in axes):
        raise ValueError(f"{op}: axes must be distinct and in [{k}, {len(shape)}); got {axes}")
    first = indices[0]
    for index in indices:
        if index.dtype.kind not in "iu" or index.shape != first.shape:
            raise TypeError(f"{op}: indices must be integer arrays of one shape; got "
                            f"{', '.join(i.str_short() for i in indices)}")
    if first.shape[:k] != shape[:k]:
        raise TypeError(f"{op}: the {k} batch dims of the indices {first.str_short()} must be "
                        f"x's {x.str_short()}")
    rest = tuple(s for a, s in enumerate(shape) if a >= k and a not in axes)
    out = ShapedArray(first.shape + rest, x.dtype)
    if updates is not None and (updates.shape != out.shape or updates.dtype != x.dtype):
        raise TypeError(f"{op}: updates must be {out.str_short()} for x {x.str_short()} and "
                        f"indices {first.str_short()}; got {updates.str_short()}")
    return out


# --------------------------------------------------------------------------- gather

gather_p = Primitive("gather")


def gather(x: Any, indices: Sequence[Any], axes: Sequence[int], *, batch_dims: int = 0,
           mode: str = "raise", fill_value: Any = 0, wrap_negative: bool = True) -> Any:
    """``x[indices[0], ..., indices[m-1]]`` along ``axes``, those axes first in the result
    (see the module's doc). The indices are integer arrays of one shape.

    >>> import numpy as np
    >>> from minigrad.ops.gather import gather
    >>> gather(np.arange(6.).reshape(2, 3), [np.array([2, -1, 0])], [1])  # x[:, i].T
    Array([[2., 5.],
           [2., 5.],
           [0., 3.]], dtype=float64)
    """
    return gather_p.bind(x, *indices, axes=tuple(axes), batch_dims=batch_dims, mode=mode,
                         fill_value=fill_value, wrap_negative=wrap_negative)


@gather_p.def_impl
def _gather_impl(x: np.ndarray, *indices: np.ndarray, axes: tuple, batch_dims: int, mode: str,
                 fill_value: Any, wrap_negative: bool) -> np.ndarray:
    if batch_dims == 0 and len(indices) == 1:  # (speed: one index and no batch, the usual)
        a, index = axes[0], indices[0]
        if numpy_checks(index, mode, wrap_negative):
            try:
                if a == 0:
                    return np.asarray(x[index])
                # np.take leaves the index axes in place: a C-ordered result whose view with
                # them first is what we return (x[:, i] reads back C-ordered, as in NumPy)
                k = index.ndim
                return np.moveaxis(np.take(x, index, axis=a), range(a, a + k), range(k))
            except IndexError:
                positions(index, x.shape[a], mode, wrap_negative, "gather", a)  # (raises)
                raise
        p, valid = positions(index, x.shape[a], mode, wrap_negative, "gather", a)
        key: tuple = (p,)
    else:
        key, valid = _index_key(x.shape, indices, axes, batch_dims, mode, wrap_negative,
                                "gather")
    out = np.asarray(slots_view(x, axes, batch_dims)[key])  # (a NumPy scalar made an array)
    if valid is not None:  # what a fill read: a new array, never a write into a view of x
        valid = valid.reshape(valid.shape + (1,) * (out.ndim - valid.ndim))
        out = np.where(valid, out, np.asarray(fill_value, out.dtype))
    return out


@gather_p.def_abstract_eval
def _gather_abstract_eval(x: ShapedArray, *indices: ShapedArray, axes: tuple, batch_dims: int,
                          mode: str, fill_value: Any, wrap_negative: bool) -> ShapedArray:
    return check_operands("gather", x, None, indices, axes, batch_dims, mode)


@gather_p.def_jvp
def _gather_jvp(primals: tuple, tangents: tuple, **params: Any) -> tuple:
    # out_dot = gather(x_dot) (what a fill read is a constant: tangent 0)
    out = gather_p.bind(*primals, **params)
    t = tangents[0]
    if isinstance(t, Zero):
        return out, Zero(get_aval(out))
    return out, gather_p.bind(t, *primals[1:], **{**params, "fill_value": 0})


@gather_p.def_transpose
def _gather_transpose(ct: Any, x: Any, *indices: Any, axes: tuple, batch_dims: int, mode: str,
                      fill_value: Any, wrap_negative: bool) -> tuple:
    # ct_x = scatter_add(0, ct): repeated entries accumulate, dropped ones give nothing
    if any(isinstance(i, UndefPrimal) for i in indices):
        raise TypeError("gather: an index is not a linear operand")
    ct_x = scatter_add_p.bind(zeros(x.aval), instantiate(ct), *indices, axes=axes,
                              batch_dims=batch_dims, mode=mode, wrap_negative=wrap_negative)
    return (ct_x, *[None] * len(indices))


@gather_p.def_batch
def _gather_batch(axis_size: int, vals: tuple, dims: tuple, *, axes: tuple, batch_dims: int,
                  **params: Any) -> tuple:
    (x, *indices), (xd, *ids), k = vals, dims, batch_dims
    if all(d is None for d in ids):
        # One set of indices for every example: x's batch axis goes last, an axis no index
        # touches (the indexed axes keep their numbers), and stays last in the result.
        x = moveaxis(x, xd, get_aval(x).ndim - 1)
        out = gather_p.bind(x, *indices, axes=axes, batch_dims=k, **params)
        return out, get_aval(out).ndim - 1
    # Batched indices line up after the batch dims (unbatched ones broadcast: views).
    indices = [bdim_to(i, d, k, axis_size) for i, d in zip(indices, ids, strict=True)]
    if xd is None:  # a shared x: the new axis is one more index axis, first after the batch
        return gather_p.bind(x, *indices, axes=axes, batch_dims=k, **params), k
    # Both batched: one more paired batch dim.
    x = moveaxis(x, xd, k)
    return gather_p.bind(x, *indices, axes=tuple(a + 1 for a in axes), batch_dims=k + 1,
                         **params), k


# --------------------------------------------------------------------------- scatter_add

scatter_add_p = Primitive("scatter_add")


def scatter_add(x: Any, updates: Any, indices: Sequence[Any], axes: Sequence[int], *,
                batch_dims: int = 0, mode: str = "raise", wrap_negative: bool = True) -> Any:
    """``x`` with ``updates`` added at the slots ``gather`` reads (repeated slots accumulate;
    NumPy's ``np.add.at``).

    >>> import numpy as np
    >>> from minigrad.ops.gather import scatter_add
    >>> scatter_add(np.zeros(3), np.array([1., 2., 4.]), [np.array([0, 0, -1])], [0])
    Array([3., 0., 4.], dtype=float64)
    """
    return scatter_add_p.bind(x, updates, *indices, axes=tuple(axes), batch_dims=batch_dims,
                              mode=mode, wrap_negative=wrap_negative)


def _one_slot(ufunc: np.ufunc, view: np.ndarray, index: np.ndarray, updates: np.ndarray
              ) -> None:
    """``ufunc.at(view, index, updates)`` for a 0-d ``index`` (one slot, so no repeats to
    combine in order): the same ufunc on the slot, without ufunc.at's ~5 us of set-up
    (x.at[i].add(v)). tests/test_gather_scatter.py checks it equal to ufunc.at."""
    slot = view[int(index), None]  # (a view of the slot with its axis: array arithmetic,
    ufunc(slot, updates, out=slot)  # warnings and wrapping as ufunc.at's, not a scalar's)


def scatter_impl(combine: Any, op: str) -> Any:
    """The impl of the scatter ``op``: a copy of ``x`` (never ``x`` itself) with ``updates``
    combined into its slots by ``combine(view, key, updates)``, after the dropped updates (mode
    "fill") are taken out."""

    ufunc = getattr(combine, "__self__", None)  # (ufunc.at's ufunc, for one_slot)
    one_slot = partial(_one_slot, ufunc) if isinstance(ufunc, np.ufunc) else combine

    def impl(x: np.ndarray, updates: np.ndarray, *indices: np.ndarray, axes: tuple,
             batch_dims: int, mode: str, wrap_negative: bool) -> np.ndarray:
        out = x.copy()
        if batch_dims == 0 and len(indices) == 1:  # (speed: one index and no batch, the
            a, index = axes[0], indices[0]  # usual: ufunc.at takes a bare index faster)
            view = out if a == 0 else np.moveaxis(out, a, 0)
            if mode == "raise" and wrap_negative and index.dtype != np.uint64:  # numpy_checks
                try:
                    (one_slot if index.ndim == 0 else combine)(view, index, updates)
                except IndexError:
                    positions(index, x.shape[a], mode, wrap_negative, op, a)  # (raises)
                    raise
                return out
            p, valid = positions(index, x.shape[a], mode, wrap_negative, op, a)
            if valid is None:
                combine(view, p, updates)
            else:
                combine(view, p[valid], updates[valid])
            return out
        key, valid = _index_key(x.shape, indices, axes, batch_dims, mode, wrap_negative, op)
        if valid is not None:
            key = tuple(np.broadcast_to(k, valid.shape)[valid] for k in key)
            updates = updates[valid]
        combine(slots_view(out, axes, batch_dims), key, updates)
        return out

    impl.__name__ = impl.__qualname__ = f"{op}_impl"
    return impl


_add_at = np.add.at  # (ufunc.at: repeated slots accumulate, in order)


scatter_add_p.def_impl(scatter_impl(_add_at, "scatter_add"))


def scatter_abstract_eval(op: str, x: ShapedArray, updates: ShapedArray,
                          *indices: ShapedArray, axes: tuple, batch_dims: int, mode: str,
                          wrap_negative: bool) -> ShapedArray:
    check_operands(op, x, updates, indices, axes, batch_dims, mode)
    return x


scatter_add_p.def_abstract_eval(partial(scatter_abstract_eval, "scatter_add"))


@scatter_add_p.def_jvp
def _scatter_add_jvp(primals: tuple, tangents: tuple, **params: Any) -> tuple:
    # out_dot = scatter_add(x_dot, updates_dot)
    (x, updates, *indices), (tx, tu, *_) = primals, tangents
    out = scatter_add_p.bind(x, updates, *indices, **params)
    if isinstance(tu, Zero):
        return out, tx
    return out, scatter_add_p.bind(instantiate(tx), tu, *indices, **params)


@scatter_add_p.def_transpose
def _scatter_add_transpose(ct: Any, x: Any, updates: Any, *indices: Any, axes: tuple,
                           batch_dims: int, mode: str, wrap_negative: bool) -> tuple:
    # ct_x = ct; ct_updates = gather(ct), 0 for a dropped update
    if any(isinstance(i, UndefPrimal) for i in indices):
        raise TypeError("scatter_add: an index is not a linear operand")
    ct = instantiate(ct)
    ct_u = None
    if isinstance(updates, UndefPrimal):
        ct_u = gather_p.bind(ct, *indices, axes=axes, batch_dims=batch_dims, mode=mode,
                             fill_value=0, wrap_negative=wrap_negative)
    return (ct if isinstance(x, UndefPrimal) else None), ct_u, *[None] * len(indices)


def scatter_batch(prim: Primitive, axis_size: int, vals: tuple, dims: tuple, *, axes: tuple,
                  batch_dims: int, **params: Any) -> tuple:
    """The batching rule of every scatter."""
    (x, updates, *indices), (xd, ud, *ids), k = vals, dims, batch_dims
    if all(d is None for d in ids):
        # One set of indices for every example: the batch axis goes last in x and in
        # updates, an axis no index touches (unbatched operands broadcast).
        x = bdim_to(x, xd, get_aval(x).ndim - (xd is not None), axis_size)
        updates = bdim_to(updates, ud, get_aval(updates).ndim - (ud is not None), axis_size)
        out = prim.bind(x, updates, *indices, axes=axes, batch_dims=k, **params)
        return out, get_aval(out).ndim - 1
    # Batched indices: every operand gets the batch axis as one more paired batch dim.
    x, updates = bdim_to(x, xd, k, axis_size), bdim_to(updates, ud, k, axis_size)
    indices = [bdim_to(i, d, k, axis_size) for i, d in zip(indices, ids, strict=True)]
    return prim.bind(x, updates, *indices, axes=tuple(a + 1 for a in axes), batch_dims=k + 1,
                     **params), k


scatter_add_p.def_batch(partial(scatter_batch, scatter_add_p))

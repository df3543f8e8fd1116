"""Support primitives for the five indexing ops: ``check_index``, ``index_select`` and the
helper that folds a batch axis into an indexed axis.

``index_select`` is the adjoint of ``index_add``: each one's transpose binds the other. Their
files import each other's functions inside the transpose rules only.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad.core import (
    Primitive,
    ShapedArray,
    Tracer,
    UndefPrimal,
    Zero,
    current_trace,
    eval_trace,
    float0,
    get_aval,
)
from minigrad.ops.elementwise import add, convert_element_type
from minigrad.ops.structural import (
    arange,
    bdim_to_front,
    broadcast_in_dim,
    moveaxis,
    reshape,
    vectorized_batch,
    zeros,
)

_SMALL_INDEX = 32


def check_index_values(index: np.ndarray, size: int, op: str, dim: int) -> None:
    """Raise IndexError unless every entry of ``index`` lies in [0, size). NumPy would wrap a
    negative entry; we never do."""
    if index.size <= _SMALL_INDEX:  # a NumPy reduction costs ~1 us; Python's min/max less here
        entries = (index if index.ndim == 1 else index.ravel()).tolist()  # batched: 2-D
        if not entries or (min(entries) >= 0 and max(entries) < size):
            return
    # One reduction: viewed as unsigned, a negative entry is huge, so max() catches it too.
    unsigned = index.view(index.dtype.str.replace("i", "u")) if index.dtype.kind == "i" else index
    if index.size and unsigned.max() >= size:
        bad = index[(index < 0) | (index >= size)].flat[0]
        raise IndexError(f"{op}: index entries must be in [0, {size}) for dim {dim}; got {bad}")


# --------------------------------------------------------------------------- check_index

check_index_p = Primitive("check_index")


def check_index(index: Any, size: int, op: str, dim: int) -> Any:
    """``index`` unchanged, after checking its range: a concrete index is checked now, a traced
    one when its value is known (as the impl of a staged equation, say)."""
    if isinstance(index, np.ndarray):
        check_index_values(index, size, op, dim)
        return index
    return check_index_p.bind(index, size=size, op=op, dim=dim)


@check_index_p.def_impl
def _check_index_impl(index: np.ndarray, *, size: int, op: str, dim: int) -> np.ndarray:
    check_index_values(index, size, op, dim)
    return index


check_index_p.def_abstract_eval(lambda index, *, size, op, dim: index)
check_index_p.def_jvp(lambda primals, tangents, **params: (
    check_index_p.bind(*primals, **params), Zero(ShapedArray(get_aval(primals[0]).shape, float0))))
check_index_p.def_batch(lambda axis_size, vals, dims, **params: vectorized_batch(
    check_index_p, axis_size, vals, dims, **params))


def fold_index(index: Any, bdim: int, size: int, axis_size: int) -> Any:
    """Fold a batched index into one flat index over a batch-major axis of ``axis_size * size``
    entries: entry ``i`` of example ``b`` becomes ``b * size + i``."""
    # In int64: the folded entries reach axis_size * size, beyond what a narrow dtype holds.
    if isinstance(index, np.ndarray):  # concrete: fold it now (as check_index checks it now)
        index = np.moveaxis(index, bdim, 0) if bdim else index  # (np.moveaxis costs ~3 us)
        offsets = np.arange(0, axis_size * size, size, dtype=np.int64)
        return np.add(index, offsets.reshape((axis_size,) + (1,) * (index.ndim - 1)),
                      dtype=np.int64).reshape(-1)
    index = convert_element_type(moveaxis(index, bdim, 0), np.int64)
    offsets = arange(0, axis_size * size, size, np.int64)
    shape = get_aval(index).shape
    return reshape(add(index, broadcast_in_dim(offsets, shape, (0,))),
                   (int(np.prod(shape, dtype=np.int64)),))


def fold_operand(x: Any, bdim: int | None, dim: int, axis_size: int) -> Any:
    """Merge ``x``'s batch axis into axis ``dim``, batch-major: (..., B, n, ...) -> (..., B*n,
    ...). An unbatched ``x`` is broadcast first."""
    x = moveaxis(bdim_to_front(x, bdim, axis_size), 0, dim)
    shape = get_aval(x).shape
    return reshape(x, (*shape[:dim], shape[dim] * shape[dim + 1], *shape[dim + 2:]))


def unfold(x: Any, dim: int, axis_size: int, n: int) -> Any:
    """Split axis ``dim`` of ``x`` (of length B*n) into (B, n): the batch axis lands at
    ``dim``."""
    shape = get_aval(x).shape
    return reshape(x, (*shape[:dim], axis_size, n, *shape[dim + 1:]))


# --------------------------------------------------------------------------- index_select

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
    from minigrad.ops.index_add import index_add_p

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


# --------------------------------------------------------------------------- shared validation
# The index ops check their arguments with these before any work, and name themselves.


def as_array(x: Any, op: str = "", name: str = "") -> Any:
    """An operand of the index ops: tracers and ndarrays pass, anything else becomes one. With
    ``op`` and ``name``, anything that is not an array of numbers or bools (a string, None, an
    object) is a TypeError naming them."""
    out = x if isinstance(x, (Tracer, np.ndarray)) else np.asarray(x)
    if op and out.dtype.kind not in "biufc":
        what = f"dtype {out.dtype}" if isinstance(x, np.ndarray) else type(x).__name__
        raise TypeError(f"{op}: {name} must be an array of numbers or bools; got {what}")
    return out


def logical_shape(x: Any, bdim: int | None) -> tuple[int, ...]:
    """The shape of one example of ``x`` (``x``'s shape without its batch axis)."""
    shape = get_aval(x).shape
    return shape if bdim is None else shape[:bdim] + shape[bdim + 1:]


def canonical_dim(op: str, dim: Any, ndim: int) -> int:
    """``dim`` in [0, max(ndim, 1)): a 0-d ``x`` has one dimension of size 1, as in PyTorch."""
    n = ndim or 1
    if type(dim) is int and 0 <= dim < n:  # the common case, checked cheaply
        return dim
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, (bool, np.bool_)):
        raise TypeError(f"{op}: dim must be an int; got {type(dim).__name__}")
    if not -n <= dim < n:
        raise ValueError(f"{op}: dim must be in [{-n}, {n}) for x of rank {ndim}; got {dim}")
    return int(dim) % n


def canonical_index(op: str, index: Any, size: int, dim: int) -> Any:
    """``index`` as a 1-D integer array (a 0-d index is one entry)."""
    if (type(index) is np.ndarray and index.ndim == 1 and index.dtype.kind in "iu"
            and current_trace() is eval_trace):
        return index  # the common eager case: nothing to convert, the impl checks the range
    if isinstance(index, (list, tuple)) and len(index) == 0:
        index = np.zeros(0, np.int64)  # NumPy would make an empty list float64
    if not isinstance(index, Tracer):
        index = np.asarray(index)
    if index.dtype.kind not in "iu":
        raise TypeError(f"{op}: index must be an integer array; got dtype {index.dtype}")
    if index.ndim > 1:
        raise ValueError(f"{op}: index must have rank 0 or 1; got shape {index.shape}")
    # The range is checked before any work, where the values are known. Eagerly, the impl does
    # it (once). Under a transform a concrete index is checked here, while dim is the user's;
    # a traced one by the impl or, when batched, by the batching rule before it folds.
    if isinstance(index, np.ndarray) and current_trace() is not eval_trace:
        check_index_values(index, size, op, dim)
    return reshape(index, (1,)) if index.ndim == 0 else index


def check_mask(op: str, x: Any, mask: Any) -> tuple[int, ...]:
    """The result shape ``broadcast(x, mask)``, after checking that ``mask`` is a bool array
    (no uint8) that broadcasts with ``x``."""
    if mask.dtype != np.bool_:
        raise TypeError(f"{op}: mask must be a bool array; got dtype {mask.dtype}")
    if mask.shape == x.shape:
        return x.shape  # type: ignore[no-any-return]
    try:
        return tuple(np.broadcast_shapes(x.shape, mask.shape))
    except ValueError:
        raise ValueError(f"{op}: mask must broadcast with x's shape {x.shape}; got shape "
                         f"{mask.shape}") from None


def value_operand(op: str, value: Any, dtype: np.dtype) -> Any:
    """A fill value as a 0-d operand of ``x``'s dtype. A number (or 0-d array) must be held
    exactly by ``dtype``; a traced value must be 0-d and convertible without changing kind
    (float64 into float32 is fine, float into int is not), and stays differentiable."""
    if type(value) is float or type(value) is int:  # the common case: a Python number
        return np.asarray(exact_cast(op, "value", value, dtype), dtype)
    if isinstance(value, Tracer):
        if value.ndim != 0:
            raise ValueError(f"{op}: value must be a Python scalar or a 0-d array; got shape "
                             f"{value.shape}")
        if not np.can_cast(value.dtype, dtype, casting="same_kind"):
            raise TypeError(f"{op}: value must have a dtype that x's dtype {dtype} can hold; "
                            f"got a traced value of dtype {value.dtype}")
        return convert_element_type(value, dtype)
    if isinstance(value, (list, tuple, np.ndarray)) and np.ndim(value) != 0:
        raise ValueError(f"{op}: value must be a Python scalar or a 0-d array; got shape "
                         f"{np.shape(value)}")
    return np.asarray(static_scalar(op, "value", value, dtype), dtype)


def index_source_operands(op: str, x: Any, dim: Any, index: Any, source: Any,
                          scalar_source_rank: int) -> tuple[Any, int, Any, Any, Any]:
    """The checked operands of ``index_add`` and ``index_copy``: ``(x, dim, index, source,
    out_shape)``, with ``dim`` and ``index`` canonical and ``source`` of ``x``'s shape but with
    ``len(index)`` slices along ``dim``. A 0-d ``x`` is one slice of size 1, and PyTorch takes a
    0-d ``source`` for a one-entry index into an ``x`` of rank <= ``scalar_source_rank``: then
    ``x`` and ``source`` come back reshaped to fit, and ``out_shape`` is the shape to give the
    result (it is None when nothing was reshaped)."""
    if (type(x) is np.ndarray and type(source) is np.ndarray and type(index) is np.ndarray
            and type(dim) is int and 0 <= dim < x.ndim and index.ndim == 1
            and index.dtype.kind in "iu" and x.dtype.kind in "biufc" and source.dtype == x.dtype
            and source.shape == x.shape[:dim] + index.shape + x.shape[dim + 1:]
            and current_trace() is eval_trace):
        # The common eager case, all of the checks below at once (they cost ~1 us called one
        # by one). The impl checks the index range.
        return x, dim, index, source, None
    x, source = as_array(x, op, "x"), as_array(source, op, "source")
    dim = canonical_dim(op, dim, x.ndim)
    shape = x.shape or (1,)
    index = canonical_index(op, index, shape[dim], dim)
    check_same_dtype(op, x, "source", source)
    expected = shape[:dim] + index.shape + shape[dim + 1:]
    if source.shape == expected and x.ndim:
        return x, dim, index, source, None
    if source.shape != expected and not (source.shape == () and index.shape == (1,)
                                         and x.ndim <= scalar_source_rank):
        raise ValueError(f"{op}: source must have shape {expected} (x's shape with dim {dim} "
                         f"of size len(index) = {index.shape[0]}); got {source.shape}")
    return reshape(x, shape), dim, index, reshape(source, expected), x.shape


def check_same_dtype(op: str, x: Any, name: str, other: Any) -> None:
    if other.dtype != x.dtype:
        raise TypeError(f"{op}: {name} must have x's dtype {x.dtype}; got {other.dtype}")


def static_scalar(op: str, name: str, value: Any, dtype: np.dtype) -> Any:
    """A Python number that ``dtype`` holds exactly, or a TypeError naming ``op`` and ``name``."""
    if (type(value) is float or type(value) is int) and dtype.kind == "f" and \
            -3e38 <= value <= 3e38:  # the common case: a number every float dtype holds
        return float(value)
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if isinstance(value, np.generic):
        value = value.item()
    if not isinstance(value, (bool, int, float, complex)):
        raise TypeError(f"{op}: {name} must be a Python number; got {type(value).__name__}")
    return exact_cast(op, name, value, dtype)


def exact_cast(op: str, name: str, value: bool | int | float | complex, dtype: np.dtype
               ) -> Any:
    """``value`` as a Python number of ``dtype``'s kind, if ``dtype`` can hold it."""
    try:
        kind = dtype.kind  # a np.dtype, as a rule: this is the fast way to ask
    except AttributeError:
        kind = np.dtype(dtype).kind
    if kind == "f" and not isinstance(value, complex) and -3e38 <= value <= 3e38:
        return float(value)  # fits every float dtype: the common case, cheaply
    if isinstance(value, complex) and kind != "c":
        raise TypeError(f"{op}: {name} must be real for x of dtype {dtype}; got {value}")
    if kind == "c":
        return complex(value)
    assert not isinstance(value, complex)  # ruled out above
    if kind == "b":
        if value not in (0, 1):
            raise TypeError(f"{op}: {name} must be a bool for x of dtype bool; got {value!r}")
        return bool(value)
    if kind in "iu":
        info = np.iinfo(dtype)
        if isinstance(value, float) and not value.is_integer():
            raise TypeError(f"{op}: {name} must be an integer for x of dtype {dtype}; got "
                            f"{value}")
        if not info.min <= value <= info.max:
            raise TypeError(f"{op}: {name} must be in [{info.min}, {info.max}] for x of dtype "
                            f"{dtype}; got {value}")
        return int(value)
    if kind == "f":
        if abs(value) > 3e38 and np.isfinite(value) and abs(value) > float(np.finfo(dtype).max):
            limit = float(np.finfo(dtype).max)
            raise TypeError(f"{op}: {name} must be within x's dtype {dtype} range "
                            f"[{-limit:.4g}, {limit:.4g}]; got {value}")
        return float(value)
    return value


# =========================================================================== masked_gather
# The packing support primitive of masked_scatter: the elements of ``y`` at the true entries of
# ``mask``, in row-major order, in a 1-D array of static length ``n`` padded with zeros. It is
# the transpose of masked_scatter in its source operand, and masked_scatter(0, mask, ct) is its
# transpose. ``batch_dims`` leading axes of every operand pair up example by example (JAX's
# operand batching dims): each example packs its own row, which is what the batching rules bind.


def mask_counts(mask: np.ndarray, batch_dims: int) -> np.ndarray:
    """The number of true entries of each example of ``mask`` (its first ``batch_dims`` axes
    index the examples), as a 1-D array in row-major order of the examples."""
    rows = math.prod(mask.shape[:batch_dims])
    return mask.reshape(rows, math.prod(mask.shape[batch_dims:])).sum(axis=1)


def packed_slots(counts: np.ndarray, n: int) -> np.ndarray:
    """A bool (examples, n) matrix, True at the first ``counts[e]`` slots of row ``e``: the
    slots that example ``e``'s true mask entries fill, in order."""
    return np.arange(n) < counts[:, None]


def first_overfull(counts: np.ndarray, n: int, lead: tuple[int, ...]
                   ) -> tuple[int, str] | None:
    """(count, where) for the first example with more than ``n`` true entries, else None;
    ``where`` names the example when there are batch axes (shape ``lead``)."""
    if not counts.size or counts.max() <= n:  # the common case, in one reduction
        return None
    over = np.flatnonzero(counts > n)
    row = int(over[0])
    where = f" of example {tuple(int(i) for i in np.unravel_index(row, lead))}" if lead else ""
    return int(counts[row]), where


masked_gather_p = Primitive("masked_gather")


def masked_gather(y: Any, mask: Any, n: int) -> Any:
    """The elements of ``y`` where the bool ``mask`` (of ``y``'s shape) is true, in row-major
    order, packed into a 1-D array of length ``n`` and padded with zeros.

    >>> import numpy as np
    >>> from minigrad.ops.gather import masked_gather
    >>> masked_gather(np.array([1., 2., 3.]), np.array([True, False, True]), 4)
    array([1., 3., 0., 0.])
    """
    y, mask = as_array(y, "masked_gather", "y"), as_array(mask, "masked_gather", "mask")
    if get_aval(mask).dtype != np.bool_:
        raise TypeError(f"masked_gather: mask must be a bool array; got dtype "
                        f"{get_aval(mask).dtype}")
    if get_aval(mask).shape != get_aval(y).shape:
        raise ValueError(f"masked_gather: mask must have y's shape {get_aval(y).shape}; got "
                         f"{get_aval(mask).shape}")
    if not isinstance(n, (int, np.integer)) or isinstance(n, (bool, np.bool_)) or n < 0:
        raise TypeError(f"masked_gather: n must be a non-negative int; got {n!r}")
    if isinstance(mask, np.ndarray) and int(np.count_nonzero(mask)) > n:
        raise ValueError(f"masked_gather: n must be at least {np.count_nonzero(mask)} (the "
                         f"number of true entries of mask); got {n}")
    return masked_gather_p.bind(y, mask, n=int(n), batch_dims=0)


@masked_gather_p.def_impl
def _masked_gather_impl(y: np.ndarray, mask: np.ndarray, *, n: int, batch_dims: int
                        ) -> np.ndarray:
    if batch_dims == 0:  # one example: its true entries, in row-major order, fill out[:count]
        count = np.count_nonzero(mask)
        if count > n:
            raise ValueError(f"masked_gather: n must be at least {count} (the number of true "
                             f"entries of mask); got {n}")
        out = np.zeros(n, y.dtype)
        out[:count] = np.asarray(y)[mask]
        return out
    counts = mask_counts(mask, batch_dims)
    lead = mask.shape[:batch_dims]
    over = first_overfull(counts, n, lead)
    if over is not None:
        raise ValueError(f"masked_gather: n must be at least {over[0]} (the number of true "
                         f"entries of mask{over[1]}); got {n}")
    out = np.zeros((counts.shape[0], n), y.dtype)
    # Both boolean indexings run in row-major order, example by example: y's true entries land
    # in the first counts[e] slots of row e.
    out[packed_slots(counts, n)] = np.asarray(y)[mask]
    return out.reshape((*lead, n))


@masked_gather_p.def_abstract_eval
def _masked_gather_abstract_eval(y: ShapedArray, mask: ShapedArray, *, n: int, batch_dims: int
                                 ) -> ShapedArray:
    if mask.dtype != np.bool_ or mask.shape != y.shape or not 0 <= batch_dims <= y.ndim:
        raise TypeError(f"masked_gather: operands {y.str_short()}, {mask.str_short()} do not "
                        f"fit batch_dims={batch_dims} (mask must be bool of y's shape)")
    return ShapedArray((*y.shape[:batch_dims], n), y.dtype)


@masked_gather_p.def_jvp
def _masked_gather_jvp(primals: tuple, tangents: tuple, *, n: int, batch_dims: int) -> tuple:
    # out_dot = masked_gather(y_dot, mask, n)
    (y, mask), (y_dot, _) = primals, tangents
    return (masked_gather_p.bind(y, mask, n=n, batch_dims=batch_dims),
            masked_gather_p.bind(y_dot, mask, n=n, batch_dims=batch_dims))


@masked_gather_p.def_transpose
def _masked_gather_transpose(ct: Any, y: Any, mask: Any, *, n: int, batch_dims: int) -> tuple:
    # ct_y = masked_scatter(0, mask, ct)
    from minigrad.ops.masked_scatter import masked_scatter_p

    if isinstance(mask, UndefPrimal):
        raise TypeError("masked_gather: mask is not a linear operand")
    ct_y = masked_scatter_p.bind(zeros(y.aval), mask, ct, batch_dims=batch_dims)
    return ct_y, None


@masked_gather_p.def_batch
def _masked_gather_batch(axis_size: int, vals: tuple, dims: tuple, *, n: int, batch_dims: int
                         ) -> tuple:
    # Every example packs its own row, so the batch becomes one more leading batch axis. A shared
    # mask is broadcast (a view: nothing is replicated).
    (y, mask), (yd, md) = vals, dims
    y, mask = bdim_to_front(y, yd, axis_size), bdim_to_front(mask, md, axis_size)
    return masked_gather_p.bind(y, mask, n=n, batch_dims=batch_dims + 1), 0

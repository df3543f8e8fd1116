"""What the five indexing ops share: the ``check_index`` primitive (an index's range, checked
when its value is known), the helpers that fold a batch axis into an indexed axis, and the
argument checks every user function runs before any work.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad.core import (
    NATIVE_DTYPES,
    Primitive,
    ShapedArray,
    Tracer,
    Zero,
    _get_current,
    current_trace,
    eval_trace,
    float0,
    get_aval,
    native,
)
from minigrad.ops.elementwise import add, convert_element_type
from minigrad.ops.structural import (
    arange,
    bdim_to_front,
    broadcast_in_dim,
    moveaxis,
    reshape,
    vectorized_batch,
)


def check_index_values(index: np.ndarray, size: int, op: str, dim: int) -> None:
    """Raise IndexError unless every entry of ``index`` lies in [0, size). NumPy would wrap a
    negative entry; we never do."""
    if index.ndim == 1 and index.size <= _SMALL_INDEX:  # (index_in_range's first case, inline)
        entries = index.tolist()
        entries.sort()  # (then the ends are the extremes: cheaper than min() and max())
        if not entries or (entries[0] >= 0 and entries[-1] < size):
            return
    if not index_in_range(index, size):  # the same as ((index >= 0) & (index < size)).all()
        bad = index[(index < 0) | (index >= size)].flat[0]
        raise IndexError(f"{op}: index entries must be in [0, {size}) for dim {dim}; got {bad}")


# --- speed: the range test in one cheap pass. Without it (the plain two comparisons, an AND
# and an all()) vmap(grad) of the benchmark workload runs 3.1% more instructions at B=1.
# tests/test_primitives.py checks it against the plain formula.
_SMALL_INDEX = 32


def index_in_range(index: np.ndarray, size: int) -> bool:
    """Whether every entry of the integer ``index`` lies in [0, size)."""
    if index.size <= _SMALL_INDEX:  # a sorted Python list beats a NumPy reduction here
        entries = index.tolist() if index.ndim == 1 else index.ravel().tolist()
        entries.sort()
        return not entries or (entries[0] >= 0 and entries[-1] < size)
    if index.dtype.kind == "u":
        return bool(index.max() < size)
    # One reduction: viewed as unsigned, a negative entry becomes at least 2**(bits-1), so max()
    # catches it too, but only if size <= 2**(bits-1). A larger size is beyond every entry of
    # the signed dtype (int8 into 300 slices): then only the sign is left to check.
    if size > _SIGNED_MAX[index.dtype.itemsize]:
        return bool(index.min() >= 0)
    return bool(index.view(index.dtype.str.replace("i", "u")).max() < size)


# the largest value of the signed integer dtype of each itemsize
_SIGNED_MAX = {n: 2 ** (8 * n - 1) - 1 for n in (1, 2, 4, 8)}


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
    if isinstance(index, np.ndarray):
        return fold_concrete_index(index, bdim, size, axis_size)
    # In int64: the folded entries reach axis_size * size, beyond what a narrow dtype holds.
    index = convert_element_type(moveaxis(index, bdim, 0), np.int64)
    offsets = arange(0, axis_size * size, size, np.int64)
    shape = get_aval(index).shape
    return reshape(add(index, broadcast_in_dim(offsets, shape, (0,))),
                   (int(np.prod(shape, dtype=np.int64)),))


# --- speed: an index known when the rule runs (a constant: there is nothing to trace or
# differentiate) is folded with NumPy on the spot instead of with six binds. Without it,
# vmap(grad) of the benchmark workload runs 13% more instructions at B=1. tests/test_vmap.py
# checks it against the binds.
def fold_concrete_index(index: np.ndarray, bdim: int, size: int, axis_size: int
                        ) -> np.ndarray:
    index = np.moveaxis(index, bdim, 0) if bdim else index
    offsets = np.arange(0, axis_size * size, size, dtype=np.int64)
    return np.add(index, offsets.reshape((axis_size,) + (1,) * (index.ndim - 1)),
                  dtype=np.int64).reshape(-1)


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


# --------------------------------------------------------------------------- shared validation
# The index ops check their arguments with these before any work, and name themselves.

# --- speed: eager calls mostly pass arguments the checks would leave as they are (NumPy
# arrays, a dim in range, a 1-D integer index, a mask of x's shape). These two tests say so
# in a few attribute reads, and the ops then skip the conversions: on the benchmark's small
# input the eager in-place variants cost 1.6-2.9 us over plain NumPy with them, 2.2-3.6 us
# without. Every test of the ops' errors runs through them (tests/test_bad_inputs.py).
def canonical_eagerly(x: Any, dim: Any, index: Any) -> bool:
    """Whether, eagerly, ``x``, ``dim`` and ``index`` are already what the checks would make of
    them (the index's range is then checked by the impl)."""
    return (type(x) is type(index) is np.ndarray and type(dim) is int and 0 <= dim < x.ndim
            and index.ndim == 1 and index.dtype.kind in "iu" and x.dtype in NATIVE_DTYPES
            and _get_current() is eval_trace)  # (a stale context: the slow path, still right)


def mask_canonical(x: Any, mask: Any) -> bool:
    """Whether ``x`` and ``mask`` are NumPy arrays of one shape, ``mask`` a bool one: what the
    checks would leave as they are."""
    return (type(x) is type(mask) is np.ndarray and mask.shape == x.shape
            and mask.dtype == np.bool_ and x.dtype in NATIVE_DTYPES)



def as_array(x: Any, op: str = "", name: str = "") -> Any:
    """An operand of the index ops: tracers and ndarrays pass, anything else becomes one. With
    ``op`` and ``name``, anything that is not an array of numbers or bools (a string, None, an
    object) is a TypeError naming them."""
    out = x if isinstance(x, (Tracer, np.ndarray)) else np.asarray(x)
    if not isinstance(out, Tracer):
        out = native(out)  # (a big-endian array becomes a native copy)
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
    if type(dim) is int and 0 <= dim < n:  # already canonical, as it usually is
        return dim
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, (bool, np.bool_)):
        raise TypeError(f"{op}: dim must be an int; got {type(dim).__name__}")
    if not -n <= dim < n:
        raise ValueError(f"{op}: dim must be in [{-n}, {n}) for x of rank {ndim}; got {dim}")
    return int(dim) % n


def canonical_index(op: str, index: Any, size: int, dim: int) -> Any:
    """``index`` as a 1-D integer array (a 0-d index is one entry)."""
    if isinstance(index, (list, tuple)) and len(index) == 0:
        index = np.zeros(0, np.int64)  # NumPy would make an empty list float64
    if not isinstance(index, Tracer):
        index = native(np.asarray(index))
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
    if type(value) is float or type(value) is int:  # a Python number: nothing to unwrap
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
    if (canonical_eagerly(x, dim, index) and type(source) is np.ndarray
            and source.dtype == x.dtype):
        shape = x.shape  # (each .shape makes a new tuple)
        if source.shape == shape[:dim] + index.shape + shape[dim + 1:]:
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


# --- speed: the casts of the Python ints seen (index_add's alpha=1 into float64, mostly),
# kept: an eager index_add_ costs 0.2-0.3 us less. (Not floats: -0.0 and 0.0 are equal keys.)
_INT_CASTS: dict[tuple, Any] = {}


def static_scalar(op: str, name: str, value: Any, dtype: np.dtype) -> Any:
    """A Python number that ``dtype`` holds exactly, or a TypeError naming ``op`` and ``name``."""
    if type(value) is int:
        key = (value, dtype)
        cast = _INT_CASTS.get(key)
        if cast is None:
            cast = exact_cast(op, name, value, dtype)  # (raises before anything is stored)
            if len(_INT_CASTS) < 256:
                _INT_CASTS[key] = cast
        return cast
    if type(value) is float:  # nothing to unwrap
        return exact_cast(op, name, value, dtype)
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if isinstance(value, np.generic):
        value = value.item()
    if not isinstance(value, (bool, int, float, complex)):
        raise TypeError(f"{op}: {name} must be a Python number; got {type(value).__name__}")
    return exact_cast(op, name, value, dtype)


# The largest finite values of the float dtypes (np.finfo takes microseconds to ask).
_FLOAT_MAX = {np.dtype(t): float(np.finfo(t).max) for t in (np.float16, np.float32, np.float64)}


def exact_cast(op: str, name: str, value: bool | int | float | complex, dtype: np.dtype
               ) -> Any:
    """``value`` as a Python number of ``dtype``'s kind, if ``dtype`` can hold it."""
    kind = getattr(dtype, "kind", None)
    if kind is None:  # a scalar type (np.float32), not a dtype
        dtype = np.dtype(dtype)
        kind = dtype.kind
    if kind == "f" and not isinstance(value, complex):  # the usual case first
        limit = _FLOAT_MAX.get(dtype) or float(np.finfo(dtype).max)
        if math.isfinite(value) and abs(value) > limit:
            raise TypeError(f"{op}: {name} must be within x's dtype {dtype} range "
                            f"[{-limit:.4g}, {limit:.4g}]; got {value}")
        return float(value)
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
    return value

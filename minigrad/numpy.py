"""NumPy-flavoured user functions over minigrad's primitives.

These resolve what the primitives leave to the caller: NumPy broadcasting, dtype promotion (a
Python scalar takes the array's dtype, so float32 stays float32: NumPy 2's rule), negative axes,
``-1`` in shapes. They work on ndarrays and on tracers alike.
"""

from __future__ import annotations

import builtins
import functools
from typing import Any, Callable, Sequence

import numpy as np

from minigrad.core import Tracer, get_aval, native
from minigrad.ops import elementwise as ew
from minigrad.ops import structural as st
from minigrad.ops.index_add import index_add, index_select
from minigrad.ops.index_copy import index_copy
from minigrad.ops.index_fill import index_fill
from minigrad.ops.masked_fill import masked_fill
from minigrad.ops.masked_scatter import masked_scatter
from minigrad.rebind import note_view

ArrayLike = Any


def _is_array(x: Any) -> bool:
    return isinstance(x, (Tracer, np.ndarray, np.generic))


def asarray(x: ArrayLike, dtype: Any = None) -> Any:
    """Tracers pass through (converted if ``dtype`` differs); anything else becomes an ndarray."""
    if isinstance(x, Tracer):
        return x if dtype is None else ew.convert_element_type(x, dtype)
    out = np.asarray(x, dtype=dtype)
    if out.dtype == object:
        raise TypeError(f"expected an array or a number; got {type(x).__name__}")
    return native(out)  # (a big-endian array becomes a native copy)


def _result_dtype(*xs: ArrayLike) -> np.dtype:
    # Python scalars are "weak" under NumPy 2: they adopt the arrays' dtype.
    return np.result_type(*[x.dtype if _is_array(x) else x for x in xs])


def _broadcast_shapes(name: str, *shapes: tuple[int, ...]) -> tuple[int, ...]:
    """``np.broadcast_shapes``, with an error naming the function instead of NumPy's."""
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise ValueError(f"{name}: operands must broadcast together (equal sizes or 1 in each "
                         f"axis, aligned from the right); got shapes "
                         f"{', '.join(map(str, shapes))}") from None


def _promote(*xs: ArrayLike, dtype: np.dtype | None = None, name: str = "broadcast"
             ) -> list[Any]:
    """Convert to one dtype and broadcast to one shape, NumPy's way."""
    dtype = _result_dtype(*xs) if dtype is None else dtype
    arrays = [asarray(x, dtype) if not _is_array(x) else ew.convert_element_type(x, dtype)
              for x in xs]
    shapes = [get_aval(a).shape for a in arrays]
    if builtins.all(s == shapes[0] for s in shapes):  # nothing to broadcast: the common case
        return arrays
    shape = _broadcast_shapes(name, *shapes)
    # (the shapes are checked: straight to the structural op)
    return [a if s == shape else st.broadcast_to(a, shape)
            for a, s in zip(arrays, shapes, strict=True)]


def _float_dtype(*xs: ArrayLike) -> np.dtype:
    dtype = _result_dtype(*xs)
    return dtype if dtype.kind in "fc" else np.dtype(np.float64)  # floating or complex


def _view(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn``'s result is what NumPy makes a view of its first argument: recorded when that is
    a tracer, so an in-place update under a transform can refuse what it cannot express
    (``minigrad.rebind``)."""
    @functools.wraps(fn)
    def view(x: Any, *args: Any, **kwargs: Any) -> Any:
        out = fn(x, *args, **kwargs)
        return note_view(out, x) if isinstance(x, Tracer) else out

    return view


@_view
def broadcast_to(x: ArrayLike, shape: Sequence[int]) -> Any:
    x = asarray(x)
    shape = tuple(shape)
    xshape = get_aval(x).shape
    ok = len(xshape) <= len(shape) and builtins.all(
        a in (1, b) for a, b in zip(xshape, shape[len(shape) - len(xshape):], strict=True))
    if not ok:
        raise ValueError(f"broadcast_to: cannot broadcast shape {xshape} to {shape}")
    return st.broadcast_to(x, shape)


def _binary(prim_fn: Callable[[Any, Any], Any], float_only: bool = False
            ) -> Callable[[ArrayLike, ArrayLike], Any]:
    def fn(x: ArrayLike, y: ArrayLike) -> Any:
        dtype = _float_dtype(x, y) if float_only else None
        return prim_fn(*_promote(x, y, dtype=dtype, name=fn.__name__))

    fn.__name__ = prim_fn.__name__
    return fn


def _unary(prim_fn: Callable[[Any], Any], float_only: bool = True) -> Callable[[ArrayLike], Any]:
    def fn(x: ArrayLike) -> Any:
        x = asarray(x)
        if float_only and get_aval(x).dtype.kind not in "fc":  # _float_dtype(x), for one x
            x = ew.convert_element_type(x, np.float64)
        return prim_fn(x)

    fn.__name__ = prim_fn.__name__
    return fn


add = _binary(ew.add)
subtract = _binary(ew.sub)
multiply = _binary(ew.mul)
divide = true_divide = _binary(ew.div, float_only=True)
_power = _binary(ew.pow_)


def power(x: ArrayLike, y: ArrayLike) -> Any:
    """``x ** y``; a Python int exponent uses the cheaper ``integer_pow``."""
    if isinstance(y, int) and not isinstance(y, bool) and _is_array(x):
        dtype = get_aval(x).dtype
        if y < 0 and not np.issubdtype(dtype, np.inexact):
            raise ValueError("power: integers to negative integer powers are not allowed")
        return ew.integer_pow(x, y)
    return _power(x, y)


maximum = _binary(ew.maximum)
equal = _binary(ew.eq)
not_equal = _binary(ew.ne)
less = _binary(ew.lt)
less_equal = _binary(ew.le)
greater = _binary(ew.gt)
greater_equal = _binary(ew.ge)
negative = _unary(ew.neg, float_only=False)
exp = _unary(ew.exp)
log = _unary(ew.log)
sin = _unary(ew.sin)
cos = _unary(ew.cos)
tanh = _unary(ew.tanh)
sqrt = _unary(ew.sqrt)


def minimum(x: ArrayLike, y: ArrayLike) -> Any:
    x, y = _promote(x, y)  # first, so that a Python scalar takes the array's dtype
    if np.issubdtype(get_aval(x).dtype, np.inexact):
        return negative(maximum(negative(x), negative(y)))  # max's tie and NaN semantics
    return ew.select(ew.le(x, y), x, y)  # integers and bools: negation would wrap


def square(x: ArrayLike) -> Any:
    x = asarray(x)
    return multiply(x, x)


def where(condition: ArrayLike, x: ArrayLike, y: ArrayLike) -> Any:
    """``x`` where ``condition`` holds, else ``y``, with NumPy broadcasting."""
    condition = asarray(condition)
    if get_aval(condition).dtype != np.bool_:
        condition = not_equal(condition, 0)
    x, y = _promote(x, y, name="where")
    shape = _broadcast_shapes("where", get_aval(condition).shape, get_aval(x).shape)
    return ew.select(broadcast_to(condition, shape), broadcast_to(x, shape),
                     broadcast_to(y, shape))


def astype(x: ArrayLike, dtype: Any) -> Any:
    return ew.convert_element_type(asarray(x), dtype)


# --------------------------------------------------------------------------- axes and shapes


def _axes(axis: int | Sequence[int] | None, ndim: int, fn: str) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    for a in axes:
        if not -builtins.max(ndim, 1) <= a < builtins.max(ndim, 1) or (ndim == 0 and a not in
                                                                       (0, -1)):
            raise ValueError(f"{fn}: axis {a} is out of range for an array of rank {ndim}")
    out = tuple(sorted(int(a) % ndim for a in axes)) if ndim else ()
    if len(set(out)) != len(out):
        raise ValueError(f"{fn}: axes must be distinct; got {axis}")
    return out


def _keep(x: Any, axes: tuple[int, ...], keepdims: bool) -> Any:
    return st.expand_dims(x, axes) if keepdims else x


def sum(x: ArrayLike, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> Any:
    x = asarray(x)
    axes = _axes(axis, get_aval(x).ndim, "sum")
    if get_aval(x).dtype == np.bool_:
        x = ew.convert_element_type(x, np.int64)
    return _keep(st.reduce_sum(x, axes), axes, keepdims)


def max(x: ArrayLike, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> Any:
    x = asarray(x)
    axes = _axes(axis, get_aval(x).ndim, "max")
    return _keep(ew.reduce_max(x, axes), axes, keepdims)


def mean(x: ArrayLike, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> Any:
    x = asarray(x)
    aval = get_aval(x)
    axes = _axes(axis, aval.ndim, "mean")
    count = int(np.prod([aval.shape[a] for a in axes], dtype=np.int64))
    x = ew.convert_element_type(x, _float_dtype(x))
    return divide(sum(x, axes, keepdims), count)


@_view
def reshape(x: ArrayLike, newshape: int | Sequence[int], *more: int) -> Any:
    x = asarray(x)
    shape = [newshape, *more] if isinstance(newshape, (int, np.integer)) else list(newshape)
    size = get_aval(x).size
    if shape.count(-1) > 1:
        raise ValueError(f"reshape: at most one -1 in the new shape; got {tuple(shape)}")
    if -1 in shape:
        rest = int(np.prod([s for s in shape if s != -1], dtype=np.int64))
        shape[shape.index(-1)] = size // rest if rest else 0
    if int(np.prod(shape, dtype=np.int64)) != size:
        raise ValueError(f"reshape: cannot reshape an array of shape {get_aval(x).shape} into "
                         f"shape {tuple(shape)}")
    return st.reshape(x, shape)


def ravel(x: ArrayLike) -> Any:
    return reshape(x, -1)


@_view
def transpose(x: ArrayLike, axes: Sequence[int] | None = None) -> Any:
    x = asarray(x)
    ndim = get_aval(x).ndim
    perm = tuple(reversed(range(ndim))) if axes is None else tuple(a % ndim for a in axes)
    if sorted(perm) != list(range(ndim)):
        raise ValueError(f"transpose: axes must be a permutation of range({ndim}); got {axes}")
    return st.transpose(x, perm)


@_view
def moveaxis(x: ArrayLike, source: int, destination: int) -> Any:
    x = asarray(x)
    ndim = get_aval(x).ndim
    (src,), (dst,) = _axes(source, ndim, "moveaxis"), _axes(destination, ndim, "moveaxis")
    return st.moveaxis(x, src, dst)


@_view
def swapaxes(x: ArrayLike, axis1: int, axis2: int) -> Any:
    x = asarray(x)
    ndim = get_aval(x).ndim
    (a,), (b,) = _axes(axis1, ndim, "swapaxes"), _axes(axis2, ndim, "swapaxes")
    perm = list(range(ndim))
    perm[a], perm[b] = b, a
    return st.transpose(x, perm)


@_view
def squeeze(x: ArrayLike, axis: int | Sequence[int] | None = None) -> Any:
    x = asarray(x)
    shape = get_aval(x).shape
    if axis is None:
        return st.squeeze(x, [i for i, s in enumerate(shape) if s == 1])
    axes = _axes(axis, len(shape), "squeeze")
    if any(shape[a] != 1 for a in axes):
        raise ValueError(f"squeeze: can only squeeze axes of size 1; got axis {axis} of shape "
                         f"{shape}")
    return st.squeeze(x, axes)


@_view
def expand_dims(x: ArrayLike, axis: int | Sequence[int]) -> Any:
    x = asarray(x)
    n = len(axis) if isinstance(axis, (tuple, list)) else 1
    return st.expand_dims(x, _axes(axis, get_aval(x).ndim + n, "expand_dims"))


def concatenate(arrays: Sequence[ArrayLike], axis: int = 0) -> Any:
    if not arrays:
        raise ValueError("concatenate: needs at least one array")
    xs = [asarray(a) for a in arrays]
    dtype = _result_dtype(*xs)
    xs = [ew.convert_element_type(a, dtype) for a in xs]
    ndim = get_aval(xs[0]).ndim
    if ndim == 0:
        raise ValueError("concatenate: zero-dimensional arrays cannot be concatenated")
    (ax,) = _axes(axis, ndim, "concatenate")
    return st.concatenate(xs, ax)


def stack(arrays: Sequence[ArrayLike], axis: int = 0) -> Any:
    if not arrays:
        raise ValueError("stack: needs at least one array")
    xs = [asarray(a) for a in arrays]
    shapes = {get_aval(a).shape for a in xs}
    if len(shapes) != 1:
        raise ValueError(f"stack: all arrays must have the same shape; got {sorted(shapes)}")
    (ax,) = _axes(axis, get_aval(xs[0]).ndim + 1, "stack")
    return concatenate([st.expand_dims(a, (ax,)) for a in xs], ax)


def cumsum(x: ArrayLike, axis: int | None = None) -> Any:
    x = asarray(x)
    if axis is None:
        x, axis = ravel(x), 0
    if get_aval(x).dtype == np.bool_:
        x = ew.convert_element_type(x, np.int64)
    (ax,) = _axes(axis, get_aval(x).ndim, "cumsum")
    return st.cumsum(x, ax)


def matmul(x: ArrayLike, y: ArrayLike) -> Any:
    """``x @ y`` with NumPy's rules: 1-D operands are vectors, leading axes broadcast."""
    x, y = asarray(x), asarray(y)
    dtype = _result_dtype(x, y)
    x, y = ew.convert_element_type(x, dtype), ew.convert_element_type(y, dtype)
    xs, ys = get_aval(x).shape, get_aval(y).shape
    if not xs or not ys:
        raise ValueError("matmul: operands must be at least 1-D; use multiply for scalars")
    xv, yv = len(xs) == 1, len(ys) == 1
    if xv:
        x, xs = st.reshape(x, (1, *xs)), (1, *xs)
    if yv:
        y, ys = st.reshape(y, (*ys, 1)), (*ys, 1)
    if xs[-1] != ys[-2]:
        raise ValueError(f"matmul: contracted axes differ: {xs} @ {ys}")
    batch = np.broadcast_shapes(xs[:-2], ys[:-2])
    x = broadcast_to(x, (*batch, *xs[-2:]))
    y = broadcast_to(y, (*batch, *ys[-2:]))
    b = "".join(chr(ord("a") + i) for i in range(len(batch)))
    out = ew.dot(x, y, f"{b}ij,{b}jk->{b}ik")
    if xv:
        out = st.squeeze(out, (len(batch),))
    if yv:
        out = st.squeeze(out, (get_aval(out).ndim - 1,))
    return out


def dot(x: ArrayLike, y: ArrayLike) -> Any:
    """NumPy's ``dot`` for operands of rank <= 2 (scalars multiply)."""
    x, y = asarray(x), asarray(y)
    if get_aval(x).ndim == 0 or get_aval(y).ndim == 0:
        return multiply(x, y)
    if get_aval(x).ndim > 2 or get_aval(y).ndim > 2:
        raise ValueError("dot: operands of rank above 2 are not supported; use matmul")
    return matmul(x, y)


def vdot(x: ArrayLike, y: ArrayLike) -> Any:
    return sum(multiply(ravel(x), ravel(y)))


# --------------------------------------------------------------------------- indexing


def _normalize_index_array(idx: Any, n: int, fn: str) -> Any:
    """Wrap NumPy-style negative entries of an integer index array, and reject entries outside
    [-n, n). A traced index is wrapped with primitives; its range is checked by the impl."""
    if isinstance(idx, Tracer):
        if not np.issubdtype(idx.dtype, np.integer):
            raise TypeError(f"{fn}: indices must be integers; got {idx.dtype}")
        if idx.dtype.kind == "u":  # never negative: nothing to wrap
            return idx
        idx = ew.convert_element_type(idx, np.int64)  # n may not fit a narrow dtype (int8)
        return where(less(idx, 0), add(idx, n), idx)
    idx = np.asarray(idx)
    if not np.issubdtype(idx.dtype, np.integer):
        raise TypeError(f"{fn}: indices must be integers; got {idx.dtype}")
    if idx.size and (idx.min() < -n or idx.max() >= n):
        bad = idx[(idx < -n) | (idx >= n)].flat[0]
        raise IndexError(f"{fn}: index {bad} is out of bounds for an axis of size {n}")
    if idx.dtype.kind == "u":  # (a uint64 entry may not fit int64; none is negative)
        return idx
    idx = idx.astype(np.int64, copy=False)  # n may not fit a narrow dtype (int8)
    return np.where(idx < 0, idx + n, idx)


def take(x: ArrayLike, indices: ArrayLike, axis: int | None = None) -> Any:
    """``np.take``: elements of ``x`` along ``axis`` at integer ``indices`` (any shape)."""
    x = asarray(x)
    if axis is None:
        x, axis = ravel(x), 0
    shape = get_aval(x).shape
    (ax,) = _axes(axis, len(shape), "take")
    idx = _normalize_index_array(indices, shape[ax], "take")
    idx_shape = get_aval(idx).shape
    out = index_select(x, ax, reshape(idx, -1))
    return st.reshape(out, (*shape[:ax], *idx_shape, *shape[ax + 1:]))


def getitem(x: ArrayLike, key: Any) -> Any:
    """Basic indexing (ints, slices, None, Ellipsis) and one integer-array index."""
    x = asarray(x)
    key = key if isinstance(key, tuple) else (key,)
    masks = [j for j, k in enumerate(key) if _is_bool_index(k)]
    if masks:
        x, key = _mask_as_index(x, key, masks[0])
    shape = get_aval(x).shape
    n_real = builtins.sum(1 for k in key if k is not None and k is not Ellipsis)
    if n_real > len(shape):
        raise IndexError(f"too many indices for an array of rank {len(shape)}; got {key}")
    # Adjacency of the advanced indices is judged on the key as written: NumPy counts an
    # ellipsis as a separator even when it stands for no axes.
    adv_written = [i for i, k in enumerate(key)
                   if k is not None and k is not Ellipsis and not isinstance(k, slice)]
    n_ellipsis = builtins.sum(1 for k in key if k is Ellipsis)
    if n_ellipsis > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if n_ellipsis:
        i = next(j for j, k in enumerate(key) if k is Ellipsis)
        key = key[:i] + (slice(None),) * (len(shape) - n_real) + key[i + 1:]
    else:
        key = key + (slice(None),) * (len(shape) - n_real)
    arrays = [k for k in key if _is_array(k) or isinstance(k, list)]
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
            limits.append(builtins.max(hi, lo))
            steps.append(step)
        elif isinstance(k, (int, np.integer)) and not isinstance(k, bool):
            if not -n <= k < n:
                raise IndexError(f"index {k} is out of bounds for axis {axis} with size {n}")
            k = int(k) % n
            starts.append(k)
            limits.append(k + 1)
            steps.append(1)
            squeeze_axes.append(axis)
        elif _is_array(k) or isinstance(k, list):
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
        idx_ndim = get_aval(asarray(idx)).ndim
        shifted = tax - builtins.sum(1 for s in squeeze_axes if s < tax)
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
    # basic indexing makes a view in NumPy; an integer-array index, a copy
    return note_view(out, x) if take_at is None and isinstance(x, Tracer) else out


def _is_bool_index(k: Any) -> bool:
    if isinstance(k, (bool, np.bool_)):
        return True
    if isinstance(k, (Tracer, np.ndarray)):
        return k.dtype == np.bool_  # type: ignore[no-any-return]
    return isinstance(k, list) and np.asarray(k).dtype == np.bool_


def _mask_as_index(x: Any, key: tuple, j: int) -> tuple[Any, tuple]:
    """``x[key]`` with the boolean mask ``key[j]`` as NumPy reads it: the integer index of its
    True entries into the axes it covers, merged into one. Only a concrete mask can be read:
    a traced one would make the result's shape depend on values not known while tracing."""
    mask = key[j]
    if isinstance(mask, Tracer):
        raise IndexError("boolean-mask indexing (x[mask]) needs a concrete mask: under a "
                         "transform the mask is traced, and the result's shape would depend "
                         "on its values. Use mnp.where(mask, x, 0) or masked_fill, or pass a "
                         "NumPy mask")
    mask = np.asarray(mask)
    shape = get_aval(x).shape
    if builtins.any(k is Ellipsis for k in key[:j]):  # counted from the end
        after = builtins.sum(1 for k in key[j + 1:] if k is not None and k is not Ellipsis)
        a = len(shape) - after - mask.ndim
    else:
        a = builtins.sum(1 for k in key[:j] if k is not None)
    if a < 0 or shape[a:a + mask.ndim] != mask.shape:
        raise IndexError(f"boolean index of shape {mask.shape} does not match the indexed "
                         f"axes of an array of shape {shape}")
    merged = (*shape[:a], int(np.prod(mask.shape, dtype=np.int64)), *shape[a + mask.ndim:])
    return st.reshape(x, merged), (*key[:j], np.flatnonzero(mask), *key[j + 1:])


def _flipped(lo: int, hi: int, step: int, n: int) -> tuple[int, int, int]:
    # The elements lo, lo+step, ... (step < 0) are, reversed, a positive-step slice.
    count = len(range(lo, hi, step))
    if count == 0:
        return 0, 0, 1
    last = lo + (count - 1) * step
    return last, lo + 1, -step


# --------------------------------------------------------------------------- constructors


def zeros(shape: int | Sequence[int], dtype: Any = np.float64) -> Any:
    return st.full((shape,) if isinstance(shape, int) else shape, 0, dtype)


def ones(shape: int | Sequence[int], dtype: Any = np.float64) -> Any:
    return st.full((shape,) if isinstance(shape, int) else shape, 1, dtype)


def full(shape: int | Sequence[int], fill_value: Any, dtype: Any = None) -> Any:
    dtype = np.asarray(fill_value).dtype if dtype is None else dtype
    return st.full((shape,) if isinstance(shape, int) else shape, fill_value, dtype)


def arange(start: Any, stop: Any = None, step: Any = 1, dtype: Any = None) -> Any:
    """``np.arange``: the dtype follows the arguments unless given (int64 for ints)."""
    if stop is None:
        start, stop = 0, start
    dtype = np.result_type(start, stop, step) if dtype is None else np.dtype(dtype)
    if builtins.all(isinstance(v, (int, np.integer)) for v in (start, stop, step)):
        return st.arange(start, stop, step, dtype)
    # Fractional bounds or step: NumPy's element count, then start + i * step.
    n = np.arange(start, stop, step).size
    return astype(add(multiply(st.arange(0, n, 1, dtype), step), start), dtype)


def zeros_like(x: ArrayLike, dtype: Any = None) -> Any:
    aval = get_aval(asarray(x))
    return st.full(aval.shape, 0, aval.dtype if dtype is None else dtype)


def ones_like(x: ArrayLike, dtype: Any = None) -> Any:
    aval = get_aval(asarray(x))
    return st.full(aval.shape, 1, aval.dtype if dtype is None else dtype)


def full_like(x: ArrayLike, fill_value: Any, dtype: Any = None) -> Any:
    aval = get_aval(asarray(x))
    return st.full(aval.shape, fill_value, aval.dtype if dtype is None else dtype)


# --------------------------------------------------------------------------- NumPy protocols

_UFUNCS: dict[Any, Callable[..., Any]] = {
    np.add: add, np.subtract: subtract, np.multiply: multiply, np.divide: divide,
    np.power: power, np.maximum: maximum, np.minimum: minimum, np.negative: negative,
    np.exp: exp, np.log: log, np.sin: sin, np.cos: cos, np.tanh: tanh, np.sqrt: sqrt,
    np.square: square, np.equal: equal, np.not_equal: not_equal, np.less: less,
    np.less_equal: less_equal, np.greater: greater, np.greater_equal: greater_equal,
    np.matmul: matmul,
}

_FUNCTIONS: dict[Any, Callable[..., Any]] = {
    np.sum: sum, np.max: max, np.amax: max, np.mean: mean, np.reshape: reshape,
    np.ravel: ravel, np.transpose: transpose, np.moveaxis: moveaxis, np.swapaxes: swapaxes,
    np.squeeze: squeeze, np.expand_dims: expand_dims, np.concatenate: concatenate,
    np.stack: stack, np.cumsum: cumsum, np.matmul: matmul, np.dot: dot, np.vdot: vdot,
    np.take: take, np.where: where, np.zeros_like: zeros_like, np.ones_like: ones_like,
    np.full_like: full_like, np.broadcast_to: broadcast_to, np.shape: lambda x: x.shape,
    np.ndim: lambda x: x.ndim, np.size: lambda x: x.size,
}


def _array_ufunc(self: Tracer, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
    fn = _UFUNCS.get(ufunc)
    if fn is None or method != "__call__" or kwargs:
        what = ufunc.__name__ + ("" if method == "__call__" else f".{method}")
        extra = f" with keyword arguments {sorted(kwargs)}" if kwargs and fn else ""
        raise TypeError(f"numpy.{what}{extra} is not supported on minigrad tracers; use the "
                        f"functions in minigrad.numpy")
    return fn(*inputs)


def _array_function(self: Tracer, func: Any, types: Any, args: tuple, kwargs: dict) -> Any:
    fn = _FUNCTIONS.get(func)
    if fn is None:
        name = f"{getattr(func, '__module__', None) or 'numpy'}.{func.__name__}"
        raise TypeError(f"{name} is not supported on minigrad tracers; use the "
                        f"functions in minigrad.numpy")
    return fn(*args, **kwargs)


# --------------------------------------------------------------------------- tracer methods

# The core defines Tracer without arithmetic: the functions above are built on the ops, which
# are built on the core, so they are installed on the class from here (as jax.numpy installs
# its operators), not imported by the core.
_TRACER_METHODS: dict[str, Callable[..., Any]] = {
    "__neg__": negative, "__pos__": lambda x: x,
    "__add__": add, "__radd__": lambda x, o: add(o, x),
    "__sub__": subtract, "__rsub__": lambda x, o: subtract(o, x),
    "__mul__": multiply, "__rmul__": lambda x, o: multiply(o, x),
    "__truediv__": divide, "__rtruediv__": lambda x, o: divide(o, x),
    "__pow__": power, "__rpow__": lambda x, o: power(o, x),
    "__matmul__": matmul, "__rmatmul__": lambda x, o: matmul(o, x),
    "__eq__": equal, "__ne__": not_equal, "__lt__": less, "__le__": less_equal,
    "__gt__": greater, "__ge__": greater_equal, "__getitem__": getitem,
    "__array_ufunc__": _array_ufunc, "__array_function__": _array_function,
    "sum": sum, "max": max, "mean": mean, "reshape": reshape, "transpose": transpose,
    "squeeze": squeeze, "astype": astype, "cumsum": cumsum, "take": take, "ravel": ravel,
    "swapaxes": swapaxes, "dot": dot,
    # the five ops: t.index_add(dim, index, source)
    "index_add": index_add, "index_copy": index_copy, "index_fill": index_fill,
    "masked_fill": masked_fill, "masked_scatter": masked_scatter,
}
for _name, _method in _TRACER_METHODS.items():
    setattr(Tracer, _name, _method)
Tracer.T = property(transpose)  # type: ignore[attr-defined]


__all__ = [name for name in dir() if not name.startswith("_") and name not in
           ("annotations", "builtins", "core", "np", "ew", "st", "Any", "Callable", "Sequence",
            "Tracer", "get_aval", "ArrayLike", "index_select", "index_add", "index_copy",
            "index_fill", "masked_fill", "masked_scatter")]

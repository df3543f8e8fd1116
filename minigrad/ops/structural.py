"""Structural primitives: shapes, axes, reductions, constants, dtype conversion.

Each block: the wrapper, impl, shape rule, JVP, transpose (where linear) and batching rule. The
axis helpers at the top (``moveaxis``, ``bdim_to_front``) are what every batching rule uses.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Sequence

import numpy as np

from minigrad.core import Primitive, ShapedArray, UndefPrimal, Zero, float0, get_aval

Shape = tuple[int, ...]


def _check_dims(name: str, what: str, dims: Sequence[int], ndim: int) -> None:
    if len(set(dims)) != len(dims) or any(not 0 <= d < ndim for d in dims):
        raise ValueError(f"{name}: {what} must be distinct and in [0, {ndim}); got {tuple(dims)}")


# Families of rules shared by the linear structural ops: the JVP applies the op to the tangent.

def linear_jvp(prim: Primitive, primals: tuple, tangents: tuple, **params: Any) -> tuple:
    (x,), (t,) = primals, tangents
    return prim.bind(x, **params), prim.bind(t, **params)


def vectorized_batch(prim: Primitive, axis_size: int, vals: tuple, dims: tuple, **params: Any
                     ) -> tuple:
    (x,), (d,) = vals, dims
    return prim.bind(x, **params), d


# --------------------------------------------------------------------------- transpose (axes)

transpose_p = Primitive("transpose")


def transpose(x: Any, permutation: Sequence[int]) -> Any:
    permutation = tuple(map(int, permutation))
    if permutation == tuple(range(len(permutation))):
        return x
    return transpose_p.bind(x, permutation=permutation)


@transpose_p.def_impl
def _transpose_impl(x: np.ndarray, *, permutation: Shape) -> np.ndarray:
    return np.asarray(x).transpose(permutation)


@transpose_p.def_abstract_eval
def _transpose_abstract_eval(x: ShapedArray, *, permutation: Shape) -> ShapedArray:
    _check_dims("transpose", "permutation", permutation, x.ndim)
    if len(permutation) != x.ndim:
        raise ValueError(f"transpose: permutation must have {x.ndim} entries; got {permutation}")
    return ShapedArray(tuple(x.shape[p] for p in permutation), x.dtype)


transpose_p.def_jvp(partial(linear_jvp, transpose_p))


@transpose_p.def_transpose
def _transpose_transpose(ct: Any, x: UndefPrimal, *, permutation: Shape) -> tuple:
    # ct_x = transpose(ct, argsort(permutation))
    return (transpose(ct, tuple(np.argsort(permutation))),)


@transpose_p.def_batch
def _transpose_batch(axis_size: int, vals: tuple, dims: tuple, *, permutation: Shape) -> tuple:
    (x,), (d,) = vals, dims
    physical = [p if p < d else p + 1 for p in permutation]
    return transpose(x, (d, *physical)), 0


def moveaxis(x: Any, src: int, dst: int) -> Any:
    """Move axis ``src`` of ``x`` to position ``dst`` (both non-negative)."""
    if src == dst:
        return x
    perm = [i for i in range(get_aval(x).ndim) if i != src]
    perm.insert(dst, src)
    return transpose(x, perm)


def bdim_to_front(x: Any, d: int | None, axis_size: int) -> Any:
    """``x`` with its batch axis first; an unbatched ``x`` is broadcast along a new first axis."""
    if d == 0:  # the common case, made cheap
        return x
    if d is None:  # (canonical parameters, and a new axis is never a no-op: bind directly)
        shape = get_aval(x).shape
        return broadcast_in_dim_p.bind(x, shape=(axis_size, *shape),
                                       broadcast_dimensions=tuple(range(1, len(shape) + 1)))
    return moveaxis(x, d, 0)


def bdim_to(x: Any, d: int | None, dst: int, axis_size: int) -> Any:
    """``x`` with its batch axis at ``dst``, broadcasting an unbatched ``x``."""
    return moveaxis(bdim_to_front(x, d, axis_size), 0, dst)


# --------------------------------------------------------------------------- broadcast_in_dim

broadcast_in_dim_p = Primitive("broadcast_in_dim")


def broadcast_in_dim(x: Any, shape: Sequence[int], broadcast_dimensions: Sequence[int]) -> Any:
    """Broadcast ``x`` to ``shape``; axis i of ``x`` becomes axis ``broadcast_dimensions[i]``."""
    shape, bdims = tuple(map(int, shape)), tuple(map(int, broadcast_dimensions))
    if get_aval(x).shape == shape and bdims == tuple(range(len(shape))):
        return x
    return broadcast_in_dim_p.bind(x, shape=shape, broadcast_dimensions=bdims)


def broadcast_to(x: Any, shape: Sequence[int]) -> Any:
    """``x`` broadcast to ``shape`` NumPy-style, trailing axes aligned (shapes not checked)."""
    shape = tuple(shape)
    x_shape = get_aval(x).shape
    if x_shape == shape:
        return x
    return broadcast_in_dim(x, shape, tuple(range(len(shape) - len(x_shape), len(shape))))


@broadcast_in_dim_p.def_impl
def _broadcast_in_dim_impl(x: np.ndarray, *, shape: Shape, broadcast_dimensions: Shape
                           ) -> np.ndarray:
    expanded = [1] * len(shape)
    for i, b in enumerate(broadcast_dimensions):
        expanded[b] = x.shape[i]
    x = np.asarray(x).reshape(expanded)
    # A view either way: nothing in minigrad writes into its operands. np.broadcast_to costs
    # ~3 us, so it is skipped when only unit axes were added.
    if x.shape == shape:
        return x
    if x.flags.c_contiguous and x.size:
        return broadcast_view(x, shape)
    return np.broadcast_to(x, shape)


def broadcast_view(x: np.ndarray, shape: Shape) -> np.ndarray:
    """``np.broadcast_to(x, shape)`` for a C-contiguous ``x`` of ``len(shape)`` axes: the same
    read-only view, as a strided array over x's buffer (speed: 0.5 us where np.broadcast_to's
    Python layers cost 2.7; tests/test_primitives.py checks that the two agree)."""
    strides = tuple(0 if n != m else st for n, m, st in zip(x.shape, shape, x.strides,
                                                            strict=True))
    out = np.ndarray(shape, x.dtype, buffer=x, strides=strides)
    out.flags.writeable = False
    return out


@broadcast_in_dim_p.def_abstract_eval
def _broadcast_in_dim_abstract_eval(x: ShapedArray, *, shape: Shape,
                                    broadcast_dimensions: Shape) -> ShapedArray:
    if len(broadcast_dimensions) != x.ndim:
        raise ValueError(f"broadcast_in_dim: broadcast_dimensions must have {x.ndim} entries; "
                         f"got {broadcast_dimensions}")
    _check_dims("broadcast_in_dim", "broadcast_dimensions", broadcast_dimensions, len(shape))
    if list(broadcast_dimensions) != sorted(broadcast_dimensions) or any(
            x.shape[i] not in (1, shape[b]) for i, b in enumerate(broadcast_dimensions)):
        raise ValueError(f"broadcast_in_dim: cannot broadcast {x.str_short()} to {shape} with "
                         f"broadcast_dimensions={broadcast_dimensions}")
    return ShapedArray(shape, x.dtype)


broadcast_in_dim_p.def_jvp(partial(linear_jvp, broadcast_in_dim_p))


@broadcast_in_dim_p.def_transpose
def _broadcast_in_dim_transpose(ct: Any, x: UndefPrimal, *, shape: Shape,
                                broadcast_dimensions: Shape) -> tuple:
    # ct_x = sum of ct over the new axes and over the axes where x had size 1
    summed = [d for d in range(len(shape)) if d not in broadcast_dimensions]
    summed += [b for i, b in enumerate(broadcast_dimensions)
               if x.aval.shape[i] == 1 and shape[b] != 1]
    return (reshape(reduce_sum(ct, sorted(summed)), x.aval.shape),)


@broadcast_in_dim_p.def_batch
def _broadcast_in_dim_batch(axis_size: int, vals: tuple, dims: tuple, *, shape: Shape,
                            broadcast_dimensions: Shape) -> tuple:
    (x,), (d,) = vals, dims
    x = moveaxis(x, d, 0)
    return broadcast_in_dim(x, (axis_size, *shape),
                            (0, *(b + 1 for b in broadcast_dimensions))), 0


# --------------------------------------------------------------------------- reshape

reshape_p = Primitive("reshape")


def reshape(x: Any, new_sizes: Sequence[int]) -> Any:
    new_sizes = tuple(map(int, new_sizes))
    if get_aval(x).shape == new_sizes:
        return x
    return reshape_p.bind(x, new_sizes=new_sizes)


@reshape_p.def_impl
def _reshape_impl(x: np.ndarray, *, new_sizes: Shape) -> np.ndarray:
    return np.asarray(x).reshape(new_sizes)  # (the method: np.reshape's dispatch costs more)


@reshape_p.def_abstract_eval
def _reshape_abstract_eval(x: ShapedArray, *, new_sizes: Shape) -> ShapedArray:
    if any(s < 0 for s in new_sizes) or int(np.prod(new_sizes, dtype=np.int64)) != x.size:
        raise ValueError(f"reshape: new_sizes must have {x.size} elements; got {new_sizes}")
    return ShapedArray(new_sizes, x.dtype)


reshape_p.def_jvp(partial(linear_jvp, reshape_p))


@reshape_p.def_transpose
def _reshape_transpose(ct: Any, x: UndefPrimal, *, new_sizes: Shape) -> tuple:
    return (reshape(ct, x.aval.shape),)


@reshape_p.def_batch
def _reshape_batch(axis_size: int, vals: tuple, dims: tuple, *, new_sizes: Shape) -> tuple:
    (x,), (d,) = vals, dims
    return reshape(moveaxis(x, d, 0), (axis_size, *new_sizes)), 0


# --------------------------------------------------------------------------- squeeze, expand_dims

squeeze_p = Primitive("squeeze")
expand_dims_p = Primitive("expand_dims")


def squeeze(x: Any, dimensions: Sequence[int]) -> Any:
    dimensions = tuple(sorted(int(d) for d in dimensions))
    return squeeze_p.bind(x, dimensions=dimensions) if dimensions else x


def expand_dims(x: Any, dimensions: Sequence[int]) -> Any:
    dimensions = tuple(sorted(int(d) for d in dimensions))
    return expand_dims_p.bind(x, dimensions=dimensions) if dimensions else x


@squeeze_p.def_impl
def _squeeze_impl(x: np.ndarray, *, dimensions: Shape) -> np.ndarray:
    return np.squeeze(x, dimensions)


@squeeze_p.def_abstract_eval
def _squeeze_abstract_eval(x: ShapedArray, *, dimensions: Shape) -> ShapedArray:
    _check_dims("squeeze", "dimensions", dimensions, x.ndim)
    if any(x.shape[d] != 1 for d in dimensions):
        raise ValueError(f"squeeze: dimensions must have size 1; got {dimensions} of "
                         f"{x.str_short()}")
    return ShapedArray(tuple(s for i, s in enumerate(x.shape) if i not in dimensions), x.dtype)


squeeze_p.def_jvp(partial(linear_jvp, squeeze_p))


@squeeze_p.def_transpose
def _squeeze_transpose(ct: Any, x: UndefPrimal, *, dimensions: Shape) -> tuple:
    return (expand_dims(ct, dimensions),)


@squeeze_p.def_batch
def _squeeze_batch(axis_size: int, vals: tuple, dims: tuple, *, dimensions: Shape) -> tuple:
    (x,), (d,) = vals, dims
    return squeeze(moveaxis(x, d, 0), [i + 1 for i in dimensions]), 0


@expand_dims_p.def_impl
def _expand_dims_impl(x: np.ndarray, *, dimensions: Shape) -> np.ndarray:
    # a view with size-1 axes inserted, as np.expand_dims's, by a reshape: 1.7 -> 0.7 us
    _check_dims("expand_dims", "dimensions", dimensions, x.ndim + len(dimensions))
    shape = list(x.shape)
    for d in sorted(dimensions):
        shape.insert(d, 1)
    return x.reshape(shape)


@expand_dims_p.def_abstract_eval
def _expand_dims_abstract_eval(x: ShapedArray, *, dimensions: Shape) -> ShapedArray:
    ndim = x.ndim + len(dimensions)
    _check_dims("expand_dims", "dimensions", dimensions, ndim)
    shape = iter(x.shape)
    return ShapedArray(tuple(1 if i in dimensions else next(shape) for i in range(ndim)),
                       x.dtype)


expand_dims_p.def_jvp(partial(linear_jvp, expand_dims_p))


@expand_dims_p.def_transpose
def _expand_dims_transpose(ct: Any, x: UndefPrimal, *, dimensions: Shape) -> tuple:
    return (squeeze(ct, dimensions),)


@expand_dims_p.def_batch
def _expand_dims_batch(axis_size: int, vals: tuple, dims: tuple, *, dimensions: Shape
                       ) -> tuple:
    (x,), (d,) = vals, dims
    return expand_dims(moveaxis(x, d, 0), [i + 1 for i in dimensions]), 0


# --------------------------------------------------------------------------- concatenate

concatenate_p = Primitive("concatenate")


def concatenate(xs: Sequence[Any], dimension: int) -> Any:
    if len(xs) == 1:
        return xs[0]
    return concatenate_p.bind(*xs, dimension=int(dimension))


@concatenate_p.def_impl
def _concatenate_impl(*xs: np.ndarray, dimension: int) -> np.ndarray:
    return np.concatenate(xs, axis=dimension)


@concatenate_p.def_abstract_eval
def _concatenate_abstract_eval(*xs: ShapedArray, dimension: int) -> ShapedArray:
    first = xs[0]
    if not 0 <= dimension < first.ndim:
        raise ValueError(f"concatenate: dimension must be in [0, {first.ndim}); got {dimension}")
    for x in xs:
        if (x.dtype != first.dtype or x.ndim != first.ndim or any(
                a != b for i, (a, b) in enumerate(zip(x.shape, first.shape, strict=True))
                if i != dimension)):
            raise ValueError(f"concatenate: operands must agree in dtype and in every axis but "
                             f"{dimension}; got {', '.join(a.str_short() for a in xs)}")
    shape = list(first.shape)
    shape[dimension] = sum(x.shape[dimension] for x in xs)
    return ShapedArray(tuple(shape), first.dtype)


@concatenate_p.def_jvp
def _concatenate_jvp(primals: tuple, tangents: tuple, *, dimension: int) -> tuple:
    tangents = tuple(instantiate(t) for t in tangents)
    return concatenate(primals, dimension), concatenate(tangents, dimension)


@concatenate_p.def_transpose
def _concatenate_transpose(ct: Any, *xs: Any, dimension: int) -> tuple:
    # ct_xs[i] = the i-th slab of ct along dimension
    cts: list[Any] = []
    start = 0
    shape = get_aval(ct).shape
    for x in xs:
        size = get_aval(x).shape[dimension] if not isinstance(x, UndefPrimal) else \
            x.aval.shape[dimension]
        if isinstance(x, UndefPrimal):
            lo = [0] * len(shape)
            hi = list(shape)
            lo[dimension], hi[dimension] = start, start + size
            cts.append(slice_array(ct, lo, hi))
        else:
            cts.append(None)
        start += size
    return tuple(cts)


@concatenate_p.def_batch
def _concatenate_batch(axis_size: int, vals: tuple, dims: tuple, *, dimension: int) -> tuple:
    xs = [bdim_to_front(x, d, axis_size) for x, d in zip(vals, dims, strict=True)]
    return concatenate(xs, dimension + 1), 0


# --------------------------------------------------------------------------- slice and pad

slice_p = Primitive("slice")
pad_p = Primitive("pad")


def slice_array(x: Any, start_indices: Sequence[int], limit_indices: Sequence[int],
                strides: Sequence[int] | None = None) -> Any:
    """Static slicing ``x[start:limit:stride, ...]`` with non-negative starts and strides."""
    start, limit = tuple(map(int, start_indices)), tuple(map(int, limit_indices))
    st = tuple(map(int, strides)) if strides is not None else (1,) * len(start)
    if start == (0,) * len(start) and limit == get_aval(x).shape and st == (1,) * len(st):
        return x
    return slice_p.bind(x, start_indices=start, limit_indices=limit, strides=st)


@slice_p.def_impl
def _slice_impl(x: np.ndarray, *, start_indices: Shape, limit_indices: Shape, strides: Shape
                ) -> np.ndarray:
    return x[tuple(slice(*t) for t in zip(start_indices, limit_indices, strides, strict=True))]


@slice_p.def_abstract_eval
def _slice_abstract_eval(x: ShapedArray, *, start_indices: Shape, limit_indices: Shape,
                         strides: Shape) -> ShapedArray:
    if not len(start_indices) == len(limit_indices) == len(strides) == x.ndim or any(
            not 0 <= s <= lim <= n or st < 1
            for s, lim, st, n in zip(start_indices, limit_indices, strides, x.shape, strict=True)):
        raise ValueError(f"slice: need 0 <= start <= limit <= size and stride >= 1 in each of "
                         f"{x.ndim} axes; got {start_indices}, {limit_indices}, {strides}")
    shape = tuple(-(-(lim - s) // st) for s, lim, st in
                  zip(start_indices, limit_indices, strides, strict=True))
    return ShapedArray(shape, x.dtype)


slice_p.def_jvp(partial(linear_jvp, slice_p))


@slice_p.def_transpose
def _slice_transpose(ct: Any, x: UndefPrimal, *, start_indices: Shape, limit_indices: Shape,
                     strides: Shape) -> tuple:
    # ct_x = ct padded with zeros back to x's shape (and between strided elements)
    ct_shape = get_aval(ct).shape
    config = []
    for s, st, n, m in zip(start_indices, strides, x.aval.shape, ct_shape, strict=True):
        used = s + (m - 1) * st + 1 if m else s
        config.append((s, n - used, st - 1) if m else (n, 0, 0))
    return (pad(ct, tuple(config)),)


@slice_p.def_batch
def _slice_batch(axis_size: int, vals: tuple, dims: tuple, *, start_indices: Shape,
                 limit_indices: Shape, strides: Shape) -> tuple:
    (x,), (d,) = vals, dims
    x = moveaxis(x, d, 0)
    return slice_array(x, (0, *start_indices), (axis_size, *limit_indices), (1, *strides)), 0


def pad(x: Any, padding_config: Sequence[tuple[int, int, int]]) -> Any:
    """Zero padding: ``(low, high, interior)`` per axis, all non-negative."""
    config = tuple((int(lo), int(hi), int(i)) for lo, hi, i in padding_config)
    if all(c == (0, 0, 0) for c in config):
        return x
    return pad_p.bind(x, padding_config=config)


@pad_p.def_impl
def _pad_impl(x: np.ndarray, *, padding_config: tuple) -> np.ndarray:
    out = np.zeros(_pad_shape(x.shape, padding_config), x.dtype)
    out[tuple(slice(lo, lo + (n - 1) * (i + 1) + 1 if n else lo, i + 1)
              for (lo, _, i), n in zip(padding_config, x.shape, strict=True))] = x
    return out


def _pad_shape(shape: Shape, config: tuple) -> Shape:
    return tuple(lo + hi + n + max(n - 1, 0) * i for (lo, hi, i), n in
                 zip(config, shape, strict=True))


@pad_p.def_abstract_eval
def _pad_abstract_eval(x: ShapedArray, *, padding_config: tuple) -> ShapedArray:
    if len(padding_config) != x.ndim or any(v < 0 for c in padding_config for v in c):
        raise ValueError(f"pad: padding_config must hold {x.ndim} non-negative (low, high, "
                         f"interior) triples; got {padding_config}")
    return ShapedArray(_pad_shape(x.shape, padding_config), x.dtype)


pad_p.def_jvp(partial(linear_jvp, pad_p))


@pad_p.def_transpose
def _pad_transpose(ct: Any, x: UndefPrimal, *, padding_config: tuple) -> tuple:
    # ct_x = the strided slice of ct that pad wrote x into
    starts = [lo for lo, _, _ in padding_config]
    strides = [i + 1 for _, _, i in padding_config]
    limits = [lo + (n - 1) * st + 1 if n else lo for lo, n, st in
              zip(starts, x.aval.shape, strides, strict=True)]
    return (slice_array(ct, starts, limits, strides),)


@pad_p.def_batch
def _pad_batch(axis_size: int, vals: tuple, dims: tuple, *, padding_config: tuple) -> tuple:
    (x,), (d,) = vals, dims
    return pad(moveaxis(x, d, 0), ((0, 0, 0), *padding_config)), 0


# --------------------------------------------------------------------------- reductions

reduce_sum_p = Primitive("reduce_sum")


def reduce_sum(x: Any, axes: Sequence[int]) -> Any:
    axes = tuple(sorted(int(a) for a in axes))
    return reduce_sum_p.bind(x, axes=axes) if axes else x


def reduction_abstract_eval(name: str, x: ShapedArray, *, axes: Shape) -> ShapedArray:
    _check_dims(name, "axes", axes, x.ndim)
    return ShapedArray(tuple(s for i, s in enumerate(x.shape) if i not in axes), x.dtype)


def reduction_batch(prim: Primitive, axis_size: int, vals: tuple, dims: tuple, *, axes: Shape,
                    **params: Any) -> tuple:
    # (other parameters, argmax's index_dtype say, pass through)
    (x,), (d,) = vals, dims
    return prim.bind(moveaxis(x, d, 0), axes=tuple(a + 1 for a in axes), **params), 0


# (speed: np.add.reduce is what np.sum calls, without its dispatch. This, the reshape method
# and broadcast_in_dim's skip of np.broadcast_to are 4.7% of vmap(grad)'s instructions at B=1.)
# dtype=x.dtype: NumPy would widen an int narrower than 64 bits, against the shape rule.
# np.ascontiguousarray: NumPy adds in memory order (pairwise), so a transposed operand would
# round differently from a contiguous one with the same values; jit's passes change layouts, and
# jit must give eager's bits. Summing in the logical order makes the result a function of the
# values alone.
def sum_logical(x: np.ndarray, axes: tuple[int, ...], keepdims: bool = False) -> Any:
    """reduce_sum's impl (also the eager fast paths'): ``np.add.reduce`` in the logical
    order."""
    return np.add.reduce(x if x.flags.c_contiguous else np.ascontiguousarray(x), axis=axes,
                         dtype=x.dtype, keepdims=keepdims)  # type: ignore[call-overload]


reduce_sum_p.def_impl(lambda x, *, axes: sum_logical(x, axes))
reduce_sum_p.def_abstract_eval(partial(reduction_abstract_eval, "reduce_sum"))
reduce_sum_p.def_jvp(partial(linear_jvp, reduce_sum_p))
reduce_sum_p.def_batch(partial(reduction_batch, reduce_sum_p))


@reduce_sum_p.def_transpose
def _reduce_sum_transpose(ct: Any, x: UndefPrimal, *, axes: Shape) -> tuple:
    # ct_x = ct broadcast back along the summed axes
    kept = [i for i in range(x.aval.ndim) if i not in axes]
    return (broadcast_in_dim(ct, x.aval.shape, kept),)


# --------------------------------------------------------------------------- cumsum

cumsum_p = Primitive("cumsum")


def cumsum(x: Any, axis: int, reverse: bool = False) -> Any:
    return cumsum_p.bind(x, axis=int(axis), reverse=bool(reverse))


@cumsum_p.def_impl
def _cumsum_impl(x: np.ndarray, *, axis: int, reverse: bool) -> np.ndarray:
    if reverse:
        return np.flip(np.cumsum(np.flip(x, axis), axis=axis, dtype=x.dtype), axis)
    return np.cumsum(x, axis=axis, dtype=x.dtype)


@cumsum_p.def_abstract_eval
def _cumsum_abstract_eval(x: ShapedArray, *, axis: int, reverse: bool) -> ShapedArray:
    _check_dims("cumsum", "axis", (axis,), x.ndim)
    return x


cumsum_p.def_jvp(partial(linear_jvp, cumsum_p))


@cumsum_p.def_transpose
def _cumsum_transpose(ct: Any, x: UndefPrimal, *, axis: int, reverse: bool) -> tuple:
    # ct_x = cumsum of ct in the opposite direction
    return (cumsum(ct, axis, not reverse),)


@cumsum_p.def_batch
def _cumsum_batch(axis_size: int, vals: tuple, dims: tuple, *, axis: int, reverse: bool
                  ) -> tuple:
    (x,), (d,) = vals, dims
    return cumsum(moveaxis(x, d, 0), axis + 1, reverse), 0


# --------------------------------------------------------------------------- constants

full_p = Primitive("full")
arange_p = Primitive("arange")


def full(shape: Sequence[int], fill_value: Any, dtype: Any) -> Any:
    dtype = np.dtype(dtype)
    if dtype == float0:  # float0 zeros hold no data; there is nothing to stage.
        return np.zeros(tuple(shape), float0)
    value = np.asarray(fill_value, dtype).item()
    return full_p.bind(shape=tuple(map(int, shape)), fill_value=value, dtype=dtype)


def zeros(aval: ShapedArray) -> Any:
    return full(aval.shape, 0, aval.dtype)


def instantiate(t: Any) -> Any:
    """A dense value for a tangent or cotangent that may be a symbolic Zero."""
    return zeros(t.aval) if isinstance(t, Zero) else t


def arange(start: int, stop: int, step: int, dtype: Any) -> Any:
    return arange_p.bind(start=int(start), stop=int(stop), step=int(step), dtype=np.dtype(dtype))


def _constant_jvp(prim: Primitive, primals: tuple, tangents: tuple, **params: Any) -> tuple:
    out = prim.bind(**params)
    aval = get_aval(out)
    return out, Zero(ShapedArray(aval.shape, float0 if aval.dtype.kind in "biu" else aval.dtype))


def _constant_batch(prim: Primitive, axis_size: int, vals: tuple, dims: tuple, **params: Any
                    ) -> tuple:
    return prim.bind(**params), None  # no operands, so nothing is batched


full_p.def_impl(lambda *, shape, fill_value, dtype: np.full(shape, fill_value, dtype))
full_p.def_abstract_eval(lambda *, shape, fill_value, dtype: ShapedArray(shape, dtype))
full_p.def_jvp(partial(_constant_jvp, full_p))
full_p.def_batch(partial(_constant_batch, full_p))

arange_p.def_impl(lambda *, start, stop, step, dtype: np.arange(start, stop, step, dtype=dtype))
arange_p.def_abstract_eval(lambda *, start, stop, step, dtype: ShapedArray(
    (len(range(start, stop, step)),), dtype))
arange_p.def_jvp(partial(_constant_jvp, arange_p))
arange_p.def_batch(partial(_constant_batch, arange_p))

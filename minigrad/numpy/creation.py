"""Array creation: zeros, ones, full, arange, linspace, eye, array and the ``*_like``
functions; and the matrix builders (tri, tril, triu, diag, diagonal, trace, meshgrid).

Default dtypes come from ``minigrad.dtypes`` (float64/int64; float32/int32 with x64 off).
``device=`` is the array API's: minigrad's one device, the CPU, or None.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from minigrad.array import check_device
from minigrad.core import Tracer, get_aval
from minigrad.dtypes import default_int_dtype
from minigrad.numpy.shape import _shape_arg, broadcast_to, moveaxis, reshape
from minigrad.numpy.util import (
    ArrayLike,
    aval_of,
    canonical_axes,
    copy_of,
    dtype_arg,
    result_dtype,
)
from minigrad.numpy.util import asarray as util_asarray
from minigrad.ops import elementwise as ew
from minigrad.ops import structural as st

__all__ = [  # what minigrad.numpy exports from here
    "arange", "array", "asarray", "copy", "diag", "diagonal", "empty", "empty_like",
    "eye", "full", "full_like", "identity", "linspace", "logspace", "meshgrid", "ones",
    "ones_like", "trace", "tri", "tril", "triu", "zeros", "zeros_like",
]

ShapeLike = int | Sequence[int]


def _full(shape: ShapeLike, fill_value: Any, dtype: np.dtype, fn: str) -> Any:
    shape = _shape_arg(shape, fn)
    if any(s < 0 for s in shape):
        raise ValueError(f"{fn}: shape must not have negative sizes; got {shape}")
    if isinstance(fill_value, Tracer) or (isinstance(fill_value, np.ndarray)
                                          and fill_value.ndim):
        # an array fill value broadcasts to the shape (and may be traced: differentiable)
        return broadcast_to(ew.convert_element_type(util_asarray(fill_value), dtype), shape)
    return st.full(shape, fill_value, dtype)


def zeros(shape: ShapeLike, dtype: Any = None, *, device: Any = None) -> Any:
    """Zeros of the default float dtype (float64; float32 with x64 off) unless given."""
    check_device(device, "zeros")
    return _full(shape, 0, dtype_arg(dtype, "zeros"), "zeros")


def ones(shape: ShapeLike, dtype: Any = None, *, device: Any = None) -> Any:
    check_device(device, "ones")
    return _full(shape, 1, dtype_arg(dtype, "ones"), "ones")


def empty(shape: ShapeLike, dtype: Any = None, *, device: Any = None) -> Any:
    """Zeros: minigrad never hands out uninitialized memory (JAX's ``empty`` does the same)."""
    check_device(device, "empty")
    return _full(shape, 0, dtype_arg(dtype, "empty"), "empty")


def full(shape: ShapeLike, fill_value: ArrayLike, dtype: Any = None, *, device: Any = None
         ) -> Any:
    check_device(device, "full")
    dtype = dtype_arg(dtype, "full", get_aval(util_asarray(fill_value)).dtype)
    return _full(shape, fill_value, dtype, "full")


def _like(fn: str, a: ArrayLike, fill_value: Any, dtype: Any, shape: Any, device: Any) -> Any:
    check_device(device, fn)
    aval = aval_of(a)
    return _full(aval.shape if shape is None else shape, fill_value,
                 dtype_arg(dtype, fn, aval.dtype), fn)


def zeros_like(a: ArrayLike, dtype: Any = None, shape: ShapeLike | None = None, *,
               device: Any = None) -> Any:
    return _like("zeros_like", a, 0, dtype, shape, device)


def ones_like(a: ArrayLike, dtype: Any = None, shape: ShapeLike | None = None, *,
              device: Any = None) -> Any:
    return _like("ones_like", a, 1, dtype, shape, device)


def empty_like(prototype: ArrayLike, dtype: Any = None, shape: ShapeLike | None = None, *,
               device: Any = None) -> Any:
    return _like("empty_like", prototype, 0, dtype, shape, device)


def full_like(a: ArrayLike, fill_value: ArrayLike, dtype: Any = None,
              shape: ShapeLike | None = None, *, device: Any = None) -> Any:
    return _like("full_like", a, fill_value, dtype, shape, device)


def arange(start: Any, stop: Any = None, step: Any = None, dtype: Any = None, *,
           device: Any = None) -> Any:
    """``np.arange``: the dtype follows the arguments unless given (the default int for
    ints). The bounds must be concrete: the length depends on them."""
    check_device(device, "arange")
    for name, v in (("start", start), ("stop", stop), ("step", step)):
        if isinstance(v, Tracer):
            raise TypeError(f"arange: {name} must be concrete (the result's length depends on "
                            f"it); got a traced value. Use arange(n) * step + start instead")
    if stop is None:
        start, stop = 0, start
    step = 1 if step is None else step
    if step == 0:
        raise ValueError("arange: step must not be zero")
    dtype = dtype_arg(dtype, "arange", result_dtype(start, stop, step))
    if all(isinstance(v, (int, np.integer)) for v in (start, stop, step)):
        return st.arange(start, stop, step, dtype)
    # Fractional bounds or step: NumPy's element count, then start + i * step.
    from minigrad.numpy.dtypes import astype
    from minigrad.numpy.ufuncs import add, multiply

    n = np.arange(start, stop, step).size
    return astype(add(multiply(st.arange(0, n, 1, dtype), step), start), dtype)


def linspace(start: ArrayLike, stop: ArrayLike, num: int = 50, endpoint: bool = True,
             retstep: bool = False, dtype: Any = None, axis: int = 0, *, device: Any = None
             ) -> Any:
    """``num`` evenly spaced values from ``start`` to ``stop`` (NumPy's formula:
    ``start + i * step``, the last value ``stop`` exactly when ``endpoint``); ``start`` and
    ``stop`` may be arrays (the values run along ``axis``) and are differentiable."""
    from minigrad.numpy.ufuncs import add, divide, multiply, subtract

    check_device(device, "linspace")
    num = int(num)
    if num < 0:
        raise ValueError(f"linspace: num must be non-negative; got {num}")
    lo, hi = util_asarray(start), util_asarray(stop)
    out_dtype = dtype_arg(dtype, "linspace", result_dtype(lo, hi, 1.0))
    ftype = out_dtype if out_dtype.kind in "fc" else result_dtype(lo, hi, 1.0)
    lo, hi = ew.convert_element_type(lo, ftype), ew.convert_element_type(hi, ftype)
    shape = np.broadcast_shapes(get_aval(lo).shape, get_aval(hi).shape)
    lo, hi = broadcast_to(lo, shape), broadcast_to(hi, shape)
    div = (num - 1) if endpoint else num
    delta = subtract(hi, lo)
    steps = reshape(st.arange(0, num, 1, ftype), (num, *([1] * len(shape))))
    if div > 0:
        step = divide(delta, div)
        out = add(multiply(steps, step), lo)
        if endpoint and num > 1:  # the last value is stop itself
            last = reshape(hi, (1, *shape))
            out = st.concatenate([st.slice_array(out, [0] * (len(shape) + 1),
                                                 [num - 1, *shape]), last], 0)
    else:
        step = multiply(delta, np.nan)  # NumPy's step when there is no interval
        out = add(multiply(steps, delta), lo)
    (ax,) = canonical_axes(axis, len(shape) + 1, "linspace")
    out = ew.convert_element_type(moveaxis(out, 0, ax), out_dtype)
    return (out, step) if retstep else out


def logspace(start: ArrayLike, stop: ArrayLike, num: int = 50, endpoint: bool = True,
             base: ArrayLike = 10.0, dtype: Any = None, axis: int = 0) -> Any:
    """``base ** linspace(start, stop)``."""
    from minigrad.numpy.division import power
    from minigrad.numpy.dtypes import astype

    y = linspace(start, stop, num, endpoint, axis=axis)
    out = power(base, y)
    return out if dtype is None else astype(out, dtype_arg(dtype, "logspace"))


def _tri_mask(n: int, m: int, k: int) -> np.ndarray:
    return np.arange(m)[None, :] <= np.arange(n)[:, None] + k  # (a constant: static shapes)


def eye(N: int, M: int | None = None, k: int = 0, dtype: Any = None, *,
        device: Any = None) -> Any:
    """Ones on the ``k``-th diagonal of an ``N`` by ``M`` matrix, zeros elsewhere."""
    check_device(device, "eye")
    M = N if M is None else M
    dt = dtype_arg(dtype, "eye")
    ones = np.ones(max(0, min(N, M - k) if k >= 0 else min(N + k, M)), dt)
    return st.full((N, M), 0, dt) if not ones.size else diag_matrix(ones, k, N, M)


def identity(n: int, dtype: Any = None) -> Any:
    return eye(n, dtype=dtype)


def tri(N: int, M: int | None = None, k: int = 0, dtype: Any = None) -> Any:
    """Ones at and below the ``k``-th diagonal."""
    M = N if M is None else M
    dt = dtype_arg(dtype, "tri")
    return util_asarray(_tri_mask(N, M, k).astype(dt))


def tril(m: ArrayLike, k: int = 0) -> Any:
    """``m`` with the elements above the ``k``-th diagonal zeroed (the last two axes)."""
    return _triangle(m, k, lower=True)


def triu(m: ArrayLike, k: int = 0) -> Any:
    """``m`` with the elements below the ``k``-th diagonal zeroed (the last two axes)."""
    return _triangle(m, k, lower=False)


def _triangle(m: ArrayLike, k: int, lower: bool) -> Any:
    x = util_asarray(m)
    shape = get_aval(x).shape
    if len(shape) < 2:
        fn = "tril" if lower else "triu"
        raise ValueError(f"{fn}: the array must have at least 2 axes; got shape {shape}")
    n, c = shape[-2:]
    keep = _tri_mask(n, c, k) if lower else ~_tri_mask(n, c, k - 1)
    zeros = st.full(shape, 0, get_aval(x).dtype)
    return ew.select(broadcast_to(util_asarray(keep), shape), x, zeros)


def diag_matrix(v: Any, k: int, n: int, m: int) -> Any:
    """An ``n`` by ``m`` matrix with the vector ``v`` on its ``k``-th diagonal: ``v`` padded
    with zeros (the elements are ``m + 1`` apart in the flattened matrix), so exact and linear."""
    length = get_aval(v).shape[0]
    first = k if k >= 0 else -k * m
    used = first + (length - 1) * (m + 1) + 1 if length else first
    flat = st.pad(v, [(first, n * m - used, m)])
    return st.reshape(flat, (n, m))


def diag(v: ArrayLike, k: int = 0) -> Any:
    """A 1-D ``v`` on the ``k``-th diagonal of a square matrix; of a 2-D ``v``, its ``k``-th
    diagonal."""
    x = util_asarray(v)
    ndim = get_aval(x).ndim
    if ndim == 1:
        n = get_aval(x).shape[0] + abs(k)
        return diag_matrix(x, k, n, n)
    if ndim == 2:
        return diagonal(x, k)
    raise ValueError(f"diag: v must be 1-D or 2-D; got shape {get_aval(x).shape}")


def diagonal(a: ArrayLike, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    """The ``offset``-th diagonal of the 2-D slices in ``axis1`` and ``axis2``, as the last
    axis of the result (NumPy's layout): a strided slice of the flattened matrices."""
    x = util_asarray(a)
    shape = get_aval(x).shape
    (a1,), (a2,) = canonical_axes(axis1, len(shape), "diagonal"), \
        canonical_axes(axis2, len(shape), "diagonal")
    if a1 == a2:
        raise ValueError(f"diagonal: axis1 and axis2 must differ; got {axis1} and {axis2}")
    x = moveaxis(x, (a1, a2), (-2, -1))
    *batch, n, m = get_aval(x).shape
    length = max(0, min(n, m - offset) if offset >= 0 else min(n + offset, m))
    flat = st.reshape(x, (*batch, n * m))
    first = offset if offset >= 0 else -offset * m
    nb = len(batch)
    if length == 0:
        return st.slice_array(flat, [0] * (nb + 1), [*batch, 0])
    return st.slice_array(flat, [0] * nb + [first], [*batch, first + (length - 1) * (m + 1) + 1],
                          [1] * nb + [m + 1])


def trace(a: ArrayLike, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None
          ) -> Any:
    """The sum of the ``offset``-th diagonal."""
    from minigrad.numpy.reductions import sum as sum_

    d = diagonal(a, offset, axis1, axis2)
    if dtype is not None:
        d = ew.convert_element_type(d, dtype_arg(dtype, "trace"))
    elif get_aval(d).dtype.kind in "bi" and get_aval(d).dtype.itemsize < 8:
        d = ew.convert_element_type(d, default_int_dtype())  # NumPy sums small ints as int64
    return sum_(d, -1)


def meshgrid(*xi: ArrayLike, copy: bool = True, sparse: bool = False, indexing: str = "xy"
             ) -> list[Any]:
    """Coordinate arrays from 1-D coordinate vectors ('xy': the first two axes swapped, NumPy's
    default; 'ij': matrix indexing)."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij'; got {indexing!r}")
    xs = [reshape(util_asarray(x), -1) for x in xi]
    shape = [get_aval(x).shape[0] for x in xs]
    n = len(xs)
    if indexing == "xy" and n > 1:
        shape[0], shape[1] = shape[1], shape[0]
    out = []
    for i, x in enumerate(xs):
        pos = (1 if i == 0 else 0 if i == 1 else i) if indexing == "xy" and n > 1 else i
        s = [1] * n
        s[pos] = get_aval(x).shape[0]
        y = reshape(x, s)
        y = y if sparse else broadcast_to(y, shape)
        out.append(copy_of(y) if copy else y)  # (NumPy's default: new arrays)
    return out


def array(object: Any, dtype: Any = None, copy: bool = True, order: str | None = "K",
          ndmin: int = 0, *, device: Any = None) -> Any:
    """An array from ``object`` (an array, a number, or nested lists and tuples, which may hold
    tracers: those are stacked, as JAX does). Always a new array unless ``copy=False``."""
    from minigrad.numpy.joining import stack

    check_device(device, "array")
    if order not in (None, "K", "C", "A"):
        raise ValueError(f"array: order must be 'C' (row-major); got {order!r}")
    if isinstance(object, (list, tuple)) and _holds_tracer(object):
        items = [array(o, copy=False) for o in object]
        out = stack(items) if items else util_asarray(np.array(object))
        out = out if dtype is None else ew.convert_element_type(out, dtype_arg(dtype, "array"))
    else:
        out = util_asarray(object, None if dtype is None else dtype_arg(dtype, "array"))
        if copy and isinstance(out, np.ndarray) and _shares(out, object):
            out = out.copy()
        elif copy and out is object:  # a tracer: a new value, so that a later in-place
            out = copy_of(out)        # update of ``object`` does not show through
    while get_aval(out).ndim < ndmin:
        out = reshape(out, (1, *get_aval(out).shape))
    return out


def _holds_tracer(obj: Any) -> bool:
    if isinstance(obj, Tracer):
        return True
    return isinstance(obj, (list, tuple)) and any(_holds_tracer(o) for o in obj)


def _shares(out: np.ndarray, source: Any) -> bool:
    return isinstance(source, np.ndarray) and np.shares_memory(out, source)


def copy(a: ArrayLike, order: str | None = None) -> Any:
    return array(a, copy=True)


def asarray(a: Any, dtype: Any = None, order: str | None = None, *, copy: bool | None = None,
            device: Any = None) -> Any:
    """``a`` as an array: a tracer as it is, an ndarray as a view (an Array) unless a dtype
    conversion or ``copy=True`` asks for a copy. ``copy=False`` never copies: if a copy is
    needed (a list, a dtype change, x64 off narrowing a 64-bit array) it is a ValueError."""
    check_device(device, "asarray")
    if order not in (None, "K", "C", "A"):
        raise ValueError(f"asarray: order must be 'C' (row-major); got {order!r}")
    dt = None if dtype is None else dtype_arg(dtype, "asarray")
    if copy:
        return array(a, dt, copy=True)
    out = util_asarray(a, dt)
    if copy is False and not isinstance(a, Tracer):
        shared = isinstance(a, np.ndarray) and (np.shares_memory(out, a) or a.size == 0)
        if not shared:
            raise ValueError("asarray: copy=False, but a copy is needed (a conversion from "
                             f"{type(a).__name__}" + (f" of dtype {a.dtype} to {out.dtype}"
                                                      if isinstance(a, np.ndarray) else "")
                             + ")")
    return out

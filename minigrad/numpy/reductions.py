"""Reductions over the reduction primitives: sum, prod, max, min, all, any, argmax, argmin, and
the statistics built from them (mean, var, std, ptp, count_nonzero, average).

Every function takes ``axis`` as None, an int (negative counts from the end) or a tuple,
``keepdims``, and where NumPy has them ``dtype``, ``initial`` and ``where``; ``out`` is refused
(arrays are values). Result dtypes are NumPy 2's: sums and products of bool and of integers
narrower than the default integer give the default integer (unsigned: the default unsigned),
means of integers the default float, indices the default integer; with ``jax_enable_x64`` off
the defaults are 32-bit, as in JAX. float16 sums, means and variances accumulate in float32
and round once at the end (JAX's rule). A masked (``where``) element takes the reduction's
identity and gets a zero derivative.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.array import Array
from minigrad.core import Tracer, get_aval
from minigrad.dtypes import default_int_dtype, default_uint_dtype, x64_enabled
from minigrad.numpy import fast_paths as fast
from minigrad.numpy.eager import canonical_real, eager, real_float
from minigrad.numpy.shape import ravel
from minigrad.numpy.ufuncs import divide, maximum, minimum, sqrt, subtract
from minigrad.numpy.util import (
    ArrayLike,
    Axis,
    asarray,
    canonical_axes,
    check_broadcast,
    copy_of,
    dtype_arg,
    float_dtype,
    keep,
)
from minigrad.ops import elementwise as ew
from minigrad.ops import reductions as red
from minigrad.ops import structural as st

__all__ = [  # what minigrad.numpy exports from here
    "all", "amax", "amin", "any", "argmax", "argmin", "average", "count_nonzero", "max",
    "mean", "min", "prod", "ptp", "std", "sum", "var",
]

# --------------------------------------------------------------------------- argument checks


def refuse_out(out: Any, fn: str) -> None:
    if out is not None:
        raise NotImplementedError(f"{fn}: out is not supported (minigrad arrays are values: "
                                  f"use the result); got {type(out).__name__}")


def check_keepdims(keepdims: Any, fn: str) -> None:
    if not isinstance(keepdims, (bool, np.bool_)):
        raise TypeError(f"{fn}: keepdims must be a bool; got {keepdims!r}")


def reduction_axes(x: Any, axis: Axis, keepdims: Any, fn: str) -> tuple[int, ...]:
    check_keepdims(keepdims, fn)
    return canonical_axes(axis, get_aval(x).ndim, fn)


def where_mask(where: ArrayLike, shape: tuple[int, ...], fn: str) -> Any:
    """``where`` as a bool mask of ``shape`` (it must broadcast to ``shape``)."""
    mask = asarray(where)
    if get_aval(mask).dtype != np.bool_:
        raise TypeError(f"{fn}: where must be a bool array; got dtype {get_aval(mask).dtype}")
    mask_shape = get_aval(mask).shape
    if check_broadcast(fn, shape, mask_shape) != shape:
        raise ValueError(f"{fn}: where must broadcast to the array's shape {shape}; got shape "
                         f"{mask_shape}")
    return st.broadcast_to(mask, shape)


def masked(x: Any, where: ArrayLike | None, identity: Any, fn: str) -> Any:
    """``x`` with the elements outside ``where`` replaced by ``identity``."""
    if where is None:
        return x
    aval = get_aval(x)
    return ew.select(where_mask(where, aval.shape, fn), x, st.full(aval.shape, identity,
                                                                   aval.dtype))


def scalar_initial(initial: ArrayLike, dtype: np.dtype, fn: str) -> Any:
    value = asarray(initial)
    if get_aval(value).shape != ():
        raise ValueError(f"{fn}: initial must be a scalar; got shape {get_aval(value).shape}")
    return ew.convert_element_type(value, dtype)


def size_of(shape: tuple[int, ...], axes: tuple[int, ...]) -> int:
    return int(np.prod([shape[a] for a in axes], dtype=np.int64))


def accumulation_dtype(dtype: np.dtype) -> np.dtype:
    """float16 accumulates in float32, as JAX's reductions do."""
    return np.dtype(np.float32) if dtype == np.float16 else dtype


def _is_float(x: Any) -> bool:
    return get_aval(x).dtype.kind in "fc"


# --------------------------------------------------------------------------- sum, prod


def _promoted(dtype: np.dtype) -> np.dtype:
    """NumPy 2's sum/prod dtype: bool and narrow integers widen to the default integer."""
    if dtype == np.bool_:
        return default_int_dtype()
    if dtype.kind == "i" and dtype.itemsize < default_int_dtype().itemsize:
        return default_int_dtype()
    if dtype.kind == "u" and dtype.itemsize < default_uint_dtype().itemsize:
        return default_uint_dtype()
    return dtype


def _with_initial(combine: Any, total: Any, initial: ArrayLike | None, dtype: np.dtype,
                  fn: str) -> Any:
    """``combine(initial, total)``, the scalar ``initial`` broadcast: applied after the
    reduction, as NumPy and JAX do (so ``max(x, initial=c)`` splits a tie with ``c``)."""
    if initial is None:
        return total
    init = st.broadcast_to(scalar_initial(initial, dtype, fn), get_aval(total).shape)
    return combine(init, total)


def _sum_like(a: ArrayLike, axis: Axis, dtype: Any, out: Any, keepdims: Any, initial: Any,
              where: Any, promote_integers: bool, fn: str) -> Any:
    refuse_out(out, fn)
    x = asarray(a)
    axes = reduction_axes(x, axis, keepdims, fn)
    in_dtype = get_aval(x).dtype
    if dtype is not None:
        result = compute = dtype_arg(dtype, fn)
    else:
        result = _promoted(in_dtype) if promote_integers or in_dtype == np.bool_ else in_dtype
        compute = accumulation_dtype(result)
    is_prod = fn in ("prod", "nanprod")
    x = masked(ew.convert_element_type(x, compute), where, 1 if is_prod else 0, fn)
    if is_prod:
        total = _with_initial(ew.mul, red.reduce_prod(x, axes), initial, compute, fn)
    else:
        total = _with_initial(ew.add, st.reduce_sum(x, axes), initial, compute, fn)
    out = keep(ew.convert_element_type(total, result), axes, keepdims)
    return out if axes else copy_of(out)  # (reducing over no axes, NumPy still copies)


# (speed: the common call, a float array reduced with no options, skips the general path's
# conversions and checks: eagerly 1-2 us instead of ~6 over NumPy's own sum)
_PLAIN = (np.ndarray, Array)
_WIDE_FLOATS = frozenset(map(np.dtype, ("float32", "float64", "complex64", "complex128")))
_ONLY_X64 = frozenset(map(np.dtype, ("float64", "complex128")))


def plain_axes(a: Any, axis: Axis) -> tuple[int, ...] | None:
    """The axes of a sum-like reduction of ``a`` that needs no conversion, or None."""
    if type(a) not in _PLAIN or a.dtype not in _WIDE_FLOATS or (
            a.dtype in _ONLY_X64 and not x64_enabled()):  # (x64 off: to be converted)
        return None
    ndim = a.ndim
    if axis is None:
        return tuple(range(ndim))
    if type(axis) is int and ndim and -ndim <= axis < ndim:
        return (axis % ndim,)
    return None


def sum(a: ArrayLike, axis: Axis = None, dtype: Any = None, out: None = None,
        keepdims: bool = False, initial: ArrayLike | None = None,
        where: ArrayLike | None = None, promote_integers: bool = True) -> Any:
    """Sum of the elements over ``axis``.

    >>> import minigrad.numpy as mnp, numpy as np
    >>> mnp.sum(np.array([True, True, False]))  # bool sums to the default integer
    Array(2, dtype=int64)
    """
    if dtype is None and keepdims is False and initial is None and where is None and \
            out is None:
        axes = plain_axes(a, axis)
        if axes:
            return st.reduce_sum_p.bind(a, axes=axes)
    return _sum_like(a, axis, dtype, out, keepdims, initial, where, promote_integers, "sum")


def prod(a: ArrayLike, axis: Axis = None, dtype: Any = None, out: None = None,
         keepdims: bool = False, initial: ArrayLike | None = None,
         where: ArrayLike | None = None, promote_integers: bool = True) -> Any:
    """Product of the elements over ``axis``; its derivative is exact with zeros (each
    element's is the product of the others, with no division)."""
    if dtype is None and keepdims is False and initial is None and where is None and \
            out is None:
        axes = plain_axes(a, axis)
        if axes:
            return red.reduce_prod_p.bind(a, axes=axes)
    return _sum_like(a, axis, dtype, out, keepdims, initial, where, promote_integers, "prod")


# --------------------------------------------------------------------------- max, min


def _identity_for(dtype: np.dtype, largest: bool) -> Any:
    """What a masked element becomes in max (``largest=False``: the smallest value) or min."""
    if dtype == np.bool_:
        return not largest
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return info.max if largest else info.min
    return np.inf if largest else -np.inf


def _extreme(a: ArrayLike, axis: Axis, out: Any, keepdims: Any, initial: Any, where: Any,
             fn: str, is_max: bool) -> Any:
    if keepdims is False and initial is None and where is None and out is None:
        axes = plain_axes(a, axis)  # (the common call: one bind)
        if axes and 0 not in a.shape:
            return (ew.reduce_max_p if is_max else red.reduce_min_p).bind(a, axes=axes)
    refuse_out(out, fn)
    x = asarray(a)
    axes = reduction_axes(x, axis, keepdims, fn)
    aval = get_aval(x)
    op = "maximum" if is_max else "minimum"
    if where is not None and initial is None:
        raise ValueError(f"{fn}: reduction operation {op} has no identity, so a where mask "
                         f"needs initial")
    empty = 0 in [aval.shape[i] for i in axes]
    if initial is None and empty:
        raise ValueError(f"{fn}: zero-size array to reduction operation {op} which has no "
                         f"identity (axis of size 0 in shape {aval.shape}); pass initial")
    combine = maximum if is_max else minimum
    if empty:  # only initial remains
        shape = tuple(n for i, n in enumerate(aval.shape) if i not in axes)
        total = st.broadcast_to(scalar_initial(initial, aval.dtype, fn), shape)
    else:
        x = masked(x, where, _identity_for(aval.dtype, largest=not is_max), fn)
        total = ew.reduce_max(x, axes) if is_max else red.reduce_min(x, axes)
        total = _with_initial(combine, total, initial, aval.dtype, fn)
    out = keep(total, axes, keepdims)
    return out if axes else copy_of(out)


def max(a: ArrayLike, axis: Axis = None, out: None = None, keepdims: bool = False,
        initial: ArrayLike | None = None, where: ArrayLike | None = None) -> Any:
    """The largest element over ``axis``; tied maxima share the derivative equally, and a
    NaN propagates."""
    return _extreme(a, axis, out, keepdims, initial, where, "max", True)


def min(a: ArrayLike, axis: Axis = None, out: None = None, keepdims: bool = False,
        initial: ArrayLike | None = None, where: ArrayLike | None = None) -> Any:
    """The smallest element over ``axis``; tied minima share the derivative equally, and a
    NaN propagates."""
    return _extreme(a, axis, out, keepdims, initial, where, "min", False)


def amax(a: ArrayLike, axis: Axis = None, out: None = None, keepdims: bool = False,
         initial: ArrayLike | None = None, where: ArrayLike | None = None) -> Any:
    """``max``, by its other name."""
    return _extreme(a, axis, out, keepdims, initial, where, "amax", True)


def amin(a: ArrayLike, axis: Axis = None, out: None = None, keepdims: bool = False,
         initial: ArrayLike | None = None, where: ArrayLike | None = None) -> Any:
    """``min``, by its other name."""
    return _extreme(a, axis, out, keepdims, initial, where, "amin", False)


def ptp(a: ArrayLike, axis: Axis = None, out: None = None, keepdims: bool = False) -> Any:
    """Peak to peak: ``max - min`` over ``axis``."""
    refuse_out(out, "ptp")
    x = asarray(a)
    if get_aval(x).dtype == np.bool_:
        raise TypeError("ptp: a must be numeric (max - min of bools is undefined); got bool")
    return subtract(_extreme(x, axis, None, keepdims, None, None, "ptp", True),
                    _extreme(x, axis, None, keepdims, None, None, "ptp", False))


# --------------------------------------------------------------------------- all, any


def _truth(x: Any) -> Any:
    """``x != 0`` (a NaN is true), or ``x`` itself if it is bool."""
    aval = get_aval(x)
    if aval.dtype == np.bool_:
        return x
    return ew.ne(x, st.full(aval.shape, 0, aval.dtype))


def _logical(a: ArrayLike, axis: Axis, out: Any, keepdims: Any, where: Any, fn: str,
             is_all: bool) -> Any:
    refuse_out(out, fn)
    x = asarray(a)
    axes = reduction_axes(x, axis, keepdims, fn)
    if where is None and canonical_real(a) and eager():
        return fast.all_any(a, axes, keepdims, is_all)
    x = masked(_truth(x), where, is_all, fn)
    out = keep(red.reduce_and(x, axes) if is_all else red.reduce_or(x, axes), axes, keepdims)
    return out if axes else copy_of(out)


def all(a: ArrayLike, axis: Axis = None, out: None = None, keepdims: bool = False, *,
        where: ArrayLike | None = None) -> Any:
    """True where every element over ``axis`` is nonzero (an empty reduction is True)."""
    return _logical(a, axis, out, keepdims, where, "all", True)


def any(a: ArrayLike, axis: Axis = None, out: None = None, keepdims: bool = False, *,
        where: ArrayLike | None = None) -> Any:
    """True where some element over ``axis`` is nonzero (a NaN is nonzero)."""
    return _logical(a, axis, out, keepdims, where, "any", False)


def count_nonzero(a: ArrayLike, axis: Axis = None, keepdims: bool = False) -> Any:
    """The number of nonzero elements over ``axis``, as the default integer."""
    x = asarray(a)
    axes = reduction_axes(x, axis, keepdims, "count_nonzero")
    counts = ew.convert_element_type(_truth(x), default_int_dtype())
    return keep(st.reduce_sum(counts, axes), axes, keepdims)


# --------------------------------------------------------------------------- argmax, argmin


def _arg(a: ArrayLike, axis: int | None, out: Any, keepdims: Any, fn: str, is_max: bool
         ) -> Any:
    refuse_out(out, fn)
    keepdims = False if keepdims is None else keepdims
    x = asarray(a)
    check_keepdims(keepdims, fn)
    ndim = get_aval(x).ndim
    if axis is None:
        flat = ravel(x)
        index = _arg_along(flat, 0, fn, is_max)
        return st.reshape(index, (1,) * ndim) if keepdims else index
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise TypeError(f"{fn}: axis must be None or an int; got {axis!r}")
    if ndim == 0:  # a 0-d array has one element, at index 0 (axis 0 or -1 only)
        canonical_axes(axis, ndim, fn)
        return _arg_along(st.reshape(x, (1,)), 0, fn, is_max)
    (ax,) = canonical_axes(axis, ndim, fn)
    return keep(_arg_along(x, ax, fn, is_max), (ax,), keepdims)


def _arg_along(x: Any, axis: int, fn: str, is_max: bool) -> Any:
    if get_aval(x).shape[axis] == 0:
        raise ValueError(f"{fn}: attempt to get {fn} of an empty sequence (axis {axis} of "
                         f"shape {get_aval(x).shape})")
    prim = red.argmax if is_max else red.argmin
    return prim(x, axis, default_int_dtype())


def argmax(a: ArrayLike, axis: int | None = None, out: None = None,
           keepdims: bool | None = None) -> Any:
    """The index of the first maximum (of the flattened array if ``axis`` is None); a NaN
    counts as the maximum. The default integer; no derivative."""
    axes = plain_axes(a, axis) if out is None and not keepdims else None
    if axes and len(axes) == 1 and a.size:  # (axis None: only for 1-D, with nothing to ravel)
        return red.argmax_p.bind(a, axes=axes, index_dtype=default_int_dtype())
    return _arg(a, axis, out, keepdims, "argmax", True)


def argmin(a: ArrayLike, axis: int | None = None, out: None = None,
           keepdims: bool | None = None) -> Any:
    """The index of the first minimum (of the flattened array if ``axis`` is None); a NaN
    counts as the minimum. The default integer; no derivative."""
    axes = plain_axes(a, axis) if out is None and not keepdims else None
    if axes and len(axes) == 1 and a.size:  # (axis None: only for 1-D, with nothing to ravel)
        return red.argmin_p.bind(a, axes=axes, index_dtype=default_int_dtype())
    return _arg(a, axis, out, keepdims, "argmin", False)


# --------------------------------------------------------------------------- mean, var, std


def _nan_of(x: Any) -> Any:
    aval = get_aval(x)
    return st.full(aval.shape, np.nan, aval.dtype)


def safe_divide(total: Any, count: Any) -> Any:
    """``total / count``, NaN where ``count`` is 0, without NumPy's warning (JAX gives NaN
    silently) and with a derivative that stays finite where the count is 0."""
    zero = ew.eq(count, st.zeros(get_aval(count)))
    ones = st.full(get_aval(count).shape, 1, get_aval(count).dtype)
    return ew.select(zero, _nan_of(total), ew.div(total, ew.select(zero, ones, count)))


def _count(shape: tuple[int, ...], axes: tuple[int, ...], keepdims: bool, where: Any,
           dtype: np.dtype, fn: str) -> Any:
    """The number of elements each reduction sees: a Python int, or an array under where."""
    if where is None:
        return size_of(shape, axes)
    mask = ew.convert_element_type(where_mask(where, shape, fn), dtype)
    return keep(st.reduce_sum(mask, axes), axes, keepdims)


def _divide_by_count(total: Any, count: Any) -> Any:
    if isinstance(count, int):
        if count == 0:  # an empty mean is NaN, quietly (0 * NaN)
            return ew.mul(total, _nan_of(total))
        return divide(total, count)
    return safe_divide(total, count)


def mean(a: ArrayLike, axis: Axis = None, dtype: Any = None, out: None = None,
         keepdims: bool = False, *, where: ArrayLike | None = None) -> Any:
    """The arithmetic mean over ``axis``; integers give the default float. An empty mean
    (or an all-False ``where``) is NaN, without NumPy's warning."""
    if dtype is None and keepdims is False and where is None and out is None:
        axes = plain_axes(a, axis)
        if axes and a.size:
            if eager():
                return fast.mean(a, axes, False)
            total = st.reduce_sum_p.bind(a, axes=axes)
            count = np.full(np.shape(total), a.size // total.size, a.dtype)
            return ew.div_p.bind(total, count)
    refuse_out(out, "mean")
    x = asarray(a)
    axes = reduction_axes(x, axis, keepdims, "mean")
    if dtype is None and where is None and real_float(a) and eager():
        return fast.mean(a, axes, keepdims)
    result = dtype_arg(dtype, "mean") if dtype is not None else float_dtype(x)
    compute = accumulation_dtype(result) if dtype is None else result
    x = ew.convert_element_type(x, compute)
    total = keep(st.reduce_sum(masked(x, where, 0, "mean"), axes), axes, keepdims)
    count = _count(get_aval(x).shape, axes, keepdims, where, compute, "mean")
    return ew.convert_element_type(_divide_by_count(total, count), result)


def _check_ddof(ddof: Any, correction: Any, fn: str) -> Any:
    if correction is None:
        correction = ddof
    elif not (isinstance(ddof, (int, np.integer)) and ddof == 0):
        raise ValueError(f"{fn}: ddof and correction cannot both be given; got ddof={ddof!r} "
                         f"and correction={correction!r}")
    if isinstance(correction, Tracer) or not isinstance(correction, (int, float, np.integer,
                                                                     np.floating)) \
            or isinstance(correction, bool):
        raise TypeError(f"{fn}: ddof (correction) must be a Python or NumPy number; got "
                        f"{correction!r}")
    return correction


def var(a: ArrayLike, axis: Axis = None, dtype: Any = None, out: None = None, ddof: int = 0,
        keepdims: bool = False, *, where: ArrayLike | None = None,
        mean: ArrayLike | None = None, correction: int | float | None = None) -> Any:
    """The variance: the mean squared deviation, divided by ``N - ddof`` (``correction`` is
    the array API's name); NaN where ``N - ddof <= 0`` (NumPy: inf), as JAX.

    >>> import minigrad.numpy as mnp, numpy as np
    >>> mnp.var(np.array([1.0, 2.0]), ddof=2)
    Array(nan, dtype=float64)
    """
    fast_var = _fast_variance(a, axis, dtype, out, ddof, keepdims, where, mean, correction,
                              "var", False)
    if fast_var is not None:
        return fast_var
    return variance(a, axis, dtype, out, ddof, keepdims, where, mean, correction, "var")


def _fast_variance(a: ArrayLike, axis: Axis, dtype: Any, out: Any, ddof: Any, keepdims: Any,
                   where: Any, mean: Any, correction: Any, fn: str, root: bool) -> Any:
    """var or std by ``fast.var`` when it applies (after the general path's checks), else
    None."""
    if not (dtype is None and where is None and mean is None and real_float(a) and eager()):
        return None
    refuse_out(out, fn)
    correction = _check_ddof(ddof, correction, fn)
    if type(correction) is not int and type(correction) is not float:
        return None  # (a NumPy scalar promotes the division: the general path)
    axes = reduction_axes(a, axis, keepdims, fn)
    return fast.var(a, axes, keepdims, correction, root)


def variance(a: ArrayLike, axis: Axis, dtype: Any, out: Any, ddof: Any, keepdims: Any,
             where: Any, mean: Any, correction: Any, fn: str) -> Any:
    """var, its errors naming ``fn`` (var, std, nanvar, nanstd)."""
    refuse_out(out, fn)
    correction = _check_ddof(ddof, correction, fn)
    x = asarray(a)
    axes = reduction_axes(x, axis, keepdims, fn)
    result = dtype_arg(dtype, fn) if dtype is not None else float_dtype(x)
    compute = accumulation_dtype(result)
    x = ew.convert_element_type(x, compute)
    shape = get_aval(x).shape
    if mean is None:
        center = _mean_kept(x, axes, where, fn)
    else:
        center = st.broadcast_to(ew.convert_element_type(asarray(mean), compute), shape)
    centered = ew.sub(x, center)
    squares = masked(ew.mul(centered, centered), where, 0, fn)
    total = keep(st.reduce_sum(squares, axes), axes, keepdims)
    count = _count(shape, axes, keepdims, where, compute, fn)
    if isinstance(count, int):
        divisor = count - correction
        if divisor <= 0:
            out_ = ew.mul(total, _nan_of(total))  # NaN, quietly
        else:
            out_ = divide(total, divisor)
    else:
        divisor = ew.sub(count, st.full(get_aval(count).shape, correction, compute))
        positive = ew.gt(divisor, st.zeros(get_aval(divisor)))
        ones = st.full(get_aval(divisor).shape, 1, compute)
        out_ = ew.select(positive, ew.div(total, ew.select(positive, divisor, ones)),
                         _nan_of(total))
    return ew.convert_element_type(out_, result)


def _mean_kept(x: Any, axes: tuple[int, ...], where: Any, fn: str) -> Any:
    """The mean over ``axes`` broadcast back to ``x``'s shape."""
    total = keep(st.reduce_sum(masked(x, where, 0, fn), axes), axes, True)
    count = _count(get_aval(x).shape, axes, True, where, get_aval(x).dtype, fn)
    return st.broadcast_to(_divide_by_count(total, count), get_aval(x).shape)


def std(a: ArrayLike, axis: Axis = None, dtype: Any = None, out: None = None, ddof: int = 0,
        keepdims: bool = False, *, where: ArrayLike | None = None,
        mean: ArrayLike | None = None, correction: int | float | None = None) -> Any:
    """The standard deviation, ``sqrt(var)``; its derivative at a constant input is NaN
    (``sqrt'(0) * 0``), as JAX's."""
    fast_std = _fast_variance(a, axis, dtype, out, ddof, keepdims, where, mean, correction,
                              "std", True)
    if fast_std is not None:
        return fast_std
    return sqrt(variance(a, axis, dtype, out, ddof, keepdims, where, mean, correction, "std"))


def average(a: ArrayLike, axis: Axis = None, weights: ArrayLike | None = None,
            returned: bool = False, keepdims: bool = False) -> Any:
    """The weighted mean ``sum(a * w) / sum(w)`` over ``axis``; ``weights`` of ``a``'s shape,
    or 1-D along an int ``axis``. Weights summing to zero give NaN or inf (NumPy raises)."""
    x = asarray(a)
    axes = reduction_axes(x, axis, keepdims, "average")
    if weights is None:
        x = ew.convert_element_type(x, float_dtype(x))
        avg = mean(x, axes, keepdims=keepdims)
        total = st.full(get_aval(avg).shape, size_of(get_aval(x).shape, axes),
                        get_aval(avg).dtype)
        return (avg, total) if returned else avg
    w = asarray(weights)
    dtype = float_dtype(x, w)
    x, w = ew.convert_element_type(x, dtype), ew.convert_element_type(w, dtype)
    shape, w_shape = get_aval(x).shape, get_aval(w).shape
    if w_shape != shape:
        if axis is None:
            raise ValueError(f"average: axis must be given when weights (shape {w_shape}) "
                             f"and a (shape {shape}) differ in shape")
        if w_shape != tuple(shape[i] for i in axes):
            raise ValueError(f"average: weights must have a's shape {shape}, or the shape of "
                             f"a along axis ({tuple(shape[i] for i in axes)}); got {w_shape}")
        w = st.broadcast_in_dim(w, shape, axes)
    w_total = keep(st.reduce_sum(w, axes), axes, keepdims)
    avg = ew.div(keep(st.reduce_sum(ew.mul(x, w), axes), axes, keepdims), w_total)
    return (avg, w_total) if returned else avg


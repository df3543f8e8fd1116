"""The NaN-ignoring reductions: nansum, nanprod, nanmax, nanmin, nanargmax, nanargmin,
nanmean, nanvar, nanstd. Each selects (a NaN becomes the reduction's identity, or is masked
out) and then reduces, so a NaN position gets a zero derivative. On integer and bool arrays
they are the plain reductions.

All-NaN slices follow JAX, not NumPy's warnings and errors: nanmax/nanmin give NaN (with zero
derivatives), nanargmax/nanargmin give -1 (NumPy raises ValueError: a data-dependent error that
jit could not raise), nanmean/nanvar give NaN.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.core import get_aval
from minigrad.dtypes import default_int_dtype
from minigrad.numpy import reductions as rd
from minigrad.numpy.util import ArrayLike, Axis, asarray, keep
from minigrad.ops import elementwise as ew
from minigrad.ops import reductions as red
from minigrad.ops import structural as st

__all__ = [  # what minigrad.numpy exports from here
    "nanargmax", "nanargmin", "nanmax", "nanmean", "nanmin", "nanprod", "nanstd", "nansum",
    "nanvar",
]


def isnan_mask(x: Any) -> Any:
    """Where ``x`` is NaN (``x != x``); all False for integers and bools."""
    aval = get_aval(x)
    if aval.dtype.kind not in "fc":
        return st.full(aval.shape, False, np.bool_)
    return ew.ne(x, x)


def _replace_nans(x: Any, value: Any) -> Any:
    aval = get_aval(x)
    if aval.dtype.kind not in "fc":
        return x
    return ew.select(isnan_mask(x), st.full(aval.shape, value, aval.dtype), x)


def _has_nans(x: Any) -> bool:
    return get_aval(x).dtype.kind in "fc"


def nansum(a: ArrayLike, axis: Axis = None, dtype: Any = None, out: None = None,
           keepdims: bool = False, initial: ArrayLike | None = None,
           where: ArrayLike | None = None) -> Any:
    """sum with NaNs taken as 0."""
    return rd._sum_like(_replace_nans(asarray(a), 0), axis, dtype, out, keepdims, initial,
                        where, True, "nansum")


def nanprod(a: ArrayLike, axis: Axis = None, dtype: Any = None, out: None = None,
            keepdims: bool = False, initial: ArrayLike | None = None,
            where: ArrayLike | None = None) -> Any:
    """prod with NaNs taken as 1."""
    return rd._sum_like(_replace_nans(asarray(a), 1), axis, dtype, out, keepdims, initial,
                        where, True, "nanprod")


def _nan_extreme(a: ArrayLike, axis: Axis, out: Any, keepdims: Any, initial: Any, where: Any,
                 fn: str, is_max: bool) -> Any:
    x = asarray(a)
    if not _has_nans(x):
        return rd._extreme(x, axis, out, keepdims, initial, where, fn, is_max)
    nan = isnan_mask(x)
    result = rd._extreme(_replace_nans(x, -np.inf if is_max else np.inf), axis, out, keepdims,
                         initial, where, fn, is_max)
    axes = rd.canonical_axes(axis, get_aval(x).ndim, fn)
    if where is not None:  # masked-out elements count as NaN for "all NaN"
        nan = ew.select(rd.where_mask(where, get_aval(x).shape, fn), nan,
                        st.full(get_aval(x).shape, True, np.bool_))
    all_nan = keep(red.reduce_and(nan, axes), axes, keepdims)
    if initial is not None:  # with an initial value a slice is never empty
        return result
    return ew.select(all_nan, st.full(get_aval(result).shape, np.nan, get_aval(result).dtype),
                     result)


def nanmax(a: ArrayLike, axis: Axis = None, out: None = None, keepdims: bool = False,
           initial: ArrayLike | None = None, where: ArrayLike | None = None) -> Any:
    """max ignoring NaNs; an all-NaN slice gives NaN (NumPy also warns)."""
    return _nan_extreme(a, axis, out, keepdims, initial, where, "nanmax", True)


def nanmin(a: ArrayLike, axis: Axis = None, out: None = None, keepdims: bool = False,
           initial: ArrayLike | None = None, where: ArrayLike | None = None) -> Any:
    """min ignoring NaNs; an all-NaN slice gives NaN (NumPy also warns)."""
    return _nan_extreme(a, axis, out, keepdims, initial, where, "nanmin", False)


def _nan_arg(a: ArrayLike, axis: int | None, out: Any, keepdims: Any, fn: str, is_max: bool
             ) -> Any:
    x = asarray(a)
    if not _has_nans(x):
        return rd._arg(x, axis, out, keepdims, fn, is_max)
    index = rd._arg(_replace_nans(x, -np.inf if is_max else np.inf), axis, out, keepdims, fn,
                    is_max)
    nan = isnan_mask(x)
    ndim = get_aval(x).ndim
    if axis is None or ndim == 0:
        all_nan = st.broadcast_to(red.reduce_and(nan, tuple(range(ndim))),
                                  get_aval(index).shape)
    else:
        (ax,) = rd.canonical_axes(axis, ndim, fn)
        all_nan = keep(red.reduce_and(nan, (ax,)), (ax,), bool(keepdims))
    shape = get_aval(index).shape
    return ew.select(all_nan, st.full(shape, -1, default_int_dtype()), index)


def nanargmax(a: ArrayLike, axis: int | None = None, out: None = None,
              keepdims: bool | None = None) -> Any:
    """argmax ignoring NaNs; -1 for an all-NaN slice (NumPy raises), as JAX.

    >>> import minigrad.numpy as mnp, numpy as np
    >>> mnp.nanargmax(np.array([np.nan, np.nan]))
    Array(-1, dtype=int64)
    """
    return _nan_arg(a, axis, out, keepdims, "nanargmax", True)


def nanargmin(a: ArrayLike, axis: int | None = None, out: None = None,
              keepdims: bool | None = None) -> Any:
    """argmin ignoring NaNs; -1 for an all-NaN slice (NumPy raises), as JAX."""
    return _nan_arg(a, axis, out, keepdims, "nanargmin", False)


def _not_nan(x: Any, where: Any, fn: str) -> Any:
    """The mask of the elements a nan-statistic uses: not NaN, and inside ``where``."""
    mask = ew.ne(isnan_mask(x), st.full(get_aval(x).shape, True, np.bool_))
    if where is None:
        return mask
    return ew.select(rd.where_mask(where, get_aval(x).shape, fn), mask,
                     st.full(get_aval(x).shape, False, np.bool_))


def nanmean(a: ArrayLike, axis: Axis = None, dtype: Any = None, out: None = None,
            keepdims: bool = False, where: ArrayLike | None = None) -> Any:
    """mean of the elements that are not NaN; NaN for an all-NaN slice."""
    x = asarray(a)
    rd.reduction_axes(x, axis, keepdims, "nanmean")  # (its errors name nanmean)
    if not _has_nans(x):
        return rd.mean(x, axis, dtype, out, keepdims, where=where)
    return rd.mean(_replace_nans(x, 0), axis, dtype, out, keepdims,
                   where=_not_nan(x, where, "nanmean"))


def nanvar(a: ArrayLike, axis: Axis = None, dtype: Any = None, out: None = None,
           ddof: int = 0, keepdims: bool = False, where: ArrayLike | None = None,
           mean: ArrayLike | None = None) -> Any:
    """var of the elements that are not NaN, divided by their count minus ``ddof``."""
    return _nanvar(a, axis, dtype, out, ddof, keepdims, where, mean, "nanvar")


def _nanvar(a: ArrayLike, axis: Axis, dtype: Any, out: Any, ddof: Any, keepdims: Any,
            where: Any, mean: Any, fn: str) -> Any:
    x = asarray(a)
    rd.reduction_axes(x, axis, keepdims, fn)  # (its errors name fn)
    if _has_nans(x):
        x, where = _replace_nans(x, 0), _not_nan(x, where, fn)
    return rd.variance(x, axis, dtype, out, ddof, keepdims, where, mean, None, fn)


def nanstd(a: ArrayLike, axis: Axis = None, dtype: Any = None, out: None = None,
           ddof: int = 0, keepdims: bool = False, where: ArrayLike | None = None,
           mean: ArrayLike | None = None) -> Any:
    """std of the elements that are not NaN."""
    return ew.sqrt(_nanvar(a, axis, dtype, out, ddof, keepdims, where, mean, "nanstd"))

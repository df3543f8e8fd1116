"""Eager fast paths of reductions, sorts and the median (``minigrad.numpy.eager`` says when
one may run). Each function here is called after the general path's own argument checks, with
a concrete ndarray or Array, and runs the NumPy calls of the primitives the general path binds
(``reduce_sum``'s ``np.add.reduce(x, axis, dtype=x.dtype)``, ``div``'s ``np.divide`` ...) in
the same order on the same dtypes: the same bits, without a bind per primitive (the median
partitions where the general path sorts: the same values, see there). The comment above each
names the general function it follows.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad.numpy.eager import wrap
from minigrad.ops.structural import sum_logical

_NAN = np.nan


def _sum(x: np.ndarray, axes: tuple[int, ...], keepdims: bool = False) -> Any:
    """``st.reduce_sum``: ``x`` itself over no axes; ``keepdims`` keeps the summed axes as the
    general path's ``keep`` does (speed: the reduction keeps them, ~2 us less than
    np.expand_dims)."""
    return sum_logical(x, axes, keepdims) if axes else x


def _nan_times(x: Any) -> Any:
    """``ew.mul(x, full(nan))``: NaN, quietly (reductions' empty mean and variance)."""
    return np.multiply(x, np.full(np.shape(x), _NAN, x.dtype))


# reductions.mean (float32 or float64, no dtype or where; any axis and keepdims)
def mean(a: np.ndarray, axes: tuple[int, ...], keepdims: bool) -> Any:
    x = a.view(np.ndarray)
    total = _sum(x, axes, keepdims)
    count = math.prod([x.shape[i] for i in axes])
    if count == 0:
        return wrap(_nan_times(total))
    return wrap(np.divide(total, np.asarray(count, x.dtype)))


# reductions.variance (float32 or float64, no dtype, where or mean; a Python number correction)
def var(a: np.ndarray, axes: tuple[int, ...], keepdims: bool, correction: int | float,
        root: bool) -> Any:
    x = a.view(np.ndarray)
    dtype = x.dtype
    count = math.prod([x.shape[i] for i in axes])
    total = _sum(x, axes, True)
    center = _nan_times(total) if count == 0 else np.divide(total, np.asarray(count, dtype))
    centered = np.subtract(x, center)
    squares = _sum(np.multiply(centered, centered), axes, keepdims)
    divisor = count - correction
    if divisor <= 0:
        out = _nan_times(squares)
    else:
        out = np.divide(squares, np.asarray(divisor, dtype))
    return wrap(np.sqrt(out) if root else out)


# reductions._logical (a bool or real array of a canonical dtype, no where)
def all_any(a: np.ndarray, axes: tuple[int, ...], keepdims: bool, is_all: bool) -> Any:
    x = a.view(np.ndarray)
    truth = x if x.dtype == np.bool_ else np.not_equal(x, 0)  # (0 cast to x's dtype: ne 0)
    if axes:
        combine = np.logical_and if is_all else np.logical_or
        out = combine.reduce(truth, axis=axes, keepdims=keepdims)  # type: ignore[call-overload]
        return wrap(out)
    return wrap(np.array(truth, copy=True))  # (copy_of: NumPy's all over no axes copies)


# sorting.sort and argsort along an int axis, ascending (sort's impl: NumPy's stable sort)
def sort(a: np.ndarray, axis: int) -> Any:
    return wrap(np.sort(a.view(np.ndarray), axis=axis, kind="stable"))


def argsort(a: np.ndarray, axis: int, index_dtype: np.dtype) -> Any:
    # (the general path sorts the positions with x: take_along_axis(iota, order) = order)
    order = np.argsort(a.view(np.ndarray), axis=axis, kind="stable")
    return wrap(order.astype(index_dtype, copy=False))


# statistics.median (the general path's shapes already computed; n > 0 and rows > 0)
def median(a: np.ndarray, kept: list[int], axes: tuple[int, ...], rows: int, n: int,
           dtype: np.dtype, shape: tuple[int, ...]) -> Any:
    x = a.view(np.ndarray)
    perm = (*kept, *axes)
    if perm != tuple(range(x.ndim)):
        x = x.transpose(perm)
    x = x.reshape(rows, n)
    if x.dtype != dtype:
        x = x.astype(dtype)
    lo, hi = (n - 1) // 2, n // 2
    # The general path sorts; a partition puts the same values at lo, hi and n - 1 (NaNs
    # last, as the sort), in a third of the time. Only equal values may trade places, and
    # only zeros (-0.0 and 0.0) differ in bits: a zero in the middle is taken from the sort.
    s = np.partition(x, sorted({lo, hi, n - 1}), axis=1)
    if np.count_nonzero(s[:, lo:hi + 1]) != rows * (hi + 1 - lo):  # (hi is lo or lo + 1)
        s = np.sort(x, axis=1, kind="stable")
    middle = s[:, lo:lo + 1]
    if hi != lo:  # (times a scalar 0.5 of the dtype: the general path's full array's product)
        middle = np.multiply(np.add(middle, s[:, hi:hi + 1]), dtype.type(0.5))
    last = s[:, n - 1:n]
    middle = np.where(np.not_equal(last, last), dtype.type(_NAN), middle)
    return wrap(middle.reshape(shape))

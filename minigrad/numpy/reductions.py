"""Reductions and cumulative functions over the reduction primitives: ``axis`` as None, an int,
a negative int or a tuple, and ``keepdims``."""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.core import get_aval
from minigrad.dtypes import default_int_dtype
from minigrad.numpy.shape import ravel
from minigrad.numpy.ufuncs import divide
from minigrad.numpy.util import (
    ArrayLike,
    Axis,
    asarray,
    canonical_axes,
    copy_of,
    float_dtype,
    keep,
)
from minigrad.ops import elementwise as ew
from minigrad.ops import structural as st

__all__ = [  # what minigrad.numpy exports from here
    "cumsum", "max", "mean", "sum",
]


def sum(x: ArrayLike, axis: Axis = None, keepdims: bool = False) -> Any:
    x = asarray(x)
    axes = canonical_axes(axis, get_aval(x).ndim, "sum")
    if get_aval(x).dtype == np.bool_:
        x = ew.convert_element_type(x, default_int_dtype())
    out = keep(st.reduce_sum(x, axes), axes, keepdims)
    return out if axes else copy_of(out)  # (summing over no axes, NumPy still copies)


def max(x: ArrayLike, axis: Axis = None, keepdims: bool = False) -> Any:
    x = asarray(x)
    axes = canonical_axes(axis, get_aval(x).ndim, "max")
    out = keep(ew.reduce_max(x, axes), axes, keepdims)
    return out if axes else copy_of(out)


def mean(x: ArrayLike, axis: Axis = None, keepdims: bool = False) -> Any:
    x = asarray(x)
    aval = get_aval(x)
    axes = canonical_axes(axis, aval.ndim, "mean")
    count = int(np.prod([aval.shape[a] for a in axes], dtype=np.int64))
    x = ew.convert_element_type(x, float_dtype(x))
    return divide(sum(x, axes, keepdims), count)



def cumsum(x: ArrayLike, axis: int | None = None) -> Any:
    x = asarray(x)
    if axis is None:
        x, axis = ravel(x), 0
    if get_aval(x).dtype == np.bool_:
        x = ew.convert_element_type(x, default_int_dtype())
    (ax,) = canonical_axes(axis, get_aval(x).ndim, "cumsum")
    return st.cumsum(x, ax)


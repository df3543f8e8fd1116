"""Array creation: zeros, ones, full, arange and the ``*_like`` functions."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from minigrad.core import get_aval
from minigrad.numpy.ufuncs import add, astype, multiply
from minigrad.numpy.util import ArrayLike, asarray, dtype_arg, result_dtype
from minigrad.ops import structural as st


def zeros(shape: int | Sequence[int], dtype: Any = None) -> Any:
    """Zeros of the default float dtype (float64; float32 with x64 off) unless given."""
    return st.full((shape,) if isinstance(shape, int) else shape, 0, dtype_arg(dtype, "zeros"))


def ones(shape: int | Sequence[int], dtype: Any = None) -> Any:
    return st.full((shape,) if isinstance(shape, int) else shape, 1, dtype_arg(dtype, "ones"))


def full(shape: int | Sequence[int], fill_value: Any, dtype: Any = None) -> Any:
    dtype = dtype_arg(dtype, "full", get_aval(asarray(fill_value)).dtype)
    return st.full((shape,) if isinstance(shape, int) else shape, fill_value, dtype)


def arange(start: Any, stop: Any = None, step: Any = 1, dtype: Any = None) -> Any:
    """``np.arange``: the dtype follows the arguments unless given (int64 for ints)."""
    if stop is None:
        start, stop = 0, start
    dtype = dtype_arg(dtype, "arange", result_dtype(start, stop, step))
    if all(isinstance(v, (int, np.integer)) for v in (start, stop, step)):
        return st.arange(start, stop, step, dtype)
    # Fractional bounds or step: NumPy's element count, then start + i * step.
    n = np.arange(start, stop, step).size
    return astype(add(multiply(st.arange(0, n, 1, dtype), step), start), dtype)


def zeros_like(x: ArrayLike, dtype: Any = None) -> Any:
    aval = get_aval(asarray(x))
    return st.full(aval.shape, 0, dtype_arg(dtype, "zeros_like", aval.dtype))


def ones_like(x: ArrayLike, dtype: Any = None) -> Any:
    aval = get_aval(asarray(x))
    return st.full(aval.shape, 1, dtype_arg(dtype, "ones_like", aval.dtype))


def full_like(x: ArrayLike, fill_value: Any, dtype: Any = None) -> Any:
    aval = get_aval(asarray(x))
    return st.full(aval.shape, fill_value, dtype_arg(dtype, "full_like", aval.dtype))


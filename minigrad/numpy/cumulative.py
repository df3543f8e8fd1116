"""Cumulative functions: cumsum, cumprod (and the array API's cumulative_sum, cumulative_prod,
with ``include_initial``), nancumsum, nancumprod, over the cumsum and cumprod primitives.

``axis=None`` flattens first (as NumPy). Dtypes are NumPy 2's, as for sum: bool and integers
narrower than the default integer accumulate in the default integer (JAX keeps int8 ... int32:
a documented divergence). The derivative of cumprod is exact with zeros in the input.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.core import get_aval
from minigrad.dtypes import default_int_dtype, default_uint_dtype
from minigrad.numpy.reductions import plain_axes, refuse_out
from minigrad.numpy.shape import ravel
from minigrad.numpy.util import ArrayLike, asarray, canonical_axes, dtype_arg
from minigrad.ops import cumulative as cu
from minigrad.ops import elementwise as ew
from minigrad.ops import structural as st

__all__ = [  # what minigrad.numpy exports from here
    "cumprod", "cumsum", "cumulative_prod", "cumulative_sum", "nancumprod", "nancumsum",
]


def _accumulation_dtype(dtype: np.dtype) -> np.dtype:
    if dtype == np.bool_:
        return default_int_dtype()
    if dtype.kind == "i" and dtype.itemsize < default_int_dtype().itemsize:
        return default_int_dtype()
    if dtype.kind == "u" and dtype.itemsize < default_uint_dtype().itemsize:
        return default_uint_dtype()
    return dtype


def _prepare(a: ArrayLike, axis: Any, dtype: Any, fn: str) -> tuple[Any, int]:
    """The array (flattened for ``axis=None``, converted to its accumulation dtype) and the
    non-negative axis."""
    x = asarray(a)
    if axis is None:
        x, axis = ravel(x), 0
    elif not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise TypeError(f"{fn}: axis must be None or an int; got {axis!r}")
    if get_aval(x).ndim == 0:  # a 0-d array is one element (axis 0 or -1)
        canonical_axes(axis, 0, fn)
        x, axis = st.reshape(x, (1,)), 0
    (ax,) = canonical_axes(axis, get_aval(x).ndim, fn)
    target = dtype_arg(dtype, fn) if dtype is not None else \
        _accumulation_dtype(get_aval(x).dtype)
    return ew.convert_element_type(x, target), ax


def cumsum(a: ArrayLike, axis: int | None = None, dtype: Any = None, out: None = None) -> Any:
    """Running sums along ``axis`` (of the flattened array if None)."""
    axes = plain_axes(a, axis) if dtype is None and out is None else None
    if axes and len(axes) == 1:  # (the common call: no conversion, nothing to ravel)
        return st.cumsum_p.bind(a, axis=axes[0], reverse=False)
    refuse_out(out, "cumsum")
    x, ax = _prepare(a, axis, dtype, "cumsum")
    return st.cumsum(x, ax)


def cumprod(a: ArrayLike, axis: int | None = None, dtype: Any = None, out: None = None
            ) -> Any:
    """Running products along ``axis``; the derivative is exact where the input has zeros."""
    refuse_out(out, "cumprod")
    x, ax = _prepare(a, axis, dtype, "cumprod")
    return cu.cumprod(x, ax)


def _cumulative(a: ArrayLike, axis: int | None, dtype: Any, include_initial: Any, fn: str
                ) -> tuple[Any, int]:
    x = asarray(a)
    if axis is None:
        if get_aval(x).ndim > 1:
            raise ValueError(f"{fn}: axis must be given for an array of rank "
                             f"{get_aval(x).ndim} (None is only for rank 0 or 1)")
        axis = 0
    if not isinstance(include_initial, (bool, np.bool_)):
        raise TypeError(f"{fn}: include_initial must be a bool; got {include_initial!r}")
    return _prepare(x, axis, dtype, fn)


def _with_initial(out: Any, axis: int, identity: int) -> Any:
    """``out`` with the identity prepended along ``axis``."""
    shape = list(get_aval(out).shape)
    shape[axis] = 1
    return st.concatenate([st.full(shape, identity, get_aval(out).dtype), out], axis)


def cumulative_sum(x: ArrayLike, /, *, axis: int | None = None, dtype: Any = None,
                   include_initial: bool = False) -> Any:
    """The array API's cumsum: ``axis`` may be None only for rank 0 or 1;
    ``include_initial`` prepends a 0."""
    y, ax = _cumulative(x, axis, dtype, include_initial, "cumulative_sum")
    out = st.cumsum(y, ax)
    return _with_initial(out, ax, 0) if include_initial else out


def cumulative_prod(x: ArrayLike, /, *, axis: int | None = None, dtype: Any = None,
                    include_initial: bool = False) -> Any:
    """The array API's cumprod: ``axis`` may be None only for rank 0 or 1;
    ``include_initial`` prepends a 1."""
    y, ax = _cumulative(x, axis, dtype, include_initial, "cumulative_prod")
    out = cu.cumprod(y, ax)
    return _with_initial(out, ax, 1) if include_initial else out


def _without_nans(a: ArrayLike, identity: int) -> Any:
    x = asarray(a)
    aval = get_aval(x)
    if aval.dtype.kind not in "fc":
        return x
    return ew.select(ew.ne(x, x), st.full(aval.shape, identity, aval.dtype), x)


def nancumsum(a: ArrayLike, axis: int | None = None, dtype: Any = None, out: None = None
              ) -> Any:
    """cumsum with NaNs taken as 0 (a NaN position gets a zero derivative)."""
    refuse_out(out, "nancumsum")
    x, ax = _prepare(_without_nans(a, 0), axis, dtype, "nancumsum")
    return st.cumsum(x, ax)


def nancumprod(a: ArrayLike, axis: int | None = None, dtype: Any = None, out: None = None
               ) -> Any:
    """cumprod with NaNs taken as 1 (a NaN position gets a zero derivative)."""
    refuse_out(out, "nancumprod")
    x, ax = _prepare(_without_nans(a, 1), axis, dtype, "nancumprod")
    return cu.cumprod(x, ax)

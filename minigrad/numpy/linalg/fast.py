"""Eager fast paths of ``solve``, ``inv``, ``det`` and ``slogdet``: NumPy's LAPACK calls
(getrf and getrs, one call for a whole stack), taken when no transform is running and the
operands are concrete float arrays with finite entries (``minigrad.numpy.eager``'s guards).

Each returns None where the general path must run: under a transform (which sees the ``lu``
and ``triangular_solve`` primitives and their rules), for another dtype or shape, for an empty
matrix, a non-finite entry, or a matrix LAPACK finds singular (the general path's answer then
is its infinities and NaNs, where NumPy raises). The values are the general path's up to
rounding: the same factorization (partial pivoting, LAPACK's pivot choice) in LAPACK's blocked
order; ``det`` multiplies U's diagonal in order rather than as a tree, and keeps the explicit
formulas of matrices up to 3x3 (as JAX) on the general path.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad import core
from minigrad.config import x64_enabled
from minigrad.numpy.eager import F32, F64, eager, wrap
from minigrad.ops.structural import sum_logical


def _wrap(x: Any) -> Any:
    """A float result (an ndarray, or a NumPy scalar for one matrix) as an Array: ``wrap``'s
    conversion without its type tests (0.43 -> 0.17 us)."""
    return np.asarray(x).view(core.eager_array_type)


def _plain(x: Any) -> np.ndarray | None:
    """``x`` as a plain ndarray if it is an ndarray or Array of float32, or of float64 with x64
    on (``real_float``'s test, inline: a call less), else None."""
    t = type(x)
    v = x if t is np.ndarray else x.view(np.ndarray) if t is core.eager_array_type else None
    if v is None:
        return None
    dtype = v.dtype
    return v if dtype == F32 or (dtype == F64 and x64_enabled()) else None


def _matrices(a: Any) -> np.ndarray | None:
    """``a`` as an ndarray if it is a concrete stack of non-empty square float matrices with
    finite entries (no transform running), else None."""
    v = _plain(a)
    if v is None or v.ndim < 2 or not eager():
        return None
    n = v.shape[-1]
    # (speed: the sum of squares is finite only if every entry is; one vdot costs ~0.6 us
    # where isfinite(a).all() costs ~1.6; entries above ~1e154 (1e19 in float32) overflow it
    # and take the general path)
    if n == 0 or v.shape[-2] != n or not math.isfinite(np.vdot(v, v)):
        return None
    return v


def solve(a: Any, b: Any) -> Any:
    m = _matrices(a)
    if m is None:
        return None
    v = _plain(b)
    if v is None or v.dtype != m.dtype:
        return None
    n = m.shape[-1]
    if v.ndim == 1:
        if v.shape[0] != n:
            return None
    elif v.ndim < 2 or v.shape[-2] != n or v.shape[:-2] != m.shape[:-2]:
        return None  # (broadcast batches: the general path)
    try:
        return _wrap(np.linalg.solve(m, v))
    except np.linalg.LinAlgError:
        return None


def inv(a: Any) -> Any:
    m = _matrices(a)
    if m is None:
        return None
    try:
        return _wrap(np.linalg.inv(m))
    except np.linalg.LinAlgError:
        return None


def det(a: Any) -> Any:
    m = _matrices(a)
    if m is None or m.shape[-1] <= 3:
        return None
    return _wrap(np.linalg.det(m))


def slogdet(a: Any) -> tuple[Any, Any] | None:
    m = _matrices(a)
    if m is None:
        return None
    sign, logabsdet = np.linalg.slogdet(m)
    return _wrap(sign), _wrap(logabsdet)


def norm(x: Any, axes: tuple[int, ...], keepdims: bool) -> Any:
    """``norms._sum_sq`` (the 2-norm over ``axes``; ord None), kept axes as ``_keep``."""
    v = x.view(np.ndarray)
    squares = np.multiply(v, v)
    out = np.sqrt(sum_logical(squares, axes) if axes else squares)
    return wrap(np.expand_dims(out, axes) if keepdims else out)

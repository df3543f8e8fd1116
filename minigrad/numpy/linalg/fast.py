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

from minigrad.numpy.eager import eager, real_float, wrap
from minigrad.ops.structural import sum_logical


def _square(a: Any) -> bool:
    """A concrete stack of non-empty square float matrices with finite entries."""
    # (speed: a sum is finite only if every entry is, and one finite sum costs ~1 us where
    # isfinite(a).all() of an Array costs ~3; a sum that overflows takes the general path)
    return (real_float(a) and a.ndim >= 2 and a.shape[-1] == a.shape[-2]
            and a.shape[-1] > 0 and math.isfinite(np.add.reduce(a.view(np.ndarray), axis=None)))


def solve(a: Any, b: Any) -> Any:
    if not (eager() and real_float(b) and _square(a) and a.dtype == b.dtype):
        return None
    n = a.shape[-1]
    if b.ndim == 1:
        if b.shape[0] != n:
            return None
    elif b.ndim < 2 or b.shape[-2] != n or b.shape[:-2] != a.shape[:-2]:
        return None  # (broadcast batches: the general path)
    try:
        return wrap(np.linalg.solve(a.view(np.ndarray), b.view(np.ndarray)))
    except np.linalg.LinAlgError:
        return None


def inv(a: Any) -> Any:
    if not (eager() and _square(a)):
        return None
    try:
        return wrap(np.linalg.inv(a.view(np.ndarray)))
    except np.linalg.LinAlgError:
        return None


def det(a: Any) -> Any:
    if not (eager() and _square(a) and a.shape[-1] > 3):
        return None
    return wrap(np.linalg.det(a.view(np.ndarray)))


def slogdet(a: Any) -> tuple[Any, Any] | None:
    if not (eager() and _square(a)):
        return None
    sign, logabsdet = np.linalg.slogdet(a.view(np.ndarray))
    return wrap(sign), wrap(logabsdet)


def norm(x: Any, axes: tuple[int, ...], keepdims: bool) -> Any:
    """``norms._sum_sq`` (the 2-norm over ``axes``; ord None), kept axes as ``_keep``."""
    v = x.view(np.ndarray)
    squares = np.multiply(v, v)
    out = np.sqrt(sum_logical(squares, axes) if axes else squares)
    return wrap(np.expand_dims(out, axes) if keepdims else out)

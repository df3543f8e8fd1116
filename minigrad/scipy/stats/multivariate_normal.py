"""The multivariate normal distribution ``N(mean, cov)``: ``logpdf`` and ``pdf``, JAX's
formula: with ``cov = L L^T`` (Cholesky, of the symmetrized ``cov``) and ``y = L^-1 (x -
mean)``, ``logpdf = -|y|**2 / 2 - n log(2 pi) / 2 - sum(log diag L)``. A scalar ``mean`` is
the one-dimensional case; a scalar ``cov`` is ``cov * I``."""

from __future__ import annotations

import math
from typing import Any

from minigrad import numpy as mnp
from minigrad.core import get_aval
from minigrad.numpy.util import ArrayLike, asarray, check_broadcast, float_dtype
from minigrad.ops.linalg import triangular_solve

__all__ = ["logpdf", "pdf"]


def _operands(fn: str, x: ArrayLike, mean: ArrayLike, cov: ArrayLike) -> list[Any]:
    arrays = [asarray(v) for v in (x, mean, cov)]
    for name, v in zip(("x", "mean", "cov"), arrays, strict=True):
        if get_aval(v).dtype.kind not in "biuf":
            raise TypeError(f"{fn}: {name} must be real; got dtype {get_aval(v).dtype}")
    dtype = float_dtype(*arrays)
    return [mnp.asarray(v, dtype) for v in arrays]


def logpdf(x: ArrayLike, mean: ArrayLike, cov: ArrayLike, allow_singular: None = None) -> Any:
    """The log-density at ``x`` (``(..., n)``) of ``N(mean, cov)`` (``mean`` ``(..., n)``,
    ``cov`` ``(..., n, n)``; batch dimensions broadcast).

    >>> import numpy as np
    >>> from minigrad.scipy.stats import multivariate_normal
    >>> multivariate_normal.logpdf(np.zeros(2), np.zeros(2), np.eye(2))
    Array(-1.83787707, dtype=float64)
    """
    if allow_singular is not None:
        raise NotImplementedError("multivariate_normal.logpdf: allow_singular is not "
                                  "supported (as JAX); pass None")
    x, mean, cov = _operands("multivariate_normal.logpdf", x, mean, cov)
    log_2pi = math.log(2 * math.pi)
    mean_shape, cov_shape = get_aval(mean).shape, get_aval(cov).shape
    if not mean_shape:
        check_broadcast("multivariate_normal.logpdf", get_aval(x).shape, cov_shape)
        d = x - mean
        return -0.5 * (d * d) / cov - 0.5 * (log_2pi + mnp.log(cov))
    n = mean_shape[-1]
    if get_aval(x).shape[-1:] != (n,):
        raise ValueError(f"multivariate_normal.logpdf: x must end in the dimension {n} of "
                         f"mean; got shape {get_aval(x).shape}")
    check_broadcast("multivariate_normal.logpdf", get_aval(x).shape, mean_shape)
    y = x - mean
    if not cov_shape:
        return -0.5 * mnp.sum(y * y, axis=-1) / cov - (n / 2) * (log_2pi + mnp.log(cov))
    if len(cov_shape) < 2 or cov_shape[-2:] != (n, n):
        raise ValueError(f"multivariate_normal.logpdf: cov must have shape (..., {n}, {n}) "
                         f"to match mean of shape {mean_shape}; got {cov_shape}")
    low = mnp.linalg.cholesky(cov)
    batch = check_broadcast("multivariate_normal.logpdf", get_aval(y).shape[:-1],
                            cov_shape[:-2])
    low = mnp.broadcast_to(low, (*batch, n, n))
    y = mnp.broadcast_to(y, (*batch, n))
    # y <- L^-1 (x - mean): one left-side triangular solve on a column
    z = triangular_solve(low, y[..., None], left_side=True, lower=True)[..., 0]
    log_det_half = mnp.sum(mnp.log(mnp.diagonal(low, axis1=-2, axis2=-1)), axis=-1)
    return -0.5 * mnp.sum(z * z, axis=-1) - (n / 2) * log_2pi - log_det_half


def pdf(x: ArrayLike, mean: ArrayLike, cov: ArrayLike) -> Any:
    """``exp(logpdf(x, mean, cov))``."""
    return mnp.exp(logpdf(x, mean, cov))

"""The exponential distribution from ``loc`` with mean ``scale``: ``logpdf``, ``pdf``,
``cdf``, ``logcdf``, ``sf``, ``logsf``, ``ppf`` (JAX's formulas)."""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad import numpy as mnp
from minigrad.numpy.util import ArrayLike
from minigrad.scipy._util import inexact

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]

_NAMES = ("x", "loc", "scale")


def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``-(x - loc) / scale - log(scale)`` from ``loc`` on, ``-inf`` below.

    >>> from minigrad.scipy.stats import expon
    >>> expon.logpdf(2.0)
    Array(-2., dtype=float64)
    """
    x, loc, scale = inexact("expon.logpdf", x, loc, scale, names=_NAMES)
    log_probs = -((x - loc) / scale + mnp.log(scale))
    return mnp.where(x < loc, -np.inf, log_probs)


def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``exp(logpdf(x, loc, scale))``."""
    return mnp.exp(logpdf(x, loc, scale))


def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``-expm1(-(x - loc) / scale)``, 0 below ``loc``."""
    x, loc, scale = inexact("expon.cdf", x, loc, scale, names=_NAMES)
    neg_scaled = (loc - x) / scale
    return mnp.where(x < loc, mnp.zeros_like(neg_scaled), -mnp.expm1(neg_scaled))


def logsf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``-(x - loc) / scale``, 0 below ``loc``."""
    x, loc, scale = inexact("expon.logsf", x, loc, scale, names=_NAMES)
    neg_scaled = (loc - x) / scale
    return mnp.where(x < loc, mnp.zeros_like(neg_scaled), neg_scaled)


def sf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``exp(logsf(x, loc, scale))``."""
    return mnp.exp(logsf(x, loc, scale))


def logcdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``log1p(-sf(x, loc, scale))``."""
    return mnp.log1p(-sf(x, loc, scale))


def ppf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``loc - scale * log1p(-q)``; NaN for ``q`` outside [0, 1]."""
    q, loc, scale = inexact("expon.ppf", q, loc, scale, names=("q", "loc", "scale"))
    return mnp.where(mnp.isnan(q) | (q < 0) | (q > 1), np.nan, loc - scale * mnp.log1p(-q))

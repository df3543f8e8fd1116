"""The normal distribution ``N(loc, scale**2)``: ``logpdf``, ``pdf``, ``cdf``, ``logcdf``,
``sf``, ``logsf``, ``ppf``, ``isf`` (JAX's formulas: the tails through ``ndtr``, ``log_ndtr``
and ``ndtri``)."""

from __future__ import annotations

import math
from typing import Any

from minigrad import numpy as mnp
from minigrad.dtypes import default_float_dtype
from minigrad.numpy.util import ArrayLike
from minigrad.scipy._util import inexact
from minigrad.scipy.special import log_ndtr, ndtr, ndtri

__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]

_NAMES = ("x", "loc", "scale")


def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``-((x - loc)**2 / scale**2 + log(2 pi scale**2)) / 2``.

    >>> from minigrad.scipy.stats import norm
    >>> norm.logpdf(0.0)
    Array(-0.91893853, dtype=float64)
    """
    x, loc, scale = inexact("norm.logpdf", x, loc, scale, names=_NAMES)
    scale2 = scale * scale
    return (mnp.log((2 * math.pi) * scale2) + (x - loc) * (x - loc) / scale2) / -2


def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``exp(logpdf(x, loc, scale))``."""
    return mnp.exp(logpdf(x, loc, scale))


def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``ndtr((x - loc) / scale)``."""
    x, loc, scale = inexact("norm.cdf", x, loc, scale, names=_NAMES)
    return ndtr((x - loc) / scale)


def logcdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``log_ndtr((x - loc) / scale)``: exact far into the left tail."""
    x, loc, scale = inexact("norm.logcdf", x, loc, scale, names=_NAMES)
    return log_ndtr((x - loc) / scale)


def sf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """The survival function ``1 - cdf``, as ``cdf(-x, -loc, scale)``."""
    x, loc, scale = inexact("norm.sf", x, loc, scale, names=_NAMES)
    return cdf(-x, -loc, scale)


def logsf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``log(sf)``, as ``logcdf(-x, -loc, scale)``."""
    x, loc, scale = inexact("norm.logsf", x, loc, scale, names=_NAMES)
    return logcdf(-x, -loc, scale)


def ppf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """The quantile function ``ndtri(q) * scale + loc``, in the default float dtype (as JAX's
    ``asarray(..., float)``: float64 with x64 on)."""
    q, loc, scale = inexact("norm.ppf", q, loc, scale, names=("q", "loc", "scale"))
    return mnp.asarray(ndtri(q) * scale + loc, default_float_dtype())


def isf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """The inverse survival function ``ppf(1 - q, loc, scale)``."""
    (q,) = inexact("norm.isf", q, names=("q",))
    return ppf(1 - q, loc, scale)

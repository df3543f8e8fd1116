"""The Cauchy distribution: ``logpdf``, ``pdf``, ``cdf``, ``logcdf``, ``sf``, ``logsf``,
``ppf``, ``isf`` (JAX's formulas)."""

from __future__ import annotations

import math
from typing import Any

from minigrad import numpy as mnp
from minigrad.numpy.util import ArrayLike
from minigrad.scipy._util import inexact

__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]

_NAMES = ("x", "loc", "scale")


def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``-log(pi scale) - log1p(z**2)``, ``z = (x - loc) / scale``.

    >>> from minigrad.scipy.stats import cauchy
    >>> cauchy.logpdf(0.0)
    Array(-1.14472989, dtype=float64)
    """
    x, loc, scale = inexact("cauchy.logpdf", x, loc, scale, names=_NAMES)
    z = (x - loc) / scale
    return -(mnp.log(math.pi * scale) + mnp.log1p(z * z))


def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``exp(logpdf(x, loc, scale))``."""
    return mnp.exp(logpdf(x, loc, scale))


def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``1/2 + arctan(z) / pi``."""
    x, loc, scale = inexact("cauchy.cdf", x, loc, scale, names=_NAMES)
    return 0.5 + (1.0 / math.pi) * mnp.arctan((x - loc) / scale)


def logcdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``log(cdf(x, loc, scale))``."""
    return mnp.log(cdf(x, loc, scale))


def sf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``cdf(-x, -loc, scale)``."""
    x, loc, scale = inexact("cauchy.sf", x, loc, scale, names=_NAMES)
    return cdf(-x, -loc, scale)


def logsf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``logcdf(-x, -loc, scale)``."""
    x, loc, scale = inexact("cauchy.logsf", x, loc, scale, names=_NAMES)
    return logcdf(-x, -loc, scale)


def isf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``tan(pi/2 - pi q) * scale + loc``."""
    q, loc, scale = inexact("cauchy.isf", q, loc, scale, names=("q", "loc", "scale"))
    return mnp.tan(math.pi / 2 - math.pi * q) * scale + loc


def ppf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``tan(pi q - pi/2) * scale + loc``."""
    q, loc, scale = inexact("cauchy.ppf", q, loc, scale, names=("q", "loc", "scale"))
    return mnp.tan(math.pi * q - math.pi / 2) * scale + loc

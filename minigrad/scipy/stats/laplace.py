"""The Laplace distribution: ``logpdf``, ``pdf``, ``cdf`` (JAX's formulas)."""

from __future__ import annotations

from typing import Any

from minigrad import numpy as mnp
from minigrad.numpy.util import ArrayLike
from minigrad.scipy._util import inexact

__all__ = ["cdf", "logpdf", "pdf"]

_NAMES = ("x", "loc", "scale")


def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``-|x - loc| / scale - log(2 scale)``.

    >>> from minigrad.scipy.stats import laplace
    >>> laplace.logpdf(0.0)
    Array(-0.69314718, dtype=float64)
    """
    x, loc, scale = inexact("laplace.logpdf", x, loc, scale, names=_NAMES)
    return -(mnp.abs(x - loc) / scale + mnp.log(2 * scale))


def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``exp(logpdf(x, loc, scale))``."""
    return mnp.exp(logpdf(x, loc, scale))


def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``exp(z) / 2`` for ``z = (x - loc) / scale <= 0``, else ``1 - exp(-z) / 2``."""
    x, loc, scale = inexact("laplace.cdf", x, loc, scale, names=_NAMES)
    z = (x - loc) / scale
    return mnp.where(z <= 0, 0.5 * mnp.exp(z), 1 - 0.5 * mnp.exp(-z))

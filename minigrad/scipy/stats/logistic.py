"""The logistic distribution: ``logpdf``, ``pdf``, ``cdf``, ``sf``, ``ppf``, ``isf`` (JAX's
formulas, through ``expit`` and ``logit``)."""

from __future__ import annotations

from typing import Any

from minigrad import numpy as mnp
from minigrad.numpy.util import ArrayLike
from minigrad.scipy._util import inexact
from minigrad.scipy.special import expit, logit

__all__ = ["cdf", "isf", "logpdf", "pdf", "ppf", "sf"]

_NAMES = ("x", "loc", "scale")


def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``-2 logaddexp(z/2, -z/2) - log(scale)``, ``z = (x - loc) / scale`` (no overflow).

    >>> from minigrad.scipy.stats import logistic
    >>> logistic.logpdf(0.0)
    Array(-1.38629436, dtype=float64)
    """
    x, loc, scale = inexact("logistic.logpdf", x, loc, scale, names=_NAMES)
    half = (x - loc) / scale / 2
    return -2 * mnp.logaddexp(half, -half) - mnp.log(scale)


def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``exp(logpdf(x, loc, scale))``."""
    return mnp.exp(logpdf(x, loc, scale))


def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``expit((x - loc) / scale)``."""
    x, loc, scale = inexact("logistic.cdf", x, loc, scale, names=_NAMES)
    return expit((x - loc) / scale)


def sf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``expit(-(x - loc) / scale)``."""
    x, loc, scale = inexact("logistic.sf", x, loc, scale, names=_NAMES)
    return expit(-((x - loc) / scale))


def ppf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``logit(q) * scale + loc``."""
    x, loc, scale = inexact("logistic.ppf", x, loc, scale, names=("q", "loc", "scale"))
    return logit(x) * scale + loc


def isf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``-logit(q) * scale + loc``."""
    x, loc, scale = inexact("logistic.isf", x, loc, scale, names=("q", "loc", "scale"))
    return -logit(x) * scale + loc

"""The uniform distribution on [loc, loc + scale]: ``logpdf``, ``pdf``, ``cdf``, ``ppf``
(JAX's formulas)."""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad import numpy as mnp
from minigrad.numpy.util import ArrayLike
from minigrad.scipy._util import inexact

__all__ = ["cdf", "logpdf", "pdf", "ppf"]

_NAMES = ("x", "loc", "scale")


def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``-log(scale)`` on [loc, loc + scale], ``-inf`` outside.

    >>> from minigrad.scipy.stats import uniform
    >>> uniform.logpdf(0.5, 0.0, 2.0)
    Array(-0.69314718, dtype=float64)
    """
    x, loc, scale = inexact("uniform.logpdf", x, loc, scale, names=_NAMES)
    return mnp.where((x > loc + scale) | (x < loc), -np.inf, -mnp.log(scale))


def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``exp(logpdf(x, loc, scale))``."""
    return mnp.exp(logpdf(x, loc, scale))


def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """0 below ``loc``, 1 above ``loc + scale``, ``(x - loc) / scale`` between (0 for NaN)."""
    x, loc, scale = inexact("uniform.cdf", x, loc, scale, names=_NAMES)
    top = loc + scale
    inside = (x >= loc) & (x <= top)
    return mnp.where(x < loc, 0, mnp.where(x > top, 1, mnp.where(inside, (x - loc) / scale,
                                                                 0)))


def ppf(q: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``loc + scale * q``; NaN for ``q`` outside [0, 1]."""
    q, loc, scale = inexact("uniform.ppf", q, loc, scale, names=("q", "loc", "scale"))
    return mnp.where(mnp.isnan(q) | (q < 0) | (q > 1), np.nan, loc + scale * q)

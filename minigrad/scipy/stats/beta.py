"""The beta distribution on [loc, loc + scale]: ``logpdf`` and ``pdf`` (JAX's formula, with
``xlogy``/``xlog1py`` so the ends are exact; NaN for non-positive ``a``, ``b`` or ``scale``).
``betaln`` is ``minigrad.scipy.special.betaln`` (a sum of lgammas; JAX's own algorithm differs
by rounding). ``cdf``, ``logcdf``, ``sf``, ``logsf`` through the regularized incomplete beta
``betainc`` (JAX's: ``y = (x - loc) / scale`` clamped to [0, 1], so the gradient in ``x`` is 0
at and beyond the ends; ``sf`` is ``I_(1-y)(b, a)``; a gradient in ``a`` or ``b`` raises, as
JAX's)."""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad import numpy as mnp
from minigrad.numpy.util import ArrayLike
from minigrad.scipy._util import inexact
from minigrad.scipy.special import betainc, betaln, xlog1py, xlogy

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0,
           scale: ArrayLike = 1) -> Any:
    """``(a-1) log y + (b-1) log(1-y) - betaln(a, b) - log scale``, ``y = (x - loc) / scale``;
    ``-inf`` outside [loc, loc + scale].

    >>> from minigrad.scipy.stats import beta
    >>> beta.logpdf(0.5, 2.0, 2.0)
    Array(0.40546511, dtype=float64)
    """
    x, a, b, loc, scale = inexact("beta.logpdf", x, a, b, loc, scale,
                                  names=("x", "a", "b", "loc", "scale"))
    y = (x - loc) / scale
    log_probs = -betaln(a, b) + (xlogy(a - 1, y) + xlog1py(b - 1, -y)) - mnp.log(scale)
    result = mnp.where((x > loc + scale) | (x < loc), -np.inf, log_probs)
    return mnp.where((a <= 0) | (b <= 0) | (scale <= 0), np.nan, result)


def pdf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0,
        scale: ArrayLike = 1) -> Any:
    """``exp(logpdf(x, a, b, loc, scale))``."""
    return mnp.exp(logpdf(x, a, b, loc, scale))


def _clamped(x: Any, loc: Any, scale: Any) -> Any:
    # lax.clamp(0, y, 1): y strictly inside, else a constant (the bound, or NaN for NaN), so
    # the derivative is 0 at and beyond the bounds and at NaN, as JAX's clamp
    y = (x - loc) / scale
    outside = mnp.where(y >= 1, mnp.ones_like(y),
                        mnp.where(y <= 0, mnp.zeros_like(y), mnp.full_like(y, np.nan)))
    return mnp.where((y > 0) & (y < 1), y, outside)


def cdf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0,
        scale: ArrayLike = 1) -> Any:
    """``I_y(a, b)``, ``y = (x - loc) / scale`` clamped to [0, 1].

    >>> from minigrad.scipy.stats import beta
    >>> beta.cdf(0.5, 1.0, 2.0)
    Array(0.75, dtype=float64)
    """
    x, a, b, loc, scale = inexact("beta.cdf", x, a, b, loc, scale,
                                  names=("x", "a", "b", "loc", "scale"))
    return betainc(a, b, _clamped(x, loc, scale))


def logcdf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0,
           scale: ArrayLike = 1) -> Any:
    """``log(cdf(x, a, b, loc, scale))``."""
    return mnp.log(cdf(x, a, b, loc, scale))


def sf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0,
       scale: ArrayLike = 1) -> Any:
    """``I_(1-y)(b, a)``, ``y = (x - loc) / scale`` clamped to [0, 1] (``1 - cdf``, computed
    directly)."""
    x, a, b, loc, scale = inexact("beta.sf", x, a, b, loc, scale,
                                  names=("x", "a", "b", "loc", "scale"))
    return betainc(b, a, 1 - _clamped(x, loc, scale))


def logsf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0,
          scale: ArrayLike = 1) -> Any:
    """``log(sf(x, a, b, loc, scale))``."""
    return mnp.log(sf(x, a, b, loc, scale))

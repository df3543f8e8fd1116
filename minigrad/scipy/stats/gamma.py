"""The gamma distribution with shape ``a`` (shifted by ``loc``, scaled by ``scale``):
``logpdf`` and ``pdf`` (JAX's formula; ``-inf`` below ``loc``, where the formula sees ``y = 1``
so no branch makes a NaN gradient), ``cdf``, ``logcdf``, ``sf``, ``logsf`` through the
regularized incomplete gamma (differentiable in ``a`` too)."""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad import numpy as mnp
from minigrad.numpy.util import ArrayLike
from minigrad.scipy._util import inexact
from minigrad.scipy.special import gammainc, gammaincc, gammaln, xlogy

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``(a-1) log y - y - lgamma(a) - log scale``, ``y = (x - loc) / scale``.

    >>> from minigrad.scipy.stats import gamma
    >>> gamma.logpdf(1.0, 1.0)
    Array(-1., dtype=float64)
    """
    x, a, loc, scale = inexact("gamma.logpdf", x, a, loc, scale,
                               names=("x", "a", "loc", "scale"))
    ok = x >= loc
    y = mnp.where(ok, (x - loc) / scale, mnp.ones_like(x))
    log_probs = (xlogy(a - 1, y) - y) - (gammaln(a) + mnp.log(scale))
    return mnp.where(ok, log_probs, -np.inf)


def pdf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``exp(logpdf(x, a, loc, scale))``."""
    return mnp.exp(logpdf(x, a, loc, scale))


def _clamped(y: Any) -> Any:
    # lax.clamp(0, y, inf): y strictly inside, else the bound as a constant (derivative 0 at
    # and beyond the bounds, as JAX's clamp)
    return mnp.where(y > 0, mnp.where(y < np.inf, y, np.inf), mnp.zeros_like(y))


def cdf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``P(a, (x - loc) / scale)``, 0 below ``loc``.

    >>> from minigrad.scipy.stats import gamma
    >>> gamma.cdf(2.0, 1.0)
    Array(0.86466472, dtype=float64)
    """
    x, a, loc, scale = inexact("gamma.cdf", x, a, loc, scale,
                               names=("x", "a", "loc", "scale"))
    return gammainc(a, _clamped((x - loc) / scale))


def logcdf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``log(cdf(x, a, loc, scale))``."""
    return mnp.log(cdf(x, a, loc, scale))


def sf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``Q(a, (x - loc) / scale)``, 1 below ``loc``."""
    x, a, loc, scale = inexact("gamma.sf", x, a, loc, scale,
                               names=("x", "a", "loc", "scale"))
    y = (x - loc) / scale
    return mnp.where(y < 0, mnp.ones_like(y), gammaincc(a, y))


def logsf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``log(sf(x, a, loc, scale))``."""
    return mnp.log(sf(x, a, loc, scale))

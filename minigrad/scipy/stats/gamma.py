"""The gamma distribution with shape ``a`` (shifted by ``loc``, scaled by ``scale``):
``logpdf`` and ``pdf`` (JAX's formula; ``-inf`` below ``loc``, where the formula sees ``y = 1``
so no branch makes a NaN gradient). ``cdf`` (the regularized incomplete gamma) is not here
yet."""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad import numpy as mnp
from minigrad.numpy.util import ArrayLike
from minigrad.scipy._util import inexact
from minigrad.scipy.special import gammaln, xlogy

__all__ = ["logpdf", "pdf"]


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

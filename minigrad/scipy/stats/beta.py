"""The beta distribution on [loc, loc + scale]: ``logpdf`` and ``pdf`` (JAX's formula, with
``xlogy``/``xlog1py`` so the ends are exact; NaN for non-positive ``a``, ``b`` or ``scale``).
``betaln`` here is ``gammaln(a) + gammaln(b) - gammaln(a + b)`` (JAX's own algorithm differs
by rounding). ``cdf`` (the regularized incomplete beta) is not here yet."""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad import numpy as mnp
from minigrad.numpy.util import ArrayLike
from minigrad.scipy._util import inexact
from minigrad.scipy.special import gammaln, xlog1py, xlogy

__all__ = ["logpdf", "pdf"]


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
    betaln = gammaln(a) + gammaln(b) - gammaln(a + b)
    y = (x - loc) / scale
    log_probs = -betaln + (xlogy(a - 1, y) + xlog1py(b - 1, -y)) - mnp.log(scale)
    result = mnp.where((x > loc + scale) | (x < loc), -np.inf, log_probs)
    return mnp.where((a <= 0) | (b <= 0) | (scale <= 0), np.nan, result)


def pdf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0,
        scale: ArrayLike = 1) -> Any:
    """``exp(logpdf(x, a, b, loc, scale))``."""
    return mnp.exp(logpdf(x, a, b, loc, scale))

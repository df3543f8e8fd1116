"""The Poisson distribution with mean ``mu`` (shifted by ``loc``): ``logpmf`` and ``pmf``
(JAX's formula ``k log mu - lgamma(k + 1) - mu``; ``-inf`` at negative or non-integer ``k``)
and ``cdf`` (``Q(floor(k - loc) + 1, mu)``, the regularized upper incomplete gamma)."""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad import numpy as mnp
from minigrad.numpy.util import ArrayLike
from minigrad.scipy._util import inexact
from minigrad.scipy.special import gammaincc, gammaln, xlogy

__all__ = ["cdf", "logpmf", "pmf"]


def logpmf(k: ArrayLike, mu: ArrayLike, loc: ArrayLike = 0) -> Any:
    """``k log mu - log(k!) - mu`` at ``k - loc``.

    >>> from minigrad.scipy.stats import poisson
    >>> poisson.logpmf(0, 2.0)
    Array(-2., dtype=float64)
    """
    k, mu, loc = inexact("poisson.logpmf", k, mu, loc, names=("k", "mu", "loc"))
    x = k - loc
    log_probs = xlogy(x, mu) - gammaln(x + 1) - mu
    return mnp.where((x < 0) | (mnp.round(k) != k), -np.inf, log_probs)


def pmf(k: ArrayLike, mu: ArrayLike, loc: ArrayLike = 0) -> Any:
    """``exp(logpmf(k, mu, loc))``."""
    return mnp.exp(logpmf(k, mu, loc))


def cdf(k: ArrayLike, mu: ArrayLike, loc: ArrayLike = 0) -> Any:
    """``P(K <= k) = Q(floor(k - loc) + 1, mu)``, 0 below ``loc``.

    >>> from minigrad.scipy.stats import poisson
    >>> poisson.cdf(0, 2.0)  # exp(-2)
    Array(0.13533528, dtype=float64)
    """
    k, mu, loc = inexact("poisson.cdf", k, mu, loc, names=("k", "mu", "loc"))
    x = k - loc
    return mnp.where(x < 0, mnp.zeros_like(x), gammaincc(mnp.floor(1 + x), mu))

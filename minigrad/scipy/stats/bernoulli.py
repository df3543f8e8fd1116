"""The Bernoulli distribution with success probability ``p`` (shifted by ``loc``):
``logpmf``, ``pmf``, ``cdf``, ``ppf`` (JAX's formulas: ``xlogy`` terms, so ``p = 0`` and
``p = 1`` give exact 0 and ``-inf``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad import numpy as mnp
from minigrad.numpy.util import ArrayLike
from minigrad.scipy._util import inexact
from minigrad.scipy.special import xlog1py, xlogy

__all__ = ["cdf", "logpmf", "pmf", "ppf"]


def logpmf(k: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Any:
    """``k log p + (1 - k) log(1 - p)`` at ``k - loc``, ``-inf`` outside [0, 1].

    >>> from minigrad.scipy.stats import bernoulli
    >>> bernoulli.logpmf(1, 0.25)
    Array(-1.38629436, dtype=float64)
    """
    k, p, loc = inexact("bernoulli.logpmf", k, p, loc, names=("k", "p", "loc"))
    x = k - loc
    log_probs = xlogy(x, p) + xlog1py(1 - x, -p)
    return mnp.where((x < 0) | (x > 1), -np.inf, log_probs)


def pmf(k: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Any:
    """``exp(logpmf(k, p, loc))``."""
    return mnp.exp(logpmf(k, p, loc))


def cdf(k: ArrayLike, p: ArrayLike) -> Any:
    """0 below 0, ``1 - p`` on [0, 1), 1 from 1 on; NaN for a NaN or a ``p`` outside
    [0, 1]."""
    k, p = inexact("bernoulli.cdf", k, p, names=("k", "p"))
    invalid = mnp.isnan(k) | mnp.isnan(p) | (p < 0) | (p > 1)
    inner = mnp.where(k < 0, 0, mnp.where(k < 1, 1 - p, 1))
    return mnp.where(invalid, np.nan, inner)


def ppf(q: ArrayLike, p: ArrayLike) -> Any:
    """The least ``k`` with ``cdf(k) >= q``: 0 where ``q <= 1 - p``, else 1; NaN outside."""
    q, p = inexact("bernoulli.ppf", q, p, names=("q", "p"))
    invalid = mnp.isnan(q) | mnp.isnan(p) | (p < 0) | (p > 1) | (q < 0) | (q > 1)
    return mnp.where(invalid, np.nan, mnp.where(q <= 1 - p, mnp.zeros_like(q),
                                                   mnp.ones_like(q)))

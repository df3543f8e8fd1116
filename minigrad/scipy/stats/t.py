"""Student's t distribution with ``df`` degrees of freedom: ``logpdf`` and ``pdf`` (JAX's
formula)."""

from __future__ import annotations

import math
from typing import Any

from minigrad import numpy as mnp
from minigrad.numpy.util import ArrayLike
from minigrad.scipy._util import inexact
from minigrad.scipy.special import gammaln

__all__ = ["logpdf", "pdf"]


def logpdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``lgamma((df+1)/2) - lgamma(df/2) - log(pi df scale**2)/2 - (df+1)/2 log1p(z**2/df)``,
    ``z = (x - loc) / scale``.

    >>> from minigrad.scipy.stats import t
    >>> t.logpdf(0.0, 1.0)  # the Cauchy density at 0: 1/pi
    Array(-1.14472989, dtype=float64)
    """
    x, df, loc, scale = inexact("t.logpdf", x, df, loc, scale,
                                names=("x", "df", "loc", "scale"))
    z = (x - loc) / scale
    half_df = df / 2
    half_df_plus = half_df + 0.5
    normalize = (gammaln(half_df) + mnp.log((scale * scale * math.pi) * df) / 2
                 - gammaln(half_df_plus))
    return -(normalize + half_df_plus * mnp.log1p(z * z / df))


def pdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Any:
    """``exp(logpdf(x, df, loc, scale))``."""
    return mnp.exp(logpdf(x, df, loc, scale))

"""``minigrad.scipy.stats``: jax.scipy.stats's distributions, one module each, laid out as
JAX's (``minigrad.scipy.stats.norm.logpdf``). Every function is a composite over
``minigrad.numpy`` and ``minigrad.scipy.special`` with JAX's formula, so values, gradients and
the edges (outside the support: ``-inf`` log-densities, gradient 0) are JAX's.
"""

from minigrad.scipy.stats import (
    bernoulli,
    beta,
    cauchy,
    expon,
    gamma,
    laplace,
    logistic,
    multivariate_normal,
    norm,
    poisson,
    t,
    uniform,
)

__all__ = ["bernoulli", "beta", "cauchy", "expon", "gamma", "laplace", "logistic",
           "multivariate_normal", "norm", "poisson", "t", "uniform"]

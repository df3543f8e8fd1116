"""JAX's counter-based PRNG in NumPy, bit for bit: ``minigrad.random`` draws jax.random's
numbers (JAX 0.10.2, threefry2x32, partitionable counters: its defaults).

Keys are values (``PRNGKey``, ``key``), split into independent keys, never updated: see
``keys.py``. Samplers (``samplers.py``) turn random bits into distributions.

>>> import minigrad.random as mr
>>> k1, k2 = mr.split(mr.PRNGKey(0))
>>> mr.normal(k1, (2,), "float32")
Array([ 1.0040143, -0.9063372], dtype=float32)
"""

from minigrad.random.discrete import categorical, choice, permutation
from minigrad.random.gamma import beta, dirichlet, gamma, loggamma
from minigrad.random.keys import (
    KeyArray,
    PRNGKey,
    bits,
    clone,
    fold_in,
    key,
    key_data,
    split,
    wrap_key_data,
)
from minigrad.random.multivariate import multivariate_normal
from minigrad.random.poisson import poisson
from minigrad.random.samplers import (
    bernoulli,
    exponential,
    gumbel,
    normal,
    randint,
    truncated_normal,
    uniform,
)

__all__ = [
    "KeyArray", "PRNGKey", "bernoulli", "beta", "bits", "categorical", "choice", "clone",
    "dirichlet", "exponential", "fold_in", "gamma", "gumbel", "key", "key_data", "loggamma",
    "multivariate_normal", "normal", "permutation", "poisson", "randint", "split",
    "truncated_normal", "uniform", "wrap_key_data",
]

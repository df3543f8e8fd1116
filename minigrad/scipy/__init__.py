"""``minigrad.scipy``: JAX's ``jax.scipy`` layer, built from minigrad.numpy's functions and
the primitives: ``special`` (logsumexp, the error and gamma functions, xlogy, ndtr ...),
``linalg`` (triangular and Cholesky solves, the factorizations) and ``stats`` (the
distributions, one module each: ``minigrad.scipy.stats.norm.logpdf``)."""

from minigrad.scipy import special, stats

__all__ = ["special", "stats"]

"""``minigrad.scipy``: the few SciPy functions JAX's ``jax.scipy`` has that minigrad needs
(``special.logsumexp``), built from minigrad.numpy's functions and the primitives."""

from minigrad.scipy import special

__all__ = ["special"]

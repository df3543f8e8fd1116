"""``minigrad.lax``: JAX's ``jax.lax`` names over minigrad's primitives.

Each name is imported from the module of its theme; add a name by importing it here and
listing it in ``__all__`` (the list is kept sorted by theme, then by name).
"""

from minigrad.lax.autodiff import stop_gradient

__all__ = [
    # autodiff
    "stop_gradient",
]

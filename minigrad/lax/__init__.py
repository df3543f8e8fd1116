"""``minigrad.lax``: JAX's ``jax.lax`` names over minigrad's primitives.

Each name is imported from the module of its theme; add a name by importing it here and
listing it in ``__all__`` (the list is kept sorted by theme, then by name).
"""

from minigrad.lax import scan_reverse as _scan_reverse  # noqa: F401  (scan's reverse-mode rules)
from minigrad.lax.autodiff import stop_gradient
from minigrad.lax.conditionals import cond, switch
from minigrad.lax.elementwise import select
from minigrad.lax.loops import map, scan
from minigrad.lax.remat import checkpoint, remat
from minigrad.lax.while_loop import fori_loop, while_loop

__all__ = [
    # autodiff
    "checkpoint", "remat", "stop_gradient",
    # control flow
    "cond", "fori_loop", "map", "scan", "switch", "while_loop",
    # elementwise
    "select",
]

"""``minigrad.lax``: JAX's ``jax.lax`` names over minigrad's primitives.

Each name is imported from the module of its theme; add a name by importing it here and
listing it in ``__all__`` (the list is kept sorted by theme, then by name).
"""

from minigrad.lax.autodiff import stop_gradient
from minigrad.lax.reductions import (
    argmax,
    argmin,
    cumlogsumexp,
    cummax,
    cummin,
    cumprod,
    cumsum,
    reduce_and,
    reduce_max,
    reduce_min,
    reduce_or,
    reduce_prod,
    reduce_sum,
    sort,
    sort_key_val,
    top_k,
)

__all__ = [
    # autodiff
    "stop_gradient",
    # reductions, cumulative reductions, sorting
    "argmax", "argmin", "cumlogsumexp", "cummax", "cummin", "cumprod", "cumsum", "reduce_and",
    "reduce_max", "reduce_min", "reduce_or", "reduce_prod", "reduce_sum", "sort",
    "sort_key_val", "top_k",
]

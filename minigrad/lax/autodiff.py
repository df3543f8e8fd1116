"""Autodiff helpers of ``jax.lax``: ``stop_gradient`` over a pytree."""

from __future__ import annotations

from typing import Any

from minigrad.api_util import as_operand
from minigrad.ops.stop_gradient import stop_gradient_p
from minigrad.tree import leaf_paths, tree_flatten, tree_unflatten


def stop_gradient(x: Any) -> Any:
    """``x`` (a pytree of arrays), with a zero derivative: every leaf passes through a
    ``stop_gradient`` equation, integer and bool leaves too, as in JAX. Eagerly each leaf is
    returned as it is (an array given is the same array back; JAX's arrays are immutable).

    >>> import minigrad as mg, numpy as np
    >>> mg.grad(lambda x: x * mg.lax.stop_gradient(x))(np.float64(3.0))
    Array(3., dtype=float64)
    """
    leaves, tree = tree_flatten(x)
    paths = leaf_paths(tree, "x")
    return tree_unflatten(tree, [stop_gradient_p.bind(as_operand(leaf, "stop_gradient", p))
                                 for leaf, p in zip(leaves, paths, strict=True)])


__all__ = ["stop_gradient"]

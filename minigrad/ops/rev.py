"""``rev``: reverse the order of elements along some axes (``np.flip``), JAX's ``lax.rev``.

Linear and its own transpose: reversing twice is the identity, so ``ct_x = rev(ct)``.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Sequence

import numpy as np

from minigrad.core import Primitive, ShapedArray, UndefPrimal
from minigrad.ops.structural import linear_jvp

Shape = tuple[int, ...]

rev_p = Primitive("rev")


def rev(x: Any, dimensions: Sequence[int]) -> Any:
    """``x`` reversed along each axis in ``dimensions`` (distinct, non-negative)."""
    dimensions = tuple(sorted(int(d) for d in dimensions))
    return rev_p.bind(x, dimensions=dimensions) if dimensions else x


@rev_p.def_impl
def _rev_impl(x: np.ndarray, *, dimensions: Shape) -> np.ndarray:
    return np.flip(x, dimensions)  # a view, as NumPy's flip


@rev_p.def_abstract_eval
def _rev_abstract_eval(x: ShapedArray, *, dimensions: Shape) -> ShapedArray:
    if len(set(dimensions)) != len(dimensions) or any(not 0 <= d < x.ndim for d in dimensions):
        raise ValueError(f"rev: dimensions must be distinct and in [0, {x.ndim}); got "
                         f"{dimensions}")
    return x


rev_p.def_jvp(partial(linear_jvp, rev_p))


@rev_p.def_transpose
def _rev_transpose(ct: Any, x: UndefPrimal, *, dimensions: Shape) -> tuple:
    # ct_x = rev(ct, dimensions)
    return (rev(ct, dimensions),)


@rev_p.def_batch
def _rev_batch(axis_size: int, vals: tuple, dims: tuple, *, dimensions: Shape) -> tuple:
    # the batch axis at d shifts every reversed axis at or after it by one
    (x,), (d,) = vals, dims
    return rev(x, [a + (a >= d) for a in dimensions]), d

"""JAX's lax names of the reduction, cumulative and sorting primitives, and ``top_k``.

These take canonical arguments as lax does (the reduced ``axes`` as a sequence, one
``axis`` for the cumulative functions, no promotion); ``top_k`` and ``sort_key_val`` are
composites over the ``sort`` primitive.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from minigrad.core import get_aval
from minigrad.ops import cumulative as cu
from minigrad.ops import elementwise as ew
from minigrad.ops import reductions as red
from minigrad.ops import structural as st
from minigrad.ops.rev import rev
from minigrad.ops.sort import iota
from minigrad.ops.sort import sort as sort_operands

__all__ = [
    "argmax", "argmin", "cumlogsumexp", "cummax", "cummin", "cumprod", "cumsum", "reduce_and",
    "reduce_max", "reduce_min", "reduce_or", "reduce_prod", "reduce_sum", "sort",
    "sort_key_val", "top_k",
]


def _axis(axis: Any, ndim: int, fn: str) -> int:
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise TypeError(f"{fn}: axis must be an int; got {axis!r}")
    if not -ndim <= axis < ndim:
        raise ValueError(f"{fn}: axis {axis} is out of range for an array of rank {ndim}")
    return int(axis) % ndim


def _axes(axes: Sequence[int], ndim: int, fn: str) -> tuple[int, ...]:
    out = tuple(_axis(a, ndim, fn) for a in axes)
    if len(set(out)) != len(out):
        raise ValueError(f"{fn}: axes must be distinct; got {tuple(axes)}")
    return out


def reduce_sum(operand: Any, axes: Sequence[int]) -> Any:
    """Sum over ``axes``."""
    return st.reduce_sum(operand, _axes(axes, get_aval(operand).ndim, "reduce_sum"))


def reduce_prod(operand: Any, axes: Sequence[int]) -> Any:
    """Product over ``axes`` (its derivative exact with zeros)."""
    return red.reduce_prod(operand, _axes(axes, get_aval(operand).ndim, "reduce_prod"))


def reduce_max(operand: Any, axes: Sequence[int]) -> Any:
    """Maximum over ``axes`` (ties share the derivative)."""
    return ew.reduce_max(operand, _axes(axes, get_aval(operand).ndim, "reduce_max"))


def reduce_min(operand: Any, axes: Sequence[int]) -> Any:
    """Minimum over ``axes`` (ties share the derivative)."""
    return red.reduce_min(operand, _axes(axes, get_aval(operand).ndim, "reduce_min"))


def reduce_and(operand: Any, axes: Sequence[int]) -> Any:
    """Logical and over ``axes`` of a bool array."""
    return red.reduce_and(operand, _axes(axes, get_aval(operand).ndim, "reduce_and"))


def reduce_or(operand: Any, axes: Sequence[int]) -> Any:
    """Logical or over ``axes`` of a bool array."""
    return red.reduce_or(operand, _axes(axes, get_aval(operand).ndim, "reduce_or"))


def argmax(operand: Any, axis: int, index_dtype: Any) -> Any:
    """The index of the first maximum along ``axis`` (a NaN counts as the maximum)."""
    return red.argmax(operand, _axis(axis, get_aval(operand).ndim, "argmax"), index_dtype)


def argmin(operand: Any, axis: int, index_dtype: Any) -> Any:
    """The index of the first minimum along ``axis`` (a NaN counts as the minimum)."""
    return red.argmin(operand, _axis(axis, get_aval(operand).ndim, "argmin"), index_dtype)


def cumsum(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
    """Running sums along ``axis`` (from the end with ``reverse``)."""
    return st.cumsum(operand, _axis(axis, get_aval(operand).ndim, "cumsum"), reverse)


def cumprod(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
    """Running products along ``axis``."""
    return cu.cumprod(operand, _axis(axis, get_aval(operand).ndim, "cumprod"), reverse)


def cummax(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
    """Running maxima along ``axis``."""
    return cu.cummax(operand, _axis(axis, get_aval(operand).ndim, "cummax"), reverse)


def cummin(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
    """Running minima along ``axis``."""
    return cu.cummin(operand, _axis(axis, get_aval(operand).ndim, "cummin"), reverse)


def cumlogsumexp(operand: Any, axis: int = 0, reverse: bool = False) -> Any:
    """Running ``log(sum(exp(.)))`` along ``axis`` (floating arrays)."""
    if get_aval(operand).dtype.kind != "f":
        raise TypeError(f"cumlogsumexp: operand must be floating; got {get_aval(operand)}")
    return cu.cumlogsumexp(operand, _axis(axis, get_aval(operand).ndim, "cumlogsumexp"),
                           reverse)


def sort(operand: Any, dimension: int = -1, is_stable: bool = True, num_keys: int = 1
         ) -> Any:
    """Sort an array, or a sequence of arrays by their first ``num_keys`` (stably; NaN last);
    a sequence gives a tuple."""
    operands = list(operand) if isinstance(operand, (tuple, list)) else [operand]
    if not 1 <= num_keys <= len(operands):
        raise ValueError(f"sort: num_keys must be in [1, {len(operands)}]; got {num_keys}")
    shapes = {get_aval(o).shape for o in operands}
    if len(shapes) != 1:
        raise ValueError(f"sort: operands must have one shape; got {sorted(shapes)}")
    ndim = get_aval(operands[0]).ndim
    out = sort_operands(operands, _axis(dimension, ndim, "sort"), num_keys)
    return tuple(out) if isinstance(operand, (tuple, list)) else out[0]


def sort_key_val(keys: Any, values: Any, dimension: int = -1, is_stable: bool = True
                 ) -> tuple[Any, Any]:
    """``keys`` sorted, and ``values`` permuted alike."""
    return sort((keys, values), dimension, is_stable, 1)  # type: ignore[return-value]


def top_k(operand: Any, k: int, *, axis: int = -1) -> tuple[Any, Any]:
    """The ``k`` largest entries along ``axis`` in descending order, and their indices
    (int32, as JAX's); among equal entries the lower index comes first, and NaN counts as the
    largest. Each value's derivative is its entry's."""
    ndim = get_aval(operand).ndim
    if ndim == 0:
        raise ValueError("top_k: operand must have rank >= 1; got a 0-d array")
    ax = _axis(axis, ndim, "top_k")
    n = get_aval(operand).shape[ax]
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or not 0 <= k <= n:
        raise ValueError(f"top_k: k must be an int in [0, {n}]; got {k!r}")
    positions = iota(get_aval(operand).shape, ax, np.int32)
    # a stable ascending sort of the reversed entries, reversed: descending, ties in order
    values, indices = sort_operands([rev(operand, (ax,)), rev(positions, (ax,))], ax)
    values, indices = rev(values, (ax,)), rev(indices, (ax,))
    shape = get_aval(operand).shape
    limit = [k if i == ax else s for i, s in enumerate(shape)]
    return (st.slice_array(values, [0] * ndim, limit),
            st.slice_array(indices, [0] * ndim, limit))

"""The products of ``minigrad.numpy.linalg``: the array API's spellings over the last axes
(``matmul``, ``tensordot``, ``vecdot``, ``outer``, ``cross``, ``trace``, ``diagonal``,
``matrix_transpose``) and ``multi_dot`` with NumPy's order of products."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from minigrad.core import get_aval
from minigrad.numpy import contractions
from minigrad.numpy.contractions import check_precision, matmul, tensordot, vecdot
from minigrad.numpy.creation import diagonal as _diagonal
from minigrad.numpy.creation import trace as _trace
from minigrad.numpy.shape import matrix_transpose
from minigrad.numpy.util import ArrayLike, asarray
from minigrad.ops import structural as st

__all__ = ["cross", "diagonal", "matmul", "matrix_transpose", "multi_dot", "outer",
           "tensordot", "trace", "vecdot"]


def outer(x1: ArrayLike, x2: ArrayLike, /) -> Any:
    """The outer product of two vectors (1-D only, the array API's rule)."""
    a, b = asarray(x1), asarray(x2)
    if get_aval(a).ndim != 1 or get_aval(b).ndim != 1:
        raise ValueError(f"outer: x1 and x2 must be 1-D; got shapes {get_aval(a).shape} and "
                         f"{get_aval(b).shape}")
    return contractions.outer(a, b)


def cross(x1: ArrayLike, x2: ArrayLike, /, *, axis: int = -1) -> Any:
    """The cross product of 3-vectors along ``axis``; the other axes broadcast."""
    a, b = asarray(x1), asarray(x2)
    for name, v in (("x1", a), ("x2", b)):
        shape = get_aval(v).shape
        if not shape or not -len(shape) <= axis < len(shape) or shape[axis] != 3:
            raise ValueError(f"cross: {name} must have size 3 along axis {axis}; got shape "
                             f"{shape}")
    return contractions.cross(a, b, axis=axis)


def _offset(offset: Any, fn: str) -> int:
    if isinstance(offset, bool) or not isinstance(offset, (int, np.integer)):
        raise TypeError(f"{fn}: offset must be an int; got {offset!r}")
    return int(offset)


def trace(x: ArrayLike, /, *, offset: int = 0, dtype: Any = None) -> Any:
    """The sums of the ``offset``-th diagonals of the last two axes."""
    offset = _offset(offset, "trace")
    return _trace(x, offset, -2, -1, dtype)


def diagonal(x: ArrayLike, /, *, offset: int = 0) -> Any:
    """The ``offset``-th diagonals of the last two axes."""
    offset = _offset(offset, "diagonal")
    return _diagonal(x, offset, -2, -1)


def _chain_order(dims: Sequence[int]) -> list[list[int]]:
    """The split of each chain ``i..j`` that costs fewest multiplications (the textbook
    dynamic programme NumPy's multi_dot uses)."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = -1
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] < 0 or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def multi_dot(arrays: Sequence[ArrayLike], *, precision: Any = None) -> Any:
    """The product of a chain of matrices (the first and last may be vectors), in the order
    with fewest multiplications."""
    check_precision(precision, "multi_dot")
    xs = [asarray(a) for a in arrays]
    if len(xs) < 2:
        raise ValueError(f"multi_dot: needs at least two arrays; got {len(xs)}")
    first_vec, last_vec = get_aval(xs[0]).ndim == 1, get_aval(xs[-1]).ndim == 1
    if first_vec:
        xs[0] = st.reshape(xs[0], (1, get_aval(xs[0]).shape[0]))
    if last_vec:
        xs[-1] = st.reshape(xs[-1], (get_aval(xs[-1]).shape[0], 1))
    for k, x in enumerate(xs):
        if get_aval(x).ndim != 2:
            raise ValueError(f"multi_dot: array {k} must be 2-D (the first and last may be "
                             f"1-D); got shape {get_aval(x).shape}")
    for k in range(len(xs) - 1):
        left, right = get_aval(xs[k]).shape, get_aval(xs[k + 1]).shape
        if left[1] != right[0]:
            raise ValueError(f"multi_dot: arrays {k} and {k + 1} do not chain: shapes "
                             f"{left} and {right} (as matrices)")
    dims = [get_aval(xs[0]).shape[0]] + [get_aval(x).shape[1] for x in xs]
    split = _chain_order(dims)

    def product(i: int, j: int) -> Any:
        if i == j:
            return xs[i]
        k = split[i][j]
        return matmul(product(i, k), product(k + 1, j))

    out = product(0, len(xs) - 1)
    shape = get_aval(out).shape
    if first_vec and last_vec:
        return st.reshape(out, ())
    if first_vec:
        return st.reshape(out, (shape[1],))
    if last_vec:
        return st.reshape(out, (shape[0],))
    return out

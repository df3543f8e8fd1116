"""Norms and condition numbers of ``minigrad.numpy.linalg``: ``norm``, ``vector_norm``,
``matrix_norm``, ``cond``, as compositions of reductions (and ``svd`` for the spectral and
nuclear norms).

Their derivatives at zero are JAX's, since they are the same compositions: the 2-norm and
Frobenius norm give NaN (``sqrt'(0)``), the 1-norm 1 per element (``abs'(0) = 1``), the
max-norms split ties, half of it to the initial 0 of ``max(..., initial=0)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.core import get_aval
from minigrad.numpy.eager import eager, real_float
from minigrad.numpy.linalg import fast
from minigrad.numpy.linalg._common import abs_, full_like, matrix_operand, min_
from minigrad.numpy.linalg.decompositions import svd
from minigrad.numpy.linalg.solvers import inv
from minigrad.numpy.util import ArrayLike, asarray, canonical_axes, float_dtype
from minigrad.ops import elementwise as ew
from minigrad.ops import structural as st

__all__ = ["cond", "matrix_norm", "norm", "vector_norm"]


def _inexact(x: ArrayLike, fn: str) -> Any:
    x = asarray(x)
    if get_aval(x).dtype.kind == "c":
        raise TypeError(f"{fn}: complex arrays are not supported; got {get_aval(x).dtype}")
    return ew.convert_element_type(x, float_dtype(x))


def _check_keepdims(keepdims: Any, fn: str) -> None:
    if not isinstance(keepdims, (bool, np.bool_)):
        raise TypeError(f"{fn}: keepdims must be a bool; got {keepdims!r}")


def _keep(y: Any, axes: tuple[int, ...], keepdims: bool) -> Any:
    return st.expand_dims(y, axes) if keepdims else y


def _amax0(x: Any, axes: tuple[int, ...]) -> Any:
    """``max(x over axes, initial=0)``: the initial value takes half the derivative at a tie
    (an all-zero x), as JAX's ``amax(..., initial=0)``; 0 over an empty axis."""
    if any(get_aval(x).shape[a] == 0 for a in axes):
        shape = tuple(s for i, s in enumerate(get_aval(x).shape) if i not in axes)
        return st.full(shape, 0, get_aval(x).dtype)
    y = ew.reduce_max(x, axes)
    return ew.maximum(y, full_like(y, 0))


def _sum_sq(x: Any, axes: tuple[int, ...]) -> Any:
    return ew.sqrt(st.reduce_sum(ew.mul(x, x), axes))


def _vector(x: Any, ord: Any, axes: tuple[int, ...], keepdims: bool) -> Any:
    if isinstance(ord, str):
        raise ValueError(f"vector_norm: invalid order {ord!r} for a vector norm (use "
                         f"numpy.inf, not 'inf')")
    if ord is None or ord == 2:
        y = _sum_sq(x, axes)
    elif ord == np.inf:
        y = _amax0(abs_(x), axes)
    elif ord == -np.inf:
        y = min_(abs_(x), axes)
    elif ord == 0:
        nonzero = ew.convert_element_type(ew.ne(x, full_like(x, 0)), get_aval(x).dtype)
        y = st.reduce_sum(nonzero, axes)
    elif ord == 1:
        y = st.reduce_sum(abs_(x), axes)
    else:
        p = float(ord)
        powered = st.reduce_sum(ew.pow_(abs_(x), full_like(x, p)), axes)
        y = ew.pow_(powered, full_like(powered, 1.0 / p))
    return _keep(y, axes, keepdims)


def vector_norm(x: ArrayLike, /, *, axis: int | tuple[int, ...] | None = None,
                keepdims: bool = False, ord: Any = 2) -> Any:
    """The vector ``ord``-norm over ``axis`` (every axis by default)."""
    _check_keepdims(keepdims, "vector_norm")
    x = _inexact(x, "vector_norm")
    axes = canonical_axes(axis, get_aval(x).ndim, "vector_norm")
    return _vector(x, ord, axes, keepdims)


def _matrix(x: Any, ord: Any, rows: int, cols: int, keepdims: bool, fn: str = "norm") -> Any:
    both = tuple(sorted((rows, cols)))
    if ord is None or ord in ("f", "fro"):
        return _keep(_sum_sq(x, both), both, keepdims)
    if ord in (1, -1, np.inf, -np.inf):
        # 1: the largest column sum of |x| (rows summed); inf: the largest row sum
        summed, over = (rows, cols) if ord in (1, -1) else (cols, rows)
        sums = st.reduce_sum(abs_(x), (summed,))
        over -= over > summed
        y = _amax0(sums, (over,)) if ord in (1, np.inf) else min_(sums, (over,))
        return _keep(y, both, keepdims)
    if ord in ("nuc", 2, -2):
        nd = get_aval(x).ndim
        order = [i for i in range(nd) if i not in (rows, cols)] + [rows, cols]
        s = svd(st.transpose(x, order), compute_uv=False)
        last = (get_aval(s).ndim - 1,)
        if ord == 2:
            y = _amax0(s, last)
        elif ord == -2:
            y = min_(s, last)
        else:
            y = st.reduce_sum(s, last)
        return _keep(y, both, keepdims)
    raise ValueError(f"{fn}: invalid order {ord!r} for a matrix norm; must be one of None, "
                     f"'fro', 'nuc', 1, -1, 2, -2, inf, -inf")


def norm(x: ArrayLike, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:
    """A vector norm (one axis) or a matrix norm (two axes). ``axis=None``: with ``ord=None``
    the 2-norm of every element, whatever the rank; with an ``ord``, ``x`` must be 1-D or 2-D.

    >>> import minigrad.numpy as mnp
    >>> float(mnp.linalg.norm(mnp.array([3.0, 4.0])))
    5.0
    """
    _check_keepdims(keepdims, "norm")
    if ord is None and real_float(x) and x.ndim and eager():  # (speed: the 2-norm, eagerly)
        if axis is None:
            return fast.norm(x, tuple(range(x.ndim)), keepdims)
        if isinstance(axis, (int, np.integer)):
            return fast.norm(x, canonical_axes(axis, x.ndim, "norm"),  # type: ignore[arg-type]
                             keepdims)
    x = _inexact(x, "norm")
    nd = get_aval(x).ndim
    if axis is None:
        if ord is None:
            everything = tuple(range(nd))
            return _keep(_sum_sq(x, everything), everything, keepdims)
        axes: tuple[int, ...] = tuple(range(nd))
    else:
        raw = axis if isinstance(axis, (tuple, list)) else (axis,)
        axes = tuple(canonical_axes(a, nd, "norm")[0] for a in raw)
        if len(set(axes)) != len(axes):
            raise ValueError(f"norm: axes must be distinct; got {axis}")
    if len(axes) == 1:
        return _vector(x, 2 if ord is None else ord, axes, keepdims)
    if len(axes) == 2:
        return _matrix(x, ord, axes[0], axes[1], keepdims)
    raise ValueError(f"norm: give one axis for a vector norm or two for a matrix norm; got "
                     f"axis={axis} for an array of rank {nd}")


def matrix_norm(x: ArrayLike, /, *, keepdims: bool = False, ord: Any = "fro") -> Any:
    """The matrix ``ord``-norm of the last two axes."""
    _check_keepdims(keepdims, "matrix_norm")
    x = _inexact(x, "matrix_norm")
    nd = get_aval(x).ndim
    if nd < 2:
        raise ValueError(f"matrix_norm: x must have at least 2 axes; got shape "
                         f"{get_aval(x).shape}")
    return _matrix(x, ord, nd - 2, nd - 1, keepdims, "matrix_norm")


def cond(x: ArrayLike, p: Any = None) -> Any:
    """The condition number ``norm(x, p) norm(inv(x), p)`` (for p = None, 2, -2: a ratio of
    singular values). NaN from a singular matrix becomes inf, as NumPy and JAX."""
    a = matrix_operand(x, "cond", "x", square=p not in (None, 2, -2))
    *batch, m, n = get_aval(a).shape
    if m == 0 or n == 0:
        raise ValueError(f"cond: x must not be empty; got shape {get_aval(a).shape}")
    nb = len(batch)
    if p in (None, 2, -2):
        s = svd(a, compute_uv=False)
        k = get_aval(s).shape[-1]
        first = st.reshape(st.slice_array(s, (0,) * (nb + 1), (*batch, 1)), tuple(batch))
        last = st.reshape(st.slice_array(s, (0,) * nb + (k - 1,), (*batch, k)), tuple(batch))
        r = ew.div(last, first) if p == -2 else ew.div(first, last)
        if p != -2:
            return r
    else:
        r = ew.mul(norm(a, p, (-2, -1)), norm(inv(a), p, (-2, -1)))
    nan_in_x = ew.ne(a, a)
    any_nan = ew.gt(st.reduce_sum(ew.convert_element_type(nan_in_x, np.int64), (nb, nb + 1)),
                    st.full(tuple(batch), 0, np.int64))
    replace = ew.select(any_nan, ew.convert_element_type(full_like(r, 0), np.bool_),
                        ew.ne(r, r))
    return ew.select(replace, full_like(r, np.inf), r)

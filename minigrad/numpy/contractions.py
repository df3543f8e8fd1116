"""Contractions: matmul, dot and vdot over the ``dot`` primitive (einsum notation)."""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.core import get_aval
from minigrad.numpy.reductions import sum
from minigrad.numpy.shape import broadcast_to, ravel
from minigrad.numpy.ufuncs import multiply
from minigrad.numpy.util import ArrayLike, asarray, result_dtype
from minigrad.ops import elementwise as ew
from minigrad.ops import structural as st

__all__ = [  # what minigrad.numpy exports from here
    "dot", "matmul", "vdot",
]


def matmul(x: ArrayLike, y: ArrayLike) -> Any:
    """``x @ y`` with NumPy's rules: 1-D operands are vectors, leading axes broadcast."""
    x, y = asarray(x), asarray(y)
    dtype = result_dtype(x, y)
    x, y = ew.convert_element_type(x, dtype), ew.convert_element_type(y, dtype)
    xs, ys = get_aval(x).shape, get_aval(y).shape
    if not xs or not ys:
        raise ValueError("matmul: operands must be at least 1-D; use multiply for scalars")
    xv, yv = len(xs) == 1, len(ys) == 1
    if xv:
        x, xs = st.reshape(x, (1, *xs)), (1, *xs)
    if yv:
        y, ys = st.reshape(y, (*ys, 1)), (*ys, 1)
    if xs[-1] != ys[-2]:
        raise ValueError(f"matmul: contracted axes differ: {xs} @ {ys}")
    batch = np.broadcast_shapes(xs[:-2], ys[:-2])
    x = broadcast_to(x, (*batch, *xs[-2:]))
    y = broadcast_to(y, (*batch, *ys[-2:]))
    b = "".join(chr(ord("a") + i) for i in range(len(batch)))
    out = ew.dot(x, y, f"{b}ij,{b}jk->{b}ik")
    if xv:
        out = st.squeeze(out, (len(batch),))
    if yv:
        out = st.squeeze(out, (get_aval(out).ndim - 1,))
    return out


def dot(x: ArrayLike, y: ArrayLike) -> Any:
    """NumPy's ``dot`` for operands of rank <= 2 (scalars multiply)."""
    x, y = asarray(x), asarray(y)
    if get_aval(x).ndim == 0 or get_aval(y).ndim == 0:
        return multiply(x, y)
    if get_aval(x).ndim > 2 or get_aval(y).ndim > 2:
        raise ValueError("dot: operands of rank above 2 are not supported; use matmul")
    return matmul(x, y)


def vdot(x: ArrayLike, y: ArrayLike) -> Any:
    return sum(multiply(ravel(x), ravel(y)))


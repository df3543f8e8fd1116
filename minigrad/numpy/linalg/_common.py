"""What the modules of ``minigrad.numpy.linalg`` share: operand checks and a few elementwise
and reducing helpers over the primitives (``abs``, ``sign``, a product and a minimum over the
last axis). The surface's own ``abs``, ``sign``, ``prod`` and ``min`` belong to the ufunc and
reduction families; these private versions keep linalg independent of them (and have JAX's
derivatives at the edges: ``abs'(0) = 1``, ties of a minimum share it). Not exported.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.core import get_aval
from minigrad.numpy.util import ArrayLike, asarray, float_dtype
from minigrad.ops import elementwise as ew
from minigrad.ops import structural as st


def matrix_operand(x: ArrayLike, fn: str, name: str = "a", square: bool = True,
                   min_ndim: int = 2) -> Any:
    """``x`` as a floating array (an integer or bool one converted to the default float, as
    NumPy) of at least ``min_ndim`` axes whose last two are square if ``square``."""
    x = asarray(x)
    aval = get_aval(x)
    if aval.dtype.kind == "c":
        raise TypeError(f"{fn}: {name} must be real; complex matrices are not supported; got "
                        f"{aval.dtype}")
    if aval.dtype.kind not in "biuf":
        raise TypeError(f"{fn}: {name} must be a numeric array; got {aval.dtype}")
    if aval.ndim < min_ndim:
        raise ValueError(f"{fn}: {name} must have at least {min_ndim} axes (a stack of "
                         f"matrices (..., m, n)); got shape {aval.shape}")
    if square and aval.shape[-1] != aval.shape[-2]:
        raise ValueError(f"{fn}: {name} must be square in its last two axes (..., n, n); got "
                         f"shape {aval.shape}")
    return ew.convert_element_type(x, float_dtype(x))


def batch_shape(fn: str, *shapes: tuple[int, ...]) -> tuple[int, ...]:
    """The broadcast of batch shapes, with an error naming ``fn`` and every shape."""
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise ValueError(f"{fn}: the batch dimensions must broadcast together; got "
                         f"{', '.join(map(str, shapes))}") from None


def to_batch(x: Any, batch: tuple[int, ...], ndim_core: int) -> Any:
    """``x`` broadcast to ``batch`` followed by its last ``ndim_core`` axes."""
    shape = get_aval(x).shape
    return st.broadcast_to(x, (*batch, *shape[len(shape) - ndim_core:]))


def full_like(x: Any, value: float) -> Any:
    aval = get_aval(x)
    return st.full(aval.shape, value, aval.dtype)


def abs_(x: Any) -> Any:
    """``|x|`` with JAX's derivative at 0 (1: the JVP is ``select(x >= 0, t, -t)``)."""
    return ew.select(ew.ge(x, full_like(x, 0)), x, ew.neg(x))


def sign_(x: Any) -> Any:
    """-1, 0 or 1 in ``x``'s dtype (a zero derivative)."""
    zero = full_like(x, 0)
    pos = ew.convert_element_type(ew.gt(x, zero), get_aval(x).dtype)
    neg = ew.convert_element_type(ew.lt(x, zero), get_aval(x).dtype)
    return ew.sub(pos, neg)


def prod_last(x: Any) -> Any:
    """The product over the last axis, as a tree of pairwise products (log2 n steps of
    ``mul``, so it is differentiable and batchable like any product); 1 for an empty axis."""
    shape = get_aval(x).shape
    *batch, n = shape
    nb = len(batch)
    if n == 0:
        return st.full(tuple(batch), 1, get_aval(x).dtype)
    while n > 1:
        if n % 2:  # an odd length: a one joins the end
            x = st.concatenate([x, st.full((*batch, 1), 1, get_aval(x).dtype)], nb)
            n += 1
        half = n // 2
        x = ew.mul(st.slice_array(x, (0,) * (nb + 1), (*batch, half)),
                   st.slice_array(x, (0,) * nb + (half,), (*batch, n)))
        n = half
    return st.reshape(x, tuple(batch))


def min_(x: Any, axes: tuple[int, ...]) -> Any:
    """The minimum over ``axes`` as ``-max(-x)``: ties share the derivative, as JAX's."""
    return ew.neg(ew.reduce_max(ew.neg(x), axes))


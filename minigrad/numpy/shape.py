"""Shapes and axes: reshape, transpose, squeeze, concatenate and the like. Where NumPy returns a
view of its argument (``returns_view``), the view is recorded under a transform, so that an
in-place update through it can be refused."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from minigrad.core import get_aval
from minigrad.numpy.util import (
    ArrayLike,
    asarray,
    canonical_axes,
    result_dtype,
    returns_view,
)
from minigrad.ops import elementwise as ew
from minigrad.ops import structural as st


@returns_view
def broadcast_to(x: ArrayLike, shape: Sequence[int]) -> Any:
    x = asarray(x)
    shape = tuple(shape)
    xshape = get_aval(x).shape
    ok = len(xshape) <= len(shape) and all(
        a in (1, b) for a, b in zip(xshape, shape[len(shape) - len(xshape):], strict=True))
    if not ok:
        raise ValueError(f"broadcast_to: cannot broadcast shape {xshape} to {shape}")
    return st.broadcast_to(x, shape)



@returns_view
def reshape(a: ArrayLike, shape: int | Sequence[int] | None = None, order: str = "C", *,
            newshape: int | Sequence[int] | None = None) -> Any:
    """``a`` with a new ``shape`` (one entry may be -1). ``newshape=`` is NumPy's old name for
    ``shape``; only C order is supported."""
    if (shape is None) == (newshape is None):
        raise TypeError("reshape: give the new shape once, as shape (or newshape); got "
                        f"shape={shape!r}, newshape={newshape!r}")
    if order != "C":
        raise ValueError(f"reshape: order must be 'C' (minigrad stores arrays row-major); "
                         f"got {order!r}")
    x = asarray(a)
    new = shape if shape is not None else newshape
    shape = [new] if isinstance(new, (int, np.integer)) else list(new)  # type: ignore[arg-type]
    size = get_aval(x).size
    if shape.count(-1) > 1:
        raise ValueError(f"reshape: at most one -1 in the new shape; got {tuple(shape)}")
    if -1 in shape:
        rest = int(np.prod([s for s in shape if s != -1], dtype=np.int64))
        shape[shape.index(-1)] = size // rest if rest else 0
    if int(np.prod(shape, dtype=np.int64)) != size:
        raise ValueError(f"reshape: cannot reshape an array of shape {get_aval(x).shape} into "
                         f"shape {tuple(shape)}")
    return st.reshape(x, shape)


def ravel(x: ArrayLike) -> Any:
    return reshape(x, -1)


@returns_view
def transpose(x: ArrayLike, axes: Sequence[int] | None = None) -> Any:
    x = asarray(x)
    ndim = get_aval(x).ndim
    perm = tuple(reversed(range(ndim))) if axes is None else tuple(a % ndim for a in axes)
    if sorted(perm) != list(range(ndim)):
        raise ValueError(f"transpose: axes must be a permutation of range({ndim}); got {axes}")
    return st.transpose(x, perm)


@returns_view
def moveaxis(x: ArrayLike, source: int, destination: int) -> Any:
    x = asarray(x)
    ndim = get_aval(x).ndim
    (src,) = canonical_axes(source, ndim, "moveaxis")
    (dst,) = canonical_axes(destination, ndim, "moveaxis")
    return st.moveaxis(x, src, dst)


@returns_view
def swapaxes(x: ArrayLike, axis1: int, axis2: int) -> Any:
    x = asarray(x)
    ndim = get_aval(x).ndim
    (a,), (b,) = canonical_axes(axis1, ndim, "swapaxes"), canonical_axes(axis2, ndim, "swapaxes")
    perm = list(range(ndim))
    perm[a], perm[b] = b, a
    return st.transpose(x, perm)


@returns_view
def squeeze(x: ArrayLike, axis: int | Sequence[int] | None = None) -> Any:
    x = asarray(x)
    shape = get_aval(x).shape
    if axis is None:
        return st.squeeze(x, [i for i, s in enumerate(shape) if s == 1])
    axes = canonical_axes(axis, len(shape), "squeeze")
    if any(shape[a] != 1 for a in axes):
        raise ValueError(f"squeeze: can only squeeze axes of size 1; got axis {axis} of shape "
                         f"{shape}")
    return st.squeeze(x, axes)


@returns_view
def expand_dims(x: ArrayLike, axis: int | Sequence[int]) -> Any:
    x = asarray(x)
    n = len(axis) if isinstance(axis, (tuple, list)) else 1
    return st.expand_dims(x, canonical_axes(axis, get_aval(x).ndim + n, "expand_dims"))


def concatenate(arrays: Sequence[ArrayLike], axis: int = 0) -> Any:
    if not arrays:
        raise ValueError("concatenate: needs at least one array")
    xs = [asarray(a) for a in arrays]
    dtype = result_dtype(*xs)
    xs = [ew.convert_element_type(a, dtype) for a in xs]
    ndim = get_aval(xs[0]).ndim
    if ndim == 0:
        raise ValueError("concatenate: zero-dimensional arrays cannot be concatenated")
    (ax,) = canonical_axes(axis, ndim, "concatenate")
    return st.concatenate(xs, ax)


def stack(arrays: Sequence[ArrayLike], axis: int = 0) -> Any:
    if not arrays:
        raise ValueError("stack: needs at least one array")
    xs = [asarray(a) for a in arrays]
    shapes = {get_aval(a).shape for a in xs}
    if len(shapes) != 1:
        raise ValueError(f"stack: all arrays must have the same shape; got {sorted(shapes)}")
    (ax,) = canonical_axes(axis, get_aval(xs[0]).ndim + 1, "stack")
    return concatenate([st.expand_dims(a, (ax,)) for a in xs], ax)


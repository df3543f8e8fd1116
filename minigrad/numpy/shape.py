"""Shapes and axes: reshape, transpose, squeeze, broadcasting and the like. Where NumPy returns a
view of its argument (``returns_view``), the view is recorded under a transform, so that an
in-place update through it can be refused. The array API's spellings stand beside NumPy's
(``permute_dims``, ``matrix_transpose``)."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from minigrad.core import get_aval
from minigrad.numpy.util import (
    ArrayLike,
    asarray,
    canonical_axes,
    check_broadcast,
    returns_view,
)
from minigrad.ops import structural as st

__all__ = [  # what minigrad.numpy exports from here
    "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_arrays", "broadcast_shapes",
    "broadcast_to", "expand_dims", "matrix_transpose", "moveaxis", "ndim", "permute_dims",
    "ravel", "reshape", "shape", "size", "squeeze", "swapaxes", "transpose",
]

ShapeLike = int | Sequence[int]


def _shape_arg(shape: Any, fn: str) -> tuple[int, ...]:
    """A shape argument: an int or a sequence of ints (NumPy integers too)."""
    items = (shape,) if isinstance(shape, (int, np.integer)) else shape
    try:
        out = tuple(items)
    except TypeError:
        raise TypeError(f"{fn}: shape must be an int or a sequence of ints; got "
                        f"{shape!r}") from None
    if any(not isinstance(s, (int, np.integer)) or isinstance(s, bool) for s in out):
        raise TypeError(f"{fn}: shape must be an int or a sequence of ints; got {shape!r}")
    return tuple(int(s) for s in out)


@returns_view
def broadcast_to(array: ArrayLike, shape: ShapeLike) -> Any:
    """``array`` broadcast to ``shape`` (NumPy's rules: trailing axes aligned)."""
    x = asarray(array)
    shape = _shape_arg(shape, "broadcast_to")
    xshape = get_aval(x).shape
    ok = len(xshape) <= len(shape) and all(
        a in (1, b) for a, b in zip(xshape, shape[len(shape) - len(xshape):], strict=True))
    if not ok:
        raise ValueError(f"broadcast_to: cannot broadcast shape {xshape} to {shape}")
    return st.broadcast_to(x, shape)


def broadcast_shapes(*shapes: ShapeLike) -> tuple[int, ...]:
    return check_broadcast("broadcast_shapes", *[_shape_arg(s, "broadcast_shapes")
                                                 for s in shapes])


def broadcast_arrays(*args: ArrayLike) -> list[Any]:
    """Each argument broadcast to their common shape."""
    xs = [asarray(a) for a in args]
    shape = check_broadcast("broadcast_arrays", *[get_aval(x).shape for x in xs])
    return [broadcast_to(x, shape) for x in xs]


@returns_view
def reshape(a: ArrayLike, shape: ShapeLike | None = None, order: str = "C", *,
            newshape: ShapeLike | None = None, copy: bool | None = None) -> Any:
    """``a`` with a new ``shape`` (one entry may be -1). ``newshape=`` is NumPy's old name for
    ``shape``; only C order is supported. ``copy`` is the array API's: True always copies, False
    never does (an eager reshape that would need a copy is an error), None copies only if
    needed."""
    if (shape is None) == (newshape is None):
        raise TypeError("reshape: give the new shape once, as shape (or newshape); got "
                        f"shape={shape!r}, newshape={newshape!r}")
    if order != "C":
        raise ValueError(f"reshape: order must be 'C' (minigrad stores arrays row-major); "
                         f"got {order!r}")
    x = asarray(a)
    new = list(_shape_arg(shape if shape is not None else newshape, "reshape"))
    size = get_aval(x).size
    if new.count(-1) > 1 or any(s < -1 for s in new):
        raise ValueError(f"reshape: at most one -1 in the new shape, and no other negative size; "
                         f"got {tuple(new)}")
    if -1 in new:
        rest = int(np.prod([s for s in new if s != -1], dtype=np.int64))
        new[new.index(-1)] = size // rest if rest else 0
    if int(np.prod(new, dtype=np.int64)) != size:
        raise ValueError(f"reshape: cannot reshape an array of shape {get_aval(x).shape} into "
                         f"shape {tuple(new)}")
    out = st.reshape(x, new)
    return _copy_semantics(out, x, copy, "reshape")


def _copy_semantics(out: Any, x: Any, copy: bool | None, fn: str) -> Any:
    """The array API's ``copy`` argument, eagerly (a traced value has no memory to share)."""
    if copy is None or not isinstance(out, np.ndarray):
        return out
    if copy:
        return out.copy() if np.shares_memory(out, x) else out
    if not np.shares_memory(out, x) and out.size:
        raise ValueError(f"{fn}: copy=False, but the result cannot be a view of the input")
    return out


def ravel(a: ArrayLike, order: str = "C") -> Any:
    return reshape(a, -1, order)


@returns_view
def transpose(a: ArrayLike, axes: Sequence[int] | None = None) -> Any:
    """``a`` with its axes permuted (reversed by default)."""
    x = asarray(a)
    ndim = get_aval(x).ndim
    if axes is None:
        return st.transpose(x, tuple(reversed(range(ndim))))
    axes = tuple(axes)
    if len(axes) != ndim:
        raise ValueError(f"transpose: axes must be a permutation of range({ndim}); got {axes}")
    canonical_axes(axes, ndim, "transpose")  # in range and distinct
    return st.transpose(x, tuple(int(i) % ndim for i in axes))


def permute_dims(x: ArrayLike, /, axes: Sequence[int]) -> Any:
    """The array API's ``transpose`` (``axes`` required)."""
    return transpose(x, axes)


@returns_view
def matrix_transpose(x: ArrayLike, /) -> Any:
    """The last two axes swapped (the array API's ``mT``)."""
    x = asarray(x)
    ndim = get_aval(x).ndim
    if ndim < 2:
        raise ValueError(f"matrix_transpose: x must have at least 2 axes; got shape "
                         f"{get_aval(x).shape}")
    return st.transpose(x, (*range(ndim - 2), ndim - 1, ndim - 2))


@returns_view
def moveaxis(a: ArrayLike, source: int | Sequence[int], destination: int | Sequence[int]
             ) -> Any:
    """Axes ``source`` moved to ``destination`` (ints or equally long sequences), the other
    axes keeping their order."""
    x = asarray(a)
    ndim = get_aval(x).ndim
    src = _ordered_axes(source, ndim, "moveaxis")
    dst = _ordered_axes(destination, ndim, "moveaxis")
    if len(src) != len(dst):
        raise ValueError(f"moveaxis: source and destination must have the same number of "
                         f"axes; got {source} and {destination}")
    order = [i for i in range(ndim) if i not in src]
    for d, s in sorted(zip(dst, src, strict=True)):
        order.insert(d, s)
    return st.transpose(x, order)


def _ordered_axes(axis: int | Sequence[int], ndim: int, fn: str) -> list[int]:
    """Distinct axes in the order given (canonical_axes sorts them)."""
    axes = [axis] if isinstance(axis, (int, np.integer)) else list(axis)
    canonical_axes(tuple(axes), ndim, fn)  # the checks: range and distinctness
    return [int(a) % ndim for a in axes]


@returns_view
def swapaxes(a: ArrayLike, axis1: int, axis2: int) -> Any:
    x = asarray(a)
    ndim = get_aval(x).ndim
    (i,), (j,) = canonical_axes(axis1, ndim, "swapaxes"), canonical_axes(axis2, ndim, "swapaxes")
    perm = list(range(ndim))
    perm[i], perm[j] = j, i
    return st.transpose(x, perm)


@returns_view
def squeeze(a: ArrayLike, axis: int | Sequence[int] | None = None) -> Any:
    """``a`` without its axes of size 1 (those in ``axis``, which must have size 1)."""
    x = asarray(a)
    shape = get_aval(x).shape
    if axis is None:
        return st.squeeze(x, [i for i, s in enumerate(shape) if s == 1])
    axes = canonical_axes(axis, len(shape), "squeeze")
    if any(shape[i] != 1 for i in axes):
        raise ValueError(f"squeeze: can only squeeze axes of size 1; got axis {axis} of shape "
                         f"{shape}")
    return st.squeeze(x, axes)


@returns_view
def expand_dims(a: ArrayLike, axis: int | Sequence[int]) -> Any:
    """``a`` with new axes of size 1 at the positions ``axis`` of the result."""
    x = asarray(a)
    n = len(axis) if isinstance(axis, (tuple, list)) else 1
    return st.expand_dims(x, canonical_axes(axis, get_aval(x).ndim + n, "expand_dims"))


def atleast_1d(*arys: ArrayLike) -> Any:
    outs = [reshape(x, (1,)) if get_aval(x := asarray(a)).ndim == 0 else x for a in arys]
    return outs[0] if len(outs) == 1 else outs


def atleast_2d(*arys: ArrayLike) -> Any:
    outs = []
    for a in arys:
        x = asarray(a)
        ndim = get_aval(x).ndim
        outs.append(x if ndim >= 2 else reshape(x, (1, -1) if ndim == 1 else (1, 1)))
    return outs[0] if len(outs) == 1 else outs


def atleast_3d(*arys: ArrayLike) -> Any:
    outs = []
    for a in arys:
        x = asarray(a)
        shape = get_aval(x).shape
        new = {0: (1, 1, 1), 1: (1, *shape, 1), 2: (*shape, 1)}.get(len(shape))
        outs.append(x if new is None else reshape(x, new))
    return outs[0] if len(outs) == 1 else outs


def shape(a: ArrayLike) -> tuple[int, ...]:
    return get_aval(asarray(a)).shape


def ndim(a: ArrayLike) -> int:
    return get_aval(asarray(a)).ndim


def size(a: ArrayLike, axis: int | None = None) -> int:
    aval = get_aval(asarray(a))
    if axis is None:
        return aval.size
    (ax,) = canonical_axes(axis, aval.ndim, "size")
    return aval.shape[ax]

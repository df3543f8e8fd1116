"""Joining, splitting, repeating and rearranging arrays: concatenate, stack, split, tile, repeat,
flip, roll, rot90, pad, diff. All are compositions of the structural primitives (concatenate,
slice, pad, broadcast, reshape, rev), so every transform applies to them with no rule of their
own."""

from __future__ import annotations

import itertools
from typing import Any, Sequence

import numpy as np

from minigrad.core import get_aval
from minigrad.numpy.shape import broadcast_to, expand_dims, reshape
from minigrad.numpy.util import (
    ArrayLike,
    asarray,
    canonical_axes,
    copy_of,
    dtype_arg,
    result_dtype,
    returns_view,
)
from minigrad.ops import elementwise as ew
from minigrad.ops import structural as st
from minigrad.ops.rev import rev

__all__ = [  # what minigrad.numpy exports from here
    "array_split", "column_stack", "concat", "concatenate", "diff", "dsplit", "dstack",
    "flip", "fliplr", "flipud", "hsplit", "hstack", "pad", "repeat", "roll", "rot90",
    "split", "stack", "tile", "unstack", "vsplit", "vstack",
]


def _arrays(arrays: Sequence[ArrayLike], fn: str, dtype: Any = None) -> list[Any]:
    if isinstance(arrays, np.ndarray) or hasattr(arrays, "aval"):
        arrays = list(arrays)  # an array is a sequence of its rows, as NumPy reads it
    if len(arrays) == 0:
        raise ValueError(f"{fn}: needs at least one array")
    xs = [asarray(a) for a in arrays]
    dt = result_dtype(*xs) if dtype is None else dtype_arg(dtype, fn)
    return [ew.convert_element_type(x, dt) for x in xs]


def concatenate(arrays: Sequence[ArrayLike], axis: int | None = 0, dtype: Any = None) -> Any:
    """The arrays joined along ``axis`` (flattened first when ``axis`` is None); a new array
    even for one argument, as NumPy's."""
    xs = _arrays(arrays, "concatenate", dtype)
    if axis is None:
        xs = [reshape(x, -1) for x in xs]
        axis = 0
    ndim = get_aval(xs[0]).ndim
    if ndim == 0:
        raise ValueError("concatenate: zero-dimensional arrays cannot be concatenated")
    if any(get_aval(x).ndim != ndim for x in xs):
        raise ValueError(f"concatenate: the arrays must have the same number of axes; got "
                         f"shapes {[get_aval(x).shape for x in xs]}")
    (ax,) = canonical_axes(axis, ndim, "concatenate")
    shapes = [get_aval(x).shape for x in xs]
    if any(s[:ax] + s[ax + 1:] != shapes[0][:ax] + shapes[0][ax + 1:] for s in shapes):
        raise ValueError(f"concatenate: the arrays must agree in every axis but {ax}; got "
                         f"shapes {shapes}")
    # (one array: NumPy copies it, where the primitive would return it as it is)
    return st.concatenate(xs, ax) if len(xs) > 1 else copy_of(xs[0])


def concat(arrays: Sequence[ArrayLike], /, *, axis: int | None = 0) -> Any:
    """The array API's ``concatenate``."""
    return concatenate(arrays, axis)


def stack(arrays: Sequence[ArrayLike], axis: int = 0, dtype: Any = None) -> Any:
    """The arrays (of one shape) joined along a new axis ``axis``."""
    xs = _arrays(arrays, "stack", dtype)
    shapes = {get_aval(a).shape for a in xs}
    if len(shapes) != 1:
        raise ValueError(f"stack: all arrays must have the same shape; got {sorted(shapes)}")
    (ax,) = canonical_axes(axis, get_aval(xs[0]).ndim + 1, "stack")
    return st.concatenate([st.expand_dims(a, (ax,)) for a in xs], ax) if len(xs) > 1 else \
        copy_of(st.expand_dims(xs[0], (ax,)))


def unstack(x: ArrayLike, /, *, axis: int = 0) -> tuple[Any, ...]:
    """The slices of ``x`` along ``axis`` (the array API's; ``stack``'s inverse)."""
    x = asarray(x)
    shape = get_aval(x).shape
    (ax,) = canonical_axes(axis, len(shape), "unstack")
    return tuple(_take_slice(x, ax, i, i + 1, squeeze=True) for i in range(shape[ax]))


def _take_slice(x: Any, axis: int, lo: int, hi: int, squeeze: bool = False) -> Any:
    shape = get_aval(x).shape
    start = [0] * len(shape)
    limit = list(shape)
    start[axis], limit[axis] = lo, hi
    out = st.slice_array(x, start, limit)
    return st.squeeze(out, (axis,)) if squeeze else out


def hstack(tup: Sequence[ArrayLike], dtype: Any = None) -> Any:
    xs = _arrays(tup, "hstack", dtype)
    xs = [reshape(x, (1,)) if get_aval(x).ndim == 0 else x for x in xs]
    return concatenate(xs, 0 if get_aval(xs[0]).ndim == 1 else 1)


def vstack(tup: Sequence[ArrayLike], dtype: Any = None) -> Any:
    xs = _arrays(tup, "vstack", dtype)
    return concatenate([x if get_aval(x).ndim >= 2 else reshape(x, (1, -1)) for x in xs], 0)


def dstack(tup: Sequence[ArrayLike], dtype: Any = None) -> Any:
    xs = _arrays(tup, "dstack", dtype)
    out = []
    for x in xs:
        s = get_aval(x).shape
        out.append(reshape(x, {0: (1, 1, 1), 1: (1, *s, 1), 2: (*s, 1)}.get(len(s), s)))
    return concatenate(out, 2)


def column_stack(tup: Sequence[ArrayLike]) -> Any:
    xs = _arrays(tup, "column_stack")
    return concatenate([reshape(x, (-1, 1)) if get_aval(x).ndim < 2 else x for x in xs], 1)


def _split_points(n: int, indices_or_sections: Any, fn: str, even: bool) -> list[int]:
    if isinstance(indices_or_sections, (int, np.integer)):
        k = int(indices_or_sections)
        if k <= 0:
            raise ValueError(f"{fn}: the number of sections must be positive; got {k}")
        if even and n % k:
            raise ValueError(f"{fn}: an axis of size {n} does not split into {k} equal "
                             f"sections; use array_split")
        sizes = [n // k + (i < n % k) for i in range(k)]
        return list(np.cumsum([0, *sizes]))
    points = [int(i) for i in indices_or_sections]
    # NumPy's: negative points count from the end, then everything is clipped to [0, n]
    points = [min(max(p + n if p < 0 else p, 0), n) for p in points]
    return [0, *points, n]


def split(ary: ArrayLike, indices_or_sections: int | Sequence[int], axis: int = 0
          ) -> list[Any]:
    """``ary`` cut along ``axis`` into equal sections or at the given indices."""
    return _split(ary, indices_or_sections, axis, "split", even=True)


def array_split(ary: ArrayLike, indices_or_sections: int | Sequence[int], axis: int = 0
                ) -> list[Any]:
    """``split`` that allows sections of unequal size (the first ones one longer)."""
    return _split(ary, indices_or_sections, axis, "array_split", even=False)


def _split(ary: ArrayLike, spec: Any, axis: int, fn: str, even: bool) -> list[Any]:
    x = asarray(ary)
    shape = get_aval(x).shape
    (ax,) = canonical_axes(axis, len(shape), fn)
    points = _split_points(shape[ax], spec, fn, even)
    return [_take_slice(x, ax, lo, max(lo, hi)) for lo, hi in itertools.pairwise(points)]


def hsplit(ary: ArrayLike, indices_or_sections: int | Sequence[int]) -> list[Any]:
    x = asarray(ary)
    return split(x, indices_or_sections, 0 if get_aval(x).ndim == 1 else 1)


def vsplit(ary: ArrayLike, indices_or_sections: int | Sequence[int]) -> list[Any]:
    return split(ary, indices_or_sections, 0)


def dsplit(ary: ArrayLike, indices_or_sections: int | Sequence[int]) -> list[Any]:
    return split(ary, indices_or_sections, 2)


def tile(A: ArrayLike, reps: int | Sequence[int]) -> Any:
    """``A`` repeated ``reps`` times along each axis."""
    x = asarray(A)
    reps = (int(reps),) if isinstance(reps, (int, np.integer)) else tuple(int(r) for r in reps)
    if any(r < 0 for r in reps):
        raise ValueError(f"tile: reps must be non-negative; got {reps}")
    shape = get_aval(x).shape
    n = max(len(shape), len(reps))
    shape = (1,) * (n - len(shape)) + shape
    reps = (1,) * (n - len(reps)) + reps
    x = reshape(x, shape)
    # each axis a of size s becomes (r, s), then the pair is merged: r copies one after another
    wide = broadcast_to(reshape(x, [d for s in shape for d in (1, s)]),
                        [d for r, s in zip(reps, shape, strict=True) for d in (r, s)])
    return reshape(wide, [r * s for r, s in zip(reps, shape, strict=True)])


def repeat(a: ArrayLike, repeats: int | Sequence[int], axis: int | None = None, *,
           total_repeat_length: int | None = None) -> Any:
    """Each element of ``a`` repeated ``repeats`` times (an int, or one count per element along
    ``axis``; the counts must be concrete: the result's shape depends on them)."""
    x = asarray(a)
    if axis is None:
        x, axis = reshape(x, -1), 0
    shape = get_aval(x).shape
    (ax,) = canonical_axes(axis, len(shape), "repeat")
    if hasattr(repeats, "aval"):
        raise TypeError("repeat: repeats must be concrete (the result's shape depends on "
                        "them); got a traced value")
    counts = np.asarray(repeats)
    if counts.dtype.kind not in "iu" or counts.ndim > 1 or (counts < 0).any():
        raise ValueError(f"repeat: repeats must be a non-negative int or a sequence of them; "
                         f"got {repeats!r}")
    if counts.ndim == 0:
        r = int(counts)
        out = broadcast_to(expand_dims(x, ax + 1), (*shape[:ax + 1], r, *shape[ax + 1:]))
        out = reshape(out, (*shape[:ax], shape[ax] * r, *shape[ax + 1:]))
    else:
        if counts.shape[0] != shape[ax]:
            raise ValueError(f"repeat: repeats must have one count per element along axis "
                             f"{ax} ({shape[ax]}); got {counts.shape[0]}")
        pieces = [_take_slice(x, ax, i, i + 1) for i in range(shape[ax]) for _ in
                  range(int(counts[i]))]
        out = concatenate(pieces, ax) if pieces else _take_slice(x, ax, 0, 0)
    if total_repeat_length is not None and get_aval(out).shape[ax] != total_repeat_length:
        raise ValueError(f"repeat: total_repeat_length is {total_repeat_length}, but the "
                         f"repeats give {get_aval(out).shape[ax]}")
    return out


@returns_view
def flip(m: ArrayLike, axis: int | Sequence[int] | None = None) -> Any:
    """``m`` with the order of its elements reversed along ``axis`` (every axis by default)."""
    x = asarray(m)
    return rev(x, canonical_axes(axis, get_aval(x).ndim, "flip"))


def fliplr(m: ArrayLike) -> Any:
    if get_aval(asarray(m)).ndim < 2:
        raise ValueError("fliplr: the array must have at least 2 axes")
    return flip(m, 1)


def flipud(m: ArrayLike) -> Any:
    if get_aval(asarray(m)).ndim < 1:
        raise ValueError("flipud: the array must have at least 1 axis")
    return flip(m, 0)


def roll(a: ArrayLike, shift: int | Sequence[int], axis: int | Sequence[int] | None = None
         ) -> Any:
    """``a`` rotated by ``shift`` positions along ``axis`` (the flattened array if None)."""
    x = asarray(a)
    if axis is None:
        shape = get_aval(x).shape
        return reshape(roll(reshape(x, -1), shift, 0), shape)
    shifts = [shift] if isinstance(shift, (int, np.integer)) else list(shift)
    axes = [axis] if isinstance(axis, (int, np.integer)) else list(axis)
    if len(shifts) == 1 and len(axes) > 1:
        shifts = shifts * len(axes)
    if len(axes) == 1 and len(shifts) > 1:
        axes = axes * len(shifts)
    if len(shifts) != len(axes):
        raise ValueError(f"roll: shift and axis must have the same length; got {shift} and "
                         f"{axis}")
    ndim = get_aval(x).ndim
    for s, ax in zip(shifts, axes, strict=True):
        (ax,) = canonical_axes(ax, ndim, "roll")
        n = get_aval(x).shape[ax]
        k = int(s) % n if n else 0
        if k:
            x = st.concatenate([_take_slice(x, ax, n - k, n), _take_slice(x, ax, 0, n - k)], ax)
    return x


def rot90(m: ArrayLike, k: int = 1, axes: tuple[int, int] = (0, 1)) -> Any:
    """``m`` rotated by 90 degrees ``k`` times in the plane of ``axes``."""
    from minigrad.numpy.shape import swapaxes

    x = asarray(m)
    ndim = get_aval(x).ndim
    if len(axes) != 2:
        raise ValueError(f"rot90: axes must be two axes; got {axes}")
    a0, a1 = (int(a) % max(ndim, 1) for a in axes)
    canonical_axes(tuple(axes), ndim, "rot90")
    k %= 4
    if k == 0:
        return flip(flip(x, a0), a0)  # a new value, as NumPy's (a view) is not x itself
    if k == 2:
        return flip(flip(x, a0), a1)
    if k == 1:
        return swapaxes(flip(x, a1), a0, a1)
    return flip(swapaxes(x, a0, a1), a1)


def pad(array: ArrayLike, pad_width: Any, mode: str = "constant", **kwargs: Any) -> Any:
    """``array`` padded with ``pad_width`` ((before, after) per axis, NumPy's forms) in one of
    NumPy's modes: 'constant' (``constant_values``), 'edge', 'reflect', 'symmetric', 'wrap',
    'empty' (zeros here)."""
    x = asarray(array)
    shape = get_aval(x).shape
    widths = np.broadcast_to(np.asarray(pad_width, dtype=object), (len(shape), 2)) \
        if len(shape) else np.zeros((0, 2), dtype=object)
    try:
        widths = np.asarray(widths, dtype=np.int64)
    except (TypeError, ValueError):
        raise TypeError(f"pad: pad_width must be ints; got {pad_width!r}") from None
    if (widths < 0).any():
        raise ValueError(f"pad: pad_width must be non-negative; got {pad_width!r}")
    allowed = {"constant": {"constant_values"}, "edge": set(), "reflect": {"reflect_type"},
               "symmetric": {"reflect_type"}, "wrap": set(), "empty": set()}
    if mode not in allowed:
        raise ValueError(f"pad: mode must be one of {sorted(allowed)}; got {mode!r}")
    extra = set(kwargs) - allowed[mode]
    if extra:
        raise TypeError(f"pad: mode {mode!r} takes no argument {sorted(extra)}")
    if kwargs.get("reflect_type", "even") != "even":
        raise ValueError("pad: only reflect_type='even' is supported")
    if mode in ("constant", "empty"):
        return _pad_constant(x, widths, kwargs.get("constant_values", 0))
    for ax, (lo, hi) in enumerate(widths):
        x = _pad_axis(x, ax, int(lo), int(hi), mode)
    return x


def _pad_constant(x: Any, widths: np.ndarray, values: Any) -> Any:
    config = [(int(lo), int(hi), 0) for lo, hi in widths]
    out = st.pad(x, config)
    values = np.asarray(values) if not hasattr(values, "aval") else values
    if not hasattr(values, "aval") and not values.any():
        return out  # zeros: what the primitive pads with
    # elsewhere: pad a mask of ones, and select the values where it is False
    dtype = get_aval(x).dtype
    mask = st.pad(st.full(get_aval(x).shape, True, np.dtype(bool)), config)
    vals = values if hasattr(values, "aval") else np.asarray(values)
    vshape = get_aval(vals).shape
    if vshape in ((), (1,)):
        fill = broadcast_to(ew.convert_element_type(reshape(vals, ()), dtype),
                            get_aval(out).shape)
        return ew.select(mask, out, fill)
    # per-axis (before, after) values: pad axis by axis, each with its own constants
    table = np.broadcast_to(np.asarray(vals), (len(widths), 2))
    for ax, (lo, hi) in enumerate(widths):  # axis by axis: later axes fill the corners
        x = _pad_sides(x, ax, int(lo), int(hi), table[ax], dtype)
    return x


def _pad_sides(x: Any, ax: int, lo: int, hi: int, values: np.ndarray, dtype: np.dtype) -> Any:
    shape = list(get_aval(x).shape)
    parts = []
    if lo:
        parts.append(st.full((*shape[:ax], lo, *shape[ax + 1:]), values[0].item(), dtype))
    parts.append(x)
    if hi:
        parts.append(st.full((*shape[:ax], hi, *shape[ax + 1:]), values[1].item(), dtype))
    return st.concatenate(parts, ax)


def _pad_axis(x: Any, ax: int, lo: int, hi: int, mode: str) -> Any:
    n = get_aval(x).shape[ax]
    if (lo or hi) and n == 0:
        raise ValueError(f"pad: mode {mode!r} cannot pad an empty axis")
    parts = []
    if lo:
        parts.append(_pad_piece(x, ax, lo, mode, before=True))
    parts.append(x)
    if hi:
        parts.append(_pad_piece(x, ax, hi, mode, before=False))
    return st.concatenate(parts, ax) if len(parts) > 1 else x


def _pad_piece(x: Any, ax: int, width: int, mode: str, before: bool) -> Any:
    """The ``width`` elements that go before (or after) ``x`` along ``ax``."""
    n = get_aval(x).shape[ax]
    if mode == "edge":
        edge = _take_slice(x, ax, 0, 1) if before else _take_slice(x, ax, n - 1, n)
        shape = list(get_aval(x).shape)
        shape[ax] = width
        return broadcast_to(edge, shape)
    if mode == "wrap":
        reps = -(-width // n)
        tiled = st.concatenate([x] * reps, ax) if reps > 1 else x
        m = n * reps
        return _take_slice(tiled, ax, m - width, m) if before else _take_slice(tiled, ax, 0,
                                                                                width)
    # reflect (without the edge) and symmetric (with it), repeated as NumPy does for wide pads
    period = n - 1 if mode == "reflect" else n
    if period == 0:  # reflecting a single element: it repeats
        return _pad_piece(x, ax, width, "edge", before)
    pieces: list[Any] = []
    got = 0
    src = x
    while got < width:
        if before:
            body = _take_slice(src, ax, 1, n) if mode == "reflect" else src
            body = rev(body, (ax,))
            take = min(width - got, get_aval(body).shape[ax])
            m = get_aval(body).shape[ax]
            piece = _take_slice(body, ax, m - take, m)
            pieces.insert(0, piece)
        else:
            body = _take_slice(src, ax, 0, n - 1) if mode == "reflect" else src
            body = rev(body, (ax,))
            take = min(width - got, get_aval(body).shape[ax])
            piece = _take_slice(body, ax, 0, take)
            pieces.append(piece)
        got += take
        src = rev(src, (ax,))  # the next reflection is of the reflected block
    return st.concatenate(pieces, ax) if len(pieces) > 1 else pieces[0]


def diff(a: ArrayLike, n: int = 1, axis: int = -1, prepend: ArrayLike | None = None,
         append: ArrayLike | None = None) -> Any:
    """The ``n``-th discrete difference along ``axis`` (``prepend``/``append`` joined first)."""
    from minigrad.numpy.ufuncs import not_equal, subtract

    x = asarray(a)
    if n < 0:
        raise ValueError(f"diff: n must be non-negative; got {n}")
    (ax,) = canonical_axes(axis, get_aval(x).ndim, "diff")
    shape = get_aval(x).shape
    parts = []
    for extra in (prepend, x, append):
        if extra is None:
            continue
        e = asarray(extra)
        if get_aval(e).ndim == 0:
            e = broadcast_to(e, (*shape[:ax], 1, *shape[ax + 1:]))
        parts.append(e)
    if len(parts) > 1:
        x = concatenate(parts, ax)
    boolean = get_aval(x).dtype == np.bool_
    for _ in range(n):
        m = get_aval(x).shape[ax]
        hi, lo = _take_slice(x, ax, 1, max(m, 1)), _take_slice(x, ax, 0, max(m - 1, 0))
        x = not_equal(hi, lo) if boolean else subtract(hi, lo)
    return x

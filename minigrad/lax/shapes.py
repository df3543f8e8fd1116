"""JAX's ``jax.lax`` functions of shapes by name: ``iota``, ``broadcasted_iota``,
``broadcast``, ``broadcast_in_dim``, ``reshape``, ``squeeze``, ``expand_dims``, ``transpose``,
``rev``, ``pad``, ``concatenate``, ``select_n`` and ``clamp`` (the dtype conversions are in
``conversions.py``).

Each checks its arguments as ``jax.lax`` does (JAX's error types: mostly TypeError, ValueError
for axes and padding) before binding minigrad's primitive of the same name. Two are
composites with JAX's exact semantics:

* ``pad`` with negative low or high padding: the ``pad`` primitive (non-negative) followed by a
  ``slice`` that removes the negative part; its transpose is the strided slice of the
  cotangent that the two rules compose to. A padding value other than 0 is a ``select`` of the
  padded operand and the broadcast value (so it has a derivative, the sum of the cotangent
  over the pads).
* ``clamp``: ``min(max(x, lo), hi)`` (NaN propagates, ``lo > hi`` gives ``hi``), with JAX's
  derivative: to ``x`` where ``lo < x < hi``, to ``lo`` where ``x < lo < hi``, to ``hi`` where
  ``hi < x``, nothing at a tie.
"""

from __future__ import annotations

import operator
from typing import Any, Sequence

import numpy as np

from minigrad.array import as_array
from minigrad.core import Tracer, get_aval
from minigrad.lax.lax_ops import array_result, broadcast_operands, check_kind
from minigrad.lax.lax_ops import axis_arg as _axis
from minigrad.lax.lax_ops import operand as _arg
from minigrad.ops import bitwise as bw
from minigrad.ops import elementwise as ew
from minigrad.ops import structural as st
from minigrad.ops.binary import minimum
from minigrad.ops.rev import rev as _rev
from minigrad.ops.sort import iota as _iota
from minigrad.ops.stop_gradient import stop_gradient


def _ints(fn: str, name: str, values: Any) -> tuple[int, ...]:
    try:
        return tuple(operator.index(v) for v in values)
    except TypeError:
        raise TypeError(f"{fn}: {name} must be a sequence of ints; got {values!r}") from None


def _sizes(fn: str, name: str, values: Any) -> tuple[int, ...]:
    out = _ints(fn, name, values)
    if any(v < 0 for v in out):
        raise TypeError(f"{fn}: {name} must be non-negative; got {out}")
    return out


def _no_sharding(fn: str, out_sharding: Any) -> None:
    if out_sharding is not None:
        raise TypeError(f"{fn}: out_sharding must be None (minigrad runs on one host, with no "
                        f"shardings); got {out_sharding!r}")


def _dtype(fn: str, dtype: Any) -> np.dtype:
    try:
        return np.dtype(dtype)
    except TypeError:
        raise TypeError(f"{fn}: {dtype!r} is not a dtype") from None


# --------------------------------------------------------------------------- iota, broadcast

@array_result
def broadcasted_iota(dtype: Any, shape: Sequence[int], dimension: int, *,
                     out_sharding: Any = None) -> Any:
    """``0, 1, 2, ...`` along ``dimension``, broadcast to ``shape``."""
    _no_sharding("broadcasted_iota", out_sharding)
    dt = _dtype("broadcasted_iota", dtype)
    if dt.kind not in "iufc":
        raise TypeError(f"broadcasted_iota: dtype must be a number type; got {dt.name}")
    shape_ = _sizes("broadcasted_iota", "shape", shape)
    d = operator.index(dimension)
    if not 0 <= d < len(shape_):
        raise ValueError(f"broadcasted_iota: dimension must be in [0, {len(shape_)}); got {d}")
    return _iota(shape_, d, dt)


@array_result
def iota(dtype: Any, size: int) -> Any:
    """``0, 1, ..., size - 1`` of ``dtype``.

    >>> import minigrad as mg, numpy as np
    >>> mg.lax.iota(np.int32, 3)
    Array([0, 1, 2], dtype=int32)
    """
    return broadcasted_iota(dtype, (size,), 0)


@array_result
def broadcast_in_dim(operand: Any, shape: Sequence[int], broadcast_dimensions: Sequence[int],
                     *, out_sharding: Any = None) -> Any:
    """``operand`` broadcast to ``shape``, its axis ``i`` becoming axis
    ``broadcast_dimensions[i]`` (distinct; out of order they transpose, as JAX's; an axis of
    size 1 may grow)."""
    _no_sharding("broadcast_in_dim", out_sharding)
    x = _arg(operand, "broadcast_in_dim", "operand")
    shape_ = _sizes("broadcast_in_dim", "shape", shape)
    dims = _ints("broadcast_in_dim", "broadcast_dimensions", broadcast_dimensions)
    own = get_aval(x).shape
    if len(dims) != len(own):
        raise TypeError(f"broadcast_in_dim: broadcast_dimensions must have one entry per axis "
                        f"of the operand {own}; got {dims}")
    if any(not 0 <= d < len(shape_) for d in dims) or len(set(dims)) != len(dims):
        raise TypeError(f"broadcast_in_dim: broadcast_dimensions must be distinct and in "
                        f"[0, {len(shape_)}); got {dims}")
    if any(n not in (1, shape_[d]) for n, d in zip(own, dims, strict=True)):
        raise TypeError(f"broadcast_in_dim: each operand axis must have size 1 or the target "
                        f"axis's; got operand {own}, shape {shape_}, broadcast_dimensions {dims}")
    order = sorted(range(len(dims)), key=dims.__getitem__)
    if order != list(range(len(dims))):  # out of order: JAX's transpose first
        x, dims = st.transpose(x, order), tuple(sorted(dims))
    return st.broadcast_in_dim(x, shape_, dims)


@array_result
def broadcast(operand: Any, sizes: Sequence[int], *, out_sharding: Any = None) -> Any:
    """``operand`` with new leading axes of ``sizes``."""
    _no_sharding("broadcast", out_sharding)
    x = _arg(operand, "broadcast", "operand")
    sizes_ = _sizes("broadcast", "sizes", sizes)
    own = get_aval(x).shape
    return st.broadcast_in_dim(x, sizes_ + own, tuple(range(len(sizes_), len(sizes_) + len(own))))


# --------------------------------------------------------------------------- axes

def _axes(fn: str, what: str, dims: Any, ndim: int, negative: bool) -> tuple[int, ...]:
    out = _ints(fn, what, dims)
    if not negative and any(d < 0 for d in out):
        raise TypeError(f"{fn}: {what} must be non-negative; got {out}")
    if any(not -ndim <= d < ndim for d in out):
        raise ValueError(f"{fn}: {what} must be in [-{ndim}, {ndim}); got {out}")
    canonical = tuple(d % ndim for d in out) if ndim else out
    if len(set(canonical)) != len(canonical):
        raise ValueError(f"{fn}: {what} must be distinct; got {out}")
    return canonical


@array_result
def transpose(operand: Any, permutation: Sequence[int]) -> Any:
    """The axes of ``operand`` permuted: axis ``i`` of the result is ``permutation[i]``."""
    x = _arg(operand, "transpose", "operand")
    perm = _ints("transpose", "permutation", permutation)
    ndim = get_aval(x).ndim
    if sorted(perm) != list(range(ndim)):
        raise TypeError(f"transpose: permutation must be a permutation of range({ndim}); got "
                        f"{perm}")
    return st.transpose(x, perm)


@array_result
def reshape(operand: Any, new_sizes: Sequence[int], dimensions: Sequence[int] | None = None,
            *, out_sharding: Any = None) -> Any:
    """``operand`` (its axes first permuted by ``dimensions``) read in C order into
    ``new_sizes`` (no -1: every size is given)."""
    _no_sharding("reshape", out_sharding)
    x = _arg(operand, "reshape", "operand")
    sizes = _ints("reshape", "new_sizes", new_sizes)
    if any(n < 0 for n in sizes):
        raise TypeError(f"reshape: new_sizes must be non-negative (lax takes no -1); got "
                        f"{sizes}")
    aval = get_aval(x)
    if dimensions is not None:
        dims = _ints("reshape", "dimensions", dimensions)
        if sorted(dims) != list(range(aval.ndim)):
            raise TypeError(f"reshape: dimensions must be a permutation of range({aval.ndim}); "
                            f"got {dims}")
        x = st.transpose(x, dims)
    if int(np.prod(sizes)) != aval.size:
        raise TypeError(f"reshape: new_sizes {sizes} must hold the operand's {aval.size} "
                        f"elements (shape {aval.shape})")
    return x if get_aval(x).shape == sizes else st.reshape(x, sizes)


@array_result
def squeeze(array: Any, dimensions: Sequence[int]) -> Any:
    """``array`` without the axes ``dimensions`` (each of size 1; negative from the end)."""
    x = _arg(array, "squeeze", "array")
    aval = get_aval(x)
    dims = _axes("squeeze", "dimensions", dimensions, aval.ndim, True)
    if any(aval.shape[d] != 1 for d in dims):
        raise ValueError(f"squeeze: the axes {dims} must have size 1; got shape {aval.shape}")
    return st.squeeze(x, tuple(sorted(dims))) if dims else x


@array_result
def expand_dims(array: Any, dimensions: Sequence[int]) -> Any:
    """``array`` with new axes of size 1 at ``dimensions`` of the result (negative from its
    end)."""
    x = _arg(array, "expand_dims", "array")
    ndim = get_aval(x).ndim + len(tuple(dimensions))
    dims = _axes("expand_dims", "dimensions", dimensions, ndim, True)
    return st.expand_dims(x, tuple(sorted(dims))) if dims else x


@array_result
def rev(operand: Any, dimensions: Sequence[int]) -> Any:
    """``operand`` reversed along ``dimensions`` (non-negative, as JAX's)."""
    x = _arg(operand, "rev", "operand")
    ndim = get_aval(x).ndim
    dims = _ints("rev", "dimensions", dimensions)
    if any(not 0 <= d < ndim for d in dims) or len(set(dims)) != len(dims):
        raise TypeError(f"rev: dimensions must be distinct and in [0, {ndim}); got {dims}")
    return _rev(x, dims)


def _operand_list(fn: str, operands: Any) -> tuple[list[Any], list[Any]]:
    """A non-empty sequence of operands (an array counts as the sequence of its rows) and
    their avals."""
    if isinstance(operands, (np.ndarray, Tracer)) or not isinstance(operands, (list, tuple)):
        operands = list(operands)
    if not operands:
        raise ValueError(f"{fn}: operands must be a non-empty sequence of arrays")
    xs = [_arg(o, fn, f"operands[{i}]") for i, o in enumerate(operands)]
    return xs, [get_aval(x) for x in xs]


@array_result
def concatenate(operands: Sequence[Any], dimension: int) -> Any:
    """``operands`` joined along ``dimension`` (non-negative; one dtype; one size in every
    other axis)."""
    xs, avals = _operand_list("concatenate", operands)
    if len({a.dtype for a in avals}) != 1:
        raise TypeError(f"concatenate: operands must have one dtype (lax never promotes); got "
                        f"{', '.join(a.dtype.name for a in avals)}")
    d = operator.index(dimension)
    ndim = avals[0].ndim
    if not 0 <= d < ndim:
        raise TypeError(f"concatenate: dimension must be in [0, {ndim}); got {d}")
    rest = {a.shape[:d] + a.shape[d + 1:] for a in avals}
    if len({a.ndim for a in avals}) != 1 or len(rest) != 1:
        raise TypeError(f"concatenate: operands must agree in every axis but {d}; got shapes "
                        f"{', '.join(str(a.shape) for a in avals)}")
    return xs[0] if len(xs) == 1 else st.concatenate(xs, d)


# --------------------------------------------------------------------------- pad

@array_result
def pad(operand: Any, padding_value: Any, padding_config: Sequence[tuple[int, int, int]]
        ) -> Any:
    """``operand`` with ``(low, high, interior)`` elements of ``padding_value`` per axis: low
    before, high after, interior between neighbours. A negative low or high removes elements
    from that end (after the interior padding).

    >>> import minigrad as mg, numpy as np
    >>> mg.lax.pad(np.arange(1.0, 4.0), 0.0, [(-1, 2, 1)])
    Array([0., 2., 0., 3., 0., 0.], dtype=float64)
    """
    x = _arg(operand, "pad", "operand")
    value = _arg(padding_value, "pad", "padding_value")
    aval, vaval = get_aval(x), get_aval(value)
    if vaval.shape != ():
        raise ValueError(f"pad: padding_value must be a scalar; got shape {vaval.shape}")
    if vaval.dtype != aval.dtype:
        raise TypeError(f"pad: operand and padding_value must have one dtype; got "
                        f"{aval.dtype.name} and {vaval.dtype.name}")
    config: list[Any] = []
    for triple in padding_config:
        if len(triple) != 3:
            raise ValueError(f"pad: padding_config must hold (low, high, interior) triples; "
                             f"got {tuple(padding_config)!r}")
        config.append(_ints("pad", "padding_config", triple))
    if len(config) != aval.ndim:
        raise ValueError(f"pad: padding_config must have one triple per axis of "
                         f"{aval.shape}; got {len(config)}")
    if any(i < 0 for _, _, i in config):
        raise ValueError(f"pad: interior padding must be non-negative; got {tuple(config)}")
    out_shape = [lo + hi + n + max(n - 1, 0) * i for (lo, hi, i), n in
                 zip(config, aval.shape, strict=True)]
    if any(n < 0 for n in out_shape):
        raise ValueError(f"pad: padding_config {tuple(config)} leaves a negative size "
                         f"{tuple(out_shape)} for the operand shape {aval.shape}")
    padded = st.pad(x, [(max(lo, 0), max(hi, 0), i) for lo, hi, i in config])
    full_shape = get_aval(padded).shape
    starts = [max(-lo, 0) for lo, _, _ in config]
    limits = [n - max(-hi, 0) for n, (_, hi, _) in zip(full_shape, config, strict=True)]
    padded = st.slice_array(padded, starts, limits)
    if not isinstance(value, Tracer) and value == 0 and not np.signbit(value):
        return padded  # (the pad primitive's own zeros)
    where = pad(np.ones(aval.shape, bool), False, config)  # a constant: which entries are x's
    return ew.select(where, padded, st.broadcast_in_dim(value, tuple(out_shape), ()))


# --------------------------------------------------------------------------- select_n, clamp

@array_result
def select_n(which: Any, *cases: Any) -> Any:
    """``cases[which]`` elementwise: ``which`` bool (two cases at most: False picks the first)
    or an integer, a scalar or of the cases' shape; the cases of one shape and dtype. An
    integer outside ``[0, len(cases))`` picks the nearest end (JAX leaves it undefined).

    >>> import minigrad as mg, numpy as np
    >>> mg.lax.select_n(np.array([2, 0]), np.zeros(2), np.ones(2), np.full(2, 2.0))
    Array([2., 0.], dtype=float64)
    """
    if not cases:
        raise ValueError("select_n: needs at least one case")
    w = _arg(which, "select_n", "which")
    xs = [_arg(c, "select_n", f"cases[{i}]") for i, c in enumerate(cases)]
    wa, avals = get_aval(w), [get_aval(c) for c in xs]
    if wa.dtype.kind not in "biu":
        raise TypeError(f"select_n: which must be bool or an integer; got {wa.dtype.name}")
    if wa.dtype.kind == "b" and len(xs) > 2:
        raise TypeError(f"select_n: a bool which selects among 2 cases at most; got "
                        f"{len(xs)}")
    if len({a.shape for a in avals}) != 1 or len({a.dtype for a in avals}) != 1:
        raise TypeError(f"select_n: cases must have one shape and dtype; got "
                        f"{', '.join(a.str_short() for a in avals)}")
    shape = avals[0].shape
    if wa.shape not in ((), shape):
        raise TypeError(f"select_n: which must be a scalar or have the cases' shape {shape}; "
                        f"got {wa.shape}")
    if len(xs) == 1:
        return xs[0]
    if wa.shape != shape:
        w = st.broadcast_in_dim(w, shape, ())
    if wa.dtype.kind == "b":
        return ew.select(w, xs[1], xs[0])
    out = xs[0]
    for i, case in enumerate(xs[1:], start=1):
        out = ew.select(ew.ge(w, ew.full_like(w, i)), case, out)
    return out


@array_result
def clamp(min: Any, x: Any, max: Any) -> Any:
    """``x`` clamped into ``[min, max]``: ``min(max(x, min), max)`` (``min`` and ``max``
    scalars or of ``x``'s shape; one dtype), with JAX's derivative (see the module's doc).

    >>> import minigrad as mg, numpy as np
    >>> mg.lax.clamp(0.0, np.array([-1.0, 0.5, 2.0]), 1.0)
    Array([0. , 0.5, 1. ], dtype=float64)
    """
    lo, v, hi = (_arg(a, "clamp", n) for a, n in ((min, "min"), (x, "x"), (max, "max")))
    avals = [get_aval(a) for a in (lo, v, hi)]
    if len({a.dtype for a in avals}) != 1:
        raise TypeError(f"clamp: min, x and max must have one dtype; got "
                        f"{', '.join(a.dtype.name for a in avals)}")
    for name, a in (("min", avals[0]), ("max", avals[2])):
        if a.shape not in ((), avals[1].shape):
            raise TypeError(f"clamp: {name} must be a scalar or have x's shape "
                            f"{avals[1].shape}; got {a.shape}")
    check_kind("clamp", v, "iuf")
    lo, v, hi = broadcast_operands("clamp", [lo, v, hi])
    both = stop_gradient(minimum(ew.maximum(v, lo), hi))  # XLA's value, NaN included
    to_x = bw.bitwise_and(ew.gt(v, lo), ew.lt(v, hi))
    to_lo = bw.bitwise_and(ew.gt(lo, v), ew.lt(lo, hi))
    to_hi = ew.lt(hi, v)
    return ew.select(to_x, v, ew.select(to_lo, lo, ew.select(to_hi, hi, both)))


# --------------------------------------------------------------------------- more by name

def _filled(fn: str, value: Any, dtype: Any, shape: tuple[int, ...]) -> Any:
    v = _arg(value, fn, "fill_value")
    if get_aval(v).ndim:
        raise TypeError(f"{fn}: fill_value must be a scalar; got shape {get_aval(v).shape}")
    target = get_aval(v).dtype if dtype is None else _dtype(fn, dtype)
    return st.broadcast_to(ew.convert_element_type(v, target), shape)


@array_result
def full(shape: Sequence[int], fill_value: Any, dtype: Any = None, *,
         sharding: Any = None) -> Any:
    """An array of ``shape`` holding ``fill_value`` (a scalar; its own dtype unless ``dtype``
    is given)."""
    _no_sharding("full", sharding)
    return _filled("full", fill_value, dtype, _sizes("full", "shape", shape))


@array_result
def full_like(x: Any, fill_value: Any, dtype: Any = None, shape: Sequence[int] | None = None,
              sharding: Any = None) -> Any:
    """``full`` with ``x``'s shape and dtype unless ``shape`` or ``dtype`` is given."""
    _no_sharding("full_like", sharding)
    aval = get_aval(_arg(x, "full_like", "x"))
    sizes = aval.shape if shape is None else _sizes("full_like", "shape", shape)
    return _filled("full_like", fill_value, aval.dtype if dtype is None else dtype, sizes)


@array_result
def empty(shape: Sequence[int], dtype: Any, *, out_sharding: Any = None) -> Any:
    """An array of ``shape`` and ``dtype``; its values are zeros (JAX's, which are too)."""
    _no_sharding("empty", out_sharding)
    return st.full(_sizes("empty", "shape", shape), 0, _dtype("empty", dtype))


@array_result
def tile(operand: Any, reps: Sequence[int]) -> Any:
    """``operand`` repeated ``reps[i]`` times along axis i (one rep per axis, as JAX)."""
    x = _arg(operand, "tile", "operand")
    counts = _sizes("tile", "reps", reps)
    aval = get_aval(x)
    if len(counts) != aval.ndim:
        raise TypeError(f"tile: reps must have one entry per axis of the operand, {aval.ndim}; "
                        f"got {counts}")
    # each axis i as (reps[i], n_i): a broadcast, then one reshape
    wide = st.broadcast_in_dim(x, tuple(v for r, n in zip(counts, aval.shape, strict=True)
                                        for v in (r, n)), tuple(range(1, 2 * aval.ndim, 2)))
    return st.reshape(wide, tuple(r * n for r, n in zip(counts, aval.shape, strict=True)))


@array_result
def collapse(operand: Any, start_dimension: int, stop_dimension: int | None = None) -> Any:
    """``operand`` with its axes ``start_dimension`` to ``stop_dimension - 1`` merged into one
    (negative from the end; the stop defaults to the last axis)."""
    x = _arg(operand, "collapse", "operand")
    shape = get_aval(x).shape
    ndim = len(shape)
    start = operator.index(start_dimension)
    stop = ndim if stop_dimension is None else operator.index(stop_dimension)
    start, stop = start + ndim if start < 0 else start, stop + ndim if stop < 0 else stop
    if not 0 <= start <= stop <= ndim:
        raise ValueError(f"collapse: need 0 <= start_dimension <= stop_dimension <= {ndim}; "
                         f"got {start_dimension} and {stop_dimension}")
    merged = int(np.prod(shape[start:stop], dtype=np.int64))
    return st.reshape(x, (*shape[:start], merged, *shape[stop:]))


@array_result
def broadcast_to_rank(x: Any, rank: int) -> Any:
    """``x`` with leading axes of size 1 up to ``rank`` axes (as it is if it has as many)."""
    v = _arg(x, "broadcast_to_rank", "x")
    shape = get_aval(v).shape
    extra = operator.index(rank) - len(shape)
    return v if extra <= 0 else st.reshape(v, (1,) * extra + shape)


def split(operand: Any, sizes: Sequence[int], axis: int = 0) -> list[Any]:
    """``operand`` cut along ``axis`` into pieces of ``sizes`` (which sum to its length)."""
    x = _arg(operand, "split", "operand")
    shape = get_aval(x).shape
    a = _axis("split", axis, len(shape))
    lengths = _sizes("split", "sizes", sizes)
    if sum(lengths) != shape[a]:
        raise ValueError(f"split: sizes {lengths} must sum to the length {shape[a]} of axis {a}")
    out, start = [], 0
    for n in lengths:
        lo, hi = [0] * len(shape), list(shape)
        lo[a], hi[a] = start, start + n
        out.append(as_array(st.slice_array(x, tuple(lo), tuple(hi))))
        start += n
    return out


def unstack(x: Any, axis: int = 0) -> tuple[Any, ...]:
    """The slices of ``x`` along ``axis``, each without that axis."""
    v = _arg(x, "unstack", "x")
    shape = get_aval(v).shape
    a = _axis("unstack", axis, len(shape))
    return tuple(as_array(st.squeeze(piece, (a,))) for piece in split(v, (1,) * shape[a], a))


@array_result
def stack(operands: Sequence[Any], axis: int = 0) -> Any:
    """``operands`` (one dtype, one shape) joined along a new axis ``axis``."""
    xs, avals = _operand_list("stack", operands)
    if len({v.dtype for v in avals}) != 1 or len({v.shape for v in avals}) != 1:
        raise TypeError(f"stack: operands must have one dtype and one shape (lax never "
                        f"promotes); got {', '.join(v.str_short() for v in avals)}")
    a = _axis("stack", axis, avals[0].ndim + 1)
    return st.concatenate([st.expand_dims(x, (a,)) for x in xs], a)


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...]:
    """The shape NumPy's broadcasting gives ``shapes`` (a ValueError if they do not fit)."""
    try:
        return tuple(np.broadcast_shapes(*(tuple(_ints("broadcast_shapes", "shape", s))
                                           for s in shapes)))
    except ValueError:
        raise ValueError(f"broadcast_shapes: incompatible shapes for broadcasting: "
                         f"{', '.join(str(tuple(s)) for s in shapes)}") from None


__all__ = [
    "broadcast", "broadcast_in_dim", "broadcasted_iota", "broadcast_shapes",
    "broadcast_to_rank", "clamp", "collapse", "concatenate", "empty", "expand_dims", "full",
    "full_like", "iota", "pad", "reshape", "rev", "select_n", "split", "squeeze", "stack",
    "tile", "transpose", "unstack",
]

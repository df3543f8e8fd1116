"""``dynamic_slice`` and ``dynamic_update_slice``: a window of static size at start positions
that are values (traced, batched, computed), JAX's primitives of the same names.

Semantics (XLA's, which JAX documents): each start is *clamped* so that the window fits,
``start = clip(start, 0, n - size)``; a start past the end reads (or writes) the last
``size`` elements, never an error and never a partial window. Negative starts are clamped to
0 here: ``minigrad.lax`` counts them from the end first, as ``jax.lax`` does.

The operands are ``x``, (for the update) ``update``, then one integer start per sliced axis.
As ``ops/gather.py`` we keep JAX's *operand batching dims* as ``batch_dims``: the leading
``batch_dims`` axes of ``x`` (and of ``update``) are paired with the starts, which have exactly
that shape, so example ``b`` reads its own window of ``x[b]``. A batching rule with batched
starts then only moves axes and counts one more batch dim, and the impl reads every window at
once with one fancy index (an iota per batch axis, ``start + arange(size)`` per sliced axis):
no loop over the batch. Rules:

* ``dynamic_slice`` is linear in ``x``: ``out_dot = dynamic_slice(x_dot)``; transpose
  ``ct_x = dynamic_update_slice(zeros_like(x), ct)`` (the window's elements, zeros elsewhere);
* ``dynamic_update_slice`` is linear in ``(x, update)`` jointly: ``out_dot =
  dynamic_update_slice(x_dot, update_dot)``; transpose ``ct_x = dynamic_update_slice(ct, 0)``
  (the window overwritten: x's elements there do not reach the output), ``ct_update =
  dynamic_slice(ct)``.

The starts are integers: no derivative, never linear operands.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from minigrad.core import Primitive, ShapedArray, UndefPrimal, Zero, get_aval
from minigrad.ops.structural import bdim_to, full, instantiate, zeros

Shape = tuple[int, ...]

dynamic_slice_p = Primitive("dynamic_slice")
dynamic_update_slice_p = Primitive("dynamic_update_slice")


def dynamic_slice(x: Any, starts: Sequence[Any], slice_sizes: Sequence[int], *,
                  batch_dims: int = 0) -> Any:
    """The window of ``x`` of shape ``slice_sizes`` at ``starts`` (one integer per sliced
    axis), each start clamped so that the window fits.

    >>> import numpy as np
    >>> from minigrad.ops.dynamic_slice import dynamic_slice
    >>> dynamic_slice(np.arange(5.0), [np.array(4)], [2])  # clamped to start 3
    Array([3., 4.], dtype=float64)
    """
    return dynamic_slice_p.bind(x, *starts, slice_sizes=tuple(int(s) for s in slice_sizes),
                                batch_dims=int(batch_dims))


def dynamic_update_slice(x: Any, update: Any, starts: Sequence[Any], *, batch_dims: int = 0
                         ) -> Any:
    """``x`` with the window at ``starts`` (clamped so that ``update`` fits) replaced by
    ``update``; ``x`` itself is never written."""
    return dynamic_update_slice_p.bind(x, update, *starts, batch_dims=int(batch_dims))


# --------------------------------------------------------------------------- shared helpers

def _check(op: str, x: ShapedArray, starts: Sequence[ShapedArray], sizes: Shape,
           batch_dims: int) -> None:
    """The shape rule both primitives share (``sizes``: the window, one per sliced axis)."""
    k = batch_dims
    if not 0 <= k <= x.ndim:
        raise ValueError(f"{op}: batch_dims must be in [0, {x.ndim}]; got {k}")
    if len(starts) != x.ndim - k:
        raise TypeError(f"{op}: needs one start index per axis of x {x.str_short()}"
                        f"{f' after its {k} batch dims' if k else ''}; got {len(starts)}")
    for s in starts:
        if s.dtype.kind not in "iu" or s.shape != x.shape[:k]:
            raise TypeError(f"{op}: start indices must be integer arrays of shape "
                            f"{x.shape[:k]}; got {', '.join(t.str_short() for t in starts)}")
    if len(sizes) != x.ndim - k or any(not 0 <= z <= n for z, n in
                                       zip(sizes, x.shape[k:], strict=True)):
        raise ValueError(f"{op}: the window {sizes} must have one size in [0, n] per axis of "
                         f"{x.shape[k:]}")


def _clamped(start: np.ndarray, n: int, size: int) -> np.ndarray:
    """``clip(start, 0, n - size)`` as int64, for any integer dtype (a uint64 above int64's
    range is clipped before the cast, not wrapped negative by it)."""
    if start.dtype.kind == "u":
        start = np.minimum(start, n)
    return np.clip(start.astype(np.int64), 0, n - size)


def window_key(x_shape: Shape, starts: Sequence[np.ndarray], sizes: Shape, batch_dims: int
               ) -> tuple:
    """The NumPy key reading every window at once: slices without batch dims, else an iota per
    batch axis and ``start + arange(size)`` per sliced axis, broadcast to ``batch + sizes``.
    Trailing axes read whole (their start clamps to 0) stay slices: NumPy then copies whole
    rows instead of computing each element's address (speed: 13x at 512 windows of 8 x 256)."""
    k, m = batch_dims, len(sizes)
    rest = x_shape[k:]
    if k == 0:  # Python ints: np.clip on 0-d arrays costs ~10 us a start
        key = []
        for s, n, z in zip(starts, rest, sizes, strict=True):
            c = min(max(int(s), 0), n - z)
            key.append(slice(c, c + z))
        return tuple(key)
    indexed = m
    while indexed and sizes[indexed - 1] == rest[indexed - 1]:
        indexed -= 1
    batch, nd = x_shape[:k], k + indexed
    arrays: list[Any] = [np.arange(b).reshape((1,) * j + (b,) + (1,) * (nd - j - 1))
                         for j, b in enumerate(batch)]
    for j in range(indexed):
        z = sizes[j]
        offsets = np.arange(z).reshape((1,) * (k + j) + (z,) + (1,) * (indexed - j - 1))
        clamped = _clamped(np.asarray(starts[j]), rest[j], z)
        arrays.append(clamped.reshape(batch + (1,) * indexed) + offsets)
    return (*arrays, *[slice(None)] * (m - indexed))


# --------------------------------------------------------------------------- dynamic_slice

@dynamic_slice_p.def_impl
def _dynamic_slice_impl(x: np.ndarray, *starts: np.ndarray, slice_sizes: Shape,
                        batch_dims: int) -> np.ndarray:
    return np.asarray(x[window_key(x.shape, starts, slice_sizes, batch_dims)])


@dynamic_slice_p.def_abstract_eval
def _dynamic_slice_abstract_eval(x: ShapedArray, *starts: ShapedArray, slice_sizes: Shape,
                                 batch_dims: int) -> ShapedArray:
    _check("dynamic_slice", x, starts, slice_sizes, batch_dims)
    return ShapedArray(x.shape[:batch_dims] + slice_sizes, x.dtype)


@dynamic_slice_p.def_jvp
def _dynamic_slice_jvp(primals: tuple, tangents: tuple, **params: Any) -> tuple:
    # out_dot = dynamic_slice(x_dot, starts)
    out = dynamic_slice_p.bind(*primals, **params)
    t = tangents[0]
    if isinstance(t, Zero):
        return out, Zero(get_aval(out))
    return out, dynamic_slice_p.bind(t, *primals[1:], **params)


@dynamic_slice_p.def_transpose
def _dynamic_slice_transpose(ct: Any, x: Any, *starts: Any, slice_sizes: Shape,
                             batch_dims: int) -> tuple:
    # ct_x = dynamic_update_slice(zeros_like(x), ct, starts)
    if any(isinstance(s, UndefPrimal) for s in starts):
        raise TypeError("dynamic_slice: a start index is not a linear operand")
    ct_x = dynamic_update_slice_p.bind(zeros(x.aval), instantiate(ct), *starts,
                                       batch_dims=batch_dims)
    return (ct_x, *[None] * len(starts))


def _zero_starts(batch: Shape) -> Any:
    """The start 0 of an axis read whole, one per example of the batch dims."""
    return full(batch, 0, np.dtype(np.int64))


@dynamic_slice_p.def_batch
def _dynamic_slice_batch(axis_size: int, vals: tuple, dims: tuple, *, slice_sizes: Shape,
                         batch_dims: int) -> tuple:
    (x, *starts), (xd, *sds), k = vals, dims, batch_dims
    if all(d is None for d in sds):
        # shared starts: x's batch axis goes first after the batch dims, read whole from 0
        x = bdim_to(x, xd, k, axis_size)
        starts = [_zero_starts(get_aval(x).shape[:k]), *starts]
        return dynamic_slice_p.bind(x, *starts, slice_sizes=(axis_size, *slice_sizes),
                                    batch_dims=k), k
    # batched starts: the batch axis becomes one more paired batch dim, in front
    x = bdim_to(x, xd, 0, axis_size)
    starts = [bdim_to(s, d, 0, axis_size) for s, d in zip(starts, sds, strict=True)]
    return dynamic_slice_p.bind(x, *starts, slice_sizes=slice_sizes, batch_dims=k + 1), 0


# --------------------------------------------------------------------------- dynamic_update_slice

@dynamic_update_slice_p.def_impl
def _dynamic_update_slice_impl(x: np.ndarray, update: np.ndarray, *starts: np.ndarray,
                               batch_dims: int) -> np.ndarray:
    out = np.array(x)  # a copy: x is never written
    out[window_key(x.shape, starts, update.shape[batch_dims:], batch_dims)] = update
    return out


@dynamic_update_slice_p.def_abstract_eval
def _dynamic_update_slice_abstract_eval(x: ShapedArray, update: ShapedArray,
                                        *starts: ShapedArray, batch_dims: int) -> ShapedArray:
    k = batch_dims
    if update.dtype != x.dtype or update.ndim != x.ndim or update.shape[:k] != x.shape[:k]:
        raise TypeError(f"dynamic_update_slice: update must have x's dtype and rank"
                        f"{f' and its {k} batch dims' if k else ''}; got x {x.str_short()} "
                        f"and update {update.str_short()}")
    _check("dynamic_update_slice", x, starts, update.shape[k:], k)
    return ShapedArray(x.shape, x.dtype)


@dynamic_update_slice_p.def_jvp
def _dynamic_update_slice_jvp(primals: tuple, tangents: tuple, *, batch_dims: int) -> tuple:
    # out_dot = dynamic_update_slice(x_dot, update_dot, starts)
    starts = primals[2:]
    tx, tu = tangents[:2]
    out = dynamic_update_slice_p.bind(*primals, batch_dims=batch_dims)
    if isinstance(tx, Zero) and isinstance(tu, Zero):
        return out, Zero(get_aval(out))
    return out, dynamic_update_slice_p.bind(instantiate(tx), instantiate(tu), *starts,
                                            batch_dims=batch_dims)


@dynamic_update_slice_p.def_transpose
def _dynamic_update_slice_transpose(ct: Any, x: Any, update: Any, *starts: Any,
                                    batch_dims: int) -> tuple:
    # ct_x = dynamic_update_slice(ct, 0, starts), ct_update = dynamic_slice(ct, starts)
    if any(isinstance(s, UndefPrimal) for s in starts):
        raise TypeError("dynamic_update_slice: a start index is not a linear operand")
    ct = instantiate(ct)
    u_aval = update.aval if isinstance(update, UndefPrimal) else get_aval(update)
    ct_x = ct_u = None
    if isinstance(x, UndefPrimal):
        ct_x = dynamic_update_slice_p.bind(ct, zeros(u_aval), *starts, batch_dims=batch_dims)
    if isinstance(update, UndefPrimal):
        ct_u = dynamic_slice_p.bind(ct, *starts, slice_sizes=u_aval.shape[batch_dims:],
                                    batch_dims=batch_dims)
    return (ct_x, ct_u, *[None] * len(starts))


@dynamic_update_slice_p.def_batch
def _dynamic_update_slice_batch(axis_size: int, vals: tuple, dims: tuple, *, batch_dims: int
                                ) -> tuple:
    (x, update, *starts), (xd, ud, *sds), k = vals, dims, batch_dims
    if all(d is None for d in sds):
        # shared starts: the batch axis first after the batch dims, written whole from 0
        x, update = bdim_to(x, xd, k, axis_size), bdim_to(update, ud, k, axis_size)
        starts = [_zero_starts(get_aval(x).shape[:k]), *starts]
        return dynamic_update_slice_p.bind(x, update, *starts, batch_dims=k), k
    # batched starts: one more paired batch dim, in front
    x, update = bdim_to(x, xd, 0, axis_size), bdim_to(update, ud, 0, axis_size)
    starts = [bdim_to(s, d, 0, axis_size) for s, d in zip(starts, sds, strict=True)]
    return dynamic_update_slice_p.bind(x, update, *starts, batch_dims=k + 1), 0


__all__ = ["dynamic_slice", "dynamic_slice_p", "dynamic_update_slice",
           "dynamic_update_slice_p", "window_key"]

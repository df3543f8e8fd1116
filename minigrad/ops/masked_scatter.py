"""masked_scatter: the true entries of ``mask``, in row-major order of ``broadcast(x, mask)``,
take consecutive elements of ``source.ravel()``.

The user function broadcasts ``x`` and ``mask`` to the result's shape and flattens ``source``,
so the primitive sees ``x`` and ``mask`` of one shape and a 1-D ``source``. ``source`` needs at
least ``mask.sum()`` elements; the extra ones are ignored and get zero gradient. For a fixed
``mask`` the op is linear in ``(x, source)`` jointly: ``ct_x = masked_fill(ct, mask, 0)`` and
``ct_source = masked_gather(ct, mask, source.size)``.

``batch_dims`` leading axes of every operand pair up example by example (``source`` is then
``(*batch, n)``): each example consumes its own source row. The batching rule binds it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad.core import (
    Primitive,
    ShapedArray,
    UndefPrimal,
    Zero,
    current_trace,
    eval_trace,
    get_aval,
)
from minigrad.ops.elementwise import select
from minigrad.ops.indexing import as_array, check_mask, check_same_dtype, mask_canonical
from minigrad.ops.masked_fill import fill_zero
from minigrad.ops.structural import (
    bdim_to_front,
    broadcast_in_dim,
    broadcast_to,
    instantiate,
    reshape,
    zeros,
)

masked_scatter_p = Primitive("masked_scatter")


def _too_small(count: int, where: str, n: int) -> ValueError:
    return ValueError(f"masked_scatter: source must have at least {count} elements (the number "
                      f"of true entries of mask{where}); got {n}")


def masked_scatter(x: Any, mask: Any, source: Any) -> Any:
    """``x`` with the entries where the bool ``mask`` is true replaced, in row-major order, by
    consecutive elements of ``source`` (PyTorch's ``Tensor.masked_scatter``, out of place).

    >>> import numpy as np
    >>> from minigrad.ops.masked_scatter import masked_scatter
    >>> masked_scatter(np.zeros(4), np.array([True, False, True, True]), np.array([1., 2., 3., 4.]))
    Array([1., 0., 2., 3.], dtype=float64)
    """
    operands, params, _ = masked_scatter_operands(x, mask, source)
    return masked_scatter_p.bind(*operands, **params)


def masked_scatter_operands(x: Any, mask: Any, source: Any) -> tuple[tuple, dict, None]:
    """masked_scatter's arguments, checked, as ``masked_scatter_p``'s operands (x and mask
    broadcast together, source flat) and parameters, and None: the result has the first
    operand's shape. ``masked_scatter_`` writes with the same."""
    if (mask_canonical(x, mask) and type(source) is np.ndarray and source.ndim == 1
            and source.dtype == x.dtype and current_trace() is eval_trace):
        return (x, mask, source), {"batch_dims": 0}, None  # (the impl counts the mask)
    x, mask = as_array(x, "masked_scatter", "x"), as_array(mask, "masked_scatter", "mask")
    source = as_array(source, "masked_scatter", "source")
    shape = check_mask("masked_scatter", x, mask)
    check_same_dtype("masked_scatter", x, "source", source)
    n = source.size
    # A concrete mask is counted now; eagerly the impl counts it (once), before any work.
    if isinstance(mask, np.ndarray) and current_trace() is not eval_trace:
        count = np.count_nonzero(mask) * (math.prod(shape) // max(mask.size, 1))
        if count > n:
            raise _too_small(count, "", n)
    # (the shape tests skip the calls when there is nothing to do, as there usually is not)
    return ((x if x.shape == shape else broadcast_to(x, shape),
             mask if mask.shape == shape else broadcast_to(mask, shape),
             source if source.ndim == 1 else reshape(source, (n,))), {"batch_dims": 0}, None)


@masked_scatter_p.def_impl  # (the impl itself: jit's in-place reuse passes inplace=True)
def masked_scatter_into(x: np.ndarray, mask: np.ndarray, source: np.ndarray, *,
                        batch_dims: int, inplace: bool = False) -> np.ndarray:
    """masked_scatter's result: a new array, or with ``inplace`` ``x`` itself, updated (jit's
    in-place reuse of a buffer nothing reads afterwards)."""
    n = source.shape[-1]
    if batch_dims == 0:  # one example: its true entries, in row-major order, take source[:count]
        count = int(np.count_nonzero(mask))
        if count > n:
            raise _too_small(count, "", n)
        # a copy, an array even for a NumPy scalar: never the caller's array
        out = x if inplace else np.array(x)
        out[mask] = source[:count]
        return out
    counts = mask_counts(mask, batch_dims)
    over = first_overfull(counts, n, mask.shape[:batch_dims])
    if over is not None:
        raise _too_small(*over, n)
    out = x if inplace else np.array(x)
    # Both boolean indexings run in row-major order, example by example: example e's true
    # entries take the first counts[e] elements of its source row.
    out[mask] = source.reshape(counts.shape[0], n)[packed_slots(counts, n)]
    return out


@masked_scatter_p.def_abstract_eval
def _masked_scatter_abstract_eval(x: ShapedArray, mask: ShapedArray, source: ShapedArray, *,
                                  batch_dims: int) -> ShapedArray:
    if (mask.dtype != np.bool_ or mask.shape != x.shape or source.dtype != x.dtype
            or source.ndim != batch_dims + 1 or source.shape[:-1] != x.shape[:batch_dims]):
        raise TypeError(f"masked_scatter: operands {x.str_short()}, {mask.str_short()}, "
                        f"{source.str_short()} do not fit batch_dims={batch_dims}")
    return x


@masked_scatter_p.def_jvp
def _masked_scatter_jvp(primals: tuple, tangents: tuple, *, batch_dims: int) -> tuple:
    # out_dot = masked_scatter(x_dot, mask, source_dot)
    (x, mask, source), (x_dot, _, source_dot) = primals, tangents
    out = masked_scatter_p.bind(x, mask, source, batch_dims=batch_dims)
    if isinstance(source_dot, Zero):
        return out, fill_zero(x_dot, mask)
    return out, masked_scatter_p.bind(instantiate(x_dot), mask, source_dot,
                                      batch_dims=batch_dims)


@masked_scatter_p.def_transpose
def _masked_scatter_transpose(ct: Any, x: Any, mask: Any, source: Any, *, batch_dims: int
                              ) -> tuple:
    # ct_x = masked_fill(ct, mask, 0); ct_source = masked_gather(ct, mask, source.size)
    if isinstance(mask, UndefPrimal):
        raise TypeError("masked_scatter: mask is not a linear operand")
    ct_x = fill_zero(ct, mask) if isinstance(x, UndefPrimal) else None
    ct_source = None
    if isinstance(source, UndefPrimal):
        ct_source = masked_gather_p.bind(ct, mask, n=source.aval.shape[-1],
                                         batch_dims=batch_dims)
    return ct_x, None, ct_source


@masked_scatter_p.def_batch
def _masked_scatter_batch(axis_size: int, vals: tuple, dims: tuple, *, batch_dims: int
                          ) -> tuple:
    (x, mask, source), (xd, md, sd) = vals, dims
    if md is None and sd is None:
        # Shared mask and source: scatter once into zeros, then select into each example of x.
        shape = get_aval(x).shape
        others = tuple(i for i in range(len(shape)) if i != xd)
        aval = get_aval(mask)
        filled = masked_scatter_p.bind(zeros(ShapedArray(aval.shape, get_aval(x).dtype)), mask,
                                       source, batch_dims=batch_dims)
        return select(broadcast_in_dim(mask, shape, others),
                      broadcast_in_dim(filled, shape, others), x), xd
    # Each example consumes its own source row: the batch becomes one more leading batch axis.
    x, mask, source = (bdim_to_front(v, d, axis_size)
                       for v, d in zip(vals, dims, strict=True))
    return masked_scatter_p.bind(x, mask, source, batch_dims=batch_dims + 1), 0


# --------------------------------------------------------------------------- masked_gather
# The packing support primitive of masked_scatter: the elements of ``y`` at the true entries of
# ``mask``, in row-major order, in a 1-D array of static length ``n`` padded with zeros. It is
# the transpose of masked_scatter in its source operand, and masked_scatter(0, mask, ct) is its
# transpose. ``batch_dims`` leading axes of every operand pair up example by example (JAX's
# operand batching dims): each example packs its own row, which is what the batching rules bind.

masked_gather_p = Primitive("masked_gather")


def masked_gather(y: Any, mask: Any, n: int) -> Any:
    """The elements of ``y`` where the bool ``mask`` (of ``y``'s shape) is true, in row-major
    order, packed into a 1-D array of length ``n`` and padded with zeros.

    >>> import numpy as np
    >>> from minigrad.ops.masked_scatter import masked_gather
    >>> masked_gather(np.array([1., 2., 3.]), np.array([True, False, True]), 4)
    Array([1., 3., 0., 0.], dtype=float64)
    """
    y, mask = as_array(y, "masked_gather", "y"), as_array(mask, "masked_gather", "mask")
    if get_aval(mask).dtype != np.bool_:
        raise TypeError(f"masked_gather: mask must be a bool array; got dtype "
                        f"{get_aval(mask).dtype}")
    if get_aval(mask).shape != get_aval(y).shape:
        raise ValueError(f"masked_gather: mask must have y's shape {get_aval(y).shape}; got "
                         f"{get_aval(mask).shape}")
    if not isinstance(n, (int, np.integer)) or isinstance(n, (bool, np.bool_)) or n < 0:
        raise TypeError(f"masked_gather: n must be a non-negative int; got {n!r}")
    if isinstance(mask, np.ndarray) and int(np.count_nonzero(mask)) > n:
        raise ValueError(f"masked_gather: n must be at least {np.count_nonzero(mask)} (the "
                         f"number of true entries of mask); got {n}")
    return masked_gather_p.bind(y, mask, n=int(n), batch_dims=0)


@masked_gather_p.def_impl
def _masked_gather_impl(y: np.ndarray, mask: np.ndarray, *, n: int, batch_dims: int
                        ) -> np.ndarray:
    if batch_dims == 0:  # one example: its true entries, in row-major order, fill out[:count]
        count = np.count_nonzero(mask)
        if count > n:
            raise ValueError(f"masked_gather: n must be at least {count} (the number of true "
                             f"entries of mask); got {n}")
        out = np.zeros(n, y.dtype)
        out[:count] = np.asarray(y)[mask]
        return out
    counts = mask_counts(mask, batch_dims)
    lead = mask.shape[:batch_dims]
    over = first_overfull(counts, n, lead)
    if over is not None:
        raise ValueError(f"masked_gather: n must be at least {over[0]} (the number of true "
                         f"entries of mask{over[1]}); got {n}")
    out = np.zeros((counts.shape[0], n), y.dtype)
    # Both boolean indexings run in row-major order, example by example: y's true entries land
    # in the first counts[e] slots of row e.
    out[packed_slots(counts, n)] = np.asarray(y)[mask]
    return out.reshape((*lead, n))


@masked_gather_p.def_abstract_eval
def _masked_gather_abstract_eval(y: ShapedArray, mask: ShapedArray, *, n: int, batch_dims: int
                                 ) -> ShapedArray:
    if mask.dtype != np.bool_ or mask.shape != y.shape or not 0 <= batch_dims <= y.ndim:
        raise TypeError(f"masked_gather: operands {y.str_short()}, {mask.str_short()} do not "
                        f"fit batch_dims={batch_dims} (mask must be bool of y's shape)")
    return ShapedArray((*y.shape[:batch_dims], n), y.dtype)


@masked_gather_p.def_jvp
def _masked_gather_jvp(primals: tuple, tangents: tuple, *, n: int, batch_dims: int) -> tuple:
    # out_dot = masked_gather(y_dot, mask, n)
    (y, mask), (y_dot, _) = primals, tangents
    return (masked_gather_p.bind(y, mask, n=n, batch_dims=batch_dims),
            masked_gather_p.bind(y_dot, mask, n=n, batch_dims=batch_dims))


@masked_gather_p.def_transpose
def _masked_gather_transpose(ct: Any, y: Any, mask: Any, *, n: int, batch_dims: int) -> tuple:
    # ct_y = masked_scatter(0, mask, ct)
    if isinstance(mask, UndefPrimal):
        raise TypeError("masked_gather: mask is not a linear operand")
    ct_y = masked_scatter_p.bind(zeros(y.aval), mask, ct, batch_dims=batch_dims)
    return ct_y, None


@masked_gather_p.def_batch
def _masked_gather_batch(axis_size: int, vals: tuple, dims: tuple, *, n: int, batch_dims: int
                         ) -> tuple:
    # Every example packs its own row, so the batch becomes one more leading batch axis. A shared
    # mask is broadcast (a view: nothing is replicated).
    (y, mask), (yd, md) = vals, dims
    y, mask = bdim_to_front(y, yd, axis_size), bdim_to_front(mask, md, axis_size)
    return masked_gather_p.bind(y, mask, n=n, batch_dims=batch_dims + 1), 0


# --------------------------------------------------------------------------- mask slots


def mask_counts(mask: np.ndarray, batch_dims: int) -> np.ndarray:
    """The number of true entries of each example of ``mask`` (its first ``batch_dims`` axes
    index the examples), as a 1-D array in row-major order of the examples."""
    rows = math.prod(mask.shape[:batch_dims])
    return mask.reshape(rows, math.prod(mask.shape[batch_dims:])).sum(axis=1)


def packed_slots(counts: np.ndarray, n: int) -> np.ndarray:
    """A bool (examples, n) matrix, True at the first ``counts[e]`` slots of row ``e``: the
    slots that example ``e``'s true mask entries fill, in order."""
    return np.arange(n) < counts[:, None]


def first_overfull(counts: np.ndarray, n: int, lead: tuple[int, ...]
                   ) -> tuple[int, str] | None:
    """(count, where) for the first example with more than ``n`` true entries, else None;
    ``where`` names the example when there are batch axes (shape ``lead``)."""
    if not counts.size or counts.max() <= n:
        return None
    over = np.flatnonzero(counts > n)
    row = int(over[0])
    where = f" of example {tuple(int(i) for i in np.unravel_index(row, lead))}" if lead else ""
    return int(counts[row]), where

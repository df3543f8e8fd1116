"""The scatter family beside scatter_add (``ops/gather.py``, which holds the index model, the
modes and the batching rule they all share): ``scatter`` (set), ``scatter_mul``,
``scatter_min`` and ``scatter_max``. Each takes ``(x, updates, *indices)`` with the parameters
of ``gather``, and returns a new array of ``x``'s shape and dtype.

Repeated slots, and the gradients (JAX's formulas, as measured in JAX 0.10.2):

* ``scatter``: the last write wins, deterministically (the impl writes only the winners). It is
  linear in ``(x, updates)`` jointly; the overwritten entries of ``x`` get no cotangent, and of
  the updates to one slot only the winner gets it. The winners are found with primitives, as
  JAX's JVP does: every update's position number is scattered, gathered back, and compared.
* ``scatter_mul``: repeated slots multiply. Linear in ``x`` alone; the derivative in update
  ``j`` is ``x * (the product of the other updates to its slot)``. JAX refuses it unless the
  indices are unique; it is well defined with repeats, and computed without dividing by a
  zero (``_others_product``): first and second derivatives are exact everywhere, a third
  one where no slot holds two zero updates besides the one differentiated.
* ``scatter_min`` / ``scatter_max``: ties share the derivative equally among the operand's
  entry and every tying update (as JAX's do).
"""

from __future__ import annotations

from functools import partial
from typing import Any, Sequence

import numpy as np

from minigrad.core import Primitive, UndefPrimal, Zero, get_aval
from minigrad.ops.elementwise import (
    add,
    add_tangents,
    convert_element_type,
    div,
    eq,
    full_like,
    mul,
    select,
    sub,
)
from minigrad.ops.gather import (
    gather_p,
    scatter_abstract_eval,
    scatter_add_p,
    scatter_batch,
    scatter_impl,
)
from minigrad.ops.structural import (
    arange,
    broadcast_in_dim,
    full,
    instantiate,
    reshape,
    zeros,
)


def _gather_like(y: Any, indices: Sequence[Any], params: dict, fill_value: Any = 0) -> Any:
    """``y`` (of x's shape) read at the slots of the scatter with ``params``."""
    return gather_p.bind(y, *indices, **params, fill_value=fill_value)


def _add_into(x: Any, updates: Any, indices: Sequence[Any], params: dict) -> Any:
    return scatter_add_p.bind(x, updates, *indices, **params)


# --------------------------------------------------------------------------- scatter (set)

scatter_p = Primitive("scatter")


def scatter(x: Any, updates: Any, indices: Sequence[Any], axes: Sequence[int], *,
            batch_dims: int = 0, mode: str = "raise", wrap_negative: bool = True) -> Any:
    """``x`` with its slots (those ``gather`` reads) set to ``updates``; of repeated slots the
    last write wins.

    >>> import numpy as np
    >>> from minigrad.ops.scatter import scatter
    >>> scatter(np.zeros(3), np.array([1., 2., 4.]), [np.array([0, 0, -1])], [0])
    Array([2., 0., 4.], dtype=float64)
    """
    return scatter_p.bind(x, updates, *indices, axes=tuple(axes), batch_dims=batch_dims,
                          mode=mode, wrap_negative=wrap_negative)


def _set_last_wins(view: np.ndarray, key: tuple, updates: np.ndarray) -> None:
    # NumPy promises nothing about repeated slots in `view[key] = u`: write the winners only.
    if not isinstance(key, tuple):  # one raw index (NumPy checks its range): normalise it
        key = (_wrapped(key, view.shape[0]),)
    elif len(key) > 1:
        key = tuple(np.broadcast_arrays(*key))
    n = key[0].size
    if n > 1 and (len(key) > 1 or not _distinct(key[0], view.shape[0])):
        slot_shape = view.shape[:len(key)]
        slot = np.ravel_multi_index(key, slot_shape).ravel()
        order = np.arange(n)
        last = np.full(int(np.prod(slot_shape, dtype=np.int64)), -1, np.int64)
        np.maximum.at(last, slot, order)  # (ufunc.at is ordered and deterministic)
        win = last[slot] == order
        if not win.all():
            win = win.reshape(key[0].shape)
            key = tuple(k[win] for k in key)
            updates = updates[win]
    view[key] = updates


def _wrapped(index: np.ndarray, n: int) -> np.ndarray:
    """``index`` with its negative entries counted from the end, so that equal slots are equal
    entries; an entry outside [-n, n) is an IndexError (the impl then raises its own)."""
    if index.size <= 32:
        entries = index.ravel().tolist()
        lo, hi = (min(entries), max(entries)) if entries else (0, -1)
    else:
        lo, hi = int(index.min()), int(index.max())
    if lo < -n or hi >= n:
        raise IndexError("out of range")
    return np.where(index < 0, index + n, index) if lo < 0 else index


def _distinct(index: np.ndarray, n: int) -> bool:
    """Whether the entries of ``index`` (positions in [0, n)) are distinct. Whatever order
    NumPy writes repeated slots in, a repeated slot cannot hold both its writers' numbers."""
    if index.size <= 32:
        entries = index.ravel().tolist()
        return len(set(entries)) == len(entries)
    order = np.arange(index.size).reshape(index.shape)
    slots = np.empty(n, np.int64)
    slots[index] = order
    return bool((slots[index] == order).all())


scatter_p.def_impl(scatter_impl(_set_last_wins, "scatter"))


scatter_p.def_abstract_eval(partial(scatter_abstract_eval, "scatter"))


@scatter_p.def_jvp
def _scatter_jvp(primals: tuple, tangents: tuple, **params: Any) -> tuple:
    # out_dot = scatter(x_dot, updates_dot)
    (x, updates, *indices), (tx, tu, *_) = primals, tangents
    out = scatter_p.bind(x, updates, *indices, **params)
    if isinstance(tx, Zero) and isinstance(tu, Zero):
        return out, tx
    return out, scatter_p.bind(instantiate(tx), instantiate(tu), *indices, **params)


def winners(x_shape: tuple, indices: Sequence[Any], params: dict) -> Any:
    """A bool array of the indices' shape: True where an update is the one its slot keeps
    (the last to it, and not dropped). Position numbers are scattered into the slots, then
    gathered back and compared with their own."""
    k, axes = params["batch_dims"], params["axes"]
    shape = get_aval(indices[0]).shape
    ids = reshape(arange(0, int(np.prod(shape, dtype=np.int64)), 1, np.int64), shape)
    slots = full((*x_shape[:k], *[x_shape[a] for a in axes]), -1, np.int64)
    p = {**params, "axes": tuple(range(k, k + len(axes)))}
    written = scatter_p.bind(slots, ids, *indices, **p)
    return eq(gather_p.bind(written, *indices, **p, fill_value=-1), ids)


@scatter_p.def_transpose
def _scatter_transpose(ct: Any, x: Any, updates: Any, *indices: Any, **params: Any) -> tuple:
    # ct_x = scatter(ct, 0): the overwritten entries get nothing;
    # ct_updates = gather(ct) at the winners, 0 elsewhere
    if any(isinstance(i, UndefPrimal) for i in indices):
        raise TypeError("scatter: an index is not a linear operand")
    ct = instantiate(ct)
    ct_x = ct_u = None
    u_aval = get_aval(updates) if not isinstance(updates, UndefPrimal) else updates.aval
    if isinstance(x, UndefPrimal):
        ct_x = scatter_p.bind(ct, zeros(u_aval), *indices, **params)
    if isinstance(updates, UndefPrimal):
        picked = _gather_like(ct, indices, params)
        win = winners(get_aval(ct).shape, indices, params)
        win = broadcast_in_dim(win, u_aval.shape, tuple(range(get_aval(win).ndim)))
        ct_u = select(win, picked, zeros(u_aval))
    return ct_x, ct_u, *[None] * len(indices)


scatter_p.def_batch(partial(scatter_batch, scatter_p))


# --------------------------------------------------------------------------- scatter_mul

scatter_mul_p = Primitive("scatter_mul")


def scatter_mul(x: Any, updates: Any, indices: Sequence[Any], axes: Sequence[int], *,
                batch_dims: int = 0, mode: str = "raise", wrap_negative: bool = True) -> Any:
    """``x`` with its slots multiplied by ``updates`` (repeated slots multiply: ``np.multiply.at``).

    >>> import numpy as np
    >>> from minigrad.ops.scatter import scatter_mul
    >>> scatter_mul(np.ones(3), np.array([2., 3., 4.]), [np.array([0, 0, 2])], [0])
    Array([6., 1., 4.], dtype=float64)
    """
    return scatter_mul_p.bind(x, updates, *indices, axes=tuple(axes), batch_dims=batch_dims,
                              mode=mode, wrap_negative=wrap_negative)


scatter_mul_p.def_impl(scatter_impl(np.multiply.at, "scatter_mul"))
scatter_mul_p.def_abstract_eval(partial(scatter_abstract_eval, "scatter_mul"))


def _others_product(x: Any, updates: Any, indices: Sequence[Any], params: dict) -> Any:
    """For each update ``u_j``, the product of the other updates to its slot (1 if none),
    without dividing by a zero. Each update splits as ``u = safe * z`` (``safe`` is u with
    its zeros made 1, ``z`` is 1 except at the zeros, where it is u), so the product of the
    others is ``A_j * B_j``: ``A_j`` (the others' safe parts) is the slot's product of safe
    parts over ``safe_j``, exact and smooth; ``B_j`` (the others' zeros) is 1 with no other
    zero, the other zero itself with exactly one (value 0, derivative that zero's tangent),
    and 0 with more. So the first and second derivatives of a scatter_mul are exact
    everywhere; a third derivative drops the terms of a slot with two other zero updates."""
    aval = get_aval(updates)
    one, zero = full_like(updates, 1), zeros(aval)
    is_zero = eq(updates, zero)
    safe = select(is_zero, one, updates)
    zero_part = select(is_zero, updates, zero)  # (as a sum: 0 in value, the zeros' tangents)

    def slot_total(values: Any, combine: Primitive, start: float) -> Any:
        # each update's slot total of values under combine (dropped updates read start)
        total = combine.bind(full_like(x, start), values, *indices, **params)
        return _gather_like(total, indices, params, start)

    a = div(slot_total(safe, scatter_mul_p, 1), safe)
    zero_flags = convert_element_type(is_zero, aval.dtype)
    other_zeros = sub(slot_total(zero_flags, scatter_add_p, 0), zero_flags)
    other_zero_sum = sub(slot_total(zero_part, scatter_add_p, 0), zero_part)
    b = select(eq(other_zeros, zero), one,
               select(eq(other_zeros, one), other_zero_sum, zero))
    return mul(a, b)


@scatter_mul_p.def_jvp
def _scatter_mul_jvp(primals: tuple, tangents: tuple, **params: Any) -> tuple:
    # out_dot = scatter_mul(x_dot, u) + x * scatter_add(0, u_dot * (product of the others))
    (x, updates, *indices), (tx, tu, *_) = primals, tangents
    out = scatter_mul_p.bind(x, updates, *indices, **params)
    t_out: Any = Zero(get_aval(out))
    if not isinstance(tx, Zero):
        t_out = scatter_mul_p.bind(tx, updates, *indices, **params)
    if not isinstance(tu, Zero):
        others = _others_product(x, updates, indices, params)
        term = mul(x, _add_into(zeros(get_aval(x)), mul(tu, others), indices, params))
        t_out = add_tangents(t_out, term)
    return out, t_out


@scatter_mul_p.def_transpose
def _scatter_mul_transpose(ct: Any, x: Any, updates: Any, *indices: Any, **params: Any
                           ) -> tuple:
    # linear in x alone: ct_x = scatter_mul(ct, u)
    if isinstance(updates, UndefPrimal) or any(isinstance(i, UndefPrimal) for i in indices):
        raise TypeError("scatter_mul: only x is a linear operand")
    return scatter_mul_p.bind(instantiate(ct), updates, *indices, **params), None, *[
        None] * len(indices)


scatter_mul_p.def_batch(partial(scatter_batch, scatter_mul_p))


# --------------------------------------------------------------------------- scatter_min/max

def _extremum(name: str, ufunc: np.ufunc) -> Primitive:
    prim = Primitive(name)
    prim.def_impl(scatter_impl(ufunc.at, name))  # (ufunc.at: in order)
    prim.def_abstract_eval(partial(scatter_abstract_eval, name))
    prim.def_batch(partial(scatter_batch, prim))

    @prim.def_jvp
    def _jvp(primals: tuple, tangents: tuple, **params: Any) -> tuple:
        # out_dot = (x_dot [x == out] + scatter_add(0, u_dot [u == out at its slot]))
        #           / (the number of ties at the slot: the operand's and the updates')
        (x, updates, *indices), (tx, tu, *_) = primals, tangents
        out = prim.bind(x, updates, *indices, **params)
        if isinstance(tx, Zero) and isinstance(tu, Zero):
            return out, tx
        dtype = get_aval(x).dtype
        x_ties = convert_element_type(eq(x, out), dtype)
        # (a dropped update reads NaN, which ties with nothing)
        u_ties = convert_element_type(eq(updates, _gather_like(out, indices, params, np.nan)),
                                      dtype)
        count = add(x_ties, _add_into(zeros(get_aval(x)), u_ties, indices, params))
        zero = zeros(get_aval(count))
        count = select(eq(count, zero), full_like(count, 1), count)  # (only a NaN ties nothing)
        total = add(mul(x_ties, instantiate(tx)),
                    _add_into(zero, mul(u_ties, instantiate(tu)), indices, params))
        return out, div(total, count)

    return prim


scatter_min_p = _extremum("scatter_min", np.minimum)
scatter_max_p = _extremum("scatter_max", np.maximum)


def scatter_min(x: Any, updates: Any, indices: Sequence[Any], axes: Sequence[int], *,
                batch_dims: int = 0, mode: str = "raise", wrap_negative: bool = True) -> Any:
    """``x`` with each slot the minimum of itself and its updates (``np.minimum.at``)."""
    return scatter_min_p.bind(x, updates, *indices, axes=tuple(axes), batch_dims=batch_dims,
                              mode=mode, wrap_negative=wrap_negative)


def scatter_max(x: Any, updates: Any, indices: Sequence[Any], axes: Sequence[int], *,
                batch_dims: int = 0, mode: str = "raise", wrap_negative: bool = True) -> Any:
    """``x`` with each slot the maximum of itself and its updates (``np.maximum.at``)."""
    return scatter_max_p.bind(x, updates, *indices, axes=tuple(axes), batch_dims=batch_dims,
                              mode=mode, wrap_negative=wrap_negative)


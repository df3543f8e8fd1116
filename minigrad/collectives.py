"""Collectives over a named ``vmap`` axis: ``psum``, ``pmean``, ``pmax``, ``pmin``,
``all_gather``, ``axis_index`` (as ``jax.lax.psum`` and the others inside ``jax.vmap``).

``vmap(f, axis_name="batch")`` names its batch axis; inside ``f``, ``psum(x, "batch")`` is the
sum of ``x`` over the examples, the same for every example. Each collective is a primitive
whose parameters are the axis name and size (found when it is bound: an unbound name is a
NameError, as in JAX). The batching trace that bears the name computes it
(``transforms/vmap.py``: ``collective_rules``); a batching trace of another name batches it
like any elementwise op, so a collective over an outer name works from an inner function.

The rules, per example ``b`` of an axis of size ``n`` (``x_b`` the example's value):

* ``psum``: ``out = sum_b x_b``; linear: JVP ``psum(t)``, transpose ``psum(ct)`` (each example's
  cotangent is the sum of every example's, since every output reads every input);
* ``pmean``: ``psum / n``; transpose ``pmean(ct)``;
* ``pmax``, ``pmin``: the extreme over the examples; the JVP is the tangent of the examples
  that attain it, averaged over ties;
* ``all_gather``: ``out = stack_b x_b`` (a new leading axis of size ``n``); JVP
  ``all_gather(t)``, transpose: example ``b`` gets row ``b`` of ``psum(ct)``;
* ``axis_index``: ``b`` itself (an int32 scalar), not differentiable.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad.core import (
    Primitive,
    ShapedArray,
    Tracer,
    UndefPrimal,
    Zero,
    float0,
    get_aval,
    is_weak_scalar,
    scalar_dtype,
)
from minigrad.ops.elementwise import add, convert_element_type, div, eq, mul, reduce_max, select
from minigrad.ops.index_add import index_select
from minigrad.ops.structural import arange, bdim_to_front, full, instantiate, reduce_sum, reshape
from minigrad.transforms.vmap import axis_env, collective_rules
from minigrad.tree import tree_map


def axis_size(axis_name: Any) -> int:
    """The size of the ``vmap`` axis named ``axis_name`` (NameError if none is); of a tuple of
    names, the product of their sizes."""
    if isinstance(axis_name, tuple):
        return math.prod(axis_size(name) for name in axis_name)
    for name, size in axis_env():
        if name == axis_name:
            return size
    raise NameError(f"unbound axis name: {axis_name!r} (no enclosing vmap has "
                    f"axis_name={axis_name!r})")


def _prim(name: str) -> Primitive:
    p = Primitive(name)

    def impl(*args: Any, axis_name: Any, **params: Any) -> Any:  # reached with no vmap bound
        raise NameError(f"unbound axis name: {axis_name!r}")

    p.def_impl(impl)
    return p


psum_p, pmean_p = _prim("psum"), _prim("pmean")
pmax_p, pmin_p = _prim("pmax"), _prim("pmin")
all_gather_p, axis_index_p = _prim("all_gather"), _prim("axis_index")


def _names(axis_name: Any) -> tuple:
    # One name, or a tuple of names: the collective over all of them (JAX's).
    return axis_name if isinstance(axis_name, tuple) else (axis_name,)


def _operand(x: Any, fn: str) -> Any:
    """A leaf of a collective's argument: a tracer or an array; a Python scalar, as an array
    of its own dtype (``psum(1.0, "i")`` is the axis size, as in JAX)."""
    if isinstance(x, Tracer):
        return x
    try:
        out = np.asarray(x, scalar_dtype(x)) if is_weak_scalar(x) or isinstance(
            x, bool) else np.asarray(x)
    except (TypeError, ValueError, OverflowError):
        out = None
    if out is None or out.dtype.kind not in "biufc":
        raise TypeError(f"{fn}: the argument's leaves must be arrays or numbers; got "
                        f"{type(x).__name__}")
    return out


def _reduce(prim: Primitive, fn: str, x: Any, axis_name: Any) -> Any:
    names = _names(axis_name)
    sizes = [axis_size(name) for name in names]  # (unbound names: a NameError, before work)

    def one(leaf: Any) -> Any:
        leaf = _operand(leaf, fn)
        if prim is pmean_p and get_aval(leaf).dtype.kind not in "fc":
            leaf = convert_element_type(leaf, scalar_dtype(0.0))  # a mean of ints is a float
        for name, size in zip(names, sizes, strict=True):
            leaf = prim.bind(leaf, axis_name=name, axis_size=size)
        return leaf

    return tree_map(one, x)


def psum(x: Any, axis_name: Any) -> Any:
    """The sum of ``x`` (an array, a number or a pytree of them) over the examples of the
    ``vmap`` axis ``axis_name`` (or of each axis of a tuple of names)."""
    return _reduce(psum_p, "psum", x, axis_name)


def pmean(x: Any, axis_name: Any) -> Any:
    """The mean of ``x`` over the examples of the ``vmap`` axis ``axis_name`` (as ``psum``);
    a mean of integers is floating."""
    return _reduce(pmean_p, "pmean", x, axis_name)


def pmax(x: Any, axis_name: Any) -> Any:
    return _reduce(pmax_p, "pmax", x, axis_name)


def pmin(x: Any, axis_name: Any) -> Any:
    return _reduce(pmin_p, "pmin", x, axis_name)


def all_gather(x: Any, axis_name: Any) -> Any:
    """Every example's ``x``, stacked along a new leading axis; over a tuple of names, the
    examples in row-major order of the names (as ``axis_index`` numbers them)."""
    names = _names(axis_name)
    sizes = [axis_size(name) for name in names]

    def one(leaf: Any) -> Any:
        leaf = _operand(leaf, "all_gather")
        shape = get_aval(leaf).shape
        for name, size in zip(reversed(names), reversed(sizes), strict=True):
            leaf = all_gather_p.bind(leaf, axis_name=name, axis_size=size)
        return leaf if len(names) == 1 else reshape(leaf, (math.prod(sizes), *shape))

    return tree_map(one, x)


def axis_index(axis_name: Any) -> Any:
    """The example's position along the ``vmap`` axis ``axis_name`` (int32); along a tuple of
    names, its row-major position over them."""
    index: Any = None
    for name in _names(axis_name):
        size = axis_size(name)
        here = axis_index_p.bind(axis_name=name, axis_size=size)
        index = here if index is None else add(mul(index, full((), size, np.int32)), here)
    return full((), 0, np.int32) if index is None else index


# --------------------------------------------------------------------------- shape rules

for _p in (psum_p, pmean_p, pmax_p, pmin_p):
    _p.def_abstract_eval(lambda x, **params: x)
all_gather_p.def_abstract_eval(
    lambda x, *, axis_name, axis_size: ShapedArray((axis_size, *x.shape), x.dtype))
axis_index_p.def_abstract_eval(lambda **params: ShapedArray((), np.dtype(np.int32)))


# --------------------------------------------------------------------------- the named axis


def _psum_rule(n: int, vals: tuple, dims: tuple, **params: Any) -> tuple:
    (x,), (d,) = vals, dims
    if d is None:  # the same value in every example
        return mul(x, full(np.shape(x), n, x.dtype)), None
    return reduce_sum(x, (d,)), None


def _pmean_rule(n: int, vals: tuple, dims: tuple, **params: Any) -> tuple:
    total, _ = _psum_rule(n, vals, dims)
    return div(total, full(np.shape(total), n, total.dtype)), None


def _extreme_rule(sign: float) -> Any:
    def rule(n: int, vals: tuple, dims: tuple, **params: Any) -> tuple:
        (x,), (d,) = vals, dims
        if d is None:
            return x, None
        if sign > 0:
            return reduce_max(x, (d,)), None
        neg = mul(x, full(np.shape(x), -1, x.dtype))
        return mul(reduce_max(neg, (d,)), full(np.shape(x)[:d] + np.shape(x)[d + 1:], -1,
                                                x.dtype)), None

    return rule


def _all_gather_rule(n: int, vals: tuple, dims: tuple, **params: Any) -> tuple:
    (x,), (d,) = vals, dims
    return bdim_to_front(x, d, n), None  # every example sees the stack


def _axis_index_rule(n: int, vals: tuple, dims: tuple, **params: Any) -> tuple:
    return arange(0, n, 1, np.int32), 0


collective_rules.update({psum_p: _psum_rule, pmean_p: _pmean_rule, pmax_p: _extreme_rule(1.0),
                         pmin_p: _extreme_rule(-1.0), all_gather_p: _all_gather_rule,
                         axis_index_p: _axis_index_rule})


# --------------------------------------------------------------------------- another axis:
# elementwise over that axis's examples (the batch axis stays where it is)


def _elementwise_batch(prim: Primitive) -> Any:
    def rule(n: int, vals: tuple, dims: tuple, **params: Any) -> tuple:
        (x,), (d,) = vals, dims
        if prim is all_gather_p:  # the new leading axis comes first: the batch axis moves
            return prim.bind(x, **params), d + 1
        return prim.bind(x, **params), d

    return rule


for _p in (psum_p, pmean_p, pmax_p, pmin_p, all_gather_p):
    _p.def_batch(_elementwise_batch(_p))
axis_index_p.def_batch(lambda n, vals, dims, **params: (axis_index_p.bind(**params), None))


# --------------------------------------------------------------------------- derivatives


def _linear_jvp(prim: Primitive) -> Any:
    def jvp(primals: tuple, tangents: tuple, **params: Any) -> tuple:
        return prim.bind(primals[0], **params), prim.bind(instantiate(tangents[0]), **params)

    return jvp


def _self_transpose(prim: Primitive) -> Any:
    def transpose(ct: Any, x: UndefPrimal, **params: Any) -> tuple:
        return (prim.bind(instantiate(ct), **params),)

    return transpose


for _p in (psum_p, pmean_p):  # linear, and each its own transpose
    _p.def_jvp(_linear_jvp(_p))
    _p.def_transpose(_self_transpose(_p))
all_gather_p.def_jvp(_linear_jvp(all_gather_p))


def _extreme_jvp(prim: Primitive) -> Any:
    def jvp(primals: tuple, tangents: tuple, **params: Any) -> tuple:
        (x,), (t,) = primals, tangents
        out = prim.bind(x, **params)
        hit = eq(x, out)  # the examples that attain the extreme share its tangent
        zero = full(np.shape(x), 0, x.dtype)
        one = full(np.shape(x), 1, x.dtype)
        count = psum_p.bind(select(hit, one, zero), **params)
        total = psum_p.bind(select(hit, instantiate(t), zero), **params)
        return out, div(total, count)

    return jvp


pmax_p.def_jvp(_extreme_jvp(pmax_p))
pmin_p.def_jvp(_extreme_jvp(pmin_p))


@all_gather_p.def_transpose
def _all_gather_transpose(ct: Any, x: UndefPrimal, *, axis_name: Any, axis_size: int
                          ) -> tuple:
    total = psum_p.bind(instantiate(ct), axis_name=axis_name, axis_size=axis_size)
    me = reshape(convert_element_type(axis_index_p.bind(axis_name=axis_name,
                                                        axis_size=axis_size), np.int64), (1,))
    return (reshape(index_select(total, 0, me), x.aval.shape),)


@axis_index_p.def_jvp
def _axis_index_jvp(primals: tuple, tangents: tuple, **params: Any) -> tuple:
    out = axis_index_p.bind(**params)
    return out, Zero(ShapedArray((), float0))


__all__ = ["all_gather", "axis_index", "axis_size", "pmax", "pmean", "pmin", "psum"]

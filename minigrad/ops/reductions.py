"""Reductions beside ``reduce_sum`` and ``reduce_max``: ``reduce_min``, ``reduce_prod``,
``reduce_and``, ``reduce_or``, ``argmax`` and ``argmin`` (JAX's lax primitives of those names).

They share the reduction family's shape rule and batching rule (``ops/structural.py``): the
reduced ``axes`` are sorted, distinct and non-negative; a batch axis moves to the front and the
axes shift by one. The impls pass ``dtype=x.dtype`` so NumPy never widens a narrow integer
(the user functions in ``minigrad.numpy`` choose the accumulation dtype).
"""

from __future__ import annotations

from functools import partial
from typing import Any, Sequence

import numpy as np

from minigrad.core import Primitive, ShapedArray, Zero, float0, get_aval
from minigrad.ops import elementwise as ew
from minigrad.ops import structural as st
from minigrad.ops.cumulative import cumprod

Shape = tuple[int, ...]


def _axes(axes: Sequence[int]) -> Shape:
    return tuple(sorted(int(a) for a in axes))


def _check_not_empty(name: str, x: np.ndarray, axes: Shape) -> None:
    if any(x.shape[a] == 0 for a in axes):
        raise ValueError(f"{name}: cannot reduce an axis of size 0 (there is no identity); got "
                         f"shape {x.shape} and axes {axes}")


# --------------------------------------------------------------------------- reduce_min

reduce_min_p = Primitive("reduce_min")


def reduce_min(x: Any, axes: Sequence[int]) -> Any:
    axes = _axes(axes)
    return reduce_min_p.bind(x, axes=axes) if axes else x


def _reduce_min_impl(x: np.ndarray, *, axes: Shape) -> np.ndarray:
    _check_not_empty("reduce_min", x, axes)
    return np.minimum.reduce(x, axis=axes)


reduce_min_p.def_impl(_reduce_min_impl)
reduce_min_p.def_abstract_eval(partial(st.reduction_abstract_eval, "reduce_min"))
reduce_min_p.def_batch(partial(st.reduction_batch, reduce_min_p))


@reduce_min_p.def_jvp
def _reduce_min_jvp(primals: tuple, tangents: tuple, *, axes: Shape) -> tuple:
    # y_dot = sum(x_dot * [x == y]) / count(x == y): ties share the derivative equally (as
    # reduce_max; a NaN result equals no element, so every tangent is NaN then)
    (x,), (t,) = primals, tangents
    y = reduce_min(x, axes)
    if isinstance(t, Zero):
        return y, Zero(ShapedArray(get_aval(y).shape, t.aval.dtype))
    aval = get_aval(x)
    kept = [i for i in range(aval.ndim) if i not in axes]
    at_min = ew.convert_element_type(ew.eq(x, st.broadcast_in_dim(y, aval.shape, kept)),
                                     aval.dtype)
    return y, ew.div(st.reduce_sum(ew.mul(t, at_min), axes), st.reduce_sum(at_min, axes))


# --------------------------------------------------------------------------- reduce_prod

reduce_prod_p = Primitive("reduce_prod")


def reduce_prod(x: Any, axes: Sequence[int]) -> Any:
    axes = _axes(axes)
    return reduce_prod_p.bind(x, axes=axes) if axes else x


# (in the logical order, as reduce_sum: the result depends on the values, never the layout)
reduce_prod_p.def_impl(lambda x, *, axes: np.multiply.reduce(
    x if x.flags.c_contiguous else np.ascontiguousarray(x), axis=axes, dtype=x.dtype))
reduce_prod_p.def_abstract_eval(partial(st.reduction_abstract_eval, "reduce_prod"))
reduce_prod_p.def_batch(partial(st.reduction_batch, reduce_prod_p))


def _ones_along(x: Any, axis: int) -> Any:
    shape = list(get_aval(x).shape)
    shape[axis] = 1
    return st.full(shape, 1, get_aval(x).dtype)


def products_of_others(x: Any, axis: int) -> Any:
    """``out[i] = prod(x[j] for j != i)`` along ``axis``, with no division: the running
    product before ``i`` times the running product after it (so zeros and infinities give
    what the products give: [2, 0, 3] -> [0, 6, 0])."""
    n = get_aval(x).shape[axis]
    ones = _ones_along(x, axis)
    before = st.concatenate([ones, _prefix(cumprod(x, axis), axis, n - 1)], axis)
    after = st.concatenate([_suffix(cumprod(x, axis, reverse=True), axis, 1), ones], axis)
    return ew.mul(before, after)


def _prefix(x: Any, axis: int, stop: int) -> Any:
    shape = get_aval(x).shape
    return st.slice_array(x, [0] * len(shape), [stop if i == axis else s
                                                for i, s in enumerate(shape)])


def _suffix(x: Any, axis: int, start: int) -> Any:
    shape = get_aval(x).shape
    return st.slice_array(x, [start if i == axis else 0 for i in range(len(shape))], shape)


@reduce_prod_p.def_jvp
def _reduce_prod_jvp(primals: tuple, tangents: tuple, *, axes: Shape) -> tuple:
    # y_dot = sum_i x_dot[i] * prod_{j != i} x[j], over the reduced axes merged into one
    (x,), (t,) = primals, tangents
    y = reduce_prod(x, axes)
    if isinstance(t, Zero):
        return y, Zero(ShapedArray(get_aval(y).shape, t.aval.dtype))
    aval = get_aval(x)
    kept = [i for i in range(aval.ndim) if i not in axes]
    n = int(np.prod([aval.shape[a] for a in axes], dtype=np.int64))
    if n == 0:  # an empty product is the constant 1
        return y, st.zeros(get_aval(y))
    merged = (*[aval.shape[i] for i in kept], n)

    def flat(v: Any) -> Any:  # the reduced axes last, as one
        return st.reshape(st.transpose(v, (*kept, *axes)), merged)

    last = len(kept)
    others = products_of_others(flat(x), last)
    return y, st.reduce_sum(ew.mul(flat(t), others), (last,))


# --------------------------------------------------------------------------- reduce_and, _or


def _logical_reduction(name: str, ufunc: np.ufunc) -> Primitive:
    """A reduction of bools to bools: no derivative (a float0 tangent)."""
    prim = Primitive(name)
    prim.def_impl(lambda x, *, axes: ufunc.reduce(x, axis=axes))

    @prim.def_abstract_eval
    def abstract_eval(x: ShapedArray, *, axes: Shape) -> ShapedArray:
        if x.dtype != np.bool_:
            raise TypeError(f"{name}: x must be bool; got {x.str_short()}")
        return st.reduction_abstract_eval(name, x, axes=axes)

    @prim.def_jvp
    def jvp(primals: tuple, tangents: tuple, *, axes: Shape) -> tuple:
        out = prim.bind(*primals, axes=axes)
        return out, Zero(ShapedArray(get_aval(out).shape, float0))

    prim.def_batch(partial(st.reduction_batch, prim))
    return prim


reduce_and_p = _logical_reduction("reduce_and", np.logical_and)
reduce_or_p = _logical_reduction("reduce_or", np.logical_or)


def reduce_and(x: Any, axes: Sequence[int]) -> Any:
    """True where every element along ``axes`` is (an empty axis gives True)."""
    axes = _axes(axes)
    return reduce_and_p.bind(x, axes=axes) if axes else x


def reduce_or(x: Any, axes: Sequence[int]) -> Any:
    """True where some element along ``axes`` is (an empty axis gives False)."""
    axes = _axes(axes)
    return reduce_or_p.bind(x, axes=axes) if axes else x


# --------------------------------------------------------------------------- argmax, argmin


def _arg_reduction(name: str, np_fn: Any) -> Primitive:
    """The index of the first extreme along one axis (``axes`` holds it, as in JAX); a NaN
    counts as the extreme, so the first NaN wins. No derivative: a float0 tangent."""
    prim = Primitive(name)

    @prim.def_impl
    def impl(x: np.ndarray, *, axes: Shape, index_dtype: np.dtype) -> np.ndarray:
        if x.shape[axes[0]] == 0:
            raise ValueError(f"{name}: attempt to get {name} of an empty sequence (axis "
                             f"{axes[0]} of shape {x.shape})")
        return np.asarray(np_fn(x, axis=axes[0])).astype(index_dtype, copy=False)

    @prim.def_abstract_eval
    def abstract_eval(x: ShapedArray, *, axes: Shape, index_dtype: np.dtype) -> ShapedArray:
        if len(axes) != 1:
            raise ValueError(f"{name}: axes must hold one axis; got {axes}")
        if np.dtype(index_dtype).kind not in "iu":
            raise TypeError(f"{name}: index_dtype must be an integer dtype; got {index_dtype}")
        return ShapedArray(st.reduction_abstract_eval(name, x, axes=axes).shape, index_dtype)

    @prim.def_jvp
    def jvp(primals: tuple, tangents: tuple, **params: Any) -> tuple:
        out = prim.bind(*primals, **params)
        return out, Zero(ShapedArray(get_aval(out).shape, float0))

    prim.def_batch(partial(st.reduction_batch, prim))
    return prim


argmax_p = _arg_reduction("argmax", np.argmax)
argmin_p = _arg_reduction("argmin", np.argmin)


def argmax(x: Any, axis: int, index_dtype: Any) -> Any:
    """The index of the first maximum along ``axis`` (the first NaN if there is one)."""
    return argmax_p.bind(x, axes=(int(axis),), index_dtype=np.dtype(index_dtype))


def argmin(x: Any, axis: int, index_dtype: Any) -> Any:
    """The index of the first minimum along ``axis`` (the first NaN if there is one)."""
    return argmin_p.bind(x, axes=(int(axis),), index_dtype=np.dtype(index_dtype))


__all__ = ["argmax", "argmax_p", "argmin", "argmin_p", "products_of_others", "reduce_and",
           "reduce_and_p", "reduce_min", "reduce_min_p", "reduce_or", "reduce_or_p",
           "reduce_prod", "reduce_prod_p"]

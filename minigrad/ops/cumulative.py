"""Cumulative reductions beside ``cumsum``: ``cumprod``, ``cummax``, ``cummin`` and
``cumlogsumexp`` (JAX's ``lax.cumprod`` ...), and the associative scan their JVPs are made of.

None of the four is linear, and their derivatives are not simple: a product with zeros in it,
a running maximum with ties. As in JAX, the JVP differentiates a *parallel prefix scan* (the
recursive odd/even scheme of Blelloch's "Prefix sums and their applications", 1990) written
with the structural primitives (slice, concatenate, reshape, rev) and the combining function.
Differentiating the scan means running it on (value, tangent) pairs, with the combining
function's own derivative: for products ``(a, a') * (b, b') = (a b, a' b + a b')`` exactly,
so zeros need no division; for max, ties split the tangent half and half, as ``max`` does.
The impls are NumPy's sequential accumulations; the scan runs only for derivatives.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Callable, Sequence

import numpy as np

from minigrad.core import Primitive, ShapedArray, Zero, get_aval
from minigrad.ops import elementwise as ew
from minigrad.ops import structural as st
from minigrad.ops.rev import rev

Pair = list[Any]  # [value, tangent]
Combine = Callable[[Pair, Pair], Pair]

# --------------------------------------------------------------------------- associative scan


def _slice_axis(x: Any, axis: int, start: int, stop: int | None = None, stride: int = 1) -> Any:
    shape = get_aval(x).shape
    starts = [0] * len(shape)
    limits = list(shape)
    strides = [1] * len(shape)
    starts[axis] = start
    limits[axis] = shape[axis] if stop is None else stop
    strides[axis] = stride
    return st.slice_array(x, starts, limits, strides)


def _interleave(even: Any, odd: Any, axis: int) -> Any:
    """``even[0], odd[0], even[1], odd[1], ...`` along ``axis`` (even has as many elements as
    odd, or one more): stacked on a new axis after ``axis`` and merged by a reshape, so every
    value moves unchanged (no additions of zero padding, which would turn -0.0 into 0.0)."""
    n_even, n_odd = get_aval(even).shape[axis], get_aval(odd).shape[axis]
    if n_even > n_odd:  # a filler for the missing last odd element, sliced off below
        odd = st.concatenate([odd, _slice_axis(even, axis, n_even - 1)], axis)
    stacked = st.concatenate([st.expand_dims(even, (axis + 1,)),
                              st.expand_dims(odd, (axis + 1,))], axis + 1)
    shape = list(get_aval(even).shape)
    shape[axis] = 2 * n_even
    return _slice_axis(st.reshape(stacked, shape), axis, 0, n_even + n_odd)


def associative_scan(combine: Callable[[list, list], list], elems: Sequence[Any], axis: int,
                     reverse: bool = False) -> list[Any]:
    """The inclusive scan of ``elems`` (arrays of one shape, scanned together) along ``axis``
    under the associative ``combine(a, b) -> c`` (lists of arrays, elementwise over the axis).

    Elements at odd positions are the scan of the pairwise-combined sequence (a recursion on
    half the length); each even one combines the odd result before it with the input element.
    The same order of combinations as JAX's ``lax.associative_scan``, so ties and roundings in
    the derivatives agree with JAX's."""
    elems = list(elems)
    if reverse:
        elems = [rev(e, (axis,)) for e in elems]

    def scan(elems: list[Any]) -> list[Any]:
        n = get_aval(elems[0]).shape[axis]
        if n < 2:
            return elems
        pairs = combine([_slice_axis(e, axis, 0, n - 1, 2) for e in elems],
                        [_slice_axis(e, axis, 1, None, 2) for e in elems])
        odd = scan(pairs)
        if n % 2 == 0:  # the last odd result has no even element after it
            odd_before = [_slice_axis(o, axis, 0, get_aval(o).shape[axis] - 1) for o in odd]
        else:
            odd_before = odd
        even = combine(odd_before, [_slice_axis(e, axis, 2, None, 2) for e in elems])
        even = [st.concatenate([_slice_axis(e, axis, 0, 1), r], axis)
                for e, r in zip(elems, even, strict=True)]
        return [_interleave(e, o, axis) for e, o in zip(even, odd, strict=True)]

    out = scan(elems)
    return [rev(o, (axis,)) for o in out] if reverse else out


# The combining functions on (value, tangent) pairs: each is the JVP of its binary operation.

def _mul_pair(a: Pair, b: Pair) -> Pair:
    # (a b)' = a' b + a b'
    return [ew.mul(a[0], b[0]), ew.add(ew.mul(a[1], b[0]), ew.mul(a[0], b[1]))]


def _max_share(a: Any, b: Any) -> Any:
    # the share of max(a, b)'s derivative that goes to a: 1 where a > b, 1/2 at ties
    aval = get_aval(a)
    return ew.add(ew.convert_element_type(ew.gt(a, b), aval.dtype),
                  ew.mul(ew.full_like(a, 0.5), ew.convert_element_type(ew.eq(a, b), aval.dtype)))


def _max_pair(a: Pair, b: Pair) -> Pair:
    # max(a, b)' = a' [a > b] + b' [b > a], each half at a tie (as the max primitive)
    return [ew.maximum(a[0], b[0]),
            ew.add(ew.mul(a[1], _max_share(a[0], b[0])), ew.mul(b[1], _max_share(b[0], a[0])))]


def _min_pair(a: Pair, b: Pair) -> Pair:
    # min(a, b) = -max(-a, -b) on floats (only floats have tangents): the same tie split
    value, tangent = _max_pair([ew.neg(a[0]), ew.neg(a[1])], [ew.neg(b[0]), ew.neg(b[1])])
    return [ew.neg(value), ew.neg(tangent)]


def _logaddexp(a: Any, b: Any) -> Any:
    # log(exp(a) + exp(b)) = max + log(1 + exp(-|a - b|)); a - b is NaN only when both are the
    # same infinity (or a NaN), and then a + b is the answer
    big = ew.maximum(a, b)
    delta = ew.sub(a, b)
    gap = ew.neg(ew.maximum(delta, ew.neg(delta)))
    value = ew.add(big, ew.log(ew.add(ew.full_like(a, 1), ew.exp(gap))))
    return ew.select(ew.ne(delta, delta), ew.add(a, b), value)


def _logaddexp_pair(a: Pair, b: Pair) -> Pair:
    # out' = a' exp(a - out) + b' exp(b - out), with +inf taken as 0 in both exponents (JAX's
    # rule: an infinite a that is the result gets weight 1, not exp(inf - inf) = NaN)
    out = _logaddexp(a[0], b[0])

    def finite_top(x: Any) -> Any:
        return ew.select(ew.eq(x, ew.full_like(x, np.inf)), ew.full_like(x, 0), x)

    def weight(x: Any) -> Any:
        return ew.exp(ew.sub(finite_top(x), finite_top(out)))

    return [out, ew.add(ew.mul(a[1], weight(a[0])), ew.mul(b[1], weight(b[0])))]


# --------------------------------------------------------------------------- the primitives


def _cumulative(name: str, accumulate: Callable[..., np.ndarray], combine: Combine
                ) -> Primitive:
    """A cumulative primitive from NumPy's accumulation and the pair-combining function its
    JVP scans with; the shape rule, JVP and batching rule are one family."""
    prim = Primitive(name)

    @prim.def_impl
    def impl(x: np.ndarray, *, axis: int, reverse: bool) -> np.ndarray:
        if reverse:
            return np.flip(accumulate(np.flip(x, axis), axis), axis)
        return accumulate(x, axis)

    prim.def_abstract_eval(partial(_cumulative_abstract_eval, name))
    prim.def_jvp(partial(_cumulative_jvp, prim, combine))
    prim.def_batch(partial(_cumulative_batch, prim))
    return prim


def _cumulative_abstract_eval(name: str, x: ShapedArray, *, axis: int, reverse: bool
                              ) -> ShapedArray:
    if not 0 <= axis < x.ndim:
        raise ValueError(f"{name}: axis must be in [0, {x.ndim}); got {axis}")
    return x


def _cumulative_jvp(prim: Primitive, combine: Combine, primals: tuple, tangents: tuple, *,
                    axis: int, reverse: bool) -> tuple:
    # out_dot = the tangent half of the scan of (x, x_dot) pairs under combine's JVP
    (x,), (t,) = primals, tangents
    out = prim.bind(x, axis=axis, reverse=reverse)
    if isinstance(t, Zero):
        return out, t
    _, t_out = associative_scan(combine, [x, t], axis, reverse)
    return out, t_out


def _cumulative_batch(prim: Primitive, axis_size: int, vals: tuple, dims: tuple, *, axis: int,
                      reverse: bool) -> tuple:
    # the batch axis at d moves the scanned axis one along if it comes before it
    (x,), (d,) = vals, dims
    return prim.bind(x, axis=axis + (d <= axis), reverse=reverse), d


def _accumulate(ufunc: np.ufunc) -> Callable[..., np.ndarray]:
    return lambda x, axis: ufunc.accumulate(x, axis=axis, dtype=x.dtype)


cumprod_p = _cumulative("cumprod", _accumulate(np.multiply), _mul_pair)
cummax_p = _cumulative("cummax", _accumulate(np.maximum), _max_pair)
cummin_p = _cumulative("cummin", _accumulate(np.minimum), _min_pair)
cumlogsumexp_p = _cumulative("cumlogsumexp", _accumulate(np.logaddexp), _logaddexp_pair)


def cumprod(x: Any, axis: int, reverse: bool = False) -> Any:
    """Running products along ``axis`` (from the end with ``reverse``)."""
    return cumprod_p.bind(x, axis=int(axis), reverse=bool(reverse))


def cummax(x: Any, axis: int, reverse: bool = False) -> Any:
    """Running maxima along ``axis``; a NaN propagates."""
    return cummax_p.bind(x, axis=int(axis), reverse=bool(reverse))


def cummin(x: Any, axis: int, reverse: bool = False) -> Any:
    """Running minima along ``axis``; a NaN propagates."""
    return cummin_p.bind(x, axis=int(axis), reverse=bool(reverse))


def cumlogsumexp(x: Any, axis: int, reverse: bool = False) -> Any:
    """Running ``log(sum(exp(x)))`` along ``axis``, computed stably."""
    return cumlogsumexp_p.bind(x, axis=int(axis), reverse=bool(reverse))


__all__ = ["associative_scan", "cumlogsumexp", "cumlogsumexp_p", "cummax", "cummax_p", "cummin",
           "cummin_p", "cumprod", "cumprod_p"]

"""Windowed reductions: ``reduce_window_sum``, ``reduce_window_max``, ``reduce_window_min`` and
the pair that differentiates max and min, ``select_and_gather_add`` / ``select_and_scatter_add``
(JAX's ``lax.reduce_window`` primitives).

The window geometry, per axis: the operand is *dilated* (``base_dilation - 1`` holes between
neighbours), *padded* (``lo``/``hi`` elements at the ends; negative amounts remove elements),
then a window of ``window_dimensions`` elements, ``window_dilation`` apart, slides over it with
``window_strides``. Holes and pads hold the reduction's identity (0, -inf, +inf), so they never
win. Output length: ``max(0, (padded - dilated_window) // stride + 1)``.

The impls never loop over output positions: the sum reduces a strided view of every window
(``window_view``); max, min and the select pair fold over the window offsets, one whole-array
step per offset on a strided slice (``window_slices``), which NumPy runs far faster than a
reduction over a view's small strided axes. ``window_view`` and ``dilate_pad`` are shared
with ``ops/conv.py``.

Which element max/min differentiates through (``_chosen``): XLA's select-and-scatter scan, the
pick JAX's gradient of a max (min) pool uses; gather and scatter share it, so each is exactly
the other's transpose. JAX's forward-mode tangent uses another pick (a pairwise reduce over
the real elements from an (identity, 0) start): it differs where a window holds a NaN or only
elements equal to the identity (-inf for max), e.g. JAX's tangent there is 0.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Sequence

import numpy as np

from minigrad.core import Primitive, ShapedArray, UndefPrimal, Zero, get_aval
from minigrad.ops.structural import bdim_to_front, linear_jvp, pad, slice_array

Shape = tuple[int, ...]
Pads = tuple[tuple[int, int], ...]


# --------------------------------------------------------------------------- geometry


def dilate_dim(n: int, d: int) -> int:
    """The length of ``n`` elements with ``d - 1`` holes between neighbours."""
    return 0 if n == 0 else (n - 1) * d + 1


def window_out_shape(shape: Sequence[int], window_dimensions: Sequence[int],
                     window_strides: Sequence[int], padding: Sequence[tuple[int, int]],
                     base_dilation: Sequence[int], window_dilation: Sequence[int]) -> Shape:
    """The number of window positions along each axis (JAX's ``reduce_window_shape_tuple``)."""
    out = []
    for n, k, s, (lo, hi), bd, wd in zip(shape, window_dimensions, window_strides, padding,
                                         base_dilation, window_dilation, strict=True):
        padded = dilate_dim(n, bd) + lo + hi
        out.append(max(0, (padded - dilate_dim(k, wd)) // s + 1))
    return tuple(out)


def dilate_pad(x: np.ndarray, dilation: Sequence[int], padding: Sequence[tuple[int, int]],
               fill: Any) -> np.ndarray:
    """``x`` dilated and padded with ``fill`` (negative padding crops)."""
    if all(d == 1 for d in dilation) and all(p == (0, 0) for p in padding):
        return x
    grown = [max(lo, 0) + dilate_dim(n, d) + max(hi, 0)
             for n, d, (lo, hi) in zip(x.shape, dilation, padding, strict=True)]
    out = np.full(grown, fill, x.dtype)
    out[tuple(slice(max(lo, 0), max(lo, 0) + dilate_dim(n, d), d)
              for n, d, (lo, _) in zip(x.shape, dilation, padding, strict=True))] = x
    return out[tuple(slice(max(-lo, 0), g - max(-hi, 0))
                     for g, (lo, hi) in zip(grown, padding, strict=True))]


def window_view(xp: np.ndarray, window_dimensions: Sequence[int],
                window_strides: Sequence[int], window_dilation: Sequence[int]) -> np.ndarray:
    """A read-only view of shape ``out_shape + window_dimensions`` of the dilated, padded
    operand ``xp``: ``view[o..., k...] = xp[o * stride + k * window_dilation, ...]``."""
    out = [max(0, (n - dilate_dim(k, wd)) // s + 1) for n, k, s, wd in
           zip(xp.shape, window_dimensions, window_strides, window_dilation, strict=True)]
    strides = ([st * s for st, s in zip(xp.strides, window_strides, strict=True)]
               + [st * wd for st, wd in zip(xp.strides, window_dilation, strict=True)])
    return np.lib.stride_tricks.as_strided(xp, (*out, *window_dimensions), strides,
                                           writeable=False)


def window_slices(out_shape: Sequence[int], window_dimensions: Sequence[int],
                  window_strides: Sequence[int], window_dilation: Sequence[int]
                  ) -> list[tuple[slice, ...]]:
    """For each window offset k (row-major), the strided slice of the dilated, padded operand
    that holds element k of every window: ``[o * stride + k * window_dilation for o]``. The
    impls fold over these (prod(window_dimensions) whole-array steps): NumPy reduces a few
    small, strided window axes of a view far slower than it adds a few strided slices."""
    return [tuple(slice(k * wd, k * wd + (o - 1) * s + 1, s) for k, o, s, wd in
                  zip(ks, out_shape, window_strides, window_dilation, strict=True))
            for ks in np.ndindex(*window_dimensions)]


def _check_window(name: str, x: ShapedArray, window_dimensions: Shape, window_strides: Shape,
                  padding: Pads, base_dilation: Shape, window_dilation: Shape) -> Shape:
    """The output shape, after checking every parameter against the operand's rank."""
    for what, value, least in (("window_dimensions", window_dimensions, 1),
                               ("window_strides", window_strides, 1),
                               ("base_dilation", base_dilation, 1),
                               ("window_dilation", window_dilation, 1)):
        if len(value) != x.ndim or any(v < least for v in value):
            raise ValueError(f"{name}: {what} must hold {x.ndim} integers >= {least} (one per "
                             f"axis of the operand {x.str_short()}); got {value}")
    if len(padding) != x.ndim:
        raise ValueError(f"{name}: padding must hold {x.ndim} (low, high) pairs; got "
                         f"{padding}")
    for n, bd, (lo, hi) in zip(x.shape, base_dilation, padding, strict=True):
        if dilate_dim(n, bd) + lo + hi < 0:
            raise ValueError(f"{name}: negative padding {padding} removes more than the "
                             f"operand {x.str_short()} has")
    return window_out_shape(x.shape, window_dimensions, window_strides, padding,
                            base_dilation, window_dilation)


def window_params(ndim: int, window_dimensions: Sequence[int],
                  window_strides: Sequence[int] | None, padding: Sequence[Sequence[int]],
                  base_dilation: Sequence[int] | None, window_dilation: Sequence[int] | None
                  ) -> dict[str, Any]:
    """Canonical (hashable, int) window parameters; None means ones."""
    ones = (1,) * ndim
    return {"window_dimensions": tuple(int(k) for k in window_dimensions),
            "window_strides": ones if window_strides is None else tuple(map(int, window_strides)),
            "padding": tuple((int(lo), int(hi)) for lo, hi in padding),
            "base_dilation": ones if base_dilation is None else tuple(map(int, base_dilation)),
            "window_dilation": (ones if window_dilation is None
                                else tuple(map(int, window_dilation)))}


def _with_unit_window(d: int, params: dict[str, Any]) -> dict[str, Any]:
    """``params`` with a window of 1 (stride 1, no padding or dilation) for a new axis at
    ``d``: the batching rule of every windowed primitive."""
    def ins(t: tuple, v: Any) -> tuple:
        return (*t[:d], v, *t[d:])
    return {"window_dimensions": ins(params["window_dimensions"], 1),
            "window_strides": ins(params["window_strides"], 1),
            "padding": ins(params["padding"], (0, 0)),
            "base_dilation": ins(params["base_dilation"], 1),
            "window_dilation": ins(params["window_dilation"], 1)}


def identity(kind: str, dtype: np.dtype) -> Any:
    """The identity of the reduction ``kind`` ('sum', 'max', 'min') in ``dtype``."""
    dtype = np.dtype(dtype)
    if kind == "sum":
        return dtype.type(0)
    if dtype == np.bool_:
        return kind == "min"
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return info.min if kind == "max" else info.max
    return -np.inf if kind == "max" else np.inf


def pad_general(x: Any, config: Sequence[tuple[int, int, int]]) -> Any:
    """``lax.pad``'s zero padding with negative ``lo``/``hi`` allowed (they remove elements):
    the non-negative part is a ``pad``, the negative part a ``slice`` of its result."""
    grown = pad(x, [(max(lo, 0), max(hi, 0), i) for lo, hi, i in config])
    shape = get_aval(grown).shape
    return slice_array(grown, [max(-lo, 0) for lo, _, _ in config],
                       [n - max(-hi, 0) for n, (_, hi, _) in zip(shape, config, strict=True)])


# --------------------------------------------------------------------------- reduce_window_sum

reduce_window_sum_p = Primitive("reduce_window_sum")


def reduce_window_sum(x: Any, **params: Any) -> Any:
    return reduce_window_sum_p.bind(x, **params)


@reduce_window_sum_p.def_impl
def _reduce_window_sum_impl(x: np.ndarray, *, window_dimensions: Shape, window_strides: Shape,
                            padding: Pads, base_dilation: Shape, window_dilation: Shape
                            ) -> np.ndarray:
    view = window_view(dilate_pad(x, base_dilation, padding, 0), window_dimensions,
                       window_strides, window_dilation)
    return view.sum(axis=tuple(range(x.ndim, 2 * x.ndim)), dtype=x.dtype)


def _reduce_window_abstract_eval(name: str, x: ShapedArray, **params: Any) -> ShapedArray:
    return ShapedArray(_check_window(name, x, **params), x.dtype)


reduce_window_sum_p.def_abstract_eval(partial(_reduce_window_abstract_eval, "reduce_window_sum"))
reduce_window_sum_p.def_jvp(partial(linear_jvp, reduce_window_sum_p))


@reduce_window_sum_p.def_transpose
def _reduce_window_sum_transpose(ct: Any, x: UndefPrimal, *, window_dimensions: Shape,
                                 window_strides: Shape, padding: Pads, base_dilation: Shape,
                                 window_dilation: Shape) -> tuple:
    # Element p of the padded operand feeds every output o with o * s + k * wd = p, so
    # ct_padded[p] = sum_k ct_dilated[p - k * wd] (ct dilated by the strides): a windowed sum
    # over ct dilated by s and padded by (K - 1) * wd in front. Reading operand element i at
    # p = lo + i * bd makes the window stride bd and the front padding (K - 1) * wd - lo;
    # the back padding makes exactly n windows.
    ct_shape = get_aval(ct).shape
    config = []
    for n, m, k, s, (lo, _), bd, wd in zip(x.aval.shape, ct_shape, window_dimensions,
                                           window_strides, padding, base_dilation,
                                           window_dilation, strict=True):
        front = dilate_dim(k, wd) - 1 - lo
        needed = dilate_dim(n, bd) + dilate_dim(k, wd) - 1  # so that n windows fit
        config.append((front, needed - dilate_dim(m, s) - front, s - 1))
    if any(n == 0 for n in x.aval.shape) or any(m == 0 for m in ct_shape):
        return (Zero(x.aval),)
    padded = pad_general(ct, config)
    ones = (1,) * x.aval.ndim
    return (reduce_window_sum(padded, window_dimensions=window_dimensions,
                              window_strides=base_dilation, padding=((0, 0),) * x.aval.ndim,
                              base_dilation=ones, window_dilation=window_dilation),)


def _reduce_window_batch(prim: Primitive, axis_size: int, vals: tuple, dims: tuple,
                         **params: Any) -> tuple:
    # the batch axis gets a window of one element: every example is reduced on its own
    (x,), (d,) = vals, dims
    return prim.bind(x, **_with_unit_window(d, params)), d


reduce_window_sum_p.def_batch(partial(_reduce_window_batch, reduce_window_sum_p))


# --------------------------------------------------------------------------- max and min

reduce_window_max_p = Primitive("reduce_window_max")
reduce_window_min_p = Primitive("reduce_window_min")
_KIND = {"reduce_window_max": "max", "reduce_window_min": "min"}


def reduce_window_max(x: Any, **params: Any) -> Any:
    return reduce_window_max_p.bind(x, **params)


def reduce_window_min(x: Any, **params: Any) -> Any:
    return reduce_window_min_p.bind(x, **params)


def _reduce_window_chooser_impl(kind: str, x: np.ndarray, *, window_dimensions: Shape,
                                window_strides: Shape, padding: Pads, base_dilation: Shape,
                                window_dilation: Shape) -> np.ndarray:
    xp = dilate_pad(x, base_dilation, padding, identity(kind, x.dtype))
    out_shape = window_out_shape(x.shape, window_dimensions, window_strides, padding,
                                 base_dilation, window_dilation)
    if 0 in out_shape:
        return np.empty(out_shape, x.dtype)
    # a fold of np.maximum over the window offsets: NaN propagates, as np.max does
    first, *rest = window_slices(out_shape, window_dimensions, window_strides,
                                 window_dilation)
    out = np.array(xp[first], copy=True)
    combine = np.maximum if kind == "max" else np.minimum
    for sl in rest:
        combine(out, xp[sl], out=out)
    return out


def _reduce_window_chooser_jvp(prim: Primitive, primals: tuple, tangents: tuple,
                               **params: Any) -> tuple:
    # out_dot[o] = x_dot at the window's first maximal (minimal) element (JAX's
    # select-and-gather: ties go to the first element in window order, row-major)
    (x,), (t,) = primals, tangents
    out = prim.bind(x, **params)
    return out, select_and_gather_add(t, x, select=_KIND[prim.name], **params)


for _prim in (reduce_window_max_p, reduce_window_min_p):
    _prim.def_impl(partial(_reduce_window_chooser_impl, _KIND[_prim.name]))
    _prim.def_abstract_eval(partial(_reduce_window_abstract_eval, _prim.name))
    _prim.def_jvp(partial(_reduce_window_chooser_jvp, _prim))
    _prim.def_batch(partial(_reduce_window_batch, _prim))


# --------------------------------------------------------------------------- select_and_gather_add

select_and_gather_add_p = Primitive("select_and_gather_add")


def select_and_gather_add(t: Any, x: Any, *, select: str, **params: Any) -> Any:
    """For each window of ``x``, ``t`` at the window's first maximal (``select='max'``) or
    minimal element; 0 if that element is padding or a hole. Linear in ``t``."""
    if isinstance(t, Zero):
        aval = get_aval(x)
        return Zero(ShapedArray(_check_window("select_and_gather_add", aval, **params),
                                t.aval.dtype))
    return select_and_gather_add_p.bind(t, x, select=select, **params)


def _chosen(x: np.ndarray, select: str, window_dimensions: Shape, window_strides: Shape,
            padding: Pads, base_dilation: Shape, window_dilation: Shape
            ) -> tuple[np.ndarray, Shape]:
    """For each window of ``x``: the flat offset, within the window, of the element XLA's
    select-and-scatter picks (scanning the window in row-major order, pads and holes
    included, the pick moves to the next element unless ``picked >= next`` (``<=`` for min));
    and the output shape. Without NaNs that is the first maximal (minimal) element; a NaN
    is passed over by the next element, so the pick is the last element if it is NaN, else
    the first maximal (minimal) element after the last NaN. The scan is run as written, one
    window offset at a time over every window at once."""
    xp = dilate_pad(x, base_dilation, padding, identity(select, x.dtype))
    out_shape = window_out_shape(x.shape, window_dimensions, window_strides, padding,
                                 base_dilation, window_dilation)
    if 0 in out_shape:
        return np.zeros(out_shape, np.intp), out_shape
    first, *rest = window_slices(out_shape, window_dimensions, window_strides,
                                 window_dilation)
    best = np.array(xp[first], copy=True)
    offset = np.min_scalar_type(len(rest))  # the narrowest unsigned type: less to move
    pick = np.zeros(out_shape, offset)
    move = np.empty(out_shape, bool)
    if xp.dtype.kind in "fc" and np.isnan(xp).any():  # the scan as written
        keep = np.greater_equal if select == "max" else np.less_equal
        for k, sl in enumerate(rest, 1):
            np.logical_not(keep(best, xp[sl], out=move), out=move)
            np.copyto(best, xp[sl], where=move)
            np.copyto(pick, k, where=move)
        return pick, out_shape
    # without NaNs the pick moves exactly when the next element is strictly better; the
    # offsets only grow, so "pick = k where it moves" is a maximum (masked copies are slow)
    better = np.greater if select == "max" else np.less
    combine = np.maximum if select == "max" else np.minimum
    for k, sl in enumerate(rest, 1):
        better(xp[sl], best, out=move)
        combine(best, xp[sl], out=best)
        np.maximum(pick, np.multiply(move, offset.type(k), dtype=offset), out=pick)
    return pick, out_shape


def _where_or_zero(mask: np.ndarray, values: np.ndarray, out: np.ndarray) -> None:
    """``out[...] = where(mask, values, 0)``. A mask that picks one element in a few at random
    defeats the branch predictor of ``np.where``; for 1, 2, 4 and 8-byte dtypes the same is a
    bitwise and with a mask of all-ones or all-zeros words (zero bits are +0 in every one)."""
    size = values.dtype.itemsize
    if size not in (1, 2, 4, 8) or values.dtype != out.dtype:
        np.copyto(out, np.where(mask, values, np.zeros((), values.dtype)))
        return
    word = np.dtype(f"u{size}")
    bits = mask.astype(word)
    np.negative(bits, out=bits)  # 1 -> all ones
    np.bitwise_and(values.view(word), bits, out=out.view(word))


@select_and_gather_add_p.def_impl
def _select_and_gather_add_impl(t: np.ndarray, x: np.ndarray, *, select: str,
                                **params: Any) -> np.ndarray:
    k, out_shape = _chosen(x, select, **params)
    out = np.zeros(out_shape, t.dtype)
    if out.size == 0:
        return out
    tp = dilate_pad(t, params["base_dilation"], params["padding"], 0)
    for j, sl in enumerate(window_slices(out_shape, params["window_dimensions"],
                                         params["window_strides"], params["window_dilation"])):
        np.copyto(out, tp[sl], where=k == j)
    return out


@select_and_gather_add_p.def_abstract_eval
def _select_and_gather_add_abstract_eval(t: ShapedArray, x: ShapedArray, *, select: str,
                                         **params: Any) -> ShapedArray:
    if t.shape != x.shape or select not in ("max", "min"):
        raise TypeError(f"select_and_gather_add: t must have x's shape {x.shape} and select "
                        f"must be 'max' or 'min'; got {t.str_short()} and {select!r}")
    return ShapedArray(_check_window("select_and_gather_add", x, **params), t.dtype)


@select_and_gather_add_p.def_jvp
def _select_and_gather_add_jvp(primals: tuple, tangents: tuple, **params: Any) -> tuple:
    # linear in t; the choice depends on x only through comparisons: no derivative in x
    (t, x), (t_dot, _) = primals, tangents
    return select_and_gather_add(t, x, **params), select_and_gather_add(t_dot, x, **params)


@select_and_gather_add_p.def_transpose
def _select_and_gather_add_transpose(ct: Any, t: Any, x: Any, **params: Any) -> tuple:
    # ct_t = ct scattered (added) to each window's chosen element
    if isinstance(x, UndefPrimal):
        raise TypeError("select_and_gather_add: the transpose is linear in t only; x must be "
                        "known")
    return select_and_scatter_add(ct, x, **params), None


def _select_pair_batch(prim: Primitive, axis_size: int, vals: tuple, dims: tuple, *,
                       select: str, **params: Any) -> tuple:
    # both operands batched at 0 (an unbatched one broadcast), with a unit window there
    a, x = (bdim_to_front(v, d, axis_size) for v, d in zip(vals, dims, strict=True))
    return prim.bind(a, x, select=select, **_with_unit_window(0, params)), 0


select_and_gather_add_p.def_batch(partial(_select_pair_batch, select_and_gather_add_p))


# --------------------------------------------------------------------------- select_and_scatter_add

select_and_scatter_add_p = Primitive("select_and_scatter_add")


def select_and_scatter_add(source: Any, x: Any, *, select: str, **params: Any) -> Any:
    """An array of ``x``'s shape: each element of ``source`` (one per window of ``x``) added
    at its window's first maximal (minimal) element of ``x``. Linear in ``source``; the
    transpose of ``select_and_gather_add``."""
    if isinstance(source, Zero):
        return Zero(ShapedArray(get_aval(x).shape, source.aval.dtype))
    return select_and_scatter_add_p.bind(source, x, select=select, **params)


@select_and_scatter_add_p.def_impl
def _select_and_scatter_add_impl(source: np.ndarray, x: np.ndarray, *, select: str,
                                 window_dimensions: Shape, window_strides: Shape,
                                 padding: Pads, base_dilation: Shape, window_dilation: Shape
                                 ) -> np.ndarray:
    out = np.zeros(x.shape, source.dtype)
    if source.size == 0 or x.size == 0:
        return out
    if x.ndim == 0:  # one window of one element
        return source.copy()
    k, out_shape = _chosen(x, select, window_dimensions, window_strides, padding,
                           base_dilation, window_dilation)
    # each window offset j adds the sources whose pick is j into a buffer laid out as the
    # dilated, padded operand (pads and holes included; negative padding: the buffer is the
    # uncropped one, seen through the crop), then x's elements are read back out of it.
    # Within one offset the positions o * s + j * wd are distinct, so a slice add is exact.
    # windows that overlap add several sources into one element: in float64 (complex128),
    # rounded once at the end; without overlap each element gets at most one source
    overlap = any(dilate_dim(k, wd) > s for k, wd, s in
                  zip(window_dimensions, window_dilation, window_strides, strict=True))
    work = {"f": np.float64, "c": np.complex128}.get(source.dtype.kind, source.dtype) \
        if overlap else source.dtype
    grown = [max(lo, 0) + dilate_dim(n, bd) + max(hi, 0)
             for n, bd, (lo, hi) in zip(x.shape, base_dilation, padding, strict=True)]
    buffer = np.zeros(grown, work)
    padded = buffer[tuple(slice(max(-lo, 0), g - max(-hi, 0))
                          for g, (lo, hi) in zip(grown, padding, strict=True))]
    zero = np.zeros((), work)
    for j, sl in enumerate(window_slices(out_shape, window_dimensions, window_strides,
                                         window_dilation)):
        if overlap:
            padded[sl] += np.where(k == j, source, zero)
        else:  # every element of the buffer is written by one offset at most
            _where_or_zero(k == j, source, padded[sl])
    real = buffer[tuple(slice(max(lo, 0), max(lo, 0) + dilate_dim(n, bd), bd)
                        for n, bd, (lo, _) in zip(x.shape, base_dilation, padding, strict=True))]
    return real.astype(source.dtype, copy=False)


@select_and_scatter_add_p.def_abstract_eval
def _select_and_scatter_add_abstract_eval(source: ShapedArray, x: ShapedArray, *, select: str,
                                          **params: Any) -> ShapedArray:
    out_shape = _check_window("select_and_scatter_add", x, **params)
    if source.shape != out_shape or select not in ("max", "min"):
        raise TypeError(f"select_and_scatter_add: source must have the window shape "
                        f"{out_shape} and select must be 'max' or 'min'; got "
                        f"{source.str_short()} and {select!r}")
    return ShapedArray(x.shape, source.dtype)


@select_and_scatter_add_p.def_jvp
def _select_and_scatter_add_jvp(primals: tuple, tangents: tuple, **params: Any) -> tuple:
    # linear in source; no derivative in x (it only chooses)
    (source, x), (s_dot, _) = primals, tangents
    return (select_and_scatter_add(source, x, **params),
            select_and_scatter_add(s_dot, x, **params))


@select_and_scatter_add_p.def_transpose
def _select_and_scatter_add_transpose(ct: Any, source: Any, x: Any, **params: Any) -> tuple:
    # ct_source = ct read at each window's chosen element
    if isinstance(x, UndefPrimal):
        raise TypeError("select_and_scatter_add: the transpose is linear in source only; x "
                        "must be known")
    return select_and_gather_add(ct, x, **params), None


select_and_scatter_add_p.def_batch(partial(_select_pair_batch, select_and_scatter_add_p))

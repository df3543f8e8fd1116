"""Order statistics and counting: median, quantile, percentile and their nan-versions (sort,
then take, then interpolate), bincount (index_add), histogram and histogram_bin_edges.

Quantiles take NumPy's thirteen methods ('linear' by default, 'lower', 'higher', 'midpoint',
'nearest', 'inverted_cdf', 'averaged_inverted_cdf', 'closest_observation',
'interpolated_inverted_cdf', 'hazen', 'weibull', 'median_unbiased', 'normal_unbiased'), with
NumPy's index arithmetic, done in the default float. The derivative flows to the one or two
sorted elements each result interpolates (ties: the element the stable sort puts there), as
JAX's: median([2, 2, 2]) sends all of it to the middle element. A slice with a NaN gives NaN
(the nan-versions skip NaNs; an all-NaN slice gives NaN); an empty axis gives NaN. ``q`` may be
traced (jit, vmap, grad); a concrete ``q`` outside [0, 1] is a ValueError, a traced one gives
NaN there (JAX clamps it).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad.core import Tracer, get_aval
from minigrad.dtypes import canonicalize_dtype, default_float_dtype, default_int_dtype
from minigrad.numpy import fast_paths as fast
from minigrad.numpy import selection as sel
from minigrad.numpy import ufuncs as uf
from minigrad.numpy.eager import canonical_real, eager
from minigrad.numpy.reductions import check_keepdims, refuse_out
from minigrad.numpy.shape import ravel
from minigrad.numpy.util import ArrayLike, asarray, canonical_axes, float_dtype
from minigrad.ops import elementwise as ew
from minigrad.ops import structural as st
from minigrad.ops.index_add import index_add, index_select
from minigrad.ops.indexing import check_index
from minigrad.ops.sort import sort as sort_operands

__all__ = [  # what minigrad.numpy exports from here
    "bincount", "histogram", "histogram_bin_edges", "median", "nanmedian", "nanpercentile",
    "nanquantile", "percentile", "quantile",
]

# (alpha, beta) of the continuous methods: virtual index n q + alpha + q (1 - alpha - beta) - 1
_CONTINUOUS = {"interpolated_inverted_cdf": (0.0, 1.0), "hazen": (0.5, 0.5),
               "weibull": (0.0, 0.0), "median_unbiased": (1 / 3, 1 / 3),
               "normal_unbiased": (3 / 8, 3 / 8)}
_DISCRETE = ("lower", "higher", "nearest", "inverted_cdf", "closest_observation")
METHODS = ("linear", "midpoint", "averaged_inverted_cdf", *_CONTINUOUS, *_DISCRETE)

# --------------------------------------------------------------------------- index arithmetic
# On float arrays (q against the counts n, broadcast): NumPy's definitions of each method.


def _promote(a: np.dtype, b: np.dtype) -> np.dtype:
    return canonicalize_dtype(np.promote_types(a, b))


def _as(x: Any, dtype: Any) -> Any:
    return ew.convert_element_type(x, np.dtype(dtype))


def _floor(v: Any) -> Any:
    """floor: truncation (a conversion to int), one less where that rounded up."""
    t = _as(_as(v, default_int_dtype()), get_aval(v).dtype)
    return uf.subtract(t, _as(uf.greater(t, v), get_aval(v).dtype))


def _ceil(v: Any) -> Any:
    f = _floor(v)
    return uf.add(f, _as(uf.less(f, v), get_aval(v).dtype))


def _is_odd(f: Any) -> Any:
    """For integer-valued floats (negative ones too): f is odd."""
    return uf.not_equal(uf.multiply(_floor(uf.multiply(f, 0.5)), 2.0), f)


def _discrete_index(method: str, n: Any, q: Any) -> Any:
    if method == "lower":
        return _floor(uf.multiply(uf.subtract(n, 1.0), q))
    if method == "higher":
        return _ceil(uf.multiply(uf.subtract(n, 1.0), q))
    if method == "nearest":  # round half to even, as np.around
        v = uf.multiply(uf.subtract(n, 1.0), q)
        f = _floor(v)
        r = uf.subtract(v, f)
        up = _logical_or(uf.greater(r, 0.5), _logical_and(uf.equal(r, 0.5), _is_odd(f)))
        return uf.add(f, _as(up, get_aval(f).dtype))
    # inverted_cdf and closest_observation: the previous index where the fraction is 0 (and,
    # for closest_observation, the previous index is odd), else the next
    shift = 1.0 if method == "inverted_cdf" else 1.5
    v = uf.subtract(uf.multiply(n, q), shift)
    f = _floor(v)
    keep_previous = uf.equal(uf.subtract(v, f), 0.0)
    if method == "closest_observation":
        keep_previous = _logical_and(keep_previous, _is_odd(f))
    return sel.where(keep_previous, f, uf.add(f, 1.0))


def _continuous_index(method: str, n: Any, q: Any) -> tuple[Any, Any]:
    """The virtual index and the interpolation weight it implies (before the bounds)."""
    if method == "linear":
        v = uf.multiply(uf.subtract(n, 1.0), q)
    elif method == "midpoint":
        exact = uf.multiply(uf.subtract(n, 1.0), q)
        v = uf.multiply(uf.add(_floor(exact), _ceil(exact)), 0.5)
    elif method == "averaged_inverted_cdf":
        v = uf.subtract(uf.multiply(n, q), 1.0)
    else:
        alpha, beta = _CONTINUOUS[method]
        v = uf.subtract(uf.add(uf.multiply(n, q), uf.add(alpha, uf.multiply(
            q, 1.0 - alpha - beta))), 1.0)
    gamma = uf.subtract(v, _floor(v))
    if method == "midpoint":
        gamma = sel.where(uf.equal(gamma, 0.0), 0.0, 0.5)
    elif method == "averaged_inverted_cdf":
        gamma = sel.where(uf.equal(gamma, 0.0), 0.5, 1.0)
    return v, gamma


def _logical_and(a: Any, b: Any) -> Any:
    return sel.where(a, b, False)


def _logical_or(a: Any, b: Any) -> Any:
    return sel.where(a, True, b)


def _clip_index(i: Any, n: Any) -> Any:
    last = uf.maximum(uf.subtract(n, 1.0), 0.0)
    return uf.minimum(uf.maximum(i, 0.0), last)


def _positions(method: str, n: Any, q: Any) -> tuple[Any, Any, Any | None]:
    """(previous, next, gamma) for each (q, slice): previous and next as float indices into
    a sorted slice of n valid elements, gamma None for the methods that take one element."""
    if method in _DISCRETE:
        index = _clip_index(_discrete_index(method, n, q), n)
        return index, index, None
    v, gamma = _continuous_index(method, n, q)
    previous = _floor(v)
    # beyond either end both neighbours are the end element (NumPy's _get_indexes)
    outside = _logical_or(uf.greater_equal(v, uf.subtract(n, 1.0)), uf.less(v, 0.0))
    gamma = sel.where(outside, 0.0, gamma)
    return (_clip_index(previous, n), _clip_index(uf.add(previous, 1.0), n), gamma)


# --------------------------------------------------------------------------- the quantile


def _lerp(a: Any, b: Any, t: Any) -> Any:
    """NumPy's interpolation: from a below t = 1/2, from b above (exact at both ends)."""
    d = uf.subtract(b, a)
    return sel.where(uf.greater_equal(t, 0.5), uf.subtract(b, uf.multiply(d, uf.subtract(1.0, t))),
                    uf.add(a, uf.multiply(d, t)))


def _take_rows(s: Any, index: Any) -> Any:
    """``s[r, index[k, r]]`` for the sorted slices ``s`` (R, N) and float ``index`` (K, R)."""
    rows, n = get_aval(s).shape
    k = get_aval(index).shape[0]
    offsets = uf.multiply(st.arange(0, rows, 1, default_float_dtype()), float(n))
    flat = _as(uf.add(index, offsets), default_int_dtype())
    picked = index_select(st.reshape(s, (rows * n,)), 0, st.reshape(flat, (k * rows,)))
    return st.reshape(picked, (k, rows))


def _quantile(a: ArrayLike, q: ArrayLike, axis: Any, out: Any, overwrite_input: Any,
              method: str, keepdims: Any, weights: Any, fn: str, skip_nans: bool,
              scale: float = 1.0) -> Any:
    refuse_out(out, fn)
    check_keepdims(keepdims, fn)
    if weights is not None:
        raise NotImplementedError(f"{fn}: weights are not supported; got {type(weights)}")
    if not isinstance(overwrite_input, (bool, np.bool_)):
        raise TypeError(f"{fn}: overwrite_input must be a bool; got {overwrite_input!r}")
    if method not in METHODS:
        raise ValueError(f"{fn}: method must be one of {METHODS}; got {method!r}")
    x = asarray(a)
    if get_aval(x).dtype.kind not in "biuf":
        raise TypeError(f"{fn}: a must be a real array; got dtype {get_aval(x).dtype}")
    if isinstance(q, (list, tuple)):
        q = np.asarray(q)
    qs = _check_q(q, fn, scale)
    aval = get_aval(x)
    axes = canonical_axes(axis, aval.ndim, fn)
    discrete = method in _DISCRETE
    out_dtype = aval.dtype if discrete else float_dtype(x, q)
    kept = [i for i in range(aval.ndim) if i not in axes]
    rest = [aval.shape[i] for i in kept]
    rows, n = int(np.prod(rest, dtype=np.int64)), int(np.prod([aval.shape[i] for i in axes],
                                                            dtype=np.int64))
    shape_out = [1 if i in axes else s for i, s in enumerate(aval.shape)] if keepdims else rest
    q_shape = get_aval(qs).shape
    if n == 0 or rows == 0:  # nothing to take: NaN (NumPy's median; its quantile raises)
        return st.full((*q_shape, *shape_out), np.nan if not discrete or out_dtype.kind in
                       "fc" else 0, out_dtype if not discrete or out_dtype.kind in "fc" else
                       default_float_dtype())
    x = _as(st.reshape(st.transpose(x, (*kept, *axes)), (rows, n)), out_dtype)
    (s,) = sort_operands([x], 1)  # NaNs last
    float_ = default_float_dtype()
    k = get_aval(qs).size
    q_col = st.reshape(qs, (k, 1))
    n_valid: Any = float(n)
    if skip_nans and out_dtype.kind in "fc":  # the count of each slice's non-NaN elements
        n_valid = st.reshape(st.reduce_sum(_as(ew.eq(x, x), float_), (1,)), (1, rows))
    previous, next_, gamma = _positions(method, n_valid, q_col)

    def grid(v: Any) -> Any:  # (K, R)
        return st.broadcast_to(v, (k, rows))

    result = _take_rows(s, grid(previous))
    if gamma is not None:
        result = _lerp(result, _take_rows(s, grid(next_)), _as(grid(gamma), out_dtype))
    result = _as(result, out_dtype)
    if out_dtype.kind in "fc":
        result = _nan_where_undefined(result, s, n_valid, q_col, skip_nans)
    return st.reshape(result, (*q_shape, *shape_out))


def _nan_where_undefined(result: Any, s: Any, n_valid: Any, q_col: Any, skip_nans: bool
                         ) -> Any:
    """NaN for a slice with a NaN (an all-NaN slice, skipping NaNs) and for a traced q
    outside [0, 1]."""
    shape = get_aval(result).shape
    rows, n = get_aval(s).shape
    nan = st.full(shape, np.nan, get_aval(result).dtype)
    if skip_nans:
        undefined = uf.equal(st.broadcast_to(n_valid, shape), 0.0)
    else:  # a NaN sorts last: a slice whose last element is NaN has one
        last = st.slice_array(s, (0, n - 1), (rows, n))
        undefined = st.broadcast_to(st.reshape(ew.ne(last, last), (1, rows)), shape)
    if isinstance(q_col, Tracer):
        outside = sel.where(uf.less(q_col, 0.0), True, uf.greater(q_col, 1.0))
        undefined = sel.where(undefined, True, st.broadcast_to(outside, shape))
    return ew.select(undefined, nan, result)


def _check_q(q: ArrayLike, fn: str, scale: float) -> Any:
    """``q`` in the default float (divided by ``scale`` for percentiles), rank 0 or 1; a
    concrete ``q`` must lie in [0, 1]."""
    if not isinstance(q, Tracer):  # (checked before any bind: under jit a bind is traced)
        values = np.asarray(q)
        if values.dtype.kind in "biuf" and not np.all((values >= 0) & (values <= scale)):
            what = "q (percentiles)" if scale != 1.0 else "q"
            raise ValueError(f"{fn}: {what} must be in [0, {scale:g}]; got {values!r}")
    qs = asarray(q)
    if get_aval(qs).dtype.kind not in "biuf":
        raise TypeError(f"{fn}: q must be real numbers; got dtype {get_aval(qs).dtype}")
    if get_aval(qs).ndim > 1:
        raise ValueError(f"{fn}: q must be a scalar or 1-D; got shape {get_aval(qs).shape}")
    dtype = _promote(get_aval(qs).dtype, default_float_dtype()) \
        if get_aval(qs).dtype.kind == "f" else default_float_dtype()
    qs = _as(qs, dtype)
    if scale != 1.0:
        qs = uf.divide(qs, scale)
    return qs


# --------------------------------------------------------------------------- public functions


def quantile(a: ArrayLike, q: ArrayLike, axis: Any = None, out: None = None,
             overwrite_input: bool = False, method: str = "linear", keepdims: bool = False, *,
             weights: None = None) -> Any:
    """The ``q``-th quantiles over ``axis`` (q in [0, 1], a scalar or 1-D: its axis comes
    first in the result)."""
    return _quantile(a, q, axis, out, overwrite_input, method, keepdims, weights, "quantile",
                     False)


def percentile(a: ArrayLike, q: ArrayLike, axis: Any = None, out: None = None,
               overwrite_input: bool = False, method: str = "linear", keepdims: bool = False,
               *, weights: None = None) -> Any:
    """``quantile`` with ``q`` in percent ([0, 100])."""
    return _quantile(a, q, axis, out, overwrite_input, method, keepdims, weights, "percentile",
                     False, scale=100.0)


def nanquantile(a: ArrayLike, q: ArrayLike, axis: Any = None, out: None = None,
                overwrite_input: bool = False, method: str = "linear", keepdims: bool = False,
                *, weights: None = None) -> Any:
    """``quantile`` of the elements that are not NaN (NaN for an all-NaN slice)."""
    return _quantile(a, q, axis, out, overwrite_input, method, keepdims, weights,
                     "nanquantile", True)


def nanpercentile(a: ArrayLike, q: ArrayLike, axis: Any = None, out: None = None,
                  overwrite_input: bool = False, method: str = "linear",
                  keepdims: bool = False, *, weights: None = None) -> Any:
    """``percentile`` of the elements that are not NaN."""
    return _quantile(a, q, axis, out, overwrite_input, method, keepdims, weights,
                     "nanpercentile", True, scale=100.0)


def median(a: ArrayLike, axis: Any = None, out: None = None, overwrite_input: bool = False,
           keepdims: bool = False) -> Any:
    """The median over ``axis``: the middle sorted element, or the mean of the two middle
    ones; each of those gets half the derivative (with ties, the ones the stable sort puts in
    the middle)."""
    x = asarray(a)
    aval = get_aval(x)
    if out is not None or aval.dtype.kind not in "biuf" or not isinstance(
            overwrite_input, (bool, np.bool_)) or not isinstance(keepdims, (bool, np.bool_)):
        return _quantile(x, 0.5, axis, out, overwrite_input, "midpoint", keepdims, None,
                         "median", False)  # (for its errors)
    axes = canonical_axes(axis, aval.ndim, "median")
    kept = [i for i in range(aval.ndim) if i not in axes]
    rows = math.prod([aval.shape[i] for i in kept])
    n = math.prod([aval.shape[i] for i in axes])
    if n == 0 or rows == 0:
        return _quantile(x, 0.5, axis, out, overwrite_input, "midpoint", keepdims, None,
                         "median", False)
    # (the general quantile's positions and interpolation reduce, for q = 1/2, to the mean of
    # the two middle elements of each sorted slice: a dozen binds instead of ~100)
    shape = [1 if i in axes else d for i, d in enumerate(aval.shape)] if keepdims else \
        [aval.shape[i] for i in kept]
    if canonical_real(a) and eager():  # (speed: fast_paths.median, the same NumPy calls)
        dtype = aval.dtype if aval.dtype.kind == "f" else float_dtype(x)  # (float_dtype's)
        return fast.median(a, kept, axes, rows, n, dtype, tuple(shape))
    dtype = float_dtype(x)
    (s,) = sort_operands([_as(st.reshape(st.transpose(x, (*kept, *axes)), (rows, n)),
                              dtype)], 1)  # NaNs last
    lo, hi = (n - 1) // 2, n // 2
    middle = st.slice_array(s, (0, lo), (rows, lo + 1))
    if hi != lo:
        upper = st.slice_array(s, (0, hi), (rows, hi + 1))
        middle = ew.mul(ew.add(middle, upper), st.full((rows, 1), 0.5, dtype))
    last = st.slice_array(s, (0, n - 1), (rows, n))
    middle = ew.select(ew.ne(last, last), st.full((rows, 1), np.nan, dtype), middle)
    return st.reshape(middle, tuple(shape))


def nanmedian(a: ArrayLike, axis: Any = None, out: None = None, overwrite_input: bool = False,
              keepdims: bool = False) -> Any:
    """The median of the elements that are not NaN (NaN for an all-NaN slice)."""
    return _quantile(a, 0.5, axis, out, overwrite_input, "midpoint", keepdims, None,
                     "nanmedian", True)


# --------------------------------------------------------------------------- counting


def _static_int(value: Any, name: str, fn: str) -> int:
    if isinstance(value, Tracer) or not isinstance(value, (int, np.integer)) or \
            isinstance(value, bool) or value < 0:
        raise TypeError(f"{fn}: {name} must be a non-negative Python int (static); got "
                        f"{value!r}")
    return int(value)


def bincount(x: ArrayLike, weights: ArrayLike | None = None, minlength: int = 0, *,
             length: int | None = None) -> Any:
    """How often each value 0, 1, ... occurs in the non-negative integers ``x`` (summing
    ``weights`` instead of ones); ``length`` fixes the result's size, as jit needs. A value
    out of range is an error (JAX clips negatives to 0 and drops values past ``length``).

    >>> import minigrad.numpy as mnp, numpy as np
    >>> mnp.bincount(np.array([0, 1, 1, 3]), length=5)
    Array([1, 2, 0, 1, 0], dtype=int64)
    """
    values = asarray(x)
    aval = get_aval(values)
    if aval.dtype == np.bool_:
        values = _as(values, default_int_dtype())
    elif aval.dtype.kind not in "iu":
        raise TypeError(f"bincount: x must be an integer array; got dtype {aval.dtype}")
    if aval.ndim != 1:
        raise ValueError(f"bincount: x must be 1-D; got shape {aval.shape}")
    minlength = _static_int(minlength, "minlength", "bincount")
    if length is None:
        if isinstance(values, Tracer):
            raise TypeError("bincount: under jit and vmap the result's size must be static; "
                            "pass length=")
        concrete = np.asarray(values)
        if concrete.size and concrete.min() < 0:
            raise ValueError(f"bincount: x must be non-negative; got {concrete.min()}")
        length = builtins_max(minlength, int(concrete.max()) + 1 if concrete.size else 0)
    else:
        length = builtins_max(_static_int(length, "length", "bincount"), 0)
    if weights is None:
        source = st.full(aval.shape, 1, default_int_dtype())
    else:
        w = asarray(weights)
        if get_aval(w).shape != aval.shape:
            raise ValueError(f"bincount: weights must have x's shape {aval.shape}; got "
                             f"{get_aval(w).shape}")
        source = _as(w, default_float_dtype() if get_aval(w).dtype.kind != "c"
                     else get_aval(w).dtype)  # (NumPy's: weights are summed as doubles)
    index = check_index(values, length, "bincount", 0) if aval.size else values
    zeros = st.full((length,), 0, get_aval(source).dtype)
    return index_add(zeros, 0, index, source) if aval.size else zeros


def builtins_max(a: int, b: int) -> int:
    return a if a >= b else b


def histogram_bin_edges(a: ArrayLike, bins: Any = 10, range: Any = None,
                        weights: ArrayLike | None = None) -> Any:
    """The edges ``histogram`` uses: ``bins + 1`` evenly spaced edges over ``range`` (the data's
    min and max if None, widened by 0.5 each way if they are equal), or ``bins`` itself."""
    del weights  # (NumPy's signature; the edges do not depend on them here)
    x = ravel(asarray(a))
    dtype = float_dtype(x)
    if not isinstance(bins, (int, np.integer)) or isinstance(bins, bool):
        edges = asarray(bins)
        if get_aval(edges).ndim != 1 or get_aval(edges).shape[0] < 2:
            raise ValueError(f"histogram: bins must be a positive int or a 1-D array of at "
                             f"least 2 edges; got {bins!r}")
        kind = get_aval(edges).dtype
        return _as(edges, _promote(kind, dtype) if kind.kind == "f" else dtype)
    if bins < 1:
        raise ValueError(f"histogram: bins must be a positive int; got {bins}")
    bins = int(bins)
    if range is None:
        if get_aval(x).size == 0:
            lo, hi = st.full((), 0.0, dtype), st.full((), 1.0, dtype)
        else:
            lo, hi = _as(ew.reduce_max(uf.negative(x), (0,)), dtype), \
                _as(ew.reduce_max(x, (0,)), dtype)
            lo = uf.negative(lo)
    else:
        if len(range) != 2:
            raise ValueError(f"histogram: range must be a pair (lo, hi); got {range!r}")
        lo, hi = _as(asarray(range[0]), dtype), _as(asarray(range[1]), dtype)
        if not isinstance(lo, Tracer) and not isinstance(hi, Tracer) and \
                not float(np.asarray(lo)) <= float(np.asarray(hi)):
            raise ValueError(f"histogram: range must have lo <= hi; got {range!r}")
    same = uf.equal(lo, hi)
    lo, hi = sel.where(same, uf.subtract(lo, 0.5), lo), sel.where(same, uf.add(hi, 0.5), hi)
    steps = st.arange(0, bins + 1, 1, dtype)
    width = uf.divide(uf.subtract(hi, lo), float(bins))
    edges = uf.add(lo, uf.multiply(steps, width))
    # the last edge is hi itself (NumPy's linspace: no rounding at the end)
    return st.concatenate([st.slice_array(edges, (0,), (bins,)), st.reshape(hi, (1,))], 0)


def histogram(a: ArrayLike, bins: Any = 10, range: Any = None,
              weights: ArrayLike | None = None, density: bool | None = None) -> Any:
    """``(counts, edges)``: how many elements (or how much weight) fall in each bin
    ``[edges[i], edges[i + 1])``, the last bin closed; elements outside the edges are not
    counted. ``density`` divides by the total and the bin widths."""
    from minigrad.numpy.sorting import searchsorted

    x = ravel(asarray(a))
    edges = histogram_bin_edges(x, bins, range)
    nbins = get_aval(edges).shape[0] - 1
    x = _as(x, get_aval(edges).dtype)
    bin_index = uf.subtract(searchsorted(edges, x, side="right"), 1)
    last = st.slice_array(edges, (nbins,), (nbins + 1,))
    bin_index = sel.where(uf.equal(x, st.broadcast_to(last, get_aval(x).shape)), nbins - 1,
                         bin_index)
    inside = sel.where(uf.less(bin_index, 0), False, uf.less(bin_index, nbins))
    if weights is None:
        w = _as(inside, default_int_dtype())
    else:
        w = ravel(asarray(weights))
        if get_aval(w).shape != get_aval(x).shape:
            raise ValueError(f"histogram: weights must have a's shape; got "
                             f"{get_aval(w).shape} for {get_aval(x).shape} elements")
        w = sel.where(inside, w, 0)
    safe_index = sel.where(inside, bin_index, 0)
    counts = index_add(st.full((nbins,), 0, get_aval(w).dtype), 0, safe_index, w)
    if density:
        widths = uf.subtract(st.slice_array(edges, (1,), (nbins + 1,)),
                             st.slice_array(edges, (0,), (nbins,)))
        total = st.reduce_sum(_as(counts, get_aval(edges).dtype), (0,))
        counts = uf.divide(uf.divide(counts, total), widths)
    return counts, edges

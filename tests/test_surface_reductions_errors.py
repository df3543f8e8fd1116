"""Bad input to the reductions, cumulative, sorting, statistics and set functions: a clear
error naming the function and the argument, raised before any work (eagerly and under jit
alike); the data-dependent sizes that need ``size=`` / ``length=`` under transforms; eager
results of the set functions against NumPy; inputs never written; and the family's dtypes with
``jax_enable_x64`` off, recorded and compared with JAX's."""

from __future__ import annotations

import importlib.util
from typing import Any, Callable

import numpy as np
import pytest
from surface import bad_input_tests

import minigrad as mg
import minigrad.numpy as mnp
from minigrad.scipy.special import logsumexp

X = np.arange(12.0).reshape(3, 4)
MASK = np.ones((3, 4), bool)

ROWS: list[tuple[str, Callable[[Any], Any], type, str]] = [
    ("sum axis out of range", lambda x: mnp.sum(x, axis=2), np.exceptions.AxisError,
     "sum: axis 2 is out of range for an array of rank 2"),
    ("sum negative axis out of range", lambda x: mnp.sum(x, axis=-3), np.exceptions.AxisError,
     "sum: axis -3 is out of range"),
    ("sum repeated axis", lambda x: mnp.sum(x, axis=(0, 0)), ValueError,
     r"sum: axes must be distinct; got \(0, 0\)"),
    ("sum float axis", lambda x: mnp.sum(x, axis=1.0), TypeError,
     "sum: axis must be None, an int or a tuple of ints"),
    ("sum keepdims not a bool", lambda x: mnp.sum(x, keepdims=1), TypeError,
     "sum: keepdims must be a bool; got 1"),
    ("sum out", lambda x: mnp.sum(x, out=np.zeros(4)), NotImplementedError,
     "sum: out is not supported"),
    ("sum dtype", lambda x: mnp.sum(x, dtype="nonsense"), TypeError,
     "sum: dtype must be a NumPy dtype or its name"),
    ("sum where not bool", lambda x: mnp.sum(x, where=np.ones((3, 4))), TypeError,
     "sum: where must be a bool array; got dtype float64"),
    ("sum where shape", lambda x: mnp.sum(x, where=np.ones((2, 4), bool)), ValueError,
     r"sum: .*got shapes \(3, 4\), \(2, 4\)"),
    ("sum initial not scalar", lambda x: mnp.sum(x, initial=np.ones(2)), ValueError,
     r"sum: initial must be a scalar; got shape \(2,\)"),
    ("prod keepdims", lambda x: mnp.prod(x, keepdims=None), TypeError,
     "prod: keepdims must be a bool"),
    ("mean axis", lambda x: mnp.mean(x, axis=5), np.exceptions.AxisError,
     "mean: axis 5 is out of range"),
    ("max of an empty axis", lambda x: mnp.max(x[:0], axis=0), ValueError,
     r"max: zero-size array .* \(axis of size 0 in shape \(0, 4\)\); pass initial"),
    ("min where without initial", lambda x: mnp.min(x, where=MASK), ValueError,
     "min: reduction operation minimum has no identity, so a where mask needs initial"),
    ("amax axis", lambda x: mnp.amax(x, axis=(0, 2)), np.exceptions.AxisError,
     "amax: axis 2 is out of range"),
    ("argmax tuple axis", lambda x: mnp.argmax(x, axis=(0, 1)), TypeError,
     r"argmax: axis must be None or an int; got \(0, 1\)"),
    ("argmax of an empty axis", lambda x: mnp.argmax(x[:0], axis=0), ValueError,
     "argmax: attempt to get argmax of an empty sequence"),
    ("argmin axis", lambda x: mnp.argmin(x, axis=2), np.exceptions.AxisError,
     "argmin: axis 2 is out of range"),
    ("var ddof and correction", lambda x: mnp.var(x, ddof=1, correction=1), ValueError,
     "var: ddof and correction cannot both be given"),
    ("std ddof not a number", lambda x: mnp.std(x, ddof="1"), TypeError,
     "std: ddof \\(correction\\) must be a Python or NumPy number"),
    ("ptp of bools", lambda x: mnp.ptp(x > 1), TypeError, "ptp: a must be numeric"),
    ("all keepdims", lambda x: mnp.all(x, keepdims="no"), TypeError,
     "all: keepdims must be a bool"),
    ("any where", lambda x: mnp.any(x, where=np.ones(3, bool)), ValueError, "any: "),
    ("count_nonzero axis", lambda x: mnp.count_nonzero(x, axis=3), np.exceptions.AxisError,
     "count_nonzero: axis 3 is out of range"),
    ("average weights shape", lambda x: mnp.average(x, axis=1, weights=np.ones(3)), ValueError,
     r"average: weights must have a's shape \(3, 4\), or the shape of a along axis"),
    ("average weights without axis", lambda x: mnp.average(x, weights=np.ones(4)), ValueError,
     "average: axis must be given when weights"),
    ("cumsum axis", lambda x: mnp.cumsum(x, axis=2), np.exceptions.AxisError,
     "cumsum: axis 2 is out of range"),
    ("cumsum tuple axis", lambda x: mnp.cumsum(x, axis=(0,)), TypeError,
     "cumsum: axis must be None or an int"),
    ("cumprod out", lambda x: mnp.cumprod(x, out=np.zeros(3)), NotImplementedError,
     "cumprod: out is not supported"),
    ("cumulative_sum of 2-D without axis", lambda x: mnp.cumulative_sum(x), ValueError,
     "cumulative_sum: axis must be given for an array of rank 2"),
    ("nansum axis", lambda x: mnp.nansum(x, axis=2), np.exceptions.AxisError,
     "nansum: axis 2 is out of range"),
    ("nanmean axis", lambda x: mnp.nanmean(x, axis=4), np.exceptions.AxisError,
     "nanmean: axis 4 is out of range"),
    ("nanvar keepdims", lambda x: mnp.nanvar(x, keepdims=2), TypeError,
     "nanvar: keepdims must be a bool"),
    ("nanstd where", lambda x: mnp.nanstd(x, where=np.ones(4)), TypeError,
     "nanstd: where must be a bool array"),
    ("std where shape", lambda x: mnp.std(x, where=np.ones((2, 4), bool)), ValueError,
     r"std: .*got shapes \(3, 4\), \(2, 4\)"),
    ("nanmax axis", lambda x: mnp.nanmax(x, axis=2), np.exceptions.AxisError,
     "nanmax: axis 2 is out of range"),
    ("sort axis", lambda x: mnp.sort(x, axis=2), np.exceptions.AxisError,
     "sort: axis 2 is out of range"),
    ("sort kind", lambda x: mnp.sort(x, kind="heapsort"), TypeError,
     "sort: kind is not supported"),
    ("sort order", lambda x: mnp.sort(x, order="f"), TypeError, "sort: order is not supported"),
    ("sort stable not a bool", lambda x: mnp.sort(x, stable=None), TypeError,
     "sort: stable must be a bool; got None"),
    ("argsort float dtype", lambda x: mnp.argsort(x, dtype=np.float32), TypeError,
     "argsort: dtype must be an integer dtype; got float32"),
    ("lexsort shapes", lambda x: mnp.lexsort([x[0], x[0, :2]]), ValueError,
     r"lexsort: all keys must have one shape; got shapes \[\(4,\), \(2,\)\]"),
    ("partition kth out of range", lambda x: mnp.partition(x, 4), ValueError,
     r"partition: kth must be in \[-4, 4\) for an axis of size 4; got 4"),
    ("argpartition kth sequence", lambda x: mnp.argpartition(x, [1, 2]), TypeError,
     "argpartition: kth must be an int"),
    ("searchsorted of 2-D", lambda x: mnp.searchsorted(x, 1.0), ValueError,
     r"searchsorted: a must be 1-D; got shape \(3, 4\)"),
    ("searchsorted side", lambda x: mnp.searchsorted(x[0], 1.0, side="middle"), ValueError,
     "searchsorted: side must be 'left' or 'right'; got 'middle'"),
    ("searchsorted float sorter", lambda x: mnp.searchsorted(x[0], 1.0, sorter=np.ones(4)),
     TypeError, "searchsorted: sorter must be an integer array of a's shape"),
    ("quantile q out of range", lambda x: mnp.quantile(x, 1.5), ValueError,
     r"quantile: q must be in \[0, 1\]"),
    ("percentile q out of range", lambda x: mnp.percentile(x, 150), ValueError,
     r"percentile: q \(percentiles\) must be in \[0, 100\]"),
    ("quantile q of rank 2", lambda x: mnp.quantile(x, np.full((2, 2), 0.5)), ValueError,
     r"quantile: q must be a scalar or 1-D; got shape \(2, 2\)"),
    ("quantile method", lambda x: mnp.quantile(x, 0.5, method="cubic"), ValueError,
     "quantile: method must be one of"),
    ("quantile of complex", lambda x: mnp.quantile(x.astype(complex), 0.5), TypeError,
     "quantile: a must be a real array; got dtype complex128"),
    ("median axis", lambda x: mnp.median(x, axis=2), np.exceptions.AxisError,
     "median: axis 2 is out of range"),
    ("nanmedian keepdims", lambda x: mnp.nanmedian(x, keepdims="yes"), TypeError,
     "nanmedian: keepdims must be a bool"),
    ("bincount negative", lambda x: mnp.bincount(np.array([1, -1])), ValueError,
     "bincount: x must be non-negative; got -1"),
    ("bincount of floats", lambda x: mnp.bincount(x[0]), TypeError,
     "bincount: x must be an integer array; got dtype float64"),
    ("bincount of 2-D", lambda x: mnp.bincount(np.zeros((2, 2), int)), ValueError,
     r"bincount: x must be 1-D; got shape \(2, 2\)"),
    ("histogram bins", lambda x: mnp.histogram(x, bins=0), ValueError,
     "histogram: bins must be a positive int; got 0"),
    ("unique flag not a bool", lambda x: mnp.unique(x, return_index=1), TypeError,
     "unique: return_index must be a bool; got 1"),
    ("unique axis", lambda x: mnp.unique(x, axis=3), np.exceptions.AxisError,
     "unique: axis 3 is out of range"),
    ("isin method", lambda x: mnp.isin(x, x, method="x"), ValueError,
     "isin: method must be one of"),
    ("logsumexp keepdims", lambda x: logsumexp(x, keepdims=0), TypeError,
     "logsumexp: keepdims must be a bool"),
    ("logsumexp return_sign", lambda x: logsumexp(x, return_sign="yes"), TypeError,
     "logsumexp: return_sign must be a bool"),
    ("logsumexp b shape", lambda x: logsumexp(x, b=np.ones(3)), ValueError,
     r"logsumexp: .*got shapes \(3, 4\), \(3,\)"),
    ("logsumexp axis", lambda x: logsumexp(x, axis=2), np.exceptions.AxisError,
     "logsumexp: axis 2 is out of range"),
    ("logsumexp of complex", lambda x: logsumexp(x.astype(complex)), TypeError,
     "logsumexp: a must be real"),
    ("union1d negative size", lambda x: mnp.union1d(x, x, size=-1), TypeError,
     "union1d: size must be a non-negative Python int; got -1"),
]


test_eagerly, test_under_jit = bad_input_tests(ROWS, X)


SIZED = ["unique", "unique_values", "unique_counts", "unique_inverse", "unique_all"]
PAIRS = ["union1d", "intersect1d", "setdiff1d", "setxor1d"]
V = np.array([3, 1, 2, 1, 3, 3])
W = np.array([2, 5, 3])


@pytest.mark.parametrize("name", SIZED + PAIRS)
def test_data_dependent_sizes_need_size(name: str) -> None:
    fn = getattr(mnp, name)
    args = (V,) if name in SIZED else (V, W)
    match = f"{name}: the number of results depends on the values.*pass size="
    with pytest.raises(TypeError, match=match):
        mg.jit(fn)(*args)
    with pytest.raises(TypeError, match=match):
        mg.vmap(fn)(*[np.stack([a, a]) for a in args])
    with pytest.raises(TypeError, match=r"bincount: under jit and vmap .* pass length="):
        mg.jit(mnp.bincount)(V)


@pytest.mark.parametrize("x", [V, np.array([np.nan, 1.0, np.nan, -0.0, 0.0]),
                               np.array([[1, 2], [1, 2], [0, 5]]), np.array([], int)],
                         ids=["ints", "nans", "2d", "empty"])
def test_set_functions_eagerly_against_numpy(x: np.ndarray) -> None:
    got = mnp.unique(x, return_index=True, return_inverse=True, return_counts=True)
    want = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    for g, w in zip(got, want, strict=True):
        assert type(g) is mg.Array
        np.testing.assert_array_equal(g, w)
    # (NumPy 2.4's unique_values leaves its order unspecified (hashing); ours is sorted, as
    # JAX's; each NaN distinct, as the array API asks)
    np.testing.assert_array_equal(mnp.unique_values(x), np.unique(x, equal_nan=False))
    for name in SIZED[2:]:
        for g, w in zip(getattr(mnp, name)(x), getattr(np, name)(x), strict=True):
            np.testing.assert_array_equal(g, w, err_msg=name)
    flat = x.ravel()
    for name in PAIRS:
        np.testing.assert_array_equal(getattr(mnp, name)(flat, W), getattr(np, name)(flat, W),
                                      err_msg=name)
    np.testing.assert_array_equal(mnp.isin(x, W), np.isin(x, W))
    np.testing.assert_array_equal(mnp.bincount(V), np.bincount(V))


def test_unique_with_size_pads_as_jax() -> None:
    values, counts = mg.jit(lambda v: mnp.unique_counts(v, size=5, fill_value=-7))(V)
    np.testing.assert_array_equal(values, [1, 2, 3, -7, -7])
    np.testing.assert_array_equal(counts, [2, 1, 3, 0, 0])
    per_row = mg.vmap(lambda v: mnp.unique(v, size=4))(np.array([[1, 1, 2], [3, 0, 3]]))
    np.testing.assert_array_equal(per_row, [[1, 2, 1, 1], [0, 3, 0, 0]])


def test_inputs_are_not_written() -> None:
    x = np.array([[3.0, np.nan, 1.0], [2.0, 2.0, -1.0]])
    before = x.copy()
    for fn in (mnp.sort, mnp.argsort, lambda a: mnp.partition(a, 1), mnp.median,
               lambda a: mnp.quantile(a, [0.2, 0.9]), mnp.nanmedian, mnp.cumsum, mnp.nansum,
               lambda a: mnp.searchsorted(a[1], 0.0), mnp.unique, mnp.nanargmax,
               lambda a: mnp.sum(a, axis=0, where=np.isfinite(a))):
        fn(x)
        np.testing.assert_array_equal(x, before)


# --------------------------------------------------------------------------- x64 off

INT32, F32 = np.dtype(np.int32), np.dtype(np.float32)
X64_OFF: list[tuple[str, Callable[[Any], Any], np.ndarray, np.dtype, bool]] = [
    # name, call, argument, our dtype, same as JAX's
    ("sum int32", lambda m, a: m.sum(a), np.arange(3, dtype=np.int32), INT32, True),
    ("sum bool", lambda m, a: m.sum(a), np.array([True, False]), INT32, True),
    ("mean int32", lambda m, a: m.mean(a), np.arange(3, dtype=np.int32), F32, True),
    ("var float32", lambda m, a: m.var(a), np.ones(3, np.float32), F32, True),
    ("std int32", lambda m, a: m.std(a), np.arange(3, dtype=np.int32), F32, True),
    ("argmax", lambda m, a: m.argmax(a), np.ones(3, np.float32), INT32, True),
    ("count_nonzero", lambda m, a: m.count_nonzero(a), np.ones(3, np.float32), INT32, True),
    ("cumsum int8", lambda m, a: m.cumsum(a), np.arange(3, dtype=np.int8), INT32, False),
    ("cumsum float32", lambda m, a: m.cumsum(a), np.arange(3, dtype=np.float32), F32, True),
    ("prod int16", lambda m, a: m.prod(a), np.arange(3, dtype=np.int16), INT32, True),
    ("median int32", lambda m, a: m.median(a), np.arange(4, dtype=np.int32), F32, True),
    ("sort float32", lambda m, a: m.sort(a), np.ones(3, np.float32), F32, True),
    ("argsort", lambda m, a: m.argsort(a), np.ones(3, np.float32), INT32, True),
    ("nanmean int32", lambda m, a: m.nanmean(a), np.arange(3, dtype=np.int32), F32, True),
]


@pytest.mark.parametrize("what, call, arg, dtype, as_jax", X64_OFF,
                         ids=[r[0] for r in X64_OFF])
def test_dtypes_with_x64_off(what: str, call: Any, arg: np.ndarray, dtype: np.dtype,
                             as_jax: bool) -> None:
    with mg.enable_x64(False):
        assert call(mnp, arg).dtype == dtype
        assert mg.jit(lambda a: call(mnp, a))(arg).dtype == dtype


@pytest.mark.skipif(importlib.util.find_spec("jax") is None,
                    reason="jax is not installed (pip install jax): the comparison needs it")
@pytest.mark.parametrize("what, call, arg, dtype, as_jax", X64_OFF,
                         ids=[r[0] for r in X64_OFF])
def test_dtypes_with_x64_off_against_jax(what: str, call: Any, arg: np.ndarray,
                                         dtype: np.dtype, as_jax: bool) -> None:
    import jax
    import jax.numpy as jnp

    before = jax.config.read("jax_enable_x64")
    jax.config.update("jax_enable_x64", False)
    try:
        theirs = np.dtype(call(jnp, jnp.asarray(arg)).dtype)
    finally:
        jax.config.update("jax_enable_x64", before)
    assert (theirs == dtype) == as_jax, f"{what}: JAX gives {theirs}, we give {dtype}"

"""Records of sorting and searching, the order statistics and the set functions
(minigrad/numpy/sorting.py, statistics.py, setops.py).

Drawn values are distinct, so a sort's permutation (and its derivative) is unique there;
ties, NaNs, infinities and empty arrays are in ``edges``, compared with JAX. Functions whose
result's size depends on the values (unique, the set operations, bincount) are recorded with
``size=`` / ``length=`` (what jit and vmap need); their eager results without it are checked
against NumPy in tests/test_surface_reductions_errors.py.
"""

from __future__ import annotations

import numpy as np
from surface import F64, Rec

NAN, INF = np.nan, np.inf
I64 = np.dtype(np.int64)


def normal(*shapes):
    return lambda rng, dt: tuple(rng.standard_normal(s).astype(dt) for s in shapes)


def ints(lo, hi, *shapes):
    return lambda rng, dt: tuple(rng.integers(lo, hi, s).astype(dt) for s in shapes)


def sorted_and_values(n, shape):
    """A sorted 1-D array and values to place in it, some equal to its elements."""
    def draw(rng, dt):
        a = np.sort(rng.standard_normal(n)).astype(dt)
        v = rng.standard_normal(shape).astype(dt)
        v.flat[0] = a[2]  # (an exact tie: left and right differ)
        return a, v
    return draw


def with_q(shape, k, scale=1.0):
    """An array and ``k`` quantile levels in (0, 1) (times ``scale``)."""
    def draw(rng, dt):
        return (rng.standard_normal(shape).astype(dt),
                (rng.uniform(0.05, 0.95, k) * scale).astype(dt))
    return draw


def edge(*arrays):
    return tuple(np.asarray(a, float) if isinstance(a, list) else a for a in arrays)


TIES = edge([[1.0, 3.0, 1.0, 2.0], [2.0, NAN, 0.0, 2.0], [INF, -INF, 5.0, 5.0]])
METHODS = ("linear", "lower", "higher", "nearest", "midpoint", "inverted_cdf",
           "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf",
           "hazen", "weibull", "median_unbiased", "normal_unbiased")
JAX_METHODS = ("linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf")
DISCRETE = ("lower", "higher", "nearest", "inverted_cdf", "closest_observation")

RECORDS = [
    # sort, argsort: every axis form; ties, NaN and infinities at the edges
    *[Rec("sort", normal((3, 4)), kwargs=kw, tag=tag, edges=(TIES,))
      for tag, kw in [("", {}), ("axis0", {"axis": 0}), ("flat", {"axis": None})]],
    Rec("sort", normal((3, 4)), kwargs={"descending": True}, tag="descending", ref=None,
        edges=(TIES,), note="NumPy has no descending"),
    Rec("sort", normal((5,)), tag="1d"),
    *[Rec("argsort", normal((3, 4)), kwargs=kw, tag=tag, grad=False, edges=(TIES,))
      for tag, kw in [("", {}), ("axis0", {"axis": 0}), ("flat", {"axis": None})]],
    Rec("argsort", normal((3, 4)), kwargs={"descending": True}, tag="descending", ref=None,
        grad=False, edges=(TIES,), note="NumPy has no descending; stable: ties in input order"),
    Rec("argsort", ints(0, 3, (3, 5)), tag="int-ties", dtypes=(I64,), grad=False,
        ref=lambda x: np.argsort(x, stable=True)),
    Rec("lexsort", ints(0, 3, (6,), (6,)), listarg=True, dtypes=(I64,), grad=False),
    Rec("partition", normal((3, 5)), kwargs={"kth": 2}, ref=None,
        note="NumPy's order around kth is unspecified; JAX's is compared"),
    Rec("argpartition", normal((3, 5)), kwargs={"kth": 1, "axis": 0}, ref=None, grad=False,
        jax_dtype=False, note="NumPy's order around kth is unspecified; JAX's is compared "
        "(JAX's indices are int32, ours the default integer)"),
    # searchsorted: integer result; the tie sits in v[0]
    *[Rec("searchsorted", sorted_and_values(6, (2, 3)), kwargs=kw, tag=tag, grad=False,
          jax_dtype=False, note="the default integer (JAX: int32)",
          edges=(edge([0.0, 1.0, 1.0, 2.0], [[1.0, -INF, INF], [NAN, 0.5, 2.0]]),))
      for tag, kw in [("", {}), ("right", {"side": "right"})]],
    # median, quantile, percentile (and their nan-versions)
    *[Rec("median", normal((3, 5)), kwargs=kw, tag=tag,
          edges=(edge([[1.0, 2.0, 2.0, 0.0, 5.0], [1.0, NAN, 3.0, 0.0, 4.0],
                       [4.0, 4.0, 4.0, 4.0, 4.0]]),))
      for tag, kw in [("", {}), ("axis1", {"axis": 1}), ("axis0-keepdims",
                                                          {"axis": 0, "keepdims": True})]],
    Rec("median", normal((4, 4)), kwargs={"axis": 1}, tag="even"),
    *[Rec("quantile", with_q((3, 6), 3), kwargs={"axis": 1, "method": m}, tag=m, diff=(0,),
          grad=m not in DISCRETE, jax=m in JAX_METHODS,
          note="" if m in JAX_METHODS else "JAX has no such method: NumPy's values only")
      for m in METHODS],
    Rec("quantile", with_q((3, 6), 2), kwargs={"axis": 0, "keepdims": True}, tag="keepdims",
        diff=(0, 1)),
    Rec("percentile", with_q((3, 6), 3, 100.0), kwargs={"axis": 1}, diff=(0,)),
    *[Rec(n, normal((3, 6)), kwargs={"axis": 1}, tag="",
          edges=(edge([[1.0, NAN, 3.0, NAN, 0.5, 2.0], [NAN] * 6, [1.0, 2.0, 3.0, 4.0, 5.0,
                                                                    NAN]]),))
      for n in ("nanmedian",)],
    Rec("nanquantile", with_q((3, 6), 2), kwargs={"axis": 1}, diff=(0,),
        edges=(edge([[1.0, NAN, 3.0, NAN, 0.5, 2.0], [NAN] * 6, [1.0, 2.0, 3.0, 4.0, 5.0,
                                                                   NAN]], [0.25, 0.5]),)),
    Rec("nanpercentile", with_q((3, 6), 2, 100.0), kwargs={"axis": 1}, diff=(0,)),
    # counting: length= makes the size static (NumPy: minlength)
    Rec("bincount", ints(0, 5, (8,)), kwargs={"length": 6}, dtypes=(I64,), grad=False,
        ref=lambda x, length: np.bincount(x, minlength=length)),
    Rec("bincount", lambda rng, dt: (rng.integers(0, 5, 8), rng.standard_normal(8).astype(dt)),
        kwargs={"length": 5}, tag="weights", diff=(1,), dtypes=F64,
        ref=lambda x, w, length: np.bincount(x, w, minlength=length)),
    Rec("histogram", normal((20,)), kwargs={"bins": 4, "range": (-2.0, 2.0)}, grad=False,
        jax_dtype=False, note="counts in the default integer, as NumPy (JAX: floats)"),
    Rec("histogram_bin_edges", normal((20,)), kwargs={"bins": 5}, grad=False),
    # unique and the set functions, with size= (fill_value as JAX's default)
    Rec("unique", ints(0, 4, (8,)), kwargs={"size": 5}, dtypes=(I64,), grad=False, ref=None),
    Rec("unique", normal((6,)), kwargs={"size": 6}, tag="floats", ref=None),
    Rec("unique", ints(0, 4, (8,)), kwargs={"size": 5, "return_index": True,
                                            "return_inverse": True, "return_counts": True},
        tag="all", dtypes=(I64,), grad=False, ref=None),
    *[Rec(n, ints(0, 4, (8,)), kwargs={"size": 5}, dtypes=(I64,), grad=False, ref=None)
      for n in ("unique_values", "unique_counts", "unique_inverse", "unique_all")],
    Rec("isin", ints(0, 6, (3, 4), (5,)), dtypes=(I64,), grad=False),
    Rec("isin", ints(0, 6, (3, 4), (5,)), kwargs={"invert": True}, tag="invert",
        dtypes=(I64,), grad=False),
    *[Rec(n, ints(0, 6, (6,), (5,)), kwargs={"size": 8}, dtypes=(I64,), grad=False, ref=None)
      for n in ("union1d", "intersect1d", "setdiff1d", "setxor1d")],
]

"""Records of the reductions, the nan-reductions and the cumulative functions
(minigrad/numpy/reductions.py, nanfunctions.py, cumulative.py).

Drawn values are distinct (no ties, no zeros in products): finite differences see the
derivative. Ties, zeros, NaNs and empty arrays are in ``edges``, compared with JAX (values and
gradients): max/min ties share the derivative, prod and cumprod are exact with one and two
zeros, argmax takes the first NaN, an empty sum is 0 and an empty mean NaN.
"""

from __future__ import annotations

import numpy as np
from surface import F64, Rec

NAN, INF = np.nan, np.inf
I32, I64, U8 = np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.uint8)
BOOL = np.dtype(bool)


def normal(*shapes):
    return lambda rng, dt: tuple(rng.standard_normal(s).astype(dt) for s in shapes)


def away_from_zero(*shapes):
    """Values in +-[0.5, 1.5]: products stay near 1, no zero."""
    return lambda rng, dt: tuple((rng.choice([-1.0, 1.0], s) * rng.uniform(0.5, 1.5, s))
                                 .astype(dt) for s in shapes)


def ints(lo, hi, *shapes):
    return lambda rng, dt: tuple(rng.integers(lo, hi, s).astype(dt) for s in shapes)


def bools(*shapes):
    return lambda rng, dt: tuple(rng.random(s) < 0.6 for s in shapes)


def with_nans(shape):
    def draw(rng, dt):
        x = rng.standard_normal(shape)
        x[rng.random(shape) < 0.25] = NAN
        return (x.astype(dt),)
    return draw


MASK = np.array([[True, False, True, True], [True, True, False, False],
                 [True, False, False, True]])  # (a fixed where=: one True at least per row)
MASK5 = np.array([[True, False, True, True, True], [True, True, False, False, True],
                  [True, False, False, True, False]])
WEIGHTS = np.array([0.5, 2.0, 1.0, 1.5])


def edge(*arrays):
    return tuple(np.asarray(a, float) if isinstance(a, list) else a for a in arrays)


TIES = edge([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]])
ZEROS = [edge([2.0, 0.0, 3.0]), edge([0.0, 0.0, 3.0]), edge([INF, 0.0, 3.0])]
AXES = [("", {}), ("axis1", {"axis": 1}), ("axis-1-keepdims", {"axis": -1, "keepdims": True}),
        ("axes02", {"axis": (0, 2)})]

RECORDS = [
    # sum, prod, mean: every axis form
    *[Rec(n, normal((2, 3, 4)), kwargs=kw, tag=tag) for n in ("sum", "mean") for tag, kw in AXES],
    *[Rec("prod", away_from_zero((2, 3, 4)), kwargs=kw, tag=tag) for tag, kw in AXES],
    Rec("sum", normal((3, 4)), kwargs={"axis": 0, "initial": 1.5}, tag="initial"),
    Rec("sum", normal((3, 4)), kwargs={"axis": 1, "where": MASK}, tag="where"),
    Rec("sum", normal((3, 4)), kwargs={"dtype": np.float32}, tag="dtype", dtypes=F64,
        tol=1e-5),  # (computed in float32)
    Rec("sum", ints(-5, 5, (3, 4)), kwargs={"axis": 1}, tag="int32", dtypes=(I32,),
        grad=False),
    Rec("sum", bools((3, 4)), tag="bool", dtypes=(BOOL,), grad=False),
    Rec("sum", ints(0, 200, (5,)), tag="uint8", dtypes=(U8,), grad=False),
    Rec("sum", normal((0, 3)), kwargs={"axis": 0}, tag="empty"),
    Rec("prod", away_from_zero((3, 4)), kwargs={"axis": 1, "initial": 2.0}, tag="initial"),
    Rec("prod", ints(-3, 4, (3, 4)), kwargs={"axis": 0}, tag="int32", dtypes=(I32,),
        grad=False),
    Rec("prod", away_from_zero((4,)), tag="zeros", dtypes=F64, edges=tuple(ZEROS)),
    Rec("mean", ints(-5, 5, (3, 4)), kwargs={"axis": 0}, tag="int", dtypes=(I64,),
        grad=False),
    Rec("mean", ints(-5, 5, (3, 4)), kwargs={"axis": 0}, tag="int32", dtypes=(I32,),
        grad=False, jax=False, note="NumPy 2's float64 (JAX: float32)"),
    Rec("mean", normal((3, 4)), kwargs={"axis": 1, "where": MASK}, tag="where"),
    Rec("mean", normal((0,)), tag="empty", dtypes=F64, ref=lambda x: np.float64(np.nan),
        grad=False),
    # var, std
    *[Rec(n, normal((3, 5)), kwargs=kw, tag=tag) for n in ("var", "std")
      for tag, kw in [("", {}), ("axis0-ddof1", {"axis": 0, "ddof": 1}),
                      ("keepdims", {"axis": 1, "keepdims": True})]],
    Rec("var", normal((3, 5)), kwargs={"axis": 1, "correction": 1}, tag="correction"),
    Rec("var", normal((3, 5)), kwargs={"axis": 1, "where": MASK5}, tag="where"),
    Rec("var", normal((2, 2)), kwargs={"axis": 1, "ddof": 2}, tag="ddof-too-large", ref=None,
        grad=False, note="NaN (JAX) where NumPy gives inf"),
    Rec("std", ints(-5, 5, (4, 3)), kwargs={"axis": 0}, tag="int", dtypes=(I64,), grad=False),
    # max, min and their other names; ties in the edges
    *[Rec(n, normal((2, 3, 4)), kwargs=kw, tag=tag, edges=(TIES,) if not tag else ())
      for n in ("max", "min", "amax", "amin") for tag, kw in AXES],
    Rec("max", normal((3, 4)), kwargs={"axis": 1, "initial": 0.5}, tag="initial",
        edges=(edge([[0.5, 0.5], [0.2, 0.1]]),)),
    Rec("max", normal((3, 4)), kwargs={"axis": 1, "initial": -10.0, "where": MASK},
        tag="where"),
    Rec("min", normal((0, 3)), kwargs={"axis": 0, "initial": 1.0}, tag="empty-initial"),
    Rec("min", ints(-9, 9, (3, 4)), kwargs={"axis": 1}, tag="int", dtypes=(I32,), grad=False),
    Rec("ptp", normal((3, 4)), kwargs={"axis": 1}),
    Rec("ptp", normal((3, 4)), tag="all", edges=(TIES,)),
    # all, any, count_nonzero: no derivative
    *[Rec(n, bools((3, 4)), kwargs=kw, tag=tag, dtypes=(BOOL,), grad=False)
      for n in ("all", "any") for tag, kw in [("", {}), ("axis1", {"axis": 1}),
                                              ("keepdims", {"axis": 0, "keepdims": True})]],
    Rec("any", normal((3, 4)), kwargs={"axis": 0}, tag="floats", grad=False,
        edges=(edge([[0.0, NAN], [0.0, 0.0]]),)),
    Rec("count_nonzero", ints(-1, 2, (3, 4)), kwargs={"axis": 1}, dtypes=(I64,), grad=False),
    # argmax, argmin: the first occurrence, NaN first
    *[Rec(n, normal((3, 4)), kwargs=kw, tag=tag, grad=False,
          edges=(edge([[1.0, NAN, 3.0, NAN], [2.0, 5.0, 5.0, 1.0]]),))
      for n in ("argmax", "argmin") for tag, kw in [("", {}), ("axis1", {"axis": 1}),
                                                    ("keepdims", {"axis": 0,
                                                                  "keepdims": True})]],
    # average
    Rec("average", normal((3, 4)), kwargs={"axis": 1}),
    Rec("average", normal((3, 4)), kwargs={"axis": 1, "weights": WEIGHTS}, tag="weights"),
    # nan-reductions: NaN positions get zero derivatives (JAX compares at the NaN edges)
    *[Rec(n, normal((3, 4)), kwargs={"axis": 1}, tag="",
          edges=(edge([[1.0, NAN, 3.0, NAN], [NAN, NAN, NAN, NAN]]),)
          if n in ("nansum", "nanmax", "nanmin", "nanmean") else
          (edge([[1.0, NAN, 3.0, NAN], [2.0, NAN, 1.0, 0.5]]),))
      for n in ("nansum", "nanprod", "nanmax", "nanmin", "nanmean", "nanvar", "nanstd")],
    *[Rec(n, with_nans((3, 5)), kwargs={"axis": 1}, tag="nans", grad=False)
      for n in ("nansum", "nanmax", "nanmean", "nanvar")],
    *[Rec(n, normal((3, 4)), kwargs={"axis": 1}, grad=False,
          edges=(edge([[1.0, NAN, 3.0, NAN], [2.0, NAN, 1.0, 0.5]]),))
      for n in ("nanargmax", "nanargmin")],
    # cumulative
    *[Rec(n, normal((3, 4)), kwargs=kw, tag=tag) for n in ("cumsum", "nancumsum")
      for tag, kw in [("axis1", {"axis": 1}), ("flat", {})]],
    *[Rec(n, away_from_zero((3, 4)), kwargs=kw, tag=tag) for n in ("cumprod", "nancumprod")
      for tag, kw in [("axis1", {"axis": 1}), ("flat", {})]],
    Rec("cumprod", away_from_zero((5,)), tag="zeros", dtypes=F64,
        edges=(edge([2.0, 0.0, 3.0, 4.0]), edge([2.0, 0.0, 3.0, 0.0, 5.0]))),
    Rec("cumsum", ints(-5, 5, (3, 4)), kwargs={"axis": 0}, tag="int32", dtypes=(I32,),
        grad=False, jax=False, note="NumPy 2's int64 (JAX keeps int32)"),
    Rec("cumsum", normal((3, 4)), kwargs={"axis": -1, "dtype": np.float32}, tag="dtype",
        dtypes=F64, tol=1e-5),  # (computed in float32)
    *[Rec(n, normal((3, 4)), kwargs=kw, tag=tag) for n in ("cumulative_sum", "cumulative_prod")
      for tag, kw in [("axis1", {"axis": 1}), ("initial", {"axis": 0,
                                                           "include_initial": True})]],
    Rec("cumulative_sum", normal((5,)), tag="1d"),
    Rec("cumulative_sum", ints(0, 200, (5,)), tag="uint8", dtypes=(U8,), grad=False),
    # scipy.special.logsumexp: stable for large inputs, -inf rows, +inf, signed weights
    *[Rec("scipy.special.logsumexp", normal((3, 4)), kwargs=kw, tag=tag,
          edges=(edge([[1000.0, 1000.0, -5.0, 2.0], [-INF, -INF, -INF, -INF],
                       [INF, 1.0, 2.0, 3.0]]),))
      for tag, kw in [("", {}), ("axis1", {"axis": 1}), ("keepdims", {"axis": 0,
                                                                       "keepdims": True})]],
    # (b is the third positional argument: axis is drawn as a static argument before it)
    Rec("scipy.special.logsumexp", lambda rng, dt: (rng.standard_normal((3, 4)).astype(dt), 1,
                                                    rng.uniform(0.5, 2.0, (3, 4)).astype(dt)),
        static=(1,), tag="b"),
    Rec("scipy.special.logsumexp", lambda rng, dt: (rng.standard_normal((3, 4)).astype(dt), 0,
                                                    rng.uniform(0.5, 2.0, (4,)).astype(dt)
                                                    * np.array([1, -1, 1, 1], dt)),
        static=(1,), kwargs={"return_sign": True}, tag="sign", diff=(0,)),
]

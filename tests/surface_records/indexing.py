"""Records of the indexing family (minigrad/numpy/indexing.py, at.py, index_tricks.py).
``x[key]`` and ``x.at[key]`` have their own property tests (tests/test_at.py); here each
function of the namespace, with keys and index arrays drawn in range (JAX clamps or fills out
of range by default, we raise: tests/test_at.py compares the explicit modes)."""

from __future__ import annotations

import numpy as np
from surface import F64, FLOATS, INTS, Rec

BOOLS = (np.dtype(bool),)


def normal(*shapes):
    return lambda rng, dt: tuple(rng.standard_normal(s).astype(dt) for s in shapes)


def with_index(shape, ishape, n, lo=None, hi=None):
    """(x, index): entries in [-n, n) unless bounds are given (negatives from the end)."""
    def draw(rng, dt):
        index = rng.integers(-n if lo is None else lo, n if hi is None else hi, ishape)
        return rng.standard_normal(shape).astype(dt), index
    return draw


def key_record(key, shape=(3, 4, 5), tag=""):
    return Rec("getitem", lambda rng, dt: (rng.standard_normal(shape).astype(dt), key),
               static=(1,), ref=lambda x, k: x[k], jax=False, tag=tag,
               note="x[key]; JAX's spelling is the operator (compared in tests/test_at.py)")


def mixed(shape, p=0.5):
    """A float array with about a fraction p of zeros (for nonzero and friends)."""
    def draw(rng, dt):
        x = rng.standard_normal(shape)
        x[rng.random(shape) < p] = 0
        return (x.astype(dt),)
    return draw


def mask_and(shape, n):
    def draw(rng, dt):
        mask = rng.random(n) < 0.6
        return mask, rng.standard_normal(shape).astype(dt)
    return draw


def put_ref(a, ind, v, mode=None, inplace=True):
    out = np.array(a, copy=True)
    np.put(out, ind, v, mode="raise" if mode is None else mode)
    return out


def put_along_ref(arr, indices, values, axis, inplace=True):
    out = np.array(arr, copy=True)
    np.put_along_axis(out, indices, values, axis)
    return out


RECORDS = [
    # x[key]: a few keys of each kind (tests/test_at.py draws many more)
    key_record((1, slice(None, None, -2)), tag="int-negstep"),
    key_record((np.array([2, -1, 0]), slice(1, 3)), tag="array-slice"),
    key_record((slice(None), np.array([[0], [3]]), np.array([1, -1])), tag="adjacent-arrays"),
    key_record((np.array([0, 2]), slice(None), np.array([1, 4])), tag="separated-arrays"),
    key_record((None, Ellipsis, np.array([True, False, True, True, False])), tag="mask-new"),
    key_record(np.array([[True, False, True, False], [False] * 4, [True] * 4]), tag="mask2d"),
    # take, take_along_axis
    Rec("take", with_index((3, 4), (2, 3), 4), kwargs={"axis": 1}, dtypes=FLOATS),
    Rec("take", with_index((3, 4), (5,), 12), tag="flat"),
    Rec("take", with_index((5, 2), (6,), 5, -9, 9), kwargs={"axis": 0, "mode": "clip"},
        tag="clip"),
    Rec("take", with_index((4,), (3, 2), 4), kwargs={"axis": 0}, dtypes=INTS, grad=False,
        tag="int"),
    Rec("take_along_axis", with_index((3, 4), (3, 2), 4), kwargs={"axis": 1}, dtypes=FLOATS),
    Rec("take_along_axis", with_index((3, 4), (1, 4), 3), kwargs={"axis": 0},
        ref=lambda x, i, axis: np.take_along_axis(x, np.broadcast_to(i, (1, 4)), axis),
        tag="broadcast"),
    Rec("take_along_axis", with_index((3, 4), (5,), 12), kwargs={"axis": None}, tag="flat"),
    # put and put_along_axis (JAX's, with inplace=False; NumPy's write in place)
    Rec("put", lambda rng, dt: (rng.standard_normal((3, 4)).astype(dt),
                                np.array([0, 7, -1]), rng.standard_normal(3).astype(dt)),
        kwargs={"inplace": False}, ref=put_ref),
    Rec("put_along_axis", lambda rng, dt: (rng.standard_normal((3, 4)).astype(dt),
                                           np.argsort(rng.random((3, 4)), 1)[:, :2],
                                           rng.standard_normal((3, 2)).astype(dt)),
        kwargs={"axis": 1, "inplace": False}, ref=put_along_ref),
    # data-dependent shapes: eager (a static argument), or size= under every transform
    Rec("nonzero", mixed((3, 4)), static=(0,), grad=False, batch=False, dtypes=F64),
    Rec("nonzero", mixed((3, 4)), kwargs={"size": 5, "fill_value": -1}, grad=False,
        ref=None, tag="size", note="NumPy has no size="),
    Rec("flatnonzero", mixed((3, 4)), static=(0,), grad=False, batch=False, dtypes=F64),
    Rec("flatnonzero", mixed((3, 4)), kwargs={"size": 3}, grad=False, ref=None, tag="size"),
    Rec("argwhere", mixed((2, 3)), static=(0,), grad=False, batch=False, dtypes=F64),
    Rec("argwhere", mixed((2, 3)), kwargs={"size": 7}, grad=False, ref=None, tag="size"),
    Rec("where", mixed((3, 4)), static=(0,), grad=False, batch=False, dtypes=F64,
        tag="one-argument"),
    Rec("compress", mask_and((5, 2), 5), kwargs={"axis": 0}, static=(0,)),
    Rec("compress", mask_and((5, 2), 5), kwargs={"axis": 0, "size": 4, "fill_value": 9.0},
        ref=None, tag="size"),
    Rec("extract", lambda rng, dt: (rng.random((3, 4)) < 0.5,
                                    rng.standard_normal((3, 4)).astype(dt)), static=(0,)),
    # choosing
    Rec("choose", lambda rng, dt: (rng.integers(0, 3, (2, 4)),
                                   rng.standard_normal((3, 2, 4)).astype(dt)), dtypes=FLOATS),
    Rec("choose", lambda rng, dt: (rng.integers(-2, 5, (4,)),
                                   rng.standard_normal((3, 4)).astype(dt)),
        kwargs={"mode": "clip"}, tag="clip"),
    Rec("choose", lambda rng, dt: (rng.integers(-4, 7, (4,)),
                                   rng.standard_normal((3, 1)).astype(dt)),
        kwargs={"mode": "wrap"}, tag="wrap-broadcast"),
    Rec("select", lambda rng, dt: (rng.random((2, 3, 4)) < 0.4,
                                   rng.standard_normal((2, 3, 4)).astype(dt)), dtypes=FLOATS,
        ref=lambda c, v: np.select(list(c), list(v)),
        note="NumPy's select wants lists; an array is iterated the same way"),
    # index builders (no array arguments)
    Rec("diag_indices", lambda rng, dt: (4,), static=(0,), kwargs={"ndim": 3}, grad=False,
        batch=False, dtypes=F64),
    Rec("diag_indices_from", normal((3, 3)), grad=False, batch=False, dtypes=F64),
    *[Rec(n, lambda rng, dt: (4,), static=(0,), kwargs={"k": -1, "m": 5}, grad=False,
          batch=False, dtypes=F64) for n in ("tril_indices", "triu_indices")],
    *[Rec(n, normal((3, 5)), kwargs={"k": 1}, grad=False, batch=False, dtypes=F64)
      for n in ("tril_indices_from", "triu_indices_from")],
    Rec("indices", lambda rng, dt: ((2, 3),), static=(0,), grad=False, batch=False,
        dtypes=F64),
    Rec("indices", lambda rng, dt: ((2, 3),), static=(0,), kwargs={"sparse": True},
        grad=False, batch=False, dtypes=F64, tag="sparse"),
    Rec("ix_", lambda rng, dt: (rng.integers(0, 5, 3), rng.integers(0, 5, 2)), grad=False,
        dtypes=F64),
    Rec("ix_", lambda rng, dt: (np.array([True, False, True]),), static=(0,), grad=False,
        batch=False, dtypes=F64, tag="bool", jax=False, note="JAX's ix_ refuses booleans"),
    Rec("unravel_index", lambda rng, dt: (rng.integers(-12, 12, (2, 3)),),
        kwargs={"shape": (3, 4)}, grad=False, dtypes=F64,
        ref=lambda i, shape: np.unravel_index(np.where(i < 0, i + 12, i), shape),
        note="NumPy rejects negatives; ours count from the end (JAX's do too)"),
    Rec("ravel_multi_index", lambda rng, dt: (np.stack([rng.integers(0, 3, 4),
                                                        rng.integers(0, 5, 4)]),),
        kwargs={"dims": (3, 5)}, grad=False, dtypes=F64),
]

"""Records of array creation and the matrix builders (minigrad/numpy/creation.py)."""

from __future__ import annotations

import numpy as np
from surface import Rec


def normal(*shapes):
    return lambda rng, dt: tuple(rng.standard_normal(s).astype(dt) for s in shapes)


def nothing(rng, dt):
    return ()


RECORDS = [
    *[Rec(n, normal((3, 4)), kwargs={"k": k}, tag=f"k{k}") for n in ("tril", "triu")
      for k in (0, 1, -2)],
    Rec("tril", normal((2, 3, 3)), tag="batched"),
    Rec("diag", normal((3,))),
    Rec("diag", normal((3,)), kwargs={"k": -2}, tag="vector-k-2"),
    Rec("diag", normal((3, 4)), kwargs={"k": 1}, tag="matrix-k1"),
    Rec("diagonal", normal((3, 4))),
    Rec("diagonal", normal((2, 3, 4)), kwargs={"offset": -1, "axis1": 2, "axis2": 1},
        tag="axes"),
    Rec("trace", normal((3, 4)), kwargs={"offset": 1}),
    Rec("trace", normal((2, 3, 3)), kwargs={"axis1": 1, "axis2": 2}, tag="batched"),
    Rec("linspace", normal((), ()), kwargs={"num": 5}),
    Rec("linspace", normal((2,), (2,)), kwargs={"num": 4, "endpoint": False, "axis": 1},
        tag="arrays"),
    Rec("logspace", normal((), ()), kwargs={"num": 4}),
    Rec("meshgrid", normal((3,), (2,))),
    Rec("meshgrid", normal((3,), (2,), (4,)), kwargs={"indexing": "ij"}, tag="ij"),
    Rec("meshgrid", normal((3,), (2,), (4,)), tag="xy3"),
    Rec("full_like", normal((2, 3)), kwargs={"fill_value": 2.5}, grad=False),
    Rec("zeros_like", normal((2, 3)), grad=False),
    Rec("ones_like", normal((2, 3)), kwargs={"dtype": np.int32}, grad=False, tag="int32"),
    Rec("eye", nothing, kwargs={"N": 3, "M": 4, "k": 1}, grad=False, batch=False),
    Rec("identity", nothing, kwargs={"n": 3}, grad=False, batch=False),
    Rec("tri", nothing, kwargs={"N": 3, "M": 5, "k": -1}, grad=False, batch=False, jax=False,
        note="jnp.tri defaults to float32 even with x64 on; NumPy (and minigrad) to float64"),
    Rec("arange", nothing, kwargs={"start": 2, "stop": 11, "step": 3}, grad=False, batch=False),
    Rec("zeros", nothing, kwargs={"shape": (2, 3)}, grad=False, batch=False),
    Rec("full", nothing, kwargs={"shape": 3, "fill_value": 7}, grad=False, batch=False),
    Rec("array", normal((2, 3))),
    Rec("asarray", normal((2, 3))),
    Rec("copy", normal((2, 3))),
]
def to(dtype):
    return lambda rng, dt: (rng.standard_normal((2, 3)).astype(dt), np.dtype(dtype))


RECORDS += [
    Rec("astype", to(np.float32), static=(1,), ref=lambda x, dtype: x.astype(dtype),
        tag="to-float32"),
    Rec("astype", to(np.int32), static=(1,), ref=lambda x, dtype: x.astype(dtype), grad=False,
        tag="to-int32"),
]
RECORDS += [
    Rec("empty_like", normal((2, 3)), grad=False, ref=lambda x: np.zeros_like(x),
        note="minigrad's empty_like is zeros_like (no uninitialized memory)"),
]

"""Records of minigrad.lax's reductions, cumulative reductions and sorts
(minigrad/lax/reductions.py), compared with jax.lax (NumPy has no twin)."""

from __future__ import annotations

import numpy as np
from surface import Rec

NAN, INF = np.nan, np.inf
I32, BOOL = np.dtype(np.int32), np.dtype(bool)


def normal(*shapes):
    return lambda rng, dt: tuple(rng.standard_normal(s).astype(dt) for s in shapes)


def away_from_zero(shape):
    return lambda rng, dt: ((rng.choice([-1.0, 1.0], shape) * rng.uniform(0.5, 1.5, shape))
                            .astype(dt),)


TIES = (np.array([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, NAN, 2.0], [-INF, 0.0, INF, 0.0]]),)

RECORDS = [
    *[Rec(f"lax.{n}", normal((3, 4)), kwargs={"axes": (1,)}, ref=None, edges=(TIES,))
      for n in ("reduce_sum", "reduce_max", "reduce_min")],
    Rec("lax.reduce_prod", away_from_zero((3, 4)), kwargs={"axes": (0, 1)}, ref=None,
        edges=((np.array([[2.0, 0.0], [0.0, 3.0]]),),)),
    *[Rec(f"lax.{n}", lambda rng, dt: (rng.random((3, 4)) < 0.5,), kwargs={"axes": (0,)},
          ref=None, dtypes=(BOOL,), grad=False) for n in ("reduce_and", "reduce_or")],
    *[Rec(f"lax.{n}", normal((3, 4)), kwargs={"axis": 1, "index_dtype": np.int32}, ref=None,
          grad=False, edges=(TIES,)) for n in ("argmax", "argmin")],
    *[Rec(f"lax.{n}", normal((3, 4)), kwargs=kw, tag=tag, ref=None,
          edges=(TIES,) if n in ("cummax", "cummin") else ())
      for n in ("cumsum", "cummax", "cummin", "cumlogsumexp")
      for tag, kw in [("", {}), ("reverse", {"axis": 1, "reverse": True})]],
    Rec("lax.cumprod", away_from_zero((3, 4)), kwargs={"axis": 1}, ref=None,
        edges=((np.array([[2.0, 0.0, 3.0, 0.0]]),),)),
    Rec("lax.sort", normal((3, 4)), kwargs={"dimension": 0}, ref=None, edges=(TIES,)),
    Rec("lax.sort_key_val", normal((3, 4), (3, 4)), ref=None),
    Rec("lax.top_k", normal((3, 5)), kwargs={"k": 2}, ref=None, grad=False,
        note="(values, indices): the harness differentiates float results only; the values "
        "are lax.sort's, whose derivatives lax.sort's records check"),
]

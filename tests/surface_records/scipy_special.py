"""Records of minigrad.scipy.special (minigrad/scipy/special.py, _ndtr.py), compared with
SciPy (eager) and jax.scipy.special (values and gradients, drawn and at the edges).

Draws stay inside each function's smooth domain (probabilities in (0.05, 0.95), positive
arguments for gammaln and digamma away from the poles). The edges are where JAX's own rules
decide: ``xlogy(0, 0)`` and ``xlog1py(0, -1)`` (0, with JAX's derivative), ``log_ndtr`` in both
far tails and across its segment ends, ``ndtri`` at 0 and 1 (``-inf`` and ``inf``, gradient
0 through JAX's formula), ``logit`` at 0 and 1, ``entr`` at 0 and below.
"""

from __future__ import annotations

import numpy as np
from surface import F64, Rec

NAN, INF = np.nan, np.inf


def normal(*shapes, scale=1.0):
    return lambda rng, dt: tuple((scale * rng.standard_normal(s)).astype(dt) for s in shapes)


def uniform(lo, hi, *shapes):
    return lambda rng, dt: tuple(rng.uniform(lo, hi, s).astype(dt) for s in shapes)


def edge(*arrays):
    return tuple(np.asarray(a, float) for a in arrays)


S = (3, 4)
RECORDS = [
    Rec("scipy.special.erf", normal(S), edges=(edge([0.0, -0.3, 3.0, 6.0, -30.0, INF]),)),
    Rec("scipy.special.erfc", normal(S), edges=(edge([0.0, -0.3, 3.0, 10.0, 27.0, -6.0]),)),
    Rec("scipy.special.erfinv", uniform(-0.95, 0.95, S),
        edges=(edge([0.0, 0.999, -0.9999999, 1e-8]), edge([1.0, -1.0, 1.5])),
        note="XLA's erf_inv kernel: JAX's values; SciPy's differ by about 1e-15 relative"),
    Rec("scipy.special.gammaln", uniform(0.1, 12.0, S),
        edges=(edge([0.5, 1.0, 2.0, 100.0, 1e-5]), edge([-0.5, -2.5, 1e10]))),
    Rec("scipy.special.digamma", uniform(0.1, 12.0, S),
        edges=(edge([0.5, 1.0, 2.0, 100.0, 1e-3, -0.5, -2.5]),)),
    *[Rec(f"scipy.special.{n}", lambda rng, dt: (rng.uniform(0.3, 5.0, S).astype(dt),
                                                 rng.uniform(0.05, 8.0, S).astype(dt)),
          tol=1e-9, dtypes=F64,
          edges=(edge([1.0, 2.0, 0.5, 3.0, 100.0, 30.0], [0.0, 1e-3, 40.0, 3.0, 90.0, 60.0]),))
      for n in ("gammainc", "gammaincc")],
    *[Rec(f"scipy.special.{n}", lambda rng, dt: (rng.uniform(0.3, 5.0, S).astype(dt),
                                                 rng.uniform(0.05, 8.0, S).astype(dt)),
          tag="f32", dtypes=(np.dtype(np.float32),), grad=False)
      for n in ("gammainc", "gammaincc")],
    Rec("scipy.special.expit", normal(S, scale=3.0),
        edges=(edge([0.0, 40.0, -40.0, 800.0, -800.0]),)),
    Rec("scipy.special.logit", uniform(0.05, 0.95, S),
        edges=(edge([0.5, 1e-12, 1 - 1e-12]), edge([0.0, 1.0, 1.5]))),
    Rec("scipy.special.xlogy", lambda rng, dt: (rng.standard_normal(S).astype(dt),
                                                rng.uniform(0.2, 3.0, S).astype(dt)),
        edges=(edge([0.0, 0.0, 2.0, 0.0], [0.0, 2.0, 0.0, NAN]),
               edge([0.0, 1.0], [1.0, INF]))),
    Rec("scipy.special.xlog1py", lambda rng, dt: (rng.standard_normal(S).astype(dt),
                                                  rng.uniform(-0.8, 3.0, S).astype(dt)),
        edges=(edge([0.0, 0.0, 2.0, 0.0], [-1.0, 2.0, -1.0, NAN]),)),
    Rec("scipy.special.entr", uniform(0.1, 3.0, S),
        edges=(edge([0.0, 1.0, 1e-300]), edge([-1.0, 2.0]))),
    Rec("scipy.special.ndtr", normal(S, scale=2.0),
        edges=(edge([0.0, 0.5, -0.5, 0.7071, -0.7072, 8.0, -8.0, 37.0, -37.0, -40.0]),)),
    Rec("scipy.special.log_ndtr", normal(S, scale=3.0),
        edges=(edge([0.0, 7.9, 8.0, 8.1, 12.0, 40.0]),
               edge([-19.9, -20.0, -20.1, -40.0, -1e3, -1e5]),
               edge([INF, -INF])),
        note="SciPy's own series: 1e-10 agreement in the far left tail"),
    Rec("scipy.special.log_ndtr", normal(S, scale=3.0), kwargs={"series_order": 5},
        tag="order5", dtypes=F64, ref=None, edges=(edge([-25.0, -40.0, -100.0]),)),
    Rec("scipy.special.ndtri", uniform(0.02, 0.98, S),
        edges=(edge([0.5, 0.1, 0.9, 0.135, 0.1353352832366127, 0.8646647167633873]),
               edge([1e-20, 1e-100, 1e-300, 1 - 1e-12]),
               edge([0.0, 1.0, -0.5, 1.5]))),
    *[Rec(f"scipy.special.{n}", normal(S), kwargs=kw, tag=tag)
      for n in ("softmax", "log_softmax")
      for tag, kw in [("", {}), ("axis1", {"axis": 1}), ("axes", {"axis": (0, 1)})]],
]

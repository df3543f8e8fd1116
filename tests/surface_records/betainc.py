"""Records of the regularized incomplete beta by name (``scipy.special.betainc``,
``lax.betainc``) and of the beta distribution's cdf family (``scipy.stats.beta``'s ``cdf``,
``logcdf``, ``sf``, ``logsf``), compared with SciPy (eager) and JAX (values and gradients).

Only ``x`` (and ``loc``, ``scale`` for the distribution) is differentiated: JAX defines no
derivative in the shapes ``a`` and ``b`` (minigrad raises there too: tests/test_betainc.py).
Draws put ``x`` on both sides of the impl's branch point ``(a+1)/(a+b+2)``. The edges: ``x``
at 0 and 1 and outside [0, 1], ``a`` or ``b`` at 0, infinite or negative, NaN; for the
distribution, points at and beyond ``loc`` and ``loc + scale`` (JAX's clamp: gradient 0).
"""

from __future__ import annotations

import importlib

import numpy as np
from surface import F64, Rec

NAN, INF = np.nan, np.inf
S = (3, 4)
F32 = (np.dtype(np.float32),)


def edge(*arrays):
    return tuple(np.asarray(a, float) for a in arrays)


def shapes_and_x(rng, dt):
    a = rng.uniform(0.3, 6.0, S)
    b = rng.uniform(0.3, 6.0, S)
    x = rng.uniform(0.02, 0.98, S)
    return a.astype(dt), b.astype(dt), x.astype(dt)


# x: ends and outside; a, b: degenerate (0, inf), negative, NaN. The gradient in x is JAX's
# formula's everywhere (NaN or inf where 0 * log 0 or 0^(negative) appears).
EDGES = (
    edge([2.0, 2.0, 0.5, 0.5, 2.0, 2.0, 1.0, 3.0], [3.0, 3.0, 0.5, 0.5, 3.0, 3.0, 1.0, 0.2],
         [0.0, 1.0, 0.0, 1.0, -0.1, 1.1, 0.5, 0.999]),
    edge([0.0, 0.0, 0.0, INF, INF, 2.0, 2.0, -1.0, NAN, 2.0],
         [1.0, 1.0, 0.0, 1.0, 1.0, INF, 0.0, 1.0, 2.0, 2.0],
         [0.0, 0.5, 0.5, 1.0, 0.5, 0.3, 1.0, 0.5, 0.5, NAN]),
)


def stats_ref(fn):
    def ref(*args):
        return getattr(importlib.import_module("scipy.stats").beta, fn)(*args)
    return ref


def dist_draw(rng, dt, lo=-0.1, hi=1.1):
    x = rng.uniform(lo, hi, (3, 4))  # partly outside [loc, loc + scale]
    a = rng.uniform(0.5, 4.0, (4,))
    b = rng.uniform(0.5, 4.0, (3, 1))
    loc = 0.05 * rng.standard_normal((4,))
    scale = rng.uniform(0.8, 1.2, (3, 1))
    return tuple(v.astype(dt) for v in (x, a, b, loc, scale))


DIST_EDGES = (edge([-1.0, 0.0, 1e-3, 0.5, 0.999, 1.0, 2.0, NAN], 2.5, 0.7, 0.0, 1.0),
              edge([-0.2, 0.3, 1.3, 1.5], [2.0, 0.5, 2.0, 3.0], [2.0, 2.0, 0.5, 1.0], -0.2,
                   1.5))

RECORDS = [
    # (tol: the finite differences' too)
    *[Rec(f"{where}.betainc", shapes_and_x, diff=(2,), dtypes=F64, tol=1e-9, edges=EDGES,
          ref="auto" if where == "scipy.special" else None)
      for where in ("scipy.special", "lax")],
    # minigrad computes in float64 and rounds once (the float64 result of the float32
    # operands, rounded); SciPy's and JAX's float32 kernels compute in float32, about 1e-5
    # relative away here
    *[Rec(f"{where}.betainc", shapes_and_x, diff=(2,), dtypes=F32, tag="f32", grad=False,
          tol=3e-5, ref="auto" if where == "scipy.special" else None)
      for where in ("scipy.special", "lax")],
    *[Rec(f"scipy.stats.beta.{fn}", dist_draw, diff=(0, 3, 4), dtypes=F64, tol=1e-9,
          ref=stats_ref(fn), ref_dtype=False, edges=DIST_EDGES)
      for fn in ("cdf", "sf")],
    # (inside the support: the logs are -inf outside, where finite differences are NaN; the
    # edges go outside)
    *[Rec(f"scipy.stats.beta.{fn}", lambda rng, dt: dist_draw(rng, dt, 0.1, 0.8), diff=(0, 3, 4),
          dtypes=F64, tol=1e-9, ref=stats_ref(fn), ref_dtype=False, edges=DIST_EDGES)
      for fn in ("logcdf", "logsf")],
    *[Rec(f"scipy.stats.beta.{fn}", dist_draw, dtypes=F32, tag="f32", grad=False, tol=3e-5,
          ref=stats_ref(fn), ref_dtype=False)
      for fn in ("cdf", "sf")],
]

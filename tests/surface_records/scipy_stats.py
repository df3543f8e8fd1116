"""Records of minigrad.scipy.stats (minigrad/scipy/stats/), compared with scipy.stats (eager)
and jax.scipy.stats (values and gradients, drawn and at the edges).

Arguments are drawn inside each distribution's support and broadcast against each other
(``x`` of shape (3, 4), ``loc`` (4,), ``scale`` (3, 1)), so every combination of batched
operands is also a broadcasting test. Discrete arguments (``k``) are not differentiated.
The edges: the normal's far tails (``logcdf`` at -40, ``sf`` at 40), quantiles at 0 and 1,
points outside a support (``-inf`` log-densities with JAX's gradient), ``p = 0`` and ``p = 1``.
"""

from __future__ import annotations

import importlib

import numpy as np
from surface import F64, Rec

NAN, INF = np.nan, np.inf
X, LOC, SCALE = (3, 4), (4,), (3, 1)


def scipy_ref(path):
    """``scipy.stats.<dist>.<fn>``, imported when the test runs."""
    dist, fn = path.split(".")

    def ref(*args, **kwargs):
        return getattr(getattr(importlib.import_module("scipy.stats"), dist), fn)(*args,
                                                                                **kwargs)
    return ref


def draw(*specs):
    """Each spec ``(lo, hi, shape)`` a uniform draw, or ``("n", scale, shape)`` a normal."""
    def make(rng, dt):
        out = []
        for a, b, shape in specs:
            if a == "n":
                out.append((b * rng.standard_normal(shape)).astype(dt))
            elif a == "i":
                out.append(rng.integers(0, b, shape).astype(dt))
            else:
                out.append(rng.uniform(a, b, shape).astype(dt))
        return tuple(out)
    return make


def rec(path, args, **kw):
    kw.setdefault("ref", scipy_ref(path))
    return Rec(f"scipy.stats.{path}", args, ref_dtype=False, **kw)


def edge(*arrays):
    return tuple(np.asarray(a, float) for a in arrays)


LOC_SCALE = draw(("n", 2.0, X), ("n", 1.0, LOC), (0.5, 2.0, SCALE))
QUANTILE = draw((0.02, 0.98, X), ("n", 1.0, LOC), (0.5, 2.0, SCALE))

RECORDS = [
    # norm
    *[rec(f"norm.{fn}", LOC_SCALE) for fn in ("logpdf", "pdf", "cdf", "sf")],
    rec("norm.logcdf", LOC_SCALE, edges=(edge([-40.0, -20.5, 0.0, 9.0, 40.0], 0.0, 1.0),)),
    rec("norm.logsf", LOC_SCALE, edges=(edge([40.0, 20.5, 0.0, -9.0, -40.0], 0.0, 1.0),)),
    rec("norm.ppf", QUANTILE, jax_dtype=True,
        edges=(edge([0.0, 1.0, 1e-300, 0.5, 1 - 1e-12], 0.5, 2.0),)),
    rec("norm.isf", QUANTILE, edges=(edge([0.0, 1.0, 1e-300, 0.5], 0.5, 2.0),)),
    Rec("scipy.stats.norm.logpdf", draw(("n", 1.0, X)), tag="x-only", ref_dtype=False,
        ref=scipy_ref("norm.logpdf")),
    # multivariate_normal
    rec("multivariate_normal.logpdf", lambda rng, dt: (
        rng.standard_normal((5, 3)).astype(dt), rng.standard_normal(3).astype(dt),
        _spd(rng, (), 3).astype(dt))),
    rec("multivariate_normal.pdf", lambda rng, dt: (
        rng.standard_normal((5, 3)).astype(dt), rng.standard_normal(3).astype(dt),
        _spd(rng, (), 3).astype(dt))),
    Rec("scipy.stats.multivariate_normal.logpdf", lambda rng, dt: (
        rng.standard_normal((2, 1, 3)).astype(dt), rng.standard_normal((4, 3)).astype(dt),
        _spd(rng, (4,), 3).astype(dt)), tag="batched-cov", ref=None,
        note="SciPy takes one covariance; JAX (and minigrad) broadcast a stack"),
    Rec("scipy.stats.multivariate_normal.logpdf", lambda rng, dt: (
        rng.standard_normal((5, 3)).astype(dt), rng.standard_normal(3).astype(dt),
        rng.uniform(0.5, 2.0, ()).astype(dt)), tag="scalar-cov", ref=None),
    rec("multivariate_normal.logpdf", lambda rng, dt: (
        rng.standard_normal(6).astype(dt), rng.standard_normal(()).astype(dt),
        rng.uniform(0.5, 2.0, ()).astype(dt)), tag="scalar-mean"),
    # bernoulli, poisson (k is discrete: not differentiated)
    *[rec(f"bernoulli.{fn}", draw(("i", 2, X), (0.05, 0.95, LOC)), diff=(1,),
          edges=(edge([0.0, 1.0, 0.0, 1.0, 2.0, -1.0], [0.0, 1.0, 1.0, 0.0, 0.5, 0.5]),))
      for fn in ("logpmf", "pmf")],
    rec("bernoulli.cdf", draw((-0.5, 1.5, X), (0.05, 0.95, LOC)), diff=(1,),
        edges=(edge([-1.0, 0.0, 0.5, 1.0, NAN], [0.5, 0.5, 1.5, 0.5, 0.5]),)),
    rec("bernoulli.ppf", draw((0.0, 1.0, X), (0.05, 0.95, LOC)), grad=False,
        edges=(edge([0.0, 0.5, 1.0, 1.5, 0.5], [0.5, 0.5, 0.5, 0.5, -0.1]),)),
    *[rec(f"poisson.{fn}", draw(("i", 8, X), (0.5, 5.0, LOC)), diff=(1,),
          edges=(edge([0.0, 1.0, -1.0, 2.5, 0.0], [0.0, 0.0, 1.0, 1.0, 3.0]),))
      for fn in ("logpmf", "pmf")],
    # beta, gamma, t
    # (betaln as three gammaln: JAX's own algorithm agrees to about 1e-13 in float64, 1e-6
    # in float32; the finite differences of the a, b derivatives to about 1e-9)
    *[rec(f"beta.{fn}", draw((0.05, 0.95, X), (0.5, 3.0, LOC), (0.5, 3.0, SCALE)),
          dtypes=F64, tol=1e-8,
          edges=(edge([0.0, 1.0, -0.5, 1.5, 0.5], [2.0, 2.0, 2.0, 2.0, 1.0],
                      [2.0, 2.0, 2.0, 2.0, 1.0]),))
      for fn in ("logpdf", "pdf")],
    # a non-positive shape: NaN as JAX; JAX's betaln makes every gradient NaN there, ours
    # keeps the b-derivative finite (docs/divergences.md)
    rec("beta.logpdf", lambda rng, dt: edge([0.5, 0.5], [-1.0, 2.0], [2.0, 0.0]),
        tag="invalid", dtypes=F64, jax_grad=False, grad=False, batch=False),
    *[rec(f"beta.{fn}", draw((0.05, 0.95, X), (0.5, 3.0, LOC), (0.5, 3.0, SCALE)),
          tag="f32", dtypes=(np.dtype(np.float32),), grad=False)
      for fn in ("logpdf", "pdf")],
    *[rec(f"gamma.{fn}", draw((0.1, 5.0, X), (0.5, 3.0, LOC)), dtypes=F64,
          edges=(edge([0.0, -1.0, 2.0], [2.0, 2.0, 1.0]),))
      for fn in ("logpdf", "pdf")],
    *[rec(f"gamma.{fn}", draw((0.1, 5.0, X), (0.5, 3.0, LOC)), tag="f32",
          dtypes=(np.dtype(np.float32),), tol=1e-4, grad=False)
      for fn in ("logpdf", "pdf")],
    # the gamma distribution's cdf family, through the incomplete gamma (derivative in a too)
    *[rec(f"gamma.{fn}", draw((0.1, 6.0, X), (0.5, 3.0, LOC), ("n", 0.05, LOC),
                              (0.8, 1.5, SCALE)), dtypes=F64, tol=1e-9,
          edges=(edge([-1.0, 0.0, 1e-3, 50.0], [2.0, 2.0, 2.0, 2.0], 0.0, 1.0),))
      for fn in ("cdf", "sf", "logcdf", "logsf")],
    *[rec(f"gamma.{fn}", draw((0.1, 6.0, X), (0.5, 3.0, LOC)), tag="f32",
          dtypes=(np.dtype(np.float32),), grad=False)
      for fn in ("cdf", "sf")],
    rec("poisson.cdf", draw(("i", 8, X), (0.5, 5.0, LOC)), diff=(1,), tol=1e-9, dtypes=F64,
        edges=(edge([-1.0, 0.0, 2.5, 30.0], [1.0, 1.0, 1.0, 1.0]),)),
    *[rec(f"t.{fn}", draw(("n", 2.0, X), (1.0, 10.0, LOC), ("n", 1.0, LOC),
                          (0.5, 2.0, SCALE)))
      for fn in ("logpdf", "pdf")],
    # uniform, expon, cauchy, logistic, laplace
    *[rec(f"uniform.{fn}", draw((0.1, 0.9, X), (-0.05, 0.05, LOC), (1.0, 1.5, SCALE)),
          edges=(edge([-1.0, 0.0, 0.5, 1.0, 2.0], 0.0, 1.0),))
      for fn in ("logpdf", "pdf", "cdf")],
    rec("uniform.ppf", QUANTILE, edges=(edge([-0.5, 0.0, 1.0, 1.5, NAN], 0.0, 2.0),)),
    *[rec(f"expon.{fn}", draw((0.1, 5.0, X), (-1.0, 0.0, LOC), (0.5, 2.0, SCALE)),
          edges=(edge([-1.0, 0.0, 0.5, 40.0], 0.0, 1.0),))
      for fn in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")],
    rec("expon.ppf", QUANTILE, edges=(edge([-0.5, 0.0, 1.0, 1.5], 0.0, 2.0),)),
    *[rec(f"cauchy.{fn}", LOC_SCALE) for fn in ("logpdf", "pdf", "cdf", "logcdf", "sf",
                                                "logsf")],
    *[rec(f"cauchy.{fn}", QUANTILE) for fn in ("ppf", "isf")],
    *[rec(f"logistic.{fn}", LOC_SCALE, edges=(edge([-800.0, 0.0, 800.0], 0.0, 1.0),))
      for fn in ("logpdf", "pdf", "cdf", "sf")],
    *[rec(f"logistic.{fn}", QUANTILE, edges=(edge([0.0, 0.5, 1.0], 0.0, 1.0),))
      for fn in ("ppf", "isf")],
    *[rec(f"laplace.{fn}", LOC_SCALE) for fn in ("logpdf", "pdf", "cdf")],
]


def _spd(rng, batch, n):
    a = rng.standard_normal((*batch, n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)

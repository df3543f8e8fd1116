"""Op record of the regularized incomplete beta primitive (``ops/betainc.py``), against an
independent reference written as a plain Python sum: the hypergeometric series of DLMF
8.17.8, ``I_x(a, b) = x^a (1-x)^b / (a B(a, b)) sum_n (a+b)_n / (a+1)_n x^n``, summed to
convergence for ``x <= 1/2`` and through ``1 - I_(1-x)(b, a)`` above (a different
expansion from the impl's continued fraction). Only ``x`` is differentiable (JAX defines no
derivative in ``a`` or ``b``; the JVP raises for them). Draws cover both of the impl's
branches (``x`` below and above ``(a+1)/(a+b+2)``).
"""

from __future__ import annotations

import math

import numpy as np

from minigrad.ops import betainc as bi
from minigrad.testing.samples import BOTH, OpRecord


def _series(a: float, b: float, x: float) -> float:
    if x > 0.5:
        return 1.0 - _series(b, a, 1.0 - x)
    term = total = 1.0
    n = 0
    while abs(term) > 1e-17 * abs(total):
        term *= (a + b + n) * x / (a + 1 + n)
        total += term
        n += 1
    log_front = (a * math.log(x) + b * math.log1p(-x) - math.log(a)
                 - (math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)))
    return math.exp(log_front) * total


def ref_betainc(a: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
    flat = np.broadcast_arrays(*[np.asarray(v, np.float64) for v in (a, b, x)])
    out = np.array([_series(*vals) for vals in zip(*[f.ravel() for f in flat], strict=True)])
    return out.reshape(flat[0].shape).astype(np.asarray(a).dtype)


def _beta_draw(rng: np.random.Generator, dt: np.dtype) -> tuple:
    a = rng.uniform(0.5, 5.0, (2, 3))
    b = rng.uniform(0.5, 5.0, (2, 3))
    mode = (a + 1) / (a + b + 2)  # the impl's branch point
    x = mode * np.array([[0.3, 0.8, 1.3], [0.5, 1.1, 1.6]])  # on both sides of it
    return a.astype(dt), b.astype(dt), np.clip(x, 0.02, 0.98).astype(dt)


RECORDS = [
    OpRecord(bi.regularized_incomplete_beta_p, "abx", _beta_draw, ref_betainc, diff=(2,),
             dtypes=BOTH, tol=1e-11),
]

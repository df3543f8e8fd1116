"""Op records of the incomplete gamma primitives (``ops/incomplete.py``), against
independent references written as plain Python sums: ``P(a, x)`` by its power series to
convergence (whatever branch the impl takes), and ``d^k P / da^k`` by central differences of
that reference (hence the looser tolerances). Draws cover both of the impl's branches (``x``
below and above ``a``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad.ops import incomplete as ic
from minigrad.testing.samples import BOTH, OpRecord


def _p_series(a: float, x: float) -> float:
    if x == 0:
        return 0.0
    term = total = 1.0
    n = 0
    while abs(term) > 1e-17 * abs(total):
        n += 1
        term *= x / (a + n)
        total += term
    return total * math.exp(a * math.log(x) - x - math.lgamma(a + 1))


def _each(fn: Any, *xs: np.ndarray) -> np.ndarray:
    flat = np.broadcast_arrays(*[np.asarray(x, np.float64) for x in xs])
    out = np.array([fn(*vals) for vals in zip(*[f.ravel() for f in flat], strict=True)])
    return out.reshape(flat[0].shape).astype(np.asarray(xs[0]).dtype)


def ref_igamma(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    return _each(_p_series, a, x)


def ref_igammac(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    return _each(lambda u, v: 1.0 - _p_series(u, v), a, x)


def ref_igamma_da(a: np.ndarray, x: np.ndarray, *, order: int) -> np.ndarray:
    h = 1e-5 if order == 1 else 1e-4
    if order == 1:
        return _each(lambda u, v: (_p_series(u + h, v) - _p_series(u - h, v)) / (2 * h), a, x)
    return _each(lambda u, v: (_p_series(u + h, v) - 2 * _p_series(u, v)
                               + _p_series(u - h, v)) / (h * h), a, x)


def _gamma_draw(rng: np.random.Generator, dt: np.dtype) -> tuple:
    a = rng.uniform(0.5, 4.0, (2, 3))
    x = a * np.array([[0.3, 0.8, 1.5], [2.5, 0.5, 1.2]])  # below and above a
    return a.astype(dt), x.astype(dt)


RECORDS = [
    OpRecord(ic.igamma_p, "ax", _gamma_draw, ref_igamma, diff=(0, 1), dtypes=BOTH, tol=1e-11),
    OpRecord(ic.igammac_p, "ax", _gamma_draw, ref_igammac, diff=(0, 1), dtypes=BOTH,
             tol=1e-11),
    OpRecord(ic.igamma_da_p, "order1", _gamma_draw, ref_igamma_da, {"order": 1}, diff=(0, 1),
             tol=1e-8),
    OpRecord(ic.igamma_da_p, "order2", _gamma_draw, ref_igamma_da, {"order": 2}, diff=(0, 1),
             tol=1e-5),
]

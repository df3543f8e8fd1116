"""Records of the elementwise functions (minigrad/numpy/ufuncs.py)."""

from __future__ import annotations

import numpy as np
from surface import Rec


def normal(*shapes):
    return lambda rng, dt: tuple(rng.standard_normal(s).astype(dt) for s in shapes)


def positive(*shapes):
    return lambda rng, dt: tuple(rng.uniform(0.5, 2.0, s).astype(dt) for s in shapes)


def ints(*shapes):
    return lambda rng, dt: tuple(rng.integers(-5, 6, s).astype(dt) for s in shapes)


UNARY = ["negative", "exp", "sin", "cos", "tanh", "square"]
BINARY = ["add", "subtract", "multiply", "maximum", "minimum"]

RECORDS = [
    *[Rec(n, normal((2, 3))) for n in UNARY],
    *[Rec(n, positive((2, 3))) for n in ("log", "sqrt")],
    *[Rec(n, normal((2, 3), (2, 3))) for n in BINARY],
    *[Rec(n, normal((2, 3), (3,)), tag="broadcast") for n in BINARY],
    Rec("divide", lambda rng, dt: (rng.standard_normal((2, 3)).astype(dt),
                                   rng.uniform(0.5, 2, (3,)).astype(dt))),
    Rec("power", lambda rng, dt: (rng.uniform(0.5, 2, (2, 3)).astype(dt),
                                  rng.standard_normal((2, 3)).astype(dt))),
    Rec("where", lambda rng, dt: (rng.standard_normal((2, 3)) > 0,
                                  rng.standard_normal((2, 3)).astype(dt),
                                  rng.standard_normal((3,)).astype(dt))),
    Rec("maximum", lambda rng, dt: (np.array([1.0, 2.0, 3.0], dt), np.array([1.0, 0.0, 3.0], dt)),
        tag="ties", edges=((np.array([1.0, 2.0]), np.array([1.0, 2.0])),)),
    *[Rec(n, normal((2, 3), (2, 3)), grad=False) for n in
      ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal")],
    *[Rec(n, ints((2, 3), (3,)), dtypes=(np.dtype(np.int32), np.dtype(np.int64)), grad=False,
          tag="int") for n in ("add", "subtract", "multiply", "maximum", "minimum")],
]

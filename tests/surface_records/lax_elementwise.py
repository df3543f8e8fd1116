"""Records of minigrad.lax's elementwise functions by name (minigrad/lax/lax_ops.py), compared
with jax.lax (NumPy has no twin): values and gradients at drawn points and at edges (ties,
halves, signed zeros, NaN, zero divisors)."""

from __future__ import annotations

import numpy as np
from surface import FLOATS, Rec

NAN, INF = np.nan, np.inf
I32, I64, U8, BOOL = (np.dtype(t) for t in (np.int32, np.int64, np.uint8, bool))
INT_DTYPES = (I32, I64)


def normal(*shapes):
    return lambda rng, dt: tuple(rng.standard_normal(s).astype(dt) for s in shapes)


def uniform(lo, hi, *shapes):
    return lambda rng, dt: tuple(rng.uniform(lo, hi, s).astype(dt) for s in shapes)


def away_from_zero(*shapes):
    return lambda rng, dt: tuple((rng.choice([-1.0, 1.0], s) * rng.uniform(0.5, 2.0, s))
                                 .astype(dt) for s in shapes)


def integers(lo, hi, *shapes):
    return lambda rng, dt: tuple(rng.integers(lo, hi, s).astype(dt) for s in shapes)


S = (3, 4)
EDGE_VALUES = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, INF, -INF, NAN])

UNARY = {  # name: (draw, edges)
    "neg": (normal(S), ((EDGE_VALUES,),)), "exp": (normal(S), ()), "exp2": (normal(S), ()),
    "expm1": (normal(S), ()), "log": (uniform(0.2, 3, S), ()),
    "log1p": (uniform(-0.5, 3, S), ()), "sqrt": (uniform(0.2, 3, S), ()),
    "rsqrt": (uniform(0.2, 3, S), ()), "cbrt": (away_from_zero(S), ()), "sin": (normal(S), ()),
    "cos": (normal(S), ()), "tan": (uniform(-1.2, 1.2, S), ()),
    "asin": (uniform(-0.9, 0.9, S), ()), "acos": (uniform(-0.9, 0.9, S), ()),
    "atan": (normal(S), ()), "sinh": (normal(S), ()), "cosh": (normal(S), ()),
    "tanh": (normal(S), ()), "asinh": (normal(S), ()), "acosh": (uniform(1.2, 4, S), ()),
    "atanh": (uniform(-0.9, 0.9, S), ()), "logistic": (normal(S), ()),
    "erf": (normal(S), ()), "erfc": (normal(S), ()), "erf_inv": (uniform(-0.9, 0.9, S), ()),
    "lgamma": (uniform(0.3, 6, S), ()), "digamma": (uniform(0.3, 6, S), ()),
    "abs": (away_from_zero(S), ()),
}
PIECEWISE = ("sign", "floor", "ceil")  # zero derivative almost everywhere: values only
BINARY = {
    "add": normal(S, S), "sub": normal(S, S), "mul": normal(S, S), "div": away_from_zero(S, S),
    "atan2": normal(S, S), "max": normal(S, S), "min": normal(S, S),
}
TIES = (np.array([1.0, 2.0, -0.0, 0.0, NAN, 3.0]), np.array([1.0, 1.0, 0.0, -0.0, 1.0, NAN]))
COMPARISONS = ("eq", "ne", "lt", "le", "gt", "ge")

RECORDS = [
    *[Rec(f"lax.{n}", draw, ref=None, edges=edges) for n, (draw, edges) in UNARY.items()],
    *[Rec(f"lax.{n}", normal(S), ref=None, grad=False, edges=((EDGE_VALUES,),))
      for n in PIECEWISE],
    *[Rec(f"lax.{n}", integers(-5, 5, S), tag="int", ref=None, grad=False, dtypes=INT_DTYPES)
      for n in ("neg", "sign", "abs")],
    Rec("lax.round", normal(S), ref=None, grad=False, edges=((EDGE_VALUES,),
        (np.array([0.49999999999999994, -1.5, 1.5, 3.5]),))),
    Rec("lax.round", normal(S), tag="to-even", kwargs={"rounding_method": 1}, ref=None,
        grad=False, edges=((EDGE_VALUES,),)),
    *[Rec(f"lax.{n}", draw, ref=None, edges=(TIES,) if n in ("max", "min") else ())
      for n, draw in BINARY.items()],
    Rec("lax.rem", away_from_zero(S, S), ref=None,
        edges=((np.array([5.5, -5.5, 5.5, -5.5]), np.array([2.0, 2.0, -2.0, -2.0])),)),
    Rec("lax.pow", lambda rng, dt: (rng.uniform(0.5, 2, S).astype(dt),
                                    rng.standard_normal(S).astype(dt)), ref=None),
    Rec("lax.pow", lambda rng, dt: (rng.uniform(0.5, 2, S).astype(dt),
                                    rng.integers(-3, 4, S).astype(np.int32)),
        tag="int-exponent", ref=None),
    *[Rec("lax.integer_pow", normal(S), kwargs={"y": y}, tag=str(y), ref=None)
      for y in (0, 2, 3)],
    Rec("lax.integer_pow", away_from_zero(S), kwargs={"y": -2}, tag="-2", ref=None),
    Rec("lax.nextafter", normal(S, S), ref=None, grad=False, jax_grad=False,
        note="no derivative worth checking: nextafter moves one ulp"),
    *[Rec(f"lax.{n}", integers(-9, 9, S, S), tag="int", ref=None, grad=False,
          dtypes=INT_DTYPES, edges=((np.array([7, -7, 7, -7, 5, -5]),
                                     np.array([2, 2, -2, -2, 0, 0])),))
      for n in ("div", "rem")],
    Rec("lax.div", integers(0, 9, S, S), tag="uint8", ref=None, grad=False, dtypes=(U8,),
        edges=((np.array([7, 5], np.uint8), np.array([2, 0], np.uint8)),)),
    *[Rec(f"lax.{n}", integers(-3, 3, S, S), tag="int", ref=None, grad=False,
          dtypes=INT_DTYPES) for n in ("max", "min", "add", "sub", "mul")],
    *[Rec(f"lax.{n}", normal(S, S), ref=None, grad=False, edges=(TIES,)) for n in COMPARISONS],
    *[Rec(f"lax.{n}", integers(-2, 2, S, S), tag="int", ref=None, grad=False,
          dtypes=INT_DTYPES) for n in COMPARISONS],
    *[Rec(f"lax.bitwise_{n}", integers(-50, 50, S, S), ref=None, grad=False,
          dtypes=(*INT_DTYPES, U8)) for n in ("and", "or", "xor")],
    *[Rec(f"lax.bitwise_{n}", lambda rng, dt: (rng.random(S) < 0.5, rng.random(S) < 0.5),
          tag="bool", ref=None, grad=False, dtypes=(BOOL,)) for n in ("and", "or", "xor")],
    Rec("lax.bitwise_not", integers(-50, 50, S), ref=None, grad=False, dtypes=(*INT_DTYPES, U8)),
    Rec("lax.bitwise_not", lambda rng, dt: (rng.random(S) < 0.5,), tag="bool", ref=None,
        grad=False, dtypes=(BOOL,)),
    Rec("lax.population_count", integers(-100, 100, S), ref=None, grad=False,
        dtypes=(*INT_DTYPES, U8)),
    *[Rec(f"lax.{n}", lambda rng, dt: (rng.integers(-100, 100, S).astype(dt),
                                       rng.integers(0, 8 * dt.itemsize + 2, S).astype(dt)),
          ref=None, grad=False, dtypes=INT_DTYPES)
      for n in ("shift_left", "shift_right_logical", "shift_right_arithmetic")],
]
assert all(set(r.dtypes) <= set(FLOATS) or not r.grad for r in RECORDS)

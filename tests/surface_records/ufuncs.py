"""Records of the elementwise functions (minigrad/numpy/ufuncs.py, division.py, selection.py,
bitwise.py): every function and its array-API spelling, drawn inside its domain and away from
its kinks for the derivative checks, with the kinks, ties, zeros and infinities in ``edges``
(compared with JAX: values and gradients)."""

from __future__ import annotations

import numpy as np
from surface import F64, Rec

INF, NAN = np.inf, np.nan
I8, U8, I32, I64, U32, U64 = (np.dtype(t) for t in ("int8", "uint8", "int32", "int64",
                                                    "uint32", "uint64"))
INTS = (I32, I64)
ALL_INTS = (I8, U8, I32, I64, U32, U64)
BOOL = (np.dtype(bool),)


def normal(*shapes):
    return lambda rng, dt: tuple(rng.standard_normal(s).astype(dt) for s in shapes)


def uniform(lo, hi, *shapes):
    return lambda rng, dt: tuple(rng.uniform(lo, hi, s).astype(dt) for s in shapes)


def off_zero(*shapes):
    return lambda rng, dt: tuple((rng.choice([-1.0, 1.0], s) * rng.uniform(0.3, 2.0, s))
                                 .astype(dt) for s in shapes)


def off_integers(*shapes):
    # k + f with f in [0.1, 0.4] or [0.6, 0.9]: no jump of floor, ceil, trunc or rint nearby
    def draw(rng, dt):
        out = []
        for s in shapes:
            f = rng.uniform(0.1, 0.4, s) + 0.5 * rng.integers(0, 2, s)
            out.append((rng.integers(-3, 3, s) + f).astype(dt))
        return tuple(out)
    return draw


def ints(lo, hi, *shapes):
    return lambda rng, dt: tuple(rng.integers(lo, hi, s).astype(dt) for s in shapes)


def nonzero_ints(*shapes):
    return lambda rng, dt: tuple((rng.choice([-1, 1], s) * rng.integers(1, 6, s)).astype(dt)
                                 for s in shapes)


def specials(*shapes):
    """Normal values with infinities, NaNs and signed zeros mixed in."""
    def draw(rng, dt):
        out = []
        for s in shapes:
            x = rng.standard_normal(s)
            pick = rng.integers(0, 6, s)
            x = np.select([pick == 1, pick == 2, pick == 3, pick == 4],
                          [INF, -INF, NAN, -0.0], x)
            out.append(x.astype(dt))
        return tuple(out)
    return draw


def ratio(rng, dt):
    """(x, y) with x / y away from an integer: floor_divide and remainder are smooth there."""
    y = (rng.choice([-1.0, 1.0], (2, 3)) * rng.uniform(0.5, 2.0, (2, 3)))
    q = rng.integers(-3, 3, (2, 3)) + rng.uniform(0.1, 0.9, (2, 3))
    return (y * q).astype(dt), y.astype(dt)


def a(*values, dtype=np.float64):
    return np.array(values, dtype)


UNARY = ["negative", "positive", "exp", "exp2", "expm1", "sin", "cos", "tan", "arctan", "atan",
         "sinh", "cosh", "tanh", "arcsinh", "asinh", "deg2rad", "rad2deg", "radians", "degrees",
         "square", "rint", "cbrt"]
ROUNDING = ["floor", "ceil", "trunc", "rint", "round", "around"]
POSITIVE = ["log", "log2", "log10", "sqrt"]
BINARY = ["add", "subtract", "multiply", "maximum", "minimum", "fmax", "fmin", "arctan2",
          "atan2", "hypot", "logaddexp", "logaddexp2", "nextafter"]
COMPARISONS = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]
PREDICATES = ["isnan", "isinf", "isfinite", "signbit", "isposinf", "isneginf", "logical_not"]
LOGICAL = ["logical_and", "logical_or", "logical_xor"]
BITWISE = ["bitwise_and", "bitwise_or", "bitwise_xor"]

RECORDS = [
    # ------------------------------------------------------------------- unary
    *[Rec(n, normal((2, 3))) for n in UNARY if n not in ("rint", "cbrt")],
    *[Rec(n, off_integers((2, 3))) for n in ROUNDING],
    *[Rec(n, uniform(0.5, 2.0, (2, 3))) for n in POSITIVE],
    Rec("cbrt", off_zero((2, 3)), edges=((a(0.0, -8.0, 8.0),),)),
    Rec("reciprocal", off_zero((2, 3))),
    *[Rec(n, off_zero((2, 3)), edges=((a(0.0, -0.0, 1.0, -2.0),),))
      for n in ("abs", "absolute", "fabs", "sign")],
    Rec("sqrt", uniform(0.5, 2.0, (3,)), tag="at-zero", edges=((a(0.0, 4.0),),)),
    Rec("log", uniform(0.5, 2.0, (3,)), tag="at-zero", edges=((a(0.0, -1.0, INF),),)),
    Rec("log1p", uniform(-0.5, 2.0, (2, 3)), edges=((a(-1.0, 0.0, -2.0),),)),
    *[Rec(n, uniform(-0.8, 0.8, (2, 3)), edges=((a(1.0, -1.0, 0.0),),))
      for n in ("arcsin", "arccos", "arctanh", "asin", "acos", "atanh")],
    *[Rec(n, uniform(1.2, 3.0, (2, 3)), edges=((a(1.0, 2.0),),)) for n in ("arccosh", "acosh")],
    Rec("sinc", normal((2, 3)), edges=((a(0.0, 0.5, -1.0),),)),
    Rec("around", off_integers((2, 3)), kwargs={"decimals": 1}, tag="decimals=1"),
    Rec("round", lambda rng, dt: ((rng.integers(-50, 50, (2, 3)) + 0.3).astype(dt) * 10,),
        kwargs={"decimals": -1}, tag="decimals=-1"),
    Rec("spacing", normal((2, 3)), edges=((a(0.0, -0.0, 1.0, -1.0, INF, NAN),),), jax_grad=False,
        note="JAX defines no derivative of nextafter; ours is 1 in x, so spacing's is 0"),
    # ------------------------------------------------------------------- predicates
    *[Rec(n, specials((2, 3)), grad=False) for n in PREDICATES],
    *[Rec(n, ints(-3, 4, (2, 3)), dtypes=INTS, grad=False, tag="int")
      for n in ("isnan", "isinf", "isfinite", "signbit", "logical_not", "sign", "abs",
                "negative", "square", "floor", "ceil", "trunc", "round")],
    # ------------------------------------------------------------------- binary
    *[Rec(n, normal((2, 3), (2, 3)), jax_grad=n != "nextafter") for n in BINARY],
    *[Rec(n, normal((2, 3), (3,)), tag="broadcast", jax_grad=n != "nextafter") for n in BINARY],
    Rec("divide", lambda rng, dt: (rng.standard_normal((2, 3)).astype(dt),
                                   rng.uniform(0.5, 2, (3,)).astype(dt))),
    Rec("true_divide", lambda rng, dt: (rng.standard_normal((2, 3)).astype(dt),
                                        rng.uniform(0.5, 2, (2, 3)).astype(dt))),
    *[Rec(n, lambda rng, dt: (rng.uniform(0.5, 2, (2, 3)).astype(dt),
                              rng.standard_normal((2, 3)).astype(dt))) for n in ("power", "pow")],
    Rec("float_power", lambda rng, dt: (rng.uniform(0.5, 2, (2, 3)).astype(dt),
                                        rng.standard_normal((2, 3)).astype(dt)), dtypes=F64),
    # (floor_divide by an infinity follows the array API standard, not NumPy and JAX: -2 // inf
    # is -0.0, theirs -1; tests/test_ufuncs.py checks it)
    *[Rec(n, ratio, edges=((a(5.0, 0.0, -5.0, 5.0, -5.0), a(0.0, 0.0, 0.0, 2.0, 2.0)),
                           (a(5.0, 2.0, -2.0), a(-2.0, INF if n != "floor_divide" else 3.0,
                                                  INF if n != "floor_divide" else 3.0))))
      for n in ("floor_divide", "remainder", "mod", "fmod")],
    Rec("divmod", ratio),
    Rec("copysign", normal((2, 3), (2, 3)), diff=(0,),
        edges=((a(1.0, 0.0, -0.0, 0.0, -1.0, 2.0), a(2.0, -2.0, 2.0, 2.0, -0.0, NAN)),)),
    Rec("heaviside", lambda rng, dt: (off_zero((2, 3))(rng, dt)[0],
                                      rng.standard_normal((2, 3)).astype(dt)),
        edges=((a(0.0, 1.0, -1.0, NAN), a(0.5, 0.5, 0.5, 0.5)),)),
    Rec("ldexp", lambda rng, dt: (rng.standard_normal((2, 3)).astype(dt),
                                  rng.integers(-5, 6, (2, 3))), diff=(0,)),
    Rec("maximum", lambda rng, dt: (a(1.0, 2.0, 3.0, dtype=dt), a(1.0, 0.0, 3.0, dtype=dt)),
        tag="ties", edges=((a(1.0, 2.0, 0.0), a(1.0, 2.0, 0.0)), (a(0.0, NAN), a(0.0, 1.0)))),
    Rec("minimum", lambda rng, dt: (a(1.0, 2.0, 3.0, dtype=dt), a(1.0, 0.0, 3.0, dtype=dt)),
        tag="ties", edges=((a(1.0, -2.0), a(1.0, -2.0)), (a(NAN, 1.0), a(1.0, NAN)))),
    *[Rec(n, normal((2, 3), (2, 3)), tag="ties",
          edges=((a(1.0, NAN, 1.0, NAN), a(1.0, 1.0, NAN, NAN)),)) for n in ("fmax", "fmin")],
    Rec("logaddexp", normal((2, 3), (2, 3)), tag="edges",
        edges=((a(1.0, -INF, INF, INF, -INF, 1.0), a(1.0, -INF, INF, 1.0, 1.0, INF)),)),
    Rec("logaddexp2", normal((2, 3), (2, 3)), tag="edges",
        edges=((a(1.0, -INF, INF, INF, -INF), a(1.0, -INF, INF, 1.0, 1.0)),)),
    Rec("hypot", normal((2, 3), (2, 3)), tag="edges",
        edges=((a(0.0, 3.0, 0.0, 1e150, INF), a(0.0, 4.0, 2.0, 1e150, NAN)),),
        note="at (1e300, 1e300) JAX's gradient is 1.06, not 1/sqrt(2): its division's JVP "
             "squares the divisor (tests/test_ufuncs.py checks ours there)"),
    Rec("arctan2", normal((2, 3), (2, 3)), tag="edges",
        edges=((a(0.0, 1.0, 0.0), a(0.0, 0.0, -1.0)),)),
    # powers at 0 (JAX's measured derivatives): a Python int exponent (integer_pow), a float
    # exponent (unguarded: 0 * inf), an integer exponent array (guarded at 0)
    *[Rec("power", lambda rng, dt, e=e: (rng.uniform(0.5, 2, (3,)).astype(dt), e),
          static=(1,), tag=f"int-exponent{e}", edges=((a(0.0, 1.0, -2.0), e),))
      for e in (0, 1, 2, 3, -1)],
    Rec("power", lambda rng, dt: (rng.uniform(0.5, 2, (3,)).astype(dt), a(0.0, 1.0, 0.5)),
        tag="at-zero", edges=((a(0.0, 0.0, 0.0), a(0.0, 1.0, 0.5)), (a(0.0, 0.0), a(2.0, -1.0)),
                              (a(-1.0, -2.0), a(2.0, 2.0)))),
    Rec("power", lambda rng, dt: (rng.uniform(0.5, 2, (3,)).astype(dt),
                                  np.array([0, 2, -1], np.int8)), tag="int-exponent-array",
        edges=((a(0.0, 0.0, 0.0), np.array([0, 2, -1], np.int8)),)),
    # ------------------------------------------------------------------- selection
    Rec("where", lambda rng, dt: (rng.standard_normal((2, 3)) > 0,
                                  rng.standard_normal((2, 3)).astype(dt),
                                  rng.standard_normal((3,)).astype(dt))),
    Rec("where", lambda rng, dt: (rng.standard_normal((2, 3)), rng.standard_normal((2, 3))
                                  .astype(dt), 0.5), static=(2,), tag="numeric-condition"),
    Rec("clip", normal((2, 3), (2, 3), (2, 3)), tag="arrays", diff=(0,)),
    Rec("clip", normal((2, 3)), kwargs={"min": -0.5, "max": 0.5}, tag="scalars"),
    Rec("clip", lambda rng, dt: (rng.standard_normal((2, 3)).astype(dt), a(-0.5, dtype=dt)[0],
                                 a(0.5, dtype=dt)[0]), tag="bounds",
        edges=((a(1.0, 2.0, 0.0, 3.0), a(1.0, 1.0, 1.0, 2.0), a(2.0, 2.0, 2.0, 1.0)),)),
    Rec("clip", normal((2, 3)), kwargs={"max": 0.0}, tag="max-only"),
    Rec("nan_to_num", specials((2, 3)), edges=((a(1.0, NAN, INF, -INF),),)),
    Rec("nan_to_num", specials((2, 3)), kwargs={"nan": 1.5, "posinf": 9.0, "neginf": -9.0},
        tag="values"),
    Rec("isclose", lambda rng, dt: (a(1.0, 1.0, INF, NAN, 0.0, 1e-9, dtype=dt),
                                    a(1.0 + 1e-9, 1.1, INF, NAN, 1e-9, 0.0, dtype=dt)),
        grad=False),
    Rec("isclose", lambda rng, dt: (a(1.0, NAN, dtype=dt), a(1.0, NAN, dtype=dt)),
        kwargs={"equal_nan": True}, grad=False, tag="equal_nan"),
    *[Rec(n, normal((2, 3))) for n in ("real", "conj", "conjugate")],
    Rec("imag", normal((2, 3)), grad=False),
    # ------------------------------------------------------------------- comparisons, logic
    *[Rec(n, normal((2, 3), (2, 3)), grad=False) for n in COMPARISONS],
    *[Rec(n, normal((2, 3), (3,)), grad=False) for n in LOGICAL],
    *[Rec(n, lambda rng, dt: (rng.random((2, 3)) < 0.5, rng.random((3,)) < 0.5), dtypes=BOOL,
          grad=False, tag="bool") for n in LOGICAL + BITWISE],
    Rec("invert", lambda rng, dt: (rng.random((2, 3)) < 0.5,), dtypes=BOOL, grad=False,
        tag="bool"),
    # ------------------------------------------------------------------- integers
    *[Rec(n, ints(-5, 6, (2, 3), (3,)), dtypes=INTS, grad=False, tag="int")
      for n in ("add", "subtract", "multiply", "maximum", "minimum", "fmax", "fmin",
                "equal", "less")],
    *[Rec(n, lambda rng, dt: (ints(-20, 21, (2, 3))(rng, dt)[0], nonzero_ints((3,))(rng, dt)[0]),
          dtypes=ALL_INTS if n != "divide" else INTS, grad=False, tag="int",
          jax=n != "divide", note="JAX divides int32 in float32")
      for n in ("floor_divide", "remainder", "fmod", "divmod", "divide")],
    Rec("floor_divide", lambda rng, dt: (np.array([7, -7, 0, 5, -5, 3]).astype(dt),
                                         np.array([0, 0, 0, 2, 2, -2]).astype(dt)),
        dtypes=(I8, I32, I64), grad=False, jax=False, tag="by-zero",
        note="x // 0 is 0 as in NumPy (JAX: -1 and -2)"),
    Rec("remainder", lambda rng, dt: (np.array([7, -7, 0, 5]).astype(dt),
                                      np.array([0, 0, 0, -3]).astype(dt)),
        dtypes=(I32, I64), grad=False, tag="by-zero"),
    Rec("power", lambda rng, dt: (ints(-4, 5, (2, 3))(rng, dt)[0], ints(0, 5, (3,))(rng, dt)[0]),
        dtypes=INTS, grad=False, tag="int"),
    Rec("power", lambda rng, dt: (ints(-4, 5, (2, 3))(rng, dt)[0], 3), static=(1,),
        dtypes=ALL_INTS, grad=False, tag="int-scalar"),
    *[Rec(n, ints(-50, 50, (2, 3), (3,)), dtypes=ALL_INTS[:4], grad=False, tag="int")
      for n in BITWISE],
    *[Rec(n, lambda rng, dt: (ints(-50, 50, (2, 3))(rng, dt)[0], ints(0, 10, (3,))(rng, dt)[0]),
          dtypes=ALL_INTS, grad=False, tag="int")
      for n in ("left_shift", "right_shift", "bitwise_left_shift", "bitwise_right_shift")],
    *[Rec(n, ints(-50, 50, (2, 3)), dtypes=ALL_INTS, grad=False, tag="int")
      for n in ("invert", "bitwise_not", "bitwise_invert")],
    Rec("bitwise_count", ints(0, 100, (2, 3)), dtypes=ALL_INTS, grad=False, tag="int"),
    Rec("reciprocal", nonzero_ints((2, 3)), dtypes=INTS, grad=False, tag="int",
        ref=lambda x: 1 / x, jax=False,
        note="integers: true division, float64 (NumPy truncates: 1/2 is 0; JAX: float32 for "
             "int32)"),
    # ------------------------------------------------------------------- mantissas, exponents
    Rec("frexp", lambda rng, dt: (rng.standard_normal((2, 3)).astype(dt) * 100,), grad=False),
    Rec("frexp", lambda rng, dt: (a(0.0, -0.5, 1.0, INF, NAN, 5e-324, dtype=dt),), dtypes=F64,
        grad=False, tag="special", jax=False, note="JAX gives exponent -1074 for 5e-324"),
    Rec("modf", normal((2, 3))),
    Rec("astype", lambda rng, dt: (rng.standard_normal((2, 3)).astype(dt), np.float32),
        static=(1,), grad=False, ref=lambda x, dtype: x.astype(dtype)),
    Rec("fix", off_integers((2, 3)), jax=False, note="jax.numpy removed fix in 0.10"),
]

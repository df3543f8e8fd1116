"""Op records of the elementwise primitives added for minigrad.numpy's ufuncs (``ops/unary.py``,
``ops/binary.py``, ``ops/special_functions.py``); gathered into ``records.RECORDS``.

Draws keep each function inside its domain and away from its kinks and jumps, so that the
finite-difference JVP check sees the derivative. References: NumPy's ufunc where the impl is one
(as for the base transcendental ops); independent loops otherwise (Python's ``math`` module for
erf, erfc and lgamma, series written out for digamma and polygamma), compared to a tolerance.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from minigrad.core import Primitive
from minigrad.ops import binary as bi
from minigrad.ops import special_functions as sf
from minigrad.ops import unary as un
from minigrad.testing.samples import BOTH, F64, I32, I64, OpRecord, apart, normal, positive

Draw = Callable[[np.random.Generator, tuple, np.dtype], np.ndarray]


def uniform(lo: float, hi: float) -> Draw:
    return lambda rng, shape, dt: rng.uniform(lo, hi, shape).astype(dt)


def off_integers(rng: np.random.Generator, shape: tuple, dtype: np.dtype) -> np.ndarray:
    """k + f with f in [0.1, 0.9]: no rounding jump within a finite-difference step."""
    return (rng.integers(-3, 3, shape) + rng.uniform(0.1, 0.9, shape)).astype(dtype)


def off_zero(rng: np.random.Generator, shape: tuple, dtype: np.dtype) -> np.ndarray:
    return (rng.choice([-1.0, 1.0], shape) * rng.uniform(0.2, 2.0, shape)).astype(dtype)


def specials(rng: np.random.Generator, shape: tuple, dtype: np.dtype) -> np.ndarray:
    """Normal values with infinities, NaNs and signed zeros mixed in (for the predicates)."""
    x = rng.standard_normal(shape)
    pick = rng.integers(0, 6, shape)
    x = np.select([pick == 1, pick == 2, pick == 3, pick == 4], [np.inf, -np.inf, np.nan, -0.0],
                  x)
    return x.astype(dtype)


def unary(prim: Primitive, reference: Callable[..., Any], draw: Draw = normal,
          dtypes: tuple = BOTH, variant: str = "x", tol: float = 0.0, diff: bool = True,
          out_dtype: np.dtype | None = None, params: dict | None = None) -> OpRecord:
    return OpRecord(prim, variant, lambda rng, dt: (draw(rng, (2, 3), dt),), reference,
                    params or {}, diff=(0,) if diff else (), dtypes=dtypes, out_dtype=out_dtype,
                    tol=tol)


def elementwise_loop(fn: Callable[..., float]) -> Callable[..., np.ndarray]:
    """A reference that applies a Python function of one float to each element."""
    def reference(x: np.ndarray, **params: Any) -> np.ndarray:
        out = np.array([fn(float(v), **params) for v in x.ravel()], np.float64)
        return out.reshape(x.shape).astype(x.dtype)

    return reference


# ---------------------------------------------------------------------------- loop references


def ref_logistic(v: float) -> float:
    return 1 / (1 + math.exp(-v)) if v >= 0 else math.exp(v) / (1 + math.exp(v))


def ref_lgamma(v: float) -> float:
    return math.inf if v <= 0 and v == math.floor(v) else math.lgamma(v)


def ref_digamma(v: float) -> float:
    """Reflection below 1/2, the recurrence up to 40, and five terms of the asymptotic series
    (a different split from the impl's)."""
    if v <= 0 and v == math.floor(v):
        return math.nan
    if v < 0.5:
        return ref_digamma(1 - v) - math.pi / math.tan(math.pi * v)
    shifts = []
    while v < 40:
        shifts.append(1 / v)
        v += 1
    z = 1 / (v * v)
    series = math.log(v) - 0.5 / v - z * (1 / 12 - z * (1 / 120 - z * (1 / 252 - z * (
        1 / 240 - z / 132))))
    return series - math.fsum(shifts)


def ref_polygamma(v: float, *, n: int) -> float:
    """(-1)**(n+1) n! zeta(n + 1, v) for v > 0: the sum to v + 40 and the Euler-Maclaurin tail."""
    s = n + 1
    total = math.fsum((v + k) ** -s for k in range(40))
    w = v + 40
    tail = w ** (1 - s) / (s - 1) + w ** -s / 2
    rising = float(s)  # s (s+1) ... (s+2j-2)
    for j, b in enumerate((1 / 6, -1 / 30, 1 / 42, -1 / 30), 1):
        tail += b / math.factorial(2 * j) * rising * w ** (-s - 2 * j + 1)
        rising *= (s + 2 * j - 1) * (s + 2 * j)
    return float((-1) ** (n + 1) * math.factorial(n) * (total + tail))


def ref_integer_div(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """C's division in Python's integers: |x| // |y| with the sign of x * y; 0 for y = 0."""
    out = [0 if b == 0 else (abs(a) // abs(b)) * (1 if (a < 0) == (b < 0) else -1)
           for a, b in zip(x.ravel().tolist(), y.ravel().tolist(), strict=True)]
    return np.array(out, x.dtype).reshape(x.shape)


def _ratio_make(rng: np.random.Generator, dtype: np.dtype) -> tuple:
    # x = y (k + f), f in [0.1, 0.9]: rem is smooth within a finite-difference step
    y = off_zero(rng, (3, 4), dtype)
    return (y * off_integers(rng, (3, 4), dtype)).astype(dtype), y


def _ints_make(rng: np.random.Generator, dtype: np.dtype) -> tuple:
    x = rng.integers(-20, 21, (3, 4)).astype(dtype)
    y = (rng.choice([-1, 1], (3, 4)) * rng.integers(1, 7, (3, 4))).astype(dtype)
    return x, y


def _ints_with_zero_make(rng: np.random.Generator, dtype: np.dtype) -> tuple:
    x, y = _ints_make(rng, dtype)
    y[0, :2] = 0
    return x, y


def ref_rem_integers(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """C's remainder in Python's integers: |x| mod |y| with x's sign; x for y = 0 (lax.rem)."""
    out = [a if b == 0 else (abs(a) % abs(b)) * (-1 if a < 0 else 1)
           for a, b in zip(x.ravel().tolist(), y.ravel().tolist(), strict=True)]
    return np.array(out, x.dtype).reshape(x.shape)


def _pair(draw_x: Draw, draw_y: Draw) -> Callable[[np.random.Generator, np.dtype], tuple]:
    return lambda rng, dt: (draw_x(rng, (3, 4), dt), draw_y(rng, (3, 4), dt))


def _apart_make(rng: np.random.Generator, dtype: np.dtype) -> tuple:
    x = normal(rng, (3, 4), dtype)
    return x, apart(rng, x)


BOOL = np.dtype(bool)

RECORDS: list[OpRecord] = [
    # piecewise constant: zero derivatives, checked away from the jumps
    unary(un.sign_p, np.sign, off_zero),
    unary(un.floor_p, np.floor, off_integers),
    unary(un.ceil_p, np.ceil, off_integers),
    unary(un.round_p, np.rint, off_integers),
    unary(un.abs_p, np.absolute, off_zero),
    unary(un.sign_p, np.sign, lambda rng, s, dt: rng.integers(-3, 4, s).astype(dt), (I64,),
          "int", diff=False),
    unary(un.abs_p, np.absolute, lambda rng, s, dt: rng.integers(-3, 4, s).astype(dt), (I32,),
          "int", diff=False),
    # exponentials and logarithms
    unary(un.log1p_p, np.log1p, uniform(-0.5, 2.0)),
    unary(un.expm1_p, np.expm1),
    unary(un.exp2_p, np.exp2),
    unary(un.cbrt_p, np.cbrt, off_zero),
    unary(un.logistic_p, elementwise_loop(ref_logistic), lambda rng, s, dt: (
        3 * rng.standard_normal(s)).astype(dt), (F64,), tol=1e-15),
    unary(un.logistic_p, elementwise_loop(ref_logistic), lambda rng, s, dt: (
        3 * rng.standard_normal(s)).astype(dt), (np.dtype(np.float32),), "f32", tol=1e-7),
    # trigonometric and hyperbolic
    unary(un.tan_p, np.tan, uniform(-1.2, 1.2)),
    unary(un.asin_p, np.arcsin, uniform(-0.8, 0.8)),
    unary(un.acos_p, np.arccos, uniform(-0.8, 0.8)),
    unary(un.atan_p, np.arctan),
    unary(un.sinh_p, np.sinh),
    unary(un.cosh_p, np.cosh),
    unary(un.asinh_p, np.arcsinh),
    unary(un.acosh_p, np.arccosh, uniform(1.2, 3.0)),
    unary(un.atanh_p, np.arctanh, uniform(-0.8, 0.8)),
    # predicates: bool results, no derivative
    unary(un.is_finite_p, np.isfinite, specials, diff=False, out_dtype=BOOL),
    unary(un.signbit_p, np.signbit, specials, diff=False, out_dtype=BOOL),
    # special functions, against loops of Python's math module and written-out series
    unary(sf.erf_p, elementwise_loop(math.erf), lambda rng, s, dt: (
        2 * rng.standard_normal(s)).astype(dt), (F64,), tol=1e-14),
    unary(sf.erf_p, elementwise_loop(math.erf), normal, (np.dtype(np.float32),), "f32",
          tol=1e-6),
    unary(sf.erfc_p, elementwise_loop(math.erfc), lambda rng, s, dt: (
        2 * rng.standard_normal(s)).astype(dt), (F64,), tol=1e-14),
    unary(sf.lgamma_p, elementwise_loop(ref_lgamma), uniform(0.2, 6.0), (F64,), tol=1e-13),
    unary(sf.lgamma_p, elementwise_loop(ref_lgamma), lambda rng, s, dt: (
        -rng.integers(0, 4, s) - rng.uniform(0.2, 0.8, s)).astype(dt), (F64,), "negative",
          tol=1e-13),
    unary(sf.digamma_p, elementwise_loop(ref_digamma), uniform(0.2, 12.0), (F64,), tol=1e-13),
    unary(sf.digamma_p, elementwise_loop(ref_digamma), lambda rng, s, dt: (
        -rng.integers(0, 4, s) - rng.uniform(0.2, 0.8, s)).astype(dt), (F64,), "negative",
          tol=1e-12),
    *[unary(sf.polygamma_p, elementwise_loop(ref_polygamma), uniform(0.3, 12.0), (F64,),
            f"n={n}", tol=1e-12, params={"n": n}) for n in (1, 2)],
    # binary
    OpRecord(bi.min_p, "apart", _apart_make, np.minimum, diff=(0, 1), dtypes=BOTH),
    OpRecord(bi.rem_p, "xy", _ratio_make, np.fmod, diff=(0, 1), dtypes=BOTH),
    OpRecord(bi.rem_p, "int", _ints_with_zero_make, ref_rem_integers, dtypes=(I32, I64)),
    OpRecord(bi.integer_div_p, "signs", _ints_make, ref_integer_div, dtypes=(I32, I64)),
    OpRecord(bi.atan2_p, "xy", _pair(normal, normal), np.arctan2, diff=(0, 1), dtypes=BOTH),
    OpRecord(bi.nextafter_p, "xy", _apart_make, np.nextafter, diff=(0, 1), dtypes=BOTH),
    OpRecord(bi.min_p, "int", _ints_make, np.minimum, dtypes=(I64,)),
    OpRecord(bi.atan2_p, "positive", _pair(positive, positive), np.arctan2, diff=(0, 1),
             dtypes=(F64,)),
]

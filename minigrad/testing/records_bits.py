"""Op records of the bit operations, the Threefry hash and the special functions
(``ops/bitwise.py``, ``ops/threefry.py``, ``ops/special.py``): appended to ``records.RECORDS``.

The references work on Python integers (the bit operations, the hash), on exact rationals
(``fma``) or in float64 with Newton's method from the C library's erf (``erf_inv``; compared
with a tolerance: the impl is XLA's polynomial, not the correctly rounded value).
"""

from __future__ import annotations

import math
import struct
from fractions import Fraction
from typing import Any, Callable

import numpy as np

from minigrad.ops import bitwise as bw
from minigrad.ops import elementwise as ew
from minigrad.ops import special as sp
from minigrad.ops.threefry import threefry2x32_p, threefry2x32_reference
from minigrad.testing.samples import BOTH, F32, F64, I32, I64, OpRecord, normal

U8, I8, U32, U64 = (np.dtype(t) for t in (np.uint8, np.int8, np.uint32, np.uint64))
BOOL = np.dtype(bool)
INTS = (I8, U8, I32, U32, I64, U64)


def _elementwise(fn: Callable[..., int], dtype_of: Callable[..., np.dtype] | None = None
                 ) -> Callable[..., np.ndarray]:
    """A reference applying ``fn`` to Python integers element by element."""
    def reference(*xs: np.ndarray, **params: Any) -> np.ndarray:
        dtype = xs[0].dtype if dtype_of is None else dtype_of(*xs, **params)
        flat = [x.ravel().tolist() for x in xs]
        out = [fn(*vals, width=xs[0].dtype.itemsize * 8, dtype=xs[0].dtype)
               for vals in zip(*flat, strict=True)]
        return np.array(out, dtype).reshape(xs[0].shape)

    return reference


def _wrap(v: int, width: int, dtype: np.dtype) -> Any:
    """``v`` modulo 2**width, as the (signed or unsigned) value of ``dtype``."""
    v %= 1 << width
    if dtype.kind == "i" and v >= 1 << (width - 1):
        v -= 1 << width
    return v


def _ref_shift(kind: str) -> Callable[..., np.ndarray]:
    def one(a: int, s: int, *, width: int, dtype: np.dtype) -> Any:
        inside = 0 <= s < width
        if kind == "left":
            return _wrap(a << s, width, dtype) if inside else 0
        if kind == "logical":
            return _wrap((a % (1 << width)) >> s, width, dtype) if inside else 0
        signed_a = _wrap(a, width, np.dtype("i8"))  # the bits read as signed
        return _wrap(signed_a >> (s if inside else width), width, dtype)

    return _elementwise(one)


def _draw_ints(rng: np.random.Generator, shape: tuple, dtype: np.dtype) -> np.ndarray:
    if dtype == BOOL:
        return rng.random(shape) < 0.5
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)


def _pair(rng: np.random.Generator, dtype: np.dtype) -> tuple:
    return _draw_ints(rng, (3, 4), dtype), _draw_ints(rng, (3, 4), dtype)


def _shift_operands(rng: np.random.Generator, dtype: np.dtype) -> tuple:
    # counts in [-2, width + 2]: negative and too large ones included (not for unsigned)
    width = dtype.itemsize * 8
    low = -2 if dtype.kind == "i" else 0
    counts = rng.integers(low, width + 3, (3, 4)).astype(dtype)
    counts[0, :3] = (width - 1, width, 0)
    return _draw_ints(rng, (3, 4), dtype), counts


def _clz_operands(rng: np.random.Generator, dtype: np.dtype) -> tuple:
    # 0, 1 and values with every number of leading zeros up to 7 (and negative ones: none)
    x = _draw_ints(rng, (12,), dtype) >> rng.integers(0, 8, 12).astype(dtype)
    x[:2] = (0, 1)
    return (x,)


def _bitcast_reference(x: np.ndarray, *, new_dtype: np.dtype) -> np.ndarray:
    codes = {"i": "bhiq", "u": "BHIQ", "f": "?efd"}
    size = {1: 0, 2: 1, 4: 2, 8: 3}
    src = "<" + codes[x.dtype.kind][size[x.dtype.itemsize]]
    dst = "<" + codes[new_dtype.kind][size[new_dtype.itemsize]]
    out = [struct.unpack(dst, struct.pack(src, v))[0] for v in x.ravel().tolist()]
    return np.array(out, new_dtype).reshape(x.shape)


def _threefry_operands(rng: np.random.Generator, dtype: np.dtype) -> tuple:
    return tuple(rng.integers(0, 2**32, (2, 3), dtype=np.uint32) for _ in range(4))


def _threefry_reference(k0: np.ndarray, k1: np.ndarray, x0: np.ndarray, x1: np.ndarray
                        ) -> np.ndarray:
    pairs = [threefry2x32_reference(*map(int, vals)) for vals in
             zip(k0.ravel(), k1.ravel(), x0.ravel(), x1.ravel(), strict=True)]
    return np.array(pairs, np.uint32).T.reshape((2, *k0.shape))


def _fma_reference(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Each ``x*y + z`` exactly as a fraction, rounded once to the dtype (ties to even)."""
    out = []
    for a, b, c in zip(x.ravel().tolist(), y.ravel().tolist(), z.ravel().tolist(), strict=True):
        exact = Fraction(a) * Fraction(b) + Fraction(c)
        near = np.asarray(float(exact), x.dtype)  # within an ulp of the answer
        candidates = [np.nextafter(near, x.dtype.type(-np.inf)), near,
                      np.nextafter(near, x.dtype.type(np.inf))]
        out.append(min(candidates, key=lambda v: (abs(Fraction(float(v)) - exact),
                                                  int(np.asarray(v).view(f"u{x.itemsize}")) & 1)))
    return np.array(out, x.dtype).reshape(x.shape)


def _fma_operands(rng: np.random.Generator, dtype: np.dtype) -> tuple:
    # z near -x*y, so that the single rounding matters
    x, y = normal(rng, (3, 4), dtype), normal(rng, (3, 4), dtype)
    z = (-(x.astype(F64) * y) * (1 + rng.uniform(-1e-3, 1e-3, (3, 4)))).astype(dtype)
    return x, y, z


def _ref_erf_inv(x: np.ndarray) -> np.ndarray:
    def one(v: float) -> float:
        y = 0.0
        for _ in range(60):  # Newton on erf(y) = v from 0: erf is increasing and concave here
            y -= (math.erf(y) - v) / (2 / math.sqrt(math.pi) * math.exp(-y * y))
        return y

    return np.array([one(v) for v in x.astype(F64).ravel()], x.dtype).reshape(x.shape)


def _rem_one(a: int, b: int, **_: Any) -> int:
    # C's remainder: |a| mod |b| with a's sign; a when b is 0 (XLA's convention)
    if b == 0:
        return a
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def _rem_ints(rng: np.random.Generator, dtype: np.dtype) -> tuple:
    x, y = _pair(rng, dtype)
    y[0, :2] = (0, 1)
    if dtype.kind == "i":
        y[1, 0], x[1, 0] = -1, np.iinfo(dtype).min  # INT_MIN rem -1 is 0
    return x, y


def _ref_rem_floats(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.array([math.fmod(a, b) for a, b in zip(x.ravel().tolist(), y.ravel().tolist(),
                                                     strict=True)], x.dtype).reshape(x.shape)


def _rem_floats(rng: np.random.Generator, dtype: np.dtype) -> tuple:
    # away from the jumps of rem (at multiples of y), where finite differences fail
    y = (rng.choice([-1.0, 1.0], (3, 4)) * rng.uniform(0.5, 2.0, (3, 4)))
    x = y * (rng.integers(-3, 4, (3, 4)) + rng.uniform(0.2, 0.8, (3, 4)))
    return x.astype(dtype), y.astype(dtype)


def _inside(rng: np.random.Generator, shape: tuple, dtype: np.dtype) -> np.ndarray:
    return rng.uniform(-0.95, 0.95, shape).astype(dtype)


RECORDS: list[OpRecord] = [
    *[OpRecord(prim, "ints", _pair, _elementwise(fn), dtypes=(*INTS, BOOL)) for prim, fn in (
        (bw.and_p, lambda a, b, **_: a & b), (bw.or_p, lambda a, b, **_: a | b),
        (bw.xor_p, lambda a, b, **_: a ^ b))],
    OpRecord(bw.not_p, "ints", lambda rng, dt: (_draw_ints(rng, (3, 4), dt),),
             _elementwise(lambda a, *, width, dtype: (not a) if dtype == BOOL
                          else _wrap(~a, width, dtype)),
             dtypes=(*INTS, BOOL)),
    OpRecord(bw.shift_left_p, "counts", _shift_operands, _ref_shift("left"), dtypes=INTS),
    OpRecord(bw.shift_right_logical_p, "counts", _shift_operands, _ref_shift("logical"),
             dtypes=INTS),
    OpRecord(bw.shift_right_arithmetic_p, "counts", _shift_operands, _ref_shift("arithmetic"),
             dtypes=INTS),
    OpRecord(bw.population_count_p, "ints", lambda rng, dt: (_draw_ints(rng, (3, 4), dt),),
             _elementwise(lambda a, *, width, dtype: bin(a % (1 << width)).count("1")),
             dtypes=INTS),
    OpRecord(bw.clz_p, "ints", _clz_operands,
             _elementwise(lambda a, *, width, dtype: width - (a % (1 << width)).bit_length()),
             dtypes=INTS),
    *[OpRecord(bw.bitcast_convert_type_p, f"{src.name}->{dst.name}",
               (lambda s: lambda rng, dt: (normal(rng, (2, 3), s) if s.kind == "f"
                                           else _draw_ints(rng, (2, 3), s),))(src),
               _bitcast_reference, {"new_dtype": dst}, out_dtype=dst)
      for src, dst in ((F32, U32), (U32, F32), (F64, U64), (U64, F64), (I8, U8),
                       (I64, F64))],
    OpRecord(ew.rem_p, "ints", _rem_ints, _elementwise(_rem_one), dtypes=INTS),
    OpRecord(ew.rem_p, "floats", _rem_floats, _ref_rem_floats, diff=(0, 1), dtypes=BOTH),
    OpRecord(threefry2x32_p, "2x3", _threefry_operands, _threefry_reference, dtypes=(U32,)),
    OpRecord(sp.fma_p, "near-cancel", _fma_operands, _fma_reference, diff=(0, 1, 2),
             linear=((0, 2), (1, 2)), dtypes=BOTH),
    OpRecord(sp.erf_inv_p, "inside", lambda rng, dt: (_inside(rng, (2, 3), dt),),
             _ref_erf_inv, diff=(0,), dtypes=BOTH, tol=2e-6),
    OpRecord(sp.xla_erf_p, "x", lambda rng, dt: (normal(rng, (2, 3), dt),),
             lambda x: np.array([math.erf(v) for v in x.astype(F64).ravel()],
                                x.dtype).reshape(x.shape), diff=(0,), dtypes=BOTH, tol=2e-6),
    OpRecord(sp.xla_log_p, "x", lambda rng, dt: (rng.uniform(0.1, 3, (2, 3)).astype(dt),),
             lambda x: np.log(x.astype(F64)).astype(x.dtype), diff=(0,), dtypes=BOTH, tol=1e-6),
    OpRecord(sp.xla_log1p_p, "x", lambda rng, dt: (rng.uniform(-0.5, 2, (2, 3)).astype(dt),),
             lambda x: np.log1p(x.astype(F64)).astype(x.dtype), diff=(0,), dtypes=BOTH,
             tol=1e-6),
]

__all__ = ["RECORDS", "I32", "I64"]

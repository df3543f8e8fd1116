"""Op records of the bit operations (``ops/bitwise.py``): appended to ``records.RECORDS``.

The random branch's ``records_bits.py`` holds these records and those of its Threefry hash and
special functions; this branch (surface-ufuncs) carries the bit operations' part, unchanged,
until the lead merges the two (take the random branch's file). The references work on Python
integers.
"""

from __future__ import annotations

import struct
from typing import Any, Callable

import numpy as np

from minigrad.ops import bitwise as bw
from minigrad.testing.samples import F32, F64, I32, I64, OpRecord, normal

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
]

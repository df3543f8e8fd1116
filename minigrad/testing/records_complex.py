"""Records of the complex-number primitives (``ops/complex.py``): ``real``, ``imag``, ``conj``
of complex64 and complex128 operands, ``complex`` of float32 and float64 pairs, and
``expm1`` of complex operands (its impl's own formula; NumPy's ufunc is the reference away
from the infinities). Complex operands are drawn with both parts standard normal; the
checker's dot-product test pairs complex arrays by ``Re(sum(a * b))``."""

from __future__ import annotations

import numpy as np

from minigrad.ops import complex as cx
from minigrad.ops.unary import expm1_p
from minigrad.testing.samples import F32, F64, OpRecord

C64, C128 = np.dtype(np.complex64), np.dtype(np.complex128)


def complex_normal(rng: np.random.Generator, shape: tuple, dtype: np.dtype) -> np.ndarray:
    """Both parts standard normal."""
    parts = rng.standard_normal((2, *shape))
    return (parts[0] + 1j * parts[1]).astype(dtype)


def _part(prim: object, reference: object, dtype: np.dtype) -> OpRecord:
    return OpRecord(prim, "2x3", lambda rng, dt: (complex_normal(rng, (2, 3), dt),),  # type: ignore[arg-type]
                    lambda x: np.asarray(reference(x)).copy(), diff=(0,),  # type: ignore[operator]
                    linear=((0,),), dtypes=(dtype,), out_dtype=cx.real_dtype(dtype))


def _complex_pair(rng: np.random.Generator, dt: np.dtype) -> tuple:
    return rng.standard_normal((2, 3)).astype(dt), rng.standard_normal((2, 3)).astype(dt)


RECORDS = [
    *[_part(prim, ref, dt) for prim, ref in ((cx.real_p, np.real), (cx.imag_p, np.imag))
      for dt in (C128, C64)],
    OpRecord(cx.conj_p, "2x3", lambda rng, dt: (complex_normal(rng, (2, 3), dt),), np.conjugate,
             diff=(0,), linear=((0,),), dtypes=(C128, C64)),
    *[OpRecord(cx.complex_p, "2x3", _complex_pair, lambda a, b: a + 1j * b, diff=(0, 1),
               linear=((0, 1),), dtypes=(dt,), out_dtype=cx.complex_dtype(dt))
      for dt in (F64, F32)],
    OpRecord(expm1_p, "complex", lambda rng, dt: (complex_normal(rng, (2, 3), dt),), np.expm1,
             diff=(0,), dtypes=(C128, C64), tol=1e-6),
]

"""Records of the ``fft`` primitive (``ops/fft.py``): each transform type over one and two
trailing axes, odd and even last lengths (irfft's Nyquist term), complex64/complex128
(float32/float64 for rfft). The references are NumPy's ``numpy.fft`` functions, matrix by
matrix over the leading axis (which checks the stacking), compared to a tolerance: a batched
pocketfft call and a per-matrix one may round differently."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from minigrad.ops.fft import fft_p
from minigrad.testing.records_complex import C64, C128, complex_normal
from minigrad.testing.samples import F32, F64, OpRecord, normal

_NUMPY: dict[str, Callable[..., np.ndarray]] = {
    "fft": np.fft.fftn, "ifft": np.fft.ifftn, "rfft": np.fft.rfftn, "irfft": np.fft.irfftn}


def _reference(fft_type: str, out_dtype: np.dtype) -> Callable[..., Any]:
    def ref(x: np.ndarray, *, fft_type: str, fft_lengths: tuple) -> np.ndarray:
        k = len(fft_lengths)
        axes = tuple(range(x.ndim - 1 - k, x.ndim - 1))
        kw = {"s": fft_lengths} if fft_type == "irfft" else {}
        return np.stack([_NUMPY[fft_type](m, axes=axes, **kw) for m in x]).astype(out_dtype)

    return ref


def _record(fft_type: str, lengths: tuple, dtype: np.dtype) -> OpRecord:
    shape = list(lengths)
    if fft_type == "irfft":
        shape[-1] = lengths[-1] // 2 + 1
    draw = normal if fft_type == "rfft" else complex_normal
    out_dtype = (np.dtype(np.finfo(dtype).dtype) if fft_type == "irfft"
                 else np.result_type(dtype, np.complex64))
    single = dtype in (F32, C64)
    return OpRecord(fft_p, f"{fft_type}-{'x'.join(map(str, lengths))}",
                    lambda rng, dt: (draw(rng, (3, *shape), dt),),
                    _reference(fft_type, out_dtype),
                    {"fft_type": fft_type, "fft_lengths": lengths}, diff=(0,), linear=((0,),),
                    dtypes=(dtype,), out_dtype=np.dtype(out_dtype),
                    tol=1e-4 if single else 1e-12)


RECORDS = [
    _record(fft_type, lengths, dtype)
    for fft_type, dtypes in (("fft", (C128, C64)), ("ifft", (C128, C64)),
                             ("rfft", (F64, F32)), ("irfft", (C128, C64)))
    for lengths in ((5,), (4, 6), (3, 5))
    for dtype in dtypes
]

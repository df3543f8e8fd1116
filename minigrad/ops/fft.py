"""fft: discrete Fourier transforms over the trailing axes (lax.fft's one primitive).

``fft(x, fft_type=..., fft_lengths=(n_1, ..., n_k))`` transforms the last ``k`` axes of ``x``,
unnormalized forward and ``1 / prod(n)`` inverse (NumPy's "backward" norm):

* ``"fft"``, ``"ifft"``: complex to complex, the axes' lengths are ``fft_lengths``;
* ``"rfft"``: real to complex, the last axis ``n_k`` becomes ``n_k // 2 + 1`` (the other
  half is the conjugate of this one);
* ``"irfft"``: complex to real, the last axis ``n_k // 2 + 1`` becomes ``n_k`` (the inverse
  of rfft: the input is read as the half of a Hermitian spectrum, so the imaginary parts of
  its zero-frequency term, and of its Nyquist term where ``n_k`` is even, are ignored).

Each is linear over the reals, so the JVP applies the primitive to the tangent. Transposes are
for the real pairing ``<a, b> = Re(sum(a * b))`` of ``ops/complex.py``. The DFT matrix
``F[j, k] = exp(-2 pi i jk / n)`` is symmetric, so

    fft:   ct_x = fft(ct)                      ifft:  ct_x = ifft(ct)
    rfft:  ct_x = real(fft(pad(ct)))           (pad: zeros up to n_k along the last axis; the
                                                rfft is F followed by keeping m = n_k//2 + 1 rows)
    irfft: ct_x = c * conj(rfft(ct)) / prod(n), c = 1 at frequency 0 (and n_k / 2 for even
           n_k), 2 elsewhere: sum_j ct_j irfft(x)_j counts each of those frequencies twice, as
           the spectrum and its conjugate mirror (the pairing proof is in docs/array-api.md).

Batching: the transform is vectorized over every leading axis, so a batch axis among the
trailing ones is moved to the front.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from minigrad.core import Primitive, ShapedArray, get_aval
from minigrad.ops import complex as cx
from minigrad.ops.elementwise import mul
from minigrad.ops.structural import broadcast_in_dim, moveaxis, pad

FFT_TYPES = ("fft", "ifft", "rfft", "irfft")

fft_p = Primitive("fft")


def fft(x: Any, fft_type: str, fft_lengths: Sequence[int]) -> Any:
    """The transform ``fft_type`` over the last ``len(fft_lengths)`` axes of ``x``."""
    if fft_type not in FFT_TYPES:
        raise ValueError(f"fft: fft_type must be one of {FFT_TYPES}; got {fft_type!r}")
    return fft_p.bind(x, fft_type=fft_type, fft_lengths=tuple(int(n) for n in fft_lengths))


@fft_p.def_impl
def _fft_impl(x: np.ndarray, *, fft_type: str, fft_lengths: tuple) -> np.ndarray:
    axes = tuple(range(x.ndim - len(fft_lengths), x.ndim))
    out: np.ndarray
    if fft_type == "fft":
        out = np.fft.fftn(x, axes=axes)
    elif fft_type == "ifft":
        out = np.fft.ifftn(x, axes=axes)
    elif fft_type == "rfft":
        out = np.fft.rfftn(x, axes=axes)
    else:
        out = np.fft.irfftn(x, s=fft_lengths, axes=axes)
    dtype = _out_dtype(x.dtype, fft_type)
    return np.asarray(out).astype(dtype, copy=False)


def _out_dtype(dtype: np.dtype, fft_type: str) -> np.dtype:
    if fft_type == "irfft":
        return cx.real_dtype(dtype)
    return cx.complex_dtype(dtype)


@fft_p.def_abstract_eval
def _fft_abstract_eval(x: ShapedArray, *, fft_type: str, fft_lengths: tuple) -> ShapedArray:
    k = len(fft_lengths)
    want = "f" if fft_type == "rfft" else "c"
    if x.dtype.kind != want:
        raise TypeError(f"fft: the operand of {fft_type} must be "
                        f"{'real floating' if want == 'f' else 'complex'}; got {x.str_short()}")
    if not 1 <= k <= x.ndim or any(n < 1 for n in fft_lengths):
        raise ValueError(f"fft: fft_lengths must be 1 to {x.ndim} positive lengths; got "
                         f"{fft_lengths}")
    lead, tail = x.shape[:x.ndim - k], list(x.shape[x.ndim - k:])
    expected = list(fft_lengths)
    if fft_type == "irfft":
        expected[-1] = fft_lengths[-1] // 2 + 1
    if tail != expected:
        raise ValueError(f"fft: the last axes of the operand of {fft_type} must be "
                         f"{tuple(expected)}; got {x.str_short()}")
    if fft_type == "rfft":
        tail[-1] = fft_lengths[-1] // 2 + 1
    elif fft_type == "irfft":
        tail[-1] = fft_lengths[-1]
    return ShapedArray((*lead, *tail), _out_dtype(x.dtype, fft_type))


def _fft_jvp(primals: tuple, tangents: tuple, *, fft_type: str, fft_lengths: tuple) -> tuple:
    # fft(x)_dot = fft(x_dot): linear
    (x,), (t,) = primals, tangents
    return fft(x, fft_type, fft_lengths), fft(t, fft_type, fft_lengths)


fft_p.def_jvp(_fft_jvp)  # (tangents of a linear map: no Zero reaches here, bind short-cuts it)


@fft_p.def_transpose
def _fft_transpose(ct: Any, x: Any, *, fft_type: str, fft_lengths: tuple) -> tuple:
    if fft_type in ("fft", "ifft"):  # ct_x = fft(ct) (ifft(ct)): F is symmetric
        return (fft(ct, fft_type, fft_lengths),)
    aval = get_aval(ct)
    n = fft_lengths[-1]
    if fft_type == "rfft":  # ct_x = real(fft(pad(ct)))
        m = aval.shape[-1]
        padded = pad(ct, [(0, 0, 0)] * (aval.ndim - 1) + [(0, n - m, 0)])
        return (cx.real(fft(padded, "fft", fft_lengths)),)
    # irfft: ct_x = c * conj(rfft(ct)) / prod(n)
    spectrum = cx.conj(fft(ct, "rfft", fft_lengths))
    m = n // 2 + 1
    weights = np.full(m, 2.0)
    weights[0] = 1.0
    if n % 2 == 0:
        weights[-1] = 1.0
    dtype = get_aval(spectrum).dtype
    c = broadcast_in_dim(np.asarray(weights / math.prod(fft_lengths), dtype),
                         get_aval(spectrum).shape, (aval.ndim - 1,))
    return (mul(spectrum, c),)


@fft_p.def_batch
def _fft_batch(axis_size: int, vals: tuple, dims: tuple, *, fft_type: str,
               fft_lengths: tuple) -> tuple:
    # the transform runs over the trailing axes; every other axis is a batch of its own
    (x,), (d,) = vals, dims
    ndim = get_aval(x).ndim
    if d >= ndim - len(fft_lengths):
        x, d = moveaxis(x, d, 0), 0
    return fft(x, fft_type, fft_lengths), d

__all__ = ["FFT_TYPES", "fft", "fft_p"]

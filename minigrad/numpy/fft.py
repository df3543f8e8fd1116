"""minigrad.numpy.fft: the array API standard's fft extension (NumPy's and jax.numpy.fft's
names and values), composites over the ``fft`` primitive of ``ops/fft.py``.

Each function resizes the transformed axes to the requested lengths (zeros appended, or the
tail cut off, as NumPy), moves them last, binds ``fft`` and moves them back; ``norm`` scales
the result ("backward", the default: the inverse transforms divide by ``n``; "ortho": both
directions by ``sqrt(n)``; "forward": the forward transforms divide by ``n``). ``hfft`` and
``ihfft`` are ``irfft`` and ``rfft`` of the conjugate with the norm's direction swapped, as
NumPy. The derivatives, transposes and batching are the primitive's (every function is linear
over the reals); ``fftfreq``, ``rfftfreq``, ``fftshift`` and ``ifftshift`` are creation and
``roll``.

>>> import numpy as np, minigrad as mg, minigrad.numpy as mnp
>>> mnp.fft.rfft(np.array([1.0, 2.0, 3.0, 4.0]))
Array([10.+0.j, -2.+2.j, -2.+0.j], dtype=complex128)
>>> def power(x):  # sum |rfft(x)|^2
...     spectrum = mnp.fft.rfft(x)
...     return mnp.sum(mnp.real(spectrum * mnp.conj(spectrum)))
>>> mg.grad(power)(np.array([1.0, 0.0, 0.0, 0.0]))
Array([6., 0., 2., 0.], dtype=float64)
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from minigrad import dtypes
from minigrad.array import check_device
from minigrad.core import get_aval
from minigrad.numpy.util import ArrayLike, asarray, canonical_axes
from minigrad.ops import complex as cx
from minigrad.ops import elementwise as ew
from minigrad.ops import structural as st
from minigrad.ops.fft import fft as fft_prim

__all__ = ["fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "ifft", "ifft2", "ifftn",
           "ifftshift", "ihfft", "irfft", "irfft2", "irfftn", "rfft", "rfft2", "rfftfreq",
           "rfftn"]

_NORMS = ("backward", "ortho", "forward")
_SWAPPED = {"backward": "forward", "ortho": "ortho", "forward": "backward"}


# --------------------------------------------------------------------------- operands


def _norm(norm: str | None, fn: str) -> str:
    if norm is None:
        return "backward"
    if norm not in _NORMS:
        raise ValueError(f"{fn}: norm must be one of {_NORMS} or None; got {norm!r}")
    return norm


def _complex_operand(x: ArrayLike, fn: str) -> Any:
    """``x`` as a complex array: real floating ones in their precision, integers and bools in
    the default complex dtype (NumPy's promotion)."""
    x = asarray(x)
    dtype = get_aval(x).dtype
    if dtype.kind == "c":
        return x
    if dtype.kind not in "biuf":
        raise TypeError(f"{fn}: x must be a numeric array; got {dtype}")
    target = cx.complex_dtype(dtype) if dtype.kind == "f" else dtypes.default_complex_dtype()
    return ew.convert_element_type(x, target)


def _real_operand(x: ArrayLike, fn: str) -> Any:
    """``x`` as a real floating array (integers and bools in the default float dtype)."""
    x = asarray(x)
    dtype = get_aval(x).dtype
    if dtype.kind == "f":
        return x
    if dtype.kind == "c":
        raise TypeError(f"{fn}: x must be real; got {dtype} (fft takes complex arrays)")
    if dtype.kind not in "biu":
        raise TypeError(f"{fn}: x must be a numeric array; got {dtype}")
    return ew.convert_element_type(x, dtypes.default_float_dtype())


def _length(n: Any, fn: str, name: str = "n") -> int:
    if not isinstance(n, (int, np.integer)) or isinstance(n, (bool, np.bool_)) or n < 1:
        raise ValueError(f"{fn}: {name} must be a positive integer; got {n!r}")
    return int(n)


def _axes(axes: Any, ndim: int, fn: str) -> list[int]:
    """The axes in the order given (rfftn's last one is the real one), distinct."""
    if isinstance(axes, (int, np.integer)):
        axes = (axes,)
    out = [canonical_axes(a, ndim, fn)[0] for a in axes]
    if len(set(out)) != len(out):
        raise ValueError(f"{fn}: axes must be distinct; got {tuple(axes)}")
    return out


def _resize(x: Any, axis: int, n: int) -> Any:
    """``x`` with axis ``axis`` cut to ``n`` entries or padded with zeros up to ``n``."""
    shape = get_aval(x).shape
    size = shape[axis]
    if n < size:
        limit = list(shape)
        limit[axis] = n
        return st.slice_array(x, (0,) * len(shape), limit, (1,) * len(shape))
    if n > size:
        config = [(0, 0, 0)] * len(shape)
        config[axis] = (0, n - size, 0)
        return st.pad(x, config)
    return x


# --------------------------------------------------------------------------- the one helper


def _transform(x: Any, fft_type: str, axes: list[int], in_sizes: Sequence[int],
               lengths: Sequence[int], norm: str) -> Any:
    """Resize ``axes`` to ``in_sizes``, move them last (in order), transform with
    ``lengths``, move them back, scale for ``norm``."""
    for axis, size in zip(axes, in_sizes, strict=True):
        x = _resize(x, axis, size)
    ndim = get_aval(x).ndim
    perm = [a for a in range(ndim) if a not in axes] + list(axes)
    y = fft_prim(st.transpose(x, perm), fft_type, lengths)
    y = st.transpose(y, list(np.argsort(perm)))
    n = math.prod(lengths)
    inverse = fft_type in ("ifft", "irfft")
    scale = {"backward": 1.0, "ortho": math.sqrt(n) if inverse else 1 / math.sqrt(n),
             "forward": float(n) if inverse else 1 / n}[norm]
    return y if scale == 1.0 else ew.mul(y, ew.full_like(y, scale))


def _one_axis(x: Any, n: int | None, axis: int, fn: str) -> tuple[list[int], int]:
    if get_aval(x).ndim == 0:
        raise ValueError(f"{fn}: x must have at least one axis; got a 0-d array")
    (ax,) = _axes(axis, get_aval(x).ndim, fn)
    return [ax], (get_aval(x).shape[ax] if n is None else _length(n, fn))


def _many_axes(x: Any, s: Sequence[int] | None, axes: Sequence[int] | None, fn: str
               ) -> tuple[list[int], list[int] | None]:
    """NumPy's rule: no ``axes`` means every axis, or the last ``len(s)`` with ``s``."""
    ndim = get_aval(x).ndim
    if s is not None:
        s = [_length(v, fn, "s's entries") for v in s]
    if axes is None:
        axes = range(ndim) if s is None else range(ndim - len(s), ndim)
        if s is not None and len(s) > ndim:
            raise ValueError(f"{fn}: s has {len(s)} entries for an array of rank {ndim}")
    ax = _axes(axes, ndim, fn)
    if not ax:
        raise ValueError(f"{fn}: axes must name at least one axis; got {axes!r}")
    if s is not None and len(s) != len(ax):
        raise ValueError(f"{fn}: s and axes must have the same length; got {len(s)} and "
                         f"{len(ax)}")
    return ax, s


# --------------------------------------------------------------------------- complex to complex


def fft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """The one-dimensional discrete Fourier transform along ``axis`` (length ``n``)."""
    x = _complex_operand(a, "fft")
    axes, size = _one_axis(x, n, axis, "fft")
    return _transform(x, "fft", axes, [size], [size], _norm(norm, "fft"))


def ifft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """The inverse of ``fft``."""
    x = _complex_operand(a, "ifft")
    axes, size = _one_axis(x, n, axis, "ifft")
    return _transform(x, "ifft", axes, [size], [size], _norm(norm, "ifft"))


def _fftn(a: ArrayLike, s: Sequence[int] | None, axes: Sequence[int] | None, norm: str | None,
          fn: str, fft_type: str) -> Any:
    """``fftn`` (``fft_type`` 'fft') or ``ifftn`` ('ifft'), errors naming ``fn``."""
    x = _complex_operand(a, fn)
    ax, sizes = _many_axes(x, s, axes, fn)
    sizes = sizes or [get_aval(x).shape[i] for i in ax]
    return _transform(x, fft_type, ax, sizes, sizes, _norm(norm, fn))


def fftn(a: ArrayLike, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
         norm: str | None = None) -> Any:
    """The n-dimensional discrete Fourier transform over ``axes`` (lengths ``s``)."""
    return _fftn(a, s, axes, norm, "fftn", "fft")


def ifftn(a: ArrayLike, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str | None = None) -> Any:
    """The inverse of ``fftn``."""
    return _fftn(a, s, axes, norm, "ifftn", "ifft")


# --------------------------------------------------------------------------- real and Hermitian


def rfft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """The transform of a real signal: the ``n // 2 + 1`` non-negative frequencies."""
    x = _real_operand(a, "rfft")
    axes, size = _one_axis(x, n, axis, "rfft")
    return _transform(x, "rfft", axes, [size], [size], _norm(norm, "rfft"))


def irfft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """The inverse of ``rfft``: a real signal of length ``n`` (default ``2 * (m - 1)`` for
    ``m`` input frequencies) from its non-negative frequencies."""
    x = _complex_operand(a, "irfft")
    axes, _ = _one_axis(x, None, axis, "irfft")
    m = get_aval(x).shape[axes[0]]
    size = _length(2 * (m - 1) if n is None else n, "irfft")
    return _transform(x, "irfft", axes, [size // 2 + 1], [size], _norm(norm, "irfft"))


def _rfftn(a: ArrayLike, s: Sequence[int] | None, axes: Sequence[int] | None,
           norm: str | None, fn: str) -> Any:
    x = _real_operand(a, fn)
    ax, sizes = _many_axes(x, s, axes, fn)
    sizes = sizes or [get_aval(x).shape[i] for i in ax]
    return _transform(x, "rfft", ax, sizes, sizes, _norm(norm, fn))


def rfftn(a: ArrayLike, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str | None = None) -> Any:
    """``rfft`` over the last of ``axes``, then ``fft`` over the others."""
    return _rfftn(a, s, axes, norm, "rfftn")


def _irfftn(a: ArrayLike, s: Sequence[int] | None, axes: Sequence[int] | None,
            norm: str | None, fn: str) -> Any:
    x = _complex_operand(a, fn)
    ax, sizes = _many_axes(x, s, axes, fn)
    if sizes is None:
        sizes = [get_aval(x).shape[i] for i in ax]
        sizes[-1] = _length(2 * (sizes[-1] - 1), fn, "the last output length")
    in_sizes = [*sizes[:-1], sizes[-1] // 2 + 1]
    return _transform(x, "irfft", ax, in_sizes, sizes, _norm(norm, fn))


def irfftn(a: ArrayLike, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
           norm: str | None = None) -> Any:
    """The inverse of ``rfftn`` (the last of ``s`` is the real output's length, by default
    ``2 * (m - 1)``)."""
    return _irfftn(a, s, axes, norm, "irfftn")


# --------------------------------------------------------------------------- two axes


def _two(axes: Sequence[int], fn: str) -> Sequence[int]:
    """``axes`` of a 2-D transform: exactly two (JAX's rule; NumPy's ``fft2`` takes any)."""
    if isinstance(axes, (int, np.integer)) or len(axes) != 2:
        raise ValueError(f"{fn}: axes must name exactly two axes; got {axes!r}")
    return axes


def fft2(a: ArrayLike, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
         norm: str | None = None) -> Any:
    """``fftn`` over two axes, the last two by default.

    >>> import numpy as np
    >>> from minigrad.numpy import fft
    >>> fft.fft2(np.array([[1.0, 2.0], [3.0, 4.0]]))
    Array([[10.+0.j, -2.+0.j],
           [-4.+0.j,  0.+0.j]], dtype=complex128)
    """
    return _fftn(a, s, _two(axes, "fft2"), norm, "fft2", "fft")


def ifft2(a: ArrayLike, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
          norm: str | None = None) -> Any:
    """The inverse of ``fft2``: ``ifftn`` over two axes, the last two by default."""
    return _fftn(a, s, _two(axes, "ifft2"), norm, "ifft2", "ifft")


def rfft2(a: ArrayLike, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
          norm: str | None = None) -> Any:
    """``rfftn`` over two axes (the second the real one), the last two by default."""
    return _rfftn(a, s, _two(axes, "rfft2"), norm, "rfft2")


def irfft2(a: ArrayLike, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1),
           norm: str | None = None) -> Any:
    """The inverse of ``rfft2``: ``irfftn`` over two axes, the last two by default."""
    return _irfftn(a, s, _two(axes, "irfft2"), norm, "irfft2")


# --------------------------------------------------------------------------- Hermitian


def hfft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """The transform of a signal with Hermitian symmetry (given by its first half): a real
    spectrum of length ``n``; ``irfft(conj(a))`` with the norm's direction swapped."""
    x = _complex_operand(a, "hfft")
    return irfft(cx.conj(x), n, axis, _SWAPPED[_norm(norm, "hfft")])


def ihfft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """The inverse of ``hfft``: ``conj(rfft(a))`` with the norm's direction swapped."""
    x = _real_operand(a, "ihfft")
    return cx.conj(rfft(x, n, axis, _SWAPPED[_norm(norm, "ihfft")]))


# --------------------------------------------------------------------------- frequencies, shifts


def _frequencies(values: np.ndarray, d: Any, dtype: Any, device: Any, fn: str) -> Any:
    check_device(device, fn)
    if not isinstance(d, (int, float, np.integer, np.floating)) or isinstance(d, bool):
        raise TypeError(f"{fn}: d must be a real number; got {d!r}")
    out_dtype = dtypes.default_float_dtype() if dtype is None else np.dtype(dtype)
    if out_dtype.kind != "f":
        raise TypeError(f"{fn}: dtype must be a real floating dtype; got {out_dtype}")
    return asarray(values / (len(values) if fn == "fftfreq" else 1) / float(d), out_dtype)


def fftfreq(n: int, d: float = 1.0, *, dtype: Any = None, device: Any = None) -> Any:
    """The sample frequencies of an ``n``-point fft: ``[0, 1, ..., -2, -1] / (d n)``."""
    n = _length(n, "fftfreq")
    k = np.concatenate([np.arange(0, (n - 1) // 2 + 1), np.arange(-(n // 2), 0)])
    return _frequencies(k.astype(np.float64), d, dtype, device, "fftfreq")


def rfftfreq(n: int, d: float = 1.0, *, dtype: Any = None, device: Any = None) -> Any:
    """The sample frequencies of an ``n``-point rfft: ``[0, 1, ..., n // 2] / (d n)``."""
    n = _length(n, "rfftfreq")
    k = np.arange(0, n // 2 + 1, dtype=np.float64) / n
    return _frequencies(k, d, dtype, device, "rfftfreq")


def _shift(x: ArrayLike, axes: Any, sign: int, fn: str) -> Any:
    from minigrad.numpy.joining import roll

    x = asarray(x)
    shape = get_aval(x).shape
    ax = list(range(len(shape))) if axes is None else _axes(axes, len(shape), fn)
    if not ax:
        return x
    return roll(x, tuple(sign * (shape[a] // 2) for a in ax), tuple(ax))


def fftshift(x: ArrayLike, axes: int | Sequence[int] | None = None) -> Any:
    """The zero frequency moved to the centre: ``roll`` by half of each axis (all by default)."""
    return _shift(x, axes, 1, "fftshift")


def ifftshift(x: ArrayLike, axes: int | Sequence[int] | None = None) -> Any:
    """The inverse of ``fftshift``."""
    return _shift(x, axes, -1, "ifftshift")

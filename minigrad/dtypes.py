"""Default dtypes and their canonical forms: what ``jax_enable_x64`` changes.

With x64 on (minigrad's default) these are NumPy's: float64, int64, and every dtype as given.
With x64 off they are JAX's 32-bit world: a Python float is a (weak) float32, a Python int an
int32, creation functions default to float32/int32, and a 64-bit array entering minigrad is
converted to its 32-bit twin (an explicitly requested 64-bit dtype too, with a warning, as JAX
does). Everything that picks a default dtype asks here, so the flag is read in one place.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from minigrad.config import x64_enabled

__all__ = ["x64_enabled"]  # (re-exported: the flag's hot-path read)

_F64, _F32 = np.dtype(np.float64), np.dtype(np.float32)
_I64, _I32 = np.dtype(np.int64), np.dtype(np.int32)
_U64, _U32 = np.dtype(np.uint64), np.dtype(np.uint32)
_C128, _C64 = np.dtype(np.complex128), np.dtype(np.complex64)
_TO_32 = {_F64: _F32, _I64: _I32, _U64: _U32, _C128: _C64}


def default_float_dtype() -> np.dtype:
    return _F64 if x64_enabled() else _F32


def default_int_dtype() -> np.dtype:
    return _I64 if x64_enabled() else _I32


def default_uint_dtype() -> np.dtype:
    return _U64 if x64_enabled() else _U32


def default_complex_dtype() -> np.dtype:
    return _C128 if x64_enabled() else _C64


def canonicalize_dtype(dtype: Any, requested_by: str | None = None) -> np.dtype:
    """``dtype`` as minigrad computes with it: itself with x64 on, its 32-bit twin with x64 off.
    ``requested_by`` names a function whose caller asked for ``dtype`` explicitly: truncating
    it then warns (once per call site, by Python's warning filter), as JAX does."""
    dtype = np.dtype(dtype)
    if dtype not in _TO_32 or x64_enabled():
        return dtype
    out = _TO_32[dtype]
    if requested_by is not None:
        warnings.warn(f"{requested_by}: explicitly requested dtype {dtype} is not available "
                      f"with jax_enable_x64 off, and is truncated to {out}; turn it on with "
                      f"minigrad.config.update('jax_enable_x64', True)", UserWarning,
                      stacklevel=3)
    return out


def scalar_dtype(x: bool | int | float | complex) -> np.dtype:
    """The dtype a Python scalar takes alone (weakly typed: beside an array it takes the
    array's dtype instead, NumPy 2's and JAX's rule)."""
    if isinstance(x, bool):
        return np.dtype(np.bool_)
    if isinstance(x, int):
        return default_int_dtype()
    if isinstance(x, float):
        return default_float_dtype()
    return default_complex_dtype()


def is_python_scalar(x: Any) -> bool:
    return type(x) in (bool, int, float, complex)

"""The default dtypes of minigrad.random, read in one place.

minigrad's ``jax_enable_x64`` is on by default (float64 and int64 defaults, unlike JAX); off
gives JAX's 32-bit defaults. Every sampler asks these functions, so pointing ``enable_x64`` at
``minigrad.config`` switches the whole package.
"""

from __future__ import annotations

import numpy as np


def enable_x64() -> bool:
    """Whether 64-bit defaults are on (``jax_enable_x64``)."""
    return True


def default_float() -> np.dtype:
    return np.dtype(np.float64 if enable_x64() else np.float32)


def default_int() -> np.dtype:
    return np.dtype(np.int64 if enable_x64() else np.int32)


def default_uint() -> np.dtype:
    return np.dtype(np.uint64 if enable_x64() else np.uint32)


def canonical(dtype: np.dtype) -> np.dtype:
    """``dtype`` as JAX stores it: with 64-bit defaults off, 64-bit types become 32-bit ones."""
    dtype = np.dtype(dtype)
    if enable_x64() or dtype.itemsize != 8 or dtype.kind not in "iuf":
        return dtype
    return np.dtype(f"{dtype.kind}4")

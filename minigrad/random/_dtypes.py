"""The default dtypes of minigrad.random: minigrad's own (``minigrad.dtypes``), so the
``jax_enable_x64`` flag (``minigrad.config``, on by default) switches the samplers between
float64/int64 defaults and JAX's 32-bit ones, as it switches the rest of minigrad."""

from __future__ import annotations

import numpy as np

from minigrad import dtypes


def default_float() -> np.dtype:
    return dtypes.default_float_dtype()


def default_int() -> np.dtype:
    return dtypes.default_int_dtype()


def default_uint() -> np.dtype:
    return dtypes.default_uint_dtype()


def canonical(dtype: np.dtype) -> np.dtype:
    """``dtype`` as JAX stores it: with 64-bit defaults off, 64-bit types become 32-bit ones."""
    return dtypes.canonicalize_dtype(dtype)

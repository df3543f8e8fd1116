"""When a function of ``minigrad.numpy`` may skip its primitives: the guards of the eager fast
paths (issue #26's performance target, +3 us over the NumPy call a function wraps).

A composite such as ``var`` binds eight primitives, and an eager bind costs ~1.5 us (the eval
trace's operand check, the Array view on and off), so the composite costs tens of us over the
NumPy it runs. When no transform is running and every operand is a concrete array that
``asarray`` would leave as it is, a fast path runs the same NumPy calls the primitives' impls
would, in the same order, and wraps the result once: the same values (bit for bit), dtype,
Array-ness and errors. Anything else (a tracer, a list, a Python scalar, a dtype to convert, an
option the fast path does not know, jax_debug_nans ever on) takes the general path, which is
the specification; tests/test_eager_fast_paths.py holds each fast path equal to it.

``ENABLED`` turns every fast path off (the tests compare both ways).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad import core
from minigrad.config import config, x64_enabled
from minigrad.dtypes import canonicalize_dtype

ENABLED = True

F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)


def eager() -> bool:
    """No transform is running (the eval trace is current), and the eval trace checks no
    results for NaN or inf (jax_debug_nans and jax_debug_infs are off here: the core's flag
    says whether either was ever on, and then the flags themselves are read)."""
    return ENABLED and core._get_current() is core.eval_trace and (
        not core._debug_numerics or not (config.read("jax_debug_nans")
                                         or config.read("jax_debug_infs")))


def real_float(x: Any) -> bool:
    """``x`` is an ndarray or Array of float32, or float64 with x64 on: ``asarray`` keeps it
    as it is (no conversion, native byte order)."""
    if type(x) is not np.ndarray and type(x) is not core.eager_array_type:
        return False
    dtype = x.dtype
    return dtype == F32 or (dtype == F64 and x64_enabled())


def wrap(x: np.ndarray | np.generic) -> Any:
    """A NumPy result as the eval trace hands it back: an Array (a NumPy scalar as a 0-d
    one), by the core's own conversion."""
    return core.to_eager_array(x)


_REAL_KINDS = frozenset("biuf")


def canonical_real(x: Any) -> bool:
    """``x`` is an ndarray or Array of a bool, integer or real float dtype that ``asarray``
    keeps as it is (native byte order, and 32-bit with x64 off)."""
    if type(x) is not np.ndarray and type(x) is not core.eager_array_type:
        return False
    dtype = x.dtype
    return (dtype.kind in _REAL_KINDS and dtype.isnative
            and canonicalize_dtype(dtype) == dtype)

"""The array API standard's inspection namespace: ``__array_api_version__`` and
``__array_namespace_info__()`` (capabilities, the one device, the default dtypes of each kind,
which follow ``jax_enable_x64``, and the dtypes supported)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad import dtypes
from minigrad.array import CPU, Device, check_device

__all__ = ["__array_api_version__", "__array_namespace_info__", "e", "euler_gamma", "from_dlpack",
           "inf", "nan", "newaxis", "pi"]

# The standard's constants: Python floats (as NumPy's and JAX's), and newaxis is None.
e, pi, euler_gamma = math.e, math.pi, 0.5772156649015329
inf, nan = math.inf, math.nan
newaxis = None


def from_dlpack(x: Any, /, *, device: Any = None, copy: bool | None = None) -> Any:
    """An Array from any object with ``__dlpack__`` (NumPy's from_dlpack: no copy unless
    ``copy=True``)."""
    from minigrad.numpy.util import asarray

    check_device(device, "from_dlpack")
    out = np.from_dlpack(x, copy=copy)
    return asarray(out)

__array_api_version__ = "2024.12"

_KINDS = {
    "bool": ["bool"],
    "signed integer": ["int8", "int16", "int32", "int64"],
    "unsigned integer": ["uint8", "uint16", "uint32", "uint64"],
    "real floating": ["float32", "float64"],
    "complex floating": ["complex64", "complex128"],
}
_KINDS["integral"] = _KINDS["signed integer"] + _KINDS["unsigned integer"]
_KINDS["numeric"] = _KINDS["integral"] + _KINDS["real floating"] + _KINDS["complex floating"]


class Info:
    """What ``__array_namespace_info__()`` returns (the standard's inspection API)."""

    __module__ = "minigrad.numpy"

    def capabilities(self) -> dict[str, Any]:
        # boolean masks and unique/nonzero work eagerly; under jit and vmap they are errors,
        # as the standard allows for data-dependent shapes
        return {"boolean indexing": True, "data-dependent shapes": True,
                "max dimensions": 64}

    def default_device(self) -> Device:
        return CPU

    def devices(self) -> list[Device]:
        return [CPU]

    def default_dtypes(self, *, device: Any = None) -> dict[str, np.dtype]:
        check_device(device, "default_dtypes")
        return {"real floating": dtypes.default_float_dtype(),
                "complex floating": dtypes.default_complex_dtype(),
                "integral": dtypes.default_int_dtype(),
                "indexing": dtypes.default_int_dtype()}

    def dtypes(self, *, device: Any = None, kind: str | tuple[str, ...] | None = None
               ) -> dict[str, np.dtype]:
        check_device(device, "dtypes")
        kinds = ("bool", "numeric") if kind is None else \
            (kind,) if isinstance(kind, str) else tuple(kind)
        names: list[str] = []
        for k in kinds:
            if k not in _KINDS:
                raise ValueError(f"dtypes: kind must be one of {sorted(_KINDS)} (or a tuple of "
                                 f"them); got {k!r}")
            names += [n for n in _KINDS[k] if n not in names]
        if not dtypes.x64_enabled():  # only the canonical dtypes exist in the 32-bit world
            names = [n for n in names if dtypes.canonicalize_dtype(n) == np.dtype(n)]
        return {n: np.dtype(n) for n in names}


def __array_namespace_info__() -> Info:
    return Info()

"""Dtypes: the names (NumPy's scalar types, so ``x.dtype == mnp.float32`` holds), promotion
(``result_type``, ``promote_types``: NumPy 2's rules, Python scalars weak, canonicalized for
``jax_enable_x64``), ``can_cast``, ``isdtype``, ``finfo``/``iinfo``, and ``astype``.

Calling a dtype name (``mnp.float32(1.0)``) gives a NumPy scalar, not an array: a documented
difference from JAX, whose dtype names build arrays.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.array import check_device
from minigrad.core import Tracer, get_aval
from minigrad.numpy.util import ArrayLike, asarray, copy_of, dtype_arg, is_array, result_dtype
from minigrad.ops import elementwise as ew

__all__ = [  # what minigrad.numpy exports from here
    "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128", "inexact", "floating",
    "integer", "signedinteger", "unsignedinteger", "complexfloating", "number", "generic",
    "dtype", "result_type", "promote_types", "can_cast", "isdtype", "issubdtype", "finfo",
    "iinfo", "astype", "iscomplexobj", "isrealobj", "isscalar",
]

bool_ = np.bool_
int8, int16, int32, int64 = np.int8, np.int16, np.int32, np.int64
uint8, uint16, uint32, uint64 = np.uint8, np.uint16, np.uint32, np.uint64
float16, float32, float64 = np.float16, np.float32, np.float64
complex64, complex128 = np.complex64, np.complex128
generic, number, inexact, floating = np.generic, np.number, np.inexact, np.floating
integer, signedinteger, unsignedinteger = np.integer, np.signedinteger, np.unsignedinteger
complexfloating = np.complexfloating
dtype = np.dtype


def _dtype_of(x: Any, fn: str) -> np.dtype:
    if isinstance(x, (Tracer, np.ndarray, np.generic)):
        return get_aval(x).dtype
    try:
        return np.dtype(x)
    except TypeError:
        raise TypeError(f"{fn}: expected an array or a dtype; got {x!r}") from None


def result_type(*arrays_and_dtypes: Any) -> np.dtype:
    """The dtype NumPy 2's promotion gives (Python scalars weak), canonicalized."""
    if not arrays_and_dtypes:
        raise ValueError("result_type: needs at least one array or dtype")
    items = [x if is_array(x) or isinstance(x, (bool, int, float, complex))
             else np.dtype(x) for x in arrays_and_dtypes]
    return result_dtype(*[np.empty(0, x) if isinstance(x, np.dtype) else x for x in items])


def promote_types(type1: Any, type2: Any) -> np.dtype:
    return result_dtype(np.empty(0, _dtype_of(type1, "promote_types")),
                        np.empty(0, _dtype_of(type2, "promote_types")))


def can_cast(from_: Any, to: Any, casting: str = "safe") -> bool:
    return bool(np.can_cast(_dtype_of(from_, "can_cast"), np.dtype(to),
                            casting))  # type: ignore[arg-type]


def isdtype(dtype: Any, kind: Any) -> Any:
    """The array API's dtype-kind test (``'real floating'``, ``'integral'``, a dtype, or a
    tuple of them)."""
    return np.isdtype(np.dtype(dtype), kind)


def issubdtype(arg1: Any, arg2: Any) -> Any:
    return np.issubdtype(arg1, arg2)


class finfo:
    """NumPy's finfo with the array API's types: ``bits`` an int; ``eps``, ``max``, ``min``,
    ``smallest_normal`` Python floats; ``dtype`` the real dtype. Other attributes are
    NumPy's."""

    def __init__(self, type: Any):
        self._info = info = np.finfo(_dtype_of(type, "finfo"))
        self.bits, self.dtype = int(info.bits), info.dtype
        self.eps, self.max, self.min = float(info.eps), float(info.max), float(info.min)
        self.smallest_normal = float(info.smallest_normal)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._info, name)

    def __repr__(self) -> str:
        return repr(self._info)


def iinfo(type: Any) -> np.iinfo:
    return np.iinfo(_dtype_of(type, "iinfo"))


def astype(x: ArrayLike, dtype: Any, /, *, copy: bool = True, device: Any = None) -> Any:
    """``x`` converted to ``dtype`` (the array API's signature): always a new array, as
    NumPy's ``astype`` by default; with ``copy=False``, ``x`` itself when it has the dtype."""
    check_device(device, "astype")
    if not isinstance(copy, (bool, np.bool_)):
        raise TypeError(f"astype: copy must be a bool; got {copy!r}")
    x = asarray(x)
    out = ew.convert_element_type(x, dtype_arg(dtype, "astype"))
    return copy_of(out) if copy and out is x else out


def iscomplexobj(x: Any) -> Any:
    return _dtype_of(asarray(x), "iscomplexobj").kind == "c"


def isrealobj(x: Any) -> Any:
    return not iscomplexobj(x)


def isscalar(element: Any) -> Any:
    """True for a Python or NumPy scalar and a 0-d array (JAX's definition)."""
    if isinstance(element, (Tracer, np.ndarray)):
        return get_aval(element).ndim == 0
    return np.isscalar(element)

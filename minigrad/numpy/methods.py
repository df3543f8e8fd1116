"""Tracers' operators and methods, and NumPy's protocols on tracers (``np.sin(t)``).

The core defines Tracer without arithmetic: minigrad.numpy is built on the ops, which are built
on the core, so the operators are installed on the class from here (as jax.numpy installs its
operators), not imported by the core.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from minigrad.core import Tracer, get_aval
from minigrad.numpy import bitwise as _bitwise
from minigrad.numpy import creation as _creation
from minigrad.numpy import cumulative as _cumulative
from minigrad.numpy import division as _division
from minigrad.numpy import joining as _joining
from minigrad.numpy import nanfunctions as _nanfunctions
from minigrad.numpy import reductions as _reductions
from minigrad.numpy import selection as _selection
from minigrad.numpy import setops as _setops
from minigrad.numpy import shape as _shape
from minigrad.numpy import sorting as _sorting
from minigrad.numpy import statistics as _statistics
from minigrad.numpy import ufuncs as _ufuncs
from minigrad.numpy.at import IndexUpdateHelper
from minigrad.numpy.contractions import dot, matmul, vdot
from minigrad.numpy.creation import full_like, ones_like, zeros_like
from minigrad.numpy.cumulative import cumsum
from minigrad.numpy.dtypes import astype, result_type
from minigrad.numpy.index_tricks import choose, compress, nonzero
from minigrad.numpy.indexing import getitem, take
from minigrad.numpy.joining import concatenate, stack
from minigrad.numpy.reductions import max, mean, sum
from minigrad.numpy.selection import clip, conj, where
from minigrad.numpy.shape import (
    broadcast_to,
    expand_dims,
    moveaxis,
    ravel,
    reshape,
    squeeze,
    swapaxes,
    transpose,
)
from minigrad.numpy.ufuncs import (
    OPERATORS,
    add,
    divide,
    multiply,
    subtract,
)
from minigrad.numpy.util import asarray
from minigrad.ops.index_add import index_add
from minigrad.ops.index_copy import index_copy
from minigrad.ops.index_fill import index_fill
from minigrad.ops.masked_fill import masked_fill
from minigrad.ops.masked_scatter import masked_scatter
from minigrad.rebind import augmented, check_updatable, rebind, untraced_target

# NumPy's ufuncs on tracers (np.sin(t)): every ufunc minigrad.numpy implements, by name (NumPy's
# aliases, true_divide and mod, are the same objects as divide and remainder)
_UFUNC_NAMES = (
    "add subtract multiply divide floor_divide remainder fmod power float_power maximum minimum "
    "fmax fmin arctan2 hypot logaddexp logaddexp2 copysign heaviside nextafter ldexp equal "
    "not_equal less less_equal greater greater_equal logical_and logical_or logical_xor "
    "bitwise_and bitwise_or bitwise_xor left_shift right_shift absolute fabs negative positive "
    "sign floor ceil trunc rint sqrt cbrt square reciprocal exp exp2 expm1 log log2 log10 log1p "
    "sin cos tan arcsin arccos arctan sinh cosh tanh arcsinh arccosh arctanh deg2rad rad2deg "
    "radians degrees isnan isinf isfinite signbit logical_not invert bitwise_count conjugate "
    "spacing divmod frexp modf").split()
_UFUNCS: dict[Any, Callable[..., Any]] = {
    getattr(np, name): next(getattr(m, name) for m in (_ufuncs, _division, _selection, _bitwise)
                            if hasattr(m, name))
    for name in _UFUNC_NAMES}
_UFUNCS[np.matmul] = matmul

_FUNCTIONS: dict[Any, Callable[..., Any]] = {
    np.sum: sum, np.max: max, np.amax: max, np.mean: mean, np.reshape: reshape,
    np.ravel: ravel, np.transpose: transpose, np.moveaxis: moveaxis, np.swapaxes: swapaxes,
    np.squeeze: squeeze, np.expand_dims: expand_dims, np.concatenate: concatenate,
    np.stack: stack, np.cumsum: cumsum, np.matmul: matmul, np.dot: dot, np.vdot: vdot,
    np.take: take, np.where: where, np.zeros_like: zeros_like, np.ones_like: ones_like,
    np.clip: clip, np.round: _ufuncs.round, np.around: _ufuncs.round, np.real: _selection.real,
    np.imag: _selection.imag, np.sinc: _ufuncs.sinc, np.nan_to_num: _selection.nan_to_num,
    np.fix: _ufuncs.fix, np.isposinf: _ufuncs.isposinf, np.isneginf: _ufuncs.isneginf,
    np.isclose: _selection.isclose, np.result_type: result_type,
    np.full_like: full_like, np.broadcast_to: broadcast_to, np.shape: lambda x: x.shape,
    np.ndim: lambda x: x.ndim, np.size: lambda x: x.size,
}
# the reduction family: NumPy's function of each name (np.sum ... np.nanstd)
_FUNCTIONS.update({getattr(np, name): getattr(module, name)
                   for module in (_reductions, _cumulative, _nanfunctions, _sorting,
                                  _statistics, _setops)
                   for name in module.__all__ if hasattr(np, name)})


def _array_ufunc(self: Tracer, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
    fn = _UFUNCS.get(ufunc)
    out = kwargs.get("out")
    if out is not None and any(isinstance(o, np.ndarray) for o in out):  # ndarray += tracer
        raise untraced_target(f"numpy.{ufunc.__name__} into an array", self._trace.transform)
    if fn is None or method != "__call__" or kwargs:
        what = ufunc.__name__ + ("" if method == "__call__" else f".{method}")
        extra = f" with keyword arguments {sorted(kwargs)}" if kwargs and fn else ""
        raise TypeError(f"numpy.{what}{extra} is not supported on minigrad tracers; use the "
                        f"functions in minigrad.numpy")
    return fn(*inputs)


def _namesake(func: Any) -> Callable[..., Any] | None:
    """minigrad.numpy's function of the same name as NumPy's ``func`` (np.einsum,
    np.linalg.solve, np.fft.fft ...), or None; looked up on first use (the namespace is not
    complete while this module is imported) and remembered."""
    import importlib

    module = getattr(func, "__module__", None) or ""
    if module != "numpy" and not module.startswith("numpy."):
        return None
    sub = module.split(".")[1:2]  # numpy.linalg -> minigrad.numpy.linalg; numpy._core -> top
    try:
        ours = importlib.import_module("minigrad.numpy" + (
            f".{sub[0]}" if sub and not sub[0].startswith("_") else ""))
    except ImportError:
        return None
    fn = getattr(ours, func.__name__, None) if func.__name__ in getattr(ours, "__all__", ()) \
        else None
    if fn is not None:
        _FUNCTIONS[func] = fn
    return fn


def _array_function(self: Tracer, func: Any, types: Any, args: tuple, kwargs: dict) -> Any:
    fn = _FUNCTIONS.get(func) or _namesake(func)
    if fn is None:
        name = f"{getattr(func, '__module__', None) or 'numpy'}.{func.__name__}"
        raise TypeError(f"{name} is not supported on minigrad tracers; use the "
                        f"functions in minigrad.numpy")
    return fn(*args, **kwargs)


# --------------------------------------------------------------------------- tracer methods

# The core defines Tracer without arithmetic: the functions above are built on the ops, which
# are built on the core, so they are installed on the class from here (as jax.numpy installs
# its operators), not imported by the core.
def _swap(fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """The reflected operator: ``other + t`` calls ``t.__radd__(other)``."""
    return lambda x, other: fn(other, x)


def _pow(x: Any, other: Any, mod: Any = None) -> Any:
    if mod is not None:
        raise TypeError("pow() with a modulus is not supported on minigrad arrays")
    return _w["power"](x, other)


def _round(x: Any, ndigits: Any = None) -> Any:
    return _ufuncs.round(x, 0 if ndigits is None else ndigits)


_w = OPERATORS  # (Python's operators on numbers keep them numbers: weak)
_TRACER_METHODS: dict[str, Callable[..., Any]] = {
    "__neg__": _w["negative"], "__pos__": _ufuncs.positive, "__abs__": _ufuncs.absolute,
    "__invert__": _bitwise.invert, "__round__": _round,
    "__add__": _w["add"], "__radd__": _swap(_w["add"]),
    "__sub__": _w["sub"], "__rsub__": _swap(_w["sub"]),
    "__mul__": _w["mul"], "__rmul__": _swap(_w["mul"]),
    "__truediv__": _w["div"], "__rtruediv__": _swap(_w["div"]),
    "__floordiv__": _division.floor_divide, "__rfloordiv__": _swap(_division.floor_divide),
    "__mod__": _division.remainder, "__rmod__": _swap(_division.remainder),
    "__divmod__": _division.divmod, "__rdivmod__": _swap(_division.divmod),
    "__pow__": _pow, "__rpow__": _swap(_w["power"]),
    "__matmul__": matmul, "__rmatmul__": _swap(matmul),
    "__and__": _bitwise.bitwise_and, "__rand__": _swap(_bitwise.bitwise_and),
    "__or__": _bitwise.bitwise_or, "__ror__": _swap(_bitwise.bitwise_or),
    "__xor__": _bitwise.bitwise_xor, "__rxor__": _swap(_bitwise.bitwise_xor),
    "__lshift__": _bitwise.left_shift, "__rlshift__": _swap(_bitwise.left_shift),
    "__rshift__": _bitwise.right_shift, "__rrshift__": _swap(_bitwise.right_shift),
    # x += y updates x in place, as NumPy's does: every name for x sees it
    "__iadd__": augmented(add, "+="), "__isub__": augmented(subtract, "-="),
    "__imul__": augmented(multiply, "*="), "__itruediv__": augmented(divide, "/="),
    "__ipow__": augmented(_division.power, "**="), "__imatmul__": augmented(matmul, "@="),
    "__ifloordiv__": augmented(_division.floor_divide, "//="),
    "__imod__": augmented(_division.remainder, "%="),
    "__iand__": augmented(_bitwise.bitwise_and, "&="),
    "__ior__": augmented(_bitwise.bitwise_or, "|="),
    "__ixor__": augmented(_bitwise.bitwise_xor, "^="),
    "__ilshift__": augmented(_bitwise.left_shift, "<<="),
    "__irshift__": augmented(_bitwise.right_shift, ">>="),
    "__eq__": _w["eq"], "__ne__": _w["ne"], "__lt__": _w["lt"], "__le__": _w["le"],
    "__gt__": _w["gt"], "__ge__": _w["ge"], "__getitem__": getitem,
    "__array_ufunc__": _array_ufunc, "__array_function__": _array_function,
    "sum": sum, "max": max, "mean": mean, "transpose": transpose,
    # x.reshape(2, 3) as well as x.reshape((2, 3)), as ndarray's method
    "reshape": lambda x, *shape, **kw: reshape(x, shape[0] if len(shape) == 1 else shape, **kw),
    "squeeze": squeeze, "astype": astype, "cumsum": cumsum, "take": take, "ravel": ravel,
    "swapaxes": swapaxes, "dot": dot,
    # indexing: t.nonzero(size=...), t.compress(condition), t.choose(choices)
    "nonzero": nonzero, "compress": lambda x, condition, *a, **k: compress(condition, x, *a, **k),
    "choose": choose,
    # the elementwise methods (x.real and x.imag are properties, below)
    "clip": clip, "conj": conj, "conjugate": conj,
    "round": lambda x, decimals=0, out=None: _ufuncs.round(x, decimals, out),
    # the five ops: t.index_add(dim, index, source)
    "index_add": index_add, "index_copy": index_copy, "index_fill": index_fill,
    "masked_fill": masked_fill, "masked_scatter": masked_scatter,
}
# the reduction family's methods (ndarray's names and signatures, as JAX's arrays have them)
_TRACER_METHODS.update({name: getattr(_reductions, name) for name in (
    "all", "any", "argmax", "argmin", "max", "mean", "min", "prod", "ptp", "std", "sum", "var")})
_TRACER_METHODS.update({"cumsum": _cumulative.cumsum, "cumprod": _cumulative.cumprod,
                        "sort": _sorting.sort, "argsort": _sorting.argsort,
                        "searchsorted": _sorting.searchsorted})
for _name, _method in _TRACER_METHODS.items():
    setattr(Tracer, _name, _method)
Tracer.T = property(transpose)  # type: ignore[attr-defined]

# the rest of jax.Array's methods and properties that mean something on a traced value (the
# array API's members follow below)
def _copy(x: Any) -> Any:
    from minigrad.numpy.creation import array
    return array(x, copy=True)


_TRACER_METHODS_MORE: dict[str, Callable[..., Any]] = {
    "copy": _copy, "flatten": lambda x, order="C": _copy(ravel(x, order)),
    "diagonal": _creation.diagonal, "repeat": _joining.repeat,
    "argpartition": _sorting.argpartition,
    "block_until_ready": lambda x: x,
}
for _name, _method in _TRACER_METHODS_MORE.items():
    setattr(Tracer, _name, _method)
Tracer.itemsize = property(lambda x: np.dtype(x.dtype).itemsize)  # type: ignore[attr-defined]
Tracer.nbytes = property(lambda x: np.dtype(x.dtype).itemsize * x.size)  # type: ignore[attr-defined]

# x.at[key].set(v) ...: JAX's functional updates, on tracers and on eager Arrays alike
Tracer.at = property(IndexUpdateHelper)  # type: ignore[attr-defined]
Tracer.real = property(_selection.real)  # type: ignore[attr-defined]
Tracer.imag = property(_selection.imag)  # type: ignore[attr-defined]

# The array API standard's members of an array, on tracers as on eager Arrays: code written
# against ``xp = x.__array_namespace__()`` then runs under every transform.


def _array_namespace(self: Tracer, /, *, api_version: str | None = None) -> Any:
    """minigrad.numpy (the array API namespace of minigrad's arrays and tracers)."""
    from minigrad.array import array_namespace

    return array_namespace(api_version)


def _to_device(self: Tracer, device: Any, /, *, stream: Any = None) -> Tracer:
    from minigrad.array import check_device

    check_device(device, "to_device")
    if stream is not None:
        raise ValueError(f"to_device: stream must be None on the CPU; got {stream!r}")
    return self


def _device(self: Tracer) -> Any:
    from minigrad.array import CPU

    return CPU


def _setitem(self: Tracer, key: Any, value: Any) -> None:
    """``x[key] = value``, as on a NumPy array: an update in place, the tracer rebound to
    ``x.at[key].set(value)`` (``minigrad/rebind.py``: a view of a tracer cannot be updated). A
    boolean mask of x's shape with one value is ``where(mask, value, x)``, whose shape is
    static, so it works under vmap and jit too (array-API code, SciPy's ``at``, writes so)."""
    what = "x[key] = y"
    check_updatable(self, what)
    if _is_mask_of(key, self) and get_aval(value).ndim == 0:
        out = where(key, astype(asarray(value), self.aval.dtype), self)
    else:
        out = self.at[key].set(value)  # type: ignore[attr-defined]
    rebind(self, out, what)


def _is_mask_of(key: Any, x: Tracer) -> bool:
    if not isinstance(key, (Tracer, np.ndarray)):
        return False
    aval = get_aval(key)
    return bool(aval.dtype == np.bool_ and aval.shape == x.aval.shape)


Tracer.__setitem__ = _setitem  # type: ignore[attr-defined,index]
Tracer.__array_namespace__ = _array_namespace  # type: ignore[attr-defined]
Tracer.to_device = _to_device  # type: ignore[attr-defined]
Tracer.device = property(_device)  # type: ignore[attr-defined]
Tracer.mT = property(_shape.matrix_transpose)  # type: ignore[attr-defined]

"""Tracers' operators and methods, and NumPy's protocols on tracers (``np.sin(t)``).

The core defines Tracer without arithmetic: minigrad.numpy is built on the ops, which are built
on the core, so the operators are installed on the class from here (as jax.numpy installs its
operators), not imported by the core.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from minigrad.core import Tracer
from minigrad.numpy.at import IndexUpdateHelper
from minigrad.numpy.contractions import dot, matmul, vdot
from minigrad.numpy.creation import full_like, ones_like, zeros_like
from minigrad.numpy.dtypes import astype
from minigrad.numpy.index_tricks import choose, compress, nonzero
from minigrad.numpy.indexing import getitem, take
from minigrad.numpy.joining import concatenate, stack
from minigrad.numpy.reductions import cumsum, max, mean, sum
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
    cos,
    divide,
    equal,
    exp,
    greater,
    greater_equal,
    less,
    less_equal,
    log,
    maximum,
    minimum,
    multiply,
    negative,
    not_equal,
    power,
    sin,
    sqrt,
    square,
    subtract,
    tanh,
    where,
)
from minigrad.numpy.util import copy_of
from minigrad.ops.index_add import index_add
from minigrad.ops.index_copy import index_copy
from minigrad.ops.index_fill import index_fill
from minigrad.ops.masked_fill import masked_fill
from minigrad.ops.masked_scatter import masked_scatter
from minigrad.rebind import augmented, untraced_target

_UFUNCS: dict[Any, Callable[..., Any]] = {
    np.add: add, np.subtract: subtract, np.multiply: multiply, np.divide: divide,
    np.power: power, np.maximum: maximum, np.minimum: minimum, np.negative: negative,
    np.exp: exp, np.log: log, np.sin: sin, np.cos: cos, np.tanh: tanh, np.sqrt: sqrt,
    np.square: square, np.equal: equal, np.not_equal: not_equal, np.less: less,
    np.less_equal: less_equal, np.greater: greater, np.greater_equal: greater_equal,
    np.matmul: matmul,
}

_FUNCTIONS: dict[Any, Callable[..., Any]] = {
    np.sum: sum, np.max: max, np.amax: max, np.mean: mean, np.reshape: reshape,
    np.ravel: ravel, np.transpose: transpose, np.moveaxis: moveaxis, np.swapaxes: swapaxes,
    np.squeeze: squeeze, np.expand_dims: expand_dims, np.concatenate: concatenate,
    np.stack: stack, np.cumsum: cumsum, np.matmul: matmul, np.dot: dot, np.vdot: vdot,
    np.take: take, np.where: where, np.zeros_like: zeros_like, np.ones_like: ones_like,
    np.full_like: full_like, np.broadcast_to: broadcast_to, np.shape: lambda x: x.shape,
    np.ndim: lambda x: x.ndim, np.size: lambda x: x.size,
}


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


def _array_function(self: Tracer, func: Any, types: Any, args: tuple, kwargs: dict) -> Any:
    fn = _FUNCTIONS.get(func)
    if fn is None:
        name = f"{getattr(func, '__module__', None) or 'numpy'}.{func.__name__}"
        raise TypeError(f"{name} is not supported on minigrad tracers; use the "
                        f"functions in minigrad.numpy")
    return fn(*args, **kwargs)


# --------------------------------------------------------------------------- tracer methods

# The core defines Tracer without arithmetic: the functions above are built on the ops, which
# are built on the core, so they are installed on the class from here (as jax.numpy installs
# its operators), not imported by the core.
_w = OPERATORS  # (Python's operators on numbers keep them numbers: weak)
_TRACER_METHODS: dict[str, Callable[..., Any]] = {
    "__neg__": _w["negative"], "__pos__": copy_of,
    "__add__": _w["add"], "__radd__": lambda x, o: _w["add"](o, x),
    "__sub__": _w["sub"], "__rsub__": lambda x, o: _w["sub"](o, x),
    "__mul__": _w["mul"], "__rmul__": lambda x, o: _w["mul"](o, x),
    "__truediv__": _w["div"], "__rtruediv__": lambda x, o: _w["div"](o, x),
    "__pow__": _w["power"], "__rpow__": lambda x, o: _w["power"](o, x),
    "__matmul__": matmul, "__rmatmul__": lambda x, o: matmul(o, x),
    # x += y updates x in place, as NumPy's does: every name for x sees it
    "__iadd__": augmented(add, "+="), "__isub__": augmented(subtract, "-="),
    "__imul__": augmented(multiply, "*="), "__itruediv__": augmented(divide, "/="),
    "__ipow__": augmented(power, "**="), "__imatmul__": augmented(matmul, "@="),
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
    # the five ops: t.index_add(dim, index, source)
    "index_add": index_add, "index_copy": index_copy, "index_fill": index_fill,
    "masked_fill": masked_fill, "masked_scatter": masked_scatter,
}
for _name, _method in _TRACER_METHODS.items():
    setattr(Tracer, _name, _method)
Tracer.T = property(transpose)  # type: ignore[attr-defined]

# x.at[key].set(v) ...: JAX's functional updates, on tracers and on eager Arrays alike
Tracer.at = property(IndexUpdateHelper)  # type: ignore[attr-defined]

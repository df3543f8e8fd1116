"""Elementwise functions: NumPy's ufuncs over the elementwise primitives.

Each is defined through one of two family helpers: ``_binary`` promotes and broadcasts its two
operands (NumPy 2's rules), ``_unary`` converts an integer operand to float where NumPy does.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from minigrad.core import get_aval
from minigrad.dtypes import default_float_dtype
from minigrad.numpy.util import ArrayLike, asarray, check_broadcast, float_dtype, is_array, promote
from minigrad.ops import elementwise as ew
from minigrad.ops import structural as st

__all__ = [  # what minigrad.numpy exports from here
    "add", "cos", "divide", "equal", "exp", "greater", "greater_equal", "less",
    "less_equal", "log", "maximum", "minimum", "multiply", "negative", "not_equal",
    "power", "sin", "sqrt", "square", "subtract", "tanh", "true_divide", "where",
]


# The tracer's operators, by primitive name: the same computations as the functions, keeping
# weak types weak (Python's arithmetic keeps numbers numbers; NumPy's functions make arrays).
OPERATORS: dict[str, Callable[..., Any]] = {}


def _binary(prim_fn: Callable[[Any, Any], Any], float_only: bool = False
            ) -> Callable[[ArrayLike, ArrayLike], Any]:
    def fn(x: ArrayLike, y: ArrayLike) -> Any:
        dtype = float_dtype(x, y) if float_only else None
        return prim_fn(*promote(x, y, dtype=dtype, name=fn.__name__))

    def operator(x: ArrayLike, y: ArrayLike) -> Any:
        dtype = float_dtype(x, y) if float_only else None
        return prim_fn(*promote(x, y, dtype=dtype, name=fn.__name__, keep_weak=True))

    fn.__name__ = prim_fn.__name__
    OPERATORS[fn.__name__] = operator
    return fn


def _unary(prim_fn: Callable[[Any], Any], float_only: bool = True) -> Callable[[ArrayLike], Any]:
    def fn(x: ArrayLike) -> Any:
        x = asarray(x)
        if float_only and get_aval(x).dtype.kind not in "fc":  # float_dtype(x), for one x
            x = ew.convert_element_type(x, default_float_dtype())
        return prim_fn(x)

    fn.__name__ = prim_fn.__name__
    return fn


add = _binary(ew.add)
subtract = _binary(ew.sub)
multiply = _binary(ew.mul)
divide = true_divide = _binary(ew.div, float_only=True)
_power = _binary(ew.pow_)


def power(x: ArrayLike, y: ArrayLike) -> Any:
    """``x ** y``; a Python int exponent uses the cheaper ``integer_pow``."""
    return _power_of(x, y, keep_weak=False)


def _power_of(x: ArrayLike, y: ArrayLike, keep_weak: bool) -> Any:
    if isinstance(y, int) and not isinstance(y, bool) and is_array(x):
        x = x if keep_weak else asarray(x)
        dtype = get_aval(x).dtype
        if y < 0 and not np.issubdtype(dtype, np.inexact):
            raise ValueError("power: integers to negative integer powers are not allowed")
        return ew.integer_pow(x, y)
    return OPERATORS["pow_"](x, y) if keep_weak else _power(x, y)


OPERATORS["power"] = lambda x, y: _power_of(x, y, keep_weak=True)
OPERATORS["negative"] = lambda x: ew.neg(x)  # (an operator's operand is a tracer)


maximum = _binary(ew.maximum)
equal = _binary(ew.eq)
not_equal = _binary(ew.ne)
less = _binary(ew.lt)
less_equal = _binary(ew.le)
greater = _binary(ew.gt)
greater_equal = _binary(ew.ge)
negative = _unary(ew.neg, float_only=False)
exp = _unary(ew.exp)
log = _unary(ew.log)
sin = _unary(ew.sin)
cos = _unary(ew.cos)
tanh = _unary(ew.tanh)
sqrt = _unary(ew.sqrt)


def minimum(x: ArrayLike, y: ArrayLike) -> Any:
    x, y = promote(x, y)  # first, so that a Python scalar takes the array's dtype
    if np.issubdtype(get_aval(x).dtype, np.inexact):
        return negative(maximum(negative(x), negative(y)))  # max's tie and NaN semantics
    return ew.select(ew.le(x, y), x, y)  # integers and bools: negation would wrap


def square(x: ArrayLike) -> Any:
    x = asarray(x)
    return multiply(x, x)


def where(condition: ArrayLike, x: ArrayLike = None, y: ArrayLike = None, /, *,
          size: int | None = None, fill_value: Any = None) -> Any:
    """``x`` where ``condition`` holds, else ``y``, with NumPy broadcasting; alone,
    ``where(condition)`` is ``nonzero(condition, size=size, fill_value=fill_value)``."""
    if x is None and y is None:
        from minigrad.numpy.index_tricks import nonzero  # (no cycle: it never imports ufuncs)

        return nonzero(condition, size=size, fill_value=fill_value)
    if x is None or y is None:
        raise ValueError("where: either both or neither of x and y must be given")
    condition = asarray(condition)
    if get_aval(condition).dtype != np.bool_:
        condition = not_equal(condition, 0)
    x, y = promote(x, y, name="where")
    shape = check_broadcast("where", get_aval(condition).shape, get_aval(x).shape)
    return ew.select(st.broadcast_to(condition, shape), st.broadcast_to(x, shape),
                     st.broadcast_to(y, shape))


"""Elementwise functions that choose between values: ``where``, ``clip``, ``fmax``/``fmin``,
``heaviside``, ``copysign``, ``nan_to_num``, ``isclose``, and the complex-number accessors
``real``/``imag``/``conj`` (``ops/complex.py``'s primitives for complex operands). Each of the
others is a ``select`` over comparisons, so each passes the derivative of the value it chose
(JAX's gradients at the ties: ``clip`` is ``minimum(hi, maximum(lo, x))`` and splits a bound's
derivative half and half; ``fmax`` gives a tie to its second argument).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad.core import get_aval
from minigrad.numpy import util
from minigrad.numpy.util import ArrayLike, asarray
from minigrad.ops import binary as bi
from minigrad.ops import complex as cx
from minigrad.ops import elementwise as ew
from minigrad.ops import unary as un

__all__ = [  # what minigrad.numpy exports from here
    "clip", "conj", "conjugate", "copysign", "fmax", "fmin", "heaviside", "imag", "isclose",
    "nan_to_num", "real", "where",
]


def _const(x: Any, value: float) -> Any:
    return ew.full_like(x, value)


def _truth(x: ArrayLike) -> Any:
    """``x != 0`` (NaN is true, as in NumPy); a bool array as it is."""
    if not (type(x) is np.ndarray and x.dtype == np.bool_):
        x = asarray(x)
    return x if get_aval(x).dtype == np.bool_ else ew.ne(x, _const(x, 0))


def where(condition: ArrayLike, x: ArrayLike = None, y: ArrayLike = None, /, *,
          size: Any = None, fill_value: Any = None) -> Any:
    """``x`` where ``condition`` holds (is non-zero), else ``y``, broadcast together; ``x``
    and ``y`` promoted as NumPy's ``where`` does (Python scalars weak)."""
    if x is None and y is None:  # where(condition) is nonzero(condition)
        from minigrad.numpy.index_tricks import nonzero  # (deferred: index_tricks imports us)

        return nonzero(condition, size=size, fill_value=fill_value)
    if x is None or y is None:
        raise ValueError("where: either both or neither of x and y must be given")
    if size is not None or fill_value is not None:
        raise ValueError("where: size and fill_value apply only to the one-argument form")
    dtype = util.result_dtype(x, y)
    ops = [_truth(condition), util.convert(x, dtype, "where"), util.convert(y, dtype, "where")]
    return ew.select(*util.broadcast_operands("where", ops))


def clip(arr: ArrayLike = None, /, min: ArrayLike = None, max: ArrayLike = None) -> Any:
    """``minimum(max, maximum(min, arr))``, either bound optional: at a bound the derivative
    is split half to ``arr`` and half to the bound; ``min > max`` gives ``max`` (as NumPy and
    JAX). The dtype is NumPy's promotion of the three (Python scalars weak).

    >>> import minigrad as mg, minigrad.numpy as mnp
    >>> [float(g) for g in mg.grad(mnp.clip, argnums=(0, 1, 2))(1.0, 1.0, 2.0)]
    [0.5, 0.5, 0.0]
    """
    if arr is None:
        raise TypeError("clip: the array argument is required")
    bounds = [b for b in (min, max) if b is not None]
    dtype = util.result_dtype(arr, *bounds)
    x = util.convert(arr, dtype, "clip")
    if min is not None:
        x = ew.maximum(*util.broadcast_operands("clip", [util.convert(min, dtype, "clip"), x]))
    if max is not None:
        x = bi.minimum(*util.broadcast_operands("clip", [util.convert(max, dtype, "clip"), x]))
    return x if bounds else util.copy_of(x)


def _nan_aware(name: str, ufunc: np.ufunc, strict: Any) -> Any:
    def fn(x1: ArrayLike, x2: ArrayLike, /) -> Any:
        x, y = util.binary_operands(ufunc, name, x1, x2)
        y_nan = ew.ne(y, y)
        take_x = ew.select(y_nan, ew.full_like(y_nan, True), strict(x, y))
        return ew.select(*util.broadcast_operands(name, [take_x, x, y]))

    fn.__name__ = name
    return fn


fmax = _nan_aware("fmax", np.fmax, ew.gt)
fmax.__doc__ = ("The larger of the two, ignoring a NaN (NaN only if both are); a tie goes to "
                "x2, its value and its derivative (JAX's rule: fmax(0.0, -0.0) is -0.0).")
fmin = _nan_aware("fmin", np.fmin, ew.lt)
fmin.__doc__ = "The smaller of the two, ignoring a NaN; a tie goes to x2, as fmax."


def heaviside(x1: ArrayLike, x2: ArrayLike, /) -> Any:
    """0 where ``x1 < 0``, ``x2`` where ``x1 == 0``, 1 where ``x1 > 0``, NaN at NaN."""
    x, y = util.binary_operands(np.heaviside, "heaviside", x1, x2)
    x, y = util.broadcast_all("heaviside", x, y)
    zero = _const(x, 0)
    at_zero = ew.select(ew.ne(x, x), x, y)  # (NaN passes through as itself, as in JAX)
    return ew.select(ew.lt(x, zero), zero, ew.select(ew.gt(x, zero), _const(x, 1), at_zero))


def copysign(x1: ArrayLike, x2: ArrayLike, /) -> Any:
    """``|x1|`` with the sign bit of ``x2`` (so -0.0 and -NaN count as negative)."""
    x, y = util.binary_operands(np.copysign, "copysign", x1, x2)
    magnitude = un.abs_(x)
    return ew.select(*util.broadcast_operands("copysign", [un.signbit(y), ew.neg(magnitude),
                                                            magnitude]))


def nan_to_num(x: ArrayLike, copy: bool = True, nan: ArrayLike = 0.0,
               posinf: ArrayLike = None, neginf: ArrayLike = None) -> Any:
    """NaN, +inf and -inf replaced by ``nan``, ``posinf`` and ``neginf`` (default: 0 and the
    dtype's largest and smallest finite values); the derivative passes where ``x`` is finite
    and is 0 at the replaced entries. Integers and bools come back as they are."""
    x = asarray(x)
    dtype = get_aval(x).dtype
    if dtype.kind == "c":
        raise TypeError("nan_to_num: complex arrays are not supported by minigrad.numpy")
    if dtype.kind != "f":
        return util.copy_of(x)
    info = np.finfo(dtype)
    values = [nan, info.max if posinf is None else posinf, info.min if neginf is None else neginf]
    nan_c, pos_c, neg_c = (util.convert(v, dtype, "nan_to_num") for v in values)
    x, nan_c, pos_c, neg_c = util.broadcast_all("nan_to_num", x, nan_c, pos_c, neg_c)
    out = ew.select(ew.eq(x, _const(x, -math.inf)), neg_c, x)
    out = ew.select(ew.eq(x, _const(x, math.inf)), pos_c, out)
    return ew.select(ew.ne(x, x), nan_c, out)


def isclose(a: ArrayLike, b: ArrayLike, rtol: ArrayLike = 1e-05, atol: ArrayLike = 1e-08,
            equal_nan: bool = False) -> Any:
    """``|a - b| <= atol + rtol * |b|`` where ``b`` is finite, or ``a == b`` (infinities);
    NaNs equal only with ``equal_nan``. ``b`` is computed in floating point, as NumPy."""
    from minigrad.numpy import ufuncs as uf

    if not isinstance(equal_nan, (bool, np.bool_)):
        raise TypeError(f"isclose: equal_nan must be a bool; got {equal_nan!r}")
    y = asarray(b) if not isinstance(b, (int, float, complex)) else b
    if isinstance(y, int):
        y = float(y)
    elif not isinstance(y, (float, complex)):
        y = ew.convert_element_type(y, util.result_dtype(y, 1.0))
    close = uf.less_equal(uf.absolute(uf.subtract(a, y)),
                          uf.add(atol, uf.multiply(rtol, uf.absolute(y))))
    result = uf.logical_or(uf.logical_and(close, uf.isfinite(y)), uf.equal(a, y))
    if equal_nan:
        result = uf.logical_or(result, uf.logical_and(uf.isnan(a), uf.isnan(y)))
    return result


# --------------------------------------------------------------------------- complex parts


def _is_complex(x: Any) -> bool:
    return bool(get_aval(x).dtype.kind == "c")


def real(val: ArrayLike, /) -> Any:
    """The real part (a float array of the same precision); of a real array, a copy of it."""
    x = asarray(val)
    return cx.real(x) if _is_complex(x) else util.copy_of(x)


def imag(val: ArrayLike, /) -> Any:
    """The imaginary part (a float array of the same precision); zeros of a real array's
    dtype."""
    x = asarray(val)
    return cx.imag(x) if _is_complex(x) else ew.full_like(x, 0)


def conj(x: ArrayLike, /) -> Any:
    """The complex conjugate: of a real array, a copy of it (bools become int8, as NumPy)."""
    x = asarray(x)
    if _is_complex(x):
        return cx.conj(x)
    return util.copy_of(util.unary_operand(np.conjugate, "conj", x))


conjugate = conj

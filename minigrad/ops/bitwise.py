"""Integer bit operations, by JAX's lax names: ``and``, ``or``, ``xor``, ``not``,
``shift_left``, ``shift_right_logical``, ``shift_right_arithmetic``, ``population_count``,
``clz`` and ``bitcast_convert_type``.

Operands of the binary primitives have equal shapes and dtypes, as in ``elementwise.py``: the
NumPy layer broadcasts and promotes. The logical four take integers or bools, the others
integers only. Nothing here has a derivative: every output is integer or bool (a float0
tangent), except a bitcast to a float type, whose tangent is zero (JAX's ``defjvp_zero``). The
shifts are defined for every count, NumPy's and C's undefined ones included: a count outside
``[0, width)`` gives 0, and ``-1`` for an arithmetic right shift of a negative value.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Callable

import numpy as np

from minigrad.core import Primitive, ShapedArray, Zero, get_aval, tangent_dtype
from minigrad.ops.structural import bdim_to_front, vectorized_batch

INTEGER = "iu"
LOGICAL = "biu"  # the logical ops also take bool


def unsigned(dtype: np.dtype) -> np.dtype:
    """The unsigned integer dtype of ``dtype``'s width: the bits without a sign."""
    return np.dtype(f"u{np.dtype(dtype).itemsize}")


def signed(dtype: np.dtype) -> np.dtype:
    return np.dtype(f"i{np.dtype(dtype).itemsize}")


# --------------------------------------------------------------------------- rule families


def _bits_abstract_eval(name: str, kinds: str, *xs: ShapedArray) -> ShapedArray:
    first = xs[0]
    if any(x.shape != first.shape or x.dtype != first.dtype for x in xs):
        raise TypeError(f"{name}: operands must have equal shapes and dtypes; got "
                        f"{', '.join(x.str_short() for x in xs)}")
    if first.dtype.kind not in kinds:
        what = "integer or bool" if "b" in kinds else "integer"
        raise TypeError(f"{name}: operands must be {what}; got {first.str_short()}")
    return ShapedArray(first.shape, first.dtype)


def _no_derivative_jvp(prim: Primitive, primals: tuple, tangents: tuple, **params: Any
                       ) -> tuple:
    # Not differentiable: an integer or bool output has a float0 zero tangent.
    out = prim.bind(*primals, **params)
    aval = get_aval(out)
    return out, Zero(ShapedArray(aval.shape, tangent_dtype(aval.dtype)))


def _elementwise_batch(prim: Primitive, axis_size: int, vals: tuple, dims: tuple,
                       **params: Any) -> tuple:
    if None not in dims and len(set(dims)) == 1:  # batched alike: nothing to move
        return prim.bind(*vals, **params), dims[0]
    return prim.bind(*[bdim_to_front(x, d, axis_size) for x, d in zip(vals, dims, strict=True)],
                     **params), 0


def bit_op(name: str, impl: Callable[..., np.ndarray], kinds: str, nargs: int) -> Primitive:
    """An elementwise bit primitive of ``nargs`` operands of one dtype of ``kinds``."""
    prim = Primitive(name)
    prim.def_impl(impl)
    prim.def_abstract_eval(partial(_bits_abstract_eval, name, kinds))
    prim.def_jvp(partial(_no_derivative_jvp, prim))
    batch = vectorized_batch if nargs == 1 else _elementwise_batch
    prim.def_batch(partial(batch, prim))
    return prim


# --------------------------------------------------------------------------- and, or, xor, not

and_p = bit_op("and", np.bitwise_and, LOGICAL, 2)
or_p = bit_op("or", np.bitwise_or, LOGICAL, 2)
xor_p = bit_op("xor", np.bitwise_xor, LOGICAL, 2)
not_p = bit_op("not", np.invert, LOGICAL, 1)  # bool: logical not; integers: every bit flipped


def bitwise_and(x: Any, y: Any) -> Any: return and_p.bind(x, y)
def bitwise_or(x: Any, y: Any) -> Any: return or_p.bind(x, y)
def bitwise_xor(x: Any, y: Any) -> Any: return xor_p.bind(x, y)
def bitwise_not(x: Any) -> Any: return not_p.bind(x)


# --------------------------------------------------------------------------- shifts


def _count_in_range(y: np.ndarray, width: int) -> np.ndarray:
    # A negative count is out of range too (XLA reads the count as unsigned).
    return (y >= 0) & (y < width)


def _in_range_counts(y: np.ndarray, width: int) -> np.ndarray | None:
    """``y`` itself (or its one value, if it is a broadcast of one count) when every count is
    in ``[0, width)``, so a plain NumPy shift is exact; None when some count is not."""
    y = np.asarray(y)
    if y.size and not any(y.strides):  # a broadcast count (every sampler's): test it once
        y = y.reshape(-1)[0]
        return y if 0 <= y < width else None
    return y if _count_in_range(y, width).all() else None


def _shift_left_impl(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    # x << y for 0 <= y < width, else 0
    width = x.dtype.itemsize * 8
    counts = _in_range_counts(y, width)
    if counts is not None:
        return np.left_shift(x, counts).astype(x.dtype, copy=False)
    ok = _count_in_range(y, width)
    shifted = np.left_shift(x, np.where(ok, y, 0).astype(y.dtype))
    return np.where(ok, shifted, 0).astype(x.dtype)


def _shift_right_logical_impl(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    # the bits move right and zeros come in, whatever the sign: shift them as unsigned
    width = x.dtype.itemsize * 8
    bits = np.asarray(x).view(unsigned(x.dtype))
    counts = _in_range_counts(y, width)
    if counts is not None:
        return np.right_shift(bits, np.asarray(counts).astype(bits.dtype, copy=False)).view(x.dtype)
    ok = _count_in_range(y, width)
    shifted = np.right_shift(bits, np.where(ok, y, 0).astype(bits.dtype))
    return np.where(ok, shifted, 0).astype(bits.dtype).view(x.dtype)


def _shift_right_arithmetic_impl(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    # the sign bit comes in, whatever the dtype: shift the bits as signed
    ok = _count_in_range(y, x.dtype.itemsize * 8)
    bits = np.asarray(x).view(signed(x.dtype))
    shifted = np.right_shift(bits, np.where(ok, y, 0).astype(bits.dtype))
    return np.where(ok, shifted, np.where(bits < 0, -1, 0)).astype(bits.dtype).view(x.dtype)


shift_left_p = bit_op("shift_left", _shift_left_impl, INTEGER, 2)
shift_right_logical_p = bit_op("shift_right_logical", _shift_right_logical_impl, INTEGER, 2)
shift_right_arithmetic_p = bit_op("shift_right_arithmetic", _shift_right_arithmetic_impl,
                                  INTEGER, 2)


def shift_left(x: Any, y: Any) -> Any: return shift_left_p.bind(x, y)
def shift_right_logical(x: Any, y: Any) -> Any: return shift_right_logical_p.bind(x, y)
def shift_right_arithmetic(x: Any, y: Any) -> Any: return shift_right_arithmetic_p.bind(x, y)


# --------------------------------------------------------------------------- bit counts


def _population_count_impl(x: np.ndarray) -> np.ndarray:
    # counted on the unsigned bits: np.bitwise_count(-1) counts |-1|'s one bit, not 32
    return np.bitwise_count(np.asarray(x).view(unsigned(x.dtype))).astype(x.dtype)


def _clz_impl(x: np.ndarray) -> np.ndarray:
    # leading zeros = width - (bits set after smearing the highest one bit rightwards)
    width = x.dtype.itemsize * 8
    bits = np.asarray(x).view(unsigned(x.dtype)).copy()
    step = 1
    while step < width:
        bits |= bits >> step
        step *= 2
    return (width - np.bitwise_count(bits).astype(np.int64)).astype(x.dtype)


population_count_p = bit_op("population_count", _population_count_impl, INTEGER, 1)
clz_p = bit_op("clz", _clz_impl, INTEGER, 1)


def population_count(x: Any) -> Any: return population_count_p.bind(x)
def clz(x: Any) -> Any: return clz_p.bind(x)


# --------------------------------------------------------------------------- bitcast

bitcast_convert_type_p = Primitive("bitcast_convert_type")


def bitcast_convert_type(x: Any, new_dtype: Any) -> Any:
    """The same bits read as ``new_dtype``, of the same width: ``uint32 <-> float32``,
    ``uint64 <-> float64``, ``int8 <-> uint8`` ..."""
    new_dtype = np.dtype(new_dtype)
    if get_aval(x).dtype == new_dtype:
        return x
    return bitcast_convert_type_p.bind(x, new_dtype=new_dtype)


@bitcast_convert_type_p.def_impl
def _bitcast_impl(x: np.ndarray, *, new_dtype: np.dtype) -> np.ndarray:
    return np.asarray(x).view(new_dtype)


@bitcast_convert_type_p.def_abstract_eval
def _bitcast_abstract_eval(x: ShapedArray, *, new_dtype: np.dtype) -> ShapedArray:
    if x.dtype.kind not in "iuf" or new_dtype.kind not in "iuf":
        raise TypeError(f"bitcast_convert_type: dtypes must be integer or float; got "
                        f"{x.str_short()} to {new_dtype.name}")
    if x.dtype.itemsize != new_dtype.itemsize:
        raise TypeError(f"bitcast_convert_type: the new dtype must have the width of "
                        f"{x.dtype.name} ({x.dtype.itemsize * 8} bits); got {new_dtype.name}")
    return ShapedArray(x.shape, new_dtype)


# A bit pattern has no derivative: float0 for an integer result, zero for a float one.
bitcast_convert_type_p.def_jvp(partial(_no_derivative_jvp, bitcast_convert_type_p))
bitcast_convert_type_p.def_batch(partial(vectorized_batch, bitcast_convert_type_p))

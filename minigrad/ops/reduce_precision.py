"""``reduce_precision``: a float rounded to a narrower float format and widened back, JAX's
``lax.reduce_precision`` (XLA's ReducePrecision).

With ``exponent_bits = e`` and ``mantissa_bits = m`` (bfloat16 is ``(8, 7)``, float16
``(5, 10)``), each element of a float32 or float64 array is, on its bits:

1. rounded to ``m`` mantissa bits, to nearest, ties to even (when ``m`` is below the dtype's);
2. with ``e`` below the dtype's exponent bits, an exponent above the narrow format's largest
   becomes +-inf, and one at or below its smallest normal exponent's predecessor becomes +-0
   (the narrow format's subnormals are flushed to zero, as XLA does);
3. a NaN stays the same NaN (its bits kept, also with ``m = 0``; checked against JAX).

JAX defines its derivative as the op itself (``deflinear``): ``out_dot = reduce_precision(x_dot)``
and ``ct_x = reduce_precision(ct)``. That is the identity's derivative rounded, exact where the
format is the dtype's own; we follow JAX.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from minigrad.core import Primitive, ShapedArray, UndefPrimal, Zero, get_aval
from minigrad.ops.structural import vectorized_batch

reduce_precision_p = Primitive("reduce_precision")

# (bits type, exponent bits, mantissa bits) of each float dtype
_FORMATS = {np.dtype(np.float32): (np.uint32, 8, 23), np.dtype(np.float64): (np.uint64, 11, 52)}


def reduce_precision(x: Any, exponent_bits: int, mantissa_bits: int) -> Any:
    """``x`` rounded to a float format of ``exponent_bits`` and ``mantissa_bits``.

    >>> import numpy as np
    >>> from minigrad.ops.reduce_precision import reduce_precision
    >>> reduce_precision(np.array([1.1, 65520.0]), 5, 10)  # float16's format
    Array([1.09960938,        inf], dtype=float64)
    """
    return reduce_precision_p.bind(x, exponent_bits=int(exponent_bits),
                                   mantissa_bits=int(mantissa_bits))


@reduce_precision_p.def_impl
def _reduce_precision_impl(x: np.ndarray, *, exponent_bits: int, mantissa_bits: int
                           ) -> np.ndarray:
    utype, exp_bits, man_bits = _FORMATS[x.dtype]
    one = utype(1)
    bits = np.ascontiguousarray(x).view(utype).copy()
    if mantissa_bits < man_bits:
        # round to nearest even at the new last mantissa bit, then drop the bits below it
        shift = utype(man_bits - mantissa_bits)
        last = one << shift
        bias = (bits & last) >> shift
        bits = (bits + bias + ((last >> one) - one)) & ~(last - one)
    if exponent_bits < exp_bits:
        sign = bits & (one << utype(exp_bits + man_bits))
        exp_mask = ((one << utype(exp_bits)) - one) << utype(man_bits)
        bias, narrow_bias = 2 ** (exp_bits - 1) - 1, 2 ** (exponent_bits - 1) - 1
        exponent = bits & exp_mask
        over = exponent > (utype(bias + narrow_bias) << utype(man_bits))
        under = exponent <= (utype(bias - narrow_bias) << utype(man_bits))
        bits = np.where(over, sign | exp_mask, np.where(under, sign, bits))
    out = np.where(np.isnan(x), x, bits.view(x.dtype))
    return out.reshape(x.shape)


@reduce_precision_p.def_abstract_eval
def _reduce_precision_abstract_eval(x: ShapedArray, *, exponent_bits: int, mantissa_bits: int
                                    ) -> ShapedArray:
    if x.dtype not in _FORMATS:
        raise TypeError(f"reduce_precision: operand must be float32 or float64; got "
                        f"{x.str_short()}")
    if exponent_bits < 1:
        raise ValueError(f"reduce_precision: exponent_bits must be positive; got "
                         f"{exponent_bits}")
    if mantissa_bits < 0:
        raise ValueError(f"reduce_precision: mantissa_bits must be non-negative; got "
                         f"{mantissa_bits}")
    return ShapedArray(x.shape, x.dtype)


@reduce_precision_p.def_jvp
def _reduce_precision_jvp(primals: tuple, tangents: tuple, **params: Any) -> tuple:
    # out_dot = reduce_precision(x_dot) (JAX's deflinear)
    out = reduce_precision_p.bind(primals[0], **params)
    t = tangents[0]
    if isinstance(t, Zero):
        return out, Zero(get_aval(out))
    return out, reduce_precision_p.bind(t, **params)


@reduce_precision_p.def_transpose
def _reduce_precision_transpose(ct: Any, x: UndefPrimal, **params: Any) -> tuple:
    # ct_x = reduce_precision(ct)
    if isinstance(ct, Zero):
        return (ct,)
    return (reduce_precision_p.bind(ct, **params),)


reduce_precision_p.def_batch(partial(vectorized_batch, reduce_precision_p))

__all__ = ["reduce_precision", "reduce_precision_p"]

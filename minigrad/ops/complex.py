"""Complex numbers: ``real``, ``imag``, ``conj`` and ``complex`` (lax's four primitives).

All four are linear over the reals, so each JVP applies the primitive to the tangent. Their
transposes are taken for the real pairing ``<a, b> = Re(sum(a * b))`` (no conjugation: the
pairing under which a complex-linear map's transpose is its plain matrix transpose, JAX's
convention for complex cotangents):

    <real(x), w> = sum(Re x * w)   = Re(sum(x * complex(w, 0)))    ct_x = complex(ct, 0)
    <imag(x), w> = sum(Im x * w)   = Re(sum(x * complex(0, -w)))   ct_x = complex(0, -ct)
    <conj(x), w> = Re(sum(conj(x) w)) = Re(sum(x conj(w)))         ct_x = conj(ct)
    <complex(a, b), w> = sum(a Re w - b Im w)                      ct_a, ct_b = Re ct, -Im ct

``real`` and ``imag`` take complex operands only, ``complex`` two real operands of one dtype
(``minigrad.numpy`` handles real inputs and promotion); ``conj`` takes complex operands.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from minigrad.core import Primitive, ShapedArray, UndefPrimal
from minigrad.ops.elementwise import _elementwise_batch, defjvp, neg
from minigrad.ops.structural import instantiate, vectorized_batch, zeros


def real_dtype(dtype: np.dtype) -> np.dtype:
    """float32 for complex64, float64 for complex128."""
    return np.dtype(np.finfo(dtype).dtype)


def complex_dtype(dtype: np.dtype) -> np.dtype:
    """complex64 for float32, complex128 for float64 (and complex dtypes themselves)."""
    return np.dtype(np.result_type(dtype, np.complex64))


def _check_complex(name: str, x: ShapedArray) -> None:
    if x.dtype.kind != "c":
        raise TypeError(f"{name}: the operand must be complex; got {x.str_short()}")


# --------------------------------------------------------------------------- real, imag

def _part_abstract_eval(name: str, x: ShapedArray) -> ShapedArray:
    _check_complex(name, x)
    return ShapedArray(x.shape, real_dtype(x.dtype))


real_p = Primitive("real")
imag_p = Primitive("imag")


def real(x: Any) -> Any: return real_p.bind(x)
def imag(x: Any) -> Any: return imag_p.bind(x)


# (copies: a view into the operand would alias it in a jitted program)
real_p.def_impl(lambda x: np.real(x).copy())
imag_p.def_impl(lambda x: np.imag(x).copy())
real_p.def_abstract_eval(partial(_part_abstract_eval, "real"))
imag_p.def_abstract_eval(partial(_part_abstract_eval, "imag"))
# real(x)_dot = real(x_dot); imag likewise
defjvp(real_p, lambda t, x, out: real(t))
defjvp(imag_p, lambda t, x, out: imag(t))


@real_p.def_transpose
def _real_transpose(ct: Any, x: UndefPrimal) -> tuple:
    # ct_x = complex(ct, 0)
    return (complex_(ct, zeros(ShapedArray(x.aval.shape, real_dtype(x.aval.dtype)))),)


@imag_p.def_transpose
def _imag_transpose(ct: Any, x: UndefPrimal) -> tuple:
    # ct_x = complex(0, -ct)
    return (complex_(zeros(ShapedArray(x.aval.shape, real_dtype(x.aval.dtype))), neg(ct)),)


real_p.def_batch(partial(vectorized_batch, real_p))
imag_p.def_batch(partial(vectorized_batch, imag_p))


# --------------------------------------------------------------------------- conj

conj_p = Primitive("conj")


def conj(x: Any) -> Any: return conj_p.bind(x)


def _conj_abstract_eval(x: ShapedArray) -> ShapedArray:
    _check_complex("conj", x)
    return x


conj_p.def_impl(np.conjugate)
conj_p.def_abstract_eval(_conj_abstract_eval)
defjvp(conj_p, lambda t, x, out: conj(t))  # conj(x)_dot = conj(x_dot)
conj_p.def_transpose(lambda ct, x: (conj(ct),))  # ct_x = conj(ct)
conj_p.def_batch(partial(vectorized_batch, conj_p))


# --------------------------------------------------------------------------- complex

complex_p = Primitive("complex")


def complex_(re: Any, im: Any) -> Any:
    """``re + 1j * im`` of two real arrays of one shape and dtype (``_``: a builtin's name)."""
    return complex_p.bind(re, im)


def _complex_impl(re: np.ndarray, im: np.ndarray) -> np.ndarray:
    out = np.empty(re.shape, complex_dtype(re.dtype))
    out.real, out.imag = re, im  # (not re + 1j * im: inf * 1j is NaN + inf j)
    return out


def _complex_abstract_eval(re: ShapedArray, im: ShapedArray) -> ShapedArray:
    if re.shape != im.shape or re.dtype != im.dtype or re.dtype.kind != "f":
        raise TypeError(f"complex: the operands must be real floating arrays of one shape and "
                        f"dtype; got {re.str_short()}, {im.str_short()}")
    return ShapedArray(re.shape, complex_dtype(re.dtype))


complex_p.def_impl(_complex_impl)
complex_p.def_abstract_eval(_complex_abstract_eval)


@complex_p.def_jvp
def _complex_jvp(primals: tuple, tangents: tuple) -> tuple:
    # complex(a, b)_dot = complex(a_dot, b_dot), a missing tangent as zeros
    return complex_(*primals), complex_(*map(instantiate, tangents))


@complex_p.def_transpose
def _complex_transpose(ct: Any, re: Any, im: Any) -> tuple:
    # ct_re = real(ct), ct_im = -imag(ct)
    return (real(ct) if isinstance(re, UndefPrimal) else None,
            neg(imag(ct)) if isinstance(im, UndefPrimal) else None)


complex_p.def_batch(partial(_elementwise_batch, complex_p))

__all__ = ["complex_", "complex_dtype", "complex_p", "conj", "conj_p", "imag", "imag_p", "real",
           "real_dtype", "real_p"]

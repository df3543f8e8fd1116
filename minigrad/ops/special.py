"""Special functions as XLA computes them: ``erf_inv``, ``xla_erf``, ``xla_log``, ``xla_log1p``,
and the fused multiply-add ``fma``.

NumPy has no ``erf`` or ``erf_inv``: the impls compute what XLA's CPU kernel computes for JAX,
bit for bit
(``ops/xla_math.py`` says how and what was measured): so ``minigrad.random.normal`` draws JAX's
numbers. ``xla_log`` and ``xla_log1p`` are log and log1p as XLA computes them (NumPy's differ
by a few ulps, which ``-log(-log(u))`` magnifies): gumbel and exponential use them, so they
too draw JAX's numbers; ``minigrad.numpy``'s log and log1p stay NumPy's. ``fma`` rounds
``x * y + z`` once, as the FMA instructions of XLA's compiled code do (``uniform``'s scaling
step is one). ``minigrad.numpy``'s and ``minigrad.scipy``'s erf, lgamma and digamma are
``ops/special_functions.py``'s (accurate in float64, vectorized); ``xla_erf`` is XLA's erf,
which ``truncated_normal`` needs to draw JAX's numbers.
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any, Callable

import numpy as np

from minigrad.core import Primitive, ShapedArray, UndefPrimal
from minigrad.ops import elementwise as ew
from minigrad.ops import xla_math
from minigrad.ops.structural import bdim_to_front

FLOATS = ("float32", "float64")


def _float_abstract_eval(name: str, *xs: ShapedArray) -> ShapedArray:
    first = xs[0]
    if any(x.shape != first.shape or x.dtype != first.dtype for x in xs):
        raise TypeError(f"{name}: operands must have equal shapes and dtypes; got "
                        f"{', '.join(x.str_short() for x in xs)}")
    if first.dtype.name not in FLOATS:
        raise TypeError(f"{name}: operands must be float32 or float64; got {first.str_short()}")
    return ShapedArray(first.shape, first.dtype)


def _special(name: str, impl: Callable[[np.ndarray], np.ndarray],
             deriv: Callable[..., Any]) -> Primitive:
    """A unary float primitive: ``ew.unary``'s rules, with a float32/float64 shape rule."""
    prim = ew.unary(name, impl, deriv)
    prim.def_abstract_eval(partial(_float_abstract_eval, name))
    return prim


# --------------------------------------------------------------------------- erf_inv, xla_erf

_HALF_SQRT_PI = math.sqrt(math.pi) / 2
_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)

# out_dot = x_dot * sqrt(pi)/2 * exp(out**2)  (erf_inv' = 1 / erf'(erf_inv))
erf_inv_p = _special("erf_inv", xla_math.erf_inv, lambda t, x, out: ew.mul(
    t, ew.mul(ew.full_like(out, _HALF_SQRT_PI), ew.exp(ew.mul(out, out)))))
# out_dot = x_dot * 2/sqrt(pi) * exp(-x**2)
xla_erf_p = _special("xla_erf", xla_math.erf, lambda t, x, out: ew.mul(
    t, ew.mul(ew.full_like(x, _TWO_OVER_SQRT_PI), ew.exp(ew.neg(ew.mul(x, x))))))


# the same derivatives as log and log1p
xla_log_p = _special("xla_log", xla_math.log, lambda t, x, out: ew.div(t, x))
xla_log1p_p = _special("xla_log1p", xla_math.log1p, lambda t, x, out: ew.div(
    t, ew.add(ew.full_like(x, 1), x)))


def xla_log(x: Any) -> Any:
    """``log(x)`` as XLA's CPU code computes it (JAX's values)."""
    return xla_log_p.bind(x)


def xla_log1p(x: Any) -> Any:
    """``log(1 + x)`` as XLA's CPU code computes it (JAX's values)."""
    return xla_log1p_p.bind(x)


def erf_inv(x: Any) -> Any:
    """The inverse error function, as XLA computes it: ``erf_inv(erf(x)) ~ x``, +-inf at +-1."""
    return erf_inv_p.bind(x)


def xla_erf(x: Any) -> Any:
    """The error function ``2/sqrt(pi) * integral_0^x exp(-t**2) dt``, as XLA computes it."""
    return xla_erf_p.bind(x)


# --------------------------------------------------------------------------- fma

fma_p = Primitive("fma")


def fma(x: Any, y: Any, z: Any) -> Any:
    """``x * y + z`` rounded once (a fused multiply-add): three operands of one shape and one
    float dtype.

    >>> import numpy as np
    >>> x = np.float32(1 + 2**-12)
    >>> fma(x, x, np.float32(-1)) == np.float32(2**-11 + 2**-24)  # x * x - 1 loses the 2**-24
    Array(True, dtype=bool)
    """
    return fma_p.bind(x, y, z)


fma_p.def_impl(xla_math.fma)
fma_p.def_abstract_eval(partial(_float_abstract_eval, "fma"))
# out_dot = x_dot * y + x * y_dot + z_dot
ew.defjvp(fma_p, lambda t, x, y, z, out: ew.mul(t, y), lambda t, x, y, z, out: ew.mul(x, t),
          lambda t, x, y, z, out: t)


@fma_p.def_transpose
def _fma_transpose(ct: Any, x: Any, y: Any, z: Any) -> tuple:
    # linear in (x, z) for a constant y, or in (y, z) for a constant x:
    # ct_x = ct * y, ct_y = x * ct, ct_z = ct
    if isinstance(x, UndefPrimal) and isinstance(y, UndefPrimal):
        raise TypeError("fma: transpose needs x or y to be constant; both are linear")
    return (ew.mul(ct, y) if isinstance(x, UndefPrimal) else None,
            ew.mul(x, ct) if isinstance(y, UndefPrimal) else None,
            ct if isinstance(z, UndefPrimal) else None)


@fma_p.def_batch
def _fma_batch(axis_size: int, vals: tuple, dims: tuple) -> tuple:
    if None not in dims and len(set(dims)) == 1:  # batched alike: nothing to move
        return fma(*vals), dims[0]
    return fma(*[bdim_to_front(v, d, axis_size) for v, d in zip(vals, dims, strict=True)]), 0

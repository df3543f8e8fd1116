"""``minigrad.nn``: JAX's activation functions and friends (``jax.nn``), each a composite over
``minigrad.numpy`` (no primitive of its own), so every transform sees through it.

Edges follow JAX: ``relu'(0) = 0``; ``softplus`` and ``log_sigmoid`` go through ``logaddexp``
(exact for any finite input, however large); ``softmax`` and ``log_softmax`` shift by a
gradient-free maximum, so ``-inf`` logits give 0 (or ``-inf``) and finite gradients; an
out-of-range index in ``one_hot`` gives an all-zero row.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from minigrad import numpy as mnp
from minigrad.core import get_aval
from minigrad.dtypes import default_float_dtype
from minigrad.nn import _fast, initializers  # (initializers: issue #34)
from minigrad.nn.functions import (  # issue #34 (branch nn-tree)
    celu,
    dot_product_attention,
    glu,
    hard_sigmoid,
    hard_silu,
    hard_swish,
    hard_tanh,
    identity,
    log1mexp,
    logmeanexp,
    mish,
    relu6,
    selu,
    soft_sign,
    sparse_plus,
    sparse_sigmoid,
    squareplus,
    tanh,
)
from minigrad.numpy.eager import canonical_real, eager, real_float
from minigrad.numpy.util import ArrayLike, Axis, asarray, canonical_axes, dtype_arg, float_dtype
from minigrad.ops import elementwise as ew
from minigrad.ops.special_functions import erfc
from minigrad.ops.stop_gradient import stop_gradient
from minigrad.scipy.special import logsumexp

__all__ = ["elu", "gelu", "leaky_relu", "log_sigmoid", "log_softmax", "logsumexp", "one_hot",
           "relu", "sigmoid", "silu", "softmax", "softplus", "standardize", "swish",
           # issue #34 (branch nn-tree)
           "celu", "dot_product_attention", "glu", "hard_sigmoid", "hard_silu", "hard_swish",
           "hard_tanh", "initializers", "relu6", "selu", "soft_sign", "sparse_plus",
           # after issue #34
           "identity", "log1mexp", "logmeanexp", "mish", "sparse_sigmoid", "squareplus", "tanh"]


def _real(x: ArrayLike, fn: str) -> Any:
    """``x`` as an array of a float dtype (ints and bools become the default float)."""
    arr = asarray(x)
    dtype = get_aval(arr).dtype
    if dtype.kind not in "biuf":
        raise TypeError(f"{fn}: x must be real; got dtype {dtype}")
    return arr if dtype.kind == "f" else ew.convert_element_type(arr, float_dtype(arr))


def relu(x: ArrayLike) -> Any:
    """``max(x, 0)``, with derivative 0 at 0 (as JAX); NaN stays NaN, an integer ``x`` keeps
    its dtype."""
    if canonical_real(x) and eager():  # (speed: minigrad.nn._fast, the same NumPy calls)
        return _fast.relu(x.view(np.ndarray))
    x = asarray(x)
    if get_aval(x).dtype.kind not in "biuf":
        raise TypeError(f"relu: x must be real; got dtype {get_aval(x).dtype}")
    return mnp.where(x <= 0, mnp.zeros_like(x), x)


def sigmoid(x: ArrayLike) -> Any:
    """``1 / (1 + exp(-x))``, from ``exp(-|x|)`` so no branch overflows (nor its gradient)."""
    if real_float(x) and eager():
        return _fast.sigmoid(x.view(np.ndarray))
    x = _real(x, "sigmoid")
    pos = x >= 0
    e = mnp.exp(mnp.where(pos, -x, x))  # exp(-|x|) in (0, 1], with |x|'s derivative +-1 at 0
    return mnp.where(pos, 1 / (1 + e), e / (1 + e))


def softplus(x: ArrayLike) -> Any:
    """``log(1 + exp(x))`` = ``logaddexp(x, 0)``: ``softplus(1000) == 1000``, gradient 1."""
    if real_float(x) and eager():
        return _fast.softplus(x.view(np.ndarray))
    x = _real(x, "softplus")
    return mnp.logaddexp(x, mnp.zeros_like(x))


def log_sigmoid(x: ArrayLike) -> Any:
    """``log(sigmoid(x))`` = ``-softplus(-x)``, exact for large ``|x|``."""
    if real_float(x) and eager():
        return _fast.log_sigmoid(x.view(np.ndarray))
    return -softplus(-_real(x, "log_sigmoid"))


def silu(x: ArrayLike) -> Any:
    """``x * sigmoid(x)`` (also called swish)."""
    if real_float(x) and eager():
        return _fast.silu(x.view(np.ndarray))
    x = _real(x, "silu")
    return x * sigmoid(x)


swish = silu


def gelu(x: ArrayLike, approximate: bool = True) -> Any:
    """The Gaussian error linear unit ``x * Phi(x)``; ``approximate=True`` (JAX's default)
    uses the tanh approximation, ``False`` the exact ``x * erfc(-x / sqrt 2) / 2``."""
    if not isinstance(approximate, (bool, np.bool_)):
        raise TypeError(f"gelu: approximate must be a bool; got {approximate!r}")
    if real_float(x) and eager():
        return _fast.gelu(x.view(np.ndarray), bool(approximate))
    x = _real(x, "gelu")
    if approximate:
        # x**3 as JAX's integer_pow: x * (x * x), the value of x * x * x, with a derivative
        # of three equations instead of the product rule's six
        inner = math.sqrt(2 / math.pi) * (x + 0.044715 * ew.integer_pow(x, 3))
        return x * (0.5 * (1 + mnp.tanh(inner)))
    return 0.5 * x * erfc(-x * math.sqrt(0.5))


def leaky_relu(x: ArrayLike, negative_slope: ArrayLike = 0.01) -> Any:
    """``x`` where ``x >= 0``, else ``negative_slope * x`` (derivative 1 at 0, as JAX)."""
    x = _real(x, "leaky_relu")
    return mnp.where(x >= 0, x, negative_slope * x)


def elu(x: ArrayLike, alpha: ArrayLike = 1.0) -> Any:
    """``x`` where ``x > 0``, else ``alpha * (exp(x) - 1)``; the unused branch sees 0, so a
    large ``x`` overflows nothing (nor the gradient)."""
    x = _real(x, "elu")
    pos = x > 0
    return mnp.where(pos, x, alpha * mnp.expm1(mnp.where(pos, mnp.zeros_like(x), x)))


def _check_where(where: ArrayLike | None, fn: str) -> Any:
    if where is None:
        return None
    mask = asarray(where)
    if get_aval(mask).dtype.kind != "b":
        raise TypeError(f"{fn}: where must be a boolean array; got dtype {get_aval(mask).dtype}")
    return mask


def _axes(axis: Axis, ndim: int) -> tuple[int, ...]:
    """``axis`` as the general path's max (in ``_shifted``) reads it, with its errors."""
    if type(axis) is int and -ndim <= axis < ndim:  # (the common case, quickly)
        return (axis % ndim,)
    return canonical_axes(axis, ndim, "max")


def _shifted(x: ArrayLike, axis: Axis, where: ArrayLike | None, fn: str) -> tuple[Any, Any]:
    """``x - max(x)`` over ``axis`` (masked entries ``-inf``), the maximum held constant: both
    softmaxes are shift-invariant, so its derivative would cancel anyway."""
    x = _real(x, fn)
    mask = _check_where(where, fn)
    x_max = mnp.max(x, axis, keepdims=True, initial=-np.inf, where=mask)
    if mask is not None:
        x = mnp.where(mask, x, -np.inf)
    return x - stop_gradient(x_max), mask


def softmax(x: ArrayLike, axis: Axis = -1, where: ArrayLike | None = None) -> Any:
    """``exp(x) / sum(exp(x))`` over ``axis`` (an int, a tuple or None), without overflow;
    with ``where``, only the masked-in entries count and the others are 0."""
    if where is None and real_float(x) and x.size and eager():
        return _fast.softmax(x.view(np.ndarray), _axes(axis, x.ndim))
    shifted, mask = _shifted(x, axis, where, "softmax")
    unnormalized = mnp.exp(shifted)
    result = unnormalized / mnp.sum(unnormalized, axis, keepdims=True, where=mask)
    return result if mask is None else mnp.where(mask, result, 0)


def log_softmax(x: ArrayLike, axis: Axis = -1, where: ArrayLike | None = None) -> Any:
    """``x - logsumexp(x)`` over ``axis``: a ``-inf`` logit gives ``-inf`` (no NaN) and a
    finite gradient; with ``where``, masked-out entries are ``-inf``."""
    if where is None and real_float(x) and x.size and eager():
        return _fast.log_softmax(x.view(np.ndarray), _axes(axis, x.ndim))
    shifted, mask = _shifted(x, axis, where, "log_softmax")
    result = shifted - mnp.log(mnp.sum(mnp.exp(shifted), axis, keepdims=True, where=mask))
    return result if mask is None else mnp.where(mask, result, -np.inf)


def one_hot(x: Any, num_classes: int, *, dtype: Any = None, axis: int = -1) -> Any:
    """``x[..., None] == arange(num_classes)`` with the new axis at ``axis``, as ``dtype``
    (default: the default float). An index outside ``[0, num_classes)`` gives zeros."""
    if isinstance(num_classes, (bool, np.bool_)) or not isinstance(
            num_classes, (int, np.integer)):
        raise TypeError(f"one_hot: num_classes must be an int; got {num_classes!r}")
    if num_classes < 0:
        raise ValueError(f"one_hot: num_classes must be >= 0; got {num_classes}")
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"one_hot: axis must be an int; got {axis!r}")
    out_dtype = dtype_arg(dtype, "one_hot", default_float_dtype())
    arr = asarray(x)
    in_dtype = get_aval(arr).dtype
    if in_dtype.kind not in "iu":
        raise TypeError(f"one_hot: x must be an integer array; got dtype {in_dtype} "
                        "(JAX only warns, and compares the floats)")
    ndim = len(get_aval(arr).shape) + 1
    if not -ndim <= axis < ndim:
        raise ValueError(f"one_hot: axis {axis} is out of bounds for a result of {ndim} "
                         "dimensions")
    pos = operator.index(axis) % ndim
    classes = np.arange(num_classes).reshape([num_classes if i == pos else 1
                                              for i in range(ndim)])
    hot = mnp.expand_dims(arr, pos) == classes
    return ew.convert_element_type(hot, out_dtype)


def standardize(x: ArrayLike, axis: Axis = -1, mean: ArrayLike | None = None,
                variance: ArrayLike | None = None, epsilon: ArrayLike = 1e-5,
                where: ArrayLike | None = None, *, algorithm: str = "fast") -> Any:
    """``(x - mean) / sqrt(variance + epsilon)`` over ``axis``; the mean and variance are
    computed (over the ``where`` entries) when not given. ``algorithm="fast"`` (JAX's default)
    takes ``mean(x**2) - mean**2`` clipped at 0, ``"stable"`` the two-pass ``mean((x - m)**2)``.
    """
    if algorithm not in ("fast", "stable"):
        raise ValueError(f"standardize: algorithm must be 'fast' or 'stable'; got {algorithm!r}")
    x = _real(x, "standardize")
    mask = _check_where(where, "standardize")
    if mean is None:
        mean = mnp.mean(x, axis, keepdims=True, where=mask)
    if variance is None:
        if algorithm == "stable":
            variance = mnp.mean(mnp.square(x - mean), axis, keepdims=True, where=mask)
        else:
            variance = mnp.clip(mnp.mean(mnp.square(x), axis, keepdims=True, where=mask)
                                - mnp.square(mean), 0)
    return (x - mean) / mnp.sqrt(variance + epsilon)

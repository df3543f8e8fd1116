"""The rest of ``jax.nn``'s activations (issue #34): piecewise ones with JAX's derivatives at
their kinks, ``selu``/``celu``/``glu``, and ``dot_product_attention`` (JAX's 'xla'
implementation). Composites over ``minigrad.numpy``, as the functions in ``__init__.py``.

Kinks, as JAX: ``relu6'`` is 0 at 0 and at 6 (JAX's custom JVP), ``hard_tanh'(+-1) = 1`` and
``sparse_plus'(-1) = 0``, ``sparse_plus'(1) = 1`` (the ``where`` branch taken), ``celu'(0) = 1``
(``maximum`` and ``minimum`` split a tie in halves).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad import numpy as mnp
from minigrad.core import get_aval
from minigrad.custom_rules import custom_jvp
from minigrad.numpy.util import ArrayLike, asarray, float_dtype
from minigrad.ops import elementwise as ew
from minigrad.ops.stop_gradient import stop_gradient
from minigrad.scipy.special import logsumexp

__all__ = ["celu", "dot_product_attention", "glu", "hard_sigmoid", "hard_silu", "hard_swish",
           "hard_tanh", "identity", "log1mexp", "logmeanexp", "mish", "relu6", "selu",
           "soft_sign", "sparse_plus", "sparse_sigmoid", "squareplus", "tanh"]


def _real(x: ArrayLike, fn: str) -> Any:
    """``x`` as a float array (ints and bools become the default float, as JAX's weak float
    constants make them)."""
    arr = asarray(x)
    dtype = get_aval(arr).dtype
    if dtype.kind not in "biuf":
        raise TypeError(f"{fn}: x must be real; got dtype {dtype}")
    return arr if dtype.kind == "f" else ew.convert_element_type(arr, float_dtype(arr))


def relu6(x: ArrayLike) -> Any:
    """``min(max(x, 0), 6)``; its derivative is 1 strictly inside (0, 6) and 0 elsewhere,
    the kinks included (JAX's custom JVP). NaN stays NaN."""
    x = _real(x, "relu6")
    clipped = mnp.minimum(mnp.maximum(x, 0.0), 6.0)
    return mnp.where((x > 0) & (x < 6), x, stop_gradient(clipped))


def hard_sigmoid(x: ArrayLike) -> Any:
    """``relu6(x + 3) / 6``."""
    return relu6(_real(x, "hard_sigmoid") + 3.0) / 6.0


def hard_silu(x: ArrayLike) -> Any:
    """``x * hard_sigmoid(x)`` (also called hard_swish)."""
    x = _real(x, "hard_silu")
    return x * hard_sigmoid(x)


hard_swish = hard_silu


def hard_tanh(x: ArrayLike) -> Any:
    """``x`` clipped to ``[-1, 1]``; derivative 1 at the kinks +-1 (JAX's ``where``)."""
    x = _real(x, "hard_tanh")
    one = mnp.ones_like(x)
    return mnp.where(x > 1, one, mnp.where(x < -1, -one, x))


def sparse_plus(x: ArrayLike) -> Any:
    """0 for ``x <= -1``, ``x`` for ``x >= 1``, ``(x + 1)**2 / 4`` between."""
    x = _real(x, "sparse_plus")
    return mnp.where(x <= -1.0, mnp.zeros_like(x),
                     mnp.where(x >= 1.0, x, (x + 1.0) ** 2 / 4))


def soft_sign(x: ArrayLike) -> Any:
    """``x / (|x| + 1)``."""
    x = _real(x, "soft_sign")
    return x / (mnp.abs(x) + 1)


def celu(x: ArrayLike, alpha: ArrayLike = 1.0) -> Any:
    """``max(x, 0) + alpha * expm1(min(x, 0) / alpha)``."""
    x = _real(x, "celu")
    return mnp.maximum(x, 0.0) + alpha * mnp.expm1(mnp.minimum(x, 0.0) / alpha)


_SELU_ALPHA = 1.6732632423543772
_SELU_SCALE = 1.0507009873554805


def selu(x: ArrayLike) -> Any:
    """``scale * elu(x, alpha)`` with the self-normalizing constants (alpha ~ 1.6733,
    scale ~ 1.0507); derivative ``scale * alpha`` at 0, as ``elu``'s."""
    x = _real(x, "selu")
    pos = x > 0
    negative = _SELU_ALPHA * mnp.expm1(mnp.where(pos, mnp.zeros_like(x), x))
    return _SELU_SCALE * mnp.where(pos, x, negative)


def _sigmoid(x: Any) -> Any:
    # as minigrad.nn.sigmoid (kept here: nn/__init__.py imports this module)
    pos = x >= 0
    e = mnp.exp(mnp.where(pos, -x, x))
    return mnp.where(pos, 1 / (1 + e), e / (1 + e))


def glu(x: ArrayLike, axis: int = -1) -> Any:
    """The gated linear unit: ``x`` split in halves ``a, b`` along ``axis``, ``a *
    sigmoid(b)``."""
    x = _real(x, "glu")
    shape = get_aval(x).shape
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"glu: axis must be an int; got {axis!r}")
    if not -len(shape) <= axis < len(shape):
        raise ValueError(f"glu: axis {axis} is out of bounds for x of shape {shape}")
    if shape[axis] % 2:
        raise ValueError(f"glu: the size of axis {axis} must be even; got x of shape {shape}")
    a, b = mnp.split(x, 2, axis)
    return a * _sigmoid(b)


# --------------------------------------------------------------------------- attention


def _as_4d(t: Any) -> Any:
    arr = asarray(t)
    ndim = len(get_aval(arr).shape)
    return mnp.expand_dims(arr, tuple(range(4 - ndim))) if ndim < 4 else arr


def _check(t: Any, shape: list[int], dtype: Any, name: str) -> None:
    if t is None:
        return
    aval = get_aval(t)
    if len(aval.shape) != len(shape):
        raise ValueError(f"dot_product_attention: {name} must have {len(shape)} dimensions; "
                         f"got shape {aval.shape}")
    if dtype == "int":
        if aval.dtype.kind not in "iu":
            raise TypeError(f"dot_product_attention: {name} must be an integer array; got "
                            f"dtype {aval.dtype}")
    elif dtype is not None and aval.dtype != dtype:
        raise TypeError(f"dot_product_attention: {name} must have dtype {dtype}; got "
                        f"{aval.dtype}")
    if any(want not in (-1, got) for want, got in zip(shape, aval.shape, strict=True)):
        raise ValueError(f"dot_product_attention: {name} must have shape {tuple(shape)} (-1: "
                         f"any); got {aval.shape}")


def _masks(mask: Any, is_causal: bool, q_len: Any, kv_len: Any, window: Any, t: int,
           s: int) -> Any:
    """The combined boolean mask (broadcastable to (B, N, T, S)), or None."""
    combined = mask
    q_pos, k_pos = np.arange(t)[:, None], np.arange(s)[None, :]
    fixed = None
    if is_causal:
        fixed = q_pos >= k_pos
    if window is not None:
        left, right = window
        in_window = (q_pos <= k_pos + left) & (q_pos >= k_pos - right)
        fixed = in_window if fixed is None else fixed & in_window
    if fixed is not None:
        combined = fixed if combined is None else mnp.logical_and(combined, fixed)
    if q_len is not None or kv_len is not None:
        pad: Any = True
        if q_len is not None:
            pad = mnp.arange(t)[None, :, None] < q_len[:, None, None]
        if kv_len is not None:
            pad = mnp.logical_and(pad, mnp.arange(s)[None, None, :] < kv_len[:, None, None])
        pad = mnp.expand_dims(pad, 1)
        combined = pad if combined is None else mnp.logical_and(combined, pad)
    return combined


def dot_product_attention(query: ArrayLike, key: ArrayLike, value: ArrayLike,
                          bias: ArrayLike | None = None, mask: ArrayLike | None = None, *,
                          scale: float | None = None, is_causal: bool = False,
                          query_seq_lengths: ArrayLike | None = None,
                          key_value_seq_lengths: ArrayLike | None = None,
                          local_window_size: int | tuple[int, int] | None = None,
                          implementation: str | None = None,
                          return_residual: bool = False) -> Any:
    """``softmax(scale * Q K^T + bias, masked) V`` per head, as JAX's 'xla' implementation:
    query ``(B, T, N, H)``, key and value ``(B, S, K, H)`` with ``N`` a multiple of ``K``
    (grouped-query attention), or without the batch axis. Masked logits are ``-0.7 *
    float32 max``; the softmax runs in float32, as JAX's (so float64 inputs get float32
    probabilities). ``return_residual`` adds the logsumexp of the logits, ``(B, T, N)``.
    """
    if implementation not in (None, "xla"):
        if implementation == "cudnn":
            raise NotImplementedError("dot_product_attention: implementation='cudnn' is not "
                                      "supported (no GPU); use None or 'xla'")
        raise ValueError(f"dot_product_attention: implementation must be None, 'xla' or "
                         f"'cudnn'; got {implementation!r}")
    out_shape = get_aval(asarray(query)).shape
    q, k, v = _as_4d(query), _as_4d(key), _as_4d(value)
    bias_4d = None if bias is None else _as_4d(bias)
    mask_4d = None if mask is None else _as_4d(mask)
    q_len = None if query_seq_lengths is None else asarray(query_seq_lengths)
    kv_len = None if key_value_seq_lengths is None else asarray(key_value_seq_lengths)
    window = ((local_window_size, local_window_size) if isinstance(local_window_size, int)
              else local_window_size)
    b, s, kh, h = get_aval(k).shape
    k_dtype = get_aval(k).dtype
    if k_dtype.kind != "f":
        raise TypeError(f"dot_product_attention: key must be floating; got dtype {k_dtype}")
    _check(v, [b, s, kh, h], k_dtype, "value")
    _check(q, [b, -1, -1, h], k_dtype, "query")
    _check(mask_4d, [-1] * 4, np.dtype(bool), "mask")
    _check(bias_4d, [-1] * 4, None, "bias")
    _check(q_len, [b], "int", "query_seq_lengths")
    _check(kv_len, [b], "int", "key_value_seq_lengths")
    t, n = get_aval(q).shape[1:3]
    if n % kh:
        raise ValueError(f"dot_product_attention: the number of query heads must be a "
                         f"multiple of the key/value heads; got {n} and {kh}")
    g = n // kh
    scale_val = 1.0 / math.sqrt(h) if scale is None else scale
    logits_dtype = np.promote_types(k_dtype, np.float32)
    # logits (B, K, G, T, S): query head k * G + j attends with key head k
    q5 = mnp.reshape(q, (b, t, kh, g, h)).astype(logits_dtype)
    logits = mnp.einsum("btkgh,bskh->bkgts", q5, k.astype(logits_dtype))
    logits = mnp.reshape(logits, (b, n, t, s)) * np.asarray(scale_val, logits_dtype)
    if bias_4d is not None:
        logits = (logits + bias_4d).astype(logits_dtype)
    combined = _masks(mask_4d, is_causal, q_len, kv_len, window, t, s)
    if combined is not None:
        big_negative = -0.7 * min(np.finfo(logits_dtype).max, np.finfo(np.float32).max)
        logits = mnp.where(combined, logits, np.asarray(big_negative, logits_dtype))
    logits = logits.astype(np.float32)
    shifted = logits - stop_gradient(mnp.max(logits, -1, keepdims=True))
    unnormalized = mnp.exp(shifted)
    probs = (unnormalized / mnp.sum(unnormalized, -1, keepdims=True)).astype(k_dtype)
    probs5 = mnp.reshape(probs, (b, kh, g, t, s))
    encoded = mnp.reshape(mnp.einsum("bkgts,bskh->btkgh", probs5, v), (b, t, n, h))
    if q_len is not None:
        rows = mnp.arange(t)[None, :] < q_len[:, None]
        encoded = encoded * rows[:, :, None, None].astype(encoded.dtype)
    encoded = mnp.reshape(encoded, out_shape)
    if not return_residual:
        return encoded
    lse = mnp.log(mnp.sum(unnormalized, -1)) + stop_gradient(mnp.max(logits, -1))
    lse = stop_gradient(mnp.transpose(lse.astype(k_dtype), (0, 2, 1)))
    return encoded, mnp.reshape(lse, out_shape[:-1])


# --------------------------------------------------------------------------- more activations
# (jax.nn's others, after issue #34: the same formulas as JAX's, so the same derivatives)

tanh = mnp.tanh  # (jax.nn.tanh is jax.numpy.tanh)


def identity(x: ArrayLike) -> Any:
    """``x`` itself, as an array."""
    return asarray(x)


def mish(x: ArrayLike) -> Any:
    """``x * tanh(softplus(x))``, softplus as ``logaddexp(x, 0)``."""
    x = _real(x, "mish")
    return x * mnp.tanh(mnp.logaddexp(x, 0.0))


def squareplus(x: ArrayLike, b: ArrayLike = 4) -> Any:
    """``(x + sqrt(x**2 + b)) / 2``: a smooth relu, ``b`` its smoothness."""
    x = _real(x, "squareplus")
    return (x + mnp.sqrt(mnp.square(x) + b)) / 2


def sparse_sigmoid(x: ArrayLike) -> Any:
    """``clip(x + 1, 0, 2) / 2``: 0 below -1, 1 above 1, linear between (clip's derivative at
    the kinks, as JAX's)."""
    return 0.5 * mnp.clip(_real(x, "sparse_sigmoid") + 1.0, 0.0, 2.0)


@custom_jvp
def _log1mexp(x: Any) -> Any:
    # the better-conditioned of the two forms on each side of log 2 (Maechler's rule)
    return mnp.where(x < math.log(2.0), mnp.log(-mnp.expm1(-x)), mnp.log1p(-mnp.exp(-x)))


@_log1mexp.defjvp
def _log1mexp_jvp(primals: tuple, tangents: tuple) -> tuple:
    # d/dx log(1 - exp(-x)) = 1 / expm1(x) (JAX's rule: finite wherever the value is)
    (x,), (t,) = primals, tangents
    return _log1mexp(x), t / mnp.expm1(x)


def log1mexp(x: ArrayLike) -> Any:
    """``log(1 - exp(-x))`` for ``x > 0`` without cancellation: ``log(-expm1(-x))`` below
    ``log 2``, ``log1p(-exp(-x))`` above; the derivative ``1 / expm1(x)`` (JAX's rule).
    ``x = 0`` gives -inf, ``x < 0`` NaN."""
    return _log1mexp(_real(x, "log1mexp"))


def logmeanexp(x: ArrayLike, axis: Any = None, where: ArrayLike | None = None,
               keepdims: bool = False) -> Any:
    """``log(mean(exp(x)))`` over ``axis``: ``logsumexp`` less the log of the number of
    elements reduced (those where ``where`` is true)."""
    x = _real(x, "logmeanexp")
    lse = logsumexp(x, axis=axis, where=where, keepdims=keepdims)
    chosen = mnp.broadcast_to(mnp.asarray(True if where is None else where), get_aval(x).shape)
    count = mnp.sum(chosen, axis=axis, keepdims=keepdims, dtype=get_aval(lse).dtype)
    return lse - mnp.log(count)

"""``minigrad.scipy.special``: ``logsumexp``, a composite over the reduction primitives.

``log(sum(b * exp(a)))`` is computed as ``m + log(sum(b * exp(a - m)))`` with ``m`` the
largest element (0 where it is not finite, so an all ``-inf`` slice gives ``-inf`` and a
``+inf`` gives ``+inf``), held constant for differentiation: ``m``'s derivative cancels
exactly, and the gradient is the softmax weights ``b * exp(a - out)``, finite for any finite
input however large.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.core import get_aval
from minigrad.numpy import reductions as rd
from minigrad.numpy.util import ArrayLike, Axis, asarray, check_broadcast, float_dtype
from minigrad.ops import elementwise as ew
from minigrad.ops import structural as st
from minigrad.ops.stop_gradient import stop_gradient

__all__ = ["logsumexp"]


def _full(like: Any, value: float) -> Any:
    aval = get_aval(like)
    return st.full(aval.shape, value, aval.dtype)


def logsumexp(a: ArrayLike, axis: Axis = None, b: ArrayLike | None = None,
              keepdims: bool = False, return_sign: bool = False,
              where: ArrayLike | None = None) -> Any:
    """``log(sum(b * exp(a)))`` over ``axis``, without overflow; with ``return_sign``, the
    pair ``(log|s|, sign(s))`` for ``s = sum(b * exp(a))`` (else NaN where ``s < 0``).

    >>> import minigrad.numpy as mnp, numpy as np
    >>> from minigrad.scipy.special import logsumexp
    >>> logsumexp(np.array([1000.0, 1000.0]))  # no overflow
    Array(1000.69314718, dtype=float64)
    """
    rd.check_keepdims(keepdims, "logsumexp")
    if not isinstance(return_sign, (bool, np.bool_)):
        raise TypeError(f"logsumexp: return_sign must be a bool; got {return_sign!r}")
    x = asarray(a)
    if get_aval(x).dtype.kind not in "biuf":
        raise TypeError(f"logsumexp: a must be real; got dtype {get_aval(x).dtype}")
    if b is None:
        dtype = float_dtype(x)
        x = ew.convert_element_type(x, dtype)
    else:
        weights = asarray(b)
        if get_aval(weights).dtype.kind not in "biuf":
            raise TypeError(f"logsumexp: b must be real; got dtype {get_aval(weights).dtype}")
        dtype = float_dtype(x, weights)
        shape = check_broadcast("logsumexp", get_aval(x).shape, get_aval(weights).shape)
        x = st.broadcast_to(ew.convert_element_type(x, dtype), shape)
        weights = st.broadcast_to(ew.convert_element_type(weights, dtype), shape)
    axes = rd.reduction_axes(x, axis, keepdims, "logsumexp")
    peak = rd.max(x, axes, keepdims=True, initial=-np.inf, where=where)
    finite = ew.select(ew.gt(peak, _full(peak, -np.inf)), ew.lt(peak, _full(peak, np.inf)),
                       ew.ne(peak, peak))  # (NaN: False, so NaN propagates through the sum)
    peak = stop_gradient(ew.select(finite, peak, _full(peak, 0.0)))
    terms = ew.exp(ew.sub(x, st.broadcast_to(peak, get_aval(x).shape)))
    if b is not None:
        terms = ew.mul(terms, weights)
    total = rd.sum(terms, axes, keepdims=keepdims, where=where)
    peak = st.reshape(peak, get_aval(total).shape)
    negative = ew.lt(total, _full(total, 0.0))
    out = ew.add(ew.log(ew.select(negative, ew.neg(total), total)), peak)
    if return_sign:
        one, zero = _full(total, 1.0), _full(total, 0.0)
        sign = ew.select(ew.gt(total, zero), one,
                         ew.select(negative, ew.neg(one), ew.select(ew.eq(total, zero), zero,
                                                                    total)))
        return out, sign
    if b is None:
        return out
    return ew.select(negative, _full(out, np.nan), out)

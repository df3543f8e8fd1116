"""Eager fast paths of ``minigrad.nn``'s activations (``minigrad.numpy.eager`` says when one
may run: no transform, a concrete float32/float64 array). Each is its general function's
formula with ``minigrad.numpy``'s functions replaced by the NumPy calls their primitives'
impls make (an Array's operators are NumPy's already), so the bits are the same; a comment
names any step that differs in form. tests/test_eager_fast_paths.py compares the two.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad.numpy.eager import wrap
from minigrad.ops.special_functions import erfc_p
from minigrad.ops.structural import sum_logical


def relu(x: np.ndarray) -> Any:
    # (mnp.zeros_like(x): a 0-d zero of x's dtype broadcasts to the same values)
    return wrap(np.where(x <= 0, np.zeros((), x.dtype), x))


def _sigmoid(x: np.ndarray) -> np.ndarray:
    pos = x >= 0
    e = np.exp(np.where(pos, -x, x))
    return np.where(pos, 1 / (1 + e), e / (1 + e))


def sigmoid(x: np.ndarray) -> Any:
    return wrap(_sigmoid(x))


def silu(x: np.ndarray) -> Any:
    return wrap(x * _sigmoid(x))


def _softplus(x: np.ndarray) -> np.ndarray:
    # logaddexp(x, 0)'s value (ufuncs._log_add): max + log1p(exp(-|x - y|)), or x + y where
    # x - y is NaN. With y = 0, x - 0 is x (-0.0 too): no select is needed if a NaN x gives
    # x + 0's NaN, which max(x, 0) + tail does when tail is not NaN (the one NaN operand is
    # x's own; of two NaNs, which one an add keeps differs between NumPy builds): so -|x| goes
    # through fmin(., 0), which is -|x| for every other x (speed: 6 ufunc calls, not 10).
    zero = _ZEROS[x.dtype]  # (a 0-d array: a Python 0 costs each ufunc ~0.3 us to resolve)
    tail = np.log1p(np.exp(np.fmin(np.negative(np.absolute(x)), zero)))
    return np.add(np.maximum(x, zero), tail)


_ZEROS = {np.dtype(t): np.zeros((), t) for t in (np.float32, np.float64)}


def softplus(x: np.ndarray) -> Any:
    return wrap(_softplus(x))


def log_sigmoid(x: np.ndarray) -> Any:
    return wrap(-_softplus(-x))


def gelu(x: np.ndarray, approximate: bool) -> Any:
    if approximate:
        inner = math.sqrt(2 / math.pi) * (x + 0.044715 * (x * x * x))
        return wrap(x * (0.5 * (1 + np.tanh(inner))))
    return wrap(0.5 * x * erfc_p.impl(-x * math.sqrt(0.5)))  # type: ignore[misc]


def _shifted(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    # x - max(x, axes, keepdims=True, initial=-inf) (reductions._extreme: reduce_max, then
    # maximum with the initial value, which changes no value, then the kept axes)
    return x - (np.max(x, axis=axes, keepdims=True) if axes else x)


def _sum_kept(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    # sum(x, axes, keepdims=True) (reductions._sum_like: reduce_sum, then the kept axes)
    return sum_logical(x, axes, keepdims=True) if axes else x


def softmax(x: np.ndarray, axes: tuple[int, ...]) -> Any:
    unnormalized = np.exp(_shifted(x, axes))
    return wrap(unnormalized / _sum_kept(unnormalized, axes))


def log_softmax(x: np.ndarray, axes: tuple[int, ...]) -> Any:
    shifted = _shifted(x, axes)
    return wrap(shifted - np.log(_sum_kept(np.exp(shifted), axes)))

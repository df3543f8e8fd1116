"""Records of the rest of ``minigrad.nn`` (minigrad/nn/functions.py, issue #34), compared with
``jax.nn``: NumPy formulas as references, and JAX's values and gradients at every kink (relu6 at
0 and 6, hard_tanh at +-1, sparse_plus at +-1, hard_sigmoid at -3 and 3, celu and selu at 0).

``dot_product_attention`` runs its softmax in float32 (as JAX's 'xla' implementation), so
float64 finite differences cannot check it: its records compare values (to float32 precision)
and batching here; tests/test_nn_more.py checks its gradients against JAX and jvp against vjp.
"""

from __future__ import annotations

import numpy as np
from surface import F64, Rec

KINKS = (np.array([-7.0, -6.0, -3.0, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 3.0, 6.0, 7.0]),)


def normal(*shapes, scale=1.0):
    return lambda rng, dt: tuple((scale * rng.standard_normal(s)).astype(dt) for s in shapes)


def like(f):
    """A NumPy formula, its result in the argument's dtype."""
    return lambda x, **kw: np.asarray(f(np.asarray(x, np.float64), **kw)).astype(x.dtype)


def _relu6(x):
    return np.minimum(np.maximum(x, 0), 6)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _glu(x, axis=-1):
    a, b = np.split(x, 2, axis)
    return a * _sigmoid(b)


ALPHA, SCALE = 1.6732632423543772, 1.0507009873554805


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _attention(q, k, v, bias=None, mask=None, *, scale=None, is_causal=False):
    """Plain attention in float64 over (B, T, N, H), grouped heads repeated."""
    q, k, v = (np.asarray(t, np.float64) for t in (q, k, v))
    g = q.shape[2] // k.shape[2]
    k, v = np.repeat(k, g, axis=2), np.repeat(v, g, axis=2)
    scale = 1 / np.sqrt(q.shape[-1]) if scale is None else scale
    logits = np.einsum("btnh,bsnh->bnts", q, k) * scale
    if bias is not None:
        logits = logits + bias
    keep = np.ones(logits.shape, bool)
    if mask is not None:
        keep &= mask
    if is_causal:
        keep &= np.tril(np.ones(logits.shape[-2:], bool))
    logits = np.where(keep, logits, -0.7 * np.finfo(np.float32).max)
    return np.einsum("bnts,bsnh->btnh", _softmax(logits), v)


def attention_ref(*args, **kw):
    return _attention(*args, **kw).astype(args[0].dtype)


QKV = normal((2, 4, 4, 3), (2, 5, 2, 3), (2, 5, 2, 3))
MASK = np.random.default_rng(3).random((1, 4, 4, 5)) > 0.3

RECORDS = [
    Rec("nn.relu6", normal((2, 3), scale=4.0), ref=like(_relu6), edges=(KINKS,)),
    Rec("nn.hard_sigmoid", normal((2, 3), scale=4.0), ref=like(lambda x: _relu6(x + 3) / 6),
        edges=(KINKS,)),
    Rec("nn.hard_silu", normal((2, 3), scale=4.0), ref=like(lambda x: x * _relu6(x + 3) / 6),
        edges=(KINKS,)),
    Rec("nn.hard_swish", normal((2, 3), scale=4.0), ref=like(lambda x: x * _relu6(x + 3) / 6),
        edges=(KINKS,)),
    Rec("nn.hard_tanh", normal((2, 3), scale=2.0), ref=like(lambda x: np.clip(x, -1, 1)),
        edges=(KINKS,)),
    Rec("nn.sparse_plus", normal((2, 3), scale=2.0), edges=(KINKS,),
        ref=like(lambda x: np.where(x <= -1, 0, np.where(x >= 1, x, (x + 1) ** 2 / 4)))),
    Rec("nn.soft_sign", normal((2, 3)), ref=like(lambda x: x / (np.abs(x) + 1)),
        edges=(KINKS,)),
    Rec("nn.celu", normal((2, 3)), edges=(KINKS,),
        ref=like(lambda x: np.maximum(x, 0) + np.expm1(np.minimum(x, 0)))),
    Rec("nn.celu", normal((2, 3)), kwargs={"alpha": 0.5}, tag="alpha", edges=(KINKS,),
        ref=lambda x, alpha: like(lambda y: np.maximum(y, 0)
                                  + 0.5 * np.expm1(np.minimum(y, 0) / 0.5))(x)),
    Rec("nn.selu", normal((2, 3)), edges=(KINKS,),
        ref=like(lambda x: SCALE * np.where(x > 0, x, ALPHA * np.expm1(x)))),
    Rec("nn.glu", normal((3, 4)), ref=like(_glu)),
    Rec("nn.glu", normal((4, 3)), kwargs={"axis": 0}, tag="axis0",
        ref=lambda x, axis: like(_glu)(x, axis=axis)),
    Rec("nn.dot_product_attention", QKV, grad=False, tol=2e-6, ref=attention_ref,
        note="the softmax runs in float32 (JAX's 'xla' path): gradients in test_nn_more.py"),
    Rec("nn.dot_product_attention", QKV, kwargs={"is_causal": True, "scale": 0.4},
        tag="causal-scale", grad=False, tol=2e-6, ref=attention_ref),
    Rec("nn.dot_product_attention",
        lambda rng, dt: (*QKV(rng, dt), rng.standard_normal((2, 1, 4, 5)).astype(dt), MASK),
        static=(4,), tag="bias-mask", grad=False, tol=2e-6, ref=attention_ref),
    Rec("nn.dot_product_attention", normal((4, 2, 3), (5, 2, 3), (5, 2, 3)), tag="unbatched",
        dtypes=F64, grad=False, tol=2e-6,
        ref=lambda q, k, v: attention_ref(q[None], k[None], v[None])[0]),
]

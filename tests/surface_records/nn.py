"""Records of ``minigrad.nn`` (minigrad/nn/__init__.py), compared with ``jax.nn``.

NumPy has no twin: the references here are direct NumPy formulas at the drawn (moderate)
points. Edges, compared with JAX in values and gradients: relu's kink at 0 (derivative 0),
leaky_relu and elu at 0, large +-values for the sigmoid family (no overflow, exact tails),
``-inf`` logits and ties for the softmaxes, out-of-range indices for one_hot.
"""

from __future__ import annotations

import math

import numpy as np
from surface import INTS, Rec

INF = np.inf
MASK = np.array([[True, False, True, True], [True, True, False, False],
                 [True, False, False, True]])  # (one True at least per row)


def normal(*shapes):
    return lambda rng, dt: tuple(rng.standard_normal(s).astype(dt) for s in shapes)


def a(*values):
    return (np.array(values, float),)


def like(f):
    """A NumPy formula, its result in the argument's dtype."""
    return lambda x, **kw: np.asarray(f(np.asarray(x, np.float64), **kw)).astype(x.dtype)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


_erf = np.vectorize(math.erf)
BIG = a(-1000.0, -60.0, -1.0, 0.0, 1.0, 60.0, 1000.0)
KINK = a(-1.0, -0.0, 0.0, 2.0)


def _softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis, keepdims=True))
    return e / np.sum(e, axis, keepdims=True)


def _log_softmax(x, axis=-1):
    s = x - np.max(x, axis, keepdims=True)
    return s - np.log(np.sum(np.exp(s), axis, keepdims=True))


def _standardize(x, axis=-1, epsilon=1e-5):
    m = np.mean(x, axis, keepdims=True)
    return (x - m) / np.sqrt(np.var(x, axis, keepdims=True) + epsilon)


def _one_hot(x, n, axis=-1, dtype=np.float64):
    return np.moveaxis(x[..., None] == np.arange(n), -1, axis).astype(dtype)


SOFTMAX_EDGES = (a(-INF, 0.0, 1.0), a(-INF, -INF, 2.0), a(3.0, 3.0, 1.0), a(1000.0, -1000.0, 0.0))
AXES = [("", {}), ("axis0", {"axis": 0}), ("axes01", {"axis": (0, 1)}), ("axisNone",
                                                                         {"axis": None})]

RECORDS = [
    Rec("nn.relu", normal((2, 3)), ref=like(lambda x: np.maximum(x, 0)), edges=(KINK,)),
    Rec("nn.relu", lambda rng, dt: (rng.integers(-3, 3, (2, 3)).astype(dt),), dtypes=INTS,
        grad=False, tag="int", ref=lambda x: np.maximum(x, 0).astype(x.dtype)),
    Rec("nn.sigmoid", normal((2, 3)), ref=like(_sigmoid), edges=(BIG,)),
    Rec("nn.softplus", normal((2, 3)), ref=like(lambda x: np.logaddexp(x, 0)), edges=(BIG,)),
    Rec("nn.log_sigmoid", normal((2, 3)), ref=like(lambda x: -np.logaddexp(-x, 0)),
        edges=(BIG,)),
    Rec("nn.silu", normal((2, 3)), ref=like(lambda x: x * _sigmoid(x)), edges=(BIG,)),
    Rec("nn.swish", normal((2, 3)), ref=like(lambda x: x * _sigmoid(x)), edges=(BIG,)),
    Rec("nn.gelu", normal((2, 3)), edges=(BIG,),
        ref=like(lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi)
                                                   * (x + 0.044715 * x**3))))),
    Rec("nn.gelu", normal((2, 3)), kwargs={"approximate": False}, tag="exact", edges=(BIG,),
        ref=lambda x, approximate: like(lambda y: 0.5 * y * (1 + _erf(y / math.sqrt(2))))(x)),
    Rec("nn.leaky_relu", normal((2, 3)), ref=like(lambda x: np.where(x >= 0, x, 0.01 * x)),
        edges=(KINK,)),
    Rec("nn.leaky_relu", normal((2, 3)), kwargs={"negative_slope": 0.2}, tag="slope", edges=(KINK,),
        ref=lambda x, negative_slope: like(lambda y: np.where(y >= 0, y, 0.2 * y))(x)),
    Rec("nn.elu", normal((2, 3)), ref=like(lambda x: np.where(x > 0, x, np.expm1(x))),
        edges=(KINK, BIG)),
    Rec("nn.elu", normal((2, 3)), kwargs={"alpha": 0.5}, tag="alpha", edges=(KINK,),
        ref=lambda x, alpha: like(lambda y: np.where(y > 0, y, 0.5 * np.expm1(y)))(x)),
    *[Rec("nn.softmax", normal((3, 4)), kwargs=kw, tag=tag, edges=SOFTMAX_EDGES if not kw else (),
          ref=lambda x, **kw: like(_softmax)(x, **kw)) for tag, kw in AXES],
    Rec("nn.softmax", normal((3, 4)), kwargs={"where": MASK}, tag="where", ref=None),
    Rec("nn.softmax", normal((3, 4)), kwargs={"axis": 1, "where": MASK}, tag="where-axis1",
        ref=None),
    *[Rec("nn.log_softmax", normal((3, 4)), kwargs=kw, tag=tag,
          edges=SOFTMAX_EDGES if not kw else (),
          ref=lambda x, **kw: like(_log_softmax)(x, **kw)) for tag, kw in AXES],
    Rec("nn.log_softmax", normal((3, 4)), kwargs={"where": MASK}, tag="where", ref=None,
        grad=False, note="masked-out entries are -inf: finite differences give NaN there; "
        "tests/test_nn.py compares its gradient with JAX's"),
    Rec("nn.logsumexp", normal((3, 4)), kwargs={"axis": 1}, ref=None,
        edges=((np.array([[-INF, 0.0, 1.0], [1000.0, 1000.0, -INF]]),),)),
    Rec("nn.one_hot", lambda rng, dt: (rng.integers(-2, 6, (2, 3)).astype(dt), 4), static=(1,),
        dtypes=INTS, grad=False, ref=lambda x, n: _one_hot(x, n),
        edges=((np.array([0, 3, 4, -1, -4]), 4),)),
    Rec("nn.one_hot", lambda rng, dt: (rng.integers(-1, 5, (2, 3)).astype(dt), 4), static=(1,),
        kwargs={"axis": 0, "dtype": np.int32}, dtypes=INTS, grad=False, tag="axis0-int32",
        ref=lambda x, n, axis, dtype: _one_hot(x, n, axis, dtype)),
    Rec("nn.one_hot", lambda rng, dt: (rng.integers(0, 3, (2, 3)).astype(dt), 3), static=(1,),
        kwargs={"axis": 1}, dtypes=INTS, grad=False, tag="axis1",
        ref=lambda x, n, axis: _one_hot(x, n, axis)),
    Rec("nn.standardize", normal((3, 4)), ref=like(_standardize), tol=1e-4),
    Rec("nn.standardize", normal((3, 4)), kwargs={"axis": (0, 1), "epsilon": 1e-3},
        tag="axes01-eps", tol=1e-4, ref=lambda x, **kw: like(_standardize)(x, **kw)),
    Rec("nn.standardize", normal((3, 4)), kwargs={"algorithm": "stable", "where": MASK},
        tag="stable-where", ref=None),
    Rec("nn.standardize", lambda rng, dt: (rng.standard_normal((3, 4)).astype(dt), -1,
                                           rng.standard_normal((3, 1)).astype(dt),
                                           rng.uniform(0.5, 2, (3, 1)).astype(dt)),
        static=(1,), tag="mean-variance",
        ref=lambda x, axis, m, v: ((x - m) / np.sqrt(v + 1e-5)).astype(x.dtype)),
]

"""jax.nn's activations added after issue #34 (minigrad/nn/functions.py): identity, tanh, mish,
squareplus, sparse_sigmoid, log1mexp, logmeanexp. Values against NumPy formulas written here,
derivatives against finite differences (and at sparse_sigmoid's kinks against JAX's rule), and
values and gradients against jax.nn when JAX is installed."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg
from minigrad import nn
from minigrad import numpy as mnp

X = np.array([-3.0, -1.5, -1.0, -0.3, 0.0, 0.4, 1.0, 2.5, 30.0])
POSITIVE = np.array([1e-8, 1e-3, 0.3, np.log(2.0), 0.7, 5.0, 40.0, 800.0])


def np_softplus(x: np.ndarray) -> np.ndarray:
    return np.logaddexp(x, 0.0)


FORMULAS: dict[str, tuple[Callable[..., Any], Callable[..., Any], np.ndarray]] = {
    "identity": (nn.identity, lambda x: x, X),
    "tanh": (nn.tanh, np.tanh, X),
    "mish": (nn.mish, lambda x: x * np.tanh(np_softplus(x)), X),
    "squareplus": (nn.squareplus, lambda x: (x + np.sqrt(x * x + 4)) / 2, X),
    "sparse_sigmoid": (nn.sparse_sigmoid, lambda x: np.clip(x + 1, 0, 2) / 2, X),
    # (in float64 with 30 digits: log1p(-exp(-x)) loses nothing above log 2)
    "log1mexp": (nn.log1mexp, lambda x: np.where(x < np.log(2), np.log(-np.expm1(-x)),
                                                  np.log1p(-np.exp(-x))), POSITIVE),
}


@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_values_and_derivatives(name: str) -> None:
    ours, formula, xs = FORMULAS[name]
    got = ours(xs)
    assert type(got) is mg.Array and got.dtype == np.float64
    np.testing.assert_allclose(np.asarray(got), formula(xs), rtol=1e-14, atol=0)
    assert ours(xs.astype(np.float32)).dtype == np.float32
    grad = np.asarray(mg.vmap(mg.grad(ours))(xs))
    kinks = np.isin(xs, [-1.0, 1.0]) if name == "sparse_sigmoid" else np.zeros(len(xs), bool)
    h = 1e-6 * (xs if name == "log1mexp" else np.maximum(1, np.abs(xs)))  # (x > 0 there)
    fd = (formula(xs + h) - formula(xs - h)) / (2 * h)
    np.testing.assert_allclose(grad[~kinks], fd[~kinks], rtol=1e-6, atol=1e-9)
    if name == "sparse_sigmoid":  # clip's derivative at its bounds: the tie split (JAX's)
        np.testing.assert_array_equal(grad[kinks], [0.25, 0.25])


def test_log1mexp_edges() -> None:
    out = np.asarray(nn.log1mexp(np.array([0.0, -1.0, np.inf])))
    assert out[0] == -np.inf and np.isnan(out[1]) and out[2] == 0
    # the derivative 1 / expm1(x): finite and accurate where the value's own rule would be
    # 0/0 in floating point (tiny x) or underflow (large x)
    g = np.asarray(mg.vmap(mg.grad(nn.log1mexp))(np.array([1e-300, 1e-8, 50.0])))
    np.testing.assert_allclose(g, 1 / np.expm1([1e-300, 1e-8, 50.0]), rtol=1e-15)


def test_logmeanexp() -> None:
    x = np.random.default_rng(3).standard_normal((3, 4)) * 5
    np.testing.assert_allclose(nn.logmeanexp(x), np.log(np.mean(np.exp(x))), rtol=1e-14)
    np.testing.assert_allclose(nn.logmeanexp(x, axis=1, keepdims=True),
                               np.log(np.mean(np.exp(x), axis=1, keepdims=True)), rtol=1e-14)
    where = x > 0
    want = [np.log(np.mean(np.exp(row[w]))) for row, w in zip(x.T, where.T, strict=True)]
    np.testing.assert_allclose(nn.logmeanexp(x, axis=0, where=where), want, rtol=1e-14)
    np.testing.assert_allclose(nn.logmeanexp(np.array([1000.0, 1000.0])), 1000.0, rtol=0)
    g = mg.grad(lambda v: nn.logmeanexp(v, axis=(0, 1)))(x)  # the softmax of all entries
    np.testing.assert_allclose(g, np.exp(x) / np.exp(x).sum(), rtol=1e-12)
    with pytest.raises(ValueError):
        nn.logmeanexp(x, axis=2)


def test_bad_input() -> None:
    for f in (nn.mish, nn.squareplus, nn.sparse_sigmoid, nn.log1mexp, nn.logmeanexp):
        with pytest.raises(TypeError, match="must be real"):
            f(np.array([1 + 1j]))
    assert nn.mish(np.array([1, 2])).dtype == mnp.zeros(1).dtype  # ints: the default float


JAX_INPUTS = {"log1mexp": POSITIVE}


@pytest.mark.parametrize("name", [*sorted(FORMULAS), "logmeanexp"])
def test_against_jax(name: str, jax_x64: Any) -> None:
    jax = jax_x64
    ours, theirs = getattr(nn, name), getattr(jax.nn, name)
    xs = JAX_INPUTS.get(name, X)
    np.testing.assert_allclose(np.asarray(ours(xs)), np.asarray(theirs(xs)), rtol=1e-14)
    if name == "logmeanexp":
        where = xs > 0
        np.testing.assert_allclose(np.asarray(ours(xs, where=where)),
                                   np.asarray(theirs(xs, where=where)), rtol=1e-14)
        g_ours = mg.grad(lambda v: ours(v, where=where))(xs)
        g_theirs = jax.grad(lambda v: theirs(v, where=where))(xs)
    else:
        g_ours = mg.vmap(mg.grad(ours))(xs)
        g_theirs = jax.vmap(jax.grad(theirs))(xs)
    np.testing.assert_allclose(np.asarray(g_ours), np.asarray(g_theirs), rtol=1e-13, atol=0)

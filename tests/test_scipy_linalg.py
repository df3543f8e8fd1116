"""minigrad.scipy beyond the surface records: the functions that read one triangle
(``cholesky``, ``cho_factor``, ``solve(assume_a='pos')``) against JAX on symmetric tangents,
where the two derivatives are the same map, and a Gaussian-process regression (the program
issue #34 names) whose negative log marginal likelihood and gradient match JAX's."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import minigrad as mg
import minigrad.numpy as mnp
from minigrad.scipy import linalg as sl
from minigrad.scipy.stats import multivariate_normal, norm


@pytest.fixture
def jax(jax_x64: Any) -> Any:
    return jax_x64


def _spd(rng: np.random.Generator, n: int) -> np.ndarray:
    a = rng.standard_normal((n, n))
    return a @ a.T + n * np.eye(n)


CASES = [
    ("cholesky-lower", lambda m, a, b: m.cholesky(a, lower=True)),
    ("cholesky-upper", lambda m, a, b: m.cholesky(a)),
    ("cho_factor", lambda m, a, b: m.cho_factor(a, lower=True)[0]),
    ("solve-pos-lower", lambda m, a, b: m.solve(a, b, assume_a="pos", lower=True)),
    ("solve-pos-upper", lambda m, a, b: m.solve(a, b, assume_a="pos")),
    ("cho_solve(cho_factor)", lambda m, a, b: m.cho_solve(m.cho_factor(a), b)),
]


@pytest.mark.parametrize("name, f", CASES, ids=[c[0] for c in CASES])
def test_one_triangle_functions_match_jax_on_symmetric_tangents(name: str, f: Any,
                                                                jax: Any) -> None:
    import jax.numpy as jnp
    import jax.scipy.linalg as jsl

    rng = np.random.default_rng(0)
    a, b = _spd(rng, 4), rng.standard_normal((4, 2))
    t = rng.standard_normal((4, 4))
    t_sym = t + t.T
    ours = mg.jvp(lambda x: f(sl, x, b), (a,), (t_sym,))
    theirs = jax.jvp(lambda x: f(jsl, x, jnp.asarray(b)), (jnp.asarray(a),),
                     (jnp.asarray(t_sym),))
    for o, e in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(np.asarray(o), np.asarray(e), rtol=1e-11, atol=1e-11)
    # reverse mode: the gradients' symmetric parts agree (the pairing with any symmetric
    # tangent is the same)
    w = rng.standard_normal(np.shape(ours[0]))
    g = mg.grad(lambda x: mnp.sum(f(sl, x, b) * w))(a)
    h = jax.grad(lambda x: jnp.sum(f(jsl, x, jnp.asarray(b)) * w))(jnp.asarray(a))
    np.testing.assert_allclose(np.asarray(g + g.T), np.asarray(h + h.T), rtol=1e-10,
                               atol=1e-10)


def test_one_triangle_derivative_ignores_the_other_triangle() -> None:
    # the value reads the lower triangle only: a tangent in the strict upper triangle moves
    # nothing (finite differences agree; JAX's rule would move it)
    rng = np.random.default_rng(1)
    a = _spd(rng, 3)
    upper = np.triu(rng.standard_normal((3, 3)), 1)
    _, dl = mg.jvp(lambda x: sl.cholesky(x, lower=True), (a,), (upper,))
    np.testing.assert_array_equal(np.asarray(dl), 0.0)
    _, dx = mg.jvp(lambda x: sl.solve(x, np.ones(3), assume_a="pos", lower=True), (a,),
                   (upper,))
    np.testing.assert_array_equal(np.asarray(dx), 0.0)


# --------------------------------------------------------------------------- Gaussian process

def _gp_nll(m: Any, sl_: Any, norm_: Any, params: Any, x: Any, y: Any) -> Any:
    """Negative log marginal likelihood of an RBF-kernel GP, the textbook way: K = s^2
    exp(-|x - x'|^2 / (2 l^2)) + noise^2 I, L = chol(K), alpha = K^-1 y."""
    log_len, log_amp, log_noise = params[0], params[1], params[2]
    d = x[:, None] - x[None, :]
    k = m.exp(2 * log_amp) * m.exp(-0.5 * d * d / m.exp(2 * log_len))
    k = k + (m.exp(2 * log_noise) + 1e-8) * m.eye(x.shape[0])
    low = sl_.cholesky(k, lower=True)
    alpha = sl_.cho_solve((low, True), y)
    z = sl_.solve_triangular(low, y, lower=True)
    fit = 0.25 * m.dot(y, alpha) + 0.25 * m.dot(z, z)  # (both halves are y^T K^-1 y / 2)
    # a log-prior on the length scale through stats.norm
    prior = -norm_.logpdf(log_len, 0.0, 2.0)
    return fit + m.sum(m.log(m.diagonal(low))) + 0.5 * x.shape[0] * m.log(2 * m.pi) + prior


def test_gaussian_process_matches_jax(jax: Any) -> None:
    import jax.numpy as jnp
    import jax.scipy.linalg as jsl
    import jax.scipy.stats as jst

    rng = np.random.default_rng(3)
    x = np.sort(rng.uniform(-3, 3, 12))
    y = np.sin(x) + 0.1 * rng.standard_normal(12)
    params = np.array([0.1, -0.2, -1.5])
    ours = mg.value_and_grad(lambda p: _gp_nll(mnp, sl, norm, p, x, y))(params)
    theirs = jax.value_and_grad(lambda p: _gp_nll(jnp, jsl, jst.norm, p, jnp.asarray(x),
                                                  jnp.asarray(y)))(jnp.asarray(params))
    np.testing.assert_allclose(float(ours[0]), float(theirs[0]), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(ours[1]), np.asarray(theirs[1]), rtol=1e-9,
                               atol=1e-11)
    # the same value through multivariate_normal.logpdf (a Cholesky inside too), and under jit
    # and vmap over a batch of parameter vectors
    p = params
    cov = (np.exp(2 * p[1]) * np.exp(-0.5 * (x[:, None] - x[None, :]) ** 2 / np.exp(2 * p[0]))
           + (np.exp(2 * p[2]) + 1e-8) * np.eye(12))
    mvn = float(multivariate_normal.logpdf(y, np.zeros(12), cov))
    prior = float(norm.logpdf(params[0], 0.0, 2.0))
    np.testing.assert_allclose(-(mvn + prior), float(ours[0]), rtol=1e-12)
    batch = params + 0.1 * rng.standard_normal((3, 3))
    per = mg.vmap(mg.jit(mg.grad(lambda p: _gp_nll(mnp, sl, norm, p, x, y))))(batch)
    for i in range(3):
        g = jax.grad(lambda p: _gp_nll(jnp, jsl, jst.norm, p, jnp.asarray(x),
                                       jnp.asarray(y)))(jnp.asarray(batch[i]))
        np.testing.assert_allclose(np.asarray(per[i]), np.asarray(g), rtol=1e-9, atol=1e-11)

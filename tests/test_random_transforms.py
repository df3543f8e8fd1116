"""minigrad.random under vmap, jit and grad, its statistical properties, and a differential
test against jax.random when JAX is installed."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as hst

import minigrad as mg
import minigrad.random as mr
from minigrad.testing import check_jvp

KEY = mr.PRNGKey(1234)
F32 = np.float32

# one call per sampler (and key function), of a key
SAMPLERS: dict[str, Callable[[Any], Any]] = {
    "bits": lambda k: mr.bits(k, (2, 3), np.uint32),
    "bits64": lambda k: mr.bits(k, (3,)),
    "split": lambda k: mr.split(k, 3),
    "fold_in": lambda k: mr.fold_in(k, 17),
    "uniform": lambda k: mr.uniform(k, (2, 3), F32, -1.5, 2.0),
    "uniform64": lambda k: mr.uniform(k, (4,)),
    "normal": lambda k: mr.normal(k, (5,), F32),
    "normal64": lambda k: mr.normal(k, (5,)),
    "randint": lambda k: mr.randint(k, (6,), -20, 70),
    "randint8": lambda k: mr.randint(k, (6,), -300, 300, np.int8),
    "bernoulli": lambda k: mr.bernoulli(k, np.float32(0.3), (7,)),
    "bernoulli_high": lambda k: mr.bernoulli(k, 0.3, (7,), mode="high"),
    "truncated_normal": lambda k: mr.truncated_normal(k, -1.0, 2.0, (4,), F32),
    "gumbel": lambda k: mr.gumbel(k, (4,), F32),
    "gumbel_high": lambda k: mr.gumbel(k, (4,), mode="high"),
    "gumbel_highest": lambda k: mr.gumbel(k, (4,), F32, mode="highest"),
    "exponential": lambda k: mr.exponential(k, (4,)),
}


@pytest.mark.parametrize("name", SAMPLERS)
def test_vmap_over_keys_is_a_loop_over_keys(name: str) -> None:
    f = SAMPLERS[name]
    keys = mr.split(KEY, 5)
    np.testing.assert_array_equal(mg.vmap(f)(keys), np.stack([f(k) for k in keys]))
    # a batch axis that is not first
    np.testing.assert_array_equal(mg.vmap(f, in_axes=1)(keys.T), np.stack([f(k) for k in keys]))


@pytest.mark.parametrize("name", SAMPLERS)
def test_jit_equals_eager_bit_for_bit(name: str) -> None:
    f = SAMPLERS[name]
    for key in (KEY, mr.PRNGKey(0), mr.PRNGKey(-7)):
        np.testing.assert_array_equal(mg.jit(f)(key), f(key))
    # and jit of vmap
    keys = mr.split(KEY, 3)
    np.testing.assert_array_equal(mg.jit(mg.vmap(f))(keys), mg.vmap(f)(keys))


def test_the_batched_program_does_not_grow_with_the_batch() -> None:
    def count(b: int) -> int:
        return len(mg.make_jaxpr(mg.vmap(SAMPLERS["normal"]))(mr.split(KEY, b)).eqns)

    assert count(2) == count(2000)


@pytest.mark.parametrize("name, fn, params", [
    ("uniform", lambda k, lo, hi: mr.uniform(k, (3,), F32, lo, hi),
     (np.array([-1.0, 0.0, 2.0], F32), np.array([1.0, 0.5, 4.0], F32))),
    ("randint", lambda k, lo, hi: mr.randint(k, (3,), lo, hi),
     (np.array([0, -10, 5]), np.array([3, 10, 6]))),
    ("bernoulli", lambda k, p: mr.bernoulli(k, p, (3,)), (np.array([0.1, 0.5, 0.9]),)),
    ("truncated_normal", lambda k, lo, hi: mr.truncated_normal(k, lo, hi, (3,)),
     (np.array([-2.0, 0.0, 1.0]), np.array([0.0, 1.0, 3.0]))),
])
def test_vmap_over_parameters(name: str, fn: Callable[..., Any], params: tuple) -> None:
    in_axes = (None,) + (0,) * len(params)
    out = mg.vmap(fn, in_axes=in_axes)(KEY, *params)
    np.testing.assert_array_equal(out, np.stack(
        [fn(KEY, *[p[i] for p in params]) for i in range(len(params[0]))]))


# --------------------------------------------------------------------------- gradients


def test_grad_of_uniform_in_its_bounds() -> None:
    # out = max(lo, u * (hi - lo) + lo): d/dlo = 1 - u, d/dhi = u
    u = mr.uniform(KEY, (5,))
    g_lo, g_hi = mg.grad(lambda lo, hi: mr.uniform(KEY, (5,), minval=lo, maxval=hi).sum(),
                         argnums=(0, 1))(0.5, 2.0)
    np.testing.assert_allclose(g_lo, (1 - u).sum(), rtol=1e-12)
    np.testing.assert_allclose(g_hi, u.sum(), rtol=1e-12)


def test_grad_of_a_reparametrized_normal() -> None:
    z = mr.normal(KEY, (6,))
    g_mu, g_sigma = mg.grad(lambda mu, s: (mu + s * mr.normal(KEY, (6,))).sum(),
                            argnums=(0, 1))(1.0, 2.0)
    assert g_mu == 6.0
    np.testing.assert_allclose(g_sigma, z.sum(), rtol=1e-12)
    check_jvp(lambda mu, s: (mu + s * mr.normal(KEY, (6,))) ** 2,
              [np.float64(1.0), np.float64(2.0)])


def test_grad_of_truncated_normal_in_its_bounds() -> None:
    # the draws move with the bounds (the same u's); finite differences agree
    def f(lo: Any, hi: Any) -> Any:
        return mr.truncated_normal(KEY, lo, hi, (5,))

    check_jvp(f, [np.float64(-1.0), np.float64(1.5)])
    g = mg.grad(lambda lo: f(lo, 1.5).sum())(-1.0)
    assert np.isfinite(g) and g != 0


def test_vmap_of_grad_over_keys() -> None:
    keys = mr.split(KEY, 4)
    g = mg.vmap(mg.grad(lambda s, k: (s * mr.normal(k, (3,))).sum()), in_axes=(None, 0))
    np.testing.assert_allclose(g(2.0, keys), [mr.normal(k, (3,)).sum() for k in keys],
                               rtol=1e-12)


# --------------------------------------------------------------------------- properties


@given(hst.floats(-1e6, 1e6), hst.floats(1e-6, 1e6), hst.sampled_from(["float32", "float64"]),
       hst.integers(0, 2**32 - 1))
def test_uniform_stays_in_its_range(lo: float, span: float, dtype: str, seed: int) -> None:
    lo_, hi_ = np.asarray(lo, dtype), np.asarray(lo + span, dtype)
    x = mr.uniform(mr.PRNGKey(seed), (200,), dtype, lo_, hi_)
    assert x.dtype == dtype
    # [lo, hi]: as in JAX, u * (hi - lo) + lo can round up to hi when the range is narrow
    # against its magnitude; with the default range it is [0, 1) exactly
    assert (x >= lo_).all() and (x <= hi_).all()
    unit = mr.uniform(mr.PRNGKey(seed), (200,), dtype)
    assert (unit >= 0).all() and (unit < 1).all()


def test_split_keys_draw_independent_streams() -> None:
    keys = mr.split(mr.PRNGKey(0), 4)
    draws = np.stack([mr.uniform(k, (20000,)) for k in keys])
    corr = np.corrcoef(draws)
    assert np.abs(corr[~np.eye(4, dtype=bool)]).max() < 0.03  # 4 sigma for n = 20000
    np.testing.assert_allclose(draws.mean(axis=1), 0.5, atol=0.01)
    # and neighbouring counters of one key are not correlated either
    x = draws[0]
    assert abs(np.corrcoef(x[:-1], x[1:])[0, 1]) < 0.03


def test_sample_moments() -> None:
    n = 50000
    z = mr.normal(KEY, (n,))
    assert abs(z.mean()) < 0.02 and abs(z.std() - 1) < 0.02
    e = mr.exponential(KEY, (n,))
    assert abs(e.mean() - 1) < 0.02
    g = mr.gumbel(KEY, (n,))
    assert abs(g.mean() - np.euler_gamma) < 0.02
    t = mr.truncated_normal(KEY, -1.0, 2.0, (n,))
    assert t.min() > -1.0 and t.max() < 2.0
    r = mr.randint(KEY, (n,), -3, 4)
    assert set(np.unique(r)) == set(range(-3, 4))
    assert abs(mr.bernoulli(KEY, 0.3, (n,)).mean() - 0.3) < 0.01


# --------------------------------------------------------------------------- against JAX


def _jax() -> Any:
    return pytest.importorskip("jax", reason="the differential test needs JAX")


DRAWS = {
    "bits": lambda r, k, dt: r.bits(k, (9,), {"float32": "uint32", "float64": "uint64"}[dt]),
    "uniform": lambda r, k, dt: r.uniform(k, (9,), dt, -3.0, 5.0),
    "normal": lambda r, k, dt: r.normal(k, (9,), dt),
    "randint": lambda r, k, dt: r.randint(k, (9,), -1000, 10**6),
    "bernoulli": lambda r, k, dt: r.bernoulli(k, np.asarray(0.4, dt), (9,)),
    "truncated_normal": lambda r, k, dt: r.truncated_normal(k, -0.5, 3.0, (9,), dt),
    "gumbel": lambda r, k, dt: r.gumbel(k, (9,), dt),
    "exponential": lambda r, k, dt: r.exponential(k, (9,), dt),
    "split": lambda r, k, dt: r.split(k, 3),
}


@pytest.mark.parametrize("x64", [True, False], ids=["x64", "x32"])
@pytest.mark.parametrize("name", DRAWS)
@given(seed=hst.integers(-2**63, 2**63 - 1), dtype=hst.sampled_from(["float32", "float64"]))
def test_matches_jax_random(x64: bool, name: str, seed: int, dtype: str) -> None:
    jax = _jax()
    import jax.random as jr

    with jax.enable_x64(x64), mg.enable_x64(x64):
        expected = np.asarray(DRAWS[name](jr, jr.PRNGKey(seed), dtype))
        actual = DRAWS[name](mr, mr.PRNGKey(seed), dtype)
    assert actual.dtype == expected.dtype
    np.testing.assert_array_equal(actual, expected)

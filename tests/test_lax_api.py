"""minigrad.lax against jax.lax: the names, every parameter of JAX 0.10.2's signatures, and the
values of each construct and of its gradient on the same inputs (float32, JAX's default)."""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
import pytest

import minigrad as mg
from minigrad import lax
from minigrad import numpy as mnp

# Parameters of JAX's signatures minigrad does not take, and why (docs/api.md).
NOT_PARAMETERS = {("scan", "_split_transpose"), ("checkpoint", "static_argnames"),
                  ("checkpoint", "concrete"), ("remat", "concrete"),
                  ("reduce_sum", "out_sharding")}  # (one host: no shardings)


def test_the_names() -> None:
    assert {"checkpoint", "cond", "fori_loop", "map", "remat", "scan", "select",
            "stop_gradient", "switch", "while_loop"} <= set(lax.__all__)  # (and convolutions)
    assert mg.checkpoint is lax.checkpoint and mg.remat is lax.remat


def test_every_jax_parameter_is_a_parameter() -> None:
    jax = pytest.importorskip("jax", reason="compares with JAX's signatures")
    missing = {}
    for name in lax.__all__:
        theirs_fn = getattr(jax.lax, name, None) or getattr(jax, name)
        theirs = set(inspect.signature(theirs_fn).parameters)
        ours = set(inspect.signature(getattr(lax, name)).parameters)
        gap = {p for p in theirs - ours if (name, p) not in NOT_PARAMETERS}
        if gap:
            missing[name] = sorted(gap)
    assert missing == {}


X = np.array([0.3, -1.2, 0.8], np.float32)
XS = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)


def programs(m: Any) -> dict[str, Any]:
    """Each construct written against a module ``m`` with JAX's names (jax.lax or ours)."""
    lx, np_ = m
    return {
        "cond": lambda x: lx.cond(np_.sum(x) > 0, lambda x: np_.sin(x) * x, np_.cos, x),
        "switch": lambda x: lx.switch(2, [np_.sin, np_.cos, lambda x: x * x], x),
        "scan": lambda x: lx.scan(lambda c, xt: (np_.tanh(c * 0.5 + xt), c * xt), x, XS)[1],
        "scan-reverse": lambda x: lx.scan(lambda c, xt: (np_.sin(c) + xt, c), x, XS,
                                          reverse=True)[0],
        "fori_loop": lambda x: lx.fori_loop(0, 3, lambda i, c: np_.sin(c) * 1.5, x),
        "map": lambda x: lx.map(lambda r: r * x, XS),
        "while_loop": lambda x: lx.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1,
                                                                             np_.sin(c[1])),
                                              (0, x))[1],
        "select": lambda x: lx.select(x > 0, x, -x * 2),
        "stop_gradient": lambda x: x * lx.stop_gradient(x),
    }


NAMES = sorted(programs((lax, mnp)))


@pytest.mark.parametrize("name", NAMES)
def test_values_and_derivatives_match_jax(name: str) -> None:
    jax = pytest.importorskip("jax", reason="compares with JAX")
    jnp = jax.numpy
    ours, theirs = programs((lax, mnp))[name], programs((jax.lax, jnp))[name]
    np.testing.assert_allclose(ours(X), np.asarray(theirs(X)), rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(mg.jacfwd(ours)(X), np.asarray(jax.jacfwd(theirs)(X)),
                               rtol=2e-5, atol=1e-6)
    if name != "while_loop":  # reverse mode: both raise for a while_loop
        np.testing.assert_allclose(mg.jacrev(ours)(X), np.asarray(jax.jacrev(theirs)(X)),
                                   rtol=2e-5, atol=1e-6)
    else:
        with pytest.raises(ValueError, match="Reverse-mode differentiation does not work"):
            mg.jacrev(ours)(X)
        with pytest.raises(ValueError, match="Reverse-mode differentiation does not work"):
            jax.jacrev(theirs)(X)
    batch = np.stack([X, -X, X * 2])
    np.testing.assert_allclose(mg.vmap(ours)(batch), np.asarray(jax.vmap(theirs)(batch)),
                               rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64])
def test_integer_pow_multiplies_as_xla(dtype: Any) -> None:
    # XLA's integer_pow is binary exponentiation by multiplication (x**5 = x * (x*x)**2),
    # then one division for a negative power; np.power rounds once, which differs from JAX in
    # the last bit for about half the elements at y = 3
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(5000) + (1j * rng.standard_normal(5000) if dtype == np.complex64
                                      else 0)).astype(dtype)
    sq = x * x
    chains = {0: np.ones_like(x), 1: x, 2: sq, 3: x * sq, 4: sq * sq, 5: x * (sq * sq),
              7: (x * sq) * (sq * sq), -1: 1 / x, -3: 1 / (x * sq)}
    for y, expected in chains.items():
        got = np.asarray(lax.integer_pow(x, y))
        assert got.dtype == x.dtype
        np.testing.assert_array_equal(got, expected.astype(dtype), err_msg=f"y={y}")
    if dtype != np.complex64:  # (a single rounding does differ: the comparison can fail)
        assert not np.array_equal(np.asarray(lax.integer_pow(x, 3)), np.power(x, 3))

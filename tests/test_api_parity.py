"""JAX API parity, the first part of the issue: has_aux on jvp, linearize, jacfwd, jacrev and
hessian; repeated argnums rejected; aux passed through untouched; tree_map's is_leaf and
prefix semantics; jvp's primals and tangents of the same structure. Against JAX where it is
installed."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import minigrad as mg
from minigrad import numpy as mnp


def f(x: Any) -> tuple:
    return mnp.sin(x) * x, {"sq": x * x, "tag": "label", "n": 3}


X = np.array([0.5, 1.0, -2.0])


def test_has_aux_everywhere() -> None:
    out, tan, aux = mg.jvp(f, (X,), (np.ones(3),), has_aux=True)
    np.testing.assert_allclose(out, np.sin(X) * X)
    np.testing.assert_allclose(tan, np.cos(X) * X + np.sin(X))
    assert aux["tag"] == "label" and aux["n"] == 3 and isinstance(aux["sq"], np.ndarray)
    out2, f_jvp, aux2 = mg.linearize(f, X, has_aux=True)
    np.testing.assert_allclose(out2, out)
    np.testing.assert_allclose(f_jvp(np.ones(3)), tan)
    np.testing.assert_array_equal(aux2["sq"], X * X)
    for jac in (mg.jacfwd, mg.jacrev):
        j, aux3 = jac(f, has_aux=True)(X)
        np.testing.assert_allclose(j, np.diag(np.cos(X) * X + np.sin(X)))
        np.testing.assert_array_equal(aux3["sq"], X * X)
        assert aux3["tag"] == "label"
    h, aux4 = mg.hessian(lambda x: (mnp.sum(mnp.sin(x)), x.sum()), has_aux=True)(X)
    np.testing.assert_allclose(h, np.diag(-np.sin(X)))
    assert float(aux4) == X.sum()
    # aux under vmap is batched, and carries no tracer out
    def numeric(x: Any) -> tuple:  # (vmap's outputs are arrays: no label here)
        return mnp.sin(x), x * x

    _, _, aux5 = mg.vmap(lambda x: mg.jvp(numeric, (x,), (x,), has_aux=True))(np.stack([X, X]))
    np.testing.assert_array_equal(aux5, np.stack([X * X] * 2))


def test_has_aux_requires_a_pair() -> None:
    for call in (lambda: mg.jvp(mnp.sin, (X,), (X,), has_aux=True),
                 lambda: mg.linearize(mnp.sin, X, has_aux=True),
                 lambda: mg.jacfwd(mnp.sin, has_aux=True)(X),
                 lambda: mg.jacrev(mnp.sin, has_aux=True)(X)):
        with pytest.raises(TypeError, match="has_aux=True the function must return a pair"):
            call()


def test_repeated_argnums_are_rejected() -> None:
    def g(x: Any, y: Any) -> Any:
        return mnp.sum(x * y)

    for transform in (mg.grad, mg.value_and_grad, mg.jacrev, mg.jacfwd, mg.hessian):
        with pytest.raises(ValueError, match="argnums must not repeat"):
            transform(g, argnums=(0, 0))(X, X)
    with pytest.raises(ValueError, match="argnums must not repeat"):
        mg.grad(g, argnums=(0, -2))(X, X)


def test_jvp_primals_and_tangents_of_one_structure() -> None:
    with pytest.raises(ValueError, match="same tree structure"):
        mg.jvp(mnp.sin, (X,), [X])
    np.testing.assert_allclose(mg.jvp(mnp.sin, [X], [X])[1], np.cos(X) * X)


def test_against_jax() -> None:
    jax = pytest.importorskip("jax", reason="the comparison with JAX needs jax installed")
    jnp = jax.numpy

    def jf(x: Any) -> tuple:
        return jnp.sin(x) * x, {"sq": x * x, "tag": "label", "n": 3}

    with jax.enable_x64(True):
        _, t, aux = jax.jvp(jf, (X,), (np.ones(3),), has_aux=True)
        _, t_ours, aux_ours = mg.jvp(f, (X,), (np.ones(3),), has_aux=True)
        np.testing.assert_allclose(t_ours, t)
        assert aux["tag"] == aux_ours["tag"] and aux["n"] == aux_ours["n"]
        for ours, theirs in ((mg.jacfwd, jax.jacfwd), (mg.jacrev, jax.jacrev)):
            # (JAX's jacfwd vmaps its aux too, so only arrays there)
            mine = ours(lambda x: (mnp.sin(x) * x, x * x), has_aux=True)(X)
            want = theirs(lambda x: (jnp.sin(x) * x, x * x), has_aux=True)(X)
            for a, b in zip(mine, want, strict=True):
                np.testing.assert_allclose(a, b)
        g_aux = jax.grad(lambda x: (jnp.sum(x), "note"), has_aux=True)(X)[1]
        assert g_aux == mg.grad(lambda x: (mnp.sum(x), "note"), has_aux=True)(X)[1]
        with pytest.raises(Exception):  # noqa: B017  (JAX's own error type)
            jax.jvp(jnp.sin, (X,), [X])
        assert jax.tree.map(lambda a, b: (a, b), [1, 2], [[3, 4], 5]) == mg.tree_map(
            lambda a, b: (a, b), [1, 2], [[3, 4], 5])

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


def test_allow_int_gives_float0_gradients() -> None:
    gx, gn = mg.grad(lambda x, n: mnp.sum(x * n), argnums=(0, 1), allow_int=True)(
        np.ones(2), np.array([2, 3]))
    np.testing.assert_array_equal(gx, [2.0, 3.0])
    assert gn.dtype == mg.float0 and gn.shape == (2,)
    with pytest.raises(TypeError, match="allow_int=True"):
        mg.grad(lambda x, n: mnp.sum(x * n), argnums=(0, 1))(np.ones(2), np.array([2, 3]))


@pytest.mark.parametrize(("call", "name"), [
    (lambda: mg.grad(mnp.sum, holomorphic=True), "holomorphic"),
    (lambda: mg.value_and_grad(mnp.sum, reduce_axes=("i",)), "reduce_axes"),
    (lambda: mg.vjp(mnp.sin, X, reduce_axes=("i",)), "reduce_axes"),
    (lambda: mg.linear_transpose(lambda x: x * 2.0, X, reduce_axes=("i",)), "reduce_axes"),
    (lambda: mg.vmap(mnp.sin, spmd_axis_name="i"), "spmd_axis_name"),
    (lambda: mg.vmap(mnp.sin, sum_match=True), "sum_match"),
    (lambda: mg.jacfwd(mnp.sin, holomorphic=True), "holomorphic"),
    (lambda: mg.jacrev(mnp.sin, holomorphic=True), "holomorphic"),
    (lambda: mg.jacrev(mnp.sin, allow_int=True), "allow_int"),
    (lambda: mg.hessian(mnp.sum, holomorphic=True), "holomorphic"),
    (lambda: mg.make_jaxpr(mnp.sin, axis_env=[("i", 2)]), "axis_env"),
    (lambda: mg.jit(mnp.sin, in_shardings=object()), "in_shardings"),
    (lambda: mg.jit(mnp.sin, device="cpu"), "device"),
    (lambda: mg.jit(mnp.sin, compiler_options={"x": 1}), "compiler_options"),
    (lambda: mg.custom_jvp(mnp.sin, nondiff_argnames=("x",)), "nondiff_argnames"),
])
def test_unsupported_arguments_are_refused_by_name(call: Any, name: str) -> None:
    with pytest.raises(NotImplementedError, match=f"{name}.*not supported"):
        call()


def test_supported_jax_arguments() -> None:
    jaxpr, shapes = mg.make_jaxpr(lambda x, k: x * k, static_argnums=1, return_shape=True)(
        X, 3.0)
    assert len(jaxpr.jaxpr.invars) == 1 and shapes.shape == (3,)
    f = mg.jit(lambda x: mg.index_fill(x, 0, np.array([0]), 1.0), donate_argnames="x",
               keep_unused=True, inline=True)
    assert f.lower(X).stats["inplace"] == 1
    np.testing.assert_array_equal(f(X.copy()), [1.0, 1.0, -2.0])


def test_every_jax_argument_is_a_parameter() -> None:
    """For the functions that mirror JAX, every parameter of JAX 0.10's signature exists here
    (supported, or refusing with its reason): none is a Python TypeError for an unexpected
    keyword."""
    import inspect

    jax = pytest.importorskip("jax", reason="compares with JAX's signatures")
    names = ["grad", "value_and_grad", "jvp", "vjp", "linearize", "linear_transpose", "vmap",
             "jacfwd", "jacrev", "hessian", "make_jaxpr", "jit"]
    missing = {}
    for name in names:
        theirs = set(inspect.signature(getattr(jax, name)).parameters)
        ours = set(inspect.signature(getattr(mg, name)).parameters)
        if theirs - ours:
            missing[name] = sorted(theirs - ours)
    for name in ("tree_map", "tree_flatten", "tree_leaves", "tree_structure"):
        theirs = set(inspect.signature(getattr(jax.tree_util, name)).parameters)
        ours = set(inspect.signature(getattr(mg, name)).parameters)
        if theirs - ours:
            missing[name] = sorted(theirs - ours)
    assert missing == {}

"""The top-level names of issue #34: jacobian (jacrev's alias), ShapeDtypeStruct and
eval_shape (shapes by abstract tracing, nothing computed), named_call, and
ensure_compile_time_eval; against JAX when installed."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import minigrad as mg
import minigrad.numpy as mnp
from minigrad.core import Primitive

F32 = np.dtype(np.float32)


def test_jacobian_is_jacrev() -> None:
    f = lambda x: mnp.sin(x) * x[0]  # noqa: E731
    x = np.array([0.3, -1.2, 2.0])
    expected = np.diag(np.cos(x) * x[0])
    expected[:, 0] += np.sin(x)
    np.testing.assert_allclose(mg.jacobian(f)(x), expected, rtol=1e-14)
    np.testing.assert_array_equal(mg.jacobian(f)(x), mg.jacrev(f)(x))
    jac, aux = mg.jacobian(lambda x: (x * 2, "aux"), has_aux=True)(x)
    assert aux == "aux" and np.array_equal(jac, 2 * np.eye(3))
    with pytest.raises(NotImplementedError, match="holomorphic"):
        mg.jacobian(f, holomorphic=True)


def test_shape_dtype_struct() -> None:
    s = mg.ShapeDtypeStruct((2, 3), "float32")
    assert (s.shape, s.dtype, s.ndim, s.size, len(s)) == ((2, 3), F32, 2, 6, 2)
    assert s == mg.ShapeDtypeStruct([2, 3], np.float32) and hash(s) == hash(
        mg.ShapeDtypeStruct((2, 3), F32))
    assert s != mg.ShapeDtypeStruct((2, 3), F32, weak_type=True)
    assert repr(s) == "ShapeDtypeStruct(shape=(2, 3), dtype=float32)"
    assert repr(s.update(shape=(), weak_type=True)) == (
        "ShapeDtypeStruct(shape=(), dtype=float32, weak_type=True)")
    with pytest.raises(TypeError, match="shape must be"):
        mg.ShapeDtypeStruct((2.5,), F32)
    with pytest.raises(NotImplementedError, match="sharding"):
        mg.ShapeDtypeStruct((2,), F32, sharding="x")


def test_eval_shape_computes_nothing() -> None:
    calls = []
    spy = Primitive("spy_eval_shape")
    spy.def_impl(lambda x: calls.append(1) or x)
    spy.def_abstract_eval(lambda x: x)

    def f(w, batch):
        h = spy.bind(mnp.tanh(batch["x"] @ w))
        return {"h": h, "n": h.shape[0], "mean": mnp.mean(h)}

    w = mg.ShapeDtypeStruct((1000, 500), F32)
    out = mg.eval_shape(f, w, {"x": mg.ShapeDtypeStruct((64, 1000), F32)})
    assert calls == []
    assert out == {"h": mg.ShapeDtypeStruct((64, 500), F32),
                   "n": mg.ShapeDtypeStruct((), np.int64, weak_type=True),
                   "mean": mg.ShapeDtypeStruct((), F32)}


def test_eval_shape_inputs_of_every_kind() -> None:
    out = mg.eval_shape(lambda a, b, c: (a * b, c + 1), np.ones((2, 3), np.int32), 2.0,
                        c=mg.ShapeDtypeStruct((4,), "float32"))
    assert out == (mg.ShapeDtypeStruct((2, 3), np.float64),
                   mg.ShapeDtypeStruct((4,), F32))
    assert mg.eval_shape(lambda x: x, 2.0) == mg.ShapeDtypeStruct((), np.float64,
                                                                    weak_type=True)
    with mg.enable_x64(False):
        assert mg.eval_shape(lambda x: x, 2.0) == mg.ShapeDtypeStruct((), F32, weak_type=True)
        assert mg.eval_shape(lambda x: x, mg.ShapeDtypeStruct((2,), np.float64)) == (
            mg.ShapeDtypeStruct((2,), F32))
    # inside a transform, of a traced value
    g = mg.grad(lambda x: mnp.sum(x) * mg.eval_shape(lambda y: y * 2, x).shape[0])
    np.testing.assert_array_equal(g(np.ones(3)), [3.0, 3.0, 3.0])
    with pytest.raises(TypeError, match="eval_shape"):
        mg.eval_shape(lambda x: x, "text")
    with pytest.raises(TypeError, match="eval_shape"):
        mg.eval_shape(lambda x: "text", 1.0)


def test_eval_shape_against_jax() -> None:
    jax = pytest.importorskip("jax", reason="compares with jax.eval_shape")
    import jax.numpy as jnp

    def f(a, b):
        return {"sum": (a @ b).sum(0), "n": a.shape[1], "weak": b[0, 0] * 2.0}

    a, b = np.ones((4, 3), np.float32), np.ones((3, 5), np.float32)
    with jax.enable_x64(False), mg.enable_x64(False):
        theirs = jax.eval_shape(lambda a, b: f(a, b), jax.ShapeDtypeStruct(a.shape, jnp.float32),
                                b)
        ours = mg.eval_shape(f, mg.ShapeDtypeStruct(a.shape, F32), b)
    assert jax.tree.structure(theirs) == jax.tree.structure(
        mg.tree.map(lambda s: 0, ours))
    for t, o in zip(jax.tree.leaves(theirs), mg.tree.leaves(ours), strict=True):
        assert repr(t) == repr(o)


def test_named_call_is_the_function_renamed() -> None:
    def f(x):
        return mnp.sin(x) * 2.0

    g = mg.named_call(f, name="layer")
    assert g.__name__ == "layer" and mg.named_call(f).__name__ == "f"
    x = np.array([0.5, 1.0])
    np.testing.assert_array_equal(g(x), f(x))
    assert str(mg.make_jaxpr(g)(x)) == str(mg.make_jaxpr(f)(x))  # inlined, as in JAX
    np.testing.assert_array_equal(mg.grad(lambda x: mnp.sum(g(x)))(x), 2 * np.cos(x))
    with pytest.raises(TypeError, match="named_call: name"):
        mg.named_call(f, name=3)


def test_ensure_compile_time_eval() -> None:
    seen: list[Any] = []

    def f(x):
        with mg.ensure_compile_time_eval():
            y = mnp.sin(mnp.ones(2))
            seen.append(y)
            z = x + 1.0  # traced: staged as usual
        return z * y

    jaxpr = mg.make_jaxpr(f)(np.ones(2))
    assert isinstance(seen[-1], mg.Array)  # a concrete value, not a tracer
    assert "sin" not in str(jaxpr)  # computed while tracing: a constant of the program
    assert "sin" in str(mg.make_jaxpr(lambda x: x * mnp.sin(mnp.ones(2)))(np.ones(2)))
    np.testing.assert_allclose(mg.jit(f)(np.ones(2)), 2 * np.sin(1.0), rtol=1e-15)
    with mg.ensure_compile_time_eval():  # eager: nothing changes
        np.testing.assert_array_equal(mnp.ones(2) * 3, [3.0, 3.0])
    # the staging mode is restored when the block ends, error or not
    def g(x):
        with pytest.raises(ZeroDivisionError), mg.ensure_compile_time_eval():
            raise ZeroDivisionError
        return x * mnp.cos(mnp.ones(2))
    assert "cos" in str(mg.make_jaxpr(g)(np.ones(2)))


# Parameters of JAX's signatures that minigrad does not take, and why (docs/api.md).
NOT_PARAMETERS = {
    ("ShapeDtypeStruct", "manual_axis_type"): "one device",
    ("ShapeDtypeStruct", "is_ref"): "no mutable references",
}


def test_every_jax_parameter_is_a_parameter() -> None:
    """Issue #34's names: JAX 0.10.2's parameters are all ours (by name), in the top level,
    minigrad.tree, minigrad.tree_util, minigrad.nn and minigrad.nn.initializers."""
    import inspect

    jax = pytest.importorskip("jax", reason="compares with JAX's signatures")
    from minigrad.nn import functions, initializers

    groups = [(mg, jax, ["jacobian", "eval_shape", "named_call", "ShapeDtypeStruct"]),
              (mg.tree, jax.tree, mg.tree.__all__),
              (mg.tree_util, jax.tree_util,
               [n for n in mg.tree_util.__all__ if callable(getattr(mg.tree_util, n))
                and n not in ("KeyEntry", "KeyPath", "PyTreeDef", "SequenceKey", "DictKey",
                              "GetAttrKey", "FlattenedIndexKey")]),  # (JAX's: C++ classes)
              (mg.nn, jax.nn, functions.__all__),
              (initializers, jax.nn.initializers,
               [n for n in initializers.__all__ if n != "Initializer"])]
    missing = {}
    for ours_mod, theirs_mod, names in groups:
        for name in names:
            theirs = set(inspect.signature(getattr(theirs_mod, name)).parameters)
            ours = set(inspect.signature(getattr(ours_mod, name)).parameters)
            gap = {p for p in theirs - ours if (name, p) not in NOT_PARAMETERS}
            if gap:
                missing[f"{theirs_mod.__name__}.{name}"] = sorted(gap)
    assert missing == {}

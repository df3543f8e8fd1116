"""minigrad.Array: every value minigrad hands back eagerly is one, with JAX's array methods, and
it stays an ndarray for everything NumPy (and torch.from_numpy) does with ndarrays."""

from __future__ import annotations

import importlib.util
import pickle
from typing import Any

import numpy as np
import pytest

import minigrad as mg
import minigrad.numpy as mnp
from minigrad.tree import tree_leaves

X = np.arange(6.0).reshape(2, 3)
IDX = np.array([0, 1, 1])


def f(x: Any) -> Any:
    return mnp.sum(mnp.sin(x) * x)


def g(x: Any) -> Any:
    return mnp.sin(x) * 2.0


# Every way minigrad hands back a value: (name, thunk). Each leaf of each result must be an
# Array (float0 tangents of integer inputs stay NumPy arrays, as in JAX).
def _results() -> list[tuple[str, Any]]:
    lin_out, f_jvp = mg.linearize(g, X)
    vjp_out, vjp_fn = mg.vjp(g, X)
    cj = mg.custom_jvp(lambda x: x * 3.0)
    cj.defjvp(lambda p, t: (p[0] * 3.0, t[0] * 3.0))
    cv = mg.custom_vjp(lambda x: x * 3.0)
    cv.defvjp(lambda x: (x * 3.0, None), lambda _, ct: (ct * 3.0,))
    cm = mg.custom_vmap(lambda x: x * 3.0)
    cm.def_vmap(lambda size, in_batched, x: (x * 3.0, in_batched[0]))
    return [
        ("mnp.sin", lambda: mnp.sin(X)),
        ("mnp.asarray of a list", lambda: mnp.asarray([1.0, 2.0])),
        ("mnp.asarray of an ndarray", lambda: mnp.asarray(X)),
        ("mnp.zeros", lambda: mnp.zeros(3)),
        ("index_add", lambda: mg.index_add(X, 1, IDX, np.ones((2, 3)))),
        ("index_copy", lambda: mg.index_copy(X, 1, IDX, np.ones((2, 3)))),
        ("index_fill", lambda: mg.index_fill(X, 1, IDX, 2.0)),
        ("masked_fill", lambda: mg.masked_fill(X, X > 2, 0.0)),
        ("masked_scatter", lambda: mg.masked_scatter(X, X > 2, np.ones(6))),
        ("grad", lambda: mg.grad(f)(X)),
        ("grad of a Python float", lambda: mg.grad(lambda x: x * x)(3.0)),
        ("value_and_grad", lambda: mg.value_and_grad(f)(X)),
        ("jvp", lambda: mg.jvp(g, (X,), (X,))),
        ("jvp passing its input through", lambda: mg.jvp(lambda x: x, (X,), (X,))),
        ("vjp", lambda: (vjp_out, vjp_fn(np.ones_like(X)))),
        ("linearize", lambda: (lin_out, f_jvp(X))),
        ("vmap", lambda: mg.vmap(g)(X)),
        ("vmap of a constant", lambda: mg.vmap(lambda x: 1.0)(X)),
        ("jacfwd", lambda: mg.jacfwd(g)(X[0])),
        ("jacrev", lambda: mg.jacrev(g)(X[0])),
        ("hessian", lambda: mg.hessian(f)(X[0])),
        ("jit", lambda: mg.jit(g)(X)),
        ("jit returning its input", lambda: mg.jit(lambda x: x)(X)),
        ("jit of grad", lambda: mg.jit(mg.grad(f))(X)),
        ("functionalize", lambda: mg.functionalize(g)(X)),
        ("eval_jaxpr", lambda: mg.eval_jaxpr(mg.make_jaxpr(g)(X).jaxpr, [], X)),
        ("linear_transpose", lambda: mg.linear_transpose(lambda x: x * 2.0, X)(X)),
        ("custom_jvp", lambda: cj(X)),
        ("grad of custom_jvp", lambda: mg.grad(lambda x: mnp.sum(cj(x)))(X)),
        ("custom_vjp", lambda: cv(X)),
        ("grad of custom_vjp", lambda: mg.grad(lambda x: mnp.sum(cv(x)))(X)),
        ("custom_vmap", lambda: cm(X)),
        ("vmap of custom_vmap", lambda: mg.vmap(cm)(X)),
        ("device_put", lambda: mg.device_put({"a": X, "b": 1.0})),
    ]


@pytest.mark.parametrize("name, thunk", _results(), ids=[n for n, _ in _results()])
def test_every_eager_result_is_an_array(name: str, thunk: Any) -> None:
    leaves = [leaf for leaf in tree_leaves(thunk()) if not callable(leaf)]
    assert leaves
    for leaf in leaves:
        if isinstance(leaf, np.ndarray) and leaf.dtype == mg.float0:
            continue
        assert type(leaf) is mg.Array, f"{name}: a {type(leaf).__name__}"


def test_in_place_variants_return_their_argument_itself() -> None:
    for x in (X.copy(), X.copy().view(mg.Array)):
        assert mg.index_add_(x, 1, IDX, np.ones((2, 3))) is x
        assert mg.masked_fill_(x, x > 2, 0.0) is x


def test_tracers_are_arrays() -> None:
    seen = []

    def record(x: Any) -> Any:
        seen.append(isinstance(x, mg.Array) and isinstance(x, mnp.ndarray))
        return x * 2.0

    mg.jit(record)(X)
    mg.vmap(record)(X)
    mg.grad(lambda x: mnp.sum(record(x)))(X)
    assert seen == [True, True, True]
    assert not isinstance(X, mg.Array)  # a plain ndarray is not one
    assert issubclass(mg.Array, np.ndarray)


def test_jax_methods() -> None:
    a = mnp.sin(X)
    assert a.block_until_ready() is a
    assert a.copy_to_host_async() is None
    assert repr(a.device) == "CpuDevice(id=0)" and a.device.platform == "cpu"
    assert a.devices() == {a.device}
    assert a.to_device(a.device) is a and a.to_device("cpu") is a
    with pytest.raises(ValueError, match="to_device: device must be"):
        a.to_device("gpu")
    assert a.__array_namespace__() is mnp
    assert a.__array_namespace__(api_version="2024.12") is mnp
    with pytest.raises(ValueError, match="api_version must be one of"):
        a.__array_namespace__(api_version="1999.01")
    assert a.is_fully_addressable and a.is_fully_replicated and a.is_ready()
    assert a.aval == mg.ShapedArray((2, 3), np.dtype(np.float64))
    assert a.weak_type is False
    assert a.on_device_size_in_bytes() == 48
    assert mg.default_backend() == "cpu" and mg.devices() == [a.device]
    assert mg.local_devices() == [a.device] and mg.device_count() == 1


REPRS = [
    (np.array([1.0, 2.0]), "Array([1., 2.], dtype=float64)"),
    (np.array([1.0, 2.0], np.float32), "Array([1., 2.], dtype=float32)"),
    (np.array(3.0), "Array(3., dtype=float64)"),
    (np.array([True, False]), "Array([ True, False], dtype=bool)"),
    (np.arange(12).reshape(3, 4),
     "Array([[ 0,  1,  2,  3],\n       [ 4,  5,  6,  7],\n       [ 8,  9, 10, 11]], dtype=int64)"),
    (np.zeros((0, 3)), "Array([], shape=(0, 3), dtype=float64)"),
    (np.array([1.5, 2.25], np.float16), "Array([1.5 , 2.25], dtype=float16)"),
]


@pytest.mark.parametrize("value, text", REPRS)
def test_repr_is_jaxs(value: np.ndarray, text: str) -> None:
    assert repr(mnp.asarray(value)) == text


@pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="jax is not installed")
def test_repr_against_jax() -> None:
    import jax
    import jax.numpy as jnp

    with jax.enable_x64(True):  # (a block: other tests and pages run JAX's default)
        for value, _ in REPRS:
            assert repr(mnp.asarray(value)) == repr(jnp.asarray(value))
        assert repr(mnp.arange(2000.0)) == repr(jnp.arange(2000.0))


def test_numpy_functions_on_arrays() -> None:
    a = mnp.sin(X)
    np.testing.assert_array_equal(np.cos(a), np.cos(np.sin(X)))
    assert np.linalg.norm(a) == np.linalg.norm(np.sin(X))
    assert float(a.sum()) == float(np.sin(X).sum())
    assert a[0, 1] == np.sin(X)[0, 1]
    assert isinstance(a + 1.0, np.ndarray)


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")
def test_torch_from_numpy() -> None:
    import torch

    a = mnp.sin(X)
    t = torch.from_numpy(a)
    assert t.shape == (2, 3) and torch.equal(t, torch.from_numpy(np.sin(X)))
    t[0, 0] = 7.0  # shares memory, as torch.from_numpy of an ndarray does
    assert a[0, 0] == 7.0


def test_pickle_round_trip() -> None:
    a = mnp.sin(X)
    b = pickle.loads(pickle.dumps(a))
    assert type(b) is mg.Array and np.array_equal(a, b) and b.dtype == a.dtype


def test_device_put_and_get() -> None:
    x = np.arange(3.0)
    tree = mg.device_put({"x": x, "s": 2.0, "l": [1, 2]})
    assert all(type(v) is mg.Array for v in tree_leaves(tree))
    x[0] = 100.0  # device_put copied: JAX's device buffers are the device's
    assert tree["x"][0] == 0.0
    assert tree["s"].dtype == np.float64 and tree["l"][0].dtype == np.int64
    a = tree["x"]
    assert mg.device_put(a) is a
    back = mg.device_get({"a": a, "n": 3})
    assert type(back["a"]) is np.ndarray and back["n"] == 3
    assert mg.block_until_ready(tree) is tree
    with pytest.raises(ValueError, match="device_put: device must be"):
        mg.device_put(x, "tpu")


def test_impls_see_plain_ndarrays() -> None:
    # the eval trace takes the Array view off before an impl runs (NumPy's fast paths)
    from minigrad.core import Primitive

    seen = []
    p = Primitive("probe")
    p.def_impl(lambda x: (seen.append(type(x)), x * 2)[1])
    p.def_abstract_eval(lambda x: x)
    out = p.bind(mnp.sin(X))
    assert seen == [np.ndarray] and type(out) is mg.Array

"""Array-API code under minigrad's transforms: functions written only against
``xp = x.__array_namespace__()`` (never naming minigrad or NumPy) run on NumPy arrays (NumPy 2's
own namespace: the reference), on minigrad Arrays, and on tracers, so grad, vmap, jit and
vmap(grad) take them as they are. And, in a subprocess with ``SCIPY_ARRAY_API=1``, SciPy's
array-API functions differentiated by minigrad."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg
import minigrad.numpy as mnp
from minigrad.testing import check_jvp, check_vjp, check_vmap

# --------------------------------------------------------------------------- array-API code


def softmax(x: Any) -> Any:
    xp = x.__array_namespace__()
    shifted = x - xp.max(x, axis=-1, keepdims=True)
    e = xp.exp(shifted)
    return e / xp.sum(e, axis=-1, keepdims=True)


def standardize(x: Any) -> Any:
    xp = x.__array_namespace__()
    mean = xp.mean(x, axis=-1, keepdims=True)
    std = xp.std(x, axis=-1, keepdims=True, correction=1)
    return (x - mean) / std


def least_squares(a: Any) -> Any:
    """The least-squares solution of ``a[:, :-1] @ w = a[:, -1]`` by the normal equations and
    ``xp.linalg.solve``; its residual's norm by ``xp.linalg.vector_norm``."""
    xp = a.__array_namespace__()
    m, b = a[:, :-1], a[:, -1]
    gram = xp.matrix_transpose(m) @ m
    w = xp.linalg.solve(gram, xp.linalg.matrix_transpose(m) @ b[:, None])[:, 0]
    residual = xp.linalg.vector_norm(m @ w - b)
    return xp.concat([w, xp.reshape(residual, (1,))])


def log_likelihood(x: Any) -> Any:
    """A scalar: the mean log-softmax of the standardized rows, through xp.vecdot."""
    xp = x.__array_namespace__()
    p = softmax(standardize(x))
    return xp.mean(xp.log(p)) + xp.sum(xp.vecdot(p, p))


FUNCTIONS = {"softmax": softmax, "standardize": standardize, "least_squares": least_squares,
             "log_likelihood": log_likelihood}
RNG = np.random.default_rng(0)
ARGS = {"softmax": RNG.standard_normal((3, 4)), "standardize": RNG.standard_normal((3, 4)),
        "least_squares": RNG.standard_normal((6, 3)),
        "log_likelihood": RNG.standard_normal((3, 4))}


def scalar(f: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def loss(x: Any) -> Any:
        xp = x.__array_namespace__()
        return xp.sum(xp.sin(f(x)))

    return loss


@pytest.mark.parametrize("name", FUNCTIONS)
def test_eager_on_minigrad_arrays_is_numpys(name: str) -> None:
    f, x = FUNCTIONS[name], ARGS[name]
    assert mnp.asarray(x).__array_namespace__() is mnp
    ours = f(mnp.asarray(x))
    assert isinstance(ours, mg.Array)
    np.testing.assert_allclose(ours, f(x), rtol=1e-12, atol=1e-12)  # (NumPy's namespace)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_grad_jvp_vjp_against_finite_differences(name: str) -> None:
    f, x = FUNCTIONS[name], ARGS[name]
    check_jvp(f, [x])
    check_vjp(f, [x])
    loss = scalar(f)
    g = mg.grad(loss)(x)
    eps = 1e-6
    fd = np.array([(loss(x + eps * e) - loss(x - eps * e)) / (2 * eps)
                   for e in np.eye(x.size).reshape(x.size, *x.shape)]).reshape(x.shape)
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_vmap_jit_and_vmap_grad(name: str) -> None:
    f, x = FUNCTIONS[name], ARGS[name]
    batch = np.stack([x, 2.0 * x + 0.5, x[::-1] - 1.0])
    check_vmap(f, [batch], in_axes=(0,))
    check_vmap(f, [np.moveaxis(batch, 0, -1)], in_axes=(-1,))
    np.testing.assert_allclose(mg.jit(f)(x), f(x), rtol=1e-12, atol=1e-12)
    loss = scalar(f)
    looped = np.stack([mg.grad(loss)(b) for b in batch])
    np.testing.assert_allclose(mg.vmap(mg.grad(loss))(batch), looped, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(mg.jit(mg.vmap(mg.grad(loss)))(batch), looped, rtol=1e-12,
                               atol=1e-12)


def test_a_tracer_carries_the_namespace() -> None:
    seen: list[Any] = []

    def f(x: Any) -> Any:
        seen.append((x.__array_namespace__(), x.device, x.mT.shape, x.to_device("cpu") is x))
        return mnp.sum(x)

    mg.grad(f)(np.ones((2, 3)))
    mg.vmap(f)(np.ones((4, 2, 3)))
    mg.jit(f)(np.ones((2, 3)))
    assert all(s == (mnp, mg.devices()[0], (3, 2), True) for s in seen), seen
    with pytest.raises(ValueError, match="api_version"):
        mg.grad(lambda x: x.__array_namespace__(api_version="2019.01") and x)(1.0)


# --------------------------------------------------------------------------- SciPy

SCIPY_SCRIPT = textwrap.dedent("""
    import numpy as np, minigrad as mg, minigrad.numpy as mnp
    import scipy.stats as ss
    from scipy.special import logsumexp, softmax
    from minigrad.core import ConcretizationError

    x = np.array([1.0, 2.0, 4.0, 7.0, 3.5])
    eps = 1e-6
    for name, f in [("logsumexp", logsumexp), ("softmax", lambda v: softmax(v)[1]),
                    ("zscore", lambda v: mnp.sum(ss.zscore(v) ** 3)),
                    ("skew", ss.skew), ("kurtosis", ss.kurtosis), ("gmean", ss.gmean),
                    ("moment", lambda v: ss.moment(v, 3)), ("sem", ss.sem)]:
        g = np.asarray(mg.grad(f)(x))
        fd = np.array([(float(f(x + eps * e)) - float(f(x - eps * e))) / (2 * eps)
                       for e in np.eye(x.size)])
        batch = np.stack([x, x ** 2, x[::-1]])
        vm = np.asarray(mg.vmap(f)(batch))
        ok = (np.allclose(g, fd, rtol=1e-6, atol=1e-8)
              and np.allclose(vm, [float(f(b)) for b in batch], rtol=1e-12))
        try:
            ok = ok and bool(np.isclose(float(mg.jit(f)(x)), float(f(x)), rtol=1e-12))
            staged = ""
        except ConcretizationError:  # Python control flow on a staged value (as in JAX)
            staged = ", not under jit"
        print(name, "ok" + staged if ok else f"WRONG {g} {fd}")
    # eagerly, a minigrad Array is an ndarray subclass: SciPy takes its NumPy path
    print("eager", type(ss.skew(mnp.asarray(x))).__name__)
""")


def test_scipy_array_api_functions_under_minigrad() -> None:
    pytest.importorskip("scipy", reason="SciPy is not installed")
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "SCIPY_ARRAY_API": "1",
           "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    run = subprocess.run([sys.executable, "-c", SCIPY_SCRIPT], env=env, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split("\n")[:-1] == [
        "logsumexp ok", "softmax ok", "zscore ok", "skew ok", "kurtosis ok", "gmean ok",
        "moment ok, not under jit", "sem ok", "eager float64"], run.stdout + run.stderr


# --------------------------------------------------------------------------- x[key] = y


def clipped(x: Any) -> Any:
    """Array-API code that writes into its own array (as SciPy's ``at`` does off JAX)."""
    xp = x.__array_namespace__()
    y = xp.asarray(x * 2.0, copy=True)
    y[y > 1.0] = 1.0  # a mask of y's shape, one value
    y[0] = x[-1]  # an integer index, a traced value
    y[1:3] = xp.sin(x[1:3])
    return y


def test_setitem_on_a_tracer_is_an_update() -> None:
    x = np.array([0.3, -0.2, 0.9, 0.1, 0.45])
    want = clipped(x.copy())  # NumPy's own namespace and setitem
    np.testing.assert_array_equal(clipped(mnp.asarray(x)), want)
    np.testing.assert_allclose(mg.jit(clipped)(x), want, rtol=1e-15)
    check_jvp(clipped, [x])
    check_vjp(clipped, [x])
    batch = np.stack([x, -x, x * 3.0])
    check_vmap(clipped, [batch], in_axes=(0,))
    np.testing.assert_allclose(mg.jit(mg.vmap(clipped))(batch), np.stack([clipped(b) for b in
                                                                          batch]), rtol=1e-15)
    # the derivative: 0 where overwritten (y[0]), cos on the slice, 2 where kept, and x[-1]
    # counts twice (kept at y[4], copied to y[0]); and 0 where clipped:
    grad = mg.grad(lambda v: mnp.sum(clipped(v)))(x)
    np.testing.assert_allclose(grad, [0.0, np.cos(-0.2), np.cos(0.9), 2.0, 3.0], rtol=1e-15)
    np.testing.assert_allclose(mg.grad(lambda v: mnp.sum(clipped(v)))(x + 0.5),
                               [0.0, np.cos(0.3), np.cos(1.4), 0.0, 1.0], rtol=1e-15)


def test_setitem_keeps_the_dtype_and_refuses_views() -> None:
    def f(x: Any) -> Any:
        y = x + 0  # int64
        y[x > 1] = 7.9  # cast to x's dtype, as NumPy's setitem
        return y

    np.testing.assert_array_equal(mg.jit(f)(np.array([0, 2, 5])), [0, 7, 7])

    def g(x: Any) -> Any:
        v = x[1:]
        v[0] = 1.0
        return v

    with pytest.raises(ValueError, match=r"x\[key\] = y: x is a view"):
        mg.grad(lambda x: mnp.sum(g(x)))(np.ones(3))

"""stop_gradient: the identity with a zero derivative, under every transform.

The op record (minigrad/testing/records.py) checks the impl, the shape rule and batching;
its JVP cannot be checked against finite differences (those give the identity's), so the zero
tangent is checked here, with JAX's facts: every leaf of a pytree passes through an equation
(integer leaves too), the tangent is a symbolic zero, vmap keeps it elementwise, jit runs it.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad import lax
from minigrad import numpy as mnp
from minigrad.core import Zero, float0
from minigrad.ops.stop_gradient import stop_gradient_p


def test_values_pass_through_a_pytree() -> None:
    x, i = np.array([1.0, -2.0]), np.array([3, 4])
    out = lax.stop_gradient({"x": x, "pair": (i, 2.5)})
    np.testing.assert_array_equal(out["x"], x)
    np.testing.assert_array_equal(out["pair"][0], i)
    assert out["pair"][0].dtype == i.dtype
    assert out["pair"][1] == 2.5 and isinstance(out["pair"][1], np.ndarray)


def test_every_leaf_is_an_equation() -> None:
    jaxpr = mg.make_jaxpr(lambda x, i: lax.stop_gradient((x, {"a": i})))(1.0, 2)
    assert [e.prim.name for e in jaxpr.eqns] == ["stop_gradient", "stop_gradient"]
    assert str(jaxpr).splitlines()[1].strip() == "c:f64[] = stop_gradient a"


def test_the_derivative_is_zero() -> None:
    def f(x):
        return mnp.sum(x * lax.stop_gradient(x))

    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(mg.grad(f)(x), x)  # d/dx (x * c) with c = x held fixed
    np.testing.assert_array_equal(mg.grad(lambda x: mnp.sum(lax.stop_gradient(x)))(x),
                                  np.zeros(3))
    _, t = mg.jvp(lax.stop_gradient, (x,), (np.ones(3),))
    np.testing.assert_array_equal(t, np.zeros(3))
    np.testing.assert_array_equal(mg.jacfwd(lax.stop_gradient)(x), np.zeros((3, 3)))
    np.testing.assert_array_equal(mg.jacrev(lax.stop_gradient)(x), np.zeros((3, 3)))
    np.testing.assert_array_equal(mg.hessian(f)(x), np.zeros((3, 3)))  # grad f = sg(x)


def test_the_jvp_rule_returns_a_symbolic_zero() -> None:
    out, t = stop_gradient_p.jvp((np.ones(2),), (np.ones(2),))
    np.testing.assert_array_equal(out, np.ones(2))
    assert isinstance(t, Zero) and t.aval.shape == (2,) and t.aval.dtype == np.float64
    _, t_int = stop_gradient_p.jvp((np.arange(3),), (Zero(mg.ShapedArray((3,), float0)),))
    assert isinstance(t_int, Zero) and t_int.aval.dtype == float0


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_nan_safety_pattern() -> None:
    # The select of a batched cond masks the untaken lane's input with stop_gradient: the
    # gradient of sqrt at 0 (infinite) never reaches the input.
    def f(x):
        safe = mnp.where(x > 0, x, lax.stop_gradient(x))
        return mnp.sum(mnp.where(x > 0, mnp.sqrt(safe), 0.0))

    np.testing.assert_array_equal(mg.grad(f)(np.array([0.0, 4.0])), [0.0, 0.25])

    def naive(x):
        return mnp.sum(mnp.where(x > 0, mnp.sqrt(x), 0.0))

    assert np.isnan(mg.grad(naive)(np.array([0.0, 4.0]))[0])  # 0 * inf


@pytest.mark.parametrize("in_axes", [0, 1])
def test_vmap_is_elementwise(in_axes: int) -> None:
    x = np.arange(6.0).reshape(2, 3)
    out = mg.vmap(lax.stop_gradient, in_axes=in_axes)(x)
    np.testing.assert_array_equal(out, np.moveaxis(x, in_axes, 0))
    jaxpr = mg.make_jaxpr(mg.vmap(lax.stop_gradient, in_axes=in_axes))(x)
    assert [e.prim.name for e in jaxpr.eqns] == ["stop_gradient", "transpose"][:1 + in_axes]


def test_jit_runs_it_as_the_identity() -> None:
    f = mg.jit(lambda x: lax.stop_gradient(x) * 2.0)
    x = np.array([1.0, 2.0])
    np.testing.assert_array_equal(f(x), 2 * x)
    np.testing.assert_array_equal(mg.grad(lambda x: mnp.sum(f(x)))(x), np.zeros(2))
    out = mg.jit(lax.stop_gradient)(x)
    out[0] = 9.0  # a jitted identity's result is not the caller's array
    assert x[0] == 1.0


def test_grad_of_grad_through_it() -> None:
    # d/dx [x**2 * sg(x)] = 2 x sg(x); d2/dx2 = 2 sg(x)
    f = lambda x: x * x * lax.stop_gradient(x)  # noqa: E731
    assert mg.grad(mg.grad(f))(np.float64(3.0)) == 6.0


def test_bad_leaf() -> None:
    with pytest.raises(TypeError, match=r"stop_gradient: x\[0\] must be an array"):
        lax.stop_gradient(["a"])

"""Reverse mode: grad, value_and_grad, vjp, linearize, linear_transpose, jacrev, hessian."""

from collections import namedtuple

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad as mg
import minigrad.numpy as mnp
from minigrad.core import Tracer
from minigrad.testing import check_grads, check_vjp

rng = np.random.default_rng(1)
floats = st.floats(-2.0, 2.0, allow_nan=False, allow_infinity=False, width=64)


def vec(n=3):
    return hnp.arrays(np.float64, (n,), elements=floats)


def _no_tracers(tree):
    return not any(isinstance(leaf, Tracer) for leaf in mg.tree_leaves(tree))


# --------------------------------------------------------------------------- grad basics


def test_grad_simple():
    x = np.array([1.0, -2.0, 0.5])
    np.testing.assert_allclose(mg.grad(lambda v: (v ** 2).sum())(x), 2 * x)
    np.testing.assert_allclose(mg.grad(lambda v: mnp.sin(v).sum())(x), np.cos(x))
    assert type(mg.grad(lambda v: v * v)(3.0)) is mg.Array


@given(x=vec(), y=vec())
def test_grad_matches_vjp_dot_product(x, y):
    check_vjp(lambda a, b: mnp.tanh(a) * b + mnp.exp(a * 0.5), [x, y])


def test_grad_argnums_int_and_tuple():
    def f(a, b, c):
        return (a * b * c).sum()

    a, b, c = np.array([1.0, 2.0]), np.array([3.0, 4.0]), np.array([5.0, 6.0])
    np.testing.assert_allclose(mg.grad(f, argnums=1)(a, b, c), a * c)
    np.testing.assert_allclose(mg.grad(f, argnums=-1)(a, b, c), a * b)
    ga, gc = mg.grad(f, argnums=(0, 2))(a, b, c)
    np.testing.assert_allclose(ga, b * c)
    np.testing.assert_allclose(gc, a * b)
    g = mg.grad(f, argnums=(1,))(a, b, c)
    assert isinstance(g, tuple) and len(g) == 1


def test_value_and_grad():
    v, g = mg.value_and_grad(lambda x: (x ** 3).sum())(np.array([1.0, 2.0]))
    assert float(v) == 9.0
    np.testing.assert_allclose(g, [3.0, 12.0])
    v, (g0, g1) = mg.value_and_grad(lambda x, y: x * y, argnums=(0, 1))(2.0, 5.0)
    assert (float(v), float(g0), float(g1)) == (10.0, 5.0, 2.0)


def test_value_and_grad_has_aux():
    def f(x):
        return (x ** 2).sum(), {"mean": x.mean(), "double": x * 2.0}

    x = np.array([1.0, 2.0, 3.0])
    (v, aux), g = mg.value_and_grad(f, has_aux=True)(x)
    assert float(v) == 14.0
    np.testing.assert_allclose(g, 2 * x)
    assert _no_tracers(aux)
    assert float(aux["mean"]) == 2.0
    np.testing.assert_allclose(aux["double"], 2 * x)


def test_grad_has_aux():
    g, aux = mg.grad(lambda x: (mnp.sin(x).sum(), x * 3.0), has_aux=True)(np.array([0.0, 1.0]))
    np.testing.assert_allclose(g, np.cos([0.0, 1.0]))
    assert _no_tracers(aux)
    np.testing.assert_allclose(aux, [0.0, 3.0])


def test_grad_has_aux_passes_python_values_through():
    # as JAX does: aux is returned untouched (a Python number stays one, a label too); traced
    # values come back as arrays
    g, aux = mg.grad(lambda x: (x * x, (1.5, [x], "note", None)), has_aux=True)(2.0)
    assert float(g) == 4.0
    assert aux[0] == 1.5 and type(aux[0]) is float
    assert isinstance(aux[1], list) and isinstance(aux[1][0], np.ndarray)
    assert float(aux[1][0]) == 2.0 and aux[2] == "note" and aux[3] is None
    assert mg.value_and_grad(lambda x: (x * x, "lbl"), has_aux=True)(2.0)[0][1] == "lbl"


def test_grad_has_aux_under_vmap_is_batched():
    xs = np.arange(6.0).reshape(3, 2)
    g, aux = mg.vmap(mg.grad(lambda x: ((x ** 2).sum(), x.sum()), has_aux=True))(xs)
    np.testing.assert_allclose(g, 2 * xs)
    np.testing.assert_allclose(aux, xs.sum(1))


def test_grad_has_aux_not_a_pair():
    with pytest.raises(TypeError, match=r"has_aux=True.*pair"):
        mg.grad(lambda x: x * x, has_aux=True)(2.0)


def test_keyword_arguments_pass_through_undifferentiated():
    def f(x, *, scale):
        return (x * scale).sum()

    x, scale = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    np.testing.assert_allclose(mg.grad(f)(x, scale=scale), scale)
    v, g = mg.value_and_grad(f)(x, scale=scale)
    assert float(v) == 11.0
    np.testing.assert_allclose(g, scale)
    np.testing.assert_allclose(mg.jacrev(lambda x, *, s: x * s)(x, s=scale), np.diag(scale))
    np.testing.assert_allclose(mg.jacfwd(lambda x, *, s: x * s)(x, s=scale), np.diag(scale))
    np.testing.assert_allclose(mg.hessian(lambda x, *, s: (x ** 2 * s).sum())(x, s=scale),
                               np.diag(2 * scale))


# --------------------------------------------------------------------------- pytrees


def test_grad_dict_input():
    p = {"w": np.array([1.0, 2.0]), "b": np.float64(0.5)}
    g = mg.grad(lambda p: (p["w"] * p["b"]).sum() + p["b"] ** 2)(p)
    assert set(g) == {"w", "b"}
    np.testing.assert_allclose(g["w"], [0.5, 0.5])
    np.testing.assert_allclose(g["b"], 3.0 + 1.0)


def test_grad_nested_tuples():
    p = ((np.array([1.0, 2.0]), np.array([3.0, 4.0])), [np.float64(2.0)])
    g = mg.grad(lambda p: (p[0][0] * p[0][1]).sum() * p[1][0])(p)
    assert isinstance(g, tuple) and isinstance(g[0], tuple) and isinstance(g[1], list)
    np.testing.assert_allclose(g[0][0], [6.0, 8.0])
    np.testing.assert_allclose(g[0][1], [2.0, 4.0])
    np.testing.assert_allclose(g[1][0], 11.0)


def test_grad_namedtuple():
    Params = namedtuple("Params", "w b")
    p = Params(np.array([1.0, -1.0]), np.float64(3.0))
    g = mg.grad(lambda p: (p.w ** 2).sum() * p.b)(p)
    assert type(g) is Params
    np.testing.assert_allclose(g.w, [6.0, -6.0])
    np.testing.assert_allclose(g.b, 2.0)


def test_grad_with_dead_tangent_work():
    # grad transposes its linear jaxpr unpruned: work no output needs (y, the aux's tangent)
    # must be skipped, not transposed into the gradient.
    def f(x):
        y = mnp.sin(x) * 3.0
        return (x ** 2).sum(), mnp.cos(y)

    x = np.array([0.5, -1.0, 2.0])
    g, aux = mg.grad(f, has_aux=True)(x)
    np.testing.assert_allclose(g, 2 * x)
    np.testing.assert_allclose(aux, np.cos(np.sin(x) * 3.0))
    np.testing.assert_allclose(mg.jacrev(lambda x: (mnp.exp(x), x * 2.0)[1])(x), 2 * np.eye(3))


def test_grad_of_ignored_argument_is_zeros_of_right_shape_and_dtype():
    y = np.ones((2, 2), np.float32)
    g = mg.grad(lambda x, y: x.sum(), argnums=1)(np.arange(3.0), y)
    assert g.shape == (2, 2) and g.dtype == np.float32
    np.testing.assert_array_equal(g, 0.0)
    g = mg.grad(lambda d: d["a"] * 2.0)({"a": 1.0, "z": np.ones(3)})
    np.testing.assert_array_equal(g["z"], np.zeros(3))


def test_grad_with_non_differentiated_int_argument():
    g = mg.grad(lambda x, n: (x * n).sum())(np.ones(3), np.arange(3))
    np.testing.assert_allclose(g, [0.0, 1.0, 2.0])


# --------------------------------------------------------------------------- errors


def test_error_non_scalar_output():
    with pytest.raises(TypeError, match=r"scalar.*shape \(3,\)") as info:
        mg.grad(lambda x: x * 2.0)(np.ones(3))
    assert "jacrev" in str(info.value) and "sum" in str(info.value)


def test_error_non_floating_output():
    with pytest.raises(TypeError, match=r"floating.*int64"):
        mg.grad(lambda x: (x > 0).sum())(np.ones(3))


@pytest.mark.parametrize("bad,dtype", [(3, "int64"), (np.arange(3), "int64"),
                                       (np.array([True]), "bool")])
def test_error_integer_or_bool_input(bad, dtype):
    with pytest.raises(TypeError, match=rf"grad: args\[1\] .*floating.*{dtype}"):
        mg.grad(lambda x, n: (x * n).sum(), argnums=1)(2.0, bad)


def test_error_integer_leaf_in_pytree_named():
    with pytest.raises(TypeError, match=r"args\[0\]\['n'\]"):
        mg.grad(lambda d: d["x"] * d["n"])({"x": 1.0, "n": 2})


def test_error_bad_argnums():
    with pytest.raises(ValueError, match=r"argnums must be in \[-1, 1\).*got 2"):
        mg.grad(lambda x: x * x, argnums=2)(1.0)
    with pytest.raises(TypeError, match="argnums must be an int"):
        mg.grad(lambda x: x * x, argnums="0")(1.0)
    with pytest.raises(TypeError, match="argnums must be an int"):
        mg.grad(lambda x: x * x, argnums=())(1.0)
    with pytest.raises(ValueError, match="argnums"):
        mg.jacrev(lambda x: x, argnums=(0, 1))(np.ones(2))


def test_error_non_array_argument():
    with pytest.raises(TypeError, match=r"grad: args\[0\] must be an array"):
        mg.grad(lambda s: 1.0)("abc")


# --------------------------------------------------------------------------- higher order


def test_grad_of_grad():
    f = lambda x: x ** 4 + mnp.sin(x)  # noqa: E731
    x = 0.7
    np.testing.assert_allclose(mg.grad(mg.grad(f))(x), 12 * x ** 2 - np.sin(x))
    np.testing.assert_allclose(mg.grad(mg.grad(mg.grad(f)))(x), 24 * x - np.cos(x))


def test_jvp_of_grad():
    f = lambda x: (mnp.exp(x) * x).sum()  # noqa: E731
    x, t = np.array([0.1, 0.5]), np.array([1.0, 2.0])
    g, hv = mg.jvp(mg.grad(f), (x,), (t,))
    np.testing.assert_allclose(g, np.exp(x) * (1 + x))
    np.testing.assert_allclose(hv, np.exp(x) * (2 + x) * t)


def test_check_grads_order_two_both_modes():
    check_grads(lambda x, y: mnp.sin(x) * mnp.exp(y) + x @ y,
                [np.array([0.1, 0.2]), np.array([-0.3, 0.4])], order=2)


@given(coef=hnp.arrays(np.float64, (3,), elements=st.floats(-3, 3, width=64)), x=vec(2))
def test_hessian_of_polynomial(coef, x):
    a, b, c = coef

    def f(v):
        return a * v[0] ** 2 * v[1] + b * v[1] ** 3 + c * v[0] * v[1]

    h = mg.hessian(f)(x)
    expected = np.array([[2 * a * x[1], 2 * a * x[0] + c],
                         [2 * a * x[0] + c, 6 * b * x[1]]])
    np.testing.assert_allclose(h, expected, atol=1e-10)
    np.testing.assert_allclose(h, h.T, atol=1e-10)


def test_hessian_quadratic_form():
    a = rng.standard_normal((4, 4))
    x = rng.standard_normal(4)
    h = mg.hessian(lambda v: v @ (a @ v))(x)
    np.testing.assert_allclose(h, a + a.T, atol=1e-12)


def test_hessian_argnums_tuple():
    h = mg.hessian(lambda x, y: (x * x * y).sum(), argnums=(0, 1))(np.array([1.0, 2.0]),
                                                                    np.array([3.0, 4.0]))
    (hxx, hxy), (hyx, hyy) = h
    np.testing.assert_allclose(hxx, np.diag([6.0, 8.0]))
    np.testing.assert_allclose(hxy, np.diag([2.0, 4.0]))
    np.testing.assert_allclose(hyx, np.diag([2.0, 4.0]))
    np.testing.assert_allclose(hyy, np.zeros((2, 2)))


# --------------------------------------------------------------------------- jacfwd == jacrev

M = rng.standard_normal((3, 4))


def _jac_functions():
    return {
        "matmul": lambda x: M.T @ x[:3] + (x.reshape(2, 2) @ x.reshape(2, 2)).sum(0).sum(),
        "sum_axis": lambda x: mnp.sum(x.reshape(2, 2), axis=0) * mnp.mean(x),
        "slice": lambda x: x[1:3] * x[0],
        "column": lambda x: x.reshape(2, 2)[:, 0] ** 2,
        "int_array_index": lambda x: x[np.array([3, 0, 0, -1])] * x[1],
        "concatenate": lambda x: mnp.concatenate([x[:2] * 2.0, mnp.sin(x), x[None, 3]]),
        "cumsum": lambda x: mnp.cumsum(x * x),
        "max": lambda x: mnp.max(x.reshape(2, 2), axis=1) + mnp.max(x),
        "where": lambda x: mnp.where(x > 0.0, x ** 2, mnp.exp(x)),
        "transpose_broadcast": lambda x: (x.reshape(2, 2).T + x[:2]).reshape(-1),
        "divide_tanh": lambda x: mnp.tanh(x) / (1.0 + x * x),
        "reversed": lambda x: x[::-1] * x,
    }


@pytest.mark.parametrize("name", sorted(_jac_functions()))
def test_jacfwd_equals_jacrev(name):
    f = _jac_functions()[name]
    x = np.array([0.3, -1.2, 2.0, 0.7])
    jf, jr = mg.jacfwd(f)(x), mg.jacrev(f)(x)
    assert jf.shape == jr.shape == (*np.shape(f(x)), 4)
    np.testing.assert_allclose(jf, jr, atol=1e-12)
    # And both equal the finite-difference Jacobian.
    eps = 1e-6
    fd = np.stack([(np.asarray(f(x + eps * e)) - np.asarray(f(x - eps * e))) / (2 * eps)
                   for e in np.eye(4)], axis=-1)
    np.testing.assert_allclose(jf, fd, atol=1e-5)


def test_jacrev_pytree_input_and_output():
    def f(p):
        return {"u": p["a"] * p["b"][0], "v": (p["a"] ** 2).sum()}

    p = {"a": np.array([1.0, 2.0]), "b": (np.float64(3.0),)}
    jr, jf = mg.jacrev(f)(p), mg.jacfwd(f)(p)
    for k in ("u", "v"):
        np.testing.assert_allclose(jr[k]["a"], jf[k]["a"])
        np.testing.assert_allclose(jr[k]["b"][0], jf[k]["b"][0])
    np.testing.assert_allclose(jr["u"]["a"], 3.0 * np.eye(2))
    np.testing.assert_allclose(jr["u"]["b"][0], [1.0, 2.0])


def test_jacrev_argnums_tuple():
    jx, jy = mg.jacrev(lambda x, y: x * y, argnums=(0, 1))(np.arange(3.0), np.ones(3))
    np.testing.assert_allclose(jx, np.eye(3))
    np.testing.assert_allclose(jy, np.diag(np.arange(3.0)))


# --------------------------------------------------------------------------- vmap and grad


def test_vmap_of_grad_equals_loop():
    f = lambda x: (mnp.sin(x) * x).sum() + x[0] * x[1]  # noqa: E731
    xs = rng.standard_normal((5, 3))
    batched = mg.vmap(mg.grad(f))(xs)
    looped = np.stack([mg.grad(f)(x) for x in xs])
    np.testing.assert_allclose(batched, looped, atol=1e-14)


def test_vmap_of_grad_with_unbatched_argument():
    w = rng.standard_normal(3)
    xs = rng.standard_normal((4, 3))
    g = mg.vmap(mg.grad(lambda w, x: mnp.tanh(w @ x), argnums=0), in_axes=(None, 0))(w, xs)
    expected = np.stack([(1 - np.tanh(w @ x) ** 2) * x for x in xs])
    np.testing.assert_allclose(g, expected)


def test_grad_of_function_calling_vmap():
    w = rng.standard_normal(3)
    xs = rng.standard_normal((4, 3))

    def loss(w):
        return mg.vmap(lambda x: mnp.tanh(w @ x) ** 2)(xs).sum()

    expected = sum(2 * np.tanh(w @ x) * (1 - np.tanh(w @ x) ** 2) * x for x in xs)
    np.testing.assert_allclose(mg.grad(loss)(w), expected)


def test_vmap_of_hessian():
    xs = rng.standard_normal((3, 2))
    hs = mg.vmap(mg.hessian(lambda v: v[0] ** 3 * v[1]))(xs)
    expected = np.stack([[[6 * x[0] * x[1], 3 * x[0] ** 2], [3 * x[0] ** 2, 0.0]] for x in xs])
    np.testing.assert_allclose(hs, expected)


# --------------------------------------------------------------------------- linearize, vjp


def test_linearize_equals_jvp():
    f = lambda x, y: (mnp.sin(x) * y, x @ y)  # noqa: E731
    x, y = rng.standard_normal(3), rng.standard_normal(3)
    tx, ty = rng.standard_normal(3), rng.standard_normal(3)
    out, f_jvp = mg.linearize(f, x, y)
    out2, t2 = mg.jvp(f, (x, y), (tx, ty))
    t1 = f_jvp(tx, ty)
    for a, b in zip(mg.tree_leaves((out, t1)), mg.tree_leaves((out2, t2)), strict=True):
        np.testing.assert_allclose(a, b)
    # f_jvp is linear: reuse with other tangents.
    np.testing.assert_allclose(f_jvp(2 * tx, 2 * ty)[1], 2 * t1[1])


def test_linearize_tangent_errors():
    _, f_jvp = mg.linearize(lambda x, y: x * y, 1.0, 2.0)
    with pytest.raises(ValueError, match="structure"):
        f_jvp(1.0)
    _, f_jvp = mg.linearize(lambda x, n: mnp.sin(x) * n, np.ones(3), np.array(2))
    with pytest.raises(ValueError, match=r"linearize: the tangent of primals\[0\].*\(3,\)"):
        f_jvp(np.ones(2), np.zeros((), mg.float0))
    with pytest.raises(TypeError, match=r"linearize: .*primals\[0\].*got f32"):
        f_jvp(np.ones(3, np.float32), np.zeros((), mg.float0))
    with pytest.raises(TypeError, match=r"primals\[1\] must have dtype float0"):
        f_jvp(np.ones(3), np.array(1.0))
    np.testing.assert_allclose(f_jvp(np.ones(3), np.zeros((), mg.float0)), 2 * np.cos(1.0))


def test_vjp_basic_and_pytree():
    x = {"a": np.array([1.0, 2.0]), "b": np.float64(3.0)}
    out, f_vjp = mg.vjp(lambda p: (p["a"] * p["b"], p["b"] ** 2), x)
    (ct,) = f_vjp((np.array([1.0, 1.0]), np.float64(1.0)))
    np.testing.assert_allclose(ct["a"], [3.0, 3.0])
    np.testing.assert_allclose(ct["b"], 3.0 + 6.0)
    np.testing.assert_allclose(out[0], [3.0, 6.0])


def test_vjp_has_aux():
    out, f_vjp, aux = mg.vjp(lambda x: (mnp.sin(x), {"s": x.sum()}), np.array([0.0, 1.0]),
                             has_aux=True)
    assert _no_tracers(aux)
    assert float(aux["s"]) == 1.0
    (ct,) = f_vjp(np.array([2.0, 1.0]))
    np.testing.assert_allclose(ct, [2.0, np.cos(1.0)])
    np.testing.assert_allclose(out, np.sin([0.0, 1.0]))


def test_vjp_cotangent_errors():
    _, f_vjp = mg.vjp(lambda x: x * 2.0, np.ones(3))
    with pytest.raises(ValueError, match=r"cotangent.*f64\[3\].*got f64\[2\]"):
        f_vjp(np.ones(2))
    with pytest.raises(ValueError, match="structure"):
        f_vjp((np.ones(3),))


def test_vjp_integer_input_gets_float0():
    _, f_vjp = mg.vjp(lambda x, n: x * n, np.ones(2), np.array([1, 2]))
    cx, cn = f_vjp(np.ones(2))
    np.testing.assert_allclose(cx, [1.0, 2.0])
    assert cn.dtype == mg.float0 and cn.shape == (2,)


# --------------------------------------------------------------------------- linear_transpose


@pytest.mark.parametrize("fn,shape", [
    (lambda x: x.T * 2.0, (2, 3)),
    (lambda x: M @ x, (4,)),
    (lambda x: mnp.cumsum(x, axis=1)[:, ::-1], (2, 3)),
    (lambda x: mnp.concatenate([x, -x[1:]]).sum(), (3,)),
    (lambda x: (x[np.array([0, 0, 2])], mnp.broadcast_to(x, (2, 3))), (3,)),
])
def test_linear_transpose_dot_product(fn, shape):
    x = rng.standard_normal(shape)
    y = fn(x)
    w = mg.tree_map(lambda o: rng.standard_normal(np.shape(o)), y)
    (ct,) = mg.linear_transpose(fn, x)(w)
    assert ct.shape == x.shape
    lhs = sum(float(np.sum(a * b)) for a, b in zip(mg.tree_leaves(y), mg.tree_leaves(w),
                                                     strict=True))
    np.testing.assert_allclose(lhs, float(np.sum(x * ct)))


def test_linear_transpose_two_inputs():
    t = mg.linear_transpose(lambda x, y: x * 3.0 - y, np.ones(2), np.ones(2))
    cx, cy = t(np.array([1.0, 2.0]))
    np.testing.assert_allclose(cx, [3.0, 6.0])
    np.testing.assert_allclose(cy, [-1.0, -2.0])


def test_linear_transpose_nonlinear_errors():
    with pytest.raises(TypeError, match="linear"):
        mg.linear_transpose(mnp.sin, np.ones(2))(np.ones(2))
    with pytest.raises(TypeError, match="linear"):
        mg.linear_transpose(lambda x: x * x, np.ones(2))(np.ones(2))


def test_linear_transpose_ignores_dead_nonlinear_work():
    def f(x):
        mnp.exp(x)  # unused
        return x * 2.0

    (ct,) = mg.linear_transpose(f, np.ones(2))(np.ones(2))
    np.testing.assert_allclose(ct, [2.0, 2.0])


def test_linear_transpose_rejects_integer_inputs():
    with pytest.raises(TypeError, match="floating"):
        mg.linear_transpose(lambda n: n * 2, np.arange(3))


# --------------------------------------------------------------------------- float32


def test_float32_preserved():
    x = np.array([0.5, -1.0, 2.0], np.float32)
    f = lambda v: (mnp.sin(v) * 2.0 + v ** 2).sum()  # noqa: E731
    g = lambda v: mnp.tanh(v) * 3.0  # noqa: E731
    assert mg.grad(f)(x).dtype == np.float32
    assert mg.grad(lambda s: s * 2.0)(np.float32(1.0)).dtype == np.float32
    assert mg.vmap(g)(x).dtype == np.float32
    assert mg.vmap(mg.grad(lambda s: s * s * 0.5))(x).dtype == np.float32
    assert mg.jacfwd(g)(x).dtype == np.float32
    assert mg.jacrev(g)(x).dtype == np.float32
    assert mg.hessian(f)(x).dtype == np.float32
    v, gr = mg.value_and_grad(f)(x)
    assert v.dtype == np.float32 and gr.dtype == np.float32
    _, t = mg.jvp(g, (x,), (np.ones(3, np.float32),))
    assert t.dtype == np.float32
    np.testing.assert_allclose(mg.grad(f)(x), 2 * np.cos(x) + 2 * x, rtol=1e-6)

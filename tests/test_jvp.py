"""Forward mode: jvp and jacfwd, checked against finite differences and against each other."""

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad as mg
import minigrad.numpy as mnp
from minigrad.core import Primitive, ShapedArray, Zero
from minigrad.testing import check_grads, check_jvp

floats = st.floats(-2.0, 2.0, allow_nan=False, allow_infinity=False, width=64)


def vec(n=3):
    return hnp.arrays(np.float64, (n,), elements=floats)


# --------------------------------------------------------------------------- values


def _compositions():
    return {
        "sin_exp": lambda x: mnp.sin(mnp.exp(x)),
        "tanh_mul": lambda x: mnp.tanh(x) * x * 3.0,
        "poly_sum": lambda x: (x ** 3 - 2.0 * x ** 2 + x).sum(),
        "cos_over": lambda x: mnp.cos(x) / (2.0 + x * x),
        "log_sqrt": lambda x: mnp.log(1.0 + mnp.sqrt(x * x + 1.0)),
        "matmul": lambda x: np.arange(6.0).reshape(2, 3) @ mnp.sin(x),
        "reduce_cumsum": lambda x: mnp.cumsum(mnp.exp(x)) * x.mean(),
        "index": lambda x: x[1:3] * x[0] + x[np.array([2, 0])],
        "concat": lambda x: mnp.concatenate([x, mnp.sin(x[:2])]) * 2.0,
        "max_where": lambda x: mnp.where(x > 0.1, x * x, -x) + mnp.maximum(x, 0.3),
    }


@pytest.mark.parametrize("name", sorted(_compositions()))
@given(x=vec())
def test_jvp_matches_finite_differences(name, x):
    # Finite differences are meaningless across the kinks of where and maximum.
    far = np.all(np.abs(x - 0.1) > 1e-4) and np.all(np.abs(x - 0.3) > 1e-4)
    assume(name != "max_where" or far)
    check_jvp(_compositions()[name], [x])


@pytest.mark.parametrize("name", ["sin_exp", "tanh_mul", "poly_sum", "matmul", "index"])
def test_check_grads_second_order(name):
    x = np.array([0.3, -0.7, 1.1])
    check_grads(_compositions()[name], [x], order=2, modes=("fwd",))


def test_jvp_two_arguments_and_pytree_output():
    def f(x, y):
        return {"s": mnp.sin(x) * y, "t": (x @ y, x + 1.0)}

    x, y = np.array([0.5, -1.0]), np.array([2.0, 3.0])
    tx, ty = np.array([1.0, 0.5]), np.array([-1.0, 2.0])
    out, tout = mg.jvp(f, (x, y), (tx, ty))
    np.testing.assert_allclose(out["s"], np.sin(x) * y)
    np.testing.assert_allclose(tout["s"], np.cos(x) * tx * y + np.sin(x) * ty)
    np.testing.assert_allclose(tout["t"][0], tx @ y + x @ ty)
    np.testing.assert_allclose(tout["t"][1], tx)
    check_jvp(lambda a, b: f(a, b)["t"][0], [x, y])


def test_jvp_accepts_lists_and_python_scalars():
    out, t = mg.jvp(lambda x: x * x, [3.0], [2.0])
    assert float(out) == 9.0 and float(t) == 12.0
    assert isinstance(out, np.ndarray) and isinstance(t, np.ndarray)


# --------------------------------------------------------------------------- symbolic zeros


def _no_jvp_prim():
    p = Primitive("no_jvp_rule")
    p.def_impl(lambda x: x + 1.0)
    p.def_abstract_eval(lambda x: ShapedArray(x.shape, x.dtype))
    return p


def test_ignored_input_gets_zero_tangent_of_right_shape_and_dtype():
    x32 = np.ones((2, 3), np.float32)
    _, t = mg.jvp(lambda x, y: (x * 2.0, np.full(4, 7.0, np.float32)),
                  (x32, np.float32(1.0)), (x32, np.float32(1.0)))
    assert t[1].shape == (4,) and t[1].dtype == np.float32
    assert not isinstance(t[1], Zero)
    np.testing.assert_array_equal(t[1], 0.0)
    np.testing.assert_array_equal(t[0], 2.0)


def test_function_ignoring_an_input():
    _, t = mg.jvp(lambda x, y: x * 3.0, (1.0, 2.0), (1.0, 100.0))
    assert float(t) == 3.0


def test_all_zero_short_circuit_skips_jvp_rules():
    # A primitive with no JVP rule is fine on values whose tangent is symbolically zero...
    p = _no_jvp_prim()
    c = np.array([1.0, 2.0])
    out, t = mg.jvp(lambda x: x * p.bind(c), (np.array([3.0, 4.0]),), (np.ones(2),))
    np.testing.assert_allclose(out, [6.0, 12.0])
    np.testing.assert_allclose(t, [2.0, 3.0])
    # ... and so is an output that depends on nothing differentiated.
    out, t = mg.jvp(lambda x: p.bind(c), (np.ones(2),), (np.ones(2),))
    np.testing.assert_array_equal(t, [0.0, 0.0])
    # With a real tangent, the missing rule is reported by name.
    with pytest.raises(NotImplementedError, match="no_jvp_rule"):
        mg.jvp(p.bind, (np.ones(2),), (np.ones(2),))


def test_constant_work_is_not_differentiated():
    # Only equations that touch the tangent are staged by linearize: constant work runs eagerly.
    c = np.array([0.5, 1.0])
    _, f_jvp = mg.linearize(lambda x: x * mnp.exp(mnp.sin(c)), np.ones(2))
    prims = [e.primitive.name for e in f_jvp.jaxpr.eqns]
    assert "exp" not in prims and "sin" not in prims


# --------------------------------------------------------------------------- float0


def test_integer_input_takes_float0_tangent():
    n = np.array([1, 2, 3])
    out, t = mg.jvp(lambda x, n: x * n, (np.array(2.0), n),
                    (np.array(1.0), np.zeros(3, mg.float0)))
    np.testing.assert_allclose(out, [2.0, 4.0, 6.0])
    np.testing.assert_allclose(t, [1.0, 2.0, 3.0])


def test_bool_input_takes_float0_tangent():
    m = np.array([True, False])
    _, t = mg.jvp(lambda x, m: mnp.where(m, x, 0.0), (np.ones(2), m),
                  (np.ones(2), np.zeros(2, mg.float0)))
    np.testing.assert_array_equal(t, [1.0, 0.0])


def test_integer_output_gives_float0_tangent():
    out, t = mg.jvp(lambda x: (x * 2.0, (x > 0).sum(), mnp.arange(3)), (np.ones(4),),
                    (np.ones(4),))
    assert out[1] == 4
    assert t[1].dtype == mg.float0 and t[1].shape == ()
    assert t[2].dtype == mg.float0 and t[2].shape == (3,)
    assert t[0].dtype == np.float64


def test_only_integer_inputs_everything_symbolically_zero():
    out, t = mg.jvp(lambda n, m: (n * m + 1, mnp.astype(n, np.float64) * 2.0),
                    (np.array([1, 2]), np.array(3)),
                    (np.zeros(2, mg.float0), np.zeros((), mg.float0)))
    np.testing.assert_array_equal(out[0], [4, 7])
    assert t[0].dtype == mg.float0 and t[0].shape == (2,)
    # A float output computed from integers only has an (instantiated) zero tangent.
    assert t[1].dtype == np.float64 and not isinstance(t[1], Zero)
    np.testing.assert_array_equal(t[1], [0.0, 0.0])


def test_integer_passthrough_output_float0():
    _, t = mg.jvp(lambda x, n: n, (1.0, np.array([4, 5])), (1.0, np.zeros(2, mg.float0)))
    assert t.dtype == mg.float0 and t.shape == (2,)


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize("primals,tangents", [
    (1.0, 1.0), (np.ones(2), (np.ones(2),)), ((np.ones(2),), np.ones(2)),
])
def test_error_primals_not_tuple(primals, tangents):
    with pytest.raises(TypeError, match="jvp: primals and tangents must be tuples or lists"):
        mg.jvp(mnp.sin, primals, tangents)


def test_error_tree_mismatch():
    with pytest.raises(ValueError, match="same tree structure"):
        mg.jvp(lambda a, b: a * b, (1.0, 2.0), (1.0,))
    with pytest.raises(ValueError, match="same tree structure"):
        mg.jvp(lambda d: d["a"], ({"a": 1.0},), ({"b": 1.0},))


def test_error_tangent_shape_mismatch():
    with pytest.raises(ValueError, match=r"primals\[0\].*shape \(3,\); got \(2,\)"):
        mg.jvp(mnp.sin, (np.ones(3),), (np.ones(2),))


def test_error_tangent_dtype_mismatch_float():
    with pytest.raises(TypeError, match=r"must have dtype float64.*got float32"):
        mg.jvp(mnp.sin, (np.ones(3),), (np.ones(3, np.float32),))


def test_error_int_primal_with_float_tangent_mentions_float0():
    with pytest.raises(TypeError, match="float0") as info:
        mg.jvp(lambda x, n: x * n, (1.0, np.array(3)), (1.0, np.array(1.0)))
    assert r"primals[1]" in str(info.value)
    assert "float64" in str(info.value)


def test_error_float_primal_with_float0_tangent():
    with pytest.raises(TypeError, match="float0"):
        mg.jvp(mnp.sin, (np.ones(2),), (np.zeros(2, mg.float0),))


# --------------------------------------------------------------------------- perturbation confusion


def test_perturbation_confusion_jvp():
    out = mg.jvp(lambda x: mg.jvp(lambda y: x * y, (3.0,), (1.0,))[1], (1.0,), (2.0,))
    assert (float(out[0]), float(out[1])) == (1.0, 2.0)


def test_perturbation_confusion_grad():
    assert float(mg.grad(lambda x: x * mg.grad(lambda y: x + y)(1.0))(1.0)) == 1.0


def test_nested_jvp_is_second_derivative():
    def d(f):
        return lambda x: mg.jvp(f, (x,), (1.0,))[1]

    x = 0.7
    np.testing.assert_allclose(d(d(mnp.sin))(x), -np.sin(x))
    np.testing.assert_allclose(d(d(d(mnp.sin)))(x), -np.cos(x))


# --------------------------------------------------------------------------- jacfwd


def test_jacfwd_simple():
    x = np.array([0.5, 1.0, -2.0])
    np.testing.assert_allclose(mg.jacfwd(mnp.sin)(x), np.diag(np.cos(x)))
    a = np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(mg.jacfwd(lambda v: a @ v)(x), a)
    np.testing.assert_allclose(mg.jacfwd(lambda v: (v * v).sum())(x), 2 * x)


def test_jacfwd_pytree_input_and_output():
    def f(d):
        return {"a": d["x"] * d["y"], "b": d["x"].sum()}

    x, y = np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0])
    j = mg.jacfwd(f)({"x": x, "y": y})
    assert set(j) == {"a", "b"} and set(j["a"]) == {"x", "y"}
    np.testing.assert_allclose(j["a"]["x"], np.diag(y))
    np.testing.assert_allclose(j["a"]["y"], np.diag(x))
    np.testing.assert_allclose(j["b"]["x"], np.ones(3))
    np.testing.assert_allclose(j["b"]["y"], np.zeros(3))


def test_jacfwd_argnums_tuple():
    x, y = np.array([1.0, 2.0]), np.array([3.0, 4.0, 5.0])
    jx, jy = mg.jacfwd(lambda a, b: mnp.sum(a) * b, argnums=(0, 1))(x, y)
    assert jx.shape == (3, 2) and jy.shape == (3, 3)
    np.testing.assert_allclose(jx, np.outer(y, np.ones(2)))
    np.testing.assert_allclose(jy, np.eye(3) * x.sum())
    (jy2,) = mg.jacfwd(lambda a, b: mnp.sum(a) * b, argnums=(1,))(x, y)
    np.testing.assert_allclose(jy2, jy)
    np.testing.assert_allclose(mg.jacfwd(lambda a, b: a * b[0], argnums=1)(x, y)[:, 0], x)


def test_jacfwd_matrix_shapes():
    x = np.arange(6.0).reshape(2, 3)
    j = mg.jacfwd(lambda m: m.T * 2.0)(x)
    assert j.shape == (3, 2, 2, 3)
    expected = np.zeros((3, 2, 2, 3))
    for i in range(2):
        for k in range(3):
            expected[k, i, i, k] = 2.0
    np.testing.assert_allclose(j, expected)


# --------------------------------------------------------------------------- composition


def test_jvp_of_vmap():
    x, t = np.array([0.0, 1.0, 2.0]), np.array([1.0, -1.0, 2.0])
    out, tout = mg.jvp(mg.vmap(lambda v: mnp.sin(v) * v), (x,), (t,))
    np.testing.assert_allclose(out, np.sin(x) * x)
    np.testing.assert_allclose(tout, (np.cos(x) * x + np.sin(x)) * t)


def test_vmap_of_jvp():
    xs = np.arange(6.0).reshape(3, 2) / 4
    ts = np.ones((3, 2))
    out, tout = mg.vmap(lambda x, t: mg.jvp(lambda v: mnp.exp(v).sum(), (x,), (t,)))(xs, ts)
    np.testing.assert_allclose(out, np.exp(xs).sum(1))
    np.testing.assert_allclose(tout, np.exp(xs).sum(1))


def test_vmap_of_jvp_unbatched_tangent():
    xs = np.arange(6.0).reshape(3, 2)
    t = np.array([1.0, 0.0])
    _, tout = mg.vmap(lambda x: mg.jvp(lambda v: v * v, (x,), (t,)))(xs)
    np.testing.assert_allclose(tout, 2 * xs * t)


# --------------------------------------------------------------------------- control flow


def _piecewise(x):
    if x > 0:
        return x * x
    return -3.0 * x


def test_python_control_flow_under_jvp():
    assert float(mg.jvp(_piecewise, (2.0,), (1.0,))[1]) == 4.0
    assert float(mg.jvp(_piecewise, (-2.0,), (1.0,))[1]) == -3.0


def test_python_control_flow_under_grad():
    assert float(mg.grad(_piecewise)(2.0)) == 4.0
    assert float(mg.grad(_piecewise)(-2.0)) == -3.0
    assert float(mg.grad(mg.grad(_piecewise))(2.0)) == 2.0


def test_python_loop_on_concrete_value_under_jvp():
    def f(x):
        y = x
        while y < 10.0:
            y = y * 2.0
        return y

    out, t = mg.jvp(f, (3.0,), (1.0,))
    assert float(out) == 12.0 and float(t) == 4.0


def test_python_control_flow_under_vmap_raises():
    with pytest.raises(TypeError, match="where"):
        mg.vmap(_piecewise)(np.array([1.0, -1.0]))

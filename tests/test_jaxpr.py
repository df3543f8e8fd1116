"""The IR: make_jaxpr listings, equations, eval_jaxpr, ClosedJaxpr, dead-code elimination."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.numpy as mnp
from minigrad.jaxpr import ClosedJaxpr, dce_jaxpr

rng = np.random.default_rng(2)

# --------------------------------------------------------------------------- golden listings

SIN_TIMES_TWO = """\
{ lambda ; a:f64[3]. let
    b:f64[3] = sin a
    c:f64[3] = broadcast_in_dim[shape=(3,) broadcast_dimensions=()] 2.0:f64[]
    d:f64[3] = mul b c
  in (d,) }"""

MATVEC_SUM_F32 = """\
{ lambda ; a:f32[2,3] b:f32[3]. let
    c:f32[2] = dot[subscripts=ij,j->i] a b
    d:f32[] = reduce_sum[axes=(0,)] c
  in (d,) }"""

DICT_TWO_OUTPUTS = """\
{ lambda ; a:f64[2] b:f64[]. let
    c:f64[2] = broadcast_in_dim[shape=(2,) broadcast_dimensions=()] b
    d:f64[2] = add a c
    e:f64[1] = slice[start_indices=(1,) limit_indices=(2,) strides=(1,)] a
  in (d, e) }"""

VMAP_ROWSUM = """\
{ lambda ; a:f64[2,3] b:f64[]. let
    c:f64[3] = broadcast_in_dim[shape=(3,) broadcast_dimensions=()] b
    d:f64[2,3] = broadcast_in_dim[shape=(2, 3) broadcast_dimensions=(1,)] c
    e:f64[2,3] = mul a d
    f:f64[2,3] = exp a
    g:f64[2] = reduce_sum[axes=(1,)] f
    h:f64[2,3] = broadcast_in_dim[shape=(2, 3) broadcast_dimensions=(0,)] g
    i:f64[2,3] = add e h
  in (i,) }"""

CLOSURE_CONST = """\
{ lambda a:f64[3] ; b:f64[3]. let
    c:f64[3] = add b a
  in (c,) }"""


def test_golden_elementwise():
    assert str(mg.make_jaxpr(lambda x: mnp.sin(x) * 2.0)(np.ones(3))) == SIN_TIMES_TWO


def test_golden_matmul_float32():
    jaxpr = mg.make_jaxpr(lambda a, b: (a @ b).sum())(np.ones((2, 3), np.float32),
                                                      np.ones(3, np.float32))
    assert str(jaxpr) == MATVEC_SUM_F32


def test_golden_pytree_in_and_out():
    jaxpr = mg.make_jaxpr(lambda d: (d["x"] + d["y"], d["x"][1:]))(
        {"x": np.ones(2), "y": np.float64(1.0)})
    assert str(jaxpr) == DICT_TWO_OUTPUTS


def test_golden_vmap():
    f = mg.vmap(lambda x, c: x * c + mnp.exp(x).sum(), in_axes=(0, None))
    assert str(mg.make_jaxpr(f)(np.ones((2, 3)), np.float64(2.0))) == VMAP_ROWSUM


def test_golden_closure_constant_is_a_constvar():
    c = np.arange(3.0)
    closed = mg.make_jaxpr(lambda x: x + c)(np.ones(3))
    assert str(closed) == CLOSURE_CONST
    # the program holds a read-only copy (issue #29 item 2): a later write into c is not seen
    (held,) = closed.consts
    assert np.array_equal(held, c) and not np.may_share_memory(held, c)
    assert not held.flags.writeable
    assert repr(closed) == str(closed)


def test_listing_of_trivial_functions():
    assert str(mg.make_jaxpr(lambda x: x)(np.ones(2))) == (
        "{ lambda ; a:f64[2]. let\n  in (a,) }")
    assert str(mg.make_jaxpr(lambda x: 2.0)(np.ones(2))) == (
        "{ lambda ; a:f64[2]. let\n  in (2.0:f64[],) }")


def test_listing_names_integer_and_bool_types():
    text = str(mg.make_jaxpr(lambda x, n: (x > 0, n + 1))(np.ones(2, np.float32),
                                                          np.arange(3, dtype=np.int32)))
    assert "a:f32[2] b:i32[3]" in text
    assert "bool[2] = gt" in text
    assert "i32[3] = add" in text


# --------------------------------------------------------------------------- equations


def test_eqns_expose_primitive_and_params():
    closed = mg.make_jaxpr(lambda x: mnp.sum(mnp.sin(x), axis=1))(np.ones((2, 3)))
    assert isinstance(closed, ClosedJaxpr)
    assert [e.primitive.name for e in closed.eqns] == ["sin", "reduce_sum"]
    assert closed.eqns[0].params == {}
    assert closed.eqns[1].params == {"axes": (1,)}
    assert closed.eqns[1].primitive is closed.eqns[1].prim


def test_ops_not_depending_on_inputs_are_staged():
    closed = mg.make_jaxpr(lambda x: x + mnp.ones(3) * mnp.arange(3))(np.ones(3))
    names = [e.primitive.name for e in closed.eqns]
    assert "full" in names and "arange" in names
    assert closed.consts == []
    # Even with no arguments at all.
    closed = mg.make_jaxpr(lambda: mnp.sin(mnp.zeros(2)))()
    assert [e.primitive.name for e in closed.eqns] == ["full", "sin"]
    np.testing.assert_array_equal(closed(), np.zeros(2))


def test_make_jaxpr_of_grad_has_no_tracers_left():
    closed = mg.make_jaxpr(mg.grad(lambda x: mnp.sin(x) * x))(1.0)
    assert {"sin", "cos", "mul", "add"} <= {e.primitive.name for e in closed.eqns}
    np.testing.assert_allclose(closed(np.float64(0.5)), np.cos(0.5) * 0.5 + np.sin(0.5))


def test_make_jaxpr_rejects_non_array_arguments():
    with pytest.raises(TypeError, match=r"make_jaxpr: args\[0\] must be an array"):
        mg.make_jaxpr(lambda s: s)("text")


# --------------------------------------------------------------------------- evaluation


def _programs():
    return {
        "elementwise": (lambda x: mnp.tanh(x) * mnp.exp(-x) + 1.0, (rng.standard_normal(4),)),
        "matmul": (lambda a, b: a @ b.T, (rng.standard_normal((2, 3)),
                                         rng.standard_normal((4, 3)))),
        "reduce_index": (lambda x: mnp.max(x, axis=0) + x[:, 1].sum() + x[np.array([1, 0])][0],
                         (rng.standard_normal((2, 3)),)),
        "pytree": (lambda d: {"s": d["a"] * d["b"], "c": mnp.cumsum(d["a"])},
                   ({"a": rng.standard_normal(3), "b": np.float64(2.0)},)),
        "where_concat": (lambda x: mnp.concatenate([mnp.where(x > 0, x, 0.0), x[::-1]]),
                         (rng.standard_normal(5),)),
    }


@pytest.mark.parametrize("name", sorted(_programs()))
def test_eval_jaxpr_matches_function(name):
    f, args = _programs()[name]
    closed = mg.make_jaxpr(f)(*args)
    expected = f(*args)
    leaves = mg.tree_leaves(args)
    flat = mg.eval_jaxpr(closed.jaxpr, closed.consts, *leaves)
    for a, b in zip(flat, mg.tree_leaves(expected), strict=True):
        np.testing.assert_allclose(a, b)
    # The ClosedJaxpr is callable with the original structure.
    via_call = closed(*args)
    assert mg.tree_structure(via_call) == mg.tree_structure(expected)
    for a, b in zip(mg.tree_leaves(via_call), mg.tree_leaves(expected), strict=True):
        np.testing.assert_allclose(a, b)


def test_closed_jaxpr_is_transformable():
    f = lambda x: mnp.sin(x) * x  # noqa: E731
    x = np.array([0.1, 0.7, -1.3])
    closed = mg.make_jaxpr(f)(x)
    np.testing.assert_allclose(mg.grad(lambda v: closed(v).sum())(x),
                               np.cos(x) * x + np.sin(x))
    xs = rng.standard_normal((4, 3))
    np.testing.assert_allclose(mg.vmap(closed)(xs), np.sin(xs) * xs)
    _, t = mg.jvp(closed, (x,), (np.ones(3),))
    np.testing.assert_allclose(t, np.cos(x) * x + np.sin(x))
    # eval_jaxpr directly under grad as well.
    g = mg.grad(lambda v: mg.eval_jaxpr(closed.jaxpr, closed.consts, v)[0].sum())(x)
    np.testing.assert_allclose(g, np.cos(x) * x + np.sin(x))


def test_jaxpr_of_jaxpr_round_trip():
    f = lambda x: mnp.exp(x).sum()  # noqa: E731
    closed = mg.make_jaxpr(f)(np.ones(2))
    assert str(mg.make_jaxpr(closed)(np.ones(2))) == str(closed)


def test_eval_jaxpr_argument_errors():
    closed = mg.make_jaxpr(lambda x: x * 2.0)(np.ones(3))
    with pytest.raises(TypeError, match="takes 1 arguments; got 2"):
        mg.eval_jaxpr(closed.jaxpr, closed.consts, np.ones(3), np.ones(3))
    with pytest.raises(TypeError, match=r"must be f64\[3\]; got f64\[4\]"):
        mg.eval_jaxpr(closed.jaxpr, closed.consts, np.ones(4))


# --------------------------------------------------------------------------- dce


def test_dce_drops_unused_equations():
    def f(x):
        unused = mnp.exp(x) * 3.0  # noqa: F841
        return mnp.sin(x)

    closed = mg.make_jaxpr(f)(np.ones(3))
    assert len(closed.eqns) == 4
    pruned = dce_jaxpr(closed.jaxpr)
    assert [e.primitive.name for e in pruned.eqns] == ["sin"]
    assert str(pruned) == "{ lambda ; a:f64[3]. let\n    b:f64[3] = sin a\n  in (b,) }"
    x = rng.standard_normal(3)
    np.testing.assert_allclose(mg.eval_jaxpr(pruned, [], x)[0], np.sin(x))


def test_dce_drops_unused_constants_and_keeps_chains():
    c1, c2 = np.arange(3.0), np.ones(3)

    def f(x):
        _ = x * c2
        a = mnp.cos(x) + c1
        return a * a

    closed = mg.make_jaxpr(f)(np.ones(3))
    pruned = dce_jaxpr(closed.jaxpr)
    assert len(closed.jaxpr.constvars) == 2 and len(pruned.constvars) == 1
    assert [e.primitive.name for e in pruned.eqns] == ["cos", "add", "mul"]
    assert pruned.invars == closed.jaxpr.invars


def test_linearize_jaxpr_has_no_dead_equations():
    _, f_jvp = mg.linearize(lambda x: mnp.sin(x) * x, np.ones(2))
    lin = f_jvp.jaxpr
    assert len(dce_jaxpr(lin.jaxpr).eqns) == len(lin.eqns)

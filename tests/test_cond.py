"""lax.cond and lax.switch: JAX's semantics (reference/control_flow.md), every rule, the errors.

The rule checks over samples (the checker's, minigrad/testing/control_flow.py) run in
test_control_flow_checker.py; here: the facts, the programs each rule makes, and the errors.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import minigrad as mg
from minigrad import lax
from minigrad import numpy as mnp
from minigrad.core import ConcretizationError
from minigrad.testing import check_grads, check_vmap


def prims(jaxpr: Any) -> list[str]:
    return [e.prim.name for e in jaxpr.eqns]


def branch(x: Any) -> Any:
    return mnp.sin(x) * x


# --------------------------------------------------------------------------- semantics


@pytest.mark.parametrize("pred", [True, False, 1, 0, 2.5, 0.0, np.float32(-1.0)])
def test_pred_is_bool_or_nonzero(pred: Any) -> None:
    out = lax.cond(pred, lambda x: x + 1, lambda x: x - 1, np.float64(1.0))
    assert out == (2.0 if pred else 0.0)


def test_cond_is_a_two_branch_switch() -> None:
    jaxpr = mg.make_jaxpr(lambda p, x: lax.cond(p, mnp.sin, mnp.cos, x))(True, np.float64(1.0))
    assert prims(jaxpr) == ["convert_element_type", "cond"]
    false, true = jaxpr.eqns[1].params["branches"]
    assert prims(false) == ["cos"] and prims(true) == ["sin"]  # index 0 is the false branch
    text = str(jaxpr)
    assert "branches=(" in text and "] c b" in text
    number = mg.make_jaxpr(lambda p, x: lax.cond(p, mnp.sin, mnp.cos, x))(2.5, 1.0)
    assert prims(number)[:3] == ["full", "ne", "convert_element_type"]


@pytest.mark.parametrize("index, expected", [(-5, 0), (0, 0), (1, 1), (2, 2), (7, 2)])
def test_switch_clamps_its_index(index: int, expected: int) -> None:
    fs = [lambda x: x + 10, lambda x: x * 10, lambda x: -x]
    assert lax.switch(index, fs, np.float64(2.0)) == fs[expected](2.0)
    jaxpr = mg.make_jaxpr(lambda i, x: lax.switch(i, fs, x))(index, 2.0)
    assert prims(jaxpr)[0] == "convert_element_type" and prims(jaxpr)[-1] == "cond"
    assert len(jaxpr.eqns[-1].params["branches"]) == 3
    assert "select" in prims(jaxpr)  # the clamp


def test_one_branch_is_called() -> None:
    jaxpr = mg.make_jaxpr(lambda i, x: lax.switch(i, [mnp.sin], x))(3, np.float64(1.0))
    assert prims(jaxpr) == ["sin"]


def test_a_returned_operand_is_a_new_array() -> None:
    # a branch (or the lone branch of a switch) returning its operand hands back a copy, as a
    # minigrad.Array like every eager result: writing it leaves the caller's array alone
    x = np.ones(2)
    for out in (lax.cond(True, lambda x: x, lambda x: x, x), lax.switch(0, [lambda x: x], x),
                lax.cond(False, lambda x: x, lambda x: x * 2, x)):
        assert type(out) is mg.Array and not np.may_share_memory(out, x)
        out[0] = 5.0
    np.testing.assert_array_equal(x, [1.0, 1.0])


def test_only_the_chosen_branch_runs() -> None:
    # the untaken branch indexes out of range: its check would raise, but it never runs
    def f(p, x, i):
        return lax.cond(p, lambda x, i: mg.index_add(x, 0, i, x[:1]), lambda x, i: x * 2, x, i)

    x, bad = np.ones(3), np.array([5])
    np.testing.assert_array_equal(f(False, x, bad), 2 * x)
    with pytest.raises(IndexError, match="index_add"):
        f(True, x, bad)
    np.testing.assert_array_equal(mg.jit(f)(False, x, bad), 2 * x)
    with pytest.raises(IndexError, match="index_add"):
        mg.jit(f)(True, x, bad)


def test_pytrees_closures_and_no_operands() -> None:
    w = np.array([2.0, 3.0])

    def f(p, tree):
        return lax.cond(p, lambda t: {"s": t[0] * w, "n": t[1] + 1},
                        lambda t: {"s": t[0] - w, "n": t[1] * 2}, tree)

    out = f(True, (np.ones(2), np.int64(4)))
    np.testing.assert_array_equal(out["s"], w)
    assert out["n"] == 5 and out["n"].dtype == np.int64
    assert lax.cond(False, lambda: np.float64(1.0), lambda: np.float64(2.0)) == 2.0
    assert lax.cond(True, lambda x: x * 2, lambda x: x, operand=np.float64(3.0)) == 6.0


def test_a_forwarded_output_is_pruned() -> None:
    def f(p, x, y):
        return lax.cond(p, lambda x, y: (x, y * 2), lambda x, y: (x, y - 1), x, y)

    jaxpr = mg.make_jaxpr(f)(True, 1.0, 2.0)
    assert len(jaxpr.eqns[-1].outs) == 1
    assert f(True, np.float64(1.0), np.float64(2.0)) == (1.0, 4.0)


def test_results_do_not_alias_operands() -> None:
    x = np.ones(3)
    out = lax.cond(True, lambda x: x, lambda x: x * 2, x)
    out[0] = 5.0
    assert x[0] == 1.0


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize("call, error, match", [
    (lambda: lax.cond(np.array([True]), branch, branch, 1.0), TypeError,
     r"cond: pred must be a scalar \(shape \(\)\); got bool\[1\]"),
    (lambda: lax.cond(1j, branch, branch, 1.0), TypeError,
     "cond: pred must be a boolean or a real number; got c128"),
    (lambda: lax.cond(True, 3, branch, 1.0), TypeError, "cond: true_fun must be callable"),
    (lambda: lax.cond(True, lambda x: x, lambda x: (x, x), 1.0), TypeError,
     r"cond: true_fun and false_fun must have the same pytree structure; true_fun is \* and "
     r"false_fun is \(\*, \*\)"),
    (lambda: lax.cond(True, lambda x: (x,), lambda x: [x], 1.0), TypeError,
     "same pytree structure"),
    (lambda: lax.cond(True, lambda x: x, lambda x: x.astype(np.int32), 1.0), TypeError,
     r"output is f64\[\] in true_fun and i32\[\] in false_fun \(the dtypes differ\)"),
    (lambda: lax.cond(True, lambda x: x, lambda x: mnp.ones(2) * x, 1.0), TypeError,
     r"output is f64\[\] in true_fun and f64\[2\] in false_fun \(the shapes differ\)"),
    (lambda: lax.switch(1.5, [branch, branch], 1.0), TypeError,
     r"switch: index must be an integer; got f64\[\]"),
    (lambda: lax.switch(1.5, [branch], 1.0), TypeError, "switch: index must be an integer"),
    (lambda: lax.switch(np.array([1]), [branch, branch], 1.0), TypeError,
     "switch: index must be a scalar"),
    (lambda: lax.switch(1, [], 1.0), ValueError, "Empty branch sequence"),
    (lambda: lax.switch(1, branch, 1.0), TypeError, "switch: branches must be a sequence"),
    (lambda: lax.switch(0, [branch, None], 1.0), TypeError,
     r"switch: branches\[1\] must be callable"),
    (lambda: lax.switch(0, [branch, lambda x: x[None]], 1.0), TypeError,
     r"branches\[0\] and branches\[1\] must have equal types"),
    (lambda: lax.cond(True, branch, branch, "a"), TypeError,
     r"cond: operands\[0\] must be an array"),
    (lambda: lax.cond(True, lambda x: "s", lambda x: "t", 1.0), TypeError,
     r"cond \(false_fun\): the function must return arrays"),
])
def test_errors(call: Any, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        call()


def test_python_if_on_a_tracer_points_to_cond() -> None:
    def f(x):
        return x if x > 0 else -x

    with pytest.raises(ConcretizationError, match=r"minigrad.lax.cond"):
        mg.jit(f)(1.0)


# --------------------------------------------------------------------------- rules


@pytest.mark.parametrize("pred", [True, False])
def test_derivatives_of_each_branch(pred: bool) -> None:
    w = np.array([0.3, -1.2])

    def f(x, y):
        return lax.cond(pred, lambda x, y: mnp.sin(x) * y + w, lambda x, y: x * x - y, x, y)

    check_grads(f, [np.array([0.5, 1.5]), np.array([2.0, -1.0])], order=2)
    g = mg.grad(lambda x: mnp.sum(f(x, np.ones(2))))(np.array([0.5, 1.5]))
    expected = np.cos([0.5, 1.5]) if pred else 2 * np.array([0.5, 1.5])
    np.testing.assert_allclose(g, expected)


def test_jvp_instantiates_the_union_of_nonzero_tangents() -> None:
    # one branch's output does not depend on x: its tangent is made a dense zero
    def f(p, x):
        return lax.cond(p, lambda x: x * 3, lambda x: mnp.ones(()) * 2.0, x)

    for p, expected in ((True, 3.0), (False, 0.0)):
        _, t = mg.jvp(lambda x, p=p: f(p, x), (np.float64(1.0),), (np.float64(1.0),))
        assert t == expected


def test_linearize_splits_every_branch() -> None:
    def f(p, x):
        return lax.cond(p, lambda x: mnp.sin(x) * x, mnp.cos, x)

    for p in (True, False):
        _, f_jvp = mg.linearize(lambda x, p=p: f(p, x), np.float64(0.7))
        assert prims(f_jvp.jaxpr) == ["cond"]  # the tangent part: one cond of the staged parts
        expected = (np.cos(0.7) * 0.7 + np.sin(0.7)) if p else -np.sin(0.7)
        np.testing.assert_allclose(f_jvp(np.float64(1.0)), expected)
    grad_program = mg.make_jaxpr(mg.grad(lambda x: f(True, x)))(0.7)
    assert prims(grad_program).count("cond") == 2  # the known cond and the transposed one


def test_linear_transpose_through_cond() -> None:
    def f(x):
        return lax.cond(True, lambda x: x * 2.0, lambda x: -x, x)

    (ct,) = mg.linear_transpose(f, np.ones(3))(np.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(ct, [2.0, 4.0, 6.0])


def test_grad_of_a_closed_over_value() -> None:
    def f(w):
        return lax.cond(True, lambda x: x * w, lambda x: x, np.float64(3.0))

    assert mg.grad(f)(np.float64(2.0)) == 3.0
    assert mg.grad(mg.grad(lambda w: f(w) * w))(np.float64(2.0)) == 6.0


# --------------------------------------------------------------------------- batching


def test_vmap_unbatched_pred_keeps_a_cond() -> None:
    f = lambda p, x: lax.cond(p, branch, mnp.cos, x)  # noqa: E731
    xs = np.linspace(-1, 1, 5)
    jaxpr = mg.make_jaxpr(mg.vmap(f, in_axes=(None, 0)))(True, xs)
    assert "cond" in prims(jaxpr)
    check_vmap(f, [np.bool_(True), xs], (None, 0))


def test_vmap_batched_pred_is_a_select() -> None:
    f = lambda p, x: lax.cond(p, branch, mnp.cos, x)  # noqa: E731
    ps, xs = np.array([True, False, True]), np.array([0.5, 1.0, 2.0])
    jaxpr = mg.make_jaxpr(mg.vmap(f))(ps, xs)
    assert "cond" not in prims(jaxpr) and "select" in prims(jaxpr)
    assert "stop_gradient" in prims(jaxpr)  # the untaken lanes' inputs
    check_vmap(f, [ps, xs], (0, 0))
    check_vmap(f, [ps, np.float64(0.5)], (0, None))
    idx = np.array([-1, 0, 1, 2, 5])
    g = lambda i, x: lax.switch(i, [mnp.sin, mnp.cos, mnp.tanh], x)  # noqa: E731
    check_vmap(g, [idx, np.linspace(0, 1, 5)], (0, 0))


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning",
                            "ignore:divide by zero encountered:RuntimeWarning")
def test_batched_pred_grad_is_nan_free() -> None:
    # jax issue #1052: sqrt at 0 in the untaken branch must not poison the gradient
    def f(x):
        return lax.cond(x > 0, mnp.sqrt, lambda x: x * 0.0, x)

    xs = np.array([0.0, 4.0, -1.0])
    g = mg.vmap(mg.grad(f))(xs)
    np.testing.assert_array_equal(g, [0.0, 0.25, 0.0])
    np.testing.assert_array_equal([mg.grad(f)(x) for x in xs], g)


# --------------------------------------------------------------------------- jit


def test_jit_generates_a_python_if() -> None:
    f = mg.jit(lambda p, x: lax.cond(p, branch, mnp.cos, x))
    source = f.lower(True, np.float64(1.0)).as_text()  # a Python 1.0 is weak: another key
    assert "if " in source and "else:" in source
    assert f(True, np.float64(1.0)) == np.sin(1.0) and f(False, np.float64(1.0)) == np.cos(1.0)
    assert f.traces == 1
    g = mg.jit(lambda i, x: lax.switch(i, [mnp.sin, mnp.cos, mnp.tanh], x))
    assert "elif" in g.lower(1, 1.0).as_text()
    assert [g(i, np.float64(0.5)) for i in (-1, 1, 9)] == [np.sin(0.5), np.cos(0.5),
                                                         np.tanh(0.5)]


# --------------------------------------------------------------------------- select


def test_select_is_the_select_primitive() -> None:
    p, x, y = np.array([True, False, True]), np.arange(3.0), -np.arange(3.0)
    np.testing.assert_array_equal(lax.select(p, x, y), [0.0, -1.0, 2.0])
    np.testing.assert_array_equal(lax.select(np.bool_(False), x, y), y)  # a scalar pred
    assert prims(mg.make_jaxpr(lax.select)(p, x, y)) == ["select"]
    g = mg.grad(lambda x, y: mnp.sum(lax.select(p, x, y) * np.array([1.0, 2.0, 3.0])),
                argnums=(0, 1))(x, y)
    np.testing.assert_array_equal(g[0], [1.0, 0.0, 3.0])  # the cotangent to the chosen side
    np.testing.assert_array_equal(g[1], [0.0, 2.0, 0.0])
    check_vmap(lax.select, [np.stack([p, ~p]), x, np.stack([y, y])], (0, None, 0))


@pytest.mark.parametrize("args, match", [
    ((np.array([1, 0]), np.ones(2), np.ones(2)), r"select: pred must be bool; got i64\[2\]"),
    ((np.array([True]), np.ones(2), np.ones(2)), r"pred must be a scalar or have the "
                                                 r"operands' shape \(2,\)"),
    ((np.array([True, False]), np.ones(2), np.float64(0.0)), "must have one shape"),
    ((np.array([True, False]), np.ones(2), np.ones(2, np.float32)), "must have one dtype"),
])
def test_select_errors(args: tuple, match: str) -> None:
    with pytest.raises(TypeError, match=match):
        lax.select(*args)


def test_python_scalar_outputs_follow_x64() -> None:
    # A branch (or any traced function) returning a Python number gives the default dtype of
    # its kind: float32 and int32 with jax_enable_x64 off, as JAX (it was NumPy's float64)
    with mg.enable_x64(False):
        assert lax.switch(5, [lambda: 1.0, lambda: 2.0]).dtype == np.float32
        assert lax.cond(True, lambda: 1, lambda: 2).dtype == np.int32
        assert lax.scan(lambda c, _: (c, 0.5), np.float32(0), length=2)[1].dtype == np.float32
        assert mg.jit(lambda: 2.0)().dtype == np.float32
    assert lax.cond(True, lambda: 1.0, lambda: 2.0).dtype == np.float64

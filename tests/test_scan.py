"""lax.scan, lax.map and fori_loop with static bounds: JAX's semantics, the programs each rule
makes (never unrolled), the residuals partial evaluation keeps, and the errors."""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np
import pytest

import minigrad as mg
from minigrad import lax
from minigrad import numpy as mnp
from minigrad.testing import check_grads, check_vjp, check_vmap


def prims(jaxpr: Any) -> list[str]:
    return [e.prim.name for e in jaxpr.eqns]


def scans(jaxpr: Any) -> list[Any]:
    return [e for e in jaxpr.eqns if e.prim.name == "scan"]


def rnn(w: Any, h0: Any, xs: Any) -> Any:
    h, ys = lax.scan(lambda h, x: (mnp.tanh(h @ w + x), mnp.sin(h) * x), h0, xs)
    return mnp.sum(h) + mnp.sum(ys * ys)


def rnn_loop(w: Any, h0: Any, xs: Any) -> Any:
    h, total = h0, 0.0
    for x in xs:
        h, y = mnp.tanh(h @ w + x), mnp.sin(h) * x
        total = total + mnp.sum(y * y)
    return mnp.sum(h) + total


RNG = np.random.default_rng(0)
W, H0, XS = RNG.standard_normal((3, 3)) * 0.5, RNG.standard_normal(3), RNG.standard_normal((5, 3))


# --------------------------------------------------------------------------- semantics


def test_values_against_a_python_loop() -> None:
    np.testing.assert_allclose(rnn(W, H0, XS), rnn_loop(W, H0, XS), rtol=1e-14)
    c, ys = lax.scan(lambda c, x: (c + x, c * x), np.float64(0.0), np.arange(4.0))
    assert c == 6.0
    np.testing.assert_array_equal(ys, [0.0, 0.0, 2.0, 9.0])  # y_t = c_t * x_t, c before x_t


def test_reverse_stores_each_y_at_its_own_index() -> None:
    c, ys = lax.scan(lambda c, x: (c + x, c), np.float64(0.0), np.arange(4.0), reverse=True)
    assert c == 6.0
    np.testing.assert_array_equal(ys, [6.0, 5.0, 3.0, 0.0])


def test_length_zero_none_ys_and_pytrees() -> None:
    c, ys = lax.scan(lambda c, x: (c + x, {"y": c}), np.float64(1.0), np.zeros(0))
    assert c == 1.0 and ys["y"].shape == (0,)
    c, ys = lax.scan(lambda c, x: (c * 2, None), np.float64(1.0), None, length=3)
    assert c == 8.0 and ys is None
    (a, b), ys = lax.scan(lambda c, x: ((c[0] + x["u"], c[1] + 1), (x["v"], c[1])),
                          (np.zeros(2), np.int32(0)), {"u": np.ones((3, 2)), "v": np.eye(3)})
    np.testing.assert_array_equal(a, [3.0, 3.0])
    assert b == 3 and b.dtype == np.int32
    np.testing.assert_array_equal(ys[0], np.eye(3))
    np.testing.assert_array_equal(ys[1], [0, 1, 2])


def test_a_weak_carry_takes_the_body_type() -> None:
    # A Python scalar (or a weak tracer) is weakly typed, as in JAX: traced at its weak type,
    # the body's float32 wins, and the init is converted to it before the loop.
    f32 = np.arange(3.0, dtype=np.float32)
    c, _ = lax.scan(lambda c, x: (c + x, c), 0, f32)
    assert c.dtype == np.float32 and c == 3.0
    c, _ = lax.scan(lambda c, x: (c * x, c), 1.0, np.ones(2, np.float32))
    assert c.dtype == np.float32
    c = mg.jit(lambda c, x: lax.fori_loop(0, 3, lambda i, c: c + x, c))(0.0, np.float32(2))
    assert c.dtype == np.float32 and c == 6.0
    v = lax.while_loop(lambda c: c < 10, lambda c: c + np.int32(3), 0)
    assert v.dtype == np.int32 and v == 12
    # a weak 0.5 does not become an int32: the carry's type changes, an error
    with pytest.raises(TypeError, match="scan: init and the carry f returns must have equal"):
        lax.scan(lambda c, x: (x, c), 0.5, np.arange(3, dtype=np.int32))
    with pytest.raises(TypeError, match="scan: init and the carry f returns must have equal"):
        lax.scan(lambda c, x: (c + x, c), np.int64(0), np.arange(3.0))  # not a Python scalar


@pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="needs jax")
def test_weak_carries_match_jax() -> None:
    import jax

    with jax.enable_x64(True):
        for init, xs in [(0, np.ones(3, np.float32)), (0.0, np.ones(3, np.float32)),
                         (1, np.arange(3, dtype=np.int16)), (0.5, np.ones(2))]:
            ours = lax.scan(lambda c, x: (c + x, c), init, xs)
            theirs = jax.lax.scan(lambda c, x: (c + x, c), init, xs)
            for a, b in zip(ours, theirs, strict=True):
                assert a.dtype == b.dtype
                np.testing.assert_array_equal(a, b)


def test_results_do_not_alias_the_arguments() -> None:
    init = np.ones(2)
    c, _ = lax.scan(lambda c, x: (c, x), init, np.zeros(3))
    c[0] = 7.0
    assert init[0] == 1.0


@pytest.mark.parametrize("call, error, match", [
    (lambda: lax.scan(lambda c, x: c, 0.0, np.ones(3)), TypeError,
     r"scan: f must return a pair \(carry, y\); got an array f64\[\]"),
    (lambda: lax.scan(lambda c, x: ((c, c), x), 0.0, np.ones(3)), TypeError,
     r"scan: init and the carry f returns must have the same pytree structure"),
    (lambda: lax.scan(lambda c, x: (c.astype(np.float32), x), np.float64(0), np.ones(3)),
     TypeError,
     r"carry is f64\[\] in init and f32\[\] in the carry f returns \(the dtypes differ\)"),
    (lambda: lax.scan(lambda c, x: (c * mnp.ones(2), x), 0.0, np.ones(3)), TypeError,
     r"\(the shapes differ\)"),
    (lambda: lax.scan(lambda c, x: (c, x), 0.0, np.ones(3), length=4), ValueError,
     "scan: length 4 disagrees with the leading axis size of xs, 3"),
    (lambda: lax.scan(lambda c, x: (c, x), 0.0, None), ValueError,
     "scan: xs has no leaves to scan over, so length must be given"),
    (lambda: lax.scan(lambda c, x: (c, x), 0.0, (np.ones(3), np.ones(4))), ValueError,
     r"one leading axis size; got xs\[0\]: 3, xs\[1\]: 4"),
    (lambda: lax.scan(lambda c, x: (c, x), 0.0, np.float64(1.0)), ValueError,
     "scan: every leaf of xs must have a leading axis to scan over; xs is 0-d"),
    (lambda: lax.scan(lambda c, x: (c, x), 0.0, np.ones(3), length=2.0), TypeError,
     "scan: length must be an int"),
    (lambda: lax.scan(lambda c, x: (c, x), 0.0, None, length=-1), ValueError,
     "scan: length must be non-negative"),
    (lambda: lax.scan(lambda c, x: (c, x), 0.0, np.ones(3), unroll=-1), ValueError,
     "scan: unroll must be a non-negative int"),
    (lambda: lax.scan(3, 0.0, np.ones(3)), TypeError, "scan: fun must be a callable"),
    (lambda: lax.map(lambda x: x, (np.ones(3), np.ones(2))), ValueError,
     "scan: the leaves of xs must have one leading axis size"),
])
def test_errors(call: Any, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        call()


# --------------------------------------------------------------------------- programs


def test_one_equation_whatever_the_length() -> None:
    def f(x, n):
        return lax.fori_loop(0, n, lambda i, c: mnp.sin(c) * x, x)

    small = mg.make_jaxpr(lambda x: f(x, 3))(1.0)
    big = mg.make_jaxpr(lambda x: f(x, 300))(1.0)
    assert prims(small) == prims(big) == ["scan"]
    assert str(small).replace("length=3", "length=300") == str(big)
    g_small = mg.make_jaxpr(mg.grad(lambda x: f(x, 3)))(1.0)
    g_big = mg.make_jaxpr(mg.grad(lambda x: f(x, 300)))(1.0)
    assert prims(g_small) == prims(g_big)
    forward, backward = scans(g_small)
    assert not forward.params["reverse"] and backward.params["reverse"]


def test_grad_program_hoists_and_forwards_residuals() -> None:
    # w is loop-invariant: a const of the backward scan, never stacked; x_t is read from the xs
    # themselves; only per-iteration values (h_t, tanh', sin h_t, cos h_t) are stacked
    program = mg.make_jaxpr(mg.grad(rnn, argnums=(0, 1, 2)))(W, H0, XS)
    w, _, xs = program.jaxpr.invars
    forward, backward = scans(program)
    stacked = forward.outs[forward.params["num_carry"] + 1:]  # after the carry and the ys
    assert len(stacked) == 4 and all(v.aval.shape[0] == 5 for v in stacked)
    assert backward.inputs[:backward.params["num_consts"]] == [w]
    assert xs in backward.inputs and all(v in backward.inputs for v in stacked)
    longer = mg.make_jaxpr(mg.grad(rnn, argnums=(0, 1, 2)))(W, H0, np.ones((50, 3)))
    assert len(scans(longer)[0].outs) == len(forward.outs)


def test_map_is_a_scan_with_no_carry() -> None:
    jaxpr = mg.make_jaxpr(lambda xs: lax.map(mnp.sin, xs))(np.ones((4, 2)))
    assert prims(jaxpr) == ["scan"] and jaxpr.eqns[0].params["num_carry"] == 0
    xs = np.arange(10.0).reshape(5, 2)
    np.testing.assert_array_equal(lax.map(mnp.sin, xs), np.sin(xs))
    for size in (1, 2, 5, 7):
        np.testing.assert_allclose(lax.map(lambda x: x @ x, xs, batch_size=size),
                                   (xs * xs).sum(1))


# --------------------------------------------------------------------------- transforms


def test_derivatives_to_second_order() -> None:
    check_grads(rnn, [W, H0, XS], order=2)
    for argnum in range(3):
        np.testing.assert_allclose(mg.grad(rnn, argnum)(W, H0, XS),
                                   mg.grad(rnn_loop, argnum)(W, H0, XS), rtol=1e-12)


def test_hessian_of_a_scan() -> None:
    f = lambda h0: rnn(W, h0, XS)  # noqa: E731
    np.testing.assert_allclose(mg.hessian(f)(H0), mg.jacfwd(mg.jacfwd(
        lambda h0: rnn_loop(W, h0, XS)))(H0), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(mg.jacrev(mg.jacrev(f))(H0), mg.hessian(f)(H0), atol=1e-12)


def test_linear_transpose_of_a_linear_scan() -> None:
    def f(h0, xs):
        return lax.scan(lambda c, x: (c * 0.5 + x, c * 2.0), h0, xs)

    h0, xs = np.ones(2), np.arange(6.0).reshape(3, 2)
    check_vjp(f, [h0, xs])
    ct = (np.array([1.0, -1.0]), np.ones((3, 2)))
    t_h0, t_xs = mg.linear_transpose(f, h0, xs)(ct)
    v_h0, v_xs = mg.vjp(f, h0, xs)[1](ct)
    np.testing.assert_allclose(t_h0, v_h0)
    np.testing.assert_allclose(t_xs, v_xs)


def test_linearize_evaluates_the_tangent_scan_only() -> None:
    _, f_jvp = mg.linearize(lambda h0: rnn(W, h0, XS), H0)
    assert prims(f_jvp.jaxpr).count("scan") == 1
    t = np.array([1.0, 0.5, -2.0])
    np.testing.assert_allclose(f_jvp(t), mg.jvp(lambda h0: rnn(W, h0, XS), (H0,), (t,))[1])


@pytest.mark.parametrize("in_axes", [(None, 0, None), (None, None, 1), (0, 0, 0), (2, None, 2)])
def test_vmap_every_combination(in_axes: tuple) -> None:
    args = [np.stack([W, W * 0.5, -W], axis=in_axes[0] or 0) if in_axes[0] is not None else W,
            np.stack([H0, H0 * 2, -H0]) if in_axes[1] is not None else H0,
            np.stack([XS, XS[::-1], XS * 0.3], axis=in_axes[2])
            if in_axes[2] is not None else XS]
    check_vmap(rnn, args, in_axes, atol=1e-12, rtol=1e-12)
    check_vmap(mg.grad(rnn), args, in_axes, atol=1e-12, rtol=1e-12)


def test_vmap_axis_1_in_and_out() -> None:
    def f(xs):
        return lax.scan(lambda c, x: (c + x, c * x), np.float64(0.0), xs)[1]

    xs = np.arange(12.0).reshape(4, 3)  # scan axis 0, batch axis 1
    out = mg.vmap(f, in_axes=1, out_axes=1)(xs)
    np.testing.assert_array_equal(out, np.stack([f(xs[:, b]) for b in range(3)], axis=1))


def test_fori_loop_with_static_bounds_is_a_scan() -> None:
    body = lambda i, x: x * mnp.sin(x + i)  # noqa: E731
    f = lambda x: lax.fori_loop(1, 4, body, x)  # noqa: E731
    assert prims(mg.make_jaxpr(f)(0.5)) == ["scan"]
    x, expected = np.float64(0.5), np.float64(0.5)
    for i in range(1, 4):
        expected = expected * np.sin(expected + i)
    assert f(x) == expected
    check_grads(f, [x], order=2)
    assert lax.fori_loop(5, 2, body, x) == x  # upper <= lower: the init


# --------------------------------------------------------------------------- jit


def test_jit_generates_a_for_loop_compiled_once() -> None:
    f = mg.jit(rnn)
    source = f.lower(W, H0, XS).as_text()
    assert "for " in source and "range(5)" in source
    np.testing.assert_allclose(f(W, H0, XS), rnn(W, H0, XS), rtol=1e-14)
    g = mg.jit(mg.grad(rnn, argnums=(0, 1, 2)))
    for a, b in zip(g(W, H0, XS), mg.grad(rnn, argnums=(0, 1, 2))(W, H0, XS), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    assert "range(4, -1, -1)" in g.lower(W, H0, XS).as_text()
    f(W, H0, XS * 2)
    assert f.traces == 1


def test_jit_body_writes_its_carry_in_place_but_not_the_callers() -> None:
    def f(c0, xs):
        return lax.scan(lambda c, x: (c + x, c * 2.0), c0, xs)

    c0, xs = np.ones((64, 64)), np.ones((4, 64, 64))  # big enough to be written in place
    jitted = mg.jit(f)
    carry, ys = jitted(c0, xs)
    np.testing.assert_array_equal(c0, np.ones((64, 64)))  # the init was copied, then written
    np.testing.assert_array_equal(carry, 5 * np.ones((64, 64)))
    np.testing.assert_array_equal(ys[:, 0, 0], [2.0, 4.0, 6.0, 8.0])
    assert "copy_e" in jitted.lower(c0, xs).as_text()
    assert "copy_e" not in mg.jit(f).lower(np.ones(3), np.ones((4, 3))).as_text()  # small
    from minigrad.lax.loops import scan_p
    from minigrad.staging.executor import compiled

    program = jitted.lower(c0, xs).jaxpr
    (eqn,) = [e for e in program.eqns if e.prim is scan_p]
    body = compiled(eqn.params["jaxpr"], (0,), "body").source  # the carry donated
    assert "add_" in body  # c + x written into the donated carry


def test_jit_hoists_loop_invariant_work() -> None:
    from minigrad.lax.loops import scan_p
    from minigrad.staging.executor import compiled

    def f(w, h, xs):
        return lax.scan(lambda h, x: (mnp.tanh(h @ w.T + x), None), h, xs)[0]

    jitted = mg.jit(f)
    args = (W, H0, XS)
    np.testing.assert_allclose(jitted(*args), f(*args), rtol=1e-14)
    source = jitted.lower(*args).as_text()
    assert "pre_e" in source  # w.T, computed once before the loop
    (eqn,) = [e for e in jitted.lower(*args).jaxpr.eqns if e.prim is scan_p]
    from minigrad.lax.common import hoist_invariants

    split = hoist_invariants(eqn.params["jaxpr"], eqn.params["num_consts"])
    assert split is not None
    assert "transpose" in compiled(split[0]).source
    assert "transpose" not in compiled(split[1]).source
    # a loop of no steps runs none of the body, the hoisted part included: no index check
    table = np.arange(3.0)
    g = mg.jit(lambda i, xs: lax.scan(lambda c, x: (c + mnp.take(table, i) + x[0], c), 0.0,
                                      xs)[0])
    assert g(np.array(7), np.ones((0, 3))) == 0.0
    with pytest.raises(IndexError):
        g(np.array(7), np.ones((2, 3)))

"""lax.while_loop and fori_loop with traced bounds: forward mode, vmap with per-lane trip
counts, the refused reverse mode, the errors, and the generated ``while``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import minigrad as mg
from minigrad import lax
from minigrad import numpy as mnp
from minigrad.testing import check_jvp, check_vmap


def prims(jaxpr: Any) -> list[str]:
    return [e.prim.name for e in jaxpr.eqns]


def newton_sqrt(a: Any) -> Any:
    """sqrt(a) by Newton's iteration until the step is small: a data-dependent trip count."""
    def cond(c):
        return c[1] > 1e-24  # the squared step

    def body(c):
        x, _ = c
        new = 0.5 * (x + a / x)
        return new, (new - x) ** 2

    return lax.while_loop(cond, body, (a, mnp.ones_like(a)))[0]


def counted(x: Any, n: Any) -> Any:
    return lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, mnp.sin(c[1]) * 1.5),
                          (0, x))[1]


def counted_loop(x: Any, n: int) -> Any:
    for _ in range(n):
        x = np.sin(x) * 1.5
    return x


def test_values() -> None:
    assert lax.while_loop(lambda x: x < 100, lambda x: x * 3, np.float64(1.0)) == 243.0
    np.testing.assert_allclose(newton_sqrt(np.float64(2.0)), np.sqrt(2.0), rtol=1e-15)
    np.testing.assert_allclose(counted(np.float64(0.3), 4), counted_loop(0.3, 4))
    assert lax.while_loop(lambda x: x < 0, lambda x: x + 1, np.float64(5.0)) == 5.0  # no step
    assert lax.while_loop(lambda c: c < 3, lambda c: c + 1.5, 0) == 3.0  # 0 takes the type
    out = lax.fori_loop(np.int32(0), np.int32(4), lambda i, x: x + i, np.float64(0.5))
    assert out == 6.5


@pytest.mark.parametrize("call, error, match", [
    (lambda: lax.while_loop(lambda c: c, lambda c: c, np.float64(1.0)), TypeError,
     r"while_loop: cond_fun must return a boolean scalar \(bool\[\]\); got f64\[\]"),
    (lambda: lax.while_loop(lambda c: c < mnp.ones(2), lambda c: c, np.float64(1.0)),
     TypeError, r"got bool\[2\]"),
    (lambda: lax.while_loop(lambda c: c < 1, lambda c: (c, c), np.float64(1.0)), TypeError,
     "while_loop: init_val and the value body_fun returns must have the same pytree"),
    (lambda: lax.while_loop(lambda c: c < 1, lambda c: c.astype(np.float32), np.float64(1.0)),
     TypeError, r"val is f64\[\] in init_val and f32\[\] in the value body_fun returns"),
    (lambda: lax.while_loop(3, lambda c: c, 1.0), TypeError, "while_loop: fun must be"),
    (lambda: lax.fori_loop(0.0, 3, lambda i, x: x, 1.0), TypeError,
     r"fori_loop: lower must be an integer scalar; got f64\[\]"),
    (lambda: lax.fori_loop(0, np.arange(2), lambda i, x: x, 1.0), TypeError,
     "fori_loop: upper must be an integer scalar"),
])
def test_errors(call: Any, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        call()


def test_one_equation() -> None:
    jaxpr = mg.make_jaxpr(counted)(1.0, 3)
    assert prims(jaxpr) == ["while"]
    text = str(jaxpr)
    for name in ("body_jaxpr=", "body_nconsts=0", "cond_jaxpr=", "cond_nconsts=1"):
        assert name in text


def test_forward_mode() -> None:
    for n in (0, 1, 4):
        check_jvp(lambda x, n=n: counted(x, n), [np.array([0.3, -1.0])])
    a = np.float64(3.0)
    _, t = mg.jvp(newton_sqrt, (a,), (np.float64(1.0),))
    np.testing.assert_allclose(t, 0.5 / np.sqrt(3.0), rtol=1e-10)
    np.testing.assert_allclose(mg.jacfwd(newton_sqrt)(a), 0.5 / np.sqrt(3.0), rtol=1e-10)


def test_linearize_runs_the_loop_again() -> None:
    y, f_jvp = mg.linearize(lambda x: counted(x, 3), np.float64(0.4))
    assert y == counted_loop(0.4, 3)
    assert prims(f_jvp.jaxpr) == ["while"]  # the whole loop, staged again (recomputation)
    _, t = mg.jvp(lambda x: counted(x, 3), (np.float64(0.4),), (np.float64(2.0),))
    np.testing.assert_allclose(f_jvp(np.float64(2.0)), t)


@pytest.mark.parametrize("transform", [mg.grad, mg.jacrev, mg.hessian])
def test_reverse_mode_raises(transform: Any) -> None:
    with pytest.raises(ValueError, match=r"Reverse-mode differentiation does not work for "
                       r"lax.while_loop or lax.fori_loop with dynamic start/stop values.*scan"):
        transform(lambda x: counted(x, 3))(np.float64(0.4))


def test_fori_loop_bounds_decide_the_primitive() -> None:
    body = lambda i, x: x * 1.5 + mnp.sin(x)  # noqa: E731
    static = mg.make_jaxpr(lambda x: lax.fori_loop(0, 3, body, x))(1.0)
    traced = mg.make_jaxpr(lambda n, x: lax.fori_loop(0, n, body, x))(3, 1.0)
    assert prims(static) == ["scan"] and "while" in prims(traced)
    f = mg.jit(lambda n, x: lax.fori_loop(0, n, body, x))
    np.testing.assert_allclose(f(3, np.float64(1.0)), lax.fori_loop(0, 3, body, np.float64(1.0)))
    assert mg.grad(lambda x: lax.fori_loop(0, 3, body, x))(np.float64(1.0)) > 0
    with pytest.raises(ValueError, match="Reverse-mode differentiation does not work"):
        mg.grad(lambda x: f(3, x))(np.float64(1.0))
    assert f(0, np.float64(2.0)) == 2.0 and f(-3, np.float64(2.0)) == 2.0


def test_fori_loop_counter_and_bounds_types() -> None:
    # Static bounds: the counter is the Python int lower, weakly typed, whatever the bounds'
    # dtypes (JAX's), so i + a float32 carry stays float32. Traced bounds: the bounds' dtype,
    # which must agree unless one of two signed ones is a Python int.
    seen: list[Any] = []
    out = lax.fori_loop(np.int32(0), np.int32(3), lambda i, c: (seen.append(i.aval), c + i)[1],
                        np.float32(0))
    assert seen[0].dtype == np.int64 and seen[0].weak_type
    assert out.dtype == np.float32 and out == 3.0
    seen.clear()
    mg.jit(lambda n: lax.fori_loop(0, n, lambda i, c: (seen.append(i.aval), c)[1],
                                   np.float32(0)))(np.int16(3))
    assert seen[0].dtype == np.int16 and not seen[0].weak_type
    with pytest.raises(TypeError, match="fori_loop: lower and upper must have equal types; got "
                                        r"i32\[\] and i64\[\]"):
        lax.fori_loop(np.int32(0), np.int64(3), lambda i, c: c, 0.0)
    with pytest.raises(ValueError, match="fori_loop: unroll needs static"):
        mg.jit(lambda n: lax.fori_loop(0, n, lambda i, c: c, 0.0, unroll=2))(3)


# --------------------------------------------------------------------------- vmap


def test_vmap_batched_predicate_freezes_finished_lanes() -> None:
    ns = np.array([0, 1, 4, 2])
    xs = np.array([0.3, 0.3, -1.0, 2.0])
    out = mg.vmap(counted)(xs, ns)
    np.testing.assert_allclose(out, [counted_loop(x, int(n)) for x, n in zip(xs, ns, strict=True)])
    check_vmap(counted, [xs, ns], (0, 0))
    check_vmap(counted, [np.float64(0.3), ns], (None, 0))
    check_vmap(newton_sqrt, [np.array([1.0, 2.0, 9.0, 1e-3])], (0,), atol=1e-15, rtol=1e-15)
    jaxpr = mg.make_jaxpr(mg.vmap(counted))(xs, ns)
    assert prims(jaxpr).count("while") == 1


def test_vmap_unbatched_predicate_keeps_an_unbatched_loop() -> None:
    xs = np.array([[0.3, 1.0], [-0.5, 2.0]])
    check_vmap(counted, [xs, np.int64(3)], (1, None))
    (eqn,) = [e for e in mg.make_jaxpr(mg.vmap(counted, in_axes=(0, None)))(xs, 3).eqns
              if e.prim.name == "while"]
    assert eqn.outs[0].aval.shape == ()  # the counter stays unbatched


def test_vmap_of_jvp_and_jvp_of_vmap() -> None:
    ns, xs, ts = np.array([1, 3]), np.array([0.2, 0.7]), np.array([1.0, -2.0])
    a = mg.vmap(lambda x, n, t: mg.jvp(lambda x: counted(x, n), (x,), (t,))[1])(xs, ns, ts)
    b = mg.jvp(lambda x: mg.vmap(counted)(x, ns), (xs,), (ts,))[1]
    np.testing.assert_allclose(a, b)
    eps = 1e-6
    fd = (mg.vmap(counted)(xs + eps * ts, ns) - mg.vmap(counted)(xs - eps * ts, ns)) / (2 * eps)
    np.testing.assert_allclose(a, fd, rtol=1e-6)


# --------------------------------------------------------------------------- jit


def test_jit_generates_a_python_while() -> None:
    f = mg.jit(counted)
    source = f.lower(np.float64(0.3), 4).as_text()
    assert "while " in source
    np.testing.assert_allclose(f(np.float64(0.3), 4), counted_loop(0.3, 4))
    np.testing.assert_allclose(f(np.float64(0.3), 0), 0.3)
    assert f.traces == 1
    x = np.full((64, 64), 0.3)  # big enough to be written in place
    f(x, 2)
    np.testing.assert_array_equal(x, np.full((64, 64), 0.3))  # copied before the body writes
    assert "copy_e" in f.lower(x, 2).as_text()

"""custom_jvp, custom_vjp and custom_vmap: rules given to a function.

A custom_jvp whose rule is the true derivative agrees with the plain function under every
transform (hypothesis over inputs); custom_vjp agrees under grad, vjp, jacrev and vmap(grad);
custom_vmap's rule is called once per vmap with the right axis size and flags; nondiff
arguments, pytrees, errors; the four classic examples against JAX when it is installed.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minigrad as mg
from minigrad import numpy as mnp


def plain_f(x: Any, y: Any) -> Any:
    return mnp.sin(x) * y + x * x


@mg.custom_jvp
def f(x: Any, y: Any) -> Any:
    return plain_f(x, y)


@f.defjvp
def _f_jvp(primals: tuple, tangents: tuple) -> tuple:
    (x, y), (tx, ty) = primals, tangents
    return f(x, y), (mnp.cos(x) * y + 2.0 * x) * tx + mnp.sin(x) * ty


@mg.custom_vjp
def g(x: Any, y: Any) -> Any:
    return plain_f(x, y)


def _g_fwd(x: Any, y: Any) -> tuple:
    return g(x, y), (x, y)


def _g_bwd(res: tuple, ct: Any) -> tuple:
    x, y = res
    return (mnp.cos(x) * y + 2.0 * x) * ct, mnp.sin(x) * ct


g.defvjp(_g_fwd, _g_bwd)


def close(a: Any, b: Any) -> None:
    for u, v in zip(mg.tree_leaves(a), mg.tree_leaves(b), strict=True):
        np.testing.assert_allclose(u, v, rtol=1e-12, atol=1e-12)


VECTORS = st.lists(st.floats(-3, 3), min_size=3, max_size=3).map(np.array)


@settings(max_examples=25, deadline=None)
@given(VECTORS, VECTORS)
def test_custom_jvp_with_the_true_derivative_agrees_everywhere(x: Any, y: Any) -> None:
    def loss(fn: Any) -> Any:
        return lambda a, b: mnp.sum(mnp.tanh(fn(a, b)))

    close(f(x, y), plain_f(x, y))
    close(mg.jvp(f, (x, y), (y, x)), mg.jvp(plain_f, (x, y), (y, x)))
    close(mg.grad(loss(f), (0, 1))(x, y), mg.grad(loss(plain_f), (0, 1))(x, y))
    close(mg.jacfwd(f)(x, y), mg.jacfwd(plain_f)(x, y))
    close(mg.jacrev(f)(x, y), mg.jacrev(plain_f)(x, y))
    close(mg.hessian(loss(f))(x, y), mg.hessian(loss(plain_f))(x, y))
    close(mg.linearize(f, x, y)[1](y, x), mg.linearize(plain_f, x, y)[1](y, x))
    xs, ys = np.stack([x, y]), np.stack([y, x])
    close(mg.vmap(f)(xs, ys), mg.vmap(plain_f)(xs, ys))
    close(mg.vmap(mg.grad(loss(f)))(xs, ys), mg.vmap(mg.grad(loss(plain_f)))(xs, ys))
    close(mg.grad(lambda a: mnp.sum(mg.vmap(f)(a, ys)))(xs),
          mg.grad(lambda a: mnp.sum(mg.vmap(plain_f)(a, ys)))(xs))  # vmap inside: rule batched
    close(mg.jvp(mg.vmap(f), (xs, ys), (ys, xs)), mg.jvp(mg.vmap(plain_f), (xs, ys), (ys, xs)))
    close(mg.jit(mg.vmap(mg.grad(loss(f))))(xs, ys), mg.vmap(mg.grad(loss(plain_f)))(xs, ys))
    close(mg.vmap(mg.grad(loss(mg.jit(f))))(xs, ys), mg.vmap(mg.grad(loss(plain_f)))(xs, ys))


@settings(max_examples=25, deadline=None)
@given(VECTORS, VECTORS)
def test_custom_vjp_with_the_true_gradient_agrees_in_reverse_mode(x: Any, y: Any) -> None:
    def loss(fn: Any) -> Any:
        return lambda a, b: mnp.sum(mnp.tanh(fn(a, b)))

    close(g(x, y), plain_f(x, y))
    close(mg.grad(loss(g), (0, 1))(x, y), mg.grad(loss(plain_f), (0, 1))(x, y))
    close(mg.vjp(g, x, y)[1](y), mg.vjp(plain_f, x, y)[1](y))
    close(mg.jacrev(g, (0, 1))(x, y), mg.jacrev(plain_f, (0, 1))(x, y))
    xs, ys = np.stack([x, y]), np.stack([y, x])
    close(mg.vmap(mg.grad(loss(g)))(xs, ys), mg.vmap(mg.grad(loss(plain_f)))(xs, ys))
    close(mg.grad(lambda a: mnp.sum(mg.vmap(g)(a, ys)))(xs),
          mg.grad(lambda a: mnp.sum(mg.vmap(plain_f)(a, ys)))(xs))
    close(mg.jit(mg.vmap(mg.grad(loss(g))))(xs, ys), mg.vmap(mg.grad(loss(plain_f)))(xs, ys))
    close(mg.grad(loss(mg.jit(g)), (0, 1))(x, y), mg.grad(loss(plain_f), (0, 1))(x, y))


def test_the_rule_is_what_is_differentiated() -> None:
    @mg.custom_jvp
    def h(x: Any) -> Any:
        return x * x

    @h.defjvp
    def _(primals: tuple, tangents: tuple) -> tuple:
        (x,), (t,) = primals, tangents
        return h(x), 3.0 * x * t  # not the true derivative 2x: the rule wins

    x = np.float64(2.0)
    assert mg.grad(h)(x) == 6.0 and mg.jvp(h, (x,), (1.0,))[1] == 6.0
    assert mg.grad(mg.grad(h))(x) == 3.0  # the derivative of the rule's 3x
    assert mg.jacfwd(mg.jacrev(h))(x) == 3.0


def test_forward_mode_through_custom_vjp_raises() -> None:
    x = np.ones(3)
    with pytest.raises(TypeError, match=r"forward-mode autodiff.*custom_vjp.*g"):
        mg.jvp(lambda a: g(a, x), (x,), (x,))
    with pytest.raises(TypeError, match="forward-mode"):
        mg.jacfwd(lambda a: g(a, x))(x)


def test_custom_vjp_rule_errors_name_the_rule() -> None:
    @mg.custom_vjp
    def h(x: Any) -> Any:
        return x * 2.0

    h.defvjp(lambda x: (h(x), None), lambda res, ct: ct)  # not a tuple
    with pytest.raises(TypeError, match="bwd of h must return a tuple"):
        mg.grad(lambda a: mnp.sum(h(a)))(np.ones(3))
    h.defvjp(lambda x: (h(x), None), lambda res, ct: (ct, ct))  # two for one argument
    with pytest.raises(TypeError, match="bwd of h must return a tuple of the arguments'"):
        mg.grad(lambda a: mnp.sum(h(a)))(np.ones(3))
    h.defvjp(lambda x: (h(x), None), lambda res, ct: (ct[:2],))  # the wrong shape
    with pytest.raises(TypeError, match=r"bwd of h: output 0 must be f64\[3\]"):
        mg.grad(lambda a: mnp.sum(h(a)))(np.ones(3))
    h.defvjp(lambda x: h(x), lambda res, ct: (ct,))  # fwd without residuals
    with pytest.raises(TypeError, match="fwd of h must return a pair"):
        mg.grad(lambda a: mnp.sum(h(a)))(np.ones(3))


def test_custom_jvp_rule_errors_name_the_rule() -> None:
    @mg.custom_jvp
    def h(x: Any) -> Any:
        return x * 2.0

    with pytest.raises(TypeError, match="h has no JVP rule"):
        h(np.ones(2))
    h.defjvp(lambda p, t: (h(*p), t[0][:1]))
    with pytest.raises(TypeError,
                       match=r"JVP rule of h \(tangent out\): output 0 must be f64\[2\]"):
        mg.jvp(h, (np.ones(2),), (np.ones(2),))


def test_nondiff_argnums_and_pytrees() -> None:
    def power(n: int, x: Any) -> Any:
        out = x
        for _ in range(n - 1):
            out = out * x
        return out

    p = mg.custom_jvp(power, nondiff_argnums=(0,))

    @p.defjvp
    def _(n: int, primals: tuple, tangents: tuple) -> tuple:
        (x,), (t,) = primals, tangents
        return p(n, x), n * power(n - 1, x) * t

    x = np.array([1.0, 2.0])
    close(mg.grad(lambda a: mnp.sum(p(3, a)))(x), 3 * x ** 2)
    close(mg.vmap(mg.grad(lambda a: p(2, a)))(x), 2 * x)

    @mg.custom_vjp
    def tree_fn(d: dict) -> dict:
        return {"sum": d["a"] + d["b"], "prod": d["a"] * d["b"]}

    def fwd(d: dict) -> tuple:
        return tree_fn(d), d

    def bwd(d: dict, ct: dict) -> tuple:
        return ({"a": ct["sum"] + ct["prod"] * d["b"], "b": ct["sum"] + ct["prod"] * d["a"]},)

    tree_fn.defvjp(fwd, bwd)
    d = {"a": np.array([1.0, 2.0]), "b": np.array([3.0, 4.0])}

    def loss(d: dict) -> Any:
        out = tree_fn(d)
        return mnp.sum(out["sum"] * out["prod"])

    def plain(d: dict) -> Any:
        return mnp.sum((d["a"] + d["b"]) * (d["a"] * d["b"]))

    close(mg.grad(loss)(d), mg.grad(plain)(d))


def test_custom_vmap_rule_called_once_per_vmap() -> None:
    calls: list[tuple] = []

    @mg.custom_vmap
    def row_sum(x: Any) -> Any:
        return mnp.sum(x)

    @row_sum.def_vmap
    def _(axis_size: int, in_batched: list, x: Any) -> tuple:
        calls.append((axis_size, tuple(in_batched)))
        return mnp.sum(x, axis=1), True

    xs = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(mg.vmap(row_sum)(xs), xs.sum(axis=1))
    assert calls == [(3, (True,))]
    nested = mg.vmap(mg.vmap(row_sum))(np.arange(24.0).reshape(2, 3, 4))
    np.testing.assert_array_equal(nested, np.arange(24.0).reshape(2, 3, 4).sum(axis=2))
    # the inner vmap calls the rule; the outer one batches the rule's own operations
    assert calls[1:] == [(3, (True,))]
    np.testing.assert_array_equal(mg.grad(lambda x: row_sum(x))(xs[0]), np.ones(4))
    bad = mg.custom_vmap(lambda x: x)
    with pytest.raises(TypeError, match=r"<lambda> has no batching rule"):
        bad(xs)
    bad.def_vmap(lambda n, b, x: x)  # not a pair (out, out_batched)
    with pytest.raises(TypeError, match=r"the rule of <lambda> must return a pair"):
        mg.vmap(bad)(xs)


def test_make_jaxpr_shows_the_call_and_its_body() -> None:
    text = str(mg.make_jaxpr(f)(np.ones(2), np.ones(2)))
    assert "custom_jvp_call[" in text and "call={ lambda" in text and "sin" in text
    assert "jvp=f.jvp" in text and "name=f" in text
    text = str(mg.make_jaxpr(mg.grad(lambda a: mnp.sum(g(a, a))))(np.ones(2)))
    assert "custom_vjp_call[" in text and "bwd=g.bwd" in text


# --------------------------------------------------------------------------- the classic four


@mg.custom_jvp
def log1pexp(x: Any) -> Any:
    return mnp.log(1.0 + mnp.exp(x))


@log1pexp.defjvp
def _log1pexp_jvp(primals: tuple, tangents: tuple) -> tuple:
    (x,), (t,) = primals, tangents
    return log1pexp(x), t * (1.0 - 1.0 / (1.0 + mnp.exp(x)))


@mg.custom_vjp
def clip_gradient(x: Any) -> Any:
    return x


clip_gradient.defvjp(lambda x: (x, None),
                     lambda _, ct: (mnp.where(ct > 1.0, 1.0, mnp.where(ct < -1.0, -1.0, ct)),))


@mg.custom_jvp
def safe_norm(x: Any) -> Any:
    return mnp.sqrt(mnp.sum(x * x))


@safe_norm.defjvp
def _safe_norm_jvp(primals: tuple, tangents: tuple) -> tuple:
    (x,), (t,) = primals, tangents
    n = safe_norm(x)
    scale = mnp.where(n == 0.0, 0.0, 1.0 / mnp.where(n == 0.0, 1.0, n))
    return n, mnp.sum(x * t) * scale


@mg.custom_vjp
def binarize(x: Any) -> Any:  # a step: its true gradient is 0 almost everywhere
    return mnp.where(x > 0.5, 1.0, 0.0)


binarize.defvjp(lambda x: (binarize(x), None), lambda _, ct: (ct,))  # straight through


def test_the_classic_four() -> None:
    with np.errstate(over="ignore"):
        assert mg.grad(log1pexp)(np.float64(1000.0)) == 1.0  # the plain formula gives nan
    np.testing.assert_array_equal(mg.grad(lambda x: mnp.sum(clip_gradient(x) * 5.0))(
        np.ones(3)), [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(mg.grad(safe_norm)(np.zeros(3)), [0.0, 0.0, 0.0])
    np.testing.assert_allclose(mg.grad(safe_norm)(np.array([3.0, 4.0])), [0.6, 0.8])
    np.testing.assert_array_equal(
        mg.grad(lambda x: mnp.sum(binarize(x) * 2.0))(np.array([0.3, 1.7])), [2.0, 2.0])


def test_the_classic_four_against_jax() -> None:
    jax = pytest.importorskip("jax", reason="the cross-check of the examples needs jax")
    jnp = jax.numpy
    with jax.enable_x64(True):
        @jax.custom_jvp
        def j_log1pexp(x: Any) -> Any:
            return jnp.log(1.0 + jnp.exp(x))

        @j_log1pexp.defjvp
        def _(primals: tuple, tangents: tuple) -> tuple:
            (x,), (t,) = primals, tangents
            return j_log1pexp(x), t * (1.0 - 1.0 / (1.0 + jnp.exp(x)))

        @jax.custom_jvp
        def j_safe_norm(x: Any) -> Any:
            return jnp.sqrt(jnp.sum(x * x))

        @j_safe_norm.defjvp
        def _(primals: tuple, tangents: tuple) -> tuple:
            (x,), (t,) = primals, tangents
            n = j_safe_norm(x)
            return n, jnp.sum(x * t) * jnp.where(n == 0.0, 0.0, 1.0 / jnp.where(n == 0.0, 1.0,
                                                                                n))

        @jax.custom_vjp
        def j_clip(x: Any) -> Any:
            return x

        j_clip.defvjp(lambda x: (x, None), lambda _, ct: (jnp.clip(ct, -1.0, 1.0),))

        xs = np.array([-2.0, 0.0, 1.0, 30.0, 700.0])
        with np.errstate(over="ignore"):
            np.testing.assert_allclose(mg.vmap(mg.grad(log1pexp))(xs),
                                       jax.vmap(jax.grad(j_log1pexp))(xs), rtol=1e-12)
        for v in (np.zeros(3), np.array([3.0, 4.0, 0.0])):
            np.testing.assert_allclose(mg.grad(safe_norm)(v), jax.grad(j_safe_norm)(v),
                                       rtol=1e-12)
        w = np.array([0.5, -3.0, 4.0])
        np.testing.assert_allclose(mg.grad(lambda x: mnp.sum(clip_gradient(x) * w))(w),
                                   jax.grad(lambda x: jnp.sum(j_clip(x) * w))(w))


def test_the_call_primitives_have_their_rules() -> None:
    from minigrad import custom_rules as cr

    for prim in (cr.custom_jvp_call_p, cr.custom_vjp_call_p, cr.custom_vmap_call_p,
                 cr.custom_lin_p):
        assert prim.multiple_results
        missing = [r for r in ("impl", "abstract_eval", "jvp", "batch")
                   if getattr(prim, r) is None]
        assert missing == [], (prim.name, missing)
    assert cr.custom_lin_p.transpose is not None  # the linear one: bwd


def test_defjvps_one_rule_per_argument() -> None:
    @mg.custom_jvp
    def h(x: Any, y: Any) -> Any:
        return x * y

    h.defjvps(lambda tx, out, x, y: tx * y, lambda ty, out, x, y: ty * x)
    x, y = np.array([1.0, 2.0]), np.array([3.0, 5.0])
    close(mg.grad(lambda a, b: mnp.sum(h(a, b)), (0, 1))(x, y), (y, x))
    close(mg.jvp(h, (x, y), (np.ones(2), np.zeros(2)))[1], y)


def test_custom_vjp_nondiff_argnums() -> None:
    def scaled(k: float, x: Any) -> Any:
        return x * k

    s = mg.custom_vjp(scaled, nondiff_argnums=(0,))
    s.defvjp(lambda k, x: (s(k, x), None), lambda k, _, ct: (ct * k * 10.0,))
    np.testing.assert_array_equal(mg.grad(lambda x: mnp.sum(s(2.0, x)))(np.ones(2)), [20.0, 20.0])


def test_a_tracer_leaked_by_a_rule_is_reported() -> None:
    leaked: list[Any] = []

    @mg.custom_jvp
    def h(x: Any) -> Any:
        return x * 2.0

    @h.defjvp
    def _(primals: tuple, tangents: tuple) -> tuple:
        leaked.append(tangents[0])
        return h(*primals), tangents[0] * 2.0

    mg.jvp(h, (np.ones(2),), (np.ones(2),))  # (the tangent is concrete here: nothing leaks)
    mg.grad(lambda x: mnp.sum(h(x)))(np.ones(2))
    with pytest.raises(mg.UnexpectedTracerError):
        mnp.sin(leaked[-1])

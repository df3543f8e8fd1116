"""Named axes: vmap(axis_name=...) and the collectives psum, pmean, pmax, pmin, all_gather,
axis_index; nested names, an outer name from an inner function, gradients through them,
per-example gradient clipping with a pmean (as in differentially private training), the
unbound-name error; against JAX where it is installed."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import minigrad as mg
from minigrad import numpy as mnp
from minigrad.collectives import all_gather, axis_index, pmax, pmean, pmin, psum

X = np.arange(12.0).reshape(4, 3) / 5.0 - 1.0


def named(f: Any, name: str = "b") -> Any:
    return mg.vmap(f, axis_name=name)


def test_values() -> None:
    np.testing.assert_allclose(named(lambda v: psum(v, "b"))(X), np.tile(X.sum(0), (4, 1)))
    np.testing.assert_allclose(named(lambda v: pmean(v, "b"))(X), np.tile(X.mean(0), (4, 1)))
    np.testing.assert_allclose(named(lambda v: pmax(v, "b"))(X), np.tile(X.max(0), (4, 1)))
    np.testing.assert_allclose(named(lambda v: pmin(v, "b"))(X), np.tile(X.min(0), (4, 1)))
    np.testing.assert_allclose(named(lambda v: all_gather(v, "b"))(X), np.stack([X] * 4))
    np.testing.assert_array_equal(named(lambda v: axis_index("b"))(X), np.arange(4))
    # an unbatched value: psum over the axis is n copies
    np.testing.assert_allclose(named(lambda v: psum(np.ones(3), "b") + v * 0)(X), 4.0)


def test_nested_names() -> None:
    y = np.arange(24.0).reshape(2, 3, 4)

    def inner_over(name: str) -> Any:
        return mg.vmap(lambda a: mg.vmap(lambda v: psum(v, name), axis_name="inner")(a),
                       axis_name="outer")(y)

    np.testing.assert_allclose(inner_over("outer"), np.broadcast_to(y.sum(0), y.shape))
    np.testing.assert_allclose(inner_over("inner"), np.broadcast_to(y.sum(1, keepdims=True),
                                                                    y.shape))
    np.testing.assert_array_equal(
        mg.vmap(lambda a: mg.vmap(lambda v: axis_index("outer") * 10 + axis_index("inner"),
                                  axis_name="inner")(a), axis_name="outer")(y[..., 0]),
        [[0, 1, 2], [10, 11, 12]])


def test_unbound_name() -> None:
    with pytest.raises(NameError, match="unbound axis name: 'nope'"):
        psum(X, "nope")
    with pytest.raises(NameError, match="unbound axis name: 'b'"):
        mg.vmap(lambda v: psum(v, "b"))(X)  # a vmap without the name


def test_gradients_through_collectives() -> None:
    def loss(Z: Any) -> Any:
        return mnp.sum(named(lambda v: mnp.sin(v) * psum(v, "b") + pmax(v, "b")
                             + mnp.sum(all_gather(v, "b") ** 2))(Z))

    def plain(Z: Any) -> Any:
        n, d = Z.shape  # (the gathered sum, a scalar, is added to each of d elements)
        return (mnp.sum(mnp.sin(Z) * mnp.sum(Z, axis=0)) + n * mnp.sum(mnp.max(Z, axis=0))
                + d * n * mnp.sum(Z ** 2))

    np.testing.assert_allclose(mg.grad(loss)(X), mg.grad(plain)(X), rtol=1e-12)
    # per-example gradients: the transpose of psum sums the examples' cotangents
    per = named(mg.grad(lambda v: mnp.sum(v * psum(v, "b"))))(X)
    np.testing.assert_allclose(per, np.tile(2 * X.sum(0), (4, 1)))


def test_per_example_clipping_with_pmean() -> None:
    """Differentially private training's step: clip each example's gradient, average."""
    w = np.array([0.5, -1.0, 2.0])
    xs, ys = X, np.array([1.0, -1.0, 0.5, 2.0])

    def loss(w: Any, x: Any, y: Any) -> Any:
        return (mnp.sum(w * x) - y) ** 2

    def clipped_mean_grad(x: Any, y: Any) -> Any:
        g = mg.grad(loss)(w, x, y)
        norm = mnp.sqrt(mnp.sum(g * g))
        g = g * mnp.where(norm > 1.0, 1.0 / norm, 1.0)
        return pmean(g, "batch")

    got = mg.vmap(clipped_mean_grad, axis_name="batch")(xs, ys)
    by_hand = []
    for x, y in zip(xs, ys, strict=True):
        g = 2 * (w @ x - y) * x
        by_hand.append(g / max(1.0, np.linalg.norm(g)))
    np.testing.assert_allclose(got, np.tile(np.mean(by_hand, axis=0), (4, 1)), rtol=1e-12)


def test_against_jax() -> None:
    jax = pytest.importorskip("jax", reason="the cross-check needs jax installed")
    jnp = jax.numpy
    with jax.enable_x64(True):
        for ours, theirs in ((psum, jax.lax.psum), (pmax, jax.lax.pmax), (pmin, jax.lax.pmin),
                             (pmean, jax.lax.pmean), (all_gather, jax.lax.all_gather)):
            np.testing.assert_allclose(named(lambda v, f=ours: f(v, "b"))(X),
                                       jax.vmap(lambda v, f=theirs: f(v, "b"), axis_name="b")(X))
        np.testing.assert_allclose(
            named(mg.grad(lambda v: mnp.sum(mnp.sin(v) * psum(v, "b"))))(X),
            jax.vmap(jax.grad(lambda v: jnp.sum(jnp.sin(v) * jax.lax.psum(v, "b"))),
                     axis_name="b")(X), rtol=1e-12)
        np.testing.assert_allclose(
            named(mg.grad(lambda v: mnp.sum(all_gather(v, "b") ** 2)))(X),
            jax.vmap(jax.grad(lambda v: jnp.sum(jax.lax.all_gather(v, "b") ** 2)),
                     axis_name="b")(X), rtol=1e-12)


def test_each_collective_is_a_primitive_with_its_rules() -> None:
    from minigrad import collectives as c

    for prim in (c.psum_p, c.pmean_p, c.pmax_p, c.pmin_p, c.all_gather_p, c.axis_index_p):
        assert prim in mg.transforms.vmap.collective_rules
        assert all(getattr(prim, r) is not None for r in ("impl", "abstract_eval", "jvp",
                                                          "batch")), prim.name
    for linear in (c.psum_p, c.pmean_p, c.all_gather_p):
        assert linear.transpose is not None
    per = named(mg.grad(lambda v: mnp.sum(v * pmean(v, "b"))))(X)
    np.testing.assert_allclose(per, np.tile(2 * X.mean(0), (4, 1)))  # pmean's transpose
    text = str(mg.make_jaxpr(named(lambda v: pmean(v, "b")))(X))
    assert "reduce_sum" in text  # computed by the named vmap: a sum over the batch axis

"""Composition: every construct under every pair of transforms in either order, against the
same function written with Python control flow (unrolled, with a concrete predicate); and the
nestings the issue lists: jit inside and outside bodies, cond inside scan and scan inside cond,
custom_jvp / custom_vjp functions, collectives and in-place variants inside bodies."""

from __future__ import annotations

import itertools
from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg
from minigrad import lax
from minigrad import numpy as mnp

W = np.array([[0.5, -0.3, 0.1], [0.2, 0.4, -0.6], [-0.1, 0.3, 0.2]])
XS = np.array([[0.1, 0.2, -0.3], [0.4, -0.5, 0.6], [-0.7, 0.8, 0.9]])


def cell(h: Any, x: Any) -> Any:
    return mnp.tanh(h @ W + x)


# Each construct as (the control-flow version, the Python version) of a function R^3 -> R^3.
CONSTRUCTS: dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any]]] = {
    "cond": (lambda x: lax.cond(True, lambda x: mnp.sin(x) * x, mnp.cos, x),
             lambda x: mnp.sin(x) * x),
    "cond-false": (lambda x: lax.cond(mnp.sum(XS) > 100, lambda x: mnp.sin(x) * x, mnp.cos, x),
                   lambda x: mnp.cos(x)),
    "switch": (lambda x: lax.switch(2, [mnp.sin, mnp.cos, lambda x: cell(x, x)], x),
               lambda x: cell(x, x)),
    "scan": (lambda x: lax.scan(lambda h, xt: (cell(h, xt), h * xt), x, XS)[1][-1],
             lambda x: cell(cell(x, XS[0]), XS[1]) * XS[2]),
    "fori_loop": (lambda x: lax.fori_loop(0, 3, lambda i, h: cell(h, mnp.take(XS, i, axis=0)),
                                          x),
                  lambda x: cell(cell(cell(x, XS[0]), XS[1]), XS[2])),
    "map": (lambda x: mnp.sum(lax.map(lambda xt: cell(x, xt), XS), axis=0),
            lambda x: cell(x, XS[0]) + cell(x, XS[1]) + cell(x, XS[2])),
    "checkpoint": (lambda x: mg.checkpoint(lambda x: cell(cell(x, x), x))(x),
                   lambda x: cell(cell(x, x), x)),
    "while": (lambda x: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, cell(c[1], x)),
                                       (0, x))[1],
              lambda x: cell(cell(cell(x, x), x), x)),
}

T = np.array([0.3, -1.0, 0.5])
REVERSE = {"grad", "jacrev", "vjp"}


def transform(name: str, f: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``name`` applied to ``f`` (R^3 -> R^k), as a function of x in R^3 again."""
    if name == "jit":
        return mg.jit(f)
    if name == "vmap":  # a batch of two rows made from x; their results summed
        return lambda x: mnp.sum(mg.vmap(f)(mnp.stack([x, x * 0.5 + 0.1])), axis=0)
    if name == "grad":
        return mg.grad(lambda x: mnp.sum(mnp.sin(f(x))))
    if name == "jvp":
        return lambda x: mg.jvp(f, (x,), (T,))[1]
    if name == "vjp":
        return lambda x: mg.vjp(f, x)[1](mnp.cos(f(x)))[0]
    if name == "linearize":
        return lambda x: mg.linearize(f, x)[1](T)
    assert name == "jacrev"
    return lambda x: mnp.sum(mg.jacrev(f)(x), axis=0)


NAMES = ["jit", "vmap", "grad", "jvp", "vjp", "linearize", "jacrev"]
STACKS = [(a,) for a in NAMES] + list(itertools.permutations(NAMES, 2)) + [
    ("grad", "grad"), ("jvp", "jvp"), ("vmap", "vmap"), ("jit", "jit")]


@pytest.mark.parametrize("stack", STACKS, ids=lambda s: "-".join(s))
@pytest.mark.parametrize("construct", sorted(CONSTRUCTS))
def test_every_construct_under_every_pair(construct: str, stack: tuple[str, ...]) -> None:
    f, ref = CONSTRUCTS[construct]
    for name in stack:  # innermost first
        f, ref = transform(name, f), transform(name, ref)
    x = np.array([0.2, -0.4, 0.6])
    if construct == "while" and REVERSE & set(stack):
        with pytest.raises(ValueError, match="Reverse-mode differentiation does not work"):
            f(x)
        return
    np.testing.assert_allclose(f(x), ref(x), rtol=1e-11, atol=1e-12)


# --------------------------------------------------------------------------- nestings


def test_jit_inside_a_body_and_outside() -> None:
    g = mg.jit(lambda h, x: cell(h, x))

    def f(x):
        return lax.scan(lambda h, xt: (g(h, xt), mnp.sum(h)), x, XS)

    x = np.array([0.2, -0.4, 0.6])
    expected = cell(cell(cell(x, XS[0]), XS[1]), XS[2])
    np.testing.assert_allclose(f(x)[0], expected, rtol=1e-14)
    np.testing.assert_allclose(mg.jit(f)(x)[0], expected, rtol=1e-14)
    gr = mg.grad(lambda x: mnp.sum(f(x)[1]))
    np.testing.assert_allclose(mg.jit(gr)(x), gr(x), rtol=1e-13)


def test_cond_inside_scan_and_scan_inside_cond() -> None:
    def inner(h, xt):
        return lax.cond(mnp.sum(xt) > 0, lambda h: cell(h, xt), lambda h: h * 0.5, h), h

    def cond_in_scan(x):
        return mnp.sum(lax.scan(inner, x, XS)[0])

    def scan_in_cond(p, x):
        return lax.cond(p, lambda x: cond_in_scan(x), lambda x: mnp.sum(x), x)

    def python(x):
        h = x
        for xt in XS:
            h = cell(h, xt) if xt.sum() > 0 else h * 0.5
        return mnp.sum(h)

    x = np.array([0.2, -0.4, 0.6])
    for fn in (cond_in_scan, lambda x: scan_in_cond(True, x)):
        np.testing.assert_allclose(fn(x), python(x), rtol=1e-14)
        np.testing.assert_allclose(mg.grad(fn)(x), mg.grad(python)(x), rtol=1e-12)
        np.testing.assert_allclose(mg.hessian(fn)(x), mg.hessian(python)(x), rtol=1e-10,
                                   atol=1e-12)
        np.testing.assert_allclose(mg.jit(mg.grad(fn))(x), mg.grad(python)(x), rtol=1e-12)
    ps = np.array([True, False])
    batched = mg.vmap(mg.grad(scan_in_cond, argnums=1))(ps, np.stack([x, x]))
    np.testing.assert_allclose(batched[0], mg.grad(python)(x), rtol=1e-12)
    np.testing.assert_allclose(batched[1], np.ones(3))


def test_custom_rules_inside_bodies() -> None:
    @mg.custom_jvp
    def softplus(x):
        return mnp.log(mnp.exp(x) + 1.0)

    @softplus.defjvp
    def _(primals, tangents):
        (x,), (t,) = primals, tangents
        return softplus(x), t * 2.0  # a deliberately different derivative: it must be used

    @mg.custom_vjp
    def clip_grad(x):
        return x

    clip_grad.defvjp(lambda x: (x, None), lambda _, ct: (mnp.tanh(ct),))

    def f(x):
        return lax.scan(lambda h, xt: (clip_grad(softplus(h * xt)), h), x, XS)[0]

    x = np.array([0.2, -0.4, 0.6])
    g = mg.grad(lambda x: mnp.sum(f(x) * 3.0))(x)
    ct = 3.0 * np.ones(3)  # backwards: clip_grad's tanh, softplus's custom 2, the step's x_t
    for xt in XS[::-1]:
        ct = np.tanh(ct) * 2.0 * xt
    np.testing.assert_allclose(g, ct, rtol=1e-12)
    np.testing.assert_allclose(mg.jit(mg.grad(lambda x: mnp.sum(f(x) * 3.0)))(x), ct,
                               rtol=1e-12)
    with pytest.raises(TypeError, match=r"forward-mode autodiff .* custom_vjp"):  # as JAX
        mg.jvp(f, (x,), (np.ones(3),))

    def g(x):
        return lax.scan(lambda h, xt: (softplus(h * xt), h), x, XS)[0]

    _, t = mg.jvp(g, (x,), (np.ones(3),))
    expected_t = np.ones(3)
    for xt in XS:
        expected_t = expected_t * 2.0 * xt
    np.testing.assert_allclose(t, expected_t, rtol=1e-12)


def test_collectives_inside_bodies() -> None:
    from minigrad.collectives import psum

    def f(x):  # each example's scan normalizes by the batch's sum at every step
        return lax.scan(lambda h, xt: (h / psum(h, "batch") + xt, h), x, XS[:, 0])[0]

    xs = np.array([1.0, 2.0, 3.0])
    out = mg.vmap(f, axis_name="batch")(xs)
    h = xs.copy()
    for xt in XS[:, 0]:
        h = h / h.sum() + xt
    np.testing.assert_allclose(out, h, rtol=1e-14)
    g = mg.vmap(mg.grad(f), axis_name="batch")(xs)
    assert g.shape == (3,) and np.isfinite(g).all()


def test_in_place_variants_inside_bodies() -> None:
    index = np.array([0, 2])

    def body(h, xt):
        h = h * 1.0  # a fresh value: the update writes into it
        mg.index_add_(h, 0, index, xt[:2] * h[:2])
        return h, mnp.sum(h)

    def f(x):
        return lax.scan(body, x, XS)[1]

    def python(x):
        h, ys = x, []
        for xt in XS:
            h = mg.index_add(h, 0, index, xt[:2] * h[:2])
            ys.append(mnp.sum(h))
        return mnp.stack(ys)

    x = np.array([0.2, -0.4, 0.6])
    np.testing.assert_allclose(f(x), python(x), rtol=1e-14)
    np.testing.assert_allclose(mg.jit(f)(x), python(x), rtol=1e-14)
    np.testing.assert_allclose(mg.jacrev(f)(x), mg.jacfwd(python)(x), rtol=1e-12)
    np.testing.assert_allclose(mg.vmap(f)(np.stack([x, -x])),
                               np.stack([python(x), python(-x)]), rtol=1e-14)
    np.testing.assert_array_equal(x, [0.2, -0.4, 0.6])

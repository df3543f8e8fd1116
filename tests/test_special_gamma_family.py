"""minigrad.scipy.special's gamma family and entropy terms (gammasgn, gamma, loggamma, betaln,
beta, factorial, comb, rel_entr, kl_div): values against Python's math module (so CI without
SciPy checks them), edges as JAX's, gradients against finite differences, and values and
gradients against jax.scipy.special and scipy.special when installed."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import minigrad as mg
from minigrad.scipy import special as S

XS = np.array([-3.5, -2.5, -1.5, -0.5, 0.25, 0.5, 1.0, 2.5, 7.0, 30.5])


def test_gamma_family_against_math() -> None:
    np.testing.assert_allclose(S.gamma(XS), [math.gamma(x) for x in XS], rtol=1e-13)
    np.testing.assert_array_equal(S.gammasgn(XS), [math.copysign(1, math.gamma(x)) for x in XS])
    positive = XS[XS > 0]
    np.testing.assert_allclose(S.loggamma(positive), [math.lgamma(x) for x in positive],
                               rtol=1e-14)
    for a, b in [(0.5, 2.0), (3.0, 4.5), (-0.5, 2.0), (10.0, 0.25)]:
        want = math.gamma(a) * math.gamma(b) / math.gamma(a + b)
        np.testing.assert_allclose(S.beta(a, b), want, rtol=1e-13)
        np.testing.assert_allclose(S.betaln(a, b), math.log(abs(want)), rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(S.factorial(np.arange(10.0)),
                               [math.factorial(n) for n in range(10)], rtol=1e-13)
    for n, k in [(5, 2), (10, 0), (10, 10), (30, 12)]:
        np.testing.assert_allclose(S.comb(float(n), float(k)), math.comb(n, k), rtol=1e-12)
        np.testing.assert_allclose(S.comb(float(n), float(k), repetition=True),
                                   math.comb(n + k - 1, k) if k else 1, rtol=1e-12)


def test_edges_as_jax() -> None:
    poles = np.array([-3.0, -1.0, np.nan])
    assert np.isnan(np.asarray(S.gammasgn(poles))).all()
    assert np.isnan(np.asarray(S.gamma(poles))).all()
    signs = np.asarray(S.gammasgn(np.array([0.0, -0.0])))
    np.testing.assert_array_equal(signs, [1.0, -1.0])
    np.testing.assert_array_equal(S.gamma(np.array([0.0, -0.0])), [np.inf, -np.inf])
    assert np.isnan(np.asarray(S.loggamma(np.array([0.0, -0.5, -2.0])))).all()
    np.testing.assert_array_equal(S.factorial(np.array([-1.0, -0.5])), [0.0, 0.0])
    np.testing.assert_array_equal(S.comb(5.0, np.array([-1.0, 6.0])), [0.0, 0.0])
    np.testing.assert_array_equal(S.comb(-1.0, 0.0, repetition=True), 0.0)
    p = np.array([0.0, 0.0, 0.5, 0.5, -1.0, 0.0])
    q = np.array([0.0, 1.0, 0.25, 0.0, 1.0, -1.0])
    np.testing.assert_allclose(S.rel_entr(p, q), [0, 0, 0.5 * math.log(2), np.inf, np.inf,
                                                  np.inf])
    np.testing.assert_allclose(S.kl_div(p, q), np.asarray(S.rel_entr(p, q)) - p + q)
    with pytest.raises(NotImplementedError, match="exact"):
        S.factorial(3.0, exact=True)
    with pytest.raises(TypeError, match="must be real"):
        S.gamma(np.array([1j]))
    assert S.gamma(np.float32(2.5)).dtype == np.float32 and S.gamma(3).dtype == np.float64


def fd(f: Any, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    return (np.asarray(f(x + h)) - np.asarray(f(x - h))) / (2 * h)


def test_gradients() -> None:
    xs = XS[np.abs(XS) < 20]
    # (beta's b: a + b off the poles)
    for f in (S.gamma, S.factorial, lambda x: S.beta(x, 1.25), lambda x: S.betaln(2.0, x + 4),
              lambda x: S.comb(9.0, x + 4)):
        np.testing.assert_allclose(mg.vmap(mg.grad(f))(xs), fd(f, xs), rtol=1e-6, atol=1e-8)
    p, q = np.array([0.2, 0.7, 1.5]), np.array([0.5, 0.1, 2.0])
    gp, gq = mg.grad(lambda p, q: S.kl_div(p, q).sum(), argnums=(0, 1))(p, q)
    np.testing.assert_allclose(gp, np.log(p / q), rtol=1e-14)
    np.testing.assert_allclose(gq, 1 - p / q, rtol=1e-14)
    # off the positive entries the value is a constant: no derivative (JAX's)
    g0 = mg.grad(lambda p: S.rel_entr(p, np.array([1.0, 0.0])).sum())(np.array([0.0, 0.5]))
    np.testing.assert_array_equal(g0, [0.0, 0.0])


def test_betaln_is_accurate() -> None:
    # 30-digit values (mpmath's log of its beta), recorded: the sum of lgammas is within 2 ulp
    cases = {(30.5, 2.5): -8.31980540147271, (7.0, 2.5): -4.825399338314249,
             (0.25, 2.5): 1.0974907282560595}
    for (a, b), want in cases.items():
        np.testing.assert_allclose(S.betaln(a, b), want, rtol=4.5e-16)


def test_polygamma() -> None:
    euler, apery = 0.5772156649015329, 1.2020569031595942
    np.testing.assert_allclose(S.polygamma(np.array([0, 1, 1, 2]), np.array([1.0, 1.0, 0.5, 1.0])),
                               [-euler, math.pi ** 2 / 6, math.pi ** 2 / 2, -2 * apery],
                               rtol=1e-14)
    out = np.asarray(S.polygamma(np.array([-1, 1, 2]), np.array([2.0, 0.0, -1.0])))
    assert np.isnan(out[0]) and out[1] == np.inf and np.isnan(out[2])  # (poles as JAX's)
    g = mg.vmap(mg.grad(lambda v: S.polygamma(1, v)))(XS)
    np.testing.assert_allclose(g, S.polygamma(2, XS), rtol=1e-13)
    np.testing.assert_allclose(mg.jit(lambda v: S.polygamma(np.array([1, 2]), v))(XS[:2]),
                               S.polygamma(np.array([1, 2]), XS[:2]), rtol=0)
    with pytest.raises(ValueError, match="integer type"):
        S.polygamma(1.0, 2.0)
    with pytest.raises(TypeError, match="n must be concrete"):
        mg.jit(S.polygamma)(np.array(1), 2.0)
    assert S.polygamma(1, np.float32(2.5)).dtype == np.float32


NAMES = ["beta", "betaln", "comb", "factorial", "gamma", "gammasgn", "kl_div", "loggamma",
         "polygamma", "rel_entr"]
ARGS = {"beta": (XS, 1.25), "betaln": (np.abs(XS), 2.5), "comb": (12.0, np.arange(-1.0, 14)),
        "kl_div": (np.abs(XS), XS + 4), "rel_entr": (np.abs(XS), XS + 4),
        "polygamma": (np.arange(10) % 4, XS)}


@pytest.mark.parametrize("name", NAMES)
def test_against_jax(name: str, jax_x64: Any) -> None:
    jss = jax_x64.scipy.special
    args = ARGS.get(name, (XS,))
    ours, theirs = getattr(S, name)(*args), getattr(jss, name)(*args)
    # (JAX's betaln is off by up to ~2e-9 relative at (30.5, 2.5), where minigrad's sum of
    # lgammas is within an ulp of a 30-digit value: test_betaln_is_accurate)
    tol = 1e-8 if name in ("beta", "betaln") else 1e-12
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=tol, atol=1e-300)
    if name == "polygamma":  # (its derivative in x, n being an integer)
        n = args[0]
        g_ours = mg.grad(lambda x: mg.numpy.sum(S.polygamma(n, x)))(XS)
        g_theirs = jax_x64.grad(lambda x: jss.polygamma(n, x).sum())(XS)
        np.testing.assert_allclose(np.asarray(g_ours), np.asarray(g_theirs), rtol=1e-11)
        return
    if name in ("gammasgn",):
        return
    g_ours = mg.grad(lambda x: mg.numpy.sum(getattr(S, name)(x, *args[1:])))(args[0])
    g_theirs = jax_x64.grad(lambda x: getattr(jss, name)(x, *args[1:]).sum())(args[0])
    g_ours, g_theirs = np.asarray(g_ours), np.asarray(g_theirs)
    if name == "beta":  # JAX's derivative is NaN at a < -1 (its betaln's), minigrad's finite
        # (test_gradients holds it to finite differences there)
        assert np.isfinite(g_ours).all() and np.isnan(g_theirs[args[0] < -1]).all()
        g_ours, g_theirs = g_ours[args[0] > -1], g_theirs[args[0] > -1]
    np.testing.assert_allclose(g_ours, g_theirs, rtol=10 * tol, atol=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_against_scipy(name: str) -> None:
    sc = pytest.importorskip("scipy.special", reason="compares with SciPy's values")
    args = ARGS.get(name, (XS,))
    ours = np.asarray(getattr(S, name)(*args))
    if name == "loggamma":  # (SciPy's real loggamma of x <= 0 is NaN too)
        theirs = sc.loggamma(XS)
    elif name == "comb":
        theirs = sc.comb(*args)
    else:
        theirs = getattr(sc, name)(*args)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-300)

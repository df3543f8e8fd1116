"""The regularized incomplete beta (``ops/betainc.py``; ``lax.betainc``,
``scipy.special.betainc``) and the beta distribution's cdf family (``scipy.stats.beta``).

Values against golden values recorded from JAX 0.10.2 and SciPy into
tests/data/betainc_jax.json (``tests/make_betainc_golden.py``), so CI checks them without
either installed; against SciPy live on random draws when it is installed. The rules (JVP in
``x`` against finite differences, vmap against a loop, jit) are the op record's
(testing/records_betainc.py, run by test_primitives) and the surface records' (run by
test_numpy_surface); here: the derivative in ``a`` or ``b`` raises, and symbolic zeros pass.

Tolerances, in units of float64's eps: SciPy's values (Boost's algorithm) are met to a few
eps; JAX's own values are about 50 eps (absolute) and 210 eps (relative, in the far tails)
from SciPy's on the same grid, so the comparison with JAX is that loose.
"""

from __future__ import annotations

import importlib.util
import json
import pathlib
from typing import Any

import numpy as np
import pytest

import minigrad as mg
import minigrad.lax as lax
from minigrad.scipy.special import betainc
from minigrad.scipy.stats import beta

HAS_SCIPY = importlib.util.find_spec("scipy") is not None
HAS_JAX = importlib.util.find_spec("jax") is not None
EPS = float(np.finfo(np.float64).eps)
EPS32 = float(np.finfo(np.float32).eps)
GOLDEN = json.loads((pathlib.Path(__file__).parent / "data" / "betainc_jax.json").read_text())
G = {k: np.asarray(v, np.float64) for k, v in GOLDEN["betainc"].items()}
D = {k: np.asarray(v, np.float64) for k, v in GOLDEN["beta"].items()}
DIST_ARGS = tuple(D[k] for k in ("x", "a", "b", "loc", "scale"))

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # log(0) in logcdf, ...


def assert_close(got: object, want: np.ndarray, abs_eps: float, rel_eps: float,
                 eps: float = EPS) -> None:
    """Equal NaNs and infinities; the finite values within ``abs_eps`` eps absolute and
    ``rel_eps`` eps relative (both must hold)."""
    got = np.asarray(got, np.float64)
    assert got.shape == want.shape
    finite = np.isfinite(want)
    np.testing.assert_array_equal(got[~finite], want[~finite])
    err = np.abs(got[finite] - want[finite])
    assert err.max(initial=0) <= abs_eps * eps, f"absolute {err.max() / eps:.1f} eps"
    rel = err / np.maximum(np.abs(want[finite]), np.finfo(np.float64).tiny)
    assert rel.max(initial=0) <= rel_eps * eps, f"relative {rel.max() / eps:.1f} eps"


# --------------------------------------------------------------------------- values


@pytest.mark.parametrize("fn", [betainc, lax.betainc], ids=["scipy.special", "lax"])
def test_float64_against_scipy_golden(fn: object) -> None:
    # the grid (shapes 0.1 ... 20, x from 0.001 to 0.999) and the edges (NaN patterns exact)
    assert_close(fn(G["a"], G["b"], G["x"]), G["scipy_float64"], 8, 32)  # type: ignore


def test_float64_against_jax_golden() -> None:
    assert_close(betainc(G["a"], G["b"], G["x"]), G["float64"], 64, 256)


def test_float32_against_jax_golden() -> None:
    # minigrad computes in float64 and rounds once; JAX's float32 kernel runs in float32
    a, b, x = (G[k].astype(np.float32) for k in "abx")
    got = betainc(a, b, x)
    assert got.dtype == np.float32
    assert_close(got, G["float32"], 64, 320, EPS32)


def test_edges_are_jax() -> None:
    nan, inf = np.nan, np.inf
    a = np.array([0.0, 0.0, 0.0, inf, inf, 2.0, 2.0, -1.0, 2.0, 2.0, 2.0, 2.0, inf, 0.5])
    b = np.array([1.0, 1.0, 0.0, 1.0, 1.0, inf, 0.0, 1.0, 2.0, 2.0, 2.0, nan, inf, 0.5])
    x = np.array([0.0, 0.5, 0.5, 1.0, 0.5, 0.3, 1.0, 0.5, -0.1, 1.1, 0.0, 0.5, 0.5, 1.0])
    want = [0.0, 1.0, nan, 1.0, 0.0, 1.0, 1.0, nan, nan, nan, 0.0, nan, nan, 1.0]
    np.testing.assert_array_equal(np.asarray(betainc(a, b, x)), want)


@pytest.mark.skipif(not HAS_SCIPY, reason="SciPy is not installed: it is the reference here")
@pytest.mark.parametrize(("lo", "hi", "abs_eps", "rel_eps"),
                         [(0.01, 1.0, 16, 64), (0.1, 20.0, 24, 128), (1.0, 100.0, 48, 1024)])
def test_against_scipy_draws(lo: float, hi: float, abs_eps: float, rel_eps: float) -> None:
    # shapes log-uniform in [lo, hi]; the relative error grows with |log I| in the far tails
    # (any exp(L) carries |L| eps): values below 1e-250 are compared absolutely only
    import scipy.special

    rng = np.random.default_rng(0)
    a, b = np.exp(rng.uniform(np.log(lo), np.log(hi), (2, 4000)))
    x = rng.uniform(0, 1, 4000)
    want = scipy.special.betainc(a, b, x)
    got = np.asarray(betainc(a, b, x))
    assert np.abs(got - want).max() <= abs_eps * EPS
    big = want > 1e-250
    assert (np.abs(got - want)[big] / want[big]).max() <= rel_eps * EPS


def test_symmetry_and_closed_forms() -> None:
    rng = np.random.default_rng(1)
    a, b = rng.uniform(0.2, 9.0, (2, 200))
    x = rng.uniform(0, 1, 200)
    np.testing.assert_allclose(betainc(a, b, x), 1 - np.asarray(betainc(b, a, 1 - x)),
                               rtol=0, atol=16 * EPS)
    # I_x(a, 1) = x^a, I_x(1, b) = 1 - (1 - x)^b
    np.testing.assert_allclose(betainc(a, np.ones(200), x), x ** a, rtol=32 * EPS, atol=0)
    np.testing.assert_allclose(betainc(np.ones(200), b, x), -np.expm1(b * np.log1p(-x)),
                               rtol=32 * EPS, atol=0)


def test_dtypes_and_shapes() -> None:
    f16 = betainc(np.float16(2.0), np.float16(3.0), np.float16(0.4))
    assert f16.dtype == np.float16 and abs(float(f16) - 0.5248) < 1e-3
    assert betainc(2, 3, 0.4).dtype == np.float64  # integers promote to the default float
    assert betainc(np.ones((2, 1)), np.ones(3), 0.5).shape == (2, 3)  # NumPy broadcasting
    assert betainc(np.zeros((0, 3)), 1.0, 0.5).shape == (0, 3)
    assert lax.betainc(np.float32(2), np.float32(3), np.float32(0.4)).dtype == np.float32
    assert lax.betainc(np.float16(2), np.float16(3), np.float16(0.4)).dtype == np.float16


def test_bad_inputs() -> None:
    with pytest.raises(TypeError, match="betainc: a must be real"):
        betainc(1j, 2.0, 0.5)
    with pytest.raises(TypeError, match="betainc: operands must have one dtype"):
        lax.betainc(np.float32(1), 2.0, 0.5)
    with pytest.raises(TypeError, match="betainc: a must have a dtype of kind floating"):
        lax.betainc(np.int32(1), np.int32(2), np.int32(0))
    with pytest.raises(TypeError, match="incompatible shapes"):
        lax.betainc(np.ones(2), np.ones(3), np.ones(3))


# --------------------------------------------------------------------------- derivatives


def test_grad_x_against_jax_golden() -> None:
    got = mg.vmap(mg.grad(betainc, argnums=2))(G["a"], G["b"], G["x"])
    # the same formula as JAX's (exp of logs and lgammas): their rounding differs
    assert_close(got, G["grad_x"], np.inf, 256)


@pytest.mark.parametrize("argnum,name", [(0, "a"), (1, "b")])
def test_derivative_in_a_or_b_raises(argnum: int, name: str) -> None:
    args = (2.0, 3.0, 0.4)
    match = f"betainc: the derivative with respect to {name} is not implemented"
    with pytest.raises(NotImplementedError, match=match):
        mg.grad(betainc, argnums=argnum)(*args)
    with pytest.raises(NotImplementedError, match=match):
        mg.jvp(lambda v: betainc(*args[:argnum], v, *args[argnum + 1:]), (args[argnum],),
               (1.0,))
    with pytest.raises(NotImplementedError, match=match):
        mg.jit(mg.grad(lambda v: lax.betainc(*args[:argnum], v, *args[argnum + 1:])))(
            args[argnum])
    with pytest.raises(NotImplementedError, match=match):
        mg.grad(beta.cdf, argnums=argnum + 1)(0.3, 2.0, 3.0)


def test_symbolic_zeros_pass() -> None:
    # a and b traced (batched, jitted) but not differentiated: their tangents are symbolic
    # zeros, and the derivative in x goes through
    a, b = np.array([0.5, 2.0, 7.0]), np.array([1.5, 3.0, 0.7])
    x = np.array([0.2, 0.5, 0.9])

    def density(a: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
        return np.exp((a - 1) * np.log(x) + (b - 1) * np.log1p(-x)) * gamma_ratio(a, b)

    def gamma_ratio(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        from math import lgamma
        return np.exp([lgamma(u + v) - lgamma(u) - lgamma(v) for u, v in zip(a, b, strict=True)])

    g = mg.jit(mg.vmap(mg.grad(betainc, argnums=2)))(a, b, x)
    np.testing.assert_allclose(g, density(a, b, x), rtol=1e-13)
    # stop_gradient on a: grad in (a, x) gives 0 for a
    ga, gx = mg.grad(lambda a, x: betainc(mg.lax.stop_gradient(a), 3.0, x), (0, 1))(2.0, 0.4)
    assert float(ga) == 0.0
    np.testing.assert_allclose(gx, density(np.array([2.0]), np.array([3.0]),
                                           np.array([0.4]))[0], rtol=1e-13)
    # second derivative in x: the density's derivative, by finite differences
    h = 1e-5
    d2 = mg.grad(mg.grad(betainc, argnums=2), argnums=2)(2.5, 3.5, 0.3)
    fd = (float(mg.grad(betainc, argnums=2)(2.5, 3.5, 0.3 + h))
          - float(mg.grad(betainc, argnums=2)(2.5, 3.5, 0.3 - h))) / (2 * h)
    np.testing.assert_allclose(d2, fd, rtol=1e-7)


# --------------------------------------------------------------------------- the distribution


@pytest.mark.parametrize("fn", ["cdf", "logcdf", "sf", "logsf"])
def test_distribution_against_jax_golden(fn: str) -> None:
    f = getattr(beta, fn)
    assert_close(f(*DIST_ARGS), D[fn], 128, 256)
    # the gradient in x: JAX's clamp makes it 0 at and beyond the ends and at NaN
    assert_close(mg.vmap(mg.grad(f))(*DIST_ARGS), D[f"{fn}_grad_x"], 1024, 256)


@pytest.mark.skipif(not HAS_SCIPY, reason="SciPy is not installed: it is the reference here")
@pytest.mark.parametrize("fn", ["cdf", "logcdf", "sf", "logsf"])
def test_distribution_against_scipy(fn: str) -> None:
    import scipy.stats

    rng = np.random.default_rng(2)
    x = rng.uniform(-0.3, 1.6, 300)
    a, b = rng.uniform(0.3, 8.0, (2, 300))
    loc, scale = rng.normal(0, 0.1, 300), rng.uniform(0.5, 1.5, 300)
    want = getattr(scipy.stats.beta, fn)(x, a, b, loc, scale)
    got = np.asarray(getattr(beta, fn)(x, a, b, loc, scale))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=1e-12, atol=1e-14)


@pytest.fixture
def jax_x64() -> Any:
    if not HAS_JAX:
        pytest.skip("JAX is not installed (pip install jax): the golden values' check needs it")
    import jax

    before = jax.config.read("jax_enable_x64")
    yield jax
    jax.config.update("jax_enable_x64", before)  # (make_betainc_golden turns it on)


def test_golden_values_are_current(jax_x64: Any) -> None:
    # the recorded file is what tests/make_betainc_golden.py records with the JAX installed
    jax = jax_x64
    if jax.__version__ != GOLDEN["jax_version"]:
        pytest.skip(f"golden values from JAX {GOLDEN['jax_version']}; {jax.__version__} here")
    import make_betainc_golden

    fresh = make_betainc_golden.record()
    for key in ("float64", "float32", "grad_x"):
        np.testing.assert_array_equal(fresh["betainc"][key], G[key])
    for fn in ("cdf", "logcdf", "sf", "logsf"):
        np.testing.assert_array_equal(fresh["beta"][fn], D[fn])

"""The special functions' impls (minigrad/ops/special_functions.py): their tables are the
mpmath fits of tests/special_coefficients.py, their values agree with SciPy (and mpmath) across
the range, and the poles and infinities are JAX's. The rules are checked by the op records."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from special_coefficients import tables

from minigrad.ops import special_functions as sf

HAS_MPMATH = importlib.util.find_spec("mpmath") is not None
HAS_SCIPY = importlib.util.find_spec("scipy") is not None


@pytest.mark.skipif(not HAS_MPMATH, reason="mpmath is not installed: it computes the tables")
def test_tables_are_the_mpmath_fits() -> None:
    for name, coefs in tables().items():
        stored = getattr(sf, f"_{name}")
        np.testing.assert_allclose(stored, coefs, rtol=1e-15, atol=1e-30, err_msg=name)


def _draws() -> np.ndarray:
    rng = np.random.default_rng(0)
    return np.concatenate([rng.uniform(-8, 8, 4000), rng.uniform(-30, 30, 2000),
                           0.3 * rng.standard_normal(2000), 10.0 ** rng.uniform(-8, 8, 2000)])


@pytest.mark.skipif(not HAS_SCIPY, reason="scipy is not installed: it is the reference here")
@pytest.mark.parametrize("name, ref, rtol", [("erf", "erf", 1e-15), ("erfc", "erfc", 2e-15),
                                             ("lgamma", "gammaln", 3e-15),
                                             ("digamma", "digamma", 1e-12)])
def test_against_scipy(name: str, ref: str, rtol: float) -> None:
    import scipy.special

    x = _draws()
    x = x[(x > 0) | (x != np.round(x))]  # (the poles are checked below)
    if name == "erfc":
        x = x[x < 26]  # beyond, erfc is subnormal: few bits to compare
    got = np.asarray(getattr(sf, name)(x))
    expected = getattr(scipy.special, ref)(x)
    # relative to max(|value|, 1): lgamma and digamma have zeros, where the absolute error of
    # a sum of terms is what can be promised
    np.testing.assert_array_less(np.abs(got - expected), rtol * np.maximum(np.abs(expected), 1))


@pytest.mark.skipif(not HAS_SCIPY, reason="scipy is not installed: it is the reference here")
@pytest.mark.parametrize("n", [1, 2, 3, 6])
def test_polygamma_against_scipy(n: int) -> None:
    import scipy.special

    x = _draws()
    x = x[(x > 0) | (x != np.round(x))]
    x = x[np.abs(x) < 1e4]
    got = np.asarray(sf.polygamma(n, x))
    expected = scipy.special.polygamma(n, x)
    np.testing.assert_array_less(np.abs(got - expected), 1e-12 * np.maximum(np.abs(expected), 1))


def test_float32_is_rounded_from_float64() -> None:
    x = np.linspace(-5, 5, 101).astype(np.float32)
    for fn in (sf.erf, sf.erfc, sf.lgamma, sf.digamma):
        out = fn(x)
        assert out.dtype == np.float32
        np.testing.assert_array_equal(out, np.asarray(fn(x.astype(np.float64))).astype(
            np.float32))


def test_poles_and_infinities_follow_jax() -> None:
    inf, nan = np.inf, np.nan
    x = np.array([0.0, -0.0, -1.0, -7.0, inf, -inf, nan])
    np.testing.assert_array_equal(sf.lgamma(x), [inf, inf, inf, inf, inf, inf, nan])
    np.testing.assert_array_equal(sf.digamma(x), [nan, nan, nan, nan, inf, nan, nan])
    np.testing.assert_array_equal(sf.polygamma(1, x), [inf, inf, inf, inf, 0.0, nan, nan])
    np.testing.assert_array_equal(sf.polygamma(2, x), [nan, nan, nan, nan, 0.0, nan, nan])
    np.testing.assert_array_equal(sf.erf(np.array([inf, -inf, nan, 0.0, -0.0])),
                                  [1.0, -1.0, nan, 0.0, -0.0])
    np.testing.assert_array_equal(sf.erfc(np.array([inf, -inf, nan, 30.0])), [0.0, 2.0, nan, 0.0])
    assert np.signbit(sf.erf(np.array([-0.0])))[0]


def test_exact_values() -> None:
    # lgamma has its zeros at 1 and 2 exactly, and the integers give log((n - 1)!)
    np.testing.assert_array_equal(sf.lgamma(np.array([1.0, 2.0])), [0.0, 0.0])
    n = np.arange(3, 30, dtype=np.float64)
    expected = [np.log(float(np.prod(np.arange(1, k, dtype=np.float64)))) for k in n]
    np.testing.assert_allclose(sf.lgamma(n), expected, rtol=4e-16)
    np.testing.assert_allclose(sf.digamma(np.array([1.0, 0.5])),
                               [-0.5772156649015329, -1.9635100260214235], rtol=1e-15)


def test_polygamma_checks_its_order() -> None:
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="polygamma: n must be an integer >= 1"):
            sf.polygamma(bad, np.ones(2))

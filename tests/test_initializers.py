"""minigrad.nn.initializers against jax.nn.initializers: recorded golden values (no JAX needed,
``tests/data/initializers_golden_*.npz``, made by ``make_initializers_golden.py``) and a live
comparison when JAX is installed, both with 64-bit defaults on (minigrad's default) and off
(JAX's). Every initializer is bit for bit, except the two that go through a QR factorization
in float32: NumPy's QR computes a float32 matrix in float64 and rounds, JAX's calls LAPACK's
float32 ``sgeqrf``. There the two agree to ``ORTHO_EPS`` float32 epsilons of the scale (measured:
at most 1.5; 40 ulps of the smallest entries). In float64 both call ``dgeqrf``: bit for bit."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pytest
from initializer_cases import CASES, ORTHOGONAL, run

import minigrad as mg
import minigrad.random as mr
from minigrad.nn import initializers as init

DATA = Path(__file__).parent / "data"
WORLDS = ("x64", "x32")
GOLDEN = {w: dict(np.load(DATA / f"initializers_golden_{w}.npz")) for w in WORLDS}
ORTHO_EPS = 2  # measured: at most 1.5 float32 epsilons (times the scale) on the cases


@pytest.fixture
def world(request: Any) -> Iterator[str]:
    with mg.enable_x64(request.param == "x64"):
        yield request.param


def check(actual: np.ndarray, expected: np.ndarray, case: tuple) -> None:
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    # (float64 too: the last bit of LAPACK's QR differs between NumPy builds, NumPy 2.5's from
    # 2.4's, with which float64 was bit for bit JAX's)
    if case[1] in ORTHOGONAL:
        scale = case[2].get("scale", 1.0)
        np.testing.assert_allclose(actual, expected, rtol=0,
                                   atol=ORTHO_EPS * np.finfo(actual.dtype).eps * scale)
        np.testing.assert_array_equal(actual == 0, expected == 0)  # the same zeros exactly
    else:
        np.testing.assert_array_equal(actual, expected)


def test_golden_files_are_jax_0_10_2() -> None:
    for w in WORLDS:
        assert str(GOLDEN[w]["jax_version"]) == "0.10.2"
        assert set(GOLDEN[w]) == {c[0] for c in CASES} | {"jax_version"}


def test_cases_cover_every_initializer() -> None:
    assert {c[1] for c in CASES} == set(init.__all__) - {"Initializer"}


@pytest.mark.parametrize("world", WORLDS, indirect=True)
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_golden(world: str, case: tuple) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # float64 asked for with x64 off: truncated, as JAX
        actual = run(init, mr, case)
    check(actual, GOLDEN[world][case[0]], case)


@pytest.mark.parametrize("world", WORLDS, indirect=True)
def test_live_against_jax(world: str) -> None:
    jax = pytest.importorskip("jax", reason="compares with jax.nn.initializers")
    import jax.random as jr

    with jax.enable_x64(world == "x64"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for case in CASES:
            check(run(init, mr, case), run(jax.nn.initializers, jr, case), case)


def test_orthogonal_is_orthogonal() -> None:
    q = np.asarray(init.orthogonal(scale=2.0)(mr.PRNGKey(0), (3, 5)))
    np.testing.assert_allclose(q @ q.T, 4 * np.eye(3), atol=1e-12)
    k = np.asarray(init.orthogonal(column_axis=0)(mr.PRNGKey(1), (4, 2, 3)))
    m = np.moveaxis(k, 0, -1).reshape(6, 4)
    np.testing.assert_allclose(m.T @ m, np.eye(4), atol=1e-12)
    d = np.asarray(init.delta_orthogonal()(mr.PRNGKey(2), (3, 3, 2, 4)))
    assert np.count_nonzero(d[[0, 2]]) == 0 and np.count_nonzero(d[:, [0, 2]]) == 0
    np.testing.assert_allclose(d[1, 1] @ d[1, 1].T, np.eye(2), atol=1e-12)


def test_variance_scaling_variance() -> None:
    # the defining property, on many samples: variance scale / fan for each distribution
    for distribution in ("truncated_normal", "normal", "uniform"):
        w = np.asarray(init.variance_scaling(2.0, "fan_in", distribution)(
            mr.PRNGKey(3), (400, 300)))
        assert abs(w.var() - 2.0 / 400) < 0.03 * 2.0 / 400, distribution


def test_initializers_work_under_jit_and_vmap() -> None:
    f = init.glorot_uniform()
    key = mr.PRNGKey(4)
    np.testing.assert_array_equal(mg.jit(lambda k: f(k, (3, 4)))(key), f(key, (3, 4)))
    keys = mr.split(key, 3)
    batched = mg.vmap(lambda k: f(k, (2, 2)))(keys)
    np.testing.assert_array_equal(batched[1], f(keys[1], (2, 2)))


@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda: init.variance_scaling(1.0, "fan_max", "normal"), ValueError, "mode must be"),
    (lambda: init.variance_scaling(1.0, "fan_in", "cauchy"), ValueError, "distribution"),
    (lambda: init.glorot_normal()(mr.PRNGKey(0), (5,)), ValueError, "in_axis=-2"),
    (lambda: init.glorot_normal(in_axis=3)(mr.PRNGKey(0), (2, 5)), ValueError, "in_axis 3"),
    (lambda: init.orthogonal()(mr.PRNGKey(0), (5,)), ValueError, "at least 2"),
    (lambda: init.delta_orthogonal()(mr.PRNGKey(0), (3, 3)), ValueError, "3, 4 or 5"),
    (lambda: init.delta_orthogonal()(mr.PRNGKey(0), (3, 4, 2)), ValueError, "shape\\[-2\\]"),
    (lambda: init.normal()(mr.PRNGKey(0), (2,), np.int32), TypeError, "real floating"),
    (lambda: init.normal()(mr.PRNGKey(0), (2,), np.complex64), TypeError, "complex"),
    (lambda: init.normal()(mr.PRNGKey(0), (2.5,)), TypeError, "shape"),
    (lambda: init.zeros(None, (2,), out_sharding="x"), NotImplementedError, "out_sharding"),
])
def test_bad_input(call: Any, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        call()

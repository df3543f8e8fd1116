"""``minigrad.scipy.linalg.qr(..., pivoting=True)`` (``ops/linalg_pivot.py``): the factors'
properties, the pivots against SciPy's (LAPACK's geqp3) and against JAX's golden values in
``tests/data/qr_pivot_jax.json`` (``make_qr_pivot_golden.py``), derivatives against finite
differences and JAX's, vmap against a loop, jit against eager. The op record of the pivot
primitive is in ``minigrad/testing/records_qr_pivot.py`` (tests/test_primitives.py)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

import minigrad as mg
import minigrad.numpy as mnp
from minigrad.ops.linalg_pivot import qr_pivots
from minigrad.scipy import linalg as sl
from minigrad.testing import check_jvp, check_vjp, check_vmap

HAS_SCIPY = importlib.util.find_spec("scipy") is not None
GOLDEN = json.loads((Path(__file__).parent / "data" / "qr_pivot_jax.json").read_text())
MODES = ("full", "economic", "r")


def _qr(a: Any, mode: str) -> tuple[Any, Any, Any]:
    """``(q, r, p)`` in every mode (``q`` None for 'r')."""
    out = sl.qr(a, mode=mode, pivoting=True)
    return (None, *out) if mode == "r" else out


def _factors(mode: str) -> Any:
    """The differentiable results (no pivots) of ``mode``."""
    return lambda x: sl.qr(x, mode=mode, pivoting=True)[:-1]


def _close(actual: Any, expected: Any, scale: float, dtype: Any = np.float64) -> None:
    np.testing.assert_allclose(np.asarray(actual), np.asarray(expected), rtol=0,
                               atol=64 * np.finfo(dtype).eps * scale)


# --------------------------------------------------------------------------- properties


def _check_factorization(a: np.ndarray, mode: str) -> None:
    q, r, p = _qr(a, mode)
    *batch, m, n = a.shape
    k = min(m, n)
    rows = m if mode != "economic" else k
    eps = np.finfo(a.dtype).eps
    scale = max(1.0, float(np.abs(a).max(initial=0)))
    p = np.asarray(p)
    r = np.asarray(r)
    assert p.dtype == np.int32 and p.shape == (*batch, n)
    assert r.shape == (*batch, rows, n) and r.dtype == a.dtype
    np.testing.assert_array_equal(np.sort(p, axis=-1), np.broadcast_to(np.arange(n), p.shape))
    np.testing.assert_array_equal(np.tril(r, -1), 0)  # upper triangular
    diag = np.abs(np.diagonal(r, axis1=-2, axis2=-1))
    assert np.all(diag[..., 1:] <= diag[..., :-1] + 16 * eps * scale)  # non-increasing
    permuted = np.take_along_axis(a, p[..., None, :], axis=-1)
    if q is None:  # 'r': R^T R = a_p^T a_p
        gram = np.swapaxes(permuted, -1, -2) @ permuted
        np.testing.assert_allclose(np.swapaxes(r, -1, -2) @ r, gram, rtol=0,
                                   atol=64 * eps * scale * scale * m)
        return
    q = np.asarray(q)
    assert q.shape == (*batch, m, rows)
    np.testing.assert_allclose(np.swapaxes(q, -1, -2) @ q,
                               np.broadcast_to(np.eye(rows), (*batch, rows, rows)), rtol=0,
                               atol=64 * eps * m)
    np.testing.assert_allclose(q @ r, permuted, rtol=0, atol=64 * eps * scale * m)


@settings(max_examples=60, deadline=None)
@given(batch=hst.lists(hst.integers(1, 3), max_size=2), m=hst.integers(1, 6),
       n=hst.integers(1, 6), mode=hst.sampled_from(MODES),
       dtype=hst.sampled_from([np.float32, np.float64]), seed=hst.integers(0, 2**31),
       spread=hst.sampled_from([0.0, 3.0]))
def test_factorization_properties(batch: list, m: int, n: int, mode: str, dtype: Any,
                                  seed: int, spread: float) -> None:
    # spread: columns scaled over 10^-spread .. 10^spread
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((*batch, m, n)) * np.logspace(-spread, spread, n)
    _check_factorization(a.astype(dtype), mode)


@pytest.mark.parametrize("mode", MODES)
def test_rank_deficient_and_zero_matrices(mode: str) -> None:
    rng = np.random.default_rng(3)
    low = rng.standard_normal((6, 2)) @ rng.standard_normal((2, 5))
    _check_factorization(low, mode)
    r = np.asarray(_qr(low, mode)[1])
    assert np.abs(r[2:, 2:]).max() < 1e-13 * np.abs(low).max()  # the rank shows
    _check_factorization(np.zeros((3, 4)), mode)
    # all norms tie: the first column each time, as LAPACK
    np.testing.assert_array_equal(np.asarray(_qr(np.zeros((3, 4)), mode)[2]), np.arange(4))
    np.testing.assert_array_equal(np.asarray(_qr(np.eye(4), mode)[2]), np.arange(4))


def test_extreme_scales_give_the_same_pivots() -> None:
    # squared norms of 1e300 entries overflow and of 1e-300 ones underflow: the impl scales
    # by a power of two first, which changes no rounding, so the pivots are a's own
    a = np.random.default_rng(8).standard_normal((3, 6, 5))
    expected = np.asarray(qr_pivots(a))
    for power in (-1000, -900, 900, 1000):
        np.testing.assert_array_equal(np.asarray(qr_pivots(np.ldexp(a, power))), expected)


def test_non_finite_entries_give_a_permutation_quietly() -> None:
    a = np.ones((2, 3, 3))
    a[0, 1, 1], a[1, 2, 0] = np.inf, np.nan
    with np.errstate(all="raise"):
        p = np.asarray(qr_pivots(a))
    np.testing.assert_array_equal(np.sort(p, axis=-1), [[0, 1, 2], [0, 1, 2]])


def test_empty_matrices_match_jax_shapes() -> None:
    # JAX's pivots of an empty matrix are zeros (its lowering skips geqp3)
    q, r, p = sl.qr(np.zeros((0, 3)), pivoting=True)
    assert np.shape(q) == (0, 0) and np.shape(r) == (0, 3)
    np.testing.assert_array_equal(np.asarray(p), np.zeros(3, np.int32))
    q, r, p = sl.qr(np.zeros((2, 3, 0)), mode="economic", pivoting=True)
    assert np.shape(q) == (2, 3, 0) and np.shape(r) == (2, 0, 0) and np.shape(p) == (2, 0)


def test_integer_input_is_promoted() -> None:
    q, _, p = sl.qr(np.array([[1, 2], [3, 4]]), pivoting=True)
    assert np.asarray(q).dtype == np.float64
    np.testing.assert_array_equal(np.asarray(p), [1, 0])


# --------------------------------------------------------------------------- pivots vs LAPACK


@pytest.mark.skipif(not HAS_SCIPY, reason="scipy is not installed: LAPACK's geqp3 pivots "
                    "are compared through scipy.linalg.qr (the JAX golden values still run)")
@pytest.mark.parametrize("kind", ["normal", "scaled-columns", "tall", "wide"])
def test_pivots_match_scipy(kind: str) -> None:
    import scipy.linalg

    rng = np.random.default_rng(11)
    for _ in range(60):
        m, n = (int(v) for v in rng.integers(1, 10, 2))
        if kind == "tall":
            m, n = m + 10, n
        if kind == "wide":
            m, n = m, n + 10
        a = rng.standard_normal((m, n))
        if kind == "scaled-columns":
            a *= np.logspace(-8, 8, n)[rng.permutation(n)]
        expected = scipy.linalg.qr(a, pivoting=True)
        ours = sl.qr(a, pivoting=True)
        np.testing.assert_array_equal(np.asarray(ours[2]), expected[2])
        for o, e in zip(ours[:2], expected[:2], strict=True):
            _close(o, e, float(np.abs(a).max()) * max(m, n))


@pytest.mark.skipif(not HAS_SCIPY, reason="scipy is not installed: the pivots of a stack are "
                    "compared with scipy.linalg.qr's, one matrix at a time")
def test_stack_pivots_match_scipy_one_matrix_at_a_time() -> None:
    import scipy.linalg

    a = np.random.default_rng(5).standard_normal((3, 4, 7, 5))
    expected = [[scipy.linalg.qr(a[i, j], pivoting=True)[2] for j in range(4)]
                for i in range(3)]
    np.testing.assert_array_equal(np.asarray(qr_pivots(a)), np.asarray(expected))


@pytest.mark.skipif(not HAS_SCIPY, reason="scipy is not installed: LAPACK's geqp3 pivots "
                    "are compared through scipy.linalg.qr (the JAX golden values still run)")
def test_pivots_after_cancellation_match_scipy() -> None:
    # a column nearly parallel to a chosen one: its downdated norm cancels to noise, and
    # LAPACK recomputes it (without the recomputation, about 60% of these differ)
    import scipy.linalg

    rng = np.random.default_rng(0)
    for _ in range(100):
        c0 = rng.standard_normal(6)
        d = 10.0 ** rng.uniform(-12, -6)
        cols = [c0, c0 + d * rng.standard_normal(6), d * rng.uniform(0.5, 2) *
                rng.standard_normal(6), -0.5 * c0 + d * rng.standard_normal(6),
                rng.standard_normal(6)]
        a = np.stack(cols, axis=1)[:, rng.permutation(5)]
        np.testing.assert_array_equal(np.asarray(qr_pivots(a)),
                                      scipy.linalg.qr(a, pivoting=True)[2])


# --------------------------------------------------------------------------- JAX's golden values


CASES = GOLDEN["cases"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_values_match_jax_golden(case: dict, mode: str) -> None:
    a = np.asarray(case["a"], case["dtype"])
    rank = case["rank"]
    q, r, p = _qr(a, mode)
    expected = case[mode]
    e_q = None if mode == "r" else np.asarray(expected[0])
    e_r, e_p = np.asarray(expected[-2]), np.asarray(expected[-1])
    # past the rank, the choice between noise columns is rounding's: not compared
    np.testing.assert_array_equal(np.asarray(p)[..., :rank], e_p[..., :rank])
    scale = float(np.abs(a).max()) * max(a.shape[-2:])
    cols = a.shape[-1] if rank == min(a.shape[-2:]) else rank
    _close(np.asarray(r)[..., :rank, :cols], e_r[..., :rank, :cols], scale, a.dtype)
    if e_q is not None:
        _close(np.asarray(q)[..., :rank], e_q[..., :rank], max(a.shape[-2:]), a.dtype)


JVP_CASES = [c for c in CASES if "tangent" in c]


@pytest.mark.parametrize("mode", ("full", "economic"))
@pytest.mark.parametrize("case", JVP_CASES, ids=[c["id"] for c in JVP_CASES])
def test_jvp_matches_jax_golden(case: dict, mode: str) -> None:
    a, t = np.asarray(case["a"]), np.asarray(case["tangent"])
    _, (dq, dr) = mg.jvp(_factors(mode), (a,), (t,))
    e_dq, e_dr = (np.asarray(x) for x in case[f"jvp_{mode}"])
    scale = max(1.0, float(np.abs(e_dr).max()), float(np.abs(e_dq).max())) * 16
    _close(dq, e_dq, scale)
    _close(dr, e_dr, scale)


# --------------------------------------------------------------------------- transformations


SHAPES = [(5, 3), (4, 4), (3, 5), (2, 4, 3)]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_derivatives_match_finite_differences(shape: tuple, mode: str) -> None:
    a = np.random.default_rng(sum(shape)).standard_normal(shape)
    check_jvp(_factors(mode), (a,), atol=1e-6, rtol=1e-6)
    check_vjp(_factors(mode), (a,), atol=1e-6, rtol=1e-6)


def test_second_derivative_matches_finite_differences() -> None:
    a = np.random.default_rng(1).standard_normal((4, 3))

    def loss(x: Any) -> Any:
        q, r, _ = sl.qr(x, mode="economic", pivoting=True)
        return mnp.sum(r ** 3) + mnp.sum(q[:, 0])

    check_jvp(mg.grad(loss), (a,), atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("in_axis", [0, 1, 2])
def test_vmap_matches_a_loop(mode: str, in_axis: int) -> None:
    a = np.moveaxis(np.random.default_rng(in_axis).standard_normal((4, 5, 3)), 0, in_axis)
    check_vmap(lambda x: sl.qr(x, mode=mode, pivoting=True), (a,), in_axis, atol=1e-13,
               rtol=1e-13)
    check_vmap(lambda x: sl.qr(x.T, mode=mode, pivoting=True), (a,), in_axis, atol=1e-13,
               rtol=1e-13)


def test_vmap_of_grad_matches_a_loop() -> None:
    a = np.random.default_rng(2).standard_normal((3, 2, 4, 3))

    def loss(x: Any) -> Any:
        return mnp.sum(sl.qr(x, pivoting=True)[1] ** 2 * mnp.arange(3.0))

    check_vmap(mg.grad(loss), (a,), 0, atol=1e-12, rtol=1e-12)


@pytest.mark.parametrize("mode", MODES)
def test_jit_matches_eager(mode: str) -> None:
    a = np.random.default_rng(4).standard_normal((2, 5, 4))
    f = lambda x: sl.qr(x, mode=mode, pivoting=True)  # noqa: E731
    for j, e in zip(mg.jit(f)(a), f(a), strict=True):
        np.testing.assert_array_equal(np.asarray(j), np.asarray(e))
    t = np.ones_like(a)
    jv = mg.jit(lambda x, t: mg.jvp(_factors(mode), (x,), (t,))[1])(a, t)
    ev = mg.jvp(_factors(mode), (a,), (t,))[1]
    for j, e in zip(jv, ev, strict=True):
        np.testing.assert_allclose(np.asarray(j), np.asarray(e), rtol=1e-13, atol=1e-13)


def test_the_pivots_have_no_derivative() -> None:
    a = np.random.default_rng(0).standard_normal((4, 3))
    _, (_, _, dp) = mg.jvp(lambda x: sl.qr(x, pivoting=True), (a,), (np.ones_like(a),))
    assert np.asarray(dp).dtype == mg.float0


# --------------------------------------------------------------------------- JAX itself


@pytest.fixture
def jax(jax_x64: Any) -> Any:
    return jax_x64


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_matches_jax(shape: tuple, mode: str, jax: Any) -> None:
    import jax.scipy.linalg as jsl

    rng = np.random.default_rng(17)
    a, t = rng.standard_normal(shape), rng.standard_normal(shape)
    ours, theirs = sl.qr(a, mode=mode, pivoting=True), jsl.qr(a, mode=mode, pivoting=True)
    np.testing.assert_array_equal(np.asarray(ours[-1]), np.asarray(theirs[-1]))
    for o, e in zip(ours[:-1], theirs[:-1], strict=True):
        _close(o, e, 16.0)
    m, n = shape[-2:]
    # JAX's JVP rule indexes a stack's tangent with a stack of permutations (it raises):
    # one matrix at a time through vmap
    flat_a, flat_t = a.reshape(-1, m, n), t.reshape(-1, m, n)
    theirs_dot = jax.vmap(lambda x, v: jax.jvp(
        lambda y: jsl.qr(y, mode=mode, pivoting=True)[:-1], (x,), (v,))[1])(flat_a, flat_t)
    _, ours_dot = mg.jvp(_factors(mode), (a,), (t,))
    theirs_dot = [np.asarray(d).reshape(*shape[:-2], *d.shape[1:]) for d in theirs_dot]
    if m < n:
        # JAX's wide rule takes R2's derivative from the unpermuted columns of x (dR2 = dQ^T
        # X2 + Q^T dX2 with X2 = x[:, m:], not x[:, p][:, m:]): only the square part is
        # compared (the rest is checked against finite differences above;
        # docs/divergences.md)
        theirs_dot[-1] = theirs_dot[-1][..., :m]
        ours_dot = [*ours_dot[:-1], np.asarray(ours_dot[-1])[..., :m]]
    for o, e in zip(ours_dot, theirs_dot, strict=True):
        _close(o, e, 64.0)


def test_grad_matches_jax(jax: Any) -> None:
    import jax.numpy as jnp
    import jax.scipy.linalg as jsl

    a = np.random.default_rng(23).standard_normal((6, 4))
    w = np.random.default_rng(24).standard_normal((6, 4))
    g = mg.grad(lambda x: mnp.sum(sl.qr(x, mode="economic", pivoting=True)[0] * w))(a)
    h = jax.grad(lambda x: jnp.sum(jsl.qr(x, mode="economic", pivoting=True)[0] * w))(a)
    _close(g, h, 64.0)

"""index_copy: forward semantics, derivatives (last occurrence wins, only the winner gets
gradient), batching for every combination of batched operands, and every error."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from op_checks import (
    check_jaxpr_size_independent_of_batch,
    check_vmap_against_loop,
    grad_of_sum_of_squares,
    numerical_jacobian,
    shape_dim_and_index,
)

import minigrad as mg
from minigrad.ops.index_copy import index_copy, last_occurrence
from minigrad.testing import all_in_axes, check_grads, check_jvp, check_vjp


def reference(x: np.ndarray, dim: int, index: np.ndarray, source: np.ndarray) -> np.ndarray:
    """A loop: later writes overwrite earlier ones, so the last occurrence wins."""
    out = np.array(x, copy=True).reshape(x.shape or (1,))
    dim = dim % out.ndim
    k = len(np.atleast_1d(index))
    src = np.asarray(source).reshape((*out.shape[:dim], k, *out.shape[dim + 1:]))
    for i, j in enumerate(np.atleast_1d(index)):
        np.moveaxis(out, dim, 0)[j] = np.moveaxis(src, dim, 0)[i]
    return out.reshape(x.shape)


RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4))
IDX = np.array([2, 0, 2, 3, 2])  # duplicates: the last 2 (position 4) wins
SRC = RNG.standard_normal((3, 5))
W = RNG.standard_normal((3, 4))


# --------------------------------------------------------------------------- forward


@st.composite
def cases(draw):
    shape, dim, index = draw(shape_dim_and_index())
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    full = shape or (1,)
    d = dim % len(full)
    source = rng.standard_normal((*full[:d], len(index), *full[d + 1:]))
    return x, dim, index, source


@given(cases())
def test_forward_matches_loop(case):
    x, dim, index, source = case
    x0, s0 = x.copy(), source.copy()
    out = index_copy(x, dim, index, source)
    np.testing.assert_array_equal(out, reference(x, dim, index, source))
    assert out.dtype == x.dtype and out.shape == x.shape
    np.testing.assert_array_equal(x, x0)  # inputs never mutated
    np.testing.assert_array_equal(source, s0)


def test_duplicates_last_wins():
    out = index_copy(np.zeros(5), 0, np.array([1, 1, 1]), np.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(out, [0, 3, 0, 0, 0])
    out = index_copy(np.zeros((2, 4)), 1, [3, 0, 3], np.array([[1.0, 2, 3], [4, 5, 6]]))
    np.testing.assert_array_equal(out, [[2, 0, 0, 3], [5, 0, 0, 6]])


def test_duplicates_many_deterministic():
    # Thousands of repeated writes: the winner is always the last occurrence.
    rng = np.random.default_rng(1)
    index = rng.integers(0, 7, 5000)
    source = np.arange(5000.0)
    out = index_copy(np.full(7, -1.0), 0, index, source)
    for j in range(7):
        np.testing.assert_array_equal(out[j], np.flatnonzero(index == j).max())


def test_last_occurrence_helper():
    np.testing.assert_array_equal(last_occurrence(np.array([1, 3, 1])), [False, True, True])
    np.testing.assert_array_equal(last_occurrence(np.array([[0, 0], [1, 2]])),
                                  [[False, True], [True, True]])
    assert last_occurrence(np.zeros((2, 0), np.int64)).shape == (2, 0)


def test_zero_d_x_and_zero_d_source():
    out = index_copy(np.float64(1.0), 0, np.array([0]), np.array(5.0))
    assert out.shape == () and out == 5.0
    out = index_copy(np.array(1.0), -1, 0, np.array([7.0]))
    assert out.shape == () and out == 7.0
    # a 0-d source into a 1-D x with a one-entry index (PyTorch allows it)
    np.testing.assert_array_equal(index_copy(np.zeros(5), 0, [2], np.array(5.0)),
                                  [0, 0, 5, 0, 0])
    g = mg.grad(lambda x, s: (index_copy(x, 0, [0], s) * 3.0).sum(), (0, 1))(
        np.array(1.0), np.array(2.0))
    assert g[0] == 0.0 and g[1] == 3.0 and g[0].shape == () and g[1].shape == ()


def test_empty_index_is_a_copy():
    x = RNG.standard_normal((2, 3))
    out = index_copy(x, 1, np.zeros(0, np.int64), np.zeros((2, 0)))
    np.testing.assert_array_equal(out, x)
    assert out is not x
    out = index_copy(x, 0, [], np.zeros((0, 3)))
    np.testing.assert_array_equal(out, x)
    gx, gs = mg.grad(lambda x, s: index_copy(x, 1, [], s).sum(), (0, 1))(x, np.zeros((2, 0)))
    np.testing.assert_array_equal(gx, np.ones((2, 3)))
    assert gs.shape == (2, 0)


def test_negative_dim():
    np.testing.assert_array_equal(index_copy(X, -1, IDX, SRC), reference(X, 1, IDX, SRC))
    src0 = RNG.standard_normal((2, 4))
    np.testing.assert_array_equal(index_copy(X, -2, [2, 0], src0),
                                  reference(X, 0, np.array([2, 0]), src0))


def test_integer_and_bool_x_forward():
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    src = -np.ones((3, 2), np.int32)
    out = index_copy(x, 1, [1, 1], src)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, reference(x, 1, np.array([1, 1]), src))
    b = index_copy(np.zeros(3, bool), 0, np.array([2], np.int8), np.array([True]))
    np.testing.assert_array_equal(b, [False, False, True])


def test_any_integer_index_dtype():
    for dt in (np.int8, np.uint16, np.int32, np.int64):
        np.testing.assert_array_equal(index_copy(X, 1, IDX.astype(dt), SRC),
                                      reference(X, 1, IDX, SRC))


# --------------------------------------------------------------------------- derivatives


def test_only_the_winner_gets_gradient():
    # idx [1, 1, 3]: only source[1] is written at position 1, so source[0] gets nothing.
    g = mg.grad(lambda s: (index_copy(np.zeros(5), 0, [1, 1, 3], s)
                           * np.array([10.0, 11, 12, 13, 14])).sum())(np.ones(3))
    np.testing.assert_array_equal(g, [0.0, 11.0, 13.0])


def test_jacfwd_equals_jacrev_equals_fd():
    f_src = lambda s: index_copy(X, 1, IDX, s)  # noqa: E731
    f_x = lambda x: index_copy(x, 1, IDX, SRC)  # noqa: E731
    for f, arg in ((f_src, SRC), (f_x, X)):
        fwd = mg.jacfwd(f)(arg).reshape(X.size, arg.size)
        rev = mg.jacrev(f)(arg).reshape(X.size, arg.size)
        np.testing.assert_array_equal(fwd, rev)
        np.testing.assert_allclose(fwd, numerical_jacobian(f, arg), atol=1e-8)
    # the loser slice (position 0 and 2 of index, both writing column 2) has a zero Jacobian
    jac = mg.jacrev(f_src)(SRC)
    assert np.all(jac[:, :, :, [0, 2]] == 0)


def test_grad_against_finite_differences():
    f = lambda x, s: (np.sin(index_copy(x, 1, IDX, s)) * W).sum()  # noqa: E731
    gx, gs = mg.grad(f, (0, 1))(X, SRC)
    np.testing.assert_allclose(gx, numerical_jacobian(lambda x: f(x, SRC), X)[0].reshape(
        X.shape), atol=1e-7)
    np.testing.assert_allclose(gs, numerical_jacobian(lambda s: f(X, s), SRC)[0].reshape(
        SRC.shape), atol=1e-7)


def test_check_grads_second_order():
    f = lambda x, s: np.sin(index_copy(x, 1, IDX, s)) * x  # noqa: E731
    check_grads(f, (X, SRC), order=2)
    check_jvp(lambda x, s: index_copy(x, 0, [2, 2], s), (X, RNG.standard_normal((2, 4))))
    check_vjp(lambda x, s: index_copy(x, 0, [2, 2], s), (X, RNG.standard_normal((2, 4))))


def test_transpose_dot_product():
    f = lambda x, s: index_copy(x, 1, IDX, s)  # noqa: E731
    t = mg.linear_transpose(f, X, SRC)
    v_x, v_s, w = RNG.standard_normal(X.shape), RNG.standard_normal(SRC.shape), W
    ct_x, ct_s = t(w)
    lhs = np.vdot(f(v_x, v_s), w)
    rhs = np.vdot(v_x, ct_x) + np.vdot(v_s, ct_s)
    np.testing.assert_allclose(lhs, rhs, rtol=1e-12)
    _, f_vjp = mg.vjp(f, X, SRC)
    for a, b in zip(f_vjp(w), (ct_x, ct_s), strict=True):
        np.testing.assert_array_equal(a, b)


def test_hessian_vector_product():
    f = lambda x, s: (index_copy(x, 1, IDX, s) ** 3).sum() + (s**2 * x[:, :1]).sum()  # noqa
    g = mg.grad(f, 1)
    v = RNG.standard_normal(SRC.shape)
    _, hvp = mg.jvp(lambda s: g(X, s), (SRC,), (v,))
    expected = (g(X, SRC + 1e-6 * v) - g(X, SRC - 1e-6 * v)) / 2e-6
    np.testing.assert_allclose(hvp, expected, atol=1e-6)
    hess = mg.hessian(lambda s: f(X, s))(SRC).reshape(SRC.size, SRC.size)
    np.testing.assert_allclose(hess @ v.ravel(), expected.ravel(), atol=1e-6)
    np.testing.assert_allclose(mg.jacrev(mg.jacfwd(lambda s: f(X, s)))(SRC).reshape(
        hess.shape), hess, atol=1e-12)


def test_gradient_zero_at_overwritten_inf_and_nan():
    x = X.copy()
    x[:, 2] = np.inf
    x[0, 0] = np.nan  # column 0 is overwritten too
    f = lambda x, s: (np.exp(index_copy(x, 1, IDX, s)) * W).sum()  # noqa: E731
    gx, gs = mg.grad(f, (0, 1))(x, SRC)
    assert np.all(gx[:, [0, 2]] == 0.0) and np.all(np.isfinite(gx))
    assert np.all(np.isfinite(gs)) and np.all(gs[:, [0, 2]] == 0.0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dtype_preserved(dtype):
    x, s = X.astype(dtype), SRC.astype(dtype)
    assert index_copy(x, 1, IDX, s).dtype == dtype
    gx, gs = mg.grad(lambda x, s: index_copy(x, 1, IDX, s).sum(), (0, 1))(x, s)
    assert gx.dtype == dtype and gs.dtype == dtype
    out = mg.vmap(lambda x, i, s: index_copy(x, 0, i, s))(
        np.stack([x, x]), np.array([[1, 1], [0, 2]]), np.stack([x[:2], 2 * x[:2]]))
    assert out.dtype == dtype
    vg = mg.vmap(mg.grad(lambda x, s: index_copy(x, 1, IDX, s).sum(), 1))(
        np.stack([x, x]), np.stack([s, s]))
    assert vg.dtype == dtype


def test_tracer_index_checked_at_evaluation():
    closed = mg.make_jaxpr(lambda x, i: index_copy(x, 1, i, SRC[:, :2]))(X, np.array([0, 1]))
    np.testing.assert_array_equal(closed(X, np.array([3, 3])),
                                  reference(X, 1, np.array([3, 3]), SRC[:, :2]))
    with pytest.raises(IndexError, match=r"index_copy: index entries must be in \[0, 4\).*-1"):
        closed(X, np.array([0, -1]))


# --------------------------------------------------------------------------- batching

B = 3


def make_args(rng):
    """One example: x (3, 4), index (5,) (five entries in [0, 4): always a duplicate), source
    (3, 5)."""
    return rng.standard_normal((3, 4)), rng.integers(0, 4, 5), rng.standard_normal((3, 5))


def f_copy(x, i, s):
    return index_copy(x, 1, i, s)


@pytest.mark.parametrize("in_axes", all_in_axes(3, axes=(0, -1)))
def test_vmap_against_loop(in_axes):
    check_vmap_against_loop(f_copy, make_args, in_axes, size=B)


@pytest.mark.parametrize("in_axes", all_in_axes(3))
def test_vmap_of_grad_against_loop(in_axes):
    def g(x, i, s):
        return mg.grad(lambda x, s: (np.sin(index_copy(x, 1, i[:2], s[:, :2])) * W).sum()
                       + (index_copy(x, 1, i, s) ** 2).sum(), (0, 1))(x, s)

    check_vmap_against_loop(g, make_args, in_axes, size=B, atol=1e-12, rtol=1e-12)


@pytest.mark.parametrize("in_axes", all_in_axes(3))
def test_vmap_jaxpr_size_independent_of_batch(in_axes):
    f = grad_of_sum_of_squares(f_copy, (0, 2))
    check_jaxpr_size_independent_of_batch([f_copy, f], make_args, in_axes, sizes=(2, 64))


def test_vmap_of_vmap():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 3, 4))
    idx = rng.integers(0, 4, (2, 3, 5))
    src = rng.standard_normal((3, 5))
    out = mg.vmap(mg.vmap(f_copy, (0, 0, None)), (0, 0, None))(x, idx, src)
    for a in range(2):
        for b in range(3):
            np.testing.assert_array_equal(out[a, b], reference(x[a, b], 1, idx[a, b], src))
    out = mg.vmap(mg.vmap(f_copy, (None, 0, None)), (0, None, None))(x[:, 0], idx[0], src)
    for a in range(2):
        for b in range(3):
            np.testing.assert_array_equal(out[a, b], reference(x[a, 0], 1, idx[0, b], src))


def test_jvp_of_vmap():
    idx = np.array([[1, 1, 0, 3, 1], [2, 2, 2, 0, 0]])
    rng = np.random.default_rng(4)
    xs, ss = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 3, 5))
    check_jvp(lambda x, s: mg.vmap(f_copy)(x, idx, s), (xs, ss))
    check_vjp(lambda x, s: mg.vmap(f_copy)(x, idx, s), (xs, ss))


def test_vmap_batched_index_out_of_range():
    with pytest.raises(IndexError, match=r"index_copy: .*\[0, 4\).*4"):
        mg.vmap(f_copy, (None, 0, None))(X, np.array([[0, 1, 2, 3, 3], [0, 4, 0, 0, 0]]), SRC)


def test_vmap_zero_batch():
    out = mg.vmap(f_copy, (0, 0, None))(np.zeros((0, 3, 4)), np.zeros((0, 5), np.int64), SRC)
    assert out.shape == (0, 3, 4)


# --------------------------------------------------------------------------- errors


def test_errors():
    with pytest.raises(ValueError, match=r"index_copy: dim must be in \[-2, 2\).*got 2"):
        index_copy(X, 2, IDX, SRC)
    with pytest.raises(IndexError, match=r"index_copy: index entries .*\[0, 4\).*got -1"):
        index_copy(X, 1, np.array([0, -1]), SRC[:, :2])
    with pytest.raises(IndexError, match=r"index_copy: index entries .*\[0, 4\).*got 4"):
        index_copy(X, 1, np.array([4, 0]), SRC[:, :2])
    with pytest.raises(TypeError, match="index_copy: index must be an integer array"):
        index_copy(X, 1, np.array([0.0, 1.0]), SRC[:, :2])
    with pytest.raises(TypeError, match="index_copy: index must be an integer array"):
        index_copy(X, 1, np.array([True, False]), SRC[:, :2])
    with pytest.raises(ValueError, match="index_copy: index must have rank 0 or 1"):
        index_copy(X, 1, np.array([[0, 1]]), SRC[:, :2])
    with pytest.raises(ValueError, match=r"index_copy: source must have shape \(3, 2\)"):
        index_copy(X, 1, np.array([0, 1]), SRC[:, :3])
    with pytest.raises(ValueError, match=r"index_copy: source must have shape \(3, 1\)"):
        index_copy(X, 1, [0], np.array(1.0))  # 0-d source only into rank <= 1
    with pytest.raises(ValueError, match=r"index_copy: source must have shape \(2,\)"):
        index_copy(np.zeros(5), 0, [0, 1], np.array(1.0))
    with pytest.raises(TypeError, match="index_copy: source must have x's dtype float64"):
        index_copy(X, 1, np.array([0, 1]), SRC[:, :2].astype(np.float32))
    with pytest.raises(TypeError, match="index_copy: dim must be an int"):
        index_copy(X, 1.0, IDX, SRC)


def test_grad_with_respect_to_index_is_an_error():
    with pytest.raises(TypeError, match=r"grad: args\[1\] must be a floating array"):
        mg.grad(lambda x, i: index_copy(x, 1, i, SRC).sum(), 1)(X, IDX)

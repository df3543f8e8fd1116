"""index_fill: forward semantics, derivatives (value's gradient counts each filled element once,
constant values are not linear), batching for every combination of batched x, index and value,
and every error."""

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
from minigrad.ops.index_fill import index_fill
from minigrad.testing import all_in_axes, check_grads, check_jvp, check_vjp


def reference(x: np.ndarray, dim: int, index: np.ndarray, value) -> np.ndarray:
    out = np.array(x, copy=True).reshape(x.shape or (1,))
    dim = dim % out.ndim
    for j in np.atleast_1d(index):
        np.moveaxis(out, dim, 0)[j] = value
    return out.reshape(x.shape)


RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4))
IDX = np.array([2, 0, 2])  # a duplicate: column 2 is filled once
V = np.array(1.5)
W = RNG.standard_normal((3, 4))


# --------------------------------------------------------------------------- forward


@st.composite
def cases(draw):
    shape, dim, index = draw(shape_dim_and_index())
    value = draw(st.one_of(st.floats(-1e3, 1e3), st.integers(-100, 100)))
    x = np.random.default_rng(draw(st.integers(0, 2**16))).standard_normal(shape)
    return x, dim, index, value


@given(cases())
def test_forward_matches_loop(case):
    x, dim, index, value = case
    x0 = x.copy()
    out = index_fill(x, dim, index, value)
    np.testing.assert_array_equal(out, reference(x, dim, index, value))
    assert out.dtype == x.dtype and out.shape == x.shape
    np.testing.assert_array_equal(x, x0)  # never mutated
    out = index_fill(x, dim, index, np.asarray(value, np.float64))  # a 0-d array value
    np.testing.assert_array_equal(out, reference(x, dim, index, value))


def test_value_forms():
    expected = reference(X, 1, IDX, 2.0)
    for value in (2, 2.0, np.float64(2.0), np.array(2.0), np.array(2.0, np.float32),
                  np.array(2, np.int64), True * 2):
        np.testing.assert_array_equal(index_fill(X, 1, IDX, value), expected)
    x32 = X.astype(np.float32)
    out = index_fill(x32, 1, IDX, np.array(0.1))  # float64 value rounds into float32
    assert out.dtype == np.float32 and out[0, 2] == np.float32(0.1)


def test_integer_and_bool_x_forward():
    x = np.arange(12, dtype=np.int16).reshape(3, 4)
    out = index_fill(x, 0, [1, 1], -7)
    assert out.dtype == np.int16
    np.testing.assert_array_equal(out, reference(x, 0, np.array([1]), -7))
    np.testing.assert_array_equal(index_fill(x, 1, [3], 2.0), reference(x, 1, [3], 2))
    b = index_fill(np.zeros(3, bool), 0, np.array([2], np.uint8), True)
    np.testing.assert_array_equal(b, [False, False, True])


def test_zero_d_x_empty_index_negative_dim():
    out = index_fill(np.array(1.0), 0, 0, 5.0)
    assert out.shape == () and out == 5.0
    out = index_fill(np.array(1.0), -1, [0, 0], 5.0)
    assert out.shape == () and out == 5.0
    out = index_fill(X, 1, [], 9.0)
    np.testing.assert_array_equal(out, X)
    assert out is not X
    np.testing.assert_array_equal(index_fill(X, -2, [1], 0.0), reference(X, 0, [1], 0.0))
    g = mg.grad(lambda x, v: index_fill(x, 0, [0], v) * 3.0, (0, 1))(np.array(1.0), V)
    assert g[0] == 0.0 and g[1] == 3.0
    gx, gv = mg.grad(lambda x, v: (index_fill(x, 1, [], v) * W).sum(), (0, 1))(X, V)
    np.testing.assert_array_equal(gx, W)
    assert gv == 0.0


# --------------------------------------------------------------------------- derivatives


def test_value_gradient_counts_each_filled_element_once():
    # PyTorch's example: idx [0, 2, 2], g = [10 .. 14] -> value gradient 10 + 12 = 22
    g = np.array([10.0, 11, 12, 13, 14])
    gx, gv = mg.grad(lambda x, v: (index_fill(x, 0, [0, 2, 2], v) * g).sum(), (0, 1))(
        np.ones(5), np.array(3.0))
    assert gv == 22.0
    np.testing.assert_array_equal(gx, [0, 11, 0, 13, 14])
    jv = mg.jacfwd(lambda v: index_fill(np.ones(5), 0, [0, 2, 2], v))(np.array(3.0))
    np.testing.assert_array_equal(jv, [1, 0, 1, 0, 0])


def test_jacfwd_equals_jacrev_equals_fd():
    f_x = lambda x: index_fill(x, 1, IDX, V)  # noqa: E731
    f_v = lambda v: index_fill(X, 1, IDX, v)  # noqa: E731
    for f, arg in ((f_x, X), (f_v, V)):
        fwd = mg.jacfwd(f)(arg).reshape(X.size, arg.size)
        rev = mg.jacrev(f)(arg).reshape(X.size, arg.size)
        np.testing.assert_array_equal(fwd, rev)
        np.testing.assert_allclose(fwd, numerical_jacobian(f, arg), atol=1e-8)


def test_grad_against_finite_differences():
    f = lambda x, v: (np.sin(index_fill(x, 1, IDX, v) * v) * W).sum()  # noqa: E731
    gx, gv = mg.grad(f, (0, 1))(X, V)
    np.testing.assert_allclose(gx, numerical_jacobian(lambda x: f(x, V), X).reshape(X.shape),
                               atol=1e-7)
    np.testing.assert_allclose(gv, numerical_jacobian(lambda v: f(X, v), V)[0, 0], atol=1e-7)


def test_check_grads_second_order():
    check_grads(lambda x, v: np.sin(index_fill(x, 1, IDX, v)) * x, (X, V), order=2)
    check_grads(lambda x: index_fill(x, 0, [1], 2.0) ** 2, (X,), order=2)
    check_jvp(lambda v: index_fill(X, 0, [2, 2, 0], v), (V,))
    check_vjp(lambda v: index_fill(X, 0, [2, 2, 0], v), (V,))


def test_constant_value_is_affine_not_linear():
    # d/dx index_fill(x, ., ., 7.0) is the projection index_fill(., ., ., 0), not 7
    f = lambda x: index_fill(x, 1, IDX, 7.0)  # noqa: E731
    _, t = mg.jvp(f, (X,), (np.ones_like(X),))
    np.testing.assert_array_equal(t, reference(np.ones_like(X), 1, IDX, 0.0))
    _, f_jvp = mg.linearize(f, X)
    np.testing.assert_array_equal(f_jvp(np.ones_like(X)), t)
    (ct,) = mg.vjp(f, X)[1](W)
    np.testing.assert_array_equal(ct, reference(W, 1, IDX, 0.0))
    with pytest.raises(TypeError, match=r"index_fill: cannot transpose with the constant value "
                                        r"7\.0: the function is affine"):
        mg.linear_transpose(f, X)(W)
    (ct,) = mg.linear_transpose(lambda x: index_fill(x, 1, IDX, 0.0), X)(W)
    np.testing.assert_array_equal(ct, reference(W, 1, IDX, 0.0))


def test_transpose_dot_product():
    f = lambda x, v: index_fill(x, 1, IDX, v)  # noqa: E731
    t = mg.linear_transpose(f, X, V)
    v_x, v_v = RNG.standard_normal(X.shape), np.array(RNG.standard_normal())
    ct_x, ct_v = t(W)
    lhs = np.vdot(f(v_x, v_v), W)
    rhs = np.vdot(v_x, ct_x) + v_v * ct_v
    np.testing.assert_allclose(lhs, rhs, rtol=1e-12)
    assert ct_v.shape == ()
    _, f_vjp = mg.vjp(f, X, V)
    for a, b in zip(f_vjp(W), (ct_x, ct_v), strict=True):
        np.testing.assert_array_equal(a, b)


def test_hessian_vector_product():
    f = lambda x, v: (index_fill(x, 1, IDX, v) ** 3 * W).sum() * v  # noqa: E731
    g = mg.grad(f, (0, 1))
    tx, tv = RNG.standard_normal(X.shape), np.array(0.7)
    _, (hx, hv) = mg.jvp(g, (X, V), (tx, tv))
    plus, minus = g(X + 1e-6 * tx, V + 1e-6 * tv), g(X - 1e-6 * tx, V - 1e-6 * tv)
    np.testing.assert_allclose(hx, (plus[0] - minus[0]) / 2e-6, atol=1e-6)
    np.testing.assert_allclose(hv, (plus[1] - minus[1]) / 2e-6, atol=1e-6)
    hess = mg.hessian(lambda v: f(X, v))(V)
    np.testing.assert_allclose(hess, numerical_jacobian(mg.grad(lambda v: f(X, v)), V)[0, 0],
                               atol=1e-6)


def test_gradient_zero_at_filled_inf_and_nan():
    x = X.copy()
    x[:, 2] = np.inf
    x[1, 0] = np.nan
    f = lambda x, v: (np.exp(index_fill(x, 1, IDX, v)) * W).sum()  # noqa: E731
    gx, gv = mg.grad(f, (0, 1))(x, V)
    assert np.all(gx[:, [0, 2]] == 0.0) and np.all(np.isfinite(gx))
    np.testing.assert_allclose(gv, (np.exp(V) * W[:, [0, 2]]).sum())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dtype_preserved(dtype):
    x, v = X.astype(dtype), V.astype(dtype)
    assert index_fill(x, 1, IDX, v).dtype == dtype
    gx, gv = mg.grad(lambda x, v: index_fill(x, 1, IDX, v).sum(), (0, 1))(x, v)
    assert gx.dtype == dtype and gv.dtype == dtype
    out = mg.vmap(lambda x, i, v: index_fill(x, 0, i, v))(
        np.stack([x, x]), np.array([[1, 1], [0, 2]]), np.stack([v, v]))
    assert out.dtype == dtype
    vg = mg.vmap(mg.grad(lambda x, v: index_fill(x, 1, IDX, v).sum(), 1))(
        np.stack([x, x]), np.stack([v, v]))
    assert vg.dtype == dtype


def test_traced_value_of_another_float_dtype_is_converted():
    # a float32 traced value into a float64 x: 3 rows x 2 filled columns
    g = mg.grad(lambda v: index_fill(X, 1, IDX, v).sum())(np.array(1.0, np.float32))
    assert g == 6.0 and g.dtype == np.float32


def test_tracer_index_checked_at_evaluation():
    closed = mg.make_jaxpr(lambda x, i: index_fill(x, 1, i, 0.0))(X, np.array([0, 1]))
    np.testing.assert_array_equal(closed(X, np.array([3, 3])), reference(X, 1, [3], 0.0))
    with pytest.raises(IndexError, match=r"index_fill: index entries must be in \[0, 4\).*5"):
        closed(X, np.array([5, 1]))


# --------------------------------------------------------------------------- batching

B = 3


def make_args(rng):
    """One example: x (3, 4), index (5,) (five entries in [0, 4): always a duplicate), value
    0-d."""
    return rng.standard_normal((3, 4)), rng.integers(0, 4, 5), np.array(rng.standard_normal())


def make_x_and_index(rng):
    """x and index of ``make_args``: for a value that is a Python scalar, not an operand."""
    return make_args(rng)[:2]


def f_fill(x, i, v):
    return index_fill(x, 1, i, v)


@pytest.mark.parametrize("in_axes", all_in_axes(3, axes=(0, -1)))
def test_vmap_against_loop(in_axes):
    check_vmap_against_loop(f_fill, make_args, in_axes, size=B)


@pytest.mark.parametrize("in_axes", all_in_axes(2))
def test_vmap_python_scalar_value(in_axes):
    check_vmap_against_loop(lambda x, i: index_fill(x, 1, i, -2), make_x_and_index, in_axes,
                            size=B)


@pytest.mark.parametrize("in_axes", all_in_axes(3))
def test_vmap_of_grad_against_loop(in_axes):
    def g(x, i, v):
        return mg.grad(lambda x, v: (np.sin(index_fill(x, 1, i, v)) * W).sum()
                       + (index_fill(x.T, 0, i[:2], v * 2.0) ** 2).sum(), (0, 1))(x, v)

    check_vmap_against_loop(g, make_args, in_axes, size=B, atol=1e-12, rtol=1e-12)


@pytest.mark.parametrize("in_axes", all_in_axes(3))
def test_vmap_jaxpr_size_independent_of_batch(in_axes):
    f = grad_of_sum_of_squares(f_fill, (0, 2))
    check_jaxpr_size_independent_of_batch([f_fill, f], make_args, in_axes, sizes=(2, 64))


def test_vmap_only_value_batched():
    # torch 2.13 gives every row the last value here (see the spec); we must not.
    out = mg.vmap(lambda v: index_fill(np.zeros(3), 0, [0, 2], v))(np.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(out, [[1, 0, 1], [2, 0, 2], [3, 0, 3]])


def test_vmap_of_vmap():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 3, 4))
    idx = rng.integers(0, 4, (2, 3, 5))
    v = rng.standard_normal((2, 3))
    out = mg.vmap(mg.vmap(f_fill))(x, idx, v)
    for a in range(2):
        for b in range(3):
            np.testing.assert_array_equal(out[a, b], reference(x[a, b], 1, idx[a, b], v[a, b]))
    out = mg.vmap(mg.vmap(f_fill, (None, 0, None)), (0, None, 0))(x[:, 0], idx[0], v[:, 0])
    for a in range(2):
        for b in range(3):
            np.testing.assert_array_equal(out[a, b],
                                          reference(x[a, 0], 1, idx[0, b], v[a, 0]))


def test_jvp_of_vmap():
    idx = np.array([[1, 1, 0], [3, 3, 3]])
    rng = np.random.default_rng(4)
    xs, vs = rng.standard_normal((2, 3, 4)), rng.standard_normal(2)
    check_jvp(lambda x, v: mg.vmap(f_fill)(x, idx, v), (xs, vs))
    check_vjp(lambda x, v: mg.vmap(f_fill)(x, idx, v), (xs, vs))
    check_jvp(lambda x: mg.vmap(f_fill, (0, 0, None))(x, idx, V), (xs,))


def test_vmap_batched_index_out_of_range():
    with pytest.raises(IndexError, match=r"index_fill: .*\[0, 4\).*-1"):
        mg.vmap(f_fill, (None, 0, 0))(X, np.array([[0, 1], [0, -1]]), np.zeros(2))


# --------------------------------------------------------------------------- errors


def test_errors():
    with pytest.raises(ValueError, match=r"index_fill: dim must be in \[-2, 2\).*got -3"):
        index_fill(X, -3, IDX, 0.0)
    with pytest.raises(IndexError, match=r"index_fill: index entries must be in \[0, 4\) for "
                                         r"dim 1; got -1"):
        index_fill(X, 1, np.array([0, -1]), 0.0)  # PyTorch would wrap -1; we reject it
    with pytest.raises(IndexError, match=r"index_fill: index entries .*\[0, 3\).*got 3"):
        index_fill(X, 0, 3, 0.0)
    with pytest.raises(TypeError, match="index_fill: index must be an integer array"):
        index_fill(X, 1, np.array([0.0]), 0.0)
    with pytest.raises(ValueError, match="index_fill: index must have rank 0 or 1"):
        index_fill(X, 1, np.zeros((2, 2), np.int64), 0.0)
    with pytest.raises(ValueError, match=r"index_fill: value must be a .* 0-d array; got shape "
                                         r"\(1,\)"):
        index_fill(X, 1, IDX, np.array([1.0]))
    with pytest.raises(ValueError, match="index_fill: value must be a Python scalar or a 0-d"):
        index_fill(X, 1, IDX, [1.0])
    with pytest.raises(TypeError, match="index_fill: value must be real"):
        index_fill(X, 1, IDX, 1 + 2j)
    with pytest.raises(TypeError, match="index_fill: value must be real"):
        index_fill(X, 1, IDX, np.array(1j))
    with pytest.raises(TypeError, match="index_fill: value must be an integer"):
        index_fill(np.zeros(3, np.int64), 0, [1], 2.5)
    with pytest.raises(TypeError, match=r"index_fill: value must be in \[-128, 127\]"):
        index_fill(np.zeros(3, np.int8), 0, [1], 300)
    with pytest.raises(TypeError, match="index_fill: value must be a Python number"):
        index_fill(X, 1, IDX, "1")
    with pytest.raises(TypeError, match=r"index_fill: value must be within x's dtype float32 "
                                        r"range .*; got 1e\+300"):
        index_fill(X.astype(np.float32), 1, IDX, 1e300)


def test_traced_value_errors():
    with pytest.raises(ValueError, match=r"index_fill: value must be a .* 0-d array; got shape "
                                         r"\(2,\)"):
        mg.grad(lambda v: index_fill(X, 1, IDX, v).sum())(np.ones(2))
    with pytest.raises(TypeError, match="index_fill: value must have a dtype that x's dtype "
                                        "int64 can hold; got a traced value of dtype float64"):
        mg.vmap(lambda v: index_fill(X.astype(np.int64), 1, IDX, v))(np.ones(2))
    # an integer value into a float x is exact, and stays differentiable in x
    out = mg.vmap(lambda v: index_fill(X, 1, IDX, v))(np.arange(2))
    assert out.dtype == X.dtype


def test_grad_with_respect_to_index_is_an_error():
    with pytest.raises(TypeError, match=r"grad: args\[1\] must be a floating array"):
        mg.grad(lambda x, i: index_fill(x, 1, i, 0.0).sum(), 1)(X, IDX)


@pytest.mark.parametrize("dim, shape", [(1, (3, 2, 4)), (1, (2, 5, 3)), (2, (2, 3, 4, 5))])
def test_the_concrete_mask_matches_the_binds(dim, shape):
    # The batching rule builds the mask of a concrete index with NumPy (a speed path); a traced
    # index gets its mask from binds. Filling False with True shows the mask itself.
    from minigrad.ops.index_fill import _fill_batched, concrete_fill_mask
    from minigrad.ops.indexing import fold_concrete_index

    axis_size, n = shape[0], shape[dim + 1]
    idx = np.random.default_rng(0).integers(0, n, (axis_size, 2))
    x = np.zeros(shape, bool)
    fast = concrete_fill_mask(fold_concrete_index(idx, 0, n, axis_size), axis_size, n, dim,
                              shape)
    staged = mg.make_jaxpr(lambda i: _fill_batched(axis_size, x, 0, i, 0, np.asarray(True),
                                                   dim)[0])(idx)
    (bound,) = mg.eval_jaxpr(staged.jaxpr, staged.consts, idx)
    np.testing.assert_array_equal(bound, fast)
    assert fast.any() and not fast.all()

"""masked_fill: forward against a loop, every rule against its oracle, every error."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from op_checks import (
    check_jaxpr_size_independent_of_batch,
    check_vmap_against_loop,
    fd_jacobian,
    grad_of_sum_of_squares,
)

import minigrad as mg
from minigrad import testing
from minigrad.core import ShapedArray, UndefPrimal
from minigrad.ops.masked_fill import masked_fill, masked_fill_p

mnp = mg.numpy


def ref_masked_fill(x: np.ndarray, mask: np.ndarray, value: object) -> np.ndarray:
    """A loop over the broadcast shape."""
    shape = np.broadcast_shapes(np.shape(x), np.shape(mask))
    xb, mb = np.broadcast_to(x, shape), np.broadcast_to(mask, shape)
    out = np.empty(shape, np.asarray(x).dtype)
    for idx in np.ndindex(shape):
        out[idx] = value if mb[idx] else xb[idx]
    return out


RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4))
M = RNG.random((3, 4)) < 0.5
V = np.float64(1.5)


# --------------------------------------------------------------------------- forward


@given(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, min_side=0,
                                           max_side=4),
       st.integers(0, 2**32 - 1), st.floats(-10, 10))
def test_forward_matches_loop(shapes, seed, value):
    rng = np.random.default_rng(seed)
    xs, ms = shapes.input_shapes
    x = rng.standard_normal(xs)
    mask = rng.random(ms) < 0.5
    out = masked_fill(x, mask, value)
    assert out.shape == shapes.result_shape
    np.testing.assert_array_equal(out, ref_masked_fill(x, mask, value))


def test_docstring_example_and_fresh_result():
    x = np.array([1.0, 2.0, 3.0])
    out = masked_fill(x, np.array([True, False, True]), 0.5)
    np.testing.assert_array_equal(out, [0.5, 2.0, 0.5])
    assert not np.shares_memory(out, x)


def test_x_broadcasts_against_mask_and_cotangent_sums_back():
    x = np.arange(5.0)
    mask = np.tril(np.ones((5, 5), bool))
    out = masked_fill(x, mask, -1.0)
    assert out.shape == (5, 5)
    np.testing.assert_array_equal(out, np.where(mask, -1.0, np.broadcast_to(x, (5, 5))))
    w = RNG.standard_normal((5, 5))
    g = mg.grad(lambda x: mnp.sum(masked_fill(x, mask, -1.0) * w))(x)
    assert g.shape == (5,)
    np.testing.assert_allclose(g, np.sum(np.where(mask, 0.0, w), axis=0))


def test_row_mask_against_matrix():
    x = RNG.standard_normal((4, 3))
    mask = np.array([True, False, True])
    out = masked_fill(x, mask, 7.0)
    np.testing.assert_array_equal(out, np.where(mask[None], 7.0, x))
    gv = mg.grad(lambda v: mnp.sum(masked_fill(x, mask, v)))(np.float64(0.0))
    assert gv == 8.0  # two masked columns of four rows


def test_zero_d_x():
    out = masked_fill(np.float64(2.0), np.array(True), 5.0)
    assert out.shape == () and out == 5.0
    assert masked_fill(np.float64(2.0), np.array(False), 5.0) == 2.0
    out = masked_fill(np.float64(2.0), np.array([[True, False, True], [False, False, True]]), 5.0)
    assert out.shape == (2, 3)
    g = mg.grad(lambda x: mnp.sum(masked_fill(x, np.array([True, False, False]), 5.0)))(
        np.float64(2.0))
    assert g == 2.0  # the sum over the unmasked positions


def test_all_false_and_all_true_masks():
    np.testing.assert_array_equal(masked_fill(X, np.zeros_like(M), 9.0), X)
    np.testing.assert_array_equal(masked_fill(X, np.ones_like(M), 9.0), np.full_like(X, 9.0))
    gx, gv = mg.grad(lambda x, v: mnp.sum(masked_fill(x, np.zeros_like(M), v)), (0, 1))(X, V)
    np.testing.assert_array_equal(gx, np.ones_like(X))
    assert gv == 0.0


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dtype_preserved(dtype):
    x = X.astype(dtype)
    assert masked_fill(x, M, 1.5).dtype == dtype
    assert masked_fill(x, M, np.float64(1.5)).dtype == dtype  # a 0-d float64 value is cast
    g = mg.grad(lambda x, v: mnp.sum(masked_fill(x, M, v) ** 2), (0, 1))(x, np.asarray(2.0, dtype))
    assert g[0].dtype == dtype and g[1].dtype == dtype
    # a float64 tracer value into float32 x: converted, and its gradient comes back float64
    gv = mg.grad(lambda v: mnp.sum(masked_fill(x, M, v)))(np.float64(2.0))
    assert gv.dtype == np.float64 and gv == M.sum()


def test_integer_and_bool_x_forward():
    x = np.arange(12).reshape(3, 4)
    out = masked_fill(x, M, 7)
    assert out.dtype == x.dtype
    np.testing.assert_array_equal(out, ref_masked_fill(x, M, 7))
    np.testing.assert_array_equal(masked_fill(x, M, 7.0), ref_masked_fill(x, M, 7))  # exact
    b = np.zeros((3, 4), bool)
    np.testing.assert_array_equal(masked_fill(b, M, True), M)


def test_python_scalar_and_0d_array_value():
    a = masked_fill(X, M, 2.0)
    np.testing.assert_array_equal(a, masked_fill(X, M, np.array(2.0)))
    np.testing.assert_array_equal(a, masked_fill(X, M, np.float32(2.0)))
    np.testing.assert_array_equal(a, masked_fill(X, M, 2))
    np.testing.assert_array_equal(a, masked_fill(X, M, np.array(2)))


def test_inputs_never_mutated():
    x, mask, v = X.copy(), M.copy(), np.array(3.0)
    masked_fill(x, mask, v)
    mg.grad(lambda x, v: mnp.sum(masked_fill(x, mask, v) ** 2), (0, 1))(x, v)
    mg.vmap(lambda x: masked_fill(x, mask, v))(np.stack([x, x]))
    np.testing.assert_array_equal(x, X)
    np.testing.assert_array_equal(mask, M)
    assert v == 3.0


def test_gradient_exactly_zero_where_overwritten_even_for_inf_and_nan():
    x = X.copy()
    x[M] = np.where(np.arange(M.sum()) % 2, np.inf, np.nan)
    out = masked_fill(x, M, 0.5)
    assert np.all(np.isfinite(out))
    g = mg.grad(lambda x: mnp.sum(mnp.exp(masked_fill(x, M, 0.5))))(x)
    assert np.all(g[M] == 0.0)
    np.testing.assert_allclose(g[~M], np.exp(x[~M]))


# --------------------------------------------------------------------------- derivatives


def f_nonlinear(x, v):
    y = masked_fill(x, M, v)
    return mnp.sin(y) * y


def test_jvp_and_vjp_against_finite_differences():
    testing.check_jvp(f_nonlinear, [X, V])
    testing.check_vjp(f_nonlinear, [X, V])
    testing.check_grads(f_nonlinear, [X, V], order=2)


def test_jvp_uses_the_value_tangent_not_the_value():
    # with a constant value the op is affine in x: the tangent is zero where the mask is true
    _, t = mg.jvp(lambda x: masked_fill(x, M, 3.0), (X,), (np.ones_like(X),))
    np.testing.assert_array_equal(t, np.where(M, 0.0, 1.0))
    _, t = mg.jvp(lambda x, v: masked_fill(x, M, v), (X, V), (np.zeros_like(X), np.float64(2.0)))
    np.testing.assert_array_equal(t, np.where(M, 2.0, 0.0))
    _, f_jvp = mg.linearize(lambda x: masked_fill(x, M, 3.0), X)
    np.testing.assert_array_equal(f_jvp(np.zeros_like(X)), np.zeros_like(X))


@pytest.mark.parametrize("argnum", [0, 1])
def test_jacfwd_equals_jacrev_equals_finite_differences(argnum):
    f = lambda x, v: masked_fill(x, M, v) * 2.0  # noqa: E731
    jf = mg.jacfwd(f, argnum)(X, V)
    jr = mg.jacrev(f, argnum)(X, V)
    np.testing.assert_allclose(jf, jr, atol=1e-12)
    np.testing.assert_allclose(jf, fd_jacobian(f, [X, V], argnum), atol=1e-6)


def test_grad_against_finite_differences():
    f = lambda x, v: mnp.sum(f_nonlinear(x, v))  # noqa: E731
    gx, gv = mg.grad(f, (0, 1))(X, V)
    np.testing.assert_allclose(gx, fd_jacobian(f, [X, V], 0), atol=1e-6)
    np.testing.assert_allclose(gv, fd_jacobian(f, [X, V], 1), atol=1e-6)


def test_transpose_dot_product():
    # linear in (x, value) jointly: <T (x, v), w> == <x, T^t_x w> + <v, T^t_v w>
    rng = np.random.default_rng(1)
    x, v, w = rng.standard_normal((3, 4)), np.float64(rng.standard_normal()), \
        rng.standard_normal((3, 4))
    ct_x, ct_v = mg.linear_transpose(lambda x, v: masked_fill(x, M, v), X, V)(w)
    lhs = np.vdot(masked_fill(x, M, v), w)
    np.testing.assert_allclose(lhs, np.vdot(x, ct_x) + v * ct_v)
    np.testing.assert_array_equal(ct_x, np.where(M, 0.0, w))
    np.testing.assert_allclose(ct_v, w[M].sum())


def test_hessian_and_hvp():
    f = lambda x, v: mnp.sum(f_nonlinear(x, v) ** 2)  # noqa: E731
    h = mg.hessian(f)(X, V)
    g = lambda x: mg.grad(f)(x, V)  # noqa: E731
    np.testing.assert_allclose(h, fd_jacobian(g, [X], 0), atol=1e-5)
    u = RNG.standard_normal(X.shape)
    hvp = mg.grad(lambda x: mnp.sum(mg.grad(f)(x, V) * u))(X)
    np.testing.assert_allclose(hvp, np.tensordot(h, u, 2), atol=1e-10)
    hv = mg.grad(lambda v: mg.grad(f, 1)(X, v))(V)  # grad(grad) in the value
    np.testing.assert_allclose(hv, fd_jacobian(lambda v: mg.grad(f, 1)(X, v), [V], 0),
                               atol=1e-5)


def test_primitive_rules():
    def make(rng):
        return (rng.standard_normal((3, 4)), rng.random((3, 4)) < 0.5,
                np.float64(rng.standard_normal()))

    testing.check_primitive(masked_fill_p, [testing.Sample(
        "3x4", make, diff=(0, 2), linear=((0, 2),),
        reference=lambda x, m, v: ref_masked_fill(x, m, v))])


# --------------------------------------------------------------------------- vmap


def make_args(rng):
    return rng.standard_normal((3, 4)), rng.random((3, 4)) < 0.5, np.float64(rng.standard_normal())


AXES = testing.all_in_axes(3, axes=(0, -1))


@pytest.mark.parametrize("in_axes", AXES)
def test_vmap_against_loop(in_axes):
    check_vmap_against_loop(masked_fill, make_args, in_axes, size=5)


@pytest.mark.parametrize("in_axes", AXES)
def test_vmap_of_grad_against_loop(in_axes):
    f = mg.grad(lambda x, m, v: mnp.sum(mnp.sin(masked_fill(x, m, v)) * x), (0, 2))
    check_vmap_against_loop(f, make_args, in_axes, size=4, atol=1e-12, rtol=1e-12)


@pytest.mark.parametrize("in_axes", AXES)
def test_jaxpr_size_independent_of_batch(in_axes):
    f = grad_of_sum_of_squares(masked_fill, (0, 2))
    check_jaxpr_size_independent_of_batch([masked_fill, f], make_args, in_axes, sizes=(2, 64))


def test_vmap_broadcasting_shapes_and_batch_size_zero():
    x = RNG.standard_normal((6, 5))
    mask = RNG.random((6, 4, 5)) < 0.5
    testing.check_vmap(masked_fill, [x, mask, 2.0], (0, 0, None))
    testing.check_vmap(masked_fill, [x[0], mask, 2.0], (None, 1, None))
    testing.check_vmap(masked_fill, [np.zeros((0, 5)), mask[:0], np.zeros(0)], (0, 0, 0))


def test_vmap_of_vmap_and_jvp_of_vmap():
    x = RNG.standard_normal((2, 3, 4))
    mask = RNG.random((3, 2, 4)) < 0.5
    v = RNG.standard_normal(2)
    inner = mg.vmap(masked_fill, (0, 0, None))
    out = mg.vmap(inner, (0, 1, 0))(x, mask, v)
    expected = np.stack([np.stack([ref_masked_fill(x[i, j], mask[j, i], v[i]) for j in range(3)])
                         for i in range(2)])
    np.testing.assert_array_equal(out, expected)
    tx, tv = RNG.standard_normal(x.shape), RNG.standard_normal(2)
    g = lambda x, v: mg.vmap(inner, (0, 1, 0))(x, mask, v)  # noqa: E731
    _, t = mg.jvp(g, (x, v), (tx, tv))
    expected = np.where(np.moveaxis(mask, 1, 0), tv[:, None, None], tx)
    np.testing.assert_allclose(t, expected)


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize("dtype", [np.uint8, np.int64, np.float64])
def test_mask_must_be_bool(dtype):
    with pytest.raises(TypeError, match=r"masked_fill: mask must be a bool array; got dtype"):
        masked_fill(X, M.astype(dtype), 0.0)


def test_mask_must_broadcast():
    with pytest.raises(ValueError, match=r"masked_fill: mask must broadcast with x's shape"):
        masked_fill(X, np.ones((3, 5), bool), 0.0)


def test_value_must_be_0d():
    with pytest.raises(ValueError, match=r"masked_fill: value must be .*0-d"):
        masked_fill(X, M, np.ones(2))
    with pytest.raises(ValueError, match=r"masked_fill: value must be .*0-d"):
        masked_fill(X, M, [1.0, 2.0])
    with pytest.raises(ValueError, match=r"masked_fill: value must be .*0-d"):
        mg.vmap(masked_fill, (None, None, 0))(X, M, np.ones((2, 2)))


def test_value_dtype_x_cannot_hold():
    with pytest.raises(TypeError, match=r"masked_fill: value must be real"):
        masked_fill(X, M, 1 + 2j)
    with pytest.raises(TypeError, match=r"masked_fill: value must be real"):
        masked_fill(X, M, np.array(1 + 2j))
    with pytest.raises(TypeError, match=r"masked_fill: value must be an integer"):
        masked_fill(np.arange(12).reshape(3, 4), M, 2.5)
    with pytest.raises(TypeError, match=r"masked_fill: value must be in"):
        masked_fill(np.zeros(4, np.int8), np.ones(4, bool), 300)
    with pytest.raises(TypeError, match=r"masked_fill: value must have a dtype"):
        mg.vmap(masked_fill, (None, None, 0))(np.arange(12).reshape(3, 4), M, np.ones(2))
    with pytest.raises(TypeError, match=r"masked_fill: value must be a Python number"):
        masked_fill(X, M, "1")


def test_no_gradient_with_respect_to_mask():
    with pytest.raises(TypeError, match=r"grad: args\[1\] must be a floating array"):
        mg.grad(lambda x, m: mnp.sum(masked_fill(x, m, 0.0)), 1)(X, M)
    with pytest.raises(TypeError, match=r"masked_fill: mask must be a bool"):
        mg.grad(lambda x, m: mnp.sum(masked_fill(x, m, 0.0)), 1)(X, M.astype(float))
    with pytest.raises(TypeError, match=r"masked_fill: mask is not a linear operand"):
        masked_fill_p.transpose(X, UndefPrimal(ShapedArray((3, 4), np.float64)),
                                UndefPrimal(ShapedArray((3, 4), np.bool_)), np.float64(0))


def test_transpose_rejects_a_constant_nonzero_value():
    with pytest.raises(TypeError, match=r"masked_fill: not linear in x"):
        mg.linear_transpose(lambda x: masked_fill(x, M, 3.0), X)(X)
    ct, = mg.linear_transpose(lambda x: masked_fill(x, M, 0.0), X)(X)  # value 0 is linear
    np.testing.assert_array_equal(ct, np.where(M, 0.0, X))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, np.int64, np.int8,
                                   np.uint8, np.bool_, np.complex128])
@pytest.mark.parametrize("value", [0, 1, -1, -0.0])
def test_large_inputs_match_np_where_bit_for_bit(dtype, value):
    # Large inputs filled with 0 take the impl's branch-free path (a bitwise AND): it must equal
    # np.where exactly, nan, inf and -0.0 included (in x, and as the value, whose sign bit must
    # survive), for contiguous, broadcast and transposed operands.
    rng = np.random.default_rng(7)
    x = (rng.standard_normal((256, 160)) * 100)
    if np.dtype(dtype).kind == "f":
        x[0, :3] = [np.nan, np.inf, -0.0]
    x = x.astype(dtype) if dtype is not np.bool_ else x > 0
    if dtype is np.bool_:
        value = value != 0
    v = np.asarray(abs(value) if dtype is np.uint8 else value, dtype)
    mask = rng.random((256, 160)) < 0.3
    for xs, ms in [(x, mask), (x.T.copy().T, mask), (np.broadcast_to(x[:1], x.shape), mask),
                   (x, np.broadcast_to(mask[:, :1], x.shape))]:
        got = masked_fill_p.impl(xs, ms, v)
        expected = np.where(ms, v, xs)
        assert got.dtype == expected.dtype and got.shape == expected.shape
        assert got.tobytes() == np.ascontiguousarray(expected).tobytes()


@given(st.integers(0, 10**6), st.sampled_from([np.float64, np.float32, np.int32, np.int8]),
       st.floats(0, 1), st.sampled_from(["zero", "one", "-0.0", "nan"]), st.booleans())
def test_fill_by_bits_equals_where(seed, dtype, p, value, inplace):
    # The fast formulation of the impl against its semantics, np.where(mask, value, x): -0.0,
    # inf and nan included, in a new array or in place.
    from minigrad.ops.masked_fill import fill_by_bits, fill_by_bits_pays

    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((7, 5)) * 100).astype(dtype)
    if np.dtype(dtype).kind == "f":
        x.flat[:3] = [-0.0, np.inf, np.nan]
    mask = rng.random((7, 5)) < p
    v = {"zero": 0, "one": 1, "-0.0": -0.0, "nan": np.nan}[value]
    if np.dtype(dtype).kind != "f" and value in ("-0.0", "nan"):
        v = -3
    fill = np.asarray(v, dtype)
    expected = np.where(mask, fill, x)
    given_x = x.copy()
    out = fill_by_bits(given_x, mask, fill, inplace)
    assert out.tobytes() == expected.tobytes()  # bit for bit: -0.0 and nan payloads too
    assert (out is given_x) == inplace
    if not inplace:
        assert given_x.tobytes() == x.tobytes()  # x is never written
    zero = np.zeros((), dtype)
    assert fill_by_bits_pays(np.zeros(32768, dtype), zero)
    assert not fill_by_bits_pays(np.zeros(32768, dtype), np.ones((), dtype))
    assert fill_by_bits_pays(np.zeros(32768, dtype), np.ones((), dtype), inplace=True)
    assert not fill_by_bits_pays(np.zeros(100, dtype), zero, inplace=True)
    if np.dtype(dtype).kind == "f":  # -0.0 is not +0.0's bit pattern: np.where fills it
        assert not fill_by_bits_pays(np.zeros(32768, dtype), np.asarray(-0.0, dtype))

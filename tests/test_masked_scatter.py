"""masked_scatter and its support primitive masked_gather: forward against loops, every rule
against its oracle, per-example semantics under vmap, every error."""

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
from minigrad.ops.masked_scatter import (
    masked_gather,
    masked_gather_p,
    masked_scatter,
    masked_scatter_p,
)
from minigrad.testing.samples import loop_masked_gather, loop_masked_scatter  # the reference loops

mnp = mg.numpy


RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4))
M = RNG.random((3, 4)) < 0.5
S = RNG.standard_normal((2, 8))  # 16 elements: at least M.sum(), with extras


# --------------------------------------------------------------------------- forward


@given(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, min_side=0,
                                           max_side=4),
       st.integers(0, 2**32 - 1), st.integers(0, 3))
def test_forward_matches_loop(shapes, seed, extra):
    rng = np.random.default_rng(seed)
    xs, ms = shapes.input_shapes
    x = rng.standard_normal(xs)
    mask = rng.random(ms) < 0.5
    count = int(np.broadcast_to(mask, shapes.result_shape).sum())
    source = rng.standard_normal(count + extra)
    out = masked_scatter(x, mask, source)
    assert out.shape == shapes.result_shape
    np.testing.assert_array_equal(out, loop_masked_scatter(x, mask, source))


def test_consumes_source_in_row_major_order():
    mask = np.array([[True, False, True], [True, True, False]])
    out = masked_scatter(np.zeros((2, 3)), mask, np.arange(6.0).reshape(3, 2).T)
    np.testing.assert_array_equal(out, [[0, 0, 2], [4, 1, 0]])  # source.ravel() = 0 2 4 1 3 5
    np.testing.assert_array_equal(
        masked_scatter(np.zeros(4), np.array([True, False, True, True]), np.arange(1.0, 5.0)),
        [1.0, 0.0, 2.0, 3.0])


def test_extra_source_elements_get_zero_gradient_and_source_shape():
    mask = np.array([[True, False, True], [False, True, False]])
    source = RNG.standard_normal((2, 3))
    w = np.arange(6.0).reshape(2, 3)
    g = mg.grad(lambda s: mnp.sum(masked_scatter(np.zeros((2, 3)), mask, s) * w))(source)
    assert g.shape == (2, 3)
    np.testing.assert_array_equal(g, [[0.0, 2.0, 4.0], [0.0, 0.0, 0.0]])


def test_broadcasting_and_x_cotangent_summed_back():
    x = RNG.standard_normal(5)
    mask = np.tril(np.ones((5, 5), bool))
    out = masked_scatter(x, mask, np.arange(20.0))
    assert out.shape == (5, 5)
    np.testing.assert_array_equal(out, loop_masked_scatter(x, mask, np.arange(20.0)))
    w = RNG.standard_normal((5, 5))
    g = mg.grad(lambda x: mnp.sum(masked_scatter(x, mask, np.arange(20.0)) * w))(x)
    assert g.shape == (5,)
    np.testing.assert_allclose(g, np.sum(np.where(mask, 0.0, w), axis=0))
    # a row mask against a matrix, and (2, 1) against (3,)
    x = RNG.standard_normal((4, 3))
    row = np.array([True, False, True])
    np.testing.assert_array_equal(masked_scatter(x, row, np.arange(8.0)),
                                  loop_masked_scatter(x, row, np.arange(8.0)))
    g = mg.grad(lambda x: mnp.sum(masked_scatter(x, row, np.arange(8.0)) * 2.0))(
        np.ones((2, 1)))
    np.testing.assert_array_equal(g, [[2.0], [2.0]])


def test_zero_d_all_false_and_empty_source():
    assert masked_scatter(np.float64(1.0), np.array(True), np.array([7.0, 8.0])) == 7.0
    assert masked_scatter(np.float64(1.0), np.array(False), np.zeros(0)) == 1.0
    np.testing.assert_array_equal(masked_scatter(X, np.zeros_like(M), np.zeros(0)), X)
    g = mg.grad(lambda x, s: mnp.sum(masked_scatter(x, np.zeros_like(M), s)), (0, 1))(X, S)
    np.testing.assert_array_equal(g[0], np.ones_like(X))
    np.testing.assert_array_equal(g[1], np.zeros_like(S))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dtype_preserved(dtype):
    x, s = X.astype(dtype), S.astype(dtype)
    assert masked_scatter(x, M, s).dtype == dtype
    gx, gs = mg.grad(lambda x, s: mnp.sum(masked_scatter(x, M, s) ** 2), (0, 1))(x, s)
    assert gx.dtype == dtype and gs.dtype == dtype


def test_integer_x_forward():
    x = np.arange(12).reshape(3, 4)
    s = np.arange(100, 116)
    out = masked_scatter(x, M, s)
    assert out.dtype == x.dtype
    np.testing.assert_array_equal(out, loop_masked_scatter(x, M, s))


def test_inputs_never_mutated():
    x, mask, s = X.copy(), M.copy(), S.copy()
    masked_scatter(x, mask, s)
    mg.grad(lambda x, s: mnp.sum(masked_scatter(x, mask, s) ** 2), (0, 1))(x, s)
    mg.vmap(lambda x: masked_scatter(x, mask, s))(np.stack([x, x]))
    for a, b in ((x, X), (mask, M), (s, S)):
        np.testing.assert_array_equal(a, b)


def test_gradient_exactly_zero_where_overwritten_even_for_inf_and_nan():
    x = X.copy()
    x[M] = np.where(np.arange(M.sum()) % 2, np.inf, np.nan)
    out = masked_scatter(x, M, S)
    assert np.all(np.isfinite(out))
    g = mg.grad(lambda x: mnp.sum(mnp.exp(masked_scatter(x, M, S))))(x)
    assert np.all(g[M] == 0.0)
    np.testing.assert_allclose(g[~M], np.exp(x[~M]))


# --------------------------------------------------------------------------- derivatives


def f_nonlinear(x, s):
    y = masked_scatter(x, M, s)
    return mnp.sin(y) * y


def test_jvp_and_vjp_against_finite_differences():
    testing.check_jvp(f_nonlinear, [X, S])
    testing.check_vjp(f_nonlinear, [X, S])
    testing.check_grads(f_nonlinear, [X, S], order=2)


@pytest.mark.parametrize("argnum", [0, 1])
def test_jacfwd_equals_jacrev_equals_finite_differences(argnum):
    f = lambda x, s: masked_scatter(x, M, s) * 2.0  # noqa: E731
    jf = mg.jacfwd(f, argnum)(X, S)
    jr = mg.jacrev(f, argnum)(X, S)
    np.testing.assert_allclose(jf, jr, atol=1e-12)
    np.testing.assert_allclose(jf, fd_jacobian(f, [X, S], argnum), atol=1e-6)


def test_grad_against_finite_differences():
    f = lambda x, s: mnp.sum(f_nonlinear(x, s))  # noqa: E731
    gx, gs = mg.grad(f, (0, 1))(X, S)
    np.testing.assert_allclose(gx, fd_jacobian(f, [X, S], 0), atol=1e-6)
    np.testing.assert_allclose(gs, fd_jacobian(f, [X, S], 1), atol=1e-6)


def test_transpose_dot_product():
    # linear in (x, source) jointly: <T (x, s), w> == <x, T^t_x w> + <s, T^t_s w>
    rng = np.random.default_rng(1)
    x, s, w = rng.standard_normal((3, 4)), rng.standard_normal((2, 8)), rng.standard_normal((3, 4))
    ct_x, ct_s = mg.linear_transpose(lambda x, s: masked_scatter(x, M, s), X, S)(w)
    np.testing.assert_allclose(np.vdot(masked_scatter(x, M, s), w),
                               np.vdot(x, ct_x) + np.vdot(s, ct_s))
    np.testing.assert_array_equal(ct_x, np.where(M, 0.0, w))
    np.testing.assert_array_equal(ct_s.ravel(), loop_masked_gather(w, M, 16))


def test_hessian_and_hvp():
    f = lambda x, s: mnp.sum(f_nonlinear(x, s) ** 2)  # noqa: E731
    for argnum, arg in ((0, X), (1, S)):
        h = mg.hessian(f, argnum)(X, S)
        g = mg.grad(f, argnum)
        np.testing.assert_allclose(h, fd_jacobian(g, [X, S], argnum), atol=1e-5)
        u = RNG.standard_normal(arg.shape)
        args = [X, S]

        def gu(a, u=u, g=g, argnum=argnum, args=args):
            full = list(args)
            full[argnum] = a
            return mnp.sum(g(*full) * u)

        hvp = mg.grad(gu)(arg)
        np.testing.assert_allclose(hvp, np.tensordot(h, u, u.ndim), atol=1e-10)


def test_primitive_rules():
    def make(rng):
        return rng.standard_normal((3, 4)), rng.random((3, 4)) < 0.5, rng.standard_normal(14)

    def make_batched(rng):
        return (rng.standard_normal((2, 3)), rng.random((2, 3)) < 0.6,
                rng.standard_normal((2, 4)))

    def ref_batched(x, m, s, batch_dims):
        return np.stack([loop_masked_scatter(x[b], m[b], s[b]) for b in range(x.shape[0])])

    testing.check_primitive(masked_scatter_p, [
        testing.Sample("3x4", make, {"batch_dims": 0}, diff=(0, 2), linear=((0, 2),),
                       reference=lambda x, m, s, batch_dims: loop_masked_scatter(x, m, s)),
        testing.Sample("batch_dims=1", make_batched, {"batch_dims": 1}, diff=(0, 2),
                       linear=((0, 2),), reference=ref_batched)])


# --------------------------------------------------------------------------- vmap


def make_args(rng):
    return rng.standard_normal((3, 4)), rng.random((3, 4)) < 0.5, rng.standard_normal((2, 7))


AXES = testing.all_in_axes(3, axes=(0, -1))


@pytest.mark.parametrize("in_axes", AXES)
def test_vmap_against_loop(in_axes):
    check_vmap_against_loop(masked_scatter, make_args, in_axes, size=5)


@pytest.mark.parametrize("in_axes", AXES)
def test_vmap_of_grad_against_loop(in_axes):
    f = mg.grad(lambda x, m, s: mnp.sum(mnp.sin(masked_scatter(x, m, s)) * x), (0, 2))
    check_vmap_against_loop(f, make_args, in_axes, size=4, atol=1e-12, rtol=1e-12)


@pytest.mark.parametrize("in_axes", AXES)
def test_jaxpr_size_independent_of_batch(in_axes):
    f = grad_of_sum_of_squares(masked_scatter, (0, 2))
    check_jaxpr_size_independent_of_batch([masked_scatter, f], make_args, in_axes, sizes=(2, 64))


def test_vmap_consumes_source_per_example():
    # example b reads its own source row from its start, whatever the other examples take
    mask = np.array([[True, True, False], [False, True, True], [True, True, True]])
    source = np.arange(9.0).reshape(3, 3)
    out = mg.vmap(masked_scatter, (None, 0, 0))(np.zeros(3), mask, source)
    np.testing.assert_array_equal(out, [[0, 1, 0], [0, 3, 4], [6, 7, 8]])
    out = mg.vmap(masked_scatter, (None, 0, None))(np.zeros(3), mask, np.arange(3.0))
    np.testing.assert_array_equal(out, [[0, 1, 0], [0, 0, 1], [0, 1, 2]])


def test_vmap_broadcasting_and_batch_size_zero():
    x = RNG.standard_normal((6, 5))
    mask = RNG.random((6, 4, 5)) < 0.5
    testing.check_vmap(masked_scatter, [x, mask, np.arange(20.0)], (0, 0, None))
    testing.check_vmap(masked_scatter, [x[0], mask, np.arange(20.0)], (None, 1, None))
    testing.check_vmap(masked_scatter, [np.zeros((0, 5)), mask[:0], np.zeros((0, 5))],
                       (0, 0, 0))


def test_vmap_of_vmap_and_jvp_of_vmap():
    x = RNG.standard_normal((2, 3, 4))
    mask = RNG.random((3, 2, 4)) < 0.5
    s = RNG.standard_normal((2, 5))
    inner = mg.vmap(masked_scatter, (0, 0, None))
    g = lambda x, s: mg.vmap(inner, (0, 1, 0))(x, mask, s)  # noqa: E731
    expected = np.stack([np.stack([loop_masked_scatter(x[i, j], mask[j, i], s[i])
                                   for j in range(3)]) for i in range(2)])
    np.testing.assert_array_equal(g(x, s), expected)
    tx, ts = RNG.standard_normal(x.shape), RNG.standard_normal(s.shape)
    _, t = mg.jvp(g, (x, s), (tx, ts))
    np.testing.assert_allclose(t, g(tx, ts))  # linear: the JVP is the op on the tangents
    inner = mg.vmap(masked_scatter, (0, 0, 0))  # source batched in both
    s2 = RNG.standard_normal((2, 3, 4))
    out = mg.vmap(inner, (0, 1, 0))(x, mask, s2)
    expected = np.stack([np.stack([loop_masked_scatter(x[i, j], mask[j, i], s2[i, j])
                                   for j in range(3)]) for i in range(2)])
    np.testing.assert_array_equal(out, expected)


# --------------------------------------------------------------------------- masked_gather


@given(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4),
       st.integers(0, 2**32 - 1), st.integers(0, 3))
def test_masked_gather_forward_matches_loop(shape, seed, extra):
    rng = np.random.default_rng(seed)
    y = rng.standard_normal(shape)
    mask = rng.random(shape) < 0.5
    n = int(mask.sum()) + extra
    np.testing.assert_array_equal(masked_gather(y, mask, n), loop_masked_gather(y, mask, n))


def test_masked_gather_rules():
    def make(rng):
        return rng.standard_normal((3, 4)), rng.random((3, 4)) < 0.5

    def make_batched(rng):
        return rng.standard_normal((2, 3)), rng.random((2, 3)) < 0.6

    testing.check_primitive(masked_gather_p, [
        testing.Sample("3x4", make, {"n": 13, "batch_dims": 0}, diff=(0,), linear=((0,),),
                       reference=lambda y, m, n, batch_dims: loop_masked_gather(y, m, n)),
        testing.Sample("batch_dims=1", make_batched, {"n": 4, "batch_dims": 1}, diff=(0,),
                       linear=((0,),), reference=lambda y, m, n, batch_dims: np.stack(
                           [loop_masked_gather(y[b], m[b], n) for b in range(2)]))])
    # its transpose is masked_scatter into zeros; grad(grad) and vmap(grad) close over the pair
    w = RNG.standard_normal(8)
    ct, = mg.linear_transpose(lambda y: masked_gather(y, M, 8), X)(w)
    np.testing.assert_array_equal(ct, masked_scatter(np.zeros_like(X), M, w))
    np.testing.assert_allclose(np.vdot(masked_gather(X, M, 8), w), np.vdot(X, ct))
    f = lambda y: mnp.sum(masked_gather(y, M, 8) ** 3)  # noqa: E731
    np.testing.assert_allclose(mg.hessian(f)(X), fd_jacobian(mg.grad(f), [X], 0), atol=1e-5)
    ys = RNG.standard_normal((4, 3, 4))
    masks = RNG.random((4, 3, 4)) < 0.5
    testing.check_vmap(mg.grad(f), [ys], (0,))
    for in_axes in ((0, None), (0, 0), (None, 0)):
        testing.check_vmap(mg.grad(lambda y, m: mnp.sum(masked_gather(y, m, 12) ** 3)),
                           [ys if in_axes[0] is not None else X,
                            masks if in_axes[1] is not None else M], in_axes)


def test_masked_gather_errors():
    with pytest.raises(ValueError, match=r"masked_gather: n must be at least \d+"):
        masked_gather(X, M, int(M.sum()) - 1)
    with pytest.raises(TypeError, match=r"masked_gather: mask must be a bool array"):
        masked_gather(X, M.astype(np.uint8), 12)
    with pytest.raises(ValueError, match=r"masked_gather: mask must have y's shape"):
        masked_gather(X, M[0], 12)
    with pytest.raises(TypeError, match=r"masked_gather: n must be a non-negative int"):
        masked_gather(X, M, -1)
    with pytest.raises(TypeError, match=r"masked_gather: mask is not a linear operand"):
        masked_gather_p.transpose(np.zeros(3), UndefPrimal(ShapedArray((3, 4), np.float64)),
                                  UndefPrimal(ShapedArray((3, 4), np.bool_)), n=3, batch_dims=0)


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize("dtype", [np.uint8, np.int64, np.float64])
def test_mask_must_be_bool(dtype):
    with pytest.raises(TypeError, match=r"masked_scatter: mask must be a bool array; got dtype"):
        masked_scatter(X, M.astype(dtype), S)


def test_mask_must_broadcast():
    with pytest.raises(ValueError, match=r"masked_scatter: mask must broadcast with x's shape"):
        masked_scatter(X, np.ones((3, 5), bool), S)


def test_source_dtype_must_match():
    with pytest.raises(TypeError, match=r"masked_scatter: source must have x's dtype float64; "
                                        r"got float32"):
        masked_scatter(X, M, S.astype(np.float32))


def test_source_too_small():
    n = int(M.sum())
    with pytest.raises(ValueError, match=rf"masked_scatter: source must have at least {n} "
                                         rf"elements .*; got {n - 1}"):
        masked_scatter(X, M, np.ones(n - 1))
    # counted over the broadcast mask: a (3,) row against (4, 3) x needs 4 times its trues
    with pytest.raises(ValueError, match=r"masked_scatter: source must have at least 8 "):
        masked_scatter(np.zeros((4, 3)), np.array([True, False, True]), np.ones(7))
    # an abstract mask: checked by the impl when the staged jaxpr runs
    jaxpr = mg.make_jaxpr(masked_scatter)(X, M, np.ones(n - 1))
    with pytest.raises(ValueError, match=rf"masked_scatter: source must have at least {n} "):
        jaxpr(X, M, np.ones(n - 1))


def test_source_too_small_is_checked_per_example():
    mask = np.array([[True, True, False], [True, True, True]])
    with pytest.raises(ValueError, match=r"masked_scatter: source must have at least 3 elements "
                                         r"\(the number of true entries of mask of example "
                                         r"\(1,\)\); got 2"):
        mg.vmap(masked_scatter, (None, 0, None))(np.zeros(3), mask, np.ones(2))
    # 5 trues in all, but no example needs more than its own 3
    out = mg.vmap(masked_scatter, (None, 0, 0))(np.zeros(3), mask, np.ones((2, 3)))
    np.testing.assert_array_equal(out, np.where(mask, 1.0, 0.0))
    with pytest.raises(ValueError, match=r"at least 3 elements .*; got 2"):
        mg.vmap(mg.grad(lambda s, m: mnp.sum(masked_scatter(np.zeros(3), m, s))), (None, 0))(
            np.ones(2), mask)


def test_no_gradient_with_respect_to_mask():
    with pytest.raises(TypeError, match=r"grad: args\[1\] must be a floating array"):
        mg.grad(lambda x, m: mnp.sum(masked_scatter(x, m, S)), 1)(X, M)
    with pytest.raises(TypeError, match=r"masked_scatter: mask must be a bool"):
        mg.grad(lambda x, m: mnp.sum(masked_scatter(x, m, S)), 1)(X, M.astype(float))
    with pytest.raises(TypeError, match=r"masked_scatter: mask is not a linear operand"):
        masked_scatter_p.transpose(X, UndefPrimal(ShapedArray((3, 4), np.float64)),
                                   UndefPrimal(ShapedArray((3, 4), np.bool_)), S.ravel(),
                                   batch_dims=0)

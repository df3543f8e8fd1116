"""index_add: semantics, every rule, every batched combination, errors."""

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from op_checks import check_jaxpr_size_independent_of_batch, check_vmap_against_loop

import minigrad as mg
from minigrad import numpy as mnp
from minigrad.ops.index_add import index_add_p
from minigrad.testing import (
    Sample,
    all_in_axes,
    batch_args,
    check_grads,
    check_primitive,
    check_vmap,
)


def loop_index_add(x, dim, index, source, alpha=1):
    """The reference: one slice at a time, as PyTorch documents it."""
    out = np.array(x, copy=True)
    xm, sm = np.moveaxis(out, dim, 0), np.moveaxis(np.asarray(source), dim, 0)
    for i, j in enumerate(np.atleast_1d(index)):
        xm[j] += alpha * sm[i]
    return out


def make(shape, dim, k, dtype=np.float64, dup=True):
    def draw(rng):
        n = shape[dim]
        index = rng.integers(0, n, k) if dup else rng.permutation(n)[:k]
        sshape = list(shape)
        sshape[dim] = k
        return (rng.standard_normal(shape).astype(dtype), index,
                rng.standard_normal(sshape).astype(dtype))
    return draw


SAMPLES = [
    Sample("dup-dim0", make((5, 3), 0, 6), dict(dim=0, alpha=1.0), (0, 2), ((0, 2),)),
    Sample("dim1-alpha", make((2, 4, 3), 1, 3), dict(dim=1, alpha=-2.5), (0, 2), ((0, 2),)),
    Sample("empty", make((4, 2), 0, 0), dict(dim=0, alpha=1.0), (0, 2), ((0, 2),)),
    Sample("f32", make((4, 3), 1, 5, np.float32), dict(dim=1, alpha=2.0), (0, 2), ((0, 2),)),
]
for s in SAMPLES:
    s.reference = lambda x, i, src, *, dim, alpha: loop_index_add(x, dim, i, src, alpha)


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: s.name)
def test_rules(sample):
    results = check_primitive(index_add_p, [sample])
    assert all(r.passed for r in results)
    assert any(r.check == "vmap" and r.cases >= 10 for r in results)


def test_duplicates_accumulate():
    out = mg.index_add(np.zeros(5), 0, np.array([1, 1, 3]), np.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(out, [0, 3, 0, 3, 0])


def test_source_gradient_with_duplicates():
    # every occurrence gathers its destination's cotangent, scaled by alpha
    g = mg.grad(lambda s: mnp.sum(mg.index_add(np.zeros(5), 0, np.array([1, 1, 3]), s, 2.0)
                                  * np.arange(10.0, 15.0)))(np.ones(3))
    np.testing.assert_array_equal(g, [22.0, 22.0, 26.0])


@given(st.integers(0, 2), st.integers(0, 6), st.integers(0, 10_000))
def test_matches_loop(dim, k, seed):
    rng = np.random.default_rng(seed)
    shape = (3, 4, 2)
    x, index, source = make(shape, dim, k)(rng)
    np.testing.assert_allclose(mg.index_add(x, dim, index, source, 1.5),
                               loop_index_add(x, dim, index, source, 1.5), rtol=1e-14)
    np.testing.assert_allclose(mg.index_add(x, dim - 3, index, source),
                               loop_index_add(x, dim, index, source))


def f_scalar(x, index, source):
    return mnp.sum(mnp.tanh(mg.index_add(x * x, 0, index, source * 3.0, alpha=0.5)) ** 2)


def test_grads_order2():
    x, index, source = make((4, 3), 0, 5)(np.random.default_rng(1))
    check_grads(lambda x, s: mg.index_add(mnp.sin(x), 0, index, s * s), [x, source], order=2)
    assert mg.jacfwd(lambda s: mg.index_add(x, 0, index, s))(source).shape == (4, 3, 5, 3)
    fwd = mg.jacfwd(f_scalar, argnums=(0, 2))(x, index, source)
    rev = mg.jacrev(f_scalar, argnums=(0, 2))(x, index, source)
    for a, b in zip(fwd, rev, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    h = mg.hessian(f_scalar)(x, index, source)
    np.testing.assert_allclose(h, np.transpose(h, (2, 3, 0, 1)), atol=1e-12)


def test_hessian_vector_product():
    x, index, source = make((4, 3), 1, 2)(np.random.default_rng(2))
    v = np.random.default_rng(3).standard_normal(x.shape)

    def f(x):
        return mnp.sum(mg.index_add(x, 1, index, source) ** 3)

    hvp = mg.grad(lambda x: mnp.sum(mg.grad(f)(x) * v))(x)
    np.testing.assert_allclose(hvp, mg.jvp(mg.grad(f), (x,), (v,))[1], rtol=1e-12)


@pytest.mark.parametrize("in_axes", all_in_axes(3))
def test_vmap_grad_every_combination(in_axes):
    g = mg.grad(f_scalar, argnums=(0, 2))
    check_vmap_against_loop(g, make((4, 3), 0, 5), in_axes, size=3, seed=4, atol=1e-14,
                            rtol=1e-12)


@pytest.mark.parametrize("in_axes", all_in_axes(3))
def test_no_batch_loop(in_axes):
    g = mg.grad(f_scalar, argnums=(0, 2))
    check_jaxpr_size_independent_of_batch([g], make((4, 3), 0, 5), in_axes, sizes=(2, 64))


def test_jvp_of_vmap_and_vmap_of_vmap():
    x, index, source = make((4, 3), 0, 5)(np.random.default_rng(5))
    xs = np.stack([x, 2 * x])
    f = mg.vmap(lambda x: mg.index_add(x, 0, index, source))
    _, t = mg.jvp(f, (xs,), (np.ones_like(xs),))
    np.testing.assert_allclose(t, np.ones_like(xs))
    idx2 = np.array([[[0, 1], [2, 2]], [[3, 3], [1, 0]]])  # (2, 2, 2): two levels of batch
    src2 = np.ones((2, 2, 2, 3))
    out = mg.vmap(mg.vmap(lambda i, s: mg.index_add(x, 0, i, s)))(idx2, src2)
    for a, b in itertools.product(range(2), range(2)):
        np.testing.assert_allclose(out[a, b], loop_index_add(x, 0, idx2[a, b], src2[a, b]))


def test_vmap_batch_size_zero_and_negative_axes():
    args = batch_args(make((4, 3), 0, 2), (0, 0, -1), 0)
    check_vmap(lambda x, i, s: mg.index_add(x, 0, i, s), args, (0, 0, -1))
    args = batch_args(make((4, 3), 1, 2), (-1, None, 1), 3)
    check_vmap(lambda x, i, s: mg.index_add(x, 1, i, s), args, (-1, None, 1))


def test_zero_dim_x():
    assert mg.index_add(np.float64(1.0), 0, 0, np.float64(2.0)) == 3.0
    out = mg.index_add(np.array(1.0), -1, np.array([0, 0]), np.array([2.0, 3.0]))
    assert out.shape == () and out == 6.0
    g = mg.grad(lambda x, s: mg.index_add(x, 0, np.array([0]), s) * x, argnums=(0, 1))
    gx, gs = g(np.float64(2.0), np.array(3.0))
    assert (gx, gs) == (7.0, 2.0)


def test_dtypes_preserved_and_integer_forward():
    x, index, source = make((4, 3), 0, 5, np.float32)(np.random.default_rng(6))
    assert mg.index_add(x, 0, index, source).dtype == np.float32
    g = mg.grad(lambda x: mnp.sum(mg.index_add(x, 0, index, source) ** 2))(x)
    assert g.dtype == np.float32
    assert mg.vmap(lambda s: mg.index_add(x, 0, index, s))(np.stack([source] * 2)).dtype == \
        np.float32
    xi = np.arange(6).reshape(3, 2)
    out = mg.index_add(xi, 0, np.array([2, 2]), np.ones((2, 2), np.int64), alpha=3)
    np.testing.assert_array_equal(out, loop_index_add(xi, 0, [2, 2], np.ones((2, 2), int), 3))
    assert out.dtype == xi.dtype
    out = mg.index_add(xi.astype(np.int32), 0, np.array([0], np.uint8), np.ones((1, 2), np.int32))
    assert out.dtype == np.int32


def test_inputs_not_mutated():
    x, index, source = make((4, 3), 0, 5)(np.random.default_rng(7))
    copies = [a.copy() for a in (x, index, source)]
    mg.index_add(x, 0, index, source)
    mg.vmap(mg.grad(f_scalar), in_axes=(None, None, 0))(x, index, np.stack([source] * 2))
    for a, c in zip((x, index, source), copies, strict=True):
        np.testing.assert_array_equal(a, c)


def test_tracer_method():
    x, index, source = make((4, 3), 0, 5)(np.random.default_rng(8))
    g = mg.grad(lambda x: x.index_add(0, index, source).sum())(x)
    np.testing.assert_array_equal(g, np.ones_like(x))


@pytest.mark.parametrize("args, kwargs, exc, match", [
    ((np.zeros((2, 3)), 2, [0], np.zeros((2, 1))), {}, ValueError,
     r"index_add: dim must be in \[-2, 2\) for x of rank 2; got 2"),
    ((np.zeros((2, 3)), 0.0, [0], np.zeros((1, 3))), {}, TypeError,
     "index_add: dim must be an int"),
    ((np.zeros(5), 0, [-1], np.zeros(1)), {}, IndexError,
     r"index_add: index entries must be in \[0, 5\) for dim 0; got -1"),
    ((np.zeros(5), 0, [5], np.zeros(1)), {}, IndexError, r"index_add: .* got 5"),
    ((np.zeros(5), 0, [1.0], np.zeros(1)), {}, TypeError,
     "index_add: index must be an integer array"),
    ((np.zeros(5), 0, [True], np.zeros(1)), {}, TypeError, "index_add: index must be an integer"),
    ((np.zeros(5), 0, [[1]], np.zeros(1)), {}, ValueError,
     "index_add: index must have rank 0 or 1"),
    ((np.zeros((2, 3)), 0, [0], np.zeros((1, 2))), {}, ValueError,
     r"index_add: source must have shape \(1, 3\)"),
    ((np.zeros(5), 0, [0], np.zeros(2)), {}, ValueError, "index_add: source must have shape"),
    ((np.zeros(5), 0, [0], np.zeros(1, np.float32)), {}, TypeError,
     "index_add: source must have x's dtype float64; got float32"),
    ((np.zeros(5), 0, [0], np.zeros(1)), {"alpha": 1j}, TypeError, "index_add: alpha must be real"),
    ((np.zeros(5, np.int64), 0, [0], np.zeros(1, np.int64)), {"alpha": 2.5}, TypeError,
     "index_add: alpha must be an integer"),
    ((np.zeros(5), 0, [0], np.zeros(1)), {"alpha": np.ones(2)}, TypeError,
     "index_add: alpha must be a Python number"),
])
def test_errors(args, kwargs, exc, match):
    copies = [np.array(a, copy=True) for a in args]
    with pytest.raises(exc, match=match):
        mg.index_add(*args, **kwargs)
    for a, c in zip(args, copies, strict=True):
        np.testing.assert_array_equal(a, c)


def test_error_under_vmap_names_the_op():
    f = mg.vmap(lambda i: mg.index_add(np.zeros(3), 0, i, np.ones(2)))
    with pytest.raises(IndexError, match=r"index_add: index entries must be in \[0, 3\)"):
        f(np.array([[0, 1], [2, 3]]))  # example 1 points past the end: no spill into example 2
    with pytest.raises(IndexError, match="index_add"):
        f(np.array([[0, 1], [-1, 0]]))


def test_grad_with_respect_to_index_is_an_error():
    with pytest.raises(TypeError, match=r"grad: args\[1\] must be a floating array"):
        mg.grad(f_scalar, argnums=1)(np.zeros((4, 3)), np.array([0]), np.ones((1, 3)))


def test_staged_index_checked_at_evaluation():
    jaxpr = mg.make_jaxpr(lambda x, i: mg.index_add(x, 0, i, np.ones(1)))(np.zeros(3),
                                                                          np.array([0]))
    assert "index_add[dim=0 alpha=1.0]" in str(jaxpr)
    with pytest.raises(IndexError, match="index_add"):
        jaxpr(np.zeros(3), np.array([7]))


@given(st.integers(1, 5), st.integers(0, 2), st.integers(0, 12), st.integers(0, 10**6),
       st.sampled_from([np.float64, np.float32, np.float16, np.int8]), st.integers(0, 40))
def test_rounds_sum_equals_the_plain_one(n, dim, k, seed, dtype, round_min):
    # The fast formulation of the impl against its semantics, np.add.at on a copy, bit for bit
    # (any values: the rounds add in np.add.at's order). round_min moves the point where the
    # rounds hand the rest to np.add.at, so that both halves run.
    from unittest import mock

    from minigrad.ops import index_add as module

    rng = np.random.default_rng(seed)
    shape = [3, 2, 4]
    shape[dim] = n
    x = (rng.standard_normal(shape) * 100).astype(dtype)
    index = rng.integers(0, n, k)
    sshape = list(shape)
    sshape[dim] = k
    source = (rng.standard_normal(sshape) * 100).astype(dtype)
    plain = x.copy()
    np.add.at(plain, (slice(None),) * dim + (index,), source)
    fast = x.copy()
    if k:
        with mock.patch.object(module, "_ROUND_MIN_ADDED", round_min):
            module.add_in_rounds(fast, dim, index, source)
    assert fast.dtype == x.dtype
    assert fast.tobytes() == plain.tobytes()

"""Solutions to the exercises at the end of docs/tutorial.md, each checked.

1. A batching rule for ``inner`` (the dot product of two vectors), checked against a loop for
   every combination of batched operands and batch axes.
2. A new linear primitive, ``diff`` (first differences along an axis), with all five rules,
   checked by ``check_primitive``.
3. Perturbation confusion: a JVP trace that unboxes tracers by type instead of by identity
   gives wrong nested derivatives; the real one gives the right ones.

Each solution is paired with a broken variant that the same check must reject, so a check that
passes everything would fail here.
"""

import contextlib

import numpy as np
import pytest

import minigrad as mg
from minigrad import Primitive, ShapedArray
from minigrad.core import Trace, UndefPrimal, get_aval
from minigrad.ops.elementwise import mul, sub
from minigrad.ops.structural import bdim_to_front, moveaxis, pad, reduce_sum
from minigrad.testing import Sample, all_in_axes, batch_args, check_primitive, check_vmap
from minigrad.transforms.jvp import JVPTrace, JVPTracer

# --------------------------------------------------------------------------- exercise 1

# The primitive as the page states it: impl and shape rule, no batching rule yet.
inner_p = Primitive("inner")


def inner(x, y):
    """The dot product of two vectors of the same length."""
    return inner_p.bind(x, y)


@inner_p.def_impl
def _inner_impl(x, y):
    return np.asarray(np.dot(x, y))


@inner_p.def_abstract_eval
def _inner_abstract_eval(x, y):
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError(f"inner: x and y must be vectors of one length; got "
                         f"{x.str_short()} and {y.str_short()}")
    return ShapedArray((), np.result_type(x.dtype, y.dtype))


def _inner_batch(axis_size, vals, dims):
    # out[b] = sum_i x[b, i] * y[b, i]: both batch axes to the front (an unbatched operand is
    # broadcast along a new one), then one mul and one sum over the vector axis
    x, y = (bdim_to_front(v, d, axis_size) for v, d in zip(vals, dims, strict=True))
    return reduce_sum(mul(x, y), axes=(1,)), 0


def _inner_batch_wrong(axis_size, vals, dims):
    # assumes the batch axis is first: with both batched at -1 it sums over the batch instead
    x, y = vals
    return reduce_sum(mul(x, y), axes=(1,)), 0


@contextlib.contextmanager
def batching_rule(prim, rule):
    """Install ``rule`` as the batching rule of ``prim`` for the block, then restore it."""
    saved = prim.batch
    prim.def_batch(rule)
    try:
        yield
    finally:
        prim.batch = saved


def inner_args(rng):
    return rng.standard_normal(4), rng.standard_normal(4)


def test_inner_has_no_batching_rule_until_we_write_one():
    with pytest.raises(NotImplementedError, match="batching rule for 'inner'"):
        mg.vmap(inner)(np.ones((2, 3)), np.ones((2, 3)))


@pytest.mark.parametrize("in_axes", all_in_axes(2, axes=(0, -1)))
@pytest.mark.parametrize("size", [3, 0])
def test_inner_batching_rule_agrees_with_a_loop(in_axes, size):
    with batching_rule(inner_p, _inner_batch):
        check_vmap(inner, batch_args(inner_args, in_axes, size), in_axes)


def test_inner_batching_rule_has_no_loop():
    with batching_rule(inner_p, _inner_batch):
        counts = {len(mg.make_jaxpr(mg.vmap(inner, in_axes=(0, None)))(
            np.ones((b, 4)), np.ones(4)).eqns) for b in (2, 2000)}
    assert len(counts) == 1


def test_a_wrong_batching_rule_is_caught():
    in_axes = (-1, -1)
    with batching_rule(inner_p, _inner_batch_wrong), pytest.raises(AssertionError):
        check_vmap(inner, batch_args(inner_args, in_axes, 3), in_axes)


# --------------------------------------------------------------------------- exercise 2

diff_p = Primitive("diff")


def diff(x, axis):
    """``x[1:] - x[:-1]`` along ``axis`` (negative allowed), as ``np.diff(x, axis=axis)``."""
    ndim = get_aval(x).ndim
    if not -ndim <= axis < ndim:
        raise ValueError(f"diff: axis must be in [{-ndim}, {ndim}); got {axis}")
    return diff_p.bind(x, axis=axis % ndim)  # canonical parameter: axis >= 0


@diff_p.def_impl
def _diff_impl(x, *, axis):
    return np.diff(x, axis=axis)


@diff_p.def_abstract_eval
def _diff_abstract_eval(x, *, axis):
    n = x.shape[axis]
    if n == 0:
        raise ValueError(f"diff: axis {axis} must have at least one element; got {x.str_short()}")
    return ShapedArray((*x.shape[:axis], n - 1, *x.shape[axis + 1:]), x.dtype)


@diff_p.def_jvp
def _diff_jvp(primals, tangents, *, axis):
    # out_dot = diff(x_dot): diff is linear
    (x,), (x_dot,) = primals, tangents
    return diff_p.bind(x, axis=axis), diff_p.bind(x_dot, axis=axis)


def _pad_axis(ct, axis, low, high):
    config = [(0, 0, 0)] * ct.ndim
    config[axis] = (low, high, 0)
    return pad(ct, config)


@diff_p.def_transpose
def _diff_transpose(ct, x, *, axis):
    # ct_x[j] = ct[j - 1] - ct[j], with ct zero outside [0, n - 1)
    assert isinstance(x, UndefPrimal)
    return (sub(_pad_axis(ct, axis, 1, 0), _pad_axis(ct, axis, 0, 1)),)


@diff_p.def_batch
def _diff_batch(axis_size, vals, dims, *, axis):
    # batch axis to the front; the differenced axis is then one further on
    (x,), (x_bdim,) = vals, dims
    return diff_p.bind(moveaxis(x, x_bdim, 0), axis=axis + 1), 0


def loop_diff(x, *, axis):
    """An independent reference: each output slice by hand."""
    x = np.moveaxis(x, axis, 0)
    out = np.stack([x[i + 1] - x[i] for i in range(len(x) - 1)]) if len(x) > 1 else x[:0]
    return np.moveaxis(out, 0, axis)


DIFF_SAMPLES = [
    Sample("diff:3x5-axis1", lambda rng: (rng.standard_normal((3, 5)),), {"axis": 1},
           diff=(0,), linear=((0,),), reference=loop_diff),
    Sample("diff:4x2-axis0-f32", lambda rng: (rng.standard_normal((4, 2)).astype(np.float32),),
           {"axis": 0}, diff=(0,), linear=((0,),), reference=loop_diff),
    Sample("diff:length-1", lambda rng: (rng.standard_normal((2, 1)),), {"axis": 1},
           diff=(0,), linear=((0,),), reference=loop_diff),
    Sample("diff:user-negative-axis", lambda rng: (rng.standard_normal((2, 3, 4)),),
           {"axis": -2}, diff=(0,), linear=((0,),),
           reference=lambda x, *, axis: np.diff(x, axis=axis), fun=diff),
]


def test_diff_passes_every_check():
    results = check_primitive(diff_p, DIFF_SAMPLES)
    checks = {r.check for r in results}
    assert {"reference", "shape/impl", "jvp", "transpose(0,)", "vmap", "vmap(grad)",
            "grad(grad)"} <= checks
    assert all(r.passed for r in results)


def test_diff_under_the_transforms():
    x = np.array([1.0, 4.0, 9.0, 16.0])
    assert np.array_equal(diff(x, 0), [3.0, 5.0, 7.0])
    # d/dx sum(diff(x) * w) = w[j - 1] - w[j]
    w = np.array([1.0, 10.0, 100.0])
    assert np.array_equal(mg.grad(lambda x: (diff(x, 0) * w).sum())(x), [-1.0, -9.0, -90.0, 100.0])
    xs = np.stack([x, 2 * x])
    assert np.array_equal(mg.vmap(lambda x: diff(x, 0))(xs), np.diff(xs, axis=1))


def test_a_wrong_transpose_is_caught():
    def wrong(ct, x, *, axis):  # the right terms with the sign flipped
        return (sub(_pad_axis(ct, axis, 0, 1), _pad_axis(ct, axis, 1, 0)),)

    saved = diff_p.transpose
    diff_p.def_transpose(wrong)
    try:
        results = check_primitive(diff_p, DIFF_SAMPLES[:1], raise_on_failure=False)
    finally:
        diff_p.transpose = saved
    failed = {r.check for r in results if not r.passed}
    assert "transpose(0,)" in failed


# --------------------------------------------------------------------------- exercise 3


@contextlib.contextmanager
def owns_by_type():
    """JVP traces unbox every JVP tracer, not only their own: no identity (and no levels)."""
    assert "owns" not in vars(JVPTrace)  # it inherits Trace.owns, which we shadow and unshadow
    JVPTrace.owns = lambda self, x: isinstance(x, JVPTracer)
    try:
        yield
    finally:
        del JVPTrace.owns


def derivative(f):
    """d/dx f(x) of a scalar function, by forward mode."""
    return lambda x: mg.jvp(f, (x,), (np.ones_like(x),))[1]


def f_add(x):
    # x * d/dy (x + y) = x * 1, so the derivative is 1
    return x * derivative(lambda y: x + y)(np.float64(1.0))


def f_mul(x):
    # x * d/dy (x * y) = x * x, so the derivative is 2x
    return x * derivative(lambda y: x * y)(np.float64(1.0))


X = np.float64(2.0)


def test_the_identity_check_gives_the_right_derivatives():
    assert derivative(f_add)(X) == 1.0
    assert derivative(f_mul)(X) == 4.0  # 2x at x = 2
    assert mg.grad(f_add)(X) == 1.0 and mg.grad(f_mul)(X) == 4.0


def test_unboxing_by_type_confuses_the_perturbations():
    with owns_by_type():
        # the inner jvp takes x's tangent (1) for a tangent of its own: d/dy (x + y) = 1 + 1
        assert derivative(f_add)(X) == 2.0
        # d/dy (x * y) = x_dot * y + x * y_dot = 1 * 1 + 2 * 1 on plain numbers: the outer jvp
        # sees a constant 3, and d/dx (x * 3) = 3
        assert derivative(f_mul)(X) == 3.0
    assert JVPTrace.owns is Trace.owns and derivative(f_add)(X) == 1.0  # restored


def test_unboxing_by_type_breaks_grad_of_a_nested_jvp_loudly():
    # Under grad, x's tangent is a variable of the linear jaxpr; the inner jvp takes it for its
    # own, so its "derivative" is linear in x's tangent, and x times it is not linear: the
    # backward pass meets a mul of two linear values.
    with owns_by_type(), pytest.raises(TypeError, match="both are linear"):
        mg.grad(f_mul)(X)


def test_owns_by_type_restores_the_real_check_after_an_error():
    with pytest.raises(RuntimeError), owns_by_type():
        raise RuntimeError("inside the block")
    assert JVPTrace.owns is Trace.owns

"""Every rule of every base primitive, driven by the op records in ``records.py``.

``check_primitive`` runs the three oracles on each record: the impl against the record's NumPy
reference, the shape rule against the impl, the JVP against central finite differences, each
declared linear group's transpose by the dot-product test, and the batching rule against a loop
for every batched/unbatched combination at axes 0 and -1 and batch sizes 3 and 0. The tests
below add the dtype contract and the zero tangents of non-differentiable outputs, and
hypothesis-drawn shapes for a few families.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as hst
from records import CASES, Case

import minigrad as mg
from minigrad.core import UndefPrimal, Zero, float0, get_aval, tangent_dtype
from minigrad.ops import elementwise as ew
from minigrad.ops import structural as st
from minigrad.ops.indexing import check_index_p
from minigrad.testing import Sample, check_jvp, check_primitive
from minigrad.testing.checks import results_of, vmap_axes
from minigrad.testing.samples import BOTH, F32, F64, integral, normal, positive


def case_id(case: Case) -> str:
    return case.id


def draw_operands(case: Case, seed: int = 0) -> tuple:
    return case.sample.make(np.random.default_rng(seed))


# --------------------------------------------------------------------------- the record table


# check_vmap takes the output shapes of a size-0 batch from one example of zeros, where log,
# div and pow warn; those values are never compared.
zero_example_warnings = pytest.mark.filterwarnings(
    "ignore:divide by zero encountered:RuntimeWarning",
    "ignore:invalid value encountered:RuntimeWarning")


@zero_example_warnings
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_rules(case: Case) -> None:
    results = check_primitive(case.prim, [case.sample])
    ran = {r.check: r.cases for r in results}
    # Each declared check ran, so a record cannot pass by checking nothing.
    assert ran.get("shape/impl") == 1
    assert ("jvp" in ran) == bool(case.sample.diff)
    for group in case.sample.linear:
        assert ran[f"transpose{group}"] == 1
    ops = draw_operands(case)
    # three batch sizes (two that equal no operand dimension, and 0), one of them staged too;
    # every combination of batched operands at axis 0 or -1, and one at axis 1 where a rank
    # allows
    combos = len(vmap_axes(ops, case.sample.batchable))
    assert ran["vmap"] == 3 * combos
    assert ran["staged"] >= 1 + combos


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_dtypes(case: Case) -> None:
    """The output has the record's dtype; tangents have the output's dtype and cotangents their
    operand's (a float32 run stays float32 through every rule). A primitive with several
    results: each floating one has the record's dtype, the others the reference's, and their
    tangents are float0."""
    ops = draw_operands(case)
    params = case.sample.params
    expected = case.record.expected_dtype(case.dtype)
    fun = case.sample.function(case.prim)  # (the primitive's bind, or an op sample's function)
    if case.prim.multiple_results and case.sample.fun is None:
        out = case.prim.bind(*ops, **params)
        refs = results_of(case.sample.reference(*ops, **params))
        avals = case.prim.abstract_eval(*map(get_aval, ops), **params)
        for o, r, a in zip(out, refs, avals, strict=True):
            want = expected if o.dtype.kind == "f" else np.asarray(r).dtype
            assert o.dtype == want and np.asarray(r).dtype == want and a.dtype == want
        if case.sample.diff:
            tangents = tuple(normal(np.random.default_rng(1), np.shape(ops[i]), ops[i].dtype)
                             for i in case.sample.diff)
            _, t_out = mg.jvp(lambda *xs: case.prim.bind(*xs, **params), tuple(ops), tangents)
            for o, t in zip(out, t_out, strict=True):
                assert t.dtype == tangent_dtype(o.dtype)
        return
    out = fun(*ops)
    assert out.dtype == expected
    assert np.asarray(case.sample.reference(*ops, **params)).dtype == expected
    if case.sample.fun is None:
        assert case.prim.abstract_eval(*map(get_aval, ops), **params).dtype == expected
    else:
        assert mg.make_jaxpr(fun)(*ops).jaxpr.outvars[0].aval.dtype == expected
    if case.sample.diff:
        rng = np.random.default_rng(1)
        diff = case.sample.diff

        def f(*xs: Any) -> Any:
            full = list(ops)
            for i, x in zip(diff, xs, strict=True):
                full[i] = x
            return fun(*full)

        tangents = tuple(normal(rng, np.shape(ops[i]), ops[i].dtype) for i in diff)
        _, t_out = mg.jvp(f, tuple(ops[i] for i in diff), tangents)
        assert t_out.dtype == expected
    if case.sample.fun is not None:  # an op sample's transposes: check_primitive's dot-product
        return  # test checks each cotangent's dtype through linear_transpose
    for group in case.sample.linear:
        operands = [UndefPrimal(get_aval(o)) if i in group else o for i, o in enumerate(ops)]
        cts = case.prim.transpose(np.ones_like(out), *operands, **params)
        assert len(cts) == len(ops)
        for i in group:
            assert np.asarray(cts[i]).dtype == ops[i].dtype, f"cotangent of operand {i}"


def is_differentiable(case: Case) -> bool:
    """A floating (or complex) output that depends on a floating (or complex) operand."""
    floating = [np.asarray(o).dtype.kind in "fc" for o in draw_operands(case)]
    return case.record.expected_dtype(case.dtype).kind in "fc" and any(floating)


NON_DIFFERENTIABLE = [c for c in CASES if not is_differentiable(c)]


@pytest.mark.parametrize("case", NON_DIFFERENTIABLE, ids=case_id)
def test_nondifferentiable_tangent_is_symbolic_zero(case: Case) -> None:
    """Outputs that are not floating, or that depend on no floating operand: the JVP rule, fed
    real tangents for floating operands, returns a symbolic zero of the output's tangent dtype
    (float0 for int and bool)."""
    ops = draw_operands(case)
    rng = np.random.default_rng(2)
    tangents = tuple(normal(rng, o.shape, o.dtype) if o.dtype.kind == "f"
                     else Zero(mg.ShapedArray(o.shape, float0)) for o in ops)
    if case.sample.fun is not None:  # an op sample: its function's JVP gives a float0 zero
        floats = [i for i, o in enumerate(ops) if o.dtype.kind == "f"]
        fun = case.sample.function(case.prim)

        def f(*xs: Any) -> Any:
            full = list(ops)
            for i, x in zip(floats, xs, strict=True):
                full[i] = x
            return fun(*full)

        out, t_dense = mg.jvp(f, tuple(ops[i] for i in floats),
                              tuple(tangents[i] for i in floats))
        assert t_dense.shape == np.shape(out)
        assert t_dense.dtype == tangent_dtype(np.asarray(out).dtype)
        return
    out, t_out = case.prim.jvp(tuple(ops), tangents, **case.sample.params)
    assert isinstance(t_out, Zero)
    assert t_out.aval.shape == np.shape(out)
    assert t_out.aval.dtype == tangent_dtype(np.asarray(out).dtype)


def test_differentiable_records_declare_their_operands() -> None:
    # Only the narrowing conversion opts out of check_primitive's JVP check (see below), and
    # stop_gradient, whose zero derivative is not the finite differences of its values
    # (tests/test_stop_gradient.py checks it), and the records with NaN inputs (reduce_min,
    # cummax), whose finite differences are NaN: the values at NaN are checked here, and the
    # derivatives there against JAX's (tests/surface_records: the max/min/lax edges).
    undeclared = [c.id for c in CASES if is_differentiable(c) and not c.sample.diff]
    assert undeclared == ["convert_element_type:f64->f32-f64", "stop_gradient:x-f64",
                          "stop_gradient:x-f32", "reduce_min:nan-f64", "cummax:nan-f64"]


def test_convert_narrowing_jvp() -> None:
    # f64 -> f32 converts the tangent too. A finite-difference step must be one the f32 output
    # resolves, so this record checks with its own step rather than check_primitive's.
    x = np.random.default_rng(0).standard_normal((2, 3))
    t = np.random.default_rng(1).standard_normal((2, 3))

    def f(x: Any) -> Any:
        return ew.convert_element_type_p.bind(x, new_dtype=F32)

    _, t_out = mg.jvp(f, (x,), (t,))
    assert t_out.dtype == F32
    np.testing.assert_array_equal(t_out, t.astype(F32))
    check_jvp(f, [x], eps=1e-3, atol=1e-3, rtol=1e-3)


def test_every_record_dtype_is_run() -> None:
    # The float32 subset is real: at least a quarter of the floating records run in float32.
    floating = [r for r in {id(c.record): c.record for c in CASES}.values() if F64 in r.dtypes]
    assert sum(F32 in r.dtypes for r in floating) * 4 >= len(floating)


def test_max_ties_share_the_derivative() -> None:
    # Finite differences cannot see ties (the records avoid them); the rule gives each side half.
    x, y = np.array([1.0, 2.0, 3.0]), np.array([1.0, 0.0, 5.0])
    tx, ty = np.array([2.0, 1.0, 1.0]), np.array([4.0, 1.0, 1.0])
    _, t_out = mg.jvp(lambda a, b: ew.max_p.bind(a, b), (x, y), (tx, ty))
    np.testing.assert_array_equal(t_out, [3.0, 1.0, 1.0])


def test_reduce_max_ties_share_the_derivative() -> None:
    x = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]])
    grad = mg.grad(lambda a: st.reduce_sum_p.bind(ew.reduce_max_p.bind(a, axes=(1,)),
                                                  axes=(0,)))(x)
    np.testing.assert_allclose(grad, [[0.0, 0.5, 0.5], [1 / 3, 1 / 3, 1 / 3]])


def test_check_index_rejects_out_of_range_entries() -> None:
    params = {"size": 4, "op": "demo", "dim": 1}
    with pytest.raises(IndexError, match=r"demo: index entries must be in \[0, 4\) for dim 1; "
                       r"got -1"):
        check_index_p.bind(np.array([0, -1]), **params)
    batched = np.array([[0, 1], [3, 4]])  # the second example is out of range
    with pytest.raises(IndexError, match="got 4"):
        mg.vmap(lambda i: check_index_p.bind(i, **params))(batched)


# --------------------------------------------------------------------------- drawn shapes

dims = hst.lists(hst.integers(0, 3), max_size=3).map(tuple)

UNARY = [(ew.neg_p, np.negative, normal), (ew.exp_p, np.exp, normal),
         (ew.sin_p, np.sin, normal), (ew.cos_p, np.cos, normal), (ew.tanh_p, np.tanh, normal),
         (ew.log_p, np.log, positive), (ew.sqrt_p, np.sqrt, positive)]


def one_operand(name: str, draw: Any, shape: tuple, dtype: np.dtype, params: dict,
                reference: Any) -> Sample:
    return Sample(name, lambda rng: (draw(rng, shape, dtype),), params, diff=(0,),
                  reference=reference)


@zero_example_warnings
@given(hst.sampled_from(UNARY), dims, hst.sampled_from(BOTH))
def test_unary_any_shape(op: tuple, shape: tuple, dtype: np.dtype) -> None:
    prim, ufunc, draw = op
    check_primitive(prim, [one_operand(f"{shape}", draw, shape, dtype, {},
                                       lambda x: ufunc(x))])


@hst.composite
def shape_and_axes(draw: Any) -> tuple:
    shape = draw(dims)
    chosen = draw(hst.lists(hst.booleans(), min_size=len(shape), max_size=len(shape)))
    return shape, tuple(i for i, c in enumerate(chosen) if c)


@given(shape_and_axes())
def test_reduce_sum_any_axes(case: tuple) -> None:
    shape, axes = case
    sample = one_operand(f"{shape} axes={axes}", integral, shape, F64, {"axes": axes},
                         lambda x, *, axes: np.add.reduce(x, axis=axes))
    sample.linear = ((0,),)
    check_primitive(st.reduce_sum_p, [sample])


@hst.composite
def shape_and_permutation(draw: Any) -> tuple:
    shape = draw(dims)
    return shape, tuple(draw(hst.permutations(range(len(shape)))))


@given(shape_and_permutation())
def test_transpose_any_permutation(case: tuple) -> None:
    shape, perm = case
    sample = one_operand(f"{shape} perm={perm}", normal, shape, F64, {"permutation": perm},
                         lambda x, *, permutation: np.moveaxis(x, permutation, range(x.ndim)))
    sample.linear = ((0,),)
    check_primitive(st.transpose_p, [sample])


@hst.composite
def broadcast_case(draw: Any) -> tuple:
    shape = tuple(draw(hst.lists(hst.integers(0, 3), max_size=4)))
    kept = draw(hst.lists(hst.booleans(), min_size=len(shape), max_size=len(shape)))
    bdims = tuple(i for i, k in enumerate(kept) if k)
    ones = draw(hst.lists(hst.booleans(), min_size=len(bdims), max_size=len(bdims)))
    operand = tuple(1 if one else shape[b] for b, one in zip(bdims, ones, strict=True))
    return operand, shape, bdims


@given(broadcast_case())
def test_broadcast_in_dim_any_shape(case: tuple) -> None:
    operand, shape, bdims = case
    params = {"shape": shape, "broadcast_dimensions": bdims}

    def reference(x: np.ndarray, *, shape: tuple, broadcast_dimensions: tuple) -> np.ndarray:
        expanded = [1] * len(shape)
        for i, b in enumerate(broadcast_dimensions):
            expanded[b] = x.shape[i]
        return np.broadcast_to(x.reshape(expanded), shape)

    sample = one_operand(f"{operand}->{shape} at {bdims}", normal, operand, F64, params,
                         reference)
    sample.linear = ((0,),)
    check_primitive(st.broadcast_in_dim_p, [sample])


@given(broadcast_case(), hst.sampled_from([np.float64, np.float32, np.int64, np.bool_]))
def test_broadcast_view_is_broadcast_to(case: tuple, dtype: Any) -> None:
    # The speed formulation of broadcast_in_dim's impl against np.broadcast_to: the same
    # values and shape, a read-only view of x's memory.
    operand, shape, bdims = case
    expanded = [1] * len(shape)
    for i, b in enumerate(bdims):
        expanded[b] = operand[i]
    x = (np.arange(int(np.prod(operand, dtype=np.int64))) % 3).astype(dtype).reshape(expanded)
    if not x.size:
        return
    got, expected = st.broadcast_view(x, shape), np.broadcast_to(x, shape)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)
    assert not got.flags.writeable and (np.shares_memory(got, x) or not got.size)


@given(hst.integers(0, 10**6), hst.integers(0, 80), hst.integers(0, 40),
       hst.sampled_from([np.int8, np.int32, np.int64, np.uint8, np.uint64]))
def test_index_in_range_is_the_plain_range_test(seed: int, n: int, size: int, dtype: Any
                                                ) -> None:
    from minigrad.ops.indexing import index_in_range

    rng = np.random.default_rng(seed)
    low = 0 if np.dtype(dtype).kind == "u" else -3
    index = rng.integers(low, size + 3, (n,)).astype(dtype)
    for idx in (index, index.reshape(-1, 1) if n else index):
        assert index_in_range(idx, size) == bool(((idx >= 0) & (idx < size)).all())

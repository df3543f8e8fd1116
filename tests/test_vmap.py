"""vmap: in_axes/out_axes as tree prefixes, sizes, nesting, kwargs, and every error."""

from collections import namedtuple

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import minigrad as mg
import minigrad.numpy as mnp
from minigrad.core import Primitive, ShapedArray
from minigrad.testing import check_vmap

rng = np.random.default_rng(0)
X = rng.standard_normal((4, 3))
Y = rng.standard_normal((3, 4))


# --------------------------------------------------------------------------- in_axes


def test_default_axis_zero_matches_loop():
    check_vmap(lambda r: mnp.sin(r) * r.sum(), [X])
    check_vmap(lambda a, b: a @ b, [X, Y], (0, None))


def test_in_axes_tuple_with_none():
    out = mg.vmap(lambda a, b: a * b, in_axes=(1, None))(Y, np.arange(3.0))
    np.testing.assert_allclose(out, Y.T * np.arange(3.0))


def test_in_axes_list_means_tuple():
    out = mg.vmap(lambda a, b: a * b, in_axes=[1, None])(Y, np.arange(3.0))
    np.testing.assert_allclose(out, Y.T * np.arange(3.0))


def test_in_axes_list_for_list_argument():
    out = mg.vmap(lambda xs: xs[0] + xs[1], in_axes=([0, None],))([X, np.ones(3)])
    np.testing.assert_allclose(out, X + 1.0)


def test_in_axes_dict_prefix():
    d = {"w": X, "b": np.arange(3.0)}
    out = mg.vmap(lambda p: p["w"] * p["b"], in_axes=({"w": 0, "b": None},))(d)
    np.testing.assert_allclose(out, X * np.arange(3.0))


def test_in_axes_none_covers_subtree():
    out = mg.vmap(lambda x, p: x * p[0] + p[1]["c"], in_axes=(0, None))(
        X, (np.float64(2.0), {"c": np.ones(3)}))
    np.testing.assert_allclose(out, 2 * X + 1)


def test_in_axes_namedtuple():
    P = namedtuple("P", "a b")
    out = mg.vmap(lambda p: p.a - p.b, in_axes=(P(0, 1),))(P(X, Y))
    np.testing.assert_allclose(out, X - Y.T)


def test_negative_in_axes():
    out = mg.vmap(lambda r: r.sum(), in_axes=-1)(X)
    np.testing.assert_allclose(out, X.sum(0))
    check_vmap(lambda r: r * 2.0, [X], (-1,))
    z = rng.standard_normal((2, 3, 5))
    np.testing.assert_allclose(mg.vmap(lambda m: m.sum(0), in_axes=-2)(z), z.sum(0))


@given(axis=st.integers(-3, 2), out_axis=st.integers(-3, 2))
def test_in_and_out_axes_agree_with_numpy(axis, out_axis):
    z = np.arange(24.0).reshape(2, 3, 4)
    out = mg.vmap(lambda m: m * 2.0, in_axes=axis, out_axes=out_axis)(z)
    np.testing.assert_array_equal(out, np.moveaxis(z, axis, out_axis) * 2.0)


# --------------------------------------------------------------------------- out_axes


def test_out_axes_tuple():
    a, b = mg.vmap(lambda r: (r, r * 2.0), out_axes=(0, 1))(X)
    np.testing.assert_allclose(a, X)
    np.testing.assert_allclose(b, 2 * X.T)


def test_out_axes_dict_and_negative():
    out = mg.vmap(lambda r: {"p": r, "q": r.sum()}, out_axes={"p": -1, "q": 0})(X)
    np.testing.assert_allclose(out["p"], X.T)
    np.testing.assert_allclose(out["q"], X.sum(1))


def test_out_axes_none_for_unmapped_output():
    a, c = mg.vmap(lambda r: (r * 2.0, np.arange(3.0)), out_axes=(0, None))(X)
    np.testing.assert_allclose(a, 2 * X)
    np.testing.assert_array_equal(c, np.arange(3.0))


def test_unbatched_outputs_are_broadcast():
    out = mg.vmap(lambda r: (r, np.ones(2), 3.0 * np.ones(()), mnp.arange(3)))(X)
    assert out[1].shape == (4, 2)
    assert out[2].shape == (4,) and np.all(out[2] == 3.0)
    np.testing.assert_array_equal(out[3], np.tile(np.arange(3), (4, 1)))
    assert out[3].dtype == np.int64


def test_unbatched_output_at_out_axis():
    out = mg.vmap(lambda r: np.arange(2.0), out_axes=1)(X)
    np.testing.assert_array_equal(out, np.tile(np.arange(2.0)[:, None], (1, 4)))


def test_output_depending_only_on_unbatched_argument():
    out = mg.vmap(lambda r, c: (r, c * 2.0), in_axes=(0, None))(X, np.arange(3.0))
    np.testing.assert_allclose(out[1], np.tile(2 * np.arange(3.0), (4, 1)))


# --------------------------------------------------------------------------- sizes


def test_axis_size_with_all_in_axes_none():
    out = mg.vmap(lambda c: c * 2.0, in_axes=None, axis_size=5)(np.arange(3.0))
    np.testing.assert_array_equal(out, np.tile(2 * np.arange(3.0), (5, 1)))


def test_axis_size_with_no_arguments():
    out = mg.vmap(lambda: mnp.ones(2), axis_size=3)()
    assert out.shape == (3, 2)


def test_axis_size_agreeing_with_mapped_argument():
    np.testing.assert_allclose(mg.vmap(mnp.sin, axis_size=4)(X), np.sin(X))


def test_batch_size_zero():
    z = np.zeros((0, 3))
    out = mg.vmap(lambda r: (r * 2.0, r.sum(), r @ np.ones((3, 2))))(z)
    assert [o.shape for o in out] == [(0, 3), (0,), (0, 2)]
    check_vmap(lambda r: mnp.exp(r).sum(), [z])


def test_axis_size_zero():
    out = mg.vmap(lambda c: c + 1.0, in_axes=None, axis_size=0)(np.ones(3))
    assert out.shape == (0, 3)


# --------------------------------------------------------------------------- nesting


def test_nested_vmap_outer_product():
    a, b = np.arange(3.0), np.arange(4.0)
    out = mg.vmap(mg.vmap(lambda x, y: x * y, in_axes=(None, 0)), in_axes=(0, None))(a, b)
    np.testing.assert_allclose(out, np.outer(a, b))


def test_nested_vmap_different_axes():
    z = rng.standard_normal((2, 3, 4))
    f = mg.vmap(mg.vmap(lambda v: v.sum(), in_axes=1), in_axes=2)
    np.testing.assert_allclose(f(z), z.sum(0).T)
    g = mg.vmap(mg.vmap(lambda v: v * 2.0, in_axes=0, out_axes=1), in_axes=1, out_axes=0)
    out = g(z)  # outer maps axis 1 of z (3); inner maps axis 0 of the (2, 4) slices
    assert out.shape == (3, 4, 2)
    np.testing.assert_allclose(out, 2 * np.transpose(z, (1, 2, 0)))


def test_nested_vmap_matvec():
    m = rng.standard_normal((5, 2, 3))
    v = rng.standard_normal((4, 3))
    out = mg.vmap(mg.vmap(lambda a, b: a @ b, in_axes=(None, 0)), in_axes=(0, None))(m, v)
    np.testing.assert_allclose(out, np.einsum("bij,cj->bci", m, v))


# --------------------------------------------------------------------------- keyword arguments


def test_keyword_arguments_mapped_on_axis_zero():
    out = mg.vmap(lambda a, b: a * b, in_axes=(None,))(np.float64(2.0), b=np.arange(3.0))
    np.testing.assert_allclose(out, 2 * np.arange(3.0))
    out = mg.vmap(lambda a, *, scale: a * scale, in_axes=1)(Y, scale=np.arange(4.0))
    np.testing.assert_allclose(out, Y.T * np.arange(4.0)[:, None])


def test_keyword_argument_size_error_names_kwarg():
    with pytest.raises(ValueError, match=r"kwargs\['b'\] of shape \(5,\)"):
        mg.vmap(lambda a, b: a * b)(np.ones(3), b=np.ones(5))


# --------------------------------------------------------------------------- errors


def test_error_inconsistent_sizes_names_each_argument():
    with pytest.raises(ValueError, match="inconsistent sizes") as info:
        mg.vmap(lambda a, b: a["w"] + b, in_axes=({"w": 1}, 0))({"w": np.ones((2, 3))},
                                                                  np.ones(4))
    msg = str(info.value)
    assert "args[0]['w'] of shape (2, 3) mapped along axis 1 has size 3" in msg
    assert "args[1] of shape (4,) mapped along axis 0 has size 4" in msg


def test_error_bad_operand_names_its_path():
    # Paths are spelled only when a leaf needs them: these errors must still name the leaf.
    with pytest.raises(TypeError, match=r"vmap: args\[1\]\['b'\] must be an array"):
        mg.vmap(lambda a, d: a)(X, {"a": X, "b": "text"})
    with pytest.raises(TypeError, match=r"vmap: args\[0\] must be an array"):
        mg.vmap(lambda a: a)(np.array([object()]))


def test_python_scalar_argument_is_converted():
    out = mg.vmap(lambda a, s: a * s, in_axes=(0, None))(X, 2.0)
    np.testing.assert_allclose(out, X * 2.0)


def test_error_inconsistent_with_axis_size():
    with pytest.raises(ValueError, match="axis_size is 7"):
        mg.vmap(mnp.sin, axis_size=7)(X)


def test_error_in_axes_too_many_entries():
    with pytest.raises(ValueError, match=r"one entry per positional argument \(2\)"):
        mg.vmap(lambda a, b: a + b, in_axes=(0, 0, 0))(X, X)


def test_error_in_axes_dict_keys_mismatch():
    with pytest.raises(ValueError, match=r"tree prefix of the arguments.*args\[0\]"):
        mg.vmap(lambda d: d["a"], in_axes=({"b": 0},))({"a": X})


def test_error_in_axes_deeper_than_argument():
    with pytest.raises(ValueError, match=r"tree prefix of the arguments.*leaf of shape"):
        mg.vmap(lambda a: a, in_axes=((0, 0),))(X)


def test_error_in_axes_wrong_type():
    with pytest.raises(TypeError, match="in_axes must be ints or None"):
        mg.vmap(lambda a: a, in_axes=0.5)(X)


@pytest.mark.parametrize("axis", [2, -3])
def test_error_axis_out_of_range(axis):
    with pytest.raises(ValueError, match=rf"in_axes {axis} for args\[0\] is out of range"):
        mg.vmap(lambda a: a, in_axes=axis)(X)


def test_error_mapping_a_scalar():
    with pytest.raises(ValueError, match=r"out of range.*shape \(\)"):
        mg.vmap(lambda a: a)(np.float64(1.0))


def test_error_out_axis_out_of_range():
    with pytest.raises(ValueError, match=r"out_axes 3 .*out of range"):
        mg.vmap(lambda a: a, out_axes=3)(X)


def test_error_mapped_output_with_out_axes_none():
    with pytest.raises(ValueError, match=r"out\[1\] is mapped.*out_axes is None"):
        mg.vmap(lambda a: (a.sum(), a), out_axes=(0, None))(X)


def test_error_out_axes_tree_mismatch():
    with pytest.raises(ValueError, match="out_axes must be a tree prefix of the outputs"):
        mg.vmap(lambda a: (a, a), out_axes=(0, 0, 0))(X)


def test_error_no_mapped_argument_and_no_axis_size():
    with pytest.raises(ValueError, match=r"at least one argument mapped.*axis_size"):
        mg.vmap(lambda a: a, in_axes=None)(X)
    with pytest.raises(ValueError, match="axis_size"):
        mg.vmap(lambda: 1.0)()


def test_error_bad_axis_size():
    with pytest.raises(ValueError, match="axis_size must be a non-negative int"):
        mg.vmap(lambda a: a, axis_size=-1)


def test_error_non_array_argument():
    with pytest.raises(TypeError, match=r"vmap: args\[0\] must be an array"):
        mg.vmap(lambda a: a)("abc")


def test_error_missing_batching_rule_names_primitive():
    p = Primitive("no_batch_rule")
    p.def_impl(lambda x: x * 2.0)
    p.def_abstract_eval(lambda x: ShapedArray(x.shape, x.dtype))
    with pytest.raises(NotImplementedError, match="no_batch_rule"):
        mg.vmap(p.bind)(X)


# --------------------------------------------------------------------------- unbatched primitives


def test_unbatched_only_primitive_inside_vmap():
    # A primitive without a batching rule is fine when none of its operands is batched.
    p = Primitive("unbatched_only")
    p.def_impl(lambda x: x * 10.0)
    p.def_abstract_eval(lambda x: ShapedArray(x.shape, x.dtype))
    c = np.arange(3.0)
    out = mg.vmap(lambda r: r + p.bind(c))(X)
    np.testing.assert_allclose(out, X + 10 * c)


def test_constructors_inside_vmap():
    out = mg.vmap(lambda r: r * mnp.arange(3) + mnp.zeros(3) + mnp.full((3,), 0.5))(X)
    np.testing.assert_allclose(out, X * np.arange(3) + 0.5)


def test_vmap_preserves_dtypes():
    x32 = X.astype(np.float32)
    assert mg.vmap(lambda r: r * 2.0 + 1)(x32).dtype == np.float32
    assert mg.vmap(lambda r: r > 0)(x32).dtype == np.bool_
    assert mg.vmap(lambda r: r.sum())(np.arange(6).reshape(2, 3)).dtype == np.int64


def test_vmap_result_is_an_array():
    out = mg.vmap(mnp.sin)(X)
    assert type(out) is mg.Array


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16, np.int32])
def test_batched_narrow_index_folds_without_overflow(dtype):
    # The batching rules fold example b's entries to b * n + i: past 255 for uint8 here.
    x = np.zeros((20, 30, 3))
    index = rng.integers(0, 30, (20, 2)).astype(dtype)
    source = np.ones((20, 2, 3))
    for op in (mg.index_add, mg.index_copy):
        def f(x, i, s, op=op):
            return op(x, 0, i, s)

        expected = np.stack([f(*a) for a in zip(x, index, source, strict=True)])
        np.testing.assert_array_equal(mg.vmap(f)(x, index, source), expected)
        np.testing.assert_array_equal(mg.make_jaxpr(mg.vmap(f))(x, index, source)(x, index, source),
                                      expected)


@pytest.mark.parametrize("shape, bdim", [((4, 3), 0), ((3, 4), 1), ((5, 0), 0), ((2, 3), 1)])
def test_folding_a_concrete_index_matches_the_binds(shape, bdim):
    # fold_index folds a concrete index with NumPy (a speed path); under a transform the same
    # fold is bound. Both give the same int64 entries.
    from minigrad.ops.indexing import fold_concrete_index, fold_index

    index = np.random.default_rng(0).integers(0, 7, shape).astype(np.int32)
    axis_size = shape[bdim]
    fast = fold_concrete_index(index, bdim, 7, axis_size)
    traced = mg.make_jaxpr(lambda i: fold_index(i, bdim, 7, axis_size))(index)
    (bound,) = mg.eval_jaxpr(traced.jaxpr, traced.consts, index)
    assert fast.dtype == bound.dtype == np.int64
    np.testing.assert_array_equal(fast, bound)

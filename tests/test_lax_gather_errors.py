"""Bad input to lax.dot, lax.dot_general, lax.gather and the lax.scatter family: a clear error
naming the function and the argument, raised before any work, eagerly and under jit alike
(out-of-bounds indices under PROMISE_IN_BOUNDS: an IndexError from the impl, under jit too)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg
from minigrad import lax

G, S = lax.GatherDimensionNumbers, lax.ScatterDimensionNumbers
X = np.arange(12.0).reshape(3, 4)
IDX = np.array([[2], [0]])
ROWS_G = G(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
ROWS_S = S(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
U = np.ones((2, 4))
DN = (((1,), (0,)), ((), ()))


def gather(x: Any = X, i: Any = IDX, dn: Any = ROWS_G, sizes: Any = (1, 4), **kw: Any) -> Any:
    return lax.gather(x, i, dn, sizes, **kw)


def scatter(x: Any = X, i: Any = IDX, u: Any = U, dn: Any = ROWS_S, name: str = "scatter_add",
            **kw: Any) -> Any:
    return getattr(lax, name)(x, i, u, dn, **kw)


ROWS: list[tuple[str, Callable[[], Any], type, str]] = [
    # gather: arguments
    ("float indices", lambda: gather(i=IDX.astype(float)), TypeError,
     r"gather: start_indices must be an integer array; got f64\[2,1\]"),
    ("rank-0 indices", lambda: gather(i=np.int64(0)), ValueError,
     "gather: the indices must have at least one axis"),
    ("plain tuple as dimension numbers", lambda: gather(dn=((1,), (0,), (0,))), TypeError,
     "gather: dimension_numbers must be a lax.GatherDimensionNumbers"),
    ("index vector length", lambda: gather(i=np.array([[2, 0]])), ValueError,
     r"gather: the index vector .* must have one entry per axis in start_index_map \(0,\)"),
    ("start_index_map out of range", lambda: gather(dn=G((1,), (0,), (2,))), ValueError,
     r"gather: start_index_map must be distinct axes in \[0, 2\); got \(2,\)"),
    ("start_index_map repeated", lambda: gather(i=np.array([[0, 0]]),
                                                dn=G((1,), (0,), (0, 0))), ValueError,
     "gather: start_index_map must be distinct axes"),
    ("offset_dims unsorted", lambda: gather(x=np.ones((3, 4, 2)), dn=G((2, 1), (0,), (0,)),
                                            sizes=(1, 4, 2)), ValueError,
     r"gather: offset_dims must be sorted; got \(2, 1\)"),
    ("offset_dims out of range", lambda: gather(dn=G((2,), (0,), (0,))), ValueError,
     r"gather: offset_dims must be distinct axes in \[0, 2\); got \(2,\)"),
    ("offset_dims too few", lambda: gather(dn=G((), (), (0,)), sizes=(1, 4)), ValueError,
     "gather: offset_dims must name one axis per window axis"),
    ("offset_dims not ints", lambda: gather(dn=G((1.0,), (0,), (0,))), TypeError,
     "gather: offset_dims must hold ints"),
    ("collapsed slice size", lambda: gather(sizes=(2, 4)), ValueError,
     "gather: the slice size of collapsed_slice_dims axis 0 must be 1; got 2"),
    ("slice too large", lambda: gather(sizes=(1, 5)), ValueError,
     r"gather: the window size of operand axis 1 must be in \[0, 4\]; got 5"),
    ("slice negative", lambda: gather(sizes=(1, -1)), ValueError,
     r"gather: the window size of operand axis 1 must be in \[0, 4\]; got -1"),
    ("slice_sizes length", lambda: gather(sizes=(1,)), ValueError,
     r"gather: slice_sizes must have one size per operand axis \(2\); got \(1,\)"),
    ("slice_sizes not ints", lambda: gather(sizes=(1, 4.5)), TypeError,
     "gather: slice_sizes must be a sequence of ints"),
    ("batching dims disjoint from collapsed",
     lambda: gather(i=np.zeros((3, 1), int), dn=G((), (0, 1), (1,), (0,), (0,)),
                    sizes=(1, 1)), ValueError,
     "gather: collapsed_slice_dims and operand_batching_dims must be disjoint"),
    ("batching dims disjoint from start_index_map",
     lambda: gather(i=np.zeros((3, 1), int), dn=G((), (1,), (0,), (0,), (0,)), sizes=(1, 1)),
     ValueError, "gather: start_index_map and operand_batching_dims must be disjoint"),
    ("batching sizes", lambda: gather(i=np.zeros((2, 1), int),
                                      dn=G((), (1,), (1,), (0,), (0,)), sizes=(1, 1)),
     ValueError, r"gather: operand batching axis 0 \(size 3\) and index batching axis 0 "
     r"\(size 2\) must have one size"),
    ("batching names the index vector", lambda: gather(i=np.zeros((3, 1), int),
                                                       dn=G((), (1,), (1,), (0,), (1,)),
                                                       sizes=(1, 1)),
     ValueError, "gather: start_indices_batching_dims cannot name the index vector axis"),
    ("batching lengths", lambda: gather(i=np.zeros((3, 1), int),
                                        dn=G((), (1,), (1,), (0,), ()), sizes=(1, 1)),
     ValueError, "gather: operand_batching_dims and start_indices_batching_dims must be "
     "equally long"),
    ("mode unknown", lambda: gather(mode="wrap"), ValueError,
     "gather: mode must be None, a GatherScatterMode or one of"),
    ("mode one_hot", lambda: gather(mode="one_hot"), ValueError,
     "gather: mode ONE_HOT is jnp.take_along_axis's, not a lax mode"),
    ("unique_indices not a bool", lambda: gather(unique_indices=1), TypeError,
     "gather: unique_indices must be a bool; got 1"),
    ("fill_value not a scalar", lambda: gather(mode="fill", fill_value=np.zeros(2)), ValueError,
     r"gather: fill_value must be a scalar; got shape \(2,\)"),
    # gather: out of bounds under PROMISE_IN_BOUNDS (the default): never clamped or wrapped
    ("promise, past the end", lambda: gather(i=np.array([[3]])), IndexError,
     "gather: index 3 is out of bounds for axis 0 with size 3"),
    ("promise, negative", lambda: gather(i=np.array([[-1]])), IndexError,
     "gather: index -1 is out of bounds for axis 0 with size 3"),
    ("promise, window past the end", lambda: gather(i=np.array([[0, 3]]),
                                                    dn=G((1, 2), (), (0, 1)), sizes=(1, 2)),
     IndexError, "gather: index 4 is out of bounds for axis 1 with size 4"),
    # scatters
    ("updates dtype", lambda: scatter(u=U.astype(np.float32)), TypeError,
     r"scatter_add: updates must have operand's dtype float64 \(lax never promotes\); got "
     r"f32\[2,4\]"),
    ("scatter float indices", lambda: scatter(i=IDX.astype(float)), TypeError,
     "scatter_add: scatter_indices must be an integer array"),
    ("updates rank", lambda: scatter(u=np.ones(2)), ValueError,
     r"scatter_add: updates must have rank 2 \(the indices' 1 batch axes and 1 window axes\); "
     r"got shape \(2,\)"),
    ("updates scatter shape", lambda: scatter(u=np.ones((3, 4))), ValueError,
     r"scatter_add: the update scatter axes \(0,\) of updates \(3, 4\) must be the indices' "
     r"batch shape \(2,\); got \(3,\)"),
    ("updates window too large", lambda: scatter(u=np.ones((2, 5))), ValueError,
     r"scatter_add: the window size of operand axis 1 must be in \[0, 4\]; got 5"),
    ("scatter dimension numbers type", lambda: scatter(dn=ROWS_G), TypeError,
     "scatter_add: dimension_numbers must be a lax.ScatterDimensionNumbers"),
    ("update_window_dims unsorted", lambda: scatter(x=np.ones((3, 4, 2)),
                                                    u=np.ones((2, 2, 4)),
                                                    dn=S((2, 1), (0,), (0,))), ValueError,
     r"scatter_add: update_window_dims must be sorted; got \(2, 1\)"),
    ("scatter_sub of bools", lambda: scatter(x=X > 1, u=U > 0, name="scatter_sub"), TypeError,
     "scatter_sub: operand must be numeric, not bool"),
    ("scatter mode", lambda: scatter(name="scatter_max", mode="nearest"), ValueError,
     "scatter_max: mode must be None"),
    ("scatter promise out of bounds", lambda: scatter(i=np.array([[3], [0]]),
                                                      mode="promise_in_bounds"),
     IndexError, "scatter_add: index 3 is out of bounds for axis 0 with size 3"),
    ("scatter indices_are_sorted", lambda: scatter(name="scatter", indices_are_sorted="yes"),
     TypeError, "scatter: indices_are_sorted must be a bool"),
    ("scatter_apply func", lambda: lax.scatter_apply(X, IDX, 3.0, ROWS_S, update_shape=(2, 4)),
     TypeError, "scatter_apply: func must be callable; got 3.0"),
    ("scatter_apply update_shape", lambda: lax.scatter_apply(X, IDX, abs, ROWS_S,
                                                             update_shape=(2,)),
     ValueError, r"scatter_apply: updates must have rank 2"),
    ("scatter_apply update_shape not ints", lambda: lax.scatter_apply(X, IDX, abs, ROWS_S,
                                                                      update_shape="ab"),
     TypeError, "scatter_apply: update_shape must be a sequence of ints"),
    # dot and dot_general
    ("dot_general contracting sizes", lambda: lax.dot_general(np.ones((2, 3)), np.ones((4, 2)),
                                                              DN), ValueError,
     r"dot_general: contracting axes must have equal sizes; lhs axis 1 of f64\[2,3\] has 3, "
     r"rhs axis 0 of f64\[4,2\] has 4"),
    ("dot_general batch sizes", lambda: lax.dot_general(np.ones((2, 3)), np.ones((3, 3)),
                                                        (((1,), (0,)), ((0,), (1,)))),
     ValueError, "dot_general: batch axes must have equal sizes"),
    ("dot_general axis out of range", lambda: lax.dot_general(np.ones((2, 3)), np.ones(3),
                                                              (((2,), (0,)), ((), ()))),
     ValueError, r"dot_general: lhs_contracting must be distinct axes in \[0, 2\); got \(2,\)"),
    ("dot_general negative axis", lambda: lax.dot_general(np.ones((2, 3)), np.ones(3),
                                                          (((-1,), (0,)), ((), ()))),
     ValueError, "dot_general: lhs_contracting must be distinct axes"),
    ("dot_general contracting and batch", lambda: lax.dot_general(
        np.ones((3, 3)), np.ones((3, 3)), (((0,), (0,)), ((0,), (1,)))), ValueError,
     "dot_general: an lhs axis cannot be both contracting and batch"),
    ("dot_general lengths", lambda: lax.dot_general(np.ones((2, 3)), np.ones((3, 2)),
                                                    (((1, 0), (0,)), ((), ()))), ValueError,
     "dot_general: lhs and rhs must name as many contracting axes"),
    ("dot_general malformed numbers", lambda: lax.dot_general(np.ones((2, 3)), np.ones(3),
                                                              ((1,), (0,))), TypeError,
     r"dot_general: dimension_numbers must be \(\(lhs_contracting, rhs_contracting\), "),
    ("dot_general precision", lambda: lax.dot_general(np.ones((2, 3)), np.ones(3), DN,
                                                      precision="best"), ValueError,
     "dot_general: precision must be None, a lax.Precision"),
    ("dot_general preferred narrower", lambda: lax.dot_general(
        np.ones((2, 3), np.int64), np.ones(3, np.int64), DN, preferred_element_type=np.int8),
     TypeError, "dot_general: preferred_element_type must not be narrower than the operands' "
     "int64; got int8"),
    ("dot_general preferred not a dtype", lambda: lax.dot_general(
        np.ones((2, 3)), np.ones(3), DN, preferred_element_type="nonsense"), TypeError,
     "dot_general: preferred_element_type must be None or a dtype"),
    ("dot_general strings", lambda: lax.dot_general(np.array([["a"]]), np.ones(1), DN),
     TypeError, "dot_general: lhs must be a numeric array"),
    ("dot_general out_sharding", lambda: lax.dot_general(np.ones((2, 3)), np.ones(3), DN,
                                                         out_sharding="x"), ValueError,
     "dot_general: out_sharding must be None"),
    ("dot of 3-D operands", lambda: lax.dot(np.ones((2, 2, 3)), np.ones(3)), ValueError,
     r"dot: dimension_numbers must be given unless the operands are 1-D or 2-D .* got shapes "
     r"\(2, 2, 3\) and \(3,\)"),
    ("dot of mismatched matrices", lambda: lax.dot(np.ones((2, 3)), np.ones((2, 3))),
     ValueError, "dot: dimension_numbers must be given"),
]


@pytest.mark.parametrize("label, call, kind, message", ROWS, ids=[r[0] for r in ROWS])
def test_bad_input(label: str, call: Callable[[], Any], kind: type, message: str) -> None:
    with pytest.raises(kind, match=message):
        call()


@pytest.mark.parametrize("label, call, kind, message", ROWS, ids=[r[0] for r in ROWS])
def test_bad_input_under_jit(label: str, call: Callable[[], Any], kind: type, message: str
                             ) -> None:
    # the same error from a staged program: checks on shapes run at trace time, out-of-bounds
    # indices in the impl of the compiled program
    with pytest.raises(kind, match=message):
        mg.jit(lambda _: call())(0.0)

"""Op records of the base primitives: how to draw each one's operands, which are differentiable,
which groups of operands it is jointly linear in (the others held at their drawn values), the
dtypes to run, and an independent NumPy ``reference``. ``RECORDS`` feeds the rule tests
(``tests/records.py``), ``python -m minigrad check`` and ``samples_for`` (at the end of this
module). Adding a primitive means adding a record here, not writing a test.

``check_primitive`` compares the impl with the reference exactly, so the references are written
to give bit-identical results: loops where the op moves or adds data (with integer-valued
operands wherever a sum's order could matter), NumPy's own ufuncs for the transcendental ops.
"""

from __future__ import annotations

import itertools
import operator
from typing import Any, Callable

import numpy as np

from minigrad.core import Primitive
from minigrad.ops import elementwise as ew
from minigrad.ops import structural as st
from minigrad.ops.index_add import index_add_p, index_select_p
from minigrad.ops.index_copy import index_copy_p, last_occurrence_p
from minigrad.ops.index_fill import index_fill_p
from minigrad.ops.indexing import check_index_p
from minigrad.ops.masked_fill import masked_fill_p
from minigrad.ops.masked_scatter import masked_gather_p, masked_scatter_p
from minigrad.ops.stop_gradient import stop_gradient_p
from minigrad.staging import jit_p
from minigrad.testing.control_flow import control_flow_samples
from minigrad.testing.records_bits import RECORDS as BIT_RECORDS
from minigrad.testing.samples import (
    BOTH,
    F32,
    F64,
    I32,
    I64,
    OPS,
    OpRecord,
    Sample,
    apart,
    bool_mask,
    distinct,
    index_with_duplicate,
    integral,
    loop_index_copy,
    loop_index_fill,
    loop_masked_fill,
    loop_masked_gather,
    loop_masked_scatter,
    nonzero,
    normal,
    op_records,
    op_samples,
    positive,
    registered,
    with_ties,
)

# --------------------------------------------------------------------------- references


def ref_compare(op: Callable[[Any, Any], bool]) -> Callable[..., np.ndarray]:
    return np.vectorize(op, otypes=[bool])


def ref_select(pred: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    out = y.copy()
    out[pred] = x[pred]
    return out


def ref_convert(x: np.ndarray, *, new_dtype: np.dtype) -> np.ndarray:
    return np.array(x, dtype=new_dtype)


def ref_dot(x: np.ndarray, y: np.ndarray, *, subscripts: str) -> np.ndarray:
    """The einsum as a loop over every assignment of the index letters."""
    ins, out_letters = subscripts.split("->")
    a, b = ins.split(",")
    sizes = dict(zip(a, x.shape, strict=True)) | dict(zip(b, y.shape, strict=True))
    letters = sorted(sizes)
    out = np.zeros([sizes[c] for c in out_letters], x.dtype)
    for values in itertools.product(*(range(sizes[c]) for c in letters)):
        at = dict(zip(letters, values, strict=True))
        out[tuple(at[c] for c in out_letters)] += (x[tuple(at[c] for c in a)]
                                                   * y[tuple(at[c] for c in b)])
    return out


def ref_transpose(x: np.ndarray, *, permutation: tuple) -> np.ndarray:
    out = np.empty([x.shape[p] for p in permutation], x.dtype)
    for idx in np.ndindex(x.shape):
        out[tuple(idx[p] for p in permutation)] = x[idx]
    return out


def ref_broadcast_in_dim(x: np.ndarray, *, shape: tuple, broadcast_dimensions: tuple
                         ) -> np.ndarray:
    out = np.empty(shape, x.dtype)
    for idx in np.ndindex(*shape):
        out[idx] = x[tuple(0 if x.shape[i] == 1 else idx[b]
                           for i, b in enumerate(broadcast_dimensions))]
    return out


def ref_reshape(x: np.ndarray, *, new_sizes: tuple) -> np.ndarray:
    out = np.empty(new_sizes, x.dtype)
    for k, idx in enumerate(np.ndindex(*new_sizes)):
        out[idx] = x[np.unravel_index(k, x.shape)]
    return out


def ref_squeeze(x: np.ndarray, *, dimensions: tuple) -> np.ndarray:
    return x[tuple(0 if i in dimensions else slice(None) for i in range(x.ndim))]


def ref_expand_dims(x: np.ndarray, *, dimensions: tuple) -> np.ndarray:
    ndim = x.ndim + len(dimensions)
    return x[tuple(None if i in dimensions else slice(None) for i in range(ndim))]


def ref_concatenate(*xs: np.ndarray, dimension: int) -> np.ndarray:
    shape = list(xs[0].shape)
    shape[dimension] = sum(x.shape[dimension] for x in xs)
    out = np.empty(shape, xs[0].dtype)
    start = 0
    for x in xs:
        where = [slice(None)] * len(shape)
        where[dimension] = slice(start, start + x.shape[dimension])
        out[tuple(where)] = x
        start += x.shape[dimension]
    return out


def ref_slice(x: np.ndarray, *, start_indices: tuple, limit_indices: tuple, strides: tuple
              ) -> np.ndarray:
    for axis, (s, lim, st_) in enumerate(zip(start_indices, limit_indices, strides, strict=True)):
        x = np.take(x, list(range(s, lim, st_)), axis=axis)
    return x


def ref_pad(x: np.ndarray, *, padding_config: tuple) -> np.ndarray:
    shape = [lo + hi + n + max(n - 1, 0) * interior
             for (lo, hi, interior), n in zip(padding_config, x.shape, strict=True)]
    out = np.zeros(shape, x.dtype)
    for idx in np.ndindex(x.shape):
        out[tuple(lo + k * (interior + 1)
                  for (lo, _, interior), k in zip(padding_config, idx, strict=True))] = x[idx]
    return out


def _ref_reduce(combine: Callable[[Any, Any], Any], init: float) -> Callable[..., np.ndarray]:
    def reference(x: np.ndarray, *, axes: tuple) -> np.ndarray:
        kept = [i for i in range(x.ndim) if i not in axes]
        out = np.full([x.shape[i] for i in kept], init, x.dtype)
        for idx in np.ndindex(x.shape):
            at = tuple(idx[i] for i in kept)
            out[at] = combine(out[at], x[idx])
        return out

    return reference


ref_reduce_sum = _ref_reduce(operator.add, 0.0)
ref_reduce_max = _ref_reduce(max, -np.inf)


def ref_cumsum(x: np.ndarray, *, axis: int, reverse: bool) -> np.ndarray:
    out = np.zeros_like(x)
    n = x.shape[axis]
    for idx in np.ndindex(x.shape):
        window = range(idx[axis], n) if reverse else range(idx[axis] + 1)
        for j in window:
            source = (*idx[:axis], j, *idx[axis + 1:])
            out[idx] += x[source]
    return out


def _along(dim: int, i: int, ndim: int) -> tuple:
    return (slice(None),) * dim + (i,) + (slice(None),) * (ndim - dim - 1)


def ref_index_select(x: np.ndarray, index: np.ndarray, *, dim: int) -> np.ndarray:
    shape = list(x.shape)
    shape[dim] = len(index)
    out = np.empty(shape, x.dtype)
    for k, i in enumerate(index):
        out[_along(dim, k, x.ndim)] = x[_along(dim, int(i), x.ndim)]
    return out


def ref_index_add(x: np.ndarray, index: np.ndarray, source: np.ndarray, *, dim: int,
                  alpha: float) -> np.ndarray:
    out = x.copy()
    for k, i in enumerate(index):
        out[_along(dim, int(i), x.ndim)] += alpha * source[_along(dim, k, x.ndim)]
    return out


# --------------------------------------------------------------------------- the table


def unary(prim: Primitive, ufunc: Callable, draw: Callable = normal, shape: tuple = (2, 3),
          dtypes: tuple = BOTH, linear: bool = False) -> OpRecord:
    return OpRecord(prim, "x", lambda rng, dt: (draw(rng, shape, dt),),
                    lambda x: ufunc(x), diff=(0,), linear=((0,),) if linear else (),
                    dtypes=dtypes)


def comparison(prim: Primitive, op: Callable[[Any, Any], bool], dtypes: tuple = (F64,)
               ) -> OpRecord:
    def make(rng: np.random.Generator, dtype: np.dtype) -> tuple:
        x = normal(rng, (3, 4), dtype)
        return x, with_ties(rng, x)

    return OpRecord(prim, "ties", make, ref_compare(op), dtypes=dtypes, out_dtype=np.dtype(bool))


def shaped(prim: Primitive, variant: str, shape: tuple, reference: Callable, params: dict,
           draw: Callable = normal, dtypes: tuple = BOTH) -> OpRecord:
    """A one-operand linear structural op."""
    return OpRecord(prim, variant, lambda rng, dt: (draw(rng, shape, dt),), reference, params,
                    diff=(0,), linear=((0,),), dtypes=dtypes)


def dot_record(subscripts: str, x_shape: tuple, y_shape: tuple, dtypes: tuple = (F64,)
               ) -> OpRecord:
    return OpRecord(ew.dot_p, subscripts,
                    lambda rng, dt: (integral(rng, x_shape, dt), integral(rng, y_shape, dt)),
                    ref_dot, {"subscripts": subscripts}, diff=(0, 1), linear=((0,), (1,)),
                    dtypes=dtypes)


def _select_make(zero: int | None) -> Callable[[np.random.Generator, np.dtype], tuple]:
    """pred, x, y; with ``zero`` set, that branch is all zeros, which makes select linear in the
    other branch alone."""

    def make(rng: np.random.Generator, dtype: np.dtype) -> tuple:
        pred = rng.random((3, 4)) < 0.5
        branches = [normal(rng, (3, 4), dtype), normal(rng, (3, 4), dtype)]
        if zero is not None:
            branches[zero - 1] = np.zeros((3, 4), dtype)
        return (pred, *branches)

    return make


def _index_select_make(shape: tuple, dim: int, length: int) -> Callable:
    def make(rng: np.random.Generator, dtype: np.dtype) -> tuple:
        return normal(rng, shape, dtype), index_with_duplicate(rng, shape[dim], length)

    return make


def _index_source_make(shape: tuple, dim: int, length: int) -> Callable:
    """(x, index, source) of index_add and index_copy: an index with a repeated entry."""
    def make(rng: np.random.Generator, dtype: np.dtype) -> tuple:
        source_shape = (*shape[:dim], length, *shape[dim + 1:])
        return (normal(rng, shape, dtype), index_with_duplicate(rng, shape[dim], length),
                normal(rng, source_shape, dtype))

    return make


def _binary(draw_x: Callable, draw_y: Callable, shape: tuple = (3, 4)) -> Callable:
    def make(rng: np.random.Generator, dtype: np.dtype) -> tuple:
        return draw_x(rng, shape, dtype), draw_y(rng, shape, dtype)

    return make


def _max_make(rng: np.random.Generator, dtype: np.dtype) -> tuple:
    x = normal(rng, (3, 4), dtype)
    return x, apart(rng, x)


def _concat_make(shapes: list[tuple]) -> Callable:
    return lambda rng, dt: tuple(normal(rng, s, dt) for s in shapes)



# The five ops and their support primitives at the primitive level: canonical operands (a
# non-negative dim, rank >= 1, x and mask of one shape, a 1-D source for masked_scatter).


def _index_fill_make(shape: tuple, dim: int, length: int) -> Callable:
    def make(rng: np.random.Generator, dtype: np.dtype) -> tuple:
        return (normal(rng, shape, dtype), index_with_duplicate(rng, shape[dim], length),
                normal(rng, (), dtype))

    return make


def _masked_make(shape: tuple, last: Callable[[np.random.Generator, np.dtype], Any] | None,
                 p: float = 0.5) -> Callable:
    def make(rng: np.random.Generator, dtype: np.dtype) -> tuple:
        ops = (normal(rng, shape, dtype), bool_mask(rng, shape, p))
        return ops if last is None else (*ops, last(rng, dtype))

    return make


def ref_masked_scatter(x: np.ndarray, mask: np.ndarray, source: np.ndarray, *,
                       batch_dims: int) -> np.ndarray:
    """Each example (over the ``batch_dims`` leading axes) consumes its own source row."""
    lead = x.shape[:batch_dims]
    out = np.empty_like(x)
    for b in np.ndindex(*lead):
        out[b] = loop_masked_scatter(x[b], mask[b], source[b])
    return out


def ref_masked_gather(y: np.ndarray, mask: np.ndarray, *, n: int, batch_dims: int
                      ) -> np.ndarray:
    lead = y.shape[:batch_dims]
    out = np.zeros((*lead, n), y.dtype)
    for b in np.ndindex(*lead):
        out[b] = loop_masked_gather(y[b], mask[b], n)
    return out


def ref_last_occurrence(index: np.ndarray) -> np.ndarray:
    out = np.zeros(index.shape, bool)
    for row in np.ndindex(*index.shape[:-1]):
        seen: set[int] = set()
        for k in reversed(range(index.shape[-1])):
            at = (*row, k)
            out[at] = int(index[at]) not in seen
            seen.add(int(index[at]))
    return out


RECORDS: list[OpRecord] = [
    # elementwise arithmetic; add and sub are linear in both operands jointly, not in one alone
    OpRecord(ew.add_p, "xy", _binary(normal, normal), lambda x, y: x + y, diff=(0, 1),
             linear=((0, 1),), dtypes=BOTH),
    OpRecord(ew.sub_p, "xy", _binary(normal, normal), lambda x, y: x - y, diff=(0, 1),
             linear=((0, 1),), dtypes=BOTH),
    OpRecord(ew.mul_p, "xy", _binary(normal, normal), lambda x, y: x * y, diff=(0, 1),
             linear=((0,), (1,)), dtypes=BOTH),
    OpRecord(ew.div_p, "xy", _binary(normal, nonzero), lambda x, y: x / y, diff=(0, 1),
             linear=((0,),), dtypes=BOTH),
    unary(ew.neg_p, operator.neg, linear=True),
    unary(ew.exp_p, np.exp),
    unary(ew.log_p, np.log, positive),
    unary(ew.sin_p, np.sin),
    unary(ew.cos_p, np.cos, dtypes=(F64,)),
    unary(ew.tanh_p, np.tanh),
    unary(ew.sqrt_p, np.sqrt, positive),
    OpRecord(ew.pow_p, "xy", _binary(positive, normal), lambda x, y: x ** y, diff=(0, 1),
             dtypes=BOTH),
    *[OpRecord(ew.integer_pow_p, f"y={y}", lambda rng, dt: (normal(rng, (2, 3), dt),),
               # (XLA's x**3 is x * (x * x), two roundings; np.power rounds once)
               lambda x, *, y: np.asarray(x * (x * x) if y == 3 else x ** y, x.dtype), {"y": y},
               diff=(0,),
               dtypes=BOTH if y == 3 else (F64,)) for y in (0, 1, 2, 3)],
    OpRecord(ew.max_p, "apart", _max_make, lambda x, y: np.where(x > y, x, y), diff=(0, 1),
             dtypes=BOTH),
    # comparisons: not differentiable, with ties between the operands
    comparison(ew.eq_p, operator.eq, BOTH),
    comparison(ew.ne_p, operator.ne),
    comparison(ew.lt_p, operator.lt, BOTH),
    comparison(ew.le_p, operator.le),
    comparison(ew.gt_p, operator.gt),
    comparison(ew.ge_p, operator.ge),
    OpRecord(ew.lt_p, "int", lambda rng, dt: (rng.integers(-2, 3, (3, 4)),
                                               rng.integers(-2, 3, (3, 4))),
             ref_compare(operator.lt), out_dtype=np.dtype(bool)),
    # select: the predicate is bool and never differentiable
    OpRecord(ew.select_p, "both", _select_make(None), ref_select, diff=(1, 2),
             linear=((1, 2),), dtypes=BOTH),
    OpRecord(ew.select_p, "y=0", _select_make(2), ref_select, diff=(1, 2), linear=((1,),)),
    OpRecord(ew.select_p, "x=0", _select_make(1), ref_select, diff=(1, 2), linear=((2,),)),
    # convert_element_type
    # f64 -> f32: no finite-difference JVP check (check_jvp steps by the f64 eps, which the f32
    # output cannot resolve); the JVP is checked in test_primitives instead.
    OpRecord(ew.convert_element_type_p, "f64->f32", lambda rng, dt: (normal(rng, (2, 3), F64),),
             ref_convert, {"new_dtype": F32}, linear=((0,),), out_dtype=F32),
    OpRecord(ew.convert_element_type_p, "f32->f64", lambda rng, dt: (normal(rng, (2, 3), F32),),
             ref_convert, {"new_dtype": F64}, diff=(0,), linear=((0,),), out_dtype=F64),
    OpRecord(ew.convert_element_type_p, "i64->f64",
             lambda rng, dt: (rng.integers(-5, 5, (2, 3)),), ref_convert, {"new_dtype": F64},
             out_dtype=F64),
    OpRecord(ew.convert_element_type_p, "f64->i32",
             lambda rng, dt: (normal(rng, (2, 3), F64) * 4,), ref_convert, {"new_dtype": I32},
             out_dtype=I32),
    # dot, on integer-valued floats so the loop reference sums exactly
    dot_record("ij,jk->ik", (2, 3), (3, 4), BOTH),
    dot_record("i,i->", (4,), (4,)),
    dot_record("bij,bjk->bik", (2, 2, 3), (2, 3, 2)),
    dot_record("ij,kj->ik", (2, 3), (4, 3)),
    dot_record("i,j->ij", (2,), (3,)),
    # structural, linear in their one operand
    shaped(st.transpose_p, "3d", (2, 3, 4), ref_transpose, {"permutation": (2, 0, 1)}),
    shaped(st.transpose_p, "2d", (3, 5), ref_transpose, {"permutation": (1, 0)},
           dtypes=(F64,)),
    shaped(st.broadcast_in_dim_p, "size-1", (3, 1), ref_broadcast_in_dim,
           {"shape": (2, 3, 4), "broadcast_dimensions": (1, 2)}),
    shaped(st.broadcast_in_dim_p, "scalar", (), ref_broadcast_in_dim,
           {"shape": (2, 3), "broadcast_dimensions": ()}, dtypes=(F64,)),
    shaped(st.broadcast_in_dim_p, "new-trailing", (3,), ref_broadcast_in_dim,
           {"shape": (3, 2), "broadcast_dimensions": (0,)}, dtypes=(F64,)),
    shaped(st.reshape_p, "merge", (2, 3, 4), ref_reshape, {"new_sizes": (6, 4)}),
    shaped(st.reshape_p, "split", (6,), ref_reshape, {"new_sizes": (2, 1, 3)}, dtypes=(F64,)),
    shaped(st.reshape_p, "scalar", (), ref_reshape, {"new_sizes": (1, 1)}, dtypes=(F64,)),
    shaped(st.squeeze_p, "two", (2, 1, 3, 1), ref_squeeze, {"dimensions": (1, 3)}),
    shaped(st.squeeze_p, "to-scalar", (1,), ref_squeeze, {"dimensions": (0,)}, dtypes=(F64,)),
    shaped(st.expand_dims_p, "two", (2, 3), ref_expand_dims, {"dimensions": (0, 2)}),
    shaped(st.expand_dims_p, "scalar", (), ref_expand_dims, {"dimensions": (0,)},
           dtypes=(F64,)),
    OpRecord(st.concatenate_p, "2-ops", _concat_make([(2, 3), (4, 3)]), ref_concatenate,
             {"dimension": 0}, diff=(0, 1), linear=((0, 1),), dtypes=BOTH),
    OpRecord(st.concatenate_p, "3-ops", _concat_make([(2, 1), (2, 3), (2, 2)]),
             ref_concatenate, {"dimension": 1}, diff=(0, 1, 2), linear=((0, 1, 2),)),
    shaped(st.slice_p, "strided", (5, 6), ref_slice,
           {"start_indices": (1, 0), "limit_indices": (5, 6), "strides": (2, 3)}),
    shaped(st.slice_p, "high-gap", (7,), ref_slice,
           {"start_indices": (1,), "limit_indices": (6,), "strides": (2,)}, dtypes=(F64,)),
    shaped(st.slice_p, "empty", (4, 3), ref_slice,
           {"start_indices": (2, 1), "limit_indices": (2, 3), "strides": (1, 1)},
           dtypes=(F64,)),
    shaped(st.pad_p, "interior", (2, 3), ref_pad, {"padding_config": ((1, 2, 1), (0, 1, 2))}),
    shaped(st.pad_p, "one-element", (1, 4), ref_pad,
           {"padding_config": ((2, 0, 3), (1, 1, 0))}, dtypes=(F64,)),
    shaped(st.reduce_sum_p, "outer-axes", (2, 3, 4), ref_reduce_sum, {"axes": (0, 2)},
           integral),
    shaped(st.reduce_sum_p, "all", (2, 3, 4), ref_reduce_sum, {"axes": (0, 1, 2)}, integral,
           dtypes=(F64,)),
    shaped(st.reduce_sum_p, "vector", (5,), ref_reduce_sum, {"axes": (0,)}, integral,
           dtypes=(F64,)),
    OpRecord(ew.reduce_max_p, "middle", lambda rng, dt: (distinct(rng, (2, 3, 4), dt),),
             ref_reduce_max, {"axes": (1,)}, diff=(0,), dtypes=BOTH),
    OpRecord(ew.reduce_max_p, "all", lambda rng, dt: (distinct(rng, (3, 4), dt),),
             ref_reduce_max, {"axes": (0, 1)}, diff=(0,)),
    shaped(st.cumsum_p, "forward", (3, 4), ref_cumsum, {"axis": 1, "reverse": False},
           integral),
    shaped(st.cumsum_p, "reverse", (3, 4), ref_cumsum, {"axis": 1, "reverse": True}, integral),
    shaped(st.cumsum_p, "reverse-axis0", (4, 2), ref_cumsum, {"axis": 0, "reverse": True},
           integral, dtypes=(F64,)),
    # constants: no operands, so nothing to differentiate or batch
    OpRecord(st.full_p, "f64", lambda rng, dt: (),
             lambda *, shape, fill_value, dtype: np.ones(shape, dtype) * fill_value,
             {"shape": (2, 3), "fill_value": 1.5, "dtype": F64}, out_dtype=F64),
    OpRecord(st.full_p, "i32", lambda rng, dt: (),
             lambda *, shape, fill_value, dtype: np.ones(shape, dtype) * fill_value,
             {"shape": (4,), "fill_value": -3, "dtype": I32}, out_dtype=I32),
    OpRecord(st.arange_p, "i64", lambda rng, dt: (),
             lambda *, start, stop, step, dtype: np.array(list(range(start, stop, step)), dtype),
             {"start": 1, "stop": 10, "step": 3, "dtype": I64}, out_dtype=I64),
    OpRecord(st.arange_p, "f32-empty", lambda rng, dt: (),
             lambda *, start, stop, step, dtype: np.array(list(range(start, stop, step)), dtype),
             {"start": 5, "stop": 5, "step": 1, "dtype": F32}, out_dtype=F32),
    # indexing support
    OpRecord(index_select_p, "dim0-dup", _index_select_make((4, 3), 0, 5), ref_index_select,
             {"dim": 0}, diff=(0,), linear=((0,),), dtypes=BOTH),
    OpRecord(index_select_p, "dim1-dup", _index_select_make((2, 5), 1, 3), ref_index_select,
             {"dim": 1}, diff=(0,), linear=((0,),)),
    OpRecord(index_select_p, "vector", _index_select_make((6,), 0, 4), ref_index_select,
             {"dim": 0}, diff=(0,), linear=((0,),)),
    OpRecord(check_index_p, "in-range", lambda rng, dt: (rng.integers(0, 4, (5,)),),
             lambda index, **_: index.copy(), {"size": 4, "op": "records", "dim": 0},
             out_dtype=I64),
    OpRecord(index_add_p, "dim0-dup-alpha2", _index_source_make((5, 3), 0, 4), ref_index_add,
             {"dim": 0, "alpha": 2.0}, diff=(0, 2), linear=((0, 2),), dtypes=BOTH),
    OpRecord(index_add_p, "dim1-dup-alpha-half", _index_source_make((2, 4), 1, 3), ref_index_add,
             {"dim": 1, "alpha": -0.5}, diff=(0, 2), linear=((0, 2),), dtypes=BOTH),
    OpRecord(index_add_p, "vector-alpha1", _index_source_make((4,), 0, 6), ref_index_add,
             {"dim": 0, "alpha": 1.0}, diff=(0, 2), linear=((0, 2),)),
    OpRecord(index_copy_p, "dim1-dup", _index_source_make((3, 4), 1, 5),
             lambda x, i, s, *, dim: loop_index_copy(x, i, s, dim=dim), {"dim": 1}, diff=(0, 2),
             linear=((0, 2),), dtypes=BOTH),
    OpRecord(index_fill_p, "dim0-dup", _index_fill_make((4, 3), 0, 3),
             lambda x, i, v, *, dim: loop_index_fill(x, i, v, dim=dim), {"dim": 0}, diff=(0, 2),
             linear=((0, 2),), dtypes=BOTH),
    OpRecord(masked_fill_p, "3x4", _masked_make((3, 4), lambda rng, dt: normal(rng, (), dt)),
             loop_masked_fill, diff=(0, 2), linear=((0, 2),), dtypes=BOTH),
    OpRecord(masked_scatter_p, "3x4", _masked_make((3, 4), lambda rng, dt: normal(rng, (14,), dt)),
             ref_masked_scatter, {"batch_dims": 0}, diff=(0, 2), linear=((0, 2),), dtypes=BOTH),
    OpRecord(masked_scatter_p, "batch_dims=1",
             _masked_make((2, 3), lambda rng, dt: normal(rng, (2, 4), dt), 0.6),
             ref_masked_scatter, {"batch_dims": 1}, diff=(0, 2), linear=((0, 2),)),
    OpRecord(masked_gather_p, "3x4", _masked_make((3, 4), None), ref_masked_gather,
             {"n": 13, "batch_dims": 0}, diff=(0,), linear=((0,),), dtypes=BOTH),
    OpRecord(masked_gather_p, "batch_dims=1", _masked_make((2, 3), None, 0.6), ref_masked_gather,
             {"n": 4, "batch_dims": 1}, diff=(0,), linear=((0,),)),
    OpRecord(last_occurrence_p, "dup", lambda rng, dt: (rng.integers(0, 3, (2, 5)),),
             ref_last_occurrence, out_dtype=np.dtype(bool)),
    # stop_gradient: the identity with a zero derivative, so finite differences (the identity's)
    # are not its JVP: no ``diff`` (tests/test_stop_gradient.py checks the zero tangent)
    OpRecord(stop_gradient_p, "x", lambda rng, dt: (normal(rng, (2, 3), dt),),
             lambda x: x.copy(), dtypes=BOTH),
    OpRecord(stop_gradient_p, "int", lambda rng, dt: (rng.integers(-3, 4, (4,)),),
             lambda x: x.copy(), out_dtype=I64),

    *BIT_RECORDS,  # bit operations, threefry2x32, special functions: records_bits.py
]


def _family_records() -> list[OpRecord]:
    """The records of the primitive families added beside the base ones (wave 3: linalg,
    sorting, scatter, control flow, random ...): each family keeps its records in a module of
    its own, ``minigrad/testing/records_<family>.py`` with a list ``RECORDS``, so that this
    table does not grow into one long file."""
    import importlib
    from pathlib import Path

    found: list[OpRecord] = []
    for path in sorted(Path(__file__).parent.glob("records_*.py")):
        found += importlib.import_module(f"minigrad.testing.{path.stem}").RECORDS
    return found


RECORDS += _family_records()


def jit_samples() -> list[Sample]:
    """``jit``'s samples: every op sample of the five ops, its function jitted (parameters
    static), so each check runs through the call primitive's rules and the generated code."""
    from minigrad.staging import jit

    found = []
    for op in OPS:
        for r in op_records()[op]:
            assert r.fun is not None
            fun = jit(r.fun, static_argnames=tuple(r.params))
            record = OpRecord(jit_p, f"{op}:{r.variant}", r.make, r.reference, r.params, r.diff,
                              r.linear, r.batchable, r.dtypes, r.out_dtype, fun, r.argnames,
                              r.tol)
            found += record.samples()
    return found


def samples_for(name: str) -> list[Sample]:
    """Every sample of the primitive ``name``: the samples of its records here and, for the
    five ops, their op samples; for ``jit``, the op samples jitted; for the control-flow
    primitives, theirs (``minigrad.testing.control_flow``)."""
    found = [s for r in RECORDS if r.prim.name == name for s in r.samples()]
    if name in OPS:
        found += op_samples(name)
    if name == "jit":
        found += jit_samples()
    found += control_flow_samples(name)  # cond, scan, while, remat2
    reg = registered().get(name)  # a primitive of a user module (minigrad.testing.register)
    return found + reg.samples if reg is not None else found

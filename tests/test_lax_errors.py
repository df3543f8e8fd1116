"""minigrad.lax's elementwise, shape and slicing functions by name: bad input is a clear error
naming the function and the argument, of the type jax.lax raises (checked against JAX when it is
installed), eagerly and under jit; and the semantics that surprise (clamped dynamic starts,
negative padding, strictness) pinned by examples."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg
from minigrad import lax

X = np.arange(6.0).reshape(2, 3)
F32 = np.ones(3, np.float32)
I32 = np.arange(3, dtype=np.int32)

# (what, call(lax module, x), error, match): JAX raises the same error type for each
ROWS: list[tuple[str, Callable[[Any, Any], Any], type, str]] = [
    ("add dtypes", lambda m, x: m.add(x, x.astype(np.float32)), TypeError,
     "add: operands must have one dtype"),
    ("add python int to float", lambda m, x: m.add(x, 1), TypeError,
     "add: operands must have one dtype.*float64, int64"),
    ("add ranks", lambda m, x: m.add(x, x[0]), TypeError, "add: operands must have one rank"),
    ("add shapes", lambda m, x: m.add(x, x[:, :2]), TypeError, "add: incompatible shapes"),
    ("add bools", lambda m, x: m.add(x > 0, x > 1), TypeError,
     "add: x must have a dtype of kind signed integer, unsigned integer, floating"),
    ("exp of ints", lambda m, x: m.exp(x.astype(np.int32)), TypeError,
     "exp: x must have a dtype of kind floating, complex; got int32"),
    ("floor of ints", lambda m, x: m.floor(I32), TypeError, "floor: x must have a dtype"),
    ("abs of uint", lambda m, x: m.abs(I32.astype(np.uint8)), TypeError, "abs: x must have"),
    ("pow of ints", lambda m, x: m.pow(I32, I32), TypeError, "pow: x must have a dtype"),
    ("pow float dtypes", lambda m, x: m.pow(F32, np.ones(3)), TypeError,
     "pow: a floating y must have x's dtype float32"),
    ("integer_pow negative of ints", lambda m, x: m.integer_pow(I32, -1), TypeError,
     "integer_pow: integers cannot be raised to negative powers"),
    ("bitwise of floats", lambda m, x: m.bitwise_and(x, x), TypeError,
     "bitwise_and: x must have a dtype of kind bool"),
    ("shift python int", lambda m, x: m.shift_left(I32, 1), TypeError,
     "shift_left: operands must have one dtype"),
    ("population_count of bool", lambda m, x: m.population_count(x > 0), TypeError,
     "population_count: x must have"),
    ("sin of a list", lambda m, x: m.sin([1.0, 2.0]), TypeError,
     "sin: x must be an array or a scalar; got list"),
    ("reshape size (JAX: a ValueError when lowering)", lambda m, x: m.reshape(x, (4,)),
     (TypeError, ValueError),
     r"reshape: new_sizes \(4,\) must hold the operand's 6 elements"),
    ("reshape -1", lambda m, x: m.reshape(x, (-1,)), TypeError, "reshape: new_sizes must be "
     "non-negative"),
    ("reshape dimensions", lambda m, x: m.reshape(x, (3, 2), (1,)), TypeError,
     r"reshape: dimensions must be a permutation of range\(2\)"),
    ("transpose", lambda m, x: m.transpose(x, (0, 0)), TypeError,
     r"transpose: permutation must be a permutation of range\(2\)"),
    ("squeeze non-unit", lambda m, x: m.squeeze(x, (1,)), ValueError,
     r"squeeze: the axes \(1,\) must have size 1"),
    ("expand_dims repeated", lambda m, x: m.expand_dims(x, (0, 0)), ValueError,
     "expand_dims: dimensions must be distinct"),
    ("rev negative", lambda m, x: m.rev(x, (-1,)), TypeError,
     r"rev: dimensions must be distinct and in \[0, 2\)"),
    ("concatenate dtypes", lambda m, x: m.concatenate([x, x.astype(np.float32)], 0),
     TypeError, "concatenate: operands must have one dtype"),
    ("concatenate shapes", lambda m, x: m.concatenate([x, x.T], 0), TypeError,
     "concatenate: operands must agree in every axis but 0"),
    ("concatenate negative dimension", lambda m, x: m.concatenate([x, x], -1), TypeError,
     r"concatenate: dimension must be in \[0, 2\)"),
    ("concatenate nothing", lambda m, x: m.concatenate([], 0), ValueError,
     "concatenate: operands must be a non-empty sequence"),
    ("broadcast_in_dim repeated", lambda m, x: m.broadcast_in_dim(x, (3, 3), (1, 1)),
     TypeError, "broadcast_in_dim: broadcast_dimensions must be distinct|must have size 1"),
    ("broadcast_in_dim sizes", lambda m, x: m.broadcast_in_dim(x, (2, 4, 3), (2, 0)),
     TypeError, "broadcast_in_dim: each operand axis must have size 1 or the target"),
    ("broadcast_in_dim length", lambda m, x: m.broadcast_in_dim(x, (2, 4, 3), (0,)),
     TypeError, "broadcast_in_dim: broadcast_dimensions must have one entry per axis"),
    ("broadcast negative", lambda m, x: m.broadcast(x, (-1,)), TypeError,
     "broadcast: sizes must be non-negative"),
    ("iota of bool", lambda m, x: m.iota(bool, 3), TypeError, "broadcasted_iota: dtype must"),
    ("broadcasted_iota dimension", lambda m, x: m.broadcasted_iota(np.int32, (2, 3), 2),
     ValueError, r"broadcasted_iota: dimension must be in \[0, 2\)"),
    ("convert to a non-dtype", lambda m, x: m.convert_element_type(x, "float99"), TypeError,
     "is not a dtype"),
    ("bitcast bool", lambda m, x: m.bitcast_convert_type(x > 0, np.int8), TypeError,
     "bitcast_convert_type: bool and complex bitcast only to themselves"),
    ("bitcast wider, wrong last axis", lambda m, x: m.bitcast_convert_type(
        np.ones((2, 3), np.uint8), np.float32), ValueError,
     "bitcast_convert_type: to a dtype 4 times as wide .* the last axis must have size 4"),
    ("reduce_precision of ints", lambda m, x: m.reduce_precision(I32, 5, 10), TypeError,
     "reduce_precision: operand must have a dtype of kind floating"),
    ("reduce_precision exponent", lambda m, x: m.reduce_precision(x, 0, 10), ValueError,
     "reduce_precision: exponent_bits must be positive"),
    ("pad value dtype", lambda m, x: m.pad(x, 0, [(1, 1, 0)] * 2), TypeError,
     "pad: operand and padding_value must have one dtype; got float64 and int64"),
    ("pad value shape", lambda m, x: m.pad(x, np.zeros(2), [(1, 1, 0)] * 2), ValueError,
     "pad: padding_value must be a scalar"),
    ("pad interior", lambda m, x: m.pad(x, 0.0, [(1, 1, -1)] * 2), ValueError,
     "pad: interior padding must be non-negative"),
    ("pad pairs", lambda m, x: m.pad(x, 0.0, [(1, 1)] * 2), ValueError,
     r"pad: padding_config must hold \(low, high, interior\) triples"),
    ("pad too negative", lambda m, x: m.pad(x, 0.0, [(-3, 0, 0), (0, 0, 0)]), ValueError,
     "pad: padding_config .* leaves a negative size"),
    ("select_n no case", lambda m, x: m.select_n(x > 0), ValueError,
     "select_n: needs at least one case"),
    ("select_n float which", lambda m, x: m.select_n(x, x, x), TypeError,
     "select_n: which must be bool or an integer; got float64"),
    ("select_n bool with 3", lambda m, x: m.select_n(x > 0, x, x, x), TypeError,
     "select_n: a bool which selects among 2 cases at most"),
    ("select_n which shape", lambda m, x: m.select_n((x > 0)[0], x, x), TypeError,
     "select_n: which must be a scalar or have the cases' shape"),
    ("select_n case dtypes", lambda m, x: m.select_n(x > 0, x, x.astype(np.float32)),
     TypeError, "select_n: cases must have one shape and dtype"),
    ("clamp dtypes", lambda m, x: m.clamp(np.float32(0), x, 1.0), TypeError,
     "clamp: min, x and max must have one dtype"),
    ("clamp shape", lambda m, x: m.clamp(x[0], x, 1.0), TypeError,
     "clamp: min must be a scalar or have x's shape"),
    ("slice past the end", lambda m, x: m.slice(x, (0, 0), (2, 4)), TypeError,
     "slice: need 0 <= start <= limit <= size"),
    ("slice rank", lambda m, x: m.slice(x, (0,), (2,)), ValueError,
     "slice: start_indices, limit_indices and strides must have one entry per axis"),
    ("index_in_dim out of range", lambda m, x: m.index_in_dim(x, 3, axis=1), IndexError,
     "index_in_dim: index 3 is out of bounds for axis 1 with size 3"),
    ("dynamic_slice sizes", lambda m, x: m.dynamic_slice(x, (0, 0), (1, 4)), TypeError,
     r"dynamic_slice: slice_sizes must have one size in \[0, n\]"),
    ("dynamic_slice count", lambda m, x: m.dynamic_slice(x, (1,), (1, 2)), ValueError,
     "dynamic_slice: needs one start index per axis"),
    ("dynamic_slice float start", lambda m, x: m.dynamic_slice(x, (0, np.float64(1)), (1, 2)),
     TypeError, "dynamic_slice: start indices must be integers of one dtype"),
    ("dynamic_slice mixed starts", lambda m, x: m.dynamic_slice(
        x, (np.int64(0), np.uint8(1)), (1, 2)), TypeError,
     "dynamic_slice: start indices must be integers of one dtype"),
    ("dynamic_slice vector start", lambda m, x: m.dynamic_slice(x, (0, np.array([1])), (1, 2)),
     TypeError, "dynamic_slice: start indices must be scalars"),
    ("dynamic_slice negative not allowed", lambda m, x: m.dynamic_slice(
        x, (0, -1), (1, 2), allow_negative_indices=False), ValueError,
     "dynamic_slice: index -1 is out of bounds"),
    ("dynamic_update_slice dtype", lambda m, x: m.dynamic_update_slice(
        x, np.ones((1, 2), np.float32), (0, 0)), TypeError,
     "dynamic_update_slice: operand and update must have one dtype"),
    ("dynamic_update_slice rank", lambda m, x: m.dynamic_update_slice(x, np.ones(2), (0, 0)),
     TypeError, "dynamic_update_slice: update must have the operand's rank"),
    ("dynamic_update_slice too big", lambda m, x: m.dynamic_update_slice(
        x, np.ones((1, 4)), (0, 0)), TypeError, "and fit in it"),
]


@pytest.mark.parametrize("what, call, error, match", ROWS, ids=[r[0] for r in ROWS])
def test_eagerly(what: str, call: Callable[[Any, Any], Any], error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        call(lax, X)


@pytest.mark.parametrize("what, call, error, match", ROWS, ids=[r[0] for r in ROWS])
def test_under_jit(what: str, call: Callable[[Any, Any], Any], error: type, match: str
                   ) -> None:
    with pytest.raises(error, match=match):
        mg.jit(lambda x: call(lax, x))(X)


@pytest.mark.parametrize("what, call, error, match", ROWS, ids=[r[0] for r in ROWS])
def test_jax_raises_the_same_type(what: str, call: Callable[[Any, Any], Any], error: type,
                                  match: str, jax_x64: Any) -> None:
    with pytest.raises(error):
        call(jax_x64.lax, jax_x64.numpy.asarray(X))


# --------------------------------------------------------------------------- semantics

def test_dynamic_slice_clamps_under_jit_and_vmap() -> None:
    x = np.arange(10.0)
    f = mg.jit(lambda x, i: lax.dynamic_slice(x, (i,), (3,)))
    np.testing.assert_array_equal(f(x, np.array(9)), [7.0, 8.0, 9.0])
    np.testing.assert_array_equal(f(x, np.array(-2)), [7.0, 8.0, 9.0])  # -2 -> 8 -> 7
    np.testing.assert_array_equal(f(x, np.array(-20)), [0.0, 1.0, 2.0])
    out = mg.vmap(lambda i: lax.dynamic_slice_in_dim(x, i, 2))(np.array([0, 4, 9, -1]))
    np.testing.assert_array_equal(out, [[0, 1], [4, 5], [8, 9], [8, 9]])


def test_batched_starts_bind_one_primitive() -> None:
    # vmap over starts is one dynamic_slice with a batch dim: no loop, no gather per example
    jaxpr = mg.make_jaxpr(mg.vmap(lambda i: lax.dynamic_slice(X, (i, 0), (1, 3))))(
        np.array([0, 1, 1]))
    names = [e.primitive.name for e in jaxpr.jaxpr.eqns]
    assert names.count("dynamic_slice") == 1, names
    assert "batch_dims=1" in str(jaxpr)


def test_dynamic_update_slice_gradients() -> None:
    x, u = np.arange(6.0), np.array([10.0, 20.0])
    ct = np.arange(6.0) + 1.0

    def f(x: Any, u: Any) -> Any:
        return mg.numpy.sum(lax.dynamic_update_slice(x, u, (5,)) * ct)

    gx, gu = mg.grad(f, argnums=(0, 1))(x, u)
    np.testing.assert_array_equal(gx, [1, 2, 3, 4, 0, 0])  # start clamped to 4
    np.testing.assert_array_equal(gu, [5, 6])  # the cotangent's window


def test_pad_negative_and_its_gradient() -> None:
    x = np.arange(1.0, 4.0)
    out = lax.pad(x, -1.0, [(-1, 2, 1)])
    np.testing.assert_array_equal(out, [-1, 2, -1, 3, -1, -1])
    g = mg.grad(lambda x, v: mg.numpy.sum(lax.pad(x, v, [(-1, 2, 1)]) ** 2),
                argnums=(0, 1))(x, np.float64(-1.0))
    np.testing.assert_array_equal(g[0], [0.0, 4.0, 6.0])  # x[0] was cut off
    assert g[1] == -8.0  # four pads of -1


def test_clamp_derivative_is_jax_s() -> None:
    x = np.array([-1.0, 0.0, 0.5, 1.0, 2.0])
    lo, hi = np.zeros(5), np.ones(5)
    gx, glo, ghi = mg.grad(lambda x, lo, hi: mg.numpy.sum(lax.clamp(lo, x, hi)),
                           argnums=(0, 1, 2))(x, lo, hi)
    np.testing.assert_array_equal(gx, [0, 0, 1, 0, 0])  # a tie sends nothing, as JAX's
    np.testing.assert_array_equal(glo, [1, 0, 0, 0, 0])
    np.testing.assert_array_equal(ghi, [0, 0, 0, 0, 1])


def test_integer_division_as_xla() -> None:
    out = lax.div(np.array([7, -7, 5, 5], np.int32), np.array([2, 2, 0, -1], np.int32))
    np.testing.assert_array_equal(out, [3, -3, -1, -5])
    assert out.dtype == np.int32
    np.testing.assert_array_equal(lax.div(np.array([5], np.uint8), np.array([0], np.uint8)),
                                  [255])
    np.testing.assert_array_equal(lax.rem(np.array([-7, 5]), np.array([2, 0])), [-1, 5])


def test_broadcast_in_dim_out_of_order_transposes() -> None:
    np.testing.assert_array_equal(lax.broadcast_in_dim(X, (3, 2), (1, 0)), X.T)
    np.testing.assert_array_equal(lax.broadcast_in_dim(X, (3, 4, 2), (2, 0)),
                                  np.broadcast_to(X.T[:, None, :], (3, 4, 2)))


def test_rank0_and_unit_axes_broadcast() -> None:
    np.testing.assert_array_equal(lax.add(X, np.float64(1.0)), X + 1)
    np.testing.assert_array_equal(lax.mul(X, np.ones((1, 3))), X)
    np.testing.assert_array_equal(lax.max(X, 2.0), np.maximum(X, 2.0))


def test_reduce_precision_is_numpy_s_narrow_conversion() -> None:
    # float16 is (5, 10), float32 (8, 23): NumPy's astype rounds to nearest even in hardware.
    # Values in the narrow format's normal range or past it (XLA flushes its subnormals to
    # zero where NumPy keeps them).
    rng = np.random.default_rng(0)
    x = rng.standard_normal(2000) * 10.0 ** rng.integers(-4, 7, 2000)
    x = np.where(np.abs(x) < 1e-4, 1.0, x)
    with np.errstate(over="ignore"):
        for dtype in (np.float32, np.float64):
            xs = x.astype(dtype)
            np.testing.assert_array_equal(lax.reduce_precision(xs, 5, 10),
                                          xs.astype(np.float16).astype(dtype))
        y = x * 10.0 ** rng.integers(-25, 25, 2000)
        np.testing.assert_array_equal(lax.reduce_precision(y, 8, 23),
                                      y.astype(np.float32).astype(np.float64))

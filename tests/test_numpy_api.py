"""minigrad.numpy against NumPy, on arrays and on tracers (operators, methods, protocols)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minigrad as mg
import minigrad.numpy as mnp

rng = np.random.default_rng(3)
A = rng.standard_normal((2, 3))
B = rng.standard_normal((2, 3))
P = rng.uniform(0.5, 2.0, (2, 3))  # positive
I = np.arange(1, 7).reshape(2, 3)  # noqa: E741


def same(actual, expected, **kw):
    assert type(actual) is mg.Array
    assert actual.dtype == np.asarray(expected).dtype, (actual.dtype, np.asarray(expected).dtype)
    assert actual.shape == np.shape(expected)
    np.testing.assert_allclose(actual, expected, **kw)


# --------------------------------------------------------------------------- elementwise

BINARY = {
    "add": (mnp.add, np.add), "subtract": (mnp.subtract, np.subtract),
    "multiply": (mnp.multiply, np.multiply), "divide": (mnp.divide, np.divide),
    "maximum": (mnp.maximum, np.maximum), "minimum": (mnp.minimum, np.minimum),
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_float(name):
    ours, theirs = BINARY[name]
    same(ours(A, B), theirs(A, B))
    same(ours(A, B[0]), theirs(A, B[0]))  # broadcasting
    same(ours(A, 2.5), theirs(A, 2.5))
    same(ours(2.5, A), theirs(2.5, A))


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_int(name):
    ours, theirs = BINARY[name]
    same(ours(I, I[::-1]), theirs(I, I[::-1]))
    same(ours(I, 2), theirs(I, 2))
    u, v = np.array([0, 5, 200], np.uint8), np.array([5, 1, 100], np.uint8)
    same(ours(u, v), theirs(u, v))


def test_divide_int_by_int_is_float():
    same(mnp.divide(I, np.array(4)), np.divide(I, np.array(4)))
    same(mnp.divide(I, 4), I / 4)


@pytest.mark.parametrize("name", ["negative", "exp", "sin", "cos", "tanh"])
def test_unary(name):
    same(getattr(mnp, name)(A), getattr(np, name)(A), rtol=1e-14)


@pytest.mark.parametrize("name", ["log", "sqrt"])
def test_unary_positive(name):
    same(getattr(mnp, name)(P), getattr(np, name)(P), rtol=1e-14)


def test_unary_on_ints_follow_numpy():
    same(mnp.exp(I), np.exp(I))
    same(mnp.negative(I), np.negative(I))


@given(x=hnp.arrays(np.float64, (4,), elements=st.floats(0.1, 3.0, width=64)),
       y=hnp.arrays(np.float64, (4,), elements=st.floats(-2.0, 2.0, width=64)))
def test_power(x, y):
    same(mnp.power(x, y), np.power(x, y), rtol=1e-12)


def test_power_cases():
    same(mnp.power(A, 2), np.power(A, 2))
    same(mnp.power(-P, 2.0), np.power(-P, 2.0))
    same(mnp.power(I, 2), np.power(I, 2))
    same(mnp.power(2.0, A), np.power(2.0, A))


def test_where():
    same(mnp.where(A > 0, A, B), np.where(A > 0, A, B))
    same(mnp.where(A > 0, A, 0.0), np.where(A > 0, A, 0.0))
    same(mnp.where(np.array([1, 0, 2]), A, -1.0), np.where(np.array([1, 0, 2]), A, -1.0))
    same(mnp.where(np.array([True, False, True]), 1, 0), np.where([True, False, True], 1, 0))


def test_minimum_maximum_bool():
    a, b = np.array([True, False, False]), np.array([True, True, False])
    same(mnp.minimum(a, b), np.minimum(a, b))
    same(mnp.maximum(a, b), np.maximum(a, b))


def test_comparisons():
    for ours, theirs in [(mnp.less, np.less), (mnp.less_equal, np.less_equal),
                         (mnp.greater, np.greater), (mnp.greater_equal, np.greater_equal),
                         (mnp.equal, np.equal), (mnp.not_equal, np.not_equal)]:
        same(ours(A, B), theirs(A, B))
        same(ours(I, 3), theirs(I, 3))


# --------------------------------------------------------------------------- reductions


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 1)])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("name", ["sum", "max", "mean"])
def test_reductions(name, axis, keepdims):
    same(getattr(mnp, name)(A, axis=axis, keepdims=keepdims),
         getattr(np, name)(A, axis=axis, keepdims=keepdims), rtol=1e-14)
    same(getattr(mnp, name)(I, axis=axis, keepdims=keepdims),
         getattr(np, name)(I, axis=axis, keepdims=keepdims), rtol=1e-14)


def test_reduction_axis_error():
    with pytest.raises(ValueError, match="sum: axis 2 is out of range"):
        mnp.sum(A, axis=2)


def test_cumsum():
    same(mnp.cumsum(A, axis=1), np.cumsum(A, axis=1))
    same(mnp.cumsum(A, axis=-2), np.cumsum(A, axis=-2))
    same(mnp.cumsum(A), np.cumsum(A))
    same(mnp.cumsum(I, axis=0), np.cumsum(I, axis=0))


# --------------------------------------------------------------------------- shapes

Z = rng.standard_normal((2, 3, 4))


def test_reshape():
    same(mnp.reshape(Z, (4, -1)), np.reshape(Z, (4, -1)))
    same(mnp.reshape(Z, -1), np.reshape(Z, -1))
    same(mnp.reshape(Z, (2, -1, 2)), Z.reshape(2, -1, 2))
    with pytest.raises(ValueError, match="cannot reshape"):
        mnp.reshape(Z, (5, -1))
    with pytest.raises(ValueError, match="at most one -1"):
        mnp.reshape(Z, (-1, -1))


def test_transpose_moveaxis_swapaxes():
    same(mnp.transpose(Z), np.transpose(Z))
    same(mnp.transpose(Z, (1, 0, 2)), np.transpose(Z, (1, 0, 2)))
    same(mnp.transpose(Z, (-1, 0, 1)), np.transpose(Z, (-1, 0, 1)))
    same(mnp.moveaxis(Z, 0, -1), np.moveaxis(Z, 0, -1))
    same(mnp.moveaxis(Z, -1, 1), np.moveaxis(Z, -1, 1))
    same(mnp.swapaxes(Z, 0, 2), np.swapaxes(Z, 0, 2))
    same(mnp.swapaxes(Z, -1, 1), np.swapaxes(Z, -1, 1))


def test_squeeze_expand_dims():
    y = Z.reshape(1, 2, 1, 12, 1)
    same(mnp.squeeze(y), np.squeeze(y))
    same(mnp.squeeze(y, axis=-1), np.squeeze(y, axis=-1))
    same(mnp.squeeze(y, axis=(0, 2)), np.squeeze(y, axis=(0, 2)))
    with pytest.raises(ValueError, match="squeeze"):
        mnp.squeeze(y, axis=1)
    same(mnp.expand_dims(A, 0), np.expand_dims(A, 0))
    same(mnp.expand_dims(A, -1), np.expand_dims(A, -1))
    same(mnp.expand_dims(A, (0, -1)), np.expand_dims(A, (0, -1)))


def test_concatenate_stack():
    same(mnp.concatenate([A, B], axis=0), np.concatenate([A, B], axis=0))
    same(mnp.concatenate([A, B, A], axis=-1), np.concatenate([A, B, A], axis=-1))
    same(mnp.concatenate([A, I]), np.concatenate([A, I]))  # promotes
    same(mnp.stack([A, B]), np.stack([A, B]))
    same(mnp.stack([A, B], axis=-1), np.stack([A, B], axis=-1))
    same(mnp.stack([A, B], axis=1), np.stack([A, B], axis=1))


def test_broadcast_to():
    same(mnp.broadcast_to(A[0], (4, 3)), np.broadcast_to(A[0], (4, 3)))
    same(mnp.broadcast_to(2.0, (2, 2)), np.broadcast_to(2.0, (2, 2)))
    with pytest.raises(ValueError, match="cannot broadcast"):
        mnp.broadcast_to(A, (3, 3))


# --------------------------------------------------------------------------- linear algebra


def test_matmul():
    v, w = rng.standard_normal(3), rng.standard_normal(3)
    m = rng.standard_normal((3, 4))
    same(mnp.matmul(v, w), np.matmul(v, w))
    same(mnp.matmul(A, v), np.matmul(A, v))
    same(mnp.matmul(v, m), np.matmul(v, m))
    same(mnp.matmul(A, m), np.matmul(A, m))
    bx, by = rng.standard_normal((4, 1, 2, 3)), rng.standard_normal((5, 3, 2))
    same(mnp.matmul(bx, by), np.matmul(bx, by), rtol=1e-12)
    same(mnp.matmul(bx, m), np.matmul(bx, m), rtol=1e-12)
    same(mnp.matmul(I, I.T), np.matmul(I, I.T))
    with pytest.raises(ValueError, match="matmul"):
        mnp.matmul(A, A)


def test_dot():
    v = rng.standard_normal(3)
    same(mnp.dot(A, v), np.dot(A, v))
    same(mnp.dot(v, v), np.dot(v, v))
    same(mnp.dot(A, A.T), np.dot(A, A.T))
    same(mnp.dot(A, 2.0), np.dot(A, 2.0))


# --------------------------------------------------------------------------- indexing


def test_take():
    x = np.arange(5.0)
    same(mnp.take(x, np.array([-1, 0, -2])), np.take(x, [-1, 0, -2]))
    same(mnp.take(A, np.array([[0, -1]]), axis=1), np.take(A, [[0, -1]], axis=1))
    same(mnp.take(A, np.array([2, 4])), np.take(A, [2, 4]))
    with pytest.raises(IndexError, match="take: index 5 is out of bounds"):
        mnp.take(x, np.array([5]))
    with pytest.raises(IndexError, match="-6"):
        mnp.take(x, np.array([-6]))


KEYS = [
    slice(1, 3), (slice(None), 0), slice(None, None, -1), None, (Ellipsis, 0), (1, 2), -1,
    (slice(None, None, 2), slice(1, None)), (None, 0, None), (Ellipsis,), (0, Ellipsis, None),
    np.array([2, 0]), (slice(None), np.array([-1, 1])), (np.array([[0, 1], [2, 0]]),),
    [0, 2], (slice(3, 1),), (slice(None, None, -2), 1), (np.int64(1), slice(None)),
    (slice(None), None, np.array([0, 3])),
]


@pytest.mark.parametrize("key", KEYS, ids=[repr(k) for k in KEYS])
def test_getitem_matches_numpy(key):
    x = np.arange(12.0).reshape(3, 4)
    same(mnp.getitem(x, key), x[key])
    # The same indexing on a tracer, under vmap and jvp.
    xs = np.stack([x, -x])
    same(mg.vmap(lambda t: t[key])(xs), np.stack([x[key], (-x)[key]]))
    _, t = mg.jvp(lambda t: t[key], (x,), (np.ones_like(x),))
    same(t, np.ones_like(x)[key])


@st.composite
def index_keys(draw, shape=(3, 4, 5)):
    """Keys mixing ints, slices (any step), None, one Ellipsis and one integer array."""
    key, axis, has_array, has_ellipsis = [], 0, False, False
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(st.sampled_from(["int", "slice", "none", "ellipsis", "array"]))
        if kind == "none":
            key.append(None)
            continue
        if kind == "ellipsis":
            if not has_ellipsis:
                key.append(Ellipsis)
                has_ellipsis = True
            continue
        if axis >= len(shape) or (kind == "array" and has_array):
            continue
        n = shape[axis] if not has_ellipsis else min(shape)
        if kind == "int":
            key.append(draw(st.integers(-n, n - 1)))
        elif kind == "slice":
            bound = st.none() | st.integers(-n - 2, n + 2)
            key.append(slice(draw(bound), draw(bound), draw(st.sampled_from([None, 1, 2, -1, -3]))))
        else:
            key.append(np.array(draw(st.lists(st.integers(-n, n - 1), max_size=3)), np.int64))
            has_array = True
        axis += 1
    return tuple(key)


@given(key=index_keys())
def test_getitem_property(key):
    x = np.arange(60.0).reshape(3, 4, 5)
    try:
        expected = x[key]
    except IndexError:
        return
    same(mnp.getitem(x, key), expected)
    same(mg.vmap(lambda t: t[key], in_axes=1, out_axes=-1)(np.stack([x, -x], axis=1)),
         np.stack([expected, -expected], axis=-1))
    # The gradient of sum(x[key]) counts how often each element is read.
    reads = np.bincount(np.arange(60).reshape(3, 4, 5)[key].ravel(), minlength=60)
    same(mg.grad(lambda t: t[key].sum())(x), reads.reshape(3, 4, 5).astype(np.float64))


def test_getitem_advanced_index_placement():
    # NumPy: ints next to an array index are advanced indices; separated ones move the
    # array's dimensions to the front (an ellipsis separates even when it stands for nothing).
    x = np.arange(60.0).reshape(3, 4, 5)
    for key in [(0, slice(None), np.array([1, 2])), (-1, Ellipsis, None, np.array([1])),
                (slice(None), np.array([2]), Ellipsis, -1), (np.array([[0, 1], [1, 2]]), None),
                (slice(None), None, np.array([[0, 1], [1, 2]])), (slice(None), 0, [1, 2])]:
        same(mnp.getitem(x, key), x[key])


def test_getitem_errors():
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 3"):
        mnp.getitem(np.ones((3, 4)), 5)
    with pytest.raises(IndexError, match="too many indices"):
        mnp.getitem(np.ones(3), (0, 0))
    with pytest.raises(IndexError, match="single ellipsis"):
        mnp.getitem(np.ones((3, 4)), (Ellipsis, Ellipsis))
    with pytest.raises(IndexError, match="out of bounds"):
        mnp.getitem(np.ones((3, 4)), (0, np.array([4])))


# --------------------------------------------------------------------------- constructors


def test_constructors():
    same(mnp.zeros_like(A), np.zeros_like(A))
    same(mnp.ones_like(I), np.ones_like(I))
    same(mnp.zeros_like(A, dtype=np.float32), np.zeros_like(A, dtype=np.float32))
    same(mnp.full((2, 3), 1.5), np.full((2, 3), 1.5))
    same(mnp.full(4, 7), np.full(4, 7))
    same(mnp.full((2,), 1, dtype=np.float32), np.full((2,), 1, dtype=np.float32))
    same(mnp.zeros(3), np.zeros(3))
    same(mnp.ones((2, 2), np.int32), np.ones((2, 2), np.int32))


@pytest.mark.parametrize("args", [(5,), (1, 7, 2), (0.0, 1.0, 0.25), (5.0,), (3, -3, -1),
                                  (0, 1, 0.1), (4, 2)])
def test_arange(args):
    same(mnp.arange(*args), np.arange(*args), rtol=1e-15)


def test_arange_dtype():
    same(mnp.arange(4, dtype=np.float32), np.arange(4, dtype=np.float32))


# --------------------------------------------------------------------------- dtype promotion


def test_python_scalars_keep_float32():
    x = np.ones(3, np.float32)
    for out in [mnp.add(x, 2.0), mnp.multiply(2.0, x), mnp.subtract(x, 1), mnp.divide(x, 3),
                mnp.power(x, 2.0), mnp.maximum(x, 0.0), mnp.minimum(x, 0.5),
                mnp.where(x > 0, x, 0.0), mnp.exp(x), mnp.mean(x), x * 2.0 + mnp.sin(x)]:
        assert out.dtype == np.float32
    assert mg.vmap(lambda t: t * 2.0 + 1)(x).dtype == np.float32
    assert mg.grad(lambda t: (t * 0.5).sum())(x).dtype == np.float32


def test_array_promotion_follows_numpy():
    x32, i64 = np.ones(3, np.float32), np.ones(3, np.int64)
    same(mnp.add(x32, i64), np.add(x32, i64))
    same(mnp.add(x32, np.ones(3)), np.add(x32, np.ones(3)))
    same(mnp.multiply(np.ones(3, np.int32), 2), np.multiply(np.ones(3, np.int32), 2))


# --------------------------------------------------------------------------- tracers


def _under(transform, f, x):
    """Run f on a tracer of ``transform``; return its (primal) result as an ndarray."""
    if transform == "vmap":
        out = mg.vmap(f)(np.stack([x, x]))
        assert type(out) is mg.Array
        return np.asarray(out[1])
    if transform == "jvp":
        return mg.jvp(f, (x,), (np.ones_like(x),))[0]
    if transform == "grad":  # the result leaves grad as the auxiliary output
        return mg.grad(lambda t: (mnp.sum(mnp.astype(f(t), np.float64)), f(t)),
                       has_aux=True)(x)[1]
    raise AssertionError(transform)


TRACER_OPS = {
    "add": (lambda t: t + 1.0, lambda x: x + 1.0),
    "radd": (lambda t: 1.0 + t, lambda x: 1.0 + x),
    "sub": (lambda t: t - 2.0, lambda x: x - 2.0),
    "rsub": (lambda t: 2.0 - t, lambda x: 2.0 - x),
    "mul": (lambda t: t * t, lambda x: x * x),
    "div": (lambda t: t / 2.0, lambda x: x / 2.0),
    "rdiv": (lambda t: 2.0 / t, lambda x: 2.0 / x),
    "pow": (lambda t: t ** 2, lambda x: x ** 2),
    "rpow": (lambda t: 2.0 ** t, lambda x: 2.0 ** x),
    "neg": (lambda t: -t, lambda x: -x),
    "matmul": (lambda t: t @ t.T, lambda x: x @ x.T),
    "rmatmul": (lambda t: np.ones((2, 3)) @ t, lambda x: np.ones((2, 3)) @ x),
    "lt": (lambda t: t < 0.5, lambda x: x < 0.5),
    "ge": (lambda t: t >= 0.5, lambda x: x >= 0.5),
    "eq": (lambda t: t == t[0], lambda x: x == x[0]),
    "ne": (lambda t: t != 0.5, lambda x: x != 0.5),
    "sum": (lambda t: t.sum(), lambda x: x.sum()),
    "sum_axis": (lambda t: t.sum(axis=1), lambda x: x.sum(axis=1)),
    "mean": (lambda t: t.mean(0), lambda x: x.mean(0)),
    "max": (lambda t: t.max(), lambda x: x.max()),
    "reshape": (lambda t: t.reshape(-1), lambda x: x.reshape(-1)),
    "reshape_args": (lambda t: t.reshape(4, 3), lambda x: x.reshape(4, 3)),
    "T": (lambda t: t.T, lambda x: x.T),
    "astype": (lambda t: t.astype(np.float32), lambda x: x.astype(np.float32)),
    "slice": (lambda t: t[1:3], lambda x: x[1:3]),
    "column": (lambda t: t[:, 0], lambda x: x[:, 0]),
    "reverse": (lambda t: t[::-1], lambda x: x[::-1]),
    "newaxis": (lambda t: t[None], lambda x: x[None]),
    "ellipsis": (lambda t: t[..., 0], lambda x: x[..., 0]),
    "int_array": (lambda t: t[np.array([2, 0, 2])], lambda x: x[np.array([2, 0, 2])]),
    "np_tanh": (lambda t: np.tanh(t), np.tanh),
    "np_sum_axis": (lambda t: np.sum(t, axis=1), lambda x: np.sum(x, axis=1)),
    "np_matmul": (lambda t: np.matmul(t, t.T), lambda x: np.matmul(x, x.T)),
    "np_maximum": (lambda t: np.maximum(t, 0.5), lambda x: np.maximum(x, 0.5)),
    "np_reshape": (lambda t: np.reshape(t, (2, -1)), lambda x: np.reshape(x, (2, -1))),
    "np_where": (lambda t: np.where(t > 0.5, t, 0.0), lambda x: np.where(x > 0.5, x, 0.0)),
    "np_concatenate": (lambda t: np.concatenate([t, t]), lambda x: np.concatenate([x, x])),
    "iter": (lambda t: sum(t), lambda x: sum(x)),
}


@pytest.mark.parametrize("transform", ["vmap", "jvp", "grad"])
@pytest.mark.parametrize("name", sorted(TRACER_OPS))
def test_tracer_operations(name, transform):
    x = rng.uniform(0.1, 1.0, (3, 4))
    f, ref = TRACER_OPS[name]
    out = _under(transform, f, x)
    assert isinstance(out, np.ndarray)
    expected = ref(x)
    assert out.dtype == np.asarray(expected).dtype
    np.testing.assert_allclose(out, expected, rtol=1e-14)


def test_tracer_metadata():
    seen = {}

    def f(t):
        seen.update(shape=t.shape, ndim=t.ndim, dtype=t.dtype, size=t.size, len=len(t))
        return t

    mg.vmap(f)(np.ones((5, 2, 3), np.float32))
    assert seen == {"shape": (2, 3), "ndim": 2, "dtype": np.float32, "size": 6, "len": 2}
    mg.grad(lambda t: f(t).sum())(np.ones(4))
    assert seen["shape"] == (4,) and seen["dtype"] == np.float64


def test_integer_array_indexing_gradient_accumulates_duplicates():
    g = mg.grad(lambda t: t[np.array([0, 0, 2, -1])].sum())(np.arange(3.0))
    np.testing.assert_array_equal(g, [2.0, 0.0, 2.0])


def test_traced_integer_index_under_vmap():
    x = np.arange(12.0).reshape(3, 4)
    out = mg.vmap(lambda row, i: row[i])(x, np.array([0, 3, -1]))
    np.testing.assert_array_equal(out, [0.0, 7.0, 11.0])
    out = mg.vmap(lambda i: mnp.take(np.arange(4.0), i))(np.array([[0, -1], [1, 2]]))
    np.testing.assert_array_equal(out, [[0.0, 3.0], [1.0, 2.0]])


def test_tracer_not_hashable_and_no_unknown_attributes():
    with pytest.raises(TypeError):
        mg.grad(lambda t: hash(t) * t)(2.0)
    with pytest.raises(AttributeError, match="foo"):
        mg.grad(lambda t: t.foo)(2.0)


def test_tracer_to_numpy_array_is_an_error():
    with pytest.raises(TypeError, match="cannot convert a tracer of vmap"):
        mg.vmap(lambda t: np.asarray(t))(np.ones((2, 3)))


@pytest.mark.parametrize("fn,name", [
    (lambda t: np.correlate(t, t), "numpy.correlate"),  # (np.fft.fft: minigrad.numpy.fft's)
    (lambda t: np.convolve(t, t), "numpy.convolve"),
    (lambda t: np.gradient(t), "numpy.gradient"),
    (lambda t: np.gcd(t, t), "numpy.gcd"),
    (lambda t: np.add.reduce(t), "numpy.add.reduce"),
])
def test_unsupported_numpy_function_on_tracer(fn, name):
    with pytest.raises(TypeError, match=rf"{name} is not supported on minigrad tracers"):
        mg.vmap(fn)(np.ones((2, 3)))
    with pytest.raises(TypeError, match=rf"{name} is not supported"):
        mg.grad(lambda t: fn(t).sum())(np.ones(3))


def test_out_of_range_index_on_tracer():
    x = np.ones((3, 4))
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 4"):
        mg.vmap(lambda t: t[5])(x)
    with pytest.raises(IndexError, match="-4"):
        mg.grad(lambda t: t[-4].sum())(np.ones(3))
    with pytest.raises(IndexError, match="out of bounds"):
        mg.vmap(lambda t: t[np.array([4])])(x)
    with pytest.raises(IndexError, match="index 4 is out of bounds for axis 0 with size 4"):
        mg.vmap(lambda t, i: t[i])(x, np.array([0, 4, -1]))


def test_array_api_constants_finfo_and_from_dlpack() -> None:
    import math

    assert mnp.e == math.e and mnp.pi == math.pi and mnp.inf == math.inf
    assert math.isnan(mnp.nan) and mnp.newaxis is None
    for dtype in (np.float32, np.float64, np.complex64):
        info = mnp.finfo(dtype)
        assert isinstance(info.bits, int) and isinstance(info.eps, float)
        assert isinstance(info.smallest_normal, float) and info.dtype.kind == "f"
        assert info.eps == float(np.finfo(dtype).eps)
    out = mnp.from_dlpack(np.arange(3.0))
    assert isinstance(out, mg.Array) and out.tolist() == [0.0, 1.0, 2.0]

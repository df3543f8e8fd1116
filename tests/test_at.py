"""``x[key]`` and ``x.at[key]``: property tests against NumPy over random shapes, keys (ints,
slices of any step, None, Ellipsis, several integer arrays broadcasting together, boolean
masks) and dtypes, eagerly and under jit, vmap and grad; every ``.at`` method, with NumPy's
``ufunc.at`` (and an in-order loop for ``set``) as references; JAX's modes reproduced by our
explicit ``mode=``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import minigrad as mg
import minigrad.numpy as mnp
from minigrad.testing import check_jvp, check_vjp

INDEX_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                np.uint64]


# --------------------------------------------------------------------------- keys

@st.composite
def keys(draw: Any, shape: tuple, arrays: bool = True, masks: bool = True) -> tuple:
    """A NumPy key for an array of ``shape``: ints, slices, None, one Ellipsis, integer
    arrays (any integer dtype, negatives included, broadcasting together) and boolean masks."""
    key: list[Any] = []
    axis, has_ellipsis = 0, False
    block = draw(st.sampled_from([(), (2,), (3,), (2, 1), (1, 3)]))  # the arrays' shape
    for _ in range(draw(st.integers(0, len(shape) + 2))):
        kinds = ["int", "slice", "none", "ellipsis"] + ["array"] * arrays + ["mask"] * masks
        kind = draw(st.sampled_from(kinds))
        if kind == "none":
            key.append(None)
            continue
        if kind == "ellipsis":
            if not has_ellipsis:
                key.append(Ellipsis)
                has_ellipsis = True
            continue
        if axis >= len(shape):
            continue
        # after an ellipsis the axis is not known here: draw in range of the smallest
        n = min(shape[axis:]) if has_ellipsis else shape[axis]
        if kind == "int":
            key.append(draw(st.integers(-n, n - 1)))
        elif kind == "slice":
            bound = st.none() | st.integers(-n - 2, n + 2)
            key.append(slice(draw(bound), draw(bound),
                             draw(st.sampled_from([None, 1, 2, -1, -2]))))
        elif kind == "array":
            dtype = draw(st.sampled_from(INDEX_DTYPES))
            lo = 0 if np.dtype(dtype).kind == "u" else -n
            values = draw(st.lists(st.integers(lo, n - 1), min_size=int(np.prod(block)),
                                   max_size=int(np.prod(block))))
            key.append(np.array(values, dtype).reshape(block))
        else:
            if has_ellipsis:
                continue
            key.append(np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n))))
        axis += 1
    return tuple(key)


def numpy_view(shape: tuple, key: tuple) -> np.ndarray | None:
    """The flat positions ``x[key]`` reads (None if NumPy rejects the key)."""
    try:
        return np.arange(int(np.prod(shape))).reshape(shape)[key]
    except IndexError:
        return None


SHAPE = (3, 4, 5)


# --------------------------------------------------------------------------- getitem

@given(key=keys(SHAPE))
def test_getitem_against_numpy(key: tuple) -> None:
    x = np.arange(60.0).reshape(SHAPE)
    positions = numpy_view(SHAPE, key)
    if positions is None:
        return
    expected = x[key]
    got = mnp.getitem(x, key)
    assert type(got) is mg.Array
    np.testing.assert_array_equal(got, expected)
    assert got.shape == expected.shape
    # the same key on a tracer: under jit, vmap (batch axis in the middle) and grad
    np.testing.assert_array_equal(mg.jit(lambda t: t[key])(x), expected)
    batched = mg.vmap(lambda t: t[key], in_axes=1, out_axes=-1)(np.stack([x, -x], axis=1))
    np.testing.assert_array_equal(batched, np.stack([expected, -expected], axis=-1))
    reads = np.bincount(positions.ravel(), minlength=60).reshape(SHAPE).astype(float)
    np.testing.assert_array_equal(mg.grad(lambda t: t[key].sum())(x), reads)


@given(key=keys((4, 5), masks=False), dtype=st.sampled_from([np.float32, np.int32, bool]))
def test_getitem_with_traced_index_arrays(key: tuple, dtype: type) -> None:
    x = (np.arange(20) % 3).reshape(4, 5).astype(dtype)
    if numpy_view((4, 5), key) is None:
        return
    where = [i for i, k in enumerate(key) if isinstance(k, np.ndarray)]
    arrays = [key[i] for i in where]

    def f(t: Any, *idx: Any) -> Any:
        full = list(key)
        for i, a in zip(where, idx, strict=True):
            full[i] = a
        return mnp.getitem(t, tuple(full))  # (vmap hands an unbatched x in as an ndarray)

    np.testing.assert_array_equal(mg.jit(f)(x, *arrays), x[key])
    assert mg.jit(f)(x, *arrays).dtype == x.dtype
    if arrays:  # each example its own index arrays
        other = [a[::-1] if a.ndim else a for a in arrays]
        stacked = [np.stack([a, b]) for a, b in zip(arrays, other, strict=True)]
        out = mg.vmap(f, in_axes=(None, *[0] * len(arrays)))(x, *stacked)
        np.testing.assert_array_equal(out[1], f(x, *other))
        # an Array captured by a transformed function, indexed by a tracer: JAX's indexing
        captured = mnp.asarray(x)
        np.testing.assert_array_equal(mg.jit(lambda *i: captured[tuple(
            dict(zip(where, i, strict=True)).get(j, k) for j, k in enumerate(key))])(*arrays),
            x[key])


def test_getitem_errors_name_axis_index_and_size() -> None:
    x = np.zeros((3, 4))
    for key, message in [((0, 4), "index 4 is out of bounds for axis 1 with size 4"),
                         ((np.array([0, -4]),), "index -4 is out of bounds for axis 0 with size 3"),
                         ((slice(None), np.array([9], np.uint8)), "index 9 is out of bounds for "
                                                                  "axis 1 with size 4")]:
        with pytest.raises(IndexError, match=message):
            mnp.getitem(x, key)
        with pytest.raises(IndexError, match=message):
            mg.jit(lambda t, k=key: t[k])(x)
        with pytest.raises(IndexError, match=message):
            mg.vmap(lambda t, k=key: t[k])(np.stack([x, x]))


def test_a_traced_mask_is_a_clear_error_and_a_concrete_one_works() -> None:
    x = np.arange(4.0)
    mask = x > 1
    for transform in (mg.jit, mg.vmap):
        with pytest.raises(IndexError, match=r"boolean index must be concrete.*data-dependent"):
            transform(lambda t, m: t[m])(np.stack([x, x]), np.stack([mask, mask]))
    np.testing.assert_array_equal(mg.jit(lambda t: t[mask])(x), x[mask])
    np.testing.assert_array_equal(mg.vmap(lambda t: t[mask])(np.stack([x, -x])),
                                  np.stack([x[mask], -x[mask]]))
    # forward mode knows the mask's value: it works there
    _, t = mg.jvp(lambda t: t[t > 1], (x,), (np.ones(4),))
    np.testing.assert_array_equal(t, [1.0, 1.0])


# --------------------------------------------------------------------------- .at

def reference(method: str, x: np.ndarray, key: tuple, v: Any) -> np.ndarray:
    """``x.at[key].method(v)`` from NumPy: the flat positions x[key] reads, and ufunc.at (or
    an in-order loop for set) over them."""
    positions = numpy_view(x.shape, key)
    assert positions is not None
    flat = positions.ravel()
    y = x.copy().ravel()
    if method == "get":
        return x[key]
    if method == "apply":
        for p in flat:
            y[p] = v(y[p])
        return y.reshape(x.shape)
    vb = np.broadcast_to(np.asarray(v).astype(x.dtype), positions.shape).ravel()
    if method == "set":
        for p, u in zip(flat, vb, strict=True):  # in order: the last write stays
            y[p] = u
    else:
        ufunc = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply,
                 "mul": np.multiply, "min": np.minimum, "max": np.maximum,
                 "divide": np.multiply, "power": np.multiply}[method]
        if method in ("divide", "power"):  # JAX's x / scatter_mul(1, v), x ** scatter_mul(...)
            ones = np.ones_like(y)
            ufunc.at(ones, flat, vb)
            return (y / ones if method == "divide" else y ** ones).reshape(x.shape)
        ufunc.at(y, flat, vb)
    return y.reshape(x.shape)


METHODS = ["set", "add", "subtract", "multiply", "mul", "divide", "power", "min", "max",
           "apply", "get"]


def call(method: str, x: Any, key: tuple, v: Any, **kw: Any) -> Any:
    ref = (mnp.asarray(x) if isinstance(x, np.ndarray) else x).at[key]  # (a plain ndarray:
    # the finite differences call it so; tracers and Arrays have .at)
    if method == "get":
        return ref.get(**kw)
    if method == "apply":
        return ref.apply(v, **kw)
    return getattr(ref, method)(v, **kw)


def updates(rng: np.random.Generator, method: str, shape: tuple, broadcast: int) -> Any:
    if method == "apply":
        return lambda t: t * 1.5 + 0.25
    if broadcast == 1:
        shape = shape[1:]  # fewer dims: broadcast along the first
    elif broadcast == 2:
        return 1.25  # a Python scalar
    lo, hi = (0.5, 1.5) if method in ("divide", "power") else (-2, 2)
    return rng.uniform(lo, hi, shape)


@pytest.mark.parametrize("method", METHODS)
@given(key=keys(SHAPE), broadcast=st.integers(0, 2), seed=st.integers(0, 99))
def test_at_against_numpy_eagerly_and_under_transforms(method: str, key: tuple,
                                                       broadcast: int, seed: int) -> None:
    check_at(method, key, broadcast, seed)


# Every kind of index at least once, whatever hypothesis draws.
KINDS = {
    "int": (1,), "negative-int": (-1, 2), "slice": (slice(1, None),),
    "negative-step": (slice(None, None, -2), 0), "none": (None, 0, slice(1, 3)),
    "ellipsis": (Ellipsis, 1), "int-array-repeats": (np.array([0, 2, 0]),),
    "two-arrays-broadcast": (np.array([[0], [2]]), slice(None), np.array([1, 4, 1])),
    "adjacent-arrays": (slice(None), np.array([3, -1]), np.array([0, 0])),
    "mask": (np.array([True, False, True]),), "mask-2d": (slice(1, 2), np.ones((4, 5), bool)),
    "mixed": (np.array([2, 2]), None, slice(None, None, -1), -2),
}


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("kind", list(KINDS))
def test_at_every_method_and_index_kind(method: str, kind: str) -> None:
    check_at(method, KINDS[kind], 0, 1)
    check_at(method, KINDS[kind], 1, 2)


def check_at(method: str, key: tuple, broadcast: int, seed: int) -> None:
    """Eager x.at[key].method(v) against NumPy, and the same under jit, vmap and grad."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(0.5, 1.5, SHAPE)  # positive: power stays real
    positions = numpy_view(SHAPE, key)
    if positions is None:
        return
    v = updates(rng, method, positions.shape, broadcast)
    expected = reference(method, x, key, v)
    eager = call(method, mnp.asarray(x), key, v)
    assert type(eager) is mg.Array
    np.testing.assert_allclose(eager, expected, rtol=1e-14)
    assert eager.dtype == x.dtype
    dynamic = isinstance(v, np.ndarray)
    if dynamic:
        jitted = mg.jit(lambda t, u: call(method, t, key, u))(x, v)
    else:
        jitted = mg.jit(lambda t: call(method, t, key, v))(x)
    np.testing.assert_allclose(jitted, eager, rtol=1e-14)
    # vmap: every example its own x (and v)
    xs = np.stack([x, x[::-1]])
    if dynamic:
        vs = np.stack([v, v * 0.5 + 0.25])
        batched = mg.vmap(lambda t, u: call(method, t, key, u))(xs, vs)
        second = call(method, mnp.asarray(xs[1]), key, vs[1])
    else:
        batched = mg.vmap(lambda t: call(method, t, key, v))(xs)
        second = call(method, mnp.asarray(xs[1]), key, v)
    np.testing.assert_allclose(batched[0], eager, rtol=1e-14)
    np.testing.assert_allclose(batched[1], second, rtol=1e-14)
    # grad: JVP against finite differences and the dot-product test (x and v both; min and
    # max see no ties between x and the updates: they are drawn apart)
    if dynamic:
        check_jvp(lambda t, u: call(method, t, key, u), [x, v], atol=1e-6, rtol=1e-6)
        check_vjp(lambda t, u: call(method, t, key, u), [x, v], atol=1e-6, rtol=1e-6)
    else:
        check_jvp(lambda t: call(method, t, key, v), [x], atol=1e-6, rtol=1e-6)


@pytest.mark.parametrize("method", ["set", "add", "multiply", "min", "max", "get"])
@given(key=keys((6,), masks=False), seed=st.integers(0, 99))
def test_at_with_traced_index_arrays(method: str, key: tuple, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = rng.uniform(0.5, 1.5, 6)
    positions = numpy_view((6,), key)
    if positions is None or not any(isinstance(k, np.ndarray) for k in key):
        return
    v = rng.uniform(-2, 2, positions.shape)
    where = [i for i, k in enumerate(key) if isinstance(k, np.ndarray)]

    def f(t: Any, u: Any, *idx: Any) -> Any:
        full = list(key)
        for i, a in zip(where, idx, strict=True):
            full[i] = a
        return call(method, t, tuple(full), u)

    arrays = [key[i] for i in where]
    expected = reference(method, x, key, v)
    np.testing.assert_allclose(mg.jit(f)(x, v, *arrays), expected, rtol=1e-14)
    out = mg.vmap(f, in_axes=(None, None, *[0] * len(arrays)))(
        x, v, *[np.stack([a, a]) for a in arrays])
    np.testing.assert_allclose(out[1], expected, rtol=1e-14)


def test_at_examples() -> None:
    x = mnp.asarray(np.zeros(4))
    i = np.array([0, 0, 2])
    np.testing.assert_array_equal(x.at[i].set(np.array([1.0, 2.0, 3.0])), [2, 0, 3, 0])
    np.testing.assert_array_equal(x.at[i].add(1.0), [2, 0, 1, 0])
    np.testing.assert_array_equal((x + 2).at[i].power(np.array([2.0, 3.0, 1.0])),
                                  [64, 2, 2, 2])  # exponents at a repeated index multiply
    np.testing.assert_array_equal((x + 1).at[np.array([1, 1])].apply(lambda t: t * 10),
                                  [1, 100, 1, 1])  # once per occurrence
    # updates are cast to x's dtype, as JAX does
    ints = mnp.asarray(np.arange(3))
    np.testing.assert_array_equal(ints.at[1].set(2.7), [0, 2, 2])
    assert ints.at[1].set(2.7).dtype == ints.dtype
    # the original is never written
    np.testing.assert_array_equal(x, np.zeros(4))
    # a 0-d x, as in JAX
    scalar = mnp.asarray(np.array(2.0))
    assert scalar.at[()].set(5.0) == 5.0 and scalar.at[...].add(1.0) == 3.0
    assert scalar.at[()].apply(lambda t: t * 3) == 6.0 and scalar.at[()].get() == 2.0
    assert mg.jit(lambda t: t.at[()].multiply(3.0))(np.array(2.0)) == 6.0
    # a plain ndarray gets .at through minigrad.numpy.asarray; tracers have it too
    assert mg.grad(lambda t: t.at[0].multiply(3.0).sum())(np.ones(2))[0] == 3.0


def test_at_errors() -> None:
    x = mnp.asarray(np.zeros((2, 3)))
    with pytest.raises(IndexError, match=r"at\[\].add: index 3 is out of bounds for axis 1 "
                                         r"with size 3"):
        x.at[:, np.array([0, 3])].add(1.0)
    with pytest.raises(IndexError, match=r"at\[\].set: index -3 is out of bounds for axis 0"):
        x.at[-3].set(1.0)
    with pytest.raises(ValueError, match="must broadcast"):
        x.at[0].set(np.ones(2))
    with pytest.raises(ValueError, match="mode must be"):
        x.at[0].set(1.0, mode="bogus")
    with pytest.raises(IndexError, match="out of bounds"):  # raised by the impl under jit
        mg.jit(lambda t, i: t.at[i].add(1.0))(np.zeros(3), np.array([3]))


# --------------------------------------------------------------------------- JAX's modes

def test_explicit_modes_reproduce_jax(jax_x64: Any) -> None:
    import jax.numpy as jnp

    x = np.arange(5.0)
    i = np.array([-7, -5, -1, 0, 4, 5, 9])
    v = np.arange(7.0) + 10
    jx, ji, jv = jnp.asarray(x), jnp.asarray(i), jnp.asarray(v)
    ours, theirs = mnp.asarray(x), jx
    pairs = [
        # JAX's defaults: a gather clamps, a scatter drops, take fills
        (ours.at[i].get(mode="clip"), theirs[ji]),
        (ours.at[i].get(mode="fill"), theirs.at[ji].get(mode="fill")),
        (ours.at[i].get(mode="fill", fill_value=-1.0),
         theirs.at[ji].get(mode="fill", fill_value=-1.0)),
        (mnp.take(ours, i, mode="fill"), jnp.take(jx, ji)),
        (mnp.take(ours, i, mode="clip"), jnp.take(jx, ji, mode="clip")),
        (mnp.take(ours, i, mode="wrap"), jnp.take(jx, ji, mode="wrap")),
        (mnp.take_along_axis(ours, i, 0, mode="fill"), jnp.take_along_axis(jx, ji, 0)),
        (ours.at[i].set(v, mode="drop"), theirs.at[ji].set(jv)),
        (ours.at[i].add(v, mode="drop"), theirs.at[ji].add(jv)),
        (ours.at[i].add(v, mode="clip"), theirs.at[ji].add(jv, mode="clip")),
        (ours.at[i].min(v - 12, mode="drop"), theirs.at[ji].min(jv - 12)),
        (ours.at[i].multiply(v, mode="drop"), theirs.at[ji].multiply(jv)),
        (ours.at[i].get(mode="fill", wrap_negative_indices=False),
         theirs.at[ji].get(mode="fill", wrap_negative_indices=False)),
        (ours.at[5].set(1.0, mode="drop"), theirs.at[5].set(1.0)),
        (ours.at[-4].get(mode="clip"), theirs[-4]),
    ]
    for k, (a, b) in enumerate(pairs):
        np.testing.assert_array_equal(a, np.asarray(b), err_msg=f"pair {k}")
    # gradients follow the forward's mode: a fill read gets none, a clamped one does
    g_ours = mg.grad(lambda t: t.at[i].get(mode="fill", fill_value=0.0).sum())(x)
    g_theirs = jax_x64.grad(lambda t: t.at[ji].get(mode="fill", fill_value=0.0).sum())(jx)
    np.testing.assert_array_equal(g_ours, g_theirs)
    g_ours = mg.grad(lambda t: t.at[i].get(mode="clip").sum())(x)
    g_theirs = jax_x64.grad(lambda t: t.at[ji].get(mode="clip").sum())(jx)
    np.testing.assert_array_equal(g_ours, g_theirs)


def test_at_gradients_agree_with_jax(jax_x64: Any) -> None:
    import jax.numpy as jnp

    rng = np.random.default_rng(3)
    x = rng.uniform(0.5, 1.5, (3, 4))
    key = (np.array([0, 2, 0]), slice(1, None))  # a repeated row
    jkey = (jnp.asarray(key[0]), key[1])
    v = rng.uniform(0.5, 1.5, (3, 3))
    w = rng.standard_normal((3, 4))
    for method in ["set", "add", "min", "max"]:
        def loss(t: Any, u: Any, k: Any, method: str = method) -> Any:
            return (call(method, t, k, u) * w).sum()

        got = mg.grad(loss, argnums=(0, 1))(x, v, key)
        want = jax_x64.grad(loss, argnums=(0, 1))(jnp.asarray(x), jnp.asarray(v), jkey)
        np.testing.assert_allclose(got[0], want[0], rtol=1e-14, err_msg=method)
        np.testing.assert_allclose(got[1], want[1], rtol=1e-14, err_msg=method)
    got = mg.grad(lambda t: (t.at[key].get() * v).sum())(x)
    want = jax_x64.grad(lambda t: (t.at[jkey].get() * v).sum())(jnp.asarray(x))
    np.testing.assert_allclose(got, want, rtol=1e-14)

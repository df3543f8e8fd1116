"""Adversarial tests of indexing: the families of silent wrong answers and misleading errors that
issue 29 found, each with its repro and a property test that would have found the family.

1. Range checks hold for every integer index dtype at every size (issue 29 item 1).
2. index_add adds one element at a time in x's dtype, in index order, on every path: eager,
   in place, jit, jit in place, vmap (item 7).
3. Narrow and unsigned index dtypes and boolean masks in minigrad.numpy (item 12).
4. Non-native byte order is normalised where arrays enter minigrad (item 13).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import minigrad as mg
from minigrad import numpy as mnp
from minigrad.ops.indexing import check_index_values, index_in_range

INT_DTYPES = [np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64,
                                    np.uint8, np.uint16, np.uint32, np.uint64)]


def limit_sizes(dtype: np.dtype) -> list[int]:
    """Sizes around 2**(bits-1) and 2**bits for an index of ``dtype``: where a check that
    reads the entries in their own dtype (or viewed as unsigned) can go wrong."""
    bits = 8 * dtype.itemsize
    return [2 ** (bits - 1) + d for d in (-1, 0, 1)] + [2 ** bits + d for d in (-1, 0, 1)]


def representable(dtype: np.dtype, values: list[int]) -> list[int]:
    info = np.iinfo(dtype)
    return [v for v in values if info.min <= v <= info.max]


def entries(dtype: np.dtype, size: int) -> st.SearchStrategy[list[int]]:
    """Index entries of ``dtype``: the edges of [0, size) and of the dtype, and any value."""
    info = np.iinfo(dtype)
    edges = representable(dtype, [info.min, -1, 0, 1, size - 1, size, size + 1, info.max])
    values = st.one_of(st.sampled_from(edges), st.integers(int(info.min), int(info.max)))
    # up to 32 entries take the range test's Python path, more its NumPy path
    return st.one_of(st.lists(values, min_size=1, max_size=4),
                     st.lists(values, min_size=33, max_size=40))


def in_range(values: list[int], size: int) -> bool:
    return all(0 <= v < size for v in values)  # in Python ints: no dtype to overflow


# =========================================================================== 1. range checks
# Item 1: viewing a signed index as unsigned turns a negative entry into one >= 2**(bits-1),
# which max() < size catches only when size <= 2**(bits-1): an int8 -1 passed into 300 slices,
# and index_add wrapped it to the last slice.


def test_narrow_negative_index_into_a_larger_axis_is_refused() -> None:
    index = np.array([-1] * 40, np.int8)
    for call in (lambda: mg.index_add(np.zeros(300), 0, index, np.ones(40)),
                 lambda: mg.index_copy(np.zeros(300), 0, index, np.ones(40)),
                 lambda: mg.index_fill(np.zeros(300), 0, index, 1.0),
                 lambda: mg.index_add_(np.zeros(300), 0, index, np.ones(40)),
                 lambda: mg.jit(lambda x, i: mg.index_add(x, 0, i, np.ones(40)))(np.zeros(300),
                                                                                  index)):
        with pytest.raises(IndexError, match=r"must be in \[0, 300\).*got -1"):
            call()


@given(st.sampled_from(INT_DTYPES), st.data())
def test_range_test_for_every_dtype_at_every_size(dtype: np.dtype, data: Any) -> None:
    # The range test itself, at sizes no array could have (2**63 slices): it needs only the size.
    size = data.draw(st.sampled_from([*limit_sizes(dtype), 1, 7, 300, 70_000]))
    values = data.draw(entries(dtype, size))
    index = np.array(values, dtype)
    ok = in_range(values, size)
    assert index_in_range(index, size) == ok
    if len(values) % 2 == 0:
        assert index_in_range(index.reshape(2, -1), size) == ok  # (the batched, 2-D case)
    if ok:
        check_index_values(index, size, "op", 0)
    else:
        with pytest.raises(IndexError, match="op: index entries must be in"):
            check_index_values(index, size, "op", 0)


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=str)
def test_range_test_at_the_limits(dtype: np.dtype) -> None:
    # Every limit size against the entries that break a check done in the index's own dtype:
    # the dtype's extremes, -1, and the first entry out of range, on both of its paths.
    for size in limit_sizes(dtype):
        for bad in representable(dtype, [int(np.iinfo(dtype).min), -1, size]):
            if 0 <= bad < size:  # (an unsigned dtype's minimum)
                continue
            for n in (3, 40):
                index = np.full(n, min(size - 1, np.iinfo(dtype).max), dtype)
                assert index_in_range(index, size)
                index[n // 2] = bad
                assert not index_in_range(index, size), (size, bad, n)


def _feasible_size(dtype: np.dtype, data: Any) -> int:
    """A size an array can have, around a limit of ``dtype`` where it has one that small."""
    sizes = [s for s in limit_sizes(dtype) if s <= 2 ** 16 + 1] + [1, 5, 300]
    return data.draw(st.sampled_from(sizes))


def _reference(op: str, x: np.ndarray, index: np.ndarray, source: np.ndarray) -> np.ndarray:
    out = x.copy()
    wide = index.astype(np.int64)
    if op == "index_add":
        np.add.at(out, wide, source)
    elif op == "index_copy":
        for i, j in enumerate(wide.tolist()):  # the last occurrence wins
            out[j] = source[i]
    else:
        out[wide] = 7.0
    return out


def _run(op: str, mode: str, x: np.ndarray, index: np.ndarray, source: np.ndarray) -> Any:
    """``op`` on (x, index) run one way: each mode reaches the range check by another road."""
    fn = {"index_add": lambda a, i: mg.index_add(a, 0, i, source),
          "index_copy": lambda a, i: mg.index_copy(a, 0, i, source),
          "index_fill": lambda a, i: mg.index_fill(a, 0, i, 7.0)}[op]
    fn_ = {"index_add": lambda a, i: mg.index_add_(a, 0, i, source),
           "index_copy": lambda a, i: mg.index_copy_(a, 0, i, source),
           "index_fill": lambda a, i: mg.index_fill_(a, 0, i, 7.0)}[op]
    if mode == "eager":
        return fn(x, index)
    if mode == "in place":
        y = x.copy()
        fn_(y, index)
        return y
    if mode == "jit, traced index":
        return mg.jit(fn)(x, index)
    if mode == "jit, constant index":
        return mg.jit(lambda a: fn(a, index))(x)
    if mode == "jit, in place":
        def update(a: Any, i: Any) -> Any:
            a = a * 1.0
            fn_(a, i)
            return a
        return mg.jit(update)(x, index)
    if mode == "vmap, batched index":  # the batching rule checks, then folds
        out = mg.vmap(fn, in_axes=(None, 0))(x, np.stack([index, index]))
        np.testing.assert_array_equal(out[0], out[1])
        return out[0]
    assert mode == "grad"  # a concrete index under a transform: checked by the op itself
    g = mg.grad(lambda a: mnp.sum(fn(a, index) * np.arange(a.shape[0])))(x)
    assert g.shape == x.shape
    return fn(x, index)


MODES = ["eager", "in place", "jit, traced index", "jit, constant index", "jit, in place",
         "vmap, batched index", "grad"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("op", ["index_add", "index_copy", "index_fill"])
@given(st.sampled_from(INT_DTYPES), st.data())
def test_index_ops_check_every_dtype_near_its_limits(op: str, mode: str, dtype: np.dtype,
                                                     data: Any) -> None:
    size = _feasible_size(dtype, data)
    values = data.draw(entries(dtype, size))
    index = np.array(values, dtype)
    x = np.zeros(size)
    source = np.arange(1.0, len(values) + 1)
    if not in_range(values, size):
        with pytest.raises(IndexError, match=f"index entries must be in \\[0, {size}\\)"):
            _run(op, mode, x, index, source)
        return
    np.testing.assert_array_equal(_run(op, mode, x, index, source),
                                  _reference(op, x, index, source))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("op", ["index_add", "index_copy", "index_fill"])
def test_index_ops_refuse_out_of_range_entries_at_the_limits(op: str, mode: str) -> None:
    # The property above, at its corners: every dtype, at each size near its limits that an
    # array can have (others: 300), with a 40-entry index holding -1 or the size.
    for dtype in INT_DTYPES:
        for size in [s for s in limit_sizes(dtype) if s <= 2 ** 16 + 1] or [300]:
            for bad in representable(dtype, [-1, size]):
                index = np.zeros(40, dtype)
                index[-1] = bad
                with pytest.raises(IndexError, match=f"must be in \\[0, {size}\\).*got {bad}"):
                    _run(op, mode, np.zeros(size), index, np.ones(40))


# =========================================================================== 2. index_add sums
# Item 7: with 4096 or more source elements, eager index_add summed in float64 (np.bincount)
# while jit's in-place path and PyTorch add in x's dtype: float16 counted 5000 ones as 5000, not
# 2048, and an untouched -0.0 came back +0.0.


def loop_index_add(x: np.ndarray, dim: int, index: np.ndarray, source: np.ndarray
                   ) -> np.ndarray:
    """The reference: one addition at a time, in x's dtype, in index order."""
    out = x.copy()
    lead = (slice(None),) * dim
    for i, j in enumerate(index.tolist()):
        out[(*lead, j)] = out[(*lead, j)] + source[(*lead, i)]
    return out


def _index_add_every_way(x: np.ndarray, dim: int, index: np.ndarray, source: np.ndarray
                         ) -> dict[str, np.ndarray]:
    def fresh(a: Any, i: Any, s: Any) -> Any:  # x * 1 is the program's own: updated in place
        return mg.index_add(a * np.ones((), a.dtype), dim, i, s)

    def donated(a: Any, i: Any, s: Any) -> Any:
        return mg.index_add(a, dim, i, s)

    y = x.copy()
    mg.index_add_(y, dim, index, source)
    return {"eager": mg.index_add(x, dim, index, source),
            "index_add_": y,
            "jit": mg.jit(lambda a, i, s: mg.index_add(a, dim, i, s))(x, index, source),
            "jit, in place": mg.jit(fresh)(x, index, source),
            "jit, donated": mg.jit(donated, donate_argnums=0)(x.copy(), index, source),
            "vmap": mg.vmap(lambda a, i, s: mg.index_add(a, dim, i, s))(
                x[None], index[None], source[None])[0]}


def _same_bits(got: dict[str, np.ndarray], expected: np.ndarray) -> None:
    for way, out in got.items():
        assert out.dtype == expected.dtype, way
        assert out.tobytes() == expected.tobytes(), (way, out, expected)


def test_float16_counts_saturate_as_in_pytorch() -> None:
    x, index, source = np.zeros(4, np.float16), np.zeros(5000, np.int64), np.ones(5000, np.float16)
    for out in _index_add_every_way(x, 0, index, source).values():
        assert out[0] == 2048  # 2048 + 1 rounds back to 2048 in float16
    # rows of 8: the fast path of wide slices
    x, source = np.zeros((4, 8), np.float16), np.ones((5000, 8), np.float16)
    for out in _index_add_every_way(x, 0, index, source).values():
        np.testing.assert_array_equal(out[0], 2048)


def test_untouched_negative_zero_stays() -> None:
    x = np.full((4, 8), -0.0)
    out = mg.index_add(x, 0, np.zeros(5000, np.int64), np.ones((5000, 8)))
    assert np.signbit(out[1:]).all() and (out[0] == 5000).all()


@given(st.sampled_from([np.float16, np.float32, np.float64]), st.integers(0, 1),
       st.sampled_from([1, 3, 8]), st.sampled_from([5, 600, 4095, 4096, 5000]),
       st.sampled_from([1, 4, 700]), st.integers(0, 2 ** 32 - 1))
def test_index_add_adds_in_xs_dtype_on_every_path(dtype: Any, dim: int, width: int, k: int,
                                                  n: int, seed: int) -> None:
    # Every path against the one-at-a-time loop, bit for bit: values of mixed magnitudes (so
    # the order of additions shows), signed zeros, and indices with few or many repeats.
    rng = np.random.default_rng(seed)
    shape = [width, width]
    shape[dim] = n
    x = (rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4, shape)).astype(dtype)
    x[rng.random(shape) < 0.2] = -0.0
    sshape = list(shape)
    sshape[dim] = k
    source = (rng.standard_normal(sshape) * 10.0 ** rng.integers(-3, 4, sshape)).astype(dtype)
    source[rng.random(sshape) < 0.1] = -0.0
    index = rng.integers(0, rng.integers(1, n + 1), k)  # sometimes a few slices, many repeats
    _same_bits(_index_add_every_way(x, dim, index, source), loop_index_add(x, dim, index, source))


# =========================================================================== 3. minigrad.numpy
# Item 12: take and x[idx] wrapped negative entries in the index's own dtype (int8 + 300
# overflowed); index_add with a uint64 index of 4096+ entries failed casting float64 to int64;
# x[mask] on a tracer blamed take.


def test_narrow_index_into_minigrad_numpy() -> None:
    x = np.arange(300.0)
    np.testing.assert_array_equal(mnp.take(x, np.array([1, 2], np.int8)), [1.0, 2.0])
    for dtype in (np.int8, np.uint8, np.int16):
        index = np.array([1, 2], dtype)
        np.testing.assert_array_equal(mg.jit(lambda a, i: a[i])(x, index), [1.0, 2.0])
        np.testing.assert_array_equal(mg.jit(lambda a, i=index: a[i])(x), [1.0, 2.0])
        g = mg.grad(lambda a, i=index: mnp.sum(a[i]))(x)
        assert g[1] == g[2] == 1.0 and g.sum() == 2.0


def test_uint64_index_of_many_entries() -> None:
    index = np.zeros(5000, np.uint64)
    out = mg.index_add(np.zeros((4, 8)), 0, index, np.ones((5000, 8)))
    np.testing.assert_array_equal(out[0], 5000.0)
    out = mg.index_add(np.zeros(4), 0, index, np.ones(5000))
    assert out[0] == 5000.0


def test_traced_boolean_mask_names_the_cause() -> None:
    x = np.arange(-1.0, 2.0)
    with pytest.raises(IndexError, match=r"boolean index must be concrete.*shape depends"):
        mg.jit(lambda a: a[a > 0])(x)
    with pytest.raises(IndexError, match="boolean index must be concrete"):
        mg.vmap(lambda a: a[a > 0])(x[None])
    # under grad the primal values are known, and so is the mask (as in JAX)
    np.testing.assert_array_equal(mg.grad(lambda a: mnp.sum(a[a > 0] ** 2))(x), [0, 0, 2])


@given(st.sampled_from(INT_DTYPES), st.data())
def test_take_wraps_and_checks_every_dtype(dtype: np.dtype, data: Any) -> None:
    # NumPy's rule: entries in [-n, n), negative ones counting from the end; anything else is an
    # IndexError. Eagerly, under jit (a traced index: wrapped with primitives), grad and vmap.
    n = data.draw(st.sampled_from([1, 5, 127, 128, 129, 255, 256, 257, 300]))
    info = np.iinfo(dtype)
    edges = representable(dtype, [info.min, -n - 1, -n, -1, 0, n - 1, n, info.max])
    values = data.draw(st.lists(st.one_of(st.sampled_from(edges),
                                          st.integers(int(info.min), int(info.max))),
                                min_size=1, max_size=6))
    index = np.array(values, dtype)
    x = np.arange(float(n)) + 0.5
    ways: dict[str, Callable[[], Any]] = {
        "take": lambda: mnp.take(x, index),
        "getitem": lambda: mnp.getitem(x, index),
        "jit, traced index": lambda: mg.jit(lambda a, i: a[i])(x, index),
        "jit, constant index": lambda: mg.jit(lambda a: mnp.take(a, index))(x),
        "vmap": lambda: mg.vmap(lambda i: mnp.take(x, i))(index[None])[0],
        "grad": lambda: mg.grad(lambda a: mnp.sum(a[index] * 1.0))(x)}
    if not all(-n <= v < n for v in values):
        for way, call in ways.items():
            with pytest.raises(IndexError):
                call()
                pytest.fail(way)
        return
    wrapped = [v % n for v in values]
    for way, call in ways.items():
        if way == "grad":
            np.testing.assert_array_equal(call(), np.bincount(wrapped, minlength=n), way)
        else:
            np.testing.assert_array_equal(call(), x[wrapped], way)


@given(st.integers(0, 2 ** 32 - 1), st.integers(0, 3), st.data())
def test_concrete_boolean_mask_indexes_as_numpy(seed: int, where: int, data: Any) -> None:
    # A mask that is a NumPy array has a known count: x[mask] is NumPy's, eagerly and under
    # every transform (the result's shape is fixed when the program is traced).
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((3, 4, 2))
    if where == 0:
        mask = rng.random(x.shape[:data.draw(st.integers(1, 3))]) < 0.5
        key: Any = mask
    elif where == 1:
        mask = rng.random((4, 2)) < 0.5
        key = (slice(None), mask)
    elif where == 2:
        mask = rng.random(2) < 0.5
        key = (Ellipsis, mask)
    else:
        mask = rng.random(3) < 0.5
        key = (None, mask, 1)
    expected = x[key]
    np.testing.assert_array_equal(mnp.getitem(x, key), expected)
    np.testing.assert_array_equal(mg.jit(lambda a: a[key])(x), expected)
    np.testing.assert_array_equal(mg.vmap(lambda a: a[key])(np.stack([x, 2 * x]))[1],
                                  2 * expected)
    selected = np.zeros(x.shape)
    selected[key] = 1.0
    np.testing.assert_array_equal(mg.grad(lambda a: mnp.sum(a[key]))(x), selected)


def test_boolean_mask_of_the_wrong_shape() -> None:
    with pytest.raises(IndexError, match=r"boolean index of shape \(2,\) does not match"):
        mnp.getitem(np.zeros((3, 4)), np.ones(2, bool))


# =========================================================================== 4. byte order
# Item 13: a big-endian array (np.load, np.frombuffer) kept its byte order inside minigrad:
# grad failed adding cotangents of '>f8' and '<f8' ("got f64[3], f64[3]"), index_add refused a
# native source for a big-endian x, and jit traced the two orders apart.


def swapped(a: Any) -> np.ndarray:
    """``a`` with its byte order swapped (native -> non-native), values unchanged."""
    a = np.asarray(a)
    return a.astype(a.dtype.newbyteorder("S"))


def _is_native(tree: Any) -> bool:
    return all(leaf.dtype.isnative for leaf in mg.tree_leaves(tree))


def test_big_endian_input_to_grad_and_index_add() -> None:
    x = np.arange(3.0).astype(">f8")
    np.testing.assert_array_equal(mg.grad(lambda a: mnp.sum(a * a))(x), [0.0, 2.0, 4.0])
    out = mg.index_add(x, 0, np.array([0]), np.ones(1))
    np.testing.assert_array_equal(out, [1.0, 1.0, 2.0])
    assert out.dtype == np.float64 and out.dtype.isnative


def _f(a: Any, b: Any) -> Any:
    return mnp.sum(mnp.sin(a) * b)


@pytest.mark.parametrize("transform", [
    "grad", "value_and_grad", "vjp", "jvp", "linearize", "vmap", "jacfwd", "jacrev",
    "hessian", "make_jaxpr", "jit", "functionalize"])
def test_every_transform_takes_non_native_byte_order(transform: str) -> None:
    a, b = np.linspace(0.1, 1.0, 4), np.linspace(2.0, 3.0, 4)
    sa, sb = swapped(a), swapped(b)

    def run(p: np.ndarray, q: np.ndarray) -> Any:
        if transform == "vjp":
            out, pull = mg.vjp(_f, p, q)
            return out, pull(swapped(np.asarray(1.0)) if p is sa else np.asarray(1.0))
        if transform == "jvp":
            return mg.jvp(_f, (p, q), (p, q))
        if transform == "linearize":
            out, f_jvp = mg.linearize(_f, p, q)
            return out, f_jvp(p, q)
        if transform == "vmap":
            return mg.vmap(lambda u, v: mnp.sin(u) * v)(p, q)
        if transform == "make_jaxpr":
            jaxpr = mg.make_jaxpr(_f)(p, q)
            assert all(v.aval.dtype.isnative for v in jaxpr.jaxpr.invars)
            return jaxpr(p, q)
        if transform in ("jit", "functionalize"):
            return getattr(mg, transform)(_f)(p, q)
        if transform == "hessian":
            return mg.hessian(lambda u: _f(u, q))(p)
        if transform in ("jacfwd", "jacrev"):
            return getattr(mg, transform)(lambda u: mnp.sin(u) * q)(p)
        return getattr(mg, transform)(_f, argnums=(0, 1))(p, q)

    expected, got = run(a, b), run(sa, sb)
    assert _is_native(got)
    for e, g in zip(mg.tree_leaves(expected), mg.tree_leaves(got), strict=True):
        np.testing.assert_array_equal(g, e)


def test_jit_traces_each_byte_order_once() -> None:
    f = mg.jit(lambda a: a * 2.0)
    x = np.arange(3.0)
    for arg in (x, swapped(x), swapped(x), x):
        out = f(arg)
        np.testing.assert_array_equal(out, [0.0, 2.0, 4.0])
        assert out.dtype.isnative
    assert f.traces == 1


OPS = {
    "index_add": (lambda x, i, s, m: mg.index_add(x, 0, i, s, alpha=2),
                  lambda x, i, s, m: mg.index_add_(x, 0, i, s, alpha=2)),
    "index_copy": (lambda x, i, s, m: mg.index_copy(x, 0, i, s),
                   lambda x, i, s, m: mg.index_copy_(x, 0, i, s)),
    "index_fill": (lambda x, i, s, m: mg.index_fill(x, 0, i, s.ravel()[:1].reshape(())),
                   lambda x, i, s, m: mg.index_fill_(x, 0, i, s.ravel()[:1].reshape(()))),
    "masked_fill": (lambda x, i, s, m: mg.masked_fill(x, m, s.ravel()[:1].reshape(())),
                    lambda x, i, s, m: mg.masked_fill_(x, m, s.ravel()[:1].reshape(()))),
    "masked_scatter": (lambda x, i, s, m: mg.masked_scatter(x, m, s),
                       lambda x, i, s, m: mg.masked_scatter_(x, m, s)),
}


@pytest.mark.parametrize("op", sorted(OPS))
@given(st.sampled_from([np.float32, np.float64, np.int32, np.int64]),
       st.lists(st.booleans(), min_size=3, max_size=3), st.sampled_from([1, 40]),
       st.integers(0, 2 ** 32 - 1))
def test_five_ops_and_their_updates_take_any_byte_order(op: str, dtype: Any, which: list[bool],
                                                        k: int, seed: int) -> None:
    # x, source (or value) and index each native or swapped; the out-of-place op, its in-place
    # variant (eager, under jit, under functionalize) and grad all give the native results,
    # and the in-place variants write into the caller's array, whatever its byte order.
    rng = np.random.default_rng(seed)
    x = rng.integers(-9, 9, (50, 3)).astype(dtype)
    index = rng.integers(0, 50, k)
    source = rng.integers(-9, 9, (k, 3)).astype(dtype)
    mask = rng.random((50, 3)) < 0.5
    out_of_place, in_place = OPS[op]
    if op == "masked_scatter":
        source = rng.integers(-9, 9, 150).astype(dtype)
    args = [swapped(a) if w else a for a, w in zip((x, index, source), which, strict=True)]
    expected = out_of_place(x, index, source, mask)

    got = out_of_place(*args, mask)
    assert got.dtype == expected.dtype and got.dtype.isnative
    np.testing.assert_array_equal(got, expected)

    for way in ("eager", "jit", "functionalize"):
        target = args[0].copy()

        def update(t: Any, i: Any, s: Any) -> Any:
            in_place(t, i, s, mask)
            return mnp.sum(t)

        if way == "eager":
            assert in_place(target, args[1], args[2], mask) is target
        else:
            getattr(mg, way)(update)(target, args[1], args[2])
        assert target.dtype == args[0].dtype  # the caller's array, in its own byte order
        np.testing.assert_array_equal(target, expected, way)

    if np.dtype(dtype).kind == "f":
        sx = swapped(x)
        g = mg.grad(lambda a: mnp.sum(out_of_place(a, args[1], args[2], mask) * 1.5))(sx)
        g0 = mg.grad(lambda a: mnp.sum(out_of_place(a, index, source, mask) * 1.5))(x)
        assert g.dtype.isnative
        np.testing.assert_array_equal(g, g0)

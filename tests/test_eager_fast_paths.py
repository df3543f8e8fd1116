"""The eager fast paths (minigrad.numpy.eager, fast_paths, linalg.fast; minigrad.nn._fast)
against the general path they shortcut: the same bits, dtype, shape and Array-ness, the same
errors, no bind on the fast path, and the general path under jit and jvp agreeing too. The
linalg ones call LAPACK: equal up to rounding, and the general path's answer where LAPACK
fails (singular or non-finite matrices)."""

from __future__ import annotations

import contextlib
import itertools
from typing import Any, Callable, Iterator

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn as nn
import minigrad.numpy as mnp
from minigrad import core
from minigrad.numpy import eager

RNG = np.random.default_rng(26)


@contextlib.contextmanager
def general_path() -> Iterator[None]:
    eager.ENABLED = False
    try:
        yield
    finally:
        eager.ENABLED = True


@contextlib.contextmanager
def no_binds() -> Iterator[list]:
    """Counts the eval trace's binds inside the block."""
    calls: list = []
    original = core.EvalTrace.process_primitive

    def counting(self: Any, prim: Any, args: tuple, params: dict) -> Any:
        calls.append(prim.name)
        return original(self, prim, args, params)

    core.EvalTrace.process_primitive = counting  # type: ignore[method-assign]
    try:
        yield calls
    finally:
        core.EvalTrace.process_primitive = original  # type: ignore[method-assign]


def outcome(fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except Exception as e:  # (the error is part of the outcome)
        return (type(e), str(e))


def assert_same(fast: Any, general: Any) -> None:
    if isinstance(general, tuple) and general and isinstance(general[0], type):
        assert fast == general
        return
    if isinstance(general, tuple):
        assert isinstance(fast, tuple) and len(fast) == len(general)
        for f, g in zip(fast, general, strict=True):
            assert_same(f, g)
        return
    assert type(fast) is type(general) is mg.Array, (type(fast), type(general))
    assert fast.dtype == general.dtype and fast.shape == general.shape
    assert fast.tobytes() == general.tobytes(), (fast, general)  # (bits: -0.0, NaN too)


def check(fn: Callable[..., Any], *args: Any, expect_fast: bool = True, **kw: Any) -> Any:
    """fn(*args, **kw) with and without the fast paths: the same outcome; no bind when the
    fast path applies; the inputs untouched and not aliased by the result."""
    before = [np.array(a, copy=True) for a in args if isinstance(a, np.ndarray)]
    with no_binds() as calls:
        fast = outcome(lambda: fn(*args, **kw))
    with general_path():
        general = outcome(lambda: fn(*args, **kw))
    assert_same(fast, general)
    if expect_fast and not isinstance(fast, tuple):
        assert calls == [], calls
    after = [a for a in args if isinstance(a, np.ndarray)]
    for b, a in zip(before, after, strict=True):
        assert b.tobytes() == a.tobytes()
        if isinstance(fast, np.ndarray):
            assert not np.shares_memory(fast, a)
    return fast


def special(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """Random values with the edges mixed in: NaN, +-inf, +-0, large."""
    x = np.asarray(RNG.standard_normal(shape) * 3)
    flat = x.reshape(-1)
    edges = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e30, -1e30, 40.0, -40.0]
    for i, v in zip(RNG.permutation(flat.size)[:len(edges)], edges, strict=False):
        flat[i] = v
    return x.astype(dtype)


def cast(x: np.ndarray, dtype: Any) -> np.ndarray:
    """``x`` as ``dtype``: bools by sign, integers rounded (NaN and inf as 0)."""
    if dtype == np.bool_:
        return x > 0
    if np.dtype(dtype).kind in "iu":
        return np.round(np.nan_to_num(x, nan=0.0, posinf=0.0, neginf=0.0)).astype(dtype)
    return x.astype(dtype)


FLOATS = [np.float64, np.float32]
SHAPES = [(), (1,), (7,), (3, 4), (2, 3, 4), (0,), (2, 0)]


def arrays(dtype: Any, with_edges: bool) -> Iterator[np.ndarray]:
    for shape in SHAPES:
        x = special(shape, dtype) if with_edges and np.prod(shape) >= 9 else \
            np.asarray(RNG.standard_normal(shape) * 3, dtype)
        yield x
        yield x.view(mg.Array)


def axes_for(ndim: int) -> list[Any]:
    out: list[Any] = [None]
    out += list(range(-ndim, ndim))
    if ndim >= 2:
        out += [(0, ndim - 1), (-1, 0), ()]
    out += [ndim, (0, 0)] if ndim else [0, 1]  # (errors)
    return out


# --------------------------------------------------------------------------- reductions


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("edges", [False, True])
def test_mean(dtype: Any, edges: bool) -> None:
    with np.errstate(all="ignore"):
        for x in arrays(dtype, edges):
            for axis, keepdims in itertools.product(axes_for(x.ndim), [False, True]):
                check(mnp.mean, x, axis, keepdims=keepdims, expect_fast=False)


@pytest.mark.parametrize("fn", [mnp.var, mnp.std])
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("edges", [False, True])
def test_var_std(fn: Callable[..., Any], dtype: Any, edges: bool) -> None:
    with np.errstate(all="ignore"):
        for x in arrays(dtype, edges):
            for axis, keepdims in itertools.product(axes_for(x.ndim), [False, True]):
                check(fn, x, axis, keepdims=keepdims, expect_fast=False)
            n = x.size
            for ddof in [1, n, n + 1, 0.5]:
                check(fn, x, ddof=ddof, expect_fast=False)
            check(fn, x, correction=1, expect_fast=False)
            check(fn, x, ddof=np.int64(1), expect_fast=False)  # (the general path)
            check(fn, x, ddof=1, correction=1, expect_fast=False)  # (an error)
            check(fn, x, ddof="1", expect_fast=False)  # (an error)


def test_var_std_mean_take_no_bind() -> None:
    x = RNG.standard_normal((4, 5))
    for fn in (mnp.var, mnp.std, mnp.mean):
        for kw in ({}, {"axis": 1}, {"axis": (0, 1), "keepdims": True}):
            check(fn, x, **kw)
    check(mnp.var, x, ddof=1)
    check(mnp.std, x, correction=2.5)


@pytest.mark.parametrize("fn", [mnp.all, mnp.any])
def test_all_any(fn: Callable[..., Any]) -> None:
    for dtype in [np.float64, np.float32, np.int64, np.int32, np.uint8, np.bool_]:
        for x in arrays(np.float64, True):
            x = cast(x, dtype)
            if dtype == np.float64:
                x = np.where(np.abs(x) < 0.5, 0, x)  # zeros, to make all and any differ
            for axis, keepdims in itertools.product(axes_for(x.ndim), [False, True]):
                check(fn, x, axis, keepdims=keepdims, expect_fast=False)
    check(fn, np.array([0.0, np.nan]))  # (a NaN is true)
    check(fn, np.array([[True, False], [True, True]]), axis=0)


def test_mean_var_lists_and_scalars_take_the_general_path() -> None:
    check(mnp.var, [1.0, 2.0, 4.0], expect_fast=False)
    check(mnp.mean, 3.0, expect_fast=False)
    check(mnp.std, np.arange(5), expect_fast=False)  # (an int array: converted)
    check(mnp.var, np.arange(5.0), where=np.arange(5) > 1, expect_fast=False)


def test_x64_off() -> None:
    x32 = RNG.standard_normal((3, 4)).astype(np.float32)
    x64 = RNG.standard_normal((3, 4))
    with mg.enable_x64(False):
        for fn in (mnp.mean, mnp.var, mnp.std, nn.softmax, nn.relu, nn.gelu):
            check(fn, x32)
            out = check(fn, x64, expect_fast=False)  # (converted to float32: the general path)
            assert out.dtype == np.float32
        check(mnp.all, np.arange(3, dtype=np.int32))
        check(mnp.any, np.arange(3), expect_fast=False)
        check(mnp.sort, x32)
        check(mnp.argsort, x32)
        assert mnp.argsort(x32).dtype == np.int32
        check(mnp.median, x32, axis=0)


# --------------------------------------------------------------------------- sort, median


@pytest.mark.parametrize("fn", [mnp.sort, mnp.argsort])
def test_sort_argsort(fn: Callable[..., Any]) -> None:
    for dtype in [np.float64, np.float32, np.int64, np.int8, np.bool_]:
        for x in arrays(np.float64, True):
            x = cast(x, dtype)
            for axis in [None, *range(-x.ndim, x.ndim), x.ndim, 1.0]:
                check(fn, x, axis=axis, expect_fast=False)
                check(fn, x, axis=axis, descending=True, expect_fast=False)
    ties = np.array([3.0, 1.0, 3.0, -0.0, 0.0, np.nan, 1.0])
    check(fn, ties)
    check(fn, ties, kind="quicksort")  # (an error)
    if fn is mnp.argsort:
        check(fn, ties, dtype=np.int32)
        check(fn, ties, dtype=np.float32)  # (an error)


def test_median() -> None:
    with np.errstate(all="ignore"):
        for dtype in [np.float64, np.float32, np.int64, np.bool_]:
            for x in arrays(np.float64, True):
                x = cast(x, dtype)
                for axis, keepdims in itertools.product(axes_for(x.ndim), [False, True]):
                    check(mnp.median, x, axis, keepdims=keepdims, expect_fast=False)
    check(mnp.median, RNG.standard_normal((4, 6)), axis=1)
    check(mnp.median, RNG.standard_normal((5, 3)), axis=(0, 1), keepdims=True)


def test_norm() -> None:
    with np.errstate(all="ignore"):
        for dtype in [np.float64, np.float32, np.int64]:
            for x in arrays(np.float64, True):
                x = cast(x, dtype)
                for axis, keepdims in itertools.product(axes_for(x.ndim), [False, True]):
                    check(mnp.linalg.norm, x, axis=axis, keepdims=keepdims, expect_fast=False)
                check(mnp.linalg.norm, x, ord=2, expect_fast=False)
                check(mnp.linalg.norm, x, axis=True, expect_fast=False)  # (an error)
    check(mnp.linalg.norm, RNG.standard_normal((3, 4)), axis=-1)
    check(mnp.linalg.norm, RNG.standard_normal((3, 4)))


def test_dot() -> None:
    for dtype in [np.float64, np.float32, np.int64]:
        for xs, ys in [((7,), (7,)), ((1,), (1,)), ((3, 4), (4,)), ((4,), (4, 2)),
                       ((3, 4), (4, 5)), ((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5)), ((0,), (0,)),
                       ((3,), (4,))]:
            x, y = cast(RNG.standard_normal(xs) * 3, dtype), cast(RNG.standard_normal(ys), dtype)
            check(mnp.dot, x, y, expect_fast=xs[-1] == (ys[-2] if len(ys) > 1 else ys[0]))
            check(mnp.dot, x.view(mg.Array), y)
    check(mnp.dot, np.ones(3), np.ones(3, np.float32), expect_fast=False)  # (promoted)
    check(mnp.dot, np.ones(3), 2.0, expect_fast=False)


def test_at_with_an_int_key() -> None:
    # x.at[i] with a Python int i runs the scatter's impl at once; an np.int64 key takes the
    # general path (plan, _updates): the same result and errors
    for x in [np.arange(5.0), np.arange(6.0, dtype=np.float32).reshape(3, 2),
              np.array([np.nan, -0.0, np.inf], np.float32), np.array([0.0, np.nan]),
              np.arange(6).reshape(2, 3), np.array([True, False])]:
        x = x.view(mg.Array)
        for i in [0, 1, -1, -len(x), len(x), -len(x) - 1]:
            for how in ["set", "add", "multiply", "min", "max"]:
                for v in [2.5, 3, -0.0, float("nan"), float("-inf"), 0.1,
                          np.ones(x.shape[1:], x.dtype), np.ones(x.shape[1:])]:
                    update = getattr(x.at[i], how)
                    with no_binds() as calls:
                        fast = outcome(lambda: update(v))  # noqa: B023
                    general_update = getattr(x.at[np.int64(i)], how)
                    general = outcome(lambda: general_update(v))  # noqa: B023
                    assert_same(fast, general)
                    if how == "add" and x.dtype.kind == "f" and not isinstance(fast, tuple) \
                            and (type(v) is float or getattr(v, "dtype", None) == x.dtype):
                        assert calls == []  # (the scatter's impl, without a bind)


# --------------------------------------------------------------------------- minigrad.nn

NN = [nn.relu, nn.sigmoid, nn.softplus, nn.log_sigmoid, nn.silu, nn.gelu,
      lambda x: nn.gelu(x, approximate=False), nn.softmax, nn.log_softmax]


@pytest.mark.parametrize("fn", NN)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("edges", [False, True])
def test_nn(fn: Callable[..., Any], dtype: Any, edges: bool) -> None:
    with np.errstate(all="ignore"):
        for x in arrays(dtype, edges):
            check(fn, x, expect_fast=x.size > 0 or fn not in (nn.softmax, nn.log_softmax))


@pytest.mark.parametrize("fn", [nn.softmax, nn.log_softmax])
def test_softmax_axes(fn: Callable[..., Any]) -> None:
    with np.errstate(all="ignore"):
        for x in arrays(np.float64, True):
            for axis in axes_for(x.ndim):
                check(fn, x, axis, expect_fast=False)
    x = RNG.standard_normal((3, 4))
    check(fn, x, where=x > 0, expect_fast=False)
    check(fn, np.array([-np.inf, 0.0, 1.0]))
    check(fn, np.array([-np.inf, -np.inf]))


def test_relu_of_ints_and_bools() -> None:
    for x in [np.arange(-3, 4), np.arange(-3, 4, dtype=np.int8), np.arange(5, dtype=np.uint8),
              np.array([True, False])]:
        check(nn.relu, x)
    check(nn.relu, np.array([1 + 1j]), expect_fast=False)  # (an error)
    check(nn.sigmoid, np.arange(3), expect_fast=False)  # (ints: converted, general path)


# --------------------------------------------------------------------------- transforms


CASES: list[tuple[Callable[..., Any], dict]] = [
    (mnp.mean, {"axis": 1}), (mnp.var, {"axis": 0, "ddof": 1}), (mnp.std, {"keepdims": True}),
    (mnp.median, {"axis": 1}), (mnp.sort, {}), (nn.relu, {}), (nn.sigmoid, {}),
    (nn.softplus, {}), (nn.silu, {}), (nn.gelu, {}), (nn.softmax, {}), (nn.log_softmax, {}),
    (mnp.linalg.norm, {"axis": 1}), (lambda x: mnp.dot(x, x.T), {}), (mnp.all, {"axis": 0}),
    (mnp.argsort, {}),
]


@pytest.mark.parametrize("fn,kw", CASES)
def test_fast_path_agrees_with_jit_and_jvp(fn: Callable[..., Any], kw: dict) -> None:
    # under a transform the general path runs: its value is the fast path's (jit's generated
    # code runs the same impls; a trivial jvp carries the primal through every rule)
    x = special((4, 5), np.float64)
    with np.errstate(all="ignore"):
        fast = fn(x, **kw)
        jitted = mg.jit(lambda x: fn(x, **kw))(x)
        primal, _ = mg.jvp(lambda x: fn(x, **kw), (x,), (np.zeros_like(x),))
    for other in (jitted, primal):
        np.testing.assert_array_equal(np.asarray(fast), np.asarray(other))
        assert np.asarray(other).dtype == fast.dtype


@pytest.mark.parametrize("flag", ["jax_debug_nans", "jax_debug_infs"])
def test_debug_nans_takes_the_general_path(flag: str) -> None:
    # with the flag on, the eval trace checks every primitive's result: the general path runs
    # (and raises); off again, the fast paths are back
    x = np.array([np.inf, 1.0])
    with mg.config.override(flag, True):
        assert not eager.eager()
        with pytest.raises(FloatingPointError), np.errstate(all="ignore"):
            mnp.var(x)
    assert eager.eager()
    with np.errstate(all="ignore"):
        check(mnp.var, x)


# --------------------------------------------------------------------------- linalg


def well_conditioned(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    n = shape[-1]
    return (RNG.standard_normal(shape) + n * np.eye(n)).astype(dtype)


def close(fast: Any, general: Any, dtype: Any) -> None:
    assert type(fast) is type(general) is mg.Array
    assert fast.dtype == general.dtype and fast.shape == general.shape
    tol = 1e-10 if dtype == np.float64 else 2e-4
    np.testing.assert_allclose(np.asarray(fast), np.asarray(general), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("batch", [(), (3,), (2, 2)])
@pytest.mark.parametrize("n", [1, 2, 4, 9])
def test_linalg_fast_paths(dtype: Any, batch: tuple[int, ...], n: int) -> None:
    a = well_conditioned((*batch, n, n), dtype)
    b_vec = RNG.standard_normal(n).astype(dtype)
    b_mat = RNG.standard_normal((*batch, n, 2)).astype(dtype)
    L = mnp.linalg
    for fn, args in [(L.inv, (a,)), (L.solve, (a, b_vec)), (L.solve, (a, b_mat)),
                     (L.det, (a,)), (L.slogdet, (a,))]:
        with no_binds() as calls:
            fast = fn(*args)
        with general_path():
            general = fn(*args)
        if fn is L.slogdet:
            close(fast.sign, general.sign, dtype)
            close(fast.logabsdet, general.logabsdet, dtype)
        else:
            close(fast, general, dtype)
        assert (calls == []) == (fn is not L.det or n > 3)


@pytest.mark.parametrize("matrix", [
    np.array([[1.0, 2.0], [2.0, 4.0]]),  # singular
    np.zeros((5, 5)),
    np.array([[1.0, np.nan], [0.0, 1.0]]),
    np.array([[np.inf, 0.0], [0.0, 1.0]]),
    np.array([[1.0, 0.0], [0.0, -np.inf]]),
    np.diag([1.0, 2.0, 0.0, 3.0, 4.0]),
    np.diag([1e200, 1.0, 2.0, 3.0, 4.0]),  # finite, but the finiteness test's sum overflows
    np.diag([1e20, 1.0, 2.0, 3.0, 4.0]).astype(np.float32),  # (float32's)
])
def test_linalg_edges_are_the_general_paths(matrix: np.ndarray) -> None:
    L = mnp.linalg
    b = np.ones(matrix.shape[-1])
    with np.errstate(all="ignore"):
        for fn, args in [(L.inv, (matrix,)), (L.solve, (matrix, b))]:
            check(fn, *args, expect_fast=False)
        for fn in (L.det, L.slogdet):
            fast, general = fn(matrix), None
            with general_path():
                general = fn(matrix)
            np.testing.assert_allclose(np.asarray(fast, dtype=float),
                                       np.asarray(general, dtype=float), atol=1e-12)


def test_linalg_bad_input_is_the_general_paths_error() -> None:
    L = mnp.linalg
    for fn, args in [(L.inv, (np.ones((2, 3)),)), (L.solve, (np.eye(3), np.ones(2))),
                     (L.det, (np.ones(3),)), (L.solve, (np.eye(2), np.ones((3, 2, 2))))]:
        check(fn, *args, expect_fast=False)


def test_triangular_solve_impl_matches_substitution() -> None:
    from minigrad.ops.linalg import _solve_triangle, _substitute

    for forward, unit, batch in itertools.product([True, False], [True, False],
                                                  [(), (3,)]):
        t = RNG.standard_normal((*batch, 6, 6)) + 6 * np.eye(6)
        b = RNG.standard_normal((*batch, 6, 2))
        np.testing.assert_allclose(_solve_triangle(t, b, forward, unit),
                                   _substitute(t, b, forward, unit), rtol=1e-12, atol=1e-12)
    t = np.triu(RNG.standard_normal((4, 4)))
    t[2, 2] = 0.0  # a zero pivot: substitution's infinities and NaNs
    b = RNG.standard_normal((4, 1))
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(_solve_triangle(t, b, False, False),
                                      _substitute(t, b, False, False))


def test_lu_of_one_matrix_is_the_stacks_bits() -> None:
    from minigrad.ops.linalg_factor import _lu_impl

    for shape in [(6, 6), (4, 7), (7, 4), (1, 1)]:
        a = RNG.standard_normal(shape)
        if shape[1] > 1:
            a[:, 1] = a[:, 0]  # (a rank deficiency: a zero pivot on the way)
        one = _lu_impl(a)
        stack = _lu_impl(np.stack([a, a]))
        for x, y in zip(one, stack, strict=True):
            assert x.dtype == y.dtype and x.tobytes() == y[0].tobytes()


def test_scatter_of_one_slot_is_ufunc_at() -> None:
    # the scatters' kernel for a 0-d index (gather._one_slot) against ufunc.at itself
    from minigrad.ops.gather import _one_slot

    with np.errstate(all="ignore"):
        for ufunc in (np.add, np.multiply, np.minimum, np.maximum):
            for x in [special((7,), np.float64), special((4, 3), np.float32),
                      np.arange(-6, 6).reshape(4, 3), np.array([2**62, 1]),
                      np.array([True, False, True])]:
                for i in range(-len(x), len(x)):
                    u = cast(RNG.standard_normal(x.shape[1:]) * 4, x.dtype)
                    want = x.copy()
                    ufunc.at(want, np.asarray(i), u)
                    got = x.copy()
                    _one_slot(ufunc, got, np.asarray(i), u)
                    assert got.tobytes() == want.tobytes()
                with pytest.raises(IndexError):
                    _one_slot(ufunc, x.copy(), np.asarray(len(x)), x[0])


def test_median_of_signed_zeros_and_ties() -> None:
    # the fast path's partition may order equal values differently from the general path's
    # stable sort: only -0.0 against 0.0 shows in the bits, and those are sorted
    for seed in range(40):
        rng = np.random.default_rng(seed)
        values = np.array([-0.0, 0.0, 1.0, -1.0, 2.0, np.nan])[:rng.integers(2, 7)]
        for shape in [(1,), (2,), (5,), (6,), (4, 5), (3, 4, 2)]:
            x = rng.choice(values, shape)
            for axis in [None, -1, 0]:
                check(mnp.median, x, axis)

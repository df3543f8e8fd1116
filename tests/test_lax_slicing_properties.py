"""Properties of minigrad.lax's dynamic slices and pad over random shapes, windows and starts
(hypothesis): the values against a plain-Python reference of JAX's semantics (a negative start
counted from the end, then clamped so that the window fits; pad's negative low/high cut after
the interior padding), vmap with batched starts against a loop, and the transposes by the
dot-product test."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given
from hypothesis import strategies as hs

import minigrad as mg
from minigrad import lax
from minigrad.testing import check_vjp


def _start(i: int, n: int, size: int) -> int:
    i = i + n if i < 0 else i
    return min(max(i, 0), n - size)


@hs.composite
def windows(draw: Any) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """(shape, window sizes, starts): starts anywhere in [-n - 2, n + 2]."""
    shape = tuple(draw(hs.lists(hs.integers(1, 5), min_size=1, max_size=3)))
    sizes = tuple(draw(hs.integers(0, n)) for n in shape)
    starts = tuple(draw(hs.integers(-n - 2, n + 2)) for n in shape)
    return shape, sizes, starts


@given(windows(), hs.integers(0, 2**31 - 1))
def test_dynamic_slice_and_update_against_a_reference(case: Any, seed: int) -> None:
    shape, sizes, starts = case
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    key = tuple(slice(_start(i, n, z), _start(i, n, z) + z)
                for i, n, z in zip(starts, shape, sizes, strict=True))
    traced = [np.asarray(i) for i in starts]
    np.testing.assert_array_equal(lax.dynamic_slice(x, traced, sizes), x[key])
    np.testing.assert_array_equal(mg.jit(lambda x, *s: lax.dynamic_slice(x, s, sizes))(
        x, *traced), x[key])
    u = rng.standard_normal(sizes)
    expected = x.copy()
    expected[key] = u
    np.testing.assert_array_equal(lax.dynamic_update_slice(x, u, traced), expected)
    # linear in x (and in (x, u)): the transposes by the dot-product test
    check_vjp(lambda x: lax.dynamic_slice(x, traced, sizes), [x])
    check_vjp(lambda x, u: lax.dynamic_update_slice(x, u, traced), [x, u])


@given(windows(), hs.integers(0, 2**31 - 1))
def test_vmap_with_batched_starts_is_the_loop(case: Any, seed: int) -> None:
    shape, sizes, _ = case
    rng = np.random.default_rng(seed)
    batch = 3
    xs = rng.standard_normal((batch, *shape))
    us = rng.standard_normal((batch, *sizes))
    starts = [rng.integers(-n - 2, n + 3, batch) for n in shape]

    def f(x: Any, u: Any, *s: Any) -> Any:
        return lax.dynamic_slice(x, s, sizes), lax.dynamic_update_slice(x, u, s)

    got = mg.vmap(f)(xs, us, *starts)
    for b in range(batch):
        want = f(xs[b], us[b], *[s[b] for s in starts])
        np.testing.assert_array_equal(got[0][b], want[0])
        np.testing.assert_array_equal(got[1][b], want[1])
    shared = mg.vmap(f, in_axes=(0, None, *[0] * len(shape)))(xs, us[0], *starts)
    for b in range(batch):
        np.testing.assert_array_equal(shared[1][b], f(xs[b], us[0], *[s[b] for s in starts])[1])


def _ref_pad(x: np.ndarray, value: float, config: list[tuple[int, int, int]]) -> np.ndarray:
    """Interior padding first, then low/high: positive ones add, negative ones cut."""
    out = x
    for axis, (lo, hi, interior) in enumerate(config):
        n = out.shape[axis]
        size = n + max(n - 1, 0) * interior
        shape = list(out.shape)
        shape[axis] = size
        spread = np.full(shape, value)
        index = [slice(None)] * out.ndim
        index[axis] = slice(0, size, interior + 1)
        spread[tuple(index)] = out
        low, high = list(shape), list(shape)
        low[axis], high[axis] = max(lo, 0), max(hi, 0)
        spread = np.concatenate([np.full(low, value), spread, np.full(high, value)], axis)
        cut = [slice(None)] * out.ndim
        cut[axis] = slice(max(-lo, 0), spread.shape[axis] - max(-hi, 0))
        out = spread[tuple(cut)]
    return out


@hs.composite
def pads(draw: Any) -> tuple[tuple[int, ...], list[tuple[int, int, int]]]:
    shape = tuple(draw(hs.lists(hs.integers(0, 4), min_size=1, max_size=2)))
    config = []
    for n in shape:
        interior = draw(hs.integers(0, 2))
        size = n + max(n - 1, 0) * interior
        lo = draw(hs.integers(-size, 3))
        hi = draw(hs.integers(-(size + lo) if size + lo > 0 else max(-3, 0), 3))
        config.append((lo, hi, interior))
    return shape, config


@given(pads(), hs.integers(0, 2**31 - 1))
def test_pad_against_a_reference(case: Any, seed: int) -> None:
    shape, config = case
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    value = np.float64(rng.standard_normal())
    np.testing.assert_array_equal(lax.pad(x, value, config), _ref_pad(x, float(value), config))
    np.testing.assert_array_equal(lax.pad(x, 0.0, config), _ref_pad(x, 0.0, config))
    check_vjp(lambda x, v: lax.pad(x, v, config), [x, value])

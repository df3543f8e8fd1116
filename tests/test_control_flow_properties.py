"""Property tests of the control-flow primitives' rules over drawn shapes, lengths and values
(hypothesis; derandomized in CI by tests/conftest.py's profile): JVP against central finite
differences, the transpose by the dot-product test, and batching against a loop over the
examples for every combination of batched and unbatched arguments (predicates and indices
included), for cond, switch, scan (both directions), fori_loop, while_loop and checkpoint."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import minigrad as mg
from minigrad import lax
from minigrad import numpy as mnp
from minigrad.testing import all_in_axes, check_jvp, check_vjp, check_vmap

B = 3  # the batch size of the vmap checks


def values(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.uniform(-1.2, 1.2, shape)


def batched(args: list[Any], axes: tuple[int | None, ...], make: Any) -> list[Any]:
    """``args`` with each one whose axis is not None replaced by ``make(k)`` batched at 0."""
    return [a if ax is None else make(k) for k, (a, ax) in enumerate(zip(args, axes,
                                                                          strict=True))]


# --------------------------------------------------------------------------- scan


def rnn(w: Any, h0: Any, xs: Any, reverse: bool) -> Any:
    def cell(h: Any, x: Any) -> Any:
        h = mnp.tanh(w * h + x)
        return h, mnp.sin(h) * x

    h, ys = lax.scan(cell, h0, xs, reverse=reverse)
    return mnp.sum(h) + mnp.sum(ys * ys)


@given(seed=st.integers(0, 2**16), d=st.integers(1, 3), length=st.integers(0, 4),
       reverse=st.booleans())
def test_scan_rules(seed: int, d: int, length: int, reverse: bool) -> None:
    rng = np.random.default_rng(seed)
    args = [values(rng, d), values(rng, d), values(rng, length, d)]

    def f(w: Any, h0: Any, xs: Any) -> Any:
        return rnn(w, h0, xs, reverse)

    check_jvp(f, args)
    check_vjp(f, args)
    for axes in all_in_axes(3):
        bargs = batched(args, axes, lambda k: values(rng, B, *np.shape(args[k])))
        check_vmap(f, bargs, axes)
        check_vmap(mg.grad(f, argnums=(0, 1)), bargs, axes)


@given(seed=st.integers(0, 2**16), length=st.integers(0, 4))
def test_fori_loop_with_static_bounds_rules(seed: int, length: int) -> None:
    rng = np.random.default_rng(seed)
    args = [values(rng, 2), values(rng, 2)]

    def f(x: Any, y: Any) -> Any:
        return lax.fori_loop(0, length, lambda i, c: mnp.sin(c * y) + i * 0.1, x)

    check_jvp(f, args)
    check_vjp(f, args)
    for axes in all_in_axes(2):
        check_vmap(f, batched(args, axes, lambda k: values(rng, B, 2)), axes)


# --------------------------------------------------------------------------- cond, switch


def branches2(x: Any, y: Any) -> tuple[Any, Any]:
    return mnp.sin(x) * y, x + mnp.cos(y) * y


@given(seed=st.integers(0, 2**16), d=st.integers(1, 3), pred=st.booleans())
def test_cond_rules(seed: int, d: int, pred: bool) -> None:
    rng = np.random.default_rng(seed)
    args = [np.bool_(pred), values(rng, d), values(rng, d)]

    def f(p: Any, x: Any, y: Any) -> Any:
        return lax.cond(p, lambda x, y: branches2(x, y)[0], lambda x, y: branches2(x, y)[1],
                        x, y)

    check_jvp(lambda x, y: f(args[0], x, y), args[1:])
    check_vjp(lambda x, y: f(args[0], x, y), args[1:])

    def make(k: int) -> Any:
        return rng.uniform(size=B) < 0.5 if k == 0 else values(rng, B, d)

    for axes in all_in_axes(3):
        bargs = batched(args, axes, make)
        check_vmap(f, bargs, axes)
        check_vmap(mg.grad(lambda p, x, y: mnp.sum(f(p, x, y)), argnums=(1, 2)), bargs, axes)


@given(seed=st.integers(0, 2**16), index=st.integers(-2, 5))
def test_switch_rules(seed: int, index: int) -> None:
    rng = np.random.default_rng(seed)
    fs = [lambda x: mnp.sin(x), lambda x: x * x, lambda x: mnp.exp(-x), lambda x: -x]
    args = [np.int64(index), values(rng, 2)]

    def f(i: Any, x: Any) -> Any:
        return lax.switch(i, fs, x)

    check_jvp(lambda x: f(args[0], x), args[1:])
    check_vjp(lambda x: f(args[0], x), args[1:])

    def make(k: int) -> Any:
        return rng.integers(-2, 6, B) if k == 0 else values(rng, B, 2)

    for axes in all_in_axes(2):
        check_vmap(f, batched(args, axes, make), axes)


# --------------------------------------------------------------------------- while_loop


def counted(x: Any, n: Any) -> Any:
    """``n`` steps of ``x -> sin(x) * 1.1``: the trip count is data (forward mode only)."""
    return lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, mnp.sin(c[1]) * 1.1),
                          (0, x))[1]


@given(seed=st.integers(0, 2**16), n=st.integers(0, 4))
def test_while_loop_rules(seed: int, n: int) -> None:
    rng = np.random.default_rng(seed)
    args = [values(rng, 2), np.int64(n)]
    check_jvp(lambda x: counted(x, args[1]), args[:1])

    def make(k: int) -> Any:
        return values(rng, B, 2) if k == 0 else rng.integers(0, 5, B)

    for axes in all_in_axes(2):  # a batched n batches the predicate: every lane its own count
        bargs = batched(args, axes, make)
        check_vmap(counted, bargs, axes)
        check_vmap(lambda x, n: mg.jvp(lambda x: counted(x, n), (x,), (mnp.ones_like(x),))[1],
                   bargs, axes)


# --------------------------------------------------------------------------- checkpoint


@given(seed=st.integers(0, 2**16), d=st.integers(1, 3))
def test_checkpoint_rules(seed: int, d: int) -> None:
    rng = np.random.default_rng(seed)
    args = [values(rng, d), values(rng, d)]

    @mg.checkpoint
    def cell(x: Any, y: Any) -> Any:
        return mnp.sin(mnp.tanh(x * y) + y)

    def f(x: Any, y: Any) -> Any:
        return cell(cell(x, y), y)

    check_jvp(f, args)
    check_vjp(f, args)
    for axes in all_in_axes(2):
        bargs = batched(args, axes, lambda k: values(rng, B, d))
        check_vmap(f, bargs, axes)
        check_vmap(mg.grad(lambda x, y: mnp.sum(f(x, y)), argnums=(0, 1)), bargs, axes)

"""Depth and size: six nested transforms of mixed kinds, and gradients of very long chains.

* Six nested transforms (three derivatives, two vmaps, a jvp) of a small function agree with
  central finite differences of the five-deep stack inside them, and with the closed form.
* ``grad`` of a chain of 10,000 primitives runs with the recursion limit barely above the depth
  at which the test starts: nothing in tracing, linearizing, DCE or the backward pass recurses
  per primitive. Timings are measured by ``chain_timings`` (run this file as a script); the
  tests assert no times. Measured when written (best of three): 2,500 / 5,000 / 10,000
  primitives in 0.05 / 0.11 / 0.21 s, about 21 us per primitive: linear.
"""

from __future__ import annotations

import inspect
import sys
import time
from typing import Any, Callable

import numpy as np
from op_checks import fd_jacobian

import minigrad as mg
from minigrad import numpy as mnp

# --------------------------------------------------------------------------- six deep

V = np.array([0.3, -0.7])  # the jvp direction


def f(x: Any) -> Any:
    """sin(x0) * exp(x1 / 2): every derivative has a closed form."""
    return mnp.sin(x[0]) * mnp.exp(x[1] * 0.5)


def closed_form(x: np.ndarray, orders: tuple[int, int]) -> float:
    """d^a/dx0^a d^b/dx1^b of f at x."""
    a, b = orders
    sin_derivs = (np.sin, np.cos, lambda t: -np.sin(t), lambda t: -np.cos(t))
    return float(sin_derivs[a % 4](x[0]) * 0.5 ** b * np.exp(x[1] * 0.5))


def fourth_derivative_closed_form(x: np.ndarray) -> np.ndarray:
    """T[i, j, m] = sum_k d4f/dx_i dx_j dx_k dx_m * V[k] at one point x (shape (2,))."""
    out = np.zeros((2, 2, 2))
    for i in range(2):
        for j in range(2):
            for m in range(2):
                for k in range(2):
                    orders = [0, 0]
                    for axis in (i, j, k, m):
                        orders[axis] += 1
                    out[i, j, m] += closed_form(x, (orders[0], orders[1])) * V[k]
    return out


def five_deep() -> Callable[[Any], Any]:
    """grad -> jacrev -> jvp (v) -> vmap -> vmap (innermost first): on (C, B, 2) inputs, the
    third derivative of f contracted with V at every point."""
    g1 = mg.grad(f)                                    # (2,) -> (2,)
    g2 = mg.jacrev(g1)                                 # (2,) -> (2, 2)
    g3 = lambda x: mg.jvp(g2, (x,), (V,))[1]           # noqa: E731  (2,) -> (2, 2)
    g4 = mg.vmap(g3)                                   # (B, 2) -> (B, 2, 2)
    return mg.vmap(g4, in_axes=1, out_axes=-1)         # (B, C, 2) -> (B, 2, 2, C)


def test_six_nested_transforms_agree_with_finite_differences() -> None:
    g5 = five_deep()
    g6 = mg.jacfwd(g5)  # (B, C, 2) -> (B, 2, 2, C, B, C, 2): the sixth transform
    x = np.random.default_rng(0).uniform(-1, 1, (2, 3, 2))  # B=2, C=3
    out = g6(x)
    assert out.shape == (2, 2, 2, 3, 2, 3, 2)

    # the sixth transform against central differences of the five inside it
    fd = fd_jacobian(g5, [x], 0, eps=1e-5)
    np.testing.assert_allclose(out, fd, rtol=1e-7, atol=1e-8)

    # and against the closed form: each point's fourth derivative, zero across points
    expected = np.zeros_like(out)
    for b in range(2):
        for c in range(3):
            expected[b, :, :, c, b, c, :] = fourth_derivative_closed_form(x[b, c])
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12)


def test_six_nested_transforms_through_the_five_ops() -> None:
    """The same depth through index_add, masked_fill (value from the input), index_copy and
    masked_scatter: jacrev(vmap(jacfwd(vmap(grad(jvp-of f))))) against finite differences of
    the five inside the outermost jacrev."""
    mask = np.array([True, False, True])

    def h(x: Any) -> Any:  # (3,) -> ()
        y = mg.index_add(x, 0, np.array([0, 2, 0]), mnp.sin(x), 0.5)
        y = mg.masked_fill(y, mask, mnp.sum(x) * 0.2)
        y = mg.index_copy(y, 0, np.array([1, 1]), mnp.stack([y[0] * y[2], mnp.tanh(y[1])]))
        y = mg.masked_scatter(y, ~mask, mnp.exp(y[:1] * 0.3))
        return mnp.sum(mnp.tanh(y) * y)

    u = np.array([0.2, -0.5, 0.9])
    k1 = lambda x: mg.jvp(h, (x,), (u,))[1]  # noqa: E731  (3,) -> ()
    k2 = mg.grad(k1)                         # (3,) -> (3,)
    k3 = mg.vmap(k2)                         # (B, 3) -> (B, 3)
    k4 = mg.jacfwd(k3)                       # (B, 3) -> (B, 3, B, 3)
    k5 = mg.vmap(k4, in_axes=-1, out_axes=0)  # (B, 3, C) -> (C, B, 3, B, 3)
    k6 = mg.jacrev(k5)                       # (B, 3, C) -> (C, B, 3, B, 3, B, 3, C)
    x = np.random.default_rng(1).uniform(-1, 1, (2, 3, 2))
    out = k6(x)
    assert out.shape == (2, 2, 3, 2, 3, 2, 3, 2)
    fd = fd_jacobian(k5, [x], 0, eps=1e-5)
    np.testing.assert_allclose(out, fd, rtol=1e-6, atol=1e-7)
    assert np.abs(out).max() > 1e-3  # the check compared something


# --------------------------------------------------------------------------- long chains

PRIMITIVES = 10_000


def sin_chain(n: int) -> Callable[[Any], Any]:
    def chain(x: Any) -> Any:
        for _ in range(n):
            x = mnp.sin(x)
        return mnp.sum(x)

    return chain


def mixed_chain(iterations: int) -> Callable[[Any], Any]:
    """Each iteration: a slice, sin, index_add, masked_fill, tanh, mul and add (seven
    primitives, plus a broadcast of a constant), each step close to the identity so the
    derivative neither vanishes nor explodes along the chain."""
    index, mask = np.array([0, 3, 0]), np.array([False, True, False, False])

    def chain(x: Any) -> Any:
        for _ in range(iterations):
            x = mg.index_add(x, 0, index, mnp.sin(x[:3]), 1e-3)
            x = mg.masked_fill(x, mask, 0.5)
            x = x + mnp.tanh(x) * 1e-3
        return mnp.sum(x)

    return chain


def _stack_depth() -> int:
    return len(inspect.stack(0))


def run_with_recursion_headroom(fn: Callable[[], Any], headroom: int = 150) -> Any:
    """Run ``fn`` with the recursion limit only ``headroom`` frames above the current depth:
    any recursion per primitive of a long chain would raise RecursionError."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(_stack_depth() + headroom)
    try:
        return fn()
    finally:
        sys.setrecursionlimit(old)


def test_grad_of_a_10000_primitive_chain_does_not_recurse() -> None:
    x = np.linspace(0.1, 1.0, 4)
    chain = sin_chain(PRIMITIVES)
    assert len(mg.make_jaxpr(chain)(x).eqns) == PRIMITIVES + 1  # the sins and the sum
    g = run_with_recursion_headroom(lambda: mg.grad(chain)(x))
    # d/dx of sin^n(x) is the product of cos along the chain
    expected, value = np.ones_like(x), x.copy()
    for _ in range(PRIMITIVES):
        expected *= np.cos(value)
        value = np.sin(value)
    np.testing.assert_allclose(g, expected, rtol=1e-10)


def test_long_chain_through_the_ops_forward_and_reverse() -> None:
    """index_add, masked_fill and elementwise ops, 10,000 primitives deep: reverse and forward
    mode run without deep recursion and agree (the dot-product test)."""
    chain = mixed_chain(PRIMITIVES // 8)
    x = np.linspace(-1.0, 1.0, 4)
    v = np.array([0.5, -1.0, 2.0, 0.25])
    assert len(mg.make_jaxpr(chain)(x).eqns) >= PRIMITIVES

    def both_modes() -> tuple:
        return mg.grad(chain)(x), mg.jvp(chain, (x,), (v,))[1]

    g, t = run_with_recursion_headroom(both_modes)
    assert np.all(np.abs(g[[0, 2, 3]]) > 0.1)  # the derivative survives the whole chain
    np.testing.assert_allclose(np.dot(g, v), t, rtol=1e-10)


def chain_timings(lengths: tuple[int, ...] = (2_500, 5_000, 10_000)) -> dict[int, float]:
    """Seconds for ``grad`` of a sin chain of each length (best of three)."""
    x = np.linspace(0.1, 1.0, 4)
    out = {}
    for n in lengths:
        chain = sin_chain(n)
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            mg.grad(chain)(x)
            best = min(best, time.perf_counter() - start)
        out[n] = best
    return out


if __name__ == "__main__":
    for n, seconds in chain_timings().items():
        print(f"grad of a {n:>6}-primitive chain: {seconds:.3f} s ({seconds / n * 1e6:.1f} us "
              f"per primitive)")

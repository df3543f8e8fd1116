"""The per-example-gradient workload of the benchmarks, in every system that runs it.

``f(p, x, idx, uidx, cols, mask, mask2, src, ssrc)`` uses each of the five ops once::

    h = x * p
    h = index_add(h, 0, idx, 2 * src, alpha=0.5)
    h = index_copy(h, 0, uidx, src)
    h = index_fill(h, 1, cols, 0.0)
    h = masked_fill(h, mask, -1.0)
    h = masked_scatter(h, mask2, ssrc)
    return sum(tanh(h) ** 2)

with ``p`` of shape (n, d) shared and every other argument batched: the per-example gradients
with respect to ``p`` have shape (B, n, d). This module holds the inputs, the function in
minigrad, PyTorch and JAX, and ``floor_grads``: the same gradients computed by a hand-written,
vectorized NumPy forward and backward pass (no framework), the floor the others are measured
against. ``tests/test_benchmark_floor.py`` checks that the floor agrees with minigrad.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

N, D, K, COLS = 64, 32, 16, 4
MASK_P, MASK2_P = 0.3, 0.1
ARG_NAMES = ("p", "x", "idx", "uidx", "cols", "mask", "mask2", "src", "ssrc")


def make_inputs(batch: int, n: int = N, d: int = D, k: int = K, seed: int = 0
                ) -> dict[str, np.ndarray]:
    """The arguments of ``f`` for ``batch`` examples (float64; int64 indices; bool masks)."""
    rng = np.random.default_rng(seed)
    return {
        "p": rng.standard_normal((n, d)),
        "x": rng.standard_normal((batch, n, d)),
        "idx": rng.integers(0, n, (batch, k)),                              # repeats allowed
        "uidx": np.argsort(rng.random((batch, n)), axis=1)[:, :k],          # unique per example
        "cols": np.argsort(rng.random((batch, d)), axis=1)[:, :COLS],
        "mask": rng.random((batch, n, d)) < MASK_P,
        "mask2": rng.random((batch, n, d)) < MASK2_P,
        "src": rng.standard_normal((batch, k, d)),
        "ssrc": rng.standard_normal((batch, n * d)),
    }


def small_inputs(rng: np.random.Generator | None = None) -> tuple[np.ndarray, ...]:
    """The eager tables' small input, drawn from ``rng`` (a fresh seed-0 generator by default):
    ``x`` (8, 4), an index of 3 entries, 2 columns, a ``source`` (3, 4), a mask of ``x``'s
    shape about 30% true, and 32 elements for masked_scatter: ``(x, index, cols, source, mask,
    msource)``."""
    rng = np.random.default_rng(0) if rng is None else rng
    x = rng.standard_normal((8, 4))
    index, cols = np.array([1, 5, 2]), np.array([0, 2])
    source = rng.standard_normal((3, 4))
    mask = rng.random((8, 4)) < 0.3
    return x, index, cols, source, mask, rng.standard_normal(32)


def args_of(inputs: dict[str, np.ndarray]) -> tuple[np.ndarray, ...]:
    return tuple(inputs[name] for name in ARG_NAMES)


# --------------------------------------------------------------------------- minigrad


def minigrad_f(p: Any, x: Any, idx: Any, uidx: Any, cols: Any, mask: Any, mask2: Any,
               src: Any, ssrc: Any) -> Any:
    import minigrad as mg
    from minigrad import numpy as mnp

    h = x * p
    h = mg.index_add(h, 0, idx, 2 * src, alpha=0.5)
    h = mg.index_copy(h, 0, uidx, src)
    h = mg.index_fill(h, 1, cols, 0.0)
    h = mg.masked_fill(h, mask, -1.0)
    h = mg.masked_scatter(h, mask2, ssrc)
    return mnp.sum(mnp.tanh(h) ** 2)


def minigrad_f_inplace(p: Any, x: Any, idx: Any, uidx: Any, cols: Any, mask: Any, mask2: Any,
                       src: Any, ssrc: Any) -> Any:
    """``minigrad_f`` written as PyTorch code is: one scratch buffer, each step an in-place
    update of it (``h.index_add_(...)``)."""
    from minigrad import numpy as mnp

    h = x * p
    h.index_add_(0, idx, 2 * src, alpha=0.5)
    h.index_copy_(0, uidx, src)
    h.index_fill_(1, cols, 0.0)
    h.masked_fill_(mask, -1.0)
    h.masked_scatter_(mask2, ssrc)
    return mnp.sum(mnp.tanh(h) ** 2)


def minigrad_vmap_grad(f: Callable[..., Any] | None = None) -> Callable[..., Any]:
    import minigrad as mg

    return mg.vmap(mg.grad(f or minigrad_f), in_axes=(None, 0, 0, 0, 0, 0, 0, 0, 0))


def minigrad_loop_grad() -> Callable[..., Any]:
    import minigrad as mg

    g = mg.grad(minigrad_f)

    def loop(p: np.ndarray, *batched: np.ndarray) -> np.ndarray:
        return np.stack([g(p, *example) for example in zip(*batched, strict=True)])

    return loop


# --------------------------------------------------------------------------- the floor


def floor_grads(p: np.ndarray, x: np.ndarray, idx: np.ndarray, uidx: np.ndarray,
                cols: np.ndarray, mask: np.ndarray, mask2: np.ndarray, src: np.ndarray,
                ssrc: np.ndarray) -> np.ndarray:
    """Per-example gradients of ``f`` with respect to ``p``, shape (B, n, d), by hand.

    Written as a NumPy programmer would: all examples at once, one scratch array ``h`` updated
    in place (it is ours), the fastest plain formulation of each step (benchmarks/run.py
    measured the alternatives). Forward, with b the example::

        h0 = x * p
        h1 = h0 + scatter-add of 0.5 * 2 * src at rows idx[b]    (repeats accumulate)
        h2 = h1 with rows uidx[b] replaced by src[b]              (uidx unique)
        h3 = h2 with columns cols[b] set to 0
        h4 = h3 set to -1 where mask
        h5 = h4 with its mask2 entries, in row-major order, replaced by ssrc[b][:count[b]]
        loss = sum(tanh(h5) ** 2)

    Backward: d loss / d h5 = 2 t (1 - t^2) with t = tanh(h5). Each step after h1 passes the
    cotangent through where it kept the old value and stops it where it wrote a new one (the
    masks, the filled columns, the copied rows); index_add passes it to h0 unchanged; then
    d loss / d p = x * ct_h0.
    """
    batch, n, d = x.shape
    rows = np.arange(batch)[:, None]
    # forward
    h = x * p
    np.add.at(h.reshape(batch * n, d), (idx + rows * n).ravel(), (0.5 * 2.0) * src.reshape(-1, d))
    h[rows, uidx] = src
    h[rows, :, cols] = 0.0
    h[mask] = -1.0
    # masked_scatter: example b's first count[b] source elements, in order, fill its true entries
    m2 = mask2.reshape(batch, n * d)
    used = np.arange(n * d) < np.count_nonzero(m2, axis=1)[:, None]
    h.reshape(batch, n * d)[m2] = ssrc[used]
    # backward
    t = np.tanh(h)
    ct = 2.0 * t * (1.0 - t * t)
    ct[mask | mask2] = 0.0
    ct[rows, :, cols] = 0.0
    ct[rows, uidx] = 0.0
    return ct * x


# --------------------------------------------------------------------------- PyTorch


def torch_vmap_grad() -> Callable[..., Any]:
    """``torch.func.vmap(torch.func.grad(f))`` on float64 tensors; call with torch tensors."""
    import torch
    from torch.func import grad, vmap

    def f(p: Any, x: Any, idx: Any, uidx: Any, cols: Any, mask: Any, mask2: Any, src: Any,
          ssrc: Any) -> Any:
        h = x * p
        h = h.index_add(0, idx, 2 * src, alpha=0.5)
        h = h.index_copy(0, uidx, src)
        h = h.index_fill(1, cols, 0.0)
        h = h.masked_fill(mask, -1.0)
        h = h.masked_scatter(mask2, ssrc)
        return torch.sum(torch.tanh(h) ** 2)

    return vmap(grad(f), in_dims=(None, 0, 0, 0, 0, 0, 0, 0, 0))


def to_torch(args: tuple[np.ndarray, ...]) -> tuple[Any, ...]:
    import torch

    return tuple(torch.from_numpy(np.ascontiguousarray(a)) for a in args)


# --------------------------------------------------------------------------- JAX


def jax_f() -> Callable[..., Any]:
    """The function in jax.numpy (x64 must be enabled). ``index_copy`` with a unique ``uidx``
    is ``.at[].set``; ``masked_scatter`` is a cumsum of the mask and a gather."""
    import jax.numpy as jnp

    def f(p: Any, x: Any, idx: Any, uidx: Any, cols: Any, mask: Any, mask2: Any, src: Any,
          ssrc: Any) -> Any:
        h = x * p
        h = h.at[idx].add(0.5 * (2 * src))
        h = h.at[uidx].set(src)
        h = h.at[:, cols].set(0.0)
        h = jnp.where(mask, -1.0, h)
        m = mask2.ravel()
        slots = jnp.maximum(jnp.cumsum(m) - 1, 0)
        h = jnp.where(m, ssrc[slots], h.ravel()).reshape(h.shape)
        return jnp.sum(jnp.tanh(h) ** 2)

    return f


def jax_vmap_grad(jit: bool) -> Callable[..., Any]:
    import jax

    g = jax.vmap(jax.grad(jax_f()), in_axes=(None, 0, 0, 0, 0, 0, 0, 0, 0))
    return jax.jit(g) if jit else g

"""Per-example gradients through ``index_add``: the computation of functorch issue #260.

In 2021, ``vmap(grad(f))`` failed in functorch whenever ``f`` used ``index_add`` (or
``index_copy``, ``index_fill``, ``masked_fill``, ``masked_scatter``): each was a clone followed
by an in-place kernel, and only the in-place kernel had a derivative. minigrad makes each
out-of-place op a primitive with its own rules, so every transform composes with it.

The model pools token embeddings into segments: ``h = features @ proj``, then row
``segments[t]`` of ``h`` gets ``emb[tokens[t]]`` added, for every token ``t`` (rows may repeat:
their contributions add up), then ``pred = sum(tanh(h) @ readout)``. One gradient per example
of the squared error is ``vmap(grad(loss), in_axes=(None, 0, 0, 0, 0))``. The pooling is
written three ways, and all three give the same per-example gradients:

* JAX's spelling, ``h.at[segments].add(emb[tokens])``: runs unchanged on JAX (``--framework jax``);
* PyTorch's functional op, ``index_add(h, 0, segments, emb[tokens])`` (minigrad only);
* PyTorch's in-place op, ``h.index_add_(0, segments, emb[tokens])`` (minigrad only).

When PyTorch is installed, the same per-example gradients from ``torch.func`` (with
``torch.index_add`` and ``Tensor.index_add_``) are compared too.
"""

import argparse
import json
import time

parser = argparse.ArgumentParser(description="per-example gradients through index_add")
parser.add_argument("--framework", choices=("minigrad", "jax"), default="minigrad")
parser.add_argument("--batch", type=int, default=64)
parser.add_argument("--json", help="also write the figures to this file")
parser.add_argument("--repeats", type=int, default=5, help="timing rounds (minimum taken)")
args = parser.parse_args()

if args.framework == "jax":
    import jax
    import jax.numpy as jnp
else:  # a JAX program runs on minigrad by changing these two imports
    import minigrad as jax
    import minigrad.numpy as jnp

jax.config.update("jax_enable_x64", True)

FEATURES, DIM, VOCAB, SEGMENTS, TOKENS = 6, 8, 20, 5, 12


def make_batch(key, n):
    k_f, k_t, k_s, k_y = jax.random.split(key, 4)
    return (jax.random.normal(k_f, (n, SEGMENTS, FEATURES)),
            jax.random.randint(k_t, (n, TOKENS), 0, VOCAB),
            jax.random.randint(k_s, (n, TOKENS), 0, SEGMENTS),
            jax.random.normal(k_y, (n,)))


def init_params(key):
    k1, k2, k3 = jax.random.split(key, 3)
    return {"proj": jax.random.normal(k1, (FEATURES, DIM)) / jnp.sqrt(FEATURES),
            "emb": 0.5 * jax.random.normal(k2, (VOCAB, DIM)),
            "readout": jax.random.normal(k3, (DIM,)) / DIM}


def make_loss(pool):
    def loss(params, features, tokens, segments, target):
        h = pool(features @ params["proj"], segments, params["emb"][tokens])
        pred = jnp.sum(jnp.tanh(h) @ params["readout"])
        return (pred - target) ** 2
    return loss


def pool_at(h, segments, rows):
    return h.at[segments].add(rows)


def pool_index_add(h, segments, rows):
    return jax.index_add(h, 0, segments, rows)


def pool_index_add_(h, segments, rows):
    h.index_add_(0, segments, rows)  # PyTorch's in-place spelling: h now holds the sum
    return h


def per_example(pool):
    return jax.vmap(jax.grad(make_loss(pool)), in_axes=(None, 0, 0, 0, 0))


def torch_per_example(params, batch, inplace):
    import numpy as np
    import torch
    from torch.func import grad, vmap

    def loss(p, features, tokens, segments, target):
        h = features @ p["proj"]
        if inplace:
            h.index_add_(0, segments, p["emb"][tokens])
        else:
            h = torch.index_add(h, 0, segments, p["emb"][tokens])
        return ((torch.tanh(h) @ p["readout"]).sum() - target) ** 2

    tp = {k: torch.from_numpy(np.array(v)) for k, v in params.items()}
    tb = [torch.from_numpy(np.array(v)) for v in batch]
    step = vmap(grad(loss), in_dims=(None, 0, 0, 0, 0))
    out = step(tp, *tb)
    best = float("inf")
    for _ in range(args.repeats):
        start = time.perf_counter()
        step(tp, *tb)
        best = min(best, time.perf_counter() - start)
    return {k: v.numpy() for k, v in out.items()}, best


def largest_gap(a, b):
    return max(float(jnp.max(jnp.abs(jnp.asarray(a[k]) - jnp.asarray(b[k])))) for k in a)


def main():
    k_data, k_init = jax.random.split(jax.random.key(260))
    batch = make_batch(k_data, args.batch)
    params = init_params(k_init)
    pools = {"at": pool_at}
    if args.framework == "minigrad":
        pools.update({"index_add": pool_index_add, "index_add_": pool_index_add_})
    grads = {name: jax.jit(per_example(pool))(params, *batch) for name, pool in pools.items()}
    reference = grads["at"]
    norms = jnp.sqrt(sum(jnp.sum(g.reshape(args.batch, -1) ** 2, axis=1)
                         for g in jax.tree.leaves(reference)))
    print(f"{args.batch} per-example gradients; norms: first {float(norms[0]):.12f},"
          f" mean {float(jnp.mean(norms)):.12f}")
    gaps = {}
    for name, g in grads.items():
        eager = per_example(pools[name])(params, *batch)
        gaps[name] = max(largest_gap(g, reference), largest_gap(eager, reference))
        print(f"{name:11s} eager and jit: largest difference from .at[].add {gaps[name]:.1e}")
    try:
        import torch  # noqa: F401
    except ImportError:
        print("torch.func: PyTorch is not installed, not compared")
    else:
        for inplace in (False, True):
            name = "torch.func " + ("index_add_" if inplace else "index_add")
            torch_grads, seconds = torch_per_example(params, batch, inplace)
            gaps[name] = largest_gap(torch_grads, reference)
            print(f"{name:21s}: largest difference {gaps[name]:.1e},"
                  f" {seconds * 1e3:.2f} ms per vmap(grad)")

    step = per_example(pool_at)
    best = {}
    for name, fn in (("eager", step), ("jit", jax.jit(step))):
        jax.block_until_ready(fn(params, *batch))
        best[name] = float("inf")
        for _ in range(args.repeats):
            start = time.perf_counter()
            jax.block_until_ready(fn(params, *batch))
            best[name] = min(best[name], time.perf_counter() - start)
    print(f"time per vmap(grad): eager {best['eager'] * 1e3:.2f} ms,"
          f" jit {best['jit'] * 1e3:.2f} ms")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"norms": [float(v) for v in norms], "gaps": gaps,
                       "eager_s": best["eager"], "jit_s": best["jit"]}, f)


if __name__ == "__main__":
    main()

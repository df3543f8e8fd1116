"""Differentially private SGD: per-example gradients, clipped and noised, written for JAX.

DP-SGD (Abadi et al., 2016) bounds each example's influence on an update: it computes one
gradient per example (``vmap`` of ``grad``), scales each to a norm of at most ``CLIP``, sums
them, and adds Gaussian noise proportional to ``CLIP`` before averaging. Per-example gradients
are the computation ``vmap(grad(f))`` exists for.

Run it on minigrad with ``python examples/dp_sgd.py`` and on JAX with ``--framework jax``: the
imports are the only lines that differ, and the keys (data, initial weights, noise) give the
same bits on both, so both print the same losses.
"""

import argparse
import json
import time

parser = argparse.ArgumentParser(description="DP-SGD with per-example gradients")
parser.add_argument("--framework", choices=("minigrad", "jax"), default="minigrad")
parser.add_argument("--steps", type=int, default=200)
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

jax.config.update("jax_enable_x64", False)

FEATURES, HIDDEN, CLASSES = 32, 64, 4
CLIP, NOISE, LR = 1.0, 0.5, 0.2


def make_data(key, n):
    """Gaussian blobs around four random centres."""
    k_centre, k_label, k_noise = jax.random.split(key, 3)
    centres = 2.0 * jax.random.normal(k_centre, (CLASSES, FEATURES))
    labels = jax.random.randint(k_label, (n,), 0, CLASSES)
    return centres[labels] + 3.0 * jax.random.normal(k_noise, (n, FEATURES)), labels


def init_params(key):
    k1, k2 = jax.random.split(key)
    return {"hidden": {"w": jax.random.normal(k1, (FEATURES, HIDDEN)) / jnp.sqrt(FEATURES),
                       "b": jnp.zeros(HIDDEN)},
            "out": {"w": jax.random.normal(k2, (HIDDEN, CLASSES)) / jnp.sqrt(HIDDEN),
                    "b": jnp.zeros(CLASSES)}}


def predict(params, x):
    h = jnp.tanh(x @ params["hidden"]["w"] + params["hidden"]["b"])
    return h @ params["out"]["w"] + params["out"]["b"]


def example_loss(params, x, label):
    """The loss of ONE example: vmap turns its gradient into one gradient per example."""
    return -jax.nn.log_softmax(predict(params, x))[label]


def clipped_noisy_gradient(params, xs, labels, key):
    grads = jax.vmap(jax.grad(example_loss), in_axes=(None, 0, 0))(params, xs, labels)
    # each leaf now has a leading batch axis; the norm of an example's whole gradient
    squares = [jnp.sum(g.reshape(g.shape[0], -1) ** 2, axis=1) for g in jax.tree.leaves(grads)]
    norms = jnp.sqrt(sum(squares))
    scale = jnp.minimum(1.0, CLIP / (norms + 1e-12))
    summed = jax.tree.map(lambda g: jnp.tensordot(scale, g, axes=1), grads)
    leaves, treedef = jax.tree.flatten(summed)
    keys = jax.random.split(key, len(leaves))
    noisy = [g + NOISE * CLIP * jax.random.normal(k, g.shape)
             for g, k in zip(leaves, keys, strict=True)]
    batch = xs.shape[0]
    return jax.tree.unflatten(treedef, [g / batch for g in noisy]), jnp.mean(norms > CLIP)


def update(params, xs, labels, key):
    grads, clipped = clipped_noisy_gradient(params, xs, labels, key)
    return jax.tree.map(lambda p, g: p - LR * g, params, grads), clipped


def loss(params, xs, labels):
    return jnp.mean(jax.vmap(example_loss, in_axes=(None, 0, 0))(params, xs, labels))


def time_per_step(step, *operands):
    jax.block_until_ready(step(*operands))  # compiles, for the jitted step
    best = float("inf")
    for _ in range(args.repeats):
        start = time.perf_counter()
        jax.block_until_ready(step(*operands))
        best = min(best, time.perf_counter() - start)
    return best


def main():
    k_data, k_init, k_noise = jax.random.split(jax.random.key(42), 3)
    xs, labels = make_data(k_data, 1024)
    params = init_params(k_init)
    step, full_loss = jax.jit(update), jax.jit(loss)
    losses, clipped = [], []
    batches = xs.shape[0] // args.batch
    for i in range(args.steps):
        lo = (i % batches) * args.batch
        params, frac = step(params, xs[lo:lo + args.batch], labels[lo:lo + args.batch],
                            jax.random.fold_in(k_noise, i))
        clipped.append(float(frac))
        losses.append(float(full_loss(params, xs, labels)))
        if i % 50 == 0 or i == args.steps - 1:
            print(f"step {i:4d}  loss {losses[-1]:.6f}  clipped {clipped[-1]:.2f}")
    acc = float(jnp.mean(jnp.argmax(predict(params, xs), axis=-1) == labels))
    operands = (params, xs[:args.batch], labels[:args.batch], k_noise)
    eager, jitted = time_per_step(update, *operands), time_per_step(step, *operands)
    print(f"training accuracy {acc:.4f}")
    print(f"time per step: eager {eager * 1e3:.2f} ms, jit {jitted * 1e3:.2f} ms")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"losses": losses, "clipped": clipped, "accuracy": acc,
                       "eager_s": eager, "jit_s": jitted}, f)


if __name__ == "__main__":
    main()

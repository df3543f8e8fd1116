"""A character-level RNN written with ``lax.scan``, trained for a few steps, written for JAX.

The recurrence ``h' = tanh(x W_xh + h W_hh + b_h)`` runs over the characters with ``lax.scan``:
one loop primitive in the program however long the text, and reverse mode runs the loop
backwards. Before training, the gradient is checked against central finite differences
along a random direction (in float64, where the difference quotient is accurate).

Run it on minigrad with ``python examples/char_rnn.py`` and on JAX with ``--framework jax``:
the imports are the only lines that differ.
"""

import argparse
import json
import time

parser = argparse.ArgumentParser(description="character-level RNN with lax.scan")
parser.add_argument("--framework", choices=("minigrad", "jax"), default="minigrad")
parser.add_argument("--steps", type=int, default=100)
parser.add_argument("--json", help="also write the figures to this file")
parser.add_argument("--repeats", type=int, default=5, help="timing rounds (minimum taken)")
args = parser.parse_args()

if args.framework == "jax":
    import jax
    import jax.numpy as jnp
else:  # a JAX program runs on minigrad by changing these two imports
    import minigrad as jax
    import minigrad.numpy as jnp

jax.config.update("jax_enable_x64", True)  # for the finite-difference check

TEXT = ("the quick brown fox jumps over the lazy dog. "
        "pack my box with five dozen liquor jugs. ") * 2
VOCAB = sorted(set(TEXT))
HIDDEN, LR = 32, 0.1


def init_params(key):
    k1, k2, k3 = jax.random.split(key, 3)
    v = len(VOCAB)
    return {"w_xh": 0.1 * jax.random.normal(k1, (v, HIDDEN)),
            "w_hh": 0.1 * jax.random.normal(k2, (HIDDEN, HIDDEN)),
            "w_hy": 0.1 * jax.random.normal(k3, (HIDDEN, v)),
            "b_h": jnp.zeros(HIDDEN), "b_y": jnp.zeros(v)}


def loss(params, inputs, targets):
    """Mean cross-entropy of predicting each next character."""
    def cell(h, x):
        h = jnp.tanh(x @ params["w_xh"] + h @ params["w_hh"] + params["b_h"])
        return h, h @ params["w_hy"] + params["b_y"]

    _, logits = jax.lax.scan(cell, jnp.zeros(HIDDEN), inputs)
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * targets, axis=-1))


def update(params, inputs, targets):
    value, grads = jax.value_and_grad(loss)(params, inputs, targets)
    return jax.tree.map(lambda p, g: p - LR * g, params, grads), value


def gradient_check(params, inputs, targets, key, eps=1e-6):
    """Directional derivative from grad against a central difference quotient."""
    leaves, treedef = jax.tree.flatten(params)
    keys = jax.random.split(key, len(leaves))
    direction = jax.tree.unflatten(
        treedef, [jax.random.normal(k, p.shape) for p, k in zip(leaves, keys, strict=True)])
    grads = jax.grad(loss)(params, inputs, targets)
    analytic = sum(jnp.vdot(g, d) for g, d in
                   zip(jax.tree.leaves(grads), jax.tree.leaves(direction), strict=True))

    def shifted(t):
        return jax.tree.map(lambda p, d: p + t * d, params, direction)

    numeric = (loss(shifted(eps), inputs, targets)
               - loss(shifted(-eps), inputs, targets)) / (2 * eps)
    return float(analytic), float(numeric)


def main():
    ids = jnp.array([VOCAB.index(c) for c in TEXT])
    onehot = jax.nn.one_hot(ids, len(VOCAB))
    inputs, targets = onehot[:-1], onehot[1:]
    k_init, k_dir = jax.random.split(jax.random.key(7))
    params = init_params(k_init)

    analytic, numeric = gradient_check(params, inputs, targets, k_dir)
    rel = abs(analytic - numeric) / abs(numeric)
    print(f"directional derivative: grad {analytic:.10f}, finite differences {numeric:.10f}"
          f" (relative difference {rel:.1e})")

    step = jax.jit(update)
    losses = []
    for i in range(args.steps):
        params, value = step(params, inputs, targets)
        losses.append(float(value))
        if i % 25 == 0 or i == args.steps - 1:
            print(f"step {i:4d}  loss {losses[-1]:.6f}")

    best = {}
    for name, fn in (("eager", update), ("jit", step)):
        jax.block_until_ready(fn(params, inputs, targets))
        best[name] = float("inf")
        for _ in range(args.repeats):
            start = time.perf_counter()
            jax.block_until_ready(fn(params, inputs, targets))
            best[name] = min(best[name], time.perf_counter() - start)
    print(f"time per step: eager {best['eager'] * 1e3:.2f} ms, jit {best['jit'] * 1e3:.2f} ms")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"losses": losses, "grad": analytic, "finite_difference": numeric,
                       "eager_s": best["eager"], "jit_s": best["jit"]}, f)


if __name__ == "__main__":
    main()

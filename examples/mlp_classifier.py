"""An MLP classifier trained from scratch on synthetic MNIST-shaped data, written for JAX.

Run it on minigrad with ``python examples/mlp_classifier.py``, and the same program on JAX with
``--framework jax``: the imports below are the only lines that differ. Both print the loss
every 50 steps, the final test accuracy and the time per training step, eager and under jit.

The data are drawn with the framework's own ``random``: minigrad's keys give jax.random's bits,
so the two runs start from the same images, labels and weights.
"""

import argparse
import json
import time

parser = argparse.ArgumentParser(description="MLP classifier on synthetic MNIST-shaped data")
parser.add_argument("--framework", choices=("minigrad", "jax"), default="minigrad")
parser.add_argument("--steps", type=int, default=300)
parser.add_argument("--batch", type=int, default=128)
parser.add_argument("--json", help="also write the figures to this file")
parser.add_argument("--repeats", type=int, default=5, help="timing rounds (minimum taken)")
args = parser.parse_args()

if args.framework == "jax":
    import jax
    import jax.numpy as jnp
else:  # a JAX program runs on minigrad by changing these two imports
    import minigrad as jax
    import minigrad.numpy as jnp

jax.config.update("jax_enable_x64", False)  # JAX's default: float32 everywhere

IMAGE, CLASSES, HIDDEN = 784, 10, 128


def make_data(key, n):
    """Images near one of ten random prototypes, pixel values in [0, 1]."""
    k_proto, k_label, k_noise = jax.random.split(key, 3)
    prototypes = jax.random.uniform(k_proto, (CLASSES, IMAGE))
    labels = jax.random.randint(k_label, (n,), 0, CLASSES)
    noise = 2.0 * jax.random.normal(k_noise, (n, IMAGE))
    images = jnp.clip(prototypes[labels] + noise, 0.0, 1.0)
    return images, labels


def init_params(key, sizes):
    """He-normal weights and zero biases, one (w, b) pair per layer."""
    keys = jax.random.split(key, len(sizes) - 1)
    return [(jax.random.normal(k, (m, n)) * jnp.sqrt(2.0 / m), jnp.zeros(n))
            for k, m, n in zip(keys, sizes[:-1], sizes[1:], strict=True)]


def predict(params, images):
    x = images
    for w, b in params[:-1]:
        x = jax.nn.relu(x @ w + b)
    w, b = params[-1]
    return jax.nn.log_softmax(x @ w + b)


def loss(params, images, labels):
    log_probs = predict(params, images)
    return -jnp.mean(jnp.sum(log_probs * jax.nn.one_hot(labels, CLASSES), axis=-1))


def accuracy(params, images, labels):
    return jnp.mean(jnp.argmax(predict(params, images), axis=-1) == labels)


def update(params, images, labels, lr=0.02):
    value, grads = jax.value_and_grad(loss)(params, images, labels)
    return jax.tree.map(lambda p, g: p - lr * g, params, grads), value


def time_per_step(step, params, images, labels):
    jax.block_until_ready(step(params, images, labels))  # compiles, for the jitted step
    best = float("inf")
    for _ in range(args.repeats):
        start = time.perf_counter()
        jax.block_until_ready(step(params, images, labels))
        best = min(best, time.perf_counter() - start)
    return best


def main():
    k_data, k_init = jax.random.split(jax.random.key(0))
    images, labels = make_data(k_data, 2048 + 512)  # one draw: both sets share the prototypes
    train_x, train_y, test_x, test_y = images[:2048], labels[:2048], images[2048:], labels[2048:]
    params = init_params(k_init, [IMAGE, HIDDEN, CLASSES])

    step = jax.jit(update)
    losses = []
    batches = train_x.shape[0] // args.batch
    for i in range(args.steps):
        lo = (i % batches) * args.batch
        params, value = step(params, train_x[lo:lo + args.batch], train_y[lo:lo + args.batch])
        losses.append(float(value))
        if i % 50 == 0 or i == args.steps - 1:
            print(f"step {i:4d}  loss {losses[-1]:.6f}")
    acc = float(accuracy(params, test_x, test_y))
    batch = (params, train_x[:args.batch], train_y[:args.batch])
    eager, jitted = time_per_step(update, *batch), time_per_step(step, *batch)
    print(f"test accuracy {acc:.4f}")
    print(f"time per step: eager {eager * 1e3:.2f} ms, jit {jitted * 1e3:.2f} ms")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"losses": losses, "accuracy": acc, "eager_s": eager, "jit_s": jitted}, f)


if __name__ == "__main__":
    main()

"""A small CNN written once for any JAX-like namespace (tests/test_cnn.py and
tests/make_cnn_golden.py run it on minigrad and on JAX).

Two 3x3 convolutions ('SAME', NCHW / OIHW) each with a bias and relu, 2x2 max pooling by
``lax.reduce_window`` after each, a dense layer to 3 classes, the mean log_softmax
cross-entropy; parameters drawn with ``random`` (minigrad.random is bit for bit
jax.random); plain SGD under ``jit``; then the per-example gradients ``vmap(grad(loss))``.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

STEPS, LEARNING_RATE, BATCH, CLASSES = 4, 0.2, 6, 3
IMAGE = (1, 8, 8)  # channels, height, width


def namespace_of(framework: str) -> SimpleNamespace:
    """The modules the model is written against: ``(lax, jnp, random, nn, jit, grad, vmap)``."""
    if framework == "jax":
        import jax
        return SimpleNamespace(lax=jax.lax, jnp=jax.numpy, random=jax.random, nn=jax.nn,
                               jit=jax.jit, grad=jax.grad, vmap=jax.vmap,
                               value_and_grad=jax.value_and_grad, max=jax.lax.max)
    import minigrad as mg
    from minigrad import lax
    return SimpleNamespace(lax=lax, jnp=mg.numpy, random=mg.random, nn=mg.nn, jit=mg.jit,
                           grad=mg.grad, vmap=mg.vmap, value_and_grad=mg.value_and_grad,
                           max=lax.max)


def data() -> tuple[np.ndarray, np.ndarray]:
    """Images with a class-dependent pattern, and their labels (NumPy: identical on both)."""
    rng = np.random.default_rng(34)
    labels = np.arange(BATCH) % CLASSES
    images = rng.standard_normal((BATCH, *IMAGE))
    images[:, 0, 2:6, 2:6] += labels[:, None, None] - 1.0
    return images, labels


def init(ns: SimpleNamespace, seed: int = 0) -> dict[str, Any]:
    k1, k2, k3 = ns.random.split(ns.random.PRNGKey(seed), 3)
    f64 = ns.jnp.float64
    return {"w1": ns.random.normal(k1, (4, 1, 3, 3), f64) / 3.0,
            "b1": ns.jnp.zeros(4, f64),
            "w2": ns.random.normal(k2, (8, 4, 3, 3), f64) / 6.0,
            "b2": ns.jnp.zeros(8, f64),
            "wd": ns.random.normal(k3, (8 * 2 * 2, CLASSES), f64) / np.sqrt(32.0),
            "bd": ns.jnp.zeros(CLASSES, f64)}


def logits(ns: SimpleNamespace, params: dict[str, Any], x: Any) -> Any:
    """x: (N, 1, 8, 8) -> (N, CLASSES)."""
    lax, jnp = ns.lax, ns.jnp

    def block(h: Any, w: Any, b: Any) -> Any:
        h = lax.conv_general_dilated(h, w, (1, 1), "SAME",
                                     dimension_numbers=("NCHW", "OIHW", "NCHW"))
        h = ns.nn.relu(h + b[None, :, None, None])
        return lax.reduce_window(h, -jnp.inf, ns.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")

    h = block(block(x, params["w1"], params["b1"]), params["w2"], params["b2"])
    return jnp.reshape(h, (h.shape[0], -1)) @ params["wd"] + params["bd"]


def loss(ns: SimpleNamespace, params: dict[str, Any], x: Any, y: Any) -> Any:
    logp = ns.nn.log_softmax(logits(ns, params, x), axis=-1)
    return -ns.jnp.mean(ns.jnp.take_along_axis(logp, y[:, None], axis=1)[:, 0])


def run(framework: str) -> dict[str, np.ndarray]:
    """Train STEPS SGD steps under jit; the figures: the losses before each step, the trained
    parameters, and the per-example gradients at the trained parameters."""
    ns = namespace_of(framework)
    params = init(ns)
    x, y = data()
    x, y = ns.jnp.asarray(x), ns.jnp.asarray(y)

    @ns.jit
    def step(params: dict[str, Any], x: Any, y: Any) -> tuple[Any, dict[str, Any]]:
        value, g = ns.value_and_grad(lambda p: loss(ns, p, x, y))(params)
        return value, {k: params[k] - LEARNING_RATE * g[k] for k in params}

    out: dict[str, np.ndarray] = {"init_" + k: np.asarray(v) for k, v in params.items()}
    losses = []
    for _ in range(STEPS):
        value, params = step(params, x, y)
        losses.append(float(value))
    out["losses"] = np.array(losses)
    out.update({"trained_" + k: np.asarray(v) for k, v in params.items()})

    def one(p: dict[str, Any], xi: Any, yi: Any) -> Any:
        return loss(ns, p, xi[None], yi[None])

    per_example = ns.jit(ns.vmap(ns.grad(one), in_axes=(None, 0, 0)))(params, x, y)
    out.update({"per_example_" + k: np.asarray(v) for k, v in per_example.items()})
    return out

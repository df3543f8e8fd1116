"""Gaussian-process regression: Cholesky, triangular solves, Hessian-vector products; for JAX.

A GP with a squared-exponential kernel fits noisy samples of ``sin(3x)``. Its three
hyperparameters (log length scale, log amplitude, log noise) are fitted by gradient descent
on the negative log marginal likelihood

    NLL = 1/2 y^T K^-1 y + sum(log diag L) + n/2 log(2 pi),     K = L L^T,

computed with a Cholesky factor and two triangular solves, and differentiated through them.
At the fitted point, the Hessian of the NLL is built two ways: as ``jax.hessian`` and column
by column from Hessian-vector products (``jvp`` of ``grad``), which never forms the Hessian.
The posterior mean at test points is the kernel ridge regression predictor.

Run it on minigrad with ``python examples/gaussian_process.py`` and on JAX with
``--framework jax``: the imports are the only lines that differ.
"""

import argparse
import json
import time

parser = argparse.ArgumentParser(description="Gaussian-process regression")
parser.add_argument("--framework", choices=("minigrad", "jax"), default="minigrad")
parser.add_argument("--steps", type=int, default=100)
parser.add_argument("--points", type=int, default=64)
parser.add_argument("--json", help="also write the figures to this file")
parser.add_argument("--repeats", type=int, default=5, help="timing rounds (minimum taken)")
args = parser.parse_args()

if args.framework == "jax":
    import jax
    import jax.numpy as jnp
    import jax.scipy.linalg as sla
else:  # a JAX program runs on minigrad by changing these three imports
    import minigrad as jax
    import minigrad.numpy as jnp
    import minigrad.scipy.linalg as sla

jax.config.update("jax_enable_x64", True)


def kernel(theta, a, b):
    log_length, log_amplitude, _ = theta
    sq = (a[:, None] - b[None, :]) ** 2
    return jnp.exp(2 * log_amplitude) * jnp.exp(-0.5 * sq / jnp.exp(2 * log_length))


def nll(theta, x, y):
    """Negative log marginal likelihood of y under the GP prior."""
    K = kernel(theta, x, x) + (jnp.exp(2 * theta[2]) + 1e-8) * jnp.eye(x.shape[0])
    L = jnp.linalg.cholesky(K)
    alpha = sla.solve_triangular(L, y, lower=True)  # L^-1 y
    return (0.5 * jnp.dot(alpha, alpha) + jnp.sum(jnp.log(jnp.diag(L)))
            + 0.5 * x.shape[0] * jnp.log(2 * jnp.pi))


def posterior_mean(theta, x, y, x_test):
    K = kernel(theta, x, x) + (jnp.exp(2 * theta[2]) + 1e-8) * jnp.eye(x.shape[0])
    weights = sla.cho_solve((jnp.linalg.cholesky(K), True), y)  # K^-1 y
    return kernel(theta, x_test, x) @ weights


def hvp(f, x, v):
    """The Hessian of f at x times v: forward mode over reverse mode."""
    return jax.jvp(jax.grad(f), (x,), (v,))[1]


def main():
    k_x, k_noise = jax.random.split(jax.random.key(3))
    x = jnp.sort(jax.random.uniform(k_x, (args.points,), minval=-2.0, maxval=2.0))
    y = jnp.sin(3 * x) + 0.1 * jax.random.normal(k_noise, (args.points,))
    theta = jnp.array([0.0, 0.0, -1.0])

    objective = jax.jit(lambda t: nll(t, x, y))
    step = jax.jit(jax.value_and_grad(lambda t: nll(t, x, y)))
    losses = []
    for i in range(args.steps):
        value, g = step(theta)
        theta = theta - 0.01 * g
        losses.append(float(value))
        if i % 25 == 0 or i == args.steps - 1:
            print(f"step {i:4d}  nll {losses[-1]:.10f}")
    length, amplitude, noise = (float(v) for v in jnp.exp(theta))
    print(f"length scale {length:.6f}, amplitude {amplitude:.6f}, noise {noise:.6f}")

    hessian = jax.hessian(objective)(theta)
    columns = jnp.stack([hvp(objective, theta, e) for e in jnp.eye(3)], axis=1)
    gap = float(jnp.max(jnp.abs(hessian - columns)))
    print(f"Hessian eigenvalues {[round(float(v), 6) for v in jnp.linalg.eigvalsh(hessian)]}"
          f", largest |hessian - hvp columns| {gap:.1e}")

    x_test = jnp.linspace(-2.0, 2.0, 9)
    mean = posterior_mean(theta, x, y, x_test)
    error = float(jnp.max(jnp.abs(mean - jnp.sin(3 * x_test))))
    print(f"posterior mean at 9 test points, largest error from sin(3x): {error:.6f}")

    eager_step = jax.value_and_grad(lambda t: nll(t, x, y))
    best = {}
    for name, fn in (("eager", eager_step), ("jit", step)):
        jax.block_until_ready(fn(theta))
        best[name] = float("inf")
        for _ in range(args.repeats):
            start = time.perf_counter()
            jax.block_until_ready(fn(theta))
            best[name] = min(best[name], time.perf_counter() - start)
    print(f"time per step: eager {best['eager'] * 1e3:.2f} ms, jit {best['jit'] * 1e3:.2f} ms")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"losses": losses, "theta": [float(v) for v in theta],
                       "hessian": [[float(v) for v in row] for row in hessian],
                       "hvp_gap": gap, "test_error": error,
                       "eager_s": best["eager"], "jit_s": best["jit"]}, f)


if __name__ == "__main__":
    main()

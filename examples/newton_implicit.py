"""Newton's method in ``lax.while_loop``, differentiated implicitly with ``custom_vjp``; for JAX.

Kepler's equation ``E - e sin(E) = M`` gives a planet's eccentric anomaly ``E`` from its mean
anomaly ``M`` and the orbit's eccentricity ``e``. It has no closed form, so ``E`` is found by
Newton's method in a ``while_loop`` that stops when the step is small. Reverse mode cannot run
a while loop backwards (its trip count is data), and it need not: at the solution,
``F(E, M, e) = E - e sin(E) - M = 0``, and the implicit function theorem gives

    dE/dM = 1 / (1 - e cos E),      dE/de = sin(E) / (1 - e cos E),

which ``custom_vjp`` supplies. The program checks them against finite differences and against
differentiating through a fixed number of unrolled Newton steps (``fori_loop``), then maps the
solver over an orbit with ``vmap`` and times it under ``jit``.

Run it on minigrad with ``python examples/newton_implicit.py`` and on JAX with
``--framework jax``: the imports are the only lines that differ.
"""

import argparse
import json
import time

parser = argparse.ArgumentParser(description="Newton's method with implicit differentiation")
parser.add_argument("--framework", choices=("minigrad", "jax"), default="minigrad")
parser.add_argument("--points", type=int, default=1000)
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

TOL = 1e-13


def newton_step(E, M, e):
    return E - (E - e * jnp.sin(E) - M) / (1.0 - e * jnp.cos(E))


@jax.custom_vjp
def kepler(M, e):
    """The eccentric anomaly E with E - e sin(E) = M, by Newton's method."""
    def not_converged(state):
        E, previous, i = state
        return (jnp.abs(E - previous) > TOL) & (i < 50)

    def body(state):
        E, _, i = state
        return newton_step(E, M, e), E, i + 1

    E0 = M + e * jnp.sin(M)  # a good start for e < 1
    E, _, _ = jax.lax.while_loop(not_converged, body, (newton_step(E0, M, e), E0, 1))
    return E


def kepler_fwd(M, e):
    E = kepler(M, e)
    return E, (E, e)


def kepler_bwd(residuals, g):
    E, e = residuals
    slope = 1.0 - e * jnp.cos(E)  # dF/dE at the solution
    return g / slope, g * jnp.sin(E) / slope


kepler.defvjp(kepler_fwd, kepler_bwd)


def kepler_unrolled(M, e, steps=8):
    """The same solver with a fixed trip count: reverse mode differentiates every step."""
    return jax.lax.fori_loop(0, steps, lambda _, E: newton_step(E, M, e), M + e * jnp.sin(M))


def main():
    M, e = 1.2, 0.6
    E = kepler(M, e)
    print(f"E = {float(E):.15f}, residual {float(E - e * jnp.sin(E) - M):.1e}")

    implicit = jax.grad(kepler, argnums=(0, 1))(M, e)
    unrolled = jax.grad(kepler_unrolled, argnums=(0, 1))(M, e)
    h = 1e-6
    numeric = ((kepler(M + h, e) - kepler(M - h, e)) / (2 * h),
               (kepler(M, e + h) - kepler(M, e - h)) / (2 * h))
    for name, (dM, de) in (("implicit (custom_vjp)", implicit),
                           ("unrolled fori_loop", unrolled),
                           ("finite differences", numeric)):
        print(f"{name:22s} dE/dM {float(dM):.12f}  dE/de {float(de):.12f}")

    # the solver and its derivative over a whole orbit, in one vectorized call each
    Ms = jnp.linspace(0.0, 2 * jnp.pi, args.points)
    orbit = jax.jit(jax.vmap(kepler, in_axes=(0, None)))
    slopes = jax.jit(jax.vmap(jax.grad(kepler), in_axes=(0, None)))
    Es, dEs = orbit(Ms, e), slopes(Ms, e)
    worst = float(jnp.max(jnp.abs(Es - e * jnp.sin(Es) - Ms)))
    print(f"orbit of {args.points} points: worst residual {worst:.1e}, "
          f"mean dE/dM {float(jnp.mean(dEs)):.12f}")

    best = {}
    for name, fn in (("eager", jax.vmap(jax.grad(kepler), in_axes=(0, None))), ("jit", slopes)):
        jax.block_until_ready(fn(Ms, e))
        best[name] = float("inf")
        for _ in range(args.repeats):
            start = time.perf_counter()
            jax.block_until_ready(fn(Ms, e))
            best[name] = min(best[name], time.perf_counter() - start)
    print(f"time per vmap(grad) over the orbit: eager {best['eager'] * 1e3:.2f} ms,"
          f" jit {best['jit'] * 1e3:.2f} ms")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"E": float(E), "implicit": [float(v) for v in implicit],
                       "unrolled": [float(v) for v in unrolled],
                       "numeric": [float(v) for v in numeric], "worst_residual": worst,
                       "mean_slope": float(jnp.mean(dEs)),
                       "eager_s": best["eager"], "jit_s": best["jit"]}, f)


if __name__ == "__main__":
    main()

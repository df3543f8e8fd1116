"""minigrad.random against jax.random and NumPy: ``python benchmarks/run.py random [--quick]``
(or this file directly).

Draws ``uniform`` and ``normal`` of 10**6 float32 values, eagerly and under ``jit``, with
minigrad.random, with jax.random (when installed) and with NumPy's ``default_rng`` (the floor:
a different generator, a bound on what NumPy can do). Each round runs every system once, in
turn; a time is the median over rounds, a ratio the median of the per-round ratios. One thread
everywhere. (Not named random.py: on ``sys.path`` it would shadow the standard library's
``random``, which tempfile and others import.)
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                      "intra_op_parallelism_threads=1")

import importlib.util  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, Callable  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # minigrad from this checkout

import minigrad as mg  # noqa: E402
import minigrad.random as mr  # noqa: E402

N = 10**6


def systems() -> dict[str, dict[str, Callable[[], Any]]]:
    """For each sampler, the calls to time (each returns a finished array)."""
    key = mr.PRNGKey(0)
    rng = np.random.default_rng(0)
    calls: dict[str, dict[str, Callable[[], Any]]] = {
        "uniform": {"minigrad": lambda: mr.uniform(key, (N,), np.float32),
                    "minigrad jit": mg.jit(lambda k: mr.uniform(k, (N,), np.float32)),
                    "numpy default_rng": lambda: rng.random(N, np.float32)},
        "normal": {"minigrad": lambda: mr.normal(key, (N,), np.float32),
                   "minigrad jit": mg.jit(lambda k: mr.normal(k, (N,), np.float32)),
                   "numpy default_rng": lambda: rng.standard_normal(N, np.float32)},
    }
    for name in calls:  # jit takes the key as an argument
        jitted = calls[name]["minigrad jit"]
        calls[name]["minigrad jit"] = (lambda f: lambda: f(key))(jitted)
    if importlib.util.find_spec("jax") is not None:
        import jax
        import jax.random as jr

        jax_key = jr.PRNGKey(0)
        for name in calls:
            sampler = getattr(jr, name)
            eager = (lambda s: lambda: s(jax_key, (N,), np.float32).block_until_ready())(sampler)
            jitted = jax.jit((lambda s: lambda k: s(k, (N,), np.float32))(sampler))
            calls[name]["jax"] = eager
            calls[name]["jax jit"] = (lambda f: lambda: f(jax_key).block_until_ready())(jitted)
    return calls


def measure(rounds: int) -> dict[str, dict[str, Any]]:
    """Median seconds per system and the median per-round ratios to jax (and to NumPy)."""
    out = {}
    for name, calls in systems().items():
        for f in calls.values():  # warm up: compile, fill caches
            f()
            f()
        times: dict[str, list[float]] = {k: [] for k in calls}
        for _ in range(rounds):
            for k, f in calls.items():
                t0 = time.perf_counter()
                f()
                times[k].append(time.perf_counter() - t0)
        ratios = {}
        for mine in ("minigrad", "minigrad jit"):
            for other in ("jax", "jax jit", "numpy default_rng"):
                if other in times:
                    ratios[f"{mine} / {other}"] = float(np.median(
                        np.asarray(times[mine]) / np.asarray(times[other])))
        out[name] = {"median": {k: float(np.median(v)) for k, v in times.items()},
                     "ratios": ratios}
    return out


def fma_share(repeats: int = 7) -> dict[str, float]:
    """What the float32 FMA emulation costs inside one eager ``normal`` draw: the number of
    emulated FMAs per draw and their time (minimum over repeats), by timing each call of
    ``xla_math._fma_f32`` (the only place they happen) while normal runs."""
    from minigrad.ops import xla_math

    key, inner = mr.PRNGKey(0), xla_math._fma_f32
    best = {"total": float("inf"), "fma": float("inf"), "per_draw": 0.0}
    spent, elements = [0.0], [0]

    def timed(a: Any, b: Any, c: Any, subnormal: bool = True) -> Any:
        t0 = time.perf_counter()
        out = inner(a, b, c, subnormal)
        spent[0] += time.perf_counter() - t0
        elements[0] += out.size
        return out

    for _ in range(repeats):
        spent[0], elements[0] = 0.0, 0
        xla_math._fma_f32 = timed  # type: ignore[assignment]
        try:
            t0 = time.perf_counter()
            mr.normal(key, (N,), np.float32)
            total = time.perf_counter() - t0
        finally:
            xla_math._fma_f32 = inner  # type: ignore[assignment]
        best["total"] = min(best["total"], total)
        best["fma"] = min(best["fma"], spent[0])
        best["per_draw"] = elements[0] / N
    return best


def verdict(floor_ratio: float, what: str) -> str:
    """What a lower bound on minigrad's ratio to jax.random says of the 3x target."""
    if floor_ratio > 3:
        return f": {what}, 3x jax.random is out of reach for the same bits in NumPy."
    return f": {what}, this bound alone leaves room for 3x in this run."


def hash_time(repeats: int = 7) -> float:
    """Seconds (minimum over repeats) of the threefry2x32 hash of 10**6 counters under one
    key, as every draw of 10**6 values makes it."""
    from minigrad.ops.threefry import threefry2x32_p

    k0, k1 = (np.broadcast_to(np.uint32(v), (N,)) for v in (0, 42))
    x0, x1 = np.zeros(N, np.uint32), np.arange(N, dtype=np.uint32)
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        threefry2x32_p.impl(k0, k1, x0, x1)  # type: ignore[misc]
        best = min(best, time.perf_counter() - t0)
    return best


def table(results: dict[str, dict[str, Any]]) -> str:
    """Markdown: one row per sampler and system, with its ratio to jax.random (jit to jit)."""
    rows = ["| 10**6 float32 | system | median ms | / jax.random (same mode) |",
            "|---|---|---|---|"]
    for name, r in results.items():
        for system, t in r["median"].items():
            ratio = ""
            if system.startswith("minigrad"):
                other = "jax jit" if system.endswith("jit") else "jax"
                ratio = f"{r['ratios'].get(f'{system} / {other}', float('nan')):.2f}"
            rows.append(f"| {name} | {system} | {t * 1e3:.1f} | {ratio} |")
    return "\n".join(rows)


def section(rounds: int = 15) -> str:
    """The markdown of this section of docs/benchmarks.md."""
    results = measure(rounds)
    share = fma_share()
    hashing = hash_time()
    jax_uniform_jit = results["uniform"]["median"].get("jax jit", float("nan"))
    have_jax = "jax" in results["normal"]["median"]
    jax_normal = results["normal"]["median"].get("jax", float("nan"))
    return f"""
## minigrad.random against jax.random

`benchmarks/random_draws.py` (`python benchmarks/run.py random`): 10**6 float32 draws, each
system once per round, {rounds} rounds, medians; the ratio is the median of the per-round ratios
to jax.random in the same mode (eager to eager, jit to jit). NumPy's `default_rng` is a different
generator: a bound on what NumPy itself can do.

{table(results)}

uniform is the hash's bits, a shift, an OR and a subtraction. The hash, threefry2x32 (20
rounds of an add, a rotation and a xor on each pair of words), is about 100 NumPy passes over
the counters, block by block in the cache, where XLA fuses it into one loop: for 10**6 draws it
alone takes {hashing * 1e3:.1f} ms (minimum over 7), {hashing / jax_uniform_jit:.1f}x jax.random's
whole jitted uniform in this run ({jax_uniform_jit * 1e3:.1f} ms{"" if have_jax else
"; JAX absent"}){verdict(hashing / jax_uniform_jit, "under jit")} (JAX's own time for these
draws moves by several times between runs on this machine; hence the ratios of each round.)
normal adds XLA's erf_inv (Giles' polynomial over ``w = -log1p(-u*u)``, XLA's log1p and log
inside), which minigrad evaluates with XLA's roundings, so its draws are jax.random's bits: each
polynomial step a float32 fused multiply-add, emulated in NumPy by a float64 product and sum, a
double-rounding test and a conversion, several passes over the array where XLA fuses the whole
polynomial into one loop. Measured inside one eager normal draw of 10**6 (minima over 7):
{share["per_draw"]:.1f} emulated FMAs per draw take {share["fma"] * 1e3:.1f} ms of the draw's
{share["total"] * 1e3:.1f} ms, which alone is {share["fma"] / jax_normal:.1f}x jax.random's whole
eager normal in this run ({jax_normal * 1e3:.1f} ms{"" if have_jax else "; JAX absent"}); with
the hash ({hashing / jax_normal:.1f}x more) and the other passes on top, normal is
{(share["fma"] + hashing) / jax_normal:.1f}x it at the least{verdict(
    (share["fma"] + hashing) / jax_normal, "for normal")}
Tried and kept: the commonest erf_inv piece over the whole block (no gather), midpoints found by
one shift and a min, shifts without masking when every count is in range. Tried and dropped (no
faster, the same bits): one pass with per-element coefficients, reused scratch buffers, keeping
the polynomial in float64 between steps.
"""


def main(argv: list[str]) -> None:
    rounds = 5 if "--quick" in argv else 15
    print(section(rounds))


if __name__ == "__main__":
    main(sys.argv[1:])

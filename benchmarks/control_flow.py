"""Control flow (issue #27): ``python benchmarks/control_flow.py [--quick] [--rounds N]``, or
section 9 of ``benchmarks/run.py``, which calls ``section`` and appends its markdown to
docs/benchmarks.md.

An RNN cell ``h = tanh(W h + U x_t + b)`` scanned over ``T`` steps (batch 32, hidden and input
size ``H``, float32), the value and the gradient of ``sum(h_T)`` with respect to ``W``, ``U``
and ``b``:

* minigrad eager (``value_and_grad`` of ``lax.scan``), minigrad ``jit`` of it, JAX's ``jit`` of
  the same scan (when installed), and the NumPy floor: a forward loop storing every ``h_t`` and
  a hand-derived backward loop (``floor``; checked against minigrad in ``check``);
* T = 100 and 1000, H = 16 and 256.

Targets: jit within 1.2x of the floor at H = 256; the per-iteration overhead of jit's generated
loops (jit minus the floor, over the 2T iterations of the forward and backward loops) at most
10 us at H = 16; the first call (trace, passes, code generation) growing with the program, not
with T. Memory: the peak (tracemalloc) of the jitted gradient grows linearly in T, and
``checkpoint`` around the cell stores fewer residuals (one array per step instead of two).

Every time is taken in interleaved rounds (each system once per round, so a drift of the
shared machine's speed hits all alike); the tables give the minimum over the rounds (the cost
of the code) and the median.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                      "intra_op_parallelism_threads=1")

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, Callable  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
for _path in (ROOT, ROOT / "benchmarks"):  # minigrad from this checkout; inplace_memory
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from inplace_memory import peak_bytes  # noqa: E402

import minigrad as mg  # noqa: E402
from minigrad import lax  # noqa: E402
from minigrad import numpy as mnp  # noqa: E402

B = 32
F32 = np.float32


def inputs(h: int, t: int, seed: int = 0) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    scale = 1 / np.sqrt(h)
    return ((rng.standard_normal((h, h)) * scale).astype(F32),
            (rng.standard_normal((h, h)) * scale).astype(F32),
            (rng.standard_normal(h) * 0.1).astype(F32),
            np.zeros((B, h), F32), rng.standard_normal((t, B, h)).astype(F32))


def loss(w: Any, u: Any, b: Any, h0: Any, xs: Any, remat: bool = False) -> Any:
    def cell(h: Any, x: Any) -> Any:
        return mnp.tanh(h @ w.T + x @ u.T + b)

    step = mg.checkpoint(cell) if remat else cell
    h, _ = lax.scan(lambda h, x: (step(h, x), None), h0, xs)
    return mnp.sum(h)


def minigrad_value_and_grad(remat: bool = False) -> Callable[..., Any]:
    return mg.value_and_grad(lambda *a: loss(*a, remat=remat), argnums=(0, 1, 2))


def floor(w: np.ndarray, u: np.ndarray, b: np.ndarray, h0: np.ndarray, xs: np.ndarray
          ) -> tuple[Any, tuple[np.ndarray, ...]]:
    """The value and gradients by hand: a forward loop keeping every h_t, a backward loop."""
    t_len = len(xs)
    hs = np.empty((t_len + 1, *h0.shape), h0.dtype)
    hs[0] = h0
    wt, ut = w.T, u.T
    for t in range(t_len):
        hs[t + 1] = np.tanh(hs[t] @ wt + xs[t] @ ut + b)
    dh = np.ones_like(h0)  # d sum(h_T) / d h_T
    dw, du, db = np.zeros_like(w), np.zeros_like(u), np.zeros_like(b)
    for t in range(t_len - 1, -1, -1):
        dz = dh * (1 - hs[t + 1] * hs[t + 1])  # through tanh
        dw += dz.T @ hs[t]
        du += dz.T @ xs[t]
        db += dz.sum(0)
        dh = dz @ w
    return hs[t_len].sum(), (dw, du, db)


def jax_value_and_grad() -> Callable[..., Any] | None:
    if importlib.util.find_spec("jax") is None:
        return None
    import jax
    import jax.numpy as jnp

    def jloss(w: Any, u: Any, b: Any, h0: Any, xs: Any) -> Any:
        def body(h: Any, x: Any) -> Any:
            return jnp.tanh(h @ w.T + x @ u.T + b), None

        return jnp.sum(jax.lax.scan(body, h0, xs)[0])

    f = jax.jit(jax.value_and_grad(jloss, argnums=(0, 1, 2)))
    return lambda *a: jax.block_until_ready(f(*a))


def check() -> float:
    """The floor against minigrad (and minigrad's jit against its eager run): worst error."""
    args = inputs(8, 7)
    v, g = floor(*args)
    mv, mg_ = minigrad_value_and_grad()(*args)
    _, jg = mg.jit(minigrad_value_and_grad())(*args)
    worst = abs(float(v) - float(mv))
    for a, b_, c in zip(g, mg_, jg, strict=True):
        worst = max(worst, float(np.abs(a - b_).max()), float(np.abs(b_ - c).max()))
    return worst


def rounds_of(fns: dict[str, Callable[[], Any]], rounds: int) -> dict[str, list[float]]:
    """Seconds per call of each function, one sample per round, the functions interleaved."""
    for f in fns.values():
        f()  # warm up: JAX's compilation, minigrad's trace and compile
    samples: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(rounds):
        for k, f in fns.items():
            t0 = time.perf_counter()
            f()
            samples[k].append(time.perf_counter() - t0)
    return samples




def md_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])


def timing(sizes: list[tuple[int, int]], rounds: int) -> dict[tuple[int, int], dict]:
    out = {}
    jvg_jax = jax_value_and_grad()
    for h, t in sizes:
        args = inputs(h, t)
        eager = minigrad_value_and_grad()
        jitted = mg.jit(minigrad_value_and_grad())
        fns = {"floor": lambda a=args: floor(*a), "jit": lambda a=args, f=jitted: f(*a),
               "eager": lambda a=args, f=eager: f(*a)}
        if jvg_jax is not None:
            fns["jax jit"] = lambda a=args: jvg_jax(*a)
        samples = rounds_of(fns, rounds if h * t <= 16 * 1000 else max(3, rounds // 2))
        out[(h, t)] = {k: (min(v), float(np.median(v))) for k, v in samples.items()}
        cells = ", ".join(f"{k} {v[0] * 1e3:.2f}" for k, v in out[(h, t)].items())
        print(f"  H={h} T={t}: min ms {cells}", flush=True)
    return out


def first_calls(ts: tuple[int, ...], repeats: int) -> list[list[str]]:
    """The cost of jit's first call (trace + passes + code generation, then one run), by T
    and by the size of the program (cells of 1 and 4 layers)."""
    rows = []
    for layers in (1, 4):
        for t in ts:
            args = inputs(16, t)

            def stacked(w: Any, u: Any, b: Any, h0: Any, xs: Any, n: int = layers) -> Any:
                def cell(h: Any, x: Any) -> Any:
                    for _ in range(n):
                        h = mnp.tanh(h @ w.T + x @ u.T + b)
                    return h

                return mnp.sum(lax.scan(lambda h, x: (cell(h, x), None), h0, xs)[0])

            vg = mg.value_and_grad(stacked, argnums=(0, 1, 2))
            lowers, firsts = [], []
            for _ in range(repeats):
                f = mg.jit(vg)
                t0 = time.perf_counter()
                lowered = f.lower(*args)
                lowers.append(time.perf_counter() - t0)
                g = mg.jit(vg)
                t0 = time.perf_counter()
                g(*args)
                firsts.append(time.perf_counter() - t0)
            eqns = len(lowered.traced.eqns) + sum(
                len(e.params["jaxpr"].eqns) for e in lowered.traced.eqns
                if e.prim.name == "scan")
            rows.append([str(layers), str(t), str(eqns), f"{min(lowers) * 1e3:.1f}",
                         f"{min(firsts) * 1e3:.1f}"])
            print(f"  layers={layers} T={t}: {eqns} equations, lower {min(lowers) * 1e3:.1f} "
                  f"ms, first call {min(firsts) * 1e3:.1f} ms", flush=True)
    return rows


def memory(ts: tuple[int, ...], h: int, rounds: int) -> list[list[str]]:
    rows = []
    for t in ts:
        args = inputs(h, t)
        plain, remat = mg.jit(minigrad_value_and_grad()), mg.jit(minigrad_value_and_grad(True))
        fns = {"plain": lambda a=args, f=plain: f(*a), "remat": lambda a=args, f=remat: f(*a)}
        p_plain, p_remat = peak_bytes(fns["plain"]), peak_bytes(fns["remat"])
        times = rounds_of(fns, max(3, rounds // 2))
        step = B * h * 4  # one (32, H) float32 array
        rows.append([str(t), f"{p_plain / 2**20:.1f}", f"{p_plain / (t * step):.2f}",
                     f"{min(times['plain']) * 1e3:.1f}", f"{p_remat / 2**20:.1f}",
                     f"{p_remat / (t * step):.2f}", f"{min(times['remat']) * 1e3:.1f}"])
        print(f"  T={t}: peak {p_plain / 2**20:.1f} MiB ({p_plain / (t * step):.2f} arrays per "
              f"step), with checkpoint {p_remat / 2**20:.1f} MiB", flush=True)
    return rows


def section(rounds: int = 15, quick: bool = False) -> str:
    """Run the measurements; the markdown of the section."""
    worst = check()
    print(f"  the floor against minigrad: worst error {worst:.1e}", flush=True)
    ts = (100,) if quick else (100, 1000)
    sizes = [(h, t) for h in (16, 256) for t in ts]
    res = timing(sizes, rounds)
    has_jax = all("jax jit" in v for v in res.values())
    rows = []
    for (h, t), v in res.items():
        row = [str(h), str(t)] + [f"{v[k][0] * 1e3:.2f} / {v[k][1] * 1e3:.2f}"
                                  for k in ("floor", "jit", "eager")]
        if has_jax:
            row.append(f"{v['jax jit'][0] * 1e3:.2f} / {v['jax jit'][1] * 1e3:.2f}")
        row += [f"{v['jit'][0] / v['floor'][0]:.2f}", f"{v['eager'][0] / v['floor'][0]:.2f}"]
        if has_jax:
            row.append(f"{v['jax jit'][0] / v['floor'][0]:.2f}")
        rows.append(row)
    header = (["H", "T", "NumPy floor ms (min / median)", "minigrad jit ms", "minigrad eager ms"]
              + (["JAX jit ms"] if has_jax else [])
              + ["jit / floor", "eager / floor"] + (["JAX jit / floor"] if has_jax else []))
    times_md = md_table(header, rows)
    small = [(t, res[(16, t)]) for t in ts]
    per_iter = {t: (v["jit"][0] - v["floor"][0]) / (2 * t) for t, v in small}
    jax_iter = {t: v["jax jit"][0] / (2 * t) for t, v in small} if has_jax else {}
    big = {t: res[(256, t)]["jit"][0] / res[(256, t)]["floor"][0] for t in ts}
    print("  first calls", flush=True)
    first = first_calls(ts, 3)
    print("  memory", flush=True)
    mem = memory((100, 200, 400) if quick else (100, 250, 500, 1000), 256, rounds)

    def verdict(ok: bool) -> str:
        return "holds" if ok else "misses"

    targets = md_table(["target", "measured (min over rounds)", ""], [
        ["jit within 1.2x of the floor at H = 256",
         ", ".join(f"T={t}: {r:.2f}x" for t, r in big.items()),
         verdict(all(r <= 1.2 for r in big.values()))],
        ["jit's per-iteration overhead at H = 16 at most 10 us (jit minus floor, over 2T loop "
         "iterations)", ", ".join(f"T={t}: {o * 1e6:.1f} us" for t, o in per_iter.items())
         + ("; JAX's jit, whole time per iteration: "
            + ", ".join(f"T={t}: {o * 1e6:.2f} us" for t, o in jax_iter.items())
            if jax_iter else ""),
         verdict(all(o <= 10e-6 for o in per_iter.values()))],
        ["first call grows with the program, not with T",
         "; ".join(f"{r[0]} layer(s), T={r[1]}: {r[3]} ms" for r in first), ""],
    ])
    first_md = md_table(["cell layers", "T", "equations (program + scan bodies)",
                         "trace + passes + codegen ms (min of 3)", "whole first call ms"],
                        first)
    mem_md = md_table(["T", "jit grad peak MiB", "(32, H) arrays per step", "time ms",
                       "with checkpoint MiB", "arrays per step", "time ms"], mem)
    return SECTION.format(targets=targets, times=times_md, first=first_md, mem=mem_md,
                          worst=f"{worst:.1e}", rounds=rounds)


SECTION = """

## Control flow: an RNN through `lax.scan`

`benchmarks/control_flow.py` (issue #27). The cell `h = tanh(W h + U x_t + b)`, batch 32, hidden
and input size H, float32, scanned over T steps; the value and the gradient of `sum(h_T)` with
respect to `W`, `U` and `b`. The NumPy floor is a forward loop that keeps every `h_t` and a
hand-derived backward loop (it agrees with minigrad to {worst}). JAX's `jit` compiles the
scan with XLA, which fuses each step's work into one kernel: its per-iteration time is the
measure of what a compiled loop costs, not a target. Each cell is the minimum and the median
over {rounds} interleaved rounds (fewer at H = 256, T = 1000), on a machine shared with other
work.

{targets}

{times}

The first call of a `jit` traces the function, derives the JVP, partial-evaluation and
transpose programs of the scan's body, optimizes and generates code, once per body: its cost
follows the number of equations, not T.

{first}

Peak memory (tracemalloc) of the jitted value and gradient at H = 256: the forward scan stacks
each step's residuals for the backward one, so the peak grows linearly in T. Without
`checkpoint` two (32, H) arrays per step are stacked (`h_t` and `tanh'`); with the cell under
`checkpoint` one (`h_t`, from which the backward scan recomputes the cell).

{mem}
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="T = 100 only, fewer rounds")
    parser.add_argument("--rounds", type=int, default=None)
    opts = parser.parse_args()
    print(section(opts.rounds or (5 if opts.quick else 15), opts.quick))


if __name__ == "__main__":
    main()

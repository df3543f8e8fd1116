"""minigrad.numpy's surface (issue #26): ``python benchmarks/run.py numpy_surface [--quick]``
(or this file directly).

1. Eager cost over NumPy: each function of a row (``mnp.sin``, ``mnp.sum``, ``x.at[i].add``,
   ``mnp.var``, ``minigrad.nn.softmax`` ...) on a 1-element and a 1000-element float64 array
   against the NumPy call it wraps (for ``minigrad.nn``, the same stable formula written in
   NumPy; for ``x.at[i].add(v)``, a copy and an in-place add). Each round times every system
   in turn (a calibrated loop of ~2 ms each, twice as many rounds as the MLP's); a figure is
   the minimum over rounds of the time per call, the difference of the minima the cost over
   NumPy. Target: +3 us or less.
2. A jitted MLP step (forward and backward: a gelu hidden layer, a log_softmax cross-entropy;
   float32, 64 inputs, 128 hidden, 10 classes) at B = 1, 32, 256: minigrad's
   ``jit(value_and_grad)`` against a hand-written NumPy forward and backward (the floor) and,
   when installed, JAX's ``jit(value_and_grad)``. Target: jit within 1.1x of the floor.

One thread everywhere.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                      "intra_op_parallelism_threads=1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import importlib.util  # noqa: E402
import math  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, Callable  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # minigrad from this checkout

import minigrad as mg  # noqa: E402
import minigrad.nn as mnn  # noqa: E402
import minigrad.numpy as mnp  # noqa: E402

SIZES = (1, 1000)
BATCHES = (1, 32, 256)
D_IN, HIDDEN, CLASSES = 64, 128, 10
GELU_C = math.sqrt(2 / math.pi)


# --------------------------------------------------------------------------- timing


def _calibrate(fn: Callable[[], Any], target: float) -> int:
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        if time.perf_counter() - t0 >= target / 4 or n >= 1 << 20:
            return max(1, int(n * target / max(time.perf_counter() - t0, 1e-9)))
        n *= 4


def interleaved(fns: dict[str, Callable[[], Any]], rounds: int, target: float = 0.002
                ) -> dict[str, list[float]]:
    """Seconds per call of each function, one figure per round, the functions in turn."""
    for f in fns.values():  # warm up: caches, jit's first call
        f()
        f()
    loops = {k: _calibrate(f, target) for k, f in fns.items()}
    out: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(rounds):
        for k, f in fns.items():
            n = loops[k]
            t0 = time.perf_counter()
            for _ in range(n):
                f()
            out[k].append((time.perf_counter() - t0) / n)
    return out


# --------------------------------------------------------------------------- 1. eager rows


def _np_softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / np.add.reduce(e, axis=-1, keepdims=True)


def _np_log_softmax(x: np.ndarray) -> np.ndarray:
    s = x - np.max(x, axis=-1, keepdims=True)
    return s - np.log(np.add.reduce(np.exp(s), axis=-1, keepdims=True))


def _np_sigmoid(x: np.ndarray) -> np.ndarray:
    pos = x >= 0
    e = np.exp(np.where(pos, -x, x))
    return np.where(pos, 1 / (1 + e), e / (1 + e))


def _np_gelu(x: np.ndarray) -> np.ndarray:
    return x * (0.5 * (1 + np.tanh(GELU_C * (x + 0.044715 * (x * x * x)))))


def _np_at_add(x: np.ndarray, i: int, v: float) -> np.ndarray:
    y = x.copy()
    y[i] += v
    return y


def eager_rows(n: int) -> dict[str, tuple[str, Callable[[], Any], Callable[[], Any]]]:
    """name -> (the NumPy call, minigrad's call, NumPy's call) on arrays of n elements."""
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n)
    y = rng.standard_normal(n)
    xa = x.view(mg.Array)
    a, b = rng.standard_normal((25, 40)), rng.standard_normal((40, 25))
    aa, ba = a.view(mg.Array), b.view(mg.Array)
    return {
        "sin": ("np.sin", lambda: mnp.sin(xa), lambda: np.sin(x)),
        "sum": ("np.sum", lambda: mnp.sum(xa), lambda: np.sum(x)),
        "x.at[i].add(v)": ("copy, y[i] += v", lambda: xa.at[0].add(1.0),
                           lambda: _np_at_add(x, 0, 1.0)),
        "mean": ("np.mean", lambda: mnp.mean(xa), lambda: np.mean(x)),
        "var": ("np.var", lambda: mnp.var(xa), lambda: np.var(x)),
        "std": ("np.std", lambda: mnp.std(xa), lambda: np.std(x)),
        "median": ("np.median", lambda: mnp.median(xa), lambda: np.median(x)),
        "sort": ("np.sort", lambda: mnp.sort(xa), lambda: np.sort(x)),
        "argsort": ("np.argsort(stable)", lambda: mnp.argsort(xa),
                    lambda: np.argsort(x, kind="stable")),
        "all": ("np.all", lambda: mnp.all(xa), lambda: np.all(x)),
        "any": ("np.any", lambda: mnp.any(xa), lambda: np.any(x)),
        "dot": ("np.dot", lambda: mnp.dot(xa, y), lambda: np.dot(x, y)),
        "linalg.norm": ("np.linalg.norm", lambda: mnp.linalg.norm(xa),
                        lambda: np.linalg.norm(x)),
        "matmul 25x40 @ 40x25": ("np.matmul", lambda: mnp.matmul(aa, ba),
                                 lambda: np.matmul(a, b)),
        "nn.relu": ("np.maximum(x, 0)", lambda: mnn.relu(xa), lambda: np.maximum(x, 0)),
        "nn.sigmoid": ("stable formula", lambda: mnn.sigmoid(xa), lambda: _np_sigmoid(x)),
        "nn.softplus": ("np.logaddexp(x, 0)", lambda: mnn.softplus(xa),
                        lambda: np.logaddexp(x, 0.0)),
        "nn.silu": ("x * stable sigmoid", lambda: mnn.silu(xa), lambda: x * _np_sigmoid(x)),
        "nn.gelu": ("tanh formula", lambda: mnn.gelu(xa), lambda: _np_gelu(x)),
        "nn.softmax": ("stable formula", lambda: mnn.softmax(xa), lambda: _np_softmax(x)),
        "nn.log_softmax": ("stable formula", lambda: mnn.log_softmax(xa),
                           lambda: _np_log_softmax(x)),
    }


def linalg_rows() -> dict[str, tuple[str, Callable[[], Any], Callable[[], Any]]]:
    rng = np.random.default_rng(32)
    m = rng.standard_normal((32, 32)) + 32 * np.eye(32)
    v = rng.standard_normal(32)
    ma = m.view(mg.Array)
    L = mnp.linalg
    cases = [("inv", (ma,), (m,)), ("solve", (ma, v), (m, v)), ("det", (ma,), (m,)),
             ("slogdet", (ma,), (m,))]

    def call(f: Callable[..., Any], args: tuple) -> Callable[[], Any]:
        return lambda: f(*args)

    return {name: (f"np.linalg.{name}", call(getattr(L, name), mine),
                   call(getattr(np.linalg, name), theirs))
            for name, mine, theirs in cases}


def eager_section(rounds: int) -> list[list[str]]:
    rows = []
    for n in SIZES:
        for name, (np_name, mine, theirs) in eager_rows(n).items():
            if name.startswith("matmul") and n != SIZES[-1]:
                continue  # (one shape)
            t = interleaved({"minigrad": mine, "numpy": theirs}, 2 * rounds)
            rows.append(_row(name, str(n), np_name, t))
            print(f"  {rows[-1]}", flush=True)
    for name, (np_name, mine, theirs) in linalg_rows().items():
        t = interleaved({"minigrad": mine, "numpy": theirs}, 2 * rounds)
        rows.append(_row(f"linalg.{name}", "32x32", np_name, t))
        print(f"  {rows[-1]}", flush=True)
    return rows


def _row(name: str, size: str, np_name: str, t: dict[str, list[float]]) -> list[str]:
    mine, theirs = min(t["minigrad"]), min(t["numpy"])
    over = (mine - theirs) * 1e6
    return [name, size, np_name, f"{mine * 1e6:.2f}", f"{theirs * 1e6:.2f}", f"{over:+.2f}",
            "holds" if over <= 3.0 else "misses"]


# --------------------------------------------------------------------------- 2. the MLP


def mlp_inputs(batch: int, seed: int = 0, dtype: Any = np.float32) -> tuple[Any, ...]:
    rng = np.random.default_rng(seed)
    w1 = (rng.standard_normal((D_IN, HIDDEN)) / math.sqrt(D_IN)).astype(dtype)
    b1 = (rng.standard_normal(HIDDEN) * 0.1).astype(dtype)
    w2 = (rng.standard_normal((HIDDEN, CLASSES)) / math.sqrt(HIDDEN)).astype(dtype)
    b2 = (rng.standard_normal(CLASSES) * 0.1).astype(dtype)
    x = rng.standard_normal((batch, D_IN)).astype(dtype)
    y = np.eye(CLASSES, dtype=dtype)[rng.integers(0, CLASSES, batch)]
    return (w1, b1, w2, b2), x, y


def mlp_loss(params: tuple, x: Any, y: Any, nn: Any = mnn, np_: Any = mnp) -> Any:
    """The mean cross-entropy of a gelu MLP, written once for minigrad and for JAX."""
    w1, b1, w2, b2 = params
    h = nn.gelu(x @ w1 + b1)
    logits = h @ w2 + b2
    return -np_.mean(np_.sum(y * nn.log_softmax(logits), axis=1))


def floor(params: tuple, x: np.ndarray, y: np.ndarray) -> tuple[Any, tuple]:
    """The loss and its gradient in the parameters, forward and backward by hand in NumPy."""
    w1, b1, w2, b2 = params
    batch = x.shape[0]
    pre = x @ w1 + b1
    t = np.tanh(GELU_C * (pre + 0.044715 * (pre * pre * pre)))
    h = pre * (0.5 * (1 + t))
    logits = h @ w2 + b2
    shifted = logits - np.max(logits, axis=1, keepdims=True)
    e = np.exp(shifted)
    total = np.add.reduce(e, axis=1, keepdims=True)
    log_p = shifted - np.log(total)
    loss = -np.add.reduce(y * log_p, axis=None) / batch
    d_logits = (e / total - y) / np.asarray(batch, x.dtype)  # (one-hot y: each row sums to 1)
    d_w2 = h.T @ d_logits
    d_b2 = np.add.reduce(d_logits, axis=0)
    d_h = d_logits @ w2.T
    slope = 0.5 * (1 + t) + 0.5 * pre * (1 - t * t) * GELU_C * (1 + 3 * 0.044715 * pre * pre)
    d_pre = d_h * slope
    return loss, (x.T @ d_pre, np.add.reduce(d_pre, axis=0), d_w2, d_b2)


def check(batch: int = 8) -> float:
    """The largest difference between the floor's loss and gradients and minigrad's jit (in
    float64: the floor is right, not only close)."""
    params, x, y = mlp_inputs(batch, seed=1, dtype=np.float64)
    value, grads = floor(params, x, y)
    got_value, got_grads = mg.jit(mg.value_and_grad(mlp_loss))(params, x, y)
    worst = abs(float(got_value) - float(value))
    for a, b in zip(got_grads, grads, strict=True):
        worst = max(worst, float(np.max(np.abs(np.asarray(a) - b))))
    return worst


def mlp_systems(batch: int) -> dict[str, Callable[[], Any]]:
    params, x, y = mlp_inputs(batch)
    step = mg.jit(mg.value_and_grad(mlp_loss))
    systems: dict[str, Callable[[], Any]] = {
        "floor": lambda: floor(params, x, y),
        "minigrad jit": lambda: step(params, x, y),
    }
    if importlib.util.find_spec("jax") is not None:
        import jax
        import jax.numpy as jnp

        jax_step = jax.jit(jax.value_and_grad(lambda p, x, y: mlp_loss(p, x, y, jax.nn, jnp)))
        jp, jx, jy = jax.device_put((params, x, y))
        systems["jax jit"] = lambda: jax.block_until_ready(jax_step(jp, jx, jy))
    return systems


def mlp_section(rounds: int) -> tuple[list[list[str]], bool]:
    rows = []
    has_jax = False
    for batch in BATCHES:
        t = interleaved(mlp_systems(batch), rounds, target=0.02)
        has_jax = "jax jit" in t
        best = {k: min(v) for k, v in t.items()}
        ratio = float(np.median(np.asarray(t["minigrad jit"]) / np.asarray(t["floor"])))
        row = [str(batch), f"{best['floor'] * 1e6:.1f}", f"{best['minigrad jit'] * 1e6:.1f}"]
        row += [f"{best['jax jit'] * 1e6:.1f}"] if has_jax else []
        row += [f"{best['minigrad jit'] / best['floor']:.2f} ({ratio:.2f})"]
        if has_jax:
            jax_ratio = float(np.median(np.asarray(t["minigrad jit"]) / np.asarray(t["jax jit"])))
            row += [f"{best['minigrad jit'] / best['jax jit']:.2f} ({jax_ratio:.2f})"]
        row += ["holds" if best["minigrad jit"] <= 1.1 * best["floor"] else "misses"]
        rows.append(row)
        print(f"  {row}", flush=True)
    return rows, has_jax


# --------------------------------------------------------------------------- the section


def md_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join([*lines, *("| " + " | ".join(r) + " |" for r in rows)])


def section(rounds: int = 15, quick: bool = False) -> str:
    """Run the measurements; the markdown of the section."""
    worst = check()
    print(f"  the MLP floor against minigrad (float64): worst difference {worst:.1e}",
          flush=True)
    print("  eager rows (minigrad us, NumPy us, difference)", flush=True)
    eager = eager_section(rounds)
    print("  jitted MLP step", flush=True)
    mlp, has_jax = mlp_section(rounds)
    eager_md = md_table(["function", "n", "NumPy", "minigrad us", "NumPy us", "over NumPy us",
                         "+3 us"], eager)
    mlp_md = md_table(["B", "NumPy floor us", "minigrad jit us"]
                      + (["JAX jit us"] if has_jax else [])
                      + ["minigrad jit / floor (median ratio)"]
                      + (["minigrad jit / JAX jit (median ratio)"] if has_jax else [])
                      + ["<= 1.1x floor"], mlp)
    jax_note = "" if has_jax else "\n\njax was not installed for this run: no JAX column."
    params, x, y = mlp_inputs(1)
    eqns = len(mg.jit(mg.value_and_grad(mlp_loss)).lower(params, x, y).jaxpr.eqns)
    missed = [row[0] for row in mlp if row[-1] != "holds"]
    verdict = (f"The step misses 1.1x at B = {', '.join(missed)} in this run." if missed
               else "The step is within 1.1x of the floor at every B.")
    return SECTION.format(rounds=rounds, eager_rounds=2 * rounds, eager=eager_md, mlp=mlp_md,
                          worst=worst, jax_note=jax_note, eqns=eqns, verdict=verdict)


SECTION = """

## minigrad.numpy's surface (issue #26)

`benchmarks/numpy_surface.py` (`python benchmarks/run.py numpy_surface`): {eager_rounds}
interleaved rounds of ~2 ms a system, minima over rounds (float64, one thread). Eagerly, a
function of `minigrad.numpy` or `minigrad.nn` given concrete arrays and no transform takes a
fast path (`minigrad/numpy/eager.py`) that runs the NumPy calls its primitives' impls would,
without a bind per primitive (tests/test_eager_fast_paths.py holds it bit for bit equal to the
general path); a `minigrad.nn` row's NumPy column is the same stable formula written in NumPy,
and the linalg rows call LAPACK through `np.linalg` on the fast path.

{eager}

A jitted training step of an MLP (float32, 64 inputs, a gelu hidden layer of 128, a
log_softmax cross-entropy over 10 classes): minigrad's `jit(value_and_grad)` against a
hand-written NumPy forward and backward (the floor; its loss and gradients agree with
minigrad's to {worst:.1e} in float64) and JAX's `jit(value_and_grad)`; {rounds} interleaved rounds
of ~20 ms a system, minima (and the median of the per-round ratios).

{mlp}{jax_note}

{verdict} jit's optimized program has {eqns} equations, each one NumPy call, where the
floor makes 44: the floor knows that `y` is one-hot and writes the logits' gradient as
`softmax - y`, where the gradient of the general program is `softmax * sum(y) - y`. Each
equation's line calls a form of its impl specialized to it (docs/jit.md, "The generated code":
a dot is one `np.matmul`, a reduction its ufunc's `reduce` with the axes bound, the softmax's
max and sum keep their axes instead of an `expand_dims` each), and a call that hits the cache
rebuilds the results' tree by one generated expression: together 50 -> 35 us at B = 1 and
78 -> 61 us at B = 32 when they landed. At small B a NumPy call's fixed cost (about a
microsecond) is most of the time.
"""


def main(argv: list[str]) -> None:
    quick = "--quick" in argv
    print(section(5 if quick else 15, quick))


if __name__ == "__main__":
    main(sys.argv[1:])

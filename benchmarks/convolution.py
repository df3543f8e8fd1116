"""Convolutions and pooling (issue #34): ``python benchmarks/convolution.py [--quick]
[--rounds N]``, ``python benchmarks/run.py conv``, or the section of ``benchmarks/run.py``
that calls ``section`` and appends its markdown to docs/benchmarks.md.

* ``lax.conv_general_dilated`` of a (32, 3, 32, 32) input with a (16, 3, 3, 3) kernel, stride
  1, 'SAME' padding, float32 (NCHW / OIHW): the forward, and the value and gradient of
  ``sum(conv(x, w) * g)`` (a fixed cotangent ``g``) with respect to the input (lhs) and to the
  kernel (rhs);
* ``lax.reduce_window`` max pooling, 2x2 windows, stride 2, of a (32, 16, 32, 32) float32
  array: the forward, and the value and gradient of ``sum(pool(x) * g)``.

Each against a hand-written NumPy floor: for the convolution im2col (``sliding_window_view``
of the padded input and one ``tensordot``); for its lhs gradient one matmul of the cotangent
with the kernel, then nine shifted adds; for its rhs gradient one einsum of the cotangent with
the input's windows; for pooling a reshape and the pairwise maxima of the four corners, and
for its gradient a mask of the maxima (the inputs are random floats: no ties). ``check``
compares every floor with minigrad's values. minigrad eager and under ``jit``, and JAX's
``jit`` when installed. Target: within 1.3x of the floor.

Every time is taken in interleaved rounds (each system once per round), one thread; the
tables give the minimum over the rounds (the cost of the code) and the median.
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
from numpy.lib.stride_tricks import sliding_window_view  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
for _path in (ROOT, ROOT / "benchmarks"):  # minigrad from this checkout; control_flow
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from control_flow import md_table  # noqa: E402

import minigrad as mg  # noqa: E402
from minigrad import lax  # noqa: E402
from minigrad import numpy as mnp  # noqa: E402

F32 = np.float32
X_SHAPE, W_SHAPE, POOL_SHAPE = (32, 3, 32, 32), (16, 3, 3, 3), (32, 16, 32, 32)


def inputs(seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {"x": rng.standard_normal(X_SHAPE).astype(F32),
            "w": (rng.standard_normal(W_SHAPE) / 3).astype(F32),
            "g": rng.standard_normal((32, 16, 32, 32)).astype(F32),
            "p": rng.standard_normal(POOL_SHAPE).astype(F32),
            "pg": rng.standard_normal((32, 16, 16, 16)).astype(F32)}


# --------------------------------------------------------------------------- the NumPy floor


def _pad(a: np.ndarray) -> np.ndarray:
    """'SAME' for a 3x3 kernel at stride 1: one element each side of both spatial axes."""
    return np.pad(a, ((0, 0), (0, 0), (1, 1), (1, 1)))


def floor_conv(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """im2col: the (N, C, H, W, 3, 3) windows of the padded input times the kernel."""
    cols = sliding_window_view(_pad(x), (3, 3), axis=(2, 3))
    return np.tensordot(cols, w, axes=([1, 4, 5], [1, 2, 3])).transpose(0, 3, 1, 2)


def floor_grad_lhs(x: np.ndarray, w: np.ndarray, g: np.ndarray) -> tuple[Any, np.ndarray]:
    """The value of sum(conv(x, w) * g) and its gradient in x: one matmul gives, for every
    output position, its contribution ``g[n, :, h, w] @ w[:, c, i, j]`` to each kernel offset;
    nine shifted adds put them in place (the transposed convolution), then the crop."""
    value = np.vdot(floor_conv(x, w), g)
    n, o, h, wd = g.shape
    c = w.shape[1]
    z = (g.transpose(0, 2, 3, 1).reshape(-1, o) @ w.reshape(o, -1)).reshape(n, h, wd, c, 3, 3)
    dx = np.zeros((n, h + 2, wd + 2, c), g.dtype)
    for i in range(3):
        for j in range(3):
            dx[:, i:i + h, j:j + wd] += z[..., i, j]
    return value, dx[:, 1:h + 1, 1:wd + 1].transpose(0, 3, 1, 2)


def floor_grad_rhs(x: np.ndarray, w: np.ndarray, g: np.ndarray) -> tuple[Any, np.ndarray]:
    """The value and the gradient in w: the cotangent contracted with the input's windows
    over the batch and the output positions (one einsum)."""
    cols = sliding_window_view(_pad(x), (3, 3), axis=(2, 3))  # (N, C, H, W, 3, 3)
    out = np.tensordot(cols, w, axes=([1, 4, 5], [1, 2, 3])).transpose(0, 3, 1, 2)
    dw = np.einsum("nohw,nchwij->ocij", g, cols, optimize=True)
    return np.vdot(out, g), dw


def _corners(r: np.ndarray) -> list[np.ndarray]:
    """The four elements of each 2x2 window of ``r`` (N, C, H/2, 2, W/2, 2)."""
    return [r[:, :, :, i, :, j] for i in (0, 1) for j in (0, 1)]


def floor_pool(p: np.ndarray) -> np.ndarray:
    """Reshape to (N, C, H/2, 2, W/2, 2), the max of the four corners (pairwise maxima: a max
    over the two small axes is ~100x slower in NumPy)."""
    n, c, h, w = p.shape
    a, b, cc, d = _corners(p.reshape(n, c, h // 2, 2, w // 2, 2))
    return np.maximum(np.maximum(a, b), np.maximum(cc, d))


def floor_pool_grad(p: np.ndarray, g: np.ndarray) -> tuple[Any, np.ndarray]:
    """The value of sum(pool(p) * g) and its gradient: g where an element equals its
    window's maximum (no ties in random floats)."""
    n, c, h, w = p.shape
    m = floor_pool(p)
    hit = p.reshape(n, c, h // 2, 2, w // 2, 2) == m[:, :, :, None, :, None]
    return np.vdot(m, g), (hit * g[:, :, :, None, :, None]).reshape(p.shape)


# --------------------------------------------------------------------------- minigrad and JAX


def conv(lax_: Any, x: Any, w: Any) -> Any:
    return lax_.conv_general_dilated(x, w, (1, 1), "SAME",
                                     dimension_numbers=("NCHW", "OIHW", "NCHW"))


def pool(lax_: Any, np_: Any, p: Any) -> Any:
    return lax_.reduce_window(p, -np.inf, lax_.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")


def programs(lax_: Any, np_: Any, vg: Callable[..., Any]) -> dict[str, Callable[..., Any]]:
    """The four programs of one framework (``vg`` its ``value_and_grad``)."""
    return {
        "conv": lambda x, w, g: conv(lax_, x, w),
        "conv grad lhs": lambda x, w, g: vg(lambda x: np_.sum(conv(lax_, x, w) * g))(x),
        "conv grad rhs": lambda x, w, g: vg(lambda w: np_.sum(conv(lax_, x, w) * g))(w),
        "pool": lambda p, g: pool(lax_, np_, p),
        "pool grad": lambda p, g: vg(lambda p: np_.sum(pool(lax_, np_, p) * g))(p),
    }


FLOORS: dict[str, Callable[..., Any]] = {
    "conv": lambda x, w, g: floor_conv(x, w), "conv grad lhs": floor_grad_lhs,
    "conv grad rhs": floor_grad_rhs, "pool": lambda p, g: floor_pool(p),
    "pool grad": floor_pool_grad}


def args_of(name: str, a: dict[str, np.ndarray]) -> tuple[np.ndarray, ...]:
    return (a["p"], a["pg"]) if name.startswith("pool") else (a["x"], a["w"], a["g"])


def jax_programs() -> dict[str, Callable[..., Any]] | None:
    if importlib.util.find_spec("jax") is None:
        return None
    import jax
    import jax.numpy as jnp

    def ready(f: Callable[..., Any]) -> Callable[..., Any]:
        jf = jax.jit(f)
        return lambda *a: jax.block_until_ready(jf(*a))

    return {k: ready(f) for k, f in programs(jax.lax, jnp, jax.value_and_grad).items()}


def _parts(result: Any) -> list[Any]:
    """A (value, gradient) pair as a list; one array as a list of one."""
    return list(result) if isinstance(result, tuple) else [result]


def check(a: dict[str, np.ndarray]) -> float:
    """Each floor against minigrad eager and jit: the worst error relative to the largest
    magnitude of the value compared."""
    eager = programs(lax, mnp, mg.value_and_grad)
    worst = 0.0
    for name, floor in FLOORS.items():
        args = args_of(name, a)
        want = floor(*args)
        for got in (eager[name](*args), mg.jit(eager[name])(*args)):
            for u, v in zip(_parts(want), _parts(got), strict=True):
                u, v = np.asarray(u, np.float64), np.asarray(v, np.float64)
                worst = max(worst, float(np.abs(u - v).max() / max(np.abs(u).max(), 1e-30)))
    return worst


def rounds_of(fns: dict[str, Callable[[], Any]], rounds: int
              ) -> dict[str, tuple[list[float], list[float]]]:
    """Seconds per call of each function, one sample per round, the functions interleaved:
    the wall time and the process's CPU time of the same call (one thread: on a shared
    machine the CPU time leaves out the time other work held the core)."""
    for f in fns.values():
        f()  # warm up: JAX's compilation, minigrad's trace and compile
    samples: dict[str, tuple[list[float], list[float]]] = {k: ([], []) for k in fns}
    for _ in range(rounds):
        for k, f in fns.items():
            w0, c0 = time.perf_counter(), time.process_time()
            f()
            samples[k][0].append(time.perf_counter() - w0)
            samples[k][1].append(time.process_time() - c0)
    return samples


def timing(rounds: int) -> dict[str, dict[str, tuple[float, float, float]]]:
    """For each program and system: (min wall, median wall, min CPU) seconds."""
    a = inputs()
    eager = programs(lax, mnp, mg.value_and_grad)
    jax_fns = jax_programs()
    out = {}
    for name, floor in FLOORS.items():
        args = args_of(name, a)
        jitted = mg.jit(eager[name])
        fns = {"floor": lambda f=floor, a=args: f(*a), "jit": lambda f=jitted, a=args: f(*a),
               "eager": lambda f=eager[name], a=args: f(*a)}
        if jax_fns is not None:
            fns["jax jit"] = lambda f=jax_fns[name], a=args: f(*a)
        samples = rounds_of(fns, rounds)
        out[name] = {k: (min(w), float(np.median(w)), min(c)) for k, (w, c) in samples.items()}
        cells = ", ".join(f"{k} {v[0] * 1e3:.2f} (CPU {v[2] * 1e3:.2f})"
                          for k, v in out[name].items())
        print(f"  {name}: min ms {cells}", flush=True)
    return out


def section(rounds: int = 15, quick: bool = False) -> str:
    """Run the measurements; the markdown of the section."""
    rounds = min(rounds, 5) if quick else rounds
    worst = check(inputs(1))
    print(f"  the floors against minigrad: worst relative error {worst:.1e}", flush=True)
    res = timing(rounds)
    has_jax = all("jax jit" in v for v in res.values())
    rows = []
    for name, v in res.items():
        row = [name] + [f"{v[k][0] * 1e3:.2f} / {v[k][1] * 1e3:.2f} / {v[k][2] * 1e3:.2f}"
                        for k in ("floor", "jit", "eager")]
        if has_jax:
            jv = v["jax jit"]
            row.append(f"{jv[0] * 1e3:.2f} / {jv[1] * 1e3:.2f} / {jv[2] * 1e3:.2f}")
        for clock in (0, 2):
            row += [f"{v['jit'][clock] / v['floor'][clock]:.2f}",
                    f"{v['eager'][clock] / v['floor'][clock]:.2f}"]
        rows.append(row)
    header = (["program", "NumPy floor ms (wall min / median / CPU min)", "minigrad jit ms",
               "minigrad eager ms"] + (["JAX jit ms"] if has_jax else [])
              + ["jit / floor (wall)", "eager / floor (wall)", "jit / floor (CPU)",
                 "eager / floor (CPU)"])

    def worst_ratio(group: str, clock: int) -> float:
        return max(max(v["jit"][clock], v["eager"][clock]) / v["floor"][clock]
                   for k, v in res.items() if k.startswith(group))

    def verdict(group: str) -> str:
        return "holds" if worst_ratio(group, 2) <= 1.3 else "misses"  # on the CPU clock

    def measured(group: str) -> str:
        return f"{worst_ratio(group, 0):.2f}x / {worst_ratio(group, 2):.2f}x"

    targets = md_table(["target", "worst of eager and jit: wall / CPU (minima over rounds)", ""],
                       [["conv_general_dilated (forward, both gradients) within 1.3x of the "
                         "im2col floor", measured("conv"), verdict("conv")],
                        ["reduce_window max pooling (forward, gradient) within 1.3x of the "
                         "reshape-max floor", measured("pool"), verdict("pool")]])
    return SECTION.format(targets=targets, times=md_table(header, rows), worst=f"{worst:.1e}",
                          rounds=rounds, jax="" if has_jax else
                          "\nJAX was not installed for this run: no JAX columns.\n")


SECTION = """

## Convolutions and pooling

`benchmarks/convolution.py` (issue #34); `python benchmarks/run.py conv` runs only this
section. `lax.conv_general_dilated` of a (32, 3, 32, 32) input with a (16, 3, 3, 3) kernel,
stride 1, 'SAME' padding, float32, NCHW / OIHW: the forward, and the value and gradient of
`sum(conv(x, w) * g)` with respect to the input (lhs) and the kernel (rhs); `lax.reduce_window`
max pooling (2x2 windows, stride 2) of a (32, 16, 32, 32) float32 array, forward and the value
and gradient of `sum(pool(x) * g)`. The NumPy floors are written by hand: im2col
(`sliding_window_view` and one `tensordot`) for the convolution, one matmul and nine shifted
adds for its lhs gradient, one einsum of the cotangent with the input's windows for its rhs
gradient; a reshape and the pairwise maxima of each window's four elements for pooling, a
mask of the maxima for its gradient; they agree with
minigrad to {worst} (relative). Each cell is the minimum and the median over {rounds}
interleaved rounds, one thread, on a machine shared with other work.

{targets}

{times}
{jax}"""


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="5 rounds")
    parser.add_argument("--rounds", type=int, default=None)
    opts = parser.parse_args(argv)
    print(section(opts.rounds or (5 if opts.quick else 15), opts.quick))


if __name__ == "__main__":
    main()

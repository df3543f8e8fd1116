"""The minigrad benchmark suite: ``python benchmarks/run.py [--quick] [--no-write]``.

Prints tables of medians and ratios and writes docs/benchmarks.md and docs/benchmarks.png (the
plot needs matplotlib: ``pip install -e ".[bench]"``). Sections:

1. per-example gradients of the workload in benchmarks/workload.py at B = 1, 16, 256, 1024:
   the hand-written NumPy floor, minigrad ``vmap(grad(f))``, minigrad's loop of ``grad``, and,
   when installed, ``torch.func.vmap(torch.func.grad(f))`` and JAX ``vmap(grad(f))`` eager and
   under ``jit``;
2. eager overhead of each of the five ops on a small input against plain NumPy and PyTorch,
   and issue 4's large ``index_add`` against the fastest plain-NumPy formulation;
3. trace and transform cost for a chain of N primitives, N = 100 to 3,200, with t(2N)/t(N);
4. peak memory (tracemalloc) of ``vmap(grad(f))`` against the floor;
5. the fixed cost of ``vmap(grad(f))`` at B=1;
6. this checkout against an earlier revision (``--baseline REV``, by default the last one
   before the layout change of issue #18): the eager cost of one ``bind`` and of the five
   ops, and ``vmap(grad(f))`` at B=1, timed in alternating processes
   (benchmarks/bind_cost.py), and their instruction counts under callgrind when valgrind is
   installed.

One thread everywhere (set below, before NumPy is imported); every timing is the median of
repeated runs, the systems interleaved round by round so that a drift of the shared machine's
speed hits them alike. To benchmark NumPy's own BLAS kernel on a machine that sets
OPENBLAS_CORETYPE, unset it for this command only: ``env -u OPENBLAS_CORETYPE -u
OPENBLAS_L2_SIZE python benchmarks/run.py`` (the report records which kernel ran).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
             "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                      "intra_op_parallelism_threads=1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import io  # noqa: E402
import itertools  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tarfile  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, Callable  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]  # minigrad from this checkout

import control_flow  # noqa: E402
import inplace_memory  # noqa: E402
import numpy_surface  # noqa: E402
import workload as wl  # noqa: E402
from inplace_memory import peak_bytes  # noqa: E402

import minigrad as mg  # noqa: E402
from minigrad import numpy as mnp  # noqa: E402

BATCHES = (1, 16, 256, 1024)
# Section 6 compares this checkout with main as it was before jit (issue 13): the IR's
# equations with several results put a test in every trace's process_primitive.
BASELINE = "59d593e"
CHAIN_NS = (100, 200, 400, 800, 1600, 3200)


def optional(name: str) -> Any:
    if importlib.util.find_spec(name) is None:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return __import__(name)


torch: Any = None
jax: Any = None


def load_frameworks() -> None:
    """Import torch and jax if installed, one thread each (the minigrad-only sections run in
    a process without them: see trace_in_subprocess)."""
    global torch, jax
    torch, jax = optional("torch"), optional("jax")
    if torch is not None:
        torch.set_num_threads(1)
        # torch.func loops over the batch for masked_scatter (no batching rule), warning each call
        warnings.filterwarnings("ignore", message=".*performance drop.*")
    if jax is not None:
        jax.config.update("jax_enable_x64", True)
        jax.config.update("jax_platforms", "cpu")


# --------------------------------------------------------------------------- timing


def calibrate(fn: Callable[[], Any], target: float) -> int:
    """Calls per timed repeat so that a repeat lasts about ``target`` seconds."""
    fn()  # warm-up (and JIT compilation)
    t0 = time.perf_counter()
    fn()
    once = max(time.perf_counter() - t0, 1e-7)
    return max(1, int(target / once))


def interleaved_medians(fns: dict[str, Callable[[], Any]], repeats: int, target: float = 0.02,
                        budget: float = 4.0) -> dict[str, float]:
    """Median seconds per call of each function, timed in interleaved rounds (see
    ``interleaved_samples``)."""
    samples = interleaved_samples(fns, repeats, target, budget)
    return {k: float(np.median(v)) for k, v in samples.items()}


def interleaved_samples(fns: dict[str, Callable[[], Any]], repeats: int, target: float = 0.02,
                        budget: float = 4.0) -> dict[str, list[float]]:
    """Seconds per call of each function, one sample per round: round r times every function
    once (``number`` calls each). A function that has used up ``budget`` seconds stops after
    at least 3 repeats (the loop of grad at large B, say)."""
    numbers = {k: calibrate(f, target) for k, f in fns.items()}
    samples: dict[str, list[float]] = {k: [] for k in fns}
    spent = dict.fromkeys(fns, 0.0)
    for r in range(repeats):
        for k, f in fns.items():
            if r >= 3 and spent[k] > budget:
                continue
            t0 = time.perf_counter()
            for _ in range(numbers[k]):
                f()
            dt = time.perf_counter() - t0
            spent[k] += dt
            samples[k].append(dt / numbers[k])
    return samples


def paired_ratio(a: list[float], b: list[float]) -> float:
    """The median of a[r] / b[r] over the rounds r that both ran."""
    n = min(len(a), len(b))
    return float(np.median(np.divide(a[:n], b[:n])))


def median_time(fn: Callable[[], Any], repeats: int, target: float = 0.02) -> float:
    return interleaved_medians({"f": fn}, repeats, target)["f"]


# --------------------------------------------------------------------------- 1. per-example


def per_example_section(batches: tuple[int, ...], repeats: int) -> dict[int, dict[str, float]]:
    results: dict[int, dict[str, float]] = {}
    vg, loop = wl.minigrad_vmap_grad(), wl.minigrad_loop_grad()
    jvg = mg.jit(wl.minigrad_vmap_grad())
    jvg_in_place = mg.jit(wl.minigrad_vmap_grad(wl.minigrad_f_inplace))
    tg = wl.torch_vmap_grad() if torch is not None else None
    jg = wl.jax_vmap_grad(jit=False) if jax is not None else None
    jj = wl.jax_vmap_grad(jit=True) if jax is not None else None
    for b in batches:
        args = wl.args_of(wl.make_inputs(b))
        expected = wl.floor_grads(*args)
        fns: dict[str, Callable[[], Any]] = {
            "floor (NumPy by hand)": lambda a=args: wl.floor_grads(*a),
            "minigrad vmap(grad)": lambda a=args: vg(*a),
            "minigrad jit(vmap(grad))": lambda a=args: jvg(*a),
            "minigrad jit(vmap(grad)), in-place code": lambda a=args: jvg_in_place(*a),
            "minigrad loop of grad": lambda a=args: loop(*a),
        }
        if tg is not None:
            targs = wl.to_torch(args)
            fns["torch.func vmap(grad)"] = lambda a=targs: tg(*a)
        if jg is not None and jj is not None:
            jargs = tuple(jax.numpy.asarray(a) for a in args)
            fns["jax vmap(grad)"] = lambda a=jargs: jg(*a).block_until_ready()
            fns["jax jit(vmap(grad))"] = lambda a=jargs: jj(*a).block_until_ready()
        for name, fn in fns.items():  # every system computes the same gradients
            got = np.asarray(fn())
            if not np.allclose(got, expected, rtol=1e-9, atol=1e-9):
                raise AssertionError(f"{name} disagrees with the floor at B={b}")
        samples = interleaved_samples(fns, repeats, budget=8.0 if b >= 256 else 4.0)
        results[b] = {k: float(np.median(v)) for k, v in samples.items()}
        # Ratios pair by pair: the median over rounds of the ratio within a round, where the
        # two ran back to back, so that a change in the machine's speed between rounds cancels.
        floor = "floor (NumPy by hand)"
        for k in fns:
            if k != floor:
                results[b][f"{k} / floor"] = paired_ratio(samples[k], samples[floor])
        if "torch.func vmap(grad)" in fns:
            results[b]["minigrad vmap(grad) / torch.func"] = paired_ratio(
                samples["minigrad vmap(grad)"], samples["torch.func vmap(grad)"])
        results[b]["jit, in-place code / jit, out-of-place code"] = paired_ratio(
            samples["minigrad jit(vmap(grad)), in-place code"],
            samples["minigrad jit(vmap(grad))"])
        if "jax jit(vmap(grad))" in fns:
            results[b]["minigrad jit(vmap(grad)) / jax jit(vmap(grad))"] = paired_ratio(
                samples["minigrad jit(vmap(grad))"], samples["jax jit(vmap(grad))"])
        line = "  ".join(f"{k} {v * 1e3:.3f} ms" for k, v in results[b].items() if k in fns)
        print(f"  B={b}: {line}", flush=True)
    return results


# --------------------------------------------------------------------------- 2. eager overhead


def eager_section(repeats: int) -> tuple[dict[str, dict[str, float]], dict[str, float]]:
    rng = np.random.default_rng(0)
    x, index, cols, source, mask, msource = wl.small_inputs(rng)  # (rng draws on, below)

    def np_index_add() -> np.ndarray:
        out = x.copy()
        np.add.at(out, index, source)
        return out

    def np_index_copy() -> np.ndarray:
        out = x.copy()
        out[index] = source
        return out

    def np_index_fill() -> np.ndarray:
        out = x.copy()
        out[:, cols] = 0.5
        return out

    def np_masked_fill() -> np.ndarray:
        return np.where(mask, 0.5, x)

    def np_masked_scatter() -> np.ndarray:
        out = x.copy()
        out[mask] = msource[:np.count_nonzero(mask)]
        return out

    from minigrad.ops.index_add import index_add_p
    from minigrad.ops.index_copy import index_copy_p
    from minigrad.ops.index_fill import index_fill_p
    from minigrad.ops.indexing import canonical_index
    from minigrad.ops.masked_fill import masked_fill_p
    from minigrad.ops.masked_scatter import masked_scatter_p

    half = np.asarray(0.5)
    index = canonical_index("index_add", index, 8, 0)
    # Per op: the user function; its primitive's bind and impl on the arguments the user
    # function passes them (so the differences split the overhead); plain NumPy.
    cases: dict[str, dict[str, Callable[[], Any]]] = {
        "index_add": {"minigrad": lambda: mg.index_add(x, 0, index, source),
                      "bind": lambda: index_add_p.bind(x, index, source, dim=0, alpha=1.0),
                      "impl": lambda: index_add_p.impl(x, index, source, dim=0, alpha=1.0),
                      "numpy": np_index_add},
        "index_copy": {"minigrad": lambda: mg.index_copy(x, 0, index, source),
                       "bind": lambda: index_copy_p.bind(x, index, source, dim=0),
                       "impl": lambda: index_copy_p.impl(x, index, source, dim=0),
                       "numpy": np_index_copy},
        "index_fill": {"minigrad": lambda: mg.index_fill(x, 1, cols, 0.5),
                       "bind": lambda: index_fill_p.bind(x, cols, half, dim=1),
                       "impl": lambda: index_fill_p.impl(x, cols, half, dim=1),
                       "numpy": np_index_fill},
        "masked_fill": {"minigrad": lambda: mg.masked_fill(x, mask, 0.5),
                        "bind": lambda: masked_fill_p.bind(x, mask, half),
                        "impl": lambda: masked_fill_p.impl(x, mask, half),
                        "numpy": np_masked_fill},
        "masked_scatter": {"minigrad": lambda: mg.masked_scatter(x, mask, msource),
                           "bind": lambda: masked_scatter_p.bind(x, mask, msource, batch_dims=0),
                           "impl": lambda: masked_scatter_p.impl(x, mask, msource, batch_dims=0),
                           "numpy": np_masked_scatter},
    }
    if torch is not None:
        tx, ti, tc, ts = (torch.from_numpy(a) for a in (x, index, cols, source))
        tm, tms = torch.from_numpy(mask), torch.from_numpy(msource)
        cases["index_add"]["torch"] = lambda: tx.index_add(0, ti, ts)
        cases["index_copy"]["torch"] = lambda: tx.index_copy(0, ti, ts)
        cases["index_fill"]["torch"] = lambda: tx.index_fill(1, tc, 0.5)
        cases["masked_fill"]["torch"] = lambda: tx.masked_fill(tm, 0.5)
        cases["masked_scatter"]["torch"] = lambda: tx.masked_scatter(tm, tms)
    rows = {}
    for name, fns in cases.items():
        expected = fns["numpy"]()
        for k in ("minigrad", "bind", "impl"):
            if not np.array_equal(fns[k](), expected):
                raise AssertionError(f"eager {name} ({k}) disagrees with plain NumPy")
        samples = interleaved_samples(fns, 2 * repeats + 1, target=0.005)
        rows[name] = {k: float(np.median(v)) for k, v in samples.items()}
        # The overheads are microseconds, below the swings of this shared machine's speed (whole
        # sections run up to 1.6x slower under others' load). Two estimates: the median of the
        # differences within a round, where both ran back to back; and the difference of the
        # fastest rounds, the cost of the code itself (timeit's advice for code this short).
        for k in ("minigrad", "bind", "impl", "torch"):
            if k in samples:
                rows[name][f"{k} min"] = min(samples[k])
        rows[name]["numpy min"] = min(samples["numpy"])
        for k in ("minigrad", "bind", "impl"):
            rows[name][f"{k} - numpy"] = float(np.median(np.subtract(samples[k],
                                                                     samples["numpy"])))
            rows[name][f"{k} - numpy, min"] = min(samples[k]) - min(samples["numpy"])
        print(f"  {name}: " + ", ".join(f"{k} {v * 1e6:.2f} us" for k, v in rows[name].items()
                                         if k in fns), flush=True)
    # Issue 4: index_add on x (4096, 64) with 1024 entries against the fastest plain NumPy.
    big_x = rng.standard_normal((4096, 64))
    big_i = rng.integers(0, 4096, 1024)
    big_s = rng.standard_normal((1024, 64))
    plain_fns = plain_scatter_adds(big_x, big_i, big_s)
    fns = {"minigrad": lambda: mg.index_add(big_x, 0, big_i, big_s), **plain_fns}
    expected = plain_fns["copy + np.add.at"]()
    for k, f in fns.items():
        np.testing.assert_allclose(f(), expected, rtol=1e-12, atol=1e-12, err_msg=k)
    big = interleaved_medians(fns, repeats, target=0.02)
    return rows, big


def plain_scatter_adds(x: np.ndarray, index: np.ndarray, source: np.ndarray
                       ) -> dict[str, Callable[[], np.ndarray]]:
    """Plain-NumPy copy + scatter-add formulations (benchmarks/index_add_impls.py has more)."""
    n, d = x.shape

    def add_at() -> np.ndarray:
        out = x.copy()
        np.add.at(out, index, source)
        return out

    def bincount() -> np.ndarray:
        flat = (index[:, None] * d + np.arange(d)).ravel()
        return x + np.bincount(flat, weights=source.ravel(), minlength=n * d).reshape(n, d)

    def bincount_inplace() -> np.ndarray:
        flat = (index[:, None] * d + np.arange(d)).ravel()
        out = np.bincount(flat, weights=source.ravel(), minlength=n * d).reshape(n, d)
        out += x
        return out

    def sort_reduceat() -> np.ndarray:
        order = np.argsort(index, kind="stable")
        si = index[order]
        starts = np.flatnonzero(np.r_[True, si[1:] != si[:-1]])
        out = x.copy()
        out[si[starts]] += np.add.reduceat(source[order], starts, axis=0)
        return out

    return {"copy + np.add.at": add_at, "x + np.bincount": bincount,
            "np.bincount, += x": bincount_inplace, "sort + np.add.reduceat": sort_reduceat}


# --------------------------------------------------------------------------- 3. trace cost


def chain(n: int) -> Callable[[Any], Any]:
    """A function of exactly ``n`` primitives: sin, cos and tanh in turn (each one primitive on
    a float array), then nothing else; ``grad`` sums it with one more."""
    fns = (mnp.sin, mnp.cos, mnp.tanh)

    def f(x: Any) -> Any:
        for i in range(n):
            x = fns[i % 3](x)
        return x

    return f


def trace_section(ns: tuple[int, ...], repeats: int) -> dict[str, dict[int, float]]:
    """Each transform of a chain of N primitives, every N timed in the same interleaved rounds
    (so a burst of load on the machine lands on all N alike, not on the one being timed)."""
    x = np.linspace(0.1, 0.9, 4)
    xs = np.tile(x, (3, 1))
    cases: dict[str, dict[int, Callable[[], Any]]] = {}
    for n in ns:
        f = chain(n)
        assert len(mg.make_jaxpr(f)(x).eqns) == n
        total = lambda y, f=f: mnp.sum(f(y))  # noqa: E731
        for name, fn in {
            "make_jaxpr": lambda f=f: mg.make_jaxpr(f)(x),
            "jvp": lambda f=f: mg.jvp(f, (x,), (x,)),
            "vmap": lambda f=f: mg.vmap(f)(xs),
            "grad": lambda t=total: mg.grad(t)(x),
            "vmap(grad)": lambda t=total: mg.vmap(mg.grad(t))(xs),
        }.items():
            cases.setdefault(name, {})[n] = fn
    out: dict[str, dict[int, float]] = {}
    for name, by_n in cases.items():
        medians = interleaved_medians({str(n): fn for n, fn in by_n.items()},
                                      max(7, repeats), target=0.05, budget=10.0)
        out[name] = {n: medians[str(n)] for n in by_n}
        print(f"  {name}: " + "  ".join(f"N={n} {t * 1e3:.2f} ms" for n, t in out[name].items()),
              flush=True)
    return out


def trace_in_subprocess(ns: tuple[int, ...], repeats: int) -> dict[str, dict[int, float]]:
    """trace_section in a fresh process that never imports torch or jax: their hundreds of
    thousands of objects would make each full garbage collection (which the staged jaxprs'
    objects trigger) rescan them, a cost of this process's other tenants, not of minigrad."""
    cmd = [sys.executable, __file__, "--trace-only", *map(str, ns), "--repeats", str(repeats)]
    done = subprocess.run(cmd, check=True, capture_output=True, text=True)
    sys.stdout.write("".join(line + "\n" for line in done.stdout.splitlines()[:-1]))
    result = json.loads(done.stdout.splitlines()[-1])
    return {k: {int(n): t for n, t in v.items()} for k, v in result.items()}


# --------------------------------------------------------------------------- fixed cost


def fixed_cost_section(repeats: int) -> dict[str, Any]:
    """What ``vmap(grad(f))`` costs at B=1, where NumPy's work is negligible: the primitives
    each level of the interpreter processes (counted: a trace's ``process_primitive`` runs a
    rule, stages an equation or hands the primitive down; at the bottom an ``impl`` runs), the
    transforms' own plumbing (a trivial function of the same nine arguments) and the cost of
    one primitive through the same transforms (a chain of sin/cos/tanh, from section 3)."""
    from minigrad import core
    from minigrad.jaxpr import JaxprTrace
    from minigrad.transforms.jvp import JVPTrace
    from minigrad.transforms.vmap import BatchTrace

    args = wl.args_of(wl.make_inputs(1))
    vg = wl.minigrad_vmap_grad()
    counts: dict[str, int] = {}
    names = {JVPTrace: "JVPTrace", JaxprTrace: "JaxprTrace (linearize)", BatchTrace: "BatchTrace"}
    originals: dict[Any, Any] = {cls: cls.process_primitive for cls in names}
    original_bind = core.Primitive.bind

    def counted(cls: Any) -> Any:
        def process_primitive(self: Any, prim: Any, a: Any, params: Any) -> Any:
            counts[names[cls]] = counts.get(names[cls], 0) + 1
            return originals[cls](self, prim, a, params)
        return process_primitive

    def counting_bind(self: Any, *a: Any, **params: Any) -> Any:
        if core.current_trace() is core.eval_trace:
            counts["impl (EvalTrace)"] = counts.get("impl (EvalTrace)", 0) + 1
        return original_bind(self, *a, **params)

    for cls in names:
        cls.process_primitive = counted(cls)
    core.Primitive.bind = counting_bind  # type: ignore[method-assign]
    try:
        vg(*args)
    finally:
        core.Primitive.bind = original_bind  # type: ignore[method-assign]
        for cls, method in originals.items():
            cls.process_primitive = method
    trivial = mg.vmap(mg.grad(lambda p, *rest: mnp.sum(p)),
                      in_axes=(None, 0, 0, 0, 0, 0, 0, 0, 0))
    f = chain(400)
    xs = np.tile(np.linspace(0.1, 0.9, 4), (3, 1))
    chain_vg = mg.vmap(mg.grad(lambda y: mnp.sum(f(y))))
    med = interleaved_medians({"workload": lambda: vg(*args), "plumbing": lambda: trivial(*args),
                               "chain": lambda: chain_vg(xs)}, repeats, target=0.05)
    out = {"counts": counts, "workload": med["workload"], "plumbing": med["plumbing"],
           "per_primitive": med["chain"] / 400}
    print(f"  processed {counts}; workload {med['workload'] * 1e3:.3f} ms, plumbing "
          f"{med['plumbing'] * 1e3:.3f} ms, one primitive under vmap(grad) "
          f"{out['per_primitive'] * 1e6:.1f} us", flush=True)
    return out


# --------------------------------------------------------------------------- 4. memory




def memory_section(batches: tuple[int, ...]) -> dict[int, tuple[int, int, int]]:
    vg, jvg = wl.minigrad_vmap_grad(), mg.jit(wl.minigrad_vmap_grad())
    out = {}
    for b in batches:
        args = wl.args_of(wl.make_inputs(b))
        out[b] = (peak_bytes(lambda a=args: vg(*a)), peak_bytes(lambda a=args: jvg(*a)),
                  peak_bytes(lambda a=args: wl.floor_grads(*a)))
        print(f"  B={b}: minigrad {out[b][0] / 2**20:.2f} MiB, jit {out[b][1] / 2**20:.2f} MiB, "
              f"floor {out[b][2] / 2**20:.2f} MiB", flush=True)
    return out


# --------------------------------------------------------------------------- 8. in place


def in_place_section(repeats: int) -> dict[str, dict[str, float]]:
    """The eager in-place variants on the small input of section 2, against the plain NumPy
    in-place code (and PyTorch's in-place methods): each updates a scratch buffer."""
    buf, index, cols, source, mask, msource = wl.small_inputs()
    count = int(np.count_nonzero(mask))
    cases: dict[str, dict[str, Callable[[], Any]]] = {
        "index_add_": {"minigrad": lambda: mg.index_add_(buf, 0, index, source),
                       "numpy": lambda: np.add.at(buf, index, source)},
        "index_copy_": {"minigrad": lambda: mg.index_copy_(buf, 0, index, source),
                        "numpy": lambda: buf.__setitem__(index, source)},
        "index_fill_": {"minigrad": lambda: mg.index_fill_(buf, 1, cols, 0.5),
                        "numpy": lambda: buf.__setitem__((slice(None), cols), 0.5)},
        "masked_fill_": {"minigrad": lambda: mg.masked_fill_(buf, mask, 0.5),
                         "numpy": lambda: buf.__setitem__(mask, 0.5)},
        "masked_scatter_": {"minigrad": lambda: mg.masked_scatter_(buf, mask, msource),
                            "numpy": lambda: buf.__setitem__(mask, msource[:count])},
    }
    if torch is not None:
        tb, ti, tc, ts = (torch.from_numpy(a) for a in (buf.copy(), index, cols, source))
        tm, tms = torch.from_numpy(mask), torch.from_numpy(msource)
        cases["index_add_"]["torch"] = lambda: tb.index_add_(0, ti, ts)
        cases["index_copy_"]["torch"] = lambda: tb.index_copy_(0, ti, ts)
        cases["index_fill_"]["torch"] = lambda: tb.index_fill_(1, tc, 0.5)
        cases["masked_fill_"]["torch"] = lambda: tb.masked_fill_(tm, 0.5)
        cases["masked_scatter_"]["torch"] = lambda: tb.masked_scatter_(tm, tms)
    rows = {}
    for name, fns in cases.items():
        samples = interleaved_samples(fns, 2 * repeats + 1, target=0.005)
        rows[name] = {f"{k} min": min(v) for k, v in samples.items()}
        rows[name]["minigrad - numpy, min"] = min(samples["minigrad"]) - min(samples["numpy"])
        print(f"  {name}: " + ", ".join(f"{k} {v * 1e6:.2f} us" for k, v in rows[name].items()),
              flush=True)
    return rows


# --------------------------------------------------------------------------- 7. jit


def jit_section(repeats: int) -> dict[str, Any]:
    """What jit costs beside what it saves: the first call (trace, passes, code generation;
    then the first run) on the workload, the cost of a call that hits the cache, on a
    one-primitive function, over its impl, and what the passes did to the workload's
    program."""
    first: dict[int, dict[str, float]] = {}
    for b in (1, 16, 256):
        args = wl.args_of(wl.make_inputs(b))
        lowers, firsts = [], []
        for _ in range(max(5, repeats // 2)):
            fn = mg.jit(wl.minigrad_vmap_grad())
            start = time.perf_counter()
            fn.lower(*args)
            lowers.append(time.perf_counter() - start)
            fn = mg.jit(wl.minigrad_vmap_grad())
            start = time.perf_counter()
            fn(*args)
            firsts.append(time.perf_counter() - start)
        first[b] = {"lower": float(np.median(lowers)), "first call": float(np.median(firsts))}
        print(f"  B={b}: trace + passes + codegen {first[b]['lower'] * 1e3:.2f} ms, whole first "
              f"call {first[b]['first call'] * 1e3:.2f} ms", flush=True)
    x = np.random.default_rng(0).standard_normal((8, 4))
    one = mg.jit(lambda v: mnp.sin(v))
    one(x)
    samples = interleaved_samples({"jit": lambda: one(x), "impl": lambda: np.sin(x)}, 31,
                                  target=0.02)
    hit = {"min": min(samples["jit"]) - min(samples["impl"]),
           "median": float(np.median(np.subtract(samples["jit"], samples["impl"])))}
    print(f"  cache hit over the impl: {hit['min'] * 1e6:.2f} us (min), "
          f"{hit['median'] * 1e6:.2f} us (median)", flush=True)
    lowered = mg.jit(wl.minigrad_vmap_grad()).lower(*wl.args_of(wl.make_inputs(16)))
    passes = {"traced": len(lowered.traced.eqns), "run": len(lowered.jaxpr.eqns),
              **lowered.stats}
    print(f"  workload program: {passes}", flush=True)
    return {"first": first, "hit": hit, "passes": passes}


# --------------------------------------------------------------------------- 6. baseline


def revision_tree(rev: str, dest: Path) -> bool:
    """Write revision ``rev``'s minigrad package into ``dest``; False if this clone lacks it."""
    done = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", rev, "minigrad"],
                          capture_output=True)
    if done.returncode != 0:
        return False
    with tarfile.open(fileobj=io.BytesIO(done.stdout)) as tar:
        tar.extractall(dest, filter="data")
    return True


def bind_cost(tree: Path, *extra: str, env: dict[str, str] | None = None,
              prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    cmd = [*prefix, sys.executable, str(ROOT / "benchmarks" / "bind_cost.py"), str(tree), *extra]
    return subprocess.run(cmd, check=True, capture_output=True, text=True, env=env)


def instructions(tree: Path, what: str, n: int) -> int:
    """Instructions callgrind counts in a whole process that makes ``n`` calls of ``what``; the
    same every run, given the hash seed, one BLAS thread and no address randomization."""
    env = {**os.environ, "PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1"}
    setarch = ("setarch", platform.machine(), "-R") if shutil.which("setarch") else ()
    done = bind_cost(tree, "--loop", what, str(n), env=env, prefix=(
        *setarch, "valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"))
    return int(done.stderr.split("Collected : ")[1].split()[0])


def baseline_section(rev: str, rounds: int) -> dict[str, Any] | None:
    """This checkout ("after") against revision ``rev`` ("before"): timings from ``rounds``
    pairs of processes, the two run back to back in alternating order; instruction counts per
    call, the difference of two process counts, when valgrind is installed."""
    with tempfile.TemporaryDirectory() as tmp:
        if not revision_tree(rev, Path(tmp)):
            print(f"  revision {rev} is not in this clone: no comparison")
            return None
        trees = {"before": Path(tmp), "after": ROOT}
        runs: dict[str, list[dict[str, float]]] = {k: [] for k in trees}
        for r in range(rounds):
            for k in (("before", "after") if r % 2 == 0 else ("after", "before")):
                runs[k].append(json.loads(bind_cost(trees[k]).stdout))
        counts: dict[str, dict[str, float]] | None = None
        if shutil.which("valgrind"):
            counts = {}
            for k, tree in trees.items():
                per = {"bind": (instructions(tree, "bind", 20000)
                                - instructions(tree, "bind", 0)) / 20000,
                       "numpy": (instructions(tree, "numpy", 20000)
                                 - instructions(tree, "numpy", 0)) / 20000,
                       "vmap_grad": (instructions(tree, "vmap_grad", 12)
                                     - instructions(tree, "vmap_grad", 2)) / 10}
                counts[k] = per
                print(f"  instructions per call, {k}: " + ", ".join(
                    f"{w} {v:.0f}" for w, v in per.items()), flush=True)
        else:
            print("  valgrind is not installed: no instruction counts")
    out = {"rev": rev, "runs": runs, "counts": counts}
    for k, v in baseline_rows(out).items():
        print(f"  {k}: {v}", flush=True)
    return out


def _med(values: Any) -> float:
    return float(np.median(list(values)))


def _bind_overhead(run: dict[str, float]) -> float:
    return run["bind neg (0-d)"] - run["numpy negative (0-d)"]


def bind_overhead_change(base: dict[str, Any]) -> float:
    """Seconds one eager bind costs more than at the baseline: the median over the pairs of
    processes of the change in its cost above NumPy's own call."""
    pairs = zip(base["runs"]["after"], base["runs"]["before"], strict=True)
    return _med(_bind_overhead(a) - _bind_overhead(b) for a, b in pairs)


def baseline_rows(base: dict[str, Any]) -> dict[str, list[str]]:
    """Section 6's table rows: before, after, and the change, each a median over the rounds
    (the change pair by pair: within a round the two processes ran back to back)."""
    before, after = base["runs"]["before"], base["runs"]["after"]
    pairs = list(zip(after, before, strict=True))
    rows = {"eager bind of neg on a 0-d array, above NumPy's own call (us)": [
        f"{_med(map(_bind_overhead, before)) * 1e6:.3f}",
        f"{_med(map(_bind_overhead, after)) * 1e6:.3f}",
        f"{bind_overhead_change(base) * 1e6:+.3f} us"]}
    for op in ("index_add", "index_copy", "index_fill", "masked_fill", "masked_scatter"):
        rows[f"eager {op} user function, 8x4 (us)"] = [
            f"{_med(r[op] for r in before) * 1e6:.2f}", f"{_med(r[op] for r in after) * 1e6:.2f}",
            f"{_med(a[op] - b[op] for a, b in pairs) * 1e6:+.2f} us"]
    key = "vmap(grad) B=1"
    rows["vmap(grad) at B=1, the workload (ms)"] = [
        fmt_ms(_med(r[key] for r in before)), fmt_ms(_med(r[key] for r in after)),
        f"{_med(a[key] / b[key] for a, b in pairs):.3f}x"]
    counts = base["counts"]
    if counts is not None:
        b, a = counts["before"], counts["after"]
        for what, label in (("bind", "instructions per eager bind of neg"),
                            ("vmap_grad", "instructions per vmap(grad) call at B=1")):
            rows[label] = [f"{b[what]:,.0f}", f"{a[what]:,.0f}",
                           f"{a[what] - b[what]:+,.0f} ({a[what] / b[what] - 1:+.1%})"]
    return rows


# --------------------------------------------------------------------------- report


def machine() -> list[tuple[str, str]]:
    cpu = platform.processor() or "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    rows = [("machine", f"{platform.system()} {platform.release()} {platform.machine()}, "
                        f"{os.cpu_count()} logical CPUs ({cpu})"),
            ("python", platform.python_version()), ("numpy", np.__version__),
            ("minigrad", mg.__version__),
            ("torch", torch.__version__ if torch is not None else "not installed"),
            ("jax", jax.__version__ if jax is not None else "not installed")]
    tp = optional("threadpoolctl")
    if tp is not None:
        blas = [f"{i.get('internal_api')} {i.get('version')} ({i.get('architecture')}, "
                f"{i.get('num_threads')} threads)" for i in tp.threadpool_info()
                if i.get("user_api") == "blas"]
        rows.append(("numpy BLAS", "; ".join(blas) or "?"))
    rows.append(("OPENBLAS_CORETYPE", os.environ.get("OPENBLAS_CORETYPE", "unset")))
    rows.append(("threads", "1 (OMP/OPENBLAS/MKL_NUM_THREADS=1, torch.set_num_threads(1), "
                            "XLA single-threaded)"))
    return rows


def fmt_ms(seconds: float) -> str:
    ms = seconds * 1e3
    return f"{ms:.3f}" if ms < 10 else f"{ms:.1f}" if ms < 1000 else f"{ms:.0f}"


def md_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def per_example_tables(res: dict[int, dict[str, float]]) -> tuple[str, str]:
    first = next(iter(res.values()))
    systems = [k for k in first if " / " not in k]
    times = [[s] + [fmt_ms(res[b][s]) for b in res] for s in systems]
    ratios = [[k] + [f"{res[b][k]:.2f}" for b in res] for k in first if " / " in k]
    header = ["median ms"] + [f"B={b}" for b in res]
    return md_table(header, times), md_table(["ratio (median of ratios within a round)",
                                              *header[1:]], ratios)


def plot(res: dict[int, dict[str, float]], path: Path) -> str:
    plt_mod = optional("matplotlib")
    if plt_mod is None:
        msg = "matplotlib is not installed: no plot (pip install -e \".[bench]\")"
        print(msg)
        return msg
    plt_mod.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    batches = list(res)
    for s in (k for k in next(iter(res.values())) if " / " not in k):  # times, not ratios
        ax.plot(batches, [res[b][s] * 1e3 / b for b in batches], marker="o", label=s)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("batch size B")
    ax.set_ylabel("median ms per example")
    ax.set_title("Per-example gradients (n=64, d=32, k=16), one thread")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return f"![per-example gradient time per example]({path.name})"


def targets_table(res: dict[int, dict[str, float]], eager: dict[str, dict[str, float]],
                  big: dict[str, float], trace: dict[str, dict[int, float]],
                  base: dict[str, Any] | None, jit: dict[str, Any] | None = None,
                  in_place: dict[str, dict[str, float]] | None = None) -> str:
    """Issues 7, 4 and 16's speed targets, each with the measurement that decides it."""
    def verdict(ok: bool) -> str:
        return "holds" if ok else "does not hold"

    mg_name, torch_name = "minigrad vmap(grad)", "torch.func vmap(grad)"
    rows = []
    if 256 in res:
        r = res[256][f"{mg_name} / floor"]
        rows.append(["vmap(grad) <= 1.3x the floor at B=256", f"{r:.2f}x", verdict(r <= 1.3)])
    if torch_name in next(iter(res.values())):
        for b in res:
            r = res[b][f"{mg_name} / torch.func"]
            rows.append([f"vmap(grad) <= torch.func at B={b}", f"{r:.2f}x", verdict(r <= 1.0)])
    for name, t in eager.items():
        d, med = t["minigrad - numpy, min"] * 1e6, t["minigrad - numpy"] * 1e6
        rows.append([f"eager {name} (8x4) <= 3 us above NumPy (minima; median)",
                     f"{d:+.2f} us ({med:+.2f})", verdict(d <= 3)])
    fastest = min(v for k, v in big.items() if k != "minigrad")
    r = big["minigrad"] / fastest
    rows.append(["eager index_add (4096x64, 1024 entries) <= 1.5x fastest NumPy", f"{r:.2f}x",
                 verdict(r <= 1.5)])
    for name, by_n in trace.items():
        keys = list(by_n)
        # the whole range at once: the ratio of time per primitive, largest N over smallest
        growth = (by_n[keys[-1]] / keys[-1]) / (by_n[keys[0]] / keys[0])
        rows.append([f"{name} cost linear in N (time per primitive, N={keys[-1]} over "
                     f"N={keys[0]})", f"{growth:.2f}", verdict(growth <= 1.5)])
    jit_name = "minigrad jit(vmap(grad))"
    if jit_name in next(iter(res.values())):
        jax_ratio = f"{jit_name} / jax jit(vmap(grad))"
        if 1 in res and jax_ratio in res[1]:
            r = res[1][jax_ratio]
            rows.append(["jit(vmap(grad)) faster than JAX's jit(vmap(grad)) at B=1", f"{r:.2f}x",
                         verdict(r < 1.0)])
        for b, limit in ((16, 1.1), (256, 0.9), (1024, 0.9)):
            if b in res:
                r = res[b][f"{jit_name} / floor"]
                rows.append([f"jit(vmap(grad)) <= {limit}x the floor at B={b}", f"{r:.2f}x",
                             verdict(r <= limit)])
        styled = "jit, in-place code / jit, out-of-place code"
        for b in res:
            if styled in res[b]:
                r = res[b][styled]
                rows.append([f"PyTorch-style (in-place) code under jit(vmap(grad)) <= 1.1x the "
                             f"out-of-place code under jit at B={b}", f"{r:.2f}x",
                             verdict(r <= 1.1)])
    for name, t in (in_place or {}).items():
        d = t["minigrad - numpy, min"] * 1e6
        rows.append([f"eager {name} (8x4) <= 3 us above plain NumPy in place (minima)",
                     f"{d:+.2f} us", verdict(d <= 3)])
    if jit is not None:
        worst = max(v["lower"] for v in jit["first"].values())
        rows.append(["jit's first call on the workload: trace, passes, codegen <= 10 ms (worst B)",
                     f"{worst * 1e3:.2f} ms", verdict(worst <= 0.010)])
        d = jit["hit"]["min"] * 1e6
        rows.append(["jit cache hit, one primitive, over its impl <= 10 us (min; median)",
                     f"{d:+.2f} us ({jit['hit']['median'] * 1e6:+.2f})", verdict(d <= 10)])
    if base is not None:
        d = bind_overhead_change(base) * 1e6
        rows.append([f"eager bind <= 0.2 us dearer than at {base['rev']}", f"{d:+.3f} us",
                     verdict(d <= 0.2)])
    return md_table(["target", "measured", ""], rows)


def fusion_text(res: dict[int, dict[str, float]]) -> str:
    """The page's sentence on how far JAX's fused jit is ahead at large B."""
    key = "minigrad jit(vmap(grad)) / jax jit(vmap(grad))"
    got = {b: r[key] for b, r in res.items() if key in r}
    if not got:
        return "jax was not installed for this run: no comparison with its jit."
    return ("Against JAX's `jit(vmap(grad))` in this run, minigrad's jitted call took "
            + ", ".join(f"{r:.2f}x its time at B={b}" for b, r in got.items()) + ".")


def b1_ratio(res: dict[int, dict[str, float]]) -> str:
    """The page's sentence on minigrad against torch.func at B=1."""
    r = res.get(1, {}).get("minigrad vmap(grad) / torch.func")
    if r is None:
        return "torch.func was not installed for this run, so it has no comparison at B=1."
    return (f"In this run minigrad took {r:.2f}x torch.func's time at B=1 (the targets "
            f"table).")


def main() -> None:
    if sys.argv[1:2] == ["random"]:  # minigrad.random's section: benchmarks/random_draws.py
        return __import__("random_draws").main(sys.argv[2:])
    if sys.argv[1:2] == ["numpy_surface"]:  # issue #26's: benchmarks/numpy_surface.py
        return numpy_surface.main(sys.argv[2:])
    if sys.argv[1:2] == ["examples"]:  # examples/' section: benchmarks/example_programs.py
        return __import__("example_programs").main(sys.argv[2:])
    if sys.argv[1:2] == ["conv"]:  # convolutions and pooling: benchmarks/convolution.py
        return __import__("convolution").main(sys.argv[2:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats, B up to 256")
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--trace-only", type=int, nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--baseline", default=BASELINE,
                        help=f"the revision section 6 compares with (default {BASELINE})")
    opts = parser.parse_args()
    repeats = opts.repeats or (5 if opts.quick else 15)
    batches = BATCHES[:3] if opts.quick else BATCHES
    ns = CHAIN_NS[:4] if opts.quick else CHAIN_NS

    if opts.trace_only:  # the child process of trace_in_subprocess
        print(json.dumps({k: {str(n): t for n, t in v.items()}
                          for k, v in trace_section(tuple(opts.trace_only), repeats).items()}))
        return
    load_frameworks()
    info = machine()
    for k, v in info:
        print(f"{k}: {v}")
    print("\n1. per-example gradients", flush=True)
    res = per_example_section(batches, repeats)
    print("\n2. eager overhead", flush=True)
    eager, big = eager_section(repeats)
    print("\n3. trace and transform cost (in a process without torch and jax)", flush=True)
    trace = trace_in_subprocess(ns, repeats)
    print("\n4. peak memory", flush=True)
    mem = memory_section(tuple(b for b in batches if b >= 16))
    print("\n5. fixed cost at B=1", flush=True)
    fixed = fixed_cost_section(repeats)
    print("\n7. jit", flush=True)
    jit = jit_section(repeats)
    print("\n8. eager in-place variants", flush=True)
    in_place = in_place_section(repeats)
    in_place_peaks = inplace_memory.inplace_peaks()
    for name, row in in_place_peaks.items():
        print(f"  {name} peak / x's size: " + ", ".join(f"{k} {v:.3f}" for k, v in row.items()),
              flush=True)
    print("\n9. control flow (benchmarks/control_flow.py)", flush=True)
    control_flow_md = control_flow.section(repeats, opts.quick)
    print("\n10. minigrad.numpy's surface (benchmarks/numpy_surface.py)", flush=True)
    surface_md = numpy_surface.section(repeats, opts.quick)
    print("\n11. the examples (benchmarks/example_programs.py)", flush=True)
    examples_md = __import__("example_programs").section(2 if opts.quick else 3)
    print("\n12. convolutions and pooling (benchmarks/convolution.py)", flush=True)
    conv_md = __import__("convolution").section(repeats, opts.quick)
    print(f"\n6. against revision {opts.baseline}", flush=True)
    base = baseline_section(opts.baseline, max(6, repeats // 2 * 2))

    times_md, ratios_md = per_example_tables(res)
    has_torch = all("torch" in v for v in eager.values())
    eager_rows = []
    for name, t in eager.items():
        row = [name, f"{t['minigrad'] * 1e6:.2f}", f"{t['numpy'] * 1e6:.2f}",
               f"{t['minigrad - numpy'] * 1e6:+.2f}",
               f"{t['minigrad min'] * 1e6:.2f}", f"{t['numpy min'] * 1e6:.2f}",
               f"{t['minigrad - numpy, min'] * 1e6:+.2f}",
               f"{(t['minigrad - numpy, min'] - t['bind - numpy, min']) * 1e6:.2f}",
               f"{(t['bind - numpy, min'] - t['impl - numpy, min']) * 1e6:.2f}",
               f"{t['impl - numpy, min'] * 1e6:.2f}"]
        if has_torch:
            row.append(f"{t['torch'] * 1e6:.2f} / {t['torch min'] * 1e6:.2f}")
        eager_rows.append(row)
    eager_md = md_table(["op (x 8x4)", "minigrad us (median)", "NumPy us (median)",
                         "minigrad - NumPy us (median)", "minigrad us (min)", "NumPy us (min)",
                         "minigrad - NumPy us (min)", "of which (min): user function "
                         "(validation)", "bind", "impl beyond NumPy"]
                        + (["PyTorch eager us (median / min)"] if has_torch else []), eager_rows)
    fastest = min((v, k) for k, v in big.items() if k != "minigrad")
    big_md = md_table(["index_add, x (4096, 64), 1024 entries", "median us", "/ fastest NumPy"],
                      [[k, f"{v * 1e6:.1f}", f"{v / fastest[0]:.2f}"] for k, v in big.items()])
    trace_rows = []
    for name, by_n in trace.items():
        keys = list(by_n)
        ratios = [by_n[b] / by_n[a] for a, b in itertools.pairwise(keys)]
        trace_rows.append([name] + [fmt_ms(by_n[n]) for n in keys]
                          + [" ".join(f"{r:.2f}" for r in ratios)])
    trace_md = md_table(["ms"] + [f"N={n}" for n in ns] + ["t(2N)/t(N)"], trace_rows)
    mem_md = md_table(["B", "minigrad vmap(grad) MiB", "minigrad jit(vmap(grad)) MiB",
                       "floor MiB", "vmap(grad) / floor", "jit / floor"],
                      [[str(b), f"{m / 2**20:.2f}", f"{j / 2**20:.2f}", f"{f / 2**20:.2f}",
                        f"{m / f:.2f}", f"{j / f:.2f}"] for b, (m, j, f) in mem.items()])
    jit_md = md_table(["B", "trace + passes + codegen (ms)", "whole first call (ms)"],
                      [[str(b), f"{v['lower'] * 1e3:.2f}", f"{v['first call'] * 1e3:.2f}"]
                       for b, v in jit["first"].items()])
    p = jit["passes"]
    passes_md = md_table(["the workload's program at B=16", "equations"], [
        ["traced (jit of vmap(grad(f)))", str(p["traced"])],
        *[[f"removed by {k}" if k != "inline" else "added by inlining", str(p[k])]
          for k in ("inline", "simplify", "broadcasts", "fold", "cse", "dce")],
        ["run", str(p["run"])],
        ["of which in place (copies avoided)", str(p["inplace"])],
    ])
    hit_md = (f"A call that hits the cache, of a one-primitive function (`sin` of an (8, 4) "
              f"array), costs {jit['hit']['min'] * 1e6:.2f} us more than the impl alone "
              f"(fastest of 31 interleaved rounds; median of the differences "
              f"{jit['hit']['median'] * 1e6:.2f} us).")

    print("\nper-example gradients\n" + times_md + "\n\n" + ratios_md)
    print("\neager overhead\n" + eager_md + "\n\n" + big_md)
    print("\ntrace and transform cost\n" + trace_md)
    counted = fixed["counts"]
    fixed_md = md_table(["fixed cost of minigrad vmap(grad(f)) at B=1", "value"], [
        ["primitives processed per call, by each trace, and impls run",
         ", ".join(f"{k} {v}" for k, v in counted.items())],
        ["whole call (median ms)", fmt_ms(fixed["workload"])],
        ["vmap(grad) plumbing alone: a trivial f of the same 9 arguments (ms)",
         fmt_ms(fixed["plumbing"])],
        ["one primitive through vmap(grad), on a (3, 4) batch (us)",
         f"{fixed['per_primitive'] * 1e6:.1f}"],
    ])
    targets_md = targets_table(res, eager, big, trace, base, jit, in_place)
    has_torch_ip = all("torch min" in v for v in in_place.values())
    in_place_md = md_table(
        ["in place, x (8, 4)", "minigrad us (min)", "plain NumPy us (min)", "minigrad - NumPy"]
        + (["PyTorch us (min)"] if has_torch_ip else []),
        [[k, f"{v['minigrad min'] * 1e6:.2f}", f"{v['numpy min'] * 1e6:.2f}",
          f"{v['minigrad - numpy, min'] * 1e6:+.2f}"]
         + ([f"{v['torch min'] * 1e6:.2f}"] if has_torch_ip else []) for k, v in in_place.items()])
    peak_columns = list(next(iter(in_place_peaks.values())))
    in_place_mem_md = md_table(
        ["peak allocated / x's size, x float64[2000000]", *peak_columns],
        [[k, *(f"{v[c]:.3f}" for c in peak_columns)] for k, v in in_place_peaks.items()])
    if base is None:
        base_md = f"Revision {opts.baseline} is not in this clone: no comparison."
    else:
        rounds = len(base["runs"]["after"])
        base_md = (f"Against revision `{base['rev']}`, in {rounds} pairs of processes.\n\n"
                   + md_table(["", f"before ({base['rev']})", "after", "change"],
                              [[k, *v] for k, v in baseline_rows(base).items()]))
        if base["counts"] is None:
            base_md += "\n\nvalgrind was not installed for this run: no instruction counts."
    print("\npeak memory\n" + mem_md)
    print("\nfixed cost\n" + fixed_md)
    print("\nagainst a baseline\n" + base_md)
    print("\ntargets\n" + targets_md)
    if opts.no_write:
        return
    docs = ROOT / "docs"
    docs.mkdir(exist_ok=True)
    image = plot(res, docs / "benchmarks.png")
    page = PAGE.format(
        machine=md_table(["", ""], [[k, v] for k, v in info]), times=times_md,
        ratios=ratios_md, plot=image, eager=eager_md, big=big_md, trace=trace_md, mem=mem_md,
        fixed=fixed_md, baseline=base_md, targets=targets_md, b1=b1_ratio(res),
        jit_first=jit_md, jit_passes=passes_md, jit_hit=hit_md, jit_fusion=fusion_text(res),
        in_place=in_place_md, in_place_mem=in_place_mem_md,
        date=time.strftime("%Y-%m-%d"), repeats=repeats)
    print("\n13. minigrad.random (benchmarks/random_draws.py)", flush=True)
    random_md = __import__("random_draws").section(5 if opts.quick else 15)
    page += control_flow_md + surface_md + examples_md + conv_md + random_md
    (docs / "benchmarks.md").write_text(page)
    print(f"\nwrote {docs / 'benchmarks.md'}")


PAGE = """# Benchmarks

Written by `python benchmarks/run.py` on {date} ({repeats} interleaved repeats per figure;
every time is a median). The machine is shared with other work: compare ratios rather than
absolute times. The systems run interleaved round by round, and a ratio is the median over the
rounds of the ratio within a round, so that a change in the machine's speed between rounds
cancels; the speed still swings within a run, and single ratios at B=1 moved by +-15% between
runs.
`pip install -e ".[bench]"` adds matplotlib for the plot; torch and jax rows appear when they
are installed.

{machine}

## Targets

{targets}

## Per-example gradients

The workload (benchmarks/workload.py): per-example gradients with respect to a shared `p`
(64, 32) of `f(p, x, idx, uidx, cols, mask, mask2, src, ssrc)`, which applies `x * p`, then
`index_add` (16 rows, repeats allowed, `alpha=0.5` of `2 * src`), `index_copy` (16 unique
rows), `index_fill` (4 columns), `masked_fill` (~30% true), `masked_scatter` (~10% true, 2048
source elements) and returns `sum(tanh(h) ** 2)`; every argument but `p` is batched.

The floor is the same gradients by a hand-written vectorized NumPy forward and backward pass
(`floor_grads`, derived by hand; tests/test_benchmark_floor.py checks it against minigrad to
1e-10), written as a NumPy programmer would: one scratch array updated in place with
`np.add.at`, fancy and boolean assignment. minigrad allocates a new array per primitive and
computes a few things the floor skips (the loss value, a multiplication by the seed cotangent
1); it wins back time in its impls, e.g. the transpose of `masked_fill` (a fill with 0) is a
bitwise AND where NumPy's boolean assignment and `np.where` branch on every element.

torch.func has no batching rule for `masked_scatter` and loops over the batch there (it warns).
JAX's `index_copy` is `.at[].set` (its indices are unique here) and its `masked_scatter` a cumsum
and a gather.

{times}

{ratios}

{plot}

## Eager overhead of the five ops

Small input: `x` (8, 4) float64, 3 index entries, 2 filled columns, a (8, 4) mask. Plain NumPy
is the shortest equivalent (copy + `np.add.at`, copy + fancy assignment, `np.where`, copy +
boolean assignment); minigrad also validates its arguments (dtypes, shapes, index range,
duplicates for `index_copy`) and binds a primitive. These are microseconds, and this shared
machine's speed swings by more (a whole section can run 1.6x slower under others' load), so the
table gives two estimates over 31 interleaved rounds: medians, with the difference taken within
each round where the two ran back to back; and minima, the fastest round of each, which is the
cost of the code itself (what Python's timeit advises for code this short). The targets table
judges by the minima and shows the median beside them.

{eager}

Issue 4's large case, against plain-NumPy copy + scatter-add formulations:

{big}

## Trace and transform cost

A chain of N primitives (`sin`, `cos`, `tanh` in turn) on a (4,) array; `vmap` on a batch of 3.
The last column is t(2N)/t(N) for consecutive N: 2.0 means linear (single steps are noisy on a
shared machine, though every N of a transform is timed in the same interleaved rounds; the
targets table compares the time per primitive at both ends of the range).

{trace}

## Peak memory

Peak bytes allocated during one call above what was allocated before it (tracemalloc; NumPy
reports its buffers to it).

{mem}

## jit

`mg.jit(vmap(grad(f)))` traces the workload once per shape, optimizes the program and runs it
as generated NumPy code ([jit](jit.md)); its rows are in the tables above, interleaved with
the others in the same rounds. What the first call costs:

{jit_first}

{jit_hit}

What the passes did to the workload's program:

{jit_passes}

{jit_fusion} At small B the difference is per-call overhead, where minigrad's generated code
makes one Python call per equation and JAX one call to compiled code. At large B every
equation is a pass over memory in NumPy, where XLA fuses chains of elementwise work (the
tanh, its derivative, the masks) into single loops: that, not the interpreter, is the gap
left, and pure NumPy cannot close it. In-place reuse saves allocations (the memory table: the
jitted program's peak is below the eager one's) but not passes.

## In-place variants

`index_add_` and the others, eagerly on the small input of the eager table, against the plain
NumPy in-place code (`np.add.at(x, index, source)`, `x[index] = source`, `x[:, cols] = v`,
`x[mask] = v`, `x[mask] = source[:count]`), fastest of the interleaved rounds. Each variant
runs its op's argument checks (`index_add_operands` and the others: the same function the
out-of-place op binds with) and then its impl's code writing into `x`, with no trace and no
bind between them. Every check runs before the first write, so an error leaves `x` untouched;
PyTorch's own `index_add_` leaves `x` half-written when an entry is out of range. What is
left over plain NumPy is the checks themselves (about 1 us: dtypes, shapes, the index's range
in one pass over its entries, x writable, no tracer among the operands) and a few Python
calls; arguments that are already canonical (NumPy arrays, a dim in range, a 1-D integer
index, a bool mask of x's shape) skip the conversions.

{in_place}

What an update in place allocates beside `x` (`benchmarks/inplace_memory.py`: tracemalloc's
peak during one call over x's size; eagerly, under `jit` of a function that updates its
argument, and `jit` of the out-of-place op with `x` donated). `masked_fill_` fills a block of
65536 elements at a time (2.0x x's size counting x itself before issue #29; now 1.04x);
`index_copy_` with more than 32 entries finds repeated ones in an array of x's length.

{in_place_mem}

Under `jit(vmap(grad))`, the workload written in PyTorch's style (one scratch buffer updated
in place by each op, `benchmarks/workload.py`'s `minigrad_f_inplace`) runs as the out-of-place
code does: the row "minigrad jit(vmap(grad)), in-place code" in the tables above, and its ratio.

## What made it fast

Measured with this script and profiled with cProfile and pyinstrument; each change is in the
file that owns the rule, with a comment saying why:

- impls that do one pass and allocate one array: `masked_scatter` and `masked_gather` fill by
  boolean indexing in row-major order (no cumsum and gather over the whole array);
  a large `masked_fill` with 0 (every transpose of one) ANDs the bit patterns with the mask
  instead of `np.where`, which branches per element (a fill with another value blends with two
  XORs more, which measured slower than `np.where` at every size, so it does not);
  `index_add`'s `np.bincount` path adds `x` into the array bincount made; `index_copy` finds
  repeated entries with a set (few entries) or `np.maximum.at` (many), not a sort;
- batching rules that do not copy: `index_fill` with a batched index along an axis other than
  the batch's fills a small (B, n) mask and broadcasts it, where folding the batch into the
  axis transposed (copied) the whole operand twice; a concrete batched index is folded with
  NumPy at once instead of through five primitives;
- less interpreter work per primitive: a trace whose tracers are not among the operands hands
  the primitive on without building symbolic zeros; tracers hold their abstract value as an
  attribute, made once (a `BatchTracer` from its value's shape and dtype); each trace makes
  its parent current through one context object made with the trace, not one per bind; the
  batching trace looks at each operand once; `ShapedArray` skips conversions, `get_aval`
  tests for an ndarray first and builds its abstract value directly, dtype tests use the
  dtype's kind (not `np.issubdtype`); the JVP of `index_copy` with a constant source is
  `index_fill` (no zeros source), of `index_fill` with a constant value fills a literal 0,
  and of `x ** 2` scales by `x + x` (no constant to build);
- fewer primitives: `index_fill` batched along an axis other than the batch's builds the mask
  of a concrete index in NumPy, at `x`'s layout, instead of binding a reshape and a broadcast;
- less work per call: `grad` and `jacrev` transpose the linear jaxpr without pruning it first
  (used once, at once, its dead equations cost nothing), and `vmap` and `grad` spell argument
  paths only when an error needs them;
- a cheap eager path: `Primitive.bind` runs the impl directly when no transform is active, and
  the five ops' validation has fast paths for the common argument types (an int `dim`, an
  integer ndarray index, a Python number, shapes that need no broadcasting); `index_add` and
  `index_copy` test all of that at once for plain arrays;
- fewer NumPy calls in Python form: `broadcast_in_dim` skips `np.broadcast_to` (about 3 us)
  when it only adds unit axes, `reshape` and `transpose` use the array methods, a concrete
  batched index is folded without `np.moveaxis`, `reduce_sum` calls `np.add.reduce` (what
  `np.sum` calls, without its dispatch), and `masked_fill`'s transpose tests its 0-d value with
  `item()` rather than `np.any` (about 4 us);
- cheaper pytrees: nodes are looked up by type first, leaves are not recursed into, and the
  readable paths that error messages need are spelled once per call (or only on the error).

## The fixed cost at small B

At B=1 NumPy's work is a few microseconds; what is left is the interpreter. Each primitive of
`f` passes through the JVP trace, the linearize (partial evaluation) trace and the batching
trace, and its rules bind further primitives; the transforms' entry points flatten pytrees and
check arguments. torch.func does the same dispatch in C++.

{b1} The call is
about a hundred primitives through three interpreters plus the plumbing of a trivial function
(below), each a handful of Python calls, and a profile shows no single part above a few
percent: the margin at B=1 is thin, and on this shared machine single ratios there move by
about 15% from run to run. (JAX's own eager `vmap(grad)`, the same design of interpreters, is
many times slower at B=1.) Going much further without staging would change what minigrad is
(rules written in a compiled language); with staging, `jit` (above) traces once per shape and
runs the optimized program as generated code, which skips the interpreters and Python side
effects while the checks of concrete values (index ranges, mask counts) still run on every
call.

{fixed}

## Against an earlier revision

Since `59d593e` (the revision before jit), every trace's `process_primitive` tests whether the
primitive has several results (`jit`'s call is the one that does), `EvalTrace` among them, and
the five ops' impls call an `*_into` function that can write in place. `python
benchmarks/run.py --baseline REV` compares this checkout with any revision:
`benchmarks/bind_cost.py` runs in a fresh process for each, the two back to back, in
alternating order, and reports the fastest of 21 interleaved rounds of each eager call (within
the process, so the difference from NumPy's own call is taken at one machine speed) and the
median `vmap(grad)` time at B=1; each figure is the median over the pairs. Processes on this
machine run up to twice as fast or slow as each other, so the timings move by more than the
change; the instruction counts (callgrind, the difference of two whole-process counts, with a
fixed hash seed and no address randomization) do not move at all from run to run, and give its
size.

{baseline}
"""


if __name__ == "__main__":
    main()

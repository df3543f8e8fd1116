"""The examples' time per step (issue #30): ``python benchmarks/run.py examples [--rounds N]``,
or section 11 of ``benchmarks/run.py``, which appends this section's markdown to
docs/benchmarks.md.

Each program in examples/ times its own step (the update step, or the vmap(grad) call) eagerly
and under ``jit``, the best of ``--repeats`` calls after a first call that compiles. This
section runs each example as a whole process, on minigrad and (when installed) on JAX, in
interleaved rounds (minigrad, then JAX, then the next round), and reports the minimum over the
rounds: the cost of the code on a shared machine. One thread everywhere. (Not named
examples.py: the repository's examples/ directory would shadow it.)
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# the step each example times, and its size (the examples' defaults)
PROGRAMS = {
    "mlp_classifier": "update step, batch 128, 784-128-10",
    "dp_sgd": "update step: vmap(grad) of 64 examples, clipping, noise",
    "char_rnn": "update step: scan over 179 characters, hidden 32",
    "newton_implicit": "vmap(grad) of the while_loop solver, 1000 points",
    "gaussian_process": "value_and_grad of the NLL, 64 points",
    "index_add_per_example": "vmap(grad) through index_add, 64 examples",
}


def run(name: str, framework: str, repeats: int) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1",
               OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "figures.json"
        subprocess.run([sys.executable, str(ROOT / "examples" / f"{name}.py"),
                        "--framework", framework, "--repeats", str(repeats), "--json", str(out)],
                       check=True, cwd=ROOT, env=env, capture_output=True)
        figures = json.loads(out.read_text())
    return {"eager": figures["eager_s"], "jit": figures["jit_s"]}


def section(rounds: int = 3, repeats: int = 5) -> str:
    """Run the measurements; the markdown of the section."""
    frameworks = ["minigrad"] + (["jax"] if importlib.util.find_spec("jax") else [])
    best: dict[str, dict[str, dict[str, float]]] = {}
    for r in range(rounds):
        for name in PROGRAMS:
            for fw in frameworks:
                t = run(name, fw, repeats)
                row = best.setdefault(name, {}).setdefault(fw, {"eager": 1e9, "jit": 1e9})
                for k in row:
                    row[k] = min(row[k], t[k])
            print(f"  round {r + 1}: {name} " + ", ".join(
                f"{fw} jit {best[name][fw]['jit'] * 1e3:.2f} ms" for fw in frameworks),
                flush=True)
    has_jax = "jax" in frameworks
    header = ["example", "the step", "minigrad jit ms", "minigrad eager ms"]
    header += ["JAX jit ms", "JAX eager ms", "minigrad jit / JAX jit"] if has_jax else []
    rows = []
    for name, what in PROGRAMS.items():
        m = best[name]["minigrad"]
        row = [f"[{name}](../examples/{name}.py)", what,
               f"{m['jit'] * 1e3:.2f}", f"{m['eager'] * 1e3:.2f}"]
        if has_jax:
            j = best[name]["jax"]
            row += [f"{j['jit'] * 1e3:.2f}", f"{j['eager'] * 1e3:.2f}",
                    f"{m['jit'] / j['jit']:.2f}"]
        rows.append(row)
    table = "\n".join("| " + " | ".join(r) + " |"
                      for r in [header, ["---"] * len(header), *rows])
    missing = "" if has_jax else "\n\nJAX was not installed for this run: no JAX columns.\n"
    return f"""
## The examples: time per step

Each program of [examples/](../examples) run whole, on minigrad and on JAX 0.10.2 (the same
file; only its imports differ), {rounds} interleaved rounds, each example timing its own step
as the best of {repeats} calls after the compiling one; the table gives the minimum over the
rounds. `python benchmarks/run.py examples` regenerates only these figures.

{table}
{missing}
Where minigrad's jit is slower, the program is many small primitives run one after another:
jit runs one NumPy call per primitive, in Python, where XLA fuses the whole step into one
compiled kernel. A loop primitive pays that per iteration (the character RNN's scan runs its
body 179 times forward and 179 backward), and so does `random.normal`'s erf_inv polynomial,
evaluated with XLA's roundings (DP-SGD's noise: see the random section below). Eager
minigrad is faster than eager JAX throughout: it binds each primitive straight to NumPy, where
JAX dispatches each one to XLA.
"""


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=5)
    opts = parser.parse_args(argv)
    print(section(opts.rounds, opts.repeats))


if __name__ == "__main__":
    main()

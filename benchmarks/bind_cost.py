"""The fixed costs one revision of minigrad pays, for comparing two revisions.

``python benchmarks/bind_cost.py DIR`` imports the minigrad package found in DIR (a checkout, or a
``git archive`` of a revision) and prints JSON: the fastest time of one eager ``bind`` of a
primitive on a 0-d array beside NumPy's own call, of each of the five ops' user functions on the
eager section's small input, and the median time of the workload's ``vmap(grad(f))`` at B=1.
``benchmarks/run.py --baseline REV`` runs it on REV and on this checkout in alternating processes
(section 6 of benchmarks/run.py: "Against an earlier revision" in docs/benchmarks.md).

``python benchmarks/bind_cost.py DIR --loop WHAT N [B]`` only runs N eager binds (``bind``), N
NumPy calls (``numpy``), N calls of one of the five ops on the eager input (``index_add`` ...)
or N workload calls at batch size B (``vmap_grad``, B=1 by default): what ``valgrind
--tool=callgrind`` counts the instructions of, two values of N apart, for a figure the
machine's load cannot move.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, Callable  # noqa: E402

import numpy as np  # noqa: E402


def samples(fns: dict[str, Callable[[], Any]], rounds: int, target: float) -> dict[str, list]:
    """Seconds per call, one sample per function per round, the functions interleaved."""
    numbers = {}
    for k, f in fns.items():
        f()
        t0 = time.perf_counter()
        f()
        numbers[k] = max(1, int(target / max(time.perf_counter() - t0, 1e-7)))
    out: dict[str, list] = {k: [] for k in fns}
    for _ in range(rounds):
        for k, f in fns.items():
            n = numbers[k]
            t0 = time.perf_counter()
            for _ in range(n):
                f()
            out[k].append((time.perf_counter() - t0) / n)
    return out


def main() -> None:
    root = Path(sys.argv[1]).resolve()
    sys.path[:0] = [str(root), str(Path(__file__).resolve().parent)]
    import workload as wl

    import minigrad as mg
    from minigrad.ops.elementwise import neg_p

    assert Path(mg.__file__).resolve().is_relative_to(root), mg.__file__
    loop = sys.argv[sys.argv.index("--loop") + 1:] if "--loop" in sys.argv else None
    batch = int(loop[2]) if loop and len(loop) > 2 else 1
    args = wl.args_of(wl.make_inputs(batch))
    vg = wl.minigrad_vmap_grad()
    scalar = np.asarray(0.5)
    x, index, cols, source, mask, msource = wl.small_inputs()
    eager = {
        "numpy negative (0-d)": lambda: np.negative(scalar),
        "bind neg (0-d)": lambda: neg_p.bind(scalar),
        "index_add": lambda: mg.index_add(x, 0, index, source),
        "index_copy": lambda: mg.index_copy(x, 0, index, source),
        "index_fill": lambda: mg.index_fill(x, 1, cols, 0.5),
        "masked_fill": lambda: mg.masked_fill(x, mask, 0.5),
        "masked_scatter": lambda: mg.masked_scatter(x, mask, msource),
    }
    if loop:
        what, n = loop[:2]
        fns = {"bind": eager["bind neg (0-d)"], "numpy": eager["numpy negative (0-d)"],
               "vmap_grad": lambda: vg(*args), **eager}
        fn = fns[what]
        fn()
        for _ in range(int(n)):
            fn()
        return
    result = {k: min(v) for k, v in samples(eager, 21, 0.005).items()}
    result["vmap(grad) B=1"] = float(np.median(samples({"vg": lambda: vg(*args)}, 15,
                                                        0.05)["vg"]))
    print(json.dumps(result))


if __name__ == "__main__":
    main()

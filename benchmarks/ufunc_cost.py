"""The eager cost of minigrad.numpy's elementwise functions over the NumPy call they wrap
(issue #26's target: +3 us or less on a 1-element and a 1000-element float64 array).

``python benchmarks/ufunc_cost.py DIR [ROUNDS]`` imports the minigrad package found in DIR (a
checkout, or a ``git archive`` of a revision) and prints JSON: for each case, the fastest time of
one call (microseconds) of NumPy's function and of minigrad's on the same operands, the calls
interleaved round by round so that the machine's load falls on both alike, and the difference.
Run it on two revisions in alternating processes to compare them.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import json  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, Callable  # noqa: E402

import numpy as np  # noqa: E402


def cases(mnp: Any, to_array: Callable[[np.ndarray], Any]) -> dict[str, tuple[Callable, Callable]]:
    """(NumPy's call, minigrad's call) per case: plain ndarrays, and minigrad Arrays."""
    rng = np.random.default_rng(0)
    out = {}
    for label, shape in (("1", (1,)), ("1000", (1000,)), ("8x4", (8, 4))):
        x, y = rng.standard_normal(shape), rng.standard_normal(shape)
        xa, ya = to_array(x), to_array(y)
        out[f"sin {label}"] = (lambda x=x: np.sin(x), lambda x=x: mnp.sin(x))
        out[f"add {label}"] = (lambda x=x, y=y: np.add(x, y), lambda x=x, y=y: mnp.add(x, y))
        out[f"multiply(x, 2.0) {label}"] = (lambda x=x: np.multiply(x, 2.0),
                                            lambda x=x: mnp.multiply(x, 2.0))
        out[f"add Array {label}"] = (lambda x=x, y=y: np.add(x, y),
                                     lambda x=xa, y=ya: mnp.add(x, y))
    x = rng.standard_normal((8, 4))
    out["add (8, 4) + (4,)"] = (lambda x=x: np.add(x, x[0]), lambda x=x: mnp.add(x, x[0]))
    out["maximum(x, 0.0) 8x4"] = (lambda x=x: np.maximum(x, 0.0),
                                  lambda x=x: mnp.maximum(x, 0.0))
    out["where 8x4"] = (lambda x=x: np.where(x > 0, x, 0.0), lambda x=x: mnp.where(x > 0, x, 0.0))
    x32 = x.astype(np.float32)
    out["exp float32 8x4"] = (lambda x=x32: np.exp(x), lambda x=x32: mnp.exp(x))
    return out


def fastest(fns: dict[str, Callable[[], Any]], rounds: int) -> dict[str, float]:
    """Microseconds per call, the minimum over rounds; the functions interleaved."""
    import time

    numbers = {}
    for k, f in fns.items():
        f()
        t0 = time.perf_counter()
        for _ in range(10):
            f()
        numbers[k] = max(10, int(2e-3 / max((time.perf_counter() - t0) / 10, 1e-8)))
    best = {k: float("inf") for k in fns}
    for _ in range(rounds):
        for k, f in fns.items():
            n = numbers[k]
            t0 = time.perf_counter()
            for _ in range(n):
                f()
            best[k] = min(best[k], (time.perf_counter() - t0) / n * 1e6)
    return best


def main() -> None:
    root = Path(sys.argv[1]).resolve()
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    sys.path.insert(0, str(root))
    import minigrad
    import minigrad.numpy as mnp
    from minigrad import core

    assert Path(minigrad.__file__).resolve().is_relative_to(root), minigrad.__file__
    table = cases(mnp, core.to_eager_array)
    fns = {}
    for k, (numpy_call, minigrad_call) in table.items():
        fns[("numpy", k)] = numpy_call
        fns[("minigrad", k)] = minigrad_call
    best = fastest(fns, rounds)  # type: ignore[arg-type]
    report = {k: {"numpy_us": round(best[("numpy", k)], 3),
                  "minigrad_us": round(best[("minigrad", k)], 3),
                  "over_us": round(best[("minigrad", k)] - best[("numpy", k)], 3)}
              for k in table}
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()

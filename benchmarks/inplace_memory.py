"""Peak memory of the five in-place variants on a large x, eagerly and under ``jit``.

``python benchmarks/inplace_memory.py [N]`` prints, for each variant, the peak memory a call
allocates (tracemalloc, which sees NumPy's buffers) as a multiple of x's size, x of N float64
elements (2,000,000 by default): eagerly, under ``jit`` of a function that updates its
argument (the program writes into the caller's buffer), and as ``jit`` of the out-of-place op
with x donated. An update in place should allocate little beside x: a peak near 0x here (near
1x counting x itself). benchmarks/run.py reports the table in its in-place section.
"""

from __future__ import annotations

import gc
import sys
import tracemalloc
from pathlib import Path
from typing import Any, Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # minigrad from this checkout
import minigrad as mg


def peak_bytes(fn: Callable[[], Any]) -> int:
    """Peak bytes allocated during one call, above what was allocated before it."""
    fn()  # warm: a jitted function is traced and compiled outside the measurement
    gc.collect()
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    result = fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    del result
    return peak - base


def cases(n: int) -> dict[str, tuple[Callable[..., Any], Callable[..., Any], tuple]]:
    """Per variant: (in-place variant, out-of-place op, the arguments after x)."""
    rng = np.random.default_rng(0)
    index = rng.integers(0, n, 64)
    mask = rng.random(n) < 0.3
    count = int(np.count_nonzero(mask))
    return {
        "index_add_": (mg.index_add_, mg.index_add, (0, index, np.ones(64))),
        "index_copy_": (mg.index_copy_, mg.index_copy, (0, index, np.ones(64))),
        "index_fill_": (mg.index_fill_, mg.index_fill, (0, index, 2.5)),
        "masked_fill_": (mg.masked_fill_, mg.masked_fill, (mask, 2.5)),
        "masked_scatter_": (mg.masked_scatter_, mg.masked_scatter, (mask, np.ones(count))),
    }


def peaks_of(n: int, variant: Callable[..., Any], op: Callable[..., Any], rest: tuple
             ) -> dict[str, float]:
    """The peaks of one variant over x's size: eager, jit updating x, jit with x donated."""
    x = np.zeros(n)

    def updates(y: Any) -> Any:
        variant(y, *rest)
        return y[0]

    jit_update = mg.jit(updates)
    jit_donated = mg.jit(lambda y: op(y, *rest), donate_argnums=0)
    fresh = [np.zeros(n), np.zeros(n)]  # donated: one x per call, made beforehand
    return {"eager": peak_bytes(lambda: variant(x, *rest)) / x.nbytes,
            "jit, updating x": peak_bytes(lambda: jit_update(x)) / x.nbytes,
            "jit, x donated": peak_bytes(lambda: jit_donated(fresh.pop())) / x.nbytes}


def inplace_peaks(n: int = 2_000_000) -> dict[str, dict[str, float]]:
    """Per variant, the peak of a call over x's size: eager, jit updating x, jit donated."""
    return {name: peaks_of(n, *case) for name, case in cases(n).items()}


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2_000_000
    peaks = inplace_peaks(n)
    print(f"peak allocated per call / x's size, x float64[{n}]")
    columns = list(next(iter(peaks.values())))
    print(f"{'':16}" + "".join(f"{c:>18}" for c in columns))
    for name, row in peaks.items():
        print(f"{name:16}" + "".join(f"{row[c]:18.3f}" for c in columns))


if __name__ == "__main__":
    main()

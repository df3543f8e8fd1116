"""Scatter-add strategies for index_add's impl, against minigrad's eager index_add.

python benchmarks/index_add_impls.py  ->  median microseconds per call, one thread.
"""

from __future__ import annotations

import sys
import timeit
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # minigrad from this checkout
import minigrad as mg


def add_at(x, index, source):
    out = x.copy()
    np.add.at(out, index, source)
    return out


def bincount(x, index, source):
    n, d = x.shape
    flat = (index[:, None] * d + np.arange(d)).ravel()
    return x + np.bincount(flat, weights=source.ravel(), minlength=n * d).reshape(n, d)


def bincount_inplace(x, index, source):
    # the sums array is ours: adding x into it saves one x-sized allocation
    n, d = x.shape
    flat = (index[:, None] * d + np.arange(d)).ravel()
    out = np.bincount(flat, weights=source.ravel(), minlength=n * d).reshape(n, d)
    out += x
    return out


def sort_reduceat(x, index, source):
    order = np.argsort(index, kind="stable")
    sorted_index = index[order]
    starts = np.flatnonzero(np.r_[True, sorted_index[1:] != sorted_index[:-1]])
    out = x.copy()
    if len(index):
        out[sorted_index[starts]] += np.add.reduceat(source[order], starts, axis=0)
    return out


def minigrad_eager(x, index, source):
    return mg.index_add(x, 0, index, source)


CASES = [(8, 4, 3), (256, 64, 64), (4096, 64, 16), (4096, 64, 256), (4096, 64, 1024),
         (4096, 64, 8192), (100_000, 8, 50_000)]
STRATEGIES = [add_at, bincount, bincount_inplace, sort_reduceat, minigrad_eager]


def median_us(fn, *args) -> float:
    number = max(1, int(2e5 // (args[2].size + 50)))
    times = timeit.repeat(lambda: fn(*args), number=number, repeat=9)
    return float(np.median(times)) / number * 1e6


def main() -> None:
    rng = np.random.default_rng(0)
    print(f"{'x shape':>14} {'k':>6} " + " ".join(f"{s.__name__:>14}" for s in STRATEGIES))
    for n, d, k in CASES:
        x = rng.standard_normal((n, d))
        index = rng.integers(0, n, k)
        source = rng.standard_normal((k, d))
        expected = add_at(x, index, source)
        row = []
        for strategy in STRATEGIES:
            np.testing.assert_allclose(strategy(x, index, source), expected, rtol=1e-12,
                                       atol=1e-12)
            row.append(median_us(strategy, x, index, source))
        print(f"{(n, d)!s:>14} {k:>6} " + " ".join(f"{t:14.1f}" for t in row))


if __name__ == "__main__":
    main()

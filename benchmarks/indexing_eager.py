"""Eager cost of indexing and ``.at`` against the NumPy code they replace (issue #26's target:
+3 us or less per call on a 1-element and a 1000-element array):
``python benchmarks/indexing_eager.py [--wall]``.

Rows interleave minigrad and NumPy round by round and report minima, so a drift of the shared
machine's speed hits both alike. By default the timer is the thread's CPU time
(``time.thread_time``), which a busy machine inflates less than the wall clock (``--wall``).
Not part of ``run.py``'s report: the lead decides where the figures go.
"""

from __future__ import annotations

import argparse
import time
import timeit

import numpy as np

import minigrad.numpy as mnp

ROWS = [
    ("x[i]", "xn[i]", "x[i]"),
    ("x.at[i].add(v) vs np.add.at", "y = xn.copy(); np.add.at(y, i, v)", "x.at[i].add(v)"),
    ("x.at[i].add(v) vs y[i] += v", "y = xn.copy(); y[i] += v", "x.at[i].add(v)"),
    ("x.at[i].add(1.0) vs y[i] += 1.0", "y = xn.copy(); y[i] += 1.0", "x.at[i].add(1.0)"),
    ("x.at[i].set(v) vs y[i] = v", "y = xn.copy(); y[i] = v", "x.at[i].set(v)"),
    ("x[0]", "xn[0]", "x[0]"),
    ("x[1:]", "xn[1:]", "x[1:]"),
    ("take(x, i)", "np.take(xn, i)", "mnp.take(x, i)"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wall", action="store_true", help="time the wall clock")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    timer = time.perf_counter if args.wall else time.thread_time
    print(f"{'n':>5} {'call':34s} {'NumPy':>9} {'minigrad':>9} {'over':>7}")
    for size in (1, 1000):
        rng = np.random.default_rng(0)
        xn = rng.standard_normal(size)
        env = {"np": np, "mnp": mnp, "xn": xn, "x": mnp.asarray(xn),
               "i": rng.permutation(size), "v": rng.standard_normal(size)}
        for name, theirs, ours in ROWS:
            best = {theirs: np.inf, ours: np.inf}
            for _ in range(args.rounds):
                for stmt in (theirs, ours):
                    t = min(timeit.repeat(stmt, globals=env, number=2000, repeat=3, timer=timer))
                    best[stmt] = min(best[stmt], t / 2000 * 1e6)
            print(f"{size:5d} {name:34s} {best[theirs]:7.2f}us {best[ours]:7.2f}us "
                  f"{best[ours] - best[theirs]:+6.2f}")


if __name__ == "__main__":
    main()

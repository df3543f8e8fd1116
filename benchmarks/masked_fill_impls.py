"""Strategies for masked_fill's impl (float64, a mask ~30% true), against minigrad's impl.

python benchmarks/masked_fill_impls.py  ->  median microseconds per call, one thread.

`np.where` branches on every element; the bit strategies are branch-free. Filling with 0 is one
AND of x's bit pattern with a mask of all ones or all zeros; another value needs two XORs more.
"""

from __future__ import annotations

import sys
import timeit
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # minigrad from this checkout
from minigrad.ops.masked_fill import masked_fill_p


def where(x, mask, value):
    return np.where(mask, value, x)


def copy_putmask(x, mask, value):
    out = x.copy()
    np.putmask(out, mask, value)
    return out


def bits_and(x, mask, value):
    # exact only for a value whose bit pattern is 0 (+0.0): the impl takes it only then
    keep = np.subtract(mask, 1, dtype=np.int64)  # 0 where mask is true, else all ones
    return np.bitwise_and(keep, x.view(np.int64), out=keep).view(x.dtype)


def bits_blend(x, mask, value):
    # value ^ ((x ^ value) & keep): x where keep is all ones, value where it is 0
    keep = np.subtract(mask, 1, dtype=np.int64)
    v = np.asarray(value, x.dtype).view(np.int64)
    np.bitwise_and(keep, np.bitwise_xor(x.view(np.int64), v), out=keep)
    return np.bitwise_xor(keep, v, out=keep).view(x.dtype)


def minigrad_impl(x, mask, value):
    return masked_fill_p.impl(x, mask, value)


SIZES = [2048, 32768, 131072, 524288, 2097152]
STRATEGIES = [where, copy_putmask, bits_blend, minigrad_impl]


def median_us(fn, *args) -> float:
    number = max(1, int(2e5 // args[0].size))
    times = timeit.repeat(lambda: fn(*args), number=number, repeat=9)
    return float(np.median(times)) / number * 1e6


def main() -> None:
    rng = np.random.default_rng(0)
    for value in (np.asarray(-1.0), np.asarray(0.0)):
        strategies = STRATEGIES + ([bits_and] if value == 0 else [])
        print(f"value {value.item()}")
        print(f"{'size':>10} " + " ".join(f"{s.__name__:>14}" for s in strategies))
        for n in SIZES:
            x = rng.standard_normal(n)
            mask = rng.random(n) < 0.3
            expected = np.where(mask, value, x)
            row = []
            for strategy in strategies:
                assert strategy(x, mask, value).tobytes() == expected.tobytes(), strategy
                row.append(median_us(strategy, x, mask, value))
            print(f"{n:>10} " + " ".join(f"{t:14.1f}" for t in row))


if __name__ == "__main__":
    main()

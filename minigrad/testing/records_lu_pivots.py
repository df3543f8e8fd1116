"""Records of ``lu_pivots_to_permutation`` (``ops/linalg_factor.py``): the permutation that LU's
row swaps make, an integer output (no derivative: its tangent is a float0 zero).

The reference applies the swaps to a Python list, one matrix of the stack at a time.
"""

from __future__ import annotations

import numpy as np

from minigrad.ops.linalg_factor import lu_pivots_to_permutation_p
from minigrad.testing.samples import I32, OpRecord


def ref_pivots_to_permutation(pivots: np.ndarray, *, permutation_size: int) -> np.ndarray:
    *batch, k = pivots.shape
    out = []
    for row in pivots.reshape(int(np.prod(batch, dtype=np.int64)), k):
        perm = list(range(permutation_size))
        for i, p in enumerate(row):
            perm[i], perm[p] = perm[p], perm[i]
        out.append(perm)
    return np.asarray(out, I32).reshape(*batch, permutation_size)


def _record(variant: str, batch: tuple, k: int, size: int) -> OpRecord:
    def make(rng: np.random.Generator, dtype: np.dtype) -> tuple:
        # lu's pivots: row i swapped with a row at or below it (any row is accepted)
        lows = np.arange(k)
        return ((lows + rng.integers(0, size - lows, (*batch, k))).astype(I32),)

    return OpRecord(lu_pivots_to_permutation_p, variant, make, ref_pivots_to_permutation,
                    params={"permutation_size": size}, dtypes=(I32,), out_dtype=I32)


RECORDS = [
    _record("square", (), 4, 4),
    _record("longer", (), 3, 6),  # (a wide matrix's pivots, a tall one's permutation)
    _record("batched", (2, 3), 4, 5),
    _record("none", (2,), 0, 3),
]

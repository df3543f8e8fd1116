"""Records of ``qr_pivots`` (``ops/linalg_pivot.py``): the column permutation of the pivoted
QR factorization, an integer output (no derivative: its tangent is a float0 zero).

The reference works from the definition, not from LAPACK's loop: at each step it recomputes
every remaining column's exact residual norm (no downdating) in float64, one matrix at a time,
and takes the first of the largest. Operands are Gaussian, so no two norms come near a tie
and the two choices agree.
"""

from __future__ import annotations

import numpy as np

from minigrad.ops.linalg_pivot import qr_pivots_p
from minigrad.testing.samples import BOTH, F64, I32, OpRecord, normal


def ref_qr_pivots(a: np.ndarray) -> np.ndarray:
    """Greedy column selection by exact residual norms, with explicit reflections."""
    *batch, m, n = a.shape
    out = []
    for mat in a.reshape(-1, m, n):
        work = mat.astype(np.float64).copy()
        perm = list(range(n))
        for i in range(min(m, n)):
            norms = [float(np.sqrt(np.sum(work[i:, j] ** 2))) for j in range(i, n)]
            p = i + norms.index(max(norms))
            work[:, [i, p]] = work[:, [p, i]]
            perm[i], perm[p] = perm[p], perm[i]
            u = work[i:, i].copy()
            u[0] += np.copysign(np.linalg.norm(u), u[0])
            if np.dot(u, u) > 0:
                work[i:, :] -= np.outer(2 * u / np.dot(u, u), u @ work[i:, :])
        out.append(perm)
    return np.asarray(out, I32).reshape(*batch, n)


def _record(variant: str, shape: tuple, dtypes: tuple = (F64,)) -> OpRecord:
    return OpRecord(qr_pivots_p, variant, lambda rng, dt: (normal(rng, shape, dt),),
                    ref_qr_pivots, dtypes=dtypes, out_dtype=I32)


RECORDS = [
    _record("tall", (6, 4), BOTH),
    _record("square", (4, 4)),
    _record("wide", (3, 6)),
    _record("batched", (2, 3, 5, 4)),
    _record("one-row", (1, 4)),
]

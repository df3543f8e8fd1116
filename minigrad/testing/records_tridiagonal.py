"""Records of ``tridiagonal_solve`` (``ops/linalg_tridiagonal.py``): differentiable in all four
operands, linear in ``b``.

The reference builds the dense matrix and calls NumPy's LAPACK solve, matrix by matrix, in
float64. The draws: diagonally dominant matrices (no interchange), and matrices whose small
diagonal makes every step interchange rows (the fill-in path); ``dl[0]`` and ``du[m-1]`` are
drawn too, so the checks see that they are not read (and get no derivative).
"""

from __future__ import annotations

import numpy as np

from minigrad.ops.linalg_tridiagonal import tridiagonal_solve_p
from minigrad.testing.samples import BOTH, F32, F64, OpRecord, normal


def ref_tridiagonal_solve(dl: np.ndarray, d: np.ndarray, du: np.ndarray, b: np.ndarray
                          ) -> np.ndarray:
    m, k = b.shape[-2:]
    out = []
    for l_, d_, u_, b_ in zip(dl.reshape(-1, m), d.reshape(-1, m), du.reshape(-1, m),
                              b.reshape(-1, m, k), strict=True):
        a = np.diag(d_.astype(np.float64))
        a += np.diag(l_[1:].astype(np.float64), -1) + np.diag(u_[:-1].astype(np.float64), 1)
        out.append(np.linalg.solve(a, b_.astype(np.float64)))
    return np.asarray(out).reshape(b.shape).astype(b.dtype)


def _record(variant: str, batch: tuple, m: int, k: int, diagonal: float,
            dtypes: tuple = (F64,)) -> OpRecord:
    def make(rng: np.random.Generator, dtype: np.dtype) -> tuple:
        if diagonal >= 1:  # dominant: no interchange
            dl, du = normal(rng, (*batch, m), dtype), normal(rng, (*batch, m), dtype)
            d = normal(rng, (*batch, m), dtype) + np.asarray(3, dtype)
        else:  # off-diagonals of magnitude 1 to 2 around a small diagonal (m even: far from
            # singular), so that every step interchanges rows
            dl, du = (((1 + rng.random((*batch, m))) * rng.choice([-1, 1], (*batch, m)))
                      .astype(dtype) for _ in range(2))
            d = normal(rng, (*batch, m), dtype) * np.asarray(diagonal, dtype)
        return dl, d.astype(dtype), du, normal(rng, (*batch, m, k), dtype)

    return OpRecord(tridiagonal_solve_p, variant, make, ref_tridiagonal_solve,
                    diff=(0, 1, 2, 3), linear=((3,),), dtypes=dtypes,
                    tol=1e-4 if F32 in dtypes else 1e-9)


RECORDS = [
    _record("dominant", (), 5, 2, 1.0, BOTH),
    _record("interchanges", (), 6, 1, 0.01),
    _record("batched", (2, 3), 4, 3, 1.0),
    _record("one", (), 1, 2, 1.0),
    _record("two", (2,), 2, 1, 0.01),
]

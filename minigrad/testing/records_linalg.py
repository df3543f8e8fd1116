"""Records of the linear-algebra primitives (``ops/linalg*.py``).

Operands are drawn well conditioned, so finite differences (float32's too) resolve the
derivatives: triangles with diagonals of magnitude 1 to 2, symmetric positive definite
matrices for ``cholesky``, eigenvalues and singular values at least 0.5 apart. Factorizations
that read one triangle get a random other triangle, so the checks see that it is ignored
(and gets no derivative). The references are independent scalar loops where minigrad runs
its own algorithm (``triangular_solve``, ``lu``) and NumPy's LAPACK call matrix by matrix
where minigrad's impl is that call (``cholesky``, ``qr``, ``eigh``, ``svd``), which checks
the stacking and the order of the results.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from minigrad.ops.linalg import cholesky_p, triangular_solve_p
from minigrad.ops.linalg_factor import lu_p, qr_p
from minigrad.ops.linalg_spectral import eigh_p, svd_p
from minigrad.testing.samples import BOTH, F32, F64, OpRecord, normal

Draw = Callable[[np.random.Generator, np.dtype], tuple]
_TOL = 1e-9  # float64 references computed in another order; float32 samples are not
# compared with them but with float64 loops rounded (see _tol)


def _tol(dtypes: tuple) -> float:
    return 1e-4 if F32 in dtypes else _TOL


# --------------------------------------------------------------------------- draws


def _triangular(rng: np.random.Generator, shape: tuple, dtype: np.dtype) -> np.ndarray:
    """Random entries with a diagonal of magnitude in [1, 2]: every triangle well
    conditioned."""
    a = rng.standard_normal(shape) * 0.5
    n = shape[-1]
    signs = rng.choice([-1.0, 1.0], (*shape[:-2], n))
    diag = signs * rng.uniform(1.0, 2.0, (*shape[:-2], n))
    a[..., np.arange(n), np.arange(n)] = diag
    return a.astype(dtype)


def _orthogonal(rng: np.random.Generator, batch: tuple, n: int) -> np.ndarray:
    q, r = np.linalg.qr(rng.standard_normal((*batch, n, n)))
    return q * np.sign(np.diagonal(r, axis1=-2, axis2=-1))[..., None, :]


def _spectrum(rng: np.random.Generator, batch: tuple, n: int, low: float) -> np.ndarray:
    """n values from ``low`` up, consecutive ones 0.5 to 1 apart, in random order."""
    gaps = rng.uniform(0.5, 1.0, (*batch, n))
    return rng.permuted(low + np.cumsum(gaps, axis=-1), axis=-1)


def _symmetric(rng: np.random.Generator, shape: tuple, dtype: np.dtype, lower: bool,
               positive: bool) -> np.ndarray:
    """Q diag(w) Q^T with well separated w (positive ones for ``positive``), and noise in the
    triangle that is not read."""
    *batch, n, _ = shape
    q = _orthogonal(rng, tuple(batch), n)
    w = _spectrum(rng, tuple(batch), n, 0.5 if positive else -0.5 * n)
    a = (q * w[..., None, :]) @ np.swapaxes(q, -1, -2)
    noise = rng.standard_normal(shape)
    unread = np.triu(noise, 1) if lower else np.tril(noise, -1)
    keep = np.tril(a) if lower else np.triu(a)
    return (keep + unread).astype(dtype)


def _well_separated(rng: np.random.Generator, shape: tuple, dtype: np.dtype) -> np.ndarray:
    """U diag(s) V^T with singular values at least 0.5 apart."""
    *batch, m, n = shape
    k = min(m, n)
    u = _orthogonal(rng, tuple(batch), m)[..., :k]
    v = _orthogonal(rng, tuple(batch), n)[..., :k]
    s = _spectrum(rng, tuple(batch), k, 1.0)
    return ((u * s[..., None, :]) @ np.swapaxes(v, -1, -2)).astype(dtype)


# --------------------------------------------------------------------------- references


def _matrices(x: np.ndarray) -> tuple[np.ndarray, tuple]:
    return x.reshape(-1, *x.shape[-2:]), x.shape[:-2]


def ref_triangular_solve(a: np.ndarray, b: np.ndarray, *, left_side: bool, lower: bool,
                         transpose_a: bool, unit_diagonal: bool) -> np.ndarray:
    """The triangle made explicit, then a general solve (LAPACK's LU), in float64."""
    t = np.tril(a) if lower else np.triu(a)
    if unit_diagonal:
        n = a.shape[-1]
        t[..., np.arange(n), np.arange(n)] = 1.0
    t = np.swapaxes(t, -1, -2) if transpose_a else t
    t64, b64 = t.astype(np.float64), b.astype(np.float64)
    if left_side:
        x = np.linalg.solve(t64, b64)
    else:
        x = np.swapaxes(np.linalg.solve(np.swapaxes(t64, -1, -2), np.swapaxes(b64, -1, -2)),
                        -1, -2)
    return x.astype(b.dtype)


def ref_cholesky(a: np.ndarray) -> np.ndarray:
    mats, _ = _matrices(a)
    return np.stack([np.linalg.cholesky(m) for m in mats]).reshape(a.shape)


def ref_lu(a: np.ndarray) -> list[np.ndarray]:
    """Doolittle's elimination with partial pivoting, one scalar at a time, in float64."""
    mats, batch = _matrices(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    lus, pivs, perms = [], [], []
    for mat in mats:
        lu = mat.astype(np.float64).copy()
        perm = list(range(m))
        piv = []
        for j in range(k):
            p = max(range(j, m), key=lambda i: (abs(lu[i, j]), -i))
            piv.append(p)
            lu[[j, p]] = lu[[p, j]]
            perm[j], perm[p] = perm[p], perm[j]
            for i in range(j + 1, m):
                if lu[j, j] != 0:
                    lu[i, j] /= lu[j, j]
                for c in range(j + 1, n):
                    lu[i, c] -= lu[i, j] * lu[j, c]
        lus.append(lu.astype(a.dtype))
        pivs.append(piv)
        perms.append(perm)
    return [np.asarray(lus, a.dtype).reshape(a.shape),
            np.asarray(pivs, np.int32).reshape(*batch, k),
            np.asarray(perms, np.int32).reshape(*batch, m)]


def ref_qr(a: np.ndarray, *, full_matrices: bool) -> list[np.ndarray]:
    mats, batch = _matrices(a)
    pairs = [np.linalg.qr(m, mode="complete") if full_matrices else np.linalg.qr(m)
             for m in mats]
    m, n = a.shape[-2:]
    k = m if full_matrices else min(m, n)
    return [np.asarray([q for q, _ in pairs], a.dtype).reshape(*batch, m, k),
            np.asarray([r for _, r in pairs], a.dtype).reshape(*batch, k, n)]


def ref_eigh(a: np.ndarray, *, lower: bool) -> list[np.ndarray]:
    mats, batch = _matrices(a)
    n = a.shape[-1]
    pairs = [np.linalg.eigh(m, UPLO="L" if lower else "U") for m in mats]
    return [np.asarray([v for _, v in pairs], a.dtype).reshape(*batch, n, n),
            np.asarray([w for w, _ in pairs], a.dtype).reshape(*batch, n)]


def ref_svd(a: np.ndarray, *, full_matrices: bool, compute_uv: bool) -> list[np.ndarray]:
    mats, batch = _matrices(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    if not compute_uv:
        return [np.asarray([np.linalg.svd(x, compute_uv=False) for x in mats],
                           a.dtype).reshape(*batch, k)]
    triples = [np.linalg.svd(x, full_matrices=full_matrices) for x in mats]
    mu, nv = (m, n) if full_matrices else (k, k)
    return [np.asarray([s for _, s, _ in triples], a.dtype).reshape(*batch, k),
            np.asarray([u for u, _, _ in triples], a.dtype).reshape(*batch, m, mu),
            np.asarray([vt for _, _, vt in triples], a.dtype).reshape(*batch, nv, n)]


# --------------------------------------------------------------------------- the records


def _solve_record(variant: str, a_shape: tuple, b_shape: tuple, dtypes: tuple = (F64,),
                  **params: bool) -> OpRecord:
    full = {"left_side": False, "lower": False, "transpose_a": False, "unit_diagonal": False,
            **params}

    def make(rng: np.random.Generator, dtype: np.dtype) -> tuple:
        return _triangular(rng, a_shape, dtype), normal(rng, b_shape, dtype)

    return OpRecord(triangular_solve_p, variant, make, ref_triangular_solve, full, diff=(0, 1),
                    linear=((1,),), dtypes=dtypes, tol=_tol(dtypes))


def _one(prim: Any, variant: str, draw: Callable[..., np.ndarray], shape: tuple,
         reference: Callable[..., Any], params: dict | None = None, dtypes: tuple = (F64,),
         diff: tuple = (0,)) -> OpRecord:
    return OpRecord(prim, variant, lambda rng, dt: (draw(rng, shape, dt),), reference,
                    params or {}, diff=diff, dtypes=dtypes, tol=_tol(dtypes))


def _sym(lower: bool, positive: bool) -> Callable[..., np.ndarray]:
    return lambda rng, shape, dt: _symmetric(rng, shape, dt, lower, positive)


RECORDS = [
    # triangular_solve: every side, triangle, transposition and unit diagonal; linear in b
    _solve_record("left-lower", (3, 3), (3, 2), BOTH, left_side=True, lower=True),
    _solve_record("right-upper", (3, 3), (4, 3), BOTH),
    _solve_record("left-upper-transposed", (4, 4), (4, 2), left_side=True, transpose_a=True),
    _solve_record("right-lower-transposed-unit", (3, 3), (2, 3), lower=True, transpose_a=True,
                  unit_diagonal=True),
    _solve_record("left-upper-unit-batched", (2, 3, 3), (2, 3, 4), left_side=True,
                  unit_diagonal=True),
    _solve_record("left-lower-vector", (4, 4), (4, 1), left_side=True, lower=True),
    # cholesky: the upper triangle of the operand is noise, never read
    _one(cholesky_p, "spd", _sym(True, True), (3, 3), ref_cholesky, dtypes=BOTH),
    _one(cholesky_p, "spd-batched", _sym(True, True), (2, 4, 4), ref_cholesky),
    _one(cholesky_p, "1x1", _sym(True, True), (1, 1), ref_cholesky),
    # lu: square, tall and wide; the pivots and permutation are integers (float0 tangents)
    _one(lu_p, "square", normal, (4, 4), ref_lu, dtypes=BOTH),
    _one(lu_p, "tall", normal, (5, 3), ref_lu),
    _one(lu_p, "wide", normal, (3, 5), ref_lu),
    _one(lu_p, "batched", normal, (2, 3, 3), ref_lu),
    # qr: reduced and complete, tall, square and wide
    _one(qr_p, "tall-reduced", _well_separated, (5, 3), ref_qr, {"full_matrices": False},
         BOTH),
    _one(qr_p, "tall-complete", _well_separated, (5, 3), ref_qr, {"full_matrices": True}),
    _one(qr_p, "wide", _well_separated, (3, 5), ref_qr, {"full_matrices": False}),
    _one(qr_p, "square-batched", _well_separated, (2, 3, 3), ref_qr, {"full_matrices": True}),
    # eigh: one triangle read, the other noise
    _one(eigh_p, "lower", _sym(True, False), (4, 4), ref_eigh, {"lower": True}),
    _one(eigh_p, "upper", _sym(False, False), (3, 3), ref_eigh, {"lower": False}),
    _one(eigh_p, "batched", _sym(True, False), (2, 3, 3), ref_eigh, {"lower": True}),
    # svd: thin factors, singular values alone, full square factors (full factors of a
    # non-square matrix have no derivative, as in JAX: tests/test_linalg.py)
    _one(svd_p, "tall", _well_separated, (5, 3), ref_svd,
         {"full_matrices": False, "compute_uv": True}, BOTH),
    _one(svd_p, "wide", _well_separated, (3, 4), ref_svd,
         {"full_matrices": False, "compute_uv": True}),
    _one(svd_p, "values", _well_separated, (2, 4, 3), ref_svd,
         {"full_matrices": False, "compute_uv": False}),
    _one(svd_p, "square-full", _well_separated, (3, 3), ref_svd,
         {"full_matrices": True, "compute_uv": True}),
]

"""Linear-algebra primitives, part 2: the LU and QR factorizations (``lu``, ``qr``), with the
row permutations and LU solves their rules and ``minigrad.numpy.linalg`` use.

Conventions as in ``ops/linalg.py``: stacks of real floating matrices with equal batch
dimensions; JAX's JVP formulas (docs/linalg.md writes them out).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from minigrad.core import Primitive, ShapedArray, Zero, float0, get_aval
from minigrad.ops import elementwise as ew
from minigrad.ops import structural as st
from minigrad.ops.index_add import index_add, index_select
from minigrad.ops.linalg import (
    batch_to_front,
    check_matrices,
    eye_like,
    matmul,
    mT,
    triangular_solve,
    tril,
    triu,
)

I32 = np.dtype(np.int32)


# --------------------------------------------------------------------------- row permutations


def _flat_rows(perm: Any, m: int) -> tuple[Any, int]:
    """Indices of the rows ``perm`` picks in a stack of matrices flattened to its rows: each
    matrix's entries offset by m times its position in the stack."""
    batch = get_aval(perm).shape[:-1]
    count = int(np.prod(batch, dtype=np.int64))
    offsets = (np.arange(count, dtype=np.int64) * m).reshape(*batch, 1)
    perm = ew.convert_element_type(perm, np.int64)
    idx = ew.add(perm, st.broadcast_to(offsets, get_aval(perm).shape))
    return st.reshape(idx, (count * m,)), count


def permute_rows(x: Any, perm: Any) -> Any:
    """``x[..., perm, :]``, each matrix of the stack ``x`` ``(..., m, n)`` with its own
    permutation ``perm`` ``(..., m)``: one gather of rows (``index_select``)."""
    *batch, m, n = get_aval(x).shape
    idx, count = _flat_rows(perm, m)
    rows = index_select(st.reshape(x, (count * m, n)), 0, idx)
    return st.reshape(rows, (*batch, m, n))


def unpermute_rows(x: Any, perm: Any) -> Any:
    """The inverse of ``permute_rows``: ``y`` with ``y[..., perm, :] = x`` (a scatter of rows
    into zeros, the transpose of the gather)."""
    aval = get_aval(x)
    *batch, m, n = aval.shape
    idx, count = _flat_rows(perm, m)
    zeros = st.full((count * m, n), 0, aval.dtype)
    rows = index_add(zeros, 0, idx, st.reshape(x, (count * m, n)))
    return st.reshape(rows, (*batch, m, n))


# --------------------------------------------------------------------------- lu

lu_p = Primitive("lu")
lu_p.multiple_results = True


def lu(a: Any) -> list[Any]:
    """``[lu, pivots, permutation]`` of ``a`` ``(..., m, n)`` with partial pivoting:
    ``a[..., permutation, :] = L U``, L unit lower (below ``lu``'s diagonal) and U upper (on
    and above it); ``pivots[i]`` is the row swapped with row i at step i (int32, as JAX)."""
    return lu_p.bind(a)


@lu_p.def_impl
def _lu_impl(a: np.ndarray) -> list[np.ndarray]:
    # Right-looking elimination, one column at a time, every matrix of the stack at once. The
    # pivot is the first entry of largest magnitude (LAPACK's choice); a zero pivot column is
    # left as it is (LAPACK's getrf does not divide by it either).
    *batch, m, n = a.shape
    k = min(m, n)
    count = int(np.prod(batch, dtype=np.int64))
    lu_ = np.array(a, copy=True).reshape(count, m, n)
    if count == 1:  # (speed: one matrix, plain indexing: a third of the stack's cost a column)
        factor, pivots, perm = _lu_one(lu_[0], k)
        return [factor.reshape(a.shape), pivots.reshape(*batch, k), perm.reshape(*batch, m)]
    stack = np.arange(count)
    perm = np.tile(np.arange(m, dtype=I32), (count, 1))
    pivots = np.zeros((count, k), I32)
    for j in range(k):
        p = j + np.argmax(np.abs(lu_[:, j:, j]), axis=1)
        pivots[:, j] = p
        lu_[stack, j], lu_[stack, p] = lu_[stack, p], lu_[stack, j]
        perm[stack, j], perm[stack, p] = perm[stack, p], perm[stack, j]
        pivot = lu_[:, j, j]
        safe = np.where(pivot == 0, 1, pivot)[:, None]
        lu_[:, j + 1:, j] /= safe
        lu_[:, j + 1:, j + 1:] -= lu_[:, j + 1:, j, None] * lu_[:, j, None, j + 1:]
    return [lu_.reshape(a.shape), pivots.reshape(*batch, k), perm.reshape(*batch, m)]


def _lu_one(lu_: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The stack's loop for one matrix ``lu_`` (factored in place): the same arithmetic in
    the same order, so the same bits."""
    m = lu_.shape[0]
    perm = list(range(m))
    pivots = [0] * k
    for j in range(k):
        p = j + int(np.abs(lu_[j:, j]).argmax())
        pivots[j] = p
        if p != j:
            row = lu_[j].copy()
            lu_[j] = lu_[p]
            lu_[p] = row
            perm[j], perm[p] = perm[p], perm[j]
        pivot = lu_[j, j]
        if pivot != 0:  # (the stack divides by 1 instead)
            lu_[j + 1:, j] /= pivot
        lu_[j + 1:, j + 1:] -= lu_[j + 1:, j, None] * lu_[j, None, j + 1:]
    return lu_, np.array(pivots, I32), np.array(perm, I32)


@lu_p.def_abstract_eval
def _lu_abstract_eval(a: ShapedArray) -> list[ShapedArray]:
    check_matrices("lu", a, square=False)
    *batch, m, n = a.shape
    return [a, ShapedArray((*batch, min(m, n)), I32), ShapedArray((*batch, m), I32)]


@lu_p.def_jvp
def _lu_jvp(primals: tuple, tangents: tuple) -> tuple:
    # With P A = L U and K = L^-1 P A_dot U^-1:  L_dot = L tril(K, -1),  U_dot = triu(K) U,
    # packed like lu. A rectangular L (m x k) or U (k x n) is completed to a square one (the
    # identity in the rest), as JAX does.
    (a,), (a_dot,) = primals, tangents
    lu_, pivots, perm = lu(a)
    *batch, m, n = get_aval(a).shape
    k = min(m, n)
    nb = len(batch)
    keep = [(0, 0, 0)] * nb
    lower = st.pad(tril(st.slice_array(lu_, (0,) * (nb + 2), (*batch, m, k)), -1),
                   [*keep, (0, 0, 0), (0, m - k, 0)])
    lower = ew.add(lower, eye_like(lower, m))
    upper = st.pad(triu(st.slice_array(lu_, (0,) * (nb + 2), (*batch, k, n))),
                   [*keep, (0, n - k, 0), (0, 0, 0)])
    if k < n:  # ones on the diagonal past the k x k block
        rest = np.diag(np.arange(n) >= k).astype(get_aval(a).dtype)
        upper = ew.add(upper, st.broadcast_to(rest, (*batch, n, n)))
    la = triangular_solve(lower, permute_rows(a_dot, perm), left_side=True, lower=True,
                          unit_diagonal=True)
    kmat = triangular_solve(upper, la, left_side=False, lower=False)
    lu_dot = ew.add(matmul(lower, tril(kmat, -1)), matmul(triu(kmat), upper))
    int_zero = [Zero(ShapedArray(get_aval(p).shape, float0)) for p in (pivots, perm)]
    return [lu_, pivots, perm], [lu_dot, *int_zero]


lu_p.def_batch(partial(batch_to_front, lu_p))


# --------------------------------------------------------------------------- pivots to permutation

lu_pivots_to_permutation_p = Primitive("lu_pivots_to_permutation")


def lu_pivots_to_permutation(pivots: Any, permutation_size: int) -> Any:
    """The permutation (int32, ``(..., permutation_size)``) that ``lu``'s ``pivots`` (int32,
    ``(..., k)``) make: the identity with entry i swapped with entry ``pivots[i]``, for i = 0,
    1, ..., k - 1 in turn (``lu``'s third result, for its own pivots). A pivot outside ``[0,
    permutation_size)`` is an IndexError (JAX's result there is unspecified)."""
    _check_pivots(get_aval(pivots), permutation_size)  # (before the impl: eagerly too)
    return lu_pivots_to_permutation_p.bind(pivots, permutation_size=permutation_size)


def _check_pivots(pivots: ShapedArray, permutation_size: int) -> None:
    if pivots.dtype != I32 or pivots.ndim == 0:
        raise TypeError(f"lu_pivots_to_permutation: pivots must be an int32 array of at least "
                        f"one dimension (lu's pivots); got {pivots.str_short()}")
    if type(permutation_size) is not int or permutation_size < pivots.shape[-1]:
        raise ValueError(f"lu_pivots_to_permutation: permutation_size must be an int at least "
                         f"the number of pivots, {pivots.shape[-1]}; got {permutation_size!r}")


@lu_pivots_to_permutation_p.def_impl
def _pivots_impl(pivots: np.ndarray, *, permutation_size: int) -> np.ndarray:
    *batch, k = pivots.shape
    count = int(np.prod(batch, dtype=np.int64))
    piv = pivots.reshape(count, k)
    bad = (piv < 0) | (piv >= permutation_size)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad.reshape(pivots.shape))[0])
        raise IndexError(f"lu_pivots_to_permutation: pivots must be in [0, "
                         f"{permutation_size}); got {pivots[where]} at index {where}")
    perm = np.tile(np.arange(permutation_size, dtype=I32), (count, 1))
    stack = np.arange(count)
    for i in range(k):  # (a loop over the pivots, every matrix of the stack at once)
        p = piv[:, i]
        perm[stack, i], perm[stack, p] = perm[stack, p], perm[stack, i]
    return perm.reshape(*batch, permutation_size)


@lu_pivots_to_permutation_p.def_abstract_eval
def _pivots_abstract_eval(pivots: ShapedArray, *, permutation_size: int) -> ShapedArray:
    _check_pivots(pivots, permutation_size)
    return ShapedArray((*pivots.shape[:-1], permutation_size), I32)


@lu_pivots_to_permutation_p.def_jvp
def _pivots_jvp(primals: tuple, tangents: tuple, *, permutation_size: int) -> tuple:
    # an integer output: a float0 zero tangent
    (pivots,) = primals
    out = lu_pivots_to_permutation(pivots, permutation_size)
    return out, Zero(ShapedArray(get_aval(out).shape, float0))


lu_pivots_to_permutation_p.def_batch(partial(batch_to_front, lu_pivots_to_permutation_p))


def lu_solve(lu_: Any, perm: Any, b: Any, transpose: bool = False) -> Any:
    """``A^-1 b`` (or ``A^-T b`` with ``transpose``) from the LU factorization of a square
    ``A``: ``b`` ``(..., n, k)`` with ``lu_``'s batch dimensions."""
    if not transpose:  # A = P^T L U: x = U^-1 L^-1 P b
        x = permute_rows(b, perm)
        x = triangular_solve(lu_, x, left_side=True, lower=True, unit_diagonal=True)
        return triangular_solve(lu_, x, left_side=True, lower=False)
    # A^T = U^T L^T P: x = P^T L^-T U^-T b
    x = triangular_solve(lu_, b, left_side=True, lower=False, transpose_a=True)
    x = triangular_solve(lu_, x, left_side=True, lower=True, transpose_a=True,
                         unit_diagonal=True)
    return unpermute_rows(x, perm)


# --------------------------------------------------------------------------- qr

qr_p = Primitive("qr")
qr_p.multiple_results = True


def qr(a: Any, full_matrices: bool = False) -> list[Any]:
    """``[q, r]`` with ``a = q r``, q orthonormal columns and r upper triangular: q ``(m, k)``
    and r ``(k, n)``, k = m if ``full_matrices`` else min(m, n) (LAPACK's signs)."""
    return qr_p.bind(a, full_matrices=bool(full_matrices))


@qr_p.def_impl
def _qr_impl(a: np.ndarray, *, full_matrices: bool) -> list[np.ndarray]:
    q, r = np.linalg.qr(a, mode="complete" if full_matrices else "reduced")
    return [q, r]


@qr_p.def_abstract_eval
def _qr_abstract_eval(a: ShapedArray, *, full_matrices: bool) -> list[ShapedArray]:
    check_matrices("qr", a, square=False)
    *batch, m, n = a.shape
    k = m if full_matrices else min(m, n)
    return [ShapedArray((*batch, m, k), a.dtype), ShapedArray((*batch, k, n), a.dtype)]


def _thin_qr_jvp(q: Any, r: Any, dx: Any) -> tuple[Any, Any]:
    # m >= n, r square: C = Q^T dX R^-1, O = tril(C, -1) - tril(C, -1)^T (skew),
    # dQ = Q (O - C) + dX R^-1, dR = (C - O) R
    dx_rinv = triangular_solve(r, dx, left_side=False, lower=False)
    c = matmul(mT(q), dx_rinv)
    low = tril(c, -1)
    omega = ew.sub(low, mT(low))
    dq = ew.add(matmul(q, ew.sub(omega, c)), dx_rinv)
    dr = matmul(ew.sub(c, omega), r)
    return dq, dr


def _cols(x: Any, start: int, stop: int) -> Any:
    shape = get_aval(x).shape
    return st.slice_array(x, (0,) * (len(shape) - 1) + (start,), (*shape[:-1], stop))


def _rows(x: Any, start: int, stop: int) -> Any:
    shape = get_aval(x).shape
    return st.slice_array(x, (0,) * (len(shape) - 2) + (start, 0),
                          (*shape[:-2], stop, shape[-1]))


@qr_p.def_jvp
def _qr_jvp(primals: tuple, tangents: tuple, *, full_matrices: bool) -> tuple:
    (x,), (dx,) = primals, tangents
    q, r = qr(x, full_matrices)
    *batch, m, n = get_aval(x).shape
    if m < n:  # X = [X1 X2], X1 = Q R1 square; R2 = Q^T X2, so dR2 = dQ^T X2 + Q^T dX2
        dq, dr1 = _thin_qr_jvp(q, _cols(r, 0, m), _cols(dx, 0, m))
        x2, dx2 = _cols(x, m, n), _cols(dx, m, n)
        dr2 = ew.add(matmul(mT(dq), x2), matmul(mT(q), dx2))
        return [q, r], [dq, st.concatenate([dr1, dr2], len(batch) + 1)]
    q_mn = _cols(q, 0, n) if full_matrices else q
    r_nn = _rows(r, 0, n) if full_matrices else r
    dq_mn, dr_nn = _thin_qr_jvp(q_mn, r_nn, dx)
    if not full_matrices or m == n:
        return [q, r], [dq_mn, dr_nn]
    # complete Q of a tall X: the last m - n columns (arXiv:2409.13374, eqs. 32-33), with
    # Z = Q_pn (Q_nn - I)^-1 from an LU solve
    q_nn, q_pn, q_mp = _rows(q_mn, 0, n), _rows(q_mn, n, m), _cols(q, n, m)
    dq_nn, dq_pn = _rows(dq_mn, 0, n), _rows(dq_mn, n, m)
    factor, _, perm = lu(ew.sub(q_nn, eye_like(q_nn, n)))
    z_t = lu_solve(factor, perm, mT(q_pn), transpose=True)
    z = mT(z_t)
    dq_mp = ew.sub(matmul(dq_mn, z_t),
                   matmul(ew.add(q_mn, matmul(q_mp, z)),
                          mT(ew.sub(dq_pn, matmul(z, dq_nn)))))
    dq = st.concatenate([dq_mn, dq_mp], len(batch) + 1)
    dr = st.concatenate([dr_nn, st.full((*batch, m - n, n), 0, get_aval(x).dtype)],
                        len(batch))
    return [q, r], [dq, dr]


qr_p.def_batch(partial(batch_to_front, qr_p))

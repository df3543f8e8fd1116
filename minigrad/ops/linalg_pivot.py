"""Linear-algebra primitives, part 4: the column pivots of a rank-revealing QR factorization
(``qr_pivots``, LAPACK's ``geqp3`` choice) and the pivoted QR built on them.

``qr_pivoted(a)`` is a composite: the permutation ``p`` (an integer output, piecewise
constant, so its tangent is a float0 zero), then ``qr`` of the permuted matrix ``a[..., p]``.
Its derivative is therefore ``qr``'s JVP of the column-permuted matrix, which is what JAX's
``qr_jvp_rule`` computes for ``pivoting=True`` (it permutes the tangent's columns by ``p`` and
runs the unpivoted rule). Householder QR of ``a[..., p]`` performs the same reflections as
``geqp3`` does on ``a``, so ``q`` and ``r`` equal LAPACK's up to rounding.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from minigrad.core import Primitive, ShapedArray, Zero, float0, get_aval
from minigrad.ops.linalg import batch_to_front, check_matrices, mT
from minigrad.ops.linalg_factor import permute_rows, qr

I32 = np.dtype(np.int32)


# --------------------------------------------------------------------------- qr_pivots

qr_pivots_p = Primitive("qr_pivots")


def qr_pivots(a: Any) -> Any:
    """The column permutation ``p`` (int32, ``(..., n)``) of the column-pivoted Householder QR
    of ``a`` ``(..., m, n)``: at step i the remaining column of largest (downdated) norm, the
    first on ties, as LAPACK's ``geqp3``; ``a[..., p] = Q R`` with ``|diag(R)|``
    non-increasing. An empty matrix (m or n zero) gives zeros, as JAX."""
    return qr_pivots_p.bind(a)


@qr_pivots_p.def_impl
def _qr_pivots_impl(a: np.ndarray) -> np.ndarray:
    # geqp3's unblocked loop (LAPACK's dlaqp2), every matrix of the stack at once. vn1 holds
    # each column's norm below the rows already factored, downdated after each reflection by
    # vn1 * sqrt(1 - (|r_ij| / vn1)^2); when that loses more than half the digits since the
    # last exact norm vn2 (temp * (vn1 / vn2)^2 <= sqrt(eps)), the norm is recomputed.
    *batch, m, n = a.shape
    count = int(np.prod(batch, dtype=np.int64))
    if m == 0 or n == 0:
        return np.zeros((*batch, n), I32)
    work = np.array(a, copy=True).reshape(count, m, n)
    # each matrix scaled by a power of two (exact: the same choices) to largest entry in
    # [0.5, 1), so squared norms neither overflow nor underflow (LAPACK's dnrm2 scales too)
    with np.errstate(invalid="ignore"):
        biggest = np.max(np.abs(work), axis=(1, 2))
    _, exponent = np.frexp(np.where(np.isfinite(biggest), biggest, 1))
    work = np.ldexp(work, -exponent[:, None, None])
    perm = np.tile(np.arange(n, dtype=I32), (count, 1))
    vn1 = np.linalg.norm(work, axis=1)
    vn2 = vn1.copy()
    tol3z = np.sqrt(np.finfo(a.dtype).eps / 2)  # sqrt of LAPACK's dlamch('Epsilon')
    with np.errstate(invalid="ignore", over="ignore"):  # (an infinite entry: NaN norms)
        _pivot_loop(work, perm, vn1, vn2, tol3z)
    return perm.reshape(*batch, n)


def _pivot_loop(work: np.ndarray, perm: np.ndarray, vn1: np.ndarray, vn2: np.ndarray,
                tol3z: float) -> None:
    """geqp3's steps on the stack ``work`` ``(count, m, n)``, in place: ``perm`` gets the
    pivots; ``vn1`` and ``vn2`` are the downdated and last exact column norms."""
    count, m, n = work.shape
    stack = np.arange(count)
    for i in range(min(m, n)):
        piv = i + np.argmax(vn1[:, i:], axis=1)  # the first of the largest
        work[stack, :, i], work[stack, :, piv] = work[stack, :, piv], work[stack, :, i]
        perm[stack, i], perm[stack, piv] = perm[stack, piv], perm[stack, i]
        vn1[stack, piv], vn2[stack, piv] = vn1[stack, i], vn2[stack, i]
        if i + 1 == n:
            break
        _reflect(work, i)
        # downdate the trailing columns' norms by the entry of row i just produced
        norms, exact = vn1[:, i + 1:], vn2[:, i + 1:]
        live = norms != 0
        ratio = np.abs(work[:, i, i + 1:]) / np.where(live, norms, 1)
        temp = np.maximum(1 - ratio * ratio, 0)
        drift = temp * (norms / np.where(live, exact, 1)) ** 2
        redo = live & (drift <= tol3z)
        fresh = (np.linalg.norm(work[:, i + 1:, i + 1:], axis=1) if i + 1 < m
                 else np.zeros_like(norms))
        vn1[:, i + 1:] = np.where(redo, fresh, np.where(live, norms * np.sqrt(temp), norms))
        vn2[:, i + 1:] = np.where(redo, fresh, exact)


def _reflect(work: np.ndarray, i: int) -> None:
    """Apply to ``work[:, i:, i+1:]`` (in place) the Householder reflection ``I - tau v v^T``
    that zeroes column i below row i. LAPACK's dlarfg and dlarf, in their order of operations
    (so ties between column norms break as LAPACK's do more often): ``beta = -sign(alpha)
    hypot(alpha, ||x||)`` by dlapy2's formula, ``v = [1, x * (1 / (alpha - beta))]``, ``tau =
    (beta - alpha) / beta``, no reflection when ``x`` is zero; then ``w = A^T v`` and ``A -= v
    (tau w)^T``."""
    x = work[:, i:, i]
    alpha = x[:, 0]
    below = np.linalg.norm(x[:, 1:], axis=1)
    big, small = np.maximum(np.abs(alpha), below), np.minimum(np.abs(alpha), below)
    ratio = small / np.where(big == 0, 1, big)
    beta = -np.copysign(big * np.sqrt(1 + ratio * ratio), alpha)
    reflect = below != 0
    tau = np.where(reflect, (beta - alpha) / np.where(reflect, beta, 1), 0)
    scale = 1 / np.where(reflect, alpha - beta, 1)
    v = np.concatenate([np.ones_like(alpha)[:, None], x[:, 1:] * scale[:, None]], axis=1)
    trailing = work[:, i:, i + 1:]
    w = (v[:, :, None] * trailing).sum(axis=1)
    trailing -= v[:, :, None] * (tau[:, None] * w)[:, None, :]


@qr_pivots_p.def_abstract_eval
def _qr_pivots_abstract_eval(a: ShapedArray) -> ShapedArray:
    check_matrices("qr_pivots", a, square=False)
    return ShapedArray((*a.shape[:-2], a.shape[-1]), I32)


@qr_pivots_p.def_jvp
def _qr_pivots_jvp(primals: tuple, tangents: tuple) -> tuple:
    # piecewise constant (an integer output): a float0 zero tangent
    out = qr_pivots(*primals)
    return out, Zero(ShapedArray(get_aval(out).shape, float0))


qr_pivots_p.def_batch(partial(batch_to_front, qr_pivots_p))


# --------------------------------------------------------------------------- pivoted qr


def permute_columns(x: Any, perm: Any) -> Any:
    """``x[..., perm]`` with a permutation ``perm`` ``(..., n)`` of each matrix's own (a gather
    of the transpose's rows)."""
    return mT(permute_rows(mT(x), perm))


def qr_pivoted(a: Any, full_matrices: bool = False) -> list[Any]:
    """``[q, r, p]`` with ``a[..., p] = q r`` (``jax.lax.linalg.qr(a, pivoting=True)``): ``p``
    from ``qr_pivots``, then ``qr`` of the permuted matrix (``full_matrices`` as ``qr``'s)."""
    perm = qr_pivots(a)
    q, r = qr(permute_columns(a, perm), full_matrices)
    return [q, r, perm]

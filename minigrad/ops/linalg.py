"""Linear-algebra primitives, part 1: ``triangular_solve`` and ``cholesky``, and the matrix
helpers every linalg rule uses (``lu``, ``qr``, ``eigh`` and ``svd`` are in
``ops/linalg_factor.py`` and ``ops/linalg_spectral.py``).

Every primitive takes stacks of matrices: operands are ``(..., m, n)`` with any number of
leading batch dimensions, equal across operands (the user functions in
``minigrad.numpy.linalg`` broadcast them). Operands are real floating arrays of one dtype.
The JVP formulas are JAX's (``lax/linalg.py``); docs/linalg.md writes each one out.

The helpers below (``matmul``, ``mT``, ``tril``, ``diagonal`` ...) are compositions of the
structural and elementwise primitives, so a rule written with them is differentiable and
batchable again.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from minigrad.core import Primitive, ShapedArray, UndefPrimal, Zero, get_aval
from minigrad.ops import elementwise as ew
from minigrad.ops import structural as st

# --------------------------------------------------------------------------- matrix helpers

_BATCH_LETTERS = "abcdefghlmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"  # (no i, j, k)


def mT(x: Any) -> Any:
    """``x`` with its last two axes swapped."""
    n = get_aval(x).ndim
    return st.transpose(x, (*range(n - 2), n - 1, n - 2))


def symmetrize(a: Any) -> Any:
    """``(a + a^T) / 2`` (JAX's ``symmetrize_input``)."""
    return ew.mul(ew.add(a, mT(a)), ew.full_like(a, 0.5))


def matmul(x: Any, y: Any) -> Any:
    """``x @ y`` for stacks of matrices with equal batch dimensions."""
    b = _BATCH_LETTERS[:get_aval(x).ndim - 2]
    return ew.dot(x, y, f"{b}ij,{b}jk->{b}ik")


def tri_mask(n: int, m: int, k: int, lower: bool) -> np.ndarray:
    """True on and below (``lower``) or on and above the ``k``-th diagonal of an n x m matrix."""
    rows, cols = np.arange(n)[:, None], np.arange(m)[None, :]
    return cols - rows <= k if lower else cols - rows >= k


def _masked(x: Any, mask: np.ndarray) -> Any:
    aval = get_aval(x)
    return ew.select(st.broadcast_to(mask, aval.shape), x, st.zeros(aval))


def tril(x: Any, k: int = 0) -> Any:
    """The elements of ``x`` on and below the ``k``-th diagonal; zeros above."""
    n, m = get_aval(x).shape[-2:]
    return _masked(x, tri_mask(n, m, k, lower=True))


def triu(x: Any, k: int = 0) -> Any:
    n, m = get_aval(x).shape[-2:]
    return _masked(x, tri_mask(n, m, k, lower=False))


def triangle(x: Any, lower: bool, unit_diagonal: bool = False) -> Any:
    """The triangle of ``x`` a factorization reads: lower or upper, the diagonal excluded when
    it is taken to be ones."""
    if lower:
        return tril(x, -1 if unit_diagonal else 0)
    return triu(x, 1 if unit_diagonal else 0)


def scale(x: Any, weights: np.ndarray) -> Any:
    """``x * weights`` for a constant matrix of weights (broadcast over the batch)."""
    aval = get_aval(x)
    return ew.mul(x, st.broadcast_to(weights.astype(aval.dtype), aval.shape))


def diagonal(x: Any) -> Any:
    """The main diagonals of square matrices ``(..., n, n)`` as ``(..., n)``: every (n+1)-th
    element of each flattened matrix."""
    shape = get_aval(x).shape
    *batch, n, _ = shape
    flat = st.reshape(x, (*batch, n * n))
    nb = len(batch)
    return st.slice_array(flat, (0,) * (nb + 1), (*batch, n * n), (1,) * nb + (n + 1,))


def diag_embed(v: Any) -> Any:
    """Square matrices with ``v`` ``(..., n)`` on their diagonals: ``n`` zeros between
    consecutive entries, then each row of length n."""
    *batch, n = get_aval(v).shape
    if n == 0:
        return st.reshape(v, (*batch, 0, 0))
    padded = st.pad(v, [(0, 0, 0)] * len(batch) + [(0, 0, n)])
    return st.reshape(padded, (*batch, n, n))


def eye_like(x: Any, n: int) -> Any:
    """The n x n identity in ``x``'s dtype, broadcast over ``x``'s batch dimensions."""
    aval = get_aval(x)
    batch = aval.shape[:-2]
    return st.broadcast_to(np.eye(n, dtype=aval.dtype), (*batch, n, n))


def batch_to_front(prim: Primitive, axis_size: int, vals: tuple, dims: tuple, **params: Any
                   ) -> tuple:
    """The batching rule of a primitive over stacks of matrices: every operand's batch axis
    moved to the front (an unbatched operand broadcast there), one more batch dimension."""
    vals = tuple(st.bdim_to_front(x, d, axis_size) for x, d in zip(vals, dims, strict=True))
    out = prim.bind(*vals, **params)
    return (out, [0] * len(out)) if prim.multiple_results else (out, 0)


def check_matrices(name: str, *avals: ShapedArray, square: bool = True) -> None:
    """Operands of a linalg primitive: real floating stacks of (square) matrices, one dtype,
    equal batch dimensions."""
    first = avals[0]
    for a in avals:
        if a.dtype.kind != "f" or a.dtype != first.dtype:
            raise TypeError(f"{name}: operands must be real floating arrays of one dtype; got "
                            f"{', '.join(x.str_short() for x in avals)}")
        if a.ndim < 2 or a.shape[:-2] != first.shape[:-2]:
            raise ValueError(f"{name}: operands must be stacks of matrices (..., m, n) with "
                             f"equal batch dimensions; got "
                             f"{', '.join(x.str_short() for x in avals)}")
    if square and first.shape[-1] != first.shape[-2]:
        raise ValueError(f"{name}: the matrix must be square; got {first.str_short()}")


# --------------------------------------------------------------------------- triangular_solve

triangular_solve_p = Primitive("triangular_solve")


def triangular_solve(a: Any, b: Any, *, left_side: bool = False, lower: bool = False,
                     transpose_a: bool = False, unit_diagonal: bool = False) -> Any:
    """``X`` with ``op(a) @ X = b`` (``left_side``) or ``X @ op(a) = b``, ``op(a)`` being
    ``a`` or its transpose; only the ``lower`` (or upper) triangle of ``a`` is read, its
    diagonal taken to be ones if ``unit_diagonal``. lax's defaults (a right-side solve with
    the upper triangle)."""
    return triangular_solve_p.bind(a, b, left_side=bool(left_side), lower=bool(lower),
                                   transpose_a=bool(transpose_a),
                                   unit_diagonal=bool(unit_diagonal))


def _substitute(t: np.ndarray, b: np.ndarray, forward: bool, unit: bool) -> np.ndarray:
    """``T x = b`` for triangular ``T`` (lower if ``forward``), one row of ``x`` at a time:
    ``x_i = (b_i - T_i,<i . x_<i) / T_ii`` (rows in reverse for an upper ``T``). A zero
    diagonal entry gives infinities and NaNs, as LAPACK's trsm."""
    m = t.shape[-1]
    x = np.empty(np.broadcast_shapes(t.shape[:-2], b.shape[:-2]) + b.shape[-2:], b.dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in (range(m) if forward else range(m - 1, -1, -1)):
            done = slice(0, i) if forward else slice(i + 1, m)
            row = b[..., i, :] - np.matmul(t[..., i:i + 1, done], x[..., done, :])[..., 0, :]
            x[..., i, :] = row if unit else row / t[..., i, i, None]
    return x


def _solve_triangle(t: np.ndarray, b: np.ndarray, forward: bool, unit: bool) -> np.ndarray:
    """``_substitute``'s solve, vectorized: LAPACK's gesv (np.linalg.solve, one call for the
    whole stack) on the triangle read, its diagonal set to ones if ``unit``. The same ``x`` up
    to rounding (gesv pivots where substitution does not); a triangle with a zero on its
    diagonal or a non-finite entry, or an empty one, goes to ``_substitute``, whose infinities
    and NaNs are trsm's."""
    if t.size == 0 or b.size == 0:
        return _substitute(t, b, forward, unit)
    tri = np.tril(t) if forward else np.triu(t)  # (a new array: written below)
    if unit:
        m = t.shape[-1]
        tri[..., range(m), range(m)] = 1
    elif not np.diagonal(tri, 0, -2, -1).all():
        return _substitute(t, b, forward, unit)
    if not np.isfinite(tri).all():
        return _substitute(t, b, forward, unit)
    try:
        x = np.linalg.solve(tri, b)
    except np.linalg.LinAlgError:  # (a pivot underflowed to 0: substitution's answer)
        return _substitute(t, b, forward, unit)
    return x.astype(b.dtype, copy=False)


@triangular_solve_p.def_impl
def _triangular_solve_impl(a: np.ndarray, b: np.ndarray, *, left_side: bool, lower: bool,
                           transpose_a: bool, unit_diagonal: bool) -> np.ndarray:
    # X op(A) = B is op(A)^T X^T = B^T; then op(A) is lower when exactly one of lower and
    # transpose_a holds.
    if not left_side:
        transpose_a = not transpose_a
        b = np.swapaxes(b, -1, -2)
    t = np.swapaxes(a, -1, -2) if transpose_a else a
    x = _solve_triangle(t, b, forward=lower != transpose_a, unit=unit_diagonal)
    return x if left_side else np.swapaxes(x, -1, -2)


@triangular_solve_p.def_abstract_eval
def _triangular_solve_abstract_eval(a: ShapedArray, b: ShapedArray, *, left_side: bool,
                                    lower: bool, transpose_a: bool, unit_diagonal: bool
                                    ) -> ShapedArray:
    check_matrices("triangular_solve", a, b, square=False)
    m = a.shape[-1]
    if a.shape[-2] != m or b.shape[-2 if left_side else -1] != m:
        side = "rows" if left_side else "columns"
        raise ValueError(f"triangular_solve: a must be square and b must have as many {side} "
                         f"as a has columns; got {a.str_short()} and {b.str_short()}")
    return b


@triangular_solve_p.def_jvp
def _triangular_solve_jvp(primals: tuple, tangents: tuple, **params: Any) -> tuple:
    # X_dot = op(A)^-1 (B_dot - op(A_dot) X)   (left side)
    #       = (B_dot - X op(A_dot)) op(A)^-1   (right side), A_dot masked to the triangle read
    a, b = primals
    a_dot, b_dot = tangents
    x = triangular_solve(a, b, **params)
    rhs: Any = None if isinstance(b_dot, Zero) else b_dot
    if not isinstance(a_dot, Zero):
        g = triangle(a_dot, params["lower"], params["unit_diagonal"])
        g = mT(g) if params["transpose_a"] else g
        term = matmul(g, x) if params["left_side"] else matmul(x, g)
        rhs = ew.neg(term) if rhs is None else ew.sub(rhs, term)
    if rhs is None:
        return x, Zero(get_aval(x))
    return x, triangular_solve(a, rhs, **params)


@triangular_solve_p.def_transpose
def _triangular_solve_transpose(ct: Any, a: Any, b: Any, *, left_side: bool, lower: bool,
                                transpose_a: bool, unit_diagonal: bool) -> tuple:
    # ct_b = op(A)^-T ct (left) or ct op(A)^-T (right): the same solve, transpose_a flipped
    if isinstance(a, UndefPrimal):
        raise TypeError("triangular_solve: transpose is defined only for a linear b; a is not "
                        "linear")
    return None, triangular_solve(a, ct, left_side=left_side, lower=lower,
                                  transpose_a=not transpose_a, unit_diagonal=unit_diagonal)


@triangular_solve_p.def_batch
def _triangular_solve_batch(axis_size: int, vals: tuple, dims: tuple, **params: Any) -> tuple:
    (a, b), (da, db) = vals, dims
    if da is not None:
        return batch_to_front(triangular_solve_p, axis_size, vals, dims, **params)
    # An unbatched a: the batch joins b's columns (left side) or rows (right side), one solve.
    shape = get_aval(b).shape
    n = len(shape)
    if params["left_side"]:  # (..., m, k, B) -> (..., m, k B)
        b = st.moveaxis(b, db, n - 1)
        moved = get_aval(b).shape
        flat = st.reshape(b, (*moved[:-2], moved[-2] * moved[-1]))
        out_dim = n - 1
    else:  # (..., k, B, m) -> (..., k B, m)
        b = st.moveaxis(b, db, n - 2)
        moved = get_aval(b).shape
        flat = st.reshape(b, (*moved[:-3], moved[-3] * moved[-2], moved[-1]))
        out_dim = n - 2
    return st.reshape(triangular_solve(a, flat, **params), moved), out_dim


# --------------------------------------------------------------------------- cholesky

cholesky_p = Primitive("cholesky")


def cholesky(a: Any) -> Any:
    """The lower Cholesky factor ``L`` (``a = L L^T``) of the symmetric matrix whose lower
    triangle is ``a``'s (the upper triangle is not read). Not positive definite: NaN in the
    lower triangle, as JAX."""
    return cholesky_p.bind(a)


@cholesky_p.def_impl
def _cholesky_impl(a: np.ndarray) -> np.ndarray:
    try:
        return np.linalg.cholesky(a)  # (LAPACK's potrf on the lower triangle)
    except np.linalg.LinAlgError:
        pass
    # Some matrix of the stack is not positive definite: factor them one by one (only on this
    # failure path), NaN where LAPACK fails.
    n = a.shape[-1]
    flat = a.reshape(-1, n, n)
    out = np.zeros_like(flat)
    for i, m in enumerate(flat):
        try:
            out[i] = np.linalg.cholesky(m)
        except np.linalg.LinAlgError:
            out[i] = np.where(tri_mask(n, n, 0, lower=True), np.nan, 0.0)
    return out.reshape(a.shape)


@cholesky_p.def_abstract_eval
def _cholesky_abstract_eval(a: ShapedArray) -> ShapedArray:
    check_matrices("cholesky", a)
    return a


@cholesky_p.def_jvp
def _cholesky_jvp(primals: tuple, tangents: tuple) -> tuple:
    # L_dot = L phi(L^-1 S L^-T), S the symmetric tangent whose lower triangle is A_dot's,
    # phi(X) = the lower triangle of X with its diagonal halved
    (a,), (a_dot,) = primals, tangents
    low = cholesky(a)
    s = ew.add(tril(a_dot), mT(tril(a_dot, -1)))
    s_lt = triangular_solve(low, s, left_side=False, transpose_a=True, lower=True)
    inner = triangular_solve(low, s_lt, left_side=True, lower=True)
    n = get_aval(a).shape[-1]
    phi = np.where(np.eye(n, dtype=bool), 0.5, tri_mask(n, n, 0, lower=True))
    return low, matmul(low, scale(inner, phi))


cholesky_p.def_batch(partial(batch_to_front, cholesky_p))

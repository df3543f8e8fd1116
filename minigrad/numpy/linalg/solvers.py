"""Solvers and determinants of ``minigrad.numpy.linalg``: ``solve``, ``inv``, ``det``,
``slogdet``, ``pinv``, ``lstsq``, ``matrix_power``, ``matrix_rank``, ``tensorsolve``,
``tensorinv``, over the LU, triangular-solve and SVD primitives.

``solve``, ``det``, ``slogdet`` and ``pinv`` carry their own JVPs (``custom_jvp``), JAX's
formulas: the derivative of a solve is another solve with the same factorization, the
determinant's is the adjugate's trace (also at singular matrices), and the pseudo-inverse's is
Golub and Pereyra's. docs/linalg.md writes each out.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from minigrad.core import get_aval
from minigrad.custom_rules import custom_jvp
from minigrad.dtypes import default_int_dtype
from minigrad.numpy.linalg import fast
from minigrad.numpy.linalg._common import (
    abs_,
    batch_shape,
    full_like,
    matrix_operand,
    min_,
    prod_last,
    sign_,
    to_batch,
)
from minigrad.numpy.linalg.complex_embedding import complex_pinv
from minigrad.numpy.linalg.decompositions import svd, symmetrize
from minigrad.numpy.util import ArrayLike, asarray, copy_of, result_dtype
from minigrad.ops import elementwise as ew
from minigrad.ops import structural as st
from minigrad.ops.linalg import diag_embed, diagonal, matmul, mT, triangular_solve
from minigrad.ops.linalg_factor import lu, lu_solve, permute_rows

__all__ = ["SlogdetResult", "det", "inv", "lstsq", "matrix_power", "matrix_rank", "pinv",
           "slogdet", "solve", "tensorinv", "tensorsolve"]


class SlogdetResult(NamedTuple):
    sign: Any
    logabsdet: Any


def _float_pair(a: ArrayLike, b: ArrayLike, fn: str) -> tuple[Any, Any]:
    a, b = asarray(a), asarray(b)
    for name, x in (("a", a), ("b", b)):
        if get_aval(x).dtype.kind not in "biuf":
            raise TypeError(f"{fn}: {name} must be a real numeric array; got "
                            f"{get_aval(x).dtype}")
    dtype = result_dtype(a, b)
    dtype = dtype if dtype.kind == "f" else result_dtype(a, b, 1.0)
    return ew.convert_element_type(a, dtype), ew.convert_element_type(b, dtype)


# --------------------------------------------------------------------------- solve, inv


@custom_jvp
def _solve(a: Any, b: Any) -> Any:
    factor, _, perm = lu(a)
    return lu_solve(factor, perm, b)


@_solve.defjvp
def _solve_jvp(primals: tuple, tangents: tuple) -> tuple:
    # x_dot = A^-1 (b_dot - A_dot x), with A's factorization: reverse mode gives JAX's
    # ct_b = A^-T ct and ct_A = -ct_b x^T
    a, b = primals
    a_dot, b_dot = tangents
    factor, _, perm = lu(a)
    x = lu_solve(factor, perm, b)
    return x, lu_solve(factor, perm, ew.sub(b_dot, matmul(a_dot, x)))


def solve(a: ArrayLike, b: ArrayLike) -> Any:
    """``x`` with ``a @ x = b``: ``b`` of shape ``(n,)`` is one vector, otherwise ``(..., n,
    k)``; batch dimensions broadcast (NumPy 2's rule). Singular ``a``: infinities and NaNs,
    no error (NumPy raises LinAlgError)."""
    x = fast.solve(a, b)
    if x is not None:
        return x
    a, b = _float_pair(a, b, "solve")
    a = matrix_operand(a, "solve")
    n = get_aval(a).shape[-1]
    b_shape = get_aval(b).shape
    vector = len(b_shape) == 1
    if len(b_shape) == 0 or b_shape[-1 if vector else -2] != n:
        raise ValueError(f"solve: b must have shape ({n},) or (..., {n}, k) to match a of "
                         f"shape {get_aval(a).shape}; got {b_shape}")
    if vector:
        b = st.reshape(b, (n, 1))
    batch = batch_shape("solve", get_aval(a).shape[:-2], get_aval(b).shape[:-2])
    x = _solve(to_batch(a, batch, 2), to_batch(b, batch, 2))
    return st.reshape(x, (*batch, n)) if vector else x


def inv(a: ArrayLike) -> Any:
    """The inverse, ``solve(a, I)``. Singular: infinities and NaNs (NumPy raises)."""
    fast_inv = fast.inv(a)
    if fast_inv is not None:
        return fast_inv
    x = matrix_operand(a, "inv")
    n = get_aval(x).shape[-1]
    batch = get_aval(x).shape[:-2]
    return _solve(x, st.broadcast_to(np.eye(n, dtype=get_aval(x).dtype), (*batch, n, n)))


# --------------------------------------------------------------------------- det, slogdet


def _pivot_sign(pivots: Any, dtype: np.dtype) -> Any:
    """det(P) of the row swaps: -1 to the number of pivots that moved a row."""
    n = get_aval(pivots).shape[-1]
    moved = ew.ne(pivots, st.broadcast_to(np.arange(n, dtype=np.int32), get_aval(pivots).shape))
    minus = full_like(ew.convert_element_type(moved, dtype), -1)
    return prod_last(ew.select(moved, minus, full_like(minus, 1)))


@custom_jvp
def _det_lu(a: Any) -> Any:
    factor, pivots, _ = lu(a)
    dtype = get_aval(a).dtype
    return ew.mul(_pivot_sign(pivots, dtype), prod_last(diagonal(factor)))


@_det_lu.defjvp
def _det_lu_jvp(primals: tuple, tangents: tuple) -> tuple:
    # det_dot = tr(adj(A) A_dot), exact at singular A of rank n - 1 too. With P A = L U,
    # adj(A) = det(P) adj(U) L^-1 P; for U's smallest pivot u_kk, U' = U with u_kk -> 1 and
    # p = the product of the other pivots, adj(U) = p (u_kk U'^-1 + (1 - u_kk) x y^T) with
    # x = U'^-1 e_k, y^T = e_k^T U'^-1 (adj is affine in u_kk). No division by a small pivot.
    (a,), (a_dot,) = primals, tangents
    factor, pivots, perm = lu(a)
    dtype = get_aval(a).dtype
    sign = _pivot_sign(pivots, dtype)
    d = diagonal(factor)
    mag = abs_(d)
    smallest = ew.eq(mag, st.broadcast_to(st.expand_dims(min_(mag, (get_aval(d).ndim - 1,)),
                                                         (get_aval(d).ndim - 1,)),
                                          get_aval(d).shape))
    count = st.cumsum(ew.convert_element_type(smallest, np.int32), get_aval(d).ndim - 1)
    first = ew.convert_element_type(ew.eq(count, full_like(count, 1)), np.bool_)
    first = ew.select(smallest, first, ew.convert_element_type(full_like(count, 0), np.bool_))
    e_k = ew.convert_element_type(first, dtype)
    u_kk = st.reduce_sum(ew.mul(e_k, d), (get_aval(d).ndim - 1,))
    d_prime = ew.select(first, full_like(d, 1), d)  # U' 's diagonal
    p = prod_last(d_prime)
    # With two or more zero pivots p = 0 and so is the adjugate (rank <= n - 2 here); U' is
    # made invertible anyway, so that 0 * inf never appears.
    safe = ew.select(ew.eq(d_prime, full_like(d, 0)), full_like(d, 1), d_prime)
    u_prime = ew.add(factor, diag_embed(ew.sub(safe, d)))
    g = triangular_solve(factor, permute_rows(a_dot, perm), left_side=True, lower=True,
                         unit_diagonal=True)
    h = triangular_solve(u_prime, g, left_side=True, lower=False)  # U'^-1 L^-1 P A_dot
    x = triangular_solve(u_prime, st.expand_dims(e_k, (get_aval(e_k).ndim,)), left_side=True,
                         lower=False)
    hx = st.squeeze(matmul(h, x), (get_aval(x).ndim - 1,))
    e_h_x = st.reduce_sum(ew.mul(e_k, hx), (get_aval(d).ndim - 1,))
    trace_h = st.reduce_sum(diagonal(h), (get_aval(d).ndim - 1,))
    det = ew.mul(sign, ew.mul(p, u_kk))
    scale = ew.mul(sign, ew.mul(p, ew.sub(full_like(u_kk, 1), u_kk)))
    return det, ew.add(ew.mul(det, trace_h), ew.mul(scale, e_h_x))


def _entry(a: Any, i: int, j: int) -> Any:
    batch = get_aval(a).shape[:-2]
    nb = len(batch)
    part = st.slice_array(a, (0,) * nb + (i, j), (*batch, i + 1, j + 1))
    return st.reshape(part, tuple(batch))


def det(a: ArrayLike) -> Any:
    """The determinant: explicit formulas for 1x1, 2x2 and 3x3 (as JAX), otherwise the
    product of U's diagonal from the LU factorization (NumPy's value), with the adjugate as
    its derivative; 1 for 0x0."""
    fast_det = fast.det(a)
    if fast_det is not None:
        return fast_det
    x = matrix_operand(a, "det")
    *batch, n, _ = get_aval(x).shape
    if n == 0:
        return st.full(tuple(batch), 1, get_aval(x).dtype)
    if n > 3:
        return _det_lu(x)
    e = [[_entry(x, i, j) for j in range(n)] for i in range(n)]
    if n == 1:
        return copy_of(e[0][0])  # (a slice of a: NumPy's det is a new array)
    if n == 2:
        return ew.sub(ew.mul(e[0][0], e[1][1]), ew.mul(e[0][1], e[1][0]))
    terms = []
    for (i, j, k), plus in (((0, 1, 2), True), ((1, 2, 0), True), ((2, 0, 1), True),
                            ((2, 1, 0), False), ((0, 2, 1), False), ((1, 0, 2), False)):
        term = ew.mul(ew.mul(e[0][i], e[1][j]), e[2][k])
        terms.append(term if plus else ew.neg(term))
    total = terms[0]
    for t in terms[1:]:
        total = ew.add(total, t)
    return total


@custom_jvp
def _slogdet_lu(a: Any) -> tuple[Any, Any]:
    factor, pivots, _ = lu(a)
    d = diagonal(factor)
    sign = ew.mul(_pivot_sign(pivots, get_aval(a).dtype), prod_last(sign_(d)))
    with np.errstate(divide="ignore"):  # log 0 = -inf: a singular matrix
        logs = ew.log(abs_(d))
    return sign, st.reduce_sum(logs, (get_aval(d).ndim - 1,))


@_slogdet_lu.defjvp
def _slogdet_lu_jvp(primals: tuple, tangents: tuple) -> tuple:
    # logabsdet_dot = tr(A^-1 A_dot); sign_dot = 0
    (a,), (a_dot,) = primals, tangents
    sign, logabsdet = _slogdet_lu(a)
    factor, _, perm = lu(a)
    solved = lu_solve(factor, perm, a_dot)
    return (sign, logabsdet), (full_like(sign, 0),
                               st.reduce_sum(diagonal(solved), (get_aval(sign).ndim,)))


def slogdet(a: ArrayLike, *, method: str | None = None) -> SlogdetResult:
    """``SlogdetResult(sign, logabsdet)`` from the LU factorization: a singular matrix gives
    sign 0 and logabsdet -inf; the derivative of logabsdet is ``tr(a^-1 a_dot)``."""
    if method not in (None, "lu"):
        raise NotImplementedError(f"slogdet: method must be None or 'lu' ('qr' is not "
                                  f"supported); got {method!r}")
    fast_result = fast.slogdet(a)
    if fast_result is not None:
        return tuple.__new__(SlogdetResult, fast_result)  # (its __new__ costs ~0.1 us more)
    x = matrix_operand(a, "slogdet")
    *batch, n, _ = get_aval(x).shape
    if n == 0:
        dtype = get_aval(x).dtype
        return SlogdetResult(st.full(tuple(batch), 1, dtype), st.full(tuple(batch), 0, dtype))
    return SlogdetResult(*_slogdet_lu(x))


# --------------------------------------------------------------------------- pinv, lstsq


def _default_rtol(m: int, n: int, dtype: np.dtype) -> float:
    return 10.0 * max(m, n) * float(np.finfo(dtype).eps)


def _pinv_value(a: Any, rtol: Any, hermitian: bool) -> Any:
    *batch, m, n = get_aval(a).shape
    dtype = get_aval(a).dtype
    if rtol is None:
        rtol = _default_rtol(m, n, dtype)
    rtol = ew.convert_element_type(asarray(rtol), dtype)
    u, s, vh = svd(a, full_matrices=False, hermitian=hermitian)
    k = get_aval(s).shape[-1]
    nb = len(batch)
    largest = st.slice_array(s, (0,) * (nb + 1), (*batch, 1))
    cutoff = ew.mul(st.broadcast_to(rtol, (*batch, 1)) if get_aval(rtol).ndim == 0 else
                    st.reshape(st.broadcast_to(rtol, tuple(batch)), (*batch, 1)), largest)
    kept = ew.gt(s, st.broadcast_to(cutoff, (*batch, k)))
    inv_s = ew.select(kept, ew.div(full_like(s, 1), ew.select(kept, s, full_like(s, 1))),
                      full_like(s, 0))
    scaled = ew.mul(mT(u), st.broadcast_in_dim(inv_s, (*batch, k, m), tuple(range(nb + 1))))
    return matmul(mT(vh), scaled)


def _pinv_fun(a: Any, rtol: Any, hermitian: bool) -> Any:
    return _pinv_value(a, rtol, hermitian)


_pinv = custom_jvp(_pinv_fun, nondiff_argnums=(2,))


@_pinv.defjvp
def _pinv_jvp(hermitian: bool, primals: tuple, tangents: tuple) -> tuple:
    # Golub and Pereyra: P_dot = -P A_dot P + P P^T A_dot^T (I - A P) + (I - P A) A_dot^T P^T P
    # (the products grouped by shape, as JAX); rtol is a cutoff, not differentiated
    a, rtol = primals
    a_dot = tangents[0]
    p = _pinv(a, rtol, hermitian)
    if hermitian:
        a, a_dot = symmetrize(a), symmetrize(a_dot)
    m, n = get_aval(a).shape[-2:]
    at_dot, pt = mT(a_dot), mT(p)
    if m >= n:
        s = matmul(matmul(p, pt), at_dot)
        t = matmul(matmul(at_dot, pt), p)
        p_dot = ew.add(ew.sub(ew.sub(s, matmul(matmul(p, a_dot), p)), matmul(matmul(s, a), p)),
                       ew.sub(t, matmul(matmul(p, a), t)))
    else:
        s = matmul(p, matmul(pt, at_dot))
        t = matmul(at_dot, matmul(pt, p))
        p_dot = ew.add(ew.sub(ew.sub(s, matmul(p, matmul(a_dot, p))), matmul(s, matmul(a, p))),
                       ew.sub(t, matmul(p, matmul(a, t))))
    return p, p_dot


def pinv(a: ArrayLike, rtol: ArrayLike | None = None, hermitian: bool = False, *,
         rcond: ArrayLike | None = None) -> Any:
    """The Moore-Penrose pseudo-inverse through the SVD: singular values at most ``rtol``
    times the largest are dropped; ``rtol`` defaults to JAX's ``10 max(m, n) eps`` (NumPy's
    ``rcond`` default is 1e-15). ``pinv(0) = 0``, with a zero derivative."""
    if rcond is not None:
        if rtol is not None:
            raise ValueError("pinv: give rtol or rcond (its old name), not both")
        rtol = rcond
    if get_aval(asarray(a)).dtype.kind == "c":  # (through the real embedding)
        return complex_pinv(asarray(a), rtol, bool(hermitian), _pinv, _default_rtol)
    x = matrix_operand(a, "pinv", square=bool(hermitian))
    *batch, m, n = get_aval(x).shape
    if m == 0 or n == 0:
        return st.full((*batch, n, m), 0, get_aval(x).dtype)
    return _pinv(x, rtol, bool(hermitian))


def lstsq(a: ArrayLike, b: ArrayLike, rcond: float | None = None, *,
          numpy_resid: bool = False) -> tuple[Any, Any, Any, Any]:
    """``(x, residuals, rank, s)``: the least-squares solution of ``a @ x = b`` through the
    SVD (2-D ``a``; ``b`` of shape ``(m,)`` or ``(m, k)``). The residuals are always computed
    (JAX's default); ``numpy_resid=True`` gives NumPy's empty ones when rank < n or m <= n."""
    a, b = _float_pair(a, b, "lstsq")
    a_shape, b_shape = get_aval(a).shape, get_aval(b).shape
    if len(a_shape) != 2 or len(b_shape) not in (1, 2) or b_shape[0] != a_shape[0]:
        raise ValueError(f"lstsq: a must be (m, n) and b (m,) or (m, k) with the same m; got "
                         f"{a_shape} and {b_shape}")
    m, n = a_shape
    vector = len(b_shape) == 1
    if vector:
        b = st.reshape(b, (m, 1))
    dtype = get_aval(a).dtype
    eps = float(np.finfo(dtype).eps)
    cut = eps * max(m, n) if rcond is None else (eps if rcond < 0 else float(rcond))
    u, s, vt = svd(a, full_matrices=False)
    k = min(m, n)
    if k:
        top = st.broadcast_to(st.slice_array(s, (0,), (1,)), (k,))
        mask = ew.select(ew.gt(s, full_like(s, 0)),
                         ew.ge(s, ew.mul(full_like(s, cut), top)),
                         ew.convert_element_type(full_like(s, 0), np.bool_))
        s_inv = ew.select(mask, ew.div(full_like(s, 1), ew.select(mask, s, full_like(s, 1))),
                          full_like(s, 0))
        rank = st.reduce_sum(ew.convert_element_type(mask, default_int_dtype()), (0,))
        ut_b = matmul(mT(u), b)
        scaled = ew.mul(st.broadcast_in_dim(s_inv, get_aval(ut_b).shape, (0,)), ut_b)
        x = matmul(mT(vt), scaled)
    else:
        rank = st.full((), 0, default_int_dtype())
        x = st.full((n, get_aval(b).shape[1]), 0, dtype)
    r = ew.sub(b, matmul(a, x))
    resid = st.reduce_sum(ew.mul(r, r), (0,))  # (JAX squares a norm: NaN gradient at 0)
    if numpy_resid and (m <= n or int(rank) < n):  # NumPy's empty residuals (needs rank)
        resid = st.full((0,), 0, dtype)
    if vector:
        x = st.reshape(x, (n,))
    return x, resid, rank, s


# --------------------------------------------------------------------------- powers, rank


def matrix_power(a: ArrayLike, n: int) -> Any:
    """``a`` to the integer power ``n`` by repeated squaring; ``n < 0`` inverts first, ``n =
    0`` gives the identity (integer matrices keep their dtype for n >= 0)."""
    x = asarray(a)
    shape = get_aval(x).shape
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(f"matrix_power: a must be square in its last two axes (..., m, m); "
                         f"got shape {shape}")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"matrix_power: n must be an integer; got {n!r}")
    n = int(n)
    if n == 0:  # (a constant: an eager array even under a transform, as JAX's)
        return asarray(np.array(np.broadcast_to(np.eye(shape[-1], dtype=get_aval(x).dtype),
                                                shape)))
    if n < 0:
        x, n = inv(x), -n
    result, square = None, x
    while n:
        n, bit = divmod(n, 2)
        if bit:
            result = square if result is None else matmul(result, square)
        if n:
            square = matmul(square, square)
    return result


def matrix_rank(M: ArrayLike, rtol: ArrayLike | None = None, *, hermitian: bool = False,
                tol: ArrayLike | None = None) -> Any:
    """The number of singular values above ``rtol`` times the largest (``rtol`` defaults to
    ``max(m, n) eps``; ``tol`` is JAX's alias of ``rtol``, where NumPy's ``tol`` is an
    absolute threshold)."""
    if tol is not None:
        if rtol is not None:
            raise ValueError("matrix_rank: give rtol or tol (its alias), not both")
        rtol = tol
    x = matrix_operand(M, "matrix_rank", "M", square=False, min_ndim=0)
    shape = get_aval(x).shape
    if len(shape) < 2:
        nonzero = ew.ne(x, full_like(x, 0))
        hits = st.reduce_sum(ew.convert_element_type(nonzero, get_aval(x).dtype),
                             tuple(range(len(shape))))
        return ew.convert_element_type(ew.gt(hits, st.full((), 0, get_aval(hits).dtype)),
                                       default_int_dtype())
    s = svd(x, full_matrices=False, compute_uv=False, hermitian=hermitian)
    *batch, k = get_aval(s).shape
    nb = len(batch)
    largest = ew.reduce_max(s, (nb,)) if k else st.full(tuple(batch), 0, get_aval(s).dtype)
    if rtol is None:
        bound = ew.mul(largest, full_like(largest, max(shape[-2:]) * np.finfo(
            get_aval(s).dtype).eps))
    else:
        bound = ew.mul(largest, st.broadcast_to(ew.convert_element_type(
            asarray(rtol), get_aval(s).dtype), tuple(batch)))
    above = ew.gt(s, st.broadcast_in_dim(bound, (*batch, k), tuple(range(nb))))
    # counted in s's float dtype: reduce_sum's impl widens int32 to int64 (x64 off)
    count = st.reduce_sum(ew.convert_element_type(above, get_aval(s).dtype), (nb,))
    return ew.convert_element_type(count, default_int_dtype())


def tensorinv(a: ArrayLike, ind: int = 2) -> Any:
    """The inverse of ``a`` seen as a square matrix of its first ``ind`` axes by the rest:
    ``tensordot(tensorinv(a), a, ind)`` is the identity (NumPy's definition)."""
    x = asarray(a)
    shape = get_aval(x).shape
    if not isinstance(ind, (int, np.integer)) or isinstance(ind, bool) or ind <= 0:
        raise ValueError(f"tensorinv: ind must be a positive integer; got {ind!r}")
    rows, cols = math.prod(shape[:ind]), math.prod(shape[ind:])
    if rows != cols:
        raise ValueError(f"tensorinv: the product of the first ind={ind} axes must equal the "
                         f"product of the rest; got shape {shape}")
    return st.reshape(inv(st.reshape(x, (rows, cols))), (*shape[ind:], *shape[:ind]))


def tensorsolve(a: ArrayLike, b: ArrayLike, axes: tuple[int, ...] | None = None) -> Any:
    """``x`` with ``tensordot(a, x, x.ndim) = b`` (NumPy's definition): ``a``'s leading axes
    match ``b``'s shape, the rest are ``x``'s; ``axes`` of ``a`` are moved to the end first."""
    a, b = _float_pair(a, b, "tensorsolve")
    if axes is not None:
        nd = get_aval(a).ndim
        moved = [int(ax) % nd for ax in axes]
        order = [i for i in range(nd) if i not in moved] + moved
        a = st.transpose(a, order)
    a_shape, b_shape = get_aval(a).shape, get_aval(b).shape
    x_shape = a_shape[len(b_shape):]
    rows, cols = math.prod(b_shape), math.prod(x_shape)
    if a_shape[:len(b_shape)] != b_shape or rows != cols:
        raise ValueError(f"tensorsolve: a's leading axes must be b's shape {b_shape} and the "
                         f"rest as large; got a of shape {a_shape}")
    x = solve(st.reshape(a, (rows, cols)), st.reshape(b, (rows,)))
    return st.reshape(x, x_shape)


"""Linear-algebra primitives, part 3: the symmetric eigendecomposition (``eigh``) and the
singular value decomposition (``svd``).

Conventions as in ``ops/linalg.py``: stacks of real floating matrices; JAX's JVP formulas
(docs/linalg.md writes them out). Both derivatives divide by differences of eigenvalues (of
squared singular values): repeated ones give infinities and NaNs in the vectors' derivatives,
as in JAX; the values' own derivatives are always defined.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from minigrad.core import Primitive, ShapedArray, get_aval
from minigrad.ops import elementwise as ew
from minigrad.ops import structural as st
from minigrad.ops.linalg import (
    batch_to_front,
    check_matrices,
    diagonal,
    eye_like,
    matmul,
    mT,
    tril,
    triu,
)


def _as_rows(v: Any, rows: int | None = None) -> Any:
    """``v`` ``(..., n)`` broadcast to ``(..., rows, n)`` (rows = n by default) with
    ``out[..., i, j] = v[..., j]``."""
    *batch, n = get_aval(v).shape
    nb = len(batch)
    return st.broadcast_in_dim(v, (*batch, n if rows is None else rows, n),
                               (*range(nb), nb + 1))


def _as_cols(v: Any) -> Any:
    """``out[..., i, j] = v[..., i]``."""
    shape = get_aval(v).shape
    nb = len(shape) - 1
    return st.broadcast_in_dim(v, (*shape, shape[-1]), tuple(range(nb + 1)))


def _reciprocal_gaps(gaps: Any) -> Any:
    """``1 / gaps`` off the diagonal and 0 on it (the diagonal of ``gaps`` is 0): built as
    ``1 / (gaps + I) - I``, JAX's way, so the diagonal never divides by zero."""
    aval = get_aval(gaps)
    eye = eye_like(gaps, aval.shape[-1])
    return ew.sub(ew.div(st.full(aval.shape, 1, aval.dtype), ew.add(gaps, eye)), eye)


# --------------------------------------------------------------------------- eigh

eigh_p = Primitive("eigh")
eigh_p.multiple_results = True


def eigh(a: Any, lower: bool = True) -> list[Any]:
    """``[v, w]`` (lax's order): the eigenvectors (columns of v) and ascending eigenvalues of
    the symmetric matrix whose ``lower`` (or upper) triangle is ``a``'s; the other triangle is
    not read. LAPACK's syevd, so LAPACK's signs."""
    return eigh_p.bind(a, lower=bool(lower))


@eigh_p.def_impl
def _eigh_impl(a: np.ndarray, *, lower: bool) -> list[np.ndarray]:
    w, v = np.linalg.eigh(a, UPLO="L" if lower else "U")
    return [v, w]


@eigh_p.def_abstract_eval
def _eigh_abstract_eval(a: ShapedArray, *, lower: bool) -> list[ShapedArray]:
    check_matrices("eigh", a)
    return [a, ShapedArray(a.shape[:-1], a.dtype)]


def symmetric_tangent(a_dot: Any, lower: bool) -> Any:
    """The tangent of the symmetric matrix a factorization reads from one triangle."""
    if lower:
        return ew.add(tril(a_dot), mT(tril(a_dot, -1)))
    return ew.add(triu(a_dot), mT(triu(a_dot, 1)))


@eigh_p.def_jvp
def _eigh_jvp(primals: tuple, tangents: tuple, *, lower: bool) -> tuple:
    # With S = V^T A_dot V:  w_dot = diag(S),  V_dot = V (F o S),
    # F_ij = 1 / (w_j - w_i) off the diagonal, 0 on it
    (a,), (a_dot,) = primals, tangents
    v, w = eigh(a, lower)
    s = matmul(matmul(mT(v), symmetric_tangent(a_dot, lower)), v)
    f = _reciprocal_gaps(ew.sub(_as_rows(w), _as_cols(w)))
    return [v, w], [matmul(v, ew.mul(f, s)), diagonal(s)]


eigh_p.def_batch(partial(batch_to_front, eigh_p))


# --------------------------------------------------------------------------- svd

svd_p = Primitive("svd")
svd_p.multiple_results = True


def svd(a: Any, full_matrices: bool = False, compute_uv: bool = True) -> list[Any]:
    """``[s, u, vt]`` (lax's order; ``[s]`` without ``compute_uv``): ``a = u diag(s) vt``,
    singular values descending, u ``(m, m)`` and vt ``(n, n)`` if ``full_matrices`` else
    ``(m, k)`` and ``(k, n)``, k = min(m, n) (LAPACK's gesdd, so LAPACK's signs)."""
    return svd_p.bind(a, full_matrices=bool(full_matrices), compute_uv=bool(compute_uv))


@svd_p.def_impl
def _svd_impl(a: np.ndarray, *, full_matrices: bool, compute_uv: bool) -> list[np.ndarray]:
    if not compute_uv:
        return [np.linalg.svd(a, compute_uv=False)]
    u, s, vt = np.linalg.svd(a, full_matrices=full_matrices)
    return [s, u, vt]


@svd_p.def_abstract_eval
def _svd_abstract_eval(a: ShapedArray, *, full_matrices: bool, compute_uv: bool
                       ) -> list[ShapedArray]:
    check_matrices("svd", a, square=False)
    *batch, m, n = a.shape
    k = min(m, n)
    s = ShapedArray((*batch, k), a.dtype)
    if not compute_uv:
        return [s]
    mu, nv = (m, n) if full_matrices else (k, k)
    return [s, ShapedArray((*batch, m, mu), a.dtype), ShapedArray((*batch, nv, n), a.dtype)]


@svd_p.def_jvp
def _svd_jvp(primals: tuple, tangents: tuple, *, full_matrices: bool, compute_uv: bool
             ) -> tuple:
    # With thin factors and S = U^T A_dot V:  s_dot = diag(S);  F_ij = 1 / (s_j^2 - s_i^2)
    # off the diagonal, 0 on it;  U_dot = U (F o (S Sigma + Sigma S^T)),
    # V_dot = V (F o (Sigma S + S^T Sigma)); plus (I - U U^T) A_dot V Sigma^-1 in U_dot when
    # m > n and (I - V V^T) A_dot^T U Sigma^-1 in V_dot when n > m; vt_dot = V_dot^T
    (a,), (a_dot,) = primals, tangents
    *_, m, n = get_aval(a).shape
    if compute_uv and full_matrices and m != n:
        raise NotImplementedError(
            "svd: the derivative of full_matrices=True singular vectors of a non-square "
            f"matrix is not implemented (JAX has none either); got {get_aval(a).str_short()}. "
            "Use full_matrices=False")
    s, u, vt = svd(a, full_matrices=False, compute_uv=True)
    v = mT(vt)
    ds_mat = matmul(matmul(mT(u), a_dot), v)
    ds = diagonal(ds_mat)
    if not compute_uv:
        return [s], [ds]
    s_row, s_col = _as_rows(s), _as_cols(s)
    f = _reciprocal_gaps(ew.mul(ew.add(s_row, s_col), ew.sub(s_row, s_col)))
    dss = ew.mul(s_row, ds_mat)  # S Sigma
    sds = ew.mul(s_col, ds_mat)  # Sigma S
    du = matmul(u, ew.mul(f, ew.add(dss, mT(dss))))
    dv = matmul(v, ew.mul(f, ew.add(sds, mT(sds))))
    if m > n:
        dav = matmul(a_dot, v)
        du = ew.add(du, ew.div(ew.sub(dav, matmul(u, matmul(mT(u), dav))), _as_rows(s, m)))
    if n > m:
        dau = matmul(mT(a_dot), u)
        dv = ew.add(dv, ew.div(ew.sub(dau, matmul(v, matmul(vt, dau))), _as_rows(s, n)))
    return [s, u, vt], [ds, du, mT(dv)]


svd_p.def_batch(partial(batch_to_front, svd_p))

"""The decompositions of ``minigrad.numpy.linalg``: ``cholesky``, ``eigh``, ``eigvalsh``,
``svd``, ``svdvals``, ``qr``, over the primitives of ``ops/linalg*.py``.

Every function takes stacks of matrices ``(..., m, n)`` and returns NumPy's named tuples.
Inputs that are read as symmetric are symmetrized first by default, ``(a + a^T) / 2``
(``symmetrize_input``, JAX's), so both triangles are read and the gradient is symmetric.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from minigrad.core import get_aval
from minigrad.numpy.linalg._common import abs_, matrix_operand, sign_
from minigrad.ops import elementwise as ew
from minigrad.ops import structural as st
from minigrad.ops.linalg import cholesky as cholesky_prim
from minigrad.ops.linalg import mT, symmetrize
from minigrad.ops.linalg_factor import qr as qr_prim
from minigrad.ops.linalg_factor import unpermute_rows
from minigrad.ops.linalg_spectral import eigh as eigh_prim
from minigrad.ops.linalg_spectral import svd as svd_prim

__all__ = ["EighResult", "QRResult", "SVDResult", "cholesky", "eigh", "eigvalsh", "qr", "svd",
           "svdvals"]


class EighResult(NamedTuple):
    eigenvalues: Any
    eigenvectors: Any


class SVDResult(NamedTuple):
    U: Any
    S: Any
    Vh: Any


class QRResult(NamedTuple):
    Q: Any
    R: Any


def cholesky(a: Any, *, upper: bool = False, symmetrize_input: bool = True) -> Any:
    """The Cholesky factor ``L`` (``a = L L^T``), or ``U = L^T`` with ``upper``; NaN where
    ``a`` is not positive definite (NumPy raises LinAlgError).

    >>> import minigrad.numpy as mnp
    >>> mnp.linalg.cholesky(mnp.array([[4.0, 2.0], [2.0, 5.0]]))
    Array([[2., 0.],
           [1., 2.]], dtype=float64)
    """
    x = matrix_operand(a, "cholesky")
    low = cholesky_prim(symmetrize(x) if symmetrize_input else x)
    return mT(low) if upper else low


def _lower(uplo: str | None, fn: str) -> bool:
    if uplo is None:
        return True
    if not isinstance(uplo, str) or uplo.upper() not in ("L", "U"):
        raise ValueError(f"{fn}: UPLO must be None, 'L' or 'U'; got {uplo!r}")
    return uplo.upper() == "L"


def eigh(a: Any, UPLO: str | None = None, symmetrize_input: bool = True) -> EighResult:
    """Eigenvalues (ascending) and eigenvectors (columns) of symmetric matrices. With
    ``symmetrize_input=False`` only the ``UPLO`` triangle ('L' by default) is read."""
    lower = _lower(UPLO, "eigh")
    x = matrix_operand(a, "eigh")
    v, w = eigh_prim(symmetrize(x) if symmetrize_input else x, lower)
    return EighResult(w, v)


def eigvalsh(a: Any, UPLO: str | None = "L", *, symmetrize_input: bool = True) -> Any:
    """The eigenvalues of symmetric matrices, ascending."""
    return eigh(a, UPLO, symmetrize_input).eigenvalues


def _descending_ranks(s: Any) -> Any:
    """The position of each entry of ``s`` (..., n) in a descending order, ties in reverse
    order of index (JAX's stable ascending sort, reversed; NumPy's argsort reversed): the
    count of entries greater, plus the count of equal ones after it."""
    *batch, n = get_aval(s).shape
    nb = len(batch)
    rows = st.broadcast_in_dim(s, (*batch, n, n), (*range(nb), nb + 1))  # [i, j] = s_j
    cols = st.broadcast_in_dim(s, (*batch, n, n), tuple(range(nb + 1)))  # [i, j] = s_i
    i64 = np.dtype(np.int64)
    later = st.broadcast_to(np.triu(np.ones((n, n), i64), 1), (*batch, n, n))
    ahead = ew.add(ew.convert_element_type(ew.gt(rows, cols), i64),
                   ew.mul(ew.convert_element_type(ew.eq(rows, cols), i64), later))
    return st.reduce_sum(ahead, (nb + 1,))


def _hermitian_svd(x: Any, compute_uv: bool) -> Any:
    # The singular values of a symmetric matrix are its eigenvalues' magnitudes; U holds the
    # eigenvectors in that order and Vh = (U * sign(w))^T (NumPy's and JAX's construction).
    v, w = eigh_prim(symmetrize(x), True)
    ranks = _descending_ranks(abs_(w))

    def order(vec: Any) -> Any:  # out[..., rank_i] = vec[..., i]
        return st.squeeze(unpermute_rows(st.expand_dims(vec, (get_aval(vec).ndim,)), ranks),
                          (get_aval(vec).ndim,))

    s = order(abs_(w))
    if not compute_uv:
        return s
    u = mT(unpermute_rows(mT(v), ranks))
    signs = order(sign_(w))
    n = get_aval(signs).shape[-1]
    nb = get_aval(signs).ndim - 1
    vh = mT(ew.mul(u, st.broadcast_in_dim(signs, (*get_aval(signs).shape[:-1], n, n),
                                          (*range(nb), nb + 1))))
    return SVDResult(u, s, vh)


def svd(a: Any, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False,
        subset_by_index: Any = None) -> Any:
    """``SVDResult(U, S, Vh)`` with ``a = U diag(S) Vh`` (S descending), or ``S`` alone
    without ``compute_uv``. ``hermitian``: the decomposition of the symmetrized ``a`` through
    ``eigh``, as NumPy and JAX."""
    if subset_by_index is not None:
        raise NotImplementedError("svd: subset_by_index is not supported (JAX supports it on "
                                  f"TPU only); got {subset_by_index!r}")
    x = matrix_operand(a, "svd", square=hermitian)
    if hermitian:
        return _hermitian_svd(x, compute_uv)
    if not compute_uv:
        return svd_prim(x, full_matrices, False)[0]
    s, u, vt = svd_prim(x, full_matrices, True)
    return SVDResult(u, s, vt)


def svdvals(x: Any, /) -> Any:
    """The singular values, descending (the array API's name)."""
    return svd(x, compute_uv=False)


def qr(a: Any, mode: str = "reduced") -> Any:
    """``QRResult(Q, R)`` with ``a = Q R``: modes 'reduced' (Q (m, k), R (k, n), k =
    min(m, n)), 'complete' (Q (m, m)) and 'r' (R alone). R's diagonal may be negative
    (LAPACK's signs, as NumPy and JAX)."""
    if mode not in ("reduced", "complete", "r"):
        if mode == "raw":
            raise NotImplementedError("qr: mode='raw' (Householder reflectors) is not "
                                      "supported; use 'reduced', 'complete' or 'r'")
        raise ValueError(f"qr: mode must be 'reduced', 'complete' or 'r'; got {mode!r}")
    x = matrix_operand(a, "qr", square=False)
    q, r = qr_prim(x, mode == "complete")
    return r if mode == "r" else QRResult(q, r)

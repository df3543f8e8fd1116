"""``minigrad.scipy.linalg``: jax.scipy.linalg's functions over minigrad's linear-algebra
primitives (``ops/linalg*.py``: triangular_solve, cholesky, lu, qr, eigh, svd).

Every function takes stacks of matrices ``(..., m, n)`` (JAX vectorizes SciPy's functions
over leading dimensions; batch dimensions of ``a`` and ``b`` broadcast). SciPy's
``overwrite_*`` and ``check_finite`` are accepted and ignored, as in JAX. The derivatives are
the primitives' (docs/linalg.md); ``solve(assume_a='pos')`` differentiates as JAX's
``custom_linear_solve``: ``x_dot = A^-1 (b_dot - A_dot x)`` with the Cholesky factors reused.
``cholesky`` and ``solve(assume_a='pos')`` read one triangle (SciPy's and JAX's contract):
their derivative is that of the function they compute, so they see only that triangle's
tangent (JAX's rules take the whole tangent; the two agree on symmetric tangents,
docs/divergences.md).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from minigrad import numpy as mnp
from minigrad.core import get_aval
from minigrad.custom_rules import custom_jvp
from minigrad.numpy.linalg import det as _det
from minigrad.numpy.linalg import eigh as _eigh
from minigrad.numpy.linalg import inv as _inv
from minigrad.numpy.linalg import qr as _qr
from minigrad.numpy.linalg import solve as _np_solve
from minigrad.numpy.linalg import svd as _svd
from minigrad.numpy.util import ArrayLike, asarray, check_broadcast, float_dtype
from minigrad.ops import linalg as la
from minigrad.ops import linalg_factor as lf
from minigrad.ops.linalg_pivot import qr_pivoted
from minigrad.scipy._expm import expm

__all__ = ["cho_factor", "cho_solve", "cholesky", "det", "eigh", "expm", "inv", "lu",
           "lu_factor", "lu_solve", "qr", "solve", "solve_triangular", "svd"]


def _matrix(fn: str, a: ArrayLike, name: str = "a", square: bool = True) -> Any:
    """``a`` as a floating array of at least two dimensions (square unless told)."""
    x = asarray(a)
    aval = get_aval(x)
    if aval.dtype.kind not in "biuf":
        raise TypeError(f"{fn}: {name} must be a real array; got dtype {aval.dtype}")
    if aval.ndim < 2:
        raise ValueError(f"{fn}: {name} must have at least 2 dimensions (..., m, n); got "
                         f"shape {aval.shape}")
    if square and aval.shape[-1] != aval.shape[-2]:
        raise ValueError(f"{fn}: {name} must be square; got shape {aval.shape}")
    return x


def _bool(fn: str, name: str, value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{fn}: {name} must be a bool; got {value!r}")
    return bool(value)


def _float_pair(fn: str, a: Any, b: ArrayLike) -> tuple[Any, Any]:
    b = asarray(b)
    if get_aval(b).dtype.kind not in "biuf":
        raise TypeError(f"{fn}: b must be a real array; got dtype {get_aval(b).dtype}")
    dtype = float_dtype(a, b)
    return mnp.asarray(a, dtype), mnp.asarray(b, dtype)


def _as_columns(fn: str, a: Any, b: Any) -> tuple[Any, Any, bool]:
    """``a`` ``(..., n, n)`` and ``b`` broadcast to one batch, ``b`` as ``(..., n, k)``; and
    whether ``b`` was a vector (JAX's rule: ``b.ndim == 1``, or, deprecated, a stack of
    vectors ``a.ndim == b.ndim + 1``)."""
    a_shape, b_shape = get_aval(a).shape, get_aval(b).shape
    n = a_shape[-1]
    vector = len(b_shape) == 1
    if not vector and len(a_shape) == len(b_shape) + 1 and b_shape[-1] == n:
        warnings.warn(f"{fn}: a stack of vectors b (b.ndim == a.ndim - 1) is deprecated in "
                      f"JAX; pass b[..., None] and squeeze the result", FutureWarning,
                      stacklevel=3)
        vector = True
    if len(b_shape) == 0 or b_shape[-1 if vector else -2] != n:
        raise ValueError(f"{fn}: b must have shape (..., {n}) or (..., {n}, k) to match a of "
                         f"shape {a_shape}; got {b_shape}")
    if vector:
        b = b[..., None]
    b_shape = get_aval(b).shape
    batch = check_broadcast(fn, a_shape[:-2], b_shape[:-2])
    return (mnp.broadcast_to(a, (*batch, n, n)), mnp.broadcast_to(b, (*batch, *b_shape[-2:])),
            vector)


# --------------------------------------------------------------------------- triangular solves

_TRANS = {0: False, "N": False, 1: True, "T": True, 2: True, "C": True}


def solve_triangular(a: ArrayLike, b: ArrayLike, trans: int | str = 0, lower: bool = False,
                     unit_diagonal: bool = False, overwrite_b: bool = False, debug: Any = None,
                     check_finite: bool = True) -> Any:
    """``x`` with ``op(a) x = b``, ``op`` the identity (``trans`` 0 or 'N') or the transpose
    (1, 'T', or 2, 'C' for real ``a``); only the ``lower`` (else upper) triangle of ``a`` is
    read, its diagonal taken as ones if ``unit_diagonal``.

    >>> import numpy as np
    >>> from minigrad.scipy.linalg import solve_triangular
    >>> solve_triangular(np.array([[2.0, 0.0], [1.0, 1.0]]), np.array([2.0, 3.0]), lower=True)
    Array([1., 2.], dtype=float64)
    """
    del overwrite_b, debug, check_finite
    fn = "solve_triangular"
    if isinstance(trans, bool) or not isinstance(trans, (int, str)) or trans not in _TRANS:
        raise ValueError(f"{fn}: trans must be 0, 1, 2, 'N', 'T' or 'C'; got {trans!r}")
    lower = _bool(fn, "lower", lower)
    unit_diagonal = _bool(fn, "unit_diagonal", unit_diagonal)
    a, b = _float_pair(fn, _matrix(fn, a), b)
    a, b, vector = _as_columns(fn, a, b)
    x = la.triangular_solve(a, b, left_side=True, lower=lower, transpose_a=_TRANS[trans],
                            unit_diagonal=unit_diagonal)
    return x[..., 0] if vector else x


# --------------------------------------------------------------------------- Cholesky

def _cholesky(a: Any, lower: bool) -> Any:
    # the factor of the triangle read: lower, or the upper one as a transposed lower
    low = la.cholesky(a if lower else la.mT(a))
    return low if lower else la.mT(low)


def cholesky(a: ArrayLike, lower: bool = False, overwrite_a: bool = False,
             check_finite: bool = True) -> Any:
    """The Cholesky factor of the symmetric positive definite ``a``: upper ``U`` with ``a =
    U^T U`` (SciPy's default), or lower ``L`` with ``a = L L^T``. Only that triangle of ``a``
    is read; not positive definite: NaN (SciPy raises).

    >>> import numpy as np
    >>> from minigrad.scipy.linalg import cholesky
    >>> cholesky(np.array([[4.0, 2.0], [2.0, 5.0]]))
    Array([[2., 1.],
           [0., 2.]], dtype=float64)
    """
    del overwrite_a, check_finite
    lower = _bool("cholesky", "lower", lower)
    x = _matrix("cholesky", a)
    return _cholesky(mnp.asarray(x, float_dtype(x)), lower)


def cho_factor(a: ArrayLike, lower: bool = False, overwrite_a: bool = False,
               check_finite: bool = True) -> tuple[Any, bool]:
    """``(c, lower)`` for ``cho_solve``: ``c`` is ``cholesky(a, lower)`` (zeros in the other
    triangle, where SciPy leaves whatever ``a`` had, as JAX)."""
    del overwrite_a, check_finite
    return cholesky(a, lower=lower), bool(lower)


def _cho_solve(c: Any, b: Any, lower: bool) -> Any:
    # a = L L^T: x = L^-T (L^-1 b); with an upper factor a = U^T U: x = U^-1 (U^-T b)
    y = la.triangular_solve(c, b, left_side=True, lower=lower, transpose_a=not lower)
    return la.triangular_solve(c, y, left_side=True, lower=lower, transpose_a=lower)


def cho_solve(c_and_lower: tuple[ArrayLike, bool], b: ArrayLike, overwrite_b: bool = False,
              check_finite: bool = True) -> Any:
    """``x`` with ``a x = b``, from ``(c, lower) = cho_factor(a)``.

    >>> import numpy as np
    >>> from minigrad.scipy.linalg import cho_factor, cho_solve
    >>> cho_solve(cho_factor(np.array([[4.0, 2.0], [2.0, 5.0]])), np.array([6.0, 7.0]))
    Array([1., 1.], dtype=float64)
    """
    del overwrite_b, check_finite
    fn = "cho_solve"
    if not isinstance(c_and_lower, (tuple, list)) or len(c_and_lower) != 2:
        raise TypeError(f"{fn}: c_and_lower must be a pair (c, lower) as cho_factor returns; "
                        f"got {type(c_and_lower).__name__}")
    c, lower = c_and_lower
    lower = _bool(fn, "lower (c_and_lower[1])", lower)
    c, b = _float_pair(fn, _matrix(fn, c, "c"), b)
    c, b, vector = _as_columns(fn, c, b)
    x = _cho_solve(c, b, lower)
    return x[..., 0] if vector else x


# --------------------------------------------------------------------------- solve, inv, det

def _pos_solve_value(a: Any, b: Any, lower: bool) -> Any:
    return _cho_solve(_cholesky(a, lower), b, lower)


_pos_solve = custom_jvp(_pos_solve_value, nondiff_argnums=(2,))


@_pos_solve.defjvp
def _pos_solve_jvp(lower: bool, primals: tuple, tangents: tuple) -> tuple:
    # x_dot = A^-1 (b_dot - S x), the solve reusing A's Cholesky factor; S the symmetric
    # tangent of the triangle read (JAX's custom_linear_solve takes A_dot whole: the two agree
    # on symmetric tangents)
    (a, b), (a_dot, b_dot) = primals, tangents
    factor = _cholesky(a, lower)
    x = _cho_solve(factor, b, lower)
    tri = la.tril if lower else la.triu
    s = tri(a_dot) + la.mT(tri(a_dot, -1 if lower else 1))
    return x, _cho_solve(factor, b_dot - la.matmul(s, x), lower)


def solve(a: ArrayLike, b: ArrayLike, lower: bool = False, overwrite_a: bool = False,
          overwrite_b: bool = False, debug: bool = False, check_finite: bool = True,
          assume_a: str = "gen") -> Any:
    """``x`` with ``a x = b``. ``assume_a``: 'gen', 'sym' and 'her' solve through LU
    (``minigrad.numpy.linalg.solve``); 'pos' through the Cholesky factor of the ``lower``
    (else upper) triangle."""
    del overwrite_a, overwrite_b, debug, check_finite
    if assume_a not in ("gen", "sym", "her", "pos"):
        raise ValueError(f"solve: assume_a must be one of 'gen', 'sym', 'her', 'pos'; got "
                         f"{assume_a!r}")
    lower = _bool("solve", "lower", lower)
    if assume_a != "pos":
        return _np_solve(a, b)
    a, b = _float_pair("solve", _matrix("solve", a), b)
    a_shape, b_shape = get_aval(a).shape, get_aval(b).shape
    vector = len(b_shape) == 1 or len(a_shape) == len(b_shape) + 1
    n = a_shape[-1]
    if len(b_shape) == 0 or b_shape[-1 if vector else -2] != n:
        raise ValueError(f"solve: b must have shape (..., {n}) or (..., {n}, k) to match a of "
                         f"shape {a_shape}; got {b_shape}")
    if vector:
        b = b[..., None]
    batch = check_broadcast("solve", a_shape[:-2], get_aval(b).shape[:-2])
    a = mnp.broadcast_to(a, (*batch, n, n))
    b = mnp.broadcast_to(b, (*batch, *get_aval(b).shape[-2:]))
    x = _pos_solve(a, b, lower)
    return x[..., 0] if vector else x


def inv(a: ArrayLike, overwrite_a: bool = False, check_finite: bool = True) -> Any:
    """The inverse (``minigrad.numpy.linalg.inv``)."""
    del overwrite_a, check_finite
    return _inv(a)


def det(a: ArrayLike, overwrite_a: bool = False, check_finite: bool = True) -> Any:
    """The determinant (``minigrad.numpy.linalg.det``)."""
    del overwrite_a, check_finite
    return _det(a)


# --------------------------------------------------------------------------- factorizations

def eigh(a: ArrayLike, b: ArrayLike | None = None, lower: bool = True,
         eigvals_only: bool = False, overwrite_a: bool = False, overwrite_b: bool = False,
         turbo: bool = True, eigvals: None = None, type: int = 1,
         check_finite: bool = True) -> Any:
    """``(w, v)``: eigenvalues ascending and eigenvectors (columns) of the symmetric ``a``
    (symmetrized, as JAX), or ``w`` alone with ``eigvals_only``. The generalized problem
    (``b``), ``type`` other than 1 and ``eigvals`` are not supported (as JAX)."""
    del overwrite_a, overwrite_b, turbo, check_finite
    if b is not None:
        raise NotImplementedError("eigh: only b=None is supported (as JAX)")
    if type != 1:
        raise NotImplementedError(f"eigh: only type=1 is supported (as JAX); got {type!r}")
    if eigvals is not None:
        raise NotImplementedError("eigh: only eigvals=None is supported (as JAX)")
    lower = _bool("eigh", "lower", lower)
    eigvals_only = _bool("eigh", "eigvals_only", eigvals_only)
    w, v = _eigh(_matrix("eigh", a), "L" if lower else "U")
    return w if eigvals_only else (w, v)


def svd(a: ArrayLike, full_matrices: bool = True, compute_uv: bool = True,
        overwrite_a: bool = False, check_finite: bool = True,
        lapack_driver: str = "gesdd") -> Any:
    """``(u, s, vh)`` with ``a = u diag(s) vh`` (s descending), or ``s`` alone."""
    del overwrite_a, check_finite
    if lapack_driver not in ("gesdd", "gesvd"):
        raise ValueError(f"svd: lapack_driver must be 'gesdd' or 'gesvd'; got "
                         f"{lapack_driver!r}")
    out = _svd(_matrix("svd", a, square=False), full_matrices=full_matrices,
               compute_uv=compute_uv)
    return tuple(out) if compute_uv else out


def qr(a: ArrayLike, overwrite_a: bool = False, lwork: Any = None, mode: str = "full",
       pivoting: bool = False, check_finite: bool = True) -> tuple[Any, ...]:
    """``(q, r)`` with ``a = q r``: ``mode`` 'full' (q ``(m, m)``), 'economic' (q ``(m, k)``)
    or 'r' (``(r,)`` alone). With ``pivoting``, ``(q, r, p)`` (or ``(r, p)``) with ``a[:, p]
    = q r``, ``p`` int32 and ``|diag(r)|`` non-increasing (LAPACK's geqp3 pivots;
    ``minigrad/ops/linalg_pivot.py``)."""
    del overwrite_a, lwork, check_finite
    pivoting = _bool("qr", "pivoting", pivoting)
    if mode not in ("full", "economic", "r"):
        raise ValueError(f"qr: mode must be 'full', 'economic' or 'r'; got {mode!r}")
    x = _matrix("qr", a, square=False)
    x = mnp.asarray(x, float_dtype(x))
    if pivoting:  # (qr-pivot)
        q, r, p = qr_pivoted(x, full_matrices=mode != "economic")
        return (r, p) if mode == "r" else (q, r, p)
    if mode == "r":
        return (_qr(x, "complete").R,)
    return tuple(_qr(x, "complete" if mode == "full" else "reduced"))


def _float_matrix(fn: str, a: ArrayLike, square: bool) -> Any:
    x = _matrix(fn, a, square=square)
    return mnp.asarray(x, float_dtype(x))


def lu(a: ArrayLike, permute_l: bool = False, overwrite_a: bool = False,
       check_finite: bool = True) -> tuple[Any, ...]:
    """``(p, l, u)`` with ``a = p l u`` (``p`` a permutation matrix, ``l`` unit lower ``(m,
    k)``, ``u`` upper ``(k, n)``), or ``(p l, u)`` with ``permute_l``.

    >>> import numpy as np
    >>> from minigrad.scipy.linalg import lu
    >>> p, l, u = lu(np.array([[1.0, 2.0], [3.0, 4.0]]))
    >>> u
    Array([[3.        , 4.        ],
           [0.        , 0.66666667]], dtype=float64)
    """
    del overwrite_a, check_finite
    permute_l = _bool("lu", "permute_l", permute_l)
    x = _float_matrix("lu", a, square=False)
    factors, _, perm = lf.lu(x)
    m, n = get_aval(x).shape[-2:]
    k = min(m, n)
    dtype = get_aval(x).dtype
    # p[i, j] = 1 where perm[j] == i: a[perm] = l u, so a = p l u
    p = mnp.asarray(perm[..., None, :] == mnp.arange(m, dtype=get_aval(perm).dtype)[:, None], dtype)
    low = mnp.tril(factors, -1)[..., :, :k] + mnp.eye(m, k, dtype=dtype)
    up = mnp.triu(factors)[..., :k, :]
    if permute_l:
        return la.matmul(p, low), up
    return p, low, up


def lu_factor(a: ArrayLike, overwrite_a: bool = False, check_finite: bool = True
              ) -> tuple[Any, Any]:
    """``(lu, piv)``: ``l`` (below the diagonal, unit) and ``u`` packed in one matrix, and the
    pivot rows (int32): row ``i`` was swapped with row ``piv[i]`` at step ``i``."""
    del overwrite_a, check_finite
    factors, pivots, _ = lf.lu(_float_matrix("lu_factor", a, square=False))
    return factors, pivots


def _pivots_to_permutation(pivots: Any, m: int) -> Any:
    """The row permutation the swaps ``pivots`` make, applied in order to ``arange(m)``: one
    step per pivot column (the swaps depend on each other), every matrix of a stack at
    once."""
    batch = get_aval(pivots).shape[:-1]
    rows = mnp.arange(m, dtype=np.int32)
    perm = mnp.broadcast_to(rows, (*batch, m))
    for i in range(get_aval(pivots).shape[-1]):
        p = pivots[..., i:i + 1]
        at_i = perm[..., i:i + 1]
        at_p = mnp.take_along_axis(perm, p, axis=-1)
        perm = mnp.where(rows == i, at_p, mnp.where(rows == p, at_i, perm))
    return perm


def lu_solve(lu_and_piv: tuple[ArrayLike, ArrayLike], b: ArrayLike, trans: int = 0,
             overwrite_b: bool = False, check_finite: bool = True) -> Any:
    """``x`` with ``a x = b`` (``trans`` 0) or ``a^T x = b`` (1, or 2 for real ``a``), from
    ``lu_factor(a)``."""
    del overwrite_b, check_finite
    fn = "lu_solve"
    if not isinstance(lu_and_piv, (tuple, list)) or len(lu_and_piv) != 2:
        raise TypeError(f"{fn}: lu_and_piv must be a pair (lu, piv) as lu_factor returns; "
                        f"got {type(lu_and_piv).__name__}")
    if isinstance(trans, bool) or trans not in (0, 1, 2):
        raise ValueError(f"{fn}: trans must be 0, 1 or 2; got {trans!r}")
    factors, pivots = lu_and_piv
    pivots = asarray(pivots)
    if get_aval(pivots).dtype.kind not in "iu":
        raise TypeError(f"{fn}: piv must be an integer array; got dtype "
                        f"{get_aval(pivots).dtype}")
    factors, b = _float_pair(fn, _matrix(fn, factors, "lu"), b)
    n = get_aval(factors).shape[-1]
    if get_aval(pivots).shape != get_aval(factors).shape[:-1]:
        raise ValueError(f"{fn}: piv must have shape {get_aval(factors).shape[:-1]} to match "
                         f"lu of shape {get_aval(factors).shape}; got "
                         f"{get_aval(pivots).shape}")
    perm = _pivots_to_permutation(pivots, n)
    factors, b, vector = _as_columns(fn, factors, b)
    batch = get_aval(factors).shape[:-2]
    perm = mnp.broadcast_to(perm, (*batch, n))
    x = lf.lu_solve(factors, perm, b, transpose=trans != 0)
    return x[..., 0] if vector else x

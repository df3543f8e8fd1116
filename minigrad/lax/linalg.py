"""``minigrad.lax.linalg``: JAX's ``jax.lax.linalg`` over minigrad's linear-algebra primitives
(``minigrad/ops/linalg*.py``, whose rules are JAX's formulas; docs/linalg.md).

lax's conventions, which differ from ``minigrad.numpy.linalg``'s: the eigenvectors come first
from ``eigh`` (``v, w``) and the singular values second from ``svd`` (``u, s, vh``); ``qr`` and
``svd`` default to full matrices; ``cholesky`` and ``eigh`` symmetrize their input first
unless told not to; ``triangular_solve`` defaults to a right-side solve with the upper
triangle; no function promotes an integer operand. Stacks of matrices as everywhere.

Not here (JAX has them): ``eig``, ``schur``, ``hessenberg``, ``householder_product``,
``ormqr``, ``tridiagonal``, ``cholesky_update`` and ``qdwh``. As minigrad's other linalg,
real matrices only (JAX also takes complex ones). JAX refuses ``subset_by_index`` on CPU and
GPU; here it selects from the full decomposition.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from minigrad.core import get_aval
from minigrad.lax.lax_ops import operand
from minigrad.ops import elementwise as ew
from minigrad.ops import linalg as la
from minigrad.ops import structural as st
from minigrad.ops.linalg_factor import lu as _lu
from minigrad.ops.linalg_factor import lu_p, qr_p
from minigrad.ops.linalg_factor import lu_pivots_to_permutation as _pivots_to_permutation
from minigrad.ops.linalg_factor import qr as _qr
from minigrad.ops.linalg_pivot import qr_pivoted
from minigrad.ops.linalg_spectral import eigh as _eigh
from minigrad.ops.linalg_spectral import eigh_p, svd_p
from minigrad.ops.linalg_spectral import svd as _svd
from minigrad.ops.linalg_tridiagonal import tridiagonal_solve as _tridiagonal_solve

__all__ = ["cholesky", "eigh", "lu", "lu_pivots_to_permutation", "qr", "svd",
           "symmetric_product", "triangular_solve", "tridiagonal_solve"]


def __dir__() -> list[str]:
    return list(__all__)  # (the namespace, not the module's imports)


def _floats(fn: str, *pairs: tuple[str, Any]) -> list[Any]:
    """The operands ``(name, value)`` as arrays of one real floating dtype (lax converts
    nothing: an integer matrix is refused, not promoted; JAX's cholesky, alone, promotes it
    on the way through its symmetrization)."""
    xs = [operand(x, f"lax.linalg.{fn}", name) for name, x in pairs]
    dtypes = [get_aval(x).dtype for x in xs]
    if any(d.kind != "f" for d in dtypes) or len(set(dtypes)) > 1:
        got = ", ".join(f"{name} {d.name}" for (name, _), d in zip(pairs, dtypes, strict=True))
        raise TypeError(f"lax.linalg.{fn}: operands must be real floating arrays of one dtype "
                        f"(lax converts nothing); got {got}")
    return xs


def _shapes(prim: Any, *xs: Any, **params: Any) -> None:
    """The primitive's shape rule on the operands, before any work (eagerly, a bind runs the
    impl alone, which would meet a wrong shape deep inside NumPy)."""
    prim.abstract_eval(*(get_aval(x) for x in xs), **params)


def _flag(fn: str, name: str, value: Any) -> bool:
    if type(value) is not bool:
        raise TypeError(f"lax.linalg.{fn}: {name} must be a bool; got {value!r}")
    return value


def _none(fn: str, name: str, value: Any) -> None:
    if value is not None:
        raise NotImplementedError(f"lax.linalg.{fn}: {name} is not supported (only None, "
                                  f"LAPACK's algorithm); got {value!r}")


def _subset(fn: str, subset_by_index: Any, size: int) -> slice | None:
    if subset_by_index is None:
        return None
    try:
        lo, hi = (operator.index(i) for i in subset_by_index)
    except (TypeError, ValueError):
        raise TypeError(f"lax.linalg.{fn}: subset_by_index must be a pair of ints (start, "
                        f"end); got {subset_by_index!r}") from None
    if not 0 <= lo <= hi <= size:
        raise ValueError(f"lax.linalg.{fn}: subset_by_index must satisfy 0 <= start <= end "
                         f"<= {size}; got {subset_by_index!r}")
    return slice(lo, hi)


def _last(x: Any, part: slice, axis: int = -1) -> Any:
    """``x`` sliced to ``part`` along ``axis`` (counted from the end)."""
    shape = get_aval(x).shape
    axis %= len(shape)
    start = [0] * len(shape)
    limit = list(shape)
    start[axis], limit[axis] = part.start, part.stop
    return st.slice_array(x, tuple(start), tuple(limit))


def cholesky(x: Any, *, symmetrize_input: bool = True) -> Any:
    """The lower Cholesky factor ``L`` of ``x`` (``x = L L^T``), ``x`` first replaced by
    ``(x + x^T) / 2`` if ``symmetrize_input``, else only its lower triangle read. Not
    positive definite: NaNs (no error), as JAX."""
    (x,) = _floats("cholesky", ("x", x))
    _shapes(la.cholesky_p, x)
    if _flag("cholesky", "symmetrize_input", symmetrize_input):
        x = la.symmetrize(x)
    return la.cholesky(x)


def eigh(x: Any, *, lower: bool = True, symmetrize_input: bool = True,
         sort_eigenvalues: bool = True, subset_by_index: tuple[int, int] | None = None,
         implementation: Any = None) -> tuple[Any, Any]:
    """``(v, w)``: the eigenvectors (the columns of ``v``) and the ascending eigenvalues of the
    symmetric ``x`` (symmetrized first if ``symmetrize_input``, else its ``lower`` or upper
    triangle read). ``subset_by_index=(start, end)``: eigenvalues start to end - 1 in
    ascending order and their vectors. LAPACK returns the eigenvalues sorted, so
    ``sort_eigenvalues=False`` gives the same order."""
    (x,) = _floats("eigh", ("x", x))
    lower = _flag("eigh", "lower", lower)
    _shapes(eigh_p, x, lower=lower)
    _flag("eigh", "sort_eigenvalues", sort_eigenvalues)
    _none("eigh", "implementation", implementation)
    if _flag("eigh", "symmetrize_input", symmetrize_input):
        x = la.symmetrize(x)
    v, w = _eigh(x, lower)
    part = _subset("eigh", subset_by_index, get_aval(w).shape[-1])
    if part is not None:
        v, w = _last(v, part), _last(w, part)
    return v, w


def lu(x: Any) -> tuple[Any, Any, Any]:
    """``(lu, pivots, permutation)`` with partial pivoting: ``x[..., permutation, :] = L U``,
    ``L`` unit lower below ``lu``'s diagonal and ``U`` upper on and above it; ``pivots[i]``
    (int32) the row swapped with row i at step i, ``permutation`` (int32) their product."""
    (x,) = _floats("lu", ("x", x))
    _shapes(lu_p, x)
    factor, pivots, perm = _lu(x)
    return factor, pivots, perm


def lu_pivots_to_permutation(pivots: Any, permutation_size: int) -> Any:
    """The permutation (int32, ``(..., permutation_size)``) of the row swaps ``pivots`` (int32,
    ``(..., k)``, k at most ``permutation_size``): entry i swapped with entry ``pivots[i]``
    for i = 0 .. k - 1 in turn. A pivot out of range is an IndexError (JAX: unspecified)."""
    pivots = operand(pivots, "lax.linalg.lu_pivots_to_permutation", "pivots")
    try:
        size = operator.index(permutation_size)
    except TypeError:
        raise TypeError(f"lax.linalg.lu_pivots_to_permutation: permutation_size must be an "
                        f"int; got {permutation_size!r}") from None
    return _pivots_to_permutation(pivots, size)


def qr(x: Any, *, pivoting: bool = False, full_matrices: bool = True,
       use_magma: bool | None = None) -> tuple[Any, ...]:
    """``(q, r)`` with ``x = q r`` (``q`` ``(..., m, m)`` and ``r`` ``(..., m, n)`` if
    ``full_matrices``, else ``(..., m, k)`` and ``(..., k, n)``, k = min(m, n)); with
    ``pivoting``, ``(q, r, p)`` with ``x[..., p] = q r`` (``p`` int32, LAPACK's geqp3
    pivots). ``use_magma`` (a GPU library's choice) is accepted and ignored."""
    del use_magma
    (x,) = _floats("qr", ("x", x))
    full = _flag("qr", "full_matrices", full_matrices)
    _shapes(qr_p, x, full_matrices=full)
    if _flag("qr", "pivoting", pivoting):
        q, r, p = qr_pivoted(x, full)
        return q, r, p
    q, r = _qr(x, full)
    return q, r


def svd(x: Any, *, full_matrices: bool = True, compute_uv: bool = True,
        subset_by_index: tuple[int, int] | None = None, algorithm: Any = None) -> Any:
    """``(u, s, vh)`` with ``x = u diag(s) vh``, ``s`` descending; ``u`` ``(..., m, m)`` and
    ``vh`` ``(..., n, n)`` if ``full_matrices``, else ``(..., m, k)`` and ``(..., k, n)``;
    ``s`` alone without ``compute_uv``. ``subset_by_index=(start, end)``: singular values
    start to end - 1 in descending order and their vectors (not with full matrices, as
    JAX)."""
    (x,) = _floats("svd", ("x", x))
    full = _flag("svd", "full_matrices", full_matrices)
    uv = _flag("svd", "compute_uv", compute_uv)
    _none("svd", "algorithm", algorithm)
    _shapes(svd_p, x, full_matrices=full, compute_uv=uv)
    if subset_by_index is not None and full:
        raise ValueError("lax.linalg.svd: full_matrices and subset_by_index cannot both be "
                         "set (as JAX)")
    aval = get_aval(x)
    part = _subset("svd", subset_by_index, min(aval.shape[-2:]) if aval.ndim >= 2 else 0)
    if not uv:
        (s,) = _svd(x, full, False)
        return s if part is None else _last(s, part)
    s, u, vh = _svd(x, full, True)
    if part is not None:
        u, s, vh = _last(u, part), _last(s, part), _last(vh, part, -2)
    return u, s, vh


def triangular_solve(a: Any, b: Any, *, left_side: bool = False, lower: bool = False,
                     transpose_a: bool = False, conjugate_a: bool = False,
                     unit_diagonal: bool = False) -> Any:
    """``x`` with ``op(a) @ x = b`` (``left_side``) or ``x @ op(a) = b`` (the default),
    ``op(a)`` being ``a`` or, with ``transpose_a``, its transpose; only the ``lower`` (or
    upper, the default) triangle of ``a`` is read, its diagonal taken as ones if
    ``unit_diagonal``. ``conjugate_a`` changes nothing for the real matrices minigrad takes."""
    a, b = _floats("triangular_solve", ("a", a), ("b", b))
    flags = {name: _flag("triangular_solve", name, value) for name, value in (
        ("left_side", left_side), ("lower", lower), ("transpose_a", transpose_a),
        ("unit_diagonal", unit_diagonal))}
    _flag("triangular_solve", "conjugate_a", conjugate_a)
    _shapes(la.triangular_solve_p, a, b, **flags)
    return la.triangular_solve(a, b, **flags)


def tridiagonal_solve(dl: Any, d: Any, du: Any, b: Any, *, perturb_singular: bool = False
                      ) -> Any:
    """``x`` with ``A x = b``, ``A`` tridiagonal with ``A[i, i-1] = dl[i]``, ``A[i, i] = d[i]``,
    ``A[i, i+1] = du[i]`` (each ``(..., m)``; ``dl[0]`` and ``du[m-1]`` are not read) and ``b``
    ``(..., m, k)``: Gaussian elimination with partial pivoting (LAPACK's gtsv, JAX's on
    CPU). A singular matrix gives NaN for its whole solution, as JAX's. Differentiable in all
    four operands. ``perturb_singular=True`` (JAX's perturbation of tiny pivots) is not
    supported."""
    dl, d, du, b = _floats("tridiagonal_solve", ("dl", dl), ("d", d), ("du", du), ("b", b))
    if _flag("tridiagonal_solve", "perturb_singular", perturb_singular):
        raise NotImplementedError("lax.linalg.tridiagonal_solve: perturb_singular=True is not "
                                  "supported")
    return _tridiagonal_solve(dl, d, du, b)


def symmetric_product(a_matrix: Any, c_matrix: Any, *, alpha: float = 1.0, beta: float = 0.0,
                      symmetrize_output: bool = False) -> Any:
    """``alpha a a^T + beta c`` for ``a`` ``(..., m, n)`` and a symmetric ``c`` ``(..., m, m)``;
    with ``symmetrize_output``, the upper triangle replaced by the lower one's transpose (JAX
    promises only the lower triangle otherwise; here the whole formula is computed).
    Differentiable (JAX's is not)."""
    a, c = _floats("symmetric_product", ("a_matrix", a_matrix), ("c_matrix", c_matrix))
    sym = _flag("symmetric_product", "symmetrize_output", symmetrize_output)
    for name, value in (("alpha", alpha), ("beta", beta)):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise TypeError(f"lax.linalg.symmetric_product: {name} must be a number; got "
                            f"{value!r}")
    a_aval, c_aval = get_aval(a), get_aval(c)
    m = a_aval.shape[-2] if a_aval.ndim >= 2 else -1
    if a_aval.ndim < 2 or c_aval.shape != (*a_aval.shape[:-2], m, m):
        raise ValueError(f"lax.linalg.symmetric_product: a_matrix must be (..., m, n) and "
                         f"c_matrix (..., m, m); got {a_aval.shape} and {c_aval.shape}")
    dtype = a_aval.dtype
    out = ew.mul(ew.full_like(c, np.asarray(alpha, dtype)), la.matmul(a, la.mT(a)))
    if beta != 0:  # (beta 0: c is not read, as BLAS's syrk; a NaN in it stays out)
        out = ew.add(out, ew.mul(ew.full_like(c, np.asarray(beta, dtype)), c))
    if sym:
        out = ew.add(la.tril(out), la.mT(la.tril(out, -1)))
    return out

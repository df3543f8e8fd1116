"""Linear-algebra primitives, part 5: the solve of a tridiagonal system (``tridiagonal_solve``,
``jax.lax.linalg.tridiagonal_solve``).

The matrix is given by its three diagonals, each ``(..., m)``: ``dl[i] = A[i, i-1]`` (``dl[0]``
is not read), ``d[i] = A[i, i]`` and ``du[i] = A[i, i+1]`` (``du[m-1]`` is not read); the right
side ``b`` is ``(..., m, k)``. The impl is Gaussian elimination with partial pivoting between
neighbouring rows (LAPACK's ``gtsv``, which JAX calls on CPU): an interchange fills in a second
superdiagonal. A singular matrix gives NaN for its whole solution, as JAX's.

Rules (the solve is linear in ``b``):

* JVP: ``x_dot = A^-1 (b_dot - A_dot x)``, ``A_dot x`` the tridiagonal product of the
  diagonals' tangents with ``x`` (``dl_dot[0]`` and ``du_dot[m-1]`` not read: their derivative is
  zero, as JAX's);
* transpose in ``b``: ``ct_b = A^-T ct``, the solve with ``A^T``'s diagonals: ``dl^T[i] =
  du[i-1]``, ``du^T[i] = dl[i+1]``;
* batching: the batch axis moved to the front of every operand (the impl takes stacks).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from minigrad.core import Primitive, ShapedArray, UndefPrimal, Zero, get_aval
from minigrad.ops import elementwise as ew
from minigrad.ops import structural as st
from minigrad.ops.linalg import batch_to_front

tridiagonal_solve_p = Primitive("tridiagonal_solve")


def tridiagonal_solve(dl: Any, d: Any, du: Any, b: Any) -> Any:
    """``x`` with ``A x = b`` for the tridiagonal ``A`` of diagonals ``dl``, ``d``, ``du``."""
    check_tridiagonal(*(get_aval(x) for x in (dl, d, du, b)))  # (eagerly too)
    return tridiagonal_solve_p.bind(dl, d, du, b)


def check_tridiagonal(dl: ShapedArray, d: ShapedArray, du: ShapedArray, b: ShapedArray) -> None:
    avals = (dl, d, du, b)
    if any(a.dtype.kind != "f" or a.dtype != d.dtype for a in avals):
        raise TypeError(f"tridiagonal_solve: dl, d, du and b must be real floating arrays of "
                        f"one dtype; got {', '.join(a.str_short() for a in avals)}")
    if d.ndim < 1 or dl.shape != d.shape or du.shape != d.shape:
        raise ValueError(f"tridiagonal_solve: dl, d and du must have one shape (..., m); got "
                         f"{dl.shape}, {d.shape}, {du.shape}")
    if b.ndim != d.ndim + 1 or b.shape[:-1] != d.shape:
        raise ValueError(f"tridiagonal_solve: b must have shape (..., m, k) with (..., m) the "
                         f"diagonals' shape {d.shape}; got {b.shape}")


@tridiagonal_solve_p.def_impl
def _tridiagonal_solve_impl(dl: np.ndarray, d: np.ndarray, du: np.ndarray, b: np.ndarray
                            ) -> np.ndarray:
    *batch, m, k = b.shape
    count = int(np.prod(batch, dtype=np.int64))
    if m == 0 or k == 0 or count == 0:
        return np.zeros(b.shape, b.dtype)
    sub = dl.reshape(count, m)[:, 1:].copy()  # A[i+1, i]
    diag = d.reshape(count, m).copy()
    sup = du.reshape(count, m)[:, :-1].copy()  # A[i, i+1]
    sup2 = np.zeros((count, max(m - 2, 0)), b.dtype)  # A[i, i+2], filled in by interchanges
    x = b.reshape(count, m, k).copy()
    regular = np.ones(count, bool)
    with np.errstate(all="ignore"):  # (a singular matrix's arithmetic: its result is NaN)
        for i in range(m - 1):
            _eliminate(i, sub, diag, sup, sup2, x, regular)
        regular &= diag[:, m - 1] != 0
        # back substitution with the upper factor (diagonals diag, sup, sup2)
        x[:, m - 1] /= diag[:, m - 1, None]
        if m > 1:
            x[:, m - 2] = (x[:, m - 2] - sup[:, m - 2, None] * x[:, m - 1]) / diag[:, m - 2, None]
        for i in range(m - 3, -1, -1):
            x[:, i] = (x[:, i] - sup[:, i, None] * x[:, i + 1]
                       - sup2[:, i, None] * x[:, i + 2]) / diag[:, i, None]
    x[~regular] = np.nan
    return x.reshape(b.shape)


def _eliminate(i: int, sub: np.ndarray, diag: np.ndarray, sup: np.ndarray, sup2: np.ndarray,
               x: np.ndarray, regular: np.ndarray) -> None:
    """Step i, in place, every matrix of the stack at once: rows i and i+1 interchanged where
    ``|A[i+1, i]| > |A[i, i]|``, then row i+1 loses its entry in column i."""
    swap = np.abs(diag[:, i]) < np.abs(sub[:, i])
    regular &= swap | (diag[:, i] != 0)  # (no interchange and a zero pivot: singular)
    pivot = np.where(swap, sub[:, i], diag[:, i])
    fact = np.where(swap, diag[:, i], sub[:, i]) / np.where(pivot == 0, 1, pivot)
    # row i is (pivot, u1, u2) after the interchange, row i+1 (., v1, v2)
    u1 = np.where(swap, diag[:, i + 1], sup[:, i])
    v1 = np.where(swap, sup[:, i], diag[:, i + 1])
    diag[:, i], sup[:, i] = pivot, u1
    diag[:, i + 1] = v1 - fact * u1
    if i + 2 < diag.shape[1]:
        u2 = np.where(swap, sup[:, i + 1], 0)
        sup2[:, i] = u2
        sup[:, i + 1] = np.where(swap, -fact * u2, sup[:, i + 1])
    row_i = np.where(swap[:, None], x[:, i + 1], x[:, i])
    row_next = np.where(swap[:, None], x[:, i], x[:, i + 1])
    x[:, i] = row_i
    x[:, i + 1] = row_next - fact[:, None] * row_i


@tridiagonal_solve_p.def_abstract_eval
def _tridiagonal_abstract_eval(dl: ShapedArray, d: ShapedArray, du: ShapedArray,
                               b: ShapedArray) -> ShapedArray:
    check_tridiagonal(dl, d, du, b)
    return ShapedArray(b.shape, b.dtype)


def tridiagonal_matmul(dl: Any, d: Any, du: Any, x: Any) -> Any:
    """``A x`` for the tridiagonal ``A`` of diagonals ``dl``, ``d``, ``du`` (``dl[0]`` and
    ``du[m-1]`` not read) and ``x`` ``(..., m, k)``: linear in the diagonals and in ``x``."""
    shape = get_aval(x).shape
    *batch, m, k = shape
    nb = len(batch)
    out = ew.mul(st.broadcast_to(st.expand_dims(d, (nb + 1,)), shape), x)
    if m > 1:
        start, keep, rows = (0,) * (nb + 2), [(0, 0, 0)] * nb, (*batch, m - 1, k)
        below = ew.mul(st.broadcast_to(st.slice_array(st.expand_dims(dl, (nb + 1,)),
                                                      (*start[:nb], 1, 0), (*batch, m, 1)), rows),
                       st.slice_array(x, start, rows))
        above = ew.mul(st.broadcast_to(st.slice_array(st.expand_dims(du, (nb + 1,)), start,
                                                      (*batch, m - 1, 1)), rows),
                       st.slice_array(x, (*start[:nb], 1, 0), (*batch, m, k)))
        out = ew.add(out, st.pad(below, [*keep, (1, 0, 0), (0, 0, 0)]))
        out = ew.add(out, st.pad(above, [*keep, (0, 1, 0), (0, 0, 0)]))
    return out


@tridiagonal_solve_p.def_jvp
def _tridiagonal_jvp(primals: tuple, tangents: tuple) -> tuple:
    # x_dot = A^-1 (b_dot - A_dot x)
    dl, d, du, b = primals
    x = tridiagonal_solve(dl, d, du, b)
    rhs: Any = tangents[3]
    diagonals = tangents[:3]
    if not all(isinstance(t, Zero) for t in diagonals):
        tdl, td, tdu = [ew.full_like(v, 0) if isinstance(t, Zero) else t
                        for t, v in zip(diagonals, (dl, d, du), strict=True)]
        product = tridiagonal_matmul(tdl, td, tdu, x)
        rhs = ew.neg(product) if isinstance(rhs, Zero) else ew.sub(rhs, product)
    if isinstance(rhs, Zero):
        return x, Zero(get_aval(x))
    return x, tridiagonal_solve(dl, d, du, rhs)


@tridiagonal_solve_p.def_transpose
def _tridiagonal_transpose(ct: Any, dl: Any, d: Any, du: Any, b: Any) -> tuple:
    # ct_b = A^-T ct: A^T's lower diagonal is du shifted down, its upper dl shifted up
    if any(isinstance(v, UndefPrimal) for v in (dl, d, du)):
        raise TypeError("tridiagonal_solve: transpose is linear in b only; the diagonals must "
                        "be constants")
    if isinstance(ct, Zero):
        return None, None, None, Zero(b.aval)
    *batch, m = get_aval(d).shape
    nb = len(batch)
    if m == 0:
        return None, None, None, ct
    keep = [(0, 0, 0)] * nb
    start = (0,) * (nb + 1)
    dl_t = st.pad(st.slice_array(du, start, (*batch, m - 1)), [*keep, (1, 0, 0)])
    du_t = st.pad(st.slice_array(dl, (*start[:nb], 1), (*batch, m)), [*keep, (0, 1, 0)])
    return None, None, None, tridiagonal_solve(dl_t, d, du_t, ct)


tridiagonal_solve_p.def_batch(partial(batch_to_front, tridiagonal_solve_p))

"""Complex matrices through their real embedding, for the functions whose rules are written for
real matrices: ``A = X + iY`` (m x n) is represented by the real 2m x 2n matrix

    R(A) = [[X, -Y],
            [Y,  X]],

a homomorphism of the *-algebra (``R(AB) = R(A) R(B)``, ``R(A^H) = R(A)^T``), so the four
Moore-Penrose conditions carry over and ``pinv(R(A)) = R(pinv(A))``: the pseudo-inverse of a
complex matrix is read off the blocks of a real one. Each singular value of ``A`` is a singular
value of ``R(A)`` twice, so a cutoff relative to the largest keeps the same ones (the default
``rtol`` is taken for ``A``'s own shape). Every derivative, transpose and batching rule is then
the real function's and ``ops/complex.py``'s: nothing new to prove.
"""

from __future__ import annotations

from typing import Any, Callable

from minigrad.core import get_aval
from minigrad.numpy.linalg._common import matrix_operand
from minigrad.ops import complex as cx
from minigrad.ops import elementwise as ew
from minigrad.ops import structural as st


def embed(a: Any) -> Any:
    """``R(a)`` of a stack of complex matrices: ``[[X, -Y], [Y, X]]``."""
    x, y = cx.real(a), cx.imag(a)
    nd = get_aval(a).ndim
    top = st.concatenate([x, ew.neg(y)], nd - 1)
    bottom = st.concatenate([y, x], nd - 1)
    return st.concatenate([top, bottom], nd - 2)


def complex_pinv(a: Any, rtol: Any, hermitian: bool, real_pinv: Callable[..., Any],
                 default_rtol: Callable[[int, int, Any], float]) -> Any:
    """``pinv`` of complex ``a`` from ``real_pinv(x, rtol, hermitian)`` of real matrices
    (``minigrad.numpy.linalg.pinv`` dispatches here, handing over its own)."""
    matrix_operand(cx.real(a), "pinv", square=bool(hermitian))  # (the shape checks)
    *batch, m, n = get_aval(a).shape
    dtype = cx.real_dtype(get_aval(a).dtype)
    if m == 0 or n == 0:
        return st.full((*batch, n, m), 0, get_aval(a).dtype)
    if rtol is None:
        rtol = default_rtol(m, n, dtype)
    p = real_pinv(embed(a), rtol, bool(hermitian))  # R(pinv(a)), (..., 2n, 2m)
    nd = len(batch)
    start = (0,) * (nd + 2)
    re = st.slice_array(p, start, (*batch, n, m), (1,) * (nd + 2))
    im = st.slice_array(p, (*start[:nd], n, 0), (*batch, 2 * n, m), (1,) * (nd + 2))
    return cx.complex_(re, im)

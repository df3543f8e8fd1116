"""``minigrad.scipy.linalg.expm``: the matrix exponential by scaling and squaring with the
(13, 13) Pade approximant (Higham 2005), a composite of matmul, solve and selects."""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad import numpy as mnp
from minigrad.core import get_aval
from minigrad.numpy.linalg import solve as _np_solve
from minigrad.numpy.util import ArrayLike, asarray, float_dtype
from minigrad.ops import linalg as la

__all__ = ["expm"]


def _float_square(fn: str, a: ArrayLike) -> Any:
    x = asarray(a)
    aval = get_aval(x)
    if aval.dtype.kind not in "biuf":
        raise TypeError(f"{fn}: a must be a real array; got dtype {aval.dtype}")
    if aval.ndim < 2 or aval.shape[-1] != aval.shape[-2]:
        raise ValueError(f"{fn}: a must be square (..., n, n); got shape {aval.shape}")
    return mnp.asarray(x, float_dtype(x))


# Pade coefficients b_0..b_13 of the (13, 13) approximant (Higham 2005)
_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
           129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0,
           1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0)


def expm(A: ArrayLike, *, upper_triangular: bool = False, max_squarings: int = 16) -> Any:
    """The matrix exponential, by scaling and squaring with the (13, 13) Pade approximant:
    ``exp(A) = r(A / 2**s) ** (2**s)``, ``s`` chosen from the 1-norm so ``|A / 2**s|_1 <=
    5.37`` (at most ``max_squarings``; beyond it, NaN, as JAX). The number of squarings is a
    value, so each is applied as a select: every transform sees a fixed program."""
    del upper_triangular
    a = _float_square("expm", A)
    n = get_aval(a).shape[-1]
    theta = 5.371920351148152
    norm = mnp.max(mnp.sum(mnp.abs(a), axis=-2), axis=-1)
    # s = max(0, ceil(log2(norm / theta))), computed on values only (it selects, never scales
    # a derivative)
    ratio = mnp.where(norm > 0, norm / theta, 1.0)
    s = mnp.maximum(0, mnp.ceil(mnp.log2(ratio)))
    s = mnp.where(norm > 0, s, 0)
    scaled = a / mnp.power(2.0, s)[..., None, None]
    eye = mnp.broadcast_to(mnp.eye(n, dtype=get_aval(a).dtype), get_aval(a).shape)
    a2 = la.matmul(scaled, scaled)
    a4 = la.matmul(a2, a2)
    a6 = la.matmul(a4, a2)
    b = _PADE13
    u_inner = la.matmul(a6, b[13] * a6 + b[11] * a4 + b[9] * a2)
    u = la.matmul(scaled, u_inner + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye)
    v = la.matmul(a6, b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 \
        + b[2] * a2 + b[0] * eye
    r = _np_solve(v - u, v + u)
    for i in range(max_squarings):
        r = mnp.where((s > i)[..., None, None], la.matmul(r, r), r)
    return mnp.where((s > max_squarings)[..., None, None], np.nan, r)

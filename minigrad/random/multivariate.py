"""``multivariate_normal``: ``mean + A z`` for standard normal ``z`` and a factor ``A`` of the
covariance (``A A^T = cov``), as JAX 0.10.2 computes it.

The factor is the Cholesky factor (``method='cholesky'``, the default), or ``U sqrt(S)`` from
an SVD, or ``V sqrt(W)`` from an eigendecomposition (``'svd'``, ``'eigh'``: for singular
covariances). ``z`` is ``normal(key, shape + (n,))``, JAX's numbers bit for bit. The factor
and the product are LAPACK's and NumPy's: float64 factors match JAX's on this machine (both
call OpenBLAS's LAPACK), float32 ones and the matrix-vector product (XLA's own loop order)
differ from JAX's in the last bits (docs/random.md gives the ulps measured).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from minigrad.core import Tracer, get_aval
from minigrad.ops import elementwise as ew
from minigrad.ops import special as sp
from minigrad.ops import structural as st
from minigrad.random import _dtypes
from minigrad.random.keys import key_words, shape_arg
from minigrad.random.samplers import _normal

_METHODS = ("cholesky", "eigh", "svd")


def _inexact(name: str, what: str, x: Any) -> Any:
    if isinstance(x, (list, tuple, int, float)):
        x = np.asarray(x)
    if not isinstance(x, (np.ndarray, np.generic, Tracer)):
        raise TypeError(f"{name}: {what} must be an array; got {type(x).__name__}")
    return x


def multivariate_normal(key: Any, mean: Any, cov: Any, shape: Sequence[int] | None = None,
                        dtype: Any = None, method: str = "cholesky") -> Any:
    """Samples of N(mean, cov): ``mean`` of shape ``(..., n)``, ``cov`` ``(..., n, n)``
    positive (semi)definite, their batch shapes broadcasting; ``shape`` (default their
    broadcast batch shape) is the result's batch shape, the result ``shape + (n,)``.
    ``dtype`` defaults to the promoted dtype of ``mean`` and ``cov``."""
    from minigrad import numpy as mnp

    name = "multivariate_normal"
    words, _ = key_words(name, key)
    if method not in _METHODS:
        raise ValueError(f"{name}: method must be one of {_METHODS}; got {method!r}")
    mean, cov = _inexact(name, "mean", mean), _inexact(name, "cov", cov)
    promoted = np.result_type(get_aval(mean).dtype, get_aval(cov).dtype)
    promoted = _dtypes.canonical(promoted if promoted.kind == "f" else _dtypes.default_float())
    if promoted.kind != "f" or promoted.name not in ("float32", "float64"):
        raise TypeError(f"{name}: mean and cov must be real; got {promoted}")
    mean, cov = ew.convert_element_type(mean, promoted), ew.convert_element_type(cov, promoted)
    out_dtype = promoted if dtype is None else _dtypes.canonical(np.dtype(dtype))
    if out_dtype.name not in ("float32", "float64"):
        raise ValueError(f"{name}: dtype must be float32 or float64; got {out_dtype}")
    m_shape, c_shape = get_aval(mean).shape, get_aval(cov).shape
    if len(m_shape) < 1:
        raise ValueError(f"{name}: mean must have at least one axis, (..., n); got a scalar")
    if len(c_shape) < 2:
        raise ValueError(f"{name}: cov must have at least two axes, (..., n, n); got shape "
                         f"{c_shape}")
    n = m_shape[-1]
    if c_shape[-2:] != (n, n):
        raise ValueError(f"{name}: cov must have shape (..., n, n) for n = {n} (mean's last "
                         f"axis); got shape {c_shape}")
    try:
        batch = tuple(np.broadcast_shapes(m_shape[:-1], c_shape[:-2]))
        if shape is not None:
            shape = shape_arg(name, shape)
            if np.broadcast_shapes(shape, batch) != shape:
                raise ValueError
            batch = shape
    except ValueError:
        raise ValueError(f"{name}: shape {shape} must be the broadcast of itself and the "
                         f"batch shapes {m_shape[:-1]} (mean) and {c_shape[:-2]} (cov)"
                         ) from None
    if method == "svd":
        u, s, _ = mnp.linalg.svd(cov)
        factor = u * mnp.sqrt(s[..., None, :])
    elif method == "eigh":
        w, v = mnp.linalg.eigh(cov)
        factor = v * mnp.sqrt(w[..., None, :])
    else:
        factor = mnp.linalg.cholesky(cov)
    z = _normal(words, (*batch, n), out_dtype)
    return mnp.add(mean, _matvec(factor, z))


def _matvec(factor: Any, z: Any) -> Any:
    """``factor @ z`` over the last axes, as a chain of fused multiply-adds over the columns
    (XLA's order for these shapes): elementwise, so the same bits eagerly, under ``jit`` and
    under ``vmap``, where a batched matmul would pick other BLAS kernels."""
    from minigrad import numpy as mnp

    dtype = np.result_type(get_aval(factor).dtype, get_aval(z).dtype)
    factor, z = ew.convert_element_type(factor, dtype), ew.convert_element_type(z, dtype)
    n = get_aval(z).shape[-1]
    shape = (*np.broadcast_shapes(get_aval(factor).shape[:-2], get_aval(z).shape[:-1]), n)
    acc = None
    for j in range(n):
        col = st.broadcast_to(factor[..., :, j], shape)
        zj = st.broadcast_to(mnp.expand_dims(z[..., j], -1), shape)
        acc = ew.mul(col, zj) if acc is None else sp.fma(col, zj, acc)
    return acc

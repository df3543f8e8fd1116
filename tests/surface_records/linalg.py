"""Records of minigrad.numpy.linalg (minigrad/numpy/linalg/).

Draws are well conditioned: symmetric positive definite matrices for cholesky, symmetric ones
with eigenvalues 0.5 apart for eigh, singular values 0.5 apart for svd, pinv and the norms
through svd, and matrices with a dominant diagonal for solve, inv and det. Edge points are
JAX's: singular matrices, zeros for the norms, repeated eigenvalues where JAX's derivative is
defined (the eigenvalues'); where JAX's is NaN (eigenvectors of repeated eigenvalues) the
behaviour is documented in docs/linalg.md and tested in tests/test_linalg.py instead.
"""

from __future__ import annotations

import numpy as np
from surface import Rec


def _orthogonal(rng, batch, n):
    q, r = np.linalg.qr(rng.standard_normal((*batch, n, n)))
    return q * np.sign(np.diagonal(r, axis1=-2, axis2=-1))[..., None, :]


def _spread(rng, batch, n, low):
    return rng.permuted(low + np.cumsum(rng.uniform(0.5, 1.0, (*batch, n)), axis=-1), axis=-1)


def spd(*shape):
    def draw(rng, dt):
        *batch, n, _ = shape
        q = _orthogonal(rng, batch, n)
        w = _spread(rng, batch, n, 0.5)
        return (((q * w[..., None, :]) @ np.swapaxes(q, -1, -2)).astype(dt),)
    return draw


def symmetric(*shape):
    def draw(rng, dt):
        *batch, n, _ = shape
        q = _orthogonal(rng, batch, n)
        w = _spread(rng, batch, n, -0.5 * n)
        return (((q * w[..., None, :]) @ np.swapaxes(q, -1, -2)).astype(dt),)
    return draw


def separated(*shape):
    """U diag(s) V^T with singular values 1.5 and up, 0.5 to 1 apart."""
    def draw(rng, dt):
        *batch, m, n = shape
        k = min(m, n)
        u = _orthogonal(rng, batch, m)[..., :k]
        v = _orthogonal(rng, batch, n)[..., :k]
        s = _spread(rng, batch, k, 1.0)
        return (((u * s[..., None, :]) @ np.swapaxes(v, -1, -2)).astype(dt),)
    return draw


def dominant(*shape):
    """Random entries plus n on the diagonal: far from singular."""
    def draw(rng, dt):
        n = shape[-1]
        return ((rng.standard_normal(shape) + n * np.eye(n)).astype(dt),)
    return draw


def normal(*shapes):
    return lambda rng, dt: tuple(rng.standard_normal(s).astype(dt) for s in shapes)


def also(first, *shapes):
    """``first``'s draw followed by normal arrays of ``shapes``."""
    return lambda rng, dt: (*first(rng, dt), *normal(*shapes)(rng, dt))


def fixed(*values):
    return lambda rng, dt: tuple(np.asarray(v, dt) for v in values)


SINGULAR_2 = np.array([[1.0, 2.0], [2.0, 4.0]])
SINGULAR_4 = np.diag([1.0, 2.0, 3.0, 0.0])  # rank 3, the zero pivot last
RANK_3 = np.array([[1.0, 2.0, 0.0, 1.0], [0.0, 1.0, 1.0, 2.0], [1.0, 3.0, 1.0, 3.0],
                   [2.0, 0.0, 1.0, 1.0]])  # row 2 = row 0 + row 1
NON_PD = np.array([[1.0, 2.0], [2.0, 1.0]])
ZERO_2 = np.zeros((2, 2))

RECORDS = [
    # decompositions
    Rec("linalg.cholesky", spd(3, 3), edges=((NON_PD,),)),
    Rec("linalg.cholesky", spd(2, 4, 4), tag="batched"),
    Rec("linalg.cholesky", spd(3, 3), kwargs={"upper": True}, tag="upper"),
    Rec("linalg.cholesky", spd(3, 3), kwargs={"symmetrize_input": False}, jax=False,
        ref=lambda a, **kw: np.linalg.cholesky(a),
        tag="lower-only", note="JAX's JVP does not symmetrize the tangent it reads (docs)"),
    Rec("linalg.eigh", symmetric(4, 4)),
    Rec("linalg.eigh", symmetric(2, 3, 3), kwargs={"UPLO": "U"}, tag="upper-batched"),
    Rec("linalg.eigh", symmetric(3, 3), kwargs={"symmetrize_input": False}, jax=False,
        ref=lambda a, **kw: np.linalg.eigh(a),
        tag="lower-only", note="JAX's JVP evaluates eigh at the symmetrized input (docs)"),
    Rec("linalg.eigvalsh", symmetric(4, 4), edges=((np.eye(3),), (np.diag([2.0, 1.0, 2.0]),))),
    Rec("linalg.svd", separated(4, 3), kwargs={"full_matrices": False}),
    Rec("linalg.svd", separated(3, 5), kwargs={"full_matrices": False}, tag="wide"),
    Rec("linalg.svd", separated(3, 3), tag="square-full"),
    Rec("linalg.svd", separated(4, 3), grad=False, tag="tall-full",
        note="full_matrices=True vectors of a non-square matrix: no derivative (as JAX)"),
    Rec("linalg.svd", separated(2, 4, 3), kwargs={"compute_uv": False}, tag="values",
        edges=((np.zeros((2, 3)),),)),
    Rec("linalg.svd", spd(3, 3), kwargs={"hermitian": True}, tag="hermitian"),
    Rec("linalg.svd", symmetric(4, 4), kwargs={"hermitian": True, "compute_uv": False},
        tag="hermitian-values"),
    Rec("linalg.svdvals", separated(3, 4), edges=((ZERO_2,),)),
    Rec("linalg.qr", separated(4, 3)),
    Rec("linalg.qr", separated(4, 3), kwargs={"mode": "complete"}, tag="complete"),
    Rec("linalg.qr", separated(3, 4), tag="wide"),
    Rec("linalg.qr", separated(2, 3, 3), kwargs={"mode": "r"}, tag="r-batched"),
    # solvers
    Rec("linalg.solve", also(dominant(3, 3), (3,)), tag="vector"),
    Rec("linalg.solve", also(dominant(3, 3), (3, 2)), tag="matrix"),
    Rec("linalg.solve", also(dominant(2, 3, 3), (3,)), tag="batched-vector"),
    Rec("linalg.solve", also(dominant(2, 1, 3, 3), (4, 3, 2)), tag="broadcast"),
    Rec("linalg.inv", dominant(3, 3), edges=((np.diag([2.0, 0.0]),),)),
    Rec("linalg.inv", dominant(2, 4, 4), tag="batched"),
    Rec("linalg.det", dominant(5, 5), edges=((SINGULAR_4,), (RANK_3,))),
    Rec("linalg.det", dominant(2, 4, 4), tag="batched"),
    Rec("linalg.det", normal((3, 3)), tag="3x3", edges=((np.ones((3, 3)),),)),
    Rec("linalg.det", normal((2, 2)), tag="2x2", edges=((SINGULAR_2,),)),
    Rec("linalg.det", normal((1, 1)), tag="1x1"),
    Rec("linalg.det", normal((0, 0)), tag="0x0", grad=False),
    Rec("linalg.slogdet", dominant(4, 4), edges=((SINGULAR_4,),)),
    Rec("linalg.slogdet", normal((2, 3, 3)), tag="batched"),
    Rec("linalg.pinv", separated(4, 3), edges=((np.zeros((3, 2)),),)),
    Rec("linalg.pinv", separated(3, 5), tag="wide"),
    Rec("linalg.pinv", spd(3, 3), kwargs={"hermitian": True}, tag="hermitian"),
    Rec("linalg.pinv", separated(2, 3, 3), kwargs={"rtol": 1e-3}, tag="rtol-batched"),
    *[Rec("linalg.matrix_power", dominant(3, 3), kwargs={"n": n}, tag=f"n={n}")
      for n in (0, 1, 3, 6, -1, -2)],
    Rec("linalg.matrix_power", lambda rng, dt: (rng.integers(-3, 4, (2, 2)).astype(dt),),
        kwargs={"n": 5}, dtypes=(np.dtype(np.int64),), grad=False, tag="int"),
    Rec("linalg.matrix_rank", lambda rng, dt: (np.array([[1.0, 2, 3], [2, 4, 6], [0, 1, 1]],
                                                        dt),), grad=False),
    Rec("linalg.matrix_rank", separated(2, 3, 4), grad=False, tag="batched"),
    Rec("linalg.lstsq", also(separated(5, 3), (5,)), grad=False, ref_dtype=False,
        note="rank is the default int, as JAX's (NumPy's is int32); the gradient of x is "
             "tested in tests/test_linalg.py"),
    Rec("linalg.lstsq", also(separated(5, 3), (5, 2)), grad=False, ref_dtype=False,
        tag="matrix"),
    Rec("linalg.tensorinv", dominant(6, 6), kwargs={"ind": 1}),
    Rec("linalg.tensorinv", lambda rng, dt: ((rng.standard_normal((2, 3, 6)) +
                                              3 * np.eye(6).reshape(2, 3, 6)).astype(dt),),
        tag="ind2"),
    Rec("linalg.tensorsolve", lambda rng, dt: ((rng.standard_normal((2, 3, 6)) +
                                                3 * np.eye(6).reshape(2, 3, 6)).astype(dt),
                                               rng.standard_normal((2, 3)).astype(dt))),
    Rec("linalg.multi_dot", normal((3,), (3, 4), (4, 2), (2, 5)), listarg=True),
    Rec("linalg.multi_dot", normal((3, 4), (4, 2)), listarg=True, tag="two"),
    Rec("linalg.cond", dominant(3, 3)),
    Rec("linalg.cond", dominant(3, 3), kwargs={"p": 1}, tag="p1"),
    Rec("linalg.cond", dominant(3, 3), kwargs={"p": "fro"}, tag="fro"),
    Rec("linalg.cond", separated(2, 3, 4), kwargs={"p": -2}, tag="p-2"),
    # norms: every ord, with JAX's derivatives at zero
    *[Rec("linalg.norm", normal((5,)), kwargs={"ord": o}, tag=f"vector-{o}",
          edges=((np.zeros(4),), (np.array([1.0, -3.0, 3.0]),)))
      for o in (None, 1, 2, np.inf, -np.inf, 0, 3, 0.5)],
    *[Rec("linalg.norm", separated(3, 4), kwargs={"ord": o}, tag=f"matrix-{o}",
          edges=((ZERO_2,),))
      for o in (None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf)],
    Rec("linalg.norm", normal((2, 3, 4)), tag="all-axes", edges=((np.zeros((2, 2, 2)),),)),
    Rec("linalg.norm", normal((2, 3, 4)), kwargs={"axis": 1, "keepdims": True},
        tag="axis-keepdims"),
    Rec("linalg.norm", separated(2, 3, 4), kwargs={"axis": (2, 0), "ord": 1}, tag="axes-20"),
    Rec("linalg.norm", separated(2, 3, 4), kwargs={"axis": (-2, -1), "ord": "nuc",
                                                   "keepdims": True}, tag="nuc-keepdims"),
    Rec("linalg.vector_norm", normal((2, 3)), kwargs={"axis": (0, 1), "ord": 3}),
    Rec("linalg.vector_norm", normal((2, 3)), tag="default"),
    Rec("linalg.matrix_norm", separated(2, 3, 3), kwargs={"ord": 2}),
    Rec("linalg.matrix_norm", normal((2, 3, 4)), kwargs={"keepdims": True}, tag="fro"),
    # the array API's products under linalg
    Rec("linalg.matmul", normal((2, 3, 4), (4, 2))),
    Rec("linalg.vecdot", normal((2, 3), (3,))),
    Rec("linalg.vecdot", normal((3, 2), (3, 1)), kwargs={"axis": 0}, tag="axis0"),
    Rec("linalg.tensordot", normal((2, 3, 4), (3, 4, 5))),
    Rec("linalg.tensordot", normal((2, 3), (3, 2)), kwargs={"axes": ((0, 1), (1, 0))},
        tag="pairs"),
    Rec("linalg.outer", normal((3,), (4,))),
    Rec("linalg.cross", normal((4, 3), (3,))),
    Rec("linalg.cross", normal((3, 2), (3, 1)), kwargs={"axis": 0}, tag="axis0"),
    Rec("linalg.trace", normal((2, 3, 4)), kwargs={"offset": 1}),
    Rec("linalg.diagonal", normal((2, 4, 3)), kwargs={"offset": -1}),
    Rec("linalg.matrix_transpose", normal((2, 3, 4))),
]

"""minigrad.numpy.linalg: jax.numpy.linalg's functions over minigrad's linear-algebra
primitives (``ops/linalg*.py``: triangular_solve, cholesky, lu, qr, eigh, svd), with the
array API's ``linalg`` extension.

Modules by theme: ``decompositions`` (cholesky, eigh, svd, qr), ``solvers`` (solve, inv, det,
slogdet, pinv, lstsq, matrix_power, matrix_rank, tensorsolve, tensorinv), ``norms`` (norm,
vector_norm, matrix_norm, cond) and ``products`` (the array API's matmul, vecdot, tensordot,
outer, cross, trace, diagonal, matrix_transpose, and multi_dot). Every function takes stacks
of matrices ``(..., m, n)``. docs/linalg.md writes out each derivative.
"""

from minigrad.numpy.linalg import decompositions as _decompositions
from minigrad.numpy.linalg import norms as _norms
from minigrad.numpy.linalg import products as _products
from minigrad.numpy.linalg import solvers as _solvers
from minigrad.numpy.linalg.decompositions import *  # noqa: F403
from minigrad.numpy.linalg.norms import *  # noqa: F403
from minigrad.numpy.linalg.products import *  # noqa: F403
from minigrad.numpy.linalg.solvers import *  # noqa: F403

__all__ = sorted([*_decompositions.__all__, *_norms.__all__, *_products.__all__,
                  *_solvers.__all__])


def __dir__() -> list[str]:
    return list(__all__)

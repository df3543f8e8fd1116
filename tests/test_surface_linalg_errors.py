"""Bad input to the contractions, einsum and minigrad.numpy.linalg: a clear error naming the
function and the argument, raised before any work (eagerly and under jit alike)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg
import minigrad.numpy as mnp

L = mnp.linalg
X = np.arange(6.0).reshape(2, 3)
S = np.eye(3) + 1.0  # (the argument the rows receive is X)

ROWS: list[tuple[str, Callable[[Any], Any], type, str]] = [
    # contractions
    ("matmul scalar", lambda x: mnp.matmul(x, 2.0), ValueError,
     r"matmul: operands must be at least 1-D .*got shapes \(2, 3\) and \(\)"),
    ("matmul inner sizes", lambda x: mnp.matmul(x, x), ValueError,
     r"matmul: the last axis of x1 must match the second-to-last axis of x2; got shapes "
     r"\(2, 3\) and \(2, 3\)"),
    ("matmul batch", lambda x: mnp.matmul(mnp.reshape(x, (2, 1, 3)), np.ones((3, 3, 2))),
     ValueError, r"matmul: the batch axes .* got shapes \(2, 1, 3\) and \(3, 3, 2\)"),
    ("matmul strings", lambda x: mnp.matmul(x, np.array(["a", "b", "c"])), TypeError,
     "matmul: operand 1 must be a numeric array; got <U1"),
    ("matmul precision", lambda x: mnp.matmul(x, x.T, precision="ultra"), ValueError,
     "matmul: precision must be None, a precision name"),
    ("matmul preferred_element_type", lambda x: mnp.matmul(x, x.T, preferred_element_type="x"),
     TypeError, "matmul: dtype must be a NumPy dtype"),
    ("dot sizes", lambda x: mnp.dot(x, x), ValueError,
     r"dot: the last axis of a must match the second-to-last axis of b"),
    ("vdot sizes", lambda x: mnp.vdot(x, np.ones(5)), ValueError,
     r"vdot: the operands must have as many elements; got shapes \(2, 3\) and \(5,\)"),
    ("inner sizes", lambda x: mnp.inner(x, np.ones((2, 2))), ValueError,
     "inner: the last axes must match"),
    ("outer out=", lambda x: mnp.outer(x, x, out=np.empty((6, 6))), NotImplementedError,
     "outer: out= is not supported"),
    ("tensordot too many axes", lambda x: mnp.tensordot(x, x, 3), ValueError,
     r"tensordot: axes=3 must be in \[0, 2\]"),
    ("tensordot sizes", lambda x: mnp.tensordot(x, x, ((1,), (0,))), ValueError,
     "tensordot: the contracted axes must have equal sizes; axis 1 of a"),
    ("tensordot float axes", lambda x: mnp.tensordot(x, x, 1.5), TypeError,
     "tensordot: axes must be an int or a pair of sequences of ints; got 1.5"),
    ("tensordot axis out of range", lambda x: mnp.tensordot(x, x, ((5,), (0,))),
     np.exceptions.AxisError, "tensordot: axis 5 is out of range for an array of rank 2"),
    ("tensordot repeated axis", lambda x: mnp.tensordot(x, x, ((0, 0), (0, 1))), ValueError,
     "tensordot: an axis is repeated"),
    ("tensordot uneven pairs", lambda x: mnp.tensordot(x, x, ((0, 1), (0,))), ValueError,
     "tensordot: the two sequences of axes must be equally long"),
    ("vecdot shapes", lambda x: mnp.vecdot(x, np.ones(2)), ValueError,
     r"vecdot: operands must broadcast together.*\(2, 3\), \(2,\)"),
    ("vecdot axis", lambda x: mnp.vecdot(x, x, axis=2), np.exceptions.AxisError,
     "vecdot: axis 2 is out of range"),
    ("kron strings", lambda x: mnp.kron(x, np.array(["a"])), TypeError,
     "kron: operand 1 must be a numeric array"),
    ("cross size", lambda x: mnp.cross(x, np.ones(4)), ValueError,
     r"cross: the vector axes must have size 2 or 3; got 3 \(a\) and 4 \(b\)"),
    ("cross axis", lambda x: mnp.cross(x, x, axisa=2), np.exceptions.AxisError,
     "cross: axis 2 is out of range"),
    ("cross scalar", lambda x: mnp.cross(x[0, 0], x), ValueError,
     "cross: a must be at least 1-D"),
    # einsum
    ("einsum operand count", lambda x: mnp.einsum("ij,jk", x), ValueError,
     r"einsum: subscripts 'ij,jk' name 2 operand\(s\); got 1"),
    ("einsum rank", lambda x: mnp.einsum("ijk", x), ValueError,
     r"einsum: subscripts 'ijk' name 3 axes of operand 0 \('ijk'\), which has 2"),
    ("einsum sizes", lambda x: mnp.einsum("ij,ij", x, x.T), ValueError,
     r"einsum: index 'i' has size 2 in operand 0 \(shape \(2, 3\)\) and 3 in operand 1"),
    ("einsum character", lambda x: mnp.einsum("i$", x), ValueError,
     "einsum: subscripts 'i\\$' may hold letters"),
    ("einsum two ellipses", lambda x: mnp.einsum("...i...", x), ValueError,
     "einsum: .*an ellipsis is written '...', at most once per operand"),
    ("einsum output letter", lambda x: mnp.einsum("ij->k", x), ValueError,
     "einsum: output index 'k' of subscripts 'ij->k' names no input axis"),
    ("einsum repeated output", lambda x: mnp.einsum("ij->ii", x), ValueError,
     "einsum: subscripts 'ij->ii' repeat an output index"),
    ("einsum optimize", lambda x: mnp.einsum("ij", x, optimize="fast"), ValueError,
     "einsum: optimize must be 'auto', 'greedy', 'optimal', a bool or a path; got 'fast'"),
    ("einsum bad path", lambda x: mnp.einsum("ij,jk", x, x.T, optimize=[(0, 5)]), ValueError,
     "einsum: each step of the path must name distinct operands"),
    ("einsum short path", lambda x: mnp.einsum("ij,jk,kl", x, x.T, x, optimize=[(0, 1)]),
     ValueError, "einsum: the path leaves 2 operands; it must contract them all"),
    ("einsum unequal diagonal", lambda x: mnp.einsum("ii", x), ValueError,
     "einsum: index 'i' has size 2 in operand 0 .* and 3 in operand 0"),
    ("einsum out=", lambda x: mnp.einsum("ij", x, out=x), NotImplementedError,
     "einsum: out= is not supported"),
    # linalg: operands
    ("solve non-square", lambda x: L.solve(x, np.ones(2)), ValueError,
     r"solve: a must be square in its last two axes \(\.\.\., n, n\); got shape \(2, 3\)"),
    ("solve b shape", lambda x: L.solve(S, np.ones(4)), ValueError,
     r"solve: b must have shape \(3,\) or \(\.\.\., 3, k\) to match a of shape \(3, 3\); got "
     r"\(4,\)"),
    ("solve batch of vectors (NumPy 2)", lambda x: L.solve(np.ones((2, 3, 3)), x), ValueError,
     r"solve: b must have shape \(3,\) or \(\.\.\., 3, k\)"),
    ("solve batches", lambda x: L.solve(np.ones((2, 3, 3)), np.ones((4, 3, 1))), ValueError,
     r"solve: the batch dimensions must broadcast together; got \(2,\), \(4,\)"),
    ("solve strings", lambda x: L.solve(S, np.array(["a", "b", "c"])), TypeError,
     "solve: b must be a real numeric array"),
    ("inv vector", lambda x: L.inv(x[0]), ValueError,
     r"inv: a must have at least 2 axes .*got shape \(3,\)"),
    ("inv non-square", lambda x: L.inv(x), ValueError, "inv: a must be square"),
    ("inv complex", lambda x: L.inv(np.eye(2) * 1j), TypeError,
     "inv: a must be real; complex matrices are not supported"),
    ("det non-square", lambda x: L.det(x), ValueError, "det: a must be square"),
    ("slogdet method", lambda x: L.slogdet(S, method="qr"), NotImplementedError,
     "slogdet: method must be None or 'lu'"),
    ("cholesky non-square", lambda x: L.cholesky(x), ValueError, "cholesky: a must be square"),
    ("eigh UPLO", lambda x: L.eigh(S, UPLO="X"), ValueError,
     "eigh: UPLO must be None, 'L' or 'U'; got 'X'"),
    ("eigh vector", lambda x: L.eigh(x[0]), ValueError, "eigh: a must have at least 2 axes"),
    ("svd vector", lambda x: L.svd(x[0]), ValueError, "svd: a must have at least 2 axes"),
    ("svd subset_by_index", lambda x: L.svd(x, subset_by_index=(0, 1)), NotImplementedError,
     "svd: subset_by_index is not supported"),
    ("svd hermitian non-square", lambda x: L.svd(x, hermitian=True), ValueError,
     "svd: a must be square"),
    ("qr mode", lambda x: L.qr(x, mode="full"), ValueError,
     "qr: mode must be 'reduced', 'complete' or 'r'; got 'full'"),
    ("qr raw", lambda x: L.qr(x, mode="raw"), NotImplementedError,
     "qr: mode='raw' .* is not supported"),
    ("pinv rtol and rcond", lambda x: L.pinv(x, rtol=1e-3, rcond=1e-3), ValueError,
     "pinv: give rtol or rcond"),
    ("matrix_power float n", lambda x: L.matrix_power(S, 1.5), TypeError,
     "matrix_power: n must be an integer; got 1.5"),
    ("matrix_power non-square", lambda x: L.matrix_power(x, 2), ValueError,
     "matrix_power: a must be square"),
    ("matrix_rank strings", lambda x: L.matrix_rank(np.array([["a"]])), TypeError,
     "matrix_rank: M must be a numeric array"),
    ("lstsq shapes", lambda x: L.lstsq(x, np.ones(3)), ValueError,
     r"lstsq: a must be \(m, n\) and b \(m,\) or \(m, k\) with the same m; got \(2, 3\) and "
     r"\(3,\)"),
    ("tensorinv shape", lambda x: L.tensorinv(x, ind=1), ValueError,
     "tensorinv: the product of the first ind=1 axes must equal the product of the rest"),
    ("tensorinv ind", lambda x: L.tensorinv(x, ind=0), ValueError,
     "tensorinv: ind must be a positive integer; got 0"),
    ("tensorsolve shapes", lambda x: L.tensorsolve(x, np.ones(3)), ValueError,
     "tensorsolve: a's leading axes must be b's shape"),
    ("cond non-square p=1", lambda x: L.cond(x, p=1), ValueError, "cond: x must be square"),
    ("multi_dot one array", lambda x: L.multi_dot([x]), ValueError,
     "multi_dot: needs at least two arrays; got 1"),
    ("multi_dot 3-d", lambda x: L.multi_dot([x, np.ones((3, 2, 2))]), ValueError,
     r"multi_dot: array 1 must be 2-D .*got shape \(3, 2, 2\)"),
    ("multi_dot chain", lambda x: L.multi_dot([x, x]), ValueError,
     r"multi_dot: arrays 0 and 1 do not chain: shapes \(2, 3\) and \(2, 3\)"),
    # norms
    ("norm matrix ord", lambda x: L.norm(x, ord="bad"), ValueError,
     "norm: invalid order 'bad' for a matrix norm"),
    ("norm vector ord", lambda x: L.norm(x[0], ord="fro"), ValueError,
     "vector_norm: invalid order 'fro' for a vector norm"),
    ("norm three axes", lambda x: L.norm(np.ones((2, 2, 2)), axis=(0, 1, 2)), ValueError,
     "norm: give one axis for a vector norm or two for a matrix norm"),
    ("norm ord of a 3-d array", lambda x: L.norm(np.ones((2, 2, 2)), ord=1), ValueError,
     "norm: give one axis for a vector norm or two"),
    ("norm axis out of range", lambda x: L.norm(x, axis=2), np.exceptions.AxisError,
     "norm: axis 2 is out of range for an array of rank 2"),
    ("norm repeated axis", lambda x: L.norm(x, axis=(0, 0)), ValueError,
     "norm: axes must be distinct"),
    ("norm keepdims", lambda x: L.norm(x, keepdims="yes"), TypeError,
     "norm: keepdims must be a bool; got 'yes'"),
    ("vector_norm axis", lambda x: L.vector_norm(x, axis=3), np.exceptions.AxisError,
     "vector_norm: axis 3 is out of range"),
    ("matrix_norm vector", lambda x: L.matrix_norm(x[0]), ValueError,
     "matrix_norm: x must have at least 2 axes"),
    ("matrix_norm ord", lambda x: L.matrix_norm(x, ord=3), ValueError,
     "matrix_norm: invalid order 3 for a matrix norm"),
    # the array API's spellings under linalg
    ("linalg.outer of matrices", lambda x: L.outer(x, x), ValueError,
     r"outer: x1 and x2 must be 1-D; got shapes \(2, 3\) and \(2, 3\)"),
    ("linalg.cross of 2-vectors", lambda x: L.cross(x[0, :2], x[1, :2]), ValueError,
     r"cross: x1 must have size 3 along axis -1; got shape \(2,\)"),
    ("linalg.trace offset", lambda x: L.trace(x, offset=1.5), TypeError,
     "trace: offset must be an int; got 1.5"),
    ("linalg.diagonal offset", lambda x: L.diagonal(x, offset="1"), TypeError,
     "diagonal: offset must be an int"),
]


@pytest.mark.parametrize("what, call, error, match", ROWS, ids=[r[0] for r in ROWS])
def test_eagerly(what: str, call: Callable[[Any], Any], error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        call(X)


@pytest.mark.parametrize("what, call, error, match", ROWS, ids=[r[0] for r in ROWS])
def test_under_jit(what: str, call: Callable[[Any], Any], error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        mg.jit(call)(X)

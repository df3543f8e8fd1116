"""Bad input to minigrad.scipy (special, linalg, stats): a clear error naming the function and
the argument, raised before any work, eagerly and under jit alike."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg
from minigrad.scipy import linalg as sl
from minigrad.scipy import special as sp
from minigrad.scipy import stats

X = np.arange(6.0).reshape(2, 3)  # (the argument the rows receive)
A = np.eye(3) * 2.0
B = np.ones((3, 2))
STRINGS = np.array(["a", "b"])

ROWS: list[tuple[str, Callable[[Any], Any], type, str]] = [
    # special
    ("erf strings", lambda x: sp.erf(STRINGS), TypeError, "erf: x must be real; got dtype <U1"),
    ("erfinv complex", lambda x: sp.erfinv(x * 1j), TypeError,
     "erfinv: x must be real; got dtype complex128"),
    ("gammaln None", lambda x: sp.gammaln(None), TypeError,
     "gammaln: x must be a real array or number; got NoneType"),
    ("xlogy shapes", lambda x: sp.xlogy(x, np.ones(2)), ValueError,
     r"xlogy: operands must broadcast together .*\(2, 3\), \(2,\)"),
    ("xlogy complex y", lambda x: sp.xlogy(x, 1j), TypeError,
     "xlogy: y must be real; got a complex number"),
    ("xlog1py strings", lambda x: sp.xlog1py(STRINGS, x), TypeError,
     "xlog1py: x must be real; got dtype <U1"),
    ("log_ndtr series_order float", lambda x: sp.log_ndtr(x, 2.5), TypeError,
     "log_ndtr: series_order must be an int; got 2.5"),
    ("log_ndtr series_order range", lambda x: sp.log_ndtr(x, 31), ValueError,
     r"log_ndtr: series_order must be in \[0, 30\]; got 31"),
    ("ndtri complex", lambda x: sp.ndtri(x * 1j), TypeError, "ndtri: p must be real"),
    ("softmax axis", lambda x: sp.softmax(x, axis=2), np.exceptions.AxisError, "axis 2"),
    ("logsumexp return_sign", lambda x: sp.logsumexp(x, return_sign=1), TypeError,
     "logsumexp: return_sign must be a bool; got 1"),
    # linalg
    ("solve_triangular trans", lambda x: sl.solve_triangular(A, B, trans=3), ValueError,
     "solve_triangular: trans must be 0, 1, 2, 'N', 'T' or 'C'; got 3"),
    ("solve_triangular lower", lambda x: sl.solve_triangular(A, B, lower="yes"), TypeError,
     "solve_triangular: lower must be a bool; got 'yes'"),
    ("solve_triangular non-square", lambda x: sl.solve_triangular(x, B), ValueError,
     r"solve_triangular: a must be square; got shape \(2, 3\)"),
    ("solve_triangular 1-D a", lambda x: sl.solve_triangular(np.ones(3), B), ValueError,
     r"solve_triangular: a must have at least 2 dimensions .*got shape \(3,\)"),
    ("solve_triangular rows", lambda x: sl.solve_triangular(A, x), ValueError,
     r"solve_triangular: b must have shape \(\.\.\., 3\) or \(\.\.\., 3, k\) to match a of "
     r"shape \(3, 3\); got \(2, 3\)"),
    ("solve_triangular strings", lambda x: sl.solve_triangular(A, np.array(["a"] * 3)),
     TypeError, "solve_triangular: b must be a real array; got dtype <U1"),
    ("solve_triangular batch", lambda x: sl.solve_triangular(np.ones((2, 3, 3)),
                                                             np.ones((4, 3, 1))),
     ValueError, "solve_triangular: operands must broadcast together"),
    ("cholesky non-square", lambda x: sl.cholesky(x), ValueError,
     r"cholesky: a must be square; got shape \(2, 3\)"),
    ("cholesky lower", lambda x: sl.cholesky(A, lower=None), TypeError,
     "cholesky: lower must be a bool; got None"),
    ("cho_solve not a pair", lambda x: sl.cho_solve(A, B), TypeError,
     "cho_solve: c_and_lower must be a pair"),
    ("cho_solve lower", lambda x: sl.cho_solve((A, 1), B), TypeError,
     r"cho_solve: lower \(c_and_lower\[1\]\) must be a bool; got 1"),
    ("cho_solve rows", lambda x: sl.cho_solve((A, True), x), ValueError,
     r"cho_solve: b must have shape"),
    ("solve assume_a", lambda x: sl.solve(A, B, assume_a="diag"), ValueError,
     "solve: assume_a must be one of 'gen', 'sym', 'her', 'pos'; got 'diag'"),
    ("solve pos rows", lambda x: sl.solve(A, x, assume_a="pos"), ValueError,
     r"solve: b must have shape"),
    ("eigh b", lambda x: sl.eigh(A, A), NotImplementedError, "eigh: only b=None"),
    ("eigh type", lambda x: sl.eigh(A, type=2), NotImplementedError, "eigh: only type=1"),
    ("eigh non-square", lambda x: sl.eigh(x), ValueError, "eigh: a must be square"),
    ("svd driver", lambda x: sl.svd(x, lapack_driver="x"), ValueError,
     "svd: lapack_driver must be 'gesdd' or 'gesvd'; got 'x'"),
    ("qr mode", lambda x: sl.qr(x, mode="raw"), ValueError,
     "qr: mode must be 'full', 'economic' or 'r'; got 'raw'"),
    ("qr pivoting", lambda x: sl.qr(x, pivoting=None), TypeError,
     "qr: pivoting must be a bool; got None"),
    ("qr pivoting complex", lambda x: sl.qr(x * 1j, pivoting=True), TypeError,
     "qr: a must be a real array; got dtype complex128"),
    ("lu permute_l", lambda x: sl.lu(x, permute_l=1), TypeError,
     "lu: permute_l must be a bool; got 1"),
    ("lu 1-D", lambda x: sl.lu(np.ones(3)), ValueError, "lu: a must have at least 2"),
    ("lu_solve not a pair", lambda x: sl.lu_solve(A, B), TypeError,
     "lu_solve: lu_and_piv must be a pair"),
    ("lu_solve float pivots", lambda x: sl.lu_solve((A, np.zeros(3)), B), TypeError,
     "lu_solve: piv must be an integer array; got dtype float64"),
    ("lu_solve pivot shape", lambda x: sl.lu_solve((A, np.zeros(2, np.int32)), B), ValueError,
     r"lu_solve: piv must have shape \(3,\) to match lu of shape \(3, 3\); got \(2,\)"),
    ("lu_solve trans", lambda x: sl.lu_solve(sl.lu_factor(A), B, trans=3), ValueError,
     "lu_solve: trans must be 0, 1 or 2; got 3"),
    ("expm non-square", lambda x: sl.expm(x), ValueError, "expm: a must be square"),
    # stats
    ("norm.logpdf strings", lambda x: stats.norm.logpdf(STRINGS), TypeError,
     "norm.logpdf: x must be real; got dtype <U1"),
    ("norm.cdf scale complex", lambda x: stats.norm.cdf(x, 0.0, 1j), TypeError,
     "norm.cdf: scale must be real; got a complex number"),
    ("norm.ppf shapes", lambda x: stats.norm.ppf(x, np.zeros(2)), ValueError,
     r"norm.ppf: operands must broadcast together"),
    ("multivariate_normal cov shape", lambda x: stats.multivariate_normal.logpdf(
        x, np.zeros(3), np.eye(2)), ValueError,
     r"multivariate_normal.logpdf: cov must have shape \(\.\.\., 3, 3\) to match mean of "
     r"shape \(3,\); got \(2, 2\)"),
    ("multivariate_normal x shape", lambda x: stats.multivariate_normal.logpdf(
        np.ones(2), np.zeros(3), np.eye(3)), ValueError,
     r"multivariate_normal.logpdf: x must end in the dimension 3 of mean; got shape \(2,\)"),
    ("multivariate_normal allow_singular", lambda x: stats.multivariate_normal.logpdf(
        x, np.zeros(3), np.eye(3), allow_singular=True), NotImplementedError,
     "multivariate_normal.logpdf: allow_singular is not supported"),
    ("multivariate_normal strings", lambda x: stats.multivariate_normal.logpdf(
        STRINGS, np.zeros(2), np.eye(2)), TypeError,
     "multivariate_normal.logpdf: x must be real; got dtype <U1"),
    ("bernoulli.logpmf p strings", lambda x: stats.bernoulli.logpmf(x, STRINGS), TypeError,
     "bernoulli.logpmf: p must be real"),
    ("poisson.logpmf shapes", lambda x: stats.poisson.logpmf(x, np.ones(2)), ValueError,
     "poisson.logpmf: operands must broadcast together"),
    ("beta.logpdf b complex", lambda x: stats.beta.logpdf(x, 1.0, 2j), TypeError,
     "beta.logpdf: b must be real"),
    ("gamma.logpdf a None", lambda x: stats.gamma.logpdf(x, None), TypeError,
     "gamma.logpdf: a must be a real array or number; got NoneType"),
    ("t.logpdf df strings", lambda x: stats.t.logpdf(x, STRINGS), TypeError,
     "t.logpdf: df must be real"),
    ("uniform.cdf shapes", lambda x: stats.uniform.cdf(x, np.zeros(4)), ValueError,
     "uniform.cdf: operands must broadcast together"),
    ("expon.ppf strings", lambda x: stats.expon.ppf(STRINGS), TypeError,
     "expon.ppf: q must be real"),
    ("cauchy.logpdf loc complex", lambda x: stats.cauchy.logpdf(x, 1j), TypeError,
     "cauchy.logpdf: loc must be real"),
    ("logistic.cdf strings", lambda x: stats.logistic.cdf(STRINGS), TypeError,
     "logistic.cdf: x must be real"),
    ("laplace.cdf scale shapes", lambda x: stats.laplace.cdf(x, 0.0, np.ones(5)), ValueError,
     "laplace.cdf: operands must broadcast together"),
]


@pytest.mark.parametrize("what, call, error, match", ROWS, ids=[r[0] for r in ROWS])
def test_eagerly(what: str, call: Callable[[Any], Any], error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        call(X)


@pytest.mark.parametrize("what, call, error, match", ROWS, ids=[r[0] for r in ROWS])
def test_under_jit(what: str, call: Callable[[Any], Any], error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        mg.jit(call)(X)


def test_stacked_vectors_warn_as_jax() -> None:
    # JAX's deprecated reading of b.ndim == a.ndim - 1 (a stack of vectors), with its warning
    a = np.broadcast_to(np.eye(3) * 2.0, (4, 3, 3))
    b = np.ones((4, 3))
    with pytest.warns(FutureWarning, match="solve_triangular: a stack of vectors"):
        x = sl.solve_triangular(a, b, lower=True)
    assert x.shape == (4, 3)
    np.testing.assert_allclose(x, 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert sl.solve_triangular(np.eye(3), np.ones(3)).shape == (3,)  # a vector: no warning


def test_inputs_not_mutated() -> None:
    a = np.array([[4.0, 2.0], [2.0, 5.0]])
    b = np.array([[1.0], [2.0]])
    a0, b0 = a.copy(), b.copy()
    sl.cho_solve(sl.cho_factor(a), b)
    sl.solve(a, b, assume_a="pos")
    sl.lu_solve(sl.lu_factor(a), b)
    sl.solve_triangular(a, b)
    np.testing.assert_array_equal(a, a0)
    np.testing.assert_array_equal(b, b0)


def test_float16() -> None:
    # erfinv and the incomplete gamma run float16 in float32 (their primitives take float32
    # and float64), eagerly and under jit; log_ndtr refuses it, as JAX
    x = np.array([0.3, 0.5], np.float16)
    for f, args, ref in ((sp.erfinv, (x,), [0.2725, 0.4768]),
                         (sp.gammainc, (x, x), [0.7269, 0.6827])):
        for g in (f, mg.jit(f)):
            out = g(*args)
            assert out.dtype == np.float16
            np.testing.assert_allclose(np.asarray(out, np.float64), ref, rtol=2e-3)
    with pytest.raises(TypeError, match="log_ndtr: x must be float32 or float64"):
        sp.log_ndtr(x)

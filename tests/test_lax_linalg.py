"""minigrad.lax.linalg: JAX's lax conventions over minigrad's linalg primitives (whose rules
tests/test_linalg*.py and the checker hold). Here: each function's identities and conventions
(result order, defaults, symmetrization, triangles), every flag of triangular_solve, the
errors, jit and vmap, and values and gradients against jax.lax.linalg when JAX is installed."""

from __future__ import annotations

import inspect
import itertools
from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg
from minigrad import numpy as mnp
from minigrad.lax import linalg as L

RNG = np.random.default_rng(7)


def spd(n: int, batch: tuple = ()) -> np.ndarray:
    a = RNG.standard_normal((*batch, n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def close(got: Any, want: Any, tol: float = 1e-10) -> None:
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=tol, atol=tol)


def test_cholesky_symmetrizes_unless_told_not_to() -> None:
    a = spd(4)
    skew = np.triu(RNG.standard_normal((4, 4)), 1)
    got = L.cholesky(a + skew)  # (a + skew + (a + skew)^T) / 2 = a + (skew + skew^T) / 2
    close(got, np.linalg.cholesky(a + (skew + skew.T) / 2))
    close(L.cholesky(a + skew, symmetrize_input=False), np.linalg.cholesky(a))  # lower read
    assert np.isnan(np.asarray(L.cholesky(-a))).any()  # not positive definite: NaNs


def test_eigh_gives_vectors_first_and_subsets() -> None:
    a = spd(5, (2,))
    v, w = L.eigh(a)
    close(w, np.linalg.eigvalsh(a))
    close(np.asarray(v) @ (np.asarray(w)[..., None] * np.swapaxes(np.asarray(v), -1, -2)), a)
    vs, ws = L.eigh(a, subset_by_index=(1, 3))
    close(ws, np.asarray(w)[..., 1:3])
    close(np.abs(np.asarray(vs)), np.abs(np.asarray(v)[..., 1:3]))
    upper = np.triu(a) + np.triu(RNG.standard_normal((2, 5, 5)), 1) * 0 + np.tril(a, -1) * 3
    close(L.eigh(upper, lower=False, symmetrize_input=False)[1],
          np.linalg.eigvalsh(np.triu(a) + np.swapaxes(np.triu(a, 1), -1, -2)))


def test_lu_and_its_pivots() -> None:
    for shape in [(4, 4), (5, 3), (3, 5), (2, 4, 4)]:
        x = RNG.standard_normal(shape)
        lu, pivots, perm = L.lu(x)
        assert pivots.dtype == perm.dtype == np.int32
        m, n = shape[-2:]
        k = min(m, n)
        lower = np.tril(np.asarray(lu)[..., :, :k], -1) + np.eye(m, k)
        upper = np.triu(np.asarray(lu)[..., :k, :])
        close(np.take_along_axis(x, np.asarray(perm)[..., None], -2), lower @ upper)
        np.testing.assert_array_equal(L.lu_pivots_to_permutation(pivots, m), perm)


def test_lu_pivots_to_permutation() -> None:
    # JAX's own examples' values (pivots applied as swaps in turn)
    np.testing.assert_array_equal(
        L.lu_pivots_to_permutation(np.array([3, 2, 2, 3], np.int32), 6), [3, 2, 1, 0, 4, 5])
    np.testing.assert_array_equal(
        L.lu_pivots_to_permutation(np.array([2, 2, 3], np.int32), 5), [2, 0, 3, 1, 4])
    with pytest.raises(TypeError, match="int32"):
        L.lu_pivots_to_permutation(np.array([1.0, 2.0]), 3)
    with pytest.raises(ValueError, match="at least the number of pivots, 2"):
        L.lu_pivots_to_permutation(np.array([1, 1], np.int32), 1)
    with pytest.raises(TypeError, match="permutation_size must be an int"):
        L.lu_pivots_to_permutation(np.array([1, 1], np.int32), 3.0)
    for bad in ([0, 3], [-1, 0]):  # (JAX returns something unspecified)
        with pytest.raises(IndexError, match=r"must be in \[0, 3\)"):
            L.lu_pivots_to_permutation(np.array(bad, np.int32), 3)
        with pytest.raises(IndexError, match=r"must be in \[0, 3\)"):  # on every jitted call
            mg.jit(lambda p: L.lu_pivots_to_permutation(p, 3))(np.array(bad, np.int32))
    pivots = np.array([[1, 2, 2], [2, 1, 2]], np.int32)
    np.testing.assert_array_equal(mg.vmap(lambda p: L.lu_pivots_to_permutation(p, 4))(pivots),
                                  L.lu_pivots_to_permutation(pivots, 4))


def test_qr_defaults_to_full_matrices() -> None:
    x = RNG.standard_normal((5, 3))
    q, r = L.qr(x)
    assert q.shape == (5, 5) and r.shape == (5, 3)
    close(np.asarray(q) @ np.asarray(r), x)
    q, r = L.qr(x, full_matrices=False)
    assert q.shape == (5, 3) and r.shape == (3, 3)
    q, r, p = L.qr(x, pivoting=True)
    assert p.dtype == np.int32
    close(np.asarray(q) @ np.asarray(r), x[:, np.asarray(p)])


def test_svd_order_and_subsets() -> None:
    x = RNG.standard_normal((2, 5, 3))
    u, s, vh = L.svd(x)
    assert u.shape == (2, 5, 5) and s.shape == (2, 3) and vh.shape == (2, 3, 3)
    close(s, np.linalg.svd(x, compute_uv=False))
    close(L.svd(x, compute_uv=False), s)
    u, s, vh = L.svd(x, full_matrices=False)
    close((np.asarray(u) * np.asarray(s)[..., None, :]) @ np.asarray(vh), x)
    us, ss, vhs = L.svd(x, full_matrices=False, subset_by_index=(1, 3))
    close(ss, np.asarray(s)[..., 1:])
    assert us.shape == (2, 5, 2) and vhs.shape == (2, 2, 3)
    close(L.svd(x, full_matrices=False, compute_uv=False, subset_by_index=(0, 1)),
          np.asarray(s)[..., :1])
    with pytest.raises(ValueError, match="cannot both be set"):
        L.svd(x, subset_by_index=(0, 1))
    with pytest.raises(ValueError, match="0 <= start <= end <= 3"):
        L.svd(x, full_matrices=False, subset_by_index=(2, 4))


@pytest.mark.parametrize("left_side,lower,transpose_a,unit_diagonal",
                         list(itertools.product([False, True], repeat=4)))
def test_triangular_solve_every_flag(left_side: bool, lower: bool, transpose_a: bool,
                                     unit_diagonal: bool) -> None:
    a = RNG.standard_normal((2, 4, 4)) + 4 * np.eye(4)
    b = RNG.standard_normal((2, 4, 3) if left_side else (2, 3, 4))
    tri = np.tril(a) if lower else np.triu(a)
    if unit_diagonal:
        tri = tri - np.diagonal(tri, axis1=-2, axis2=-1)[..., None] * np.eye(4) + np.eye(4)
    op = np.swapaxes(tri, -1, -2) if transpose_a else tri
    x = L.triangular_solve(a, b, left_side=left_side, lower=lower, transpose_a=transpose_a,
                           unit_diagonal=unit_diagonal, conjugate_a=True)
    close(op @ np.asarray(x) if left_side else np.asarray(x) @ op, b)


def tridiagonal(m: int, small: bool = False, batch: tuple = ()) -> tuple:
    dl, d, du = (RNG.standard_normal((*batch, m)) for _ in range(3))
    return dl, d * (0.01 if small else 1) + (0 if small else 3), du


def dense(dl: np.ndarray, d: np.ndarray, du: np.ndarray) -> np.ndarray:
    return np.diag(d) + np.diag(dl[1:], -1) + np.diag(du[:-1], 1)


@pytest.mark.parametrize("m", [1, 2, 3, 7])
@pytest.mark.parametrize("small", [False, True])  # (True: rows interchanged at most steps)
def test_tridiagonal_solve(m: int, small: bool) -> None:
    dl, d, du = tridiagonal(m, small, (2,))
    b = RNG.standard_normal((2, m, 3))
    x = np.asarray(L.tridiagonal_solve(dl, d, du, b))
    for j in range(2):
        close(dense(dl[j], d[j], du[j]) @ x[j], b[j], 1e-9)
    dl2, du2 = dl.copy(), du.copy()
    dl2[..., 0], du2[..., -1] = 99.0, -77.0  # not read
    close(L.tridiagonal_solve(dl2, d, du2, b), x, 0)


def test_tridiagonal_solve_edges_and_errors() -> None:
    z = np.zeros(3)
    assert np.isnan(np.asarray(L.tridiagonal_solve(z, np.array([1.0, 0, 1]), z,
                                                   np.ones((3, 1))))).all()  # (as JAX)
    close(L.tridiagonal_solve(np.array([0, 1.0, 0]), np.array([0.0, 1, 1]),
                              np.array([1.0, 0, 0]), np.array([[1.0], [2], [3]])),
          [[1.0], [1.0], [3.0]], 0)  # (a zero first pivot: the rows interchange)
    with pytest.raises(ValueError, match=r"b must have shape \(\.\.\., m, k\)"):
        L.tridiagonal_solve(z, z + 1, z, np.ones(3))
    with pytest.raises(TypeError, match="one dtype"):
        L.tridiagonal_solve(z, z + 1, z, np.ones((3, 1), np.float32))
    with pytest.raises(NotImplementedError, match="perturb_singular"):
        L.tridiagonal_solve(z, z + 1, z, np.ones((3, 1)), perturb_singular=True)


def test_tridiagonal_solve_derivatives() -> None:
    dl, d, du = tridiagonal(5, batch=(2,))
    b = RNG.standard_normal((2, 5, 2))
    ops = (dl, d, du, b)

    def f(*a: Any) -> Any:
        return mnp.sum(mnp.sin(L.tridiagonal_solve(*a)))

    grads = mg.grad(f, argnums=(0, 1, 2, 3))(*ops)
    assert np.all(np.asarray(grads[0])[..., 0] == 0) and np.all(np.asarray(grads[2])[..., -1] == 0)
    eps = 1e-6
    for i, g in enumerate(grads):
        t = RNG.standard_normal(ops[i].shape)
        up = [o + eps * t if j == i else o for j, o in enumerate(ops)]
        down = [o - eps * t if j == i else o for j, o in enumerate(ops)]
        close(np.sum(np.asarray(g) * t), (f(*up) - f(*down)) / (2 * eps), 1e-6)
    close(mg.vmap(mg.grad(f, argnums=3), in_axes=(0, 0, 0, 0))(*ops),
          np.stack([np.asarray(mg.grad(f, argnums=3)(*(o[j] for o in ops))) for j in range(2)]))


def test_symmetric_product() -> None:
    a = RNG.standard_normal((2, 3, 4))
    c = RNG.standard_normal((2, 3, 3))
    close(L.symmetric_product(a, c, alpha=2.0, beta=0.5),
          2 * a @ np.swapaxes(a, -1, -2) + 0.5 * c)
    full = np.asarray(L.symmetric_product(a, c, alpha=2.0, beta=0.5, symmetrize_output=True))
    close(full, np.swapaxes(full, -1, -2), 0)
    close(np.tril(full), np.tril(2 * a @ np.swapaxes(a, -1, -2) + 0.5 * c))
    c[0, 0, 0] = np.nan  # beta 0: c is not read (BLAS's convention)
    assert np.isfinite(np.asarray(L.symmetric_product(a, c))).all()
    with pytest.raises(ValueError, match=r"c_matrix \(\.\.\., m, m\)"):
        L.symmetric_product(a, c[..., :2])


def test_bad_flags_and_operands() -> None:
    a = spd(3)
    with pytest.raises(TypeError, match=r"lax\.linalg\.cholesky: symmetrize_input must be a bool"):
        L.cholesky(a, symmetrize_input=1)
    with pytest.raises(TypeError, match=r"lax\.linalg\.qr: x must be an array"):
        L.qr([[1.0, 2.0]])
    with pytest.raises(NotImplementedError, match="implementation"):
        L.eigh(a, implementation="qdwh")
    with pytest.raises(TypeError, match="subset_by_index must be a pair of ints"):
        L.eigh(a, subset_by_index=(0.5, 2))
    with pytest.raises(TypeError, match="real floating"):
        L.cholesky(np.eye(3, dtype=np.int64))  # (lax promotes nothing)
    with pytest.raises(TypeError, match="got a float64, b float32"):
        L.triangular_solve(a, np.ones((3, 3), np.float32))

    # shapes, checked before any work (eagerly a bind runs the impl alone)
    bad_shapes: list[tuple[Callable[[], Any], str]] = [
        (lambda: L.cholesky(np.ones((2, 3))), "cholesky: the matrix must be square"),
        (lambda: L.eigh(np.ones((2, 3))), "eigh: the matrix must be square"),
        (lambda: L.lu(np.ones(3)), "lu: operands must be stacks of matrices"),
        (lambda: L.qr(np.ones(3), pivoting=True), "qr: operands must be stacks of matrices"),
        (lambda: L.svd(np.ones(3)), "svd: operands must be stacks of matrices"),
        (lambda: L.triangular_solve(np.ones((2, 3)), np.ones((3, 3))), "a must be square"),
        (lambda: L.triangular_solve(a, np.ones((2, 2))), "as many columns as a has columns"),
        (lambda: L.triangular_solve(a, np.ones((2, 3)), left_side=True), "as many rows"),
    ]
    for call, message in bad_shapes:
        with pytest.raises(ValueError, match=message):
            call()


def test_jit_vmap_and_grad() -> None:
    a = spd(4, (3,))
    b = RNG.standard_normal((3, 4, 2))

    def f(a: Any, b: Any) -> Any:
        chol = L.cholesky(a)
        x = L.triangular_solve(chol, b, left_side=True, lower=True)
        _, w = L.eigh(a)
        return mnp.sum(x * x) + mnp.sum(w) + mnp.sum(L.svd(a, compute_uv=False))

    want = f(a, b)
    close(mg.jit(f)(a, b), want)
    close(mg.vmap(f, in_axes=(0, 0))(a, b).sum(), want)  # (f sums: the stack's sum)
    g = mg.grad(f)(a, b)
    eps, da = 1e-6, RNG.standard_normal(a.shape)
    da = da + np.swapaxes(da, -1, -2)  # (a symmetric direction: cholesky symmetrizes)
    fd = (f(a + eps * da, b) - f(a - eps * da, b)) / (2 * eps)
    close(np.sum(np.asarray(g) * da), fd, 1e-5)


JAX_CASES: dict[str, tuple[Callable[[Any], Any], Callable[[], tuple]]] = {
    "cholesky": (lambda m: m.cholesky, lambda: (spd(4),)),
    "eigh-values": (lambda m: lambda a: m.eigh(a)[1], lambda: (spd(4),)),
    "lu": (lambda m: lambda a: m.lu(a)[0], lambda: (RNG.standard_normal((4, 4)),)),
    "qr-r": (lambda m: lambda a: m.qr(a)[1], lambda: (RNG.standard_normal((5, 3)),)),
    "svd-values": (lambda m: lambda a: m.svd(a, compute_uv=False),
                   lambda: (RNG.standard_normal((5, 3)),)),
    "triangular_solve": (lambda m: lambda a, b: m.triangular_solve(a, b, left_side=True),
                         lambda: (RNG.standard_normal((4, 4)) + 4 * np.eye(4),
                                  RNG.standard_normal((4, 2)))),
    "tridiagonal_solve": (lambda m: m.tridiagonal_solve,
                          lambda: (*tridiagonal(6, small=True, batch=(2,)),
                                   RNG.standard_normal((2, 6, 2)))),
    "symmetric_product": (lambda m: lambda a, c: m.symmetric_product(
        a, c, alpha=1.5, beta=-0.5, symmetrize_output=True), lambda: (
        RNG.standard_normal((3, 4)), spd(3))),
}


@pytest.mark.parametrize("name", sorted(JAX_CASES))
def test_against_jax(name: str, jax_x64: Any) -> None:
    jax = jax_x64
    make, args = JAX_CASES[name]
    ops = args()
    ours, theirs = make(L), make(jax.lax.linalg)
    close(ours(*ops), theirs(*ops), 1e-9)

    def loss(f: Callable[..., Any], np_: Any) -> Callable[..., Any]:
        return lambda *a: np_.sum(np_.sin(f(*a)))

    if name == "symmetric_product":
        return  # (JAX's has no derivative)
    for i in range(len(ops)):
        g_ours = mg.grad(loss(ours, mnp), argnums=i)(*ops)
        g_theirs = jax.grad(loss(theirs, jax.numpy), argnums=i)(*ops)
        close(g_ours, g_theirs, 1e-8)


def test_every_jax_parameter_is_a_parameter() -> None:
    assert dir(L) == sorted(L.__all__) and mg.lax.linalg is L
    jax = pytest.importorskip("jax", reason="compares with JAX's signatures")
    for name in L.__all__:
        theirs = set(inspect.signature(getattr(jax.lax.linalg, name)).parameters)
        ours = set(inspect.signature(getattr(L, name)).parameters)
        assert theirs <= ours, (name, theirs - ours)

"""minigrad.numpy.linalg beyond its records (tests/surface_records/linalg.py): derivatives
the records cannot state (lstsq's solution, repeated eigenvalues, reading one triangle, rank
deficiency), the dtypes of the family with x64 on and off, and JAX's dtypes beside them."""

from __future__ import annotations

import importlib.util
from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg
import minigrad.numpy as mnp
from minigrad.testing import check_jvp, check_vjp

HAS_JAX = importlib.util.find_spec("jax") is not None
RNG = np.random.default_rng(0)
L = mnp.linalg


def test_lstsq_solution_is_differentiable() -> None:
    a, b = RNG.standard_normal((5, 3)), RNG.standard_normal((5, 2))
    check_jvp(lambda a, b: L.lstsq(a, b)[0], [a, b])
    check_vjp(lambda a, b: L.lstsq(a, b)[0], [a, b])


def test_full_svd_vectors_of_a_non_square_matrix_have_no_derivative() -> None:
    a = RNG.standard_normal((4, 3))
    with pytest.raises(NotImplementedError, match="full_matrices=True singular vectors"):
        mg.grad(lambda a: mnp.sum(L.svd(a)[0]))(a)
    mg.grad(lambda a: mnp.sum(L.svd(a, full_matrices=False)[0]))(a)  # thin factors: fine
    mg.grad(lambda a: mnp.sum(L.svd(a[:3])[0]))(a[:3])  # square: fine


def test_repeated_eigenvalues() -> None:
    # the eigenvalues' derivative is defined (the diagonal of V^T A_dot V); the eigenvectors'
    # divides by a zero gap: NaN, as JAX's
    d = np.diag([2.0, 1.0, 2.0])
    with np.errstate(all="ignore"):
        g = mg.grad(lambda x: L.eigh(x).eigenvalues @ np.arange(3.0))(d)
        np.testing.assert_allclose(g, np.diag([1.0, 0.0, 2.0]), atol=1e-12)
        assert np.isnan(mg.grad(lambda x: mnp.sum(L.eigh(x).eigenvectors))(d)).all()


@pytest.mark.parametrize("fn", [L.cholesky, lambda a, **kw: L.eigh(a, **kw).eigenvalues])
def test_one_triangle_read(fn: Callable[..., Any]) -> None:
    # symmetrize_input=False reads the lower triangle only: the upper one gets no gradient,
    # and the lower one is the derivative of the function of the lower triangle
    a = np.array([[4.0, 100.0, -3.0], [2.0, 5.0, 7.0], [1.0, 0.5, 6.0]])
    g = mg.grad(lambda x: mnp.sum(fn(x, symmetrize_input=False) ** 2))(a)
    assert (np.triu(np.asarray(g), 1) == 0).all()
    lower = np.tril(a) + np.tril(a, -1).T
    h = mg.grad(lambda x: mnp.sum(fn(x, symmetrize_input=False) ** 2))(lower)
    np.testing.assert_allclose(np.tril(g), np.tril(h), rtol=1e-10)


def test_det_at_rank_deficient_matrices() -> None:
    # rank n - 1: the adjugate (here of a 4x4, through the LU path); rank n - 2: zero
    rank3 = np.diag([1.0, 2.0, 3.0, 0.0])
    np.testing.assert_allclose(mg.grad(L.det)(rank3), np.diag([0.0, 0.0, 0.0, 6.0]),
                               atol=1e-12)
    rank2 = np.diag([1.0, 2.0, 0.0, 0.0])
    np.testing.assert_array_equal(mg.grad(L.det)(rank2), np.zeros((4, 4)))


def test_pinv_of_zero() -> None:
    z = np.zeros((3, 2))
    np.testing.assert_array_equal(L.pinv(z), np.zeros((2, 3)))
    np.testing.assert_array_equal(mg.grad(lambda x: mnp.sum(L.pinv(x)))(z), z)


def test_singular_inputs_give_inf_or_nan_not_errors() -> None:
    with np.errstate(all="ignore"):
        assert not np.isfinite(L.inv(np.zeros((2, 2)))).all()
        assert np.isnan(L.cholesky(np.array([[1.0, 2.0], [2.0, 1.0]]))).any()
        sign, logabsdet = L.slogdet(np.diag([1.0, 0.0, 2.0]))
    assert sign == 0 and logabsdet == -np.inf


# --------------------------------------------------------------------------- dtypes

I32 = np.arange(4, dtype=np.int32).reshape(2, 2) + 3 * np.eye(2, dtype=np.int32)
F32 = I32.astype(np.float32)
F64 = I32.astype(np.float64)

# (name, function of (module, *args), args, result dtype with x64 on, with x64 off)
DTYPES: list[tuple[str, Callable[..., Any], tuple, str, str]] = [
    ("matmul int32", lambda m, a, b: m.matmul(a, b), (I32, I32), "int32", "int32"),
    ("matmul float32 int32", lambda m, a, b: m.matmul(a, b), (F32, I32), "float64", "float32"),
    ("matmul float32 float64", lambda m, a, b: m.matmul(a, b), (F32, F64), "float64",
     "float32"),
    ("einsum int32", lambda m, a, b: m.einsum("ij,jk", a, b), (I32, I32), "int32", "int32"),
    ("tensordot float32", lambda m, a, b: m.tensordot(a, b, 1), (F32, F32), "float32",
     "float32"),
    ("kron int32", lambda m, a, b: m.kron(a, b), (I32, I32), "int32", "int32"),
    ("cross float32 int32", lambda m, a, b: m.cross(a, b), (F32, I32), "float64", "float32"),
    ("vecdot int32", lambda m, a, b: m.vecdot(a, b), (I32, I32), "int32", "int32"),
    ("inv int32", lambda m, a: m.linalg.inv(a), (I32,), "float64", "float32"),
    ("inv float32", lambda m, a: m.linalg.inv(a), (F32,), "float32", "float32"),
    ("det int32", lambda m, a: m.linalg.det(a), (I32,), "float64", "float32"),
    ("solve float32 int32", lambda m, a, b: m.linalg.solve(a, b), (F32, I32), "float64",
     "float32"),
    ("solve float32", lambda m, a, b: m.linalg.solve(a, b), (F32, F32), "float32", "float32"),
    ("norm int32", lambda m, a: m.linalg.norm(a), (I32,), "float64", "float32"),
    ("norm float32", lambda m, a: m.linalg.norm(a), (F32,), "float32", "float32"),
    ("matrix_power int32", lambda m, a: m.linalg.matrix_power(a, 3), (I32,), "int32", "int32"),
    ("matrix_power int32 -1", lambda m, a: m.linalg.matrix_power(a, -1), (I32,), "float64",
     "float32"),
    ("eigvalsh float32", lambda m, a: m.linalg.eigvalsh(a), (F32,), "float32", "float32"),
    ("svdvals int32", lambda m, a: m.linalg.svdvals(a), (I32,), "float64", "float32"),
    ("matrix_rank float64", lambda m, a: m.linalg.matrix_rank(a), (F64,), "int64", "int32"),
]
# Where JAX differs with x64 on, NumPy 2's promotion wins (the project's design; listed in
# docs/divergences.md): an integer operand of a float32 one and an integer matrix into a
# float function give float64 (NumPy's), where JAX keeps float32.
JAX_DIFFERS_X64 = {"matmul float32 int32", "cross float32 int32", "inv int32", "det int32",
                   "solve float32 int32", "norm int32", "matrix_power int32 -1",
                   "svdvals int32"}
JAX_DIFFERS_X32: set[str] = set()


@pytest.mark.parametrize("x64", [True, False])
@pytest.mark.parametrize("name, fn, args, on, off", DTYPES, ids=[r[0] for r in DTYPES])
def test_dtypes(name: str, fn: Callable[..., Any], args: tuple, on: str, off: str,
                x64: bool) -> None:
    with mg.enable_x64(x64):
        out = fn(mnp, *args)
        assert out.dtype == np.dtype(on if x64 else off)
        assert mg.jit(lambda *xs: fn(mnp, *xs))(*args).dtype == out.dtype


@pytest.mark.skipif(not HAS_JAX, reason="jax is not installed: the dtype comparison needs it")
@pytest.mark.parametrize("x64", [True, False])
@pytest.mark.parametrize("name, fn, args, on, off", DTYPES, ids=[r[0] for r in DTYPES])
def test_dtypes_against_jax(name: str, fn: Callable[..., Any], args: tuple, on: str, off: str,
                            x64: bool) -> None:
    import jax
    import jax.numpy as jnp

    before = jax.config.read("jax_enable_x64")
    jax.config.update("jax_enable_x64", x64)
    try:
        theirs = np.asarray(fn(jnp, *[jnp.asarray(a) for a in args])).dtype
    finally:
        jax.config.update("jax_enable_x64", before)
    ours = np.dtype(on if x64 else off)
    differs = name in (JAX_DIFFERS_X64 if x64 else JAX_DIFFERS_X32)
    assert (ours != theirs) == differs, f"{name}: ours {ours}, JAX's {theirs}"

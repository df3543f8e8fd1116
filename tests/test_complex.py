"""Complex numbers in minigrad.numpy: real, imag, conj (over ops/complex.py's primitives, whose
rules tests/test_primitives.py checks through records_complex.py), vdot/vecdot's conjugate,
and complex expm1's special values (the array API standard's table)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.numpy as mnp
from minigrad.ops.complex import complex_
from minigrad.testing import check_jvp, check_vjp

Z = np.array([[1 + 2j, -3.5 - 0.25j, 0j], [2 - 1j, 1e-300 + 1j, -0.0 - 7j]])


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_parts_and_conjugate_are_numpys(dtype: type) -> None:
    z = Z.astype(dtype)
    for ours, theirs in ((mnp.real, np.real), (mnp.imag, np.imag), (mnp.conj, np.conj),
                         (mnp.conjugate, np.conjugate)):
        out = ours(z)
        assert isinstance(out, mg.Array) and out.dtype == theirs(z).dtype
        np.testing.assert_array_equal(out, theirs(z))
    # of a real array: a copy, zeros, a copy
    x = np.array([1.5, -2.0])
    np.testing.assert_array_equal(mnp.real(x), x)
    np.testing.assert_array_equal(mnp.imag(x), [0.0, 0.0])
    assert mnp.real(x) is not x


def test_parts_under_jit_and_vmap() -> None:
    for f in (mnp.real, mnp.imag, mnp.conj):
        np.testing.assert_array_equal(mg.jit(f)(Z), f(Z))
        np.testing.assert_array_equal(mg.vmap(f, in_axes=1)(Z), f(Z).T)


def test_grad_through_complex_intermediates() -> None:
    # |x + i y|^2 = x^2 + y^2, through complex, conj and real
    def f(x: np.ndarray, y: np.ndarray) -> object:
        w = complex_(x, y)
        return mnp.sum(mnp.real(w * mnp.conj(w)))

    x, y = np.array([1.0, -2.0]), np.array([0.5, 3.0])
    gx, gy = mg.grad(f, argnums=(0, 1))(x, y)
    np.testing.assert_allclose(gx, 2 * x)
    np.testing.assert_allclose(gy, 2 * y)
    check_jvp(lambda z: mnp.imag(z * z), [Z])
    check_vjp(lambda z: mnp.real(mnp.conj(z) * 2.0), [Z])


def test_vdot_and_vecdot_conjugate_the_first_operand() -> None:
    a, b = Z, Z[::-1] * (1 - 1j)
    np.testing.assert_allclose(mnp.vdot(a, b), np.vdot(a, b))
    np.testing.assert_allclose(mnp.vecdot(a, b), np.vecdot(a, b))
    np.testing.assert_allclose(mnp.vecdot(a, b, axis=0), np.vecdot(a, b, axis=0))
    # linear in x2, conjugate-linear in x1: the JVP and the dot-product test see both
    check_jvp(lambda u, v: mnp.vecdot(u, v), [a, b])
    check_vjp(lambda u, v: mnp.vecdot(u, v), [a, b])
    np.testing.assert_allclose(mg.vmap(mnp.vecdot)(a, b), np.vecdot(a, b))


INF, NAN = np.inf, np.nan
# (operand, the standard's expm1): its table for complex operands
EXPM1_SPECIAL = [
    (complex(0.0, 0.0), complex(0.0, 0.0)),
    (complex(INF, 0.0), complex(INF, 0.0)),
    (complex(-INF, 1.0), complex(-1.0, 0.0)),
    (complex(-INF, INF), complex(-1.0, 0.0)),
    (complex(-INF, NAN), complex(-1.0, 0.0)),
    (complex(INF, INF), complex(INF, NAN)),
    (complex(INF, NAN), complex(INF, NAN)),
    (complex(NAN, 0.0), complex(NAN, 0.0)),
    (complex(NAN, 1.0), complex(NAN, NAN)),
    (complex(1.0, INF), complex(NAN, NAN)),
    (complex(1.0, NAN), complex(NAN, NAN)),
]


@pytest.mark.parametrize(("z", "want"), EXPM1_SPECIAL, ids=str)
def test_complex_expm1_special_values_are_the_standards(z: complex, want: complex) -> None:
    with np.errstate(all="ignore"):
        got = complex(mnp.expm1(np.array(z)))
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        assert (np.isnan(g) and np.isnan(w)) or (abs(g) == abs(w) and not np.isnan(g)), (got, want)


def test_complex_expm1_is_accurate_near_zero() -> None:
    z = np.array([1e-12 + 1e-12j, -3e-9 + 2e-10j, 0.5 - 2j])
    np.testing.assert_allclose(mnp.expm1(z), np.expm1(z), rtol=1e-14)
    np.testing.assert_allclose(mnp.expm1(z.astype(np.complex64)), np.expm1(z), rtol=1e-6)


def test_pinv_of_complex_matrices_through_the_real_embedding() -> None:
    rng = np.random.default_rng(1)
    a = rng.standard_normal((2, 3, 4)) + 1j * rng.standard_normal((2, 3, 4))
    np.testing.assert_allclose(mnp.linalg.pinv(a), np.linalg.pinv(a), atol=1e-13)
    assert mnp.linalg.pinv(a.astype(np.complex64)).dtype == np.complex64
    h = a[0] @ a[0].conj().T
    np.testing.assert_allclose(mnp.linalg.pinv(h, hermitian=True),
                               np.linalg.pinv(h, hermitian=True), atol=1e-12)
    # a rank-deficient matrix: the cutoff drops the same singular values as NumPy's
    low = a[0][:, :1] @ a[0][:1, :]
    np.testing.assert_allclose(mnp.linalg.pinv(low, rtol=1e-10),
                               np.linalg.pinv(low, rcond=1e-10), atol=1e-12)
    check_jvp(mnp.linalg.pinv, [a[0]])
    check_vjp(mnp.linalg.pinv, [a[0]])
    np.testing.assert_allclose(mg.vmap(mnp.linalg.pinv)(a), np.linalg.pinv(a), atol=1e-13)
    np.testing.assert_allclose(mg.jit(mnp.linalg.pinv)(a), np.linalg.pinv(a), atol=1e-13)

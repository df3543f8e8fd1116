"""minigrad.numpy.fft: NumPy's values for every function, length, axis and norm; every
function under jvp (finite differences), vjp (the dot-product test, on complex inputs too),
vmap (against a loop), jit and vmap(grad); the primitive's own rules are checked through
records_fft.py by tests/test_primitives.py."""

from __future__ import annotations

import importlib.util
from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg
import minigrad.numpy as mnp
from minigrad.testing import check_jvp, check_vjp, check_vmap

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4, 5))
Z = X + 1j * RNG.standard_normal((3, 4, 5))
NORMS = ["backward", "ortho", "forward"]
ONE_AXIS = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
MANY_AXES = ["fftn", "ifftn", "rfftn", "irfftn"]
TWO_AXES = ["fft2", "ifft2", "rfft2", "irfft2"]
REAL_IN = {"rfft", "ihfft", "rfftn", "rfft2"}


def operand(name: str) -> np.ndarray:
    return X if name in REAL_IN else Z


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", ONE_AXIS)
def test_one_axis_transforms_are_numpys(name: str, norm: str) -> None:
    ours, theirs = getattr(mnp.fft, name), getattr(np.fft, name)
    for n in (None, 3, 8):
        for axis in (0, 1, -1):
            want = theirs(operand(name), n=n, axis=axis, norm=norm)
            got = ours(operand(name), n=n, axis=axis, norm=norm)
            assert isinstance(got, mg.Array) and got.dtype == want.dtype
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", MANY_AXES)
def test_many_axes_transforms_are_numpys(name: str, norm: str) -> None:
    ours, theirs = getattr(mnp.fft, name), getattr(np.fft, name)
    for s, axes in ((None, None), ((3, 6), (2, 0)), (None, (1,)), ((4, 2), (0, 1)),
                    (None, (2, 0, 1))):
        want = theirs(operand(name), s=s, axes=axes, norm=norm)
        got = ours(operand(name), s=s, axes=axes, norm=norm)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("norm", [None, *NORMS])
@pytest.mark.parametrize("name", TWO_AXES)
def test_two_axes_transforms_are_numpys(name: str, norm: str | None) -> None:
    ours, theirs = getattr(mnp.fft, name), getattr(np.fft, name)
    np.testing.assert_allclose(ours(operand(name), norm=norm), theirs(operand(name), norm=norm),
                               rtol=1e-12, atol=1e-12)
    for s, axes in (((3, 6), (2, 0)), (None, (0, 1)), ((4, 2), (-1, -3)), ((5, 7), [1, 2])):
        want = theirs(operand(name), s=s, axes=axes, norm=norm)
        got = ours(operand(name), s=s, axes=axes, norm=norm)
        assert isinstance(got, mg.Array) and got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    # the 2-D transform is the n-D one over the two axes
    nd = getattr(mnp.fft, name.replace("2", "n"))
    np.testing.assert_array_equal(ours(operand(name), axes=(0, 2)),
                                  nd(operand(name), axes=(0, 2)))


@pytest.mark.parametrize("name", TWO_AXES)
def test_two_axes_transforms_match_jax(name: str) -> None:
    if importlib.util.find_spec("jax") is None:
        pytest.skip("jax is not installed (pip install jax): the differential test needs it")
    import jax
    import jax.numpy as jnp

    before = jax.config.read("jax_enable_x64")
    jax.config.update("jax_enable_x64", True)
    try:
        for kw in ({}, {"s": (3, 6), "axes": (2, 0), "norm": "ortho"}):
            want = getattr(jnp.fft, name)(operand(name), **kw)
            got = getattr(mnp.fft, name)(operand(name), **kw)
            assert got.dtype == want.dtype
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
            # gradients of a real loss of a real input
            w = np.random.default_rng(1).standard_normal(want.shape)

            def loss(m: Any, x: Any, kw: dict = kw, w: np.ndarray = w) -> Any:
                arg = x if name in REAL_IN else x * (1 - 2j)
                out = getattr(m.fft, name)(arg, **kw)
                return m.sum((m.real(out) + 2 * m.imag(out)) * w)

            np.testing.assert_allclose(mg.grad(lambda x: loss(mnp, x))(X),
                                       jax.grad(lambda x: loss(jnp, x))(X), rtol=1e-11,
                                       atol=1e-11)
    finally:
        jax.config.update("jax_enable_x64", before)


def test_single_precision_stays_single() -> None:
    z, x = Z.astype(np.complex64), X.astype(np.float32)
    assert mnp.fft.fft(z).dtype == np.complex64
    assert mnp.fft.rfft(x).dtype == np.complex64
    assert mnp.fft.irfft(z).dtype == np.float32
    assert mnp.fft.hfft(z).dtype == np.float32
    assert mnp.fft.fft(x).dtype == np.complex64  # a real operand of fft: its complex twin
    np.testing.assert_allclose(mnp.fft.fftn(z), np.fft.fftn(z), rtol=1e-5, atol=1e-4)


def test_frequencies_and_shifts_are_numpys() -> None:
    for n in (1, 4, 7):
        for d in (1.0, 0.25):
            np.testing.assert_allclose(mnp.fft.fftfreq(n, d), np.fft.fftfreq(n, d), rtol=1e-15)
            np.testing.assert_allclose(mnp.fft.rfftfreq(n, d), np.fft.rfftfreq(n, d),
                                       rtol=1e-15)
    assert mnp.fft.fftfreq(4, dtype=np.float32).dtype == np.float32
    for axes in (None, 0, (1, 2), -1):
        np.testing.assert_array_equal(mnp.fft.fftshift(X, axes), np.fft.fftshift(X, axes))
        np.testing.assert_array_equal(mnp.fft.ifftshift(X, axes), np.fft.ifftshift(X, axes))


# --------------------------------------------------------------------------- transforms

def real_loss(name: str, **kw: Any) -> Callable[[Any], Any]:
    """A real function of a real array through the transform (complex inputs built from it)."""
    fn = getattr(mnp.fft, name)

    def f(x: Any) -> Any:
        arg = x if name in REAL_IN else x * (1 - 2j)
        out = fn(arg, **kw)
        return mnp.real(out) * 1.5 + mnp.imag(out) if mnp.iscomplexobj(out) else out

    return f


CASES = [(name, norm) for name in ONE_AXIS + MANY_AXES + TWO_AXES for norm in NORMS]


@pytest.mark.parametrize(("name", "norm"), CASES)
def test_jvp_and_vjp(name: str, norm: str) -> None:
    kw: dict[str, Any] = {"norm": norm}
    if name in ONE_AXIS:
        kw.update(n=6, axis=1)
    else:
        kw.update(s=(4, 6), axes=(2, 1))
    check_jvp(real_loss(name, **kw), [X])
    check_vjp(real_loss(name, **kw), [X])
    # complex in, complex out: the dot-product test for the pairing Re(sum(a b))
    if name not in REAL_IN:
        fn = getattr(mnp.fft, name)
        check_jvp(lambda z: fn(z, **kw), [Z])
        check_vjp(lambda z: fn(z, **kw), [Z])


@pytest.mark.parametrize("name", ONE_AXIS + MANY_AXES + TWO_AXES)
def test_vmap_jit_and_vmap_grad(name: str) -> None:
    f = real_loss(name, norm="ortho")
    for in_axes in (0, 1, 2):
        check_vmap(f, [X], in_axes=(in_axes,))
    np.testing.assert_allclose(mg.jit(f)(X), f(X), rtol=1e-12, atol=1e-12)

    def scalar(x: Any) -> Any:
        return mnp.sum(mnp.sin(f(x)))

    batched = mg.vmap(mg.grad(scalar))(X)
    looped = np.stack([mg.grad(scalar)(x) for x in X])
    np.testing.assert_allclose(batched, looped, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(mg.jit(mg.grad(scalar))(X), mg.grad(scalar)(X), rtol=1e-12,
                               atol=1e-12)


def test_grad_by_parseval() -> None:
    # sum |fft(x, norm="ortho")|^2 = sum x^2 (unitary): its gradient is 2x
    def energy(x: Any) -> Any:
        s = mnp.fft.fft(x, norm="ortho")
        return mnp.sum(mnp.real(s * mnp.conj(s)))

    np.testing.assert_allclose(mg.grad(energy)(X[0]), 2 * X[0], rtol=1e-12, atol=1e-12)


# --------------------------------------------------------------------------- bad input

@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda: mnp.fft.fft(Z, norm="unitary"), ValueError, "fft: norm must be one of"),
    (lambda: mnp.fft.fft(Z, n=0), ValueError, "fft: n must be a positive integer; got 0"),
    (lambda: mnp.fft.rfft(Z), TypeError, "rfft: x must be real; got complex128"),
    (lambda: mnp.fft.fft(Z, axis=3), IndexError, "fft: axis 3 is out of range"),
    (lambda: mnp.fft.fftn(Z, axes=(0, 0)), ValueError, "fftn: axes must be distinct"),
    (lambda: mnp.fft.fftn(Z, s=(2, 3), axes=(0,)), ValueError,
     "fftn: s and axes must have the same length"),
    (lambda: mnp.fft.fft(np.array(1j)), ValueError, "fft: x must have at least one axis"),
    (lambda: mnp.fft.fft2(Z, axes=(0,)), ValueError,
     r"fft2: axes must name exactly two axes; got \(0,\)"),
    (lambda: mnp.fft.ifft2(Z, axes=(0, 1, 2)), ValueError, "ifft2: axes must name exactly two"),
    (lambda: mnp.fft.rfft2(Z), TypeError, "rfft2: x must be real; got complex128"),
    (lambda: mnp.fft.irfft2(Z, s=(3,)), ValueError,
     "irfft2: s and axes must have the same length; got 1 and 2"),
    (lambda: mnp.fft.fft2(Z, axes=(1, -2)), ValueError, "fft2: axes must be distinct"),
    (lambda: mnp.fft.fft2(Z[0, 0]), IndexError, "fft2: axis -2 is out of range"),
    (lambda: mnp.fft.ifft2(Z, norm="unitary"), ValueError, "ifft2: norm must be one of"),
    (lambda: mnp.fft.irfft(Z[..., :1]), ValueError, "irfft: n must be a positive integer"),
    (lambda: mnp.fft.fftfreq(4, device="gpu"), ValueError, "fftfreq: device must be"),
    (lambda: mnp.fft.fftfreq(4, dtype=np.int64), TypeError, "fftfreq: dtype must be"),
])
def test_bad_input(call: Callable[[], Any], error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        call()

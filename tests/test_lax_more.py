"""minigrad.lax's names added after issue #34 (lax_ops.py, shapes.py): reciprocal, square,
is_finite, clz, real, imag, conj, complex, igamma, igammac, full, full_like, empty, tile,
collapse, broadcast_to_rank, split, unstack, stack, broadcast_shapes. Values, dtypes and
errors as JAX 0.10.2's (written out here, so CI without JAX checks them), gradients against
finite differences, and values and gradients against jax.lax when JAX is installed."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg
from minigrad import lax

X = np.array([0.5, -2.0, 3.0, -0.25])


def same(got: Any, want: Any) -> None:
    got = np.asarray(got)
    assert got.dtype == np.asarray(want).dtype and got.shape == np.shape(want)
    np.testing.assert_array_equal(got, want)


def test_elementwise() -> None:
    same(lax.reciprocal(X), 1 / X)
    same(lax.square(np.array([2, -3])), np.array([4, 9]))
    same(lax.is_finite(np.array([1.0, np.inf, np.nan, -np.inf])),
         np.array([True, False, False, False]))
    same(lax.clz(np.array([1, 255, 0, -1], np.int32)), np.array([31, 24, 32, 0], np.int32))
    z = np.array([1 + 2j, -3.5 - 0.5j])
    same(lax.real(z), z.real)
    same(lax.imag(z), z.imag)
    same(lax.conj(z), z.conj())
    same(lax.conj(X), X.astype(complex).conj())  # (a real x becomes complex, as JAX's)
    same(lax.complex(X, -X), X - 1j * X)
    same(lax.complex(X.astype(np.float32), X.astype(np.float32)).dtype, np.dtype(np.complex64))
    np.testing.assert_allclose(lax.igamma(np.array([1.0, 2.0]), np.array([2.0, 3.0])),
                               [1 - np.exp(-2.0), 1 - 4 * np.exp(-3.0)], rtol=1e-14)
    np.testing.assert_allclose(lax.igammac(np.array([1.0]), np.array([2.0])), [np.exp(-2.0)],
                               rtol=1e-14)
    for call, error in [(lambda: lax.reciprocal(np.array([2, 3])), TypeError),
                        (lambda: lax.square(np.array([True])), TypeError),
                        (lambda: lax.is_finite(np.array([1, 2])), TypeError),
                        (lambda: lax.real(X), TypeError),
                        (lambda: lax.conj(np.array([1, 2])), TypeError),
                        (lambda: lax.clz(X), TypeError),
                        (lambda: lax.complex(X, X.astype(np.float32)), TypeError)]:
        with pytest.raises(error):
            call()


def test_gradients() -> None:
    for f, df in [(lax.reciprocal, lambda x: -1 / x ** 2), (lax.square, lambda x: 2 * x)]:
        np.testing.assert_allclose(mg.vmap(mg.grad(f))(X), df(X), rtol=1e-14)
    g = mg.grad(lambda x: lax.igamma(np.float64(2.0), x))(np.float64(1.5))
    np.testing.assert_allclose(g, 1.5 * np.exp(-1.5), rtol=1e-13)  # x^(a-1) e^-x / Gamma(a)


def test_shapes() -> None:
    same(lax.full((2, 3), 1.5), np.full((2, 3), 1.5))
    same(lax.full((2,), 1.5, np.int32), np.array([1, 1], np.int32))
    f32 = np.ones((2, 2), np.float32)
    same(lax.full_like(f32, 3), np.full((2, 2), 3, np.float32))
    same(lax.full_like(f32, 3, shape=(3,)), np.full(3, 3, np.float32))
    same(lax.full_like(f32, 3, dtype=np.int64), np.full((2, 2), 3))
    same(lax.empty((2,), np.float32), np.zeros(2, np.float32))
    a = np.arange(6.0).reshape(2, 3)
    same(lax.tile(a, (2, 3)), np.tile(a, (2, 3)))
    same(lax.tile(a, (1, 0)), np.tile(a, (1, 0)))
    b = np.arange(24.0).reshape(2, 3, 4)
    same(lax.collapse(b, 1), b.reshape(2, 12))
    same(lax.collapse(b, 0, 2), b.reshape(6, 4))
    same(lax.collapse(b, -2), b.reshape(2, 12))
    same(lax.broadcast_to_rank(np.ones(3), 3), np.ones((1, 1, 3)))
    same(lax.broadcast_to_rank(a, 1), a)
    parts = lax.split(np.arange(10.0), (3, 7))
    assert [p.shape for p in parts] == [(3,), (7,)] and type(parts[0]) is mg.Array
    same(parts[1], np.arange(3.0, 10.0))
    same(lax.split(b, (1, 3), axis=-1)[1], b[..., 1:])
    pieces = lax.unstack(a, axis=1)
    assert isinstance(pieces, tuple) and len(pieces) == 3
    same(pieces[2], a[:, 2])
    same(lax.stack([X, -X], axis=1), np.stack([X, -X], axis=1))
    same(lax.stack([X, -X], axis=-1), np.stack([X, -X], axis=-1))
    assert lax.broadcast_shapes((2, 1), (3,)) == (2, 3)
    errors: list[tuple[Callable[[], Any], type, str]] = [
        (lambda: lax.full((2,), np.ones(2)), TypeError, "fill_value must be a scalar"),
        (lambda: lax.tile(np.arange(3), (2, 2)), TypeError, "one entry per axis"),
        (lambda: lax.collapse(b, 2, 1), ValueError, "start_dimension <= stop_dimension"),
        (lambda: lax.split(np.arange(10.0), (3, 6)), ValueError, "must sum to the length 10"),
        (lambda: lax.stack([X, X.astype(np.float32)]), TypeError, "one dtype and one shape"),
        (lambda: lax.stack([]), ValueError, "non-empty"),
        (lambda: lax.unstack(a, axis=2), ValueError, "out of range"),
        (lambda: lax.broadcast_shapes((2,), (3,)), ValueError, "incompatible shapes"),
        (lambda: lax.full((2,), 1.0, sharding=object()), TypeError, "must be None"),
    ]
    for call, error, message in errors:
        with pytest.raises(error, match=message):
            call()


def test_shape_functions_under_transforms() -> None:
    def f(x: Any) -> Any:
        t = lax.tile(lax.broadcast_to_rank(x, 2), (2, 1))
        head, tail = lax.split(lax.collapse(lax.stack([t, t * 2.0]), 0, 2), (1, 3))
        return (lax.square(tail) * lax.full_like(tail, 0.5)).sum() + head.sum()

    x = np.array([0.3, -1.2, 2.0])
    g = mg.grad(f)(x)
    h = 1e-6
    fd = [(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(3)]
    np.testing.assert_allclose(g, fd, rtol=1e-6)
    xs = np.stack([x, 2 * x])
    np.testing.assert_allclose(mg.vmap(mg.grad(f))(xs), [mg.grad(f)(v) for v in xs])
    np.testing.assert_allclose(mg.jit(f)(x), f(x), rtol=0)


CASES: dict[str, tuple[Callable[[Any], Any], tuple]] = {
    "reciprocal": (lambda m: m.reciprocal, (X,)),
    "square": (lambda m: m.square, (X,)),
    "is_finite": (lambda m: m.is_finite, (np.array([1.0, np.inf, np.nan]),)),
    "clz": (lambda m: m.clz, (np.array([1, 255, 0, -1], np.int32),)),
    "real": (lambda m: m.real, (np.array([1 + 2j, -3j]),)),
    "imag": (lambda m: m.imag, (np.array([1 + 2j, -3j]),)),
    "conj": (lambda m: m.conj, (X,)),
    "complex": (lambda m: m.complex, (X, -X)),
    "igamma": (lambda m: m.igamma, (np.array([1.0, 2.5]), np.array([2.0, 0.5]))),
    "igammac": (lambda m: m.igammac, (np.array([1.0, 2.5]), np.array([2.0, 0.5]))),
    "full": (lambda m: lambda: m.full((2, 3), 1.5, np.float32), ()),
    "full_like": (lambda m: lambda x: m.full_like(x, 3, shape=(2,)), (X,)),
    "tile": (lambda m: lambda x: m.tile(x, (3,)), (X,)),
    "collapse": (lambda m: lambda x: m.collapse(x.reshape(2, 2), 0), (X,)),
    "broadcast_to_rank": (lambda m: lambda x: m.broadcast_to_rank(x, 3), (X,)),
    "split": (lambda m: lambda x: m.split(x, (1, 3))[1], (X,)),
    "unstack": (lambda m: lambda x: m.unstack(x.reshape(2, 2), axis=1)[0], (X,)),
    "stack": (lambda m: lambda x: m.stack([x, -x], axis=1), (X,)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_jax(name: str, jax_x64: Any) -> None:
    make, args = CASES[name]
    ours, theirs = make(lax)(*args), make(jax_x64.lax)(*args)
    assert np.asarray(ours).dtype == np.asarray(theirs).dtype
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-14)
    floats = [i for i, a in enumerate(args) if np.asarray(a).dtype.kind == "f"]
    if not floats or name in ("is_finite", "conj", "complex"):
        return
    g_ours = mg.grad(lambda *a: mg.numpy.sum(mg.numpy.sin(make(lax)(*a))), argnums=floats[-1])
    g_theirs = jax_x64.grad(lambda *a: jax_x64.numpy.sin(make(jax_x64.lax)(*a)).sum(),
                            argnums=floats[-1])
    np.testing.assert_allclose(np.asarray(g_ours(*args)), np.asarray(g_theirs(*args)),
                               rtol=1e-12)

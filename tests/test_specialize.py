"""The executor's specialized impls (minigrad/staging/specialize.py): each equal, bit for bit,
to the impl it stands for, on contiguous and strided operands, and the keepdims reductions
made only where their reader is the one expand_dims or reshape of their result."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg
from minigrad import lax
from minigrad import numpy as mnp
from minigrad.jaxpr import Eqn, make_jaxpr
from minigrad.ops.elementwise import dot
from minigrad.staging.specialize import keepdims_readers, specialized

RNG = np.random.default_rng(0)


def eqn_of(f: Callable[..., Any], *args: Any) -> Eqn:
    (e,) = make_jaxpr(f)(*args).jaxpr.eqns
    return e


def impl(e: Eqn, *operands: Any) -> Any:
    """``e``'s impl on ``operands``: what the executor called before specializing."""
    assert e.prim.impl is not None
    return e.prim.impl(*operands, **e.params)


def strided(x: np.ndarray) -> np.ndarray:
    """``x``'s values in a non-contiguous array (every other element of a bigger one)."""
    big = np.zeros((*x.shape[:-1], 2 * x.shape[-1]) if x.ndim else (2,), x.dtype)
    big[..., ::2] = x
    return big[..., ::2] if x.ndim else big[0]


def assert_same(got: Any, want: Any) -> None:
    assert type(got) is type(want) and got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want, strict=True)
    assert np.array_equal(np.signbit(got), np.signbit(want)) if got.dtype.kind == "f" else True


DOTS = [  # (subscripts, x's shape, y's shape)
    ("ij,jk->ik", (5, 4), (4, 3)), ("ij,jk->ik", (5, 1), (1, 3)),  # (one term: multiply)
    ("ij,ik->jk", (4, 5), (4, 3)), ("ij,ik->jk", (1, 5), (1, 3)),  # x.T @ g
    ("ik,jk->ij", (5, 4), (3, 4)), ("ji,jk->ik", (4, 5), (4, 3)),
    ("ij,jk->ki", (5, 4), (4, 3)), ("ij,kj->ki", (5, 4), (3, 4)),  # (y @ x: swapped)
    ("bij,bjk->bik", (2, 5, 4), (2, 4, 3)), ("bji,bjk->bik", (2, 4, 5), (2, 4, 3)),
    ("ij,j->i", (5, 4), (4,)), ("i,i->", (4,), (4,)), ("ij,kl->ijkl", (2, 3), (4, 5)),
]


@pytest.mark.parametrize("subscripts,xs,ys", DOTS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
def test_dot_is_its_impl(subscripts: str, xs: tuple, ys: tuple, dtype: Any) -> None:
    x = (RNG.standard_normal(xs) * 3).astype(dtype)
    y = (RNG.standard_normal(ys) * 3).astype(dtype)
    e = eqn_of(lambda a, b: dot(a, b, subscripts), x, y)
    f = specialized(e)
    if subscripts in ("ij,j->i", "i,i->", "ij,kl->ijkl"):
        assert f is None  # (the impl's general branches: not specialized)
        return
    assert f is not None
    for a, b in [(x, y), (strided(x), y), (x, strided(y)), (np.asfortranarray(x), y)]:
        assert_same(f(a, b), impl(e, a, b))


@pytest.mark.parametrize("op", ["reduce_sum", "reduce_max", "reduce_min"])
@pytest.mark.parametrize("axes", [(0,), (1,), (0, 2), (0, 1, 2)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_reductions_are_their_impls(op: str, axes: tuple, dtype: Any) -> None:
    x = (RNG.standard_normal((3, 4, 5)) * 10).astype(dtype)
    x.flat[::7] = 0
    e = eqn_of(lambda a: getattr(lax, op)(a, axes), x)
    assert e.prim.name == op
    for a in [x, strided(x), x.transpose(2, 0, 1).copy().transpose(1, 2, 0)]:
        want = impl(e, a)
        got = specialized(e)(a)  # type: ignore[misc]
        assert_same(np.asarray(got), np.asarray(want))
        kept = specialized(e, keepdims=True)(a)  # type: ignore[misc]
        assert_same(kept, np.asarray(want).reshape(
            [1 if d in axes else n for d, n in enumerate(x.shape)]))


def test_reductions_over_an_empty_axis_keep_the_impls_error() -> None:
    x = np.zeros((0, 3))
    assert specialized(eqn_of(lambda a: lax.reduce_max(a, (0,)), x)) is None
    assert specialized(eqn_of(lambda a: lax.reduce_max(a, (1,)), x)) is not None
    with pytest.raises(ValueError, match="size 0"):
        mg.jit(lambda a: lax.reduce_max(a, (0,)))(x)


@pytest.mark.parametrize("y", [2, 3, 4, 5, -1])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.int32])
def test_integer_pow_is_its_impl(y: int, dtype: Any) -> None:
    if y < 0 and np.dtype(dtype).kind == "i":
        return  # (refused before any equation)
    x = (RNG.standard_normal(1000) * 3 + 0.5).astype(dtype)
    e = eqn_of(lambda a: lax.integer_pow(a, y), x)
    f = specialized(e)
    if y not in (2, 3, 4) or np.dtype(dtype).kind == "i":
        assert f is None
        return
    assert f is not None
    for a in [x, strided(x)]:
        assert_same(f(a), impl(e, a))


@pytest.mark.parametrize("make", [
    lambda a: lax.expand_dims(a, (1,)), lambda a: a.reshape(3, 1, 5),
    lambda a: lax.expand_dims(a, (0,))[0][:, None]])
def test_reshapes_are_their_impls(make: Callable[[Any], Any]) -> None:
    x = RNG.standard_normal((3, 5))
    e = make_jaxpr(make)(x).jaxpr.eqns[0]
    for a in [x, strided(x)]:
        assert_same(specialized(e)(a), impl(e, a))  # type: ignore[misc]


def softmax_like(x: Any) -> Any:
    m = mnp.max(x, axis=1, keepdims=True)
    e = mnp.exp(x - m)
    return e / mnp.sum(e, axis=1, keepdims=True)


@pytest.mark.parametrize("f,fused", [
    (softmax_like, 2),  # the max and the sum, each read by one expand_dims
    (lambda x: (mnp.sum(x, axis=1), mnp.sum(x, axis=1)[:, None] * x), 0),  # also a result
    (lambda x: mnp.sum(x, axis=1)[:, None] * mnp.sum(x, axis=1), 0),  # read twice (cse)
    (lambda x: mnp.max(x, axis=0).reshape(1, 4) + x, 1),  # a reshape to the kept shape
    (lambda x: mnp.max(x, axis=0).reshape(2, 2) + 1.0, 0),  # a reshape to another
    (lambda x: mnp.sum(x, axis=(0, 1)).reshape(1, 1) + x, 1),  # every axis: no scalar
])
def test_keepdims_only_where_one_reader_puts_the_axes_back(f: Callable[[Any], Any],
                                                           fused: int) -> None:
    x = RNG.standard_normal((3, 4))
    jf = mg.jit(f)
    lowered = jf.lower(x)
    assert len(keepdims_readers(lowered.jaxpr.jaxpr)) == fused
    assert lowered.as_text().count("(keepdims)") == fused
    for got, want in zip(mg.tree_util.tree_leaves(jf(x)), mg.tree_util.tree_leaves(f(x)),
                         strict=True):
        assert_same(np.asarray(got), np.asarray(want))

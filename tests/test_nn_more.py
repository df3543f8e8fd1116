"""minigrad.nn's functions of issue #34 beyond the surface records: derivatives at the kinks
written out (no JAX needed), dot_product_attention's gradients against JAX and its jvp against
its vjp (its float32 softmax defeats float64 finite differences), and bad input."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import minigrad as mg
import minigrad.numpy as mnp
from minigrad.testing import check_vmap

SELU_SLOPE_AT_0 = 1.6732632423543772 * 1.0507009873554805


@pytest.mark.parametrize(("name", "points", "slopes"), [
    ("relu6", [-1.0, 0.0, 3.0, 6.0, 7.0], [0, 0, 1, 0, 0]),
    ("hard_tanh", [-2.0, -1.0, 0.0, 1.0, 2.0], [0, 1, 1, 1, 0]),
    ("sparse_plus", [-2.0, -1.0, 0.0, 1.0, 2.0], [0, 0, 0.5, 1, 1]),
    ("hard_sigmoid", [-4.0, -3.0, 0.0, 3.0, 4.0], [0, 0, 1 / 6, 0, 0]),
    ("celu", [0.0], [1.0]),
    ("selu", [0.0], [SELU_SLOPE_AT_0]),
    ("soft_sign", [0.0, 1.0], [1.0, 0.25]),
])
def test_derivatives_at_kinks(name: str, points: list, slopes: list) -> None:
    f = getattr(mg.nn, name)
    got = [float(mg.grad(f)(np.float64(p))) for p in points]
    np.testing.assert_allclose(got, slopes, rtol=1e-15, atol=0)


def test_nan_propagates_and_ints_become_floats() -> None:
    for name in ("relu6", "hard_tanh", "sparse_plus", "hard_sigmoid", "celu", "selu"):
        assert np.isnan(getattr(mg.nn, name)(np.array([np.nan]))[0]), name
    assert mg.nn.relu6(np.array([-1, 3, 9])).dtype == np.float64
    with mg.enable_x64(False):
        assert mg.nn.hard_tanh(np.array([-1, 3], np.int32)).dtype == np.float32


def attention_inputs(dtype: Any, seed: int = 0) -> tuple:
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((2, 4, 4, 3)).astype(dtype)
    k = rng.standard_normal((2, 5, 2, 3)).astype(dtype)
    v = rng.standard_normal((2, 5, 2, 3)).astype(dtype)
    bias = rng.standard_normal((2, 1, 4, 5)).astype(dtype)
    mask = rng.random((1, 4, 4, 5)) > 0.3
    return q, k, v, bias, mask


KWARGS = [{}, {"is_causal": True}, {"local_window_size": 1}, {"scale": 0.3},
          {"query_seq_lengths": np.array([2, 4], np.int32),
           "key_value_seq_lengths": np.array([5, 3], np.int32)}]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kw", KWARGS, ids=["plain", "causal", "window", "scale", "lengths"])
def test_attention_matches_jax(dtype: Any, kw: dict) -> None:
    jax = pytest.importorskip("jax", reason="compares with jax.nn.dot_product_attention")
    import jax.numpy as jnp

    q, k, v, bias, mask = attention_inputs(dtype)
    w = np.random.default_rng(1).standard_normal(q.shape)
    with jax.enable_x64(True):
        def theirs(q, k, v, bias):
            return jnp.sum(jax.nn.dot_product_attention(q, k, v, bias, mask, **kw) * w)

        value_j, grads_j = jax.value_and_grad(theirs, argnums=(0, 1, 2, 3))(q, k, v, bias)

    def ours(q, k, v, bias):
        return mnp.sum(mg.nn.dot_product_attention(q, k, v, bias, mask, **kw) * w)

    value_m, grads_m = mg.value_and_grad(ours, argnums=(0, 1, 2, 3))(q, k, v, bias)
    tol = 1e-5  # float32 softmax in both: different summation orders and exp kernels
    np.testing.assert_allclose(value_m, value_j, rtol=tol, atol=tol)
    for gm, gj in zip(grads_m, grads_j, strict=True):
        assert gm.dtype == gj.dtype
        np.testing.assert_allclose(gm, gj, rtol=tol, atol=tol * 10)


def test_attention_jvp_matches_vjp_and_residual() -> None:
    q, k, v, bias, mask = attention_inputs(np.float64)
    rng = np.random.default_rng(2)
    tangents = tuple(rng.standard_normal(x.shape) for x in (q, k, v))
    f = lambda q, k, v: mg.nn.dot_product_attention(q, k, v, bias, mask)  # noqa: E731
    out, out_dot = mg.jvp(f, (q, k, v), tangents)
    ct = rng.standard_normal(out.shape)
    _, f_vjp = mg.vjp(f, q, k, v)
    lhs = float(np.sum(out_dot * ct))
    rhs = sum(float(np.sum(t * g)) for t, g in zip(tangents, f_vjp(ct), strict=True))
    assert abs(lhs - rhs) < 1e-6 * max(1.0, abs(lhs))
    encoded, lse = mg.nn.dot_product_attention(q, k, v, return_residual=True)
    assert encoded.shape == q.shape and lse.shape == q.shape[:-1]
    logits = np.einsum("btnh,bsnh->bnts", q, np.repeat(k, 2, axis=2)) / np.sqrt(3)
    expected = np.log(np.exp(logits).sum(-1)).transpose(0, 2, 1)
    np.testing.assert_allclose(lse, expected, rtol=1e-6)


def test_attention_batches_and_masks_rows() -> None:
    q, k, v, _, _ = attention_inputs(np.float64)
    lengths = np.array([2, 4], np.int32)
    out = mg.nn.dot_product_attention(q, k, v, query_seq_lengths=lengths)
    assert np.all(np.asarray(out)[0, 2:] == 0) and np.all(np.asarray(out)[1] != 0)
    check_vmap(lambda q, k, v: mg.nn.dot_product_attention(q, k, v, is_causal=True),
               [np.stack([q, q + 1]), k, np.stack([v, 2 * v])], (0, None, 0))


@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda q, k, v: mg.nn.dot_product_attention(q, k, v[..., :2]), ValueError, "value"),
    (lambda q, k, v: mg.nn.dot_product_attention(q[:, :, :3], k, v), ValueError, "multiple"),
    (lambda q, k, v: mg.nn.dot_product_attention(q.astype(np.float32), k, v), TypeError,
     "query must have dtype"),
    (lambda q, k, v: mg.nn.dot_product_attention(q, k, v, mask=np.ones((4, 5))), TypeError,
     "mask must have dtype bool"),
    (lambda q, k, v: mg.nn.dot_product_attention(q, k, v, implementation="cudnn"),
     NotImplementedError, "cudnn"),
    (lambda q, k, v: mg.nn.dot_product_attention(q, k, v, implementation="fast"), ValueError,
     "implementation"),
    (lambda q, k, v: mg.nn.dot_product_attention(
        q, k, v, query_seq_lengths=np.array([1.0, 2.0])), TypeError, "integer"),
    (lambda q, k, v: mg.nn.glu(np.ones((2, 3))), ValueError, "even"),
    (lambda q, k, v: mg.nn.glu(np.ones((2, 4)), axis=2), ValueError, "out of bounds"),
    (lambda q, k, v: mg.nn.relu6(np.array(["a"])), TypeError, "relu6: x must be real"),
])
def test_bad_input(call: Any, error: type, match: str) -> None:
    q, k, v, _, _ = attention_inputs(np.float64)
    with pytest.raises(error, match=match):
        call(q, k, v)

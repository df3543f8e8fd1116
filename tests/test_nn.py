"""minigrad.nn at its edges (relu's kink, large inputs, -inf logits, out-of-range indices) and
on bad input; the records in tests/surface_records/nn.py cover the rest."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import minigrad as mg
from minigrad import nn
from minigrad import numpy as mnp

HAS_JAX = importlib.util.find_spec("jax") is not None


def test_relu_derivative_at_zero_is_zero() -> None:
    assert float(mg.grad(nn.relu)(0.0)) == 0.0
    assert float(mg.grad(nn.relu)(1e-300)) == 1.0
    assert float(mg.grad(nn.relu)(-1e-300)) == 0.0
    assert np.isnan(float(nn.relu(np.nan)))  # NaN propagates, as max(NaN, 0)
    out = nn.relu(np.array([-2, 0, 3], np.int32))
    assert out.dtype == np.int32 and out.tolist() == [0, 0, 3]


def test_softplus_and_log_sigmoid_are_exact_for_large_inputs() -> None:
    assert float(nn.softplus(1000.0)) == 1000.0
    assert float(mg.grad(nn.softplus)(1000.0)) == 1.0
    assert float(nn.softplus(-1000.0)) == 0.0
    assert float(mg.grad(nn.softplus)(-1000.0)) == 0.0
    assert float(nn.log_sigmoid(-1000.0)) == -1000.0
    assert float(mg.grad(nn.log_sigmoid)(-1000.0)) == 1.0
    assert float(nn.log_sigmoid(1000.0)) == 0.0
    for x in (-1000.0, 1000.0):  # no overflow in the unused branch, nor in its gradient
        assert np.isfinite(float(mg.grad(nn.sigmoid)(x)))
        assert np.isfinite(float(mg.grad(nn.elu)(x)))
    assert float(mg.grad(nn.sigmoid)(0.0)) == 0.25


def test_log_softmax_of_minus_inf_logits() -> None:
    x = np.array([-np.inf, 0.0])
    np.testing.assert_array_equal(nn.log_softmax(x), [-np.inf, 0.0])
    np.testing.assert_array_equal(nn.softmax(x), [0.0, 1.0])
    g = mg.grad(lambda v: nn.log_softmax(v)[1])(x)
    np.testing.assert_array_equal(g, [0.0, 0.0])
    g = mg.grad(lambda v: mnp.sum(nn.softmax(v) * np.array([1.0, 2.0])))(x)
    assert np.all(np.isfinite(g))


def test_softmax_where_and_axis_tuple() -> None:
    x = np.arange(6.0).reshape(2, 3)
    mask = np.array([[True, False, True], [False, True, True]])
    out = np.asarray(nn.softmax(x, where=mask))
    assert out[0, 1] == 0.0 and out[1, 0] == 0.0
    np.testing.assert_allclose(out.sum(-1), 1.0)
    assert np.asarray(nn.log_softmax(x, where=mask))[0, 1] == -np.inf
    np.testing.assert_allclose(np.asarray(nn.softmax(x, axis=(0, 1))).sum(), 1.0)


@pytest.mark.skipif(not HAS_JAX, reason="JAX is not installed")
def test_masked_log_softmax_gradient_matches_jax() -> None:
    import jax
    import jax.numpy as jnp

    with jax.enable_x64(True):
        x = np.random.default_rng(0).standard_normal((3, 4))
        mask = np.array([[True, False, True, True], [True, True, False, False],
                         [True, False, False, True]])
        w = np.random.default_rng(1).standard_normal((3, 4)) * mask  # finite at -inf entries
        ours = mg.grad(lambda v: mnp.sum(mnp.where(mask, nn.log_softmax(v, where=mask), 0) * w))(x)
        theirs = jax.grad(lambda v: jnp.sum(jnp.where(mask, jax.nn.log_softmax(v, where=mask), 0)
                                            * w))(x)
        np.testing.assert_allclose(ours, np.asarray(theirs), rtol=1e-12, atol=1e-12)


def test_one_hot_out_of_range_gives_zeros() -> None:
    out = nn.one_hot(np.array([0, 2, 3, -1, 7]), 3)
    np.testing.assert_array_equal(out, [[1, 0, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0], [0, 0, 0]])
    assert out.dtype == np.float64
    with mg.enable_x64(False):
        assert nn.one_hot(np.array([1], np.int32), 2).dtype == np.float32
    assert nn.one_hot(np.array([1]), 2, dtype=np.int8).dtype == np.int8
    assert nn.one_hot(np.array([[1, 0]]), 2, axis=0).shape == (2, 1, 2)


def test_x64_off_gives_float32() -> None:
    with mg.enable_x64(False):
        for f in (nn.sigmoid, nn.softplus, nn.gelu, nn.softmax, nn.standardize):
            assert f(np.array([1, 2], np.int32)).dtype == np.float32, f.__name__


@pytest.mark.parametrize("call, exc, match", [
    (lambda: nn.one_hot(np.array([0.0, 1.0]), 3), TypeError, "one_hot: x must be an integer"),
    (lambda: nn.one_hot(np.array([0, 1]), 3.0), TypeError, "one_hot: num_classes must be an int"),
    (lambda: nn.one_hot(np.array([0, 1]), True), TypeError, "one_hot: num_classes must be"),
    (lambda: nn.one_hot(np.array([0, 1]), -1), ValueError, "one_hot: num_classes must be >= 0"),
    (lambda: nn.one_hot(np.array([0, 1]), 3, axis=2), ValueError, "one_hot: axis 2 is out"),
    (lambda: nn.one_hot(np.array([0, 1]), 3, axis=0.5), TypeError, "one_hot: axis must be"),
    (lambda: nn.gelu(np.ones(2), approximate="no"), TypeError, "gelu: approximate must"),
    (lambda: nn.softmax(np.ones(2), where=np.ones(2)), TypeError, "softmax: where must be"),
    (lambda: nn.softmax(np.ones(2), axis=3), ValueError, "axis 3"),
    (lambda: nn.standardize(np.ones(2), algorithm="slow"), ValueError, "standardize: algorithm"),
    (lambda: nn.sigmoid(np.array(["a"])), TypeError, "sigmoid: x must be real"),
    (lambda: nn.relu(np.ones(2, complex)), TypeError, "relu: x must be real"),
])
def test_bad_input(call, exc, match) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(exc, match=match):
        call()

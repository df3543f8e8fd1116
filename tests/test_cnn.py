"""A small CNN on minigrad against JAX (issue #34): tests/cnn_model.py, written once for both
namespaces, trained a few SGD steps under jit, then its per-example gradients (vmap(grad)).

JAX's figures are recorded in tests/data/cnn_jax.npz by tests/make_cnn_golden.py (x64 on, as
minigrad's default), so the comparison runs without JAX; with JAX installed the same code also
runs live on it. Tolerance: rtol 1e-12 and atol 1e-14 (float64; the two differ only in the
order XLA and NumPy sum a convolution's products, a few ulps: measured at most 7e-16).
"""

from __future__ import annotations

import pathlib
import sys
from typing import Any

import numpy as np
import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import cnn_model  # noqa: E402

RTOL, ATOL = 1e-12, 1e-14


@pytest.fixture(scope="module")
def ours() -> dict[str, np.ndarray]:
    return cnn_model.run("minigrad")


def compare(ours: dict[str, np.ndarray], theirs: Any) -> None:
    names = sorted(k for k in theirs if k != "jax_version")
    assert names == sorted(ours), "the figures recorded and computed must be the same arrays"
    for k in names:
        assert ours[k].shape == theirs[k].shape, k
        np.testing.assert_allclose(ours[k], theirs[k], rtol=RTOL, atol=ATOL, err_msg=k)


def test_against_the_recorded_jax_figures(ours: dict[str, np.ndarray]) -> None:
    with np.load(HERE / "data" / "cnn_jax.npz") as theirs:
        compare(ours, theirs)


def test_against_jax_live(ours: dict[str, np.ndarray]) -> None:
    jax = pytest.importorskip("jax", reason="the live comparison runs the model on JAX")
    before = jax.config.read("jax_enable_x64")
    jax.config.update("jax_enable_x64", True)
    try:
        theirs = cnn_model.run("jax")
    finally:
        jax.config.update("jax_enable_x64", before)
    compare(ours, theirs)


def test_it_trains_and_the_per_example_gradients_add_up(ours: dict[str, np.ndarray]) -> None:
    """The loss falls step by step; the mean of the per-example gradients is the gradient of
    the mean loss (a check of vmap(grad) independent of JAX)."""
    import minigrad as mg

    losses = ours["losses"]
    assert np.all(np.diff(losses) < 0) and losses[-1] < 0.5 * losses[0], losses
    ns = cnn_model.namespace_of("minigrad")
    params = {k[len("trained_"):]: v for k, v in ours.items() if k.startswith("trained_")}
    x, y = cnn_model.data()
    full = mg.grad(lambda p: cnn_model.loss(ns, p, x, y))(params)
    for k, g in full.items():
        np.testing.assert_allclose(ours["per_example_" + k].mean(axis=0), g, rtol=1e-12,
                                   atol=1e-15, err_msg=k)


def test_the_pooling_sees_ties() -> None:
    """relu makes whole windows 0: the max pooling's ties (the first element gets the
    gradient, as XLA's select-and-scatter) are part of what the comparison covers."""
    ns = cnn_model.namespace_of("minigrad")
    params, (x, _) = cnn_model.init(ns), cnn_model.data()
    h = ns.lax.conv_general_dilated(x, params["w1"], (1, 1), "SAME",
                                    dimension_numbers=("NCHW", "OIHW", "NCHW"))
    h = np.maximum(np.asarray(h), 0)
    n, c, hh, ww = h.shape
    windows = h.reshape(n, c, hh // 2, 2, ww // 2, 2).transpose(0, 1, 2, 4, 3, 5)
    windows = windows.reshape(n, c, hh // 2, ww // 2, 4)
    tied = (windows == windows.max(axis=-1, keepdims=True)).sum(axis=-1) > 1
    assert tied.sum() > 0

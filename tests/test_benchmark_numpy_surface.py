"""The numpy-surface benchmark's NumPy floor (an MLP step, forward and backward by hand)
computes what minigrad's ``value_and_grad`` computes, eagerly and under ``jit``; each eager
row's two calls agree. No timing here."""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad as mg

_PATH = Path(__file__).resolve().parent.parent / "benchmarks" / "numpy_surface.py"
_spec = importlib.util.spec_from_file_location("minigrad_benchmark_numpy_surface", _PATH)
assert _spec is not None and _spec.loader is not None
surface = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = surface
_spec.loader.exec_module(surface)


@pytest.mark.parametrize("batch", [1, 5])
def test_floor_matches_minigrad(batch):
    params, x, y = surface.mlp_inputs(batch, seed=batch, dtype=np.float64)
    value, grads = surface.floor(params, x, y)
    for f in (mg.value_and_grad(surface.mlp_loss), mg.jit(mg.value_and_grad(surface.mlp_loss))):
        v, g = f(params, x, y)
        np.testing.assert_allclose(v, value, rtol=1e-12)
        for a, b in zip(g, grads, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-13)


def test_check_reports_agreement():
    assert surface.check() < 1e-12


@pytest.mark.parametrize("n", surface.SIZES)
def test_eager_rows_compute_the_same(n):
    for name, (_, mine, theirs) in [*surface.eager_rows(n).items(),
                                    *surface.linalg_rows().items()]:
        got, want = mine(), theirs()
        if isinstance(want, tuple):  # slogdet
            got, want = tuple(got), tuple(want)
        np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float),
                                   rtol=1e-10, atol=1e-12, err_msg=name)

"""The benchmark's hand-written NumPy floor computes what minigrad computes.

benchmarks/ is not a package: its workload module is imported by path. No timing here: speed
lives in ``python benchmarks/run.py``.
"""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad as mg

_PATH = Path(__file__).resolve().parent.parent / "benchmarks" / "workload.py"
_spec = importlib.util.spec_from_file_location("minigrad_benchmark_workload", _PATH)
assert _spec is not None and _spec.loader is not None
workload = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = workload
_spec.loader.exec_module(workload)


@pytest.mark.parametrize("batch", [1, 3, 16])
@pytest.mark.parametrize("seed", [0, 1])
def test_floor_matches_minigrad_vmap_grad(batch, seed):
    args = workload.args_of(workload.make_inputs(batch, seed=seed))
    expected = workload.minigrad_vmap_grad()(*args)
    np.testing.assert_allclose(workload.floor_grads(*args), expected, rtol=1e-10, atol=1e-10)


def test_floor_matches_the_loop_of_grad():
    args = workload.args_of(workload.make_inputs(4, seed=2))
    np.testing.assert_allclose(workload.floor_grads(*args), workload.minigrad_loop_grad()(*args),
                               rtol=1e-10, atol=1e-10)


def test_floor_on_edge_inputs():
    # Every row repeated in idx, all mask entries true, no mask2 entry true, overlapping updates.
    inputs = workload.make_inputs(5, n=6, d=8, k=3, seed=3)
    inputs["idx"][:] = inputs["idx"][:, :1]
    inputs["mask"][1] = True
    inputs["mask2"][2] = False
    inputs["mask2"][3] = True
    inputs["cols"][0] = inputs["cols"][0, 0]  # a repeated column
    args = workload.args_of(inputs)
    np.testing.assert_allclose(workload.floor_grads(*args),
                               workload.minigrad_vmap_grad()(*args), rtol=1e-10, atol=1e-10)


def test_workload_function_is_the_specified_one():
    # f's value, by minigrad, against a direct NumPy forward pass of the definition.
    inputs = workload.make_inputs(1, seed=4)
    p, x, idx, uidx, cols, mask, mask2, src, ssrc = (a[0] if name != "p" else a for name, a in
                                                     inputs.items())
    h = x * p
    np.add.at(h, idx, 0.5 * (2 * src))
    h[uidx] = src
    h[:, cols] = 0.0
    h = np.where(mask, -1.0, h)
    h[mask2] = ssrc[:mask2.sum()]
    expected = np.sum(np.tanh(h) ** 2)
    got = workload.minigrad_f(p, x, idx, uidx, cols, mask, mask2, src, ssrc)
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    assert mg.grad(workload.minigrad_f)(p, x, idx, uidx, cols, mask, mask2, src, ssrc).shape == \
        p.shape

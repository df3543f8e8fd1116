"""The control-flow benchmark's NumPy floor (a forward loop and a hand-derived backward loop
of an RNN) computes what minigrad's ``value_and_grad`` of the ``lax.scan`` computes, eagerly
and under ``jit``, and ``checkpoint`` around the cell changes no value. No timing here."""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad as mg

_PATH = Path(__file__).resolve().parent.parent / "benchmarks" / "control_flow.py"
_spec = importlib.util.spec_from_file_location("minigrad_benchmark_control_flow", _PATH)
assert _spec is not None and _spec.loader is not None
control_flow = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = control_flow
_spec.loader.exec_module(control_flow)


@pytest.mark.parametrize("h, t", [(4, 1), (8, 7), (3, 0)])
def test_floor_matches_minigrad(h, t):
    args = [a.astype(np.float64) for a in control_flow.inputs(h, t, seed=h + t)]
    value, grads = control_flow.floor(*args)
    for remat in (False, True):
        for f in (control_flow.minigrad_value_and_grad(remat),
                  mg.jit(control_flow.minigrad_value_and_grad(remat))):
            v, g = f(*args)
            np.testing.assert_allclose(v, value, rtol=1e-12)
            for a, b in zip(g, grads, strict=True):
                np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-12)


def test_check_reports_agreement():
    assert control_flow.check() < 1e-5

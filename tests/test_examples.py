"""examples/: each JAX program runs on minigrad at a small size and agrees with JAX.

The JAX figures are recorded in tests/data/examples_jax.json by tests/examples_golden.py (JAX
0.10.2 on CPU), so the agreement is checked without JAX installed; with JAX installed, one
more test runs an example on JAX afresh and checks the record still holds.
"""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest
from examples_golden import ROOT, SMALL, run

GOLDEN = json.loads((ROOT / "tests" / "data" / "examples_jax.json").read_text())

# relative tolerances against JAX: float32 programs after their steps, float64 ones tighter
TOLERANCES = {
    "mlp_classifier": {"losses": 1e-5, "accuracy": 0.0},
    "dp_sgd": {"losses": 1e-5, "clipped": 0.0, "accuracy": 0.0},
    "char_rnn": {"losses": 1e-10, "grad": 1e-10, "finite_difference": 1e-6},
    "newton_implicit": {"E": 1e-14, "implicit": 1e-12, "unrolled": 1e-12, "numeric": 1e-6,
                        "mean_slope": 1e-12},
    "gaussian_process": {"losses": 1e-9, "theta": 1e-8, "hessian": 1e-6, "test_error": 1e-6},
    "index_add_per_example": {"norms": 1e-12},
}


@pytest.fixture(scope="module", params=sorted(SMALL))
def example(request: pytest.FixtureRequest) -> tuple[str, dict]:
    return request.param, run(request.param, "minigrad")


def test_the_figures_agree_with_jax(example: tuple[str, dict]) -> None:
    name, figures = example
    for key, rtol in TOLERANCES[name].items():
        np.testing.assert_allclose(figures[key], GOLDEN[name][key], rtol=rtol, atol=1e-12,
                                   err_msg=f"{name}: {key}")


def test_the_program_does_what_it_says(example: tuple[str, dict]) -> None:
    name, f = example
    if name in ("mlp_classifier", "dp_sgd", "char_rnn", "gaussian_process"):
        w = max(1, len(f["losses"]) // 10)  # it trains (minibatch losses: averaged)
        assert np.mean(f["losses"][-w:]) < np.mean(f["losses"][:w])
    if name == "char_rnn":
        assert abs(f["grad"] - f["finite_difference"]) < 1e-6 * abs(f["grad"])
    if name == "newton_implicit":
        np.testing.assert_allclose(f["implicit"], f["unrolled"], rtol=1e-12)
        np.testing.assert_allclose(f["implicit"], f["numeric"], rtol=1e-8)
        assert f["worst_residual"] < 1e-12
    if name == "gaussian_process":
        assert f["hvp_gap"] < 1e-8
    if name == "index_add_per_example":
        # .at[].add, index_add and index_add_ (and torch.func, when installed) agree
        assert {"at", "index_add", "index_add_"} <= set(f["gaps"])
        assert max(f["gaps"].values()) < 1e-12
    assert f["jit_s"] > 0 and f["eager_s"] > 0


def test_the_record_still_holds_on_jax() -> None:
    pytest.importorskip("jax", reason="JAX is not installed: the recorded figures are used")
    name = "newton_implicit"  # the quickest; the others are recorded the same way
    figures = run(name, "jax")
    for key in TOLERANCES[name]:
        np.testing.assert_allclose(figures[key], GOLDEN[name][key], rtol=1e-14)


def test_every_example_is_tested() -> None:
    on_disk = {p.stem for p in pathlib.Path(ROOT / "examples").glob("*.py")}
    assert on_disk == set(SMALL) == set(TOLERANCES)

"""The sample generators (minigrad.testing.samples): every primitive has samples, the op
samples of the five ops cover the cases they promise, and every rule check passes on them."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from minigrad.testing import Sample, check_primitive, samples_for
from minigrad.testing.samples import OPS, op_records, op_samples, primitives


def test_every_primitive_has_samples() -> None:
    assert [name for name in primitives() if not samples_for(name)] == []


def test_testing_reexports_the_generators() -> None:
    from minigrad import testing

    assert testing.op_samples is op_samples and testing.Sample is Sample
    assert testing.samples_for is samples_for and testing.OPS == OPS


@pytest.mark.parametrize("op", OPS)
def test_op_samples_pass_every_check(op: str) -> None:
    results = check_primitive(primitives()[op], op_samples(op))
    checks = {r.check for r in results}
    assert {"reference", "shape/impl", "jvp", "vmap", "vmap(grad)", "grad(grad)"} <= checks
    assert any(c.startswith("transpose") for c in checks)


def _draw(s: Sample, seed: int = 0) -> dict[str, np.ndarray]:
    return {n: np.asarray(a) for n, a in zip(s.argnames, s.make(np.random.default_rng(seed)),
                                             strict=True)}


@pytest.mark.parametrize("op", OPS)
def test_op_samples_cover_the_cases(op: str) -> None:
    samples = op_samples(op)
    draws = [_draw(s) for s in samples]
    dtypes = {d["x"].dtype for d in draws}
    assert dtypes == {np.dtype(np.float64), np.dtype(np.float32)}
    assert any(d["x"].ndim == 0 for d in draws), "a 0-d x"
    assert any(a.size == 0 for d in draws for a in d.values()), "an empty operand"
    assert any(s.fun is not None and "value" in s.params for s in samples) or op in (
        "index_add", "index_copy", "masked_scatter"), "a Python-scalar value"
    if op.startswith("index_"):
        assert any(s.params["dim"] < 0 for s in samples), "a negative dim"
        assert any(len(set(d["index"].ravel().tolist())) < d["index"].size for d in draws), \
            "a duplicate index entry"
    else:
        assert any(d["x"].shape != d["mask"].shape for d in draws), "broadcasting"
    for s in samples:
        assert s.batchable is None, "index and mask are batchable too"
        assert s.argnames[1] in ("index", "mask")


def test_draws_are_fresh_with_fixed_shapes() -> None:
    for op in OPS:
        for s in op_samples(op):
            a, b = _draw(s, 0), _draw(s, 1)
            assert {n: v.shape for n, v in a.items()} == {n: v.shape for n, v in b.items()}
    s = op_samples("index_add")[0]
    assert not np.array_equal(_draw(s, 0)["x"], _draw(s, 1)["x"])


def test_op_records_name_their_arguments() -> None:
    for op, records in op_records().items():
        for r in records:
            assert r.prim.name == op and r.fun is not None and len(r.argnames) >= 2


def test_unknown_op() -> None:
    with pytest.raises(ValueError, match="op_samples: op must be one of"):
        op_samples("index_put")


# --------------------------------------------------------------------------- the worked example

WORKED_EXAMPLE = Path(__file__).parent.parent / "docs" / "adding-a-primitive.md"


def test_worked_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    """docs/adding-a-primitive.md defines two primitives and verifies them with
    minigrad.testing: its python blocks, in order, run as one script."""
    text = WORKED_EXAMPLE.read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```", text, re.S | re.M)
    assert len(blocks) >= 8
    namespace: dict = {"__name__": "adding_a_primitive"}
    for i, block in enumerate(blocks):
        exec(compile(block, f"{WORKED_EXAMPLE.name}, python block {i + 1}", "exec"), namespace)
    # the broken transpose was caught, and the right rule put back
    assert "('roll:axis1', 'transpose(0,)')" in capsys.readouterr().out
    assert namespace["roll_p"].transpose is namespace["_roll_transpose"]

"""python -m minigrad crosscheck: the divergence table, a missing framework (exit 2), and the
cross-check itself against PyTorch (and JAX) when installed."""

from __future__ import annotations

import dataclasses
import json
import sys

import numpy as np
import pytest

from minigrad.testing import divergences
from minigrad.testing.divergences import (
    CHECKS,
    DIVERGENCES,
    Situation,
    distinct_counts_differ,
    documented,
    has_duplicates,
)
from minigrad.testing.frameworks import FRAMEWORKS
from minigrad.testing.samples import OPS, op_samples
from minigrad.tools import crosscheck
from minigrad.tools.cli import main


def test_divergence_table_is_well_formed() -> None:
    ids = [d.id for d in DIVERGENCES]
    assert len(ids) == len(set(ids))
    for d in DIVERGENCES:
        assert d.framework in FRAMEWORKS and d.kind in ("divergence", "info")
        assert d.op in (*OPS, "*") and set(d.checks) <= set(CHECKS)
        assert d.condition and len(d.reason) > 40


def test_documented_matches_op_check_and_condition() -> None:
    dup = Situation("index_copy", "vjp", duplicates=True)
    assert documented("torch", dup).id == "torch-index_copy-duplicates"
    assert documented("torch", Situation("index_copy", "vjp")) is None  # no duplicate
    assert documented("torch", Situation("index_copy", "jvp", duplicates=True)) is None
    assert documented("jax", dup) is None
    batched = Situation("index_fill", "vmap", batched=frozenset({"value"}), value_array=True)
    assert documented("torch", batched).id == "torch-index_fill-batched-value"
    both = Situation("index_fill", "vmap", batched=frozenset({"x", "value"}), value_array=True)
    assert documented("torch", both) is None
    assert documented("jax", Situation("index_add", "negative-index")).id == "jax-negative-index"
    loop = Situation("masked_scatter", "vmap", batched=frozenset({"mask"}))
    assert documented("torch", loop) is None
    assert documented("torch", loop, "info").id == "torch-masked_scatter-loop"


def test_conditions_look_at_the_data() -> None:
    fill = Situation("index_fill", "vmap(grad)", batched=frozenset({"index"}), value_array=True)
    # _unique fails to stack only when the examples' counts of distinct entries differ
    assert documented("torch", fill) is None
    assert documented("torch", fill, "info").id == "torch-index_fill-unique-loop"
    ragged = dataclasses.replace(fill, ragged_unique=True)
    assert documented("torch", ragged).id == "torch-index_fill-unique"
    assert distinct_counts_differ(np.array([[1, 1, 2], [0, 1, 2]]))
    assert not distinct_counts_differ(np.array([[1, 1, 2], [0, 0, 2]]))
    # an empty index fills nothing, so a batched value cannot leak between examples
    value = Situation("index_fill", "vmap", batched=frozenset({"value"}), value_array=True)
    assert documented("torch", value).id == "torch-index_fill-batched-value"
    assert documented("torch", dataclasses.replace(value, empty=frozenset({"index"}))) is None
    # duplicates are per example: a batch of 0-d indices repeats none
    assert not has_duplicates(np.array([0, 0, 0]), batched=True)
    assert has_duplicates(np.array([[0, 1], [2, 2]]), batched=True)
    assert has_duplicates(np.array([2, 2]))
    assert not has_duplicates(np.array(2))


def test_affects_names_what_differs() -> None:
    by_id = {d.id: d for d in DIVERGENCES}
    dup = Situation("index_copy", "vjp", duplicates=True)
    assert by_id["torch-index_copy-duplicates"].affects(dup) == ("source",)
    value = by_id["torch-index_fill-batched-value"]
    only_value = Situation("index_fill", "vmap(grad)", batched=frozenset({"value"}))
    assert value.affects(only_value) == ("out", "value")
    with_index = dataclasses.replace(only_value, batched=frozenset({"index", "value"}))
    assert value.affects(with_index) == ("out", "value", "x")
    ragged = Situation("index_fill", "vmap(grad)", batched=frozenset({"index"}),
                       value_array=True, ragged_unique=True)
    assert by_id["torch-index_fill-unique"].affects(ragged) == ()  # it raises: everything


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_missing_framework_exits_2(framework: str, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, framework, None)  # import now raises ImportError
    assert main(["crosscheck", "--against", framework]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert f"crosscheck: {framework} is not installed" in err
    assert crosscheck.INSTALL[framework] in err


def test_unknown_op_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch", reason="the op names are checked once torch has loaded")
    assert main(["crosscheck", "--against", "torch", "index_put"]) == 2
    assert "unknown op 'index_put'" in capsys.readouterr().err


# --------------------------------------------------------------------------- against torch


@pytest.fixture(scope="module")
def torch_results() -> list[crosscheck.Result]:
    pytest.importorskip("torch", reason="the cross-check against PyTorch needs torch installed "
                        "(pip install torch==2.13.0)")
    _, results = crosscheck.run("torch")
    return results


def test_torch_agrees_up_to_documented_divergences(torch_results: list) -> None:
    failures = [(r.sample, r.check, r.in_axes, r.message) for r in torch_results
                if r.status == "fail"]
    assert failures == []
    checks = {(r.op, r.check) for r in torch_results}
    assert {(op, c) for op in OPS for c in CHECKS if c != "negative-index"} <= checks
    # the batched index or mask cases ran, each example with its own index or mask
    assert any(r.in_axes == (None, 0, None) and r.status == "pass" for r in torch_results)


def test_torch_documented_divergences_show_up(torch_results: list) -> None:
    seen = {r.divergence for r in torch_results if r.status == "divergence"}
    assert {"torch-index_copy-duplicates", "torch-index_fill-batched-value",
            "torch-index_fill-negative"} <= seen
    infos = {i for r in torch_results for i in r.info}
    assert {"torch-masked_scatter-loop", "torch-masked_fill-loop"} <= infos
    # a loop is information, never a failure or a divergence of values
    assert all(r.status == "pass" for r in torch_results
               if r.op == "masked_scatter" and not r.check.startswith("in-place"))
    # the in-place variants agree with PyTorch's on every sample (values written into x, x
    # returned, the same inputs refused); under vmap(grad), torch.func refuses to write a
    # batched update into an unbatched x, where minigrad rebinds
    assert all(r.status == "pass" for r in torch_results if r.check == "in-place")
    assert {r.op for r in torch_results if r.check == "in-place"} == set(OPS)
    assert "torch-inplace-unbatched-self" in seen
    assert any(r.check == "in-place vmap(grad)" and r.status == "pass" and r.in_axes
               and r.in_axes[0] == 0 for r in torch_results)


def test_torch_cli_table_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch", reason="needs torch")
    assert main(["crosscheck", "--against", "torch", "index_copy"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("crosscheck against torch")
    assert ("[torch-index_copy-duplicates] index_copy vjp, jacrev, vmap(grad), in-place "
            "vmap(grad)") in out
    assert "0 failures" in out.splitlines()[-1]
    assert main(["crosscheck", "--against", "torch", "--json", "masked_fill"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["framework"] == "torch" and report["passed"] is True
    assert {d["id"] for d in report["divergences"]} == {d.id for d in DIVERGENCES}


def test_torch_undocumented_mismatch_exits_1(monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch", reason="needs torch")
    monkeypatch.setattr(divergences, "DIVERGENCES", [])
    assert main(["crosscheck", "--against", "torch", "index_copy"]) == 1
    out = capsys.readouterr().out
    assert "FAIL index_copy [index_copy:dup-f64] vjp" in out


# --------------------------------------------------------------------------- against jax


def test_jax_agrees_up_to_documented_divergences() -> None:
    jax = pytest.importorskip("jax", reason="the cross-check against JAX needs jax installed "
                              "(pip install jax jaxlib)")
    x64 = jax.config.jax_enable_x64
    # JAX compiles every new shape, so this runs one sample rather than all of them.
    cc = crosscheck.Crosscheck(crosscheck.load("jax"))
    cc.sample("index_copy", op_samples("index_copy")[0])  # duplicates: the last one wins
    cc.negative_index("index_fill")
    # the comparisons run in float64, but the caller's JAX setting is left as it was
    assert jax.config.jax_enable_x64 == x64
    assert [(r.sample, r.check, r.message) for r in cc.results if r.status == "fail"] == []
    assert {r.divergence for r in cc.results if r.status == "divergence"} == {
        "jax-negative-index"}

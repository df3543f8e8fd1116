"""docs/findings.md: every report text carries the repro and the output of the block it
reports (so a report filed from the page shows what the page ran), and the page accounts for
every record of the cross-check's divergence table."""

from __future__ import annotations

import re
from pathlib import Path

from docs_runner import load_run_docs

from minigrad.testing.divergences import DIVERGENCES

PAGE = Path(__file__).resolve().parent.parent / "docs" / "findings.md"
run_docs = load_run_docs()


def reports() -> list[tuple[str, str, str, str]]:
    """Per report: its repro and actual output, and the torch block and output it reports."""
    fences = run_docs.parse_fences(PAGE.read_text())
    found = []
    for k, fence in enumerate(fences):
        if fence.lang != "markdown":
            continue
        code = next(f for f in reversed(fences[:k]) if f.lang == "python" and "torch" in f.words)
        output = fences[fences.index(code) + 1]
        inner = run_docs.parse_fences(fence.body)
        repro = next(f for f in inner if f.lang == "python")
        actual = inner[inner.index(repro) + 1]
        found.append((repro.body, actual.body, code.body, output.body))
    return found


def test_each_report_carries_its_repro_and_output() -> None:
    found = reports()
    assert len(found) == 7
    for repro, actual, code, output in found:
        assert "print(torch.__version__)" in code
        assert repro == code, "a report's repro differs from the block above it"
        assert actual == output, ("a report's actual output differs from the block's output: "
                                  "copy the output block into the report")


def test_every_divergence_record_is_accounted_for() -> None:
    text = PAGE.read_text()
    named = set(re.findall(r"`((?:torch|jax)-[a-z_0-9-]+)`", text))
    ids = {d.id for d in DIVERGENCES}
    assert named == ids

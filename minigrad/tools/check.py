"""``python -m minigrad check``: every rule check of every primitive over its samples, as a table.

The checks are ``minigrad.testing.check_primitive``'s; the samples are
``minigrad.testing.samples_for``'s (the op records of every base primitive, and the op samples
of the five ops). The table has a row per primitive and a column per check; a cell reads ``ok``
with the worst error and the number of cases, ``FAIL`` with the failed and total samples, or
``-`` where the check does not apply (no differentiable operand, say).
"""

from __future__ import annotations

import importlib
import json
import math
import sys
import time
from dataclasses import asdict
from typing import Any, Sequence, TextIO

from minigrad.testing import CheckResult, check_primitive, primitives, registered, samples_for
from minigrad.tools.errors import UsageError

# Table columns, in order; every transpose group of a sample counts under "transpose".
COLUMNS = ("reference", "shape/impl", "jvp", "transpose", "vmap", "vmap(grad)", "grad(grad)",
           "staged")


def column(check: str) -> str:
    return "transpose" if check.startswith("transpose") else check


def import_module(module: str, command: str) -> list[str]:
    """Import a user's module (``--module``); the names of the primitives it registers."""
    try:
        importlib.import_module(module)
    except Exception as e:  # anything the import raises: the user's module is at fault
        raise UsageError(f"{command}: cannot import module {module!r}: {type(e).__name__}: "
                         f"{e}") from None
    names = list(registered(module))
    if not names:
        raise UsageError(f"{command}: module {module!r} registers no primitives: call "
                         f"minigrad.testing.register(prim, samples) in it")
    return names


def select(names: Sequence[str], module: str | None = None) -> list[str]:
    """The primitives to check: ``names`` in order without repeats, or every primitive (every
    one ``module`` registers, with ``module``)."""
    if module is not None:
        own = import_module(module, "check")
        stray = [n for n in names if n not in own]
        if stray:
            raise UsageError(f"check: module {module!r} does not register {stray[0]!r}; it "
                             f"registers: {', '.join(own)}")
        return list(dict.fromkeys(names)) if names else own
    known = primitives()
    unknown = [n for n in names if n not in known]
    if unknown:
        raise UsageError(f"check: unknown primitive {unknown[0]!r}; known: {', '.join(known)}")
    return list(dict.fromkeys(names)) if names else list(known)


class Progress:
    """One progress line on ``stream``: rewritten in place on a terminal, one line a step
    otherwise."""

    def __init__(self, what: str, total: int, stream: TextIO | None = None):
        self.what, self.total = what, total
        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.stream.isatty()
        self.width = 0

    def step(self, i: int, label: str) -> None:
        line = f"{self.what}: [{i + 1}/{self.total}] {label}"
        if self.tty:
            self.stream.write("\r" + line.ljust(self.width))
            self.width = len(line)
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def done(self) -> None:
        if self.tty:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()


def run(names: Sequence[str] = (), *, seed: int = 0, examples: int = 1,
        progress: Progress | None = None) -> list[CheckResult]:
    """Every check of the named primitives (all by default), for ``examples`` independent draws
    of each sample (seeds ``seed``, ``seed + 1``, ...)."""
    if examples < 1:
        raise UsageError(f"check: --examples must be at least 1; got {examples}")
    chosen = select(names)
    prims = primitives()
    results: list[CheckResult] = []
    for i, name in enumerate(chosen):
        samples = samples_for(name)
        if progress is not None:
            progress.step(i, f"{name} ({len(samples)} samples)")
        if not samples:
            results.append(CheckResult(name, "-", "samples", False, math.nan, 0,
                                       "no samples: add a record to minigrad/testing/records.py, "
                                       "or pass samples to minigrad.testing.register"))
        for k in range(examples):
            results += check_primitive(prims[name], samples, seed=seed + k,
                                       raise_on_failure=False)
    return results


def summarize(results: Sequence[CheckResult]) -> dict[str, dict[str, dict[str, Any]]]:
    """primitive -> column -> {passed, worst, cases, samples, failed}."""
    table: dict[str, dict[str, dict[str, Any]]] = {}
    for r in results:
        cell = table.setdefault(r.primitive, {}).setdefault(
            column(r.check), {"passed": True, "worst": 0.0, "cases": 0, "samples": 0,
                              "failed": 0})
        cell["samples"] += 1
        cell["cases"] += r.cases
        if r.passed:
            cell["worst"] = max(cell["worst"], r.worst)
        else:
            cell["passed"] = False
            cell["failed"] += 1
    return table


def _cell(cell: dict[str, Any] | None) -> str:
    if cell is None or (cell["passed"] and cell["cases"] == 0):
        return "-"  # not applicable, or nothing to run (vmap of a primitive with no operands)
    if not cell["passed"]:
        return f"FAIL {cell['failed']}/{cell['samples']}"
    worst = "0" if cell["worst"] == 0 else f"{cell['worst']:.0e}"
    return f"ok {worst} x{cell['cases']}"


def format_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Columns padded to their widest entry, the first left-aligned."""
    widths = [max(len(str(r[i])) for r in [headers, *rows]) for i in range(len(headers))]
    lines = []
    for r in [headers, *rows]:
        cells = [str(c).ljust(w) if i == 0 else str(c).rjust(w)
                 for i, (c, w) in enumerate(zip(r, widths, strict=True))]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def report(results: Sequence[CheckResult], seconds: float) -> str:
    table = summarize(results)
    samples = {(r.primitive, r.sample) for r in results}
    rows = [[name, str(sum(1 for p, _ in samples if p == name)),
             *[_cell(cells.get(c)) for c in COLUMNS]] for name, cells in table.items()]
    out = [format_table(["primitive", "samples", *COLUMNS], rows), "",
           "cell: ok, the worst error (absolute), x the number of cases; FAIL failed/samples; "
           "- not applicable"]
    failed = [r for r in results if not r.passed]
    cases = sum(r.cases for r in results)
    for r in failed:
        out.append(f"FAIL {r.primitive} [{r.sample}] {r.check}: {r.message.splitlines()[0]}")
    verdict = f"{len(failed)} checks FAILED" if failed else "all passed"
    out.append(f"{len(table)} primitives, {len(samples)} samples, {cases} cases: {verdict} "
               f"({seconds:.1f} s)")
    return "\n".join(out)


def to_json(results: Sequence[CheckResult], *, seed: int, examples: int, seconds: float
            ) -> str:
    import minigrad

    def clean(r: CheckResult) -> dict[str, Any]:
        d = asdict(r)
        d["worst"] = None if math.isnan(r.worst) else r.worst
        return d

    return json.dumps({
        "minigrad_version": minigrad.__version__, "seed": seed, "examples": examples,
        "seconds": round(seconds, 3), "passed": all(r.passed for r in results),
        "summary": summarize(results), "results": [clean(r) for r in results]}, indent=2)


def main(names: Sequence[str], *, seed: int = 0, examples: int = 1, as_json: bool = False,
         module: str | None = None) -> int:
    chosen = select(names, module)
    start = time.perf_counter()
    progress = Progress("check", len(chosen))
    try:
        results = run(chosen, seed=seed, examples=examples, progress=progress)
    finally:
        progress.done()
    seconds = time.perf_counter() - start
    if as_json:
        print(to_json(results, seed=seed, examples=examples, seconds=seconds))
    else:
        print(report(results, seconds))
    return 0 if all(r.passed for r in results) else 1

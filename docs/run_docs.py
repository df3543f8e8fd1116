"""Run the code in the docs: ``python docs/run_docs.py [--update] [PAGE ...]``.

Every page (``docs/**/*.md`` and ``README.md``) is a script. Its ```python blocks run in order,
in one namespace per page, and the printed output of a block is compared with the ```text (or
```output) block that immediately follows it, if there is one (only blank lines may stand
between the two). A block with no output block after it still runs; what it prints is not
checked. Outputs are never typed by hand: write an empty ```text block after the code and run
``python docs/run_docs.py --update PAGE`` to fill it in from a fresh run.

Words after ``python`` on the opening fence change how the block runs:

* ``torch`` / ``jax`` / ``scipy``: needs that package; when it is not importable the block is
  skipped (and its output block left as it is). Later blocks that use its names must carry
  the word too.
* ``nocompare``: runs, but its output is not compared (timings, memory); ``--update`` still
  rewrites the output block, so the page shows a real run.
* ``raises``: the block must raise; the exception's last line (``TypeError: ...``) is appended
  to its output, so the error message is what the output block shows.
* ``norun``: shown, never run (a sketch, or a command for another environment).

A page that writes a file of its own (a picture) should write it only when
``MINIGRAD_DOCS_UPDATE`` is ``1``, which ``--update`` sets: a plain run, and the test suite,
leave the checkout as it is.

A block whose text starts with ``>>>`` is a doctest instead, run in the page's namespace.
Pages whose output blocks follow another convention can be listed in ``NO_COMPARE`` below:
their blocks run, their outputs are not compared.

Exit status: 0 when every page is current, 1 otherwise (with a diff for each stale output
block). The test suite runs the same checks: ``tests/test_docs.py``.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import difflib
import doctest
import importlib.util
import io
import os
import re
import sys
import time
import traceback
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
UPDATE_COMMAND = "python docs/run_docs.py --update"

CODE_LANGS = {"python", "py"}
OUTPUT_LANGS = {"text", "output"}
REQUIRES = {"torch", "jax", "scipy"}  # optional packages a block may need
FLAGS = REQUIRES | {"nocompare", "raises", "norun"}

# Pages (relative to the repository root) that run but whose output blocks are not compared.
NO_COMPARE: set[str] = set()

_FENCE = re.compile(r"^ {0,3}(`{3,})\s*([^`]*)$")


def find_pages(root: Path = ROOT) -> list[Path]:
    """Every Markdown page the runner covers: docs/**/*.md, then README.md."""
    pages = sorted((root / "docs").rglob("*.md"))
    readme = root / "README.md"
    return pages + ([readme] if readme.exists() else [])


def available(package: str) -> bool:
    return importlib.util.find_spec(package) is not None


# --------------------------------------------------------------------------- parsing


@dataclasses.dataclass
class Fence:
    """A fenced block: ``start`` is the line number (1-based) of its opening fence; its body
    is lines ``start + 1 .. end - 1`` and ``end`` is the closing fence."""

    lang: str
    words: tuple[str, ...]
    start: int
    end: int
    body: str


@dataclasses.dataclass
class Block:
    """A code block and the output block that follows it, if any."""

    page: Path
    code: Fence
    output: Fence | None

    @property
    def flags(self) -> set[str]:
        return set(self.code.words)

    @property
    def requires(self) -> set[str]:
        return self.flags & REQUIRES

    @property
    def where(self) -> str:
        return f"{relative(self.page)}:{self.code.start}"


def relative(page: Path) -> str:
    try:
        return str(page.resolve().relative_to(ROOT))
    except ValueError:
        return str(page)


def parse_fences(text: str) -> list[Fence]:
    lines = text.split("\n")
    fences: list[Fence] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        ticks, info = m.group(1), m.group(2).split()
        j = i + 1
        while j < len(lines) and lines[j].strip() != ticks:
            j += 1
        lang = info[0].lower() if info else ""
        fences.append(Fence(lang, tuple(info[1:]), i + 1, j + 1, "\n".join(lines[i + 1:j])))
        i = j + 1
    return fences


def parse_blocks(page: Path) -> list[Block]:
    """The page's code blocks in order, each with the output block right after it."""
    text = page.read_text()
    lines = text.split("\n")
    fences = parse_fences(text)
    blocks = []
    for k, fence in enumerate(fences):
        if fence.lang not in CODE_LANGS:
            continue
        unknown = set(fence.words) - FLAGS
        if unknown:
            raise ValueError(f"{relative(page)}:{fence.start}: unknown word(s) "
                             f"{sorted(unknown)} after ```python; known: {sorted(FLAGS)}")
        output = None
        if k + 1 < len(fences) and fences[k + 1].lang in OUTPUT_LANGS:
            nxt = fences[k + 1]
            between = lines[fence.end:nxt.start - 1]  # lines strictly between the two fences
            if all(not line.strip() for line in between):
                output = nxt
        blocks.append(Block(page, fence, output))
    return blocks


# --------------------------------------------------------------------------- running


@dataclasses.dataclass
class BlockResult:
    block: Block
    status: str  # "ok", "stale", "error", "skipped", "not run", "unchecked"
    output: str = ""  # what the block printed (normalized)
    message: str = ""  # the reason for anything but "ok"


def normalize(text: str) -> str:
    """Compare outputs modulo trailing spaces and trailing blank lines."""
    return "\n".join(line.rstrip() for line in text.rstrip().split("\n")).strip("\n")


def _doc_traceback(page: Path) -> str:
    """The current exception's traceback, from the first frame in the page on."""
    etype, value, tb = sys.exc_info()
    frames = traceback.extract_tb(tb)
    name = str(page)
    first = next((i for i, f in enumerate(frames) if f.filename == name), 0)
    lines = traceback.format_list(frames[first:])
    return "Traceback (most recent call last):\n" + "".join(lines) + "".join(
        traceback.format_exception_only(etype, value))


def _run_doctest(block: Block, namespace: dict) -> tuple[str, str]:
    """(status, message) of a ``>>>`` block run as a doctest in the page's namespace."""
    parser = doctest.DocTestParser()
    test = parser.get_doctest(block.code.body, namespace, block.where, str(block.page),
                              block.code.start)
    report = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test, out=report.write, clear_globs=False)
    if runner.failures:
        return "error", report.getvalue()
    return "ok", ""


def run_page(page: Path, *, skip: set[str] | None = None) -> list[BlockResult]:
    """Run the page's blocks in order in one fresh namespace. ``skip``: optional packages to
    treat as absent (default: the ones that are not importable)."""
    import numpy as np

    if skip is None:
        skip = {p for p in REQUIRES if not available(p)}
    compare_page = relative(page) not in NO_COMPARE
    module = types.ModuleType(f"_docs_page_{abs(hash(str(page)))}")
    module.__file__ = str(page)
    sys.modules[module.__name__] = module  # dataclasses and pickling look the module up
    namespace = module.__dict__
    results: list[BlockResult] = []
    failed = False
    saved_print = np.get_printoptions()
    saved_cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        for block in parse_blocks(page):
            flags = block.flags
            if failed:
                results.append(BlockResult(block, "not run", message="an earlier block failed"))
                continue
            if "norun" in flags:
                results.append(BlockResult(block, "skipped", message="marked norun"))
                continue
            missing = sorted(block.requires & skip)
            if missing:
                results.append(BlockResult(block, "skipped",
                                           message=f"{', '.join(missing)} is not importable"))
                continue
            if block.code.body.lstrip().startswith(">>>"):
                status, message = _run_doctest(block, namespace)
                failed = status == "error"
                results.append(BlockResult(block, status, message=message))
                continue
            # Line numbers of the compiled code are the page's: tracebacks point into the page.
            source = "\n" * block.code.start + block.code.body + "\n"
            out, err = io.StringIO(), io.StringIO()
            raised = None
            try:  # stderr (warnings, mostly) is shown only if the block fails
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                    exec(compile(source, str(page), "exec"), namespace)
            except Exception as e:  # a block that fails is a finding, reported below
                raised = e
                trace = err.getvalue() + _doc_traceback(page)
            printed = out.getvalue()
            if "raises" in flags:
                if raised is None:
                    failed = True
                    results.append(BlockResult(block, "error", normalize(printed),
                                               "marked raises, but raised nothing"))
                    continue
                printed += "".join(traceback.format_exception_only(type(raised), raised))
            elif raised is not None:
                failed = True
                results.append(BlockResult(block, "error", normalize(printed), trace))
                continue
            actual = normalize(printed)
            if any(line.startswith("```") for line in actual.split("\n")):
                failed = True
                results.append(BlockResult(block, "error", actual,
                                           "the output has a line starting with ```, which "
                                           "would end its output block"))
                continue
            if block.output is None:
                results.append(BlockResult(block, "ok", actual))
            elif "nocompare" in flags or not compare_page:
                results.append(BlockResult(block, "unchecked", actual))
            elif normalize(block.output.body) == actual:
                results.append(BlockResult(block, "ok", actual))
            else:
                diff = "\n".join(difflib.unified_diff(
                    normalize(block.output.body).split("\n"), actual.split("\n"),
                    f"{relative(page)}:{block.output.start} (the page)", "(a fresh run)",
                    lineterm=""))
                results.append(BlockResult(block, "stale", actual, diff))
    finally:
        os.chdir(saved_cwd)
        np.set_printoptions(**saved_print)
        sys.modules.pop(module.__name__, None)
    return results


def failures(results: list[BlockResult]) -> list[BlockResult]:
    return [r for r in results if r.status in ("error", "stale")]


def report(results: list[BlockResult], errors_only: bool = False) -> str:
    """A readable account of the failures among ``results`` (empty if there are none)."""
    parts = []
    for r in failures(results):
        if errors_only and r.status != "error":
            continue
        if r.status == "stale":
            parts.append(f"{r.block.where}: the output block after this code is stale:\n"
                         f"{r.message}")
        else:
            shown = f"\nit printed:\n{r.output}" if r.output else ""
            parts.append(f"{r.block.where}: this block failed:\n{r.message.rstrip()}{shown}")
    if not parts:
        return ""
    pages = sorted({relative(r.block.page) for r in failures(results)})
    if not errors_only and any(r.status == "stale" for r in results):
        parts.append(f"If the new output is right, rewrite the output blocks with:\n"
                     f"    {UPDATE_COMMAND} {' '.join(pages)}")
    return "\n\n".join(parts)


# --------------------------------------------------------------------------- updating


def update_page(page: Path, results: list[BlockResult]) -> int:
    """Rewrite the page's output blocks from ``results``; returns how many changed. Refuses
    (returns -1) if any block of the page failed to run."""
    if any(r.status == "error" for r in results):
        return -1
    lines = page.read_text().split("\n")
    changed = 0
    # Replace from the bottom up, so earlier line numbers stay valid.
    for r in sorted(results, key=lambda r: -r.block.code.start):
        out = r.block.output
        if out is None or r.status not in ("ok", "stale", "unchecked"):
            continue
        new = r.output.split("\n") if r.output else []
        old = lines[out.start:out.end - 1]
        if old != new:
            lines[out.start:out.end - 1] = new
            changed += 1
    if changed:
        page.write_text("\n".join(lines))
    return changed


# --------------------------------------------------------------------------- command line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python docs/run_docs.py",
        description="Run every ```python block of the docs and compare the printed output "
                    "with the ```text block that follows it.")
    parser.add_argument("pages", nargs="*", type=Path,
                        help="pages to run (default: docs/**/*.md and README.md)")
    parser.add_argument("--update", action="store_true",
                        help="rewrite the output blocks from a fresh run")
    args = parser.parse_args(argv)
    if args.update:
        os.environ["MINIGRAD_DOCS_UPDATE"] = "1"  # pages may rewrite their own files
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))  # minigrad from this checkout
    pages = [p.resolve() for p in args.pages] or find_pages()
    skip = {p for p in REQUIRES if not available(p)}
    if skip:
        print(f"not importable, their blocks are skipped: {', '.join(sorted(skip))}")
    status = 0
    for page in pages:
        start = time.perf_counter()
        results = run_page(page, skip=skip)
        seconds = time.perf_counter() - start
        counts = {s: sum(r.status == s for r in results) for s in
                  ("ok", "unchecked", "stale", "error", "skipped", "not run")}
        summary = ", ".join(f"{n} {s}" for s, n in counts.items() if n)
        if args.update:
            changed = update_page(page, results)
            if changed < 0:
                print(f"{relative(page)}: NOT updated, a block failed ({seconds:.1f} s)")
                print(report(results, errors_only=True))
                status = 1
            else:
                print(f"{relative(page)}: {changed} output block(s) rewritten; {summary} "
                      f"({seconds:.1f} s)")
            continue
        print(f"{relative(page)}: {summary or 'no code'} ({seconds:.1f} s)")
        text = report(results)
        if text:
            print(text)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())

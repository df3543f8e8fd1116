"""Every citation of a page points at a page that ships, and every cited section exists.

The docs, the tests, the package, the benchmarks and README.md cite pages as ``docs/X.md`` and
sections as "docs/design.md, section 5", "design.md section 5", "[design](design.md), section
7" or "section 6 of docs/X.md"; a bare "section N" inside docs/design.md means that page. Each
cited page must exist, and each cited section must be a numbered heading (``## 5. Errors``,
``### 7.4 ...``) of its page. Names of documents that do not ship (the internal design notes
and style guide) are findings too: cite docs/design.md instead.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DESIGN = "docs/design.md"

_NUMBERS = r"(\d+(?:\.\d+)*(?:\s*(?:,|and|,\s*and)\s*\d+(?:\.\d+)*)*)"
# "design" (not "design-approaches"), then within a clause, "section N" or "sections N and M"
_DESIGN_SECTION = re.compile(r"\bdesign(?:\.md)?(?![-\w])[^.;(\n]{0,40}?\bsections? " + _NUMBERS)
_PAGE_SECTION = re.compile(r"\b(docs/[\w/-]+\.md)\)?,? sections? " + _NUMBERS)
_SECTION_OF_PAGE = re.compile(r"\bsections? " + _NUMBERS + r" of (docs/[\w/-]+\.md)")
_BARE_SECTION = re.compile(r"\bsections? " + _NUMBERS)
_PAGE = re.compile(r"\bdocs/[\w/-]+\.md\b")
_NOT_SHIPPING = re.compile(r"\bstyle (?:guide|rules?)\b|\bdesign notes\b|/work/shared\b|"
                           r"\bstyle_anchors\b", re.IGNORECASE)
_HEADING = re.compile(r"^#{1,6} (\d+(?:\.\d+)*)\.?\s", re.MULTILINE)


def sources(root: Path = ROOT) -> list[Path]:
    """The files whose citations must hold: docs, tests, the package, benchmarks, README."""
    found = [root / "README.md"]
    for folder in ("docs", "tests", "minigrad", "benchmarks"):
        for pattern in ("*.md", "*.py"):
            found += sorted((root / folder).rglob(pattern))
    here = Path(__file__).resolve()
    return [p for p in found if p.exists() and p.resolve() != here]


def flatten(text: str) -> str:
    """One line: a citation may wrap, in prose or across comment lines."""
    return re.sub(r"[ \t]*\n[ \t]*(?:#+[ \t]*)?", " ", text)


def numbers(group: str) -> list[str]:
    return re.findall(r"\d+(?:\.\d+)*", group)


def headings(page: Path) -> set[str]:
    """The numbers of a page's numbered headings, outside code blocks."""
    text = re.sub(r"^```.*?^```", "", page.read_text(), flags=re.MULTILINE | re.DOTALL)
    return set(_HEADING.findall(text))


def citations(name: str, text: str) -> list[tuple[str, str | None, str]]:
    """(page, section or None, the words cited) for every citation in ``text`` of the file
    ``name`` (a path relative to the root)."""
    flat = flatten(text)
    found: list[tuple[str, str | None, str]] = []
    for m in _DESIGN_SECTION.finditer(flat):
        found += [(DESIGN, n, m.group(0)) for n in numbers(m.group(1))]
    for m in _PAGE_SECTION.finditer(flat):
        found += [(m.group(1), n, m.group(0)) for n in numbers(m.group(2))]
    for m in _SECTION_OF_PAGE.finditer(flat):
        found += [(m.group(2), n, m.group(0)) for n in numbers(m.group(1))]
    if name == DESIGN:
        for m in _BARE_SECTION.finditer(flat):
            found += [(DESIGN, n, m.group(0)) for n in numbers(m.group(1))]
    found += [(m.group(0), None, m.group(0)) for m in _PAGE.finditer(flat)]
    first = {}  # one finding per page and section ("docs/design.md, section 5" matches twice)
    for page, section, words in found:
        first.setdefault((page, section), words)
    return [(page, section, words) for (page, section), words in first.items()]


def problems(name: str, text: str, root: Path = ROOT) -> list[str]:
    """What is wrong with the citations in ``text``: a page that does not exist, a section its
    page does not have, a document that does not ship."""
    found = []
    for page, section, words in citations(name, text):
        path = root / page
        if not path.exists():
            found.append(f"{name}: {words!r} cites {page}, which does not exist")
        elif section is not None and section not in headings(path):
            found.append(f"{name}: {words!r} cites section {section} of {page}, which has no "
                         f"heading numbered {section}")
    for m in _NOT_SHIPPING.finditer(flatten(text)):
        found.append(f"{name}: {m.group(0)!r} names a document that does not ship; cite "
                     f"{DESIGN} or another page under docs/")
    return found


def test_every_citation_resolves() -> None:
    found = []
    for path in sources():
        found += problems(path.relative_to(ROOT).as_posix(), path.read_text())
    assert found == []


def test_the_known_citations_are_found() -> None:
    # The scanner sees the citations it is meant to check (it cannot pass by finding nothing).
    cited = set()
    for path in sources():
        name = path.relative_to(ROOT).as_posix()
        cited |= {(name, page, section) for page, section, _ in citations(name, path.read_text())}
    assert ("tests/test_bad_inputs.py", DESIGN, "5") in cited
    assert ("tests/test_closure.py", DESIGN, "9") in cited
    assert ("docs/adding-a-primitive.md", DESIGN, "7") in cited
    assert ("README.md", "docs/index.md", None) in cited


def test_design_sections_are_numbered() -> None:
    assert {str(n) for n in range(1, 10)} <= headings(ROOT / DESIGN)


@pytest.mark.parametrize(("text", "expected"), [
    ("see docs/design.md, section 5", []),
    ("(design section 7.4)", []),
    ("[design](design.md), section 7", []),
    ("sections 6 and 9 of docs/design.md", []),
    ("the design-approaches page, section 99", []),  # another page, named without its path
    ("see docs/design.md, section 42", ["section 42 of docs/design.md"]),
    ("(design.md section 7.9)", ["section 7.9 of docs/design.md"]),
    ("(design notes,\n    # section 12)", ["section 12 of docs/design.md", "'design notes'"]),
    ("docs/missing.md", ["docs/missing.md, which does not exist"]),
    ("section 1 of docs/benchmarks.md", ["section 1 of docs/benchmarks.md"]),
    ("(style guide, rule 1)", ["'style guide'"]),
    ("(style rule 6)", ["'style rule'"]),
])
def test_the_scanner(text: str, expected: list[str]) -> None:
    found = problems("tests/example.py", text)
    assert len(found) == len(expected), found
    for problem, words in zip(found, expected, strict=True):
        assert words in problem

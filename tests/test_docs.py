"""Every page of the docs runs, and prints what it says it prints (docs/run_docs.py).

Each page's ```python blocks run in order in one namespace; a block's printed output must equal
the ```text block right after it. A stale page fails with a diff and the command that rewrites
its output blocks (``python docs/run_docs.py --update PAGE``). Blocks marked ``torch`` or
``jax`` run only when that package is importable: their pages get one more test each, skipped
with the reason when it is not.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from docs_runner import load_run_docs

# torch.func's first use imports torch.jit, which warns about its own deprecation; the pages
# show torch.func's vmap fallback on purpose, which warns that performance drops.
pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:There is a performance drop:UserWarning")]

ROOT = Path(__file__).resolve().parent.parent


run_docs = load_run_docs()
PAGES = run_docs.find_pages(ROOT)
OPTIONAL = sorted(run_docs.REQUIRES)


def page_id(page: Path) -> str:
    return run_docs.relative(page)


@functools.cache
def results(page: Path) -> list:
    return run_docs.run_page(page)


def check(page: Path, blocks: list) -> None:
    text = run_docs.report(blocks)
    if text:
        pytest.fail(text, pytrace=False)


def test_the_docs_exist() -> None:
    names = {page_id(p) for p in PAGES}
    for required in ("docs/index.md", "docs/tutorial.md", "docs/architecture.md",
                     "docs/design.md", "docs/design-approaches.md", "docs/ops/index_add.md",
                     "docs/ops/index_copy.md", "docs/ops/index_fill.md",
                     "docs/ops/masked_fill.md", "docs/ops/masked_scatter.md",
                     "docs/tutorial-control-flow.md", "docs/lax/cond.md", "docs/lax/scan.md",
                     "docs/lax/while_loop.md", "docs/lax/checkpoint.md",
                     "docs/lax/select-and-stop-gradient.md"):
        assert required in names


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_page(page: Path) -> None:
    """The blocks that need no optional package (and everything, if a later block failed)."""
    blocks = results(page)
    core = [r for r in blocks if not r.block.requires or r.status in ("error", "not run")]
    check(page, core)


WITH_OPTIONAL = [(page, pkg) for page in PAGES for pkg in OPTIONAL
                 if any(pkg in b.requires for b in run_docs.parse_blocks(page))]


@pytest.mark.parametrize(("page", "package"), WITH_OPTIONAL,
                         ids=[f"{page_id(p)}-{pkg}" for p, pkg in WITH_OPTIONAL])
def test_page_blocks_needing(page: Path, package: str) -> None:
    blocks = [r for r in results(page) if package in r.block.requires]
    if not run_docs.available(package):
        pytest.skip(f"{package} is not importable: {len(blocks)} block(s) of {page_id(page)} "
                    f"not run")
    check(page, blocks)


def test_links_resolve() -> None:
    """Relative links between pages (and to source files) point at files that exist, except
    pages other developers are still writing."""
    pending = {"docs/nan-safety.md", "docs/benchmarks.md"}
    link = run_docs.re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
    broken = []
    for page in PAGES:
        text = page.read_text()
        for fence in run_docs.parse_fences(text):  # code is not prose: no links in it
            text = text.replace(fence.body, "")
        text = run_docs.re.sub(r"`[^`]*`", "", text)
        for target in link.findall(text):
            if "://" in target or target.startswith("mailto:"):
                continue
            path = (page.parent / target).resolve()
            if not path.exists() and run_docs.relative(path) not in pending:
                broken.append(f"{page_id(page)} -> {target}")
    assert broken == []


# --------------------------------------------------------------------------- the runner itself

SAMPLE = '''# a page

```python
x = 2
print(x + 1)
```

```text
3
```

```python raises
int("nope")
```

```output
ValueError: invalid literal for int() with base 10: 'nope'
```

```python nocompare
print("any", x)
```

```text
whatever was measured last time
```

```python norun
this is not python
```

```python
>>> x * 5
10
```
'''


def test_runner_on_a_current_page(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(SAMPLE)
    statuses = [r.status for r in run_docs.run_page(page)]
    assert statuses == ["ok", "ok", "unchecked", "skipped", "ok"]


def test_runner_reports_a_stale_block_and_updates_it(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(SAMPLE.replace("3\n```", "4\n```", 1))
    results = run_docs.run_page(page)
    assert results[0].status == "stale"
    text = run_docs.report(results)
    assert "-4" in text and "+3" in text and run_docs.UPDATE_COMMAND in text
    assert run_docs.update_page(page, results) == 2  # the stale block and the nocompare one
    assert "3\n```" in page.read_text() and "any 2" in page.read_text()
    assert all(r.status != "stale" for r in run_docs.run_page(page))


def test_runner_stops_a_page_at_its_first_error(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(SAMPLE.replace('int("nope")', 'int("7")'))
    results = run_docs.run_page(page)
    assert [r.status for r in results] == ["ok", "error", "not run", "not run", "not run"]
    assert "marked raises, but raised nothing" in run_docs.report(results)
    assert run_docs.update_page(page, results) == -1  # a failing page is never rewritten


def test_runner_skips_blocks_needing_a_missing_package(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("```python torch\nimport torch\nprint(torch.ones(1))\n```\n\n"
                    "```text\nold\n```\n")
    results = run_docs.run_page(page, skip={"torch"})
    assert [(r.status, r.message) for r in results] == [("skipped", "torch is not importable")]
    assert run_docs.update_page(page, results) == 0


def test_runner_rejects_unknown_words(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("```python nocompre\nprint(1)\n```\n")
    with pytest.raises(ValueError, match="unknown word"):
        run_docs.parse_blocks(page)


def test_a_traceback_points_into_the_page(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("text\n\n```python\nx = 1\nprint(1 / 0)\n```\n")
    (result,) = run_docs.run_page(page)
    assert result.status == "error"
    assert f'File "{page}", line 5' in result.message

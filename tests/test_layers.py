"""The package reads bottom-up: core, then tree and jaxpr, then ops, then transforms, then
rebinding (how an in-place update is expressed under a transform), then staging (jit), then
the user API, then testing, then the command-line tools. Every import is counted, including
those deferred into functions, and none may go up a layer or close a cycle."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "minigrad"

# Each layer may import its own modules and those of the layers before it. A name ending in
# ".*" covers a subpackage (its __init__ and every module in it).
LAYERS = [
    ("flags and default dtypes", ["minigrad.config", "minigrad.dtypes"]),
    ("core", ["minigrad.core"]),
    ("tree and jaxpr", ["minigrad.tree.*", "minigrad.tree_util", "minigrad.api_util",
                        "minigrad.frozen", "minigrad.jaxpr"]),
    ("ops", ["minigrad.ops.*"]),
    ("transforms", ["minigrad.transforms.*"]),
    ("rebinding (in-place updates under transforms)", ["minigrad.rebind"]),
    ("staging", ["minigrad.staging.*"]),
    ("user API", ["minigrad.numpy.*", "minigrad.random.*", "minigrad.array", "minigrad.inplace",
                  "minigrad.api_extras",
                  "minigrad.custom_rules", "minigrad.collectives", "minigrad.graph",
                  "minigrad.lax.*", "minigrad.scipy.*", "minigrad.nn.*", "minigrad"]),
    ("testing", ["minigrad.testing.*"]),
    ("tools", ["minigrad.tools.*", "minigrad.__main__"]),
]


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def all_modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports_of(path: Path, modules: dict[str, Path]) -> set[str]:
    """The package modules ``path`` imports, at the top or inside functions. ``from a import b``
    counts as importing ``a.b`` when that is a module, else ``a``."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.add(sub if sub in modules else node.module)
    return {name for name in found if name in modules}


def layer_of(name: str) -> int:
    for i, (_, members) in enumerate(LAYERS):
        for member in members:
            if name == member or (member.endswith(".*") and (
                    name == member[:-2] or name.startswith(member[:-1]))):
                return i
    raise AssertionError(f"{name} is in no layer: add it to LAYERS in {__file__}")


def import_graph() -> dict[str, set[str]]:
    modules = all_modules()
    return {name: imports_of(path, modules) - {name} for name, path in modules.items()}


def test_every_module_has_a_layer():
    for name in all_modules():
        layer_of(name)


def test_no_import_goes_up_a_layer():
    upward = [f"{name} ({LAYERS[layer_of(name)][0]}) imports {dep} "
              f"({LAYERS[layer_of(dep)][0]})"
              for name, deps in import_graph().items() for dep in sorted(deps)
              if layer_of(dep) > layer_of(name)]
    assert not upward, "\n".join(upward)


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for dep in sorted(graph[node]):
            if state.get(dep) == 1:
                return [*path[path.index(dep):], dep]
            if dep not in state and (cycle := visit(dep)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_no_import_cycles():
    # The package's __init__ files re-export; importing a submodule runs its parent's
    # __init__ implicitly, which is not an edge here.
    cycle = find_cycle(import_graph())
    assert cycle is None, " -> ".join(cycle or [])


@pytest.mark.parametrize("graph, cycle", [
    ({"a": {"b"}, "b": {"a"}}, ["a", "b", "a"]),
    ({"a": {"b"}, "b": {"c"}, "c": set()}, None),
    ({"a": {"b"}, "b": {"c"}, "c": {"b"}}, ["b", "c", "b"]),
])
def test_find_cycle_finds_cycles(graph, cycle):
    assert find_cycle(graph) == cycle


def test_deferred_imports_are_counted(tmp_path):
    (tmp_path / "m.py").write_text("def f():\n    from minigrad.ops import indexing\n")
    assert imports_of(tmp_path / "m.py", all_modules()) == {"minigrad.ops.indexing"}


def test_every_package_is_installed_and_typed():
    # pyproject.toml installs what setuptools finds under minigrad/: a directory of modules
    # without an __init__.py would not be found, and an installed minigrad would lack it.
    # py.typed tells downstream type checkers to read ours.
    # (read with a pattern, not tomllib: that needs Python 3.11 and we run on 3.10 too)
    import re

    text = (PACKAGE.parent / "pyproject.toml").read_text()
    assert re.search(r'^\[tool.setuptools.packages.find\]\n(#.*\n)*include = \["minigrad\*"\]',
                     text, re.M), "pyproject.toml: packages are not found under minigrad*"
    dirs = {p.parent for p in PACKAGE.rglob("*.py")} - {PACKAGE.parent}
    assert [d for d in dirs if not (d / "__init__.py").exists()] == []
    assert (PACKAGE / "py.typed").exists()
    assert re.search(r'^minigrad = \["py.typed"\]', text, re.M)

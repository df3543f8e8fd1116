"""minigrad.graph: a jaxpr as Graphviz DOT text (and SVG where Graphviz is installed)."""

import importlib.util
import re
import shutil

import numpy as np
import pytest

import minigrad as mg
import minigrad.numpy as mnp
from minigrad.graph import to_dot, to_svg

X = np.array([0.5, -1.0, 2.0, 0.25])


def per_example(x, cols):
    return mnp.sum(mnp.tanh(mg.index_fill(x * x, 0, cols, 0.5)) ** 2)


def program():
    return mg.make_jaxpr(mg.vmap(mg.grad(per_example)))(np.stack([X, X]),
                                                         np.array([[0, 2], [1, 1]]))


def test_one_box_per_equation_and_one_arrow_per_operand():
    closed = program()
    dot = to_dot(closed)
    jaxpr = closed.jaxpr
    assert dot.startswith("digraph jaxpr {") and dot.endswith("}")
    boxes = re.findall(r"^  e(\d+) \[label=\"(.*)\" shape=box", dot, re.M)
    assert [int(i) for i, _ in boxes] == list(range(len(jaxpr.eqns)))
    listing = str(closed).splitlines()[1:-1]
    assert [label for _, label in boxes] == [line.strip() for line in listing]
    arrows = re.findall(r"^  (\w+) -> (\w+)", dot, re.M)
    operands = sum(1 for e in jaxpr.eqns for a in e.inputs if isinstance(a, mg.jaxpr.Var))
    assert len(arrows) == operands + len(jaxpr.outvars)
    # every arrow leaves a node that is defined before it
    defined = set()
    for line in dot.splitlines():
        m = re.match(r"  (\w+) \[", line)
        if m:
            defined.add(m.group(1))
        m = re.match(r"  (\w+) -> (\w+)", line)
        if m:
            assert m.group(1) in defined


def test_inputs_constants_dead_equations_and_several_outputs():
    w = np.arange(4.0)

    def f(x):
        _ = mnp.cos(x)            # dead: nothing uses it
        return x * w, mnp.sum(x), 2.0

    closed = mg.make_jaxpr(f)(X)
    dot = to_dot(closed)
    assert 'c0 [label="a:f64[4]" shape=note];' in dot
    assert 'v0 [label="b:f64[4]" shape=ellipse];' in dot
    assert re.search(r'e0 \[label="_:f64\[4\] = cos b" shape=box style=dashed\];', dot)
    assert "_:f64[4] = cos b" in str(closed)   # the listing prints the dead binder as _
    assert re.search(r"-> out \[label=0\];", dot) and re.search(r"-> out \[label=2\];", dot)


def test_labels_are_quoted():
    from minigrad.graph import _quote

    assert _quote('a "b" \\ c') == '"a \\"b\\" \\\\ c"'


def test_bad_program():
    with pytest.raises(TypeError, match="to_dot: program must be a ClosedJaxpr or a Jaxpr"):
        to_dot("not a program")


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot program is not installed")
def test_dot_parses_with_graphviz(tmp_path):
    import subprocess

    path = tmp_path / "p.dot"
    path.write_text(to_dot(program()))
    done = subprocess.run(["dot", "-Tsvg", str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "<svg" in done.stdout


@pytest.mark.skipif(importlib.util.find_spec("graphviz") is None or shutil.which("dot") is None,
                    reason="the graphviz package or Graphviz's dot program is not installed")
def test_svg():
    svg = to_svg(program())
    assert svg.lstrip().startswith("<?xml") and "</svg>" in svg
    assert "index_fill" in svg


@pytest.mark.skipif(importlib.util.find_spec("graphviz") is not None,
                    reason="the graphviz package is installed")
def test_svg_without_graphviz_says_what_is_missing():
    with pytest.raises(ImportError, match="pip install graphviz"):
        to_svg(program())

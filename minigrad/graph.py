"""A program as a picture: a jaxpr as a dataflow graph.

``to_dot`` writes Graphviz's DOT text (no dependency); ``to_svg`` draws it, with the optional
``graphviz`` package and Graphviz's ``dot`` program (``pip install graphviz`` and, on Debian,
``apt-get install graphviz``). Each equation is a box labelled as in the listing, each input an
ellipse, each constant a note; an arrow runs from the producer of every operand to its user,
and into ``out`` for the outputs (numbered when there are several). An equation whose result
nothing uses is dashed.

>>> import minigrad as mg, numpy as np
>>> print(to_dot(mg.make_jaxpr(lambda x: mg.numpy.sin(x) * x)(np.ones(3))))
digraph jaxpr {
  node [fontname="monospace" fontsize=10];
  v0 [label="a:f64[3]" shape=ellipse];
  e0 [label="b:f64[3] = sin a" shape=box];
  v0 -> e0;
  e1 [label="c:f64[3] = mul b a" shape=box];
  e0 -> e1;
  v0 -> e1;
  out [label="out" shape=doublecircle];
  e1 -> out;
}
"""

from __future__ import annotations

from typing import Any

from minigrad.jaxpr import ClosedJaxpr, Jaxpr, Literal, pp_decl, pp_eqn, var_names


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_dot(program: ClosedJaxpr | Jaxpr, name: str = "jaxpr") -> str:
    """The DOT text of ``program`` (a ``make_jaxpr`` result or a bare ``Jaxpr``)."""
    jaxpr = program.jaxpr if isinstance(program, ClosedJaxpr) else program
    if not isinstance(jaxpr, Jaxpr):
        raise TypeError(f"to_dot: program must be a ClosedJaxpr or a Jaxpr; got "
                        f"{type(program).__name__}")
    names = var_names(jaxpr)
    lines = [f"digraph {_quote(name) if not name.isidentifier() else name} {{",
             '  node [fontname="monospace" fontsize=10];']
    node: dict[int, str] = {}  # id(var) -> the node that produces it
    for kind, shape, vs in (("c", "note", jaxpr.constvars), ("v", "ellipse", jaxpr.invars)):
        for i, v in enumerate(vs):
            node[id(v)] = f"{kind}{i}"
            lines.append(f"  {kind}{i} [label={_quote(pp_decl(v, names))} shape={shape}];")
    for i, e in enumerate(jaxpr.eqns):
        style = "" if any(id(v) in names for v in e.outs) else " style=dashed"
        lines.append(f"  e{i} [label={_quote(pp_eqn(e, names))} shape=box{style}];")
        lines += [f"  {node[id(a)]} -> e{i};" for a in e.inputs if not isinstance(a, Literal)]
        node.update((id(v), f"e{i}") for v in e.outs)
    lines.append('  out [label="out" shape=doublecircle];')
    many = len(jaxpr.outvars) > 1
    for k, a in enumerate(jaxpr.outvars):
        source = f"lit{k}" if isinstance(a, Literal) else node[id(a)]
        if isinstance(a, Literal):
            lines.append(f"  lit{k} [label={_quote(str(a))} shape=plaintext];")
        lines.append(f"  {source} -> out" + (f" [label={k}];" if many else ";"))
    lines.append("}")
    return "\n".join(lines)


def to_svg(program: ClosedJaxpr | Jaxpr, name: str = "jaxpr") -> str:
    """The SVG drawing of ``program``, by Graphviz's ``dot`` through the ``graphviz``
    package (both optional: a clear error says what is missing)."""
    text = to_dot(program, name)
    try:
        import graphviz
    except ImportError:
        raise ImportError("to_svg needs the graphviz package (pip install graphviz) and "
                          "Graphviz's dot program (apt-get install graphviz); to_dot needs "
                          "neither") from None
    try:
        svg: Any = graphviz.Source(text).pipe(format="svg")
    except graphviz.ExecutableNotFound:
        raise RuntimeError("to_svg needs Graphviz's dot program on the PATH (apt-get install "
                           "graphviz); the graphviz package alone only calls it") from None
    return svg.decode() if isinstance(svg, bytes) else str(svg)


__all__ = ["to_dot", "to_svg"]

"""Inlining: a ``jit`` call inside a program becomes its equations.

A nested ``jit`` (``jit(g)`` called inside ``jit(f)``, or the derived calls that ``grad`` and
``vmap`` of a jitted function make) is a boundary the other passes cannot see through: CSE
cannot merge across it, in-place reuse cannot write a buffer it passes in. Every variable of
the inlined program is a new one, so a program inlined twice defines no variable twice.
"""

from __future__ import annotations

from typing import Any

from minigrad.jaxpr import Atom, ClosedJaxpr, Eqn, Jaxpr, Literal, Var


def inline_calls(closed: ClosedJaxpr) -> ClosedJaxpr:
    """``closed`` with every ``jit`` call (at any depth) replaced by its program's equations."""
    constvars, consts = list(closed.jaxpr.constvars), list(closed.consts)
    eqns: list[Eqn] = []
    env: dict[Var, Atom] = {}

    def read(a: Atom) -> Atom:
        return a if isinstance(a, Literal) else env.get(a, a)

    def emit(jaxpr: Jaxpr, inner_consts: list[Any], args: list[Atom]) -> list[Atom]:
        for v, c in zip(jaxpr.constvars, inner_consts, strict=True):
            fresh = Var(v.aval)
            constvars.append(fresh)
            consts.append(c)
            env[v] = fresh
        env.update(zip(jaxpr.invars, args, strict=True))
        for e in jaxpr.eqns:
            inputs = [read(a) for a in e.inputs]
            program = e.params.get("jaxpr") if e.prim.name == "jit" else None
            if isinstance(program, ClosedJaxpr):
                results = emit(program.jaxpr, program.consts, inputs)
                env.update(zip(e.outs, results, strict=True))
                continue
            outs = [Var(v.aval) for v in e.outs]
            env.update(zip(e.outs, outs, strict=True))
            eqns.append(Eqn(e.prim, inputs, e.params, outs))
        return [read(a) for a in jaxpr.outvars]

    top = closed.jaxpr
    env.update({v: v for v in [*top.constvars, *top.invars]})
    outvars = emit(Jaxpr([], top.invars, top.eqns, top.outvars), [], list(top.invars))
    return ClosedJaxpr(Jaxpr(constvars, top.invars, eqns, outvars), consts, closed.in_tree,
                       closed.out_tree)

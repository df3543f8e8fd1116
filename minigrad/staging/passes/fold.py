"""Constant folding: an equation whose operands are all known, and whose result is small, is
computed once, when the program is compiled.

Batching rules and transposes make constants: the offsets ``arange(B) * n`` that fold a
batched index, zeros and ones of a known shape, their broadcasts. Computed at compile time,
they cost nothing per call. A result larger than ``max_size`` elements stays an equation (a
large constant would be kept alive by the compiled program), and so does an equation whose
impl raises: its error (an index out of range in a constant index, say) is raised on every
call, where it belongs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.jaxpr import Atom, ClosedJaxpr, Eqn, Jaxpr, Literal, Var, dce_closed


def fold_constants(closed: ClosedJaxpr, max_size: int = 1024) -> ClosedJaxpr:
    """``closed`` with its small constant equations computed."""
    jaxpr = closed.jaxpr
    known: dict[Var, Any] = dict(zip(jaxpr.constvars, closed.consts, strict=True))
    env: dict[Var, Atom] = {}
    constvars, consts = list(jaxpr.constvars), list(closed.consts)

    def read(a: Atom) -> Atom:
        return env.get(a, a) if isinstance(a, Var) else a

    def value(a: Atom) -> Any:
        return a.val if isinstance(a, Literal) else known.get(a)

    eqns = []
    for e in jaxpr.eqns:
        inputs = [read(a) for a in e.inputs]
        values = [value(a) for a in inputs]
        results = _evaluate(e, values, max_size) if all(v is not None for v in values) else None
        if results is None:
            eqns.append(Eqn(e.prim, inputs, e.params, e.outs))
            continue
        for v, r in zip(e.outs, results, strict=True):
            if r.ndim == 0 and r.dtype.kind in "biufc":
                env[v] = Literal(r)
            else:
                constvars.append(v)
                consts.append(r)
                known[v] = r
    out = Jaxpr(constvars, jaxpr.invars, eqns, [read(a) for a in jaxpr.outvars])
    return dce_closed(ClosedJaxpr(out, consts, closed.in_tree, closed.out_tree))


def _evaluate(e: Eqn, values: list[Any], max_size: int) -> list[np.ndarray] | None:
    """The equation's results, or None if it is not to be folded."""
    if e.prim.impl is None or any(v.aval.size > max_size for v in e.outs):
        return None
    if any(isinstance(p, ClosedJaxpr) for p in e.params.values()):
        return None  # a call: inlining sees into it
    try:
        out = e.prim.impl(*values, **e.params)
    except Exception:  # raised again at run time, on every call
        return None
    results = [np.asarray(o) for o in (out if e.prim.multiple_results else [out])]
    if any(r.shape != v.aval.shape or r.dtype != v.aval.dtype
           for r, v in zip(results, e.outs, strict=True)):
        return None
    return results

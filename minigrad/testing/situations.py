"""Which documented divergences apply to a user's function: ``explain`` finds the equations of
the five ops in its jaxpr, evaluates it on each example to see the operands each op receives,
and asks ``minigrad.testing.divergences.documented`` about each (``assert_matches`` names the
result when the other framework differs).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from minigrad.jaxpr import ClosedJaxpr, Jaxpr, Literal, make_jaxpr
from minigrad.testing.divergences import Divergence, Situation, documented, has_duplicates
from minigrad.tree import tree_leaves

# The operand names of the five ops' primitives, as the divergence records name them.
_OPERANDS = {"index_add": ("x", "index", "source"), "index_copy": ("x", "index", "source"),
             "index_fill": ("x", "index", "value"), "masked_fill": ("x", "mask", "value"),
             "masked_scatter": ("x", "mask", "source")}


def _distinct(index: Any) -> int:
    return len(np.unique(np.asarray(index).reshape(-1)))


def _op_situations(closed: ClosedJaxpr, examples: Sequence[Sequence[Any]],
                   batched: Sequence[bool], check: str) -> list[Situation]:
    """A ``Situation`` for each equation of the five ops in ``closed`` (and the programs its
    calls hold), read from the operands it sees on each example: which depend on a batched
    argument, whether an index repeats an entry, whether a fill value is computed from the
    arguments (an array, not a constant), which were 0-d before the op's user function gave
    them a length-1 axis."""
    seen: dict[int, dict[str, Any]] = {}

    def walk(jaxpr: Jaxpr, consts: Sequence[Any], vals: Sequence[Any],
             flags: Sequence[tuple[bool, bool, bool]]) -> list[Any]:
        env: dict[Any, Any] = {}
        # per variable: (depends on a batched argument, on any argument, was 0-d)
        info: dict[Any, tuple[bool, bool, bool]] = {}
        for v, c in zip(jaxpr.constvars, consts, strict=True):
            env[v], info[v] = c, (False, False, np.ndim(c) == 0)
        for v, x, fl in zip(jaxpr.invars, vals, flags, strict=True):
            env[v], info[v] = x, fl
        for e in jaxpr.eqns:
            ins = [a.val if isinstance(a, Literal) else env[a] for a in e.inputs]
            fls = [(False, False, True) if isinstance(a, Literal) else info[a]
                   for a in e.inputs]
            calls = [p for p in e.params.values()
                     if isinstance(p, ClosedJaxpr) and len(p.jaxpr.invars) == len(ins)]
            if calls:  # a jit or custom-rule call: look inside, its value is the program's
                outs = walk(calls[0].jaxpr, calls[0].consts, ins, fls)
            else:
                out = e.prim.bind(*ins, **e.params)
                outs = out if e.prim.multiple_results else [out]
            if e.prim.name in _OPERANDS:
                record(e, ins, fls)
            was_0d = e.prim.name == "reshape" and np.ndim(ins[0]) == 0
            for v, o in zip(e.outs, outs, strict=True):
                env[v] = o
                info[v] = (any(f[0] for f in fls), any(f[1] for f in fls),
                           was_0d or np.ndim(o) == 0)
        return [a.val if isinstance(a, Literal) else env[a] for a in jaxpr.outvars]

    def record(e: Any, ins: Sequence[Any], fls: Sequence[tuple[bool, bool, bool]]) -> None:
        names = _OPERANDS[e.prim.name]
        s = seen.setdefault(id(e), {"op": e.prim.name, "batched": set(), "duplicates": False,
                                    "zero_d": set(), "value_array": False, "distinct": set(),
                                    "empty": set()})
        for name, fl in zip(names, fls, strict=True):
            if fl[0] and check.startswith("vmap"):
                s["batched"].add(name)
            if fl[2]:
                s["zero_d"].add(name)
        s["value_array"] |= "value" in names and fls[2][1]
        s["duplicates"] |= names[1] == "index" and has_duplicates(ins[1])
        if names[1] == "index":  # the examples' counts of distinct entries (_unique's length)
            s["distinct"].add(_distinct(ins[1]))
        s["empty"] |= {n for n, x in zip(names, ins, strict=True) if np.size(x) == 0}

    for example in examples:
        flags = [(b, True, np.ndim(a) == 0) for a, b in zip(example, batched, strict=True)]
        walk(closed.jaxpr, closed.consts, tree_leaves(list(example)), flags)
    record_check = "forward" if check == "values" else check
    return [Situation(s["op"], record_check, frozenset(s["batched"]), s["duplicates"],
                      s["value_array"], frozenset(s["zero_d"]),
                      ragged_unique="index" in s["batched"] and len(s["distinct"]) > 1,
                      empty=frozenset(s["empty"])) for s in seen.values()]


def explain(framework: str, minigrad_fn: Callable[..., Any], examples: Sequence[Sequence[Any]],
            batched: Sequence[bool], check: str) -> list[Divergence]:
    """The documented divergences of ``framework`` that apply to ``check`` of ``minigrad_fn``
    on ``examples`` (each one call's arguments; ``batched`` marks the arguments batched in a
    vmap check): those of the ops it binds whose condition holds on their operands."""
    closed = make_jaxpr(minigrad_fn)(*examples[0])
    found: list[Divergence] = []
    for s in _op_situations(closed, examples, batched, check):
        d = documented(framework, s)
        if d is not None and d not in found:
            found.append(d)
    return found


__all__ = ["explain"]

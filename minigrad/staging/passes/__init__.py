"""Optimization passes: each a pure function from a program to an equivalent one.

``optimize`` runs them in order: inlining (so nested calls are seen through), algebraic
simplification, broadcast operands (NumPy broadcasts them itself), constant folding,
simplification again (of what folding made), common-subexpression elimination, dead-code
elimination (which keeps the checks of values), and last in-place reuse, which changes no
value but which buffer holds it.
"""

from __future__ import annotations

from typing import Callable

from minigrad.jaxpr import ClosedJaxpr
from minigrad.staging.passes.broadcasts import broadcast_operands
from minigrad.staging.passes.cse import cse
from minigrad.staging.passes.dce import dce
from minigrad.staging.passes.fold import fold_constants
from minigrad.staging.passes.inline import inline_calls
from minigrad.staging.passes.inplace import inplace
from minigrad.staging.passes.simplify import simplify

PASSES: list[tuple[str, Callable[[ClosedJaxpr], ClosedJaxpr]]] = [
    ("inline", inline_calls),
    ("simplify", simplify),
    ("broadcasts", broadcast_operands),
    ("fold", fold_constants),
    ("resimplify", simplify),  # (what folding made: x * -1.0 met by a negation, say)
    ("cse", cse),
    ("dce", dce),
]


def optimize(closed: ClosedJaxpr, donate: tuple[int, ...] = ()
             ) -> tuple[ClosedJaxpr, dict[str, int]]:
    """The optimized program, and what each pass did: the equations it removed (for
    ``inline``, the equations it added), and ``inplace``: the copies in-place reuse avoids."""
    stats: dict[str, int] = {}
    for name, run in PASSES:
        before = len(closed.eqns)
        closed = run(closed)
        stats[name] = abs(before - len(closed.eqns))
    closed, stats["inplace"] = inplace(closed, donate)
    return closed, stats


__all__ = ["PASSES", "broadcast_operands", "cse", "dce", "fold_constants", "inline_calls",
           "inplace", "optimize", "simplify"]

"""Constant folding: an equation whose operands are all known is computed once, now.

``make_jaxpr`` stages everything, including work that depends on no input: ``2.0 * x`` stages a
broadcast of the literal, ``vmap`` of a constant index stages its offsets, a JVP with a fixed
tangent stages the tangent's arithmetic. Such an equation would run on every call and give the
same value each time. This pass runs it once, with the primitive's impl, and puts its value in
the program: a literal when it is a number, a constant otherwise.

Some equations stay:

* a result bigger than ``max_size`` elements: a constant is memory held as long as the program,
  and a broadcast is cheaper to redo than to keep;
* a primitive with no impl, and a call (a parameter that is a program): inlining exposes a
  call's equations to this pass, and running a call compiles it;
* an equation whose impl raises (a constant index out of range): it is left to raise at run
  time, on every call, as it would without the pass.

Run it before in-place reuse: an in-place form's impl writes into its operand, here a constant.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.core import get_aval
from minigrad.frozen import frozen
from minigrad.jaxpr import Atom, ClosedJaxpr, Eqn, Jaxpr, Literal, Var


def fold_constants(closed: ClosedJaxpr, max_size: int = 1024) -> ClosedJaxpr:
    """``closed`` with every equation over constants (of at most ``max_size`` result elements)
    replaced by its value, and the constants nothing reads any more dropped.

    >>> import minigrad as mg, numpy as np
    >>> f = lambda x: x * mg.numpy.sin(np.zeros(2) + 1.5)
    >>> print(fold_constants(mg.make_jaxpr(f)(np.ones(2))))
    { lambda a:f64[2] ; b:f64[2]. let
        c:f64[2] = mul b a
      in (c,) }
    """
    jaxpr = closed.jaxpr
    known: dict[Var, Any] = dict(zip(jaxpr.constvars, closed.consts, strict=True))
    env: dict[Var, Atom] = {}  # a folded result -> the literal that replaces it

    def read(a: Atom) -> Atom:
        return a if isinstance(a, Literal) else env.get(a, a)

    new_constvars: list[Var] = []
    eqns: list[Eqn] = []
    for e in jaxpr.eqns:
        inputs = [read(a) for a in e.inputs]
        values = _evaluate(e, inputs, known, max_size)
        if values is None:
            changed = any(a is not b for a, b in zip(inputs, e.inputs, strict=True))
            eqns.append(Eqn(e.prim, inputs, e.params, e.outs) if changed else e)
            continue
        for v, x in zip(e.outs, values, strict=True):
            # held read-only: neither the program nor a caller handed it (as an output, it is
            # copied: may_alias_caller) can write into it
            x = frozen(x)
            if x.ndim == 0 and x.dtype.kind in "biufc":
                env[v] = Literal(x)
            else:
                # The result's variable becomes a constant of the program: no equation defines
                # it any more, and its uses need no rewriting.
                known[v] = x
                new_constvars.append(v)

    outvars = [read(a) for a in jaxpr.outvars]
    used = {a for e in eqns for a in e.inputs if isinstance(a, Var)}
    used |= {a for a in outvars if isinstance(a, Var)}
    constvars = [v for v in [*jaxpr.constvars, *new_constvars] if v in used]
    out = Jaxpr(constvars, list(jaxpr.invars), eqns, outvars)
    return ClosedJaxpr(out, [known[v] for v in constvars], closed.in_tree, closed.out_tree)


def _evaluate(e: Eqn, inputs: list[Atom], known: dict[Var, Any], max_size: int
              ) -> list[np.ndarray] | None:
    """The values of ``e``'s results if its operands are known and it may be folded, else
    None."""
    if e.prim.impl is None:
        return None
    if any(isinstance(p, (Jaxpr, ClosedJaxpr)) for p in e.params.values()):
        return None
    if sum(v.aval.size for v in e.outs) > max_size:
        return None
    args = []
    for a in inputs:
        if isinstance(a, Literal):
            args.append(a.val)
        elif a in known:
            args.append(known[a])
        else:
            return None
    try:
        out = e.prim.impl(*args, **e.params)
    except Exception:  # any error is the run time's to raise, on every call
        return None
    values = [np.asarray(x) for x in (out if e.prim.multiple_results else [out])]
    # An impl that disagrees with the shape rule is left to run as it did: folding must not
    # change a variable's type.
    if len(values) != len(e.outs) or any(
            get_aval(x) != v.aval for x, v in zip(values, e.outs, strict=False)):
        return None
    return values

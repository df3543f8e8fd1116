"""Common-subexpression elimination: an equation computed twice is computed once.

Transforms repeat work: ``vmap(grad(f))`` over ``index_fill`` builds the same column mask in the
forward and the backward pass, and every batched index op recomputes the same offsets. Two
equations are the same when they bind the same primitive with equal parameters to the same
operands (the same variables, or literals of the same dtype and bits); every primitive is
pure, so the second's results are the first's. Constants that are the same array, or small
arrays with the same dtype, shape and bits, are merged too.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.jaxpr import Atom, ClosedJaxpr, Eqn, Jaxpr, Literal, Var


def _bits(x: np.ndarray) -> tuple:
    return (x.dtype.str, x.shape, np.ascontiguousarray(x).tobytes())


def _param_key(v: Any) -> Any:
    # 0.0 == -0.0 and 1 == 1.0 == True, but they are different parameters: key by type, and a
    # float by its bits
    if isinstance(v, float):
        return (float, v.hex())
    if isinstance(v, tuple):
        return (tuple, tuple(_param_key(x) for x in v))
    return (type(v), v)


def cse(closed: ClosedJaxpr, small: int = 4096) -> ClosedJaxpr:
    """``closed`` with repeated equations and repeated constants (arrays of at most ``small``
    elements compared by value) merged."""
    jaxpr = closed.jaxpr
    env: dict[Var, Atom] = {}
    constvars, consts = [], []
    by_key: dict[tuple, Var] = {}
    for v, c in zip(jaxpr.constvars, closed.consts, strict=True):
        arr = np.asarray(c)
        ckey = ("bits", *_bits(arr)) if arr.size <= small else ("id", id(c))
        if ckey in by_key:
            env[v] = by_key[ckey]
        else:
            by_key[ckey] = v
            constvars.append(v)
            consts.append(c)

    def read(a: Atom) -> Atom:
        return env.get(a, a) if isinstance(a, Var) else a

    def atom_key(a: Atom) -> Any:
        return ("lit", *_bits(a.val)) if isinstance(a, Literal) else ("var", id(a))

    seen: dict[Any, list[Var]] = {}
    eqns = []
    for e in jaxpr.eqns:
        inputs = [read(a) for a in e.inputs]
        try:
            key: Any = (id(e.prim), tuple(map(atom_key, inputs)),
                        tuple((k, _param_key(v)) for k, v in e.params.items()))
            hash(key)
        except TypeError:  # an unhashable parameter: never merged
            key = None
        if key is not None and key in seen:
            env.update(zip(e.outs, seen[key], strict=True))
            continue
        if key is not None:
            seen[key] = e.outs
        changed = any(a is not b for a, b in zip(inputs, e.inputs, strict=True))
        eqns.append(Eqn(e.prim, inputs, e.params, e.outs) if changed else e)
    out = Jaxpr(constvars, jaxpr.invars, eqns, [read(a) for a in jaxpr.outvars])
    return ClosedJaxpr(out, consts, closed.in_tree, closed.out_tree)

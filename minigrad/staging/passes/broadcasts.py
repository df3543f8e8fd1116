"""Broadcast operands: an elementwise equation takes the value before its broadcast.

The binary primitives take operands of equal shapes, so a program broadcasts explicitly:
``2.0 * h`` stages ``broadcast_in_dim 2.0`` to h's shape, and ``vmap`` broadcasts an unbatched
``p`` along the batch axis before multiplying. Each such broadcast is an array as large as the
result, made only to be read once. NumPy broadcasts by itself: this pass hands the ufunc the
smaller value when NumPy's rule gives the same result, which is when the broadcast puts the
value's axes last (``broadcast_dimensions`` the trailing axes, in order), or the value is a
scalar, or it is a ``full`` (a uniform value: the scalar serves).

The program this returns is for running, not for transforming: its elementwise equations may
take operands of different shapes, which the primitives' shape rules refuse. ``jit`` runs it;
every transform is applied to the traced program instead.
"""

from __future__ import annotations

import numpy as np

from minigrad.frozen import frozen
from minigrad.jaxpr import Atom, ClosedJaxpr, Eqn, Jaxpr, Literal, Var
from minigrad.ops.elementwise import select_p
from minigrad.ops.structural import broadcast_in_dim_p, full_p
from minigrad.staging.passes.dce import dce


def _elementwise(e: Eqn) -> bool:
    return isinstance(e.prim.impl, np.ufunc) or e.prim is select_p


def broadcast_operands(closed: ClosedJaxpr) -> ClosedJaxpr:
    """``closed`` with each elementwise operand that is a broadcast (of a scalar, of a
    ``full``, or into the trailing axes) replaced by the value broadcast."""
    jaxpr = closed.jaxpr
    # var -> the smaller atom it broadcasts, whose axes are the last of var's (or none)
    source: dict[Var, Atom] = {}
    eqns = []
    for e in jaxpr.eqns:
        if e.prim is full_p:
            p = e.params
            source[e.outs[0]] = Literal(frozen(np.asarray(p["fill_value"], p["dtype"])))
        elif e.prim is broadcast_in_dim_p:
            x = e.inputs[0]
            inner = source.get(x, x) if isinstance(x, Var) else x
            shape, dims = e.params["shape"], tuple(e.params["broadcast_dimensions"])
            if inner.aval.ndim == 0:  # a scalar, broadcast anywhere
                source[e.outs[0]] = inner
            elif dims == tuple(range(len(shape) - len(dims), len(shape))):  # trailing axes
                source[e.outs[0]] = inner  # (inner's axes are the last of x's, so of ours)
        if _elementwise(e) and any(isinstance(a, Var) and a in source for a in e.inputs):
            e = Eqn(e.prim, _narrowed(e, source), e.params, e.outs)
        eqns.append(e)
    out = Jaxpr(jaxpr.constvars, jaxpr.invars, eqns, jaxpr.outvars)
    return dce(ClosedJaxpr(out, closed.consts, closed.in_tree, closed.out_tree))


def _narrowed(e: Eqn, source: dict[Var, Atom]) -> list[Atom]:
    """The equation's operands, each replaced by its source while the NumPy broadcast of the
    operands still has the result's shape."""
    out_shape = e.outs[0].aval.shape
    inputs: list[Atom] = list(e.inputs)
    for k, a in enumerate(inputs):
        small = source.get(a) if isinstance(a, Var) else None
        if small is None:
            continue
        trial = [*inputs[:k], small, *inputs[k + 1:]]
        if np.broadcast_shapes(*[b.aval.shape for b in trial]) == out_shape:
            inputs = trial
    return inputs

"""Algebraic simplification: equations that compute what they were given.

Transforms stage identities: the JVP of ``x ** 2`` multiplies by a broadcast one, a transpose
adds a zero cotangent, a batching rule reshapes to the shape a value already has, and two
reshapes meet. Each rule here replaces an equation's result by a value the program already
has, and leaves the equation to dead-code elimination:

* ``x * 1`` and ``1 * x`` -> ``x``; ``x + 0``, ``0 + x`` and ``x - 0`` -> ``x``, where the
  ``1`` or ``0`` is a literal, a ``full``, a constant with every element equal, or a broadcast
  of one of those. (``x + 0.0`` is ``+0.0`` where ``x`` is ``-0.0``: the simplified program
  keeps ``-0.0`` there, a value equal to it.)
* reshape to the operand's own shape, broadcast to it, the identity transpose, squeeze or
  expand_dims of no axes, conversion to the operand's own dtype -> the operand;
* reshape of a reshape -> one reshape of the first operand.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.jaxpr import Atom, ClosedJaxpr, Eqn, Jaxpr, Literal, Var, dce_closed
from minigrad.ops import elementwise as ew
from minigrad.ops import structural as st


def _uniform(c: Any) -> np.ndarray | None:
    """The one value of every element of the array ``c`` (0-d), if there is one."""
    c = np.asarray(c)
    if c.size == 0 or c.size > 4096 or c.dtype.kind not in "biuf":
        return None
    flat = np.ascontiguousarray(c).reshape(-1)
    bits = flat.view(f"u{flat.dtype.itemsize}") if flat.dtype.itemsize in (1, 2, 4, 8) else None
    if bits is None or not (bits == bits[0]).all():
        return None
    return flat[0].copy().reshape(())


def simplify(closed: ClosedJaxpr) -> ClosedJaxpr:
    """``closed`` with identities removed (see the module's docstring)."""
    jaxpr = closed.jaxpr
    env: dict[Var, Atom] = {}
    uniform: dict[Var, np.ndarray] = {}  # variables whose every element has one value
    for v, c in zip(jaxpr.constvars, closed.consts, strict=True):
        u = _uniform(c)
        if u is not None:
            uniform[v] = u
    producer: dict[Var, Eqn] = {}

    def read(a: Atom) -> Atom:
        return env.get(a, a) if isinstance(a, Var) else a

    def value(a: Atom) -> np.ndarray | None:
        return a.val if isinstance(a, Literal) else uniform.get(a)

    def is_value(a: Atom, target: int) -> bool:
        v = value(a)
        return v is not None and v.dtype.kind != "b" and bool(v == target)

    eqns = []
    for e in jaxpr.eqns:
        inputs = [read(a) for a in e.inputs]
        e = Eqn(e.prim, inputs, e.params, e.outs)
        same = _identity(e, is_value)
        if same is not None:
            env[e.outs[0]] = same
            continue
        if e.prim is st.reshape_p and isinstance(inputs[0], Var) and inputs[0] in producer:
            inner = producer[inputs[0]]
            if inner.prim is st.reshape_p:  # reshape of a reshape: one reshape
                first = inner.inputs[0]
                if first.aval.shape == e.outs[0].aval.shape:
                    env[e.outs[0]] = first
                    continue
                e = Eqn(e.prim, [first], e.params, e.outs)
        if e.prim is st.full_p:
            uniform[e.outs[0]] = np.asarray(e.params["fill_value"], e.params["dtype"])
        elif e.prim is st.broadcast_in_dim_p and value(inputs[0]) is not None:
            uniform[e.outs[0]] = value(inputs[0])  # type: ignore[assignment]
        if len(e.outs) == 1:
            producer[e.outs[0]] = e
        eqns.append(e)
    out = Jaxpr(jaxpr.constvars, jaxpr.invars, eqns, [read(a) for a in jaxpr.outvars])
    return dce_closed(ClosedJaxpr(out, closed.consts, closed.in_tree, closed.out_tree))


def _identity(e: Eqn, is_value: Any) -> Atom | None:
    """The operand ``e`` returns unchanged, or None."""
    if len(e.outs) != 1:
        return None
    out = e.outs[0].aval
    ins, p = e.inputs, e.params
    if e.prim is ew.mul_p:
        for x, one in ((ins[0], ins[1]), (ins[1], ins[0])):
            if x.aval == out and is_value(one, 1):
                return x
    elif e.prim is ew.add_p:
        for x, zero in ((ins[0], ins[1]), (ins[1], ins[0])):
            if x.aval == out and is_value(zero, 0):
                return x
    elif e.prim is ew.sub_p:
        if ins[0].aval == out and is_value(ins[1], 0):
            return ins[0]
    elif e.prim in _NO_OP and ins[0].aval == out and _NO_OP[e.prim](ins[0], p):
        return ins[0]
    return None


_NO_OP = {
    st.reshape_p: lambda x, p: tuple(p["new_sizes"]) == x.aval.shape,
    st.broadcast_in_dim_p: lambda x, p: tuple(p["broadcast_dimensions"]) == tuple(
        range(x.aval.ndim)),
    st.transpose_p: lambda x, p: tuple(p["permutation"]) == tuple(range(x.aval.ndim)),
    st.squeeze_p: lambda x, p: not p["dimensions"],
    st.expand_dims_p: lambda x, p: not p["dimensions"],
    ew.convert_element_type_p: lambda x, p: True,  # (out == x's aval: the same dtype)
}

"""Common-subexpression elimination: an equation that repeats an earlier one is dropped.

Transforms repeat work: the JVP of ``sin(x) * sin(x)`` computes ``cos x`` twice, ``vmap``
broadcasts an unbatched value once per use, and inlining one call twice repeats its body. Every
primitive is pure, so two equations with the same primitive, the same operands and equal
parameters compute the same values, and the later one's results can be read from the earlier
one. Constants that hold one array (the same object, or small arrays with the same bits) are
made one constant first, so the equations that read them match too.

Run it before in-place reuse: an in-place form (``mul_``) writes into its operand, so two of
them are not one computation.
"""

from __future__ import annotations

import struct
from typing import Any, Hashable

import numpy as np

from minigrad.jaxpr import Atom, ClosedJaxpr, Eqn, Jaxpr, Literal, Var

# Elements: a constant up to this size is compared by value, a bigger one only by identity.
# (Constant folding makes equal constants of a few hundred elements, such as the False masks a
# batched index_fill starts from; comparing 4096 elements' bytes at compile time costs
# microseconds.)
SMALL_CONST = 4096


def cse(closed: ClosedJaxpr) -> ClosedJaxpr:
    """``closed`` with each repeated equation and each repeated constant removed; their uses
    read the first one.

    >>> import minigrad as mg, numpy as np
    >>> f = lambda x: mg.numpy.sin(x) + mg.numpy.sin(x)
    >>> print(cse(mg.make_jaxpr(f)(np.ones(3))))
    { lambda ; a:f64[3]. let
        b:f64[3] = sin a
        c:f64[3] = add b b
      in (c,) }
    """
    jaxpr = closed.jaxpr
    env: dict[Var, Atom] = {}  # a removed variable -> the atom that holds its value

    def read(a: Atom) -> Atom:
        return a if isinstance(a, Literal) else env.get(a, a)

    constvars: list[Var] = []
    consts: list[Any] = []
    first_const: dict[Hashable, Var] = {}
    for v, c in zip(jaxpr.constvars, closed.consts, strict=True):
        key = _const_key(c)
        first = first_const.get(key)
        if first is None:
            first_const[key] = v
            constvars.append(v)
            consts.append(c)
        else:
            env[v] = first

    eqns: list[Eqn] = []
    first_eqn: dict[Hashable, list[Var]] = {}
    for e in jaxpr.eqns:
        inputs = [read(a) for a in e.inputs]
        key = _eqn_key(e, inputs)
        earlier = first_eqn.get(key) if key is not None else None
        if earlier is not None:
            env.update(zip(e.outs, earlier, strict=True))
            continue
        if key is not None:
            first_eqn[key] = e.outs
        changed = any(a is not b for a, b in zip(inputs, e.inputs, strict=True))
        # A new equation when an operand changed: the input program's equations stay as they are.
        eqns.append(Eqn(e.prim, inputs, e.params, e.outs) if changed else e)

    outvars = [read(a) for a in jaxpr.outvars]
    out = Jaxpr(constvars, list(jaxpr.invars), eqns, outvars)
    return ClosedJaxpr(out, consts, closed.in_tree, closed.out_tree)


def _const_key(c: Any) -> Hashable:
    """Equal keys for constants that are one value: the same object, or a small array with the
    same dtype, shape and bits (bits, so ``-0.0`` and ``0.0`` stay two and a NaN is one)."""
    if isinstance(c, (np.ndarray, np.generic)) and np.size(c) <= SMALL_CONST:
        arr = np.asarray(c)
        return ("value", arr.dtype, arr.shape, arr.tobytes())
    # The constants list holds ``c`` alive for the whole pass, so its id is not reused.
    return ("object", id(c))


def _eqn_key(e: Eqn, inputs: list[Atom]) -> Hashable | None:
    """Equal keys for equations that compute the same values, or None if a parameter cannot be
    compared (an equation with such a parameter is never merged)."""
    try:
        params = tuple((k, _param_key(v)) for k, v in sorted(e.params.items()))
    except TypeError:  # an unhashable parameter
        return None
    # The result types are part of the key, so a merge never changes a variable's type.
    out_avals = tuple(v.aval for v in e.outs)
    return (e.prim, tuple(_atom_key(a) for a in inputs), params, out_avals)


def _atom_key(a: Atom) -> Hashable:
    if isinstance(a, Literal):  # by dtype and bits: 1.0 and 1 are not one literal, nor 0.0, -0.0
        return ("literal", a.val.dtype, a.val.tobytes())
    return a  # a variable: by identity


def _param_key(v: Any) -> Hashable:
    """A key equal for parameters that are equal in type and value, floats by their bits. A
    program (a ``jit`` call's) is compared by identity."""
    if isinstance(v, (Jaxpr, ClosedJaxpr)):
        return ("program", id(v))  # the equation holds the program alive
    if isinstance(v, tuple):
        return ("tuple", *(_param_key(x) for x in v))
    # Python says 0.0 == -0.0 and 1 == 1.0 == True: those are different parameters.
    if isinstance(v, float):
        return ("float", struct.pack("<d", v))
    if isinstance(v, complex):
        return ("complex", struct.pack("<dd", v.real, v.imag))
    if isinstance(v, (np.ndarray, np.generic)):
        arr = np.asarray(v)
        return ("array", arr.dtype, arr.shape, arr.tobytes())
    hash(v)  # raises TypeError for an unhashable parameter (a list, a dict)
    return (type(v), v)

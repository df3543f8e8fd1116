"""In-place reuse: an equation whose first operand is a buffer nothing reads afterwards writes
its result into that buffer, instead of into a copy.

The five ops copy ``x`` and update the copy; an elementwise op makes a new array. When ``x`` is
an intermediate the program made (or an argument the caller donated) and no later equation, no
output and no live view reads it, the copy is waste: the pass replaces the equation's primitive
by its in-place form (``index_add_``, ``mul_``: PyTorch's spelling), whose impl updates operand 0
and returns it.

The analysis follows NumPy's aliasing. Reshape, transpose, squeeze, expand_dims and slicing may
return views, ``broadcast_to`` a read-only view, other impls who knows: so variables are put in
*storage groups* (those that may share memory), and a buffer is written only when

* it is *owned*: made by an impl known to return a new array (``FRESH``), or by an in-place
  equation, or donated, or a view of such a buffer by one of ``VIEWS`` (writable when its base
  is); never a constant, a literal, an argument that was not donated, or anything that may alias
  one of those;
* every variable of its group has had its last use (this equation may be it) and none is an
  output of the program;
* for the indexing ops, no other operand of the equation is in its group (``np.add.at`` and
  boolean assignment do not buffer overlapping operands; ufuncs do).
"""

from __future__ import annotations

from functools import partial
from typing import Any, Callable

import numpy as np

from minigrad.core import Primitive
from minigrad.jaxpr import ClosedJaxpr, Eqn, Jaxpr, Literal, Var
from minigrad.ops import (
    elementwise,
    index_add,
    index_copy,
    index_fill,
    masked_fill,
    masked_scatter,
    structural,
)

# Primitives whose impl returns a new array that owns its memory (tests/test_staging.py checks
# it on every sample): every ufunc primitive, and these.
_FRESH_NAMED = {
    index_add.index_add_p, index_add.index_select_p, index_copy.index_copy_p,
    index_fill.index_fill_p, masked_fill.masked_fill_p, masked_scatter.masked_scatter_p,
    masked_scatter.masked_gather_p, elementwise.dot_p, structural.concatenate_p,
    structural.cumsum_p, structural.pad_p, elementwise.select_p,
}
# Primitives whose impl returns operand 0, a view of it, or a new array: writable when
# operand 0 is.
VIEWS = {structural.reshape_p, structural.transpose_p, structural.squeeze_p,
         structural.expand_dims_p, structural.slice_p}

# The in-place forms of the five ops: the impls' own code, told to write into x.
INTO: dict[Primitive, Callable[..., Any]] = {
    index_add.index_add_p: partial(index_add.index_add_into, inplace=True),
    index_copy.index_copy_p: partial(index_copy.index_copy_into, inplace=True),
    index_fill.index_fill_p: partial(index_fill.index_fill_into, inplace=True),
    masked_fill.masked_fill_p: partial(masked_fill.masked_fill_into, inplace=True),
    masked_scatter.masked_scatter_p: partial(masked_scatter.masked_scatter_into, inplace=True),
}


def declare_fresh(prim: Primitive) -> None:
    """Tell in-place reuse that ``prim``'s impl always returns a new array owning its memory
    (a copy, say), so a later equation may write into its result when nothing else reads it."""
    _FRESH_NAMED.add(prim)


def declare_inplace(prim: Primitive, into: Callable[..., Any]) -> None:
    """Give ``prim`` an in-place form: ``into(x, *rest, **params)`` computes ``prim``'s result
    into its first operand ``x`` and returns ``x``."""
    INTO[prim] = into
    _inplace_forms.pop(prim, None)


def is_fresh(prim: Primitive) -> bool:
    return isinstance(prim.impl, np.ufunc) or prim in _FRESH_NAMED or prim in _INPLACE_PRIMS


def _ufunc_into(ufunc: np.ufunc) -> Callable[..., Any]:
    def into(x: np.ndarray, *rest: np.ndarray) -> np.ndarray:
        return ufunc(x, *rest, out=x)  # type: ignore[no-any-return]

    return into


_inplace_forms: dict[Primitive, Primitive] = {}
_INPLACE_PRIMS: set[Primitive] = set()


def inplace_form(prim: Primitive) -> Primitive | None:
    """``prim``'s in-place form (``index_add_``), or None if it has none."""
    form = _inplace_forms.get(prim)
    if form is None:
        into = INTO.get(prim)
        if into is None and isinstance(prim.impl, np.ufunc):
            into = _ufunc_into(prim.impl)
        if into is None:
            return None
        form = Primitive(prim.name + "_")  # a primitive for running, not for transforming
        form.def_impl(into)
        form.def_abstract_eval(prim.abstract_eval)  # type: ignore[arg-type]
        if prim not in INTO and isinstance(prim.impl, np.ufunc):
            _FORM_UFUNCS[form] = prim.impl
        _inplace_forms[prim] = form
        _INPLACE_PRIMS.add(form)
    return form


_FORM_UFUNCS: dict[Primitive, np.ufunc] = {}


def form_ufunc(form: Primitive) -> np.ufunc | None:
    """The ufunc whose call with its first operand as ``out`` is the in-place form ``form``
    (generated code calls it so, without the form's wrapper: ~0.3 us a call), or None."""
    return _FORM_UFUNCS.get(form)


class Storage:
    """Union-find over variables: the groups that may share memory, and whether each group's
    memory is the program's own (``owned``)."""

    def __init__(self) -> None:
        self.parent: dict[Var, Var] = {}
        self.members: dict[Var, list[Var]] = {}
        self.owned: dict[Var, bool] = {}

    def new(self, v: Var, owned: bool) -> None:
        self.parent[v], self.members[v], self.owned[v] = v, [v], owned

    def root(self, v: Var) -> Var:
        while self.parent[v] is not v:
            v = self.parent[v]
        return v

    def join(self, v: Var, w: Var) -> None:
        a, b = self.root(v), self.root(w)
        if a is not b:
            self.parent[b] = a
            self.members[a] += self.members.pop(b)
            self.owned[a] = self.owned[a] and self.owned.pop(b)


def inplace(closed: ClosedJaxpr, donate: tuple[int, ...] = ()) -> tuple[ClosedJaxpr, int]:
    """The program with in-place forms where they are safe, and how many copies that avoids.
    ``donate`` lists the inputs the caller handed over."""
    jaxpr = closed.jaxpr
    last: dict[Var, int] = {}
    for i, e in enumerate(jaxpr.eqns):
        for a in e.inputs:
            if isinstance(a, Var):
                last[a] = i
    outputs = {v for v in jaxpr.outvars if isinstance(v, Var)}
    storage = Storage()
    writable: set[Var] = set()  # owned buffers (or views of them) that may be written
    for v in jaxpr.constvars:
        storage.new(v, False)
    for k, v in enumerate(jaxpr.invars):
        storage.new(v, k in donate)
        if k in donate:
            writable.add(v)
    eqns: list[Eqn] = []
    avoided = 0
    for i, e in enumerate(jaxpr.eqns):
        if e.prim in _COMMUTATIVE and _swap_pays(e, writable):  # write into the other operand
            e = Eqn(e.prim, [e.inputs[1], e.inputs[0]], e.params, e.outs)
        x = e.inputs[0] if e.inputs else None
        form = inplace_form(e.prim) if isinstance(x, Var) and x in writable else None
        if form is not None and _can_write(storage, x, e, i, last, outputs):  # type: ignore[arg-type]
            e = Eqn(form, e.inputs, e.params, e.outs)
            storage.new(e.outs[0], True)
            storage.join(x, e.outs[0])  # type: ignore[arg-type]  # the same buffer
            writable.add(e.outs[0])
            avoided += 1
        elif is_fresh(e.prim):
            for v in e.outs:
                storage.new(v, True)
                writable.add(v)
        else:
            literal = any(isinstance(a, Literal) for a in e.inputs)
            for v in e.outs:
                storage.new(v, not literal)  # may alias a literal: never owned
                for a in e.inputs:
                    if isinstance(a, Var):
                        storage.join(a, v)
            if e.prim in VIEWS and isinstance(x, Var) and x in writable:
                writable.add(e.outs[0])
        eqns.append(e)
    out = Jaxpr(jaxpr.constvars, jaxpr.invars, eqns, jaxpr.outvars)
    return ClosedJaxpr(out, closed.consts, closed.in_tree, closed.out_tree), avoided


# a + b and a * b are b + a and b * a bit for bit (IEEE 754 addition and multiplication
# commute), so either operand may receive the result.
_COMMUTATIVE = {elementwise.add_p, elementwise.mul_p}


def _swap_pays(e: Eqn, writable: set[Var]) -> bool:
    a, b = e.inputs
    return (not (isinstance(a, Var) and a in writable and a.aval == e.outs[0].aval)
            and isinstance(b, Var) and b in writable and b.aval == e.outs[0].aval)


def _can_write(storage: Storage, x: Var, e: Eqn, i: int, last: dict[Var, int],
               outputs: set[Var]) -> bool:
    out = e.outs[0].aval
    if len(e.outs) != 1 or out != x.aval or out.ndim == 0:  # the result must fit x exactly
        return False
    group = storage.root(x)
    if not storage.owned[group]:
        return False
    members = storage.members[group]
    if any(last.get(v, -1) > i or v in outputs for v in members):
        return False
    if not isinstance(e.prim.impl, np.ufunc):  # the indexing ops need unshared operands
        member_set = set(members)
        if any(isinstance(a, Var) and a in member_set for a in e.inputs[1:]):
            return False
    return True


def may_alias_caller(closed: ClosedJaxpr, donate: tuple[int, ...] = ()) -> list[list[Any]]:
    """For each output of the (in-place) program: the atoms it may share memory with among the
    arguments not donated, the constants and the literals. The executor copies an output that
    does, so a caller never receives (and never writes into) an argument it did not donate, or
    a value the compiled program keeps."""
    jaxpr = closed.jaxpr
    storage = Storage()
    origin: dict[Var, Any] = {}  # a stand-in variable -> the atom the caller must not get
    for v in jaxpr.constvars:
        storage.new(v, True)
        origin[v] = v
    for k, v in enumerate(jaxpr.invars):
        storage.new(v, True)
        if k not in donate:
            origin[v] = v

    def var_of(a: Any) -> Var:
        if isinstance(a, Var):
            return a
        stand_in = Var(a.aval)
        storage.new(stand_in, True)
        origin[stand_in] = a
        return stand_in

    for e in jaxpr.eqns:
        for v in e.outs:
            storage.new(v, True)
        if e.prim in _INPLACE_PRIMS:  # the result is operand 0's buffer
            sources = e.inputs[:1]
        elif is_fresh(e.prim):
            continue
        else:
            sources = e.inputs
        for a in sources:
            w = var_of(a)
            for v in e.outs:
                storage.join(w, v)
    outs = [var_of(v) for v in jaxpr.outvars]  # (a literal output: its own stand-in)
    groups: dict[Var, list[Any]] = {}
    for v, atom in origin.items():
        groups.setdefault(storage.root(v), []).append(atom)
    return [groups.get(storage.root(w), []) for w in outs]

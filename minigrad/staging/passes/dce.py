"""Dead-code elimination that keeps the value checks.

Every primitive is pure, so an equation whose results nothing reads can go, with one
exception. The impls of the index ops check values (every index entry in range, a mask's count
against a source's size) and raise on every call: eagerly, under ``grad`` and ``vmap`` (design
section 7). Dropping such an equation because its result is unused would turn that error into
a silently returned answer: ``jit(lambda x, i: (index_add(x, 0, i, s), x * 2)[1])`` with ``i``
out of range must raise as the function does without ``jit``.

So a dead equation of a *checking* primitive is replaced by its check form, an equation that
runs the check and nothing else: ``check_index`` of the index for the index ops (a pass over
the index instead of over ``x``), the equation itself for the mask ops, whose count is the
bulk of their work. A call whose program holds a check (a custom rule's) is kept whole. A check
form that repeats a check the program makes anyway (the same op's range check of the same
index against the same size: a JVP's or a transpose's twin of the op, say) is left out.
"""

from __future__ import annotations

from typing import Callable, Hashable

from minigrad.core import Primitive
from minigrad.jaxpr import ClosedJaxpr, Eqn, Jaxpr, Var
from minigrad.ops.gather import gather_p, scatter_add_p
from minigrad.ops.index_add import index_add_p, index_select_p
from minigrad.ops.index_copy import index_copy_p
from minigrad.ops.index_fill import index_fill_p
from minigrad.ops.indexing import check_index_p
from minigrad.ops.masked_scatter import masked_gather_p, masked_scatter_p
from minigrad.ops.scatter import scatter_max_p, scatter_min_p, scatter_mul_p, scatter_p


def _index_check(e: Eqn) -> Eqn:
    """The check of an index op (``x``, ``index``, ... with ``dim``): the impl's range check
    of ``index`` against ``x``'s size along ``dim``, with the impl's message."""
    x, index = e.inputs[0], e.inputs[1]
    dim = e.params["dim"]
    params = {"size": x.aval.shape[dim], "op": e.prim.name, "dim": dim}
    return Eqn(check_index_p, [index], params, [Var(index.aval)])


def _itself(e: Eqn) -> Eqn:
    return e


def _unless_filling(e: Eqn) -> Eqn | None:
    # a gather or scatter checks its indices unless its mode reads a fill value (or drops) for
    # an index out of range, where nothing can raise
    return None if e.params["mode"] == "fill" else e


# A checking primitive -> its check form: an equation that raises when ``e`` would (None: the
# equation can raise nothing and may go).
CHECKS: dict[Primitive, Callable[[Eqn], Eqn | None]] = {
    index_add_p: _index_check, index_copy_p: _index_check, index_fill_p: _index_check,
    index_select_p: _index_check, check_index_p: _itself, masked_scatter_p: _itself,
    masked_gather_p: _itself, gather_p: _unless_filling, scatter_add_p: _unless_filling,
    scatter_p: _unless_filling, scatter_mul_p: _unless_filling, scatter_min_p: _unless_filling,
    scatter_max_p: _unless_filling,
}


def declare_check(prim: Primitive, form: Callable[[Eqn], Eqn | None] = _itself) -> None:
    """Tell dead-code elimination that ``prim``'s impl checks values: a dead equation of it is
    replaced by ``form(eqn)`` (by default the equation itself), never dropped."""
    CHECKS[prim] = form


def check_form(e: Eqn) -> Eqn | None:
    """What of the dead equation ``e`` must still run: its check form, ``e`` itself for a call
    whose program checks values, or None (nothing: it may go)."""
    form = CHECKS.get(e.prim)
    if form is not None:
        return form(e)
    programs = [p.jaxpr if isinstance(p, ClosedJaxpr) else p for p in e.params.values()
                if isinstance(p, (Jaxpr, ClosedJaxpr))]
    if any(check_form(inner) is not None for j in programs for inner in j.eqns):
        return e
    return None


def _check_key(e: Eqn) -> Hashable | None:
    """Equal keys for equations that make the same range check with the same message: the
    index (a variable, by identity), the size, the op's name and dim. None for any other."""
    if CHECKS.get(e.prim) is _index_check:
        e = _index_check(e)
    if e.prim is not check_index_p or not isinstance(e.inputs[0], Var):
        return None
    p = e.params
    return (id(e.inputs[0]), p["size"], p["op"], p["dim"])


def dce(closed: ClosedJaxpr) -> ClosedJaxpr:
    """``closed`` without the equations no output depends on, except the checks of values:
    a dead checking equation is replaced by its check form.

    >>> import minigrad as mg, numpy as np
    >>> f = lambda x, i: (mg.index_add(x, 0, i, x[:1]), x * 2.0)[1]
    >>> print(dce(mg.make_jaxpr(f)(np.ones(3), np.array([1]))))
    { lambda ; a:f64[3] b:i64[1]. let
        _:i64[1] = check_index[size=3 op=index_add dim=0] b
        c:f64[3] = broadcast_in_dim[shape=(3,) broadcast_dimensions=()] 2.0:f64[]
        d:f64[3] = mul a c
      in (d,) }
    """
    jaxpr = closed.jaxpr
    live = {id(v) for v in jaxpr.outvars if isinstance(v, Var)}
    kept: list[tuple[Eqn, bool]] = []  # (equation, whether it is a dead one's check form)
    for e in reversed(jaxpr.eqns):
        dead = not any(id(v) in live for v in e.outs)
        if dead:
            check = check_form(e)
            if check is None:
                continue
            e = check
        kept.append((e, dead))
        live.update(id(a) for a in e.inputs if isinstance(a, Var))
    eqns = [e for e, _ in reversed(kept)]
    if any(is_form for _, is_form in kept):
        # A check form that repeats a check made anyway goes. (Its index stays live: the
        # equation that makes the check reads it.)
        made = {_check_key(e) for e, is_form in kept if not is_form} - {None}
        eqns = []
        for e, is_form in reversed(kept):
            key = _check_key(e) if is_form else None
            if key is not None:
                if key in made:
                    continue
                made.add(key)
            eqns.append(e)
    constvars, consts = [], []
    for v, c in zip(jaxpr.constvars, closed.consts, strict=True):
        if id(v) in live:
            constvars.append(v)
            consts.append(c)
    out = Jaxpr(constvars, jaxpr.invars, eqns, jaxpr.outvars)
    return ClosedJaxpr(out, consts, closed.in_tree, closed.out_tree)

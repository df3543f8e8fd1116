"""Algebraic simplification: equations whose result is one of their operands are skipped.

Transforms leave identities behind: a JVP multiplies by a broadcast ``1.0``, a transpose adds a
zero cotangent, batching moves an axis and moves it back, reshapes stack up. Each such result is
replaced, in every use and in the outputs, by the value it equals:

* ``mul x one`` and ``mul one x`` -> ``x``, where ``one`` is all ones (a literal, a constant, a
  ``full``, or a broadcast, reshape, transpose or conversion of one) and ``x`` has the result's
  type; never for complex numbers (``inf * (1+0j)`` is NaN);
* ``add x zero``, ``add zero x`` and ``sub x zero`` -> ``x``, zeros found the same way. The
  values compare equal but the bits may not: ``-0.0 + 0.0`` is ``+0.0``, where this pass keeps
  ``-0.0``;
* ``div x one`` -> ``x``; ``max x -inf`` and ``max -inf x`` -> ``x`` (a NaN ``x`` too: max
  propagates it), ``-inf`` found as the fills are (the initial value of a max reduction);
* ``stop_gradient x`` -> ``x``: a program run by jit is past every transform;
* ``neg (mul x c)`` and ``neg (mul c x)``, ``c`` a literal -> ``mul x (-c)`` (the same value:
  rounding is symmetric; a NaN's sign bit may differ), which for ``c = -1`` is ``x`` (the
  cotangent of a negated mean meets its own negation); ``neg (div x c)`` and ``neg (div c x)``
  alike -> ``div x (-c)``, ``div (-c) x`` (a negated mean);
* a reshape, broadcast, transpose, squeeze, expand_dims, slice, pad or conversion that changes
  nothing -> its operand;
* a reshape of a reshape, a transpose of a transpose and a broadcast of a broadcast -> one
  equation of the original operand (the inner one dies when nothing else reads it), which may
  then change nothing;
* a broadcast of a squeeze -> one broadcast of the squeeze's operand, its unit axes sent to
  free output axes (so that NumPy broadcasts the unsqueezed value itself);
* a transpose of a ``dot`` -> one ``dot`` with its output letters permuted (transposing a
  ``h @ w.T`` makes these: the product then writes its result in the order it is read).

The rewrites never change an operand's shape: the binary primitives take operands of equal
shapes. The equations skipped are left for dead-code elimination, which runs last.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from minigrad.jaxpr import Atom, ClosedJaxpr, Eqn, Jaxpr, Literal, Var
from minigrad.ops.elementwise import (
    add_p,
    convert_element_type_p,
    div_p,
    dot_p,
    max_p,
    mul_p,
    neg_p,
    sub_p,
)
from minigrad.ops.stop_gradient import stop_gradient_p
from minigrad.ops.structural import (
    broadcast_in_dim_p,
    expand_dims_p,
    full_p,
    pad_p,
    reshape_p,
    slice_p,
    squeeze_p,
    transpose_p,
)
from minigrad.staging.passes.dce import dce

# Primitives that only move or repeat elements: a result of one filled with a single value is
# filled with it too.
_MOVES = {broadcast_in_dim_p, reshape_p, transpose_p, squeeze_p, expand_dims_p, slice_p}
# The fills worth tracking (the identities of mul and add), in dtypes where 0 and 1 convert
# exactly and ``x * 1 == x`` holds bit for bit.
_FILL_KINDS = "biuf"

Fill = Callable[[Atom], "np.ndarray | None"]  # an atom -> its fill (0 or 1), or None


def simplify(closed: ClosedJaxpr) -> ClosedJaxpr:
    """``closed`` with identities (``x * 1``, ``x + 0``, no-op reshapes and the like) replaced by
    their operands, chains of reshapes, transposes and broadcasts made one, and the equations
    left unused dropped.

    >>> import minigrad as mg, numpy as np
    >>> f = lambda x: x.reshape(6).reshape(3, 2) * 1.0
    >>> print(simplify(mg.make_jaxpr(f)(np.ones((2, 3)))))
    { lambda ; a:f64[2,3]. let
        b:f64[3,2] = reshape[new_sizes=(3, 2)] a
      in (b,) }
    """
    jaxpr = closed.jaxpr
    env: dict[Var, Atom] = {}  # a skipped result -> the operand it equals
    consts = dict(zip(jaxpr.constvars, closed.consts, strict=True))
    fills: dict[Var, np.ndarray | None] = {}  # var -> the 0 or 1 every element holds, or None
    made: dict[Var, Eqn] = {}  # a reshape's, transpose's or broadcast's result -> its equation

    def read(a: Atom) -> Atom:
        return a if isinstance(a, Literal) else env.get(a, a)

    def fill(a: Atom) -> np.ndarray | None:
        if isinstance(a, Literal):
            return _as_fill(a.val)
        if a not in fills:  # an input, or a constant not looked at yet (a scan of its values)
            fills[a] = _const_fill(consts[a]) if a in consts else None
        return fills[a]

    eqns: list[Eqn] = []
    for e in jaxpr.eqns:
        inputs = [read(a) for a in e.inputs]
        if any(a is not b for a, b in zip(inputs, e.inputs, strict=True)):
            e = Eqn(e.prim, inputs, e.params, e.outs)  # a new equation: the input stays as it is
        if not e.prim.multiple_results:
            e = _composed(e, made)
        eqns.append(e)  # (when skipped, DCE removes it: nothing reads its result any more)
        if e.prim.multiple_results:
            continue
        same = _equal_operand(e, fill)
        if same is not None:
            env[e.outs[0]] = same
            continue
        fills[e.outs[0]] = _result_fill(e, fill)
        if e.prim in (reshape_p, transpose_p, broadcast_in_dim_p, dot_p, mul_p, div_p, squeeze_p):
            made[e.outs[0]] = e

    outvars = [read(a) for a in jaxpr.outvars]
    out = Jaxpr(list(jaxpr.constvars), list(jaxpr.invars), eqns, outvars)
    return dce(ClosedJaxpr(out, list(closed.consts), closed.in_tree, closed.out_tree))


# --------------------------------------------------------------------------- fills


def _as_fill(x: Any) -> np.ndarray | None:
    """``x`` (0-d) if it is a 0, a 1 or (of a float dtype) an infinity of a dtype whose fills
    are tracked, else None."""
    x = np.asarray(x)
    if x.dtype.kind in _FILL_KINDS and (x == 0 or x == 1 or (x.dtype.kind == "f"
                                                               and np.isinf(x))):
        return x
    return None


def _const_fill(c: Any) -> np.ndarray | None:
    """The 0 or 1 every element of the constant ``c`` holds, or None."""
    if not isinstance(c, (np.ndarray, np.generic)) or np.size(c) == 0:
        return None
    arr = np.asarray(c)
    first = _as_fill(arr.flat[0])
    return first if first is not None and bool(np.all(arr == first)) else None


def _result_fill(e: Eqn, fill: Fill) -> np.ndarray | None:
    """The 0 or 1 every element of ``e``'s result holds, when that is known."""
    if e.prim is full_p:
        return _as_fill(np.asarray(e.params["fill_value"], e.params["dtype"]))
    if e.prim in _MOVES:
        return fill(e.inputs[0])
    if e.prim is convert_element_type_p:
        value = fill(e.inputs[0])
        new_dtype = e.params["new_dtype"]
        if value is None or new_dtype.kind not in _FILL_KINDS or (
                np.isinf(value) and new_dtype.kind != "f"):
            return None
        return value.astype(new_dtype)  # 0, 1 and infinities convert exactly to floats
    return None


# --------------------------------------------------------------------------- identities


def _equal_operand(e: Eqn, fill: Fill) -> Atom | None:
    """The operand ``e``'s result equals (as a value of the same type), or None."""
    out = e.outs[0].aval
    prim, p = e.prim, e.params
    if prim in (mul_p, add_p, sub_p):
        unit = 1 if prim is mul_p else 0
        a, b = e.inputs
        pairs = [(a, b)] if prim is sub_p else [(a, b), (b, a)]  # 0 - x is not x
        for x, c in pairs:
            value = fill(c)
            if x.aval == out and value is not None and value.dtype == out.dtype and value == unit:
                return x
        return None
    if prim is div_p:
        x, c = e.inputs
        value = fill(c)
        same_type = x.aval == out and value is not None and value.dtype == out.dtype
        return x if same_type and value == 1 else None
    if prim is max_p:
        for x, c in ((e.inputs[0], e.inputs[1]), (e.inputs[1], e.inputs[0])):
            value = fill(c)
            if x.aval == out and value is not None and value.dtype == out.dtype \
                    and value == -np.inf:
                return x
        return None
    if len(e.inputs) != 1 or e.inputs[0].aval != out:  # a structural op that changes the type
        return None
    if prim is stop_gradient_p:
        return e.inputs[0]
    x = e.inputs[0]
    ndim = x.aval.ndim
    if prim is reshape_p:
        return x  # (the same shape: checked above)
    if prim is broadcast_in_dim_p:
        return x if tuple(p["broadcast_dimensions"]) == tuple(range(ndim)) else None
    if prim is transpose_p:
        return x if tuple(p["permutation"]) == tuple(range(ndim)) else None
    if prim in (squeeze_p, expand_dims_p):
        return x if not p["dimensions"] else None
    if prim is convert_element_type_p:
        return x  # (the same dtype: checked above)
    if prim is slice_p:
        whole = (tuple(p["start_indices"]) == (0,) * ndim
                 and tuple(p["limit_indices"]) == x.aval.shape
                 and tuple(p["strides"]) == (1,) * ndim)
        return x if whole else None
    if prim is pad_p:
        return x if all(tuple(c) == (0, 0, 0) for c in p["padding_config"]) else None
    return None


def _composed(e: Eqn, made: dict[Var, Eqn]) -> Eqn:
    """``e`` applied straight to the operand of the equation that made its operand, when both
    are reshapes, both transposes or both broadcasts; else ``e``."""
    x = e.inputs[0] if len(e.inputs) == 1 else None
    inner = made.get(x) if isinstance(x, Var) else None
    if inner is not None and inner.prim in (mul_p, div_p) and e.prim is neg_p:
        a, b = inner.inputs
        if isinstance(b, Literal) and b.aval.dtype.kind == "f":
            return Eqn(inner.prim, [a, Literal(np.negative(b.val))], {}, e.outs)
        if isinstance(a, Literal) and a.aval.dtype.kind == "f":
            return Eqn(inner.prim, [Literal(np.negative(a.val)), b], {}, e.outs)
        return e
    if inner is not None and inner.prim is dot_p and e.prim is transpose_p:
        ins, out = inner.params["subscripts"].split("->")
        letters = "".join(out[j] for j in e.params["permutation"])
        return Eqn(dot_p, inner.inputs, {"subscripts": f"{ins}->{letters}"}, e.outs)
    if inner is not None and inner.prim is squeeze_p and e.prim is broadcast_in_dim_p:
        return _unsqueezed_broadcast(e, inner)
    if inner is None or inner.prim is not e.prim or e.prim is squeeze_p:
        return e
    source = inner.inputs[0]
    if e.prim is reshape_p:  # only the final shape matters
        return Eqn(reshape_p, [source], e.params, e.outs)
    if e.prim is transpose_p:
        # axis j of the result is axis p2[j] of the inner result, which is axis p1[p2[j]]
        p1, p2 = inner.params["permutation"], e.params["permutation"]
        return Eqn(transpose_p, [source], {"permutation": tuple(p1[j] for j in p2)}, e.outs)
    # broadcast_in_dim: axis i of the source went to axis d1[i], which went to axis d2[d1[i]]
    # (both increasing, so the composition is too; a size-1 axis may grow at either step)
    d1, d2 = inner.params["broadcast_dimensions"], e.params["broadcast_dimensions"]
    params = {"shape": e.params["shape"], "broadcast_dimensions": tuple(d2[i] for i in d1)}
    return Eqn(broadcast_in_dim_p, [source], params, e.outs)


def _unsqueezed_broadcast(e: Eqn, inner: Eqn) -> Eqn:
    """A broadcast of a squeeze as one broadcast of the squeeze's operand (``(n, 1) -> (n,) ->
    (n, k)`` as ``(n, 1) -> (n, k)``, which NumPy then broadcasts by itself), each squeezed
    unit axis sent to an output axis free between its neighbours' (any will do: it has size
    1); ``e`` itself when there is none."""
    source = inner.inputs[0]
    squeezed = set(inner.params["dimensions"])
    kept = [a for a in range(source.aval.ndim) if a not in squeezed]
    where = dict(zip(kept, e.params["broadcast_dimensions"], strict=True))
    used, dims, prev = set(where.values()), [], -1
    for a in range(source.aval.ndim):
        if a not in where:
            bound = next((where[b] for b in kept if b > a), len(e.params["shape"]))
            free = [c for c in range(prev + 1, bound) if c not in used]
            if not free:
                return e
            where[a] = free[0]
            used.add(free[0])
        dims.append(where[a])
        prev = where[a]
    params = {"shape": e.params["shape"], "broadcast_dimensions": tuple(dims)}
    return Eqn(broadcast_in_dim_p, [source], params, e.outs)

"""``while_loop`` (one primitive, ``while``) and ``fori_loop`` over it and over ``scan``.

``while_p`` takes ``(*cond_consts, *body_consts, *init)``; its parameters are two closed
jaxprs, ``cond_jaxpr`` (cond consts, carry) -> bool[] and ``body_jaxpr`` (body consts, carry)
-> carry. The trip count is data, so there is no reverse mode (JAX's rule): the rules are

* impl: a Python ``while`` (under ``jit`` around the predicate's and the body's compiled
  functions, the body writing its carry in place);
* JVP: a fixpoint finds which carries have nonzero tangents; the tangents ride in the carry,
  the predicate ignores them;
* batching: a fixpoint finds which carries are batched. A batched predicate batches every
  carry: the loop runs while any lane's predicate holds, and a lane whose predicate fails is
  frozen by a ``select``, so it ends with its own result;
* partial evaluation: with a known predicate the known carries are computed by one ``while``
  now, and the whole loop is staged again for the unknown ones (recomputation); so
  ``linearize`` works, its program holding the second ``while``;
* transpose: an error that says to use ``scan`` or ``fori_loop`` with static bounds.

``fori_loop(lower, upper, body, init)`` is a ``scan`` carrying ``(i, x)`` when the bounds are
concrete (so reverse mode works), a ``while`` carrying ``(i, upper, x)`` when they are traced.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from minigrad.api_util import as_operand, check_callable, input_avals
from minigrad.core import Primitive, ShapedArray, Tracer, Zero
from minigrad.jaxpr import ClosedJaxpr, Jaxpr, JaxprTrace, Var, dce_jaxpr, partial_eval_rules
from minigrad.lax.common import (
    aval_of,
    batch_jaxpr,
    bind_program,
    depends_on,
    differentiable,
    donated_carries,
    in_avals,
    instantiate_zero,
    jvp_jaxpr,
    lane_select,
    out_avals,
    partial_eval_jaxpr,
    permute,
    run_jaxpr,
    tangent_aval,
    trace_body,
    unaliased,
)
from minigrad.lax.loops import _fixpoint, _scan
from minigrad.lax.types import check_same_types, promote_weak, same_types, strong
from minigrad.ops.elementwise import add, convert_element_type, gt, lt
from minigrad.ops.structural import bdim_to, full, moveaxis, reduce_sum
from minigrad.staging.call import derived, trace_program
from minigrad.staging.executor import Emitter, codegen_rules, compiled
from minigrad.tree import leaf_paths, tree_flatten, tree_unflatten

while_p = Primitive("while")
while_p.multiple_results = True

_BOOL = ShapedArray((), np.dtype(bool))


def while_loop(cond_fun: Callable[[Any], Any], body_fun: Callable[[Any], Any],
               init_val: Any) -> Any:
    """``val = init_val; while cond_fun(val): val = body_fun(val)``, as one ``while``
    equation. ``cond_fun`` returns a bool scalar; ``body_fun`` keeps the value's type (a
    Python-scalar leaf takes the type the body gives it). Forward mode (``jvp``, ``jacfwd``,
    ``linearize``) and ``vmap`` work; reverse mode raises (use ``scan`` or ``fori_loop`` with
    static bounds).

    >>> import minigrad as mg, numpy as np
    >>> mg.lax.while_loop(lambda x: x < 100, lambda x: x * 3, np.float64(1.0))
    Array(243., dtype=float64)
    """
    check_callable("while_loop", cond_fun)
    check_callable("while_loop", body_fun)
    raw, tree = tree_flatten(init_val)
    leaves = [as_operand(x, "while_loop", p) for x, p in zip(raw, leaf_paths(tree, "init_val"),
                                                             strict=True)]
    args = tree_flatten((init_val,))[1]  # the functions take the value as one argument
    avals = input_avals(raw, leaves)  # a Python-scalar leaf is weak
    for attempt in range(2):
        body, body_consts, body_tree = trace_body(body_fun, args, avals, "while_loop (body_fun)")
        if attempt == 0 and body_tree == tree:
            leaves, avals, changed = promote_weak(leaves, avals, out_avals(body))
            if changed:
                continue
        break
    check_same_types("while_loop", ("init_val", "the value body_fun returns"),
                     (tree, body_tree), (avals, out_avals(body)), "val",
                     "body_fun must return a value of init_val's type.")
    cond, cond_consts, cond_tree = trace_body(cond_fun, args, avals, "while_loop (cond_fun)")
    if cond_tree.num_leaves != 1 or not same_types(out_avals(cond), [_BOOL]):
        got = ", ".join(a.str_short() for a in out_avals(cond)) or "nothing"
        raise TypeError(f"while_loop: cond_fun must return a boolean scalar (bool[]); got "
                        f"{got} (compare: x < n, not a number or an array)")
    outs = while_p.bind(*cond_consts, *body_consts, *leaves, body_jaxpr=body,
                        body_nconsts=len(body_consts), cond_jaxpr=cond,
                        cond_nconsts=len(cond_consts))
    return tree_unflatten(tree, unaliased(outs, leaves))


def fori_loop(lower: Any, upper: Any, body_fun: Callable[[Any, Any], Any], init_val: Any, *,
              unroll: int | bool | None = None) -> Any:
    """``val = init_val; for i in range(lower, upper): val = body_fun(i, val)``. Concrete
    bounds make it a ``scan`` of ``max(upper - lower, 0)`` steps (reverse mode works);
    traced bounds (under ``jit``) a ``while_loop`` (no reverse mode), as in JAX.

    >>> import minigrad as mg, numpy as np
    >>> mg.lax.fori_loop(0, 4, lambda i, x: x + i, np.float64(0.5))
    Array(6.5, dtype=float64)
    """
    check_callable("fori_loop", body_fun)
    bounds, avals = [], []
    for name, b in (("lower", lower), ("upper", upper)):
        raw, b = b, as_operand(b, "fori_loop", name)
        aval = input_avals([raw], [b])[0]
        if aval.shape != () or aval.dtype.kind not in "iu":
            raise TypeError(f"fori_loop: {name} must be an integer scalar; got "
                            f"{aval.str_short()}")
        bounds.append(b)
        avals.append(aval)
    dtype = _bounds_dtype(*avals)
    concrete = [b.concrete() if isinstance(b, Tracer) else b for b in bounds]
    if all(c is not None for c in concrete):  # a scan: reverse mode works
        lo, hi = (int(c) for c in concrete)  # type: ignore[arg-type]

        def step(carry: tuple, _: Any) -> tuple:
            i, x = carry
            return (i + 1, body_fun(i, x)), None

        if isinstance(unroll, bool) or unroll is None:
            unroll = 1
        if not isinstance(unroll, (int, np.integer)) or unroll < 0:
            raise ValueError(f"fori_loop: unroll must be a non-negative int or a bool; got "
                             f"{unroll!r}")
        # the counter starts as the Python int lo, weakly typed, as JAX's does
        (_, out), _ = _scan(step, (lo, init_val), [], tree_flatten(None)[1],
                            max(hi - lo, 0), False, int(unroll), "fori_loop")
        return out
    if unroll is not None and unroll is not False and unroll != 1:
        raise ValueError("fori_loop: unroll needs static (Python int) bounds; got traced "
                         "bounds")
    lo_, hi_ = (convert_element_type(b, dtype) for b in bounds)

    def cond(carry: tuple) -> Any:
        return lt(carry[0], carry[1])

    def body(carry: tuple) -> tuple:
        i, n, x = carry
        return add(i, full((), 1, dtype)), n, body_fun(i, x)

    return while_loop(cond, body, (lo_, hi_, init_val))[2]


def _bounds_dtype(lower: ShapedArray, upper: ShapedArray) -> np.dtype:
    """The counter's dtype: the bounds' own, which must agree, unless one of two signed ones
    is weak (a Python int), which takes the other's (JAX's rule)."""
    if lower.dtype == upper.dtype:
        return lower.dtype
    if lower.dtype.kind == upper.dtype.kind == "i" and lower.weak_type != upper.weak_type:
        return upper.dtype if lower.weak_type else lower.dtype
    raise TypeError(f"fori_loop: lower and upper must have equal types; got "
                    f"{lower.str_short()} and {upper.str_short()}")


def _split(seq: Any, n_cond: int, n_body: int) -> tuple[list, list, list]:
    seq = list(seq)
    return seq[:n_cond], seq[n_cond:n_cond + n_body], seq[n_cond + n_body:]


# --------------------------------------------------------------------------- impl, shape rule


@while_p.def_impl
def _while_impl(*args: Any, body_jaxpr: ClosedJaxpr, body_nconsts: int,
                cond_jaxpr: ClosedJaxpr, cond_nconsts: int) -> list:
    cc, bc, carry = _split(args, cond_nconsts, body_nconsts)
    while run_jaxpr(cond_jaxpr, [*cc, *carry])[0]:
        carry = run_jaxpr(body_jaxpr, [*bc, *carry])
    return list(carry)


@while_p.def_abstract_eval
def _while_abstract_eval(*avals: ShapedArray, body_jaxpr: ClosedJaxpr, body_nconsts: int,
                         cond_jaxpr: ClosedJaxpr, cond_nconsts: int) -> list[ShapedArray]:
    cc, bc, carry = _split(avals, cond_nconsts, body_nconsts)
    if (not same_types(in_avals(cond_jaxpr), [*cc, *carry])
            or not same_types(out_avals(cond_jaxpr), [_BOOL])):
        raise TypeError(f"while: the predicate takes "
                        f"{', '.join(a.str_short() for a in in_avals(cond_jaxpr))} and must "
                        f"return bool[]; got operands "
                        f"{', '.join(a.str_short() for a in [*cc, *carry])}")
    if (not same_types(in_avals(body_jaxpr), [*bc, *carry])
            or not same_types(out_avals(body_jaxpr), carry)):
        raise TypeError(f"while: the body takes "
                        f"{', '.join(a.str_short() for a in in_avals(body_jaxpr))} and returns "
                        f"{', '.join(a.str_short() for a in out_avals(body_jaxpr))}; got "
                        f"operands {', '.join(a.str_short() for a in [*bc, *carry])}")
    return strong(carry)


# --------------------------------------------------------------------------- JVP


@while_p.def_jvp
def _while_jvp(primals: tuple, tangents: tuple, *, body_jaxpr: ClosedJaxpr,
               body_nconsts: int, cond_jaxpr: ClosedJaxpr, cond_nconsts: int
               ) -> tuple[list, list]:
    # the tangents ride in the carry: while(cond ignoring them, jvp(body))
    nz = [not isinstance(t, Zero) and differentiable(aval_of(x))
          for x, t in zip(primals, tangents, strict=True)]
    _, bc_nz, init_nz = _split(nz, cond_nconsts, body_nconsts)

    def step(carry_nz: list[bool]) -> list[bool]:
        return jvp_jaxpr(body_jaxpr, tuple(bc_nz + carry_nz), tuple(carry_nz))[1]

    carry_nz = _fixpoint(init_nz, step)
    program, _ = jvp_jaxpr(body_jaxpr, tuple(bc_nz + carry_nz), tuple(carry_nz))
    n_b, n_k, n_bt, n_kt = body_nconsts, len(carry_nz), sum(bc_nz), sum(carry_nz)
    t0 = n_b + n_k  # (body consts, carry, body const tangents, carry tangents) -> layout
    order = [*range(n_b), *range(t0, t0 + n_bt), *range(n_b, t0), *range(t0 + n_bt,
                                                                         t0 + n_bt + n_kt)]
    body = derived(program, ("while layout",), lambda: permute(program, order))
    tans = [tangent_aval(a) for a, f in zip(out_avals(body_jaxpr), carry_nz, strict=True) if f]
    cond = derived(cond_jaxpr, ("ignore tangents", tuple(tans)),
                   lambda: _ignoring(cond_jaxpr, tans))
    cc, bc, init = _split(primals, cond_nconsts, body_nconsts)
    _, bc_dot, init_dot = _split(tangents, cond_nconsts, body_nconsts)
    outs = while_p.bind(
        *cc, *bc, *[t for t, f in zip(bc_dot, bc_nz, strict=True) if f], *init,
        *[instantiate_zero(t) for t, f in zip(init_dot, carry_nz, strict=True) if f],
        body_jaxpr=body, body_nconsts=n_b + n_bt, cond_jaxpr=cond, cond_nconsts=cond_nconsts)
    dots = iter(outs[n_k:])
    return outs[:n_k], [next(dots) if f else Zero(tangent_aval(a))
                        for f, a in zip(carry_nz, out_avals(body_jaxpr), strict=True)]


def _ignoring(cond: ClosedJaxpr, avals: list[ShapedArray]) -> ClosedJaxpr:
    """The predicate taking ``avals`` after its inputs, unused."""
    j = cond.jaxpr
    return ClosedJaxpr(Jaxpr(j.constvars, j.invars + [Var(a) for a in avals], j.eqns,
                             j.outvars), cond.consts)


# --------------------------------------------------------------------------- batching


@while_p.def_batch
def _while_batch(axis_size: int, vals: tuple, dims: tuple, *, body_jaxpr: ClosedJaxpr,
                 body_nconsts: int, cond_jaxpr: ClosedJaxpr, cond_nconsts: int
                 ) -> tuple[list, list]:
    batched = [d is not None for d in dims]
    cc_b, bc_b, init_b = _split(batched, cond_nconsts, body_nconsts)

    def pred_batched(carry_b: list[bool]) -> bool:
        return batch_jaxpr(cond_jaxpr, axis_size, tuple(cc_b + carry_b), (False,))[1][0]

    def step(carry_b: list[bool]) -> list[bool]:
        if pred_batched(carry_b):  # every lane runs its own trip count: all carries batched
            return [True] * len(carry_b)
        return batch_jaxpr(body_jaxpr, axis_size, tuple(bc_b + carry_b), tuple(carry_b))[1]

    carry_b = _fixpoint(init_b, step)
    cc, bc, init = _split(zip(vals, dims, strict=True), cond_nconsts, body_nconsts)
    front = [x if d is None else moveaxis(x, d, 0) for x, d in cc + bc]
    init_ops = [bdim_to(x, d, 0, axis_size) if b else x
                for (x, d), b in zip(init, carry_b, strict=True)]
    key = (axis_size, tuple(cc_b), tuple(bc_b), tuple(carry_b))
    if not pred_batched(carry_b):
        cond, _ = batch_jaxpr(cond_jaxpr, axis_size, tuple(cc_b + carry_b), (False,))
        body, _ = batch_jaxpr(body_jaxpr, axis_size, tuple(bc_b + carry_b), tuple(carry_b))
        outs = while_p.bind(*front, *init_ops, body_jaxpr=body, body_nconsts=body_nconsts,
                            cond_jaxpr=cond, cond_nconsts=cond_nconsts)
    else:
        cond, body = derived(body_jaxpr, ("while lanes", cond_jaxpr, key),
                             lambda: _lanes(cond_jaxpr, body_jaxpr, axis_size, cc_b, bc_b,
                                            carry_b))
        outs = while_p.bind(*front[:cond_nconsts], *front, *init_ops, body_jaxpr=body,
                            body_nconsts=cond_nconsts + body_nconsts, cond_jaxpr=cond,
                            cond_nconsts=cond_nconsts)
    return outs, [0 if b else None for b in carry_b]


def _lanes(cond_jaxpr: ClosedJaxpr, body_jaxpr: ClosedJaxpr, axis_size: int,
           cc_b: list[bool], bc_b: list[bool], carry_b: list[bool]
           ) -> tuple[ClosedJaxpr, ClosedJaxpr]:
    """A batched predicate: loop while any lane's holds; the body recomputes each lane's
    predicate and keeps the old carry where it fails (the lane is frozen)."""
    pred, _ = batch_jaxpr(cond_jaxpr, axis_size, tuple(cc_b + carry_b), (True,))
    step, _ = batch_jaxpr(body_jaxpr, axis_size, tuple(bc_b + carry_b), tuple(carry_b))
    n_c, n_b = len(cc_b), len(bc_b)
    cond_avals, body_avals = in_avals(pred), in_avals(step)

    def any_lane(*args: Any) -> list[Any]:
        (p,) = bind_program(pred, args)
        count = reduce_sum(convert_element_type(p, np.int32), (0,))
        return [gt(count, full((), 0, np.int32))]

    def frozen(*args: Any) -> list[Any]:
        cc, bc, carry = args[:n_c], args[n_c:n_c + n_b], args[n_c + n_b:]
        (p,) = bind_program(pred, [*cc, *carry])
        new = bind_program(step, [*bc, *carry])
        return [lane_select(p, n, o) for n, o in zip(new, carry, strict=True)]

    cond = trace_program(any_lane, cond_avals, "while's vmap")
    body = trace_program(frozen, [*cond_avals[:n_c], *body_avals], "while's vmap")
    return cond, body


# --------------------------------------------------------------------------- partial evaluation


def _while_partial_eval(trace: JaxprTrace, args: tuple, params: dict) -> list[Any]:
    """A known predicate: the known carries by one ``while`` now; the whole loop staged again
    for the unknown ones. An unknown predicate: the whole loop staged."""
    cond_jaxpr, body_jaxpr = params["cond_jaxpr"], params["body_jaxpr"]
    n_c, n_b = params["cond_nconsts"], params["body_nconsts"]
    unknown = [trace.owns(x) for x in args]
    cc_uk, bc_uk, init_uk = _split(unknown, n_c, n_b)

    def step(carry_uk: list[bool]) -> list[bool]:
        return partial_eval_jaxpr(body_jaxpr, tuple(bc_uk + carry_uk),
                                  tuple(carry_uk)).out_unknown

    carry_uk = _fixpoint(init_uk, step)
    if depends_on(cond_jaxpr.jaxpr, cc_uk + carry_uk)[0] or all(carry_uk):
        return trace.stage(while_p, args, params)  # type: ignore[no-any-return]
    flags = tuple(bc_uk + carry_uk)
    cond, body = derived(body_jaxpr, ("while known", cond_jaxpr, flags, tuple(cc_uk)),
                         lambda: _known_loop(cond_jaxpr, body_jaxpr, flags, cc_uk, carry_uk))
    cc, bc, init = _split(args, n_c, n_b)
    known_bc = [x for x, u in zip(bc, bc_uk, strict=True) if not u]
    known = trace.parent.process_primitive(while_p, (
        *cc, *known_bc, *[x for x, u in zip(init, carry_uk, strict=True) if not u]), {
        "body_jaxpr": body, "body_nconsts": len(known_bc), "cond_jaxpr": cond,
        "cond_nconsts": n_c})
    staged = trace.stage(while_p, args, params)  # every carry again: the unknown ones
    known_it = iter(known)
    return [s if u else next(known_it) for s, u in zip(staged, carry_uk, strict=True)]


def _known_loop(cond_jaxpr: ClosedJaxpr, body_jaxpr: ClosedJaxpr, flags: tuple[bool, ...],
                cc_uk: list[bool], carry_uk: list[bool]) -> tuple[ClosedJaxpr, ClosedJaxpr]:
    """The predicate and the body of the known carries alone."""
    split = partial_eval_jaxpr(body_jaxpr, flags, tuple(carry_uk))
    k = split.known.jaxpr
    n_known = len(carry_uk) - sum(carry_uk)
    body = dce_jaxpr(Jaxpr(k.constvars, k.invars, k.eqns, k.outvars[:n_known]))
    known_body = ClosedJaxpr(body, [c for v, c in zip(k.constvars, split.known.consts,
                                                      strict=True) if v in body.constvars])
    c = dce_jaxpr(cond_jaxpr.jaxpr)  # it reads no unknown carry: drop those inputs
    n_c = len(cc_uk)
    keep = [True] * n_c + [not u for u in carry_uk]
    cond = ClosedJaxpr(Jaxpr(c.constvars, [v for v, f in zip(c.invars, keep, strict=True) if f],
                             c.eqns, c.outvars), cond_jaxpr.consts)
    return cond, known_body


partial_eval_rules[while_p] = _while_partial_eval


# --------------------------------------------------------------------------- transpose


@while_p.def_transpose
def _while_transpose(cts: list, *args: Any, **params: Any) -> list[Any]:
    raise ValueError("Reverse-mode differentiation does not work for lax.while_loop or "
                     "lax.fori_loop with dynamic start/stop values: the trip count is data. "
                     "Try lax.scan, or lax.fori_loop with static (Python int) bounds; forward "
                     "mode (jvp, jacfwd, linearize) works")


# --------------------------------------------------------------------------- jit


def _while_codegen(e: Any, args: list[str], outs: list[str], emit: Emitter) -> list[str]:
    """A Python ``while`` on the predicate's compiled function, around the body's (which may
    write a big carry in place: the loop starts from a copy of its init)."""
    p = e.params
    cc, bc, init = _split(args, p["cond_nconsts"], p["body_nconsts"])
    n_b = p["body_nconsts"]
    pred = emit.put("cond", compiled(p["cond_jaxpr"], (), f"{emit.program}_cond").fn)
    donated = donated_carries([v.aval for v in e.outs])
    body = compiled(p["body_jaxpr"], tuple(n_b + k for k, d in enumerate(donated) if d),
                    f"{emit.program}_body")
    fn = emit.put("body", body.fn)
    copy = emit.put("copy", np.copy)
    carry = [emit.name(f"c{k}") for k in range(len(init))]
    lines = [f"{c} = {copy}({x})" if d else f"{c} = {x}"
             for c, x, d in zip(carry, init, donated, strict=True)]
    lines += [f"while {pred}({', '.join([*cc, *carry])})[0]:",
              f"    [{', '.join(carry)}] = {fn}({', '.join([*bc, *carry])})",
              f"[{', '.join(outs)}] = [{', '.join(carry)}]"]
    return lines


codegen_rules[while_p] = _while_codegen

__all__ = ["fori_loop", "while_loop", "while_p"]

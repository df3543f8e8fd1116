"""The rules of ``scan_p`` that reverse mode uses (``minigrad.lax.loops`` holds the others;
the two modules make one block, split for length):

* partial evaluation: a fixpoint finds the unknown carries; the body splits into a known
  scan, which also returns the residuals, and a staged scan reading them. A residual that
  depends only on the consts is computed once, before the loop (hoisted); one that is an x
  slice is read from the xs themselves; the others are stacked by the known scan;
* transpose: a scan the other way (``reverse`` flipped) whose carry holds the carry's
  cotangent and accumulators for the linear consts' cotangents, whose xs are the ys'
  cotangents and the stacked residuals, and whose ys are the linear xs' cotangents. A scan
  that also carries non-linear values (a counter, the primal half of a JVP) is split first.

Imported by ``minigrad.lax``, which registers these rules on ``scan_p``.
"""

from __future__ import annotations

from typing import Any, Sequence

from minigrad.core import UndefPrimal, Zero, set_current_trace
from minigrad.jaxpr import ClosedJaxpr, Jaxpr, JaxprTrace, Var, dce_jaxpr, partial_eval_rules
from minigrad.lax.common import (
    bind_program,
    depends_on,
    in_avals,
    out_avals,
    partial_eval_jaxpr,
    permute,
)
from minigrad.lax.loops import _fixpoint, _split, scan_p
from minigrad.ops.elementwise import add
from minigrad.ops.structural import zeros
from minigrad.staging.call import derived, trace_program, transpose_program

# --------------------------------------------------------------------------- partial evaluation


def _scan_partial_eval(trace: JaxprTrace, args: tuple, params: dict) -> list[Any]:
    unknown = [trace.owns(x) for x in args]
    flags, plan = _plan(params, unknown)
    with set_current_trace(trace.parent):  # the known scan and the hoisted residuals, now
        known_outs, staged_ops = _run_known(plan, flags, args, params)
    staged = iter(trace.stage(scan_p, staged_ops, plan.staged_params(params)))
    known_it = iter(known_outs)
    return [next(staged) if u else next(known_it) for u in plan.out_unknown]


def _plan(params: dict, unknown: list[bool]) -> tuple[tuple[bool, ...], ScanSplit]:
    """The unknown inputs with the unknown carries found by a fixpoint, and the split."""
    jaxpr, num_carry, num_consts = params["jaxpr"], params["num_carry"], params["num_consts"]
    const_uk, init_uk, xs_uk = _split(unknown, num_consts, num_carry)
    no_ys = [False] * (len(jaxpr.jaxpr.outvars) - num_carry)

    def step(carry_uk: list[bool]) -> list[bool]:
        flags = tuple(const_uk + carry_uk + xs_uk)
        return partial_eval_jaxpr(jaxpr, flags, tuple(carry_uk + no_ys)).out_unknown[:num_carry]

    flags = tuple(const_uk + _fixpoint(init_uk, step) + xs_uk)
    plan = derived(jaxpr, ("scan split", flags, params["length"]),
                   lambda: ScanSplit(jaxpr, flags, num_consts, num_carry))
    return flags, plan


def _run_known(plan: ScanSplit, flags: tuple[bool, ...], args: Sequence[Any], params: dict
               ) -> tuple[list[Any], list[Any]]:
    """Bind the known scan (and compute the hoisted residuals): its known outputs, and the
    staged scan's operands."""
    num_consts, num_carry = params["num_consts"], params["num_carry"]
    consts, init, xs = _split(args, num_consts, num_carry)
    const_uk, carry_uk, xs_uk = _split(flags, num_consts, num_carry)
    known_consts = [x for x, u in zip(consts, const_uk, strict=True) if not u]
    hoisted = bind_program(plan.hoisted, known_consts)
    known_outs = scan_p.bind(*[x for x, u in zip(args, flags, strict=True) if not u], **{
        **params, "jaxpr": plan.known, "num_consts": len(known_consts),
        "num_carry": num_carry - sum(carry_uk)})
    n_known = len(known_outs) - len(plan.stacked)
    known_xs = [x for x, u in zip(xs, xs_uk, strict=True) if not u]
    staged_ops = [*hoisted, *[x for x, u in zip(consts, const_uk, strict=True) if u],
                  *[x for x, u in zip(init, carry_uk, strict=True) if u],
                  *[known_xs[k] for k in plan.forwarded], *known_outs[n_known:],
                  *[x for x, u in zip(xs, xs_uk, strict=True) if u]]
    return known_outs[:n_known], staged_ops


class ScanSplit:
    """A scan's body split by its unknown inputs (``flags``): the ``known`` body (known consts,
    carry and xs -> known carry, known ys, per-iteration residuals), ``hoisted`` (known consts
    -> the residuals that depend on nothing else), ``forwarded`` (the residuals that are known
    x slices: their positions among the known xs) and the ``staged`` body (hoisted residuals,
    unknown consts | unknown carry | forwarded xs, stacked residuals, unknown xs -> unknown
    carry, unknown ys)."""

    def __init__(self, jaxpr: ClosedJaxpr, flags: tuple[bool, ...], num_consts: int,
                 num_carry: int):
        const_uk, carry_uk, _ = _split(flags, num_consts, num_carry)
        no_ys = [False] * (len(jaxpr.jaxpr.outvars) - num_carry)
        split = partial_eval_jaxpr(jaxpr, flags, tuple(carry_uk + no_ys))
        self.out_unknown = split.out_unknown
        k = split.known.jaxpr
        n_kc, n_kk = num_consts - sum(const_uk), num_carry - sum(carry_uk)
        n_res = len(split.res_avals)
        n_out = len(k.outvars) - n_res
        res = k.outvars[n_out:]
        loop = depends_on(k, [i >= n_kc for i in range(len(k.invars))])[n_out:]
        known_xs = k.invars[n_kc + n_kk:]
        kind = []  # per residual: ("hoist", i) | ("forward", i) | ("stack", i)
        counts = {"hoist": 0, "forward": 0, "stack": 0}
        self.forwarded: list[int] = []
        for r, dep in zip(res, loop, strict=True):
            if isinstance(r, Var) and r in known_xs:
                kind.append(("forward", counts["forward"]))
                self.forwarded.append(known_xs.index(r))
                counts["forward"] += 1
            elif not dep:
                kind.append(("hoist", counts["hoist"]))
                counts["hoist"] += 1
            else:
                kind.append(("stack", counts["stack"]))
                counts["stack"] += 1
        hoisted = [r for r, (kd, _) in zip(res, kind, strict=True) if kd == "hoist"]
        stacked = [r for r, (kd, _) in zip(res, kind, strict=True) if kd == "stack"]
        self.stacked = stacked
        h = dce_jaxpr(Jaxpr(k.constvars, k.invars, k.eqns, hoisted))
        self.hoisted = ClosedJaxpr(Jaxpr(h.constvars, k.invars[:n_kc], h.eqns, h.outvars),
                                   [c for v, c in zip(k.constvars, split.known.consts,
                                                      strict=True) if v in h.constvars])
        body = dce_jaxpr(Jaxpr(k.constvars, k.invars, k.eqns, [*k.outvars[:n_out], *stacked]))
        self.known = ClosedJaxpr(body, [c for v, c in zip(k.constvars, split.known.consts,
                                                          strict=True) if v in body.constvars])
        # the staged body's inputs, from (residuals, unknown consts, carry, xs) to the layout
        # (hoisted, unknown consts | unknown carry | forwarded, stacked, unknown xs)
        n_uc, n_uk = sum(const_uk), sum(carry_uk)
        pos = {"hoist": [], "forward": [], "stack": []}  # type: dict[str, list[int]]
        for i, (kd, _) in enumerate(kind):
            pos[kd].append(i)
        uk = n_res
        order = [*pos["hoist"], *range(uk, uk + n_uc), *range(uk + n_uc, uk + n_uc + n_uk),
                 *pos["forward"], *pos["stack"],
                 *range(uk + n_uc + n_uk, len(split.staged.jaxpr.invars))]
        self.staged = permute(split.staged, order)
        self.num_consts = counts["hoist"] + n_uc
        self.num_carry = n_uk

    def staged_params(self, params: dict) -> dict:
        return {**params, "jaxpr": self.staged, "num_consts": self.num_consts,
                "num_carry": self.num_carry}


partial_eval_rules[scan_p] = _scan_partial_eval


# --------------------------------------------------------------------------- transpose


@scan_p.def_transpose
def _scan_transpose(cts: list, *args: Any, jaxpr: ClosedJaxpr, length: int, num_carry: int,
                    num_consts: int, reverse: bool, unroll: int) -> list[Any]:
    # a scan the other way: carry (acc for the linear consts' cts, ct_carry), xs (ct_ys,
    # residual xs), ys the linear xs' cts; acc += ct_consts at every step
    params = dict(jaxpr=jaxpr, length=length, num_carry=num_carry, num_consts=num_consts,
                  reverse=reverse, unroll=unroll)
    flags, plan = _plan(params, [isinstance(x, UndefPrimal) for x in args])
    if not all(_split(flags, num_consts, num_carry)[1]):
        return _transpose_split(cts, args, flags, plan, params)
    # Every carry depends on a linear input. One whose init is known (a zero tangent made
    # dense) is transposed as a linear one, as JAX does.
    consts, _, xs = _split(args, num_consts, num_carry)
    const_lin = [isinstance(x, UndefPrimal) for x in consts]
    xs_lin = [isinstance(x, UndefPrimal) for x in xs]
    ct_carry, ct_ys = cts[:num_carry], cts[num_carry:]
    body_avals = in_avals(jaxpr)
    ct_carry = [zeros(a) if isinstance(c, Zero) else c
                for c, a in zip(ct_carry, body_avals[num_consts:num_consts + num_carry],
                                strict=True)]
    ys_nz = tuple(not isinstance(c, Zero) for c in ct_ys)
    key = (tuple(const_lin), tuple(xs_lin), ys_nz)
    body = derived(jaxpr, ("scan transpose", *key),
                   lambda: _transposed_body(jaxpr, num_consts, num_carry, *key))
    res_consts = [x for x, lin in zip(consts, const_lin, strict=True) if not lin]
    res_xs = [x for x, lin in zip(xs, xs_lin, strict=True) if not lin]
    acc = [zeros(x.aval) for x, lin in zip(consts, const_lin, strict=True) if lin]
    outs = scan_p.bind(*res_consts, *acc, *ct_carry,
                       *[c for c in ct_ys if not isinstance(c, Zero)], *res_xs,
                       jaxpr=body, length=length, num_carry=len(acc) + num_carry,
                       num_consts=len(res_consts), reverse=not reverse, unroll=unroll)
    ct_consts, ct_init, ct_xs = iter(outs[:len(acc)]), outs[len(acc):len(acc) + num_carry], \
        iter(outs[len(acc) + num_carry:])
    return ([next(ct_consts) if lin else None for lin in const_lin] + list(ct_init)
            + [next(ct_xs) if lin else None for lin in xs_lin])


def _transpose_split(cts: list, args: Sequence[Any], flags: tuple[bool, ...],
                     plan: ScanSplit, params: dict) -> list[Any]:
    """A scan that also carries non-linear values (a counter, the primal of a JVP): its known
    part runs forward now, then its linear part, fed the residuals, is transposed."""
    _, staged_ops = _run_known(plan, flags, args, params)
    staged = plan.staged_params(params)
    staged_cts = [c for c, u in zip(cts, plan.out_unknown, strict=True) if u]
    cts_in = _scan_transpose(staged_cts, *staged_ops, **staged)
    n_h = plan.num_consts - sum(_split(flags, params["num_consts"], params["num_carry"])[0])
    const_uk, carry_uk, xs_uk = _split(flags, params["num_consts"], params["num_carry"])
    ct_consts = iter(cts_in[n_h:plan.num_consts])
    ct_init = iter(cts_in[plan.num_consts:plan.num_consts + plan.num_carry])
    ct_xs = iter(cts_in[len(cts_in) - sum(xs_uk):])
    return ([next(ct_consts) if u else None for u in const_uk]
            + [next(ct_init) if u else None for u in carry_uk]
            + [next(ct_xs) if u else None for u in xs_uk])


def _transposed_body(jaxpr: ClosedJaxpr, num_consts: int, num_carry: int,
                     const_lin: tuple[bool, ...], xs_lin: tuple[bool, ...],
                     ys_nz: tuple[bool, ...]) -> ClosedJaxpr:
    linear = (*const_lin, *[True] * num_carry, *xs_lin)
    ct_nonzero = (*[True] * num_carry, *ys_nz)
    tp = transpose_program(jaxpr, linear, ct_nonzero)
    avals = in_avals(jaxpr)
    consts, carry, xs = _split(avals, num_consts, num_carry)
    outs = out_avals(jaxpr)
    res_c = [a for a, lin in zip(consts, const_lin, strict=True) if not lin]
    lin_c = [a for a, lin in zip(consts, const_lin, strict=True) if lin]
    res_x = [a for a, lin in zip(xs, xs_lin, strict=True) if not lin]
    ct_y = [a for a, nz in zip(outs[num_carry:], ys_nz, strict=True) if nz]
    n_rc, n_lc, n_ct, n_cy = len(res_c), len(lin_c), len(carry), len(ct_y)

    def fun(*a: Any) -> list[Any]:
        rc, acc = a[:n_rc], a[n_rc:n_rc + n_lc]
        ctc = a[n_rc + n_lc:n_rc + n_lc + n_ct]
        cty, rx = a[n_rc + n_lc + n_ct:n_rc + n_lc + n_ct + n_cy], a[n_rc + n_lc + n_ct + n_cy:]
        got = bind_program(tp, [*rc, *rx, *ctc, *cty])
        ct_lc, ct_c, ct_lx = got[:n_lc], got[n_lc:n_lc + n_ct], got[n_lc + n_ct:]
        return [*[add(s, c) for s, c in zip(acc, ct_lc, strict=True)], *ct_c, *ct_lx]

    return trace_program(fun, [*res_c, *lin_c, *carry, *ct_y, *res_x], "scan's transpose")


__all__ = ["ScanSplit"]

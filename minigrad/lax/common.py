"""What the control-flow constructs share: tracing a body to a closed jaxpr, running a body
eagerly, and the jaxpr-to-jaxpr transformations their rules are built from (the checks of
branch and carry types are in ``minigrad.lax.types``).

A body (a branch, a loop body, a loop predicate) is traced once per call of the construct, at
the abstract values of its arguments, with ``trace_body``. The values it closes over (arrays,
or tracers of the transforms running outside) become its leading inputs, so the primitive
passes them as operands: every transform sees them, as it sees any operand, and the nested
program holds no constants of its own.

Each rule of each construct turns its programs into other programs, exactly as the ``jit``
primitive's rules do (``minigrad.staging.call``), with one addition the loops need: flags that
*instantiate* an output (a zero tangent made dense, an unbatched value broadcast, a known value
made unknown), so a loop body's carry keeps its type whatever one iteration would give. Each
derived program is traced once per program and flags (``derived``).
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, Sequence

import numpy as np

from minigrad import core
from minigrad.api_util import as_output
from minigrad.core import (
    ShapedArray,
    Tracer,
    Zero,
    current_trace,
    new_trace,
    tangent_dtype,
)
from minigrad.jaxpr import (
    Atom,
    ClosedJaxpr,
    Jaxpr,
    JaxprTrace,
    Literal,
    Var,
    eval_jaxpr,
    programs,
)
from minigrad.ops.elementwise import select
from minigrad.ops.structural import bdim_to, broadcast_in_dim, instantiate, moveaxis, zeros
from minigrad.staging.call import derived, residuals_first, trace_program
from minigrad.transforms.jvp import JVPTrace
from minigrad.transforms.vmap import BatchTrace, BatchTracer, collective_rules
from minigrad.tree import PyTreeDef, tree_flatten, tree_unflatten

# --------------------------------------------------------------------------- tracing bodies


def trace_body(fun: Callable[..., Any], in_tree: PyTreeDef, avals: Sequence[ShapedArray],
               what: str, check: Callable[[Any], None] | None = None
               ) -> tuple[ClosedJaxpr, list[Any], PyTreeDef]:
    """``fun(*tree_unflatten(in_tree, args))`` staged at ``avals``: ``(program, consts,
    out_tree)``. The program takes ``(*consts, *args)`` and has no constants of its own;
    ``consts`` are the values ``fun`` closes over, which the primitive passes first.
    ``check(output)`` may reject the output's form (raising) before it is flattened."""
    box: list[PyTreeDef] = []

    def flat(*args: Any) -> list[Any]:
        out = fun(*tree_unflatten(in_tree, list(args)))
        if check is not None:
            check(out)
        leaves, tree = tree_flatten(out)
        box.append(tree)
        return [as_output(o, what) for o in leaves]

    program = trace_program(flat, avals, what)
    j = program.jaxpr
    lifted = Jaxpr([], [*j.constvars, *j.invars], j.eqns, j.outvars)
    return ClosedJaxpr(lifted, []), list(program.consts), box[0]


def bind_program(closed: ClosedJaxpr, args: Sequence[Any]) -> list[Any]:
    """Bind the equations of ``closed`` on ``args``: the transforms running see each one."""
    return eval_jaxpr(closed.jaxpr, closed.consts, *args)


def out_avals(closed: ClosedJaxpr) -> list[ShapedArray]:
    return [v.aval for v in closed.jaxpr.outvars]


def in_avals(closed: ClosedJaxpr) -> list[ShapedArray]:
    return [v.aval for v in closed.jaxpr.invars]


def aval_of(x: Any) -> ShapedArray:
    return x.aval if isinstance(x, Tracer) else ShapedArray(np.shape(x), np.asarray(x).dtype)


def differentiable(aval: ShapedArray) -> bool:
    return aval.dtype.kind in "fc"


def tangent_aval(aval: ShapedArray) -> ShapedArray:
    return ShapedArray(aval.shape, tangent_dtype(aval.dtype))


def with_leading_invars(closed: ClosedJaxpr, avals: Sequence[ShapedArray]) -> ClosedJaxpr:
    """``closed`` taking ``avals`` first, which it ignores (a branch given the others'
    operands, a predicate given a loop's tangents)."""
    j = closed.jaxpr
    return ClosedJaxpr(Jaxpr(j.constvars, [Var(a) for a in avals] + j.invars, j.eqns,
                             j.outvars), closed.consts)


def permute(closed: ClosedJaxpr, ins: Sequence[int] | None = None,
            outs: Sequence[int] | None = None) -> ClosedJaxpr:
    """``closed`` taking its inputs in the order ``ins`` (input k of the result is input
    ``ins[k]`` of ``closed``) and returning its outputs in the order ``outs``."""
    j = closed.jaxpr
    invars = j.invars if ins is None else [j.invars[i] for i in ins]
    outvars = j.outvars if outs is None else [j.outvars[i] for i in outs]
    return ClosedJaxpr(Jaxpr(j.constvars, invars, j.eqns, outvars), closed.consts)


# --------------------------------------------------------------------------- running a body


def run_jaxpr(closed: ClosedJaxpr, args: Sequence[Any]) -> list[Any]:
    """Evaluate ``closed`` eagerly by calling each equation's impl (never ``bind``: an impl
    must not bind, since the trace current while it runs may be any transform's)."""
    env: dict[Var, Any] = dict(zip(closed.jaxpr.constvars, closed.consts, strict=True))
    env.update(zip(closed.jaxpr.invars, args, strict=True))

    def read(a: Any) -> Any:
        return a.val if isinstance(a, Literal) else env[a]

    for e in closed.jaxpr.eqns:
        out = e.prim.impl(*[read(a) for a in e.inputs], **e.params)  # type: ignore[misc]
        values = out if e.prim.multiple_results else [out]
        for v, x in zip(e.outs, values, strict=True):
            env[v] = x if type(x) is np.ndarray else np.asarray(x)
    return [read(a) for a in closed.jaxpr.outvars]


# --------------------------------------------------------------------------- JVP


def jvp_jaxpr(closed: ClosedJaxpr, nonzero: tuple[bool, ...], instantiate: tuple[bool, ...]
              ) -> tuple[ClosedJaxpr, list[bool]]:
    """The program ``(primals, tangents of the nonzero inputs) -> (outputs, tangents of the
    outputs that are nonzero or instantiated)``, and which outputs have tangents. Only
    floating values have tangents: ``nonzero`` and ``instantiate`` must be False elsewhere."""
    return derived(closed, ("cf jvp", nonzero, instantiate),  # type: ignore[no-any-return]
                   lambda: _jvp_jaxpr(closed, nonzero, instantiate))


def _jvp_jaxpr(closed: ClosedJaxpr, nonzero: tuple[bool, ...], instantiate: tuple[bool, ...]
               ) -> tuple[ClosedJaxpr, list[bool]]:
    avals = in_avals(closed)
    tans = [tangent_aval(a) for a, nz in zip(avals, nonzero, strict=True) if nz]
    has: list[bool] = []

    def fun(*args: Any) -> list[Any]:
        primals, tangents = iter(args[:len(avals)]), iter(args[len(avals):])
        trace = JVPTrace(current_trace())
        trace.transform = "control flow's jvp"
        with new_trace(trace):
            boxed = [trace.box(p, next(tangents) if nz else Zero(tangent_aval(a)))
                     for p, a, nz in zip(primals, avals, nonzero, strict=True)]
            pairs = [trace.to_pair(o) for o in eval_jaxpr(closed.jaxpr, closed.consts, *boxed)]
        has[:] = [inst or not isinstance(t, Zero)
                  for (_, t), inst in zip(pairs, instantiate, strict=True)]
        return ([p for p, _ in pairs]
                + [instantiate_zero(t) for (_, t), h in zip(pairs, has, strict=True) if h])

    return trace_program(fun, avals + tans, "control flow's jvp"), has


def instantiate_zero(t: Any) -> Any:
    return instantiate(t) if isinstance(t, Zero) else t


# --------------------------------------------------------------------------- batching


def batch_jaxpr(closed: ClosedJaxpr, axis_size: int, batched: tuple[bool, ...],
                instantiate: tuple[bool, ...]) -> tuple[ClosedJaxpr, list[bool]]:
    """The program of the inputs batched at axis 0 where ``batched``; each output is batched
    at axis 0 if it depends on a batched input or is instantiated (broadcast), else computed
    once. Returns the program and which outputs are batched."""
    name = batching_axis_name(closed, axis_size)
    return derived(closed, ("cf batch", axis_size, name, batched,  # type: ignore[no-any-return]
                            instantiate),
                   lambda: _batch_jaxpr(closed, axis_size, name, batched, instantiate))


def batching_axis_name(closed: ClosedJaxpr, axis_size: int) -> Any:
    """The name of the ``vmap`` axis batching an equation that holds ``closed`` (a batching
    rule is not told it): a collective in the program names an axis of this size that no
    transform below the rule binds, so it is the axis being batched. None if there is none."""
    names = {e.params["axis_name"] for e in _equations(closed.jaxpr)
             if e.prim in collective_rules and e.params.get("axis_size") == axis_size}
    trace: Any = current_trace()
    while trace is not None and names:
        if isinstance(trace, BatchTrace):
            names.discard(trace.axis_name)
        trace = trace.parent
    return names.pop() if len(names) == 1 else None


def _equations(jaxpr: Jaxpr) -> Iterator[Any]:
    for e in jaxpr.eqns:
        yield e
        for p in e.params.values():
            for inner in programs(p):
                yield from _equations(inner.jaxpr if isinstance(inner, ClosedJaxpr) else inner)


def _batch_jaxpr(closed: ClosedJaxpr, axis_size: int, name: Any, batched: tuple[bool, ...],
                 instantiate: tuple[bool, ...]) -> tuple[ClosedJaxpr, list[bool]]:
    avals = [ShapedArray((axis_size, *a.shape), a.dtype) if b else a
             for a, b in zip(in_avals(closed), batched, strict=True)]
    out_batched: list[bool] = []

    def fun(*args: Any) -> list[Any]:
        trace = BatchTrace(current_trace(), axis_size, name)
        trace.transform = "control flow's vmap"
        with new_trace(trace):
            tracers = [BatchTracer(trace, x, 0) if b else x
                       for x, b in zip(args, batched, strict=True)]
            pairs = [trace.to_batched(o)
                     for o in eval_jaxpr(closed.jaxpr, closed.consts, *tracers)]
        out_batched[:] = [d is not None or inst
                          for (_, d), inst in zip(pairs, instantiate, strict=True)]
        return [x if not b else (moveaxis(x, d, 0) if d is not None
                                 else bdim_to(x, None, 0, axis_size))
                for (x, d), b in zip(pairs, out_batched, strict=True)]

    return trace_program(fun, avals, "control flow's vmap"), out_batched


# --------------------------------------------------------------------------- partial evaluation


class Split:
    """A program split by which inputs are unknown (``partial_eval_jaxpr``): ``known`` takes
    the known inputs and returns the known outputs, then the residuals; ``staged`` takes the
    residuals, then the unknown inputs, and returns the unknown outputs."""

    def __init__(self, known: ClosedJaxpr, staged: ClosedJaxpr, out_unknown: list[bool],
                 res_avals: list[ShapedArray]):
        self.known, self.staged = known, staged
        self.out_unknown, self.res_avals = out_unknown, res_avals


def partial_eval_jaxpr(closed: ClosedJaxpr, unknown: tuple[bool, ...],
                       instantiate: tuple[bool, ...]) -> Split:
    """Split ``closed`` by its ``unknown`` inputs; an output is unknown if it depends on an
    unknown input or is instantiated (a known value then becomes a residual the staged part
    returns)."""
    return derived(closed, ("cf partial_eval", unknown, instantiate),  # type: ignore[no-any-return]
                   lambda: _partial_eval_jaxpr(closed, unknown, instantiate))


def _partial_eval_jaxpr(closed: ClosedJaxpr, unknown: tuple[bool, ...],
                        instantiate: tuple[bool, ...]) -> Split:
    invars = closed.jaxpr.invars
    known_avals = [v.aval for v, u in zip(invars, unknown, strict=True) if not u]
    parts: dict[str, Any] = {}

    def known_fun(*known: Any) -> list[Any]:
        outer = current_trace()  # stages the known part
        pe = JaxprTrace(outer, stage_all=False)
        pe.transform = "control flow's linearize"
        with new_trace(pe):
            known_it = iter(known)
            args = [pe.new_arg(v.aval) if u else next(known_it)
                    for v, u in zip(invars, unknown, strict=True)]
            outs = eval_jaxpr(closed.jaxpr, closed.consts, *args)
            out_unknown = [pe.owns(o) or inst for o, inst in zip(outs, instantiate, strict=True)]
            staged, consts = pe.to_jaxpr([o for o, u in zip(outs, out_unknown, strict=True)
                                          if u])
        parts["staged"], res = residuals_first(staged, consts, outer)
        parts["out_unknown"] = out_unknown
        parts["res_avals"] = [c.aval for c in res]
        return [o for o, u in zip(outs, out_unknown, strict=True) if not u] + res

    known = trace_program(known_fun, known_avals, "control flow's linearize")
    return Split(known, parts["staged"], parts["out_unknown"], parts["res_avals"])


def depends_on(jaxpr: Jaxpr, flags: Sequence[bool]) -> list[bool]:
    """For each output of ``jaxpr``, whether it depends on an input flagged in ``flags``."""
    marked = {v for v, f in zip(jaxpr.invars, flags, strict=True) if f}
    for e in jaxpr.eqns:
        if any(isinstance(a, Var) and a in marked for a in e.inputs):
            marked.update(e.outs)
    return [isinstance(a, Var) and a in marked for a in jaxpr.outvars]


# A loop body writes a carry in place only when the carry is big enough to pay for the guard
# that makes it safe: the body's generated code checks a donated argument against every other
# one (np.may_share_memory, about 0.5 us each), which costs more than a fresh small array.
DONATE_MIN_SIZE = 4096


def donated_carries(avals: Sequence[ShapedArray]) -> list[bool]:
    """Which carries a loop body may write in place (the loop starts from copies of them)."""
    return [a.size >= DONATE_MIN_SIZE for a in avals]


def unaliased(outs: Sequence[Any], args: Sequence[Any]) -> list[Any]:
    """``outs`` with a copy of every array that may share memory with one of ``args`` (a
    branch or a loop that returns its operand gives the caller a new array, which it may
    write). The copy keeps the array's memory order (``np.copy``), so a later reduction of it
    sums in the same order as the same program staged, where the operand itself flows on),
    and is a ``minigrad.Array``, as every eager result."""
    arrays = [a for a in args if isinstance(a, np.ndarray)]
    return [core.to_eager_array(np.copy(o))
            if isinstance(o, np.ndarray) and any(np.may_share_memory(o, a) for a in arrays)
            else o for o in outs]


def lane_select(pred: Any, x: Any, y: Any) -> Any:
    """``select`` of whole lanes: ``pred`` has one entry per lane (the leading axis of ``x``
    and ``y``)."""
    shape = aval_of(x).shape
    return select(broadcast_in_dim(pred, shape, (0,)) if len(shape) > 1 else pred, x, y)


def hoist_invariants(closed: ClosedJaxpr, num_consts: int
                     ) -> tuple[ClosedJaxpr, ClosedJaxpr] | None:
    """Loop-invariant code motion for a loop body whose first ``num_consts`` inputs are the
    same at every step: ``(pre, body)``, where ``pre`` computes, from those inputs, the values
    of the equations that read nothing else (a transposed weight, say), and ``body`` takes
    them after the consts instead of computing them again at every step. None when there is
    nothing to hoist. (Run ``pre`` only for a loop that runs: an impl may raise.)"""
    j = closed.jaxpr
    invariant = {*j.constvars, *j.invars[:num_consts]}
    hoisted, kept = [], []
    for e in j.eqns:
        if all(isinstance(a, Literal) or a in invariant for a in e.inputs):
            hoisted.append(e)
            invariant.update(e.outs)
        else:
            kept.append(e)
    if not hoisted:
        return None
    used = {a for e in kept for a in e.inputs} | set(j.outvars)
    values = [v for e in hoisted for v in e.outs if v in used]
    pre = Jaxpr(j.constvars, j.invars[:num_consts], hoisted, list[Atom](values))
    body = Jaxpr(j.constvars, [*j.invars[:num_consts], *values, *j.invars[num_consts:]], kept,
                 j.outvars)
    return ClosedJaxpr(pre, closed.consts), ClosedJaxpr(body, closed.consts)


def zeros_like_avals(avals: Sequence[ShapedArray]) -> list[Any]:
    return [zeros(a) for a in avals]


__all__ = ["DONATE_MIN_SIZE", "Split", "batch_jaxpr", "bind_program", "depends_on",
           "differentiable", "donated_carries", "hoist_invariants", "in_avals",
           "instantiate_zero", "jvp_jaxpr", "lane_select", "out_avals", "partial_eval_jaxpr",
           "permute", "run_jaxpr", "tangent_aval", "trace_body", "unaliased",
           "with_leading_invars", "zeros_like_avals"]

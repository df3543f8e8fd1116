"""The ``jit`` primitive: a call of a closed jaxpr, and its rules as jaxpr-to-jaxpr transforms.

``jit_p`` is a higher-order primitive: its parameter ``jaxpr`` is a ClosedJaxpr, its operands
are the program's inputs, its results (several: ``multiple_results``) the program's outputs.
Each rule turns the program into another program and binds ``jit_p`` on that, so a transformed
jitted function is still one jitted call:

* JVP: the program of ``(primals, nonzero tangents) -> (outputs, nonzero output tangents)``;
* batching: the program of the batched inputs, its batched outputs at axis 0;
* partial evaluation (``linearize``): a *known* program run now on the known inputs, whose
  extra outputs (residuals) feed an *unknown* program that is staged;
* transpose: the program of ``(non-linear inputs, cotangents) -> cotangents of the linear
  inputs``: the backward pass over the program, traced.

Each derived program is traced once per program and flags (a cache held by the program), and
compiled once when it first runs (``minigrad.staging.executor``).
"""

from __future__ import annotations

import weakref
from typing import Any, Callable, Sequence

import numpy as np

from minigrad.core import (
    Primitive,
    ShapedArray,
    Tracer,
    UndefPrimal,
    Zero,
    current_trace,
    new_trace,
    tangent_dtype,
    typematch,
)
from minigrad.jaxpr import ClosedJaxpr, Jaxpr, JaxprTrace, eval_jaxpr, partial_eval_rules
from minigrad.ops.structural import instantiate, moveaxis
from minigrad.transforms.jvp import JVPTrace
from minigrad.transforms.transpose import backward_pass
from minigrad.transforms.vmap import BatchTrace, BatchTracer, takes_axis_name

jit_p = Primitive("jit")
jit_p.multiple_results = True


def trace_program(fun: Callable[..., Sequence[Any]], avals: Sequence[ShapedArray],
                  transform: str = "jit", keep: bool = False) -> ClosedJaxpr:
    """The program of ``fun`` (a function of flat arguments returning a flat list), staged at
    ``avals``. Values ``fun`` closes over become constants of the program; with ``keep``
    (jit's programs and those derived from them) read-only copies of them
    (``minigrad.jaxpr.frozen``), so a later write into a captured array never reaches it."""
    trace = JaxprTrace(current_trace(), stage_all=True, keep=keep)
    trace.transform = transform
    with new_trace(trace):
        outs = fun(*[trace.new_arg(a) for a in avals])
        jaxpr, consts = trace.to_jaxpr(list(outs))
    closed = ClosedJaxpr(jaxpr, consts)
    closed.kept = keep
    # the captured arrays themselves (weakly: the cache must not keep a caller's array alive),
    # for jit's check that an argument updated in place is not also one of them
    closed.originals = [weakref.ref(x) for x, _, held in trace.consts.values()  # type: ignore
                        if isinstance(x, np.ndarray) and held is not x]
    return closed


# Derived programs, per program: (rule, flags) -> result. Weak, so a program no longer used
# (a retraced function's old one) takes its derivatives with it.
_derived: weakref.WeakKeyDictionary[ClosedJaxpr, dict[Any, Any]] = weakref.WeakKeyDictionary()


def derived(closed: ClosedJaxpr, key: Any, make: Callable[[], Any]) -> Any:
    cache = _derived.setdefault(closed, {})
    if key not in cache:
        cache[key] = make()
    return cache[key]


def call(closed: ClosedJaxpr, args: Sequence[Any], name: str) -> list[Any]:
    return jit_p.bind(*args, jaxpr=closed, name=name, donate=())  # type: ignore[no-any-return]


# --------------------------------------------------------------------------- impl, shape rule


@jit_p.def_impl
def _jit_impl(*args: Any, jaxpr: ClosedJaxpr, name: str, donate: tuple[int, ...]) -> list:
    from minigrad.staging.executor import executable  # the executor imports this module
    return executable(jaxpr, donate, name)(*args)


@jit_p.def_abstract_eval
def _jit_abstract_eval(*avals: ShapedArray, jaxpr: ClosedJaxpr, name: str,
                       donate: tuple[int, ...]) -> list[ShapedArray]:
    expected = [v.aval for v in jaxpr.jaxpr.invars]
    if len(avals) != len(expected) or not all(map(typematch, avals, expected)):
        raise TypeError(f"jit({name}): the program takes "
                        f"{', '.join(a.str_short() for a in expected) or 'nothing'}; got "
                        f"{', '.join(a.str_short() for a in avals) or 'nothing'}")
    return [v.aval for v in jaxpr.jaxpr.outvars]


# --------------------------------------------------------------------------- JVP


def jvp_program(closed: ClosedJaxpr, nonzero: tuple[bool, ...]) -> tuple[ClosedJaxpr, list[bool]]:
    """The program ``(primals, tangents of the nonzero inputs) -> (outputs, tangents of the
    outputs that are not symbolically zero)``, and which outputs those are."""
    in_avals = [v.aval for v in closed.jaxpr.invars]
    tan_avals = [ShapedArray(a.shape, tangent_dtype(a.dtype))
                 for a, nz in zip(in_avals, nonzero, strict=True) if nz]
    out_nonzero: list[bool] = []

    def fun(*args: Any) -> list[Any]:
        primals, tangents = iter(args[:len(in_avals)]), iter(args[len(in_avals):])
        trace = JVPTrace(current_trace())
        trace.transform = "jit's jvp"
        with new_trace(trace):
            boxed = [trace.box(p, next(tangents) if nz else Zero(a))
                     for p, a, nz in zip(primals, in_avals, nonzero, strict=True)]
            pairs = [trace.to_pair(o) for o in eval_jaxpr(closed.jaxpr, closed.consts, *boxed)]
        out_nonzero[:] = [not isinstance(t, Zero) for _, t in pairs]
        return [p for p, _ in pairs] + [t for _, t in pairs if not isinstance(t, Zero)]

    return trace_program(fun, in_avals + tan_avals, keep=closed.kept), out_nonzero


def jvp_call(closed: ClosedJaxpr, primals: Sequence[Any], tangents: Sequence[Any], name: str
             ) -> tuple[list, list]:
    """The JVP of a call of ``closed``: a ``jit`` call of its JVP program (also the JVP of
    ``custom_vmap``'s call, whose rule is about batching only)."""
    nonzero = tuple(not isinstance(t, Zero) for t in tangents)
    program, out_nonzero = derived(closed, ("jvp", nonzero), lambda: jvp_program(closed, nonzero))
    outs = call(program, [*primals, *[t for t in tangents if not isinstance(t, Zero)]],
                f"jvp({name})")
    n = len(closed.jaxpr.outvars)
    nonzero_outs = iter(outs[n:])
    tangents_out = [next(nonzero_outs) if nz else Zero(ShapedArray(v.aval.shape,
                                                                   tangent_dtype(v.aval.dtype)))
                    for v, nz in zip(closed.jaxpr.outvars, out_nonzero, strict=True)]
    return outs[:n], tangents_out


@jit_p.def_jvp
def _jit_jvp(primals: tuple, tangents: tuple, *, jaxpr: ClosedJaxpr, name: str,
             donate: tuple[int, ...]) -> tuple[list, list]:
    return jvp_call(jaxpr, primals, tangents, name)


# --------------------------------------------------------------------------- batching


def batch_program(closed: ClosedJaxpr, axis_size: int, dims: tuple[int | None, ...],
                  axis_name: Any = None) -> tuple[ClosedJaxpr, list[int | None]]:
    """The program of the batched inputs (batch axis at ``dims``); each batched output has its
    batch axis first, an unbatched one (None) is computed once. ``axis_name`` names the axis,
    for the collectives the program may hold."""
    avals = []
    for v, d in zip(closed.jaxpr.invars, dims, strict=True):
        shape = v.aval.shape
        avals.append(v.aval if d is None else ShapedArray((*shape[:d], axis_size, *shape[d:]),
                                                          v.aval.dtype, v.aval.weak_type))
    out_dims: list[int | None] = []

    def fun(*args: Any) -> list[Any]:
        trace = BatchTrace(current_trace(), axis_size, axis_name)
        trace.transform = "jit's vmap"
        with new_trace(trace):
            tracers = [x if d is None else BatchTracer(trace, x, d)
                       for x, d in zip(args, dims, strict=True)]
            pairs = [trace.to_batched(o)
                     for o in eval_jaxpr(closed.jaxpr, closed.consts, *tracers)]
        out_dims[:] = [None if d is None else 0 for _, d in pairs]
        return [x if d is None else moveaxis(x, d, 0) for x, d in pairs]

    return trace_program(fun, avals, keep=closed.kept), out_dims


@jit_p.def_batch
def _jit_batch(axis_size: int, vals: tuple, dims: tuple, *, jaxpr: ClosedJaxpr, name: str,
               donate: tuple[int, ...], axis_name: Any = None) -> tuple[list, list]:
    program, out_dims = derived(jaxpr, ("batch", axis_size, dims, axis_name),
                                lambda: batch_program(jaxpr, axis_size, dims, axis_name))
    return call(program, vals, f"vmap({name})"), out_dims


takes_axis_name.add(jit_p)


# --------------------------------------------------------------------------- partial evaluation


def partial_eval_program(closed: ClosedJaxpr, unknown: tuple[bool, ...]
                         ) -> tuple[ClosedJaxpr, ClosedJaxpr, list[bool], int]:
    """Split the program by which inputs are ``unknown``: ``(known, staged, out_unknown,
    n_res)``. ``known`` takes the known inputs and returns the known outputs, then ``n_res``
    residuals; ``staged`` takes the residuals, then the unknown inputs, and returns the
    unknown outputs."""
    invars = closed.jaxpr.invars
    known_avals = [v.aval for v, u in zip(invars, unknown, strict=True) if not u]
    parts: dict[str, Any] = {}

    def known_fun(*known: Any) -> list[Any]:
        outer = current_trace()  # stages the known part
        pe = JaxprTrace(outer, stage_all=False, keep=closed.kept)
        pe.transform = "jit's linearize"
        with new_trace(pe):
            known_it = iter(known)
            args = [pe.new_arg(v.aval) if u else next(known_it)
                    for v, u in zip(invars, unknown, strict=True)]
            outs = eval_jaxpr(closed.jaxpr, closed.consts, *args)
            out_unknown = [pe.owns(o) for o in outs]
            staged, consts = pe.to_jaxpr([o for o, u in zip(outs, out_unknown, strict=True)
                                          if u])
        parts["staged"], res = residuals_first(staged, consts, outer)
        parts["staged"].kept = closed.kept
        parts["out_unknown"], parts["n_res"] = out_unknown, len(res)
        return [o for o, u in zip(outs, out_unknown, strict=True) if not u] + res

    known = trace_program(known_fun, known_avals, "jit's linearize", keep=closed.kept)
    return known, parts["staged"], parts["out_unknown"], parts["n_res"]


def residuals_first(staged: Jaxpr, consts: list[Any], outer: Any) -> tuple[ClosedJaxpr, list]:
    """The staged part of a split program and the residuals: the staged part's constants that
    the known part computes (tracers of ``outer``) become its first inputs; concrete ones stay
    constants."""
    is_res = [isinstance(c, Tracer) and c._trace is outer for c in consts]
    res = [c for c, r in zip(consts, is_res, strict=True) if r]
    jaxpr = Jaxpr([v for v, r in zip(staged.constvars, is_res, strict=True) if not r],
                  [v for v, r in zip(staged.constvars, is_res, strict=True) if r]
                  + staged.invars, staged.eqns, staged.outvars)
    return ClosedJaxpr(jaxpr, [c for c, r in zip(consts, is_res, strict=True) if not r]), res


def _jit_partial_eval(trace: JaxprTrace, args: tuple, params: dict) -> list[Any]:
    closed, name = params["jaxpr"], params["name"]
    unknown = tuple(trace.owns(a) for a in args)
    known, staged, out_unknown, n_res = derived(
        closed, ("partial_eval", unknown), lambda: partial_eval_program(closed, unknown))
    known_args = [a for a, u in zip(args, unknown, strict=True) if not u]
    known_outs = trace.parent.process_primitive(
        jit_p, tuple(known_args), dict(jaxpr=known, name=f"known({name})", donate=()))
    n_known = len(known_outs) - n_res
    res = known_outs[n_known:]
    unknown_args = [a for a, u in zip(args, unknown, strict=True) if u]
    staged_outs = iter(trace.stage(jit_p, [*res, *unknown_args],
                                   dict(jaxpr=staged, name=f"staged({name})", donate=())))
    known_it = iter(known_outs[:n_known])
    return [next(staged_outs) if u else next(known_it) for u in out_unknown]


partial_eval_rules[jit_p] = _jit_partial_eval


# --------------------------------------------------------------------------- transpose


def transpose_program(closed: ClosedJaxpr, linear: tuple[bool, ...],
                      ct_nonzero: tuple[bool, ...]) -> ClosedJaxpr:
    """The program ``(non-linear inputs, nonzero output cotangents) -> cotangents of the
    linear inputs`` (zeros where none arrives)."""
    invars, outvars = closed.jaxpr.invars, closed.jaxpr.outvars
    avals = ([v.aval for v, lin in zip(invars, linear, strict=True) if not lin]
             + [v.aval for v, nz in zip(outvars, ct_nonzero, strict=True) if nz])
    n_nonlin = linear.count(False)

    def fun(*args: Any) -> list[Any]:
        nonlin, cts = iter(args[:n_nonlin]), iter(args[n_nonlin:])
        full = [None if lin else next(nonlin) for lin in linear]
        cts_out = [next(cts) if nz else Zero(v.aval)
                   for v, nz in zip(outvars, ct_nonzero, strict=True)]
        cts_in = backward_pass(closed.jaxpr, closed.consts, linear, full, cts_out)
        return [instantiate(c) for c, lin in zip(cts_in, linear, strict=True) if lin]

    return trace_program(fun, avals, "jit's transpose", keep=closed.kept)


@jit_p.def_transpose
def _jit_transpose(cts: list, *operands: Any, jaxpr: ClosedJaxpr, name: str,
                   donate: tuple[int, ...]) -> list[Any]:
    linear = tuple(isinstance(o, UndefPrimal) for o in operands)
    ct_nonzero = tuple(not isinstance(c, Zero) for c in cts)
    program = derived(jaxpr, ("transpose", linear, ct_nonzero),
                      lambda: transpose_program(jaxpr, linear, ct_nonzero))
    outs = iter(call(program, [*[o for o in operands if not isinstance(o, UndefPrimal)],
                               *[c for c in cts if not isinstance(c, Zero)]],
                     f"transpose({name})"))
    return [next(outs) if lin else None for lin in linear]


__all__ = ["call", "jit_p", "jvp_call", "trace_program"]

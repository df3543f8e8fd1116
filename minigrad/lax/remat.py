"""``checkpoint`` (``remat``): a function whose intermediate values reverse mode recomputes
instead of saving.

``checkpoint(f)`` calls ``f`` as one ``remat2`` equation (JAX 0.10.2's name) holding its
program, with values identical to ``f``'s. What differs is reverse mode: partial evaluation
runs the equation's known part now (inline: the primal outputs) but stages the *whole*
equation for the unknown part, taking the known inputs rather than the intermediates, so the
linear program keeps only the inputs and recomputes the rest when it runs. The rules:

* impl: the program, run; under ``jit`` a call of its own compiled function (so common
  subexpression elimination never merges the recomputation with the forward pass:
  ``prevent_cse`` holds);
* JVP: a ``remat2`` of the program's JVP (``differentiated=True``);
* batching: a ``remat2`` of the batched program;
* partial evaluation: known outputs inline now; a ``remat2`` of the known inputs and the
  unknown ones, recomputing the residuals;
* transpose: a ``remat2`` of the transposed program (its non-linear part, the recomputation,
  runs forward first).
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

from minigrad.api_util import as_operand, check_callable
from minigrad.core import Primitive, ShapedArray, UndefPrimal, Zero, set_current_trace
from minigrad.jaxpr import ClosedJaxpr, Jaxpr, JaxprTrace, dce_jaxpr, partial_eval_rules
from minigrad.lax.common import (
    aval_of,
    batch_jaxpr,
    bind_program,
    differentiable,
    in_avals,
    jvp_jaxpr,
    out_avals,
    partial_eval_jaxpr,
    run_jaxpr,
    tangent_aval,
    trace_body,
    unaliased,
)
from minigrad.lax.types import same_types, strong
from minigrad.ops.structural import moveaxis
from minigrad.staging.call import derived, trace_program, transpose_program
from minigrad.staging.executor import Emitter, codegen_rules, compiled
from minigrad.tree import leaf_paths, tree_flatten, tree_unflatten

remat_p = Primitive("remat2")
remat_p.multiple_results = True


def checkpoint(fun: Callable[..., Any], *, prevent_cse: bool = True, policy: Any = None,
               static_argnums: int | tuple[int, ...] = ()) -> Callable[..., Any]:
    """``fun``, whose intermediate values reverse mode recomputes instead of storing: the
    gradient's program keeps ``fun``'s inputs and runs ``fun`` again in the backward pass.
    ``static_argnums`` name arguments passed as Python values, not traced. (``policy``, which
    would choose values to save, is not supported yet.)

    >>> import minigrad as mg, numpy as np
    >>> f = mg.checkpoint(lambda x: mg.numpy.sin(mg.numpy.sin(x)))
    >>> float(mg.grad(f)(np.float64(1.0))) == float(np.cos(np.sin(1.0)) * np.cos(1.0))
    True
    """
    check_callable("checkpoint", fun)
    if policy is not None:
        raise NotImplementedError("checkpoint: policy is not supported yet (every "
                                  "intermediate value is recomputed); pass policy=None")
    if not isinstance(prevent_cse, bool):
        raise TypeError(f"checkpoint: prevent_cse must be a bool; got {prevent_cse!r}")
    static = (static_argnums if isinstance(static_argnums, (tuple, list))
              else (static_argnums,))
    if any(not isinstance(i, int) or isinstance(i, bool) for i in static):
        raise TypeError(f"checkpoint: static_argnums must be an int or a tuple of ints; got "
                        f"{static_argnums!r}")

    @functools.wraps(fun)
    def remat_fun(*args: Any) -> Any:
        n = len(args)
        for i in static:
            if not -n <= i < n:
                raise ValueError(f"checkpoint: static_argnums entry {i} is out of range for a "
                                 f"call with {n} arguments")
        fixed = {i % n: args[i] for i in static}
        dyn = tuple(a for i, a in enumerate(args) if i not in fixed)
        raw, in_tree = tree_flatten(dyn)
        leaves = [as_operand(x, "checkpoint", p)
                  for x, p in zip(raw, leaf_paths(in_tree, "args"), strict=True)]

        def with_static(*dyn_args: Any) -> Any:
            it = iter(dyn_args)
            return fun(*[fixed[i] if i in fixed else next(it) for i in range(n)])

        body, consts, out_tree = trace_body(with_static, in_tree,
                                            [aval_of(x) for x in leaves], "checkpoint")
        outs = remat_p.bind(*consts, *leaves, differentiated=False, jaxpr=body, policy=None,
                            prevent_cse=prevent_cse)
        return tree_unflatten(out_tree, unaliased(outs, leaves))

    return remat_fun


remat = checkpoint


# --------------------------------------------------------------------------- impl, shape rule


@remat_p.def_impl
def _remat_impl(*args: Any, differentiated: bool, jaxpr: ClosedJaxpr, policy: Any,
                prevent_cse: bool) -> list:
    return run_jaxpr(jaxpr, args)


@remat_p.def_abstract_eval
def _remat_abstract_eval(*avals: ShapedArray, differentiated: bool, jaxpr: ClosedJaxpr,
                         policy: Any, prevent_cse: bool) -> list[ShapedArray]:
    if not same_types(in_avals(jaxpr), avals):
        raise TypeError(f"remat2: the program takes "
                        f"{', '.join(a.str_short() for a in in_avals(jaxpr)) or 'nothing'}; "
                        f"got {', '.join(a.str_short() for a in avals) or 'nothing'}")
    return strong(out_avals(jaxpr))


def _bind(args: Sequence[Any], jaxpr: ClosedJaxpr, params: dict, differentiated: bool
          ) -> list[Any]:
    return remat_p.bind(*args, **{**params, "jaxpr": jaxpr,  # type: ignore[no-any-return]
                                  "differentiated": differentiated})


# --------------------------------------------------------------------------- JVP


@remat_p.def_jvp
def _remat_jvp(primals: tuple, tangents: tuple, **params: Any) -> tuple[list, list]:
    # (out, out_dot) = remat(jvp(program))(primals, tangents)
    jaxpr = params["jaxpr"]
    nonzero = tuple(not isinstance(t, Zero) and differentiable(aval_of(x))
                    for x, t in zip(primals, tangents, strict=True))
    outs = out_avals(jaxpr)
    program, has = jvp_jaxpr(jaxpr, nonzero, tuple(False for _ in outs))
    results = _bind([*primals, *[t for t, nz in zip(tangents, nonzero, strict=True) if nz]],
                    program, params, True)
    dots = iter(results[len(outs):])
    return results[:len(outs)], [next(dots) if h else Zero(tangent_aval(a))
                                 for h, a in zip(has, outs, strict=True)]


# --------------------------------------------------------------------------- batching


@remat_p.def_batch
def _remat_batch(axis_size: int, vals: tuple, dims: tuple, **params: Any
                 ) -> tuple[list, list]:
    batched = tuple(d is not None for d in dims)
    program, out_b = batch_jaxpr(params["jaxpr"], axis_size, batched,
                                 tuple(False for _ in params["jaxpr"].jaxpr.outvars))
    vals = tuple(x if d is None else moveaxis(x, d, 0) for x, d in zip(vals, dims, strict=True))
    return _bind(vals, program, params, params["differentiated"]), [0 if b else None
                                                                  for b in out_b]


# --------------------------------------------------------------------------- partial evaluation


def _remat_partial_eval(trace: JaxprTrace, args: tuple, params: dict) -> list[Any]:
    """The known outputs now, inline; the unknown ones by a ``remat2`` of the known and the
    unknown inputs that recomputes what the known part computed (no residual is kept but the
    inputs)."""
    jaxpr = params["jaxpr"]
    unknown = tuple(trace.owns(x) for x in args)
    split = partial_eval_jaxpr(jaxpr, unknown, tuple(False for _ in jaxpr.jaxpr.outvars))
    known_args = [x for x, u in zip(args, unknown, strict=True) if not u]
    outputs = derived(jaxpr, ("remat known", unknown), lambda: _outputs_only(split))
    with set_current_trace(trace.parent):
        known = bind_program(outputs, known_args)
    recompute = derived(jaxpr, ("remat recompute", unknown),
                        lambda: _recompute(split, unknown))
    unknown_args = [x for x, u in zip(args, unknown, strict=True) if u]
    staged = iter(trace.stage(remat_p, [*known_args, *unknown_args],
                              {**params, "jaxpr": recompute, "differentiated": True})
                  if any(split.out_unknown) else [])  # (else the unknown inputs are unused)
    known_it = iter(known)
    return [next(staged) if u else next(known_it) for u in split.out_unknown]


def _outputs_only(split: Any) -> ClosedJaxpr:
    """The known part without its residuals (the staged part recomputes them)."""
    k = split.known.jaxpr
    j = dce_jaxpr(Jaxpr(k.constvars, k.invars, k.eqns,
                        k.outvars[:split.out_unknown.count(False)]))
    return ClosedJaxpr(j, [c for v, c in zip(k.constvars, split.known.consts, strict=True)
                           if v in j.constvars])


def _recompute(split: Any, unknown: tuple[bool, ...]) -> ClosedJaxpr:
    """(known inputs, unknown inputs) -> unknown outputs, the residuals computed again."""
    avals = in_avals(split.known)
    n_known = len(avals)
    n_out = split.out_unknown.count(False)

    def fun(*args: Any) -> list[Any]:
        res = bind_program(split.known, args[:n_known])[n_out:]
        return bind_program(split.staged, [*res, *args[n_known:]])

    unknown_avals = in_avals(split.staged)[len(split.res_avals):]
    return trace_program(fun, [*avals, *unknown_avals], "checkpoint's linearize")


partial_eval_rules[remat_p] = _remat_partial_eval


# --------------------------------------------------------------------------- transpose


@remat_p.def_transpose
def _remat_transpose(cts: list, *args: Any, **params: Any) -> list[Any]:
    # ct_args = remat(transpose(program))(non-linear args, cts)
    jaxpr = params["jaxpr"]
    linear = tuple(isinstance(x, UndefPrimal) for x in args)
    ct_nonzero = tuple(not isinstance(c, Zero) for c in cts)
    program = derived(jaxpr, ("transpose", linear, ct_nonzero),
                      lambda: transpose_program(jaxpr, linear, ct_nonzero))
    outs = iter(_bind([*[x for x in args if not isinstance(x, UndefPrimal)],
                       *[c for c in cts if not isinstance(c, Zero)]], program, params, True))
    return [next(outs) if lin else None for lin in linear]


# --------------------------------------------------------------------------- jit


def _remat_codegen(e: Any, args: list[str], outs: list[str], emit: Emitter) -> list[str]:
    """A call of the program's own compiled function: the passes of the enclosing program
    (CSE) cannot merge its recomputation with the forward pass."""
    fn = emit.put("remat", compiled(e.params["jaxpr"], (), f"{emit.program}_remat").fn)
    return [f"[{', '.join(outs)}] = {fn}({', '.join(args)})"]


codegen_rules[remat_p] = _remat_codegen

__all__ = ["checkpoint", "remat", "remat_p"]

"""``cond`` and ``switch``: one primitive, ``cond``, that runs one of its branches.

``cond_p`` takes an int32 index and the operands; its parameter ``branches`` is a tuple of
closed jaxprs of one type, and the index chooses one (JAX's layout: ``cond(pred, ...)`` is
``branches=(false_fun, true_fun)`` at index ``int(pred)``; ``switch`` clamps its index into
range first). Every branch takes every operand, the values all branches close over included.
The rules, each a jaxpr-to-jaxpr transformation of every branch:

* impl: run the chosen branch only; under ``jit`` a Python ``if`` around the branches' own
  compiled functions;
* JVP: the JVP of each branch, the union of the branches' nonzero output tangents made dense
  in every branch, so all branches keep one type;
* batching: an unbatched index keeps one ``cond`` of batched branches; a batched index runs
  every branch on the whole batch, each on operands masked with ``stop_gradient`` on the
  lanes that do not take it, and selects each lane's result (no ``cond`` is left);
* partial evaluation (linearize, vjp): each branch split into a known and a staged part; the
  known ``cond`` returns every branch's residuals (each branch filling the others' slots with
  zeros), the staged ``cond`` reads its own;
* transpose: each branch transposed; the index is not linear.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from minigrad.api_util import as_operand, input_avals
from minigrad.core import Primitive, ShapedArray, UndefPrimal, Zero, get_aval, typematch
from minigrad.jaxpr import ClosedJaxpr, Jaxpr, JaxprTrace, Var, partial_eval_rules
from minigrad.lax.common import (
    aval_of,
    batch_jaxpr,
    bind_program,
    differentiable,
    in_avals,
    jvp_jaxpr,
    lane_select,
    out_avals,
    partial_eval_jaxpr,
    run_jaxpr,
    tangent_aval,
    trace_body,
    unaliased,
)
from minigrad.lax.types import check_same_types, same_types, strong
from minigrad.ops.elementwise import convert_element_type, eq, gt, lt, ne, select
from minigrad.ops.stop_gradient import stop_gradient
from minigrad.ops.structural import bdim_to_front, full, moveaxis, zeros
from minigrad.staging.call import derived, trace_program, transpose_program
from minigrad.staging.executor import Emitter, codegen_rules, compiled
from minigrad.tree import leaf_paths, tree_flatten, tree_unflatten

cond_p = Primitive("cond")
cond_p.multiple_results = True

_INT32 = np.dtype(np.int32)
_NO_OPERAND = object()


def cond(pred: Any, true_fun: Callable[..., Any], false_fun: Callable[..., Any],
         *operands: Any, operand: Any = _NO_OPERAND) -> Any:
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``, as one ``cond``
    equation holding both branches (both are traced; only the chosen one runs). ``pred`` is a
    scalar: a bool, or a number meaning ``pred != 0``. The branches must return one pytree
    structure with equal shapes and dtypes.

    >>> import minigrad as mg, numpy as np
    >>> mg.lax.cond(np.float64(2.0) > 1, lambda x: x * 2, lambda x: x - 1, np.float64(5.0))
    Array(10., dtype=float64)
    """
    operands = _operands("cond", operands, operand)
    for name, fun in (("true_fun", true_fun), ("false_fun", false_fun)):
        if not callable(fun):
            raise TypeError(f"cond: {name} must be callable; got {type(fun).__name__}")
    pred = as_operand(pred, "cond", "pred")
    aval = get_aval(pred)
    if aval.shape != ():
        raise TypeError(f"cond: pred must be a scalar (shape ()); got {aval.str_short()}. Use "
                        f"minigrad.numpy.where or lax.select for an elementwise choice")
    if aval.dtype.kind not in "biuf":
        raise TypeError(f"cond: pred must be a boolean or a real number; got "
                        f"{aval.str_short()}")
    if aval.dtype.kind != "b":  # a number means "nonzero is true", as in JAX
        pred = ne(pred, full((), 0, aval.dtype))
    index = convert_element_type(pred, _INT32)
    return _bind_cond(index, (false_fun, true_fun), operands, "cond", ("false_fun", "true_fun"),
                      ref=1)


def switch(index: Any, branches: Sequence[Callable[..., Any]], *operands: Any,
           operand: Any = _NO_OPERAND) -> Any:
    """``branches[index](*operands)``, the index clamped into ``[0, len(branches) - 1]`` (as
    in JAX), as one ``cond`` equation holding every branch. With one branch, it is called.

    >>> import minigrad as mg, numpy as np
    >>> fs = [lambda x: x + 1, lambda x: x * 10, lambda x: -x]
    >>> [float(mg.lax.switch(i, fs, np.float64(2.0))) for i in (-5, 1, 7)]
    [3.0, 20.0, -2.0]
    """
    operands = _operands("switch", operands, operand)
    index = as_operand(index, "switch", "index")
    aval = get_aval(index)
    if aval.shape != ():
        raise TypeError(f"switch: index must be a scalar (shape ()); got {aval.str_short()}")
    if aval.dtype.kind not in "iu":
        raise TypeError(f"switch: index must be an integer; got {aval.str_short()}")
    if not isinstance(branches, (list, tuple)):
        raise TypeError(f"switch: branches must be a sequence of callables; got "
                        f"{type(branches).__name__}")
    if not branches:
        raise ValueError("switch: branches must not be empty (Empty branch sequence)")
    for k, fun in enumerate(branches):
        if not callable(fun):
            raise TypeError(f"switch: branches[{k}] must be callable; got "
                            f"{type(fun).__name__}")
    if len(branches) == 1:  # JAX calls a lone branch: no primitive at all
        leaves, tree = tree_flatten(branches[0](*operands))  # (an operand returned: a copy)
        return tree_unflatten(tree, unaliased(leaves, tree_flatten(operands)[0]))
    index = clamp_index(convert_element_type(index, _INT32), len(branches))
    names = tuple(f"branches[{k}]" for k in range(len(branches)))
    return _bind_cond(index, tuple(branches), operands, "switch", names)


def clamp_index(index: Any, n: int) -> Any:
    """``index`` clamped into ``[0, n - 1]`` (JAX's ``lax.clamp``), with two selects."""
    low, high = full((), 0, _INT32), full((), n - 1, _INT32)
    index = select(lt(index, low), low, index)
    return select(gt(index, high), high, index)


def _operands(what: str, operands: tuple, operand: Any) -> tuple:
    if operand is _NO_OPERAND:
        return operands
    if operands:
        raise TypeError(f"{what}: pass the operands positionally or as operand=, not both")
    return (operand,)


def _bind_cond(index: Any, funs: Sequence[Callable[..., Any]], operands: tuple, what: str,
               names: Sequence[str], ref: int = 0) -> Any:
    """Trace every branch at the operands' types, check their outputs agree with branch
    ``ref``'s (cond's true_fun, switch's first), and bind."""
    raw, in_tree = tree_flatten(operands)
    paths = leaf_paths(in_tree, "operands")
    leaves = [as_operand(x, what, p) for x, p in zip(raw, paths, strict=True)]
    avals = input_avals(raw, leaves)  # a Python-scalar operand is weak
    traced = [trace_body(f, in_tree, avals, f"{what} ({n})") for f, n in zip(funs, names,
                                                                            strict=True)]
    first = traced[ref]
    for k, (program, _, tree) in enumerate(traced):
        if k != ref:
            check_same_types(what, (names[ref], names[k]), (first[2], tree),
                             (out_avals(first[0]), out_avals(program)), "output",
                             f"Make {names[ref]} and {names[k]} return the same types.")
    consts, branches = _common_consts([(p, c) for p, c, _ in traced], avals)
    branches, forwarded = _prune_forwarded(branches, len(consts))
    computed = branches[0].jaxpr.outvars  # (none: every output is an operand, no cond at all)
    outs = iter(cond_p.bind(index, *consts, *leaves, branches=branches) if computed else [])
    args = [*consts, *leaves]
    results = [args[j] if j is not None else next(outs) for j in forwarded]
    return tree_unflatten(first[2], unaliased(results, leaves))


def _common_consts(traced: list[tuple[ClosedJaxpr, list[Any]]], avals: list[ShapedArray]
                   ) -> tuple[list[Any], tuple[ClosedJaxpr, ...]]:
    """One list of the values the branches close over (each once), and each branch taking
    all of them, then the operands (it ignores the others' values)."""
    consts: list[Any] = []
    where: dict[int, int] = {}
    for _, cs in traced:
        for c in cs:
            if id(c) not in where:
                where[id(c)] = len(consts)
                consts.append(c)
    branches = []
    for program, cs in traced:
        j = program.jaxpr
        own = dict(zip([where[id(c)] for c in cs], j.invars[:len(cs)], strict=True))
        invars = [own.get(k) or Var(aval_of(c)) for k, c in enumerate(consts)]
        branches.append(ClosedJaxpr(Jaxpr(j.constvars, invars + j.invars[len(cs):], j.eqns,
                                          j.outvars), program.consts))
    return consts, tuple(branches)


def _prune_forwarded(branches: tuple[ClosedJaxpr, ...], n_consts: int
                     ) -> tuple[tuple[ClosedJaxpr, ...], list[int | None]]:
    """Drop the outputs that every branch forwards unchanged from one input (JAX does): for
    each output, the position of that input, or None if the primitive computes it."""
    forwarded: list[int | None] = []
    for k in range(len(branches[0].jaxpr.outvars)):
        sources = set()
        for b in branches:
            out = b.jaxpr.outvars[k]
            sources.add(b.jaxpr.invars.index(out) if out in b.jaxpr.invars else None)
        forwarded.append(sources.pop() if len(sources) == 1 and None not in sources else None)
    if all(f is None for f in forwarded):
        return branches, forwarded
    kept = tuple(ClosedJaxpr(Jaxpr(b.jaxpr.constvars, b.jaxpr.invars, b.jaxpr.eqns,
                                   [v for v, f in zip(b.jaxpr.outvars, forwarded, strict=True)
                                    if f is None]), b.consts) for b in branches)
    return kept, forwarded


# --------------------------------------------------------------------------- impl, shape rule


@cond_p.def_impl
def _cond_impl(index: np.ndarray, *ops: Any, branches: tuple[ClosedJaxpr, ...]) -> list:
    # only the chosen branch runs (the index is in range: cond's and switch's own clamp)
    return run_jaxpr(branches[int(np.clip(index, 0, len(branches) - 1))], ops)


@cond_p.def_abstract_eval
def _cond_abstract_eval(index: ShapedArray, *avals: ShapedArray,
                        branches: tuple[ClosedJaxpr, ...]) -> list[ShapedArray]:
    if not typematch(index, ShapedArray((), _INT32)):
        raise TypeError(f"cond: the index must be i32[]; got {index.str_short()}")
    if not branches:
        raise TypeError("cond: branches must not be empty")
    for k, b in enumerate(branches):
        if not same_types(in_avals(b), avals):
            raise TypeError(f"cond: branch {k} takes "
                            f"{', '.join(a.str_short() for a in in_avals(b)) or 'nothing'}; "
                            f"got {', '.join(a.str_short() for a in avals) or 'nothing'}")
        if not same_types(out_avals(b), out_avals(branches[0])):
            raise TypeError(f"cond: branch {k} returns "
                            f"{', '.join(a.str_short() for a in out_avals(b))}, branch 0 "
                            f"{', '.join(a.str_short() for a in out_avals(branches[0]))}")
    return strong(out_avals(branches[0]))


# --------------------------------------------------------------------------- JVP


@cond_p.def_jvp
def _cond_jvp(primals: tuple, tangents: tuple, *, branches: tuple[ClosedJaxpr, ...]
              ) -> tuple[list, list]:
    # out_dot = cond(index, jvp(branches))(ops, ops_dot): each branch's JVP, with the union of
    # the branches' nonzero output tangents made dense in all
    index, *ops = primals
    nonzero = tuple(not isinstance(t, Zero) and differentiable(aval_of(x))
                    for x, t in zip(ops, tangents[1:], strict=True))
    outs = out_avals(branches[0])
    none = tuple(False for _ in outs)
    union = [any(flags) for flags in zip(*[jvp_jaxpr(b, nonzero, none)[1] for b in branches],
                                         strict=True)]
    inst = tuple(u and differentiable(a) for u, a in zip(union, outs, strict=True))
    jvps = tuple(jvp_jaxpr(b, nonzero, inst)[0] for b in branches)
    results = cond_p.bind(index, *ops, *[t for t, nz in zip(tangents[1:], nonzero, strict=True)
                                          if nz], branches=jvps)
    dots = iter(results[len(outs):])
    return results[:len(outs)], [next(dots) if i else Zero(tangent_aval(a))
                                 for i, a in zip(inst, outs, strict=True)]


# --------------------------------------------------------------------------- batching


@cond_p.def_batch
def _cond_batch(axis_size: int, vals: tuple, dims: tuple, *,
                branches: tuple[ClosedJaxpr, ...]) -> tuple[list, list]:
    index, *ops = vals
    index_dim, *op_dims = dims
    if index_dim is None:  # one cond, of batched branches; batch axes first
        batched = tuple(d is not None for d in op_dims)
        ops = [x if d is None else moveaxis(x, d, 0) for x, d in zip(ops, op_dims, strict=True)]
        none = tuple(False for _ in branches[0].jaxpr.outvars)
        union = tuple(any(f) for f in zip(*[batch_jaxpr(b, axis_size, batched, none)[1]
                                            for b in branches], strict=True))
        new = tuple(batch_jaxpr(b, axis_size, batched, union)[0] for b in branches)
        return cond_p.bind(index, *ops, branches=new), [0 if u else None for u in union]
    # A batched index: every branch on the whole batch, each lane's operands masked with
    # stop_gradient where the lane takes another branch (so no NaN from the untaken branch
    # reaches a gradient), and each lane's result selected.
    index = bdim_to_front(index, index_dim, axis_size)
    ops = [bdim_to_front(x, d, axis_size) for x, d in zip(ops, op_dims, strict=True)]
    every = tuple(True for _ in ops)
    outs_per_branch = []
    for k, b in enumerate(branches):
        program, _ = batch_jaxpr(b, axis_size, every, tuple(True for _ in b.jaxpr.outvars))
        takes = eq(index, full((axis_size,), k, _INT32))
        masked = [lane_select(takes, x, stop_gradient(x)) for x in ops]
        outs_per_branch.append(bind_program(program, masked))
    results = []
    for outs in zip(*outs_per_branch, strict=True):
        out = outs[0]
        for k in range(1, len(outs)):
            out = lane_select(eq(index, full((axis_size,), k, _INT32)), outs[k], out)
        results.append(out)
    return results, [0] * len(results)


# --------------------------------------------------------------------------- partial evaluation


def _cond_partial_eval(trace: JaxprTrace, args: tuple, params: dict) -> list[Any]:
    """Run the known part of every branch now, as one ``cond`` returning every branch's
    residuals; stage a ``cond`` of the unknown parts reading them."""
    index, *ops = args
    branches = params["branches"]
    if trace.owns(index):  # nothing can be chosen now: the whole cond is staged
        return trace.stage(cond_p, args, params)  # type: ignore[no-any-return]
    unknown = tuple(trace.owns(x) for x in ops)
    none = tuple(False for _ in branches[0].jaxpr.outvars)
    union = tuple(any(f) for f in zip(*[partial_eval_jaxpr(b, unknown, none).out_unknown
                                        for b in branches], strict=True))
    splits = [partial_eval_jaxpr(b, unknown, union) for b in branches]
    res_avals = [a for s in splits for a in s.res_avals]
    known_branches, staged_branches = derived(branches[0], ("cond split", branches, unknown),
                                              lambda: _joined(splits, res_avals))
    known_ops = [x for x, u in zip(ops, unknown, strict=True) if not u]
    known_outs = trace.parent.process_primitive(cond_p, (index, *known_ops),
                                                {"branches": known_branches})
    n_known = len(known_outs) - len(res_avals)
    res = known_outs[n_known:]
    unknown_ops = [x for x, u in zip(ops, unknown, strict=True) if u]
    staged = iter(trace.stage(cond_p, [index, *res, *unknown_ops],
                              {"branches": staged_branches}) if any(union) else [])
    known_it = iter(known_outs[:n_known])
    return [next(staged) if u else next(known_it) for u in union]


def _joined(splits: list[Any], res_avals: list[ShapedArray]
            ) -> tuple[tuple[ClosedJaxpr, ...], tuple[ClosedJaxpr, ...]]:
    """Each branch's known part returning every branch's residual slots (zeros in the
    others'), and its staged part taking them all (ignoring the others')."""
    known, staged = [], []
    start = 0
    for s in splits:
        n = len(s.res_avals)
        before, after = res_avals[:start], res_avals[start + n:]

        def fun(*args: Any, s: Any = s, before: list = before, after: list = after) -> list:
            outs = bind_program(s.known, args)
            n_out = len(outs) - len(s.res_avals)
            return [*outs[:n_out], *[zeros(a) for a in before], *outs[n_out:],
                    *[zeros(a) for a in after]]

        known.append(trace_program(fun, in_avals(s.known), "cond's linearize"))
        j = s.staged.jaxpr
        invars = ([Var(a) for a in before] + j.invars[:n] + [Var(a) for a in after]
                  + j.invars[n:])
        staged.append(ClosedJaxpr(Jaxpr(j.constvars, invars, j.eqns, j.outvars),
                                  s.staged.consts))
        start += n
    return tuple(known), tuple(staged)


partial_eval_rules[cond_p] = _cond_partial_eval


# --------------------------------------------------------------------------- transpose


@cond_p.def_transpose
def _cond_transpose(cts: list, index: Any, *ops: Any, branches: tuple[ClosedJaxpr, ...]
                    ) -> list[Any]:
    # ct_ops = cond(index, transpose(branches))(non-linear ops, cts)
    if isinstance(index, UndefPrimal):
        raise TypeError("cond: the index cannot be a linear input")
    linear = tuple(isinstance(x, UndefPrimal) for x in ops)
    ct_nonzero = tuple(not isinstance(c, Zero) for c in cts)
    transposed = tuple(_transposed(b, linear, ct_nonzero) for b in branches)
    outs = iter(cond_p.bind(index, *[x for x in ops if not isinstance(x, UndefPrimal)],
                            *[c for c in cts if not isinstance(c, Zero)],
                            branches=transposed))
    return [None, *[next(outs) if lin else None for lin in linear]]


def _transposed(branch: ClosedJaxpr, linear: tuple[bool, ...], ct_nonzero: tuple[bool, ...]
                ) -> ClosedJaxpr:
    return derived(branch, ("transpose", linear, ct_nonzero),  # type: ignore[no-any-return]
                   lambda: transpose_program(branch, linear, ct_nonzero))


# --------------------------------------------------------------------------- jit


def _cond_codegen(e: Any, args: list[str], outs: list[str], emit: Emitter) -> list[str]:
    """A Python ``if`` on the index, calling the chosen branch's compiled function."""
    branches = e.params["branches"]
    index, ops = args[0], ", ".join(args[1:])
    fns = [emit.put(f"branch{k}", compiled(b, (), f"{emit.program}_branch{k}").fn)
           for k, b in enumerate(branches)]
    target = f"[{', '.join(outs)}]"
    if len(branches) == 2:  # index 1 is cond's true branch
        return [f"if {index}:", f"    {target} = {fns[1]}({ops})",
                "else:", f"    {target} = {fns[0]}({ops})"]
    lines = []
    for k, fn in enumerate(fns):  # (the index is in range: switch clamps it)
        test = "else:" if k == len(fns) - 1 else f"{'elif' if k else 'if'} {index} == {k}:"
        lines += [test, f"    {target} = {fn}({ops})"]
    return lines


codegen_rules[cond_p] = _cond_codegen

__all__ = ["clamp_index", "cond", "cond_p", "switch"]

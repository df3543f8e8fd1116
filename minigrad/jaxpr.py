"""The IR: typed variables, literals, equations; the staging trace; make_jaxpr, eval_jaxpr, DCE.

A jaxpr is a function in A-normal form: constants, inputs, a list of equations (one primitive
each) and outputs. ``JaxprTrace`` builds one by staging primitives instead of running them. With
``stage_all=False`` it stages only what depends on its own tracers and runs the rest on the
parent trace: that is partial evaluation, which ``linearize`` uses.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, Sequence

import numpy as np

from minigrad.api_util import (
    as_operand,
    as_output,
    call_paths,
    check_callable,
    check_unsupported,
    input_avals,
)
from minigrad.core import (
    Primitive,
    ShapedArray,
    Trace,
    Tracer,
    current_trace,
    get_aval,
    new_trace,
    result_weak_type,
    typematch,
)
from minigrad.frozen import frozen, is_frozen, released
from minigrad.tree import tree_flatten, tree_unflatten


class Var:
    """A typed variable. Names are given when a jaxpr is printed."""

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray):
        self.aval = aval


class Literal:
    """A scalar constant written inline in the listing."""

    __slots__ = ("val", "aval")

    def __init__(self, val: np.ndarray):
        self.val = val
        self.aval = get_aval(val)

    def __str__(self) -> str:
        return f"{self.val.item()!r}:{self.aval.str_short()}"


Atom = Var | Literal


class Eqn:
    """``outs = prim[params] inputs``. Most primitives have one result; a primitive with
    ``multiple_results`` (a ``jit`` call) has several."""

    __slots__ = ("prim", "inputs", "params", "outs")

    def __init__(self, prim: Primitive, inputs: list[Atom], params: dict, outs: list[Var]):
        self.prim, self.inputs, self.params, self.outs = prim, inputs, params, outs

    @property
    def out(self) -> Var:
        """The result of a single-result equation."""
        if len(self.outs) != 1:
            raise ValueError(f"{self.prim.name} has {len(self.outs)} results: read .outs")
        return self.outs[0]

    @property
    def primitive(self) -> Primitive:
        return self.prim


class Jaxpr:
    """``{ lambda constvars ; invars. let eqns in outvars }``."""

    def __init__(self, constvars: list[Var], invars: list[Var], eqns: list[Eqn],
                 outvars: list[Atom]):
        self.constvars, self.invars, self.eqns, self.outvars = constvars, invars, eqns, outvars

    def __str__(self) -> str:
        return pp_jaxpr(self)


class ClosedJaxpr:
    """A jaxpr with the values of its constants: what ``make_jaxpr`` returns. ``kept``: its
    arrays are ``frozen`` copies (make_jaxpr's, jit's), so the programs derived from it keep
    theirs too; a custom rule's program, evaluated in place of calling its function, holds the
    arrays its function captured, as the function would read them."""

    kept = False

    def __init__(self, jaxpr: Jaxpr, consts: list[Any], in_tree: Any = None,
                 out_tree: Any = None):
        self.jaxpr, self.consts = jaxpr, consts
        self.in_tree, self.out_tree = in_tree, out_tree

    @property
    def eqns(self) -> list[Eqn]:
        return self.jaxpr.eqns

    def __str__(self) -> str:
        return pp_jaxpr(self.jaxpr)

    __repr__ = __str__

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Evaluate on arguments of the traced structure (transformable: it binds)."""
        leaves, tree = tree_flatten((args, kwargs))
        if self.in_tree is not None and tree != self.in_tree:
            raise TypeError(f"ClosedJaxpr: arguments must have the traced structure "
                            f"{self.in_tree}; got {tree}")
        paths = call_paths(tree)  # (numbers become arrays, as a transform's arguments do)
        leaves = [as_operand(x, "ClosedJaxpr", p) for x, p in zip(leaves, paths, strict=True)]
        outs = released(eval_jaxpr(self.jaxpr, self.consts, *leaves))
        return tree_unflatten(self.out_tree, outs) if self.out_tree is not None else outs


# --------------------------------------------------------------------------- printing


def _names() -> Iterator[str]:
    n = 0
    while True:
        name, k = "", n
        while True:
            name = chr(ord("a") + k % 26) + name
            k = k // 26 - 1
            if k < 0:
                break
        yield name
        n += 1


def _pp_param(v: Any) -> str:
    if isinstance(v, np.dtype):
        return v.name
    if callable(v) and hasattr(v, "__qualname__"):  # a rule (custom_jvp's): by name, no address
        return str(v.__qualname__)
    if isinstance(v, tuple):
        return "(" + ", ".join(_pp_param(x) for x in v) + ("," if len(v) == 1 else "") + ")"
    return str(v)


def var_names(jaxpr: Jaxpr, names: Iterator[str] | None = None) -> dict[int, str]:
    """The listing's name of each variable, by ``id``: ``a``, ``b``, ... in order of
    definition (constants, inputs, then equations). A result nothing uses has no name: it
    binds ``_``, as JAX prints it. ``names`` continues an outer listing's sequence, so an inner
    program (a ``jit`` call's) never reuses an outer name."""
    used = {id(a) for e in jaxpr.eqns for a in e.inputs} | {id(a) for a in jaxpr.outvars}
    defined = [*jaxpr.constvars, *jaxpr.invars,
               *(v for e in jaxpr.eqns for v in e.outs if id(v) in used)]
    return {id(v): name for v, name in zip(defined, names or _names(), strict=False)}


def pp_atom(a: Atom, names: dict[int, str]) -> str:
    return str(a) if isinstance(a, Literal) else names.get(id(a), "_")


def pp_decl(v: Var, names: dict[int, str]) -> str:
    return f"{pp_atom(v, names)}:{v.aval.str_short()}"


def pp_eqn(e: Eqn, names: dict[int, str], fresh: Iterator[str] | None = None,
           indent: int = 4) -> str:
    """``b:f64[3] = sin a``: one equation of the listing. A parameter that is a program (a
    ``jit`` call's) is printed inside the brackets, one parameter per line, as JAX prints
    ``pjit``."""
    outs = " ".join(pp_decl(v, names) for v in e.outs)
    args = "".join(f" {pp_atom(a, names)}" for a in e.inputs)
    nested = any(programs(v) for v in e.params.values())
    if not nested:
        params = " ".join(f"{k}={_pp_param(v)}" for k, v in e.params.items())
        head = f"{e.prim.name}[{params}]" if params else e.prim.name
        return f"{outs} = {head}{args}"
    pad = " " * (indent + 2)
    lines = [f"{outs} = {e.prim.name}["]
    for k, v in e.params.items():
        if isinstance(v, (Jaxpr, ClosedJaxpr)):
            inner = v.jaxpr if isinstance(v, ClosedJaxpr) else v
            text = pp_jaxpr(inner, fresh, indent + 2)
            lines.append(f"{pad}{k}={text}")
        elif programs(v):  # a tuple of programs (cond's branches): one per line, as JAX
            lines.append(f"{pad}{k}=(")
            lines += [f"{pad}  {pp_jaxpr(p.jaxpr, fresh, indent + 4)}" for p in v]
            lines.append(f"{pad})")
        else:
            lines.append(f"{pad}{k}={_pp_param(v)}")
    lines.append(f"{' ' * indent}]{args}")
    return "\n".join(lines)


def programs(param: Any) -> list[Jaxpr | ClosedJaxpr]:
    """The programs a parameter holds: itself, or the members of a tuple of programs (the
    branches of ``cond``); ``[]`` for any other parameter."""
    if isinstance(param, (Jaxpr, ClosedJaxpr)):
        return [param]
    if isinstance(param, tuple) and param and all(isinstance(p, ClosedJaxpr) for p in param):
        return list(param)
    return []


def pp_jaxpr(jaxpr: Jaxpr, fresh: Iterator[str] | None = None, indent: int = 0) -> str:
    fresh = fresh or _names()
    names = var_names(jaxpr, fresh)
    consts = " ".join(pp_decl(v, names) for v in jaxpr.constvars)
    ins = " ".join(pp_decl(v, names) for v in jaxpr.invars)
    pad = " " * indent
    lines = [f"{{ lambda {consts}{' ' if consts else ''}; {ins}. let"]
    lines += [f"{pad}    {pp_eqn(e, names, fresh, indent + 4)}" for e in jaxpr.eqns]
    outs = ", ".join(pp_atom(v, names) for v in jaxpr.outvars)
    lines.append(f"{pad}  in ({outs}{',' if len(jaxpr.outvars) == 1 else ''}) }}")
    return "\n".join(lines)


# --------------------------------------------------------------------------- staging


class JaxprTracer(Tracer):
    __slots__ = ("var", "aval")

    def __init__(self, trace: JaxprTrace, var: Var):
        self._trace = trace
        self.var = var
        self.aval = var.aval


class JaxprTrace(Trace):
    """Stages primitives into equations. With ``stage_all`` False, a primitive none of whose
    operands is one of this trace's tracers is not staged: it runs on the parent (it is known).

    With ``keep`` (the program outlives the call: make_jaxpr's, jit's) every array the
    function captures becomes a ``frozen`` copy, so the program never sees a later write into
    it. linearize's trace holds the arrays themselves: a copy per call would cost."""

    transform = "make_jaxpr"

    def __init__(self, parent: Trace, stage_all: bool, keep: bool = False):
        super().__init__(parent)
        self.stage_all, self.keep = stage_all, keep
        self.eqns: list[Eqn] = []
        self.invars: list[Var] = []
        # id(value) -> (value, constvar, what the program holds); the value is kept alive, so
        # its id is not reused by another array while tracing
        self.consts: dict[int, tuple[Any, Var, Any]] = {}

    has_weak = False  # whether a variable (or a constant) of this program is weak

    def new_arg(self, aval: ShapedArray) -> JaxprTracer:
        self.has_weak = self.has_weak or aval.weak_type
        var = Var(aval)
        self.invars.append(var)
        return JaxprTracer(self, var)

    def atom(self, x: Any) -> Atom:
        """The jaxpr atom for an operand: our tracer's var, a literal or a constvar."""
        if self.owns(x):
            return x.var
        if isinstance(x, np.ndarray) and x.ndim == 0 and x.dtype.kind in "biufc":  # is_literal
            return Literal(frozen(x) if self.keep else x)
        const = self.consts.get(id(x))
        if const is None:
            held = frozen(x) if self.keep else x
            const = self.consts[id(x)] = (x, Var(get_aval(x)), held)
            if const[1].aval.weak_type:
                self.has_weak = True
        return const[1]

    def process_primitive(self, prim: Primitive, args: tuple, params: dict) -> Any:
        if not self.stage_all:
            if not any(map(self.owns, args)):
                return self.parent.process_primitive(prim, args, params)
            rule = partial_eval_rules.get(prim)
            if rule is not None:  # a call: run its known part now, stage the rest
                return rule(self, args, params)
        return self.stage(prim, args, params)

    def stage(self, prim: Primitive, args: Sequence[Any], params: dict) -> Any:
        """Append the equation ``prim[params] args`` and return its result's tracer(s)."""
        if self.keep and any(type(p) is ClosedJaxpr and not p.kept for p in params.values()):
            params = {k: kept_program(p) if type(p) is ClosedJaxpr else p
                      for k, p in params.items()}
        inputs = [self.atom(a) for a in args]
        aval = prim.abstract_eval(*[a.aval for a in inputs], **params)  # type: ignore[misc]
        # (abstract_eval's, inline: the hot path; no operand weak, no weak result)
        weak = self.has_weak and result_weak_type(prim, args, params)
        if prim.multiple_results:
            outs = [Var(a.update_weak_type(weak)) for a in aval]
        else:
            outs = [Var(aval if aval.weak_type == weak else aval.update_weak_type(weak))]
            self.has_weak = self.has_weak or weak
        self.eqns.append(Eqn(prim, inputs, params, outs))
        tracers = [JaxprTracer(self, v) for v in outs]
        return tracers if prim.multiple_results else tracers[0]

    def to_jaxpr(self, outs: Sequence[Any]) -> tuple[Jaxpr, list[Any]]:
        outvars = [self.atom(o) for o in outs]
        consts = [held for _, _, held in self.consts.values()]
        constvars = [var for _, var, _ in self.consts.values()]
        return Jaxpr(constvars, list(self.invars), list(self.eqns), outvars), consts


def kept_program(closed: ClosedJaxpr) -> ClosedJaxpr:
    """``closed``, as a kept program holds it: with ``frozen`` copies of its arrays. (A custom
    rule's program holds its function's arrays by reference; staged into a kept program, it
    is copied when staged.)"""
    if closed.kept:
        return closed
    out = ClosedJaxpr(_kept_jaxpr(closed.jaxpr), [frozen(c) for c in closed.consts],
                      closed.in_tree, closed.out_tree)
    out.kept = True
    return out


def _kept_jaxpr(jaxpr: Jaxpr) -> Jaxpr:
    """``jaxpr`` with its literals' values and its nested programs as a kept program holds
    them (the same jaxpr when they are already)."""
    def atom(a: Atom) -> Atom:
        return Literal(frozen(a.val)) if isinstance(a, Literal) and not is_frozen(a.val) else a

    eqns = []
    for e in jaxpr.eqns:
        inputs = [atom(a) for a in e.inputs]
        params = {k: kept_program(p) if type(p) is ClosedJaxpr else p
                  for k, p in e.params.items()}
        same = all(a is b for a, b in zip(inputs, e.inputs, strict=True)) and all(
            params[k] is e.params[k] for k in params)
        eqns.append(e if same else Eqn(e.prim, inputs, params, e.outs))
    outvars = [atom(a) for a in jaxpr.outvars]
    if all(a is b for a, b in zip([*eqns, *outvars], [*jaxpr.eqns, *jaxpr.outvars],
                                  strict=True)):
        return jaxpr
    return Jaxpr(jaxpr.constvars, jaxpr.invars, eqns, outvars)


def abstract_eval(prim: Primitive, avals: Sequence[ShapedArray], operands: Sequence[Any],
                  params: dict) -> list[ShapedArray]:
    """The result types of ``prim`` (a list, whatever its number of results): its shape rule's
    shapes and dtypes, weak as ``result_weak_type`` says for these ``operands``."""
    out = prim.abstract_eval(*avals, **params)  # type: ignore[misc]
    weak = result_weak_type(prim, operands, params)
    if prim.multiple_results:
        return [a.update_weak_type(weak) for a in out]
    return [out if out.weak_type == weak else out.update_weak_type(weak)]


# Partial evaluation of a call primitive (jit): ``rule(trace, args, params)`` splits the call
# into the part that depends only on known operands, run now, and the rest, staged. Registered
# by the module that defines the primitive.
partial_eval_rules: dict[Primitive, Callable[..., Any]] = {}


def make_jaxpr(fun: Callable[..., Any], static_argnums: int | Sequence[int] = (),
               axis_env: Any = None, return_shape: bool = False) -> Callable[..., Any]:
    """The jaxpr of ``fun`` at the shapes and dtypes of the given arguments. Everything ``fun``
    computes is staged, including operations that do not depend on the arguments. If ``fun``
    updates arguments in place (``mg.index_add_``), their final values are extra outputs.

    >>> import minigrad as mg, numpy as np
    >>> print(mg.make_jaxpr(lambda x: mg.numpy.sin(x) * 2.0)(np.ones(3)))
    { lambda ; a:f64[3]. let
        b:f64[3] = sin a
        c:f64[3] = broadcast_in_dim[shape=(3,) broadcast_dimensions=()] 2.0:f64[]
        d:f64[3] = mul b c
      in (d,) }

    ``static_argnums`` arguments are Python values fixed in the program, not inputs; with
    ``return_shape`` the result is ``(jaxpr, shapes)``, the outputs' ShapedArrays in their
    tree, as JAX's.
    """
    check_unsupported("make_jaxpr", axis_env=axis_env)
    static = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)
    if not static and not return_shape:
        return make_jaxpr_named(fun, "make_jaxpr")

    def staged(*args: Any, **kwargs: Any) -> Any:
        n = len(args)
        fixed = {i % n: args[i] for i in static}
        dyn = [a for i, a in enumerate(args) if i not in fixed]

        def with_static(*dyn_args: Any, **kw: Any) -> Any:
            it = iter(dyn_args)
            return fun(*[fixed[i] if i in fixed else next(it) for i in range(n)], **kw)

        closed = make_jaxpr_named(with_static, "make_jaxpr")(*dyn, **kwargs)
        if not return_shape:
            return closed
        return closed, tree_unflatten(closed.out_tree, [v.aval for v in closed.jaxpr.outvars])

    return staged


def make_jaxpr_named(fun: Callable[..., Any], transform: str, stage_all: bool = True
                     ) -> Callable[..., ClosedJaxpr]:
    """``make_jaxpr``, with errors (and escaped tracers) naming ``transform``. Without
    ``stage_all`` only what depends on the arguments is staged, the rest runs now (partial
    evaluation: ``linear_transpose`` stages its function so, which splits a call whose
    outputs mix both, the JVP of a ``jit`` or a ``cond``)."""
    check_callable(transform, fun)

    def staged(*args: Any, **kwargs: Any) -> ClosedJaxpr:
        raw, in_tree = tree_flatten((args, kwargs))  # keyword arguments are inputs too
        paths = call_paths(in_tree)
        leaves = [as_operand(x, transform, p) for x, p in zip(raw, paths, strict=True)]
        trace = JaxprTrace(current_trace(), stage_all=stage_all, keep=True)
        trace.transform = transform
        with new_trace(trace):
            tracers = [trace.new_arg(a) for a in input_avals(raw, leaves)]
            f_args, f_kwargs = tree_unflatten(in_tree, tracers)
            out = fun(*f_args, **f_kwargs)
            # An input the function updated in place (its tracer rebound: minigrad.inplace) is
            # an output too: the program returns (outputs, the updated inputs' final values).
            updated = tuple(t for t, v in zip(tracers, trace.invars, strict=True)
                            if t.var is not v)
            out_leaves, out_tree = tree_flatten((out, updated) if updated else out)
            jaxpr, consts = trace.to_jaxpr([as_output(o, transform) for o in out_leaves])
        closed = ClosedJaxpr(jaxpr, consts, in_tree, out_tree)
        closed.kept = True
        return closed

    return staged


def eval_jaxpr(jaxpr: Jaxpr, consts: Sequence[Any], *args: Any) -> list[Any]:
    """Evaluate by binding each equation's primitive, so the evaluation is transformable. A
    value is dropped after its last use, so its memory can be reused."""
    env: dict[Var, Any] = {}

    def read(a: Atom) -> Any:
        return a.val if isinstance(a, Literal) else env[a]

    if len(args) != len(jaxpr.invars):
        raise TypeError(f"eval_jaxpr: the jaxpr takes {len(jaxpr.invars)} arguments; got "
                        f"{len(args)}")
    for v, x in zip(jaxpr.constvars, consts, strict=True):
        env[v] = x
    for v, x in zip(jaxpr.invars, args, strict=True):
        if not typematch(get_aval(x), v.aval):
            raise TypeError(f"eval_jaxpr: an argument must be {v.aval.str_short()}; got "
                            f"{get_aval(x).str_short()}")
        env[v] = x
    for e, dead in zip(jaxpr.eqns, last_uses(jaxpr), strict=True):
        out = e.prim.bind(*[read(a) for a in e.inputs], **e.params)
        for v, o in zip(e.outs, out if e.prim.multiple_results else [out], strict=True):
            env[v] = o
        for v in dead:
            del env[v]
    return [read(a) for a in jaxpr.outvars]


def last_uses(jaxpr: Jaxpr) -> list[list[Var]]:
    """For each equation, the variables whose last use it is (never an output of the jaxpr):
    what an evaluator may drop once the equation has run."""
    last: dict[Var, int] = {}
    for i, e in enumerate(jaxpr.eqns):
        for a in e.inputs:
            if isinstance(a, Var):
                last[a] = i
        for v in e.outs:
            last.setdefault(v, i)  # a result nothing uses dies where it is made
    for a in jaxpr.outvars:
        if isinstance(a, Var):
            last.pop(a, None)
    dead: list[list[Var]] = [[] for _ in jaxpr.eqns]
    for v, i in last.items():
        dead[i].append(v)
    return dead


def dce_jaxpr(jaxpr: Jaxpr) -> Jaxpr:
    """Drop the equations no output depends on (every primitive is pure)."""
    live = {id(v) for v in jaxpr.outvars if isinstance(v, Var)}
    kept: list[Eqn] = []
    for e in reversed(jaxpr.eqns):
        if any(id(v) in live for v in e.outs):
            kept.append(e)
            live.update(id(a) for a in e.inputs if isinstance(a, Var))
    used = [(v, i) for i, v in enumerate(jaxpr.constvars) if id(v) in live]
    return Jaxpr([v for v, _ in used], jaxpr.invars, kept[::-1], jaxpr.outvars)


def dce_closed(closed: ClosedJaxpr) -> ClosedJaxpr:
    pruned = dce_jaxpr(closed.jaxpr)
    kept = {id(v) for v in pruned.constvars}
    consts = [c for v, c in zip(closed.jaxpr.constvars, closed.consts, strict=True)
              if id(v) in kept]
    return ClosedJaxpr(pruned, consts, closed.in_tree, closed.out_tree)


def typecheck(program: Jaxpr | ClosedJaxpr) -> None:
    """Raise TypeError unless ``program`` is well typed: every variable is defined once, before
    it is read; each equation's results have the avals its primitive's shape rule gives for its
    operands; constants have their variables' avals; every program a parameter holds (a ``jit``
    call's) is well typed too. Passes and hand-built programs are checked with it."""
    jaxpr = program.jaxpr if isinstance(program, ClosedJaxpr) else program
    if isinstance(program, ClosedJaxpr):
        for v, c in zip(jaxpr.constvars, program.consts, strict=True):
            if not typematch(get_aval(c), v.aval):
                raise TypeError(f"typecheck: a constant is {get_aval(c).str_short()}, its "
                                f"variable {v.aval.str_short()}")
    defined: set[int] = set()
    names = var_names(jaxpr)

    def define(v: Var, where: str) -> None:
        if id(v) in defined:
            raise TypeError(f"typecheck: {where} defines {pp_atom(v, names)} a second time")
        defined.add(id(v))

    for v in [*jaxpr.constvars, *jaxpr.invars]:
        define(v, "the inputs")
    for i, e in enumerate(jaxpr.eqns):
        nested = [p for v in e.params.values() for p in programs(v)]
        where = f"equation {i} ({e.prim.name})" if nested else f"equation {i} `{pp_eqn(e, names)}`"
        for k, a in enumerate(e.inputs):
            if isinstance(a, Var) and id(a) not in defined:
                raise TypeError(f"typecheck: {where} reads a variable before it is defined "
                                f"(operand {k})")
        operands = [a.val if isinstance(a, Literal) else a.aval for a in e.inputs]
        try:
            expected = abstract_eval(e.prim, [a.aval for a in e.inputs], operands, e.params)
        except Exception as err:
            raise TypeError(f"typecheck: {where}: the shape rule rejects its operands: "
                            f"{err}") from err
        if expected != [v.aval for v in e.outs]:
            raise TypeError(f"typecheck: {where}: the shape rule gives "
                            f"{', '.join(map(repr, expected))}; the equation says "
                            f"{', '.join(repr(v.aval) for v in e.outs)}")
        for p in nested:
            try:
                typecheck(p)
            except TypeError as err:  # say where the inner program is
                inner = str(err).removeprefix("typecheck: ")
                raise TypeError(f"typecheck: in the program of {where}: {inner}") from err
        for v in e.outs:
            define(v, where)
    for k, a in enumerate(jaxpr.outvars):
        if isinstance(a, Var) and id(a) not in defined:
            raise TypeError(f"typecheck: output {k} is never defined")

"""The executor: an optimized program as straight-line Python source, compiled once.

One line per equation calls the primitive's impl (or its in-place form) directly, with no
tracing and no binding: the cost of a call is that of the NumPy calls it makes. A ``del`` after
each equation drops the values whose last use it was, so their memory is freed (or, with
in-place reuse, written) as soon as nothing reads it. Constants, literals and each equation's
impl with its parameters reach the code through its namespace, never as text in the source.
The source is registered with ``linecache``, so a traceback through a jitted call shows the
generated line that failed.

>>> import minigrad as mg, numpy as np
>>> f = mg.jit(lambda x, i: mg.index_add(mg.numpy.sin(x) * x, 0, i, x[:2]))
>>> print(f.lower(np.ones(3), np.array([0, 0])).as_text())
def jit_lambda(a, b):
    c = sin_0(a)  # c:f64[3] = sin a
    d = mul__1(c, a, c)  # d:f64[3] = mul_ c a
    del c
    e = slice_2(a)  # e:f64[2] = slice[start_indices=(0,) limit_indices=(2,) strides=(1,)] a
    f = index_add__3(d, b, e)  # f:f64[3] = index_add_[dim=0 alpha=1.0] d b e
    del d, e
    return [f]
<BLANKLINE>

``sin``'s result is written by ``mul_`` (nothing reads it afterwards), and that by
``index_add_``; the argument ``a`` is never written.
"""

from __future__ import annotations

import hashlib
import keyword
import linecache
import weakref
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable

import numpy as np

from minigrad.core import Primitive
from minigrad.jaxpr import ClosedJaxpr, Eqn, Jaxpr, Literal, Var, last_uses, pp_eqn, var_names
from minigrad.staging.passes import optimize
from minigrad.staging.passes.inplace import form_ufunc, may_alias_caller
from minigrad.staging.specialize import keepdims_readers, specialized


@dataclass
class Compiled:
    """A compiled program: the function, its source, the optimized program and what the
    passes did (``stats``: equations removed per pass, copies avoided)."""

    fn: Callable[..., list[Any]]
    source: str
    program: ClosedJaxpr
    stats: dict[str, int]


_compiled: weakref.WeakKeyDictionary[ClosedJaxpr, dict[tuple, Compiled]] = (
    weakref.WeakKeyDictionary())


class Emitter:
    """What a code generator of a higher-order primitive gets besides its equation: ``put``
    places an object (a compiled body, a helper) in the namespace under a name of its own, and
    ``name`` makes a local variable name; both are unique to the equation."""

    def __init__(self, namespace: dict[str, Any], index: int, program: str):
        self.namespace, self.index, self.program = namespace, index, program

    def name(self, label: str) -> str:
        return f"{label}_e{self.index}"  # (a program's own names hold no digit)

    def put(self, label: str, obj: Any) -> str:
        name = self.name(label)
        self.namespace[name] = obj
        return name


# Code generators of the higher-order primitives (minigrad.lax registers them, so this module
# imports none of them): ``rule(eqn, args, outs, emitter) -> lines`` gives the source lines
# that compute the equation (a Python ``if``/``for``/``while`` around its bodies' own compiled
# functions) from the operand names ``args`` into the result names ``outs``; the executor
# indents them.
codegen_rules: dict[Primitive, Callable[..., list[str]]] = {}


def compiled(closed: ClosedJaxpr, donate: tuple[int, ...] = (), name: str = "jit"
             ) -> Compiled:
    """The compiled form of ``closed`` (made on first use, then cached with the program)."""
    per_program = _compiled.setdefault(closed, {})
    result = per_program.get(donate)
    if result is None:
        program, stats = optimize(closed, donate)
        result = per_program[donate] = generate(program, donate, name, stats)
    return result


def executable(closed: ClosedJaxpr, donate: tuple[int, ...] = (), name: str = "jit"
               ) -> Callable[..., list]:
    return compiled(closed, donate, name).fn


def _identifier(name: str) -> str:
    safe = "".join(c if c.isalnum() or c == "_" else "_" for c in name) or "fn"
    return safe if safe.isidentifier() and not keyword.iskeyword(safe) else "fn_" + safe


def generate(closed: ClosedJaxpr, donate: tuple[int, ...], name: str,
             stats: dict[str, int]) -> Compiled:
    """Python source for ``closed``, compiled. ``donate``: the inputs it may write into."""
    jaxpr = closed.jaxpr
    # letters for the arguments and results; the constants are named const_0, const_1, ...
    names = var_names(Jaxpr([], jaxpr.invars, jaxpr.eqns, jaxpr.outvars))
    namespace: dict[str, Any] = {"asarray": np.asarray, "owned": _owned, "unshared": _unshared}
    literal_names: dict[int, str] = {}

    def var(v: Var) -> str:
        n = names.get(id(v), "_")
        return n + "_" if keyword.iskeyword(n) else n  # (names never hold "_" otherwise)

    def atom(a: Any) -> str:
        if isinstance(a, Literal):
            if id(a) not in literal_names:
                literal_names[id(a)] = f"lit_{len(literal_names)}"
                namespace[literal_names[id(a)]] = a.val
            return literal_names[id(a)]
        return var(a)

    for k, (v, c) in enumerate(zip(jaxpr.constvars, closed.consts, strict=True)):
        names[id(v)] = f"const_{k}"
        namespace[f"const_{k}"] = c
    params = [var(v) for v in jaxpr.invars]
    arguments = {*jaxpr.invars, *jaxpr.constvars}
    fn_name = _identifier(f"jit_{name}")
    lines = [f"def {fn_name}({', '.join(params)}):"]
    for k in donate:  # a donated argument is written only if it is the caller's to give
        others = "".join(f"{p}, " for j, p in enumerate(params) if j != k)
        lines.append(f"    {params[k]} = owned({params[k]}, ({others}))")
    kept = keepdims_readers(jaxpr)  # (reductions computed with keepdims; their readers rename)
    renames = set(kept.values())
    for i, (e, dead) in enumerate(zip(jaxpr.eqns, last_uses(jaxpr), strict=True)):
        fn = f"{_identifier(e.prim.name)}_{i}"
        rule = codegen_rules.get(e.prim)
        if rule is not None:
            emitter = Emitter(namespace, i, name)
            body = rule(e, [atom(a) for a in e.inputs], [var(v) for v in e.outs], emitter)
            lines += [f"    {line}" for line in body]
        elif i in renames:
            lines.append(f"    {var(e.out)} = {atom(e.inputs[0])}  # {pp_eqn(e, names)}")
        else:
            lines.append(_call_line(e, fn, atom, var, namespace, names, i in kept))
        # (arguments stay: the caller holds them anyway, and the results' copies check them)
        gone = [var(v) for v in dead if id(v) in names and v not in arguments]
        if gone:
            lines.append(f"    del {', '.join(gone)}")
    outs: list[str] = []
    for a, aliases in zip(jaxpr.outvars, may_alias_caller(closed, donate), strict=True):
        text = atom(a)
        if aliases:  # it may be an argument, a constant or a literal: copy it if it is
            text = f"unshared({text}, ({', '.join(atom(x) for x in aliases)},))"
        outs.append(text)
    lines.append(f"    return [{', '.join(outs)}]")
    source = "\n".join(lines) + "\n"
    # named by its text: the same program always has the same name, two programs never
    filename = f"<minigrad.jit {name} {hashlib.sha1(source.encode()).hexdigest()[:8]}>"
    code = compile(source, filename, "exec")
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(code, namespace)
    return Compiled(namespace[fn_name], source, closed, stats)


def _call_line(e: Eqn, fn: str, atom: Callable[[Any], str], var: Callable[[Var], str],
               namespace: dict[str, Any], names: dict[int, str], keepdims: bool = False) -> str:
    """The line that calls ``e``'s impl (with its parameters bound), or its specialized form,
    on its operands. ``keepdims``: a reduction keeping its reduced axes (its reader renames)."""
    impl = e.prim.impl
    assert impl is not None, e.prim.name
    namespace[fn] = specialized(e, keepdims) or (partial(impl, **e.params) if e.params
                                                 else impl)
    operands = [atom(a) for a in e.inputs]
    ufunc = form_ufunc(e.prim)
    if ufunc is not None:  # a ufunc in place: its first operand is also its out argument
        namespace[fn] = ufunc
        operands.append(operands[0])
    call = f"{fn}({', '.join(operands)})"
    if e.prim.multiple_results:
        line = f"    [{', '.join(var(v) for v in e.outs)}] = {call}"
    elif e.outs[0].aval.ndim == 0 and not keepdims:  # NumPy's reductions return scalars
        line = f"    {var(e.outs[0])} = asarray({call})"
    else:
        line = f"    {var(e.outs[0])} = {call}"
    if not any(isinstance(p, ClosedJaxpr) for p in e.params.values()):
        line += f"  # {pp_eqn(e, names)}{' (keepdims)' if keepdims else ''}"
    return line


def _owned(x: np.ndarray, others: tuple) -> np.ndarray:
    """A donated argument, or a copy of it if writing into it would change something else:
    it is read-only (a broadcast view, say) or shares memory with another argument."""
    if not x.flags.writeable or any(np.may_share_memory(x, o) for o in others):
        return x.copy()
    return x


def _unshared(x: np.ndarray, others: tuple) -> np.ndarray:
    if any(np.may_share_memory(x, o) for o in others):
        return x.copy()
    return x

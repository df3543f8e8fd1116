"""The closure meta-test (docs/design.md, sections 6 and 9): every primitive defined in
``minigrad.ops`` has a full rule set, and so does every primitive that any rule binds.

Rules are written with ``bind``, so a rule is only as transformable as the primitives it binds.
Tracing a rule (``make_jaxpr`` of its JVP, its VJP and its batching) shows exactly which
primitives those are; linearizing shows which ones must also transpose (reverse mode is
linearize + transpose). The primitives are found by walking the modules of ``minigrad.ops``, so
a new op file is picked up without touching this test; the tracing starts from the op records
in ``records.py``, and then follows every primitive a rule binds, record or not.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from typing import Any, Callable

import numpy as np
import pytest
from records import CASES, Case

import minigrad as mg
import minigrad.ops
from minigrad.core import Primitive, float0, get_aval
from minigrad.jaxpr import ClosedJaxpr, Literal, typecheck
from minigrad.ops import betainc
from minigrad.testing import all_in_axes, batch_args, staged_programs
from minigrad.testing.checks import results_of, safe_batch_sizes
from minigrad.testing.records import samples_for

FULL_RULES = ("impl", "abstract_eval", "jvp", "batch")

# Operands whose nonzero tangents a primitive's JVP rejects, as JAX's does (betainc in a and
# b): its rules are traced differentiating in the other floating operands only.
REJECTED_TANGENTS = {id(betainc.regularized_incomplete_beta_p): betainc.NONDIFFERENTIABLE}


def defined_primitives() -> list[tuple[str, str, Primitive]]:
    """(module, attribute, primitive) for every Primitive attribute of a minigrad.ops module."""
    found = []
    for info in pkgutil.iter_modules(minigrad.ops.__path__):
        module = importlib.import_module(f"minigrad.ops.{info.name}")
        for attr, value in vars(module).items():
            if isinstance(value, Primitive):
                found.append((module.__name__, attr, value))
    return found


DEFINED = defined_primitives()
PRIMITIVES: dict[int, Primitive] = {id(p): p for _, _, p in DEFINED}
ALL = sorted(PRIMITIVES.values(), key=lambda p: p.name)


def missing_rules(prim: Primitive, need_transpose: bool) -> list[str]:
    needed = FULL_RULES + (("transpose",) if need_transpose else ())
    return [rule for rule in needed if getattr(prim, rule) is None]


# --------------------------------------------------------------------------- (a) rule sets


@pytest.mark.parametrize("prim", ALL, ids=str)
def test_every_primitive_has_a_full_rule_set(prim: Primitive) -> None:
    assert missing_rules(prim, need_transpose=False) == [], f"{prim.name} lacks rules"


def test_primitive_names_are_unique() -> None:
    by_name: dict[str, set[int]] = {}
    for _, _, prim in DEFINED:
        by_name.setdefault(prim.name, set()).add(id(prim))
    assert {n: len(ids) for n, ids in by_name.items() if len(ids) > 1} == {}


def test_discovery_finds_every_sampled_primitive() -> None:
    sampled = {id(c.prim): c.prim.name for c in CASES}
    assert sorted(n for i, n in sampled.items() if i not in PRIMITIVES) == []


# --------------------------------------------------------------------------- tracing the rules


def eqn_primitives(jaxpr: ClosedJaxpr) -> set[Primitive]:
    return {e.primitive for e in jaxpr.eqns}


class RuleTraces:
    """The jaxprs of one primitive's rules at given operands: ``rules`` (the JVP, the VJP and
    the batching rule for every batched combination, axis 0: minigrad.testing's
    ``staged_programs``, which the checker's staged column traces too) and ``linear`` (the
    linear jaxprs of the primitive, of its JVP, of its VJP and of its batched form: what
    reverse mode over those needs transposed)."""

    def __init__(self, prim: Primitive, ops: tuple, params: dict,
                 batchable: tuple[int, ...] | None = None, seed: int = 0,
                 fun: Callable[..., Any] | None = None):
        # ``fun``: an op sample's function of the operands (a record with ``fun``, such as
        # one output of a primitive with several); by default the primitive's bind
        call = fun if fun is not None else functools.partial(prim.bind, **params)
        self.linear: dict[str, ClosedJaxpr] = {}
        first = call(*ops)
        several = isinstance(first, (list, tuple))  # (a primitive's several results)
        outs = results_of(first)
        # Differentiate in every floating operand, when an output is floating.
        rejected = REJECTED_TANGENTS.get(id(prim), ())
        diff = ([i for i, o in enumerate(ops)
                 if get_aval(o).dtype.kind == "f" and i not in rejected]
                if any(o.dtype.kind == "f" for o in outs) else [])

        def g(*a: Any) -> Any:
            return call(*a)

        size = safe_batch_sizes(ops, 1)[0]
        batches = [(f"size {size}", axes, batch_args(lambda rng: ops, axes, size))
                   for axes in all_in_axes(len(ops), batchable, (0,))]
        staged = staged_programs(g, ops, diff=diff, batches=batches, seed=seed)
        self.rules = {s.name: s.program for s in staged if s.name != "f"}
        if diff:
            rng = np.random.default_rng(seed)
            primals = [ops[i] for i in diff]
            tangents = [rng.standard_normal(np.shape(p)).astype(get_aval(p).dtype)
                        for p in primals]
            cts = [rng.standard_normal(o.shape).astype(o.dtype) if o.dtype.kind == "f"
                   else np.zeros(o.shape, float0) for o in outs]
            n = len(diff)

            def f(*xs: Any) -> Any:
                full = list(ops)
                for i, x in zip(diff, xs, strict=True):
                    full[i] = x
                return call(*full)

            def jvp_fn(*a: Any) -> Any:
                return mg.jvp(f, tuple(a[:n]), tuple(a[n:]))[1]

            def vjp_fn(*a: Any) -> Any:
                ct = list(a[n:]) if several else a[n]
                return mg.vjp(f, *a[:n])[1](ct)

            self.linear["linearize"] = mg.linearize(f, *primals)[1].jaxpr
            self.linear["linearize(jvp)"] = mg.linearize(jvp_fn, *primals, *tangents)[1].jaxpr
            self.linear["linearize(vjp)"] = mg.linearize(vjp_fn, *primals, *cts)[1].jaxpr
            self.linear["linearize(vmap)"] = mg.linearize(
                mg.vmap(f), *[np.stack([p, p]) for p in primals])[1].jaxpr

    def problems(self) -> list[str]:
        """Every primitive in a traced rule with a gap in its rule set, or not defined in
        minigrad.ops (a primitive hidden in a rule cannot be checked), and every traced
        program that does not typecheck."""
        found = []
        for where, jaxprs in (("rule", self.rules), ("linear", self.linear)):
            for name, jaxpr in jaxprs.items():
                try:
                    typecheck(jaxpr)
                except TypeError as e:
                    found.append(f"the {name} jaxpr: {e}")
                for prim in eqn_primitives(jaxpr):
                    gaps = missing_rules(prim, need_transpose=where == "linear")
                    if gaps:
                        found.append(f"{prim.name} (in the {name} jaxpr) lacks {gaps}")
                    if id(prim) not in PRIMITIVES:
                        found.append(f"{prim.name} (in the {name} jaxpr) is not defined in "
                                     f"minigrad.ops")
        return sorted(set(found))

    def jaxprs(self) -> list[ClosedJaxpr]:
        return [*self.rules.values(), *self.linear.values()]


@functools.cache
def case_traces(case_id: str) -> RuleTraces:
    case = BY_ID[case_id]
    ops = case.sample.make(np.random.default_rng(0))
    fun = case.sample.function(case.prim) if case.sample.fun is not None else None
    return RuleTraces(case.prim, ops, case.sample.params, case.sample.batchable, fun=fun)


BY_ID = {c.id: c for c in CASES}
WITH_OPERANDS = [c for c in CASES if c.sample.make(np.random.default_rng(0))]
DIFFERENTIABLE = [c for c in CASES if c.sample.diff]


def case_id(case: Case) -> str:
    return case.id


def bound(case: Case) -> tuple[Callable[..., Any], list]:
    """The primitive as a function of its differentiable operands, and their sample values."""
    ops = case.sample.make(np.random.default_rng(0))
    diff = case.sample.diff

    def f(*xs: Any) -> Any:
        full = list(ops)
        for i, x in zip(diff, xs, strict=True):
            full[i] = x
        return case.sample.function(case.prim)(*full)

    return f, [ops[i] for i in diff]


# --------------------------------------------------------------------------- (b) linear jaxprs


@pytest.mark.parametrize("case", DIFFERENTIABLE, ids=case_id)
def test_linear_jaxpr_primitives_transpose(case: Case) -> None:
    f, primals = bound(case)
    _, f_jvp = mg.linearize(f, *primals)
    prims = eqn_primitives(f_jvp.jaxpr)
    assert sorted(p.name for p in prims if p.transpose is None) == []
    # The linear jaxpr is the JVP: evaluating it gives mg.jvp's tangent.
    rng = np.random.default_rng(3)
    tangents = [rng.standard_normal(np.shape(p)).astype(get_aval(p).dtype) for p in primals]
    expected = results_of(mg.jvp(f, tuple(primals), tuple(tangents))[1])
    for got, want in zip(results_of(f_jvp(*tangents)), expected, strict=True):
        if want.dtype != float0:  # (an integer result's float0 tangent holds no values)
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    if case.sample.linear:
        assert prims, f"{case.prim.name} is declared linear but its tangent map is empty"


# --------------------------------------------------------------------------- (c) rule closure


@pytest.mark.parametrize("case", WITH_OPERANDS, ids=case_id)
def test_rules_bind_only_fully_ruled_primitives(case: Case) -> None:
    traces = case_traces(case.id)
    # Batching ran for at least one combination, and binds the primitive itself somewhere.
    assert any(case.prim in eqn_primitives(j) for j in traces.rules.values())
    assert traces.problems() == []


def synthesize(eqn: Any) -> tuple | None:
    """Operands for re-tracing an equation's primitive: literals as they are, ones for floats
    (inside every domain), zeros for integers (a valid index) and bools. None if an operand has
    no data (float0)."""
    ops = []
    for atom in eqn.inputs:
        if isinstance(atom, Literal):
            ops.append(atom.val)
            continue
        aval = atom.aval
        if aval.dtype == float0:
            return None
        fill = 1 if aval.dtype.kind in "fc" else 0
        ops.append(np.full(aval.shape, fill, aval.dtype))
    return tuple(ops)


def test_closure_is_transitive() -> None:
    """Follow the primitives the rules bind, and the ones their rules bind, to a fixed point;
    one representative equation per primitive and operand dtype pattern is re-traced."""
    seen: set[tuple] = set()
    queue: list[Any] = []

    def enqueue(jaxprs: list[ClosedJaxpr]) -> None:
        for jaxpr in jaxprs:
            for eqn in jaxpr.eqns:
                key = (id(eqn.primitive), operand_pattern(eqn.inputs))
                if key not in seen:
                    seen.add(key)
                    queue.append(eqn)

    for case in WITH_OPERANDS:
        enqueue(case_traces(case.id).jaxprs())
    traced, problems = 0, []
    while queue:
        eqn = queue.pop()
        ops = synthesize(eqn)
        if ops is None or not ops:
            continue
        # a primitive with several results (sort) is traced once per result
        funs: list[Callable[..., Any] | None] = [None]
        if eqn.primitive.multiple_results:
            funs = [functools.partial(one_result, eqn.primitive, eqn.params, k)
                    for k in range(len(eqn.outs))]
        for fun in funs:
            try:
                traces = RuleTraces(eqn.primitive, ops, eqn.params, fun=fun)
            except Exception as e:  # any failure to trace a rule is a finding
                problems.append(f"{eqn.primitive.name} at "
                                f"{[get_aval(o).str_short() for o in ops]} {eqn.params}: "
                                f"{type(e).__name__}: {e}")
                continue
            traced += 1
            problems += traces.problems()
            enqueue(traces.jaxprs())
    assert sorted(set(problems)) == []
    # The walk reached beyond the records: it re-traced more than one equation per record.
    assert traced > len({id(c.prim) for c in WITH_OPERANDS})


def one_result(prim: Primitive, params: dict, k: int, *ops: Any) -> Any:
    return prim.bind(*ops, **params)[k]


def operand_pattern(inputs: list[Any]) -> tuple[str, ...]:
    """The operands' dtype kinds; of a variadic primitive's many operands, the first four and
    "...": sort's JVP sorts the tangents beside the operands (2n operands), whose JVP sorts
    4n, and so on, so a key with every operand would never reach a fixed point, while the
    rules run the same code for any number of operands past a few."""
    kinds = tuple(get_aval_kind(a) for a in inputs)
    return kinds if len(kinds) <= 4 else (*kinds[:4], "...")


def get_aval_kind(atom: Any) -> str:
    return atom.aval.dtype.kind if atom.aval.dtype != float0 else "float0"


@pytest.mark.parametrize("case", WITH_OPERANDS, ids=case_id)
def test_rule_parameters_are_hashable(case: Case) -> None:
    """docs/design.md, section 7.1: the parameters of every equation the rules bind are
    hashable (tuples, not lists), so equal binds make equal equations."""
    unhashable = []
    for jaxpr in case_traces(case.id).jaxprs():
        for eqn in jaxpr.eqns:
            try:
                hash(tuple(eqn.params.items()))
            except TypeError:
                unhashable.append(f"{eqn.primitive.name} {eqn.params}")
    assert unhashable == []


# --------------------------------------------------------------------------- (d) jit


def nested_primitives(jaxpr: ClosedJaxpr) -> set[Primitive]:
    """The primitives of a program and of every program a ``jit`` call in it holds."""
    found = set()
    for e in jaxpr.eqns:
        found.add(e.primitive)
        for v in e.params.values():
            if isinstance(v, ClosedJaxpr):
                found |= nested_primitives(v)
    return found


def test_jit_has_a_full_rule_set() -> None:
    from minigrad.staging import jit_p

    assert missing_rules(jit_p, need_transpose=True) == []


@pytest.mark.parametrize("sample", samples_for("jit"), ids=lambda s: s.name)
def test_jit_rules_bind_only_fully_ruled_primitives(sample: Any) -> None:
    """The programs jit's rules derive (JVP, partial evaluation, transpose, batching) hold only
    primitives with full rule sets, and the linear ones transpose: so every transform of a
    jitted function can be transformed again."""
    ops = sample.make(np.random.default_rng(0))
    f = sample.function(None)
    diff = sample.diff

    def g(*xs: Any) -> Any:
        full = list(ops)
        for i, x in zip(diff, xs, strict=True):
            full[i] = x
        return f(*full)

    primals = [ops[i] for i in diff]
    programs = [mg.make_jaxpr(mg.vmap(f))(*[np.stack([o, o]) for o in ops])]
    if diff:
        out = g(*primals)
        programs += [mg.make_jaxpr(lambda *a: mg.jvp(g, a, a)[1])(*primals),
                     mg.make_jaxpr(lambda *a: mg.vjp(g, *a)[1](out))(*primals)]
        linear = mg.linearize(g, *primals)[1].jaxpr
        for prim in nested_primitives(linear):
            assert missing_rules(prim, need_transpose=True) == [], prim.name
    for program in programs:
        for prim in nested_primitives(program):
            assert missing_rules(prim, need_transpose=False) == [], prim.name

"""jit's passes beyond cse, fold and simplify (tests/test_passes.py): broadcast operands,
inlining and in-place reuse, on hand-written programs; and the whole pipeline, ``optimize``, on
random programs (the fuzz programs of test_fuzz.py and their grad, vmap(grad) and jvp programs),
whose values every pass, and all of them in order, preserve, without writing an argument.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
from hypothesis import given, note
from test_fuzz import F32, F64, SEEDS, fuzz_settings, make_program, run

import minigrad as mg
from minigrad import numpy as mnp
from minigrad.jaxpr import ClosedJaxpr, dce_closed, eval_jaxpr
from minigrad.staging import jit
from minigrad.staging.passes import (
    PASSES,
    broadcast_operands,
    inline_calls,
    inplace,
    optimize,
)


def names(closed: ClosedJaxpr) -> list[str]:
    return [e.prim.name for e in closed.eqns]


def same_values(before: ClosedJaxpr, after: ClosedJaxpr, args: list[Any]) -> None:
    expected = eval_jaxpr(before.jaxpr, before.consts, *args)
    got = eval_jaxpr(after.jaxpr, after.consts, *[np.array(a) for a in args])
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert np.shape(g) == np.shape(e) and np.asarray(g).dtype == np.asarray(e).dtype
        np.testing.assert_array_equal(g, e)  # (-0.0 == 0.0: the one liberty simplify takes)


# --------------------------------------------------------------------------- each pass


def test_broadcast_operands() -> None:
    x = np.arange(6.0).reshape(2, 3)
    p = np.arange(3.0)
    closed = mg.make_jaxpr(lambda x: x * 2.0 + mnp.broadcast_to(p, (2, 3)))(x)
    out = broadcast_operands(closed)
    assert names(out) == ["mul", "add"]
    assert [e.inputs[1].aval.shape for e in out.eqns] == [(), (3,)]
    same_values(closed, out, [x])
    # (2, 1) -> (2, 3) is NumPy's rule too; (2,) into the leading axis of (2, 3) is not
    from minigrad.ops.structural import broadcast_in_dim_p

    col = np.arange(2.0)
    closed = mg.make_jaxpr(lambda x: x * broadcast_in_dim_p.bind(
        col, shape=(2, 3), broadcast_dimensions=(0,)) + mnp.broadcast_to(col[:, None], (2, 3)))(x)
    out = broadcast_operands(closed)
    assert names(out) == ["broadcast_in_dim", "mul", "add"]
    assert out.eqns[2].inputs[1].aval.shape == (2, 1)
    same_values(closed, out, [x])


def test_inline_calls() -> None:
    inner = jit(lambda x: mnp.sin(x) * 2.0)
    closed = mg.make_jaxpr(lambda x: inner(x) + inner(inner(x)))(np.ones(3))
    assert names(closed).count("jit") == 3
    out = inline_calls(closed)
    assert "jit" not in names(out) and names(out).count("sin") == 3
    defined = [v for e in out.eqns for v in e.outs]
    assert len(defined) == len({id(v) for v in defined})  # no variable is defined twice
    same_values(closed, out, [np.linspace(0, 1, 3)])


def test_inplace_marks_dead_buffers_only() -> None:
    def f(x: Any, i: Any) -> Any:
        y = x * 2.0                       # fresh, dead after index_fill: written in place
        z = mg.index_fill(y, 0, i, 0.0)
        w = mnp.sin(z)                    # read twice below: not written by index_fill
        return mg.index_fill(w, 0, i, 1.0) + w

    closed = mg.make_jaxpr(f)(np.ones(4), np.array([1]))
    out, avoided = inplace(closed)
    # sin writes into z (dead after it); w is read twice more: index_fill copies it
    assert names(out) == ["broadcast_in_dim", "mul", "index_fill_", "sin_", "index_fill", "add_"]
    assert avoided == 3
    same_values(closed, out, [np.ones(4), np.array([1])])
    # an argument is written only when donated
    g = mg.make_jaxpr(lambda x, i: mg.index_fill(x, 0, i, 0.0))(np.ones(4), np.array([1]))
    assert names(inplace(g)[0]) == ["index_fill"]
    assert names(inplace(g, donate=(0,))[0]) == ["index_fill_"]


# --------------------------------------------------------------------------- random programs


def random_programs(seed: int, in_test: bool = True
                    ) -> list[tuple[str, ClosedJaxpr, list[Any]]]:
    """A fuzz program's jaxpr, and those of its grad, vmap(grad) and jvp."""
    rng = np.random.default_rng(seed)
    prog = make_program(rng)
    dtype = F32 if rng.random() < 0.3 else F64
    x, y, idx, mask = prog.inputs(seed, dtype)

    def f(*a: Any) -> Any:
        return run(prog, *a)

    def loss(v: Any) -> Any:
        return mnp.sum(mnp.sin(f(v, y, idx, mask)))

    xs = np.stack([x, x * 0.5])
    out: list[tuple[str, ClosedJaxpr, list[Any]]] = [
        ("f", mg.make_jaxpr(f)(x, y, idx, mask), [x, y, idx, mask]),
        ("grad", mg.make_jaxpr(mg.grad(loss))(x), [x]),
        ("vmap(grad)", mg.make_jaxpr(mg.vmap(mg.grad(loss)))(xs), [xs]),
        ("jvp", mg.make_jaxpr(lambda v, t: mg.jvp(lambda u: f(u, y, idx, mask), (v,), (t,)))(
            x, x), [x, x]),
    ]
    if in_test:
        note(repr(prog))
    return out


ALL: list[tuple[str, Callable[[ClosedJaxpr], ClosedJaxpr]]] = [
    *PASSES, ("inplace", lambda c: inplace(c)[0])]


@fuzz_settings(40)
@given(seed=SEEDS)
def test_every_pass_preserves_values_on_random_programs(seed: int) -> None:
    for what, closed, args in random_programs(seed):
        listing = str(closed)
        for name, run_pass in ALL:
            out = run_pass(closed)
            if name != "inline":
                assert len(out.eqns) <= len(closed.eqns), f"{name} on {what}"
            same_values(closed, out, args)
        optimized, _ = optimize(closed)
        same_values(closed, optimized, args)
        assert str(closed) == listing  # the passes never change their input
        # the in-place program never writes an argument
        copies = [np.array(a) for a in args]
        eval_jaxpr(optimized.jaxpr, optimized.consts, *copies)
        for a, c in zip(args, copies, strict=True):
            np.testing.assert_array_equal(a, c)


def test_the_passes_remove_work_from_transformed_programs() -> None:
    removed = []
    for seed in range(8):
        for what, closed, _ in random_programs(seed, in_test=False):
            if what in ("grad", "vmap(grad)"):
                removed.append(len(closed.eqns) - len(optimize(closed)[0].eqns))
    assert min(removed) >= 1  # every transformed program had something to remove
    assert sum(removed) > 3 * len(removed)


@pytest.mark.parametrize("name", [n for n, _ in PASSES])
def test_passes_are_pure_functions(name: str) -> None:
    run_pass = dict(PASSES)[name]
    closed = mg.make_jaxpr(lambda x: mnp.sin(x) * 1.0 + mnp.sin(x))(np.ones(3))
    listing, eqns = str(closed), list(closed.eqns)
    run_pass(closed)
    assert str(closed) == listing and closed.eqns == eqns
    assert dce_closed(closed).eqns == eqns

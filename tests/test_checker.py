"""The checker catches broken rules: seeded bugs, each a small primitive with one broken rule
that the eager checker before the staged column (commit 5cf6f45) passed in every column, and
the checker catches now, in the column of the broken rule: a JVP relying on NumPy's
broadcasting (bind runs the impl, never the shape rule); a transpose returning a cotangent with
an extra (1,) axis (the dot-product test broadcasts it); a batching rule that mistakes where
the batch axis is (it only ever saw the axis first or last); a JVP of the wrong dtype (finite
differences cannot see a dtype). Each has a correct twin that passes every column, so the
failure is the bug's. Also ``minigrad.jaxpr.typecheck`` on hand-broken programs, and
``raise_on_failure=False`` letting nothing escape.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg
from minigrad.core import Primitive, ShapedArray, UndefPrimal, Zero
from minigrad.jaxpr import Eqn, Jaxpr, Var, typecheck
from minigrad.ops.elementwise import exp, full_like, mul, neg, sin_p, sub, unary
from minigrad.ops.structural import broadcast_in_dim, reshape
from minigrad.testing import CheckResult, Sample, check_primitive
from minigrad.testing.checks import check_tangent, safe_batch_sizes, vmap_axes


def failed(results: list[CheckResult]) -> dict[str, str]:
    return {r.check: r.message for r in results if not r.passed}


def softplus(broken: bool) -> Primitive:
    """The page's ``softplus2`` (docs/adding-a-primitive.md): the broken JVP binds ``sub`` on a
    ``()`` one and a ``(2, 3)`` array, which NumPy broadcasts and sub's shape rule rejects."""
    def one(out: Any) -> Any:
        return np.ones((), out.dtype) if broken else full_like(out, 1)

    return unary(f"softplus_{'broken' if broken else 'ok'}",
                 lambda x: np.logaddexp(np.zeros((), x.dtype), x),
                 lambda t, x, out: mul(t, sub(one(out), exp(neg(out)))))


def double(broken: bool) -> Primitive:
    """``2 x``, linear; the broken transpose returns a cotangent with an extra (1,) axis."""
    p = Primitive(f"double_{'broken' if broken else 'ok'}")
    p.def_impl(lambda x: 2 * x)
    p.def_abstract_eval(lambda x: x)
    p.def_jvp(lambda primals, tangents: (p.bind(*primals), p.bind(tangents[0])))

    def transpose(ct: Any, x: Any) -> tuple:
        assert isinstance(x, UndefPrimal)
        out = p.bind(ct)
        return (reshape(out, (1, *x.aval.shape)) if broken else out,)

    p.def_transpose(transpose)
    p.def_batch(lambda axis_size, vals, dims: (p.bind(vals[0]), dims[0]))
    return p


def sum_axis(broken: bool) -> Primitive:
    """The sum over ``axis``. Batched at ``bdim``, the summed axis moves one on when the batch
    axis stands before it; the broken rule asks whether the batch axis is first instead, so it
    is right for a batch axis first or last and sums the batch axis when it is in between."""
    p = Primitive(f"sum_axis_{'broken' if broken else 'ok'}")
    p.def_impl(lambda x, *, axis: np.sum(x, axis=axis))
    p.def_abstract_eval(lambda x, *, axis: ShapedArray(x.shape[:axis] + x.shape[axis + 1:],
                                                       x.dtype))
    p.def_jvp(lambda primals, tangents, *, axis: (p.bind(*primals, axis=axis),
                                                  p.bind(tangents[0], axis=axis)))

    def transpose(ct: Any, x: Any, *, axis: int) -> tuple:
        # ct_x = ct broadcast along the summed axis
        kept = tuple(i for i in range(len(x.aval.shape)) if i != axis)
        return (broadcast_in_dim(ct, x.aval.shape, kept),)

    def batch(axis_size: int, vals: tuple, dims: tuple, *, axis: int) -> tuple:
        x, d = vals[0], dims[0]
        moved = axis + 1 if (d == 0 if broken else d <= axis) else axis
        return p.bind(x, axis=moved), d if d < moved else d - 1

    p.def_transpose(transpose)
    p.def_batch(batch)
    return p


def floor_int(broken: bool) -> Primitive:
    """``floor(x)`` as integers. An integer output has float0 tangents; the broken JVP returns
    zeros of x's dtype (the right values, the wrong type)."""
    p = Primitive(f"floor_int_{'broken' if broken else 'ok'}")
    p.def_impl(lambda x: np.floor(x).astype(np.int64))
    p.def_abstract_eval(lambda x: ShapedArray(x.shape, np.dtype(np.int64)))

    def jvp(primals: tuple, tangents: tuple) -> tuple:
        out = p.bind(*primals)
        zero = (mul(tangents[0], full_like(tangents[0], 0.0)) if broken
                else Zero(ShapedArray(out.shape, mg.float0)))
        return out, zero

    p.def_jvp(jvp)
    p.def_batch(lambda axis_size, vals, dims: (p.bind(vals[0]), dims[0]))
    return p


def sample(shape: tuple[int, ...], linear: bool = False, **params: Any) -> Sample:
    return Sample(f"{shape}", lambda rng: (rng.standard_normal(shape),), params, diff=(0,),
                  linear=((0,),) if linear else ())


# (maker, sample, {column the bug must fail: a phrase of its failure}). The samples are ones the
# old checker passed: softplus at (2, 3), whose last axis equals the old batch size 3.
SEEDED = [
    (softplus, sample((2, 3)), {"vmap(grad)": "shapes (4,) (4,2,3)",
                                "staged": "the jvp program: TypeError: sub: operands must"}),
    (double, sample((3,), linear=True), {"transpose(0,)": "f64[1,3]; it must be f64[3]",
                                         "staged": "cotangent of operand 0 is f64[1,3]"}),
    (sum_axis, sample((2, 3), linear=True, axis=1), {"vmap": "in_axes=(1,)",
                                                     "staged": "in_axes=(1,) size 5"}),
    (floor_int, sample((2, 3)), {"jvp": "f64[2,3]; it must be float0[2,3]",
                                 "staged": "tangent of output 0 is f64[2,3]"}),
]


@pytest.mark.parametrize(("maker", "s", "columns"), SEEDED, ids=[m.__name__ for m, *_ in SEEDED])
def test_a_seeded_bug_is_caught(maker: Callable[[bool], Primitive], s: Sample,
                                columns: dict[str, str]) -> None:
    assert not failed(check_primitive(maker(False), [s], raise_on_failure=False))
    bad = failed(check_primitive(maker(True), [s], raise_on_failure=False))
    assert set(columns) <= set(bad), bad
    for column, phrase in columns.items():
        assert phrase in bad[column], (column, bad[column])
    with pytest.raises(AssertionError, match=maker(True).name):
        check_primitive(maker(True), [s])


def test_the_batching_rule_sees_a_middle_batch_axis() -> None:
    ops = (np.zeros((2, 3)), np.zeros(4, np.int64), np.zeros(()))
    combos = vmap_axes(ops)  # axis 0 and -1 of the 0-d operand are one place: tried once
    assert (1, 0, 0) in combos and len(combos) == 3 * 3 * 2 - 1 + 1
    assert vmap_axes(ops[1:]) == [(None, 0), (0, None), (0, 0), (-1, None), (-1, 0)]
    assert (1,) not in vmap_axes(ops[1:2])


def test_the_batch_sizes_equal_no_operand_dimension() -> None:
    assert safe_batch_sizes([np.zeros((2, 3)), np.zeros(5)]) == (4, 6, 0)
    # the softplus bug: vmap(grad) broadcasts at batch size 3, the last axis, and fails at 4
    results = check_primitive(softplus(True), [sample((2, 3))], batch_sizes=(3, 0),
                              raise_on_failure=False, staged=False)
    assert failed(results) == {}
    results = check_primitive(softplus(True), [sample((2, 3))], raise_on_failure=False,
                              staged=False)
    assert "shapes (4,) (4,2,3)" in failed(results)["vmap(grad)"]


def test_tangent_avals() -> None:
    check_tangent(np.zeros(3), np.ones(3), "t")
    check_tangent(np.zeros(3, mg.float0), np.arange(3), "t")  # an integer operand: float0
    check_tangent(Zero(ShapedArray((3,), np.dtype(np.float32))), np.ones(3, np.float32), "t")
    with pytest.raises(AssertionError, match="t is f32\\[3\\]; it must be f64\\[3\\]"):
        check_tangent(np.zeros(3, np.float32), np.ones(3), "t")
    with pytest.raises(AssertionError, match="it must be f64\\[3\\]"):
        check_tangent(np.zeros((1, 3)), np.ones(3), "t")


def test_nothing_escapes_raise_on_failure_false() -> None:
    def broken_make(rng: np.random.Generator) -> tuple:
        raise RuntimeError("cannot draw")

    results = check_primitive(sin_p, [Sample("broken", broken_make, diff=(0,))],
                              raise_on_failure=False)
    assert [(r.check, r.passed) for r in results] == [("setup", False)]
    assert "RuntimeError: cannot draw" in results[0].message


def test_a_raising_rule_is_a_failed_row_in_each_column() -> None:
    """Rules that raise (not AssertionError) fail their columns, by name, and nothing escapes."""
    p = Primitive("raises")
    p.def_impl(lambda x: 2 * x)
    p.def_abstract_eval(lambda x: x)

    def jvp(primals: tuple, tangents: tuple) -> tuple:
        raise RuntimeError("no jvp")

    def transpose(ct: Any, x: Any) -> tuple:
        raise KeyError("no transpose")

    def batch(axis_size: int, vals: tuple, dims: tuple) -> tuple:
        raise ZeroDivisionError("no batching")

    p.def_jvp(jvp)
    p.def_transpose(transpose)
    p.def_batch(batch)
    results = check_primitive(p, [sample((2, 3), linear=True)], raise_on_failure=False)
    bad = failed(results)
    assert set(bad) == {"jvp", "transpose(0,)", "vmap", "vmap(grad)", "grad(grad)", "staged"}
    assert "RuntimeError: no jvp" in bad["jvp"] and "KeyError" in bad["transpose(0,)"]
    assert "ZeroDivisionError: no batching" in bad["vmap"]
    assert {r.sample for r in results} == {"(2, 3)"}
    with pytest.raises(TypeError, match="check_primitive: prim must be a minigrad Primitive"):
        check_primitive("sin", [])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"samples must be minigrad\.testing\.Sample objects"):
        check_primitive(p, [("x",)])  # type: ignore[list-item]


# --------------------------------------------------------------------------- typecheck


def program() -> tuple[Jaxpr, Var, Var]:
    x = Var(ShapedArray((3,), np.dtype(np.float64)))
    y = Var(ShapedArray((3,), np.dtype(np.float64)))
    return Jaxpr([], [x], [Eqn(sin_p, [x], {}, [y])], [y]), x, y


def test_typecheck_accepts_staged_programs() -> None:
    def f(x: Any) -> Any:
        h = mg.index_add(x, 0, np.array([0, 0]), x[:2] ** 2)
        return mg.numpy.sum(mg.numpy.sin(h))

    typecheck(mg.make_jaxpr(mg.vmap(mg.grad(f)))(np.ones((4, 3))))
    typecheck(mg.make_jaxpr(mg.jit(mg.grad(f)))(np.ones(3)))  # a nested program
    typecheck(program()[0])


def test_typecheck_rejects_broken_programs() -> None:
    _, x, y = program()
    wrong = Var(ShapedArray((4,), np.dtype(np.float64)))
    with pytest.raises(TypeError, match="the shape rule gives f64\\[3\\]"):
        typecheck(Jaxpr([], [x], [Eqn(sin_p, [x], {}, [wrong])], [wrong]))
    with pytest.raises(TypeError, match="reads a variable before it is defined"):
        typecheck(Jaxpr([], [x], [Eqn(sin_p, [y], {}, [y])], [y]))
    with pytest.raises(TypeError, match="a second time"):
        typecheck(Jaxpr([], [x], [Eqn(sin_p, [x], {}, [x])], [x]))
    with pytest.raises(TypeError, match="output 0 is never defined"):
        typecheck(Jaxpr([], [x], [], [y]))
    mul_p = mg.make_jaxpr(lambda a: a * a)(np.ones(3)).eqns[0].prim
    bad = Var(ShapedArray((2,), np.dtype(np.float64)))
    with pytest.raises(TypeError, match="the shape rule rejects its operands"):
        typecheck(Jaxpr([], [x, bad], [Eqn(mul_p, [x, bad], {}, [y])], [y]))
    # inside a jit call's program
    closed = mg.make_jaxpr(mg.jit(lambda a: mg.numpy.sin(a)))(np.ones(3))
    inner = next(p for p in closed.eqns[0].params.values() if hasattr(p, "jaxpr"))
    inner.jaxpr.eqns[0].outs[0] = wrong
    with pytest.raises(TypeError, match="in the program of equation 0 \\(jit\\): equation 0 "
                                        "`_:f64\\[4\\] = sin a`: the shape rule gives"):
        typecheck(closed)

"""The checker catches broken rules: seeded bugs, each a small primitive with one broken rule
of a kind an eager check misses (bind runs the impl and never the shape rule; NumPy
broadcasts; the dot-product test broadcasts a cotangent of the wrong shape; finite differences
cannot see a tangent's dtype; a batch size equal to an operand dimension hides a mistaken
axis). Each must fail in the column of the rule that is broken, not only in a later composite
such as ``grad(grad)``; its correct twin passes every column, so the failure is the bug's.
Also ``minigrad.jaxpr.typecheck`` on hand-broken programs, and ``raise_on_failure=False``
letting nothing escape.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg
from minigrad.core import Primitive, ShapedArray, UndefPrimal, Zero
from minigrad.jaxpr import Eqn, Jaxpr, Var, typecheck
from minigrad.ops.elementwise import convert_element_type, cos, full_like, mul, sin_p
from minigrad.ops.structural import broadcast_in_dim, moveaxis, reshape
from minigrad.testing import CheckResult, Sample, check_primitive
from minigrad.testing.checks import check_tangent, safe_batch_sizes


def failed(results: list[CheckResult]) -> dict[str, str]:
    return {r.check: r.message for r in results if not r.passed}


def scale2(broken: bool) -> Primitive:
    """``2 x``; the broken JVP multiplies the tangent by a 0-d 2 (broadcasting)."""
    p = Primitive(f"scale2_{'broken' if broken else 'ok'}")
    p.def_impl(lambda x: 2 * x)
    p.def_abstract_eval(lambda x: x)
    two: Callable[[Any], Any] = ((lambda t: np.full((), 2.0, t.dtype)) if broken
                                 else (lambda t: full_like(t, 2.0)))
    p.def_jvp(lambda primals, tangents: (p.bind(*primals), mul(tangents[0], two(tangents[0]))))
    p.def_transpose(lambda ct, x: (mul(ct, two(ct)),))
    p.def_batch(lambda axis_size, vals, dims: (p.bind(vals[0]), dims[0]))
    return p


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


def rowsum(broken: bool) -> Primitive:
    """The sum over the last axis; the broken batching rule takes the batch axis to be the
    first, wherever it is."""
    p = Primitive(f"rowsum_{'broken' if broken else 'ok'}")
    p.def_impl(lambda x: np.sum(x, axis=-1))
    p.def_abstract_eval(lambda x: ShapedArray(x.shape[:-1], x.dtype))
    p.def_jvp(lambda primals, tangents: (p.bind(*primals), p.bind(tangents[0])))

    def batch(axis_size: int, vals: tuple, dims: tuple) -> tuple:
        x, d = vals[0], dims[0]
        return p.bind(x if broken else moveaxis(x, d, 0)), 0

    p.def_batch(batch)
    p.def_transpose(lambda ct, x: (broadcast_in_dim(ct, x.aval.shape,
                                                    tuple(range(len(x.aval.shape) - 1))),))
    return p


def sin_f32_tangent(broken: bool) -> Primitive:
    """``sin``; the broken JVP returns its tangent in float32 whatever the primal's dtype (the
    values agree with finite differences to float32's precision, within the tolerance)."""
    p = Primitive(f"sin_{'broken' if broken else 'ok'}")
    p.def_impl(np.sin)
    p.def_abstract_eval(lambda x: x)

    def jvp(primals: tuple, tangents: tuple) -> tuple:
        (x,), (t,) = primals, tangents
        out = mul(t, cos(x))
        return p.bind(x), convert_element_type(out, np.float32) if broken else out

    p.def_jvp(jvp)
    p.def_batch(lambda axis_size, vals, dims: (p.bind(vals[0]), dims[0]))
    return p


def sample(shape: tuple[int, ...], linear: bool = False) -> Sample:
    return Sample(f"{shape}", lambda rng: (rng.standard_normal(shape),), diff=(0,),
                  linear=((0,),) if linear else ())


# (maker, sample, the columns the bug must fail, a phrase of the failure)
SEEDED = [
    (scale2, sample((2, 3)), {"staged"}, "mul: operands must have equal shapes"),
    (double, sample((3,), linear=True), {"transpose(0,)"}, "must be f64[3]"),
    (rowsum, sample((2, 3), linear=True), {"vmap"}, ""),
    (sin_f32_tangent, sample((2, 3)), {"jvp", "staged"}, "must be f64[2,3]"),
]


@pytest.mark.parametrize(("maker", "s", "columns", "phrase"), SEEDED,
                         ids=[m.__name__ for m, *_ in SEEDED])
def test_a_seeded_bug_is_caught(maker: Callable[[bool], Primitive], s: Sample, columns: set,
                                phrase: str) -> None:
    assert not failed(check_primitive(maker(False), [s], raise_on_failure=False))
    bad = failed(check_primitive(maker(True), [s], raise_on_failure=False))
    assert columns <= set(bad), bad
    assert all(phrase in bad[c] for c in columns if c != "vmap"), bad
    with pytest.raises(AssertionError, match=maker(True).name.split("_")[0]):
        check_primitive(maker(True), [s])


def test_the_batch_sizes_equal_no_operand_dimension() -> None:
    assert safe_batch_sizes([np.zeros((2, 3)), np.zeros(5)]) == (4, 6, 0)
    # the rowsum bug at a batch size equal to the summed axis: shapes agree, values do not
    r = check_primitive(rowsum(True), [sample((3, 3), linear=True)], raise_on_failure=False)
    assert "vmap" in failed(r)


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
    with pytest.raises(TypeError, match="an output is never defined"):
        typecheck(Jaxpr([], [x], [], [y]))
    mul_p = mg.make_jaxpr(lambda a: a * a)(np.ones(3)).eqns[0].prim
    bad = Var(ShapedArray((2,), np.dtype(np.float64)))
    with pytest.raises(TypeError, match="the shape rule rejects its operands"):
        typecheck(Jaxpr([], [x, bad], [Eqn(mul_p, [x, bad], {}, [y])], [y]))
    # inside a jit call's program
    closed = mg.make_jaxpr(mg.jit(lambda a: mg.numpy.sin(a)))(np.ones(3))
    inner = next(p for p in closed.eqns[0].params.values() if hasattr(p, "jaxpr"))
    inner.jaxpr.eqns[0].outs[0] = wrong
    with pytest.raises(TypeError, match="the shape rule gives"):
        typecheck(closed)

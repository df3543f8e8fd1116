"""jit: the cache, static and donated arguments, the call primitive under every transform, the
executor's generated code, in-place reuse and its aliasing rules.

Every property compares the jitted route with the un-jitted one on random programs (the fuzz
programs of test_fuzz.py: the five ops, reshapes, transposes, reductions, indices with repeats,
masks) and on the op records.
"""

from __future__ import annotations

import collections
import traceback
import tracemalloc
from typing import Any, Callable, NamedTuple

import numpy as np
import pytest
from hypothesis import given, note
from records import CASES, Case
from test_fuzz import F32, F64, SEEDS, assert_close, fuzz_settings, make_program, run

import minigrad as mg
from minigrad import numpy as mnp
from minigrad.core import ConcretizationError
from minigrad.staging import jit_p
from minigrad.testing.checks import results_of


class Pair(NamedTuple):
    first: Any
    second: Any


def jit_eqns(closed: Any) -> list[Any]:
    return [e for e in closed.eqns if e.prim is jit_p]


# --------------------------------------------------------------------------- the cache


def test_one_trace_per_signature() -> None:
    calls: list[tuple] = []

    @mg.jit
    def f(x: Any, y: Any) -> Any:
        calls.append((x.shape, x.dtype))  # a Python side effect: at trace time only
        return mnp.sin(x) * y

    x = np.arange(3.0)
    np.testing.assert_array_equal(f(x, 2.0), np.sin(x) * 2.0)
    np.testing.assert_array_equal(f(x + 1, 3.0), np.sin(x + 1) * 3.0)  # new values: no trace
    assert f.traces == 1 and len(calls) == 1
    f(np.arange(4.0), 2.0)  # a new shape
    f(np.arange(3, dtype=np.float32), 2.0)  # a new dtype
    f(x, np.float32(2.0))  # a new dtype of the second argument
    f(x, y=2.0)  # a new tree (a keyword argument)
    assert f.traces == 5 and len(calls) == 5
    f(np.arange(4.0) + 7, 1.0)
    assert f.traces == 5


def test_repeated_calls_with_containers_reuse_the_trace_and_return_arrays() -> None:
    # calls after the first take the fast path (tuples, lists and dicts of ndarrays or Arrays):
    # the same values, the same trees, minigrad Arrays, and no new trace
    @mg.jit
    def f(params: Any, xs: Any) -> Any:
        w, b = params
        return {"y": xs["a"] * w + b, "pair": [xs["a"].sum(), b]}

    w, b, a = np.array(2.0), np.arange(3.0), np.arange(3.0) + 1
    expected = {"y": a * w + b, "pair": [a.sum(), b]}
    for params in [(w, b), (w.view(mg.Array), b), (w, b.view(mg.Array))]:
        for _ in range(3):
            out = f(params, {"a": a})
            assert isinstance(out, dict) and isinstance(out["pair"], list)
            for got, want in zip([out["y"], *out["pair"]], [expected["y"], *expected["pair"]],
                                 strict=True):
                assert type(got) is mg.Array
                np.testing.assert_array_equal(got, want)
            assert out["pair"][1] is not b  # (results never alias arguments)
    assert f.traces == 1
    f([w, b], {"a": a})  # a list is another tree than a tuple
    assert f.traces == 2
    f((w, b), {"a": a, "c": a})  # other keys
    f((w, b[:2]), {"a": a[:2]})  # other shapes
    f((w, b.astype(np.float32)), {"a": a})  # another dtype
    assert f.traces == 5
    f((w, b), {"a": a})
    assert f.traces == 5
    g = mg.jit(lambda x: x + 1)
    for x in [np.zeros(2), np.zeros(2), np.zeros(2).view(mg.Array)]:
        assert type(g(x)) is mg.Array


@pytest.mark.parametrize("make", [
    lambda x: x, lambda x: (x,), lambda x: [x, (x + 1, None)], lambda x: (),
    lambda x: {"b": x, "a b": [x * 2], "": None},
    lambda x: Pair(x, {"k": x + 1}), lambda x: collections.OrderedDict(z=x, a=x + 1)])
def test_the_fast_path_rebuilds_every_output_tree(make: Callable[[Any], Any]) -> None:
    # the fast path's results in their tree (a generated expression for tuples, lists, dicts
    # and None; tree_unflatten for the others), each leaf an Array, as the first call's
    f = mg.jit(make)
    x = np.arange(3.0)
    first, again = f(x), f(x)
    want_leaves, want_tree = mg.tree_util.tree_flatten(make(x))
    for out in (first, again):
        leaves, tree = mg.tree_util.tree_flatten(out)
        assert tree == want_tree
        for got, want in zip(leaves, want_leaves, strict=True):
            assert type(got) is mg.Array
            np.testing.assert_array_equal(got, want)
    assert f.traces == 1


def test_repeated_calls_that_update_a_container_argument_write_it_back() -> None:
    def f(params: tuple) -> Any:
        x, y = params
        mg.index_add_(x, 0, np.array([0]), np.array([1.0]))
        return y * 2

    jf = mg.jit(f)
    x, y = np.zeros(2), np.ones(2)
    for k in range(1, 4):
        np.testing.assert_array_equal(jf((x, y)), 2 * y)
        assert x[0] == k  # written back on every call, fast path or not


def test_static_arguments() -> None:
    traced: list[int] = []

    @mg.jit(static_argnums=1)
    def power(x: Any, n: int) -> Any:
        traced.append(n)
        out = x
        for _ in range(n - 1):  # Python control flow on a static value
            out = out * x
        return out

    x = np.array([1.0, 2.0])
    np.testing.assert_array_equal(power(x, 3), x ** 3)
    np.testing.assert_array_equal(power(x, 3), x ** 3)
    first = mg.jit(lambda n, x: x * n if n > 1 else x, static_argnums=0)  # argument 0 static
    np.testing.assert_array_equal(first(3, x), 3 * x)
    np.testing.assert_array_equal(power(x, 2), x ** 2)
    np.testing.assert_array_equal(power(x, n=2), x ** 2)  # static by name too, as in JAX
    assert traced == [3, 2, 2]  # by position and by name are different trees

    @mg.jit(static_argnames="mode")
    def g(x: Any, mode: str = "sin") -> Any:
        return mnp.sin(x) if mode == "sin" else mnp.cos(x)

    np.testing.assert_array_equal(g(x, mode="cos"), np.cos(x))
    np.testing.assert_array_equal(g(x), np.sin(x))


def test_static_argument_must_be_hashable() -> None:
    f = mg.jit(lambda x, shape: mnp.reshape(x, shape), static_argnums=1)
    np.testing.assert_array_equal(f(np.arange(6.0), (2, 3)), np.arange(6.0).reshape(2, 3))
    with pytest.raises(TypeError, match=r"static argument args\[1\] must be hashable.*list"):
        f(np.arange(6.0), [2, 3])


def test_control_flow_on_a_traced_value_names_the_fixes() -> None:
    f = mg.jit(lambda x: x if x.sum() > 0 else -x)
    with pytest.raises(ConcretizationError, match=r"static_argnums.*minigrad.numpy.where|"
                                                  r"minigrad.numpy.where.*static_argnums"):
        f(np.ones(3))


def test_bad_arguments() -> None:
    with pytest.raises(TypeError, match="jit: fun must be a callable"):
        mg.jit(3)
    with pytest.raises(TypeError, match="static_argnums must be an int"):
        mg.jit(lambda x: x, static_argnums="x")
    with pytest.raises(ValueError, match="both static and donated"):
        mg.jit(lambda x: x, static_argnums=0, donate_argnums=0)
    with pytest.raises(ValueError, match="argnums entry 2 is out of range"):
        mg.jit(lambda x: x, static_argnums=2)
    with pytest.raises(TypeError, match=r"jit\(lambda\): args\[0\] must be an array"):
        mg.jit(lambda x: x)("a")


def test_pytrees_in_and_out() -> None:
    @mg.jit
    def f(params: dict, xs: list) -> Any:
        return {"sum": params["w"] * xs[0] + params["b"], "pair": (xs[1], mnp.sin(xs[1]))}

    p = {"w": np.array(2.0), "b": np.ones(3)}
    xs = [np.arange(3.0), np.arange(2.0)]
    out = f(p, xs)
    np.testing.assert_array_equal(out["sum"], 2.0 * np.arange(3.0) + 1)
    np.testing.assert_array_equal(out["pair"][1], np.sin(np.arange(2.0)))
    assert out["pair"][0] is not xs[1]  # a jitted function's results never alias its arguments


# --------------------------------------------------------------------------- the primitive


def test_make_jaxpr_shows_one_call_with_its_program() -> None:
    f = mg.jit(lambda x: (mnp.sin(x), x.sum()))
    closed = mg.make_jaxpr(f)(np.ones(3))
    assert [e.prim.name for e in closed.eqns] == ["jit"]
    text = str(closed)
    assert "b:f64[3] c:f64[] = jit[" in text and "sin" in text and "reduce_sum" in text
    assert "name=lambda" in text


def test_closed_over_tracers_are_operands() -> None:
    # jit inside grad, closing over the outer variable: its derivative flows through the call
    def outer(y: Any) -> Any:
        return mg.jit(lambda x: (x * y).sum())(np.arange(3.0))

    np.testing.assert_allclose(mg.grad(outer)(np.array(2.0)), 3.0)
    np.testing.assert_allclose(mg.vmap(outer)(np.arange(2.0)), [0.0, 3.0])


def test_nested_jit() -> None:
    inner = mg.jit(lambda x: mnp.sin(x) * 2.0)
    outer = mg.jit(lambda x: inner(x) + inner(x * 3.0))
    x = np.linspace(-1, 1, 5)
    np.testing.assert_array_equal(outer(x), np.sin(x) * 2.0 + np.sin(x * 3.0) * 2.0)
    closed = mg.make_jaxpr(outer)(x)
    assert len(jit_eqns(closed)) == 1 and len(jit_eqns(jit_eqns(closed)[0].params["jaxpr"])) == 2
    # inlined when compiled: no call is left in the optimized program
    assert not jit_eqns(outer.lower(x).jaxpr)
    np.testing.assert_allclose(mg.grad(lambda x: outer(x).sum())(x),
                               2 * np.cos(x) + 6 * np.cos(3 * x), rtol=1e-13)


def _workload_like(x: Any, idx: Any, mask: Any) -> Any:
    h = mg.index_add(x * 2.0, 0, idx, mnp.sin(x[:2]))
    h = mg.masked_fill(h, mask, 0.5)
    h = mg.index_copy(h, 0, idx[:1], mnp.cos(h[1:2]))
    return (h * h).sum()


def test_every_transform_of_jit_and_jit_of_every_transform() -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3))
    idx = np.array([2, 2])
    mask = rng.random((4, 3)) < 0.5
    f = _workload_like
    jf = mg.jit(f)
    g = mg.grad(f)(x, idx, mask)
    np.testing.assert_array_equal(jf(x, idx, mask), f(x, idx, mask))
    np.testing.assert_allclose(mg.grad(jf)(x, idx, mask), g, rtol=1e-14)
    np.testing.assert_allclose(mg.jit(mg.grad(f))(x, idx, mask), g, rtol=1e-14)
    xs = np.stack([x, x + 1, x * 2])
    per_example = mg.vmap(mg.grad(f), (0, None, None))(xs, idx, mask)
    for route in (mg.vmap(mg.grad(jf), (0, None, None)),
                  mg.jit(mg.vmap(mg.grad(f), (0, None, None))),
                  mg.vmap(mg.jit(mg.grad(f)), (0, None, None)),
                  mg.jit(mg.vmap(mg.grad(jf), (0, None, None)))):
        np.testing.assert_allclose(route(xs, idx, mask), per_example, rtol=1e-14)
    t = rng.standard_normal(x.shape)
    expected = mg.jvp(lambda v: f(v, idx, mask), (x,), (t,))
    got = mg.jvp(lambda v: jf(v, idx, mask), (x,), (t,))
    np.testing.assert_allclose(got, expected, rtol=1e-14)
    _, f_jvp = mg.linearize(lambda v: jf(v, idx, mask), x)
    np.testing.assert_allclose(f_jvp(t), expected[1], rtol=1e-14)
    _, f_vjp = mg.vjp(lambda v: jf(v, idx, mask), x)
    np.testing.assert_allclose(f_vjp(np.array(1.0))[0], g, rtol=1e-14)
    hj = mg.hessian(lambda v: mg.jit(f)(v, np.array([1, 1]), mask[:2, :2]))(x[:2, :2].copy())
    hf = mg.hessian(lambda v: f(v, np.array([1, 1]), mask[:2, :2]))(x[:2, :2].copy())
    assert hj.shape == (2, 2, 2, 2)
    np.testing.assert_allclose(hj, hf, rtol=1e-13)
    # vmap of jit over a batched index and mask (the fold paths of the batching rules)
    idxs = np.array([[0, 3], [1, 1], [2, 0]])
    masks = rng.random((3, 4, 3)) < 0.5
    np.testing.assert_allclose(mg.vmap(mg.grad(jf))(xs, idxs, masks),
                               mg.vmap(mg.grad(f))(xs, idxs, masks), rtol=1e-14)


def test_linearize_runs_the_primal_part_now() -> None:
    f = mg.jit(lambda x: mnp.sin(x) * mnp.cos(x))
    _, f_jvp = mg.linearize(f, np.ones(3))
    # the linear program holds one call: the tangent part, taking the residuals
    (call,) = jit_eqns(f_jvp.jaxpr)
    names = {e.prim.name for e in call.params["jaxpr"].eqns}
    assert "sin" not in names and "cos" not in names and "mul" in names


@fuzz_settings(60)
@given(seed=SEEDS)
def test_jit_equals_the_function_on_random_programs(seed: int) -> None:
    """jit(f) == f bit for bit; grad, vmap(grad), jvp and linearize through jit, and jit of
    them, equal the un-jitted routes; no argument is written; no result aliases one."""
    rng = np.random.default_rng(seed)
    prog = make_program(rng)
    dtype = F32 if rng.random() < 0.3 else F64
    note(f"{prog!r}\n{dtype}")
    x, y, idx, mask = prog.inputs(seed, dtype)
    saved = [a.copy() for a in (x, y, idx, mask)]

    def f(*a: Any) -> Any:
        return run(prog, *a)

    jf = mg.jit(f)
    out = jf(x, y, idx, mask)
    np.testing.assert_array_equal(out, np.asarray(f(x, y, idx, mask)))
    assert out.dtype == dtype and out.shape == prog.out_shape
    assert not any(np.may_share_memory(out, a) for a in (x, y, idx, mask))

    def loss(v: Any) -> Any:
        return mnp.sum(mnp.sin(f(v, y, idx, mask)))

    def loss_j(v: Any) -> Any:
        return mnp.sum(mnp.sin(jf(v, y, idx, mask)))

    g = mg.grad(loss)(x)
    assert_close(mg.grad(loss_j)(x), g, dtype, "grad(jit(f))")
    assert_close(mg.jit(mg.grad(loss))(x), g, dtype, "jit(grad(f))")
    xs = np.stack([x, x * 0.5])
    per = mg.vmap(mg.grad(loss))(xs)
    assert_close(mg.vmap(mg.grad(loss_j))(xs), per, dtype, "vmap(grad(jit(f)))")
    assert_close(mg.jit(mg.vmap(mg.grad(loss)))(xs), per, dtype, "jit(vmap(grad(f)))")
    t = np.random.default_rng(seed + 1).standard_normal(x.shape).astype(dtype)
    _, tan = mg.jvp(lambda v: f(v, y, idx, mask), (x,), (t,))
    _, tan_j = mg.jvp(lambda v: jf(v, y, idx, mask), (x,), (t,))
    assert_close(tan_j, tan, dtype, "jvp(jit(f))")
    _, f_lin = mg.linearize(lambda v: jf(v, y, idx, mask), x)
    assert_close(f_lin(t), tan, dtype, "linearize(jit(f))")
    for a, b in zip((x, y, idx, mask), saved, strict=True):
        np.testing.assert_array_equal(a, b)  # no argument was written


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_every_primitive_compiles_and_runs(case: Case) -> None:
    ops = case.sample.make(np.random.default_rng(0))
    f = case.sample.function(case.prim)  # (the bind, or an op sample's function: one result)
    expected = f(*ops)
    jf = mg.jit(f)
    lowered = jf.lower(*ops)
    compile(lowered.as_text(), "<check>", "exec")  # the source is valid Python
    got = jf(*ops)
    for g, e in zip(results_of(got), results_of(expected), strict=True):
        np.testing.assert_array_equal(g, e)
        assert g.dtype == e.dtype
    if ops:  # the batching rule of the call: vmap of jit == vmap
        batched = [np.stack([o, o]) for o in ops]
        for g, e in zip(results_of(mg.vmap(jf)(*batched)), results_of(mg.vmap(f)(*batched)),
                        strict=True):
            np.testing.assert_array_equal(g, e)


# --------------------------------------------------------------------------- checks at run time


def test_bad_index_raises_on_every_call() -> None:
    f = mg.jit(lambda x, i: mg.index_add(x * 2.0, 0, i, mnp.ones(2)))
    x = np.zeros(4)
    np.testing.assert_array_equal(f(x, np.array([0, 3])), [1.0, 0, 0, 1.0])
    for _ in range(2):
        with pytest.raises(IndexError, match="index_add"):
            f(x, np.array([0, 4]))
        with pytest.raises(IndexError, match="index_add"):
            f(x, np.array([0, -1]))
    np.testing.assert_array_equal(x, 0.0)


def test_traceback_shows_the_generated_line() -> None:
    f = mg.jit(lambda x, i: mg.index_fill(mnp.sin(x), 0, i, 1.0))
    with pytest.raises(IndexError) as info:
        f(np.zeros(3), np.array([5]))
    text = "".join(traceback.format_exception(info.value))
    assert "<minigrad.jit lambda" in text and "index_fill_" in text


# --------------------------------------------------------------------------- in-place reuse


def test_dead_intermediate_is_updated_in_place() -> None:
    f = mg.jit(lambda x, i, s: mg.index_add(x * 2.0, 0, i, s))
    x, i, s = np.zeros(5), np.array([1, 1, 3]), np.array([1.0, 2.0, 3.0])
    source = f.lower(x, i, s).as_text()
    assert "= index_add_[dim=0 " in source  # the in-place form, in the line's comment
    assert f.lower(x, i, s).stats["inplace"] >= 1
    np.testing.assert_array_equal(f(x, i, s), [0, 3, 0, 3, 0])


def test_an_argument_is_not_written_without_donation() -> None:
    f = mg.jit(lambda x, i, s: mg.index_add(x, 0, i, s))
    x, i, s = np.zeros(5), np.array([1, 1, 3]), np.array([1.0, 2.0, 3.0])
    assert f.lower(x, i, s).stats["inplace"] == 0
    out = f(x, i, s)
    np.testing.assert_array_equal(x, 0.0)
    np.testing.assert_array_equal(out, [0, 3, 0, 3, 0])


def test_a_live_view_keeps_its_buffer() -> None:
    # y's buffer is read later through a reshape (a view): it must not be written in place
    def f(x: Any, i: Any) -> Any:
        y = x * 2.0
        v = mnp.reshape(y, (-1,))
        z = mg.index_fill(y, 0, i, 7.0)
        return z.sum() + v.sum() * 10.0

    x, i = np.arange(6.0).reshape(3, 2), np.array([0])
    np.testing.assert_array_equal(mg.jit(f)(x, i), f(x, i))
    # and a view written after its base dies is fine, and still right
    def g(x: Any, i: Any) -> Any:
        v = mnp.reshape(x * 2.0, (3, 2))
        return mg.index_fill(v, 0, i, 7.0)

    np.testing.assert_array_equal(mg.jit(g)(x.ravel(), i), g(x.ravel(), i))


def test_results_never_alias_constants() -> None:
    const = np.arange(6.0)
    f = mg.jit(lambda x: (mnp.reshape(const, (2, 3)), x + 1))
    a, _ = f(np.ones(1))
    a[0, 0] = 100.0  # the caller's result is the caller's to write
    b, _ = f(np.ones(1))
    assert b[0, 0] == 0.0 and const[0] == 0.0


def test_donation_writes_into_the_argument_without_a_copy() -> None:
    n = 5_000_000  # 40 MB of float64
    x = np.zeros(n)
    i, s = np.array([1, 1, 3]), np.array([1.0, 2.0, 3.0])
    f = mg.jit(lambda x, i, s: mg.index_add(x, 0, i, s), donate_argnums=0)
    f(np.zeros(8), i, s)  # compile for another shape first: no cost counted below
    assert f.lower(x, i, s).stats["inplace"] == 1
    f(np.zeros(n), i, s)  # compiled
    tracemalloc.start()
    try:
        out = f(x, i, s)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < n * 8 // 10, f"peak {peak} bytes: an x-sized buffer was allocated"
    assert out is x or np.shares_memory(out, x)
    assert out[1] == 3.0 and out[3] == 3.0 and out.sum() == 6.0
    # without donation the same call copies
    g = mg.jit(lambda x, i, s: mg.index_add(x, 0, i, s))
    g(x, i, s)
    tracemalloc.start()
    try:
        g(x, i, s)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak >= n * 8


def test_donated_read_only_or_shared_arguments_are_copied() -> None:
    f = mg.jit(lambda x, y: mg.index_fill(x, 0, np.array([0]), 5.0) + y, donate_argnums=0)
    x = np.zeros(3)
    out = f(x, x)  # the same array twice: writing into x would change y
    np.testing.assert_array_equal(out, [5.0, 0, 0])
    ro = np.broadcast_to(np.zeros(1), (3,))
    np.testing.assert_array_equal(f(ro, np.zeros(3)), [5.0, 0, 0])
    assert ro.sum() == 0.0


def test_eval_jaxpr_drops_values_after_their_last_use() -> None:
    from minigrad.jaxpr import last_uses

    closed = mg.make_jaxpr(lambda x: mnp.cos(mnp.sin(x)) + x)(np.ones(2))
    names = [[str(type(v).__name__) for v in d] for d in last_uses(closed.jaxpr)]
    assert [len(d) for d in names] == [0, 1, 2]  # sin's result dies at cos, x and cos at add


@pytest.mark.parametrize("case", [c for c in CASES if c.sample.make(np.random.default_rng(0))],
                         ids=lambda c: c.id)
def test_aliasing_tables_hold(case: Case) -> None:
    """The in-place pass trusts two tables: a FRESH impl returns a new array owning its memory;
    a VIEWS impl returns operand 0, a writable view of it, or a new array. Checked on every
    sample; and the in-place form of an op equals the op."""
    ops = case.sample.make(np.random.default_rng(0))
    ops = [np.array(o) for o in ops]  # writable arrays of their own
    params = case.sample.params
    if case.sample.fun is not None:  # an op sample (one result of sort): the bind's parameters
        jaxpr = mg.make_jaxpr(case.sample.function(case.prim))(*ops).jaxpr
        params = next(e.params for e in jaxpr.eqns if e.primitive is case.prim)
    outs = case.prim.impl(*ops, **params)
    for out in map(np.asarray, outs if case.prim.multiple_results else [outs]):
        check_aliasing(case, ops, out, params)


def check_aliasing(case: Case, ops: list[np.ndarray], out: np.ndarray, params: dict
                   ) -> None:
    from minigrad.staging.passes.inplace import VIEWS, inplace_form, is_fresh

    if is_fresh(case.prim) and out.ndim:
        assert not any(np.may_share_memory(out, o) for o in ops)
        assert out.flags.writeable
    if case.prim in VIEWS and out.ndim:
        assert out.flags.writeable
        assert not any(np.may_share_memory(out, o) for o in ops[1:])
    form = inplace_form(case.prim)
    if form is not None and out.ndim and out.shape == ops[0].shape and out.dtype == ops[0].dtype:
        buf = ops[0].copy()
        got = form.impl(buf, *ops[1:], **params)  # type: ignore[misc]
        assert got is buf
        np.testing.assert_array_equal(got, out)
        assert np.array_equal(signbits(got), signbits(out))  # bit for bit, -0.0 included


def signbits(x: np.ndarray) -> np.ndarray:
    """The sign bits of a real array's entries, of both parts of a complex one's."""
    return np.signbit(x.view(x.real.dtype) if x.dtype.kind == "c" else x)


def test_a_leaked_tracer_is_reported() -> None:
    leaked: list[Any] = []

    @mg.jit
    def f(x: Any) -> Any:
        leaked.append(x)
        return x * 2.0

    f(np.ones(2))
    with pytest.raises(mg.UnexpectedTracerError, match=r"jit\(f\)"):
        mnp.sin(leaked[0])


def test_threads_share_a_jitted_function() -> None:
    from concurrent.futures import ThreadPoolExecutor

    f = mg.jit(mg.vmap(mg.grad(lambda w, x: mnp.sum(mnp.tanh(x * w) ** 2)), in_axes=(None, 0)))
    w = np.linspace(-1, 1, 3)
    batches = [np.full((4, 3), k / 7.0) for k in range(16)]
    expected = [mg.vmap(mg.grad(lambda w, x: mnp.sum(mnp.tanh(x * w) ** 2)), in_axes=(None, 0))(
        w, b) for b in batches]
    with ThreadPoolExecutor(4) as pool:  # first calls race to trace: each result is right
        got = list(pool.map(lambda b: f(w, b), batches))
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-14)


def test_jacobians_transposes_and_second_derivatives_through_jit() -> None:
    def f(x: Any) -> Any:
        return mg.index_add(mnp.sin(x) * x, 0, np.array([1, 1]), x[:2] * 3.0)

    def lin(v: Any) -> Any:
        return mg.index_add(v * 2.0, 0, np.array([1, 1]), v[:2])

    jf = mg.jit(f)
    x = np.linspace(-1, 1, 4)
    np.testing.assert_allclose(mg.jacfwd(jf)(x), mg.jacfwd(f)(x), rtol=1e-14)
    np.testing.assert_allclose(mg.jacrev(jf)(x), mg.jacrev(f)(x), rtol=1e-14)
    np.testing.assert_allclose(mg.linear_transpose(mg.jit(lin), x)(x)[0],
                               mg.linear_transpose(lin, x)(x)[0], rtol=1e-14)

    def grad_of_grad(fun: Any) -> Any:
        return mg.grad(lambda v: mnp.sum(mg.grad(lambda u: mnp.sum(fun(u)))(v) ** 2))(x)

    np.testing.assert_allclose(grad_of_grad(jf), grad_of_grad(f), rtol=1e-13)
    np.testing.assert_allclose(grad_of_grad(mg.jit(jf)), grad_of_grad(f), rtol=1e-13)

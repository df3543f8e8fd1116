"""Transforms in many threads and asyncio tasks at once give the answers they give alone.

The current trace is a context variable (minigrad/core.py): each thread and each asyncio task
has its own. These tests run every transform over the five ops in 8 threads with a tiny switch
interval (so the interpreter switches threads every few bytecodes, inside every transform), in
asyncio tasks that interleave, and hand a tracer from one thread to another.
"""

from __future__ import annotations

import asyncio
import contextvars
import queue
import random
import sys
import threading
from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg
import minigrad.numpy as mnp
from minigrad import core
from minigrad.jaxpr import JaxprTrace
from minigrad.testing import samples, samples_for

RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 3))
S = RNG.standard_normal((3, 3))
XB = RNG.standard_normal((5, 4, 3))                     # a batch of 5 x's
TX, TS = RNG.standard_normal((4, 3)), RNG.standard_normal((3, 3))
CT = RNG.standard_normal((4, 3))
IDX = np.array([0, 2, 0])                               # a repeated entry
UIDX = np.array([3, 0, 1])
COLS = np.array([2, 0])
MASK = np.array([[True, False, True], [False, False, True], [True, True, False],
                 [False, False, False]])
BATCHED_IDX = np.array([[0, 2, 0], [1, 1, 3], [3, 2, 1], [0, 0, 0], [2, 3, 1]])

# Each op as a function of the differentiable pair (x, s): linear in (x, s) jointly.
OPS: dict[str, Callable[[Any, Any], Any]] = {
    "index_add": lambda x, s: mg.index_add(x, 0, IDX, s, alpha=0.5),
    "index_copy": lambda x, s: mg.index_copy(x, 0, UIDX, s),
    "index_fill": lambda x, s: mg.index_fill(x, 1, COLS, s[1, 2]),
    "masked_fill": lambda x, s: mg.masked_fill(x, MASK, s[0, 1]),
    "masked_scatter": lambda x, s: mg.masked_scatter(x, MASK, s),
}


def loss_of(op: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    return lambda x, s: mnp.sum(mnp.tanh(op(x * x, s)) ** 2)


def vjp_of(op: Callable[..., Any]) -> Any:
    _, f = mg.vjp(op, X, S)
    return f(CT)


def linearize_of(op: Callable[..., Any]) -> Any:
    y, f = mg.linearize(op, X, S)
    return y, f(TX, TS)


def per_example_index_add(x: Any, s: Any, idx: Any) -> Any:
    return mnp.sum(mnp.tanh(mg.index_add(x * x, 0, idx, s)) ** 2)


# Every transform, over each op: name -> a call that returns a pytree of arrays (or a listing).
TRANSFORMS: dict[str, Callable[[Callable[..., Any]], Any]] = {
    "jvp": lambda op: mg.jvp(op, (X, S), (TX, TS)),
    "vjp": vjp_of,
    "linearize": linearize_of,
    "linear_transpose": lambda op: mg.linear_transpose(op, X, S)(CT),
    "grad": lambda op: mg.grad(loss_of(op), argnums=(0, 1))(X, S),
    "value_and_grad": lambda op: mg.value_and_grad(loss_of(op))(X, S),
    "vmap": lambda op: mg.vmap(op, in_axes=(0, None))(XB, S),
    "vmap(grad)": lambda op: mg.vmap(mg.grad(loss_of(op)), in_axes=(0, None))(XB, S),
    "jacfwd": lambda op: mg.jacfwd(loss_of(op), argnums=(0, 1))(X, S),
    "jacrev": lambda op: mg.jacrev(loss_of(op))(X, S),
    "hessian": lambda op: mg.hessian(loss_of(op))(X, S),
    "make_jaxpr": lambda op: str(mg.make_jaxpr(mg.vmap(mg.grad(loss_of(op)),
                                                       in_axes=(0, None)))(XB, S)),
}

CASES: dict[str, Callable[[], Any]] = {
    f"{t}/{o}": (lambda t=t, o=o: TRANSFORMS[t](OPS[o])) for t in TRANSFORMS for o in OPS
}
# Per-example gradients with a batched index as well.
CASES["vmap(grad)/batched index"] = lambda: mg.vmap(
    mg.grad(per_example_index_add), in_axes=(0, None, 0))(XB, S, BATCHED_IDX)


def leaves(result: Any) -> list[Any]:
    return mg.tree_leaves(result)


def same(got: Any, want: Any) -> bool:
    a, b = leaves(got), leaves(want)
    if len(a) != len(b):
        return False
    for x, y in zip(a, b, strict=True):
        if isinstance(y, str):
            if x != y:
                return False
        elif not (type(x) is mg.Array and x.dtype == y.dtype and np.array_equal(x, y)):
            return False
    return True


@pytest.fixture(scope="module")
def expected() -> dict[str, Any]:
    """Every case's answer, computed alone in this thread."""
    return {name: case() for name, case in CASES.items()}


@pytest.fixture
def tiny_switch_interval():
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


def run_in_threads(n_threads: int, work: Callable[[int], Any]) -> list[Any]:
    """Start ``n_threads`` threads at once on ``work(i)``; their results (or exceptions)."""
    barrier = threading.Barrier(n_threads)
    results: list[Any] = [None] * n_threads

    def body(i: int) -> None:
        barrier.wait()
        try:
            results[i] = work(i)
        except BaseException as e:  # reported by the test
            results[i] = e

    threads = [threading.Thread(target=body, args=(i,)) for i in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def test_every_case_is_deterministic_alone(expected: dict[str, Any]) -> None:
    # The comparisons below are exact: one thread gets the same bits every time.
    for name, case in CASES.items():
        assert same(case(), expected[name]), name


def test_mixed_transforms_in_eight_threads(expected: dict[str, Any],
                                           tiny_switch_interval: None) -> None:
    names = sorted(CASES)

    def work(i: int) -> list[tuple[str, Any]]:
        order = names[:]
        random.Random(i).shuffle(order)  # each thread its own order: every mix of transforms
        out = []
        for name in order:
            try:
                out.append((name, CASES[name]()))
            except Exception as e:  # reported below, with its case
                out.append((name, e))
        return out

    results = run_in_threads(8, work)
    wrong = []
    for i, result in enumerate(results):
        assert not isinstance(result, BaseException), result
        assert len(result) == len(names)
        for name, got in result:
            if isinstance(got, Exception) or not same(got, expected[name]):
                wrong.append(f"thread {i}, {name}: {got!r:.200}")
    assert not wrong, f"{len(wrong)} of {8 * len(names)} calls differ from the answer " \
                      f"alone:\n" + "\n".join(wrong[:10])


def test_each_thread_starts_at_the_eval_trace() -> None:
    seen = []

    def inner(x: Any) -> Any:
        seen.append(run_in_threads(1, lambda i: core.current_trace())[0])
        return mnp.sum(x)

    mg.grad(inner)(X)
    assert seen == [core.eval_trace]


# --------------------------------------------------------------------------- tracers that cross


def test_tracer_handed_to_another_thread_is_escaped() -> None:
    """Thread A, inside grad, hands its tracer to thread B and waits: B's every use of it, eager
    or under B's own transforms, is an escaped tracer while A's grad is still running; A's
    answer is unchanged; after A's grad returns, the message says so."""
    handoff: queue.Queue[Any] = queue.Queue()
    done = threading.Event()
    a_result: list[Any] = []

    def f(x: Any) -> Any:
        y = mnp.sin(x) * 2.0
        handoff.put(y)
        assert done.wait(30)
        return mnp.sum(y * y)

    thread_a = threading.Thread(target=lambda: a_result.append(mg.grad(f)(X)))
    thread_a.start()
    t = handoff.get(timeout=30)
    uses: dict[str, Callable[[], Any]] = {
        "eager": lambda: t + 1.0,
        "eager sin": lambda: mnp.sin(t),
        "make_jaxpr": lambda: mg.make_jaxpr(lambda z: z + t)(np.ones((4, 3))),
        "jvp": lambda: mg.jvp(lambda z: z * t, (np.ones((4, 3)),), (np.ones((4, 3)),)),
        "vmap": lambda: mg.vmap(lambda z: z * t)(np.ones((2, 4, 3))),
        "grad": lambda: mg.grad(lambda z: mnp.sum(z * t))(np.ones((4, 3))),
        "vmap(grad)": lambda: mg.vmap(mg.grad(lambda z: mnp.sum(z * t)))(np.ones((2, 4, 3))),
    }
    try:
        for name, use in uses.items():
            with pytest.raises(mg.UnexpectedTracerError,
                               match="still running: in another thread") as info:
                use()
            assert "tracer of grad" in str(info.value), name
    finally:
        done.set()
        thread_a.join()
    expected = mg.grad(lambda x: mnp.sum((mnp.sin(x) * 2.0) ** 2))(X)
    assert len(a_result) == 1 and np.array_equal(a_result[0], expected)
    with pytest.raises(mg.UnexpectedTracerError, match="used after grad returned"):
        t + 1.0


def test_tracer_leaked_by_a_finished_thread_is_escaped() -> None:
    box: list[Any] = []

    def f(x: Any) -> Any:
        box.append(x * 3.0)
        return mnp.sum(x)

    run_in_threads(1, lambda i: mg.vmap(f)(XB))
    with pytest.raises(mg.UnexpectedTracerError, match="used after vmap returned"):
        mg.grad(lambda z: mnp.sum(z * box[0]))(X)


# --------------------------------------------------------------------------- asyncio


def test_asyncio_tasks_interleaving_transforms(expected: dict[str, Any],
                                               tiny_switch_interval: None) -> None:
    """Tasks on one loop, each awaiting between its transforms, and tasks that run transforms
    in worker threads (asyncio.to_thread copies the task's context into the thread)."""
    names = sorted(CASES)

    async def stepper(seed: int) -> list[tuple[str, Any]]:
        order = names[:]
        random.Random(seed).shuffle(order)
        out = []
        for name in order:
            out.append((name, CASES[name]()))
            await asyncio.sleep(0)  # let the other tasks run
        return out

    async def in_threads(seed: int) -> list[tuple[str, Any]]:
        order = names[:]
        random.Random(seed).shuffle(order)
        return [(name, await asyncio.to_thread(CASES[name])) for name in order]

    async def main() -> list[list[tuple[str, Any]]]:
        return await asyncio.gather(*[stepper(i) for i in range(4)],
                                    *[in_threads(10 + i) for i in range(4)])

    results = asyncio.run(main())
    for result in results:
        assert [n for n, _ in result] != [] and len(result) == len(names)
        for name, got in result:
            assert same(got, expected[name]), name


def test_each_task_has_its_own_current_trace() -> None:
    """A task's context is its own: a trace made current in one task is not current in the
    others, even while the task is suspended inside the block."""
    seen: dict[str, Any] = {}

    async def holder(started: asyncio.Event, release: asyncio.Event) -> None:
        trace = JaxprTrace(core.current_trace(), stage_all=True)
        with core.new_trace(trace):
            seen["holder"] = core.current_trace()
            started.set()
            await release.wait()          # suspended with its trace current
            seen["holder after"] = core.current_trace()
        seen["holder trace"] = trace

    async def other(started: asyncio.Event, release: asyncio.Event) -> None:
        await started.wait()
        seen["other"] = core.current_trace()
        seen["other value"] = mnp.sin(np.zeros(2))   # eager, not staged into the holder's jaxpr
        release.set()

    async def main() -> None:
        started, release = asyncio.Event(), asyncio.Event()
        await asyncio.gather(holder(started, release), other(started, release))

    asyncio.run(main())
    assert seen["holder"] is seen["holder trace"] is seen["holder after"]
    assert seen["other"] is core.eval_trace
    assert type(seen["other value"]) is mg.Array
    assert seen["holder trace"].eqns == []


def test_context_copied_inside_a_transform_after_it_returns() -> None:
    """A context copied inside a transform (a task created there, or copy_context) that runs
    after the transform returned sees the transforms still running, not the finished one."""
    ctxs: list[contextvars.Context] = []

    def f(x: Any) -> Any:
        ctxs.append(contextvars.copy_context())
        # while the transform runs, the copy runs inside it: the same tracer arithmetic
        inside = ctxs[-1].run(lambda: x * 2.0)
        return mnp.sum(inside * x)

    g = mg.grad(f)(X)
    np.testing.assert_array_equal(g, 4.0 * X)

    def eager() -> Any:
        return core.current_trace(), mnp.sin(X), mg.make_jaxpr(mnp.sin)(X)

    trace, value, jaxpr = ctxs[0].run(eager)
    assert trace is core.eval_trace
    assert type(value) is mg.Array and np.array_equal(value, np.sin(X))
    assert "sin" in str(jaxpr) and jaxpr.consts == []

    # Nested: copied inside the inner of two transforms, run while only the outer one runs.
    inner_ctx: list[contextvars.Context] = []

    def outer(x: Any) -> Any:
        def inner(y: Any) -> Any:
            inner_ctx.append(contextvars.copy_context())
            return mnp.sum(y * y)

        mg.grad(inner)(x)
        return inner_ctx[0].run(lambda: mnp.sum(mnp.sin(x)))  # outer's tracer, outer's trace

    np.testing.assert_allclose(mg.grad(outer)(X), np.cos(X))


def test_task_created_inside_a_transform_runs_eagerly_after_it() -> None:
    async def later() -> Any:
        return mnp.tanh(X)

    async def main() -> Any:
        loop = asyncio.get_running_loop()
        tasks = []

        def f(x: Any) -> Any:
            tasks.append(loop.create_task(later()))   # inherits the context of grad's body
            return mnp.sum(x * x)

        mg.grad(f)(X)
        return await tasks[0]

    value = asyncio.run(main())
    assert type(value) is mg.Array and np.array_equal(value, np.tanh(X))


# --------------------------------------------------------------------------- shared tables


def test_sample_tables_are_built_once_under_contention(monkeypatch: pytest.MonkeyPatch,
                                                       tiny_switch_interval: None) -> None:
    monkeypatch.setattr(samples, "_OP_RECORDS", None)
    got = run_in_threads(8, lambda i: samples.op_records())
    assert not any(isinstance(g, BaseException) for g in got), got
    assert all(g is got[0] for g in got)  # one table: no thread's entries lost
    assert samples.op_records() is got[0]


def test_checkers_in_threads(tiny_switch_interval: None) -> None:
    """The rule checkers (what `python -m minigrad check` runs) give the same verdicts in
    threads as alone."""
    from minigrad.testing import check_primitive

    names = ["index_add", "masked_fill", "sin"]
    prims = samples.primitives()

    def verdicts() -> list[tuple[str, str, str, bool, float]]:
        out = []
        for name in names:
            rs = check_primitive(prims[name], samples_for(name)[:2],
                                 raise_on_failure=False)
            out += [(name, r.sample, r.check, r.passed, r.worst) for r in rs]
        return out

    alone = verdicts()
    assert alone and all(r[3] for r in alone)
    for got in run_in_threads(4, lambda i: verdicts()):
        assert got == alone


def test_pytree_registration_while_other_threads_flatten() -> None:
    class Pair:
        def __init__(self, a: Any, b: Any):
            self.a, self.b = a, b

    def work(i: int) -> Any:
        if i == 0:
            mg.register_pytree_node(Pair, lambda p: ((p.a, p.b), None),
                                    lambda _, ch: Pair(*ch))
            return None
        return mg.grad(lambda d: mnp.sum(d["x"] * d["y"]))({"x": X, "y": X})

    results = run_in_threads(8, work)
    for r in results[1:]:
        assert not isinstance(r, BaseException), r
        np.testing.assert_array_equal(r["x"], X)
    g = mg.grad(lambda p: mnp.sum(p.a * p.b))(Pair(X, 2.0 * X))
    np.testing.assert_array_equal(g.a, 2.0 * X)

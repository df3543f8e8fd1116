"""Adversarial tests of jit and staging: the families of silent wrong answers of issue #29.

One section per family, each with the issue's repro and a property test that would have found
the family:

* captured constants (item 2): every kind of capture, mutated after tracing, under every route
  that keeps a program;
* literals and folded constants handed out (item 10): every output that is a literal or a
  program constant, written into after the call;
* dead checks (item 11): each checking op, its result dead, in every position, under jit and
  its compositions with grad and vmap;
* the cache key and its bound (item 18, jit's part): NaN, -0.0, inf and typed statics, a cache
  of bounded size;
* the peak memory of masked_fill_ in place (item 19).
"""

from __future__ import annotations

import math
import tracemalloc
from typing import Any, Callable

import numpy as np
import pytest
from hypothesis import given, note
from hypothesis import strategies as st

import minigrad as mg
from minigrad import numpy as mnp
from minigrad.ops.masked_scatter import masked_gather

# --------------------------------------------------------------------------- captured constants
# Item 2: a kept program (jit's, make_jaxpr's, a derived one) never sees a later write into an
# array it captured: it holds a read-only copy made at trace time.


def test_item2_closure_is_read_when_traced() -> None:
    x = np.zeros(3)
    c = np.arange(3.0)
    f, folded = mg.jit(lambda x: x + c), mg.jit(lambda x: x + c * 2.0)
    before, before_folded = f(x), folded(x)
    c[0] = 100.0
    np.testing.assert_array_equal(f(x), before)  # read by reference before the fix: [100, 1, 2]
    np.testing.assert_array_equal(folded(x), before_folded)  # (folded: already a copy)


def test_item2_cse_of_equal_captures() -> None:
    x = np.zeros(3)
    for written in (0, 1):  # CSE made the two one constant: the first of them, by reference
        pair = [np.arange(3.0), np.arange(3.0)]
        g = mg.jit(lambda x, pair=pair: (x + pair[0], x + pair[1]))
        g(x)
        pair[written][0] = 50.0  # the program holds both values at trace time
        for out in g(x):
            np.testing.assert_array_equal(out, [0.0, 1.0, 2.0])
    a = np.arange(3.0)
    b2 = np.arange(3.0)
    b2[0] = 50.0  # captured after the change: seen
    np.testing.assert_array_equal(mg.jit(lambda x: (x + a, x + b2))(x)[1], [50.0, 1.0, 2.0])


def test_item2_donating_a_captured_array() -> None:
    c = np.arange(3.0)
    other = mg.jit(lambda x: x + c)
    other(np.zeros(3))
    out = mg.jit(lambda x: x * 2.0 + c, donate_argnums=0)(c)
    np.testing.assert_array_equal(out, [0.0, 3.0, 6.0])  # was [0, 4, 8]: it wrote its constant
    # c was donated (the caller handed it over); every program traced before keeps its value
    np.testing.assert_array_equal(other(np.zeros(3)), [0.0, 1.0, 2.0])


_GLOBAL: Any = None  # the "global" capture reads this module global


def _capture(kind: str, c: np.ndarray) -> Callable[[Any], Any]:
    """A function of x that reads ``c`` by the capture ``kind``."""
    global _GLOBAL
    if kind == "closure":
        return lambda x: x * 2.0 + c
    if kind == "global":
        _GLOBAL = c
        return lambda x: x * 2.0 + _GLOBAL
    if kind == "default":
        def with_default(x: Any, k: Any = c) -> Any:
            return x * 2.0 + k
        return with_default
    if kind == "folded":  # an equation of constants only: folded when small enough
        return lambda x: x + mnp.sin(c) * 2.0
    if kind == "cse pair":  # an equal array beside it: CSE merges equal constants
        twin = c.copy()
        return lambda x: x * c + x * twin
    if kind == "view":  # a view of c is captured, and c is written
        view = c[...]
        return lambda x: x - view
    if kind == "reshaped":
        return lambda x: x + c.reshape(c.shape)
    if kind == "custom_jvp":  # a custom rule's program holds c (for eager calls) by reference
        f = mg.custom_jvp(lambda x: x * 2.0 + c)
        f.defjvp(lambda p, t: (f(*p), t[0] * c))
        return f
    raise AssertionError(kind)


def _route(name: str, f: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``f`` through a route that keeps a program (traced on its first call)."""
    if name == "jit":
        return mg.jit(f)
    if name in ("make_jaxpr", "eval_jaxpr"):
        held: list[Any] = []

        def staged(x: Any) -> Any:
            if not held:
                held.append(mg.make_jaxpr(f)(x))
            if name == "make_jaxpr":
                return held[0](x)
            return mg.eval_jaxpr(held[0].jaxpr, held[0].consts, x)[0]
        return staged
    if name == "jit(grad)":
        return mg.jit(mg.grad(lambda x: mnp.sum(f(x) * f(x))))
    if name == "grad(jit)":
        jf = mg.jit(f)
        return mg.grad(lambda x: mnp.sum(jf(x) * jf(x)))
    if name == "jit(vmap)":
        return mg.jit(mg.vmap(f))
    if name == "vmap(jit)":
        return mg.vmap(mg.jit(f))
    if name == "functionalize":
        return mg.functionalize(f)
    raise AssertionError(name)


CAPTURES = ["closure", "global", "default", "folded", "cse pair", "view", "reshaped",
            "custom_jvp"]
ROUTES = ["jit", "make_jaxpr", "eval_jaxpr", "jit(grad)", "grad(jit)", "jit(vmap)",
          "vmap(jit)", "functionalize"]


@given(st.sampled_from(CAPTURES), st.sampled_from(ROUTES), st.sampled_from([(), (3,), (2000,)]),
       st.sampled_from([np.float64, np.float32]), st.sampled_from(["all", "one", "via base"]))
def test_item2_no_capture_sees_a_later_write(kind: str, route: str, shape: tuple,
                                             dtype: Any, how: str) -> None:
    # Sizes: 0-d (a literal), small (folded when it can be), 2000 elements (never folded).
    base = np.linspace(0.5, 1.5, max(1, math.prod(shape))).astype(dtype).reshape(shape)
    c = base[...] if how == "via base" else base
    f = _route(route, _capture(kind, c))
    vmapped = "vmap" in route
    x = np.linspace(-1.0, 1.0, 2 * max(1, math.prod(shape))).astype(dtype)
    x = x.reshape((2, *shape)) if vmapped else x[:max(1, math.prod(shape))].reshape(shape)
    first = np.array(f(x))
    if how == "one":
        base.reshape(-1)[0] = 100.0
    else:
        base[...] = 100.0  # written through base itself, or through c (a view of it)
    note(f"{kind} {route} {shape} {how}: {first} then {f(x)}")
    np.testing.assert_array_equal(np.array(f(x)), first)


@given(st.sampled_from(CAPTURES), st.sampled_from([(3,), (2000,)]))
def test_item2_donated_argument_is_a_captured_array(kind: str, shape: tuple) -> None:
    c = np.linspace(0.5, 1.5, math.prod(shape)).reshape(shape)
    expected = _capture(kind, c.copy())(c.copy())  # eagerly, on copies
    f = mg.jit(_capture(kind, c), donate_argnums=0)
    np.testing.assert_allclose(f(c), expected, rtol=1e-6)  # (the donated c may now be anything)


def test_item2_custom_rules_stay_eager_and_jit_keeps_its_copy() -> None:
    # An eager call of a custom_jvp function reads what its function reads now (its cached
    # program stands in for calling the function); a jitted one, what it read when traced.
    # (jit of a custom_jvp function also keeps its rule: it once took the function's __dict__,
    # and with it the bare function, so the rule was lost.)
    c = np.arange(3.0)
    f = mg.custom_jvp(lambda x: x + c)
    f.defjvp(lambda p, t: (f(*p), t[0] * c))
    jf = mg.jit(f)
    x = np.zeros(3)
    np.testing.assert_array_equal(mg.jvp(jf, (x,), (np.ones(3),))[1], [0.0, 1.0, 2.0])
    c[0] = 100.0
    np.testing.assert_array_equal(f(x), [100.0, 1.0, 2.0])
    np.testing.assert_array_equal(mg.grad(lambda y: mnp.sum(f(y)))(x), [100.0, 1.0, 2.0])
    np.testing.assert_array_equal(jf(x), [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(mg.jvp(jf, (x,), (np.ones(3),))[1], [0.0, 1.0, 2.0])


# --------------------------------------------------------------------------- literals handed out
# Item 10: a result never aliases the program's state: a literal or constant output is copied
# (jit, a ClosedJaxpr's call, functionalize) or read-only (eval_jaxpr's own values).


def test_item10_literal_outputs() -> None:
    f = mg.jit(lambda x: (x * (mnp.sin(mnp.asarray(1.0)) * 2.0), mnp.sin(mnp.asarray(1.0)) * 2.0))
    _, c = f(np.ones(2))
    c[...] = 100.0
    np.testing.assert_allclose(f(np.ones(2))[0], 2.0 * np.sin(1.0))  # was 100
    g = mg.jit(lambda x: (x, 1.0))
    _, one = g(np.ones(2))
    one[...] = 7.0
    assert g(np.ones(2))[1] == 1.0


_C = np.arange(3.0)
OUTPUTS: dict[str, Callable[[Any], Any]] = {
    "python float": lambda x: (x, 1.0),
    "python int": lambda x: (x, 3),
    "folded scalar": lambda x: (x * mnp.sin(mnp.asarray(1.0)), mnp.sin(mnp.asarray(1.0))),
    "folded array": lambda x: (x, mnp.sin(np.arange(3.0)) * 2.0),
    "captured 0-d": lambda x: (x, np.asarray(2.5)),
    "captured array": lambda x: (x + _C, _C),
    "view of a capture": lambda x: (x, _C[1:]),
    "reshaped capture": lambda x: (x, _C.reshape(3, 1)),
    "broadcast literal": lambda x: (x, mnp.broadcast_to(mnp.asarray(4.0), (3,))),
    "literal twice": lambda x: (x, 1.0, 1.0),
}


@given(st.sampled_from(sorted(OUTPUTS)), st.sampled_from(["jit", "make_jaxpr", "functionalize",
                                                            "jit(jit)", "eval_jaxpr"]))
def test_item10_no_output_aliases_the_program(name: str, route: str) -> None:
    fn, x = OUTPUTS[name], np.ones(3)
    if route == "jit":
        call = mg.jit(fn)
    elif route == "jit(jit)":
        inner = mg.jit(fn)
        call = mg.jit(lambda x: inner(x))
    elif route == "functionalize":
        call = mg.functionalize(fn)
    else:
        closed = mg.make_jaxpr(fn)(x)
        if route == "make_jaxpr":
            call = closed
        else:
            def call(x: Any) -> Any:
                return mg.eval_jaxpr(closed.jaxpr, closed.consts, x)
    # (a fresh x per call: an output that passes x through is x itself, as eagerly, except
    # under jit, which copies it)
    first = [np.array(o) for o in call(np.ones(3))]
    for out in call(np.ones(3)):
        if route == "eval_jaxpr" and not out.flags.writeable:  # the program's own: frozen
            with pytest.raises(ValueError, match="read-only"):
                out[...] = 100
        else:
            out[...] = 100  # a result is the caller's: writable
    for got, expected in zip(call(np.ones(3)), first, strict=True):
        np.testing.assert_array_equal(got, expected)


# --------------------------------------------------------------------------- dead checks
# Item 11: the checks of values run on every call, even when nothing reads the op's result.

CHECKING: dict[str, tuple[Callable[[Any, Any], Any], type, Callable[[int], Any]]] = {
    # name: (op of (x, k), the error eagerly, k of a value that is bad for x of n elements)
    "index_add": (lambda x, i: mg.index_add(x, 0, i, x[:1]), IndexError,
                  lambda bad: np.array([bad])),
    "index_copy": (lambda x, i: mg.index_copy(x, 0, i, x[:1]), IndexError,
                   lambda bad: np.array([bad])),
    "index_fill": (lambda x, i: mg.index_fill(x, 0, i, 2.0), IndexError,
                   lambda bad: np.array([bad])),
    "take": (lambda x, i: mnp.take(x, i), IndexError, lambda bad: np.array([bad])),
    "getitem": (lambda x, i: x[i], IndexError, lambda bad: np.array([0, bad])),
    "masked_scatter": (lambda x, m: mg.masked_scatter(x, m, x[:1]), ValueError,
                       lambda bad: np.ones(3, bool)),
    "masked_gather": (lambda x, m: masked_gather(x, m, 1), ValueError,
                      lambda bad: np.ones(3, bool)),
}
GOOD = {"index_add": np.array([1]), "index_copy": np.array([1]), "index_fill": np.array([1]),
        "take": np.array([2]), "getitem": np.array([0, -1]),
        "masked_scatter": np.array([False, True, False]),
        "masked_gather": np.array([False, True, False])}


def _dead(position: str, op: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """A function whose result does not depend on ``op(x, k)``, which it computes."""
    if position == "discarded":
        return lambda x, k: (op(x, k), x * 2.0)[1]
    if position == "chain":  # the op's result feeds only more dead work
        def chain(x: Any, k: Any) -> Any:
            y = op(x, k)
            mnp.sum(mnp.sin(y) * 3.0)
            return x * 2.0
        return chain
    if position == "nested jit":
        inner = mg.jit(op)
        return lambda x, k: (inner(x, k), x * 2.0)[1]
    if position == "first of two":
        return lambda x, k: (op(x, k), op(x, k) * 0.0, x * 2.0)[2]
    raise AssertionError(position)


POSITIONS = ["discarded", "chain", "nested jit", "first of two"]


@pytest.mark.parametrize("position", POSITIONS)
@pytest.mark.parametrize("name", sorted(CHECKING))
def test_item11_dead_check_raises_under_jit(name: str, position: str) -> None:
    op, error, bad_k = CHECKING[name]
    f, x = _dead(position, op), np.ones(3)
    for bad in (3, 100, -4):
        with pytest.raises(error):
            f(x, bad_k(bad))  # eagerly
        with pytest.raises(error):
            mg.jit(f)(x, bad_k(bad))
    np.testing.assert_array_equal(mg.jit(f)(x, GOOD[name]), f(x, GOOD[name]))


def test_item11_repro() -> None:
    f = mg.jit(lambda x, i: (mg.index_add(x, 0, i, x[:1]), x * 2)[1])
    with pytest.raises(IndexError, match="index_add"):
        f(np.ones(3), np.array([7]))  # returned [2, 2, 2] before the fix


DEAD_ROUTES: dict[str, Callable[[Callable], Callable]] = {
    "jit": mg.jit,
    "jit(grad)": lambda f: mg.jit(mg.grad(lambda x, k: mnp.sum(f(x, k)))),
    "grad(jit)": lambda f: (lambda j: mg.grad(lambda x, k: mnp.sum(j(x, k))))(mg.jit(f)),
    "jit(vmap over x)": lambda f: mg.jit(mg.vmap(f, in_axes=(0, None))),
    "vmap(jit) over x": lambda f: mg.vmap(mg.jit(f), in_axes=(0, None)),
    "jit(vmap over k)": lambda f: mg.jit(mg.vmap(f, in_axes=(None, 0))),
    "jit(jvp)": lambda f: mg.jit(lambda x, k: mg.jvp(lambda y: f(y, k), (x,), (x,))[1]),
}


@given(st.sampled_from(sorted(CHECKING)), st.sampled_from(POSITIONS),
       st.sampled_from(sorted(DEAD_ROUTES)), st.sampled_from([3, 100, -4]), st.integers(0, 1))
def test_item11_dead_checks_under_transforms(name: str, position: str, route: str, bad: int,
                                             which: int) -> None:
    op, error, bad_k = CHECKING[name]
    f = DEAD_ROUTES[route](_dead(position, op))
    x, k = np.ones(3), bad_k(bad)
    if "over x" in route:
        x = np.ones((2, 3))
    if "over k" in route:  # a batch of two: one good example, one bad one
        k = np.stack([GOOD[name], k] if which else [k, GOOD[name]])
    with pytest.raises(error):
        f(x, k)


# --------------------------------------------------------------------------- the cache key
# Item 18 (jit's part): statics keyed by type and bits; a cache of bounded size.


def test_item18_nan_static_hits_the_cache() -> None:
    f = mg.jit(lambda x, s: x * s, static_argnums=1)
    for _ in range(5):
        assert np.isnan(f(np.ones(2), float("nan"))).all()
    assert f.traces == 1


def test_item18_negative_zero_is_its_own_program() -> None:
    def inv(x: Any, s: float) -> Any:
        return x + (1.0 / s if s else math.copysign(math.inf, s))  # Python branches on s

    f = mg.jit(inv, static_argnums=1)
    assert f(np.zeros(1), 0.0)[0] == math.inf
    assert f(np.zeros(1), -0.0)[0] == -math.inf  # was inf: 0.0's program
    assert f.traces == 2


STATICS = [float("nan"), -0.0, 0.0, math.inf, -math.inf, 1, 1.0, True, np.float32(1.0),
           np.float64(1.0), np.float32("nan"), (float("nan"), 1.0), (0.0,), (-0.0,), "a", None]


def _key_of(s: Any) -> Any:
    """The identity of a static value: its type and, for numbers, its bits."""
    if isinstance(s, tuple):
        return ("tuple", tuple(_key_of(v) for v in s))
    if isinstance(s, (float, np.generic)):
        return (type(s), np.asarray(s).tobytes())
    return (type(s), s)


@given(st.lists(st.sampled_from(range(len(STATICS))), min_size=1, max_size=12))
def test_item18_each_static_its_program(picks: list[int]) -> None:
    def f(x: Any, s: Any) -> Any:  # its value's bits depend on the static's type and bits
        number = s[0] if isinstance(s, tuple) else (0.5 if s is None or s == "a" else s)
        return x * np.float64(number) + len(type(s).__name__)

    jf = mg.jit(f, static_argnums=1)
    seen = set()
    for p in picks:
        s = STATICS[p]
        assert np.asarray(jf(np.ones(2), s)).tobytes() == np.asarray(f(np.ones(2), s)).tobytes()
        seen.add(_key_of(s))
        assert jf.traces == len(seen)  # a hit for every static seen before, NaN included


@given(st.integers(1, 6), st.lists(st.integers(0, 20), min_size=1, max_size=40))
def test_item18_cache_is_bounded(size: int, calls: list[int]) -> None:
    f = mg.jit(lambda x, s: x + s, static_argnums=1)
    g = mg.jit(lambda x: x + 1.0)  # (positional arrays: the fast path's table too)
    f.cache_size = g.cache_size = size
    for k in calls:
        assert f(np.zeros(1), float(k))[0] == k
        assert g(np.zeros(k + 1))[0] == 1.0
        assert len(f.cache) <= size and len(g.cache) <= size and len(g.fast) <= size


@given(st.integers(2, 6), st.lists(st.integers(0, 50), min_size=1, max_size=30, unique=True))
def test_item18_a_hot_signature_stays(size: int, others: list[int]) -> None:
    hot = mg.jit(lambda x: x + 1.0)
    hot.cache_size = size
    hot(np.zeros(1))
    for n in others:  # signatures called once each; the one called between them stays
        hot(np.zeros(n + 2))
        hot(np.zeros(1))
    assert hot.traces == 1 + len(others)


def test_item18_many_statics_do_not_grow_the_cache() -> None:
    assert mg.jit(lambda x: x).cache_size == 256  # the documented default (docs/jit.md)
    f = mg.jit(lambda x, s: x * s, static_argnums=1)
    f.cache_size = 16
    for k in range(100):
        assert f(np.ones(2), float(k))[0] == k
    assert len(f.cache) == 16 and f.traces == 100


# --------------------------------------------------------------------------- memory in place
# Item 19: masked_fill_ in place allocates a block, not an array of x's size.


def _peak(fn: Callable[[], Any]) -> int:
    fn()
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    fn()
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return peak


@pytest.mark.parametrize("value", [0.0, 2.5])
def test_item19_masked_fill_in_place_peak(value: float) -> None:
    n = 1 << 20
    x, mask = np.zeros(n), np.random.default_rng(0).random(n) < 0.3

    def update(y: Any) -> Any:
        mg.masked_fill_(y, mask, value)
        return y[0]

    jitted = mg.jit(update)
    assert _peak(lambda: jitted(x)) < 0.1 * x.nbytes  # was 1.0x: a full-size bit mask
    assert _peak(lambda: mg.masked_fill_(x, mask, value)) < 0.1 * x.nbytes
    np.testing.assert_array_equal(x[mask], value)


@given(st.integers(0, 10**6), st.sampled_from([np.float64, np.float32, np.float16, np.int8]),
       st.sampled_from(["contiguous", "transposed", "sliced", "broadcast mask"]),
       st.sampled_from([0, 1, 7]), st.floats(0, 1))
def test_item19_fill_in_blocks_equals_where(seed: int, dtype: Any, layout: str, block: int,
                                            p: float) -> None:
    from minigrad.ops import masked_fill as mf

    rng = np.random.default_rng(seed)
    base = (rng.standard_normal((9, 14)) * 10).astype(dtype)
    mask = rng.random((9, 14)) < p
    x = {"contiguous": base, "transposed": base.T, "sliced": base[::2, 1::3],
         "broadcast mask": base}[layout]
    m = {"contiguous": mask, "transposed": mask.T, "sliced": mask[::2, 1::3],
         "broadcast mask": np.broadcast_to(mask[:1], base.shape)}[layout]
    fill = np.asarray(-3 if np.dtype(dtype).kind == "i" else -0.0, dtype)
    expected = np.where(m, fill, x)
    old = mf._FILL_BLOCK
    mf._FILL_BLOCK = block or x.size  # several blocks, one element, or one block
    try:
        bits = np.dtype(f"i{x.dtype.itemsize}")
        out = mf.fill_in_blocks(x, m, fill.view(bits), bits)
    finally:
        mf._FILL_BLOCK = old
    assert out is x
    assert np.ascontiguousarray(x).tobytes() == np.ascontiguousarray(expected).tobytes()

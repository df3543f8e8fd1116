"""Adversarial tests of in-place updates (issue #29, items 3, 4, 5, 6 and 17).

The guarantee: a function that updates an argument in place keeps its eager result under jit
and functionalize, whatever aliasing the caller's arguments have, or raises naming the
arguments. Each section guards one family, with the issue's repro and a property test over the
family (aliasing patterns x update kinds x routes; every augmented operator x dtypes x operand
kinds; every minigrad.numpy function's copy-or-view against NumPy's own).
"""

from __future__ import annotations

import operator
import tempfile
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest
from hypothesis import given, note
from hypothesis import strategies as st

import minigrad as mg
from minigrad import numpy as mnp
from minigrad.core import Tracer
from minigrad.inplace import METHODS

# --------------------------------------------------------------------------- update kinds

UPDATES: dict[str, Callable[[Any], Any]] = {
    "index_add_": lambda x: mg.index_add_(x, 0, np.array([0]), np.array([10.0])),
    "index_copy_": lambda x: mg.index_copy_(x, 0, np.array([0]), np.array([10.0])),
    "index_fill_": lambda x: mg.index_fill_(x, 0, np.array([1]), 10.0),
    "masked_fill_": lambda x: mg.masked_fill_(x, np.arange(x.shape[0]) % 2 == 0, 10.0),
    "masked_scatter_": lambda x: mg.masked_scatter_(x, np.arange(x.shape[0]) < 2,
                                                    np.array([7.0, 8.0])),
    # the augmented operators: operator.iadd(x, v) is the statement x += v
    "+=": lambda x: operator.iadd(x, 10.0),
    "-=": lambda x: operator.isub(x, 1.5),
    "*=": lambda x: operator.imul(x, 3.0),
    "/=": lambda x: operator.itruediv(x, 4.0),
    "**=": lambda x: operator.ipow(x, 2.0),
    "@=": lambda x: operator.imatmul(x, np.eye(x.shape[0])[::-1]),  # reverses x
}
ROUTES: dict[str, Callable[[Callable[..., Any]], Callable[..., Any]]] = {
    "jit": mg.jit, "functionalize": mg.functionalize}


def agree_or_raise(eager: Callable[[], Any], traced: Callable[[], Any]) -> Any:
    """The traced call's result equals the eager one's, or both raise: a ValueError (shapes)
    where NumPy's is one; a TypeError (casting) where NumPy's is one, or a ValueError if the
    shapes are wrong too (NumPy checks the casting first; minigrad's operator has computed the
    result by then, so it may see the shapes first)."""
    try:
        want = eager()
    except (TypeError, ValueError) as e:  # (NumPy's UFuncTypeError is a TypeError)
        with pytest.raises((TypeError, ValueError) if isinstance(e, TypeError) else ValueError):
            traced()
        return None
    got = traced()
    for g, w in zip(np.atleast_1d(got) if not isinstance(got, tuple) else got,
                    np.atleast_1d(want) if not isinstance(want, tuple) else want, strict=True):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_allclose(g, w, rtol=1e-6 if np.asarray(w).dtype == np.float32
                                   else 1e-13)
    return got


# --------------------------------------------------------------------------- item 3: aliasing

def aliased(pattern: str, n: int) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """(the arrays to compare afterwards, x, y): two arguments aliasing as ``pattern`` says."""
    base = np.arange(1.0, 2 * n + 3)
    if pattern == "distinct":
        x, y = np.arange(1.0, n + 1), np.arange(1.0, n + 1) + 100
        return [x, y], x, y
    pairs = {
        "same array": (base, base),
        "same memory, two view objects": (base[1:n + 1], base[1:n + 1]),
        "overlapping views": (base[0:n], base[1:n + 1]),
        "disjoint views": (base[0:n], base[n:2 * n]),
        "interleaved views": (base[0::2], base[1::2]),
        "a view and its base": (base[1:3], base),
        "a base and its view": (base, base[1:3]),
    }
    x, y = pairs[pattern]
    return [base], x, y


PATTERNS = ["distinct", "same array", "same memory, two view objects", "overlapping views",
            "disjoint views", "interleaved views", "a view and its base", "a base and its view"]
OVERLAPPING = {"overlapping views", "a view and its base", "a base and its view"}


def updating(kind: str, which: str) -> Callable[..., Any]:
    def f(x: Any, y: Any) -> Any:
        if which in ("x", "both"):
            UPDATES[kind](x)
        if which in ("y", "both"):
            UPDATES[kind](y)
        return x * 1.0, y * 1.0

    return f


def test_issue_repro_aliased_arguments() -> None:
    """Item 3: the same array passed twice, one of them updated."""
    def upd(x: Any, y: Any) -> Any:
        mg.index_add_(x, 0, np.array([0]), np.array([10.0]))
        return y.sum()

    a = np.arange(3.0)
    assert upd(a, a) == 13.0
    for route in ROUTES.values():
        f = route(upd)
        for _ in range(2):  # traced, then from the cache
            a = np.arange(3.0)
            assert f(a, a) == 13.0 and a.tolist() == [10.0, 1.0, 2.0]
        b, c = np.arange(3.0), np.arange(3.0)  # distinct again: the general program
        assert f(b, c) == 3.0 and b.tolist() == [10.0, 1.0, 2.0] and c.tolist() == [0, 1, 2]
        base = np.arange(4.0)
        with pytest.raises(mg.InPlaceError, match=r"args\[0\] and args\[1\] are overlapping"):
            f(base[:3], base[1:])
        assert base.tolist() == [0.0, 1.0, 2.0, 3.0]  # raised before any work
    base = np.arange(4.0)
    with pytest.raises(mg.InPlaceError, match=r"args\[0\] and kwargs\['y'\]"):
        mg.jit(upd)(base[:3], y=base[1:])


@given(kind=st.sampled_from(sorted(UPDATES)), which=st.sampled_from(["x", "y", "both"]),
       patterns=st.lists(st.sampled_from(PATTERNS), min_size=1, max_size=3),
       route=st.sampled_from(sorted(ROUTES)), n=st.integers(2, 4))
def test_aliasing_patterns_agree_with_eager_or_raise_naming_both(
        kind: str, which: str, patterns: list[str], route: str, n: int) -> None:
    """Item 3's family: one jitted (functionalized) function called with a sequence of
    aliasings (its cache specialises); each call equals the eager call, results and the
    caller's arrays afterwards, or, for overlapping views, raises naming both arguments and
    writes nothing."""
    f = updating(kind, which)
    routed = ROUTES[route](f)
    for pattern in patterns:
        note(pattern)
        keep_eager, x, y = aliased(pattern, n)
        keep, x2, y2 = aliased(pattern, n)
        try:
            want = f(x, y)
        except ValueError:  # x @ P with the shapes of a view and its base: eagerly refused
            with pytest.raises(ValueError):
                routed(x2, y2)
            continue
        if pattern in OVERLAPPING:
            before = [k.copy() for k in keep]
            with pytest.raises(mg.InPlaceError, match=r"args\[0\] and args\[1\]|args\[1\] and "
                                                      r"args\[0\]"):
                routed(x2, y2)
            for k, b in zip(keep, before, strict=True):
                np.testing.assert_array_equal(k, b)
            continue
        got = routed(x2, y2)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-15)
        for k, w in zip(keep, keep_eager, strict=True):
            np.testing.assert_allclose(k, w, rtol=1e-15)


@pytest.mark.parametrize("count", [3, 40])  # (few arrays: compared pairwise; many: a sweep)
def test_aliasing_among_many_arguments(count: int) -> None:
    """Item 3 with many leaves: the first updated, the last the same array, or an overlapping
    view of it, or (disjoint) the other half of its base."""
    def f(xs: list) -> Any:
        mg.index_add_(xs[0], 0, np.array([0]), np.array([10.0]))
        return [x * 1.0 for x in xs]

    for route in ROUTES.values():
        for last in ("same", "overlapping", "disjoint"):
            outs = []
            for run in (f, route(f)):
                base = np.arange(8.0)
                xs = [base[:4]] + [np.full(4, float(k)) for k in range(1, count - 1)]
                xs.append({"same": base[:4], "overlapping": base[2:6],
                           "disjoint": base[4:]}[last])
                if last == "overlapping" and run is not f:
                    with pytest.raises(mg.InPlaceError,
                                       match=rf"args\[0\]\[0\] and args\[0\]\[{count - 1}\]"):
                        run(xs)
                    assert base.tolist() == list(np.arange(8.0))
                    continue
                outs.append((run(xs), base))
            if last != "overlapping":
                (want, base_eager), (got, base_traced) = outs
                np.testing.assert_array_equal(np.stack(got), np.stack(want))
                np.testing.assert_array_equal(base_traced, base_eager)


OUTER: dict[str, Callable[[Callable[..., Any], np.ndarray], Any]] = {
    "vmap": lambda g, v: mg.vmap(g)(np.stack([v, v + 1.0])),
    "jvp": lambda g, v: mg.jvp(g, (v,), (np.ones_like(v),)),
    "grad": lambda g, v: mg.grad(lambda w: mnp.sum(mnp.sin(g(w))))(v),
}


@given(kind=st.sampled_from(sorted(UPDATES)), which=st.sampled_from(["x", "y", "both"]),
       route=st.sampled_from(sorted(ROUTES)), outer=st.sampled_from(sorted(OUTER)),
       one_value=st.booleans(), n=st.integers(2, 4))
def test_aliasing_of_traced_values_agrees_with_the_plain_function(
        kind: str, which: str, route: str, outer: str, one_value: bool, n: int) -> None:
    """Item 3 under an outer transform: a jitted (functionalized) function given one traced
    value twice, or two, agrees with the function itself under vmap, jvp and grad."""
    f = updating(kind, which)

    def body(wrap: Callable[..., Any]) -> Callable[..., Any]:
        def g(v: Any) -> Any:
            h = v * 2.0
            k = h if one_value else v * 3.0
            a, b = wrap(f)(h, k)
            return a + b

        return g

    v = np.arange(1.0, n + 1)
    want = OUTER[outer](body(lambda f: f), v)
    got = OUTER[outer](body(ROUTES[route]), v)
    for g, w in zip(got if isinstance(got, tuple) else (got,),
                    want if isinstance(want, tuple) else (want,), strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-13)


def test_aliasing_among_tracers_and_with_closures() -> None:
    """Item 3 under an outer transform: one tracer passed twice is one input; a traced value
    both passed and closed over, or an array both passed and captured, is refused."""
    def upd(x: Any, y: Any) -> Any:
        mg.index_fill_(x, 0, np.array([0]), 0.0)
        return (x * y).sum()

    def twice(route: Callable[..., Any]) -> Callable[..., Any]:
        def g(v: Any) -> Any:
            h = v * 2.0
            return route(upd)(h, h)  # one tracer, passed twice

        return g

    v = np.arange(1.0, 4.0)
    want = mg.grad(twice(lambda f: f))(v)
    assert want.tolist() == [0.0, 16.0, 24.0]  # y is x: it sees the update (d(4v^2)/dv)
    for route in ROUTES.values():
        np.testing.assert_array_equal(mg.grad(twice(route))(v), want)

    def closes_over(v: Any) -> Any:
        h = v * 2.0
        g = mg.jit(lambda x: (mg.index_fill_(x, 0, np.array([0]), 0.0), x + h)[1])
        return g(h).sum()

    with pytest.raises(mg.InPlaceError, match=r"updates args\[0\] in place, and also closes"):
        mg.grad(closes_over)(v)
    c = np.arange(3.0)
    g = mg.jit(lambda x: (mg.index_fill_(x, 0, np.array([0]), 9.0), x + c)[1])
    with pytest.raises(mg.InPlaceError, match=r"args\[0\] in place, and that array is also"):
        g(c)
    assert c.tolist() == [0.0, 1.0, 2.0]
    np.testing.assert_array_equal(g(np.zeros(3)), [9.0, 1.0, 2.0])  # another array: fine


# --------------------------------------------------------------------------- item 4: captured

FIVE = ["index_add_", "index_copy_", "index_fill_", "masked_fill_", "masked_scatter_"]
STAGING: dict[str, Callable[[Callable[..., Any]], Callable[..., Any]]] = {
    **ROUTES, "make_jaxpr": mg.make_jaxpr,
    "grad(jit)": lambda f: mg.grad(lambda x: mnp.sum(mg.jit(f)(x))),
    "vmap(jit)": lambda f: lambda x: mg.vmap(mg.jit(f))(np.stack([x, x]))}


def test_issue_repro_captured_target() -> None:
    """Item 4: an eager update of a captured array while jit traces would run once."""
    c = np.zeros(3)
    f = mg.jit(lambda x: (mg.index_add_(c, 0, np.array([0]), np.array([1.0])), x + c)[1])
    with pytest.raises(mg.InPlaceError, match="staging the function"):
        f(np.zeros(3))
    assert c.tolist() == [0.0, 0.0, 0.0]
    # what the error advises: pass it as an argument (updates written back), as eagerly
    g = mg.jit(lambda x, c: (mg.index_add_(c, 0, np.array([0]), np.array([1.0])), x + c)[1])
    outs = [g(np.zeros(3), c)[0] for _ in range(3)]
    assert outs == [1.0, 2.0, 3.0] and c.tolist() == [3.0, 0.0, 0.0]
    # or make the buffer with minigrad.numpy, traced
    h = mg.jit(lambda x: x + mg.index_add_(mnp.zeros(3), 0, np.array([0]), np.array([1.0])))
    assert h(np.zeros(3)).tolist() == [1.0, 0.0, 0.0]


@given(kind=st.sampled_from(sorted(UPDATES)), route=st.sampled_from(sorted(STAGING)),
       traced=st.booleans())
def test_captured_targets_raise_and_stay_unchanged(kind: str, route: str, traced: bool) -> None:
    """Item 4's family: every update kind of a captured NumPy array, with a concrete or a
    traced value, under every staging route: an InPlaceError, and the array untouched. (A
    NumPy operator on a captured array with a concrete value, c += 1.0, is NumPy's own and
    cannot be intercepted: it runs once, while tracing.)"""
    if kind not in FIVE and not traced:
        return
    c = np.arange(1.0, 4.0)

    def f(x: Any) -> Any:
        if not traced:
            UPDATES[kind](c)
        elif kind in FIVE:
            {"index_add_": lambda: mg.index_add_(c, 0, np.array([0]), x[:1]),
             "index_copy_": lambda: mg.index_copy_(c, 0, np.array([0]), x[:1]),
             "index_fill_": lambda: mg.index_fill_(c, 0, np.array([0]), x[0]),
             "masked_fill_": lambda: mg.masked_fill_(c, np.array([True, False, True]), x[0]),
             "masked_scatter_": lambda: mg.masked_scatter_(c, np.array([True, False, True]),
                                                           x[:2])}[kind]()
        else:
            {"+=": operator.iadd, "-=": operator.isub, "*=": operator.imul,
             "/=": operator.itruediv, "**=": operator.ipow,
             "@=": lambda c, x: operator.imatmul(c, mnp.reshape(mnp.concatenate(
                 [x, x, x]), (3, 3)))}[kind](c, x)
        return x + c

    with pytest.raises(mg.InPlaceError):
        STAGING[route](f)(np.ones(3))
    assert c.tolist() == [1.0, 2.0, 3.0]


# --------------------------------------------------------------------------- item 5: x += y

_BINARY = {"__add__": "__iadd__", "__sub__": "__isub__", "__mul__": "__imul__",
           "__truediv__": "__itruediv__", "__pow__": "__ipow__", "__matmul__": "__imatmul__",
           "__floordiv__": "__ifloordiv__", "__mod__": "__imod__", "__and__": "__iand__",
           "__or__": "__ior__", "__xor__": "__ixor__", "__lshift__": "__ilshift__",
           "__rshift__": "__irshift__"}


def _defines(name: str) -> bool:  # (Tracer.__or__ would find type's, for X | Y unions)
    return any(name in vars(c) for c in Tracer.__mro__)


AUGMENTED = {i: getattr(operator, i.strip("_")) for b, i in _BINARY.items() if _defines(b)}


def test_every_binary_operator_has_its_augmented_form() -> None:
    """A binary operator on tracers without its x op= y would rebind the name to a new value,
    which NumPy never does (item 5): the in-place form must come with it."""
    assert len(AUGMENTED) >= 6
    for b, i in _BINARY.items():
        if _defines(b):
            assert _defines(i), f"Tracer has {b} but not {i}"


def test_issue_repros_augmented_assignment() -> None:
    """Item 5: x += y on a tracer updates x in place (every name for it sees the update),
    with the view checks, and jit writes it back to the caller."""
    def f(x: Any) -> Any:
        x = x * 1.0
        y = x
        x += 1.0
        return y

    assert f(np.zeros(2)).tolist() == [1.0, 1.0]
    assert mg.jit(f)(np.zeros(2)).tolist() == [1.0, 1.0]
    assert mg.vmap(f)(np.zeros((3, 2))).tolist() == [[1.0, 1.0]] * 3

    def g(x: Any) -> Any:
        x = x * 1.0
        v = x[0:1]
        x *= 3.0
        return v

    with pytest.raises(mg.InPlaceError, match="view still alive"):
        mg.jit(g)(np.ones(2))

    def k(x: Any) -> None:
        mg.index_add_(x, 0, np.array([0]), np.array([1.0]))
        x += 1.0

    for route in ROUTES.values():
        a = np.zeros(2)
        route(k)(a)
        assert a.tolist() == [2.0, 1.0]

    def through_a_view(x: Any) -> Any:
        h = x * 1.0
        row = h[0]
        row += 1.0
        return h

    with pytest.raises(mg.InPlaceError, match="x is a view"):
        mg.jit(through_a_view)(np.zeros((2, 2)))
    a = np.zeros(2)
    mg.grad(lambda x: operator.iadd(x, 1.0).sum())(a)
    assert a.tolist() == [0.0, 0.0]  # grad never writes the caller's array

    def into_numpy(x: Any) -> Any:
        c = np.zeros(2)
        c += x  # NumPy's in-place add into an ndarray cannot hold a tracer
        return c

    with pytest.raises(mg.InPlaceError, match="not a value of jit"):
        mg.jit(into_numpy)(np.ones(2))


OPERANDS = {
    "python int": lambda shape, dtype: 2,
    "python float": lambda shape, dtype: 1.5,
    "0-d array": lambda shape, dtype: np.array(3, dtype),
    "same shape": lambda shape, dtype: np.arange(1, 1 + int(np.prod(shape))).reshape(shape
                                                                                     ).astype(dtype),
    "row (broadcasts)": lambda shape, dtype: np.arange(1, 1 + shape[-1]).astype(dtype),
    "larger (x would grow)": lambda shape, dtype: np.ones((2, *shape), dtype),
}


@given(op=st.sampled_from(sorted(AUGMENTED)), x_dtype=st.sampled_from(["float64", "float32",
                                                                        "int64"]),
       y_dtype=st.sampled_from(["float64", "float32", "int64"]),
       operand=st.sampled_from(sorted(OPERANDS)),
       route=st.sampled_from(["jit", "vmap", "jvp", "functionalize"]))
def test_augmented_operators_agree_with_numpy(op: str, x_dtype: str, y_dtype: str,
                                              operand: str, route: str) -> None:
    """Item 5's family: every augmented operator Tracer has, on every dtype pair and operand
    kind, under jit, vmap, jvp and functionalize: the alias taken before the update equals
    NumPy's (value and dtype), or both refuse with the same exception class (NumPy's
    same_kind casting, x keeping its shape)."""
    shape = (2, 2)
    x = (np.arange(4).reshape(shape) % 3 + 1).astype(x_dtype)
    y = OPERANDS[operand](shape, y_dtype)
    fn = AUGMENTED[op]

    def f(x: Any) -> Any:
        x = x * 1  # the function's own buffer (x * 1 keeps the dtype)
        alias = x
        fn(x, y)
        return alias

    if route == "vmap":
        xs = np.stack([x, x + 1])
        agree_or_raise(lambda: np.stack([f(e) for e in xs]), lambda: mg.vmap(f)(xs))
    elif route == "jvp":
        agree_or_raise(lambda: f(x), lambda: mg.jvp(f, (x,), (np.ones_like(x) if
                                                              x.dtype.kind == "f" else
                                                              np.zeros(shape, mg.float0),))[0])
    else:
        agree_or_raise(lambda: f(x), lambda: ROUTES[route](f)(x))


def test_augmented_operator_errors_are_numpys() -> None:
    """One fault at a time, the exception class is NumPy's: casting (same_kind) a TypeError,
    a result larger than x a ValueError; x is unchanged."""
    def f(x: Any, y: Any) -> Any:
        x += y
        return x

    for x, y, error in ((np.ones(2, np.int64), np.ones(2), TypeError),
                        (np.ones(2, np.int64), 1.5, TypeError),
                        (np.ones(2), np.ones((3, 2)), ValueError),
                        (np.ones((2, 2)), np.ones(3), ValueError)):
        with pytest.raises(error):
            f(x.copy(), y)
        for route in (mg.jit, mg.functionalize, mg.vmap):
            arg = np.stack([x, x]) if route is mg.vmap else x.copy()
            with pytest.raises(error):
                route(f)(arg, y) if route is not mg.vmap else route(f, (0, None))(arg, y)
            np.testing.assert_array_equal(arg, np.stack([x, x]) if route is mg.vmap else x)


@given(op=st.sampled_from(sorted(AUGMENTED)), route=st.sampled_from(sorted(ROUTES)))
def test_augmented_operators_on_arguments_are_written_back(op: str, route: str) -> None:
    """x op= y on an argument itself changes the caller's array eagerly; jit and functionalize
    write it back the same."""
    bits = op in ("__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__")
    dtype = np.int64 if bits else np.float64  # (the bit operations take integers)
    y = np.eye(2)[::-1] if op == "__imatmul__" else np.array([2, 3], dtype)

    def f(x: Any) -> Any:
        AUGMENTED[op](x, y)
        return x * 1

    eager, traced = np.array([[1, 2], [3, 4]], dtype), np.array([[1, 2], [3, 4]], dtype)
    np.testing.assert_array_equal(ROUTES[route](f)(traced), f(eager))
    np.testing.assert_array_equal(traced, eager)


def test_augmented_operators_on_numbers() -> None:
    """x += 1 on a Python number (or a NumPy scalar) is a new number, eagerly: jit and
    functionalize return the same and write nothing; the five variants refuse a number, eagerly
    and traced alike."""
    def f(t: Any, x: Any) -> Any:
        t += 1
        t *= 2
        return x * t

    for t in (1, 1.5, np.float32(2.0), True):
        want = f(t, np.ones(2))
        for route in ROUTES.values():
            np.testing.assert_array_equal(route(f)(t, np.ones(2)), want)
    for route in (lambda f: f, *ROUTES.values()):
        with pytest.raises(TypeError, match="must be a NumPy array"):
            route(lambda t: mg.index_fill_(t, 0, np.array([0]), 1.0))(np.float64(1.0))
    for route in (lambda f: f, *ROUTES.values()):  # a number, then a 0-d array: updated
        g = route(lambda t: operator.iadd(t, 1.0) * 1.0)
        assert g(1.0) == 2.0
        a = np.array(1.0)
        assert g(a) == 2.0 and a == 2.0


# --------------------------------------------------------------------------- item 6: copies

def _index(m: Any, x: Any, key: Any) -> Any:
    return x[key] if m is np else mnp.getitem(x, key)


def _sized(name: str, part: int | None = None) -> Callable[[Any, Any], Any]:
    """NumPy's ``name(x)``; minigrad's with ``size=x.size`` (x's elements are distinct); of
    several results, the one at ``part`` (shares_memory takes one array)."""
    def f(m: Any, x: Any) -> Any:
        out = getattr(m, name)(x) if m is np else getattr(m, name)(x, size=x.size)
        return out if part is None else out[part]
    return f


# name -> f(x), written once for NumPy and for minigrad: ``m`` is the module.
COPY_OR_VIEW: dict[str, Callable[[Any, Any], Any]] = {
    "asarray": lambda m, x: m.asarray(x),
    "copy": lambda m, x: m.copy(x),
    "array": lambda m, x: m.array(x),
    "array copy=False": lambda m, x: m.array(x, copy=False) if m is mnp else np.asarray(x),
    "asarray same dtype": lambda m, x: m.asarray(x, x.dtype),
    "astype same dtype": lambda m, x: m.astype(x, x.dtype) if m is mnp else x.astype(x.dtype),
    "astype float32": lambda m, x: m.astype(x, np.float32) if m is mnp else x.astype(
        np.float32),
    "x.astype same dtype": lambda m, x: x.astype(x.dtype),
    "broadcast_to same shape": lambda m, x: m.broadcast_to(x, x.shape),
    "broadcast_to larger": lambda m, x: m.broadcast_to(x, (2, *x.shape)),
    "concatenate one": lambda m, x: m.concatenate([x]),
    "concatenate two": lambda m, x: m.concatenate([x, x]),
    "stack one": lambda m, x: m.stack([x]),
    "cumsum": lambda m, x: m.cumsum(x, 0),
    "sum no axes": lambda m, x: m.sum(x, axis=()),
    "sum no axes keepdims": lambda m, x: m.sum(x, axis=(), keepdims=True),
    "sum axis 0": lambda m, x: m.sum(x, axis=0),
    "x.sum no axes": lambda m, x: x.sum(axis=()),
    "max no axes": lambda m, x: m.max(x, axis=()),
    "max axis 0": lambda m, x: m.max(x, axis=0),
    "mean no axes": lambda m, x: m.mean(x, axis=()),
    "reshape": lambda m, x: m.reshape(x, (-1,)),
    "reshape same shape": lambda m, x: m.reshape(x, x.shape),
    "ravel": lambda m, x: m.ravel(x),
    "transpose": lambda m, x: m.transpose(x),
    "x.T": lambda m, x: x.T,
    "moveaxis to itself": lambda m, x: m.moveaxis(x, 0, 0),
    "swapaxes": lambda m, x: m.swapaxes(x, 0, -1),
    "squeeze nothing": lambda m, x: m.squeeze(x),
    "expand_dims": lambda m, x: m.expand_dims(x, 0),
    "take": lambda m, x: m.take(x, np.array([0, 1]), 0),
    "where": lambda m, x: m.where(True, x, x),
    "getitem all": lambda m, x: _index(m, x, slice(None)),
    "getitem ellipsis": lambda m, x: _index(m, x, Ellipsis),
    "getitem row": lambda m, x: _index(m, x, 0),
    "getitem every axis": lambda m, x: _index(m, x, (0,) * x.ndim),
    "getitem every axis and ellipsis": lambda m, x: _index(m, x, (*(0,) * x.ndim, Ellipsis)),
    "getitem reversed": lambda m, x: _index(m, x, slice(None, None, -1)),
    "getitem new axis": lambda m, x: _index(m, x, None),
    "getitem int array": lambda m, x: _index(m, x, np.array([0, 1])),
    "x[0] (the operator)": lambda m, x: x[0],
    "+x": lambda m, x: +x,
    "-x": lambda m, x: -x,
    "add 0": lambda m, x: m.add(x, 0.0), "subtract 0": lambda m, x: m.subtract(x, 0.0),
    "multiply 1": lambda m, x: m.multiply(x, 1.0), "divide 1": lambda m, x: m.divide(x, 1.0),
    "true_divide 1": lambda m, x: m.true_divide(x, 1.0),
    "power 1": lambda m, x: m.power(x, 1), "square": lambda m, x: m.square(x),
    "maximum self": lambda m, x: m.maximum(x, x), "minimum self": lambda m, x: m.minimum(x, x),
    "negative": lambda m, x: m.negative(x),
    "exp": lambda m, x: m.exp(x), "log": lambda m, x: m.log(x), "sin": lambda m, x: m.sin(x),
    "cos": lambda m, x: m.cos(x), "tanh": lambda m, x: m.tanh(x), "sqrt": lambda m, x: m.sqrt(x),
    "equal": lambda m, x: m.equal(x, x), "not_equal": lambda m, x: m.not_equal(x, x),
    "less": lambda m, x: m.less(x, x), "less_equal": lambda m, x: m.less_equal(x, x),
    "greater": lambda m, x: m.greater(x, x),
    "greater_equal": lambda m, x: m.greater_equal(x, x),
    "matmul": lambda m, x: m.matmul(x, np.eye(x.shape[-1])),
    "dot": lambda m, x: m.dot(x, np.eye(x.shape[-1])), "dot scalar": lambda m, x: m.dot(x, 1.0),
    "vdot": lambda m, x: m.vdot(x, x),
    "zeros_like": lambda m, x: m.zeros_like(x), "ones_like": lambda m, x: m.ones_like(x),
    "full_like": lambda m, x: m.full_like(x, 2.0),
    # sorting and sets whose surface records compare with JAX only (x's elements are
    # distinct: size= is what NumPy's result has, so jit can run them)
    "partition": lambda m, x: m.partition(x, 0),
    "argpartition": lambda m, x: m.argpartition(x, 0),
    "unique": _sized("unique"), "unique_values": _sized("unique_values"),
    "unique_counts": _sized("unique_counts", 0), "unique_inverse": _sized("unique_inverse", 1),
    "unique_all": _sized("unique_all", 2),
    "union1d": lambda m, x: m.union1d(x, x) if m is np else m.union1d(x, x, size=x.size),
    "intersect1d": lambda m, x: m.intersect1d(x, x) if m is np else
    m.intersect1d(x, x, size=x.size),
    "setdiff1d": lambda m, x: m.setdiff1d(x, np.array([1.0])) if m is np else
    m.setdiff1d(x, np.array([1.0]), size=x.size - 1),
    "setxor1d": lambda m, x: m.setxor1d(x, np.array([0.5])) if m is np else
    m.setxor1d(x, np.array([0.5]), size=x.size + 1),
}
# minigrad.numpy's names that take no array to copy or view (or are not functions)
NO_ARRAY = {"zeros", "ones", "full", "arange", "empty", "eye", "identity", "tri",
            "__array_namespace_info__", "result_type", "promote_types", "can_cast", "isdtype",
            "issubdtype", "finfo", "iinfo", "shape", "ndim", "size", "isscalar",
            "iscomplexobj", "isrealobj", "broadcast_shapes",
            "einsum_path",  # (reads shapes only: it returns a path and a report)
            "from_dlpack"}  # (eager only, a DLPack producer's memory: a view, as NumPy's)


def test_every_function_is_in_the_copy_or_view_table() -> None:
    # The table here, or a record of the NumPy surface with a NumPy reference: its eager test
    # checks the same (tests/test_numpy_surface.py::test_eager); names that are not functions
    # of arrays (dtypes, constants) need neither.
    from surface import all_records

    covered = {name.split(" ")[0] for name in COPY_OR_VIEW}
    covered |= {r.name for r in all_records() if r.reference() is not None}
    functions = {n for n in mnp.__all__ if callable(getattr(mnp, n))
                 and not isinstance(getattr(mnp, n), type)}
    missing = functions - NO_ARRAY - covered
    assert not missing, f"add copy-or-view rows (or surface records) for {sorted(missing)}"


@pytest.mark.parametrize("name", sorted(COPY_OR_VIEW))
@pytest.mark.parametrize("shape", [(3,), (2, 3)], ids=["1-d", "2-d"])
def test_copy_or_view_as_numpy(name: str, shape: tuple[int, ...]) -> None:
    """Item 6's family: each function shares memory with its argument exactly when NumPy's
    does (eagerly), and under jit an update of the argument after the call shows in the result
    as eagerly, or raises where it would have to show through a view."""
    fn = COPY_OR_VIEW[name]
    x = np.arange(1.0, 1 + int(np.prod(shape))).reshape(shape)
    numpy_shares = np.shares_memory(fn(np, x), x)
    assert np.shares_memory(fn(mnp, x), x) == numpy_shares

    def later_update(x: Any) -> Any:
        x = x * 1.0
        y = fn(mnp, x)
        mg.index_fill_(x, 0, np.array([0]), 9.0)
        return y

    eager = later_update(x)
    if numpy_shares:  # a view: the update shows through it, or the transform refuses
        try:
            traced = mg.jit(later_update)(x)
        except mg.InPlaceError:
            return
    else:
        traced = mg.jit(later_update)(x)
    np.testing.assert_array_equal(traced, eager)


def test_issue_repro_copies() -> None:
    """Item 6: NumPy copies here; a later update must not show through."""
    def f(x: Any) -> Any:
        x = x * 1.0
        y = mnp.stack([x])
        mg.index_fill_(x, 0, np.array([0]), 9.0)
        return y

    assert f(np.arange(3.0)).tolist() == [[0.0, 1.0, 2.0]]
    assert mg.jit(f)(np.arange(3.0)).tolist() == [[0.0, 1.0, 2.0]]
    x = np.arange(3.0)
    for y in (mnp.astype(x, x.dtype), mnp.concatenate([x]), mnp.stack([x]),
              mnp.sum(x, axis=()), mnp.max(x, axis=())):
        assert not np.shares_memory(y, x)
    c = np.array(2.0)  # a 0-d array summed over all (no) axes
    assert not np.shares_memory(mnp.sum(c), c) and not np.shares_memory(mnp.max(c), c)


# --------------------------------------------------------------------------- item 17

def test_updates_of_untraced_arguments_under_transforms() -> None:
    """Item 17: an update of a NumPy array with a traced value raises an InPlaceError up front
    (not numpy.copyto's error in the write-back), naming the argument, and what it advises
    works."""
    def u(x: Any, a: Any) -> Any:
        mg.index_add_(a, 0, np.array([0]), x[:1])
        return (a * x).sum()

    x = np.ones(3)
    for wrap in (lambda f: f, mg.jit, mg.functionalize):
        a = np.zeros(3)
        with pytest.raises(mg.InPlaceError, match=r"not a value of grad.*out-of-place op"):
            mg.grad(wrap(u))(x, a)
        with pytest.raises(mg.InPlaceError, match="not a value of vmap"):
            mg.vmap(wrap(u), in_axes=(0, None))(np.ones((2, 3)), a)
        assert a.tolist() == [0.0, 0.0, 0.0]
        # what works: differentiate with respect to it, or map it ...
        ga, gx = mg.grad(wrap(u), argnums=(1, 0))(x, a)
        assert ga.tolist() == [1.0, 1.0, 1.0] and gx.tolist() == [2.0, 0.0, 0.0]
        np.testing.assert_array_equal(
            mg.vmap(wrap(u))(np.ones((2, 3)), np.zeros((2, 3))), [1.0, 1.0])
        assert a.tolist() == [0.0, 0.0, 0.0]  # transforms never write the caller's arrays

    def out_of_place(x: Any, a: Any) -> Any:  # ... or use the out-of-place op's result
        a = mg.index_add(a, 0, np.array([0]), x[:1])
        return (a * x).sum()

    assert mg.grad(mg.jit(out_of_place))(x, np.zeros(3)).tolist() == [2.0, 0.0, 0.0]
    with pytest.raises(mg.InPlaceError, match=r"jit\(u\): args\[1\] is a NumPy array"):
        mg.grad(mg.jit(u))(x, np.zeros(3))


def test_the_in_place_methods() -> None:
    """Item 17: tracers have the five as methods (PyTorch's x.index_add_(...)); an ndarray
    cannot take methods, so eagerly one calls mg.index_add_(x, ...); minigrad's own array
    class, where there is one (issue #32), has them too."""
    assert sorted(METHODS) == FIVE
    for name, fn in METHODS.items():
        assert getattr(Tracer, name) is fn and getattr(mg, name) is fn
        assert not hasattr(np.ndarray, name)
        array = getattr(mg, "Array", None)
        if array is not None:
            assert getattr(array, name) is fn

    def f(x: Any) -> Any:
        h = x * 1.0
        assert h.index_fill_(0, np.array([0]), 5.0) is h
        return h

    assert mg.jit(f)(np.zeros(2)).tolist() == [5.0, 0.0]


class Tagged(np.ndarray):
    """An ndarray subclass of the user's."""


@pytest.mark.parametrize("kind", ["memmap", "subclass"])
def test_ndarray_subclasses_are_updated_in_place(kind: str, tmp_path: Path) -> None:
    """Item 17: jit and functionalize write updates back into ndarray subclasses, as the eager
    variant does, and refuse a read-only one."""
    def w(x: Any) -> Any:
        mg.index_fill_(x, 0, np.array([0]), 5.0)
        x += 1.0
        return x.sum()

    def make(i: int) -> np.ndarray:
        if kind == "memmap":
            m = np.memmap(tmp_path / f"m{i}", dtype=np.float64, mode="w+", shape=(3,))
            m[:] = 1.0
            return m
        return np.ones(3).view(Tagged)

    eager = make(0)
    value = w(eager)
    for i, route in enumerate(ROUTES.values(), start=1):
        for _ in range(2):
            x = make(i)
            assert route(w)(x) == value and type(x).__name__ == type(eager).__name__
            np.testing.assert_array_equal(np.asarray(x), np.asarray(eager))
    if kind == "memmap":
        path = Path(tempfile.mkdtemp()) / "ro"
        np.ones(3).tofile(path)
        frozen = np.memmap(path, dtype=np.float64, mode="r", shape=(3,))
        with pytest.raises(ValueError, match="read-only"):
            mg.jit(w)(frozen)

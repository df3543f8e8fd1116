"""Adversarial families of issue #29 around types, custom rules, collectives and caches.

One section per family; each names the issue item it guards, holds the issue's repro as a
regression test, and a property test over the family (dtypes, operators, transforms and their
compositions, signatures, sub-program kinds) that would have found it:

* item 8: Python scalars are weakly typed through every transform, as eagerly;
* item 9 (and its family): every custom rule's outputs are checked against the function's types;
* item 14: collectives inside every kind of sub-program under named vmaps, and JAX's inputs;
* item 15: custom functions called with defaults, keywords and nondiff arrays;
* item 16: a custom_vjp bwd returning None means a zero cotangent;
* item 18: custom functions do not outlive their last reference.
"""

from __future__ import annotations

import gc
import weakref
from typing import Any, Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minigrad as mg
from minigrad import numpy as mnp
from minigrad.collectives import all_gather, axis_index, pmax, pmean, pmin, psum
from minigrad.core import ShapedArray, float0, typematch
from minigrad.jaxpr import typecheck

# =========================================================================== item 8: weak types
"""Item 8: a Python scalar argument is weakly typed under every transform (it adopts the array
operand's dtype, NumPy 2's rule, as it does eagerly), and jit's cache tells it from a 0-d
float64 array. Property: every operator and dtype, every transform and composition, against
eager."""

FLOATS = [np.float16, np.float32, np.float64]
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
DTYPES = FLOATS + INTS + [np.bool_, np.complex64]

# f(x, s): x an array, s a Python scalar. Operators keep numbers weak (Python's arithmetic does);
# minigrad.numpy's functions make their results strong (NumPy's do).
OPERATORS: dict[str, Callable[[Any, Any], Any]] = {
    "x + s": lambda x, s: x + s,
    "s + x": lambda x, s: s + x,
    "x - s": lambda x, s: x - s,
    "s - x": lambda x, s: s - x,
    "x * s": lambda x, s: x * s,
    "s * x": lambda x, s: s * x,
    "x / s": lambda x, s: x / s,
    "s / x": lambda x, s: s / x,
    "x ** s": lambda x, s: x ** s,
    "s ** x": lambda x, s: s ** x,
    "x < s": lambda x, s: x < s,
    "s >= x": lambda x, s: s >= x,
    "x * (s * 3)": lambda x, s: x * (s * 3),
    "x + (-s) ** 2": lambda x, s: x + (-s) ** 2,
    "(s < 3) + x": lambda x, s: (s < 3) + x,
    "x * exp(s)": lambda x, s: x * mnp.exp(s),
    "maximum(x, s)": lambda x, s: mnp.maximum(x, s),
    "x * multiply(s, 2)": lambda x, s: x * mnp.multiply(s, 2),
}
SCALARS = [2, 2.5]


def _applies(op: str, dtype: Any) -> bool:
    if np.dtype(dtype).kind == "c" and ("<" in op or ">" in op or "maximum" in op):
        return False  # complex numbers are not ordered
    # NumPy squares a bool array into int8 (its fast path for ** 2), any other power into int64
    return not (dtype == np.bool_ and op == "x ** s")


def _array(dtype: Any) -> np.ndarray:
    return np.array([1, 2, 3, 4]).astype(dtype) if dtype != np.bool_ else np.ones(4, bool)


def _tangent(v: Any) -> Any:
    """A tangent for ``v`` (an array, a Python scalar or a tracer): ones, or float0 zeros."""
    kind = np.asarray(v).dtype.kind if not isinstance(v, mg.core.Tracer) else v.dtype.kind
    if kind in "fc":
        return 1.0 if isinstance(v, float) else mnp.ones_like(v)
    return np.zeros(np.shape(v) if not isinstance(v, mg.core.Tracer) else v.shape, float0)


# Transforms that keep a function's value: each maps f(x, s) to a function of the same value.
def _row(out: Any, k: int) -> Any:
    return mg.tree_map(lambda o: o[k], out)


def _vmap_none(f: Callable) -> Callable:
    return lambda x, s: _row(mg.vmap(f, in_axes=(0, None))(mnp.stack([x, x]), s), 1)


def _vmap_size(f: Callable) -> Callable:  # every argument unmapped: axis_size names the batch
    return lambda x, s: _row(mg.vmap(f, in_axes=None, axis_size=2)(x, s), 0)


def _jvp(f: Callable) -> Callable:
    return lambda x, s: mg.jvp(f, (x, s), (_tangent(x), _tangent(s)))[0]


KEEPING: dict[str, Callable[[Callable], Callable]] = {
    "jit": mg.jit,
    "vmap(in_axes=(0, None))": _vmap_none,
    "vmap(in_axes=None, axis_size)": _vmap_size,
    "make_jaxpr": lambda f: lambda x, s: mg.make_jaxpr(f)(x, s)(x, s),
    "jvp": _jvp,
    "linearize": lambda f: lambda x, s: mg.linearize(f, x, s)[0],
    "vjp": lambda f: lambda x, s: mg.vjp(f, x, s)[0],
    "jit(vmap)": lambda f: mg.jit(_vmap_none(f)),
    "vmap(jit)": lambda f: _vmap_none(mg.jit(f)),
}


def _same(got: Any, want: Any, what: str) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, eagerly {want.dtype}"
    if want.dtype.kind in "fc":
        tol = {2: 2e-3, 4: 1e-6, 8: 1e-12, 16: 1e-12}[want.dtype.itemsize if want.dtype.kind ==
                                                      "f" else want.dtype.itemsize // 2]
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def test_item8_jit_of_a_python_scalar_is_weak() -> None:
    f = mg.jit(lambda x, y: x * y)
    assert f(np.ones(3, np.float32), 2.0).dtype == np.float32  # eagerly float32
    # a 0-d float64 array and a NumPy float64 are strong: another trace, float64
    assert f(np.ones(3, np.float32), np.array(2.0)).dtype == np.float64
    assert f(np.ones(3, np.float32), np.float64(2.0)).dtype == np.float64
    assert f(np.ones(3, np.float32), 3.0).dtype == np.float32
    # 2.0 and 3.0 share a trace; the strong ones two more: a NumPy scalar is immutable, so
    # `y += 1` rebinds it where it updates a 0-d array in place (tests/test_adversarial_inplace)
    assert f.traces == 3


def test_item8_vmap_unmapped_python_scalar_is_weak() -> None:
    out = mg.vmap(lambda x, y: x * y, in_axes=(0, None))(np.ones((2, 3), np.float32), 2.0)
    assert out.dtype == np.float32


def test_item8_make_jaxpr_shows_weak_types_as_jax_does() -> None:
    closed = mg.make_jaxpr(lambda x, y: x * y)(np.ones(3, np.float32), 2.0)
    aval = closed.jaxpr.invars[1].aval
    assert aval.weak_type and repr(aval) == "~f64[]"  # JAX's str(aval)
    assert "b:f64[]" in str(closed)  # and JAX's listing: no marker
    assert "convert_element_type[new_dtype=float32]" in str(closed)
    typecheck(closed)


def test_item8_aval_equality_includes_weakness() -> None:
    weak, strong = ShapedArray((), np.float64, True), ShapedArray((), np.float64)
    assert weak != strong and hash(weak) != hash(strong)
    assert typematch(weak, strong)  # a value fits a weak type
    assert mg.core.get_aval(2.0).weak_type and not mg.core.get_aval(True).weak_type
    assert not mg.core.get_aval(np.float64(2.0)).weak_type


def test_item8_a_weak_int_out_of_range_raises_as_eagerly() -> None:
    x = np.ones(3, np.uint8)
    with pytest.raises(OverflowError, match=r"300 (is )?out of bounds for uint8"):
        mnp.add(x, 300)
    with pytest.raises(OverflowError, match=r"300 (is )?out of bounds for uint8"):
        mg.jit(lambda x, n: x + n)(x, 300)
    np.testing.assert_array_equal(mg.jit(lambda x, n: x + n)(x, 3), x + 3)


def test_item8_grad_of_a_python_float() -> None:
    x = np.arange(1.0, 4.0, dtype=np.float32)
    g = mg.grad(lambda s: mnp.sum(x * (s * 3.0)))(2.0)
    assert g.dtype == np.float64 and g == pytest.approx(18.0)  # the gradient has s's dtype
    value, _ = mg.value_and_grad(lambda s: mnp.sum(x * s))(2.0)
    assert value.dtype == np.float32


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", list(OPERATORS))
def test_item8_every_operator_dtype_and_transform_against_eager(op: str, dtype: Any) -> None:
    if not _applies(op, dtype):
        pytest.skip("not defined for this dtype")
    f, x = OPERATORS[op], _array(dtype)
    for s in SCALARS:
        want = f(x, s)
        for name, transform in KEEPING.items():
            _same(transform(f)(x, s), want, f"{name} of {op} at {np.dtype(dtype)}, s={s!r}")
        closed = mg.make_jaxpr(f)(x, s)
        typecheck(closed)
        assert closed.jaxpr.outvars[0].aval.dtype == np.asarray(want).dtype


@settings(max_examples=40)
@given(st.sampled_from(DTYPES), st.sampled_from(list(OPERATORS)), st.sampled_from(SCALARS),
       st.lists(st.sampled_from(list(KEEPING)), min_size=2, max_size=3))
def test_item8_compositions_against_eager(dtype: Any, op: str, s: Any, chain: list) -> None:
    if not _applies(op, dtype):
        return
    f, x = OPERATORS[op], _array(dtype)
    g = f
    for name in chain:
        g = KEEPING[name](g)
    _same(g(x, s), f(x, s), f"{' of '.join(reversed(chain))} of {op}")


DIFF_OPS = [op for op in OPERATORS if "<" not in op and ">" not in op]


@settings(max_examples=40)
@given(st.sampled_from(FLOATS[1:]), st.sampled_from(DIFF_OPS), st.sampled_from([2.5, 0.5]),
       st.lists(st.sampled_from(["jit", "vmap(in_axes=(0, None))", "jit(vmap)", "make_jaxpr",
                                 "vmap(jit)"]), max_size=2))
def test_item8_gradients_keep_their_dtypes(dtype: Any, op: str, s: float, chain: list) -> None:
    """value_and_grad's value promotes as eagerly; the gradient with respect to the array has
    its dtype, with respect to the Python float float64 (its weak type's dtype); under every
    wrapping (jit of vmap of grad ...)."""
    f, x = OPERATORS[op], _array(dtype)
    eager = mnp.sum(f(x, s))

    def g_x(x: Any, s: Any) -> Any:
        return mg.value_and_grad(lambda x: mnp.sum(f(x, s)))(x)

    def g_s(x: Any, s: Any) -> Any:
        return mg.value_and_grad(lambda s: mnp.sum(f(x, s)))(s)

    for g, want_dtype in ((g_x, np.dtype(dtype)), (g_s, np.dtype(np.float64))):
        wrapped = g
        for name in chain:
            wrapped = KEEPING[name](wrapped)
        value, grad = wrapped(x, s)
        _same(value, eager, f"the value of {chain} of value_and_grad of {op}")
        assert grad.dtype == want_dtype, (op, chain, grad.dtype)
        _same(grad, g(x, s)[1], f"{chain} of grad of {op}")


# =========================================================================== item 9: rule types
"""Item 9: a custom rule's results are checked against the function's shapes and dtypes, for
every kind of rule (custom_vmap's included, which checked shapes only)."""


def test_item9_custom_vmap_rule_of_the_wrong_dtype_is_refused() -> None:
    f = mg.custom_vmap(lambda x: x * 2.0)
    f.def_vmap(lambda n, b, x: ((x * 2.0).astype(np.float32), True))
    with pytest.raises(TypeError, match=r"custom_vmap: the rule of <lambda>: output 0 must be "
                                        r"f64\[3,2\].*got f32\[3,2\]"):
        mg.vmap(f)(np.ones((3, 2)))


def _custom(kind: str, wrong: str) -> Callable:
    """``x * 2`` as a custom function whose ``kind`` rule returns a value of the ``wrong`` sort
    ("dtype", "shape") or the right one ("none")."""
    def bad(v: Any) -> Any:
        if wrong == "dtype":
            return mnp.astype(v, np.float32)
        if wrong == "shape":
            return mnp.concatenate([v, v])
        return v

    if kind in ("jvp primal", "jvp tangent"):
        f = mg.custom_jvp(lambda x: x * 2.0)
        f.defjvp(lambda p, t: (bad(p[0] * 2.0) if kind == "jvp primal" else p[0] * 2.0,
                               bad(t[0] * 2.0) if kind == "jvp tangent" else t[0] * 2.0))
    elif kind in ("vjp fwd", "vjp bwd"):
        f = mg.custom_vjp(lambda x: x * 2.0)
        f.defvjp(lambda x: (bad(x * 2.0) if kind == "vjp fwd" else x * 2.0, None),
                 lambda r, ct: (bad(ct * 2.0) if kind == "vjp bwd" else ct * 2.0,))
    else:
        f = mg.custom_vmap(lambda x: x * 2.0)
        f.def_vmap(lambda n, b, x: (bad(x * 2.0), True))
    return f


@pytest.mark.parametrize("kind", ["jvp primal", "jvp tangent", "vjp fwd", "vjp bwd", "vmap"])
@pytest.mark.parametrize("wrong", ["dtype", "shape", "none"])
def test_item9_every_rule_kind_is_checked(kind: str, wrong: str) -> None:
    f = _custom(kind, wrong)
    x = np.arange(1.0, 4.0)
    run = {"jvp": lambda: mg.jvp(f, (x,), (np.ones(3),))[1],
           "vjp": lambda: mg.grad(lambda x: mnp.sum(f(x)))(x),
           "vmap": lambda: mg.vmap(f)(np.stack([x, x]))[0] / 2.0}[kind.split()[0]]
    if wrong == "none":
        np.testing.assert_allclose(run(), np.full(3, 2.0) if kind != "vmap" else x * 2.0 / 2.0)
        return
    with pytest.raises(TypeError, match=r"output 0 must be f64\[3\]|output 0 must be f64\[2,3\]"):
        run()


# =========================================================================== item 14: collectives
"""Item 14: a collective inside a sub-program (jit, custom_jvp, custom_vjp, custom_vmap,
another vmap) under a named vmap sees the enclosing named axes; a program traced under one
named axis is not reused under another size. JAX's inputs: Python scalars, pytrees, tuples of
names. Property: each collective inside each sub-program kind against the eager named vmap,
and against JAX when installed."""

X = np.arange(12.0).reshape(4, 3) ** 1.5


def test_item14_psum_inside_jit_under_a_named_vmap() -> None:
    out = mg.vmap(mg.jit(lambda x: psum(x, "i")), axis_name="i")(X)
    np.testing.assert_allclose(out, np.tile(X.sum(0), (4, 1)))


def test_item14_a_jitted_collective_under_two_axis_sizes() -> None:
    f = mg.jit(lambda x: psum(x, "i"))
    for rows in (4, 2, 4):
        np.testing.assert_allclose(mg.vmap(f, axis_name="i")(X[:rows]),
                                   np.tile(X[:rows].sum(0), (rows, 1)))
    assert f.traces == 2  # once per size of the named axis
    with pytest.raises(NameError, match="unbound axis name: 'i'"):
        f(X[0])


def test_item14_jax_inputs() -> None:
    np.testing.assert_allclose(mg.vmap(lambda x: psum(1.0, "i"), axis_name="i")(X), [4.0] * 4)
    tree = mg.vmap(lambda x: psum({"a": x, "b": (2.0, x[0])}, "i"), axis_name="i")(X)
    np.testing.assert_allclose(tree["a"], np.tile(X.sum(0), (4, 1)))
    np.testing.assert_allclose(tree["b"][0], [8.0] * 4)
    np.testing.assert_allclose(tree["b"][1], [X[:, 0].sum()] * 4)
    Y = X.reshape(2, 2, 3)
    both = mg.vmap(mg.vmap(lambda x: psum(x, ("i", "j")), axis_name="j"), axis_name="i")(Y)
    np.testing.assert_allclose(both, np.broadcast_to(Y.sum((0, 1)), Y.shape))
    index = mg.vmap(mg.vmap(lambda x: axis_index(("i", "j")), axis_name="j"),
                    axis_name="i")(Y)
    np.testing.assert_array_equal(index, [[0, 1], [2, 3]])
    gathered = mg.vmap(mg.vmap(lambda x: all_gather(x, ("i", "j")), axis_name="j"),
                       axis_name="i")(Y)
    np.testing.assert_allclose(gathered[1, 0], X)
    np.testing.assert_allclose(mg.vmap(lambda x: pmean(np.arange(3), "i"), axis_name="i")(X),
                               np.tile([0.0, 1.0, 2.0], (4, 1)))  # a mean of ints is floating


def _custom_jvp(g: Callable) -> Callable:
    f = mg.custom_jvp(g)
    f.defjvp(lambda p, t: mg.jvp(g, p, t))  # the true derivative
    return f


def _custom_vjp(g: Callable) -> Callable:
    f = mg.custom_vjp(g)
    f.defvjp(lambda x: (g(x), x), lambda x, ct: mg.vjp(g, x)[1](ct))  # the true gradient
    return f


def _custom_vmap(g: Callable) -> Callable:
    # the rule batches over the named axis, which its collectives name
    f = mg.custom_vmap(g)
    f.def_vmap(lambda n, batched, x: (mg.vmap(g, axis_name="i")(x), True))
    return f


SUBPROGRAMS: dict[str, Callable[[Callable], Callable]] = {
    "plain": lambda g: g,
    "jit": mg.jit,
    "jit(jit)": lambda g: mg.jit(mg.jit(g)),
    "custom_jvp": _custom_jvp,
    "custom_vjp": _custom_vjp,
    "custom_vmap": _custom_vmap,
    "jit(custom_jvp)": lambda g: mg.jit(_custom_jvp(g)),
    "custom_jvp(jit)": lambda g: _custom_jvp(mg.jit(g)),
    "inner vmap": lambda g: lambda x: mg.vmap(g)(mnp.stack([x, 2 * x]))[0],
    "inner vmap(jit)": lambda g: lambda x: mg.vmap(mg.jit(g))(mnp.stack([x, 2 * x]))[0],
    "jit(inner vmap)": lambda g: mg.jit(lambda x: mg.vmap(g)(mnp.stack([x, 2 * x]))[0]),
    "inner unmapped vmap": lambda g: lambda x: mg.vmap(g, in_axes=None, axis_size=2)(x)[1],
}
COLLECTIVES: dict[str, Callable[[Any], Any]] = {
    "psum": lambda x: psum(x, "i") * mnp.sin(x),
    "pmean": lambda x: pmean(x * x, "i") + x,
    "pmax": lambda x: pmax(mnp.sin(x), "i") * x,
    "pmin": lambda x: pmin(x, "i") * x,
    "all_gather": lambda x: mnp.sum(all_gather(x, "i"), 0) * x,
    "axis_index": lambda x: x * axis_index("i"),
    "psum of a number": lambda x: x * psum(2.0, "i"),
}
# Around the named vmap: its value, gradients (forward and reverse), jit.
OUTER: dict[str, Callable[[Callable], Callable]] = {
    "vmap": lambda g: mg.vmap(g, axis_name="i"),
    "vmap(grad)": lambda g: mg.vmap(mg.grad(lambda x: mnp.sum(g(x))), axis_name="i"),
    "jit(vmap)": lambda g: mg.jit(mg.vmap(g, axis_name="i")),
    "vmap(jvp)": lambda g: mg.vmap(lambda x: mg.jvp(g, (x,), (mnp.ones_like(x),))[1],
                                   axis_name="i"),
}


@pytest.mark.parametrize("outer", list(OUTER))
@pytest.mark.parametrize("sub", list(SUBPROGRAMS))
@pytest.mark.parametrize("coll", list(COLLECTIVES))
def test_item14_collectives_in_every_subprogram(coll: str, sub: str, outer: str) -> None:
    g = COLLECTIVES[coll]
    if sub == "custom_vjp" and outer == "vmap(jvp)":
        pytest.skip("forward mode through custom_vjp raises, as in JAX")
    want = OUTER[outer](g)(X)
    got = OUTER[outer](SUBPROGRAMS[sub](g))(X)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=f"{sub} {coll}")


@pytest.mark.parametrize("sub", ["plain", "jit", "custom_jvp", "custom_vjp", "jit(custom_jvp)"])
def test_item14_two_names_and_a_tuple(sub: str) -> None:
    """Nested named vmaps, collectives over the inner, the outer and both names, from inside
    each sub-program kind, with gradients."""
    def g(x: Any) -> Any:
        return (psum(x, "j") * pmax(x, "i") + pmean(x, ("i", "j")) * x
                + axis_index(("i", "j")) * x)

    def run(h: Callable) -> Any:
        inner = mg.vmap(mg.grad(lambda x: mnp.sum(mnp.sin(h(x)))), axis_name="j")
        return mg.vmap(inner, axis_name="i")(X.reshape(2, 2, 3))

    np.testing.assert_allclose(run(SUBPROGRAMS[sub](g)), run(g), rtol=1e-12, atol=1e-12)


def test_item14_against_jax() -> None:
    jax = pytest.importorskip("jax", reason="the cross-check needs jax installed")
    jnp, lax = jax.numpy, jax.lax
    with jax.enable_x64(True):
        cases = [
            (lambda x: psum(x, "i"), lambda x: lax.psum(x, "i")),
            (lambda x: psum(1.0, "i") * x, lambda x: lax.psum(1.0, "i") * x),
            (lambda x: pmean(x, "i") * x, lambda x: lax.pmean(x, "i") * x),
        ]  # (JAX does not differentiate pmax)
        for ours, theirs in cases:
            want = jax.vmap(jax.grad(lambda x, t=theirs: jnp.sum(t(x) ** 2)), axis_name="i")(X)
            for wrap in (mg.jit, _custom_jvp):
                np.testing.assert_allclose(
                    mg.vmap(mg.grad(lambda x, o=ours, w=wrap: mnp.sum(w(o)(x) ** 2)),
                            axis_name="i")(X), want, rtol=1e-10)
        Y = X.reshape(2, 2, 3)
        np.testing.assert_allclose(
            mg.vmap(mg.vmap(lambda x: pmax(x, ("i", "j")), axis_name="j"), axis_name="i")(Y),
            jax.vmap(jax.vmap(lambda x: lax.pmax(x, ("i", "j")), axis_name="j"),
                     axis_name="i")(Y))
        np.testing.assert_array_equal(
            mg.vmap(mg.vmap(lambda x: axis_index(("i", "j")), axis_name="j"),
                    axis_name="i")(Y),
            jax.vmap(jax.vmap(lambda x: lax.axis_index(("i", "j")), axis_name="j"),
                     axis_name="i")(Y))


# =========================================================================== item 15: signatures
"""Item 15: a custom function's call is bound to its signature as JAX binds it: defaults
applied, keyword arguments placed, keyword-only ones refused by name; a nondiff argument may be
an array. Property: random signatures and calls, against calling the plain function, under
jvp, grad and vmap."""


def test_item15_defaults_and_keywords() -> None:
    plain = lambda x, y=2.0: x * y  # noqa: E731
    f = mg.custom_jvp(plain)
    f.defjvp(lambda p, t: (f(*p), t[0] * p[1] + p[0] * t[1]))
    x = np.arange(3.0)
    for call, y in ((lambda x: f(x), 2.0), (lambda x: f(x, 3.0), 3.0),
                    (lambda x: f(x, y=3.0), 3.0)):
        np.testing.assert_allclose(call(x), x * y)
        np.testing.assert_allclose(mg.jvp(call, (x,), (np.ones(3),))[1], [y] * 3)
    np.testing.assert_allclose(mg.grad(lambda x: mnp.sum(f(x, y=4.0)))(x), [4.0] * 3)
    kw_only = mg.custom_jvp(lambda x, *, s=2.0: x * s)
    kw_only.defjvp(lambda p, t: (p[0] * 2.0, t[0] * 2.0))
    np.testing.assert_allclose(kw_only(x), x * 2.0)  # its default: fine
    with pytest.raises(TypeError, match=r"custom_jvp: <lambda>: keyword arguments must be "
                                        r"positional parameters.*got s"):
        kw_only(x, s=3.0)
    two = mg.custom_jvp(lambda x, y: x)
    two.defjvp(lambda p, t: (p[0], t[0]))
    with pytest.raises(TypeError, match="custom_jvp: <lambda>: missing a required argument"):
        two(x)


def test_item15_an_array_as_a_nondiff_argument() -> None:
    f = mg.custom_jvp(lambda n, x: x * mnp.sum(n), nondiff_argnums=(0,))
    f.defjvp(lambda n, p, t: (f(n, *p), t[0] * mnp.sum(n)))
    n, x = np.ones(3), np.arange(2.0)
    np.testing.assert_allclose(f(n, x), x * 3.0)
    np.testing.assert_allclose(mg.grad(lambda x: mnp.sum(f(n, x)))(x), [3.0, 3.0])
    np.testing.assert_allclose(mg.jit(lambda x: f(n, x))(x), x * 3.0)
    n[0] = 5.0  # not cached by identity: the new value counts
    np.testing.assert_allclose(f(n, x), x * 7.0)
    g = mg.custom_vjp(lambda n, x: x * mnp.sum(n), nondiff_argnums=(0,))
    g.defvjp(lambda n, x: (g(n, x), None), lambda n, r, ct: (ct * mnp.sum(n),))
    np.testing.assert_allclose(mg.grad(lambda x: mnp.sum(g(n, x)))(x), [7.0, 7.0])


def _make(kind: str, plain: Callable) -> Callable:
    if kind == "custom_jvp":
        f = mg.custom_jvp(plain)
        f.defjvp(lambda p, t: mg.jvp(plain, p, t))
    elif kind == "custom_vjp":
        f = mg.custom_vjp(plain)
        f.defvjp(lambda *a: (plain(*a), a), lambda a, ct: mg.vjp(plain, *a)[1](ct))
    else:
        f = mg.custom_vmap(plain)
        f.def_vmap(lambda n, batched, *a: (mg.vmap(plain, in_axes=tuple(
            0 if b else None for b in batched))(*a), True))
    return f


@settings(max_examples=30)
@given(st.sampled_from(["custom_jvp", "custom_vjp", "custom_vmap"]),
       st.integers(1, 4), st.data())
def test_item15_signatures_against_the_plain_function(kind: str, nparams: int,
                                                      data: st.DataObject) -> None:
    ndefaults = data.draw(st.integers(0, nparams - 1), "defaults")
    defaults = [1.5 + k for k in range(ndefaults)]
    names = [f"a{k}" for k in range(nparams)]
    params = ", ".join(names[:nparams - ndefaults] + [
        f"{n}={d}" for n, d in zip(names[nparams - ndefaults:], defaults, strict=True)])
    body = " + ".join(f"{k + 1} * mnp.sin({n})" for k, n in enumerate(names))
    namespace: dict[str, Any] = {"mnp": mnp}
    exec(f"def plain({params}):\n    return {body}\n", namespace)
    plain = namespace["plain"]
    f = _make(kind, plain)
    given_n = data.draw(st.integers(nparams - ndefaults, nparams), "given")
    by_name = data.draw(st.integers(0, given_n), "by name")  # the last ones by keyword
    values = [np.linspace(0.1, 0.9, 3) * (k + 1) for k in range(given_n)]
    split = given_n - by_name

    def call(fn: Callable, *xs: Any) -> Any:
        return fn(*xs[:split], **dict(zip(names[split:given_n], xs[split:], strict=True)))

    np.testing.assert_allclose(call(f, *values), call(plain, *values), rtol=1e-12)
    if kind != "custom_vjp":
        t = [np.ones(3)] * given_n
        np.testing.assert_allclose(mg.jvp(lambda *xs: call(f, *xs), values, t)[1],
                                   mg.jvp(lambda *xs: call(plain, *xs), values, t)[1],
                                   rtol=1e-12)
    if kind != "custom_vmap":
        np.testing.assert_allclose(
            mg.grad(lambda x0, *xs: mnp.sum(call(f, x0, *xs)))(*values),
            mg.grad(lambda x0, *xs: mnp.sum(call(plain, x0, *xs)))(*values), rtol=1e-12)
    batch = [np.stack([v, 2 * v]) for v in values]
    np.testing.assert_allclose(mg.vmap(lambda *xs: call(f, *xs))(*batch),
                               mg.vmap(lambda *xs: call(plain, *xs))(*batch), rtol=1e-12)


# =========================================================================== item 16: None in bwd
"""Item 16: a custom_vjp bwd may return None for a cotangent, of a leaf or of a whole argument:
a zero, as in JAX. Property: every subset of the arguments left as None, against JAX when
installed and against the true gradient with those entries zeroed."""


def test_item16_none_is_a_zero_cotangent() -> None:
    f = mg.custom_vjp(lambda x, y: x * y)
    f.defvjp(lambda x, y: (x * y, (x, y)), lambda r, ct: (ct * r[1], None))
    gx, gy = mg.grad(lambda x, y: mnp.sum(f(x, y)), argnums=(0, 1))(np.ones(2), np.full(2, 3.0))
    np.testing.assert_allclose(gx, [3.0, 3.0])
    np.testing.assert_allclose(gy, [0.0, 0.0])


def _tree_fn() -> tuple[Callable, Callable]:
    """A function of (x, {"a": y, "b": (z, n)}) with an integer n, and its true pullback."""
    def plain(x: Any, p: dict) -> Any:
        return x * p["a"] + mnp.sin(p["b"][0]) * p["b"][1]

    def pullback(res: tuple, ct: Any) -> tuple:
        x, p = res
        return ct * p["a"], {"a": ct * x, "b": (ct * mnp.cos(p["b"][0]) * p["b"][1], None)}

    return plain, pullback


NONE_SPOTS = ["x", "a", "z", "p", "b"]


@settings(max_examples=30)
@given(st.lists(st.sampled_from(NONE_SPOTS), unique=True))
def test_item16_none_anywhere(spots: list[str]) -> None:
    plain, pullback = _tree_fn()
    f = mg.custom_vjp(plain)

    def bwd(res: tuple, ct: Any) -> tuple:
        cx, cp = pullback(res, ct)
        cp = {"a": None if "a" in spots else cp["a"],
              "b": None if "b" in spots else (None if "z" in spots else cp["b"][0], None)}
        return (None if "x" in spots else cx), (None if "p" in spots else cp)

    f.defvjp(lambda x, p: (plain(x, p), (x, p)), bwd)
    x, p = np.arange(1.0, 4.0), {"a": np.full(3, 2.0), "b": (np.linspace(0, 1, 3), np.int64(3))}
    gx, gp = mg.grad(lambda x, p: mnp.sum(f(x, p)), argnums=(0, 1), allow_int=True)(x, p)
    tx, tp = mg.grad(lambda x, p: mnp.sum(plain(x, p)), argnums=(0, 1), allow_int=True)(x, p)
    zero = {"x": "x" in spots, "a": "a" in spots or "p" in spots,
            "z": "z" in spots or "b" in spots or "p" in spots}
    np.testing.assert_allclose(gx, 0 * tx if zero["x"] else tx)
    np.testing.assert_allclose(gp["a"], 0 * tp["a"] if zero["a"] else tp["a"])
    np.testing.assert_allclose(gp["b"][0], 0 * tp["b"][0] if zero["z"] else tp["b"][0])
    assert gp["b"][1].dtype == float0


def test_item16_against_jax() -> None:
    jax = pytest.importorskip("jax", reason="the cross-check needs jax installed")
    with jax.enable_x64(True):
        h = jax.custom_vjp(lambda p: p["a"] * p["b"])
        h.defvjp(lambda p: (h(p), p), lambda r, ct: ({"a": ct * r["b"], "b": None},))
        ours = mg.custom_vjp(lambda p: p["a"] * p["b"])
        ours.defvjp(lambda p: (ours(p), p), lambda r, ct: ({"a": ct * r["b"], "b": None},))
        p = {"a": np.ones(2), "b": np.full(2, 3.0)}
        want = jax.grad(lambda p: h(p).sum())(p)
        got = mg.grad(lambda p: mnp.sum(ours(p)))(p)
        for k in ("a", "b"):
            np.testing.assert_allclose(got[k], want[k])


def test_item16_a_cotangent_covering_a_subtree_is_refused() -> None:
    f = mg.custom_vjp(lambda p: p["a"] * p["b"])
    f.defvjp(lambda p: (f(p), p), lambda r, ct: (ct,))  # one array for a dict of two
    with pytest.raises(TypeError, match="bwd of <lambda> must return a tuple of the "
                                        "arguments' structure"):
        mg.grad(lambda p: mnp.sum(f(p)))({"a": np.ones(2), "b": np.ones(2)})


# =========================================================================== item 18: memory
"""Item 18: a custom function and what it closes over are freed with its last reference,
whatever transforms it went through: its programs and rules are cached on it, never in a
module-level cache."""


def _kinds() -> dict[str, Callable[[np.ndarray], Callable]]:
    def jvp_fn(big: np.ndarray) -> Callable:
        f = mg.custom_jvp(lambda x: x * big[0])
        f.defjvp(lambda p, t: (f(*p), t[0] * big[0]))
        return f

    def vjp_fn(big: np.ndarray) -> Callable:
        f = mg.custom_vjp(lambda x: x * big[0])
        f.defvjp(lambda x: (f(x), None), lambda r, ct: (ct * big[0],))
        return f

    def vmap_fn(big: np.ndarray) -> Callable:
        f = mg.custom_vmap(lambda x: x * big[0])
        f.def_vmap(lambda n, b, x: (x * big[0], b[0]))
        return f

    return {"custom_jvp": jvp_fn, "custom_vjp": vjp_fn, "custom_vmap": vmap_fn}


USES: dict[str, Callable[[Callable], Any]] = {
    "call": lambda f: f(np.ones(3)),
    "grad": lambda f: mg.grad(lambda x: mnp.sum(f(x)))(np.ones(3)),
    "vmap": lambda f: mg.vmap(f)(np.ones((2, 3))),
    "vmap(grad)": lambda f: mg.vmap(mg.grad(lambda x: mnp.sum(f(x))))(np.ones((2, 3))),
    "named vmap": lambda f: mg.vmap(f, axis_name="i")(np.ones((2, 3))),
    "jit": lambda f: mg.jit(lambda x: f(x))(np.ones(3)),
    "make_jaxpr": lambda f: mg.make_jaxpr(f)(np.ones(3)),
}


def test_item18_a_custom_function_dies_with_its_last_reference() -> None:
    refs = []
    for kind, make in _kinds().items():
        for use, run in USES.items():
            big = np.ones(1000)
            f = make(big)
            run(f)
            refs.append((f"{kind} after {use}", weakref.ref(f), weakref.ref(big)))
            del f, big
    gc.collect()
    alive = [what for what, f, big in refs if f() is not None or big() is not None]
    assert not alive, f"still alive, with what they close over: {alive}"


def test_item18_forty_functions_closing_over_8_mb_each() -> None:
    import tracemalloc

    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(40):
            big = np.ones(1_000_000)  # 8 MB
            f = _kinds()["custom_vjp"](big)
            mg.grad(lambda x, f=f: mnp.sum(f(x)))(np.ones(3))
            mg.vmap(mg.grad(lambda x, f=f: mnp.sum(f(x))))(np.ones((2, 3)))
            del f, big
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert kept < 16 * 2 ** 20, f"{kept / 2 ** 20:.1f} MiB kept"  # issue: 305 MiB


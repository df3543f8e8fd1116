"""No mutation, no dangerous aliasing.

1. Every op and every transform leaves its inputs bit-identical: the five ops eagerly and under
   jvp, vjp (and its vjp_fn), linearize (and its f_jvp), grad, value_and_grad, vmap (index and
   mask batched too), jacfwd, jacrev, hessian, make_jaxpr (and the jaxpr's evaluation) and
   linear_transpose. Inputs are passed read-only, so an in-place write raises on the spot, and
   compared byte for byte afterwards (nan payloads and -0.0 included); non-contiguous inputs too.
2. Results never alias inputs in a way that lets a later write to a result change an input:

   * the five ops always return a new, writable array that shares no memory with ``x``,
     ``index``, ``mask``, ``source`` or ``value`` (0-d ``x``, an empty index, an all-false mask,
     nothing filled: still a new array);
   * a transform's results never share memory with its arguments: a value passed straight
     through (the tangent of ``x + 1``, the output of ``vmap`` of the identity, the cotangent of
     a reshape) is copied at the API boundary;
   * by design, as in NumPy: the structural functions of ``minigrad.numpy`` (``reshape``,
     ``transpose``, ``squeeze``, ``expand_dims``, basic slicing) return views of their input,
     exactly where NumPy's do, and broadcasts (``broadcast_to``, and gradients that are a
     broadcast scalar, like ``grad`` of a sum) are *read-only* views, as ``np.broadcast_to``
     returns: writing into one raises instead of writing anywhere. ``np.array(result)`` gives a
     writable copy. ``eval_jaxpr`` and a ``ClosedJaxpr`` call evaluate the function, so they
     return what the function returns (its argument itself, for the identity).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg
from minigrad import numpy as mnp


def frozen(x: Any) -> Any:
    """A read-only copy: any write into it raises."""
    out = np.array(x)
    out.flags.writeable = False
    return out


def snapshot(arrays: list) -> list[bytes]:
    return [np.ascontiguousarray(a).tobytes() for a in arrays]


def arrays_in(tree: Any) -> list[np.ndarray]:
    return [leaf for leaf in mg.tree_leaves(tree) if isinstance(leaf, np.ndarray)]


RNG = np.random.default_rng(0)


def _x(shape: tuple = (4, 3)) -> np.ndarray:
    x = RNG.standard_normal(shape)
    x.flat[0] = -0.0  # the sign of zero and a nan payload must survive bit for bit
    return x


# Each op as f(x, index-or-mask, source-or-value), with its arguments; positions 0 and 2 are
# differentiable.
def op_cases() -> dict[str, tuple[Callable[..., Any], tuple]]:
    index = np.array([3, 0, 3])
    mask = RNG.random((4, 3)) < 0.5
    return {
        "index_add": (lambda x, i, s: mg.index_add(x, 0, i, s, 2.0),
                      (_x(), index, _x((3, 3)))),
        "index_add-dim1-noncontiguous": (lambda x, i, s: mg.index_add(x, -1, i, s),
                                         (_x((3, 4)).T, np.array([1, 1]), _x((4, 2)))),
        "index_copy": (lambda x, i, s: mg.index_copy(x, 0, i, s), (_x(), index, _x((3, 3)))),
        "index_fill": (lambda x, i, v: mg.index_fill(x, 1, i, v),
                       (_x(), np.array([2, 2]), np.float64(0.5))),
        "masked_fill": (lambda x, m, v: mg.masked_fill(x, m, v), (_x(), mask, np.float64(2.0))),
        "masked_fill-broadcast": (lambda x, m, v: mg.masked_fill(x, m, v),
                                  (_x((3,)), mask, np.float64(2.0))),
        "masked_scatter": (lambda x, m, s: mg.masked_scatter(x, m, s), (_x(), mask, _x((2, 6)))),
    }


OP_CASES = op_cases()


def _loss(f: Callable[..., Any]) -> Callable[..., Any]:
    return lambda *a: mnp.sum(mnp.sin(f(*a)))


def _ones(args: tuple, diff: tuple) -> tuple:
    return tuple(frozen(np.ones_like(args[i])) for i in diff)


def _restrict(f: Callable[..., Any], args: tuple, diff: tuple) -> Callable[..., Any]:
    """f as a function of the differentiable arguments only."""
    def g(*vals: Any) -> Any:
        full = list(args)
        for i, v in zip(diff, vals, strict=True):
            full[i] = v
        return f(*full)

    return g


def run_transform(name: str, f: Callable[..., Any], args: tuple) -> list:
    """Run ``f`` under ``name``, passing frozen tangents and cotangents too; return everything
    the caller passed in, to check afterwards."""
    diff = (0, 2)
    g = _restrict(f, args, diff)
    primals = tuple(args[i] for i in diff)
    passed: list = []
    if name == "eager":
        f(*args)
    elif name == "jvp":
        tangents = _ones(args, diff)
        passed += tangents
        mg.jvp(g, primals, tangents)
    elif name == "vjp":
        out, f_vjp = mg.vjp(g, *primals)
        ct = frozen(np.ones_like(out))
        passed.append(ct)
        f_vjp(ct)
    elif name == "linearize":
        _, f_jvp = mg.linearize(g, *primals)
        tangents = _ones(args, diff)
        passed += tangents
        f_jvp(*tangents)
    elif name == "grad":
        mg.grad(_loss(f), diff)(*args)
    elif name == "value_and_grad":
        mg.value_and_grad(_loss(f), diff)(*args)
    elif name == "vmap":  # every argument batched, the index or mask included
        batched = tuple(frozen(np.stack([a, a])) for a in args)
        passed += batched
        mg.vmap(f)(*batched)
    elif name == "vmap-x-only":
        batched_x = frozen(np.stack([args[0], args[0]]))
        passed.append(batched_x)
        mg.vmap(f, in_axes=(0, None, None))(batched_x, *args[1:])
    elif name == "jacfwd":
        mg.jacfwd(f, diff)(*args)
    elif name == "jacrev":
        mg.jacrev(f, diff)(*args)
    elif name == "hessian":
        mg.hessian(_loss(f), diff)(*args)
    elif name == "make_jaxpr":
        mg.make_jaxpr(f)(*args)(*args)
    elif name == "linear_transpose":
        out = g(*primals)
        ct = frozen(np.ones_like(out))
        passed.append(ct)
        mg.linear_transpose(g, *primals)(ct)
    else:
        raise AssertionError(name)
    return passed


TRANSFORMS = ["eager", "jvp", "vjp", "linearize", "grad", "value_and_grad", "vmap",
              "vmap-x-only", "jacfwd", "jacrev", "hessian", "make_jaxpr", "linear_transpose"]


@pytest.mark.parametrize("transform", TRANSFORMS)
@pytest.mark.parametrize("op", sorted(OP_CASES))
def test_inputs_bit_identical(op: str, transform: str) -> None:
    f, args = OP_CASES[op]
    args = tuple(frozen(a) if a.flags.c_contiguous else _frozen_view(a) for a in args)
    before = snapshot(list(args))
    passed = run_transform(transform, f, args)
    passed_before = snapshot(passed)
    assert snapshot(list(args)) == before
    assert snapshot(passed) == passed_before


def _frozen_view(a: np.ndarray) -> np.ndarray:
    """A read-only non-contiguous view with ``a``'s values (a transposed frozen copy)."""
    base = frozen(a.T)
    view = base.T
    assert not view.flags.c_contiguous
    return view


def test_the_checks_catch_a_write() -> None:
    # Read-only inputs turn an ordinary write into an error on the spot...
    x = frozen(np.zeros(3))
    with pytest.raises(ValueError, match="read-only"):
        x[np.array([0])] = 1.0
    # ...but NumPy's ufunc.at ignores the flag (index_add's np.add.at path would write
    # silently), which is why every input is also compared byte for byte afterwards.
    before = snapshot([x])
    try:
        np.add.at(x, np.array([0]), 1.0)
    except ValueError:  # a NumPy that honours the flag here too
        return
    assert snapshot([x]) != before


def test_numpy_functions_under_transforms_do_not_write() -> None:
    x = frozen(_x())

    def f(x: Any) -> Any:
        y = mnp.cumsum(mnp.reshape(x, (3, 4)).T, axis=0) @ mnp.ones((3, 2))
        z = mnp.concatenate([y, mnp.maximum(y, 0.0)], axis=1)
        return mnp.sum(mnp.take(z, np.array([0, 0, 3]), axis=0) ** 2) + x[1:, ::-1].sum()

    before = snapshot([x])
    mg.grad(f)(x)
    mg.hessian(f)(x)
    mg.vmap(mg.grad(f))(frozen(np.stack([x, x])))
    assert snapshot([x]) == before


# --------------------------------------------------------------------------- aliasing


def _fresh(out: Any, inputs: list) -> None:
    out = np.asarray(out)
    for a in inputs:
        assert not np.shares_memory(out, a)


def op_outputs() -> dict[str, tuple[Callable[[], Any], list]]:
    """The five ops in the forms most likely to hand back their input: nothing changed."""
    x, x0 = _x(), np.array(1.5)
    none = np.array([], np.int64)
    false = np.zeros((4, 3), bool)
    return {
        "index_add": (lambda: mg.index_add(x, 0, none, np.zeros((0, 3))), [x]),
        "index_add-0d": (lambda: mg.index_add(x0, 0, 0, np.float64(1.0)), [x0]),
        "index_copy": (lambda: mg.index_copy(x, 1, none, np.zeros((4, 0))), [x]),
        "index_copy-0d": (lambda: mg.index_copy(x0, 0, 0, x0), [x0]),
        "index_fill": (lambda: mg.index_fill(x, 0, none, 1.0), [x]),
        "index_fill-0d": (lambda: mg.index_fill(x0, 0, 0, 1.0), [x0]),
        "masked_fill": (lambda: mg.masked_fill(x, false, 1.0), [x]),
        "masked_fill-0d-mask": (lambda: mg.masked_fill(x, np.array(False), 1.0), [x]),
        "masked_scatter": (lambda: mg.masked_scatter(x, false, np.zeros(0)), [x]),
        "masked_scatter-0d": (lambda: mg.masked_scatter(x0, np.array(True), x0), [x0]),
        "vmap-index_fill": (lambda: mg.vmap(lambda a: mg.index_fill(a, 0, none, 1.0))(x), [x]),
        "vmap-masked_fill": (lambda: mg.vmap(lambda a: mg.masked_fill(a, false[0], 1.0))(x),
                             [x]),
        "jvp-index_copy": (lambda: mg.jvp(lambda a: mg.index_copy(a, 1, none, np.zeros((4, 0))),
                                          (x,), (x,))[1], [x]),
    }


OP_OUTPUTS = op_outputs()


@pytest.mark.parametrize("name", sorted(OP_OUTPUTS))
def test_op_results_are_new_writable_arrays(name: str) -> None:
    make, inputs = OP_OUTPUTS[name]
    before = snapshot(inputs)
    out = make()
    assert isinstance(out, np.ndarray)
    _fresh(out, inputs)
    assert out.flags.writeable
    out[...] = 5.0  # a user's later write into the result
    assert snapshot(inputs) == before


def test_example_from_the_issue() -> None:
    x = np.zeros(5)
    out = mg.index_add(x, 0, np.array([1]), np.array([2.0]))
    out[0] = 5
    assert np.all(x == 0)


def transform_outputs() -> dict[str, tuple[Callable[[np.ndarray, np.ndarray], list], str]]:
    """Transforms of functions that pass a value straight through, each returning its results;
    the second entry names the arguments the results must not alias."""
    def identity(a: Any) -> Any:
        return a

    def plus_one(a: Any) -> Any:
        return a + 1.0

    def reshape(a: Any) -> Any:
        return mnp.reshape(a, (-1,))

    return {
        "vmap": (lambda x, t: [mg.vmap(identity)(x)], "x"),
        "vmap-moved-axis": (lambda x, t: [mg.vmap(identity, out_axes=1)(x)], "x"),
        "jvp": (lambda x, t: list(mg.jvp(identity, (x,), (t,))), "x, t"),
        "jvp-tangent-passes": (lambda x, t: [mg.jvp(plus_one, (x,), (t,))[1]], "t"),
        "vjp": (lambda x, t: [mg.vjp(identity, x)[0], *mg.vjp(plus_one, x)[1](t)], "x, t"),
        "vjp-reshape": (lambda x, t: list(mg.vjp(reshape, x)[1](t.ravel())), "t"),
        "vjp-aux": (lambda x, t: [mg.vjp(lambda a: (a * 2.0, a), x, has_aux=True)[2]], "x"),
        "linearize": (lambda x, t: [mg.linearize(identity, x)[0],
                                    mg.linearize(plus_one, x)[1](t)], "x, t"),
        "linear_transpose": (lambda x, t: list(mg.linear_transpose(identity, x)(t)), "t"),
        "value_and_grad-0d": (lambda x, t: [mg.value_and_grad(identity)(x[0, 0])[0]], "x"),
        "grad-aux": (lambda x, t: [mg.grad(lambda a: (a.sum(), a), has_aux=True)(x)[1]], "x"),
    }


TRANSFORM_OUTPUTS = transform_outputs()


@pytest.mark.parametrize("name", sorted(TRANSFORM_OUTPUTS))
def test_transform_results_never_alias_arguments(name: str) -> None:
    x, t = _x(), _x()
    run, _ = TRANSFORM_OUTPUTS[name]
    before = snapshot([x, t])
    outs = run(x, t)
    assert outs
    for out in outs:
        assert isinstance(out, np.ndarray)
        _fresh(out, [x, t])
        if out.flags.writeable:
            out[...] = 7.0
    assert snapshot([x, t]) == before


def test_eval_jaxpr_returns_what_the_function_returns() -> None:
    # Evaluating a jaxpr is calling the function: the identity gives back its argument.
    x = _x()
    assert mg.make_jaxpr(lambda a: a)(x)(x) is x


VIEWS = {
    "reshape": (lambda x: mnp.reshape(x, (3, 4)), lambda x: np.reshape(x, (3, 4))),
    "transpose": (mnp.transpose, np.transpose),
    "squeeze-expand_dims": (lambda x: mnp.squeeze(mnp.expand_dims(x, 0), 0),
                            lambda x: np.squeeze(np.expand_dims(x, 0), 0)),
    "slice": (lambda x: mnp.getitem(x, (slice(1, None), slice(None, None, 2))),
              lambda x: x[1:, ::2]),
    "ravel": (mnp.ravel, np.ravel),
}


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_structural_functions_return_views_like_numpy(name: str) -> None:
    """As in NumPy: the result is a view of x, equal to NumPy's, and writing into it writes
    into x (these are not transforms, and NumPy code relies on it)."""
    ours, numpys = VIEWS[name]
    x = _x()
    out = ours(x)
    np.testing.assert_array_equal(out, numpys(x))
    assert np.shares_memory(out, x) and np.shares_memory(numpys(x), x)
    out.flat[0] = 42.0
    assert 42.0 in x


def test_broadcasts_are_read_only() -> None:
    x = _x((3,))
    b = mnp.broadcast_to(x, (4, 3))
    assert np.shares_memory(b, x) and not b.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        b[0, 0] = 1.0
    g = mg.grad(lambda a: mnp.sum(a))(x)  # a broadcast scalar
    np.testing.assert_array_equal(g, np.ones(3))
    assert not np.shares_memory(g, x)
    if not g.flags.writeable:
        with pytest.raises(ValueError, match="read-only"):
            g[0] = 2.0
    writable = np.array(g)
    writable[0] = 2.0
    assert np.all(x == x)  # x untouched either way

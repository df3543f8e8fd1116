"""The bad-input catalogue: every mistake a user can make with the five ops, the transforms,
pytrees and the command line, in one table.

Each row is a call and what it must raise: the exception type (TypeError for wrong kinds and
dtypes, ValueError for shapes, dims and axes, IndexError for indices: docs/design.md, section 5)
and the words its message must contain: the op or transform, and the argument at fault. The error
must be raised by minigrad itself, never from inside NumPy (no NumPy-internal traceback), and
nothing in the table may return an answer. Command-line rows run ``python -m minigrad`` in
process: exit status 2 and one line on stderr naming the command and the argument.

Rows marked ``# fixed`` had a poor message, a NumPy traceback or an answer before this
catalogue existed; the fix is named in test_regressions.py.
"""

from __future__ import annotations

import collections
import contextlib
import io
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg
from minigrad import numpy as mnp
from minigrad.tools import cli

MINIGRAD = Path(mg.__file__).resolve().parent

X = np.zeros((3, 4))
S = np.ones((2, 4))
I = np.array([0, 2])  # noqa: E741
M = np.zeros((3, 4), bool)


def f_sum(a: Any) -> Any:
    return mnp.sum(a)


@dataclass
class Row:
    id: str
    call: Callable[[], Any]
    error: type[BaseException]
    words: tuple[str, ...]


def row(id: str, call: Callable[[], Any], error: type[BaseException], *words: str) -> Row:
    return Row(id, call, error, words)


class Thing:
    """A class nobody registered as a pytree node."""


class Half:
    """Registered below with a flatten function that returns one value, not a pair."""

    def __init__(self) -> None:
        self.a = np.zeros(2)


mg.register_pytree_node(Half, lambda h: h.a, lambda aux, children: Half())
Pair = collections.namedtuple("Pair", "a b")
Other = collections.namedtuple("Other", "a b")


def _leak_grad_tracer() -> Any:
    box = []
    mg.grad(lambda a: box.append(a * 2.0) or mnp.sum(a))(np.ones(3))
    return box[0]


OPS = [
    # ---------------------------------------------------------------- index_add
    row("index_add-x-str", lambda: mg.index_add("abc", 0, I, S), TypeError,
        "index_add", "x"),  # fixed
    row("index_add-x-None", lambda: mg.index_add(None, 0, I, S), TypeError, "index_add", "x"),
    row("index_add-x-object-array", lambda: mg.index_add(np.array([None] * 3), 0, I, S),
        TypeError, "index_add", "x", "object"),
    row("index_add-dim-float", lambda: mg.index_add(X, 0.0, I, S), TypeError,
        "index_add", "dim"),
    row("index_add-dim-bool", lambda: mg.index_add(X, True, I, S), TypeError,
        "index_add", "dim"),
    row("index_add-dim-out-of-range", lambda: mg.index_add(X, 2, I, S), ValueError,
        "index_add", "dim", "[-2, 2)"),
    row("index_add-index-float", lambda: mg.index_add(X, 0, np.array([0.0, 1.0]), S), TypeError,
        "index_add", "index", "float64"),
    row("index_add-index-bool", lambda: mg.index_add(X, 0, np.array([True, False]), S),
        TypeError, "index_add", "index", "bool"),
    row("index_add-index-2d", lambda: mg.index_add(X, 0, np.array([[0, 1]]), S), ValueError,
        "index_add", "index", "rank"),
    row("index_add-index-negative", lambda: mg.index_add(X, 0, np.array([-1, 0]), S),
        IndexError, "index_add", "index", "[0, 3)", "-1"),
    row("index_add-index-too-big", lambda: mg.index_add(X, 0, np.array([3, 0]), S),
        IndexError, "index_add", "index", "got 3"),
    row("index_add-index-None", lambda: mg.index_add(X, 0, None, S), TypeError,
        "index_add", "index"),
    row("index_add-index-batched-out-of-range",
        lambda: mg.vmap(lambda i: mg.index_add(X, 0, i, S))(np.array([[0, 1], [0, 9]])),
        IndexError, "index_add", "index", "got 9"),
    row("index_add-index-staged-out-of-range",
        lambda: mg.make_jaxpr(lambda i: mg.index_add(X, 0, i, S))(I)(np.array([0, 9])),
        IndexError, "index_add", "index", "got 9"),
    row("index_add-index-traced-method",
        lambda: mg.grad(lambda a: a.index_add(0, np.array([7]), np.ones((1, 4))).sum())(X),
        IndexError, "index_add", "index", "got 7"),
    row("index_add-source-dtype", lambda: mg.index_add(X, 0, I, S.astype(np.float32)),
        TypeError, "index_add", "source", "float32"),
    row("index_add-source-shape", lambda: mg.index_add(X, 0, I, np.ones((3, 4))), ValueError,
        "index_add", "source", "(2, 4)"),
    row("index_add-source-str", lambda: mg.index_add(X, 0, I, "s"), TypeError,
        "index_add", "source"),  # fixed
    row("index_add-alpha-str", lambda: mg.index_add(X, 0, I, S, "a"), TypeError,
        "index_add", "alpha"),
    row("index_add-alpha-array", lambda: mg.index_add(X, 0, I, S, np.ones(2)), TypeError,
        "index_add", "alpha"),
    row("index_add-alpha-complex", lambda: mg.index_add(X, 0, I, S, 1j), TypeError,
        "index_add", "alpha", "real"),
    row("index_add-alpha-fraction-int-x",
        lambda: mg.index_add(X.astype(int), 0, I, S.astype(int), 0.5), TypeError,
        "index_add", "alpha", "integer"),
    row("index_add-alpha-traced",
        lambda: mg.grad(lambda a: mg.index_add(X, 0, I, S, a).sum())(np.float64(1.0)),
        TypeError, "index_add", "alpha"),
    row("index_add-grad-wrt-index",
        lambda: mg.grad(lambda a, i: mg.index_add(a, 0, i, S).sum(), argnums=1)(X, I),
        TypeError, "grad", "args[1]", "floating"),
    # ---------------------------------------------------------------- index_copy
    row("index_copy-x-None", lambda: mg.index_copy(None, 0, I, S), TypeError,
        "index_copy", "x"),  # fixed
    row("index_copy-dim-out-of-range", lambda: mg.index_copy(X, -3, I, S), ValueError,
        "index_copy", "dim"),
    row("index_copy-index-negative", lambda: mg.index_copy(X, 1, np.array([-2]), np.ones((3, 1))),
        IndexError, "index_copy", "index", "-2"),
    row("index_copy-index-float", lambda: mg.index_copy(X, 0, [0.5, 1.0], S), TypeError,
        "index_copy", "index"),
    row("index_copy-source-shape", lambda: mg.index_copy(X, 1, I, S), ValueError,
        "index_copy", "source", "(3, 2)"),
    row("index_copy-source-dtype", lambda: mg.index_copy(X, 0, I, S.astype(int)), TypeError,
        "index_copy", "source"),
    row("index_copy-index-batched-out-of-range",
        lambda: mg.vmap(lambda i: mg.index_copy(X, 0, i, S))(np.array([[0, 3]])),
        IndexError, "index_copy", "index", "got 3"),
    # ---------------------------------------------------------------- index_fill
    row("index_fill-x-str", lambda: mg.index_fill("abc", 0, I, 1.0), TypeError,
        "index_fill", "x"),  # fixed
    row("index_fill-value-array", lambda: mg.index_fill(X, 0, I, np.ones(2)), ValueError,
        "index_fill", "value", "0-d"),
    row("index_fill-value-str", lambda: mg.index_fill(X, 0, I, "v"), TypeError,
        "index_fill", "value"),
    row("index_fill-value-None", lambda: mg.index_fill(X, 0, I, None), TypeError,
        "index_fill", "value"),
    row("index_fill-value-complex", lambda: mg.index_fill(X, 0, I, 1j), TypeError,
        "index_fill", "value", "real"),
    row("index_fill-value-overflows-int8", lambda: mg.index_fill(np.zeros(3, np.int8), 0, I, 300),
        TypeError, "index_fill", "value", "int8"),
    row("index_fill-value-fraction-int-x",
        lambda: mg.index_fill(np.zeros(3, np.int64), 0, I, 0.5), TypeError,
        "index_fill", "value", "integer"),
    row("index_fill-value-traced-not-0d",
        lambda: mg.grad(lambda v: mg.index_fill(X, 0, I, v).sum())(np.ones(2)), ValueError,
        "index_fill", "value", "0-d"),
    row("index_fill-value-traced-float-into-int",
        lambda: mg.vmap(lambda v: mg.index_fill(np.zeros(3, int), 0, I, v))(np.ones(2)),
        TypeError, "index_fill", "value", "int64"),
    row("index_fill-index-out-of-range", lambda: mg.index_fill(X, 1, np.array([4]), 1.0),
        IndexError, "index_fill", "index", "[0, 4)"),
    row("index_fill-dim-str", lambda: mg.index_fill(X, "0", I, 1.0), TypeError,
        "index_fill", "dim"),
    # ---------------------------------------------------------------- masked_fill
    row("masked_fill-x-None", lambda: mg.masked_fill(None, M, 1.0), TypeError,
        "masked_fill", "x"),  # fixed: returned an object array
    row("masked_fill-mask-uint8", lambda: mg.masked_fill(X, M.astype(np.uint8), 1.0), TypeError,
        "masked_fill", "mask", "bool"),
    row("masked_fill-mask-int-list", lambda: mg.masked_fill(X, [[1, 0, 0, 0]] * 3, 1.0),
        TypeError, "masked_fill", "mask", "bool"),
    row("masked_fill-mask-None", lambda: mg.masked_fill(X, None, 1.0), TypeError,
        "masked_fill", "mask"),  # fixed
    row("masked_fill-mask-shape", lambda: mg.masked_fill(X, np.zeros(3, bool), 1.0), ValueError,
        "masked_fill", "mask", "broadcast"),
    row("masked_fill-value-array", lambda: mg.masked_fill(X, M, np.ones(3)), ValueError,
        "masked_fill", "value"),
    row("masked_fill-value-str", lambda: mg.masked_fill(X, M, "v"), TypeError,
        "masked_fill", "value"),
    row("masked_fill-grad-wrt-mask",
        lambda: mg.grad(lambda a, m: mg.masked_fill(a, m, 0.0).sum(), argnums=1)(X, M),
        TypeError, "grad", "args[1]"),
    row("masked_fill-affine-transposed",
        lambda: mg.linear_transpose(lambda a: mg.masked_fill(a, M, 1.0), X)(X), TypeError,
        "linear_transpose", "masked_fill", "linear"),  # fixed: named only masked_fill
    # ---------------------------------------------------------------- masked_scatter
    row("masked_scatter-x-None", lambda: mg.masked_scatter(None, M, np.ones(12)), TypeError,
        "masked_scatter", "x"),  # fixed
    row("masked_scatter-source-too-small",
        lambda: mg.masked_scatter(X, np.ones((3, 4), bool), np.ones(5)), ValueError,
        "masked_scatter", "source", "12"),
    row("masked_scatter-source-too-small-per-example",
        lambda: mg.vmap(lambda m: mg.masked_scatter(X, m, np.ones(2)))(np.ones((2, 3, 4), bool)),
        ValueError, "masked_scatter", "source", "example"),
    row("masked_scatter-source-dtype", lambda: mg.masked_scatter(X, M, np.ones(12, np.float32)),
        TypeError, "masked_scatter", "source", "float32"),
    row("masked_scatter-source-str", lambda: mg.masked_scatter(X, M, "abc"), TypeError,
        "masked_scatter", "source"),  # fixed
    row("masked_scatter-mask-float", lambda: mg.masked_scatter(X, M.astype(float), np.ones(12)),
        TypeError, "masked_scatter", "mask", "bool"),
    row("masked_scatter-mask-shape", lambda: mg.masked_scatter(X, np.zeros(2, bool), np.ones(12)),
        ValueError, "masked_scatter", "mask"),
]


def not_callable(name: str) -> Row:
    calls: dict[str, Callable[[], Any]] = {
        "grad": lambda: mg.grad(None),
        "value_and_grad": lambda: mg.value_and_grad(3),
        "jvp": lambda: mg.jvp(None, (X,), (X,)),
        "vjp": lambda: mg.vjp(None, X),
        "linearize": lambda: mg.linearize("f", X),
        "vmap": lambda: mg.vmap(None),
        "jacfwd": lambda: mg.jacfwd(None),
        "jacrev": lambda: mg.jacrev(None),
        "hessian": lambda: mg.hessian(None),
        "make_jaxpr": lambda: mg.make_jaxpr(None),
        "linear_transpose": lambda: mg.linear_transpose(None, X),
    }
    return row(f"{name}-fun-not-callable", calls[name], TypeError, name, "fun")  # fixed


TRANSFORMS = [
    *[not_callable(n) for n in ("grad", "value_and_grad", "jvp", "vjp", "linearize", "vmap",
                                "jacfwd", "jacrev", "hessian", "make_jaxpr",
                                "linear_transpose")],
    # ---------------------------------------------------------------- grad, value_and_grad
    row("grad-non-scalar-output", lambda: mg.grad(lambda a: a)(X), TypeError,
        "grad", "scalar", "(3, 4)"),
    row("grad-integer-output", lambda: mg.grad(lambda a: mnp.sum(a > 0))(X), TypeError,
        "grad", "floating", "int64"),
    row("grad-tuple-output", lambda: mg.grad(lambda a: (f_sum(a), f_sum(a)))(X), TypeError,
        "grad", "scalar", "has_aux"),  # fixed: said a tuple is not a pytree of arrays
    row("grad-str-output", lambda: mg.grad(lambda a: "s")(X), TypeError, "grad", "str"),
    row("grad-integer-input", lambda: mg.grad(f_sum)(np.arange(3)), TypeError,
        "grad", "args[0]", "int64"),
    row("grad-complex-input", lambda: mg.grad(f_sum)(np.ones(2, complex)), TypeError,
        "grad", "args[0]", "complex128"),
    row("grad-argnums-out-of-range", lambda: mg.grad(f_sum, argnums=5)(X), ValueError,
        "grad", "argnums"),
    row("grad-argnums-str", lambda: mg.grad(f_sum, argnums="0")(X), TypeError,
        "grad", "argnums"),
    row("grad-argnums-float", lambda: mg.grad(f_sum, argnums=0.0)(X), TypeError,
        "grad", "argnums"),  # fixed: "'float' object is not iterable"
    row("grad-argument-str", lambda: mg.grad(f_sum)("x"), TypeError, "grad", "args[0]", "str"),
    row("grad-argument-object", lambda: mg.grad(f_sum)(Thing()), TypeError,
        "grad", "args[0]", "Thing"),
    row("grad-has_aux-not-a-pair", lambda: mg.grad(f_sum, has_aux=True)(X), TypeError,
        "grad", "has_aux"),
    row("value_and_grad-non-scalar-output", lambda: mg.value_and_grad(lambda a: a)(X),
        TypeError, "value_and_grad", "scalar"),  # fixed: said grad
    row("value_and_grad-integer-input", lambda: mg.value_and_grad(f_sum)(np.arange(3)),
        TypeError, "value_and_grad", "args[0]"),  # fixed: said grad
    # ---------------------------------------------------------------- jvp
    row("jvp-primals-not-a-tuple", lambda: mg.jvp(lambda a: a, X, X), TypeError,
        "jvp", "primals"),
    row("jvp-tangents-structure", lambda: mg.jvp(lambda a, b: a, (X, X), (X,)), ValueError,
        "jvp", "tangents", "structure"),
    row("jvp-tangent-shape", lambda: mg.jvp(lambda a: a, (X,), (np.ones(3),)), ValueError,
        "jvp", "tangent", "primals[0]", "(3, 4)"),
    row("jvp-tangent-dtype", lambda: mg.jvp(lambda a: a, (X,), (X.astype(np.float32),)),
        TypeError, "jvp", "tangent", "primals[0]", "float32"),
    row("jvp-integer-primal-float-tangent",
        lambda: mg.jvp(lambda a: a, (np.arange(3),), (np.ones(3),)), TypeError,
        "jvp", "tangent", "float0"),
    row("jvp-str-output", lambda: mg.jvp(lambda a: "s", (X,), (X,)), TypeError, "jvp", "str"),
    # ---------------------------------------------------------------- vjp
    row("vjp-cotangent-shape", lambda: mg.vjp(lambda a: a, X)[1](np.ones(3)), ValueError,
        "vjp", "cotangent", "f64[3,4]"),
    row("vjp-cotangent-dtype", lambda: mg.vjp(lambda a: a, X)[1](X.astype(np.float32)),
        TypeError, "vjp", "cotangent", "f32[3,4]"),  # fixed: was a ValueError
    row("vjp-cotangent-structure", lambda: mg.vjp(lambda a: a, X)[1]((X, X)), ValueError,
        "vjp", "cotangent", "structure"),
    row("vjp-cotangent-str", lambda: mg.vjp(lambda a: a, X)[1]("s"), TypeError,
        "vjp", "cotangent", "str"),  # fixed: named "output", not the cotangent
    row("vjp-has_aux-not-a-pair", lambda: mg.vjp(lambda a: a, X, has_aux=True), TypeError,
        "vjp", "has_aux"),
    # ---------------------------------------------------------------- linearize
    row("linearize-tangent-shape", lambda: mg.linearize(lambda a: a, X)[1](np.ones(3)),
        ValueError, "linearize", "tangent", "primals[0]"),
    row("linearize-tangent-count", lambda: mg.linearize(lambda a: a, X)[1](X, X), ValueError,
        "linearize", "tangents", "structure"),
    row("linearize-tangent-dtype", lambda: mg.linearize(lambda a: a, X)[1](X.astype(np.float32)),
        TypeError, "linearize", "tangent", "f32"),
    row("linearize-argument-str", lambda: mg.linearize(lambda a: a, "x"), TypeError,
        "linearize", "primals[0]"),
    # ---------------------------------------------------------------- vmap
    row("vmap-in_axes-out-of-range", lambda: mg.vmap(lambda a: a, in_axes=2)(X), ValueError,
        "vmap", "in_axes", "args[0]", "(3, 4)"),
    row("vmap-inconsistent-sizes", lambda: mg.vmap(lambda a, b: a, in_axes=(0, 1))(X, X),
        ValueError, "vmap", "args[0]", "args[1]", "size 3", "size 4"),
    row("vmap-in_axes-str", lambda: mg.vmap(lambda a: a, in_axes="0")(X), TypeError,
        "vmap", "in_axes"),
    row("vmap-in_axes-float", lambda: mg.vmap(lambda a: a, in_axes=0.0)(X), TypeError,
        "vmap", "in_axes"),
    row("vmap-in_axes-too-many", lambda: mg.vmap(lambda a: a, in_axes=(0, 0))(X), ValueError,
        "vmap", "in_axes"),
    row("vmap-in_axes-dict-keys", lambda: mg.vmap(lambda d: d["a"], in_axes=({"b": 0},))(
        {"a": X}), ValueError, "vmap in_axes", "args[0]"),
    row("vmap-in_axes-list-for-tuple", lambda: mg.vmap(lambda t: t[0], in_axes=([0, 0],))(
        (X, X)), ValueError, "vmap in_axes", "args[0]", "list", "tuple"),
    row("vmap-out_axes-None-for-mapped", lambda: mg.vmap(lambda a: a, out_axes=None)(X),
        ValueError, "vmap", "out_axes", "mapped"),
    row("vmap-out_axes-out-of-range", lambda: mg.vmap(lambda a: a, out_axes=5)(X), ValueError,
        "vmap", "out_axes"),
    row("vmap-out_axes-structure", lambda: mg.vmap(lambda a: (a, a), out_axes=(0, 0, 0))(X),
        ValueError, "vmap out_axes"),
    row("vmap-axis_size-negative", lambda: mg.vmap(lambda a: a, axis_size=-1), ValueError,
        "vmap", "axis_size"),
    row("vmap-axis_size-float", lambda: mg.vmap(lambda a: a, axis_size=2.0), TypeError,
        "vmap", "axis_size"),  # fixed: was a ValueError
    row("vmap-mapping-a-scalar", lambda: mg.vmap(lambda a: a)(np.float64(1.0)), ValueError,
        "vmap", "in_axes", "args[0]", "shape ()"),
    row("vmap-nothing-mapped", lambda: mg.vmap(lambda a: a, in_axes=None)(X), ValueError,
        "vmap", "axis_size"),
    row("vmap-argument-str", lambda: mg.vmap(lambda a: a)("abc"), TypeError, "vmap", "args[0]"),
    row("vmap-keyword-argument-size", lambda: mg.vmap(lambda a, b: a + b)(X, b=np.zeros(4)),
        ValueError, "vmap", "kwargs['b']"),
    row("vmap-python-control-flow", lambda: mg.vmap(lambda a: a if mnp.sum(a) > 0 else -a)(X),
        TypeError, "vmap", "bool()"),
    row("vmap-output-object", lambda: mg.vmap(lambda a: object())(X), TypeError,
        "vmap", "object"),
    # ---------------------------------------------------------------- jacobians
    row("jacfwd-integer-input", lambda: mg.jacfwd(lambda a: a)(np.arange(3)), TypeError,
        "jacfwd", "args[0]"),
    row("jacfwd-argnums-out-of-range", lambda: mg.jacfwd(lambda a: a, argnums=1)(X),
        ValueError, "jacfwd", "argnums"),
    row("jacrev-integer-output", lambda: mg.jacrev(lambda a: a > 0)(X), TypeError,
        "jacrev", "output", "bool"),
    row("jacrev-integer-input", lambda: mg.jacrev(lambda a: a)(np.arange(3)), TypeError,
        "jacrev", "args[0]"),
    row("hessian-integer-input", lambda: mg.hessian(f_sum)(np.arange(3)), TypeError,
        "hessian", "args[0]"),  # fixed: said jacfwd
    row("hessian-argnums-str", lambda: mg.hessian(f_sum, argnums="a")(X), TypeError,
        "hessian", "argnums"),
    # ---------------------------------------------------------------- jaxprs
    row("make_jaxpr-argument-str", lambda: mg.make_jaxpr(lambda a: a)("s"), TypeError,
        "make_jaxpr", "args[0]"),
    row("closed-jaxpr-call-structure", lambda: mg.make_jaxpr(lambda a: a)(X)(X, X), TypeError,
        "ClosedJaxpr", "arguments", "structure"),
    row("closed-jaxpr-call-shape", lambda: mg.make_jaxpr(lambda a: a)(X)(np.ones(3)), TypeError,
        "eval_jaxpr", "argument", "f64[3,4]"),
    row("eval_jaxpr-argument-count",
        lambda: mg.eval_jaxpr(mg.make_jaxpr(lambda a: a)(X).jaxpr, [], X, X), TypeError,
        "eval_jaxpr", "arguments"),
    # ---------------------------------------------------------------- linear_transpose
    row("linear_transpose-product", lambda: mg.linear_transpose(lambda a: a * a, X)(X),
        TypeError, "linear_transpose", "linear", "mul"),  # fixed: named only mul
    row("linear_transpose-sin", lambda: mg.linear_transpose(mnp.sin, X), TypeError,
        "linear_transpose", "linear", "sin"),
    row("linear_transpose-integer-input", lambda: mg.linear_transpose(lambda a: a, np.arange(3)),
        TypeError, "linear_transpose", "inputs", "i64"),
    row("linear_transpose-cotangent-shape",
        lambda: mg.linear_transpose(lambda a: a, X)(np.ones(3)), ValueError,
        "linear_transpose", "cotangent", "f64[3,4]"),
    row("linear_transpose-cotangent-structure",
        lambda: mg.linear_transpose(lambda a: a, X)([X]), ValueError,
        "linear_transpose", "cotangent", "structure"),
    # ---------------------------------------------------------------- tracers
    row("escaped-tracer", lambda: _leak_grad_tracer() + 1.0, mg.UnexpectedTracerError,
        "grad", "escaped"),
    row("escaped-tracer-as-argument", lambda: mg.vmap(mnp.sin)(_leak_grad_tracer()),
        mg.UnexpectedTracerError, "grad", "escaped"),  # fixed: reported at first use only
    row("tracer-to-numpy", lambda: mg.grad(lambda a: np.asarray(a).sum())(X), TypeError,
        "grad", "NumPy array"),
    row("tracer-unsupported-numpy-function",
        lambda: mg.grad(lambda a: np.convolve(a, a).sum())(X), TypeError, "numpy.convolve",
        "not supported"),
    row("tracer-float-under-vmap", lambda: mg.vmap(lambda a: float(a.sum()))(X), TypeError,
        "vmap", "float()"),
    row("tracer-broadcast-mismatch", lambda: mg.grad(lambda a: (a + np.ones(5)).sum())(X),
        ValueError, "add", "(3, 4)", "(5,)"),  # fixed: a NumPy-internal error
    row("tracer-where-broadcast-mismatch",
        lambda: mg.grad(lambda a: mnp.where(np.ones(5, bool), a, 0.0).sum())(X), ValueError,
        "where", "(5,)"),  # fixed: a NumPy-internal error
]


PYTREES = [
    row("register-twice", lambda: mg.register_pytree_node(
        tuple, lambda t: (t, None), lambda aux, c: tuple(c)), ValueError,
        "register_pytree_node", "tuple", "already"),
    row("register-not-a-class", lambda: mg.register_pytree_node(
        3, lambda t: ((), None), lambda aux, c: 3), TypeError,
        "register_pytree_node", "nodetype"),  # fixed: accepted
    row("register-flatten-not-callable", lambda: mg.register_pytree_node(
        Thing, None, lambda aux, c: Thing()), TypeError,
        "register_pytree_node", "flatten"),  # fixed: accepted, failed at first flatten
    row("flatten-returns-no-pair", lambda: mg.tree_flatten(Half()), TypeError,
        "tree_flatten", "Half", "(children, aux)"),  # fixed: "too many values to unpack"
    row("flatten-returns-no-pair-under-grad", lambda: mg.grad(lambda h: h.a.sum())(Half()),
        TypeError, "tree_flatten", "Half"),  # fixed
    row("tree_unflatten-leaf-count", lambda: mg.tree_unflatten(mg.tree_structure((1, 2)), [1]),
        ValueError, "tree_unflatten", "leaves"),
    row("tree_unflatten-not-a-treedef", lambda: mg.tree_unflatten((1, 2), [1, 2]), TypeError,
        "tree_unflatten", "treedef"),  # fixed: AttributeError
    row("tree_map-structure", lambda: mg.tree_map(lambda a, b: a, (1, 2), (1,)), ValueError,
        "tree_map", "structure"),
    row("tree_map-f-not-callable", lambda: mg.tree_map(3, (1, 2)), TypeError,
        "tree_map", "f"),  # fixed: "'int' object is not callable"
    row("unregistered-class-argument", lambda: mg.vmap(lambda t: t)(Thing()), TypeError,
        "vmap", "args[0]", "Thing"),
    row("integer-leaf-in-differentiated-dict",
        lambda: mg.grad(lambda d: d["a"].sum())({"a": X, "b": np.arange(2)}), TypeError,
        "grad", "args[0]['b']"),
    row("jvp-dict-keys", lambda: mg.jvp(lambda d: d["a"], ({"a": X},), ({"b": X},)),
        ValueError, "jvp", "structure", "'a'", "'b'"),
    row("namedtuple-types-in-in_axes", lambda: mg.vmap(lambda t: t.a, in_axes=(Pair(0, 0),))(
        Other(X, X)), ValueError, "vmap in_axes", "args[0]", "Pair", "Other"),
    row("vjp-cotangent-tree", lambda: mg.vjp(lambda a: {"y": a}, X)[1]({"z": X}), ValueError,
        "vjp", "cotangent", "structure"),
]


# Command-line mistakes not already in tests/test_cli.py's table.
CLI = [
    row("cli-check-negative-seed", lambda: ["check", "--seed", "-1", "tanh"], SystemExit,
        "--seed", "non-negative", "-1"),  # fixed: an internal error from NumPy
    row("cli-crosscheck-negative-seed", lambda: ["crosscheck", "--against", "torch", "--seed",
                                                 "-5"], SystemExit, "--seed", "-5"),  # fixed
    row("cli-vectors-negative-seed", lambda: ["vectors", "--out", "/tmp/x", "--seed", "-2"],
        SystemExit, "--seed", "-2"),  # fixed
    row("cli-crosscheck-unknown-op-without-the-framework",
        lambda: ["crosscheck", "--against", "jax", "index_put"], SystemExit,
        "crosscheck", "index_put"),  # fixed: said jax was missing
    row("cli-crosscheck-unknown-op", lambda: ["crosscheck", "--against", "torch", "index_put"],
        SystemExit, "crosscheck", "index_put", "the five"),
    row("cli-vectors-verify-missing-dir", lambda: ["vectors", "--verify", "/nonexistent/dir"],
        SystemExit, "vectors", "/nonexistent/dir"),
    row("cli-vectors-out-and-verify", lambda: ["vectors", "--out", "a", "--verify", "b"],
        SystemExit, "--verify", "--out"),
    row("cli-check-examples-negative", lambda: ["check", "--examples", "-3", "tanh"],
        SystemExit, "check", "--examples", "-3"),
    row("cli-explain-extra-argument", lambda: ["explain", "index_add", "index_copy"], SystemExit,
        "unrecognized", "index_copy"),
    row("cli-check-unknown-option", lambda: ["check", "--frobnicate"], SystemExit,
        "--frobnicate"),
]

TABLE = OPS + TRANSFORMS + PYTREES + CLI


def raising_frame(e: BaseException) -> str:
    return traceback.extract_tb(e.__traceback__)[-1].filename


@pytest.mark.parametrize("case", TABLE, ids=[r.id for r in TABLE])
def test_bad_input(case: Row) -> None:
    if case in CLI:
        argv = case.call()
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            status = cli.main(argv)
        message = err.getvalue().strip()
        assert status == 2, (status, message)
        assert "\n" not in message and message.startswith("minigrad: ")
        assert "internal error" not in message
    else:
        with pytest.raises(case.error) as info:
            case.call()
        assert type(info.value) is case.error or case.error is TypeError, type(info.value)
        message = str(info.value)
        frame = Path(raising_frame(info.value)).resolve()
        assert MINIGRAD in frame.parents, f"raised from {frame}, not from minigrad"
    for word in case.words:
        assert word in message, f"{word!r} not in: {message}"


def test_every_transform_and_op_has_rows() -> None:
    ids = " ".join(r.id for r in TABLE)
    for name in ("index_add", "index_copy", "index_fill", "masked_fill", "masked_scatter",
                 "grad", "value_and_grad", "jvp", "vjp", "linearize", "vmap", "jacfwd",
                 "jacrev", "hessian", "make_jaxpr", "linear_transpose", "register",
                 "tree_map", "tree_unflatten", "cli-check", "cli-crosscheck", "cli-vectors",
                 "cli-explain"):
        assert name in ids, name

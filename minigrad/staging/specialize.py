"""Impls specialized to their equation: what the executor calls where the equation's
parameters and operand types fix the work.

The executor's line for an equation calls the primitive's impl with its parameters bound, and
the impl works out on every call what the equation already says: a dot's matmul plan (from
its subscripts), a reduction's dtype, an integer power's chain of products, the shape an
``expand_dims`` makes. At small sizes that is much of the time: the jitted MLP step of
benchmarks/numpy_surface.py spent ~10 us of its ~67 at batch 32 there. ``specialized(eqn)``
gives, for the primitives registered below, a callable that makes only the NumPy calls the
impl would make on operands of the equation's types, so the values are the impl's bit for bit
(tests/test_jit.py runs every primitive's samples jitted and eagerly and compares them).

``keepdims_readers`` finds the reductions whose only reader puts the reduced axes back as
size 1 (a softmax's ``max`` and ``sum`` before they broadcast): the executor computes those
with NumPy's ``keepdims`` and makes the reader a rename, one NumPy call fewer each.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from minigrad.core import Primitive
from minigrad.jaxpr import Eqn, Jaxpr, Var
from minigrad.ops.elementwise import dot_p, integer_pow_p, matmul_plan, reduce_max_p
from minigrad.ops.reductions import reduce_min_p
from minigrad.ops.structural import expand_dims_p, reduce_sum_p, reshape_p

Specializer = Callable[[Eqn, bool], Callable[..., Any] | None]
specializers: dict[Primitive, Specializer] = {}


def specialized(e: Eqn, keepdims: bool = False) -> Callable[..., Any] | None:
    """The callable computing ``e`` on its operands, or None to call the impl. ``keepdims``
    (a reduction in ``keepdims_readers``): keep the reduced axes as size 1."""
    rule = specializers.get(e.prim)
    return rule(e, keepdims) if rule is not None else None


def _dot(e: Eqn, keepdims: bool) -> Callable[..., Any] | None:
    # one np.matmul of the operands, each transposed if its plan says so (matmul's common
    # case); an outer product (one contracted term) is np.multiply, as the impl's
    plan = matmul_plan(e.params["subscripts"])
    swap = plan is not None and plan[0] == "swap"
    if swap:
        plan = plan[1]  # type: ignore[index]
    if plan is None or plan[0] == "swap":
        return None
    x_axes, y_axes, no_m, no_n, perm, _, spread = plan
    if no_m or no_n or perm is not None or spread:
        return None
    first = e.inputs[1] if swap else e.inputs[0]  # (the matmul's left operand)
    terms = first.aval.shape[x_axes[-1] if x_axes is not None else -1]
    op = np.multiply if terms == 1 else np.matmul
    f: Callable[..., Any]
    if x_axes is None and y_axes is None:
        f = op
    elif y_axes is None:
        f = lambda x, y: op(x.transpose(x_axes), y)  # noqa: E731
    elif x_axes is None:
        f = lambda x, y: op(x, y.transpose(y_axes))  # noqa: E731
    else:
        f = lambda x, y: op(x.transpose(x_axes), y.transpose(y_axes))  # noqa: E731
    return (lambda x, y: f(y, x)) if swap else f


def _reduce_sum(e: Eqn, keepdims: bool) -> Callable[..., Any]:
    # (sum_logical: a contiguous operand, so the sum's order is the logical one)
    axes, dtype = e.params["axes"], e.inputs[0].aval.dtype
    add, contiguous = np.add.reduce, np.ascontiguousarray
    return lambda x: add(x if x.flags.c_contiguous else contiguous(x), axes, dtype,
                         keepdims=keepdims)  # type: ignore[call-overload]


def _reduce_extremum(ufunc: np.ufunc) -> Specializer:
    def rule(e: Eqn, keepdims: bool) -> Callable[..., Any] | None:
        axes, shape = e.params["axes"], e.inputs[0].aval.shape
        if any(shape[a] == 0 for a in axes):
            return None  # (the impl raises)
        reduce = ufunc.reduce
        return lambda x: reduce(x, axes, keepdims=keepdims)
    return rule


def _reshape(e: Eqn, keepdims: bool) -> Callable[..., Any]:
    shape, asarray = e.out.aval.shape, np.asarray
    if e.prim is expand_dims_p:  # (its impl reshapes the operand itself)
        return lambda x: x.reshape(shape)
    return lambda x: asarray(x).reshape(shape)


def _integer_pow(e: Eqn, keepdims: bool) -> Callable[..., Any] | None:
    # the impl's products for the commonest powers (x * (x * x) for 3: XLA's order)
    y, mul = e.params["y"], np.multiply
    if e.inputs[0].aval.dtype.kind not in "fc":
        return None
    if y == 2:
        return lambda x: mul(x, x)
    if y == 3:
        return lambda x: mul(x, mul(x, x))
    if y == 4:
        return lambda x: mul(mul(x, x), mul(x, x))
    return None


specializers.update({dot_p: _dot, reduce_sum_p: _reduce_sum,
                     reduce_max_p: _reduce_extremum(np.maximum),
                     reduce_min_p: _reduce_extremum(np.minimum), reshape_p: _reshape,
                     expand_dims_p: _reshape, integer_pow_p: _integer_pow})

_REDUCTIONS = (reduce_sum_p, reduce_max_p, reduce_min_p)


def keepdims_readers(jaxpr: Jaxpr) -> dict[int, int]:
    """``{reduction's index: its reader's index}`` for each reduction whose result is read
    once, by an ``expand_dims`` or ``reshape`` that gives it back its reduced axes as size 1,
    and is not a result of the program."""
    uses: dict[Var, int] = {}
    reader: dict[Var, int] = {}
    for i, e in enumerate(jaxpr.eqns):
        for a in e.inputs:
            if isinstance(a, Var):
                uses[a] = uses.get(a, 0) + 1
                reader[a] = i
    for a in jaxpr.outvars:
        if isinstance(a, Var):
            uses[a] = uses.get(a, 0) + 2
    found = {}
    for i, e in enumerate(jaxpr.eqns):
        if e.prim not in _REDUCTIONS or uses.get(e.out) != 1:
            continue
        r = jaxpr.eqns[reader[e.out]]
        axes, shape = e.params["axes"], e.inputs[0].aval.shape
        kept = tuple(1 if d in axes else n for d, n in enumerate(shape))
        if r.prim in (expand_dims_p, reshape_p) and r.out.aval.shape == kept \
                and specialized(e, True) is not None:
            found[i] = reader[e.out]
    return found

"""The staged forms of a function's rules: what ``check_primitive``'s ``staged`` column checks
and the closure meta-test (tests/test_closure.py) walks.

Eagerly, ``bind`` runs a primitive's impl and never its shape rule, and NumPy broadcasts, so a
rule that binds a primitive on operands of the wrong shapes still computes. Tracing with
``make_jaxpr`` runs every shape rule on the operands the rules give it. ``staged_programs``
traces the function itself, its JVP, its VJP (linearize, then transpose), its batched forms and
``vmap(grad)``, and says what aval each program's outputs must have.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from minigrad.core import ShapedArray, float0, get_aval, tangent_dtype
from minigrad.jaxpr import ClosedJaxpr, make_jaxpr
from minigrad.transforms.grad import grad
from minigrad.transforms.jvp import jvp
from minigrad.transforms.transpose import vjp
from minigrad.transforms.vmap import vmap
from minigrad.tree import tree_flatten, tree_unflatten

# A batched form to trace: (a label, in_axes, the batched arguments).
Batch = tuple[str, tuple[int | None, ...], Sequence[Any]]


@dataclass
class Staged:
    """One traced program: ``name`` says what was traced; ``expected`` holds, per output of the
    program, a phrase naming it and the aval it must have."""

    name: str
    program: ClosedJaxpr
    expected: list[tuple[str, ShapedArray]]


def _tangent_aval(x: Any) -> ShapedArray:
    aval = get_aval(x)
    return ShapedArray(aval.shape, tangent_dtype(aval.dtype))


def _random_tangent(rng: np.random.Generator, x: Any) -> np.ndarray:
    """Random values of ``x``'s tangent type (float0 zeros for an integer or bool ``x``)."""
    aval = _tangent_aval(x)
    if aval.dtype == float0:
        return np.zeros(aval.shape, float0)
    return np.asarray(rng.standard_normal(aval.shape)).astype(aval.dtype)


def _batched_aval(size: int, aval: ShapedArray) -> ShapedArray:
    return ShapedArray((size, *aval.shape), aval.dtype)  # vmap's out_axes=0


def staged_programs(f: Callable[..., Any], ops: Sequence[Any], *, diff: Sequence[int] = (),
                    batches: Sequence[Batch] = (), grad_batches: Sequence[Batch] = (),
                    loss: Callable[..., Any] | None = None, seed: int = 0,
                    reverse: bool = True) -> Iterator[Staged]:
    """Trace ``f`` at ``ops`` and its transforms with ``make_jaxpr``: ``"f"``; with ``diff``
    (positions of floating operands), ``"jvp"`` (the output tangents) and ``"vjp"`` (the
    cotangents), both in the ``diff`` operands and every integer or bool one (whose tangents
    and cotangents are float0); ``vmap(f)`` for each of ``batches``; ``vmap(grad(loss))`` (a
    scalar function of the operands, gradients in ``diff``) for each of ``grad_batches``
    (without ``reverse``, no ``"vjp"``: a function with forward mode only). The
    programs come one at a time, so a check of one runs before the next is traced; one that
    does not trace raises an AssertionError naming it."""
    out_leaves, out_tree = tree_flatten(f(*ops))

    def stage(name: str, fun: Callable[..., Any], args: Sequence[Any],
              expected: list[tuple[str, ShapedArray]]) -> Staged:
        try:
            program = make_jaxpr(fun)(*args)
        except Exception as e:  # the message says which program, then what failed
            raise AssertionError(f"the {name} program: {type(e).__name__}: {e}") from None
        return Staged(name, program, expected)

    yield stage("f", f, ops, [(f"output {k}", get_aval(o)) for k, o in enumerate(out_leaves)])
    if diff:
        at = sorted({*diff, *(i for i, o in enumerate(ops) if get_aval(o).dtype.kind in "biu")})
        n = len(at)
        rng = np.random.default_rng(seed + 11)
        tangents = [_random_tangent(rng, ops[i]) for i in at]
        cts = [_random_tangent(rng, o) for o in out_leaves]

        def restricted(*vals: Any) -> Any:
            full = list(ops)
            for i, v in zip(at, vals, strict=True):
                full[i] = v
            return f(*full)

        def tangent_out(*a: Any) -> Any:
            return jvp(restricted, a[:n], a[n:])[1]

        def cotangents(*a: Any) -> Any:
            return vjp(restricted, *a[:n])[1](tree_unflatten(out_tree, a[n:]))

        yield stage("jvp", tangent_out, [*(ops[i] for i in at), *tangents],
              [(f"the tangent of output {k}", _tangent_aval(o)) for k, o in enumerate(out_leaves)])
        if reverse:
            yield stage("vjp", cotangents, [*(ops[i] for i in at), *cts],
                  [(f"the cotangent of operand {i}", _tangent_aval(ops[i])) for i in at])
    for label, axes, args in batches:
        size = next(np.shape(a)[ax] for a, ax in zip(args, axes, strict=True) if ax is not None)
        yield stage(f"vmap in_axes={axes} {label}", vmap(f, in_axes=axes), args,
              [(f"batched output {k}", _batched_aval(size, get_aval(o)))
               for k, o in enumerate(out_leaves)])
    if grad_batches and loss is not None:
        g = grad(loss, argnums=tuple(diff))
        for label, axes, args in grad_batches:
            size = next(np.shape(a)[ax] for a, ax in zip(args, axes, strict=True)
                        if ax is not None)
            yield stage(f"vmap(grad) in_axes={axes} {label}", vmap(g, in_axes=axes), args,
                  [(f"the batched gradient of operand {i}", _batched_aval(size, get_aval(ops[i])))
                   for i in diff])


__all__ = ["Batch", "Staged", "staged_programs"]

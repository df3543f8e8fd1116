"""Transposition: the backward pass over a linear jaxpr, ``vjp`` and ``linear_transpose``.

Equations with no linear input are evaluated forward first; the linear ones are then visited in
reverse, each primitive's transpose rule turning the cotangent of its output into cotangents
of its linear inputs, which accumulate. A cotangent never written is a symbolic Zero.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from minigrad.api_util import (
    as_operand,
    aux_output,
    check_callable,
    check_unsupported,
    flat_call,
    unaliased,
    weak_flags,
)
from minigrad.core import ShapedArray, UndefPrimal, Zero, float0, get_aval, tangent_dtype
from minigrad.jaxpr import Jaxpr, Literal, Var, dce_closed, make_jaxpr_named
from minigrad.ops.elementwise import add_tangents
from minigrad.ops.structural import instantiate
from minigrad.transforms.jvp import primal_part
from minigrad.transforms.linearize import linearize_flat
from minigrad.tree import leaf_paths, tree_flatten, tree_map, tree_unflatten


def backward_pass(jaxpr: Jaxpr, consts: Sequence[Any], linear: Sequence[bool],
                  args: Sequence[Any], cts_out: Sequence[Any]) -> list[Any]:
    """Cotangents of the invars marked ``linear`` (others take their value from ``args``)."""
    env: dict[Any, Any] = dict(zip(jaxpr.constvars, consts, strict=True))
    lin: set[Var] = set()
    for v, is_lin, x in zip(jaxpr.invars, linear, args, strict=True):
        if is_lin:
            lin.add(v)
        else:
            env[v] = x

    def read(a: Any) -> Any:
        return a.val if isinstance(a, Literal) else env[a]

    # (A Literal is hashable too, and never in ``lin``: no isinstance tests needed below.)
    linear_eqns = []
    for e in jaxpr.eqns:  # forward: evaluate what does not depend on the linear inputs
        if not lin.isdisjoint(e.inputs):
            lin.update(e.outs)
            linear_eqns.append(e)
        elif e.prim.multiple_results:
            env.update(zip(e.outs, e.prim.bind(*[read(a) for a in e.inputs], **e.params),
                           strict=True))
        else:
            env[e.outs[0]] = e.prim.bind(*[read(a) for a in e.inputs], **e.params)

    ct_env: dict[Var, Any] = {}

    def write(v: Any, ct: Any) -> None:
        if v in lin and ct is not None and not isinstance(ct, Zero):
            ct_env[v] = add_tangents(ct_env[v], ct) if v in ct_env else ct

    for out, ct in zip(jaxpr.outvars, cts_out, strict=True):
        write(out, ct)
    for e in reversed(linear_eqns):
        if e.prim.multiple_results:  # one cotangent per result, Zero where none arrived
            if not any(v in ct_env for v in e.outs):
                continue
            ct = [ct_env.pop(v) if v in ct_env else Zero(v.aval) for v in e.outs]
        else:
            ct = ct_env.pop(e.outs[0], None)
            if ct is None:
                continue
        if e.prim.transpose is None:
            raise NotImplementedError(f"transpose rule for '{e.prim}' not implemented: the "
                                      f"function is not linear in its input, or '{e.prim}' "
                                      f"lacks a rule")
        operands = [UndefPrimal(a.aval) if a in lin else read(a) for a in e.inputs]
        cts_in = e.prim.transpose(ct, *operands, **e.params)
        for a, ct_a in zip(e.inputs, cts_in, strict=True):
            write(a, ct_a)
    return [ct_env.get(v, Zero(v.aval)) if is_lin else None
            for v, is_lin in zip(jaxpr.invars, linear, strict=True)]


def _check_ct(path: str, ct: Any, expected: ShapedArray, transform: str) -> Any:
    aval = get_aval(ct)
    if aval.shape != expected.shape or aval.dtype != expected.dtype:
        # a wrong dtype is a wrong kind (TypeError); a wrong shape a ValueError
        error = ValueError if aval.shape != expected.shape else TypeError
        raise error(f"{transform}: the cotangent of {path} must be {expected.str_short()} (the "
                    f"output's shape and tangent dtype); got {aval.str_short()}")
    return ct


def _zeros_ct(ct: Any, aval: ShapedArray) -> Any:
    if not isinstance(ct, Zero):
        return ct
    if aval.dtype == float0:
        return np.zeros(aval.shape, float0)
    return instantiate(ct)


def vjp_flat(fun: Callable[..., Any], primals: Sequence[Any], transform: str = "vjp",
             prune: bool = True, weak: Sequence[bool] = ()
             ) -> tuple[Any, list, Callable[[Sequence[Any]], list]]:
    """``prune=False`` for a pullback called once, right away (see ``linearize_flat``);
    ``weak`` as ``jvp_flat``'s."""
    out_tree, primals_out, lin = linearize_flat(fun, primals, transform, prune, weak)
    out_avals = [ShapedArray(get_aval(p).shape, tangent_dtype(get_aval(p).dtype))
                 for p in primals_out]
    in_avals = [v.aval for v in lin.jaxpr.invars]

    def pullback(cts: Sequence[Any]) -> list:
        cts = [Zero(a) if a.dtype == float0 else c for c, a in zip(cts, out_avals, strict=True)]
        cts_in = backward_pass(lin.jaxpr, lin.consts, [True] * len(in_avals),
                               [None] * len(in_avals), cts)
        return [_zeros_ct(c, a) for c, a in zip(cts_in, in_avals, strict=True)]

    return out_tree, primals_out, pullback


def vjp(fun: Callable[..., Any], *primals: Any, has_aux: bool = False,
        reduce_axes: Sequence[Any] = ()) -> tuple:
    """``(fun(*primals), vjp_fn)`` (and ``aux`` with ``has_aux``); ``vjp_fn(ct)`` returns a
    tuple with one cotangent per primal: the transpose of the linearized ``fun``.

    >>> import minigrad as mg, numpy as np
    >>> y, f_vjp = mg.vjp(mg.numpy.sin, np.float64(0.0))
    >>> f_vjp(np.float64(2.0))
    (Array(2., dtype=float64),)
    """
    check_callable("vjp", fun)
    check_unsupported("vjp", reduce_axes=tuple(reduce_axes))
    leaves, in_tree = tree_flatten(primals)
    paths = leaf_paths(in_tree, "primals")
    weak = weak_flags(leaves)
    leaves = [as_operand(x, "vjp", p) for x, p in zip(leaves, paths, strict=True)]
    aux_box: list[Any] = []
    flat = flat_call(fun, in_tree)
    if has_aux:
        def flat(*xs: Any) -> Any:  # split the aux off, keep it unlinearized
            result = flat_call(fun, in_tree)(*xs)
            if not isinstance(result, tuple) or len(result) != 2:
                raise TypeError("vjp: with has_aux=True the function must return a pair "
                                "(output, aux)")
            aux_box.append(tree_map(primal_part, result[1]))
            return result[0]
    out_tree, primals_out, pullback = vjp_flat(flat, leaves, "vjp", weak=weak)
    out_paths = leaf_paths(out_tree, "output")
    ct_avals = [ShapedArray(get_aval(p).shape, tangent_dtype(get_aval(p).dtype))
                for p in primals_out]

    def vjp_fn(ct: Any) -> tuple:
        ct_leaves, ct_tree = tree_flatten(ct)
        if ct_tree != out_tree:
            raise ValueError(f"vjp: the cotangent must have the output's structure {out_tree}; "
                             f"got {ct_tree}")
        ct_leaves = [_check_ct(p, as_operand(c, "vjp", f"the cotangent of {p}"), a, "vjp")
                     for c, a, p in zip(ct_leaves, ct_avals, out_paths, strict=True)]
        return tuple(tree_unflatten(in_tree, unaliased(pullback(ct_leaves), ct_leaves)))

    out = tree_unflatten(out_tree, unaliased(primals_out, leaves))
    if has_aux:
        aux_leaves, aux_tree = tree_flatten(_strip(aux_box[0]))
        return out, vjp_fn, tree_unflatten(aux_tree, unaliased(aux_leaves, leaves))
    return out, vjp_fn


def _strip(aux: Any) -> Any:
    """Aux values leave the transform as their primal values."""
    return tree_map(lambda x: aux_output(x, "vjp"), aux)


def linear_transpose(fun: Callable[..., Any], *primals: Any, reduce_axes: Sequence[Any] = ()
                     ) -> Callable[..., tuple]:
    """The transpose of the linear function ``fun``, at the shapes and dtypes of ``primals``
    (their values are not used). Raises if ``fun`` is not linear in its inputs."""
    check_callable("linear_transpose", fun)
    check_unsupported("linear_transpose", reduce_axes=tuple(reduce_axes))
    # dead non-linear work must not matter
    # staged by partial evaluation: what does not depend on the inputs (the primal half of a
    # JVP, inside a call or a loop too) runs now; dead non-linear work must not matter
    closed = dce_closed(make_jaxpr_named(fun, "linear_transpose", stage_all=False)(*primals))
    in_avals = [v.aval for v in closed.jaxpr.invars]
    for a in in_avals:
        if a.dtype.kind not in "fc":
            raise TypeError(f"linear_transpose: inputs must be floating; got {a.str_short()}")
    linear = set(closed.jaxpr.invars)
    for e in closed.jaxpr.eqns:
        if any(isinstance(a, Var) and a in linear for a in e.inputs):
            if e.prim.transpose is None:
                raise TypeError(f"linear_transpose: the function must be linear in its inputs; "
                                f"got '{e.prim}', which is not linear, applied to a value that "
                                f"depends on them")
            linear.update(e.outs)
    out_paths = leaf_paths(closed.out_tree, "output")

    def transposed(ct: Any) -> tuple:
        ct_leaves, ct_tree = tree_flatten(ct)
        if ct_tree != closed.out_tree:
            raise ValueError(f"linear_transpose: the cotangent must have the output's "
                             f"structure {closed.out_tree}; got {ct_tree}")
        ct_leaves = [_check_ct(p, as_operand(c, "linear_transpose", f"the cotangent of {p}"),
                               v.aval, "linear_transpose")
                     for c, v, p in zip(ct_leaves, closed.jaxpr.outvars, out_paths, strict=True)]
        try:
            cts = backward_pass(closed.jaxpr, closed.consts, [True] * len(in_avals),
                                [None] * len(in_avals), ct_leaves)
        except TypeError as e:  # a transpose rule met a product of two linear values, say
            raise TypeError(f"linear_transpose: the function must be linear in its inputs; "
                            f"{e}") from e
        cts = unaliased([_zeros_ct(c, a) for c, a in zip(cts, in_avals, strict=True)],
                        ct_leaves)
        args, _ = tree_unflatten(closed.in_tree, cts)
        return tuple(args)

    return transposed

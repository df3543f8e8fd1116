"""linearize: partial evaluation of the JVP.

The JVP runs with its tangents as staged tracers of a partial-evaluation trace: primal work
(all of whose operands are known) runs now, on the parent trace; tangent work becomes the
equations of a linear jaxpr whose constants (the residuals) are primal values.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from minigrad.api_util import as_operand, check_callable, flat_call, unaliased, weak_flags
from minigrad.core import (
    ShapedArray,
    Zero,
    current_trace,
    dtype_name,
    get_aval,
    set_current_trace,
    tangent_dtype,
)
from minigrad.jaxpr import ClosedJaxpr, JaxprTrace, dce_closed, eval_jaxpr
from minigrad.transforms.jvp import jvp_flat, with_aux
from minigrad.tree import leaf_paths, tree_flatten, tree_unflatten


def linearize_flat(fun: Callable[..., Any], primals: Sequence[Any], transform: str = "linearize",
                   prune: bool = True, weak: Sequence[bool] = ()) -> tuple[Any, list, ClosedJaxpr]:
    """(output structure, output primals, the linear jaxpr from input to output tangents).
    With ``prune`` the jaxpr is rid of dead equations and of the residuals only they use:
    worth it for a jaxpr that is kept or evaluated forward, not for one transposed once, right
    away (the backward pass skips a dead equation at no cost). ``weak``: as ``jvp_flat``'s."""
    pe = JaxprTrace(current_trace(), stage_all=False)
    pe.transform = transform
    try:
        with set_current_trace(pe):
            tangents = [pe.new_arg(ShapedArray(get_aval(p).shape, tangent_dtype(get_aval(p).dtype)))
                        for p in primals]
            out_tree, primals_out, tangents_out = jvp_flat(fun, primals, tangents, transform, weak)
            jaxpr, consts = pe.to_jaxpr(tangents_out)
    finally:
        pe.invalidate()
    closed = ClosedJaxpr(jaxpr, consts)
    return out_tree, primals_out, dce_closed(closed) if prune else closed


def linearize(fun: Callable[..., Any], *primals: Any, has_aux: bool = False) -> tuple:
    """``(fun(*primals), f_jvp)`` where ``f_jvp(*tangents)`` is the JVP at ``primals``,
    evaluated from a linear jaxpr (so it costs no primal work). With ``has_aux`` ``fun``
    returns ``(output, aux)`` and the result is ``(output, f_jvp, aux)``.

    >>> import minigrad as mg, numpy as np
    >>> y, f_jvp = mg.linearize(mg.numpy.sin, np.float64(0.0))
    >>> f_jvp(np.float64(3.0))
    Array(3., dtype=float64)
    """
    check_callable("linearize", fun)
    if has_aux:
        box: list[Any] = []
        out, lin = linearize(with_aux(fun, "linearize", box), *primals)
        return out, lin, box[0]
    leaves, in_tree = tree_flatten(primals)
    paths = leaf_paths(in_tree, "primals")
    weak = weak_flags(leaves)
    leaves = [as_operand(x, "linearize", p) for x, p in zip(leaves, paths, strict=True)]
    out_tree, primals_out, lin = linearize_flat(flat_call(fun, in_tree), leaves, weak=weak)

    def f_jvp(*tangents: Any) -> Any:
        t_leaves, t_tree = tree_flatten(tangents)
        if t_tree != in_tree:
            raise ValueError(f"linearize: tangents must have the primals' structure {in_tree}; "
                             f"got {t_tree}")
        t_leaves = [as_operand(t, "linearize", p.replace("primals", "tangents", 1))
                    for t, p in zip(t_leaves, paths, strict=True)]
        for t, v, p in zip(t_leaves, lin.jaxpr.invars, paths, strict=True):
            got = get_aval(t)
            if got.shape != v.aval.shape:
                raise ValueError(f"linearize: the tangent of {p} must have shape "
                                 f"{v.aval.shape}; got {got.shape}")
            if got.dtype != v.aval.dtype:
                raise TypeError(f"linearize: the tangent of {p} must have dtype "
                                f"{dtype_name(v.aval.dtype)} (float0 for integer and bool "
                                f"primals); got {dtype_name(got.dtype)}")
        outs = eval_jaxpr(lin.jaxpr, lin.consts, *t_leaves)
        return tree_unflatten(out_tree, unaliased(outs, t_leaves))

    f_jvp.jaxpr = lin  # type: ignore[attr-defined]  # the linear jaxpr, for reading
    return tree_unflatten(out_tree, unaliased(primals_out, leaves)), f_jvp


__all__ = ["linearize", "linearize_flat", "Zero"]

"""Forward mode: the JVP interpreter, ``jvp`` and ``jacfwd``.

A JVPTracer carries a primal and a tangent; a tangent may be a symbolic ``Zero``. When every
tangent of a primitive's operands is Zero, the primitive is handed to the parent with no JVP work.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from minigrad.api_util import (
    as_operand,
    as_output,
    check_argnums,
    check_callable,
    check_unsupported,
    flat_call,
    unaliased,
    weak_flags,
)
from minigrad.core import (
    Primitive,
    ShapedArray,
    Trace,
    Tracer,
    Zero,
    current_trace,
    float0,
    get_aval,
    new_trace,
    result_weak_type,
    set_current_trace,
    tangent_dtype,
)
from minigrad.ops.structural import instantiate, moveaxis, reshape, slice_array
from minigrad.transforms.vmap import vmap
from minigrad.tree import leaf_paths, tree_flatten, tree_map, tree_structure, tree_unflatten


class JVPTracer(Tracer):
    __slots__ = ("primal", "tangent", "aval")

    def __init__(self, trace: JVPTrace, primal: Any, tangent: Any, weak: bool | None = None):
        self._trace = trace
        self.primal = primal
        self.tangent = tangent
        aval = get_aval(primal)  # an attribute: rules ask for it often
        # weak: None keeps the primal's flag (an ndarray has none: JVPTrace says)
        self.aval = aval if weak is None or weak == aval.weak_type else aval.update_weak_type(weak)
        if self.aval.weak_type:
            trace.has_weak = True

    def concrete(self) -> np.ndarray | None:
        p = self.primal
        return p.concrete() if isinstance(p, Tracer) else np.asarray(p)


class JVPTrace(Trace):
    transform = "jvp"
    has_weak = False  # whether a tracer of this trace is weak: else no result of it can be

    def to_pair(self, x: Any) -> tuple[Any, Any]:
        if self.owns(x):
            return x.primal, x.tangent
        aval = get_aval(x)
        dtype = tangent_dtype(aval.dtype)
        # A floating value is its own tangent type: its aval serves, no new one is needed.
        return x, Zero(aval if dtype is aval.dtype else ShapedArray(aval.shape, dtype))

    def process_primitive(self, prim: Primitive, args: tuple, params: dict) -> Any:
        # Our tracers never hold a Zero tangent (box returns the primal instead), so an
        # operation on none of them has only Zero tangents: no JVP work.
        if not any(map(self.owns, args)):
            return self.parent.process_primitive(prim, args, params)
        primals, tangents = zip(*map(self.to_pair, args), strict=True)
        with set_current_trace(self.parent):
            if prim.jvp is None:
                raise NotImplementedError(f"differentiation rule for '{prim}' not implemented")
            primal_out, tangent_out = prim.jvp(primals, tangents, **params)
        weak = self.has_weak and result_weak_type(prim, args, params)
        if prim.multiple_results:
            return [self.box(p, t, weak) for p, t in zip(primal_out, tangent_out, strict=True)]
        return self.box(primal_out, tangent_out, weak)

    def box(self, primal: Any, tangent: Any, weak: bool | None = None) -> Any:
        # A zero or float0 tangent carries nothing: return the primal itself.
        if isinstance(tangent, Zero) or get_aval(tangent).dtype == float0:
            return primal
        return JVPTracer(self, primal, tangent, weak)


def primal_part(x: Any) -> Any:
    """``x`` without its tangent if it is a tracer of the current JVP trace: auxiliary outputs
    (``has_aux``) leave a transform as plain values, never as its tracers."""
    trace = current_trace()
    return x.primal if isinstance(trace, JVPTrace) and trace.owns(x) else x


def jvp_flat(fun: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any],
             transform: str = "jvp", weak: Sequence[bool] = ()) -> tuple[Any, list, list]:
    """Run ``fun`` on JVP tracers: (output structure, output primals, output tangents).
    ``weak``: which primals stand for Python scalars (their tracers are weakly typed)."""
    trace = JVPTrace(current_trace())
    trace.transform = transform
    flags = list(weak) or [False] * len(primals)
    with new_trace(trace):
        out = fun(*[_box_input(trace, p, t, w)
                    for p, t, w in zip(primals, tangents, flags, strict=True)])
        out_leaves, out_tree = tree_flatten(out)
        pairs = [trace.to_pair(as_output(o, transform)) for o in out_leaves]
    return out_tree, [p for p, _ in pairs], [instantiate(t) for _, t in pairs]


def _box_input(trace: JVPTrace, primal: Any, tangent: Any, weak: bool) -> Any:
    """An input of ``jvp_flat``. One that was a Python scalar (``weak``, now a 0-d ndarray) is
    a weak tracer; or, with a zero tangent (an int's), that Python scalar again."""
    if weak and not isinstance(primal, Tracer) and (
            isinstance(tangent, Zero) or get_aval(tangent).dtype == float0):
        return primal.item()
    return trace.box(primal, tangent, weak or None)


def _check_tangent(path: str, primal: Any, tangent: Any) -> None:
    p, t = get_aval(primal), get_aval(tangent)
    if t.shape != p.shape:
        raise ValueError(f"jvp: the tangent of {path} must have the primal's shape {p.shape}; "
                         f"got {t.shape}")
    if t.dtype != tangent_dtype(p.dtype):
        def show(d: np.dtype) -> str:
            return "float0" if d == float0 else d.name

        raise TypeError(f"jvp: the tangent of {path} must have dtype "
                        f"{show(tangent_dtype(p.dtype))} (the primal has dtype {p.dtype}; "
                        f"integer and bool primals take float0 tangents); got {show(t.dtype)}")


def with_aux(fun: Callable[..., Any], transform: str, box: list[Any]) -> Callable[..., Any]:
    """``fun`` returning ``(output, aux)``, as a function returning the output; ``aux`` (its
    primal part: no tracer of the transform running) goes into ``box``."""
    def split(*args: Any) -> Any:
        result = fun(*args)
        if not isinstance(result, tuple) or len(result) != 2:
            raise TypeError(f"{transform}: with has_aux=True the function must return a pair "
                            f"(output, aux)")
        box[:] = [tree_map(primal_part, result[1])]
        return result[0]

    return split


def jvp(fun: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any],
        has_aux: bool = False) -> tuple:
    """Forward-mode derivative: ``(fun(*primals), J(primals) @ tangents)``; with ``has_aux``
    ``fun`` returns ``(output, aux)`` and the result is ``(output, tangent, aux)``.

    >>> import minigrad as mg, numpy as np
    >>> mg.jvp(mg.numpy.sin, (np.float64(0.0),), (np.float64(2.0),))
    (Array(0., dtype=float64), Array(2., dtype=float64))
    """
    check_callable("jvp", fun)
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError(f"jvp: primals and tangents must be tuples or lists; got "
                        f"{type(primals).__name__} and {type(tangents).__name__}")
    p_leaves, p_tree = tree_flatten(tuple(primals))
    t_leaves, t_tree = tree_flatten(tuple(tangents))
    if p_tree != t_tree or type(primals) is not type(tangents):  # (x,) and [t]: JAX refuses
        raise ValueError(f"jvp: primals and tangents must have the same tree structure; got "
                         f"{tree_structure(primals)} and {tree_structure(tangents)}")
    if has_aux:
        box: list[Any] = []
        out, tan = jvp(with_aux(fun, "jvp", box), primals, tangents)
        return out, tan, box[0]
    paths = leaf_paths(p_tree, "primals")
    weak = weak_flags(p_leaves)
    p_leaves = [as_operand(p, "jvp", path) for p, path in zip(p_leaves, paths, strict=True)]
    t_leaves = [as_operand(t, "jvp", path.replace("primals", "tangents", 1))
                for t, path in zip(t_leaves, paths, strict=True)]
    for path, p, t in zip(paths, p_leaves, t_leaves, strict=True):
        _check_tangent(path, p, t)
    out_tree, primals_out, tangents_out = jvp_flat(flat_call(fun, p_tree), p_leaves, t_leaves,
                                                   "jvp", weak)
    primals_out, tangents_out = (unaliased(o, [*p_leaves, *t_leaves])
                                 for o in (primals_out, tangents_out))
    return tree_unflatten(out_tree, primals_out), tree_unflatten(out_tree, tangents_out)


def jacfwd(fun: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False) -> Callable[..., Any]:
    """The Jacobian by forward mode, ``vmap`` of ``jvp`` over the standard input basis.

    Each leaf of the result has the output leaf's shape followed by the input leaf's shape;
    the result has the output's structure, each leaf holding the inputs' structure. With
    ``has_aux`` ``fun`` returns ``(output, aux)`` and the result is ``(jacobian, aux)``.
    """
    check_unsupported("jacfwd", holomorphic=holomorphic)
    return jacfwd_named(fun, argnums, "jacfwd", has_aux)


def jacfwd_named(fun: Callable[..., Any], argnums: int | Sequence[int], transform: str,
                 has_aux: bool = False) -> Callable[..., Any]:
    """``jacfwd``, with errors (and escaped tracers) naming ``transform`` (``hessian`` uses
    it)."""
    check_callable(transform, fun)
    if has_aux:
        def jac_aux(*args: Any, **kwargs: Any) -> Any:
            box: list[Any] = []
            f = with_aux(lambda *a: fun(*a, **kwargs), transform, box)
            return jacfwd_named(f, argnums, transform)(*args), box[0]

        return jac_aux

    def jac(*args: Any, **kwargs: Any) -> Any:  # keyword arguments are not differentiated
        nums = check_argnums(transform, argnums, len(args))
        dyn_leaves, dyn_tree = tree_flatten(tuple(args[i] for i in nums))
        paths = leaf_paths(dyn_tree, "args")
        weak = weak_flags(dyn_leaves)
        dyn_leaves = [as_operand(x, transform, p) for x, p in zip(dyn_leaves, paths, strict=True)]
        for x, path in zip(dyn_leaves, paths, strict=True):
            if get_aval(x).dtype.kind != "f":
                raise TypeError(f"{transform}: {path} must be a floating array; got "
                                f"{get_aval(x).dtype}")

        def f_dyn(*leaves: Any) -> Any:
            full = list(args)
            for i, a in zip(nums, tree_unflatten(dyn_tree, leaves), strict=True):
                full[i] = a
            return fun(*full, **kwargs)

        shapes = [get_aval(x).shape for x in dyn_leaves]
        basis = std_basis(shapes, [get_aval(x).dtype for x in dyn_leaves])
        holder: dict[str, Any] = {}

        def push(*ts: Any) -> list:
            out_tree, _, tangents_out = jvp_flat(f_dyn, dyn_leaves, ts, transform, weak)
            holder["tree"] = out_tree
            return tangents_out

        cols = vmap(push)(*basis)  # each (N, *out_shape)
        per_out = []
        for col in cols:
            out_ndim = col.ndim - 1
            blocks = []
            for block, shape in zip(split_rows(col, shapes), shapes, strict=True):
                # (*in_shape, *out_shape) -> (*out_shape, *in_shape)
                for _ in range(len(shape)):
                    block = moveaxis(block, 0, len(shape) - 1 + out_ndim)
                blocks.append(block)
            in_tree = tree_unflatten(dyn_tree, blocks)
            per_out.append(in_tree[0] if isinstance(argnums, int) else in_tree)
        return tree_unflatten(holder["tree"], per_out)

    return jac


__all__ = ["JVPTrace", "JVPTracer", "jvp", "jacfwd", "jacfwd_named", "jvp_flat", "primal_part"]


def std_basis(shapes: Sequence[tuple[int, ...]], dtypes: Sequence[np.dtype]) -> list[np.ndarray]:
    """The standard basis of the space of all the leaves together, one slab per leaf: slab k has
    shape ``(N, *shapes[k])`` where N is the total number of elements."""
    sizes = [int(np.prod(s, dtype=np.int64)) for s in shapes]
    eye = np.eye(sum(sizes))
    out, start = [], 0
    for shape, size, dtype in zip(shapes, sizes, dtypes, strict=True):
        out.append(eye[:, start:start + size].reshape(len(eye), *shape).astype(dtype))
        start += size
    return out


def split_rows(x: Any, shapes: Sequence[tuple[int, ...]]) -> list[Any]:
    """Split the leading axis of ``x`` (of length sum of sizes) into one array per shape, of
    shape ``shapes[k] + x.shape[1:]``."""
    aval_shape = x.shape
    out, start = [], 0
    for shape in shapes:
        size = int(np.prod(shape, dtype=np.int64))
        rows = slice_array(x, (start, *[0] * (len(aval_shape) - 1)),
                           (start + size, *aval_shape[1:]))
        out.append(reshape(rows, (*shape, *aval_shape[1:])))
        start += size
    return out

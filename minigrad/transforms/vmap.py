"""Vectorization: the batching interpreter and ``vmap``.

A BatchTracer carries a value with one extra axis, ``bdim``, the batch axis. A primitive none of
whose operands is batched is handed to the parent with no batching work; otherwise its batching
rule computes the whole batch at once (there is no loop fallback: a missing rule is an error).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from minigrad.api_util import (
    Paths,
    as_operands,
    as_output,
    call_paths,
    check_callable,
    check_unsupported,
    unaliased,
)
from minigrad.core import (
    Primitive,
    ShapedArray,
    Trace,
    Tracer,
    current_trace,
    get_aval,
    is_weak_scalar,
    new_trace,
    result_weak_type,
    set_current_trace,
)
from minigrad.ops.structural import bdim_to, moveaxis
from minigrad.tree import broadcast_prefix, leaf_paths, tree_flatten, tree_unflatten


class BatchTracer(Tracer):
    __slots__ = ("val", "bdim", "aval")

    def __init__(self, trace: BatchTrace, val: Any, bdim: int, weak: bool | None = None):
        self._trace = trace
        self.val = val
        self.bdim = bdim
        # An attribute, not a property: rules ask for it often, and it never changes.
        shape = val.shape  # an ndarray's or a tracer's
        if weak is None:  # the value's own flag (an ndarray has none)
            weak = isinstance(val, Tracer) and val.aval.weak_type
        self.aval = ShapedArray(shape[:bdim] + shape[bdim + 1:], val.dtype, weak)
        if weak:
            trace.has_weak = True


# Collectives (minigrad.collectives): ``rule(axis_size, vals, dims, **params)`` computes the
# collective over the named axis of the BatchTrace that bears the name.
collective_rules: dict[Primitive, Any] = {}
# Higher-order primitives (jit's and the custom rules' calls) whose batching rule batches a
# program that may hold collectives over this axis: it takes ``axis_name=`` too, and names
# the axis of the batching it does.
takes_axis_name: set[Primitive] = set()


def axis_env() -> tuple[tuple[Any, int], ...]:
    """The named axes of the vmaps running, innermost first: ``((name, size), ...)``. A
    program traced here may hold collectives over them, so it is cached per environment."""
    env = []
    trace: Trace | None = current_trace()
    while trace is not None:
        if isinstance(trace, BatchTrace) and trace.axis_name is not None:
            env.append((trace.axis_name, trace.axis_size))
        trace = trace.parent
    return tuple(env)


class BatchTrace(Trace):
    transform = "vmap"
    has_weak = False  # whether a tracer of this trace is weak: else no result of it can be

    def __init__(self, parent: Trace, axis_size: int, axis_name: Any = None):
        super().__init__(parent)
        self.axis_size = axis_size
        self.axis_name = axis_name  # the name collectives (psum ...) give this axis

    def to_batched(self, x: Any) -> tuple[Any, int | None]:
        return (x.val, x.bdim) if self.owns(x) else (x, None)

    def process_primitive(self, prim: Primitive, args: tuple, params: dict) -> Any:
        dims = tuple([x.bdim if self.owns(x) else None for x in args])
        # A collective over this axis's name is this trace's to compute, batched or not; so
        # is a call of a program, which may hold one.
        named = self.axis_name is not None
        rule = (collective_rules.get(prim) if named
                and params.get("axis_name") == self.axis_name else None)
        if rule is None and dims.count(None) == len(dims) and not (
                named and prim in takes_axis_name):  # nothing batched: no work
            return self.parent.process_primitive(prim, args, params)
        vals = tuple([x if d is None else x.val for x, d in zip(args, dims, strict=True)])
        with set_current_trace(self.parent):
            if rule is not None:
                out, out_dim = rule(self.axis_size, vals, dims, **params)
            elif prim.batch is None:
                raise NotImplementedError(f"batching rule for '{prim}' not implemented")
            elif prim in takes_axis_name:
                out, out_dim = prim.batch(self.axis_size, vals, dims, axis_name=self.axis_name,
                                          **params)
            else:
                out, out_dim = prim.batch(self.axis_size, vals, dims, **params)
        weak = self.has_weak and result_weak_type(prim, args, params)
        if prim.multiple_results:
            return [o if d is None else BatchTracer(self, o, d, weak)
                    for o, d in zip(out, out_dim, strict=True)]
        return out if out_dim is None else BatchTracer(self, out, out_dim, weak)


def _normalize_axis(axis: Any, ndim: int, paths: Paths, i: int, shape: tuple, what: str
                    ) -> int | None:
    if axis is None or (type(axis) is int and 0 <= axis < ndim):  # the common cases
        return axis
    path = paths[i]
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise TypeError(f"vmap: {what} must be ints or None; got {axis!r} for {path}")
    if not -ndim <= axis < ndim:
        raise ValueError(f"vmap: {what} {axis} for {path} is out of range: it must be in "
                         f"[{-ndim}, {ndim}) for an array of shape {shape}")
    return int(axis) % ndim


def _axis_size(leaves: list, axes: list, paths: Paths, axis_size: int | None) -> int:
    sizes = {x.shape[a] for x, a in zip(leaves, axes, strict=True) if a is not None}
    if axis_size is not None:
        sizes.add(axis_size)
    if not sizes:
        raise ValueError("vmap: needs at least one argument mapped along an axis (an in_axes "
                         "entry that is not None), or axis_size")
    if len(sizes) > 1:
        lines = [f"  {paths[i]} of shape {get_aval(x).shape} mapped along axis {a} has size "
                 f"{get_aval(x).shape[a]}"
                 for i, (x, a) in enumerate(zip(leaves, axes, strict=True)) if a is not None]
        if axis_size is not None:
            lines.append(f"  axis_size is {axis_size}")
        raise ValueError("vmap: got inconsistent sizes for the axes to be mapped:\n"
                         + "\n".join(lines))
    return sizes.pop()


def vmap(fun: Callable[..., Any], in_axes: Any = 0, out_axes: Any = 0,
         axis_name: Any = None, axis_size: int | None = None, spmd_axis_name: Any = None,
         sum_match: bool = False) -> Callable[..., Any]:
    """Vectorize ``fun`` over the axes ``in_axes`` of its arguments (a tree prefix of the
    argument tuple: an int, None, or a tuple/list/dict mirroring the arguments); results gain
    the batch axis at ``out_axes``. Keyword arguments are mapped along axis 0. ``axis_name``
    names the axis for the collectives of ``minigrad.collectives`` (``psum`` ...).

    >>> import minigrad as mg, numpy as np
    >>> mg.vmap(lambda x, y: x @ y, in_axes=(0, None))(np.ones((4, 2, 3)), np.ones(3)).shape
    (4, 2)
    """
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)  # a list at the top means the same as a tuple, as in JAX
    check_callable("vmap", fun)
    check_unsupported("vmap", spmd_axis_name=spmd_axis_name, sum_match=sum_match)
    if axis_size is not None and (not isinstance(axis_size, int) or isinstance(axis_size, bool)):
        raise TypeError(f"vmap: axis_size must be a non-negative int; got {axis_size!r}")
    if axis_size is not None and axis_size < 0:
        raise ValueError(f"vmap: axis_size must be a non-negative int; got {axis_size!r}")

    def batched(*args: Any, **kwargs: Any) -> Any:
        leaves, in_tree = tree_flatten((args, kwargs))
        paths = Paths(lambda: call_paths(in_tree))
        try:
            axes = broadcast_prefix(in_axes, args, "vmap in_axes", "args")
        except ValueError:
            if not isinstance(in_axes, tuple) or len(in_axes) == len(args):
                raise
            raise ValueError(f"vmap: in_axes must be an int, None or a tuple with one entry "
                             f"per positional argument ({len(args)}); got {in_axes!r}") from None
        axes += [0] * (len(leaves) - len(axes))  # keyword arguments: axis 0
        raw, leaves = leaves, as_operands(leaves, "vmap", paths)
        axes = [_normalize_axis(a, x.ndim, paths, i, x.shape, "in_axes")
                for i, (x, a) in enumerate(zip(leaves, axes, strict=True))]
        size = _axis_size(leaves, axes, paths, axis_size)
        trace = BatchTrace(current_trace(), size, axis_name)
        with new_trace(trace):
            # An unmapped Python scalar is passed as it is: weak, as eagerly.
            tracers = [(r if is_weak_scalar(r) else x) if a is None else BatchTracer(trace, x, a)
                       for r, x, a in zip(raw, leaves, axes, strict=True)]
            f_args, f_kwargs = tree_unflatten(in_tree, tracers)
            out = fun(*f_args, **f_kwargs)
            out_leaves, out_tree = tree_flatten(out)
            pairs = [trace.to_batched(as_output(o, "vmap")) for o in out_leaves]
        out_spec = broadcast_prefix(out_axes, out, "vmap out_axes", "out", "the outputs")
        results = []
        out_paths = Paths(lambda: leaf_paths(out_tree, "out"))
        for i, ((val, bdim), spec) in enumerate(zip(pairs, out_spec, strict=True)):
            ndim = get_aval(val).ndim + (1 if bdim is None else 0)
            dst = _normalize_axis(spec, ndim, out_paths, i, get_aval(val).shape, "out_axes")
            if dst is None:
                if bdim is not None:
                    raise ValueError(f"vmap: {out_paths[i]} is mapped (it depends on the batched "
                                     f"arguments) but its out_axes is None")
                results.append(val)
            elif bdim is None:
                results.append(bdim_to(val, None, dst, size))
            else:
                results.append(moveaxis(val, bdim, dst))
        return tree_unflatten(out_tree, unaliased(results, leaves))

    return batched


__all__ = ["BatchTrace", "BatchTracer", "axis_env", "vmap"]

"""Loops: ``scan`` (one primitive), and ``fori_loop`` and ``map`` as thin functions over it and
over ``while_loop`` (``minigrad.lax.while_loop``).

``scan_p`` takes ``(*consts, *init, *xs)``; its parameter ``jaxpr`` is the body, a closed jaxpr
``(consts, carry, x slices) -> (carry, y slices)`` run ``length`` times, forwards or (with
``reverse``) backwards, the ys stacked on a new leading axis. The rules, each a
jaxpr-to-jaxpr transformation of the body:

* impl: a Python loop that preallocates the stacked ys; under ``jit`` a ``for`` around the
  body's own compiled function, which may write its carry in place;
* JVP: a fixpoint finds which carries have nonzero tangents; one scan of the body's JVP, the
  tangents appended to the consts, carry and xs;
* batching: a fixpoint finds which carries are batched; batched xs are batched at axis 1
  outside (axis 0 is the scan's), so each slice is batched at axis 0 inside;
* partial evaluation and transpose, the rules of reverse mode: in ``minigrad.lax.scan_reverse``
  (this module would pass ~400 lines with them).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from minigrad.api_util import as_operand, check_callable, input_avals
from minigrad.core import (
    Primitive,
    ShapedArray,
    Zero,
    get_aval,
)
from minigrad.jaxpr import ClosedJaxpr
from minigrad.lax.common import (
    aval_of,
    batch_jaxpr,
    differentiable,
    donated_carries,
    hoist_invariants,
    in_avals,
    instantiate_zero,
    jvp_jaxpr,
    out_avals,
    permute,
    run_jaxpr,
    tangent_aval,
    trace_body,
    unaliased,
)
from minigrad.lax.types import check_same_types, describe, promote_weak, same_types, strong
from minigrad.ops.structural import bdim_to, moveaxis
from minigrad.staging.call import derived
from minigrad.staging.executor import Emitter, codegen_rules, compiled
from minigrad.tree import leaf_paths, tree_flatten, tree_unflatten

scan_p = Primitive("scan")
scan_p.multiple_results = True


def scan(f: Callable[..., Any], init: Any, xs: Any = None, length: int | None = None,
         reverse: bool = False, unroll: int | bool = 1) -> tuple[Any, Any]:
    """Loop ``f(carry, x) -> (carry, y)`` over the leading axis of ``xs`` (a pytree), from
    ``init``: ``(final carry, stacked ys)``, as one ``scan`` equation (never unrolled). The
    carry must keep its type; ``xs=None`` needs ``length``; ``reverse`` walks from the end,
    each y stored at its own index; ``unroll`` is accepted (it changes no value).

    >>> import minigrad as mg, numpy as np
    >>> mg.lax.scan(lambda c, x: (c + x, c * x), np.float64(0.0), np.arange(4.0))
    (Array(6., dtype=float64), Array([0., 0., 2., 9.], dtype=float64))
    """
    check_callable("scan", f)
    if not isinstance(reverse, (bool, np.bool_)):
        raise TypeError(f"scan: reverse must be a bool; got {type(reverse).__name__}")
    if isinstance(unroll, bool):
        unroll = 1
    if not isinstance(unroll, (int, np.integer)) or unroll < 0:  # (JAX takes 0 too)
        raise ValueError(f"scan: unroll must be a non-negative int or a bool; got {unroll!r}")
    x_leaves, x_tree = tree_flatten(xs)
    x_leaves = [as_operand(x, "scan", p)
                for x, p in zip(x_leaves, leaf_paths(x_tree, "xs"), strict=True)]
    n = _scan_length(x_leaves, x_tree, length)
    carry, ys = _scan(f, init, x_leaves, x_tree, n, bool(reverse), int(unroll), "scan")
    return carry, ys


def map(f: Callable[[Any], Any], xs: Any, *, batch_size: int | None = None) -> Any:
    """``f`` over the leading axis of ``xs`` (a pytree), the results stacked: a ``scan`` with
    no carry. With ``batch_size``, ``vmap(f)`` runs over batches of that many slices (the
    remainder in one batch after the scan), as JAX's.

    >>> import minigrad as mg, numpy as np
    >>> mg.lax.map(lambda x: x * 2, np.arange(3.0))
    Array([0., 2., 4.], dtype=float64)
    """
    check_callable("map", f)
    if batch_size is None:
        return scan(lambda _, x: ((), f(x)), (), xs)[1]
    if not isinstance(batch_size, (int, np.integer)) or isinstance(batch_size, bool) \
            or batch_size < 1:
        raise ValueError(f"map: batch_size must be a positive int; got {batch_size!r}")
    from minigrad.ops.structural import concatenate, reshape, slice_array
    from minigrad.transforms.vmap import vmap

    leaves, tree = tree_flatten(xs)
    leaves = [as_operand(x, "map", p) for x, p in zip(leaves, leaf_paths(tree, "xs"),
                                                      strict=True)]
    n = _scan_length(leaves, tree, None)
    full_batches, rest = divmod(n, batch_size)

    def take(x: Any, start: int, stop: int) -> Any:
        shape = get_aval(x).shape
        return slice_array(x, (start, *[0] * (len(shape) - 1)), (stop, *shape[1:]))

    scanned = [reshape(take(x, 0, full_batches * batch_size),
                       (full_batches, batch_size, *get_aval(x).shape[1:])) for x in leaves]
    ys = scan(lambda _, x: ((), vmap(f)(x)), (), tree_unflatten(tree, scanned))[1]
    y_leaves, y_tree = tree_flatten(ys)
    y_leaves = [reshape(y, (full_batches * batch_size, *get_aval(y).shape[2:]))
                for y in y_leaves]
    if rest:
        tail = vmap(f)(tree_unflatten(tree, [take(x, n - rest, n) for x in leaves]))
        y_leaves = [concatenate([y, t], 0) for y, t in zip(y_leaves, tree_flatten(tail)[0],
                                                          strict=True)]
    return tree_unflatten(y_tree, y_leaves)


def _scan_length(x_leaves: list[Any], x_tree: Any, length: Any) -> int:
    """The number of iterations: ``length``, checked against the xs' leading axes."""
    if length is not None and (not isinstance(length, (int, np.integer))
                               or isinstance(length, bool)):
        raise TypeError(f"scan: length must be an int or None; got {length!r}")
    if length is not None and length < 0:
        raise ValueError(f"scan: length must be non-negative; got {length}")
    sizes = []
    for x, p in zip(x_leaves, leaf_paths(x_tree, "xs"), strict=True):
        shape = get_aval(x).shape
        if not shape:
            raise ValueError(f"scan: every leaf of xs must have a leading axis to scan over; "
                             f"{p} is 0-d")
        sizes.append((p, shape[0]))
    if len({s for _, s in sizes}) > 1:
        raise ValueError("scan: the leaves of xs must have one leading axis size; got "
                         + ", ".join(f"{p}: {s}" for p, s in sizes))
    if length is None:
        if not sizes:
            raise ValueError("scan: xs has no leaves to scan over, so length must be given")
        return int(sizes[0][1])
    if sizes and sizes[0][1] != length:
        raise ValueError(f"scan: length {length} disagrees with the leading axis size of xs, "
                         f"{sizes[0][1]}")
    return int(length)


def _scan(f: Callable[..., Any], init: Any, x_leaves: list[Any], x_tree: Any, length: int,
          reverse: bool, unroll: int, what: str) -> tuple[Any, Any]:
    """Trace ``f`` at the carry's and the x slices' types (promoting a weakly typed carry
    leaf to the type the body gives it, as JAX does), check it, bind ``scan``."""
    raw, c_tree = tree_flatten(init)
    c_leaves = [as_operand(x, what, p) for x, p in zip(raw, leaf_paths(c_tree, "init"),
                                                         strict=True)]
    x_avals = [ShapedArray(a.shape[1:], a.dtype, a.weak_type)
               for a in (get_aval(x) for x in x_leaves)]

    def pair(out: Any) -> None:
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise TypeError(f"{what}: f must return a pair (carry, y); got "
                            f"{describe(out)}")

    in_tree = tree_flatten((init, tree_unflatten(x_tree, x_leaves)))[1]
    c_avals = input_avals(raw, c_leaves)  # a Python-scalar leaf is weak
    for attempt in range(2):
        body, consts, out_tree = trace_body(f, in_tree, c_avals + x_avals, f"{what} (f)", pair)
        carry_tree, y_tree = out_tree.children
        outs = out_avals(body)
        c_out = outs[:carry_tree.num_leaves] if carry_tree == c_tree else []
        if attempt == 0 and c_out:
            c_leaves, c_avals, changed = promote_weak(c_leaves, c_avals, c_out)
            if changed:
                continue
        break
    check_same_types(what, ("init", "the carry f returns"), (c_tree, carry_tree),
                     (c_avals, outs[:carry_tree.num_leaves]), "carry",
                     "The carry must keep its type from one iteration to the next.")
    results = scan_p.bind(*consts, *c_leaves, *x_leaves, jaxpr=body, length=length,
                          num_carry=len(c_leaves), num_consts=len(consts), reverse=reverse,
                          unroll=unroll)
    results = unaliased(results, [*c_leaves, *x_leaves])
    return (tree_unflatten(c_tree, results[:len(c_leaves)]),
            tree_unflatten(y_tree, results[len(c_leaves):]))


def _split(seq: Any, num_consts: int, num_carry: int) -> tuple[list, list, list]:
    seq = list(seq)
    return seq[:num_consts], seq[num_consts:num_consts + num_carry], seq[num_consts + num_carry:]


def _stacked(length: int, aval: ShapedArray) -> ShapedArray:
    return ShapedArray((length, *aval.shape), aval.dtype)


# --------------------------------------------------------------------------- impl, shape rule


@scan_p.def_impl
def _scan_impl(*args: Any, jaxpr: ClosedJaxpr, length: int, num_carry: int, num_consts: int,
               reverse: bool, unroll: int) -> list:
    consts, carry, xs = _split(args, num_consts, num_carry)
    ys = [np.empty((length, *a.shape), a.dtype) for a in out_avals(jaxpr)[num_carry:]]
    for i in (range(length - 1, -1, -1) if reverse else range(length)):
        outs = run_jaxpr(jaxpr, [*consts, *carry, *[x[i, ...] for x in xs]])
        carry = outs[:num_carry]
        for y, out in zip(ys, outs[num_carry:], strict=True):
            y[i] = out
    return [*carry, *ys]


@scan_p.def_abstract_eval
def _scan_abstract_eval(*avals: ShapedArray, jaxpr: ClosedJaxpr, length: int, num_carry: int,
                        num_consts: int, reverse: bool, unroll: int) -> list[ShapedArray]:
    consts, carry, xs = _split(avals, num_consts, num_carry)
    for k, x in enumerate(xs):
        if x.shape[:1] != (length,):
            raise TypeError(f"scan: xs operand {k} must have leading axis {length}; got "
                            f"{x.str_short()}")
    expected = [*consts, *carry, *[ShapedArray(x.shape[1:], x.dtype) for x in xs]]
    if not same_types(in_avals(jaxpr), expected):
        raise TypeError(f"scan: the body takes "
                        f"{', '.join(a.str_short() for a in in_avals(jaxpr)) or 'nothing'}; "
                        f"got {', '.join(a.str_short() for a in expected) or 'nothing'}")
    outs = out_avals(jaxpr)
    if not same_types(outs[:num_carry], carry):
        raise TypeError(f"scan: the body's carry out is "
                        f"{', '.join(a.str_short() for a in outs[:num_carry])}; its carry in "
                        f"{', '.join(a.str_short() for a in carry)}")
    # strong, as every multiple-result primitive's outputs (core.result_weak_type; JAX keeps
    # a carry the body keeps weak weak: docs/lax/scan.md)
    return [*strong(carry), *[_stacked(length, y) for y in outs[num_carry:]]]


# --------------------------------------------------------------------------- JVP


def _fixpoint(flags: list[bool], step: Callable[[list[bool]], list[bool]]) -> list[bool]:
    """The least ``flags`` (a carry's: nonzero, batched, unknown) that ``step`` (one
    iteration's carry out, from the carry in) keeps: or-ed until nothing changes."""
    while True:
        new = [a or b for a, b in zip(flags, step(flags), strict=True)]
        if new == flags:
            return flags
        flags = new


@scan_p.def_jvp
def _scan_jvp(primals: tuple, tangents: tuple, *, jaxpr: ClosedJaxpr, length: int,
              num_carry: int, num_consts: int, reverse: bool, unroll: int) -> tuple[list, list]:
    # (carry, ys), (carry_dot, ys_dot) = scan(jvp(body))((consts, consts_dot),
    #                                          (init, init_dot), (xs, xs_dot))
    nz = [not isinstance(t, Zero) and differentiable(aval_of(x))
          for x, t in zip(primals, tangents, strict=True)]
    const_nz, init_nz, xs_nz = _split(nz, num_consts, num_carry)
    ys = len(jaxpr.jaxpr.outvars) - num_carry
    no_ys = [False] * ys
    avals = out_avals(jaxpr)

    def step(carry_nz: list[bool]) -> list[bool]:
        flags = tuple(const_nz + carry_nz + xs_nz)
        return jvp_jaxpr(jaxpr, flags, tuple(carry_nz + no_ys))[1][:num_carry]

    carry_nz = _fixpoint(init_nz, step)
    flags = tuple(const_nz + carry_nz + xs_nz)
    program, out_nz = jvp_jaxpr(jaxpr, flags, tuple(carry_nz + no_ys))
    n_c, n_x, n_in = sum(const_nz), sum(xs_nz), len(primals)
    n_k = sum(carry_nz)
    # the JVP program takes (primals, tangents) and returns (outputs, tangents): into the
    # scan's layout (consts, const tangents | carry, carry tangents | xs, xs tangents)
    t0 = n_in
    ins = [*range(num_consts), *range(t0, t0 + n_c),
           *range(num_consts, num_consts + num_carry), *range(t0 + n_c, t0 + n_c + n_k),
           *range(num_consts + num_carry, n_in), *range(t0 + n_c + n_k, t0 + n_c + n_k + n_x)]
    n_out = num_carry + ys
    y_nz = out_nz[num_carry:]
    outs = [*range(num_carry), *range(n_out, n_out + n_k), *range(num_carry, n_out),
            *range(n_out + n_k, n_out + n_k + sum(y_nz))]
    body = derived(program, ("scan layout",), lambda: permute(program, ins, outs))
    consts, init, xs = _split(primals, num_consts, num_carry)
    c_dot, i_dot, x_dot = _split(tangents, num_consts, num_carry)
    init_dots = [instantiate_zero(t) for t, f in zip(i_dot, carry_nz, strict=True) if f]
    results = scan_p.bind(
        *consts, *[t for t, f in zip(c_dot, const_nz, strict=True) if f],
        *init, *init_dots, *xs, *[t for t, f in zip(x_dot, xs_nz, strict=True) if f],
        jaxpr=body, length=length, num_carry=num_carry + n_k, num_consts=num_consts + n_c,
        reverse=reverse, unroll=unroll)
    carry, carry_dot = results[:num_carry], iter(results[num_carry:num_carry + n_k])
    ys_out, ys_dot = results[num_carry + n_k:n_out + n_k], iter(results[n_out + n_k:])
    t_carry = [next(carry_dot) if f else Zero(tangent_aval(a))
               for f, a in zip(carry_nz, avals[:num_carry], strict=True)]
    t_ys = [next(ys_dot) if f else Zero(tangent_aval(_stacked(length, a)))
            for f, a in zip(y_nz, avals[num_carry:], strict=True)]
    return [*carry, *ys_out], [*t_carry, *t_ys]


# --------------------------------------------------------------------------- batching


@scan_p.def_batch
def _scan_batch(axis_size: int, vals: tuple, dims: tuple, *, jaxpr: ClosedJaxpr, length: int,
                num_carry: int, num_consts: int, reverse: bool, unroll: int
                ) -> tuple[list, list]:
    batched = [d is not None for d in dims]
    const_b, init_b, xs_b = _split(batched, num_consts, num_carry)
    no_ys = [False] * (len(jaxpr.jaxpr.outvars) - num_carry)

    def step(carry_b: list[bool]) -> list[bool]:
        flags = tuple(const_b + carry_b + xs_b)
        return batch_jaxpr(jaxpr, axis_size, flags, tuple(carry_b + no_ys))[1][:num_carry]

    carry_b = _fixpoint(init_b, step)
    body, out_b = batch_jaxpr(jaxpr, axis_size, tuple(const_b + carry_b + xs_b),
                              tuple(carry_b + no_ys))
    consts, init, xs = _split(zip(vals, dims, strict=True), num_consts, num_carry)
    # inside the body every batch axis is 0; outside, the xs' and ys' batch axis is 1
    ops = ([x if d is None else moveaxis(x, d, 0) for x, d in consts]
           + [bdim_to(x, d, 0, axis_size) if b else x
              for (x, d), b in zip(init, carry_b, strict=True)]
           + [x if d is None else moveaxis(x, d, 1) for x, d in xs])
    results = scan_p.bind(*ops, jaxpr=body, length=length, num_carry=num_carry,
                          num_consts=num_consts, reverse=reverse, unroll=unroll)
    out_dims = ([0 if b else None for b in carry_b]
                + [1 if b else None for b in out_b[num_carry:]])
    return results, out_dims


# --------------------------------------------------------------------------- jit


def _scan_codegen(e: Any, args: list[str], outs: list[str], emit: Emitter) -> list[str]:
    """A Python ``for`` around the body's compiled function. What the body computes from the
    consts alone runs once, before the loop (``hoist_invariants``). The body may write a big
    carry in place (donated): the loop starts from a copy of its init, so nothing else is
    written."""
    p = e.params
    n_c, n_k = p["num_consts"], p["num_carry"]
    consts, init, xs = _split(args, n_c, n_k)
    lines: list[str] = []
    split = derived(p["jaxpr"], ("hoisted", n_c), lambda: hoist_invariants(p["jaxpr"], n_c))
    program = p["jaxpr"]
    if split is not None and p["length"]:  # the loop-invariant work, once, before the loop
        pre = emit.put("pre", compiled(split[0], (), f"{emit.program}_pre").fn)
        program = split[1]
        hoisted = [emit.name(f"h{k}") for k in range(len(split[0].jaxpr.outvars))]
        lines.append(f"[{', '.join(hoisted)}] = {pre}({', '.join(consts)})")
        consts = [*consts, *hoisted]
        n_c = len(consts)
    donated = donated_carries([v.aval for v in e.outs[:n_k]])
    body = compiled(program, tuple(n_c + k for k, d in enumerate(donated) if d),
                    f"{emit.program}_body")
    fn = emit.put("body", body.fn)
    copy = emit.put("copy", np.copy)
    carry = [emit.name(f"c{k}") for k in range(n_k)]
    ys = [emit.name(f"y{k}") for k in range(len(outs) - n_k)]
    y_avals = out_avals(p["jaxpr"])[n_k:]
    i = emit.name("i")
    lines += [f"{c} = {copy}({x})" if d else f"{c} = {x}"
              for c, x, d in zip(carry, init, donated, strict=True)]
    empty = emit.put("empty", np.empty)
    for k, (y, a) in enumerate(zip(ys, y_avals, strict=True)):
        dtype = emit.put(f"dtype{k}", a.dtype)
        lines.append(f"{y} = {empty}({(p['length'], *a.shape)}, {dtype})")
    steps = f"range({p['length'] - 1}, -1, -1)" if p["reverse"] else f"range({p['length']})"
    slices = [f"{x}[{i}, ...]" for x in xs]
    step_outs = carry + [f"{y}_" for y in ys]
    lines += [f"for {i} in {steps}:",
              f"    [{', '.join(step_outs)}] = {fn}({', '.join([*consts, *carry, *slices])})"]
    lines += [f"    {y}[{i}] = {y}_" for y in ys]
    lines.append(f"[{', '.join(outs)}] = [{', '.join(carry + ys)}]")
    return lines


codegen_rules[scan_p] = _scan_codegen


__all__ = ["map", "scan", "scan_p"]

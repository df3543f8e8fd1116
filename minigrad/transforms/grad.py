"""Reverse mode at the API: grad, value_and_grad, jacrev, hessian (all built on vjp)."""

from __future__ import annotations

from functools import partial
from typing import Any, Callable, Sequence

from minigrad.api_util import (
    Paths,
    as_operands,
    as_output,
    aux_output,
    check_argnums,
    check_callable,
    check_unsupported,
    unaliased,
    weak_flags,
)
from minigrad.core import get_aval
from minigrad.ops.structural import full
from minigrad.transforms.jvp import jacfwd_named, primal_part, split_rows, std_basis, with_aux
from minigrad.transforms.transpose import vjp_flat
from minigrad.transforms.vmap import vmap
from minigrad.tree import leaf_paths, tree_flatten, tree_map, tree_unflatten


def _dyn_args(transform: str, args: tuple, argnums: int | Sequence[int],
              allow_int: bool = False) -> tuple[tuple[int, ...], list, Any, list[bool]]:
    """The differentiated arguments' leaves (checked to be floating, or with ``allow_int``
    integer or bool: their gradients are float0 zeros), their structure, and which were
    Python scalars (weakly typed)."""
    nums = check_argnums(transform, argnums, len(args))
    leaves, tree = tree_flatten(tuple(args[i] for i in nums))
    paths = Paths(lambda: [path for i, arg in zip(nums, tree.children, strict=True)
                           for path in leaf_paths(arg, f"args[{i}]")])
    weak = weak_flags(leaves)
    leaves = as_operands(leaves, transform, paths)
    for i, x in enumerate(leaves):
        dtype = get_aval(x).dtype
        if dtype.kind != "f" and not (allow_int and dtype.kind in "biu"):
            raise TypeError(f"{transform}: {paths[i]} must be a floating array to be "
                            f"differentiated; got dtype {dtype} (argnums selects the arguments "
                            f"to differentiate; allow_int=True gives integer ones float0 "
                            f"gradients)")
    return nums, leaves, tree, weak


def _with_dyn(fun: Callable[..., Any], args: tuple, nums: tuple[int, ...], tree: Any
              ) -> Callable[..., Any]:
    def f(*leaves: Any) -> Any:
        full_args = list(args)
        for i, a in zip(nums, tree_unflatten(tree, leaves), strict=True):
            full_args[i] = a
        return fun(*full_args)

    return f


def value_and_grad(fun: Callable[..., Any], argnums: int | Sequence[int] = 0,
                   has_aux: bool = False, holomorphic: bool = False, allow_int: bool = False,
                   reduce_axes: Sequence[Any] = ()) -> Callable[..., Any]:
    """``(fun(*args), gradient)``; with ``has_aux`` ``fun`` returns ``(value, aux)`` and the
    result is ``((value, aux), gradient)``. The gradient has the structure of
    ``args[argnums]`` (a tuple of them when argnums is a tuple). With ``allow_int`` integer
    arguments get float0 gradients (JAX's), instead of an error."""
    check_unsupported("value_and_grad", holomorphic=holomorphic, reduce_axes=tuple(reduce_axes))
    return _value_and_grad(fun, argnums, has_aux, "value_and_grad", allow_int)


def _value_and_grad(fun: Callable[..., Any], argnums: int | Sequence[int], has_aux: bool,
                    transform: str, allow_int: bool = False) -> Callable[..., Any]:
    """``value_and_grad``, with errors (and escaped tracers) naming ``transform``."""
    check_callable(transform, fun)

    def vg(*args: Any, **kwargs: Any) -> Any:
        # Keyword arguments are passed through, never differentiated (as in JAX).
        nums, leaves, tree, weak = _dyn_args(transform, args, argnums, allow_int)
        f = _with_dyn(partial(fun, **kwargs) if kwargs else fun, args, nums, tree)
        aux_box: list[Any] = []

        def scalar_fun(*xs: Any) -> Any:
            out = f(*xs)
            if has_aux:
                if not isinstance(out, tuple) or len(out) != 2:
                    raise TypeError(f"{transform}: with has_aux=True the function must return "
                                    f"a pair (output, aux)")
                out, aux = out
                aux_box.append(tree_map(primal_part, aux))
            if isinstance(out, (tuple, list, dict)) or out is None:
                raise TypeError(f"{transform}: the function must return a scalar array; got a "
                                f"{type(out).__name__} (to return more, use has_aux=True and "
                                f"return (scalar, aux))")
            out = as_output(out, transform)
            aval = get_aval(out)
            if aval.shape != ():
                raise TypeError(f"{transform}: the function must return a scalar (shape ()); "
                                f"got shape {aval.shape}. Use jacrev for a Jacobian, or sum "
                                f"the output")
            if aval.dtype.kind != "f":
                raise TypeError(f"{transform}: the function must return a real floating "
                                f"scalar; got dtype {aval.dtype}")
            return out

        _, (value,), pullback = vjp_flat(scalar_fun, leaves, transform, prune=False, weak=weak)
        grads = unaliased(pullback([full((), 1, get_aval(value).dtype)]), leaves)
        g = tree_unflatten(tree, grads)
        g = g[0] if isinstance(argnums, int) else g
        (value,) = unaliased([value], leaves)  # f may return its (0-d) argument
        if has_aux:
            aux_leaves, aux_tree = tree_flatten(tree_map(lambda x: aux_output(x, transform),
                                                         aux_box[0]))
            return (value, tree_unflatten(aux_tree, unaliased(aux_leaves, leaves))), g
        return value, g

    return vg


def grad(fun: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
         holomorphic: bool = False, allow_int: bool = False, reduce_axes: Sequence[Any] = ()
         ) -> Callable[..., Any]:
    """The gradient of a scalar-valued ``fun`` with respect to ``args[argnums]`` (``allow_int``:
    integer arguments get float0 gradients, as in JAX).

    >>> import minigrad as mg, numpy as np
    >>> mg.grad(lambda x: (x ** 2).sum())(np.array([1.0, 2.0]))
    Array([2., 4.], dtype=float64)
    """
    check_unsupported("grad", holomorphic=holomorphic, reduce_axes=tuple(reduce_axes))
    vg = _value_and_grad(fun, argnums, has_aux, "grad", allow_int)

    def g(*args: Any, **kwargs: Any) -> Any:
        (_, aux), grads = (vg(*args, **kwargs) if has_aux
                           else ((None, None), vg(*args, **kwargs)[1]))
        return (grads, aux) if has_aux else grads

    return g


def jacrev(fun: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False, allow_int: bool = False) -> Callable[..., Any]:
    """The Jacobian by reverse mode: ``vmap`` of the VJP over the standard output basis. Same
    layout as ``jacfwd``: output shape followed by input shape. With ``has_aux`` ``fun``
    returns ``(output, aux)`` and the result is ``(jacobian, aux)``. (``allow_int`` is not
    supported: integer arguments of jacrev are refused.)"""
    check_unsupported("jacrev", holomorphic=holomorphic)
    if allow_int:
        raise NotImplementedError("jacrev: allow_int=True is not supported: differentiate the "
                                  "floating arguments only (argnums), or use grad(allow_int=True)")
    return _jacrev(fun, argnums, "jacrev", has_aux)


def _jacrev(fun: Callable[..., Any], argnums: int | Sequence[int], transform: str,
            has_aux: bool = False) -> Callable[..., Any]:
    """``jacrev``, with errors (and escaped tracers) naming ``transform``."""
    check_callable(transform, fun)
    if has_aux:
        def jac_aux(*args: Any, **kwargs: Any) -> Any:
            box: list[Any] = []
            f = with_aux(lambda *a: fun(*a, **kwargs), transform, box)
            return _jacrev(f, argnums, transform)(*args), box[0]

        return jac_aux

    def jac(*args: Any, **kwargs: Any) -> Any:
        nums, leaves, tree, weak = _dyn_args(transform, args, argnums)
        f = _with_dyn(partial(fun, **kwargs) if kwargs else fun, args, nums, tree)
        out_tree, primals_out, pullback = vjp_flat(f, leaves, transform, prune=False, weak=weak)
        for p, path in zip(primals_out, leaf_paths(out_tree, "output"), strict=True):
            if get_aval(p).dtype.kind != "f":
                raise TypeError(f"{transform}: the function's outputs must be floating; {path} "
                                f"has dtype {get_aval(p).dtype} (jacfwd gives float0 zeros "
                                f"there)")
        out_shapes = [get_aval(p).shape for p in primals_out]
        basis = std_basis(out_shapes, [get_aval(p).dtype for p in primals_out])
        rows = vmap(lambda *cts: pullback(list(cts)))(*basis)  # each (M, *in_shape)
        in_shapes = [get_aval(x).shape for x in leaves]
        per_out: list[list[Any]] = [[] for _ in out_shapes]
        for row, _ in zip(rows, in_shapes, strict=True):
            for j, block in enumerate(split_rows(row, out_shapes)):
                per_out[j].append(block)
        results = []
        for blocks in per_out:
            in_tree = tree_unflatten(tree, blocks)
            results.append(in_tree[0] if isinstance(argnums, int) else in_tree)
        return tree_unflatten(out_tree, results)

    return jac


def hessian(fun: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
            holomorphic: bool = False) -> Callable[..., Any]:
    """The Hessian of a scalar ``fun``: ``jacfwd(jacrev(fun))``; with ``has_aux``, ``(hessian,
    aux)``."""
    check_unsupported("hessian", holomorphic=holomorphic)
    return jacfwd_named(_jacrev(fun, argnums, "hessian", has_aux), argnums, "hessian", has_aux)

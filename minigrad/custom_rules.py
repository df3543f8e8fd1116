"""Rules given to a function: ``custom_jvp``, ``custom_vjp`` and ``custom_vmap`` (JAX's API).

Each one is a higher-order primitive, as ``jit`` is: its parameter is the function's program
(``call``), traced once per signature, and the user's rule rides along as a parameter. Every
transform that has no use for the rule treats the call as the program it holds; the one it
was written for calls it instead:

* ``custom_jvp_call``: the JVP rule runs the user's ``jvp(primals, tangents)``. It runs with
  the transforms outside current, so it is differentiated, batched and staged in its turn
  (second derivatives differentiate the rule). Batching batches the program and the rule.
* ``custom_vjp_call``: the JVP rule runs ``fwd``, and the tangent is ``custom_lin`` of the
  residuals: a linear primitive whose transpose is ``bwd``. Reverse mode (linearize, then
  transpose) therefore runs ``fwd`` forward and ``bwd`` backward; forward mode evaluates
  ``custom_lin``, which says it cannot (as JAX does).
* ``custom_vmap_call``: the batching rule calls the user's ``rule(axis_size, in_batched,
  *args)``; the JVP differentiates the program.

The results of a rule are checked against the function's shapes and dtypes, with an error
that names the rule. A call is bound to the function's signature (defaults applied, keyword
arguments placed), as in JAX. Programs and rules are cached on the decorated function, so they
go when it goes; a nondiff argument that is not hashable (an array) is traced on every call.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

import numpy as np

from minigrad.api_util import (
    as_operand,
    as_output,
    check_callable,
    check_unsupported,
    input_avals,
    resolve_kwargs,
    signature_of,
)
from minigrad.core import (
    Primitive,
    ShapedArray,
    Tracer,
    Zero,
    float0,
    get_aval,
    tangent_dtype,
)
from minigrad.jaxpr import ClosedJaxpr, eval_jaxpr
from minigrad.ops.structural import bdim_to_front, instantiate
from minigrad.staging.call import batch_program, derived, jvp_call, trace_program
from minigrad.staging.call import call as jit_call
from minigrad.transforms.vmap import axis_env, takes_axis_name, vmap
from minigrad.tree import broadcast_prefix, tree_flatten, tree_leaves, tree_unflatten


def _tangent_aval(aval: ShapedArray) -> ShapedArray:
    return ShapedArray(aval.shape, tangent_dtype(aval.dtype))


def _check(what: str, values: Sequence[Any], avals: Sequence[ShapedArray], tangent: bool
           ) -> list[Any]:
    values = list(values)
    if len(values) != len(avals):
        raise TypeError(f"{what} must return {len(avals)} value(s), one per output of the "
                        f"function; got {len(values)}")
    out = []
    for k, (v, a) in enumerate(zip(values, avals, strict=True)):
        want = _tangent_aval(a) if tangent else a
        if isinstance(v, Zero):
            out.append(v)
            continue
        v = as_output(v, what)
        got = get_aval(v)
        if got.shape != want.shape or (got.dtype != want.dtype and want.dtype != float0):
            raise TypeError(f"{what}: output {k} must be {want.str_short()} (the function's "
                            f"{'tangent ' if tangent else ''}type); got {got.str_short()}")
        # (an integer output's tangent carries nothing, whatever the rule gave: float0)
        out.append(Zero(want) if want.dtype == float0 and got.dtype != float0 else v)
    return out


def _given(values: Sequence[Any], avals: Sequence[ShapedArray]) -> list[Any]:
    """Arguments for a user's rule: where the function was given a Python scalar (a weak
    input), the rule gets that Python scalar back, so calling the function from the rule
    traces the program it belongs to (JAX passes a weakly typed scalar there too)."""
    return [v.item() if a.weak_type and isinstance(v, np.ndarray) and v.ndim == 0 else v
            for v, a in zip(values, avals, strict=True)]


def _cached(fn: Any, key: Any, make: Callable[[], Any]) -> Any:
    """``make()``, cached on the function object ``fn`` (a rule): rules derived from a rule
    (its batched forms) live and die with it, never in a module-level cache."""
    cache = fn.__dict__.setdefault("derived", {})
    if key not in cache:
        cache[key] = make()
    return cache[key]


class _Custom:
    """What the three decorators share: the function, its programs per signature, and the call
    that binds arguments to the signature, flattens them and binds the primitive."""

    kind = ""
    __name__: str

    def __init__(self, fun: Callable[..., Any], nondiff_argnums: Sequence[int] = (),
                 nondiff_argnames: Sequence[str] = ()):
        check_callable(self.kind, fun)
        check_unsupported(self.kind, nondiff_argnames=tuple(nondiff_argnames))
        self.fun = fun
        self.__name__ = getattr(fun, "__name__", type(fun).__name__)
        self.nondiff_argnums = tuple(nondiff_argnums)
        functools.update_wrapper(self, fun)  # type: ignore[arg-type]
        # per signature: (program, output tree, the rules made for it)
        self.programs: dict[Any, tuple[ClosedJaxpr, Any, Any]] = {}
        self.signature = signature_of(fun)

    def _split(self, args: tuple, kwargs: dict) -> tuple[tuple, list, list, Any]:
        """(the nondiff arguments, the leaves of the others, their types, their tree)."""
        args = resolve_kwargs(f"{self.kind}: {self.__name__}", self.signature, args, kwargs)
        n = len(args)
        for i in self.nondiff_argnums:
            if not -n <= i < n:
                raise ValueError(f"{self.kind}: nondiff_argnums entry {i} is out of range for a "
                                 f"call of {self.__name__} with {n} arguments")
        nums = tuple(sorted({i % n for i in self.nondiff_argnums}))
        for i in nums:
            if isinstance(args[i], Tracer) or any(isinstance(x, Tracer)
                                                  for x in tree_leaves(args[i])):
                raise TypeError(f"{self.kind}: nondiff argument {i} is a traced value; "
                                f"nondiff_argnums are for static (Python) arguments")
        static = tuple((i, args[i]) for i in nums)
        dyn = tuple(a for i, a in enumerate(args) if i not in nums)
        raw, tree = tree_flatten(dyn)
        leaves = [as_operand(x, self.kind, f"args[{k}]") for k, x in enumerate(raw)]
        return static, leaves, input_avals(raw, leaves), tree

    def _full(self, static: tuple, dyn: Sequence[Any]) -> list[Any]:
        full = list(dyn)
        for i, v in static:
            full.insert(i, v)
        return full

    def _program(self, static: tuple, avals: list, tree: Any,
                 rules: Callable[[ClosedJaxpr, Any], Any]) -> tuple[ClosedJaxpr, Any, Any]:
        """The program at these types, its output tree and ``rules(program, out_tree)``: made
        once per signature (the named axes of the vmaps running included, as the program may
        hold collectives over them), or on every call if a nondiff argument is unhashable."""
        key: Any = (static, tree, tuple(avals), axis_env())
        try:
            hit = self.programs.get(key)
        except TypeError:  # an unhashable nondiff argument (an array): not cached
            key, hit = None, None
        if hit is not None:
            return hit
        box: list[Any] = []

        def flat(*xs: Any) -> list[Any]:
            out = self.fun(*self._full(static, tree_unflatten(tree, xs)))
            outs, out_tree = tree_flatten(out)
            box.append(out_tree)
            return [as_output(o, self.kind) for o in outs]

        program = trace_program(flat, avals, self.kind)
        if any(isinstance(c, Tracer) for c in program.consts):
            raise TypeError(f"{self.kind}: the function closes over a traced value; pass "
                            f"it as an argument instead")
        entry = (program, box[0], rules(program, box[0]))
        if key is not None:
            self.programs[key] = entry
        return entry


# --------------------------------------------------------------------------- custom_jvp

custom_jvp_call_p = Primitive("custom_jvp_call")
custom_jvp_call_p.multiple_results = True


class custom_jvp(_Custom):
    """A function with its own JVP rule: ``f = custom_jvp(fun)``, then ``@f.defjvp`` on
    ``rule(primals, tangents) -> (primal_out, tangent_out)``, both tuples of the arguments'
    (and outputs') structure. ``nondiff_argnums`` name static arguments, passed to the rule
    first, as in JAX."""

    kind = "custom_jvp"

    def __init__(self, fun: Callable[..., Any], nondiff_argnums: Sequence[int] = (),
                 nondiff_argnames: Sequence[str] = ()):
        super().__init__(fun, nondiff_argnums, nondiff_argnames)
        self.jvp: Callable[..., Any] | None = None

    def defjvp(self, rule: Callable[..., Any]) -> Callable[..., Any]:
        check_callable("custom_jvp.defjvp", rule)
        self.jvp = rule
        return rule

    def defjvps(self, *derivs: Callable[..., Any] | None) -> None:
        """One rule per argument: ``deriv(tangent, primal_out, *primals)``, or None; the
        tangent out is their sum (JAX's ``defjvps``)."""
        def rule(primals: tuple, tangents: tuple) -> tuple:
            out = self.fun(*primals)
            total: Any = None
            for d, t in zip(derivs, tangents, strict=True):
                if d is not None:
                    term = d(t, out, *primals)
                    total = term if total is None else total + term
            return out, total if total is not None else out * 0

        self.jvp = rule

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.jvp is None:
            raise TypeError(f"custom_jvp: {self.__name__} has no JVP rule; define one with "
                            f"@{self.__name__}.defjvp")
        static, leaves, avals, tree = self._split(args, kwargs)
        program, out_tree, rule = self._program(
            static, avals, tree, lambda prog, out_tree: _flat_jvp_rule(self, static, tree,
                                                                       prog))
        outs = custom_jvp_call_p.bind(*leaves, call=program, jvp=rule, name=self.__name__)
        return tree_unflatten(out_tree, outs)


def _flat_jvp_rule(f: custom_jvp, static: tuple, tree: Any, program: ClosedJaxpr
                   ) -> Callable[..., tuple]:
    """The user's rule on flat lists (one per signature, so equal calls have equal
    parameters)."""
    in_avals = [v.aval for v in program.jaxpr.invars]

    def rule(primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[list, list]:
        p = tuple(tree_unflatten(tree, _given(primals, in_avals)))
        t = tuple(tree_unflatten(tree, tangents))
        result = f.jvp(*[v for _, v in static], p, t) if static else f.jvp(p, t)  # type: ignore[misc]
        if not isinstance(result, (tuple, list)) or len(result) != 2:
            raise TypeError(f"custom_jvp: the JVP rule of {f.__name__} must return a pair "
                            f"(primal_out, tangent_out)")
        p_out, t_out = tree_flatten(result[0])[0], tree_flatten(result[1])[0]
        return p_out, t_out

    rule.__qualname__ = f"{f.__name__}.jvp"
    return rule


def _call_impl(*args: Any, call: ClosedJaxpr, **params: Any) -> list:
    return eval_jaxpr(call.jaxpr, call.consts, *args)


def _call_abstract_eval(*avals: ShapedArray, call: ClosedJaxpr, **params: Any) -> list:
    return [v.aval for v in call.jaxpr.outvars]


custom_jvp_call_p.def_impl(_call_impl)
custom_jvp_call_p.def_abstract_eval(_call_abstract_eval)


@custom_jvp_call_p.def_jvp
def _custom_jvp_jvp(primals: tuple, tangents: tuple, *, call: ClosedJaxpr, jvp: Callable,
                    name: str) -> tuple[list, list]:
    avals = [v.aval for v in call.jaxpr.outvars]
    dense = [instantiate(t) for t in tangents]
    p_out, t_out = jvp(primals, dense)
    what = f"custom_jvp: the JVP rule of {name}"
    return _check(what + " (primal out)", p_out, avals, False), _check(what + " (tangent out)",
                                                                        t_out, avals, True)


@custom_jvp_call_p.def_batch
def _custom_jvp_batch(axis_size: int, vals: tuple, dims: tuple, *, call: ClosedJaxpr,
                      jvp: Callable, name: str, axis_name: Any = None) -> tuple[list, list]:
    # the program and the rule, batched, every output along axis 0
    program = derived(call, ("custom batch", axis_size, dims, axis_name),
                      lambda: _batched_program(call, axis_size, dims, axis_name))
    front = tuple(None if d is None else 0 for d in dims)
    rule = _cached(jvp, ("batched", axis_size, front, axis_name),
                   lambda: _batched_jvp_rule(jvp, axis_size, front, axis_name))
    outs = custom_jvp_call_p.bind(*_to_front(vals, dims, axis_size), call=program, jvp=rule,
                                  name=f"vmap({name})")
    return outs, [0] * len(outs)


def _to_front(vals: Sequence[Any], dims: Sequence[int | None], axis_size: int) -> list[Any]:
    """The operands with every batch axis first (the calls' batched forms take them so)."""
    return [x if d is None else bdim_to_front(x, d, axis_size)
            for x, d in zip(vals, dims, strict=True)]


def _batched_program(call: ClosedJaxpr, axis_size: int, dims: tuple, axis_name: Any
                     ) -> ClosedJaxpr:
    front = tuple(None if d is None else 0 for d in dims)
    avals = [v.aval if d is None else ShapedArray((axis_size, *v.aval.shape), v.aval.dtype)
             for v, d in zip(call.jaxpr.invars, front, strict=True)]

    def fun(*xs: Any) -> list[Any]:
        return list(vmap(lambda *a: eval_jaxpr(call.jaxpr, call.consts, *a), in_axes=front,
                         axis_size=axis_size, axis_name=axis_name)(*xs))

    return trace_program(fun, avals, "custom_jvp's vmap")


def _batched_jvp_rule(rule: Callable, axis_size: int, front: tuple, axis_name: Any
                      ) -> Callable:
    def batched(primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[list, list]:
        def one(p: list, t: list) -> tuple[list, list]:
            p_out, t_out = rule(p, t)
            return list(p_out), [instantiate(z) for z in t_out]

        # tangents of batched primals are batched alike; of unbatched ones, unbatched
        p_out, t_out = vmap(one, in_axes=(list(front), list(front)), axis_size=axis_size,
                            axis_name=axis_name)(list(primals), list(tangents))
        return p_out, t_out

    batched.__qualname__ = f"vmap({getattr(rule, '__qualname__', 'jvp')})"
    return batched


takes_axis_name.add(custom_jvp_call_p)


# --------------------------------------------------------------------------- custom_vjp

custom_vjp_call_p = Primitive("custom_vjp_call")
custom_vjp_call_p.multiple_results = True
custom_lin_p = Primitive("custom_lin")
custom_lin_p.multiple_results = True


class custom_vjp(_Custom):
    """A function with its own reverse-mode rule: ``f = custom_vjp(fun)``, then
    ``f.defvjp(fwd, bwd)``: ``fwd(*args) -> (out, residuals)`` and ``bwd(residuals, ct) ->``
    a tuple with one cotangent per argument (``nondiff_argnums`` arguments come first in
    ``bwd``'s arguments and get none). Forward mode (``jvp``, ``jacfwd``) raises, as in JAX."""

    kind = "custom_vjp"

    def __init__(self, fun: Callable[..., Any], nondiff_argnums: Sequence[int] = (),
                 nondiff_argnames: Sequence[str] = ()):
        super().__init__(fun, nondiff_argnums, nondiff_argnames)
        self.fwd: Callable[..., Any] | None = None
        self.bwd: Callable[..., Any] | None = None

    def defvjp(self, fwd: Callable[..., Any], bwd: Callable[..., Any]) -> None:
        check_callable("custom_vjp.defvjp fwd", fwd)
        check_callable("custom_vjp.defvjp bwd", bwd)
        self.fwd, self.bwd = fwd, bwd

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.fwd is None:
            raise TypeError(f"custom_vjp: {self.__name__} has no rule; define one with "
                            f"{self.__name__}.defvjp(fwd, bwd)")
        static, leaves, avals, tree = self._split(args, kwargs)
        program, out_tree, (fwd, bwd) = self._program(
            static, avals, tree, lambda prog, out_tree: _flat_vjp_rules(self, static, tree,
                                                                        out_tree, prog))
        outs = custom_vjp_call_p.bind(*leaves, call=program, fwd=fwd, bwd=bwd,
                                      name=self.__name__)
        return tree_unflatten(out_tree, outs)


def _flat_vjp_rules(f: custom_vjp, static: tuple, tree: Any, out_tree: Any,
                    program: ClosedJaxpr) -> tuple[Callable, Callable]:
    nondiff = [v for _, v in static]
    name = f.__name__
    in_avals = [v.aval for v in program.jaxpr.invars]

    def fwd(*leaves: Any) -> tuple[list, list, Any]:
        args = f._full(static, tree_unflatten(tree, _given(leaves, in_avals)))
        result = f.fwd(*args)  # type: ignore[misc]
        if not isinstance(result, (tuple, list)) or len(result) != 2:
            raise TypeError(f"custom_vjp: fwd of {name} must return a pair (output, "
                            f"residuals)")
        outs, got_tree = tree_flatten(result[0])
        if got_tree != out_tree:
            raise TypeError(f"custom_vjp: fwd of {name} must return an output of the "
                            f"function's structure {out_tree}; got {got_tree}")
        res, res_tree = tree_flatten(result[1])
        return outs, res, res_tree

    def bwd(res: Sequence[Any], res_tree: Any, cts: Sequence[Any]) -> list[Any]:
        ct = tree_unflatten(out_tree, list(cts))
        got = f.bwd(*nondiff, tree_unflatten(res_tree, list(res)), ct)  # type: ignore[misc]
        what = f"custom_vjp: bwd of {name}"
        if not isinstance(got, (tuple, list)):
            raise TypeError(f"{what} must return a tuple with one cotangent per "
                            f"differentiable argument; got a {type(got).__name__}")
        # None is a zero cotangent, for a leaf or a whole argument (JAX's)
        try:
            leaves = broadcast_prefix(tuple(got), tree_unflatten(tree, in_avals), what)
        except ValueError:
            leaves = None
        if leaves is None or [id(x) for x in leaves if x is not None] != [
                id(x) for x in tree_leaves(tuple(got))]:
            raise TypeError(f"{what} must return a tuple of the arguments' structure {tree} "
                            f"(one cotangent each, or None for zero); got "
                            f"{tree_flatten(tuple(got))[1]}")
        leaves = [Zero(_tangent_aval(a)) if x is None else x
                  for x, a in zip(leaves, in_avals, strict=True)]
        return [instantiate(c) for c in _check(what, leaves, in_avals, True)]

    fwd.__qualname__, bwd.__qualname__ = f"{name}.fwd", f"{name}.bwd"
    return fwd, bwd


custom_vjp_call_p.def_impl(_call_impl)
custom_vjp_call_p.def_abstract_eval(_call_abstract_eval)


@custom_vjp_call_p.def_jvp
def _custom_vjp_jvp(primals: tuple, tangents: tuple, *, call: ClosedJaxpr, fwd: Callable,
                    bwd: Callable, name: str) -> tuple[list, list]:
    avals = [v.aval for v in call.jaxpr.outvars]
    outs, res, res_tree = fwd(*primals)
    outs = _check(f"custom_vjp: fwd of {name}", outs, avals, False)
    dense = [instantiate(t) for t in tangents]
    t_out = custom_lin_p.bind(*res, *dense, n_res=len(res), res_tree=res_tree, bwd=bwd,
                              out_avals=tuple(_tangent_aval(a) for a in avals), name=name)
    return outs, t_out


@custom_vjp_call_p.def_batch
def _custom_vjp_batch(axis_size: int, vals: tuple, dims: tuple, *, call: ClosedJaxpr,
                      fwd: Callable, bwd: Callable, name: str, axis_name: Any = None
                      ) -> tuple[list, list]:
    program = derived(call, ("custom batch", axis_size, dims, axis_name),
                      lambda: _batched_program(call, axis_size, dims, axis_name))
    front = tuple(None if d is None else 0 for d in dims)
    b_fwd, b_bwd = _cached(fwd, ("batched", axis_size, front, axis_name),
                           lambda: _batched_vjp_rules(fwd, bwd, axis_size, front, axis_name))
    outs = custom_vjp_call_p.bind(*_to_front(vals, dims, axis_size), call=program, fwd=b_fwd,
                                  bwd=b_bwd, name=f"vmap({name})")
    return outs, [0] * len(outs)


def _batched_vjp_rules(fwd: Callable, bwd: Callable, axis_size: int, front: tuple,
                       axis_name: Any) -> tuple[Callable, Callable]:
    trees: list[Any] = []

    def b_fwd(*leaves: Any) -> tuple[list, list, Any]:
        def one(*xs: Any) -> tuple[list, list]:
            outs, res, res_tree = fwd(*xs)
            trees[:] = [res_tree]
            return list(outs), list(res)

        outs, res = vmap(one, in_axes=front, axis_size=axis_size, axis_name=axis_name)(*leaves)
        return outs, res, trees[0]

    def b_bwd(res: Sequence[Any], res_tree: Any, cts: Sequence[Any]) -> list[Any]:
        return list(vmap(lambda r, c: bwd(r, res_tree, c), axis_size=axis_size,
                         axis_name=axis_name)(list(res), list(cts)))

    b_fwd.__qualname__ = f"vmap({getattr(fwd, '__qualname__', 'fwd')})"
    b_bwd.__qualname__ = f"vmap({getattr(bwd, '__qualname__', 'bwd')})"
    return b_fwd, b_bwd


takes_axis_name.add(custom_vjp_call_p)


def _custom_lin_impl(*args: Any, name: str, **params: Any) -> list:
    raise TypeError(f"can't apply forward-mode autodiff (jvp) to a custom_vjp function: "
                    f"{name}; use reverse mode (grad, vjp, jacrev), or give it a custom_jvp")


custom_lin_p.def_impl(_custom_lin_impl)


@custom_lin_p.def_abstract_eval
def _custom_lin_abstract_eval(*avals: ShapedArray, out_avals: tuple, **params: Any) -> list:
    return list(out_avals)


@custom_lin_p.def_transpose
def _custom_lin_transpose(cts: list, *operands: Any, n_res: int, res_tree: Any, bwd: Callable,
                          out_avals: tuple, name: str) -> list[Any]:
    res = operands[:n_res]
    cts = [instantiate(c) for c in cts]
    cts_in = bwd(res, res_tree, cts)
    return [None] * n_res + list(cts_in)


def _custom_lin_jvp(primals: tuple, tangents: tuple, *, name: str, **params: Any) -> Any:
    return _custom_lin_impl(name=name)  # forward mode again: the same refusal


custom_lin_p.def_jvp(_custom_lin_jvp)


@custom_lin_p.def_batch
def _custom_lin_batch(axis_size: int, vals: tuple, dims: tuple, **params: Any) -> Any:
    # Its tangents are batched: forward mode over a batch of tangents (jacfwd), which a
    # custom_vjp function cannot do either.
    return _custom_lin_impl(name=params["name"])


# --------------------------------------------------------------------------- custom_vmap

custom_vmap_call_p = Primitive("custom_vmap_call")
custom_vmap_call_p.multiple_results = True


class custom_vmap(_Custom):
    """A function with its own batching rule: ``f = custom_vmap(fun)``, then ``@f.def_vmap``
    on ``rule(axis_size, in_batched, *args) -> (out, out_batched)``: ``in_batched`` says which
    arguments carry the batch axis (first), ``out_batched`` which outputs do."""

    kind = "custom_vmap"

    def __init__(self, fun: Callable[..., Any]):
        super().__init__(fun)
        self.rule: Callable[..., Any] | None = None

    def def_vmap(self, rule: Callable[..., Any]) -> Callable[..., Any]:
        check_callable("custom_vmap.def_vmap", rule)
        self.rule = rule
        return rule

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.rule is None:
            raise TypeError(f"custom_vmap: {self.__name__} has no batching rule; define one "
                            f"with @{self.__name__}.def_vmap")
        static, leaves, avals, tree = self._split(args, kwargs)
        program, out_tree, rule = self._program(
            static, avals, tree, lambda prog, out_tree: _flat_vmap_rule(self, tree, out_tree,
                                                                        prog))
        outs = custom_vmap_call_p.bind(*leaves, call=program, rule=rule, name=self.__name__)
        return tree_unflatten(out_tree, outs)


def _flat_vmap_rule(f: custom_vmap, tree: Any, out_tree: Any, program: ClosedJaxpr
                    ) -> Callable:
    in_avals = [v.aval for v in program.jaxpr.invars]

    def rule(axis_size: int, in_batched: list[bool], *leaves: Any) -> tuple[list, list]:
        args = tree_unflatten(tree, _given(leaves, in_avals))
        flags = tree_unflatten(tree, in_batched)
        result = f.rule(axis_size, list(flags), *args)  # type: ignore[misc]
        if not isinstance(result, (tuple, list)) or len(result) != 2:
            raise TypeError(f"custom_vmap: the rule of {f.__name__} must return a pair "
                            f"(out, out_batched)")
        outs, got = tree_flatten(result[0])
        flags_out = tree_flatten(result[1])[0]
        if got != out_tree or len(flags_out) != len(outs):
            raise TypeError(f"custom_vmap: the rule of {f.__name__} must return an output of "
                            f"the function's structure {out_tree}, and one bool per output; "
                            f"got {got} and {result[1]!r}")
        return outs, [bool(b) for b in flags_out]

    rule.__qualname__ = f"{f.__name__}.vmap_rule"
    return rule


custom_vmap_call_p.def_impl(_call_impl)
custom_vmap_call_p.def_abstract_eval(_call_abstract_eval)


@custom_vmap_call_p.def_batch
def _custom_vmap_batch(axis_size: int, vals: tuple, dims: tuple, *, call: ClosedJaxpr,
                       rule: Callable, name: str, axis_name: Any = None) -> tuple[list, list]:
    if all(d is None for d in dims):  # a named vmap's, for the collectives the program holds
        program, out_dims = derived(call, ("batch", axis_size, dims, axis_name),
                                    lambda: batch_program(call, axis_size, dims, axis_name))
        return jit_call(program, vals, f"vmap({name})"), out_dims
    outs, batched = rule(axis_size, [d is not None for d in dims],
                         *_to_front(vals, dims, axis_size))
    avals = [v.aval for v in call.jaxpr.outvars]
    for k, (o, b, a) in enumerate(zip(outs, batched, avals, strict=True)):
        want = ShapedArray((axis_size, *a.shape) if b else a.shape, a.dtype)
        got = get_aval(as_output(o, f"custom_vmap: the rule of {name}"))
        if got.shape != want.shape or got.dtype != want.dtype:
            raise TypeError(f"custom_vmap: the rule of {name}: output {k} must be "
                            f"{want.str_short()} (the function's type, batched: {b}); got "
                            f"{got.str_short()}")
    return list(outs), [0 if b else None for b in batched]


takes_axis_name.add(custom_vmap_call_p)


@custom_vmap_call_p.def_jvp
def _custom_vmap_jvp(primals: tuple, tangents: tuple, *, call: ClosedJaxpr, rule: Callable,
                     name: str) -> tuple[list, list]:
    return jvp_call(call, primals, tangents, name)  # the rule is about batching only


__all__ = ["custom_jvp", "custom_vjp", "custom_vmap"]

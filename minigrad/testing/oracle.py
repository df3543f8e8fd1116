"""minigrad as the oracle for a user's own function: ``per_example_grads`` and
``assert_matches``, which checks another framework's transforms of the same function.

``assert_matches(theirs, ours, args, framework="torch")`` runs both functions (``theirs`` on
the framework's arrays, ``ours`` on NumPy arrays) and compares

* ``forward``: the values;
* ``vjp`` and ``jvp``: reverse and forward mode for fixed random cotangents and tangents;
* ``vmap`` and ``vmap(grad)``: for every combination of batched and unbatched arguments
  (``all_in_axes``), the batched function and, for a scalar function, the per-example
  gradients.

It fails on the first array that differs, naming the check and the combination and, when one
applies, the documented divergence (``minigrad.testing.divergences``) that explains it: the ops
the function calls are read from its jaxpr. A documented divergence still fails: the other
framework is still wrong for this function.

>>> import numpy as np, minigrad as mg
>>> from minigrad.testing import per_example_grads
>>> loss = lambda w, x: mg.numpy.sum(mg.numpy.sin(x * w))
>>> per_example_grads(loss, (np.ones(3), np.ones((4, 3))), in_axes=(None, 0)).shape
(4, 3)
"""

from __future__ import annotations

from functools import partial
from typing import Any, Callable, Sequence

import numpy as np

from minigrad.jaxpr import ClosedJaxpr, Eqn, Literal, Var, make_jaxpr
from minigrad.testing.checks import all_in_axes
from minigrad.testing.divergences import Divergence, Situation, documented
from minigrad.testing.frameworks import load
from minigrad.transforms.grad import grad
from minigrad.transforms.jvp import jvp
from minigrad.transforms.transpose import vjp
from minigrad.transforms.vmap import vmap

CHECKS = ("forward", "vjp", "jvp", "vmap", "vmap(grad)")


class Mismatch(AssertionError):
    """Two frameworks' values differ."""


def tolerance(dtype: Any) -> float:
    """The relative and absolute tolerance of a comparison in ``dtype``: float32 and float16
    results differ by rounding, float64 ones hardly at all."""
    return 1e-10 if np.dtype(dtype) == np.float64 else 1e-4


def compare(got: Sequence[Any], want: Sequence[Any], tol: float, rtol: float | None = None
            ) -> float:
    """The worst absolute difference of two lists of arrays; ``Mismatch`` when a shape differs
    or an element is outside ``tol + rtol * |want|`` (``rtol`` is ``tol`` unless given)."""
    rtol = tol if rtol is None else rtol
    worst = 0.0
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        g, w = np.asarray(g), np.asarray(w)
        if g.shape != w.shape:
            raise Mismatch(f"output {k}: shape {g.shape}, minigrad's {w.shape}")
        if w.size == 0:
            continue
        err = np.abs(g.astype(np.float64) - w.astype(np.float64))
        bad = ~(err <= tol + rtol * np.abs(w.astype(np.float64)))
        bad &= ~(np.isnan(g.astype(np.float64)) & np.isnan(w.astype(np.float64)))
        if bad.any():
            raise Mismatch(f"output {k}: {int(bad.sum())} of {w.size} elements differ (worst "
                           f"|error| {float(np.nanmax(err)):.3g}); theirs {g.ravel()[:6]}, "
                           f"minigrad {w.ravel()[:6]}")
        worst = max(worst, float(np.nanmax(err)))
    return worst


def has_duplicates(index: Any, batched: bool = False) -> bool:
    """Whether ``index`` (each example ``index[b]``, if ``batched``) repeats an entry. A 0-d
    index is one entry: it cannot."""
    examples = np.asarray(index) if batched else np.asarray(index)[None]
    if examples.ndim < 2 or examples.size == 0:
        return False
    rows = examples.reshape(-1, examples.shape[-1])
    return any(len(set(r.tolist())) < len(r) for r in rows)


def distinct_counts_differ(index: Any) -> bool:
    """Whether the examples of a batched ``index`` (examples on axis 0) differ in their counts
    of distinct entries, which is where torch.func's loop over ``_unique`` fails to stack."""
    index = np.asarray(index)
    if index.ndim < 2 or index.shape[0] < 2:
        return False
    return len({len(set(r.tolist())) for r in index}) > 1


def _argnums(name: str, argnums: Any, n: int) -> tuple[int, ...]:
    nums = (argnums,) if isinstance(argnums, int) else argnums
    if not isinstance(nums, tuple) or not nums or not all(
            isinstance(a, int) and not isinstance(a, bool) for a in nums):
        raise TypeError(f"{name}: argnums must be an int or a non-empty tuple of ints; got "
                        f"{argnums!r}")
    if any(not -n <= a < n for a in nums) or len({a % n for a in nums}) != len(nums):
        raise ValueError(f"{name}: argnums {argnums!r} must be distinct positions among the "
                         f"{n} arguments")
    return tuple(a % n for a in nums)


def _in_axes(name: str, in_axes: Any, args: Sequence[Any]) -> tuple[int | None, ...]:
    axes = tuple(in_axes) if isinstance(in_axes, (tuple, list)) else (in_axes,) * len(args)
    if len(axes) != len(args):
        raise ValueError(f"{name}: in_axes must have one entry per argument ({len(args)}); got "
                         f"{len(axes)}")
    for a, x in zip(axes, args, strict=True):
        if a is not None and (not isinstance(a, int) or isinstance(a, bool)
                              or not -np.ndim(x) <= a < max(np.ndim(x), 1)):
            raise ValueError(f"{name}: in_axes entry {a!r} does not fit an argument of shape "
                             f"{np.shape(x)}")
    if all(a is None for a in axes):
        raise ValueError(f"{name}: in_axes must batch at least one argument")
    return axes


def per_example_grads(f: Callable[..., Any], args: Sequence[Any], in_axes: Any = 0,
                      argnums: int | tuple[int, ...] = 0) -> Any:
    """The gradient of the scalar ``f`` in ``argnums``, example by example: ``vmap(grad(f,
    argnums), in_axes)(*args)``, as NumPy arrays (a tuple of them when ``argnums`` is a
    tuple). Each batched argument has the examples along its ``in_axes`` entry; the gradients
    have them along axis 0."""
    if not callable(f):
        raise TypeError(f"per_example_grads: f must be callable; got {type(f).__name__}")
    if not isinstance(args, (tuple, list)):
        raise TypeError(f"per_example_grads: args must be a tuple of the arguments; got "
                        f"{type(args).__name__}")
    nums = _argnums("per_example_grads", argnums, len(args))
    axes = _in_axes("per_example_grads", in_axes, args)
    out = vmap(grad(f, argnums=nums if isinstance(argnums, tuple) else nums[0]),
               in_axes=axes)(*args)
    return tuple(np.asarray(g) for g in out) if isinstance(argnums, tuple) else np.asarray(out)


# --------------------------------------------------------------------------- assert_matches

# The five ops' primitives and the names of their operands, as the divergences name them.
OPERANDS = {"index_add": ("x", "index", "source"), "index_copy": ("x", "index", "source"),
            "index_fill": ("x", "index", "value"), "masked_fill": ("x", "mask", "value"),
            "masked_scatter": ("x", "mask", "source")}


def op_calls(f: Callable[..., Any], args: Sequence[Any]) -> list[dict[str, Any]]:
    """The calls of the five ops in ``f``'s program at ``args``, in order: for each, the op,
    the user arguments each operand depends on, the operands that are 0-d where the user
    passed them (before the op's reshape to one slice), and the index's value when it is
    known."""
    closed = make_jaxpr(f)(*args)
    calls: list[dict[str, Any]] = []
    _walk(closed, [frozenset({i}) for i in range(len(args))], list(args), calls)
    return calls


def _walk(closed: ClosedJaxpr, deps: list[frozenset], values: list[Any],
          calls: list[dict[str, Any]]) -> None:
    jaxpr = closed.jaxpr
    dep: dict[int, frozenset] = {id(v): frozenset() for v in jaxpr.constvars}
    val: dict[int, Any] = {id(v): c for v, c in zip(jaxpr.constvars, closed.consts,
                                                    strict=True)}
    zero_d: set[int] = set()
    for v, d, x in zip(jaxpr.invars, deps, values, strict=True):
        dep[id(v)], val[id(v)] = d, x

    def read(a: Any) -> Any:
        return a.val if isinstance(a, Literal) else val.get(id(a))

    for e in jaxpr.eqns:
        ins = [frozenset() if isinstance(a, Literal) else dep.get(id(a), frozenset())
               for a in e.inputs]
        name = e.prim.name
        if name in OPERANDS:
            calls.append({"op": name, "deps": dict(zip(OPERANDS[name], ins, strict=False)),
                          "zero_d": {n for n, a in zip(OPERANDS[name], e.inputs, strict=False)
                                     if isinstance(a, Var) and id(a) in zero_d},
                          "index": read(e.inputs[1]) if name.startswith("index") else None})
        if name == "reshape" and e.inputs[0].aval.shape == ():
            zero_d.update(id(v) for v in e.outs)
        nested = [p for p in e.params.values() if isinstance(p, ClosedJaxpr)]
        if nested and len(nested[0].jaxpr.invars) == len(e.inputs):
            _walk(nested[0], ins, [read(a) for a in e.inputs], calls)
        everything = frozenset().union(*ins)
        known = _evaluate(e, [read(a) for a in e.inputs])
        for k, v in enumerate(e.outs):
            dep[id(v)] = everything
            if known is not None:
                val[id(v)] = known[k]


def _evaluate(e: Eqn, inputs: list[Any]) -> list[Any] | None:
    """The equation's results when its inputs are known (an index computed from constants)."""
    if any(x is None for x in inputs):
        return None
    try:
        out = e.prim.bind(*inputs, **e.params)
    except Exception:  # a value the interpreter cannot compute here is simply not known
        return None
    return list(out) if e.prim.multiple_results else [out]


def explaining(framework: str, check: str, calls: list[dict[str, Any]],
               batched: frozenset[int], args: Sequence[Any],
               batch: Sequence[Any] | None = None) -> Divergence | None:
    """The documented divergence of ``framework`` that applies to one of the op calls for
    ``check`` with the user arguments ``batched`` (stacked in ``batch``), if any."""
    for call in calls:
        deps = call["deps"]
        names = frozenset(n for n, d in deps.items() if d & batched)
        index, mapped = call["index"], False
        users = [i for i in deps.get("index", ()) if np.asarray(args[i]).dtype.kind in "iu"]
        if index is None and users:  # the index is a user argument: batched, maybe
            mapped = batch is not None and users[0] in batched
            index = batch[users[0]] if batch is not None and mapped else args[users[0]]
        ragged = mapped and distinct_counts_differ(index)
        dup = index is not None and has_duplicates(index, batched=mapped)
        empty = frozenset({"index"}) if index is not None and np.size(index) == 0 else frozenset()
        situation = Situation(call["op"], check, batched=names, duplicates=dup,
                              value_array=bool(deps.get("value")),
                              zero_d=frozenset(call["zero_d"]), ragged_unique=ragged,
                              empty=empty)
        found = documented(framework, situation)
        if found is not None:
            return found
    return None


def _examples(args: Sequence[Any], axes: tuple, size: int, seed: int) -> list[Any]:
    """``size`` examples of each batched argument stacked at its axis: the argument itself
    first, then draws like it (floats perturbed; integer and bool arrays permuted, so an index
    keeps its range and a mask its count)."""
    rng = np.random.default_rng(seed)
    out = []
    for a, ax in zip(args, axes, strict=True):
        if ax is None:
            out.append(a)
            continue
        a = np.asarray(a)
        draws = [a]
        for _ in range(size - 1):
            if a.dtype.kind in "fc":
                draws.append((a + 0.1 * rng.standard_normal(a.shape)).astype(a.dtype))
            else:
                draws.append(rng.permutation(a.reshape(-1)).reshape(a.shape))
        out.append(np.stack(draws, axis=ax))
    return out


def assert_matches(theirs: Callable[..., Any], ours: Callable[..., Any], args: Sequence[Any],
                   framework: str = "torch", *, argnums: int | tuple[int, ...] | None = None,
                   checks: Sequence[str] = CHECKS, batch_size: int = 3, seed: int = 0,
                   rtol: float | None = None, atol: float | None = None) -> None:
    """Assert that the other framework's transforms of ``theirs`` equal minigrad's of ``ours``
    (the same function, written for each), at ``args`` (NumPy arrays, one example): values,
    VJP, JVP, ``vmap`` and ``vmap(grad)`` for every combination of batched arguments.

    ``argnums``: the arguments to differentiate (default: every floating one). ``checks``: a
    subset of ``CHECKS``. The batched checks stack ``batch_size`` examples: each argument
    itself first, then floats perturbed and integer or bool arrays permuted. Tolerances are
    relative and absolute, by the output's dtype (1e-10 in float64, 1e-4 below) unless given.
    Raises ``AssertionError`` on the first difference, naming the check, the combination and
    any documented divergence that explains it; ``ImportError`` if the framework is not
    installed."""
    if not callable(theirs) or not callable(ours):
        raise TypeError("assert_matches: theirs and ours must be callables")
    if not isinstance(args, (tuple, list)):
        raise TypeError(f"assert_matches: args must be a tuple of the arguments; got "
                        f"{type(args).__name__}")
    unknown = [c for c in checks if c not in CHECKS]
    if unknown:
        raise ValueError(f"assert_matches: unknown check {unknown[0]!r}; the checks are "
                         f"{', '.join(CHECKS)}")
    if not isinstance(batch_size, int) or batch_size < 2:
        raise ValueError(f"assert_matches: batch_size must be an int >= 2; got {batch_size!r}")
    args = [a if isinstance(a, (int, float, complex)) else np.asarray(a) for a in args]
    floats = tuple(i for i, a in enumerate(args)
                   if isinstance(a, np.ndarray) and a.dtype.kind == "f")
    diff = (_argnums("assert_matches", argnums, len(args)) if argnums is not None else floats)
    if any(not isinstance(args[i], np.ndarray) or args[i].dtype.kind != "f" for i in diff):
        raise TypeError(f"assert_matches: argnums {argnums!r} must name floating array "
                        f"arguments")
    fw = load(framework, "assert_matches")
    calls = op_calls(ours, args)
    rng = np.random.default_rng(seed)

    def conv(xs: Sequence[Any]) -> list[Any]:
        return [fw.array(x, "", "") if isinstance(x, np.ndarray) else x for x in xs]

    def check(name: str, batched: frozenset[int], axes: tuple | None, run: Callable[[], tuple],
              batch: Sequence[Any] | None = None) -> None:
        where = f"{name}" + (f" in_axes={axes}" if axes is not None else "")
        try:
            got, want = run()
            tol = tolerance(np.result_type(*[np.asarray(w) for w in want]))
            compare([g if isinstance(g, np.ndarray) else fw.numpy(g) for g in got], want,
                    tol if atol is None else atol, tol if rtol is None else rtol)
        except Exception as e:
            found = explaining(fw.name, name, calls, batched, args, batch)
            why = (f"\ndocumented divergence [{found.id}] ({found.condition}): {found.reason}"
                   if found is not None else "")
            raise AssertionError(f"assert_matches ({fw.name} {fw.version}): {where}: "
                                 f"{type(e).__name__}: {e}{why}") from None

    with fw.session():
        out = np.asarray(ours(*args))
        if "forward" in checks:
            check("forward", frozenset(), None, lambda: ([theirs(*conv(args))], [out]))
        if diff:
            def restricted(f: Callable[..., Any], xs: list) -> Callable[..., Any]:
                def g(*vals: Any) -> Any:
                    full = list(xs)
                    for i, v in zip(diff, vals, strict=True):
                        full[i] = v
                    return f(*full)
                return g

            ct = rng.standard_normal(out.shape).astype(out.dtype)
            tangents = [rng.standard_normal(np.shape(args[i])).astype(args[i].dtype)
                        for i in diff]
            primals = [args[i] for i in diff]
            fw_args = conv(args)
            if "vjp" in checks:
                check("vjp", frozenset(), None, lambda: (
                    fw.vjp(restricted(theirs, fw_args), [fw_args[i] for i in diff],
                           fw.array(ct, "", "")),
                    list(vjp(restricted(ours, args), *primals)[1](ct))))
            if "jvp" in checks:
                check("jvp", frozenset(), None, lambda: (
                    [fw.jvp(restricted(theirs, fw_args), [fw_args[i] for i in diff],
                            conv(tangents))],
                    [jvp(restricted(ours, args), tuple(primals), tuple(tangents))[1]]))

        def vmapped(b: list, ax: tuple) -> tuple:
            return [fw.vmap(theirs, ax, conv(b))], [vmap(ours, in_axes=ax)(*b)]

        def per_example(b: list, ax: tuple) -> tuple:
            return (list(fw.vmap(fw.grad(theirs, diff), ax, conv(b))),
                    list(per_example_grads(ours, b, ax, diff)))

        for axes in all_in_axes(len(args), [i for i, a in enumerate(args)
                                            if isinstance(a, np.ndarray)]):
            batched = frozenset(i for i, a in enumerate(axes) if a is not None)
            bargs = _examples(args, axes, batch_size, seed + 1)
            if "vmap" in checks:
                check("vmap", batched, axes, partial(vmapped, bargs, axes), bargs)
            if "vmap(grad)" in checks and diff and out.ndim == 0:
                check("vmap(grad)", batched, axes, partial(per_example, bargs, axes), bargs)


__all__ = ["CHECKS", "assert_matches", "compare", "distinct_counts_differ", "has_duplicates",
           "op_calls", "per_example_grads", "tolerance"]

"""minigrad as the oracle for a user's own function: ``per_example_grads`` and ``assert_matches``.

``assert_matches(other_fn, minigrad_fn, args)`` takes one function written twice, once for the
other framework (PyTorch or JAX) and once with minigrad, and compares them: the values, a VJP
and a JVP at ``args``, then ``vmap`` and ``vmap(grad)`` for every combination of batched
arguments (``all_in_axes``). The other framework's transforms are its function transforms
(``torch.func.vmap``, ``grad``, ``vjp``, ``jvp``; ``jax.vmap`` ...), called through the adapters
of ``minigrad.testing.frameworks``. The first array that differs fails the test, and the message
names its check and combination and, when the function binds an op of a documented divergence
whose condition holds on the operands that op sees, that divergence
(``minigrad.testing.divergences``). A documented divergence still fails: the other framework is
still wrong, or differs on purpose, for this function.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from minigrad.testing.checks import all_in_axes, errors
from minigrad.testing.frameworks import FRAMEWORKS, INSTALL, Framework, Jax, Torch, tolerance
from minigrad.testing.situations import explain
from minigrad.transforms.grad import grad
from minigrad.transforms.jvp import jvp
from minigrad.transforms.transpose import vjp
from minigrad.transforms.vmap import vmap
from minigrad.tree import tree_flatten, tree_leaves, tree_unflatten

CHECKS = ("values", "vjp", "jvp", "vmap", "vmap(grad)")


# --------------------------------------------------------------------------- argument checks


def _check_callable(fn: str, name: str, f: Any) -> None:
    if not callable(f):
        raise TypeError(f"{fn}: {name} must be callable; got {type(f).__name__}")


def _check_args(fn: str, args: Any) -> list[Any]:
    """The arguments as a list: arrays (NumPy scalars become 0-d arrays) and Python numbers."""
    if not isinstance(args, (tuple, list)):
        raise TypeError(f"{fn}: args must be a tuple or list of the function's arguments; got "
                        f"{type(args).__name__}")
    out = []
    for i, a in enumerate(args):
        if isinstance(a, np.generic):
            a = np.asarray(a)
        if not isinstance(a, (np.ndarray, bool, int, float, complex)):
            raise TypeError(f"{fn}: args[{i}] must be a NumPy array or a Python number; got "
                            f"{type(a).__name__}")
        out.append(a)
    return out


def _check_argnums(fn: str, argnums: Any, args: Sequence[Any]) -> tuple[int, ...]:
    nums = argnums if isinstance(argnums, tuple) else (argnums,)
    for i in nums:
        if isinstance(i, bool) or not isinstance(i, int):
            raise TypeError(f"{fn}: argnums must be an int or a tuple of ints; got {argnums!r}")
        if not 0 <= i < len(args):
            raise ValueError(f"{fn}: argnums must be in [0, {len(args)}) for {len(args)} "
                             f"arguments; got {i}")
        a = args[i]
        if not (isinstance(a, np.ndarray) and np.issubdtype(a.dtype, np.floating)):
            got = a.dtype if isinstance(a, np.ndarray) else type(a).__name__
            raise TypeError(f"{fn}: args[{i}] (in argnums) must be a floating NumPy array to "
                            f"be differentiated; got {got}")
    if len(set(nums)) != len(nums):
        raise ValueError(f"{fn}: argnums must not repeat an argument; got {argnums!r}")
    return nums


def _check_in_axes(fn: str, in_axes: Any, args: Sequence[Any], name: str = "in_axes"
                   ) -> tuple[int | None, ...]:
    """``in_axes`` as one entry per argument, each in range, batching at least one argument of
    one batch size."""
    axes = tuple(in_axes) if isinstance(in_axes, (tuple, list)) else (in_axes,) * len(args)
    if len(axes) != len(args):
        raise ValueError(f"{fn}: {name} must have one entry per argument ({len(args)}); got "
                         f"{in_axes!r}")
    sizes = {}
    for i, (a, ax) in enumerate(zip(args, axes, strict=True)):
        if ax is None:
            continue
        if isinstance(ax, bool) or not isinstance(ax, int):
            raise TypeError(f"{fn}: {name} entries must be ints or None; got {ax!r} for "
                            f"args[{i}]")
        ndim = np.ndim(a) if isinstance(a, np.ndarray) else 0
        if not isinstance(a, np.ndarray) or not -ndim <= ax < ndim:
            raise ValueError(f"{fn}: {name}[{i}] = {ax} must be None or an axis of args[{i}] "
                             f"(shape {np.shape(a)})")
        sizes[i] = np.shape(a)[ax]
    if not sizes:
        raise ValueError(f"{fn}: {name} must batch at least one argument; got {in_axes!r}")
    if len(set(sizes.values())) > 1:
        raise ValueError(f"{fn}: the batched arguments must agree on the batch size; got "
                         + ", ".join(f"{n} for args[{i}]" for i, n in sizes.items()))
    return axes


def _with(args: Sequence[Any], positions: Sequence[int], vals: Sequence[Any]) -> list[Any]:
    full = list(args)
    for i, v in zip(positions, vals, strict=True):
        full[i] = v
    return full


# --------------------------------------------------------------------------- per-example grads


def per_example_grads(f: Callable[..., Any], args: Sequence[Any], in_axes: Any,
                      argnums: int | tuple[int, ...] = 0) -> Any:
    """``vmap(grad(f, argnums), in_axes)(*args)`` as NumPy arrays: the gradient of the scalar
    loss ``f`` for each example, one array (a tuple of them when ``argnums`` is a tuple) with
    the batch on axis 0. ``in_axes`` has one entry per argument (an int or None), or is one
    int for all.

    >>> import numpy as np, minigrad as mg
    >>> from minigrad.testing import per_example_grads
    >>> loss = lambda w, x: mg.numpy.sum((w * x) ** 2)
    >>> per_example_grads(loss, (np.ones(2), np.array([[1.0, 2.0], [3.0, 4.0]])), (None, 0))
    array([[ 2.,  8.],
           [18., 32.]])
    """
    _check_callable("per_example_grads", "f", f)
    args = _check_args("per_example_grads", args)
    _check_argnums("per_example_grads", argnums, args)
    axes = _check_in_axes("per_example_grads", in_axes, args)
    out = vmap(grad(f, argnums=argnums), in_axes=axes)(*args)
    return tuple(np.asarray(g) for g in out) if isinstance(argnums, tuple) else np.asarray(out)


# --------------------------------------------------------------------------- assert_matches


def _load(framework: str) -> Framework:
    try:
        return Torch() if framework == "torch" else Jax()
    except ImportError as e:
        raise ImportError(f"assert_matches: framework {framework!r} is not installed ({e}); "
                          f"install it with {INSTALL[framework]}") from None


def _draw_batches(args: Sequence[Any], batch: Mapping[int, Any] | None, size: int | None,
                  seed: int) -> dict[int, np.ndarray]:
    """Stacked examples (batch on axis 0) of every array argument: the user's ``batch`` where
    given; for a floating array, the argument and ``size - 1`` noisy copies; for an integer or
    bool array (an index, a mask: only the user knows which variations are valid), copies."""
    given = dict(batch or {})
    for i, b in given.items():
        if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(args):
            raise ValueError(f"assert_matches: batch keys must be argument positions in "
                             f"[0, {len(args)}); got {i!r}")
        a = args[i]
        if not isinstance(a, np.ndarray):
            raise TypeError(f"assert_matches: batch[{i}]: args[{i}] is a Python number, which "
                            f"is never batched")
        b = given[i] = np.asarray(b)
        if b.shape[1:] != a.shape or b.dtype != a.dtype or b.ndim == 0:
            raise ValueError(f"assert_matches: batch[{i}] must stack examples of args[{i}] "
                             f"({a.dtype}{list(a.shape)}) along axis 0; got "
                             f"{b.dtype}{list(b.shape)}")
    sizes = {b.shape[0] for b in given.values()} | ({size} if size is not None else set())
    if len(sizes) > 1:
        raise ValueError(f"assert_matches: batch and batch_size must agree on the batch size; "
                         f"got {sorted(sizes)}")
    if sizes:
        n = sizes.pop()
    else:  # no argument dimension equals the batch size, so an axis mix-up cannot hide
        dims = {d for a in args for d in np.shape(a)}
        n = next(k for k in range(3, 3 + len(dims) + 1) if k not in dims)
    if n < 1:
        raise ValueError(f"assert_matches: the batch size must be at least 1; got {n}")
    rng = np.random.default_rng(seed)
    out = {}
    for i, a in enumerate(args):
        if i in given or not isinstance(a, np.ndarray):
            continue
        copies = [a] * n
        if np.issubdtype(a.dtype, np.floating):
            copies = [a] + [(a + 0.5 * rng.standard_normal(a.shape)).astype(a.dtype)
                            for _ in range(n - 1)]
        out[i] = np.stack(copies)
    return {**out, **given}


class _Comparison:
    """One ``assert_matches`` call: the two functions, the framework, the tolerances."""

    def __init__(self, fw: Framework, other_fn: Callable[..., Any],
                 minigrad_fn: Callable[..., Any], rtol: float | None, atol: float | None):
        self.fw, self.other_fn, self.minigrad_fn = fw, other_fn, minigrad_fn
        self.rtol, self.atol = rtol, atol

    def to_fw(self, vals: Sequence[Any]) -> list[Any]:
        return [self.fw.array(v, "", "arg") if isinstance(v, np.ndarray) else v for v in vals]

    def to_numpy(self, t: Any) -> np.ndarray:
        if isinstance(t, (np.ndarray, np.generic, bool, int, float, complex)):
            return np.asarray(t)
        return self.fw.numpy(t)

    def run(self, check: str, axes: tuple | None, what: Callable[[int], str],
            ours: Callable[[], Any], theirs: Callable[[], Any],
            examples: Callable[[], list[list[Any]]], batched: Sequence[bool]) -> None:
        """Compare ``theirs()`` with ``ours()`` leafwise; on the first difference (or an error
        of the other framework), fail with the check, the combination and the divergences."""
        where = check if axes is None else f"{check} in_axes={axes}"
        want = [np.asarray(w) for w in tree_leaves(ours())]
        problem = self.first_difference(theirs, want, what)
        if not problem:
            return
        fw = self.fw
        lines = [f"assert_matches: {fw.name} {fw.version} differs from minigrad at {where}: "
                 f"{problem}"]
        try:
            found = explain(fw.name, self.minigrad_fn, examples(), batched, check)
        except Exception as e:  # the mismatch stands; say why no divergence could be named
            lines.append(f"(no divergence looked up: {type(e).__name__}: {e})")
            raise AssertionError("\n".join(lines)) from None
        for d in found:
            lines.append(f"documented divergence [{d.id}] ({d.op}, when {d.condition}): "
                         f"{d.reason}")
        if not found:
            lines.append("no documented divergence explains it "
                         "(minigrad.testing.divergences.DIVERGENCES)")
        raise AssertionError("\n".join(lines))

    def first_difference(self, theirs: Callable[[], Any], want: Sequence[np.ndarray],
                         what: Callable[[int], str]) -> str:
        """What is wrong with the other framework's result, or '' if nothing is."""
        try:
            got = [self.to_numpy(g) for g in tree_leaves(theirs())]
        except Exception as e:  # the other framework refused: that is a failure too
            first_line = (str(e).splitlines() or [""])[0][:300]
            return f"{self.fw.name} raised {type(e).__name__}: {first_line}"
        if len(got) != len(want):
            return f"{self.fw.name} returned {len(got)} arrays, minigrad {len(want)}"
        for k, (g, w) in enumerate(zip(got, want, strict=True)):
            problem = self.differ(g, w, what(k))
            if problem:
                return problem
        return ""

    def differ(self, got: np.ndarray, want: np.ndarray, what: str) -> str:
        """Why ``got`` (the other framework's) is not ``want`` (minigrad's), or ''."""
        if got.shape != want.shape or got.dtype != want.dtype:
            return (f"{what}: {self.fw.name} gives {got.dtype}{list(got.shape)}, minigrad "
                    f"{want.dtype}{list(want.shape)}")
        if want.size == 0:
            return ""
        tol = tolerance(got, want)
        atol = tol if self.atol is None else self.atol
        rtol = tol if self.rtol is None else self.rtol
        err, bad = errors(got, want, atol, rtol)
        if not bad.any():
            return ""
        return (f"{what}: {int(bad.sum())} of {want.size} elements differ (worst |error| "
                f"{float(np.nanmax(err)):.3g}; atol {atol:g}, rtol {rtol:g})\n"
                f"  {self.fw.name + ':':9} {got.ravel()[:8]}\n  minigrad: {want.ravel()[:8]}")


def _in_axes_list(in_axes: Any, args: Sequence[Any]) -> list[tuple[int | None, ...]]:
    """The combinations to check: every one (``None``), one tuple, or a list of tuples."""
    if in_axes is None:
        return all_in_axes(len(args), [i for i, a in enumerate(args)
                                       if isinstance(a, np.ndarray)])
    if isinstance(in_axes, tuple):
        return [in_axes]
    if not isinstance(in_axes, list) or not all(isinstance(c, tuple) for c in in_axes):
        raise TypeError(f"assert_matches: in_axes must be None (every combination), a tuple "
                        f"(one) or a list of tuples; got {in_axes!r}")
    return list(in_axes)


def _batched(args: Sequence[Any], stacks: Mapping[int, np.ndarray], axes: tuple) -> list[Any]:
    """The arguments of one combination: each batched one's examples moved to its axis."""
    if len(axes) != len(args):
        raise ValueError(f"assert_matches: in_axes {axes} must have one entry per argument "
                         f"({len(args)})")
    out = []
    for i, (a, ax) in enumerate(zip(args, axes, strict=True)):
        if ax is None:
            out.append(a)
            continue
        if i not in stacks:
            raise ValueError(f"assert_matches: in_axes {axes}: entry {i} must be None (args[{i}] "
                             f"is a Python number)")
        if isinstance(ax, bool) or not isinstance(ax, int):
            raise TypeError(f"assert_matches: in_axes {axes}: entries must be ints or None; got "
                            f"{ax!r}")
        nd = np.ndim(a) + 1
        if not -nd <= ax < nd:
            raise ValueError(f"assert_matches: in_axes {axes}: axis {ax} is out of range for "
                             f"batched args[{i}] (rank {nd})")
        out.append(np.moveaxis(stacks[i], 0, ax))
    return out


def _vmapped(f: Callable[..., Any], axes: tuple, bargs: Sequence[Any]) -> Any:
    return vmap(f, in_axes=axes)(*bargs)


def _examples(bargs: Sequence[Any], axes: tuple) -> list[list[Any]]:
    """The per-example arguments of a batched call."""
    size = next(np.shape(a)[ax] for a, ax in zip(bargs, axes, strict=True) if ax is not None)
    return [[a if ax is None else np.take(a, b, axis=ax) for a, ax in
             zip(bargs, axes, strict=True)] for b in range(size)]


def assert_matches(other_fn: Callable[..., Any], minigrad_fn: Callable[..., Any],
                   args: Sequence[Any], framework: str = "torch", *,
                   argnums: int | tuple[int, ...] = 0, in_axes: Any = None,
                   checks: Sequence[str] | None = None, batch: Mapping[int, Any] | None = None,
                   batch_size: int | None = None, rtol: float | None = None,
                   atol: float | None = None, seed: int = 0) -> None:
    """Assert that ``other_fn``, written for ``framework`` ("torch" or "jax"), matches
    ``minigrad_fn`` under the other framework's transforms; raise ``AssertionError`` at the
    first array that differs, naming the check, the combination of batched arguments and the
    documented divergence that explains it, if one does.

    ``args`` are one call's arguments: NumPy arrays (converted for ``other_fn``) and Python
    numbers (passed as they are, never batched). The checks, in order (``checks`` picks some):

    * ``values``: ``other_fn(*args)`` against ``minigrad_fn(*args)``;
    * ``vjp`` and ``jvp`` in the arguments ``argnums``, with random cotangents and tangents
      (``torch.func.vjp`` / ``jvp``; ``jax.vjp`` / ``jvp``);
    * ``vmap`` and ``vmap(grad)`` (when the output is a real scalar: per-example gradients in
      ``argnums``) for every combination of batched array arguments, or the tuple or list of
      tuples ``in_axes``. A batched argument's examples are ``batch[i]`` (stacked on axis 0)
      when given, else drawn: ``args[i]`` plus noise for a floating array, copies of it for an
      integer or bool one. The batch size is ``batch_size``, else the smallest from 3 up that
      no argument dimension equals, so that an axis mix-up cannot pass unseen.

    The tolerances (absolute and relative) follow the coarsest dtype compared: 1e-4 for
    float32, 1e-10 for float64; ``rtol`` and ``atol`` override them. ``ImportError`` when the
    framework is not installed (in a test, guard with ``pytest.importorskip``).

    >>> import importlib.util, numpy as np, minigrad as mg
    >>> from minigrad.testing import assert_matches
    >>> if importlib.util.find_spec("torch"):  # PyTorch is optional
    ...     import torch
    ...     assert_matches(lambda x: torch.sin(x).sum(), lambda x: mg.numpy.sin(x).sum(),
    ...                    (np.array([0.5, 1.0]),))
    """
    _check_callable("assert_matches", "other_fn", other_fn)
    _check_callable("assert_matches", "minigrad_fn", minigrad_fn)
    args = _check_args("assert_matches", args)
    nums = _check_argnums("assert_matches", argnums, args)
    if checks is not None:
        unknown = [c for c in checks if c not in CHECKS]
        if isinstance(checks, str) or unknown:
            raise ValueError(f"assert_matches: checks must be a sequence of {', '.join(CHECKS)}; "
                             f"got {checks!r}")
    for name, value in (("rtol", rtol), ("atol", atol)):
        if value is not None and not (isinstance(value, (int, float)) and value >= 0):
            raise ValueError(f"assert_matches: {name} must be a number >= 0 or None; got "
                             f"{value!r}")
    if framework not in FRAMEWORKS:
        raise ValueError(f"assert_matches: framework must be one of {', '.join(FRAMEWORKS)}; "
                         f"got {framework!r}")
    stacks = _draw_batches(args, batch, batch_size, seed)
    combos = [(axes, _batched(args, stacks, axes)) for axes in _in_axes_list(in_axes, args)]
    for axes, bargs in combos:
        _check_in_axes("assert_matches", axes, bargs)
    out = minigrad_fn(*args)
    out_leaves, out_tree = tree_flatten(out)
    floating = all(np.issubdtype(np.asarray(o).dtype, np.floating) for o in out_leaves)
    scalar = len(out_leaves) == 1 and np.ndim(out_leaves[0]) == 0 and floating
    applicable = {"values": True, "vjp": floating, "jvp": floating, "vmap": True,
                  "vmap(grad)": scalar}
    chosen = [c for c in CHECKS if applicable[c]] if checks is None else list(checks)
    for c in chosen:
        if not applicable[c]:
            need = "a real floating scalar" if c == "vmap(grad)" else "floating arrays"
            raise ValueError(f"assert_matches: check {c!r} needs minigrad_fn to return {need}; "
                             f"it returns {[np.asarray(o).dtype.name for o in out_leaves]} of "
                             f"shapes {[np.shape(o) for o in out_leaves]}")
    fw = _load(framework)  # last: a mistake in the arguments is reported even without it
    cmp = _Comparison(fw, other_fn, minigrad_fn, rtol, atol)
    rng = np.random.default_rng(seed + 1)
    unbatched = [False] * len(args)

    def output(k: int) -> str:
        return "the output" if len(out_leaves) == 1 else f"output {k}"

    def cotangent(k: int) -> str:
        return f"the cotangent of args[{nums[k]}]"

    def gradient(k: int) -> str:
        return f"the gradient in args[{nums[k]}]"

    def one_call() -> list[list[Any]]:
        return [args]

    with fw.session():
        primals = [args[i] for i in nums]
        fw_args = cmp.to_fw(args)
        fw_primals = [fw_args[i] for i in nums]

        def ours_at(*vals: Any) -> Any:
            return minigrad_fn(*_with(args, nums, vals))

        def theirs_at(*vals: Any) -> Any:
            return other_fn(*_with(fw_args, nums, vals))

        if "values" in chosen:
            cmp.run("values", None, output, lambda: out, lambda: other_fn(*fw_args), one_call,
                    unbatched)
        if "vjp" in chosen:
            cts = [rng.standard_normal(np.shape(o)).astype(np.asarray(o).dtype)
                   for o in out_leaves]
            ct = tree_unflatten(out_tree, cts)
            fw_ct = tree_unflatten(out_tree, cmp.to_fw(cts))
            cmp.run("vjp", None, cotangent, lambda: vjp(ours_at, *primals)[1](ct),
                    lambda: fw.func_vjp(theirs_at, fw_primals, fw_ct), one_call, unbatched)
        if "jvp" in chosen:
            tangents = [rng.standard_normal(p.shape).astype(p.dtype) for p in primals]
            cmp.run("jvp", None, output, lambda: jvp(ours_at, primals, tangents)[1],
                    lambda: fw.jvp(theirs_at, fw_primals, cmp.to_fw(tangents)), one_call,
                    unbatched)
        for check in ("vmap", "vmap(grad)"):
            if check not in chosen:
                continue
            ours = minigrad_fn if check == "vmap" else grad(minigrad_fn, argnums=nums)
            for axes, bargs in combos:
                theirs = other_fn if check == "vmap" else fw.grad(other_fn, nums)
                batched = [ax is not None for ax in axes]
                cmp.run(check, axes, output if check == "vmap" else gradient,
                        partial(_vmapped, ours, axes, bargs),
                        partial(fw.vmap, theirs, axes, cmp.to_fw(bargs)),
                        partial(_examples, bargs, axes), batched)


__all__ = ["CHECKS", "assert_matches", "per_example_grads", "tolerance"]

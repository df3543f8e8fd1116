"""The rule checkers of ``minigrad.testing`` (import them from there)."""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable, Sequence

import numpy as np

from minigrad.core import Primitive, ShapedArray, UndefPrimal, Zero, float0, get_aval, tangent_dtype
from minigrad.jaxpr import make_jaxpr, typecheck
from minigrad.testing.samples import Sample
from minigrad.testing.staged import staged_programs
from minigrad.transforms.grad import grad
from minigrad.transforms.jvp import jvp
from minigrad.transforms.transpose import linear_transpose, vjp
from minigrad.transforms.vmap import vmap
from minigrad.tree import tree_flatten, tree_leaves, tree_unflatten

# (finite-difference step, tolerance) by dtype: central differences have error O(eps^2) plus
# rounding O(ulp / eps).
_FD = {np.dtype(np.float64): (1e-6, 1e-5), np.dtype(np.float32): (1e-2, 3e-2),
       np.dtype(np.float16): (1e-1, 1e-1)}


def _fd(dtype: np.dtype) -> tuple[float, float]:
    # (a complex dtype: its parts' precision)
    dtype = np.dtype(dtype)
    part = np.dtype(np.finfo(dtype).dtype) if dtype.kind == "c" else dtype
    return _FD.get(part, (1e-6, 1e-5))


def _fd_for(*arrays: Any) -> tuple[float, float]:
    """The step and tolerance of the coarsest floating dtype among ``arrays`` (inputs and
    outputs both: a float32 output cannot resolve a float64-sized step)."""
    steps = [_fd(get_aval(a).dtype) for a in arrays if get_aval(a).dtype.kind in "fc"]
    return max(steps) if steps else (1e-6, 1e-5)


def _is_float(x: Any) -> bool:
    return np.issubdtype(get_aval(x).dtype, np.floating)



def _random_like(rng: np.random.Generator, x: Any) -> np.ndarray:
    aval = get_aval(x)
    if aval.dtype.kind == "c":
        parts = rng.standard_normal((2, *aval.shape))
        return (parts[0] + 1j * parts[1]).astype(aval.dtype)
    return rng.standard_normal(aval.shape).astype(aval.dtype)


def _wide(a: Any) -> np.ndarray:
    a = np.asarray(a)
    return a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)


def _vdot(a: Any, b: Any) -> float:
    # the real pairing Re(sum(a * b)), unconjugated: transposes of complex maps are taken
    # for it (ops/complex.py); for real arrays, the dot product
    return float(np.real(np.sum(_wide(a) * _wide(b))))


def errors(actual: Any, expected: Any, atol: float, rtol: float
           ) -> tuple[np.ndarray, np.ndarray]:
    """The absolute errors of ``actual`` against ``expected`` (arrays of one shape), and where
    they exceed ``atol + rtol * |expected|``. A NaN matches a NaN and an infinity itself;
    complex values are compared as complex. Every comparison of results uses it."""
    a, e = np.asarray(actual), np.asarray(expected)
    wide = np.complex128 if "c" in (a.dtype.kind, e.dtype.kind) else np.float64
    a, e = a.astype(wide), e.astype(wide)
    matched = (np.isnan(a) & np.isnan(e)) | (np.isinf(e) & (a == e))
    err = np.where(matched, 0.0, np.abs(a - e))
    # (a matched NaN is within any tolerance: its bound, atol + rtol * NaN, is NaN)
    return err, ~(matched | (err <= atol + rtol * np.abs(e)))


def _close(actual: Any, expected: Any, atol: float, rtol: float, what: str) -> float:
    """Assert closeness (NaNs must match); return the worst absolute error."""
    a, e = np.asarray(actual), np.asarray(expected)
    if a.shape != e.shape:
        raise AssertionError(f"{what}: shape {a.shape} != expected {e.shape}")
    if a.size == 0:
        return 0.0
    err, bad = errors(a, e, atol, rtol)
    if bad.any():
        raise AssertionError(f"{what}: {int(bad.sum())} of {a.size} elements differ; worst "
                             f"|error| {float(np.nanmax(err)):.3g} (atol {atol}, rtol {rtol})\n"
                             f"actual:   {a.ravel()[:8]}\nexpected: {e.ravel()[:8]}")
    return float(err.max())


def numerical_jvp(f: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any],
                  eps: float | None = None) -> list[np.ndarray]:
    """Central differences ``(f(x + eps t) - f(x - eps t)) / (2 eps)``, leafwise."""
    eps = eps if eps is not None else _fd(get_aval(primals[0]).dtype)[0]
    plus = [np.asarray(p + eps * t, get_aval(p).dtype) for p, t in zip(primals, tangents,
                                                                         strict=True)]
    minus = [np.asarray(p - eps * t, get_aval(p).dtype) for p, t in zip(primals, tangents,
                                                                          strict=True)]
    f_plus, f_minus = tree_leaves(f(*plus)), tree_leaves(f(*minus))
    return [(_wide(a) - _wide(b)) / (2 * eps) for a, b in zip(f_plus, f_minus, strict=True)]


def check_jvp(f: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any] | None =
              None, *, eps: float | None = None, atol: float | None = None,
              rtol: float | None = None, seed: int = 0) -> float:
    """Assert that ``jvp(f)`` matches central differences at ``primals`` (floating arrays);
    random tangents unless given. Each output tangent must have its output's shape and tangent
    dtype (float0 for an integer or bool output, which has no values to compare). Returns the
    worst absolute error."""
    rng = np.random.default_rng(seed)
    primals = [np.asarray(p) for p in primals]
    tangents = [_random_like(rng, p) for p in primals] if tangents is None else list(tangents)
    out, t_out = jvp(f, tuple(primals), tuple(tangents))
    for i, (t, o) in enumerate(zip(tree_leaves(t_out), tree_leaves(out), strict=True)):
        check_tangent(t, o, f"check_jvp: the tangent of output leaf {i}")
    eps_d, tol = _fd_for(*primals, *tree_leaves(t_out))
    atol = tol if atol is None else atol
    rtol = tol if rtol is None else rtol
    expected = numerical_jvp(f, primals, tangents, eps if eps is not None else eps_d)
    worst = 0.0
    for i, (a, e) in enumerate(zip(tree_leaves(t_out), expected, strict=True)):
        if get_aval(a).dtype != float0:
            worst = max(worst, _close(a, e, atol, rtol, f"check_jvp: output leaf {i}"))
    return worst


def check_vjp(f: Callable[..., Any], primals: Sequence[Any], *, eps: float | None = None,
              atol: float | None = None, rtol: float | None = None, seed: int = 0) -> float:
    """The dot-product test: ``<J v, w> == <v, vjp(w)>`` with ``J v`` by finite differences and
    random ``v``, ``w``. Returns the absolute difference of the two sides."""
    rng = np.random.default_rng(seed)
    primals = [np.asarray(p) for p in primals]
    out, vjp_fn = vjp(f, *primals)
    out_leaves, out_tree = tree_flatten(out)
    eps_d, tol = _fd_for(*primals, *out_leaves)
    atol = tol if atol is None else atol
    rtol = tol if rtol is None else rtol
    v = [_random_like(rng, p) for p in primals]
    w = [_random_like(rng, o) for o in out_leaves]
    ct = vjp_fn(tree_unflatten(out_tree, w))
    for i, (c, p) in enumerate(zip(tree_leaves(ct), primals, strict=True)):
        check_tangent(c, p, f"check_vjp: the cotangent of argument {i}")
    lhs = sum(_vdot(jv, wi) for jv, wi in zip(numerical_jvp(f, primals, v, eps or eps_d), w,
                                                  strict=True))
    rhs = sum(_vdot(vi, c) for vi, c in zip(v, tree_leaves(ct), strict=True))
    return _close(rhs, lhs, atol * max(1, len(v)), rtol, "check_vjp: <J v, w> vs <v, J^T w>")


def check_grads(f: Callable[..., Any], args: Sequence[Any], order: int = 2,
                modes: Sequence[str] = ("fwd", "rev"), *, atol: float | None = None,
                rtol: float | None = None, seed: int = 0) -> None:
    """Check derivatives of ``f`` up to ``order`` in forward mode (``check_jvp``), reverse mode
    (``check_vjp``), and their compositions: the JVP of the JVP, the VJP of the VJP."""
    args = [np.asarray(a) for a in args]
    tol = dict(atol=atol, rtol=rtol, seed=seed)
    if "fwd" in modes:
        check_jvp(f, args, **tol)  # type: ignore[arg-type]
        if order > 1:
            rng = np.random.default_rng(seed + 1)
            tangents = [_random_like(rng, a) for a in args]
            n = len(args)

            def f_jvp(*xs: Any) -> Any:
                return jvp(f, tuple(xs[:n]), tuple(xs[n:]))[1]

            check_grads(f_jvp, [*args, *tangents], order - 1, ("fwd",), atol=atol, rtol=rtol,
                        seed=seed + 1)
    if "rev" in modes:
        check_vjp(f, args, **tol)  # type: ignore[arg-type]
        if order > 1:
            out_leaves, out_tree = tree_flatten(f(*args))
            rng = np.random.default_rng(seed + 2)
            ct = tree_unflatten(out_tree, [_random_like(rng, o) for o in out_leaves])

            def f_vjp(*xs: Any) -> Any:
                return vjp(f, *xs)[1](ct)

            check_grads(f_vjp, args, order - 1, ("rev",), atol=atol, rtol=rtol, seed=seed + 2)


def _take(x: Any, b: int, axis: int | None) -> Any:
    return x if axis is None else np.take(np.asarray(x), b, axis=axis)


def check_vmap(f: Callable[..., Any], args: Sequence[Any], in_axes: Any = 0, *,
               atol: float = 1e-12, rtol: float = 1e-12) -> float:
    """Assert ``vmap(f, in_axes)(*args)`` equals ``np.stack([f(*args_b) for b ...])`` (output
    batch axis 0), leafwise, with equal dtypes. ``in_axes`` is a tuple (one entry per
    argument, each an int or None) or one int for all."""
    axes = tuple(in_axes) if isinstance(in_axes, (tuple, list)) else (in_axes,) * len(args)
    sizes = {np.shape(a)[ax] for a, ax in zip(args, axes, strict=True) if ax is not None}
    if len(sizes) != 1:
        raise ValueError(f"check_vmap: mapped arguments must agree on the batch size; got "
                         f"{sorted(sizes)}")
    size = sizes.pop()
    batched = tree_leaves(vmap(f, in_axes=axes)(*args))
    if size == 0:  # nothing to loop over: trace one abstract example for the shapes
        example = [a if ax is None else np.zeros(np.delete(np.shape(a), ax), np.asarray(a).dtype)
                   for a, ax in zip(args, axes, strict=True)]
        out_avals = [v.aval for v in make_jaxpr(f)(*example).jaxpr.outvars]
        expected = [np.zeros((0, *a.shape), a.dtype) for a in out_avals]
    else:
        rows = [tree_leaves(f(*[_take(a, b, ax) for a, ax in zip(args, axes, strict=True)]))
                for b in range(size)]
        expected = [np.stack([np.asarray(r[i]) for r in rows]) for i in range(len(rows[0]))]
    worst = 0.0
    for i, (a, e) in enumerate(zip(batched, expected, strict=True)):
        if np.asarray(a).dtype != e.dtype:
            raise AssertionError(f"check_vmap: output leaf {i} has dtype {np.asarray(a).dtype}; "
                                 f"the loop gives {e.dtype}")
        worst = max(worst, _close(a, e, atol, rtol, f"check_vmap in_axes={axes}: leaf {i}"))
    return worst


def all_in_axes(n: int, batchable: Sequence[int] | None = None, axes: Sequence[int] = (0,)
                ) -> list[tuple[int | None, ...]]:
    """Every combination of batched (at each of ``axes``) and unbatched operands among the
    ``batchable`` positions (all by default), except the one with nothing batched."""
    positions = range(n) if batchable is None else batchable
    choices = [((None, *axes) if i in positions else (None,)) for i in range(n)]
    return [c for c in itertools.product(*choices) if any(a is not None for a in c)]


def batch_args(make: Callable[[np.random.Generator], tuple], in_axes: Sequence[int | None],
               size: int, seed: int = 0) -> list[Any]:
    """Arguments for ``vmap`` with ``in_axes``: ``size`` independent draws of ``make`` stacked
    along the given axis for batched positions; one draw for the others."""
    rng = np.random.default_rng(seed)
    first = make(rng)
    draws = [first] + [make(rng) for _ in range(size - 1)] if size else []
    out = []
    for i, ax in enumerate(in_axes):
        if ax is None:
            out.append(first[i])
        elif size == 0:
            shape = list(np.shape(first[i]))
            shape.insert(ax % (len(shape) + 1), 0)
            out.append(np.zeros(shape, np.asarray(first[i]).dtype))
        else:
            out.append(np.stack([np.asarray(d[i]) for d in draws], axis=ax))
    return out


# --------------------------------------------------------------------------- primitives


@dataclass
class CheckResult:
    """One check of one sample: ``worst`` is the largest error seen, ``cases`` how many
    comparisons were made (batched combinations, say)."""

    primitive: str
    sample: str
    check: str
    passed: bool
    worst: float = 0.0
    cases: int = 0
    message: str = ""


def _run(results: list[CheckResult], prim: Primitive, sample: Sample, check: str,
         body: Callable[[], tuple[float, int]]) -> None:
    try:
        worst, cases = body()
        results.append(CheckResult(prim.name, sample.name, check, True, worst, cases))
    except Exception as e:  # a failed check is a result, reported by name
        results.append(CheckResult(prim.name, sample.name, check, False, float("nan"), 0,
                                   f"{type(e).__name__}: {e}"))


def check_primitive(prim: Primitive, samples: Sequence[Sample], *, seed: int = 0,
                    batch_sizes: Sequence[int] | None = None, raise_on_failure: bool = True,
                    grads: bool = True, staged: bool = True) -> list[CheckResult]:
    """Every rule of ``prim`` over ``samples``: the impl against the reference
    (``"reference"``), the shape rule against the impl (``"shape/impl"``), the JVP against
    finite differences, each transpose by the dot-product test, the batching rule against a
    loop for every batched combination (axis 0 and -1, one more at axis 1: ``vmap_axes``; each
    batch size), and, with
    ``grads``, ``vmap(grad)`` against a loop of ``grad`` (every combination, axis 0) and
    ``grad`` of ``grad`` (forward- and reverse-over-reverse against finite differences).
    Every tangent and cotangent must have its operand's shape and tangent dtype.

    Eagerly, ``bind`` runs the impl and never the shape rule, and NumPy broadcasts: a rule that
    binds a primitive on operands of the wrong shapes still computes. So with ``staged`` the
    ``"staged"`` column traces the function, its JVP, its VJP, every batched form and
    ``vmap(grad)`` with ``make_jaxpr`` (``minigrad.testing.staged.staged_programs``: every
    shape rule runs), checks each program with ``minigrad.jaxpr.typecheck``, and checks that
    every output has the aval it must have (the tangents and cotangents of integer and bool
    operands: float0).

    The batch sizes are ``batch_sizes`` or, by default, the two smallest sizes from 2 up that
    equal no dimension of any operand (a rule that mistakes an axis for the batch axis then
    fails on shapes), and 0. A primitive sample (``sample.fun`` None) calls the rules directly;
    an op sample goes through its user function, whose jaxpr must contain ``prim``. Every
    failure, the sample's own set-up included, is a failed result: with
    ``raise_on_failure=False`` nothing is raised (a ``prim`` or ``samples`` of the wrong type
    is a TypeError, before any check)."""
    if not isinstance(prim, Primitive):
        raise TypeError(f"check_primitive: prim must be a minigrad Primitive; got "
                        f"{type(prim).__name__}")
    samples = list(samples)
    for x in samples:
        if not isinstance(x, Sample):
            raise TypeError(f"check_primitive: samples must be minigrad.testing.Sample "
                            f"objects; got {type(x).__name__}")
    results: list[CheckResult] = []
    for s in samples:
        try:
            ops = s.make(np.random.default_rng(seed))
            f = s.function(prim)
            float_out = any(_is_float(o) for o in tree_leaves(f(*ops)))
            sizes = tuple(batch_sizes) if batch_sizes is not None else safe_batch_sizes(ops)
        except Exception as e:  # the sample itself does not run: one failed row
            results.append(CheckResult(prim.name, s.name, "setup", False, float("nan"), 0,
                                       f"{type(e).__name__}: {e}"))
            continue
        if s.reference is not None:
            _run(results, prim, s, "reference", partial(_check_reference, f, s, ops))
        _run(results, prim, s, "shape/impl", partial(_check_shape, prim, s, ops))
        if s.diff:
            _run(results, prim, s, "jvp", partial(_check_prim_jvp, f, s, ops, seed))
        for group in s.linear:
            test = (partial(_dot_product_test, prim, ops, s.params, group, seed)
                    if s.fun is None else partial(_dot_product_test_fun, f, ops, group, seed))
            _run(results, prim, s, f"transpose{group}", test)
        _run(results, prim, s, "vmap", partial(_check_batching, f, s, ops, seed, sizes))
        # (grad takes real inputs only: a complex operand's rules are checked by the JVP, the
        # dot-product test and batching)
        real_in = all(get_aval(ops[i]).dtype.kind != "c" for i in s.diff)
        with_grads = grads and bool(s.diff) and float_out and s.reverse and real_in
        if with_grads:
            size = next((b for b in sizes if b), 3)
            _run(results, prim, s, "vmap(grad)", partial(_check_vmap_grad, f, s, ops, seed,
                                                          size))
            _run(results, prim, s, "grad(grad)", partial(_check_grad_grad, f, s, ops, seed))
        if staged:
            _run(results, prim, s, "staged", partial(_check_staged, f, s, ops, seed, sizes,
                                                      with_grads))
    failed = [r for r in results if not r.passed]
    if failed and raise_on_failure:
        raise AssertionError("\n".join(f"{r.primitive} [{r.sample}] {r.check}: {r.message}"
                                       for r in failed))
    return results


def safe_batch_sizes(ops: Sequence[Any], count: int = 2) -> tuple[int, ...]:
    """``count`` batch sizes from 2 up that equal no dimension of any operand, then 0."""
    dims = {d for o in ops for d in np.shape(o)}
    return (*itertools.islice((b for b in itertools.count(2) if b not in dims), count), 0)


def check_tangent(t: Any, like: Any, what: str) -> None:
    """Assert that ``t`` (a tangent or cotangent) has the shape of ``like`` and its tangent
    dtype (float0 for an integer or bool ``like``)."""
    aval, want = (t.aval if hasattr(t, "aval") else get_aval(t)), get_aval(like)
    dtype = tangent_dtype(want.dtype)
    if aval.shape != want.shape or aval.dtype != dtype:
        raise AssertionError(f"{what} is {aval.str_short()}; it must be "
                             f"{ShapedArray(want.shape, dtype).str_short()} (the shape of "
                             f"{want.str_short()}, in its tangent dtype)")


def results_of(out: Any) -> list[Any]:
    """The results of a call as a list: several for a primitive with ``multiple_results`` (or
    a function returning a tuple or list of arrays), else the one."""
    return list(out) if isinstance(out, (list, tuple)) else [out]


def _check_reference(f: Callable[..., Any], s: Sample, ops: tuple) -> tuple[float, int]:
    assert s.reference is not None
    outs, expected = results_of(f(*ops)), results_of(s.reference(*ops, **s.params))
    if len(outs) != len(expected):
        raise AssertionError(f"impl vs reference: {len(outs)} results, the reference gives "
                             f"{len(expected)}")
    worst = 0.0
    for k, (a, e) in enumerate(zip(outs, expected, strict=True)):
        what = "impl vs reference" + (f", result {k}" if len(outs) > 1 else "")
        worst = max(worst, _close(a, e, s.tol, s.tol, what))
    return worst, 1


def _check_shape(prim: Primitive, s: Sample, ops: tuple) -> tuple[float, int]:
    if s.fun is None:
        out = prim.impl(*ops, **s.params)  # type: ignore[misc]
        avals = prim.abstract_eval(*[get_aval(o) for o in ops], **s.params)  # type: ignore[misc]
    else:  # the traced output of the user function against its value
        jaxpr = make_jaxpr(s.function(prim))(*ops)
        if prim not in {e.prim for e in jaxpr.eqns}:
            raise AssertionError(f"the function of sample {s.name} does not bind {prim.name}")
        out, avals = s.call(*ops), [v.aval for v in jaxpr.jaxpr.outvars]
    outs, avals = results_of(out), results_of(avals)
    if len(outs) != len(avals):
        raise AssertionError(f"abstract_eval gives {len(avals)} results, impl gives "
                             f"{len(outs)}")
    for o, aval in zip(outs, avals, strict=True):
        if (np.shape(o), np.asarray(o).dtype) != (aval.shape, aval.dtype):
            raise AssertionError(f"abstract_eval gives {aval.str_short()}, impl gives "
                                 f"{get_aval(np.asarray(o)).str_short()}")
    return 0.0, 1


def _with(ops: tuple, positions: Sequence[int], vals: Sequence[Any]) -> list[Any]:
    """``ops`` with the operands at ``positions`` replaced by ``vals``."""
    full = list(ops)
    for i, v in zip(positions, vals, strict=True):
        full[i] = v
    return full


def _check_prim_jvp(f: Callable[..., Any], s: Sample, ops: tuple, seed: int
                    ) -> tuple[float, int]:
    return check_jvp(lambda *vals: f(*_with(ops, s.diff, vals)), [ops[i] for i in s.diff],
                     seed=seed), 1


def _batch_tol(ops: Sequence[Any]) -> float:
    floats = [np.asarray(o).dtype for o in ops if _is_float(o)]
    return 1e-5 if any(d != np.float64 for d in floats) else 1e-12


def _check_batching(f: Callable[..., Any], s: Sample, ops: tuple, seed: int,
                    batch_sizes: Sequence[int]) -> tuple[float, int]:
    worst, cases = 0.0, 0
    tol = _batch_tol(ops)
    for size in batch_sizes:
        for axes in vmap_axes(ops, s.batchable):
            args = batch_args(s.make, axes, size, seed)
            worst = max(worst, check_vmap(f, args, axes, atol=tol, rtol=tol))
            cases += 1
    return worst, cases


def _loss(f: Callable[..., Any], ops: tuple, seed: int) -> Callable[..., Any]:
    """A scalar loss with non-zero second derivatives: ``sum(sin(f(*ops)) * w)``, summed over
    the floating results of a function with several."""
    from minigrad import numpy as mnp

    out = f(*ops)
    if not isinstance(out, (list, tuple)):
        w = _random_like(np.random.default_rng(seed + 3), out)
        return lambda *args: mnp.sum(mnp.sin(f(*args)) * w)
    rng = np.random.default_rng(seed + 3)
    ws = [_random_like(rng, o) if _is_float(o) else None for o in out]

    def loss(*args: Any) -> Any:
        terms = [mnp.sum(mnp.sin(o) * w) for o, w in zip(f(*args), ws, strict=True)
                 if w is not None]
        return functools.reduce(lambda x, y: x + y, terms)

    return loss


def _check_vmap_grad(f: Callable[..., Any], s: Sample, ops: tuple, seed: int, size: int
                     ) -> tuple[float, int]:
    g = grad(_loss(f, ops, seed), argnums=s.diff)
    tol = 1e-4 if _batch_tol(ops) > 1e-12 else 1e-10
    worst, cases = 0.0, 0
    for axes in all_in_axes(len(ops), s.batchable):
        worst = max(worst, check_vmap(g, batch_args(s.make, axes, size, seed), axes, atol=tol,
                                      rtol=tol))
        cases += 1
    return worst, cases


def _check_grad_grad(f: Callable[..., Any], s: Sample, ops: tuple, seed: int
                     ) -> tuple[float, int]:
    g = grad(_loss(f, ops, seed), argnums=s.diff)

    def gradient(*vals: Any) -> Any:
        return g(*_with(ops, s.diff, vals))

    primals = [ops[i] for i in s.diff]
    return max(check_jvp(gradient, primals, seed=seed), check_vjp(gradient, primals, seed=seed)), 2


def _check_staged(f: Callable[..., Any], s: Sample, ops: tuple, seed: int,
                  sizes: Sequence[int], grads: bool) -> tuple[float, int]:
    """Trace the function and its transforms (``staged_programs``: so every shape rule runs on
    the operands the rules give it), typecheck each program, and check that every output has
    the aval it must have (a tangent or cotangent: its operand's shape, in its tangent dtype).
    A shape rule sees any batch size that equals no operand dimension alike, so one is traced:
    the second nonzero size (the eager checks ran the first, for ``vmap(grad)``)."""
    nonzero = [b for b in sizes if b] or [3]
    size = nonzero[min(1, len(nonzero) - 1)]
    batches = [(f"size {size}", axes, batch_args(s.make, axes, size, seed))
               for axes in vmap_axes(ops, s.batchable)]
    grad_batches = [(f"size {size}", axes, batch_args(s.make, axes, size, seed))
                    for axes in all_in_axes(len(ops), s.batchable)] if grads else []
    programs = staged_programs(f, ops, diff=s.diff, batches=batches, grad_batches=grad_batches,
                               loss=_loss(f, ops, seed) if grads else None, seed=seed,
                               reverse=s.reverse)
    count = 0
    for staged in programs:
        count += 1
        try:
            typecheck(staged.program)
        except TypeError as e:
            raise AssertionError(f"the {staged.name} program: {e}") from None
        outvars = staged.program.jaxpr.outvars
        if len(outvars) != len(staged.expected):
            raise AssertionError(f"the {staged.name} program has {len(outvars)} outputs; it "
                                 f"must have {len(staged.expected)}")
        for v, (what, want) in zip(outvars, staged.expected, strict=True):
            if v.aval != want:
                raise AssertionError(f"the {staged.name} program: {what} is "
                                     f"{v.aval.str_short()}; it must be {want.str_short()}")
    return 0.0, count


def vmap_axes(ops: Sequence[Any], batchable: Sequence[int] | None = None
              ) -> list[tuple[int | None, ...]]:
    """The ``in_axes`` the batching checks try: every combination of the ``batchable`` operands
    batched at axis 0 or -1 (``all_in_axes``), and, if an operand has rank 2 or more, one more
    with every batchable operand batched, at axis 1 where its rank allows: a rule that treats
    the batch axis as first or last, never in between, fails there. Combinations that batch
    at the same places (axis 0 and -1 of a 0-d operand) are tried once."""
    positions = range(len(ops)) if batchable is None else batchable
    combos = all_in_axes(len(ops), batchable, (0, -1))
    if any(np.ndim(ops[i]) >= 2 for i in positions):
        combos.append(tuple((1 if np.ndim(o) >= 2 else 0) if i in positions else None
                            for i, o in enumerate(ops)))
    distinct: dict[tuple, tuple[int | None, ...]] = {}
    for axes in combos:
        where = tuple(None if a is None else a % (np.ndim(o) + 1)
                      for a, o in zip(axes, ops, strict=True))
        distinct.setdefault(where, axes)
    return list(distinct.values())


def _dot_product_test(prim: Primitive, ops: tuple, params: dict, group: Sequence[int],
                      seed: int) -> tuple[float, int]:
    """``<f(v), w> == <v, T w>`` for the transpose rule ``T`` of the operands in ``group``."""
    rng = np.random.default_rng(seed + 7)
    v = {i: _random_like(rng, ops[i]) for i in group}
    out = prim.bind(*[v.get(i, o) for i, o in enumerate(ops)], **params)
    w = _random_like(rng, out)
    operands = [UndefPrimal(get_aval(o)) if i in group else o for i, o in enumerate(ops)]
    cts = prim.transpose(w, *operands, **params)  # type: ignore[misc]
    for i in group:
        if cts[i] is not None:
            check_tangent(cts[i], ops[i], f"the cotangent of operand {i}")
    lhs = _vdot(out, w)
    rhs = sum(_vdot(v[i], cts[i]) for i in group
              if cts[i] is not None and not isinstance(cts[i], Zero))
    tol = _fd(get_aval(out).dtype)[1]
    return _close(rhs, lhs, tol, tol, f"transpose of operands {tuple(group)}"), 1


def _dot_product_test_fun(f: Callable[..., Any], ops: tuple, group: Sequence[int], seed: int
                          ) -> tuple[float, int]:
    """The dot-product test through ``linear_transpose`` of a user function restricted to the
    operands in ``group``: every transpose rule it binds (the primitive's among them)."""
    rng = np.random.default_rng(seed + 7)
    v = [_random_like(rng, ops[i]) for i in group]

    def linear(*vals: Any) -> Any:
        return f(*_with(ops, group, vals))

    out = linear(*v)
    w = _random_like(rng, out)
    cts = linear_transpose(linear, *[ops[i] for i in group])(w)
    for i, ct in zip(group, cts, strict=True):
        check_tangent(ct, ops[i], f"the cotangent of operand {i}")
    lhs = _vdot(out, w)
    rhs = sum(_vdot(vi, ct) for vi, ct in zip(v, cts, strict=True))
    tol = _fd(get_aval(out).dtype)[1]
    return _close(rhs, lhs, tol, tol, f"transpose of operands {tuple(group)}"), 1


__all__ = ["CheckResult", "all_in_axes", "batch_args", "check_grads", "check_jvp",
           "check_primitive", "check_vjp", "check_vmap", "errors", "numerical_jvp"]

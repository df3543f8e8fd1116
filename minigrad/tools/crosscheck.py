"""``python -m minigrad crosscheck --against torch|jax``: the five ops against another framework.

On every op sample (``minigrad.testing.op_samples``: duplicates, negative dims, 0-d and empty
arrays, broadcasting, Python-scalar and array values, float64 and float32) it compares

* ``forward``: the op's output;
* ``vjp``: reverse mode (PyTorch's autograd, ``jax.vjp``) for a fixed cotangent;
* ``jvp``: forward mode (``torch.func.jvp``, ``jax.jvp``) for fixed tangents;
* ``jacfwd`` and ``jacrev``: the Jacobians in every differentiable argument;
* ``vmap`` and ``vmap(grad)``: for every combination of batched arguments, index and mask
  included (each example draws its own), the batched op and per-example gradients of
  ``sum(sin(op(args)) * w)``;
* ``negative-index``: an index of -1, which minigrad rejects.

Each comparison is ``pass``, a **documented divergence** (a record of ``DIVERGENCES`` whose
condition holds: the other framework's semantics differ on purpose or by a known bug, and the
record says why) or a **failure**. ``info`` notes say what is no mismatch of values: torch.func
looping over the batch for an op without a batching rule, which it reports by a warning. Exit
status 1 on a failure, 2 when the framework is not installed. torch and jax are imported only
when a cross-check runs, by their adapters in ``minigrad.testing.frameworks``; the divergences
are recorded in ``minigrad.testing.divergences``.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from functools import partial, wraps
from typing import Any, Callable, Sequence

import numpy as np

from minigrad.testing import all_in_axes, batch_args, divergences
from minigrad.testing.divergences import (
    CHECKS,
    DIVERGENCES,
    Divergence,
    Situation,
    documented,
    situation,
)
from minigrad.testing.frameworks import (
    FRAMEWORKS,
    INSTALL,
    Framework,
    FrameworkUnavailable,
    Mismatch,
    compare,
    load,
    tolerance,
)
from minigrad.testing.samples import OPS, Sample, op_samples
from minigrad.tools.errors import UsageError


@dataclass
class Result:
    op: str
    sample: str
    check: str
    status: str  # "pass", "divergence" or "fail"
    in_axes: tuple | None = None
    worst: float = 0.0
    divergence: str = ""
    message: str = ""
    info: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- the comparisons


def _with(ops: Sequence[Any], positions: Sequence[int], vals: Sequence[Any]) -> list[Any]:
    full = list(ops)
    for i, v in zip(positions, vals, strict=True):
        full[i] = v
    return full


def _in_session(method: Callable[..., None]) -> Callable[..., None]:
    """Run a comparison method inside its framework's ``session`` (JAX: 64-bit types on)."""
    @wraps(method)
    def wrapped(self: Crosscheck, *args: Any) -> None:
        with self.fw.session():
            method(self, *args)

    return wrapped


class Crosscheck:
    """Runs the comparisons of one framework and classifies their results."""

    def __init__(self, fw: Framework, seed: int = 0):
        self.fw, self.seed = fw, seed
        self.results: list[Result] = []

    def attempt(self, situation: Situation, s: Sample, in_axes: tuple | None,
                body: Callable[[], float]) -> None:
        seen: list[str] = []
        result = Result(situation.op, s.name, situation.check, "pass", in_axes)
        try:
            with self.fw.loops(seen):
                result.worst = body()
        except Exception as e:  # a mismatch of values, or an error on either side
            who = "" if isinstance(e, Mismatch) else f"{type(e).__name__} raised: "
            result.message = who + (str(e).splitlines() or [""])[0][:300]
            d = documented(self.fw.name, situation)
            result.status = "fail" if d is None else "divergence"
            result.divergence = "" if d is None else d.id
        info = documented(self.fw.name, situation, "info")
        # torch's info records are about loops: they apply when torch.func warned of one
        if info is not None and (seen or self.fw.name != "torch"):
            result.info.append(info.id)
        elif seen:
            result.info += [f"torch.func looped over {name} (no batching rule)"
                            for name in sorted(set(seen))]
        self.results.append(result)

    @_in_session
    def sample(self, op: str, s: Sample) -> None:
        fw, names = self.fw, s.argnames
        rng = np.random.default_rng(self.seed)
        ops = s.make(rng)
        fw_fn = fw.op(op, s.params)

        def to_fw(args: Sequence[Any]) -> list[Any]:
            return [fw.array(a, op, n) for a, n in zip(args, names, strict=True)]

        fw_ops = to_fw(ops)
        tol = tolerance(np.asarray(ops[0]).dtype)
        def at(check: str, batched: frozenset[str] = frozenset(),
               batch: Sequence[Any] | None = None) -> Situation:
            return situation(op, names, ops, check, batched, batch)

        out = np.asarray(s.call(*ops))
        self.attempt(at("forward"), s, None,
                     lambda: compare([fw.numpy(fw_fn(*fw_ops))], [out], tol))
        if s.diff:
            self._derivatives(s, ops, fw_ops, fw_fn, out, tol, at)
        for axes in all_in_axes(len(ops), s.batchable):
            args = batch_args(s.make, axes, 3, self.seed)
            batched = frozenset(n for n, a in zip(names, axes, strict=True) if a is not None)
            self.attempt(at("vmap", batched, args), s, axes,
                         self._vmap(s, fw_fn, args, to_fw(args), axes, tol))
            if s.diff:
                self.attempt(at("vmap(grad)", batched, args), s, axes,
                             self._vmap_grad(s, fw_fn, args, to_fw(args), axes, out, tol))

    @_in_session
    def in_place(self, op: str, s: Sample) -> None:
        """The in-place variant against the framework's (``x.index_add_(...)``): the values
        written into ``x``, ``x`` itself returned, the same inputs refused; and per-example
        gradients of PyTorch-style code (a copy of ``x`` updated in place)."""
        fw, names = self.fw, s.argnames
        inplace = getattr(fw, "op_inplace", None)
        if inplace is None:  # JAX's arrays are immutable: it has no in-place variants
            return
        fw_fn = inplace(op, s.params)
        ops = s.make(np.random.default_rng(self.seed))
        tol = tolerance(np.asarray(ops[0]).dtype)

        def to_fw(args: Sequence[Any]) -> list[Any]:
            return [fw.array(np.array(a), op, n) for a, n in zip(args, names, strict=True)]

        def body() -> float:
            x = np.array(ops[0])
            fw_args = to_fw(ops)
            try:
                ours = _ours_in_place(op, [x, *ops[1:]], s.params)
            except Exception as e:
                ours, mine = None, e
            try:
                theirs = fw_fn(*fw_args)
            except Exception as e:
                if ours is None:
                    return 0.0  # both refuse
                raise Mismatch(f"{fw.name} raised {type(e).__name__}: "
                               f"{(str(e).splitlines() or [''])[0][:200]}") from None
            if ours is None:
                raise Mismatch(f"minigrad raised {type(mine).__name__}: {mine}")
            if ours is not x or theirs is not fw_args[0]:
                raise Mismatch("the in-place variant did not return x itself")
            return compare([fw.numpy(fw_args[0])], [x], tol)

        self.attempt(situation(op, names, ops, "in-place"), s, None, body)
        if not s.diff:
            return
        w = np.asarray(np.random.default_rng(self.seed + 2).standard_normal(
            np.shape(s.call(*ops)))).astype(np.asarray(ops[0]).dtype)
        w_fw = fw.array(w, "", "w")

        def pytorch_style(*a: Any) -> Any:
            from minigrad import numpy as mnp

            h = a[0] * 1  # a buffer of the function's own, updated in place
            _ours_in_place(op, [h, *a[1:]], s.params)
            return mnp.sum(mnp.sin(h) * w)

        def pytorch_style_fw(*a: Any) -> Any:
            h = a[0] * 1
            fw_fn(h, *a[1:])
            return fw.sin_sum(h, w_fw)

        for axes in all_in_axes(len(ops), s.batchable):
            args = batch_args(s.make, axes, 3, self.seed)
            batched = frozenset(n for n, a in zip(names, axes, strict=True) if a is not None)

            def per_example(args: list = args, axes: tuple = axes) -> float:
                from minigrad.transforms.grad import grad
                from minigrad.transforms.vmap import vmap

                try:
                    want = vmap(grad(pytorch_style, argnums=s.diff), in_axes=axes)(*args)
                except Exception as e:
                    want, mine = None, e
                try:
                    got = fw.vmap(fw.grad(pytorch_style_fw, s.diff), axes, to_fw(args))
                except Exception:
                    if want is None:
                        return 0.0  # both refuse (x would grow: it keeps its shape)
                    raise
                if want is None:
                    raise Mismatch(f"minigrad raised {type(mine).__name__}: {mine}")
                return compare([fw.numpy(t) for t in got], want, tol)

            self.attempt(situation(op, names, ops, "in-place vmap(grad)", batched, args), s,
                         axes, per_example)

    def _derivatives(self, s: Sample, ops: tuple, fw_ops: list, fw_fn: Callable[..., Any],
                     out: np.ndarray, tol: float, at: Callable[..., Situation]) -> None:
        from minigrad.transforms.grad import jacrev
        from minigrad.transforms.jvp import jacfwd, jvp
        from minigrad.transforms.transpose import vjp

        fw = self.fw
        rng = np.random.default_rng(self.seed + 1)
        primals = [ops[i] for i in s.diff]
        fw_primals = [fw_ops[i] for i in s.diff]

        def f(*vals: Any) -> Any:
            return s.call(*_with(ops, s.diff, vals))

        def f_fw(*vals: Any) -> Any:
            return fw_fn(*_with(fw_ops, s.diff, vals))

        ct = np.asarray(rng.standard_normal(out.shape)).astype(out.dtype)
        tangents = [np.asarray(rng.standard_normal(np.shape(p))).astype(np.asarray(p).dtype)
                    for p in primals]

        def check_vjp() -> float:
            want = vjp(f, *primals)[1](ct)
            got = fw.vjp(f_fw, fw_primals, fw.array(ct, "", "ct"))
            return compare([fw.numpy(g) for g in got], want, tol)

        def check_jvp() -> float:
            want = jvp(f, tuple(primals), tuple(tangents))[1]
            got = fw.jvp(f_fw, fw_primals, [fw.array(t, "", "t") for t in tangents])
            return compare([fw.numpy(got)], [want], tol)

        def check_jac(mode: str) -> float:
            jac = jacfwd if mode == "jacfwd" else jacrev
            want = jac(f, argnums=tuple(range(len(primals))))(*primals)
            got = fw.jac(mode, f_fw, fw_primals)
            return compare([fw.numpy(g) for g in got], want, tol)

        self.attempt(at("vjp"), s, None, check_vjp)
        self.attempt(at("jvp"), s, None, check_jvp)
        self.attempt(at("jacfwd"), s, None, lambda: check_jac("jacfwd"))
        self.attempt(at("jacrev"), s, None, lambda: check_jac("jacrev"))

    def _vmap(self, s: Sample, fw_fn: Callable[..., Any], args: list, fw_args: list,
              axes: tuple, tol: float) -> Callable[[], float]:
        from minigrad.transforms.vmap import vmap

        def body() -> float:
            want = vmap(s.call, in_axes=axes)(*args)
            return compare([self.fw.numpy(self.fw.vmap(fw_fn, axes, fw_args))], [want], tol)

        return body

    def _vmap_grad(self, s: Sample, fw_fn: Callable[..., Any], args: list, fw_args: list,
                   axes: tuple, out: np.ndarray, tol: float) -> Callable[[], float]:
        """Per-example gradients of ``sum(sin(op(args)) * w)`` in the differentiable args."""
        from minigrad import numpy as mnp
        from minigrad.transforms.grad import grad
        from minigrad.transforms.vmap import vmap

        fw = self.fw
        w = np.asarray(np.random.default_rng(self.seed + 2).standard_normal(out.shape))
        w = w.astype(out.dtype)
        w_fw = fw.array(w, "", "w")

        def body() -> float:
            want = vmap(grad(lambda *a: mnp.sum(mnp.sin(s.call(*a)) * w), argnums=s.diff),
                        in_axes=axes)(*args)
            g = fw.grad(lambda *a: fw.sin_sum(fw_fn(*a), w_fw), s.diff)
            return compare([fw.numpy(x) for x in fw.vmap(g, axes, fw_args)], want, tol)

        return body


    @_in_session
    def negative_index(self, op: str) -> None:
        """minigrad rejects an index entry of -1; the other framework should too."""
        import minigrad as mg

        fw = self.fw
        x, index, update = np.zeros(5), np.array([-1]), np.ones(1)
        names: tuple[str, ...]
        if op == "index_fill":
            args, names, params = [x, index], ("x", "index"), {"dim": 0, "value": 7.0}
            ours: Callable[[], Any] = lambda: mg.index_fill(x, 0, index, 7.0)  # noqa: E731
        else:
            args, names = [x, index, update], ("x", "index", "source")
            params = {"dim": 0, "alpha": 1} if op == "index_add" else {"dim": 0}
            ours = partial(getattr(mg, op), x, 0, index, update)

        def body() -> float:
            try:
                ours()
            except IndexError:
                pass
            else:
                raise Mismatch("minigrad accepted an index of -1")
            try:
                got = fw.op(op, params)(*[fw.array(a, op, n) for a, n in
                                          zip(args, names, strict=True)])
            except Exception:
                return 0.0  # both reject it
            raise Mismatch(f"{fw.name} accepted an index of -1, giving {fw.numpy(got)}")

        s = Sample(f"{op}:negative-index", lambda rng: tuple(args), params, argnames=names)
        self.attempt(Situation(op, "negative-index"), s, None, body)


def _ours_in_place(op: str, ops: Sequence[Any], params: dict) -> Any:
    """minigrad's in-place variant of ``op`` on a sample's operands and parameters."""
    import minigrad as mg

    p = dict(params)
    if op in ("index_add", "index_copy"):
        extra = (p["alpha"],) if op == "index_add" else ()
        return getattr(mg, op + "_")(ops[0], p["dim"], ops[1], ops[2], *extra)
    if op == "index_fill":
        return mg.index_fill_(ops[0], p["dim"], ops[1], ops[2] if len(ops) > 2 else p["value"])
    if op == "masked_fill":
        return mg.masked_fill_(ops[0], ops[1], ops[2] if len(ops) > 2 else p["value"])
    return mg.masked_scatter_(ops[0], ops[1], ops[2])


def _load(framework: str) -> Framework:
    try:
        return load(framework, "crosscheck", "--against")
    except FrameworkUnavailable as e:  # a usage error: one line, exit status 2
        raise UsageError(str(e)) from None


def run(framework: str | Framework, ops: Sequence[str] = (), seed: int = 0,
        progress: Any = None) -> tuple[Framework, list[Result]]:
    """Every comparison of the named ops (all five by default) against ``framework``."""
    unknown = [o for o in ops if o not in OPS]
    if unknown:
        raise UsageError(f"crosscheck: unknown op {unknown[0]!r}; the five are "
                         f"{', '.join(OPS)}")
    fw = _load(framework) if isinstance(framework, str) else framework
    cc = Crosscheck(fw, seed)
    chosen = list(dict.fromkeys(ops)) or list(OPS)
    for i, op in enumerate(chosen):
        if progress is not None:
            progress.step(i, op)
        for s in op_samples(op):
            cc.sample(op, s)
            cc.in_place(op, s)
        if op.startswith("index_"):
            cc.negative_index(op)
    return fw, cc.results


# --------------------------------------------------------------------------- the report


def _table(results: Sequence[Result]) -> list[list[str]]:
    rows: dict[tuple[str, str], list[int]] = {}
    for r in results:
        counts = rows.setdefault((r.op, r.check), [0, 0, 0, 0])
        counts[0] += 1
        counts[{"pass": 1, "divergence": 2, "fail": 3}[r.status]] += 1
    return [[op, check, *[str(c) if c or i == 0 else "-" for i, c in enumerate(counts)]]
            for (op, check), counts in rows.items()]


def report(fw: Framework, results: Sequence[Result], seed: int, seconds: float) -> str:
    import minigrad
    from minigrad.tools.check import format_table

    lines = [f"crosscheck against {fw.name} {fw.version} (minigrad {minigrad.__version__}, "
             f"seed {seed})", "",
             format_table(["op", "check", "cases", "pass", "documented", "FAIL"],
                          _table(results)), ""]
    by_id = {d.id: d for d in divergences.DIVERGENCES}
    seen: dict[tuple[str, str], int] = {}  # (op, divergence id or info text) -> cases
    for r in results:
        for key in ([r.divergence] if r.divergence else []) + r.info:
            seen[(r.op, key)] = seen.get((r.op, key), 0) + 1
    for kind, title in (("divergence", "documented divergences"), ("info", "info")):
        notes = [(op, k, n) for (op, k), n in seen.items()
                 if (by_id[k].kind if k in by_id else "info") == kind]
        if notes:
            lines.append(f"{title} (the table: minigrad.testing.divergences.DIVERGENCES):")
        for op, key, n in notes:
            d = by_id.get(key)
            if d is None:
                lines.append(f"  {op}: {key}: {n} cases")
                continue
            lines.append(f"  [{d.id}] {op} {', '.join(d.checks)} when {d.condition}: "
                         f"{n} cases")
            lines.append(f"      {d.reason}")
    failed = [r for r in results if r.status == "fail"]
    for r in failed:
        where = "" if r.in_axes is None else f" in_axes={r.in_axes}"
        lines.append(f"FAIL {r.op} [{r.sample}] {r.check}{where}: {r.message}")
    documented_n = sum(r.status == "divergence" for r in results)
    lines.append(f"{len(results)} comparisons: {len(results) - documented_n - len(failed)} "
                 f"pass, {documented_n} documented divergences, {len(failed)} failures "
                 f"({seconds:.1f} s)")
    return "\n".join(lines)


def to_json(fw: Framework, results: Sequence[Result], seed: int, seconds: float) -> str:
    import minigrad

    return json.dumps({
        "framework": fw.name, "framework_version": fw.version,
        "minigrad_version": minigrad.__version__, "seed": seed, "seconds": round(seconds, 3),
        "passed": all(r.status != "fail" for r in results),
        "results": [{**r.__dict__, "in_axes": None if r.in_axes is None else list(r.in_axes)}
                    for r in results],
        "divergences": [{"id": d.id, "framework": d.framework, "op": d.op,
                         "checks": list(d.checks), "condition": d.condition,
                         "reason": d.reason, "kind": d.kind}
                        for d in divergences.DIVERGENCES]}, indent=2)


def main(framework: str, ops: Sequence[str] = (), seed: int = 0, as_json: bool = False) -> int:
    from minigrad.tools.check import Progress

    start = time.perf_counter()
    unknown = [o for o in ops if o not in OPS]
    if unknown:  # before loading the framework: seconds, and maybe not installed
        raise UsageError(f"crosscheck: unknown op {unknown[0]!r}; the five are "
                         f"{', '.join(OPS)}")
    fw = _load(framework)
    progress = Progress(f"crosscheck {fw.name}", len(ops) or len(OPS))
    try:
        fw, results = run(fw, ops, seed, progress)
    finally:
        progress.done()
    seconds = time.perf_counter() - start
    print(to_json(fw, results, seed, seconds) if as_json else report(fw, results, seed, seconds))
    return 1 if any(r.status == "fail" for r in results) else 0


__all__ = ["CHECKS", "DIVERGENCES", "FRAMEWORKS", "INSTALL", "Crosscheck", "Divergence",
           "Framework", "Result", "Situation", "documented", "load", "main", "report", "run",
           "to_json"]

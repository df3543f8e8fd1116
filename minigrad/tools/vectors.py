"""Golden test vectors of the five ops: ``python -m minigrad vectors --out DIR`` and ``--verify``.

For every op sample (``minigrad.testing.op_samples``) one ``<op>.<variant>-<dtype>.npz`` (the
sample's name with ``:`` as ``.``, e.g. ``index_add.dup-f64.npz``) holds:

* the inputs, by argument name (``x``, ``index``, ``source``, ``mask``, ``value``);
* ``out``: the op's output;
* ``ct`` and ``vjp_<arg>``: a fixed cotangent and the VJP for each differentiable argument;
* ``tangent_<arg>`` and ``jvp_out``: fixed tangents and the JVP;
* ``loss_w`` and, for every in_axes combination (``minigrad.testing.all_in_axes``: each
  argument batched on axis 0 or not, index and mask included), under the prefix
  ``vmap.<batched names joined by +>`` (``vmap.x+index``): the inputs ``<prefix>.<arg>``
  (``BATCH`` independent draws stacked on axis 0 if batched, one draw if not), ``<prefix>.out``
  (the batched op) and ``<prefix>.grad_<arg>``: per example, the gradient of
  ``sum(sin(op(args)) * loss_w)`` in each differentiable argument.

``manifest.json`` (keys sorted, so two runs write the same bytes) has ``format``
(``minigrad-vectors/2``), ``minigrad_version``, ``seed``, ``tolerance`` (per dtype, the
absolute and relative tolerance to compare another framework with), ``frameworks`` (per
framework, ``imports``: module by the name the calls use, and ``loss``: the loss as an
expression in ``out`` and ``loss_w``), ``divergence_records`` (every documented divergence of
``minigrad.testing.divergences.DIVERGENCES`` by id: framework, op, checks, condition, reason) and
``vectors``, one entry per file:

* ``file``, ``op``, ``sample`` (the sample's name), ``params`` (the static arguments: ``dim``,
  ``alpha``, a Python-scalar ``value``), ``seed``, ``batch_size``, ``loss``;
* ``args``: the array arguments in order (the positions ``in_axes`` refers to); ``diff``: the
  differentiable ones, in the order of the ``vjp_``, ``tangent_`` and ``grad_`` arrays;
* ``per_example``: one item per combination: ``in_axes`` (a list, null for unbatched), ``inputs``
  (array names, in ``args`` order), ``out`` and ``grads`` (array names, in ``diff`` order);
* ``calls``: per framework (``torch``, ``jax``), ``call``, an expression in ``args`` and
  ``params`` (``torch.index_add(x, dim, index, source, alpha=alpha)``), ``args`` (its
  arguments, in order) and ``imports``: ``eval(f"lambda {', '.join(args)}: {call}", {**modules,
  **params})`` is the op in that framework;
* ``divergences``: per framework, the documented divergences whose condition holds on this
  file's data (a duplicate index, a 0-d source, what a combination batches), each as ``id`` and
  ``arrays``: the arrays of this file that framework is known to compute differently. A
  consumer that skips exactly those agrees with everything else;
* ``arrays``: every array of the file with its ``shape`` and ``dtype``.

The draws depend only on the seed and the sample's name, and the .npz files are written through
``zipfile`` with a fixed date, so the bytes are reproducible. ``--verify`` recomputes every
output, call and divergence list from the stored inputs and reports each that differs.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
import zlib
from typing import Any, Sequence

import numpy as np

from minigrad.testing import all_in_axes, batch_args
from minigrad.testing import divergences as divergence_table
from minigrad.testing.checks import errors
from minigrad.testing.divergences import (
    Situation,
    applicable,
    situation,
)
from minigrad.testing.frameworks import FRAMEWORKS
from minigrad.testing.frameworks import tolerance as framework_tolerance
from minigrad.testing.samples import OPS, Sample, op_samples
from minigrad.tools.calls import IMPORTS, calls
from minigrad.tools.calls import LOSS as FW_LOSS
from minigrad.tools.errors import UsageError
from minigrad.transforms.grad import grad
from minigrad.transforms.jvp import jvp
from minigrad.transforms.transpose import vjp
from minigrad.transforms.vmap import vmap

FORMAT = "minigrad-vectors/2"
BATCH = 3
LOSS = "sum(sin(out) * loss_w)"
_DATE = (1980, 1, 1, 0, 0, 0)  # the earliest date a zip entry can carry


def file_name(s: Sample) -> str:
    return s.name.replace(":", ".") + ".npz"


def _rng(seed: int, s: Sample, stream: int) -> np.random.Generator:
    """A generator that depends on the seed, the sample's name and a stream number only."""
    return np.random.default_rng([seed, zlib.crc32(s.name.encode()), stream])


def _random_like(rng: np.random.Generator, x: Any) -> np.ndarray:
    x = np.asarray(x)
    return np.asarray(rng.standard_normal(x.shape)).astype(x.dtype)


def combinations(s: Sample) -> list[tuple[int | None, ...]]:
    """The in_axes combinations the vectors hold per-example gradients for (``all_in_axes``)."""
    return all_in_axes(len(s.argnames), s.batchable)


def combination_name(s: Sample, in_axes: Sequence[int | None]) -> str:
    """``vmap.<batched argument names joined by +>``: the prefix of one combination's arrays."""
    return "vmap." + "+".join(n for n, a in zip(s.argnames, in_axes, strict=True)
                              if a is not None)


def compute(s: Sample, arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Every output array of a sample from its input arrays (the inputs, ``ct``, the tangents,
    each combination's batch and ``loss_w``), as ``vectors`` writes and ``--verify`` re-checks
    them."""
    ops = [arrays[n] for n in s.argnames]
    diff = [s.argnames[i] for i in s.diff]

    def f(*vals: Any) -> Any:
        full = list(ops)
        for i, v in zip(s.diff, vals, strict=True):
            full[i] = v
        return s.call(*full)

    primals = [arrays[n] for n in diff]
    out: dict[str, np.ndarray] = {"out": np.asarray(s.call(*ops))}
    _, vjp_fn = vjp(f, *primals)
    for n, ct in zip(diff, vjp_fn(arrays["ct"]), strict=True):
        out[f"vjp_{n}"] = np.asarray(ct)
    _, t_out = jvp(f, tuple(primals), tuple(arrays[f"tangent_{n}"] for n in diff))
    out["jvp_out"] = np.asarray(t_out)
    w = arrays["loss_w"]

    def loss(*args: Any) -> Any:
        from minigrad import numpy as mnp

        return mnp.sum(mnp.sin(s.call(*args)) * w)

    for axes in combinations(s):
        c = combination_name(s, axes)
        batch = [arrays[f"{c}.{n}"] for n in s.argnames]
        out[f"{c}.out"] = np.asarray(vmap(s.call, in_axes=axes)(*batch))
        grads = vmap(grad(loss, argnums=s.diff), in_axes=axes)(*batch)
        for n, g in zip(diff, grads, strict=True):
            out[f"{c}.grad_{n}"] = np.asarray(g)
    return out


def generate(s: Sample, seed: int) -> dict[str, np.ndarray]:
    """The inputs of one sample's vectors, then its outputs."""
    ops = s.make(_rng(seed, s, 0))
    arrays = {n: np.asarray(o) for n, o in zip(s.argnames, ops, strict=True)}
    rng = _rng(seed, s, 1)
    arrays["ct"] = _random_like(rng, s.call(*ops))
    for i in s.diff:
        arrays[f"tangent_{s.argnames[i]}"] = _random_like(rng, ops[i])
    arrays["loss_w"] = _random_like(rng, s.call(*ops))
    batch_seed = int(_rng(seed, s, 2).integers(2**31))
    for axes in combinations(s):
        c = combination_name(s, axes)
        batch = batch_args(s.make, axes, BATCH, seed=batch_seed)
        arrays.update({f"{c}.{n}": np.asarray(b) for n, b in zip(s.argnames, batch,
                                                                  strict=True)})
    arrays.update(compute(s, arrays))
    return arrays


def divergences(op: str, s: Sample, arrays: dict[str, np.ndarray]
                ) -> dict[str, list[dict[str, Any]]]:
    """Per framework, the documented divergences (``testing.divergences``) whose condition
    holds on these arrays, each with the arrays it affects: the records, their conditions and
    the facts they look at (duplicates, 0-d arguments, what is batched) are the cross-check's."""
    names = s.argnames
    diff = [names[i] for i in s.diff]
    example = [arrays[n] for n in names]

    def at(check: str, batched: frozenset[str] = frozenset(), c: str | None = None
           ) -> Situation:
        batch = None if c is None else [arrays[f"{c}.{n}"] for n in names]
        return situation(op, names, example, check, batched, batch)

    # each check's arrays, with what each is: "out" or the argument it is a derivative in
    checks = [(at("forward"), [("out", "out")]),
              (at("vjp"), [(f"vjp_{n}", n) for n in diff]),
              (at("jvp"), [("jvp_out", "out")])]
    for axes in combinations(s):
        c = combination_name(s, axes)
        batched = frozenset(n for n, a in zip(names, axes, strict=True) if a is not None)
        checks.append((at("vmap", batched, c), [(f"{c}.out", "out")]))
        checks.append((at("vmap(grad)", batched, c), [(f"{c}.grad_{n}", n) for n in diff]))
    found: dict[str, dict[str, list[str]]] = {fw: {} for fw in FRAMEWORKS}
    for fw in FRAMEWORKS:
        for sit, computed in checks:
            for d in applicable(fw, sit):
                affects = d.affects(sit)
                found[fw].setdefault(d.id, []).extend(
                    a for a, what in computed if not affects or what in affects)
    return {fw: [{"id": i, "arrays": a} for i, a in found[fw].items() if a]
            for fw in FRAMEWORKS}


def write_npz(path: str, arrays: dict[str, np.ndarray]) -> None:
    """An .npz that ``np.load`` reads, with the same bytes for the same arrays: uncompressed
    entries with a fixed date and mode, in the given order."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as zf:
        for name, array in arrays.items():
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.array(array, order="C"), allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=_DATE)
            info.external_attr = 0o644 << 16
            zf.writestr(info, buf.getvalue())


def _jsonable(v: Any) -> Any:
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, tuple):
        return [_jsonable(x) for x in v]
    return v


def _entry(op: str, s: Sample, arrays: dict[str, np.ndarray], seed: int) -> dict[str, Any]:
    diff = [s.argnames[i] for i in s.diff]
    per_example = []
    for axes in combinations(s):
        c = combination_name(s, axes)
        per_example.append({
            "in_axes": list(axes), "inputs": [f"{c}.{n}" for n in s.argnames],
            "out": f"{c}.out", "grads": [f"{c}.grad_{n}" for n in diff]})
    return {
        "file": file_name(s), "op": op, "sample": s.name, "params": _jsonable(s.params),
        "args": list(s.argnames), "diff": diff, "seed": seed, "batch_size": BATCH,
        "loss": LOSS, "per_example": per_example,
        "calls": calls(op, s.argnames, s.params, arrays),
        "divergences": divergences(op, s, arrays),
        "arrays": {n: {"shape": list(a.shape), "dtype": a.dtype.name} for n, a in arrays.items()},
    }


def _records() -> dict[str, dict[str, Any]]:
    """The documented divergences, by id, as ``crosscheck --json`` lists them."""
    return {d.id: {"framework": d.framework, "op": d.op, "checks": list(d.checks),
                   "condition": d.condition, "reason": d.reason}
            for d in divergence_table.DIVERGENCES if d.kind == "divergence"}


def write(out_dir: str, seed: int = 0, ops: Sequence[str] = OPS) -> dict[str, Any]:
    """Write the vectors and the manifest into ``out_dir``; returns the manifest."""
    import minigrad

    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as e:
        raise UsageError(f"vectors: cannot create the directory {out_dir!r}: "
                         f"{e.strerror or e}") from None
    entries = []
    try:
        for op in ops:
            for s in op_samples(op):
                arrays = generate(s, seed)
                write_npz(os.path.join(out_dir, file_name(s)), arrays)
                entries.append(_entry(op, s, arrays, seed))
        manifest = {"format": FORMAT, "minigrad_version": minigrad.__version__, "seed": seed,
                    "tolerance": {"float64": framework_tolerance(np.dtype(np.float64)),
                                  "float32": framework_tolerance(np.dtype(np.float32))},
                    "frameworks": {fw: {"imports": IMPORTS[fw], "loss": FW_LOSS[fw]}
                                   for fw in FRAMEWORKS},
                    "divergence_records": _records(), "vectors": entries}
        with open(os.path.join(out_dir, "manifest.json"), "w", encoding="utf-8") as fh:
            json.dump(manifest, fh, indent=1, sort_keys=True)
            fh.write("\n")
    except OSError as e:
        raise UsageError(f"vectors: cannot write into {out_dir!r}: {e.strerror or e}") from None
    return manifest


def _load_manifest(directory: str) -> dict[str, Any]:
    path = os.path.join(directory, "manifest.json")
    try:
        with open(path, encoding="utf-8") as fh:
            manifest = json.load(fh)
    except FileNotFoundError:
        raise UsageError(f"vectors: no manifest.json in {directory!r}") from None
    except (OSError, ValueError) as e:
        raise UsageError(f"vectors: corrupt manifest {path!r}: {_first_line(e)}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT or not isinstance(
            manifest.get("vectors"), list):
        raise UsageError(f"vectors: {path!r} is not a {FORMAT} manifest")
    return manifest


def _load_npz(path: str) -> dict[str, np.ndarray]:
    if os.path.isfile(path) and not zipfile.is_zipfile(path):
        raise UsageError(f"vectors: corrupt file {path!r}: not an .npz (zip) archive")
    try:
        with np.load(path, allow_pickle=False) as data:
            return {k: data[k] for k in data.files}
    except FileNotFoundError:
        raise UsageError(f"vectors: missing file {path!r}") from None
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as e:
        raise UsageError(f"vectors: corrupt file {path!r}: {_first_line(e)}") from None


def _first_line(e: Exception) -> str:
    lines = str(e).splitlines()
    return lines[0] if lines else type(e).__name__


def _tolerance(dtype: np.dtype) -> float:
    return 1e-5 if dtype == np.float32 else 1e-12


def _summary(key: str, note: dict[str, Any]) -> str:
    """A manifest entry's ``calls`` or ``divergences`` in one short line."""
    if key == "calls":
        return "; ".join(f"{fw}: {c['call']}" for fw, c in note.items())
    return "; ".join(f"{fw}: {', '.join(d['id'] for d in ds) or 'none'}"
                     for fw, ds in note.items())


def verify(directory: str) -> list[str]:
    """Every difference between the vectors in ``directory`` and this minigrad, one line each
    (empty when they agree). Unreadable vectors raise ``UsageError``."""
    manifest = _load_manifest(directory)
    samples = {s.name: s for op in OPS for s in op_samples(op)}
    problems = []
    for entry in manifest["vectors"]:
        try:
            name, file, metas = entry["sample"], entry["file"], dict(entry["arrays"])
        except (TypeError, KeyError, ValueError):
            raise UsageError(f"vectors: corrupt manifest entry {str(entry)[:80]}") from None
        s = samples.get(name)
        if s is None:
            problems.append(f"{file}: sample {name!r} is unknown to this minigrad")
            continue
        if _jsonable(s.params) != entry.get("params"):
            problems.append(f"{file}: params {entry.get('params')} != this minigrad's "
                            f"{_jsonable(s.params)}")
            continue
        arrays = _load_npz(os.path.join(directory, file))
        for n, meta in metas.items():
            a = arrays.get(n)
            if a is None:
                problems.append(f"{file}: array {n!r} is missing")
            elif [list(a.shape), a.dtype.name] != [meta.get("shape"), meta.get("dtype")]:
                problems.append(f"{file}: {n} is {a.dtype.name}{list(a.shape)}; the manifest "
                                f"says {meta.get('dtype')}{meta.get('shape')}")
        try:
            expected = compute(s, arrays)
            op = s.name.split(":")[0]
            notes: dict[str, dict[str, Any]] = {"calls": calls(op, s.argnames, s.params, arrays),
                     "divergences": divergences(op, s, arrays)}
        except Exception as e:  # inputs this minigrad rejects: a difference, reported
            problems.append(f"{file}: recomputing failed: {type(e).__name__}: {e}")
            continue
        for key, want_note in notes.items():
            if entry.get(key) != want_note:
                problems.append(f"{file}: the manifest's {key} differ from this minigrad's "
                                f"({_summary(key, want_note)})")
        for n, want in expected.items():
            got = arrays.get(n)
            if got is None or got.shape != want.shape or got.dtype != want.dtype:
                continue  # already reported above, or a missing array
            tol = _tolerance(want.dtype)
            err, bad = errors(got, want, tol, tol)
            if bad.any():
                problems.append(f"{file}: {n} differs in {int(bad.sum())} of {want.size} "
                                f"elements (worst |error| {float(np.nanmax(err)):.3g})")
    return problems


def write_main(out_dir: str, seed: int = 0) -> int:
    manifest = write(out_dir, seed)
    print(f"wrote {len(manifest['vectors'])} vector files and manifest.json to {out_dir} "
          f"(seed {seed}, minigrad {manifest['minigrad_version']})")
    return 0


def verify_main(directory: str) -> int:
    manifest = _load_manifest(directory)
    problems = verify(directory)
    for p in problems:
        print(p)
    n = len(manifest["vectors"])
    if problems:
        print(f"{len(problems)} differences in {n} vector files (written by minigrad "
              f"{manifest.get('minigrad_version')})")
        return 1
    print(f"all {n} vector files agree with minigrad (written by minigrad "
          f"{manifest.get('minigrad_version')}, seed {manifest.get('seed')})")
    return 0

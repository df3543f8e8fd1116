"""Golden test vectors of the five ops: ``python -m minigrad vectors --out DIR`` and ``--verify``.

For every op sample (``minigrad.testing.op_samples``) one ``<sample>.npz`` (the sample's name,
``:`` replaced by ``.``) holds:

* the inputs, by argument name (``x``, ``index``, ``source``, ``mask``, ``value``);
* ``out``: the op's output;
* ``ct`` and ``vjp_<arg>``: a fixed cotangent and the VJP for each differentiable argument;
* ``tangent_<arg>`` and ``jvp_out``: fixed tangents and the JVP;
* ``batch_<arg>`` and ``loss_w``: ``BATCH`` independent draws of every argument, stacked on
  axis 0, and the weights of the loss ``sum(sin(op(args)) * loss_w)``;
* ``per_example_grad_<k>_<arg>``: for the ``k``-th combination of batched arguments (the
  manifest's ``per_example`` list), the per-example gradient of the loss in each
  differentiable argument. A batched argument is ``batch_<arg>``; an unbatched one is
  ``batch_<arg>[0]``, the first draw.

``manifest.json`` describes every file; docs/vectors.md documents each key. Beside the shapes
and dtypes it gives, per entry, the op's call in torch and in jax (``calls``: a ``lambda`` over
the entry's ``args``, to ``eval`` with ``torch`` or ``jnp`` in scope) and the documented
divergences that apply to the entry's data (``divergences``: by framework, each with its id,
the check and the arrays it affects), so a consumer skips exactly those. Two runs write
identical bytes: the draws depend only on the seed and the sample's name, the .npz files are
written through ``zipfile`` with a fixed date, and the manifest's keys are sorted.
``--verify`` recomputes every output from the stored inputs and reports each array that
differs.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
import zlib
from typing import Any, Sequence

import numpy as np

from minigrad.testing import all_in_axes
from minigrad.testing.divergences import Situation, documented
from minigrad.testing.frameworks import FRAMEWORKS
from minigrad.testing.oracle import has_duplicates
from minigrad.testing.samples import OPS, Sample, op_samples
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


def compute(s: Sample, arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Every output array of a sample from its input arrays (the inputs, ``ct``, the tangents,
    the batch and ``loss_w``), as ``vectors`` writes and ``--verify`` re-checks them."""
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

    for k, axes in enumerate(combinations(s)):
        batch = [arrays[f"batch_{n}"] if ax is not None else arrays[f"batch_{n}"][0]
                 for n, ax in zip(s.argnames, axes, strict=True)]
        grads = vmap(grad(loss, argnums=s.diff), in_axes=axes)(*batch)
        for n, g in zip(diff, grads, strict=True):
            out[f"per_example_grad_{k}_{n}"] = np.asarray(g)
    return out


def combinations(s: Sample) -> list[tuple[int | None, ...]]:
    """The combinations of batched (axis 0) and unbatched arguments, in ``all_in_axes``'s
    order: the ``k`` of ``per_example_grad_<k>_<arg>``."""
    return all_in_axes(len(s.argnames), s.batchable)


def generate(s: Sample, seed: int) -> dict[str, np.ndarray]:
    """The inputs of one sample's vectors, then its outputs."""
    from minigrad.testing import batch_args

    ops = s.make(_rng(seed, s, 0))
    arrays = {n: np.asarray(o) for n, o in zip(s.argnames, ops, strict=True)}
    rng = _rng(seed, s, 1)
    arrays["ct"] = _random_like(rng, s.call(*ops))
    for i in s.diff:
        arrays[f"tangent_{s.argnames[i]}"] = _random_like(rng, ops[i])
    arrays["loss_w"] = _random_like(rng, s.call(*ops))
    batch = batch_args(s.make, (0,) * len(ops), BATCH, seed=int(_rng(seed, s, 2).integers(2**31)))
    arrays.update({f"batch_{n}": np.asarray(b) for n, b in zip(s.argnames, batch, strict=True)})
    arrays.update(compute(s, arrays))
    return arrays


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
    per_example = [{"in_axes": list(axes),
                    "grads": {n: f"per_example_grad_{k}_{n}" for n in diff}}
                   for k, axes in enumerate(combinations(s))]
    return {
        "file": file_name(s), "op": op, "sample": s.name, "params": _jsonable(s.params),
        "args": list(s.argnames), "diff": diff,
        "seed": seed, "batch_size": BATCH, "loss": LOSS, "per_example": per_example,
        "calls": {"torch": torch_call(op, s.params, s.argnames),
                  "jax": jax_call(op, s.params, s.argnames,
                                  {n: arrays[n].shape for n in s.argnames})},
        "divergences": {fw: applying(fw, op, s, arrays) for fw in FRAMEWORKS},
        "arrays": {n: {"shape": list(a.shape), "dtype": a.dtype.name} for n, a in arrays.items()},
    }


# --------------------------------------------------------------------------- the manifest's
# calls and divergences


def torch_call(op: str, params: dict, names: Sequence[str]) -> str:
    """The op in PyTorch, as a ``lambda`` over the entry's arguments (``eval`` it with
    ``torch`` in scope; the inputs are ``torch.from_numpy`` of the stored arrays)."""
    args, dim = ", ".join(names), params.get("dim")
    if op == "index_add":
        body = f"torch.index_add(x, {dim}, index, source, alpha={params['alpha']!r})"
    elif op == "index_copy":  # (PyTorch takes an int64 index only there and in index_fill)
        body = f"torch.index_copy(x, {dim}, index.long(), source)"
    elif op == "index_fill":
        value = repr(params["value"]) if "value" in params else "value"
        body = f"torch.index_fill(x, {dim}, index.long(), {value})"
    elif op == "masked_fill":
        value = repr(params["value"]) if "value" in params else "value"
        body = f"torch.masked_fill(x, mask, {value})"
    else:
        body = "torch.masked_scatter(x, mask, source)"
    return f"lambda {args}: {body}"


def jax_call(op: str, params: dict, names: Sequence[str], shapes: dict[str, tuple]) -> str:
    """The op in JAX for the entry's shapes, as a ``lambda`` over its arguments (``eval`` it
    with ``jnp`` in scope, in 64-bit mode for float64 entries). PyTorch's conventions are
    spelled out: a 0-d ``x`` is one slice of shape (1,); JAX has no masked_scatter, so it is
    the composition of ``where``, ``cumsum`` and a gather."""
    args, x_shape = ", ".join(names), tuple(shapes["x"])
    if op.startswith("index"):
        shape = x_shape or (1,)
        d = params["dim"] % len(shape)
        n = int(np.prod(shapes["index"], dtype=np.int64))
        where = ", ".join([":"] * d + ["index.reshape(-1)"])
        target = "x" if shape == x_shape else f"x.reshape({shape})"
        update_shape = (*shape[:d], n, *shape[d + 1:])
        if op == "index_fill":
            update = repr(params["value"]) if "value" in params else "value"
            method = "set"
        else:
            update = ("source" if tuple(shapes["source"]) == update_shape
                      else f"source.reshape({update_shape})")
            method = "add" if op == "index_add" else "set"
            if op == "index_add" and params["alpha"] != 1:
                update = f"{params['alpha']!r} * {update}"
        body = f"{target}.at[{where}].{method}({update})"
        return f"lambda {args}: {body if shape == x_shape else f'{body}.reshape(())'}"
    out_shape = tuple(np.broadcast_shapes(x_shape, tuple(shapes["mask"])))
    if op == "masked_fill":
        value = (f"jnp.asarray({params['value']!r}, x.dtype)" if "value" in params
                 else "value")
        return f"lambda {args}: jnp.where(mask, {value}, x)"
    n = int(np.prod(shapes["source"], dtype=np.int64))
    if n == 0:
        return f"lambda {args}: jnp.broadcast_to(x, {out_shape})"
    m = f"jnp.broadcast_to(mask, {out_shape}).ravel()"
    taken = f"source.ravel()[jnp.clip(jnp.cumsum({m}) - 1, 0, {n - 1})]"
    return (f"lambda {args}: jnp.where({m}, {taken}, "
            f"jnp.broadcast_to(x, {out_shape}).ravel()).reshape({out_shape})")


def applying(framework: str, op: str, s: Sample, arrays: dict[str, np.ndarray]
             ) -> list[dict[str, Any]]:
    """The documented divergences of ``framework`` that apply to this entry's data: for each,
    its id, the check and the arrays whose values it makes differ."""
    names = s.argnames
    diff = [names[i] for i in s.diff]
    zero_d = frozenset(n for n in names if arrays[n].ndim == 0)

    def situation(check: str, batched: frozenset[str] = frozenset(), index: Any = None
                  ) -> Situation:
        index = arrays.get("index") if index is None else index
        dup = index is not None and has_duplicates(index, batched="index" in batched)
        return Situation(op, check, batched=batched, value_array="value" in names,
                         duplicates=dup, zero_d=zero_d)

    groups = [("forward", situation("forward"), ["out"])]
    if diff:
        groups += [("vjp", situation("vjp"), [f"vjp_{n}" for n in diff]),
                   ("jvp", situation("jvp"), ["jvp_out"])]
        for k, axes in enumerate(combinations(s)):
            batched = frozenset(n for n, a in zip(names, axes, strict=True) if a is not None)
            index = arrays.get("batch_index")  # an unbatched index is the first draw's
            if index is not None and "index" not in batched:
                index = index[0]
            groups.append(("vmap(grad)", situation("vmap(grad)", batched, index),
                           [f"per_example_grad_{k}_{n}" for n in diff]))
    found = []
    for check, sit, affected in groups:
        d = documented(framework, sit)
        if d is not None:
            found.append({"id": d.id, "check": check, "arrays": affected,
                          "condition": d.condition})
    return found


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
                    "vectors": entries}
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
        except Exception as e:  # inputs this minigrad rejects: a difference, reported
            problems.append(f"{file}: recomputing failed: {type(e).__name__}: {e}")
            continue
        for n, want in expected.items():
            got = arrays.get(n)
            if got is None or got.shape != want.shape or got.dtype != want.dtype:
                continue  # already reported above, or a missing array
            tol = _tolerance(want.dtype)
            err = np.abs(got.astype(np.float64) - want.astype(np.float64))
            bad = err > tol + tol * np.abs(want.astype(np.float64))
            if bad.any():
                problems.append(f"{file}: {n} differs in {int(bad.sum())} of {want.size} "
                                f"elements (worst |error| {float(err.max()):.3g})")
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

"""Golden test vectors of the five ops: ``python -m minigrad vectors --out DIR`` and ``--verify``.

For every op sample (``minigrad.testing.op_samples``) one ``<op>.<variant>-<dtype>.npz`` holds:

* the inputs, by argument name (``x``, ``index``, ``source``, ``mask``, ``value``);
* ``out``: the op's output;
* ``ct`` and ``vjp_<arg>``: a fixed cotangent and the VJP for each differentiable argument;
* ``tangent_<arg>`` and ``jvp_out``: fixed tangents and the JVP;
* ``batch_<arg>``, ``loss_w`` and ``per_example_grad_<arg>``: a batch of ``BATCH`` independent
  draws of every argument (stacked on axis 0) and, for each example, the gradient of
  ``sum(sin(op(args)) * loss_w)`` with respect to each differentiable argument.

``manifest.json`` lists every file with its op, variant, params, argument names, shapes,
dtypes, the seed and minigrad's version. Two runs write identical bytes: the draws depend only on
the seed and the sample's name, the .npz files are written through ``zipfile`` with a fixed
date, and the manifest's keys are sorted. ``--verify`` recomputes every output from the stored
inputs and reports each array that differs.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
import zlib
from typing import Any, Sequence

import numpy as np

from minigrad.testing.samples import OPS, Sample, op_samples
from minigrad.tools.errors import UsageError
from minigrad.transforms.grad import grad
from minigrad.transforms.jvp import jvp
from minigrad.transforms.transpose import vjp
from minigrad.transforms.vmap import vmap

FORMAT = "minigrad-vectors/1"
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

    grads = vmap(grad(loss, argnums=s.diff))(*[arrays[f"batch_{n}"] for n in s.argnames])
    for n, g in zip(diff, grads, strict=True):
        out[f"per_example_grad_{n}"] = np.asarray(g)
    return out


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
    return {
        "file": file_name(s), "op": op, "sample": s.name, "params": _jsonable(s.params),
        "args": list(s.argnames), "diff": [s.argnames[i] for i in s.diff],
        "seed": seed, "batch_size": BATCH, "loss": LOSS,
        "arrays": {n: {"shape": list(a.shape), "dtype": a.dtype.name} for n, a in arrays.items()},
    }


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

"""Golden vectors (python -m minigrad vectors): deterministic bytes, a manifest that describes
them, contents that mean what they say, and --verify catching a tampered or corrupt file."""

from __future__ import annotations

import importlib
import json
import warnings
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
import pytest

import minigrad as mg
from minigrad.testing import all_in_axes
from minigrad.testing.samples import OPS, op_samples
from minigrad.tools import vectors
from minigrad.tools.cli import main


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("vectors")
    assert main(["vectors", "--out", str(out)]) == 0
    return out


def files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def test_two_runs_write_identical_bytes(written: Path, tmp_path: Path) -> None:
    assert main(["vectors", "--out", str(tmp_path)]) == 0
    assert files(tmp_path) == files(written)
    assert len(files(written)) == 1 + sum(len(op_samples(op)) for op in OPS)


def test_seed_changes_the_draws(tmp_path: Path) -> None:
    vectors.write(str(tmp_path), seed=1, ops=("index_add",))
    with np.load(tmp_path / "index_add.dup-f64.npz") as data:
        x1 = data["x"]
    vectors.write(str(tmp_path), seed=2, ops=("index_add",))
    with np.load(tmp_path / "index_add.dup-f64.npz") as data:
        assert not np.array_equal(data["x"], x1)


def test_manifest_describes_every_file(written: Path) -> None:
    manifest = json.loads((written / "manifest.json").read_text())
    assert manifest["format"] == vectors.FORMAT
    assert manifest["minigrad_version"] == mg.__version__ and manifest["seed"] == 0
    assert set(manifest["frameworks"]) == {"torch", "jax"}
    records = manifest["divergence_records"]
    samples = {s.name: s for op in OPS for s in op_samples(op)}
    for entry in manifest["vectors"]:
        with np.load(written / entry["file"]) as data:
            assert sorted(data.files) == sorted(entry["arrays"])
            for name, meta in entry["arrays"].items():
                assert [list(data[name].shape), data[name].dtype.name] == [meta["shape"],
                                                                           meta["dtype"]]
        assert entry["op"] in OPS and entry["args"][0] == "x"
        for name in entry["diff"]:
            assert f"vjp_{name}" in entry["arrays"]
        # a per-example item for every in_axes combination, naming arrays the file has
        s = samples[entry["sample"]]
        combos = [tuple(p["in_axes"]) for p in entry["per_example"]]
        assert combos == all_in_axes(len(s.argnames), s.batchable) and len(combos) > 1
        for p in entry["per_example"]:
            names = [*p["inputs"], p["out"], *p["grads"]]
            assert set(names) <= set(entry["arrays"])
            assert len(p["inputs"]) == len(entry["args"])
            assert len(p["grads"]) == len(entry["diff"])
        for fw, found in entry["divergences"].items():
            for d in found:
                assert records[d["id"]]["framework"] == fw
                assert records[d["id"]]["op"] in (entry["op"], "*")
                assert d["arrays"] and set(d["arrays"]) <= set(entry["arrays"])
        assert set(entry["calls"]) == {"torch", "jax"}
        assert all(c["args"] == entry["args"] for c in entry["calls"].values())


def divergences_of(written: Path, file: str) -> dict[str, list[str]]:
    manifest = json.loads((written / "manifest.json").read_text())
    entry = next(e for e in manifest["vectors"] if e["file"] == file)
    return {d["id"]: d["arrays"] for d in entry["divergences"]["torch"]}


def test_divergences_follow_the_data(written: Path) -> None:
    # duplicates in the drawn index: only the source gradients, of every combination
    found = divergences_of(written, "index_copy.dup-f64.npz")
    assert list(found) == ["torch-index_copy-duplicates"]
    assert "vjp_source" in found["torch-index_copy-duplicates"]
    assert not any(a.endswith("_x") for a in found["torch-index_copy-duplicates"])
    with np.load(written / "index_copy.neg-dim-f64.npz") as d:
        assert len(set(d["index"].tolist())) == len(d["index"])  # no duplicate there
    assert divergences_of(written, "index_copy.neg-dim-f64.npz") == {}
    # a 0-d source into a vector: the per-example source gradients
    found = divergences_of(written, "index_copy.scalar-source-f64.npz")
    assert sorted(found["torch-index_copy-0d-source"]) == sorted(
        f"{c}.grad_source" for c in ("vmap.x", "vmap.index", "vmap.source", "vmap.x+index",
                                     "vmap.x+source", "vmap.index+source",
                                     "vmap.x+index+source"))
    # a batched value into an unbatched x: only where something is filled
    found = divergences_of(written, "index_fill.neg-dim-f64.npz")
    assert sorted(found["torch-index_fill-batched-value"]) == [
        "vmap.index+value.grad_value", "vmap.index+value.grad_x", "vmap.index+value.out",
        "vmap.value.grad_value", "vmap.value.out"]
    assert divergences_of(written, "index_fill.empty-index-f64.npz") == {}


def test_contents_mean_what_they_say(written: Path) -> None:
    with np.load(written / "index_add.dup-f64.npz") as d:
        x, index, source, ct = d["x"], d["index"], d["source"], d["ct"]
        np.testing.assert_array_equal(d["out"], mg.index_add(x, 0, index, source))
        # index_add is linear in (x, source): the VJP is the transposed op applied to ct
        np.testing.assert_array_equal(d["vjp_x"], ct)
        np.testing.assert_allclose(d["vjp_source"], ct[index])
        np.testing.assert_allclose(d["jvp_out"], mg.index_add(d["tangent_x"], 0, index,
                                                              d["tangent_source"]))
        # per-example gradients of a mixed combination (x unbatched): a loop of grad
        c = "vmap.index+source"
        assert d[f"{c}.x"].shape == x.shape and d[f"{c}.index"].shape == (vectors.BATCH, 6)
        for b in range(vectors.BATCH):
            g = mg.grad(lambda x, s, b=b: mg.numpy.sum(
                mg.numpy.sin(mg.index_add(x, 0, d[f"{c}.index"][b], s)) * d["loss_w"]),
                argnums=(0, 1))(d[f"{c}.x"], d[f"{c}.source"][b])
            np.testing.assert_allclose(d[f"{c}.grad_x"][b], g[0], rtol=1e-12)
            np.testing.assert_allclose(d[f"{c}.grad_source"][b], g[1], rtol=1e-12)
            np.testing.assert_array_equal(d[f"{c}.out"][b], mg.index_add(
                d[f"{c}.x"], 0, d[f"{c}.index"][b], d[f"{c}.source"][b]))


# --------------------------------------------------------------------------- blind consumers


def consume(directory: Path, framework: str, fw: dict[str, Callable[..., Any]],
            drop_divergences: bool = False, files: Sequence[str] = ()
            ) -> tuple[dict[tuple[str, str], str], int]:
    """Check another framework against the vectors, reading only the manifest and the files:
    each entry's call, the loss, every array (out, VJPs, the JVP, every combination's batched
    output and per-example gradients), skipping what the entry's divergences list. ``fw``
    holds the framework's transforms (vjp, jvp, vmap, grad) and its array conversions; nothing
    here knows an op. Returns the differing arrays, by (file, array), and how many agreed."""
    manifest = json.loads((directory / "manifest.json").read_text())
    spec = manifest["frameworks"][framework]
    modules = {name: importlib.import_module(m) for name, m in spec["imports"].items()}
    problems: dict[tuple[str, str], str] = {}
    agreed = 0
    for entry in manifest["vectors"]:
        if files and entry["file"] not in files:
            continue
        with np.load(directory / entry["file"]) as data:
            arrays = {k: data[k] for k in data.files}
        skip = set() if drop_divergences else {
            a for d in entry["divergences"][framework] for a in d["arrays"]}
        for names, run in runs(entry, arrays, spec, modules, framework, fw):
            try:
                results = [fw["numpy"](r) for r in run()]
            except Exception as e:
                results = [f"{type(e).__name__}: {e}"] * len(names)
            for name, got in zip(names, results, strict=True):
                if name in skip:
                    continue
                want = arrays[name]
                tol = manifest["tolerance"].get(want.dtype.name, 0.0)
                if isinstance(got, str):
                    problems[(entry["file"], name)] = got
                elif got.shape != want.shape or got.dtype != want.dtype or not np.allclose(
                        got, want, rtol=tol, atol=tol):
                    problems[(entry["file"], name)] = f"theirs {got.ravel()[:4]}, " \
                                                      f"the vectors' {want.ravel()[:4]}"
                else:
                    agreed += 1
    return problems, agreed


def runs(entry: dict[str, Any], arrays: dict[str, np.ndarray], spec: dict[str, Any],
         modules: dict[str, Any], framework: str, fw: dict[str, Callable[..., Any]]
         ) -> list[tuple[list[str], Callable[[], Any]]]:
    """One entry's computations in the other framework, each with the arrays it gives."""
    call = entry["calls"][framework]
    op = eval(f"lambda {', '.join(call['args'])}: {call['call']}",
              {**modules, **entry["params"]})
    loss = eval(f"lambda out: {spec['loss']}", {**modules, "loss_w": fw["array"](
        arrays["loss_w"])})
    args = [fw["array"](arrays[n]) for n in entry["args"]]
    diff = tuple(entry["args"].index(n) for n in entry["diff"])

    def partial_op(*vals: Any) -> Any:
        full = list(args)
        for i, v in zip(diff, vals, strict=True):
            full[i] = v
        return op(*full)

    def per_example(*a: Any) -> Any:
        return loss(op(*a))

    primals = [args[i] for i in diff]
    todo: list[tuple[list[str], Callable[[], Any]]] = [(["out"], lambda: [op(*args)])]
    if diff:
        ct = fw["array"](arrays["ct"])
        tangents = [fw["array"](arrays[f"tangent_{n}"]) for n in entry["diff"]]
        todo.append(([f"vjp_{n}" for n in entry["diff"]],
                     lambda: fw["vjp"](partial_op, primals, ct)))
        todo.append((["jvp_out"], lambda: [fw["jvp"](partial_op, primals, tangents)]))
    for item in entry["per_example"]:
        batch = [fw["array"](arrays[n]) for n in item["inputs"]]
        axes = tuple(item["in_axes"])
        todo.append(([item["out"]], lambda b=batch, a=axes: [fw["vmap"](op, a)(*b)]))
        if diff:
            todo.append((item["grads"], lambda b=batch, a=axes: fw["vmap"](
                fw["grad"](per_example, diff), a)(*b)))
    return todo


def outputs(directory: Path, files: Sequence[str] = ()) -> int:
    """How many output arrays the vectors hold (out, VJPs, JVP, batched outputs, gradients)."""
    manifest = json.loads((directory / "manifest.json").read_text())
    return sum(1 + (len(e["diff"]) + 1 if e["diff"] else 0)
               + sum(1 + len(p["grads"]) for p in e["per_example"]) for e in manifest["vectors"]
               if not files or e["file"] in files)


def listed(directory: Path, framework: str) -> set[tuple[str, str]]:
    manifest = json.loads((directory / "manifest.json").read_text())
    return {(e["file"], a) for e in manifest["vectors"] for d in e["divergences"][framework]
            for a in d["arrays"]}


def torch_transforms() -> dict[str, Callable[..., Any]]:
    torch = pytest.importorskip("torch", reason="the blind consumer from torch needs torch")
    tf = torch.func
    return {
        "array": torch.from_numpy, "numpy": lambda t: t.detach().numpy(),
        "vjp": lambda f, primals, ct: list(tf.vjp(f, *primals)[1](ct)),
        "jvp": lambda f, primals, tangents: tf.jvp(f, tuple(primals), tuple(tangents))[1],
        "vmap": lambda f, axes: tf.vmap(f, in_dims=axes),
        "grad": lambda f, argnums: tf.grad(f, argnums=argnums)}


def test_torch_consumes_the_vectors_blindly(written: Path) -> None:
    fw = torch_transforms()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.func's notes that it loops (no batching rule)
        problems, agreed = consume(written, "torch", fw)
        assert problems == {} and agreed == outputs(written) - len(listed(written, "torch"))
        # the manifest's lists are what make it pass: without them exactly the listed arrays
        # differ, in files of index_copy and index_fill
        unskipped, _ = consume(written, "torch", fw, drop_divergences=True)
    assert set(unskipped) == listed(written, "torch")
    assert {f.split(".")[0] for f, _ in unskipped} == {"index_copy", "index_fill"}
    assert any("vmap.index+" in a for _, a in unskipped)  # a mixed in_axes combination


def test_jax_consumes_the_vectors_blindly(written: Path) -> None:
    jax = pytest.importorskip("jax", reason="the blind consumer from JAX needs jax")
    fw = {"array": jax.numpy.asarray, "numpy": np.asarray,
          "vjp": lambda f, primals, ct: list(jax.vjp(f, *primals)[1](ct)),
          "jvp": lambda f, primals, tangents: jax.jvp(f, tuple(primals), tuple(tangents))[1],
          "vmap": lambda f, axes: jax.vmap(f, in_axes=axes),
          "grad": lambda f, argnums: jax.grad(f, argnums=argnums)}
    # JAX's eager transforms are slow (a minute for all 35 files): a few files whose JAX
    # expressions are the least plain
    files = ("index_add.neg-dim-alpha-f64.npz", "index_copy.0-d-f64.npz",
             "masked_fill.scalar-value-f32.npz", "masked_scatter.0-d-x-f64.npz")
    with jax.enable_x64(True):
        problems, agreed = consume(written, "jax", fw, files=files)
    assert problems == {} and agreed == outputs(written, files)
    assert listed(written, "jax") == set()


def test_verify_agrees(written: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vectors", "--verify", str(written)]) == 0
    n = sum(len(op_samples(op)) for op in OPS)
    assert f"all {n} vector files agree with minigrad" in capsys.readouterr().out


def copy_of(written: Path, tmp_path: Path) -> Path:
    for name, data in files(written).items():
        (tmp_path / name).write_bytes(data)
    return tmp_path


def tamper(path: Path, key: str, change: Callable[[np.ndarray], np.ndarray]) -> None:
    """Rewrite the vector file ``path`` with its array ``key`` replaced by ``change(array)``."""
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    arrays[key] = change(arrays[key])
    vectors.write_npz(str(path), arrays)


def test_verify_catches_a_tampered_file(written: Path, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    d = copy_of(written, tmp_path)

    def bump_first(a: np.ndarray) -> np.ndarray:
        a = a.copy()
        a.flat[0] += 0.5
        return a

    tamper(d / "masked_scatter.same-shape-f32.npz", "vjp_source", bump_first)
    assert main(["vectors", "--verify", str(d)]) == 1
    out = capsys.readouterr().out
    assert "masked_scatter.same-shape-f32.npz: vjp_source differs in 1 of 14 elements" in out
    assert out.splitlines()[-1].startswith("1 differences in")


def test_verify_catches_a_tampered_input(written: Path, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    d = copy_of(written, tmp_path)
    # the stored outputs no longer follow from the inputs
    tamper(d / "index_copy.dup-f64.npz", "x", lambda x: x + 1.0)
    assert main(["vectors", "--verify", str(d)]) == 1
    assert "index_copy.dup-f64.npz: out differs" in capsys.readouterr().out


def test_verify_catches_an_emptied_divergence_list(written: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    d = copy_of(written, tmp_path)
    manifest = json.loads((d / "manifest.json").read_text())
    for entry in manifest["vectors"]:
        if entry["file"] == "index_copy.dup-f64.npz":
            entry["divergences"]["torch"] = []
    (d / "manifest.json").write_text(json.dumps(manifest))
    assert main(["vectors", "--verify", str(d)]) == 1
    out = capsys.readouterr().out
    assert "index_copy.dup-f64.npz: the manifest's divergences differ" in out
    assert "torch-index_copy-duplicates" in out


@pytest.mark.parametrize("damage, message", [
    (lambda d: (d / "index_fill.dup-f64.npz").write_bytes(b"not a zip"),
     "corrupt file"),
    (lambda d: (d / "index_fill.dup-f64.npz").unlink(), "missing file"),
    (lambda d: (d / "manifest.json").write_text("{not json"), "corrupt manifest"),
    (lambda d: (d / "manifest.json").write_text('{"format": "other"}'), "is not a"),
    (lambda d: (d / "manifest.json").unlink(), "no manifest.json"),
])
def test_corrupt_vectors_exit_2(written: Path, tmp_path: Path, damage, message: str,
                                capsys: pytest.CaptureFixture[str]) -> None:
    d = copy_of(written, tmp_path)
    damage(d)
    assert main(["vectors", "--verify", str(d)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err and "Traceback" not in err


def test_unwritable_directory_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                      ) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert main(["vectors", "--out", str(blocker / "sub")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "cannot create the directory" in err

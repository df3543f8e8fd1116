"""Golden vectors (python -m minigrad vectors): deterministic bytes, a manifest that describes
them, contents that mean what they say, and --verify catching a tampered or corrupt file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg
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
    for entry in manifest["vectors"]:
        with np.load(written / entry["file"]) as data:
            assert sorted(data.files) == sorted(entry["arrays"])
            for name, meta in entry["arrays"].items():
                assert [list(data[name].shape), data[name].dtype.name] == [meta["shape"],
                                                                           meta["dtype"]]
        assert entry["op"] in OPS and entry["args"][0] == "x"
        for name in entry["diff"]:
            assert f"vjp_{name}" in entry["arrays"]
            assert f"per_example_grad_0_{name}" in entry["arrays"]


def test_contents_mean_what_they_say(written: Path) -> None:
    with np.load(written / "index_add.dup-f64.npz") as d:
        x, index, source, ct = d["x"], d["index"], d["source"], d["ct"]
        np.testing.assert_array_equal(d["out"], mg.index_add(x, 0, index, source))
        # index_add is linear in (x, source): the VJP is the transposed op applied to ct
        np.testing.assert_array_equal(d["vjp_x"], ct)
        np.testing.assert_allclose(d["vjp_source"], ct[index])
        np.testing.assert_allclose(d["jvp_out"], mg.index_add(d["tangent_x"], 0, index,
                                                              d["tangent_source"]))
        # per-example gradients: a loop of grad over the stacked examples
        for b in range(vectors.BATCH):
            g = mg.grad(lambda x, s, b=b: mg.numpy.sum(
                mg.numpy.sin(mg.index_add(x, 0, d["batch_index"][b], s)) * d["loss_w"]),
                argnums=(0, 1))(d["batch_x"][b], d["batch_source"][b])
            np.testing.assert_allclose(d["per_example_grad_6_x"][b], g[0], rtol=1e-12)
            np.testing.assert_allclose(d["per_example_grad_6_source"][b], g[1], rtol=1e-12)


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


# --------------------------------------------------------------------------- a blind consumer


def consume_with_torch(directory: Path, skip: bool = True) -> list[str]:
    """What a generic torch test suite does with the vectors, from the manifest alone: eval each
    entry's torch call, compare the forward, the VJP, the JVP and the per-example gradients of
    every combination, skipping the arrays the manifest's torch divergences name. Returns the
    arrays that differ."""
    torch = pytest.importorskip("torch", reason="consuming the vectors from torch needs torch")
    manifest = json.loads((directory / "manifest.json").read_text())
    failures = []
    for e in manifest["vectors"]:
        skipped = {a for d in e["divergences"]["torch"] for a in d["arrays"]} if skip else set()
        with np.load(directory / e["file"]) as data:
            d = {k: data[k] for k in data.files}
        f = eval(e["calls"]["torch"], {"torch": torch})  # the manifest's own call
        t = {k: torch.from_numpy(v) for k, v in d.items()}
        tol = 1e-4 if d["out"].dtype == np.float32 else 1e-9
        args, diff = [t[n] for n in e["args"]], [e["args"].index(n) for n in e["diff"]]

        def restricted(*vals: Any, args: list = args, diff: list = diff, f: Any = f) -> Any:
            full = list(args)
            for i, v in zip(diff, vals, strict=True):
                full[i] = v
            return f(*full)

        def loss(*a: Any, f: Any = f, w: Any = t["loss_w"]) -> Any:
            return (torch.sin(f(*a)) * w).sum()

        got: dict[str, Any] = {}
        try:
            got["out"] = f(*args)
            if diff:
                primals = [args[i].clone().requires_grad_(True) for i in diff]
                vjps = torch.autograd.grad(restricted(*primals), primals, t["ct"],
                                           allow_unused=True)
                got.update({f"vjp_{n}": (torch.zeros_like(p) if g is None else g)
                            for n, p, g in zip(e["diff"], primals, vjps, strict=True)})
                got["jvp_out"] = torch.func.jvp(restricted, tuple(args[i] for i in diff),
                                                tuple(t[f"tangent_{n}"] for n in e["diff"]))[1]
        except Exception as err:  # an op torch refuses: every array of the entry differs
            failures.append(f"{e['file']}: {type(err).__name__}")
            continue
        for combo in e["per_example"]:
            axes = tuple(combo["in_axes"])
            batch = [t[f"batch_{n}"] if ax is not None else t[f"batch_{n}"][0]
                     for n, ax in zip(e["args"], axes, strict=True)]
            if set(combo["grads"].values()) <= skipped:
                continue
            try:
                grads = torch.func.vmap(torch.func.grad(loss, argnums=tuple(diff)),
                                        in_dims=axes)(*batch)
            except Exception as err:
                failures.append(f"{e['file']} {axes}: {type(err).__name__}")
                continue
            got.update({combo["grads"][n]: g for n, g in zip(e["diff"], grads, strict=True)})
        for name, value in got.items():
            if name in skipped:
                continue
            want = d[name]
            v = value.detach().numpy()
            if v.shape != want.shape or not np.allclose(v, want, rtol=tol, atol=tol):
                failures.append(f"{e['file']}: {name}")
    return failures


def test_a_blind_torch_consumer_passes_with_the_manifests_divergences(written: Path) -> None:
    assert consume_with_torch(written) == []
    # without the manifest's list, the divergences show: the list is what makes it pass
    unskipped = consume_with_torch(written, skip=False)
    manifest = json.loads((written / "manifest.json").read_text())
    named = {e["file"] for e in manifest["vectors"] if e["divergences"]["torch"]}
    assert unskipped and {u.split(":")[0].split(" ")[0] for u in unskipped} <= named
    assert {d["id"] for e in manifest["vectors"] for d in e["divergences"]["torch"]} == {
        "torch-index_copy-duplicates", "torch-index_copy-0d-source",
        "torch-index_fill-batched-value", "torch-index_fill-unique"}


def test_the_manifest_lists_every_combination(written: Path) -> None:
    from minigrad.testing import all_in_axes

    manifest = json.loads((written / "manifest.json").read_text())
    for e in manifest["vectors"]:
        combos = [tuple(c["in_axes"]) for c in e["per_example"]]
        assert combos == all_in_axes(len(e["args"]))
        for c in e["per_example"]:
            assert sorted(c["grads"]) == sorted(e["diff"])
            assert all(g in e["arrays"] for g in c["grads"].values())
        assert set(e["calls"]) == {"torch", "jax"} and set(e["divergences"]) == {"torch", "jax"}


def test_the_jax_calls_give_the_stored_outputs(written: Path) -> None:
    jax = pytest.importorskip("jax", reason="evaluating the jax calls needs jax")
    manifest = json.loads((written / "manifest.json").read_text())
    with jax.enable_x64(True):
        for e in manifest["vectors"]:
            with np.load(written / e["file"]) as data:
                f = eval(e["calls"]["jax"], {"jnp": jax.numpy})
                out = np.asarray(f(*[jax.numpy.asarray(data[n]) for n in e["args"]]))
                np.testing.assert_allclose(out, data["out"], rtol=1e-6, atol=1e-6,
                                           err_msg=e["file"])

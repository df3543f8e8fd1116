"""The command line (python -m minigrad): every subcommand in-process through
``minigrad.tools.cli.main``, a few as real subprocesses, and the exit codes (0 ok, 1 a check failed,
2 bad input, one line on stderr and never a traceback)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from minigrad.testing.samples import Sample
from minigrad.tools import check as check_cmd
from minigrad.tools.cli import main

ROOT = Path(__file__).parent.parent


def run_module(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("MINIGRAD_TRACEBACK", None)
    return subprocess.run([sys.executable, "-m", "minigrad", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def one_line_error(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    assert lines[0].startswith("minigrad: ")
    return lines[0]


# --------------------------------------------------------------------------- no command, demo


def test_no_command_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 0
    out = capsys.readouterr().out
    for command in ("check", "explain", "crosscheck", "vectors", "demo"):
        assert command in out


def test_demo(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo"]) == 0
    assert "vmap(grad) == loop of grad: True" in capsys.readouterr().out


# --------------------------------------------------------------------------- check


def test_check_named_primitives(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "index_add", "tanh", "masked_gather"]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert lines[0].split()[:3] == ["primitive", "samples", "reference"]
    assert [line.split()[0] for line in lines[1:4]] == ["index_add", "tanh", "masked_gather"]
    assert "3 primitives" in lines[-1] and "all passed" in lines[-1]
    # the progress line went to stderr, one step per primitive when stderr is not a terminal
    assert "check: [3/3] masked_gather" in captured.err


def test_check_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--json", "--seed", "3", "--examples", "2", "index_fill"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["passed"] is True and report["seed"] == 3 and report["examples"] == 2
    summary = report["summary"]["index_fill"]
    for column in check_cmd.COLUMNS:
        assert summary[column]["passed"] and summary[column]["cases"] > 0, column
    assert all(r["primitive"] == "index_fill" for r in report["results"])


def test_check_failure_exits_1(monkeypatch: pytest.MonkeyPatch,
                               capsys: pytest.CaptureFixture[str]) -> None:
    wrong = Sample("tanh:wrong-reference", lambda rng: (rng.standard_normal(3),), diff=(0,),
                   reference=lambda x: np.sin(x))
    monkeypatch.setattr(check_cmd, "samples_for", lambda name: [wrong])
    assert main(["check", "tanh"]) == 1
    out = capsys.readouterr().out
    assert "FAIL 1/1" in out
    assert "FAIL tanh [tanh:wrong-reference] reference: AssertionError" in out
    assert "1 checks FAILED" in out.splitlines()[-1]


def test_check_all_primitives_is_fast_enough() -> None:
    # The README's main-job command: every primitive, default settings, well under a minute.
    results = check_cmd.run()
    assert all(r.passed for r in results), [r for r in results if not r.passed][:3]
    names = {r.primitive for r in results}
    assert {"index_add", "masked_scatter", "tanh", "masked_gather", "dot"} <= names


@pytest.mark.parametrize("argv, expected", [
    (["check", "nope"], "check: unknown primitive 'nope'; known: abs, "),
    (["check", "--examples", "0", "tanh"], "--examples must be at least 1; got 0"),
    (["check", "--seed", "x"], "argument --seed: invalid int value: 'x'"),
    (["explain", "nope"], "explain: unknown primitive 'nope'"),
    (["explain"], "the following arguments are required: OP"),
    (["crosscheck", "--against", "tensorflow"], "--against must be one of torch, jax; got "
                                                "'tensorflow'"),
    (["crosscheck"], "the following arguments are required: --against"),
    (["vectors"], "one of the arguments --out --verify is required"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
])
def test_bad_input_is_one_line_and_exit_2(argv: list[str], expected: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert expected in one_line_error(captured.err)
    assert captured.out == ""


def test_internal_error_is_one_line(monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    def boom(*args: object, **kwargs: object) -> int:
        raise RuntimeError("something broke")

    monkeypatch.delenv("MINIGRAD_TRACEBACK", raising=False)
    monkeypatch.setattr(check_cmd, "main", boom)
    assert main(["check"]) == 2
    line = one_line_error(capsys.readouterr().err)
    assert "internal error: RuntimeError: something broke" in line


# --------------------------------------------------------------------------- explain


@pytest.mark.parametrize("op", ["index_add", "index_copy", "index_fill", "masked_fill",
                                "masked_scatter"])
def test_explain_the_five(op: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", op]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{op}  (minigrad/ops/{op}.py)")
    assert "JVP: (out, out_dot) = jvp(f, (x, " in out
    assert "transpose (the linear part of the VJP)" in out
    assert "batched: vmap(f, in_axes=(0, 0, 0))" in out
    assert out.count("{ lambda") == 3
    assert f"= {op}[" in out or f"= {op} " in out
    # and the code jit runs for the batched function, generated and compilable
    code = out.split("under jit: the code jit(vmap(f)) runs")[1].split("\n", 1)[1]
    assert code.startswith("def jit_batched(") and "_0(" in code and "return [" in code
    compile(code, "<explain>", "exec")


def test_explain_transpose_shows_the_adjoint(capsys: pytest.CaptureFixture[str]) -> None:
    main(["explain", "index_add"])
    transpose = capsys.readouterr().out.split("transpose (the linear part")[1].split("batched")[0]
    assert "index_select" in transpose and "index_add" not in transpose


def test_explain_any_primitive(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "tanh"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("tanh  (minigrad/ops/elementwise.py)") and "tanh(x)" in out
    assert main(["explain", "lt"]) == 0
    assert "no differentiable operand" in capsys.readouterr().out


# --------------------------------------------------------------------------- subprocesses


def test_subprocess_check_and_help() -> None:
    done = run_module("check", "masked_fill", "neg")
    assert done.returncode == 0, done.stderr
    assert "2 primitives" in done.stdout and "all passed" in done.stdout
    assert "check: [2/2] neg" in done.stderr
    done = run_module()
    assert done.returncode == 0 and "usage: minigrad" in done.stdout


def test_subprocess_bad_input() -> None:
    done = run_module("crosscheck", "--against", "mxnet")
    assert done.returncode == 2
    assert "--against must be one of torch, jax" in one_line_error(done.stderr)
    done = run_module("vectors", "--verify", str(ROOT / "no-such-dir"))
    assert done.returncode == 2
    assert "no manifest.json" in one_line_error(done.stderr)


# --------------------------------------------------------------------------- --module

USER_MODULE = '''
import numpy as np
from minigrad.core import Primitive
from minigrad.ops.elementwise import full_like, mul
from minigrad.testing import Sample, register

def cube(name, broken):
    p = Primitive(name)
    p.def_impl(lambda x: x ** 3)
    p.def_abstract_eval(lambda x: x)
    three = (lambda x: np.full((), 3.0)) if broken else (lambda x: full_like(x, 3.0))
    p.def_jvp(lambda pr, t: (p.bind(*pr), mul(t[0], mul(three(pr[0]), mul(pr[0], pr[0])))))
    p.def_batch(lambda n, vals, dims: (p.bind(vals[0]), dims[0]))
    register(p, [Sample("3x2", lambda rng: (rng.standard_normal((3, 2)),), diff=(0,),
                        reference=lambda x: x ** 3)], doc="x cubed, elementwise")
    return p

cube_p = cube("user_cube", broken=False)
broken_p = cube("user_cube_broken", broken=True)  # its JVP broadcasts a 0-d 3
'''


def run_user_module(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    (tmp_path / "userops").mkdir(parents=True, exist_ok=True)
    (tmp_path / "userops" / "__init__.py").write_text("")
    (tmp_path / "userops" / "ops.py").write_text(USER_MODULE)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    env.pop("MINIGRAD_TRACEBACK", None)
    return subprocess.run([sys.executable, "-m", "minigrad", *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)


def test_check_module_checks_the_registered_primitives(tmp_path: Path) -> None:
    good = run_user_module(tmp_path, "check", "--module", "userops.ops", "user_cube")
    assert good.returncode == 0, good.stderr
    assert "user_cube" in good.stdout and "all passed" in good.stdout
    assert "index_add" not in good.stdout  # only the module's primitives
    both = run_user_module(tmp_path / "b", "check", "--module", "userops.ops", "--json")
    assert both.returncode == 1  # the broken one fails
    failed = {(r["primitive"], r["check"]) for r in json.loads(both.stdout)["results"]
              if not r["passed"]}
    assert ("user_cube_broken", "staged") in failed
    assert not any(p == "user_cube" for p, _ in failed)


def test_explain_module(tmp_path: Path) -> None:
    out = run_user_module(tmp_path, "explain", "--module", "userops.ops", "user_cube")
    assert out.returncode == 0, out.stderr
    assert "registered by userops.ops" in out.stdout and "x cubed, elementwise" in out.stdout
    assert "user_cube a" in out.stdout  # the JVP's jaxpr binds it


@pytest.mark.parametrize(("args", "expected"), [
    (("check", "--module", "no_such_module_xyz"), "cannot import module 'no_such_module_xyz'"),
    (("check", "--module", "json"), "module 'json' registers no primitives"),
    (("check", "--module", "userops.ops", "index_add"), "does not register 'index_add'"),
    (("explain", "--module", "userops.ops", "sin"), "does not register 'sin'"),
])
def test_module_errors(tmp_path: Path, args: tuple, expected: str) -> None:
    out = run_user_module(tmp_path, *args)
    assert out.returncode == 2
    assert expected in one_line_error(out.stderr)


def test_register_checks_its_arguments() -> None:
    from minigrad.core import Primitive
    from minigrad.ops.elementwise import sin_p
    from minigrad.testing import register

    with pytest.raises(TypeError, match="register: prim must be a minigrad Primitive"):
        register("sin", [])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="register: samples must be"):
        register(Primitive("user_x"), [object()])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="one of minigrad's own primitives"):
        register(Primitive(sin_p.name), [])

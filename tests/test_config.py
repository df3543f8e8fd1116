"""minigrad.config: JAX's flags by name; jax_enable_x64 (on by default here) and JAX's 32-bit
world when it is off; the debugging flags."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import warnings

import numpy as np
import pytest

import minigrad as mg
import minigrad.numpy as mnp
from minigrad import dtypes

F32, F64 = np.dtype(np.float32), np.dtype(np.float64)
I32, I64 = np.dtype(np.int32), np.dtype(np.int64)


def test_update_read_and_attribute() -> None:
    assert mg.config.read("jax_enable_x64") is True  # minigrad's default, unlike JAX's
    assert mg.config.jax_enable_x64 is True
    mg.config.update("jax_enable_x64", False)
    try:
        assert mg.config.read("jax_enable_x64") is False
        assert mnp.zeros(2).dtype == F32
    finally:
        mg.config.update("jax_enable_x64", True)
    assert mnp.zeros(2).dtype == F64


def test_flags_jax_programs_set_are_accepted() -> None:
    mg.config.update("jax_platform_name", "cpu")
    mg.config.update("jax_platforms", "cpu")
    mg.config.update("jax_default_matmul_precision", "highest")
    mg.config.config_with_absl()
    mg.config.update("jax_default_matmul_precision", None)
    assert "jax_enable_x64" in mg.config.flags()


@pytest.mark.parametrize("name, value, error, match", [
    ("jax_nonsense", True, AttributeError, "unrecognized config option 'jax_nonsense'"),
    ("jax_enable_x64", "yes", TypeError, "jax_enable_x64 must be a bool; got 'yes'"),
    ("jax_platform_name", "gpu", ValueError, "jax_platform_name must be one of"),
    ("jax_default_prng_impl", "rbg", ValueError, "jax_default_prng_impl must be one of"),
])
def test_bad_flags(name: str, value: object, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        mg.config.update(name, value)
    with pytest.raises(error, match=match):
        mg.config.override(name, value)


def test_block_is_per_thread_and_nests() -> None:
    seen = {}

    def other() -> None:
        seen["other"] = mnp.zeros(1).dtype

    with mg.enable_x64(False):
        assert mnp.zeros(1).dtype == F32
        t = threading.Thread(target=other)
        t.start()
        t.join()
        with mg.enable_x64(True):
            assert mnp.zeros(1).dtype == F64
        assert mnp.zeros(1).dtype == F32
    assert seen["other"] == F64  # the block set it for this thread only
    assert mnp.zeros(1).dtype == F64

    @mg.enable_x64(False)
    def made() -> np.dtype:
        return mnp.ones(1).dtype

    assert made() == F32


def test_environment_variable() -> None:
    code = "import minigrad as mg, minigrad.numpy as mnp; print(mnp.zeros(1).dtype, " \
           "mg.config.jax_enable_x64)"
    env = {**os.environ, "JAX_ENABLE_X64": "0"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["float32", "False"]
    env["JAX_ENABLE_X64"] = "maybe"
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert run.returncode != 0 and "JAX_ENABLE_X64 must be a boolean" in run.stderr


# What x64 off changes: (expression, dtype with x64 on, dtype with x64 off), the x64-off column
# recorded from JAX 0.10.2 with jax_enable_x64 off (test_x64_against_jax re-measures it).
X64_TABLE = [
    ("mnp.zeros(3)", F64, F32),
    ("mnp.ones((2, 2))", F64, F32),
    ("mnp.full(3, 1.5)", F64, F32),
    ("mnp.full(3, 2)", I64, I32),
    ("mnp.arange(5)", I64, I32),
    ("mnp.arange(0.0, 1.0, 0.25)", F64, F32),
    ("mnp.asarray(1.0)", F64, F32),
    ("mnp.asarray(1)", I64, I32),
    ("mnp.asarray([1.0, 2.0])", F64, F32),
    ("mnp.asarray(np.arange(3.0))", F64, F32),
    ("mnp.asarray(np.arange(3))", I64, I32),
    ("mnp.asarray(np.ones(2, np.float32))", F32, F32),
    ("mnp.add(np.ones(2, np.float32), 2.0)", F32, F32),
    ("mnp.add(np.ones(2, np.int32), 2)", I32, I32),
    ("mnp.add(np.ones(2, np.int32), 2.0)", F64, F32),
    ("mnp.multiply(np.ones(2), 2.0)", F64, F32),
    ("mnp.sin(np.arange(3))", F64, F32),
    ("mnp.mean(np.arange(3, dtype=np.int32))", F64, F32),
    ("mnp.divide(np.arange(3, dtype=np.int32), 2)", F64, F32),
    ("mnp.zeros_like(np.ones(2, np.float32))", F32, F32),
    ("mnp.where(np.array([True]), 1.0, 2.0)", F64, F32),
]
JAX_NAMES = {"mnp.": "jnp."}


@pytest.mark.parametrize("expr, on, off", X64_TABLE)
def test_x64_table(expr: str, on: np.dtype, off: np.dtype) -> None:
    assert eval(expr).dtype == on
    with mg.enable_x64(False), warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing here asks for a 64-bit dtype explicitly
        assert eval(expr).dtype == off


def test_x64_against_jax() -> None:
    pytest.importorskip("jax", reason="jax is not installed: the recorded table stands")
    exprs = [e.replace("mnp.", "jnp.") for e, _, _ in X64_TABLE]
    code = ("import numpy as np, jax, jax.numpy as jnp\n"
            f"for e in {exprs!r}:\n    print(eval(e).dtype)\n")
    env = {**os.environ, "JAX_ENABLE_X64": "0", "JAX_PLATFORMS": "cpu"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == [str(off) for _, _, off in X64_TABLE]


def test_requested_64_bit_dtype_warns_when_truncated() -> None:
    with mg.enable_x64(False):
        with pytest.warns(UserWarning, match="zeros: explicitly requested dtype float64"):
            out = mnp.zeros(2, dtype=np.float64)
        assert out.dtype == F32
        assert dtypes.canonicalize_dtype(np.int64) == I32
        assert dtypes.canonicalize_dtype(np.int8) == np.dtype(np.int8)
    assert mnp.zeros(2, dtype=np.float64).dtype == F64


@pytest.mark.parametrize("flag, bad, message", [
    ("jax_debug_nans", np.array([-1.0]), "invalid value \\(nan\\) encountered in log"),
    ("jax_debug_infs", np.array([0.0]), "invalid value \\(inf\\) encountered in log"),
])
def test_debug_flags_raise_on_the_first_bad_eager_value(flag: str, bad: np.ndarray,
                                                        message: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert np.isnan(mnp.log(np.array([-1.0]))).all()  # off: NumPy's answer
        with mg.config.override(flag, True):
            with pytest.raises(FloatingPointError, match=message):
                mnp.log(bad)
            mnp.log(np.array([1.0]))  # a good value passes
        mg.config.update(flag, True)
        try:
            with pytest.raises(FloatingPointError, match=message):
                mg.grad(lambda x: mnp.sum(mnp.log(x)))(bad)
        finally:
            mg.config.update(flag, False)
        mnp.log(bad)


def test_disable_jit_runs_the_function_op_by_op() -> None:
    seen: list[type] = []

    def f(x: np.ndarray) -> np.ndarray:
        seen.append(type(x))
        return x * 2

    g = mg.jit(f)
    with mg.config.override("jax_disable_jit", True):
        np.testing.assert_array_equal(g(np.ones(2)), [2.0, 2.0])
        g(np.ones(2))
    assert seen == [np.ndarray, np.ndarray]  # called each time, with the arrays themselves
    g(np.ones(2))
    g(np.ones(2))
    assert len(seen) == 3 and seen[2] is not np.ndarray  # traced once, then the program runs


@pytest.mark.filterwarnings("ignore:invalid value")
def test_debug_nans_under_jit_names_the_primitive() -> None:
    f = mg.jit(lambda x: mnp.log(x) * 2.0)
    f(np.array([1.0, 2.0]))  # (traced and cached before the flag)
    with mg.config.override("jax_debug_nans", True):
        with pytest.raises(FloatingPointError, match="log"):
            f(np.array([-1.0, 2.0]))
        np.testing.assert_allclose(f(np.array([1.0, 2.0])), [0.0, 2 * np.log(2.0)])
    assert np.isnan(f(np.array([-1.0, 2.0]))[0])  # flag off: NaN returned, as NumPy


def test_jit_keeps_a_program_per_x64_mode() -> None:
    h = mg.jit(lambda x: x + mnp.zeros(2))  # zeros' default dtype follows the flag
    assert h(np.ones(2)).dtype == np.float64
    with mg.enable_x64(False):
        assert h(np.ones(2)).dtype == np.float32  # (a float64 input enters as float32)
        assert h(np.ones(2, np.float32)).dtype == np.float32
    assert h(np.ones(2)).dtype == np.float64

"""Type promotion of the elementwise functions: NumPy 2's rules, everywhere.

* Every pair of dtypes (and every dtype with a weak Python scalar) through a set of ufuncs of
  each kind gives NumPy 2's result dtype (or NumPy's TypeError), with x64 on.
* With x64 off every result is the canonical (32-bit) form of that, and the dtypes are compared
  with JAX's (x64 off and on, when JAX is installed): each difference must be one of the
  documented kinds of docs/divergences.md, which ``jax_divergence`` names.
* Recorded expectations that need no JAX: NumPy 2's answers in the cases where JAX differs.
"""

from __future__ import annotations

import importlib.util
import warnings
from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg
import minigrad.numpy as mnp
from minigrad.dtypes import canonicalize_dtype

HAS_JAX = importlib.util.find_spec("jax") is not None
DTYPES = [np.dtype(t) for t in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                "uint32", "uint64", "float16", "float32", "float64",
                                "complex64", "complex128")]
SCALARS = [True, 3, 2.5, 1j]
BINARY = ["add", "subtract", "multiply", "divide", "floor_divide", "remainder", "power",
          "maximum", "arctan2", "hypot", "logaddexp", "copysign", "equal", "less",
          "logical_and", "bitwise_and", "left_shift", "fmax", "heaviside"]
UNARY = ["negative", "sqrt", "exp", "sin", "sign", "floor", "rint", "square", "isnan",
         "isfinite", "signbit", "logical_not", "invert", "cbrt", "exp2", "log2", "trunc",
         "positive", "deg2rad"]
# complex support is partial (docs/divergences.md): these refuse complex operands
NO_COMPLEX = {"maximum", "fmax", "floor_divide", "remainder", "arctan2", "hypot", "logaddexp",
              "copysign", "heaviside", "less", "sign", "floor", "rint", "trunc", "cbrt",
              "signbit", "log2", "deg2rad", "exp2"}


def outcome(fn: Callable[..., Any], *args: Any) -> str:
    """The result's dtype name, or the exception's kind."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = fn(*args)
            return str(out.dtype if hasattr(out, "dtype") else np.asarray(out).dtype)
        except TypeError:
            return "TypeError"
        except (ValueError, OverflowError) as e:
            return type(e).__name__


def operands(name: str, a: Any, b: Any = None) -> tuple:
    def one(d: Any) -> Any:
        return d if not isinstance(d, np.dtype) else np.ones(2, d)
    return (one(a),) if b is None and name in UNARY else (one(a), one(b))


def complex_refused(name: str, *case: Any) -> bool:
    return name in NO_COMPLEX and any(isinstance(c, complex) or getattr(c, "kind", "") == "c"
                                      for c in case)


def mismatches(name: str, cases: list[tuple], expected: Callable[..., str],
               x64: bool = True) -> list[tuple]:
    """The cases where our outcome differs from ``expected(*args)``."""
    found = []
    for case in cases:
        if complex_refused(name, *case):
            continue
        args = operands(name, *case)
        want = expected(*args)
        with mg.enable_x64(x64):
            got = outcome(getattr(mnp, name), *args)
        if got != want:
            found.append(([str(getattr(c, "name", c)) for c in case], got, want))
    return found


PAIRS = [(a, b) for a in DTYPES for b in DTYPES]
WITH_SCALARS = [(a, s) for a in DTYPES for s in SCALARS] + [(s, a) for a in DTYPES
                                                            for s in SCALARS]


@pytest.mark.parametrize("name", BINARY)
def test_pairs_of_dtypes_promote_as_numpy(name: str) -> None:
    assert mismatches(name, PAIRS, lambda *args: outcome(getattr(np, name), *args)) == []


@pytest.mark.parametrize("name", BINARY)
def test_python_scalars_are_weak(name: str) -> None:
    assert mismatches(name, WITH_SCALARS,
                      lambda *args: outcome(getattr(np, name), *args)) == []


@pytest.mark.parametrize("name", UNARY)
def test_unary_dtypes_are_numpys(name: str) -> None:
    assert mismatches(name, [(a,) for a in DTYPES],
                      lambda x: outcome(getattr(np, name), x)) == []


def test_result_type_is_numpys() -> None:
    for a in DTYPES:
        for b in [*DTYPES, *SCALARS]:
            assert mnp.result_type(a, b) == np.result_type(a, b)
            assert mnp.result_type(np.ones(1, a), b) == np.result_type(np.ones(1, a), b)
            if not isinstance(b, (bool, int, float, complex)):
                assert mnp.promote_types(a, b) == np.promote_types(a, b)


def _x64_off_expected(name: str) -> Callable[..., str]:
    # x64 off, a 64-bit array enters as its 32-bit twin (as in JAX), then NumPy's rule, then
    # the result's 32-bit form
    def expected(*args: Any) -> str:
        with mg.enable_x64(False):
            narrow = [np.asarray(a, canonicalize_dtype(a.dtype)) for a in args]
            out = outcome(getattr(np, name), *narrow)
            if out in ("TypeError", "ValueError", "OverflowError"):
                return out
            return str(canonicalize_dtype(np.dtype(out)))
    return expected


@pytest.mark.parametrize("name", ["add", "divide", "power", "equal", "arctan2"])
def test_x64_off_is_numpy_on_the_32_bit_forms(name: str) -> None:
    assert mismatches(name, PAIRS, _x64_off_expected(name), x64=False) == []


# --------------------------------------------------------------------------- recorded cases


def test_recorded_promotions() -> None:
    """NumPy 2's dtypes in the cases where JAX's differ (no JAX needed)."""
    f2, f4, f8 = (np.dtype(t) for t in ("float16", "float32", "float64"))
    cases = [  # (x, y, result dtype of add)
        (np.int16, np.float16, f4), (np.int32, np.float16, f8), (np.int64, np.float16, f8),
        (np.int32, np.float32, f8), (np.uint32, np.float32, f8), (np.uint64, np.float32, f8),
        (np.int64, np.complex64, np.dtype(np.complex128)), (np.int8, np.float16, f2),
        (np.int16, np.float32, f4), (np.bool_, np.int8, np.dtype(np.int8)),
        (np.uint8, np.int8, np.dtype(np.int16)), (np.uint32, np.int32, np.dtype(np.int64)),
        (np.uint64, np.int64, f8), (np.float64, np.complex64, np.dtype(np.complex128))]
    for x, y, want in cases:
        assert mnp.add(np.ones(1, x), np.ones(1, y)).dtype == want, (x, y)
    assert mnp.multiply(np.ones(2, np.float32), 2.0).dtype == f4
    assert mnp.add(np.ones(2, np.int8), 1).dtype == np.int8
    assert mnp.add(np.ones(2, np.int8), 1.5).dtype == f8
    assert mnp.add(np.ones(2, np.bool_), 1).dtype == np.int64
    assert mnp.add(np.ones(2, np.float16), 1j).dtype == np.complex64
    assert mnp.divide(np.ones(2, np.int8), np.ones(2, np.int8)).dtype == f8
    assert mnp.floor_divide(np.ones(2, bool), np.ones(2, bool)).dtype == np.int8
    assert mnp.power(np.ones(2, bool), np.ones(2, bool)).dtype == np.int8
    assert mnp.sqrt(np.ones(2, np.int8)).dtype == f2  # NumPy's loop for int8 is float16
    assert mnp.add(np.asarray(1), np.ones(2, np.int8)).dtype == np.int64  # 0-d arrays: strong
    assert mnp.add(np.float32(1), np.ones(2, np.float16)).dtype == f4  # NumPy scalars: strong
    assert mnp.add(np.ones(2, np.uint64), 2 ** 64 - 1).dtype == np.uint64
    with mg.enable_x64(False):
        assert mnp.add(np.ones(2, np.int32), np.ones(2, np.float32)).dtype == f4
        assert mnp.add(np.ones(2, np.int32), 1.5).dtype == f4
        assert mnp.divide(np.ones(2, np.int32), 2).dtype == f4
        assert mnp.add(np.ones(2), 1).dtype == f4  # a float64 input enters as float32


def test_bool_arithmetic_is_numpys() -> None:
    t = np.array([True, False])
    assert mnp.add(t, t).dtype == bool and mnp.multiply(t, t).dtype == bool
    assert mnp.maximum(t, t).dtype == bool
    with pytest.raises(TypeError, match="subtract: not supported for operands of bool and bool"):
        mnp.subtract(t, t)
    with pytest.raises(TypeError, match="negative: not supported for operands of bool"):
        mnp.negative(t)
    with pytest.raises(TypeError, match="negative"):
        mg.jit(lambda x: -x)(t)
    with pytest.raises(TypeError, match="positive"):
        mnp.positive(t)


def test_python_integers_out_of_range_raise_as_numpy() -> None:
    # NumPy 2 raises OverflowError; JAX wraps silently (int8 + 1000 gives -23)
    for x, s in ((np.ones(2, np.int8), 1000), (np.ones(2, np.uint8), 256),
                 (np.ones(2, np.uint8), -2), (np.ones(2, np.int32), 2 ** 40)):
        with pytest.raises(OverflowError, match="add: the Python integer"):
            mnp.add(x, s)
    np.testing.assert_array_equal(mnp.subtract(np.ones(2, np.uint8), 2), [255, 255])  # fits


def test_integer_powers_refuse_negative_exponents() -> None:
    for y in (-1, np.int64(-2), np.array(-1), np.array([1, -1])):
        with pytest.raises(ValueError, match="power: integers to negative integer powers"):
            mnp.power(np.array([2, 3]), y)
    np.testing.assert_array_equal(mnp.power(np.array([2.0]), -1), [0.5])


# --------------------------------------------------------------------------- against JAX


def jax_divergence(name: str, args: tuple, ours: str, theirs: str) -> str | None:
    """The documented kind of difference between our dtype and JAX's, or None."""
    dts = [np.asarray(x).dtype if not isinstance(x, (bool, int, float, complex)) else None
           for x in args]
    kinds = {d.kind for d in dts if d is not None}
    if theirs == "TypeError" or ours == "TypeError":
        if "c" in kinds or any(isinstance(x, complex) for x in args):
            return "complex"  # JAX takes complex operands where NumPy (and we) do not
        return "bool-refused" if kinds == {"b"} else None  # NumPy's positive(bool) raises
    o, t = np.dtype(ours), np.dtype(theirs)
    if kinds & {"i", "u"} and kinds & {"f", "c"}:
        return "int-with-float"  # NumPy: a float that holds the int; JAX: the float's width
    if kinds <= {"b", "i", "u"} and o.kind in "fc" and t.kind in "fc":
        return "int-to-inexact"  # NumPy's loop (float16 for 8 bits, float64 for divide)
    if kinds == {"b"} and o.kind == "i" and t.kind == "i":
        return "bool-to-int"  # bool // bool, bool ** bool, bool << bool: NumPy int8 (JAX
        # int32); bool ** 3: NumPy's default int (JAX int32)
    return None


# a function of each kind (JAX's dtype rules cost ~1 ms a call, even without compiling)
JAX_COMPARED = ["add", "divide", "floor_divide", "power", "arctan2", "equal", "maximum",
                "bitwise_and", "left_shift", "copysign", "sqrt", "negative", "positive",
                "sign", "rint", "square", "isnan", "invert", "exp2"]


@pytest.fixture(scope="module")
def jax_module() -> Any:
    if not HAS_JAX:
        pytest.skip("jax is not installed (pip install jax): the dtype comparison needs it")
    import jax

    return jax


@pytest.mark.parametrize("x64", [True, False], ids=["x64", "x32"])
def test_dtypes_against_jax(jax_module: Any, x64: bool) -> None:
    import jax.numpy as jnp

    unexplained = []
    for name in JAX_COMPARED:
        cases = ([(a,) for a in DTYPES] if name in UNARY else
                 [(a, b) for a in DTYPES for b in [*DTYPES, *SCALARS]])
        for case in cases:
            if any(isinstance(c, complex) or getattr(c, "kind", "") == "c" for c in case) \
                    and name in NO_COMPLEX:
                continue
            args = operands(name, *case)
            with mg.enable_x64(x64), jax_module.enable_x64(x64):
                ours = outcome(getattr(mnp, name), *args)
                # (eval_shape: JAX's dtype rule without compiling each combination)
                theirs = outcome(jax_module.eval_shape, getattr(jnp, name), *args)
            if ours != theirs and jax_divergence(name, args, ours, theirs) is None:
                unexplained.append((name, [str(getattr(c, "name", c)) for c in case], ours,
                                    theirs))
    assert unexplained == []

"""Bad input to the elementwise functions: each row is a call and what it must raise (the
exception type, and words its message must contain: the function and the argument at fault),
raised by minigrad before any work, never from inside NumPy and never an answer."""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg
from minigrad import numpy as mnp

MINIGRAD = Path(mg.__file__).resolve().parent
X = np.ones((2, 3))
V = np.ones(4)
INTS = np.array([1, 2, 3])
BOOLS = np.array([True, False])


@dataclass
class Row:
    id: str
    call: Callable[[], Any]
    error: type[BaseException]
    words: tuple[str, ...]


def row(id: str, call: Callable[[], Any], error: type[BaseException], *words: str) -> Row:
    return Row(id, call, error, words)


ROWS = [
    # shapes that do not broadcast: both shapes named, eagerly and under a transform
    row("add-shapes", lambda: mnp.add(X, V), ValueError, "add", "(2, 3)", "(4,)"),
    row("multiply-shapes-jit", lambda: mg.jit(mnp.multiply)(X, V), ValueError, "multiply",
        "(2, 3)", "(4,)"),
    row("logaddexp-shapes", lambda: mnp.logaddexp(X, V), ValueError, "logaddexp", "(4,)"),
    row("where-shapes", lambda: mnp.where(np.ones(5, bool), X, 0.0), ValueError, "where",
        "(5,)"),
    row("clip-shapes", lambda: mnp.clip(X, V, None), ValueError, "clip", "(4,)"),
    row("floor_divide-shapes", lambda: mnp.floor_divide(INTS, np.ones(2, int)), ValueError,
        "floor_divide", "(3,)", "(2,)"),
    row("operator-shapes", lambda: mg.grad(lambda a: (a + V).sum())(X), ValueError, "add"),
    # dtypes a function does not take
    row("bitwise_and-float", lambda: mnp.bitwise_and(X, X), TypeError, "bitwise_and",
        "float64"),
    row("left_shift-float", lambda: mnp.left_shift(X, 1), TypeError, "left_shift", "float64"),
    row("invert-float", lambda: mnp.invert(X), TypeError, "invert", "float64"),
    row("operator-and-float", lambda: mg.jit(lambda a: a & a)(X), TypeError, "bitwise_and"),
    row("subtract-bools", lambda: mnp.subtract(BOOLS, BOOLS), TypeError, "subtract", "bool"),
    row("negative-bool", lambda: mnp.negative(BOOLS), TypeError, "negative", "bool"),
    row("operator-neg-bool", lambda: mg.vmap(lambda a: -a)(BOOLS), TypeError, "negative"),
    row("sign-bool", lambda: mnp.sign(BOOLS), TypeError, "sign", "bool"),
    row("ldexp-float-exponent", lambda: mnp.ldexp(X, X), TypeError, "ldexp"),
    row("sin-string", lambda: mnp.sin(np.array(["a"])), TypeError, "sin"),
    row("add-object", lambda: mnp.add(object(), 1), TypeError, "add", "object"),
    row("arctan2-complex", lambda: mnp.arctan2(np.ones(2, complex), X[0, :2]), TypeError,
        "arctan2", "complex"),
    row("nan_to_num-complex", lambda: mnp.nan_to_num(np.ones(2, complex)), TypeError,
        "nan_to_num", "complex"),
    row("absolute-complex", lambda: mnp.absolute(np.ones(2, complex)), TypeError, "absolute",
        "complex"),
    # values NumPy refuses, where JAX answers silently
    row("add-int8-overflow", lambda: mnp.add(np.ones(2, np.int8), 1000), OverflowError, "add",
        "1000", "int8"),
    row("subtract-uint8-negative", lambda: mnp.subtract(np.ones(2, np.uint8), -1),
        OverflowError, "subtract", "-1", "uint8"),
    row("right_shift-negative-count", lambda: mnp.right_shift(np.ones(2, np.uint8), -1),
        OverflowError, "right_shift", "-1"),
    row("power-int-negative", lambda: mnp.power(INTS, -1), ValueError, "power", "negative",
        "-1"),
    row("power-int-negative-array", lambda: mnp.power(INTS, np.array([1, -2, 1])), ValueError,
        "power", "negative"),
    row("operator-pow-int-negative", lambda: mg.jit(lambda a: a ** -1)(INTS), ValueError,
        "power", "negative"),
    # arguments
    row("round-decimals-float", lambda: mnp.round(X, 1.5), TypeError, "round", "decimals",
        "1.5"),
    row("round-out", lambda: mnp.round(X, 0, X), TypeError, "round", "out"),
    row("modf-out", lambda: mnp.modf(X, X), TypeError, "modf", "out"),
    row("clip-no-array", lambda: mnp.clip(min=0, max=1), TypeError, "clip", "array"),
    row("where-x-only", lambda: mnp.where(X > 0, X), ValueError, "where", "both"),
    row("where-size", lambda: mnp.where(X > 0, X, X, size=3), ValueError, "where", "size"),
    row("isclose-equal_nan", lambda: mnp.isclose(X, X, equal_nan="yes"), TypeError, "isclose",
        "equal_nan"),
    row("astype-dtype", lambda: mnp.astype(X, "float99"), TypeError, "astype", "dtype"),
    row("astype-device", lambda: mnp.astype(X, np.float32, device="gpu"), ValueError, "astype",
        "device"),
    row("astype-copy", lambda: mnp.astype(X, np.float32, copy="no"), TypeError, "astype",
        "copy"),
    row("pow-modulus", lambda: mg.jit(lambda a: pow(a, 2, 3))(INTS), TypeError, "modulus"),
    row("result_type-empty", lambda: mnp.result_type(), ValueError, "result_type"),
    row("ufunc-on-tracer-out", lambda: mg.jit(lambda a: np.add(a, a, out=a))(X), TypeError,
        "numpy.add", "out"),
]


def raising_frame(e: BaseException) -> Path:
    return Path(traceback.extract_tb(e.__traceback__)[-1].filename).resolve()


@pytest.mark.parametrize("case", ROWS, ids=[r.id for r in ROWS])
def test_bad_input(case: Row) -> None:
    with pytest.raises(case.error) as info:
        case.call()
    assert type(info.value) is case.error, type(info.value)
    frame = raising_frame(info.value)
    assert MINIGRAD in frame.parents, f"raised from {frame}, not from minigrad"
    for word in case.words:
        assert word in str(info.value), f"{word!r} not in: {info.value}"


def test_ids_are_unique() -> None:
    ids = [r.id for r in ROWS]
    assert len(ids) == len(set(ids))

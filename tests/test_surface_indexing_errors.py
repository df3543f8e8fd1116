"""Bad input to the indexing family: each error names the function and the argument and says
what was expected (IndexError for indices, TypeError for kinds and dtypes, ValueError for
shapes, axes and modes); and the family's dtypes with x64 off (JAX's 32-bit world)."""

from __future__ import annotations

import importlib.util
from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg
import minigrad.numpy as mnp

X = np.arange(12.0).reshape(3, 4)
A = mnp.asarray(X)

ROWS: list[tuple[str, Callable[[], Any], type, str]] = [
    ("float index", lambda: mnp.getitem(X, 1.5), IndexError,
     r"getitem: indices must be integers.*got float"),
    ("float index array", lambda: mnp.getitem(X, np.array([0.5])), IndexError,
     r"getitem: indices must be integers.*dtype float64"),
    ("too many indices", lambda: mnp.getitem(X, (0, 0, 0)), IndexError,
     r"getitem: too many indices for an array of rank 2: 3"),
    ("two ellipses", lambda: mnp.getitem(X, (Ellipsis, Ellipsis)), IndexError,
     r"single ellipsis"),
    ("int out of range", lambda: mnp.getitem(X, (0, 4)), IndexError,
     r"getitem: index 4 is out of bounds for axis 1 with size 4"),
    ("arrays that do not broadcast", lambda: mnp.getitem(X, (np.array([0, 1]),
                                                             np.array([0, 1, 2]))),
     IndexError, r"getitem: the integer and boolean array indices must broadcast together; "
                 r"got shapes \(2,\), \(3,\)"),
    ("traced slice bound", lambda: mg.jit(lambda x, i: x[i:])(X, np.array(1)), IndexError,
     r"getitem: slice entries must be static integers"),
    ("take float indices", lambda: mnp.take(X, np.array([0.0])), TypeError,
     r"take: indices must be an integer array; got dtype float64"),
    ("take axis", lambda: mnp.take(X, np.array([0]), axis=2), ValueError,
     r"take: axis 2 is out of range for an array of rank 2"),
    ("take mode", lambda: mnp.take(X, np.array([0]), mode="nearest"), ValueError,
     r"take: mode must be None, 'raise'.*got 'nearest'"),
    ("take out", lambda: mnp.take(X, np.array([0]), out=np.zeros(1)), ValueError,
     r"take: out must be None"),
    ("take range", lambda: mnp.take(X, np.array([12])), IndexError,
     r"take: index 12 is out of bounds for axis 0 with size 12"),
    ("take_along_axis rank", lambda: mnp.take_along_axis(X, np.array([0]), 1), ValueError,
     r"take_along_axis: indices must have arr's rank 2; got shape \(1,\)"),
    ("take_along_axis shapes", lambda: mnp.take_along_axis(X, np.zeros((2, 1), int), 1),
     ValueError, r"take_along_axis: operands must broadcast.*\(3,\), \(2,\)"),
    ("take_along_axis range", lambda: mnp.take_along_axis(X, np.full((3, 1), 4), 1),
     IndexError, r"take_along_axis: index 4 is out of bounds for axis 1 with size 4"),
    ("at updates shape", lambda: A.at[0].set(np.ones(3)), ValueError,
     r"at\[\].set \(the updates against x\[key\]\): operands must broadcast.*\(3,\), \(4,\)"),
    ("at mode", lambda: A.at[0].add(1.0, mode="nearest"), ValueError,
     r"at\[\].add: mode must be"),
    ("at range", lambda: A.at[np.array([3])].multiply(2.0), IndexError,
     r"at\[\].multiply: index 3 is out of bounds for axis 0 with size 3"),
    ("at get range", lambda: A.at[:, 7].get(), IndexError,
     r"at\[\].get: index 7 is out of bounds for axis 1 with size 4"),
    ("put inplace", lambda: mnp.put(X, np.array([0]), 1.0), ValueError,
     r"put: minigrad arrays are immutable; pass inplace=False"),
    ("put_along_axis inplace", lambda: mnp.put_along_axis(X, np.zeros((3, 1), int), 1.0, 1),
     ValueError, r"put_along_axis: .*pass inplace=False"),
    ("nonzero traced", lambda: mg.jit(mnp.nonzero)(X), TypeError,
     r"nonzero: the result's shape depends on the values.*pass size="),
    ("nonzero 0-d", lambda: mnp.nonzero(np.array(1.0)), ValueError,
     r"nonzero: a must have at least one dimension"),
    ("nonzero fill_value", lambda: mnp.nonzero(X, size=2, fill_value=(0, 0, 0)), ValueError,
     r"nonzero: fill_value must be a scalar or one per axis \(2\); got 3"),
    ("traced mask", lambda: mg.vmap(lambda x: x[x > 2])(X), IndexError,
     r"getitem: a boolean index must be concrete.*data-dependent"),
    ("compress condition", lambda: mnp.compress(np.ones((2, 2), bool), X), ValueError,
     r"compress: condition must be 1-D; got shape \(2, 2\)"),
    ("compress too long", lambda: mnp.compress(np.ones(5, bool), X, axis=0), IndexError,
     r"compress: condition has 5 entries, more than axis 0's 3"),
    ("choose a dtype", lambda: mnp.choose(np.array([0.0]), [X]), TypeError,
     r"choose: a must be an integer array; got dtype float64"),
    ("choose range", lambda: mnp.choose(np.array([0, 2]), [np.zeros(2), np.ones(2)]),
     IndexError, r"choose: index 2 is out of bounds"),
    ("choose negative", lambda: mnp.choose(np.array([0, -1]), [np.zeros(2), np.ones(2)]),
     IndexError, r"choose: index -1 is out of bounds"),
    ("choose mode", lambda: mnp.choose(np.array([0]), [X], mode="fill"), ValueError,
     r"choose: mode must be 'raise', 'wrap' or 'clip'; got 'fill'"),
    ("select lengths", lambda: mnp.select([X > 0], [X, X]), ValueError,
     r"select: condlist and choicelist must have one length; got 1 and 2"),
    ("select condition dtype", lambda: mnp.select([X], [X]), TypeError,
     r"select: condlist\[0\] must be a bool array; got dtype float64"),
    ("ix_ rank", lambda: mnp.ix_(np.zeros((2, 2), int)), ValueError,
     r"ix_: each argument must be 1-D; argument 0 has shape \(2, 2\)"),
    ("ix_ dtype", lambda: mnp.ix_(np.zeros(2)), TypeError,
     r"ix_: arguments must be integer or bool; argument 0 has dtype float64"),
    ("unravel_index range", lambda: mnp.unravel_index(np.array([12]), (3, 4)), IndexError,
     r"unravel_index: index 12 is out of bounds for an array of size 12"),
    ("unravel_index dtype", lambda: mnp.unravel_index(np.array([1.0]), (3, 4)), TypeError,
     r"unravel_index: indices must be integers; got dtype float64"),
    ("ravel_multi_index range", lambda: mnp.ravel_multi_index((np.array([3]), np.array([0])),
                                                              (3, 4)), IndexError,
     r"ravel_multi_index: invalid entry in coordinates array"),
    ("ravel_multi_index traced range", lambda: mg.jit(lambda i, j: mnp.ravel_multi_index(
        (i, j), (3, 4)))(np.array([0]), np.array([4])), IndexError,
     r"ravel_multi_index: index entries must be in \[0, 4\) for dim 1; got 4"),
    ("ravel_multi_index count", lambda: mnp.ravel_multi_index((np.array([0]),), (3, 4)),
     ValueError, r"ravel_multi_index: multi_index must have one array per dimension \(2\)"),
    ("diag_indices_from", lambda: mnp.diag_indices_from(X), ValueError,
     r"diag_indices_from: arr must have at least 2 axes, all of one length; got shape"),
    ("tril_indices_from", lambda: mnp.tril_indices_from(np.zeros(3)), ValueError,
     r"tril_indices_from: arr must be 2-D; got shape \(3,\)"),
    ("where one of x, y", lambda: mnp.where(X > 0, X), ValueError,
     r"where: either both or neither of x and y must be given"),
]


@pytest.mark.parametrize("fn, error, pattern", [pytest.param(f, e, p, id=name)
                                                for name, f, e, p in ROWS])
def test_bad_input(fn: Callable[[], Any], error: type, pattern: str) -> None:
    with pytest.raises(error, match=pattern):
        fn()


def test_inputs_are_never_written() -> None:
    x = np.arange(5.0)
    before = x.copy()
    a = mnp.asarray(x)
    for method in ("set", "add", "multiply", "min", "max"):
        getattr(a.at[np.array([0, 0, 3])], method)(7.0)
    a.at[1:3].apply(lambda t: t * 2)
    mnp.put(x, np.array([1]), 9.0, inplace=False)
    np.testing.assert_array_equal(x, before)


# --------------------------------------------------------------------------- x64 off

# Expected dtypes with jax_enable_x64 off (JAX 0.10.2's, recorded; the test below re-derives
# them when JAX is installed).
X64_OFF = {
    "nonzero": "int32", "argwhere": "int32", "tril_indices": "int32", "indices": "int32",
    "take(f32)": "float32", "at.add(f32, python float)": "float32",
    "at.set(i32, 2.7)": "int32", "unravel_index": "int32", "choose(f32)": "float32",
}


def _x64_off_results(xnp: Any) -> dict[str, Any]:
    f32 = xnp.asarray(np.arange(4.0, dtype=np.float32))
    i32 = xnp.asarray(np.arange(4, dtype=np.int32))
    return {
        "nonzero": xnp.nonzero(f32)[0], "argwhere": xnp.argwhere(f32),
        "tril_indices": xnp.tril_indices(3)[0], "indices": xnp.indices((2, 2)),
        "take(f32)": xnp.take(f32, xnp.asarray(np.array([1, 2], np.int32))),
        "at.add(f32, python float)": f32.at[1].add(2.5), "at.set(i32, 2.7)": i32.at[1].set(2.7),
        "unravel_index": xnp.unravel_index(xnp.asarray(np.array([5], np.int32)), (2, 3))[0],
        "choose(f32)": xnp.choose(i32 % 2, [f32, f32]),
    }


def test_dtypes_with_x64_off() -> None:
    with mg.enable_x64(False):
        got = {k: np.asarray(v).dtype.name for k, v in _x64_off_results(mnp).items()}
    assert got == X64_OFF


@pytest.mark.skipif(importlib.util.find_spec("jax") is None,
                    reason="jax is not installed (pip install jax): the differential test needs it")
def test_x64_off_dtypes_are_jax_s() -> None:
    import jax
    import jax.numpy as jnp

    previous = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", False)
    try:
        theirs = {k: np.asarray(v).dtype.name for k, v in _x64_off_results(jnp).items()}
    finally:
        jax.config.update("jax_enable_x64", previous)
    assert theirs == X64_OFF

"""Bad input to the shape, joining, creation and dtype functions: a clear error naming the
function and the argument, raised before any work (eagerly and under a transform alike)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
from surface import bad_input_tests

import minigrad as mg
import minigrad.numpy as mnp

X = np.arange(6.0).reshape(2, 3)

ROWS: list[tuple[str, Callable[[Any], Any], type, str]] = [
    ("reshape size", lambda x: mnp.reshape(x, (4, 2)), ValueError,
     r"reshape: cannot reshape an array of shape \(2, 3\) into shape \(4, 2\)"),
    ("reshape two -1", lambda x: mnp.reshape(x, (-1, -1)), ValueError, "at most one -1"),
    ("reshape both names", lambda x: mnp.reshape(x, (3, 2), newshape=(3, 2)), TypeError,
     "give the new shape once"),
    ("reshape order", lambda x: mnp.reshape(x, (3, 2), order="F"), ValueError,
     "order must be 'C'"),
    ("reshape float shape", lambda x: mnp.reshape(x, (3.0, 2)), TypeError,
     "shape must be an int or a sequence of ints"),
    ("transpose not a permutation", lambda x: mnp.transpose(x, (0, 0)), ValueError,
     "axes must be distinct"),
    ("transpose too few", lambda x: mnp.transpose(x, (0,)), ValueError,
     r"axes must be a permutation of range\(2\)"),
    ("transpose axis out of range", lambda x: mnp.transpose(x, (0, 2)), np.exceptions.AxisError,
     "transpose: axis 2 is out of range"),
    ("moveaxis lengths", lambda x: mnp.moveaxis(x, (0, 1), 0), ValueError,
     "source and destination must have the same number of axes"),
    ("expand_dims out of range (IndexError too)", lambda x: mnp.expand_dims(x, 5), IndexError,
     "expand_dims: axis 5 is out of range for an array of rank 3"),
    ("squeeze a non-unit axis", lambda x: mnp.squeeze(x, 0), ValueError,
     "can only squeeze axes of size 1"),
    ("axis not an int", lambda x: mnp.flip(x, 1.5), TypeError,
     "flip: axis must be None, an int or a tuple of ints"),
    ("matrix_transpose of a vector", lambda x: mnp.matrix_transpose(x[0]), ValueError,
     "matrix_transpose: x must have at least 2 axes"),
    ("broadcast_to", lambda x: mnp.broadcast_to(x, (3, 3)), ValueError,
     r"broadcast_to: cannot broadcast shape \(2, 3\) to \(3, 3\)"),
    ("broadcast_arrays", lambda x: mnp.broadcast_arrays(x, x[:, :2]), ValueError,
     r"broadcast_arrays: .*got shapes \(2, 3\), \(2, 2\)"),
    ("concatenate nothing", lambda x: mnp.concatenate([]), ValueError,
     "concatenate: needs at least one array"),
    ("concatenate 0-d", lambda x: mnp.concatenate([x[0, 0], x[0, 1]]), ValueError,
     "zero-dimensional arrays cannot be concatenated"),
    ("concatenate shapes", lambda x: mnp.concatenate([x, x.T]), ValueError,
     "must agree in every axis but 0"),
    ("concatenate ranks", lambda x: mnp.concatenate([x, x[0]]), ValueError,
     "must have the same number of axes"),
    ("stack shapes", lambda x: mnp.stack([x, x.T]), ValueError,
     "stack: all arrays must have the same shape"),
    ("split unevenly", lambda x: mnp.split(x, 2, axis=1), ValueError,
     "does not split into 2 equal sections; use array_split"),
    ("split zero sections", lambda x: mnp.array_split(x, 0), ValueError,
     "number of sections must be positive"),
    ("tile negative", lambda x: mnp.tile(x, -1), ValueError, "tile: reps must be non-negative"),
    ("repeat negative", lambda x: mnp.repeat(x, -1), ValueError,
     "repeat: repeats must be a non-negative int"),
    ("repeat counts length", lambda x: mnp.repeat(x, [1, 2], axis=1), ValueError,
     "one count per element along axis 1"),
    ("pad mode", lambda x: mnp.pad(x, 1, mode="median"), ValueError, "pad: mode must be one of"),
    ("pad negative", lambda x: mnp.pad(x, -1), ValueError, "pad_width must be non-negative"),
    ("pad stray argument", lambda x: mnp.pad(x, 1, mode="edge", constant_values=2), TypeError,
     "mode 'edge' takes no argument"),
    ("roll lengths", lambda x: mnp.roll(x, (1, 2, 3), (0, 1)), ValueError,
     "shift and axis must have the same length"),
    ("diff negative n", lambda x: mnp.diff(x, -1), ValueError, "diff: n must be non-negative"),
    ("tril of a vector", lambda x: mnp.tril(x[0]), ValueError,
     "tril: the array must have at least 2 axes"),
    ("diag of 3-d", lambda x: mnp.diag(mnp.reshape(x, (1, 2, 3))), ValueError,
     "diag: v must be 1-D or 2-D"),
    ("diagonal same axes", lambda x: mnp.diagonal(x, 0, 1, 1), ValueError,
     "axis1 and axis2 must differ"),
    ("meshgrid indexing", lambda x: mnp.meshgrid(x[0], indexing="yx"), ValueError,
     "meshgrid: indexing must be 'xy' or 'ij'"),
    ("zeros negative", lambda x: mnp.zeros((2, -1)), ValueError,
     "zeros: shape must not have negative sizes"),
    ("zeros device", lambda x: mnp.zeros(2, device="gpu"), ValueError,
     "zeros: device must be minigrad's one device"),
    ("dtype not a dtype", lambda x: mnp.ones(2, dtype="nonsense"), TypeError,
     "ones: dtype must be a NumPy dtype or its name"),
    ("astype device", lambda x: mnp.astype(x, np.float32, device="tpu"), ValueError,
     "astype: device must be"),
    ("arange step 0", lambda x: mnp.arange(0, 5, 0), ValueError, "arange: step must not be zero"),
    ("linspace negative num", lambda x: mnp.linspace(0.0, 1.0, -2), ValueError,
     "linspace: num must be non-negative"),
]


test_eagerly, test_under_jit = bad_input_tests(ROWS, X)


def test_traced_shapes_are_refused() -> None:
    with pytest.raises(TypeError, match="arange: stop must be concrete"):
        mg.jit(lambda n: mnp.arange(0, n))(np.array(3))
    with pytest.raises(TypeError, match="repeat: repeats must be concrete"):
        mg.jit(lambda x, r: mnp.repeat(x, r))(X, np.array(2))


def test_copy_arguments() -> None:
    a = np.arange(6.0)
    assert np.shares_memory(mnp.asarray(a), a)
    assert not np.shares_memory(mnp.asarray(a, copy=True), a)
    with pytest.raises(ValueError, match="asarray: copy=False, but a copy is needed"):
        mnp.asarray([1.0, 2.0], copy=False)
    with pytest.raises(ValueError, match="asarray: copy=False, but a copy is needed"):
        mnp.asarray(a, dtype=np.float32, copy=False)
    assert np.shares_memory(mnp.asarray(a, copy=False), a)
    assert not np.shares_memory(mnp.reshape(a, (2, 3), copy=True), a)
    assert np.shares_memory(mnp.reshape(a, (2, 3), copy=False), a)
    with pytest.raises(ValueError, match="reshape: copy=False, but the result cannot be a view"):
        mnp.reshape(a.reshape(2, 3).T, 6, copy=False)
    assert not np.shares_memory(mnp.astype(a, np.float64, copy=True), a)
    assert mnp.array(a) is not a and not np.shares_memory(mnp.array(a), a)


def test_array_of_tracers_stacks() -> None:
    out = mg.grad(lambda x: mnp.sum(mnp.array([x[0] * 2.0, x[1], [x[2], 1.0]][2]) ))(np.ones(3))
    np.testing.assert_array_equal(out, [0.0, 0.0, 1.0])
    jac = mg.jacfwd(lambda x: mnp.array([[x[0], x[1]], [x[1] * 3.0, x[0]]]))(np.ones(2))
    assert jac.shape == (2, 2, 2) and jac[1, 0, 1] == 3.0

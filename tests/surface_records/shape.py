"""Records of the shape functions (minigrad/numpy/shape.py)."""

from __future__ import annotations

import numpy as np
from surface import Rec


def normal(*shapes):
    return lambda rng, dt: tuple(rng.standard_normal(s).astype(dt) for s in shapes)


RECORDS = [
    Rec("reshape", normal((2, 6)), kwargs={"shape": (3, 4)}),
    Rec("reshape", normal((2, 6)), kwargs={"shape": (-1, 3)}, tag="minus-one"),
    Rec("ravel", normal((2, 3))),
    Rec("transpose", normal((2, 3, 4)), kwargs={"axes": (1, 2, 0)}),
    Rec("transpose", normal((2, 3, 4)), tag="reversed"),
    Rec("permute_dims", normal((2, 3, 4)), kwargs={"axes": (2, 0, 1)}, ref=None),
    Rec("matrix_transpose", normal((5, 2, 3)), ref=None),
    Rec("moveaxis", normal((2, 3, 4)), kwargs={"source": 0, "destination": 2}),
    Rec("moveaxis", normal((2, 3, 4, 5)), kwargs={"source": (0, 1), "destination": (-1, 0)},
        tag="tuples"),
    Rec("swapaxes", normal((2, 3, 4)), kwargs={"axis1": 0, "axis2": -1}),
    Rec("squeeze", normal((2, 1, 3)), kwargs={"axis": 1}),
    Rec("squeeze", normal((1, 2, 1)), tag="all"),
    Rec("expand_dims", normal((2, 3)), kwargs={"axis": 1}),
    Rec("expand_dims", normal((2, 3)), kwargs={"axis": (0, -1)}, tag="tuple"),
    Rec("broadcast_to", normal((3,)), kwargs={"shape": (2, 3)}),
    Rec("broadcast_arrays", normal((3,), (2, 1))),
    Rec("atleast_1d", normal(())),
    Rec("atleast_2d", normal((3,))),
    Rec("atleast_3d", normal((2, 3))),
]
RECORDS += [
    Rec("permute_dims", normal((2, 3, 4)), kwargs={"axes": (2, 0, 1)},
        ref=lambda x, axes: np.permute_dims(x, axes), tag="numpy"),
    Rec("matrix_transpose", normal((5, 2, 3)), ref=lambda x: np.matrix_transpose(x),
        tag="numpy"),
]

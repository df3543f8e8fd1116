"""Records of the shape functions (minigrad/numpy/shape.py)."""

from __future__ import annotations

from surface import Rec


def normal(*shapes):
    return lambda rng, dt: tuple(rng.standard_normal(s).astype(dt) for s in shapes)


RECORDS = [
    Rec("reshape", normal((2, 6)), kwargs={"shape": (3, 4)}, ref=None, note="NumPy 2.1+ calls "
        "the second parameter shape; minigrad's reshape takes it positionally as newshape"),
    Rec("ravel", normal((2, 3))),
    Rec("transpose", normal((2, 3, 4)), kwargs={"axes": (1, 2, 0)}),
    Rec("moveaxis", normal((2, 3, 4)), kwargs={"source": 0, "destination": 2}),
    Rec("swapaxes", normal((2, 3, 4)), kwargs={"axis1": 0, "axis2": 2}),
    Rec("squeeze", normal((2, 1, 3)), kwargs={"axis": 1}),
    Rec("expand_dims", normal((2, 3)), kwargs={"axis": 1}),
    Rec("broadcast_to", normal((3,)), kwargs={"shape": (2, 3)}),
]

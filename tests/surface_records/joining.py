"""Records of joining, splitting, repeating and rearranging (minigrad/numpy/joining.py)."""

from __future__ import annotations

import numpy as np
from surface import Rec


def normal(*shapes):
    return lambda rng, dt: tuple(rng.standard_normal(s).astype(dt) for s in shapes)


RECORDS = [
    Rec("concatenate", normal((2, 3), (4, 3)), listarg=True, kwargs={}),
    Rec("concatenate", normal((2, 3), (2, 1)), listarg=True, kwargs={"axis": 1},
        tag="axis1"),
    Rec("stack", normal((2, 3), (2, 3), (2, 3)), listarg=True, kwargs={"axis": 1}),
    Rec("hstack", normal((2, 3), (2, 2)), listarg=True),
    Rec("vstack", normal((3,), (2, 3)), listarg=True),
    Rec("dstack", normal((2, 3), (2, 3)), listarg=True),
    Rec("column_stack", normal((3,), (3, 2)), listarg=True),
    Rec("split", normal((6, 2)), kwargs={"indices_or_sections": 3}),
    Rec("split", normal((2, 7)), kwargs={"indices_or_sections": [1, -2, 9], "axis": 1},
        tag="points", jax=False, note="NumPy counts a negative point from the end and clips "
        "points past the end; JAX raises"),
    Rec("split", normal((2, 7)), kwargs={"indices_or_sections": [1, 5], "axis": 1},
        tag="points-in-range"),
    Rec("array_split", normal((7, 2)), kwargs={"indices_or_sections": 3}),
    Rec("hsplit", normal((2, 4)), kwargs={"indices_or_sections": 2}),
    Rec("vsplit", normal((4, 2)), kwargs={"indices_or_sections": 2}),
    Rec("tile", normal((2, 3)), kwargs={"reps": (2, 1, 3)}),
    Rec("repeat", normal((2, 3)), kwargs={"repeats": 2, "axis": 1}),
    Rec("repeat", normal((2, 3)), kwargs={"repeats": np.array([1, 0, 3]), "axis": 1}, tag="counts"),
    Rec("repeat", normal((2, 3)), kwargs={"repeats": 2}, tag="flat"),
    Rec("flip", normal((2, 3, 4)), kwargs={"axis": (0, 2)}),
    Rec("flip", normal((2, 3)), tag="all"),
    Rec("fliplr", normal((2, 3))),
    Rec("flipud", normal((2, 3))),
    Rec("roll", normal((2, 5)), kwargs={"shift": 2, "axis": 1}),
    Rec("roll", normal((2, 5)), kwargs={"shift": -3}, tag="flat"),
    Rec("roll", normal((3, 5)), kwargs={"shift": (1, 7), "axis": (0, 1)}, tag="tuples"),
    Rec("rot90", normal((2, 3))),
    Rec("rot90", normal((2, 3, 4)), kwargs={"k": 3, "axes": (2, 0)}, tag="k3"),
    Rec("rot90", normal((2, 3)), kwargs={"k": 2}, tag="k2"),
    Rec("pad", normal((2, 3)), kwargs={"pad_width": ((1, 2), (0, 1))}),
    Rec("pad", normal((2, 3)), kwargs={"pad_width": 1, "constant_values": 1.5}, tag="value"),
    Rec("pad", normal((2, 3)), kwargs={"pad_width": ((1, 0), (2, 1)),
                                       "constant_values": ((1, 2), (3, 4))}, tag="values"),
    *[Rec("pad", normal((3, 4)), kwargs={"pad_width": ((2, 5), (3, 0)), "mode": mode},
          tag=mode) for mode in ("edge", "reflect", "symmetric", "wrap")],
    Rec("pad", normal((2,)), kwargs={"pad_width": 7, "mode": "reflect"}, tag="reflect-wide"),
    Rec("diff", normal((3, 5))),
    Rec("diff", normal((3, 5)), kwargs={"n": 2, "axis": 0, "append": 1.0}, tag="n2-append",
        dtypes=(np.dtype(np.float64),), note="float32: NumPy makes the Python float a float64 "
        "array first (float64 result); JAX keeps it weak (float32)"),
    Rec("unstack", normal((3, 2)), kwargs={"axis": 1}, ref=None),
    Rec("concat", normal((2, 3), (1, 3)), listarg=True, ref=None),
]
RECORDS += [
    Rec("concat", normal((2, 3), (1, 3)), listarg=True, ref=np.concatenate, tag="numpy"),
    Rec("dsplit", normal((2, 2, 4)), kwargs={"indices_or_sections": 2}),
    Rec("unstack", normal((3, 2)), kwargs={"axis": 1}, ref=lambda x, axis: np.unstack(x, axis=axis),
        tag="numpy"),
]

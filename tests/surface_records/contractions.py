"""Records of the contractions (minigrad/numpy/contractions.py)."""

from __future__ import annotations

from surface import Rec


def normal(*shapes):
    return lambda rng, dt: tuple(rng.standard_normal(s).astype(dt) for s in shapes)


RECORDS = [
    Rec("matmul", normal((2, 3), (3, 4))),
    Rec("matmul", normal((5, 2, 3), (3,)), tag="batched-vector"),
    Rec("dot", normal((3,), (3, 2))),
    Rec("vdot", normal((2, 3), (2, 3))),
]

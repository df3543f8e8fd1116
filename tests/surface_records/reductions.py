"""Records of the reductions (minigrad/numpy/reductions.py)."""

from __future__ import annotations

from surface import Rec


def normal(shape):
    return lambda rng, dt: (rng.standard_normal(shape).astype(dt),)


RECORDS = [
    *[Rec(n, normal((2, 3, 4)), kwargs=kw, tag=tag)
      for n in ("sum", "mean", "max")
      for tag, kw in [("", {}), ("axis1", {"axis": 1}), ("axis-1-keepdims",
                                                        {"axis": -1, "keepdims": True}),
                      ("axes02", {"axis": (0, 2)})]],
    Rec("cumsum", normal((3, 4)), kwargs={"axis": 1}),
    Rec("cumsum", normal((3, 4)), tag="flat"),
]

"""Records of the shape primitives beside the base ones: ``rev``."""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.ops.rev import rev_p
from minigrad.testing.samples import BOTH, OpRecord, normal


def _ref_rev(x: np.ndarray, *, dimensions: tuple) -> np.ndarray:
    out = x.copy()
    for d in dimensions:
        out = out[(slice(None),) * d + (slice(None, None, -1),)]
    return out


def _draw(shape: tuple) -> Any:
    return lambda rng, dt: (normal(rng, shape, dt),)


RECORDS = [
    OpRecord(rev_p, f"dims={dims}", _draw(shape), _ref_rev, {"dimensions": dims}, diff=(0,),
             linear=((0,),), dtypes=BOTH)
    for shape, dims in [((4,), (0,)), ((2, 3, 4), (0, 2)), ((3, 4), (1,)), ((0, 3), (0,))]
]

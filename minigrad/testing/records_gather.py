"""Op records of the indexing primitives in the form ``minigrad.lax.gather`` and the
``lax.scatter`` family bind them (``minigrad/lax/slicing_gather.py``): no new primitive, but
parameters and index patterns the NumPy-style records (``records_indexing.py``) do not draw,
so that ``python -m minigrad check`` covers the lowering too:

* windows: two broadcast index arrays, a start plus an iota along each window axis;
* whole windows out of bounds, their starts moved past the end, with ``wrap_negative=False``
  (FILL_OR_DROP: a gather fills every element of such a window, a scatter drops it);
* operand batching dims as an iota index over the batch (``take_along_axis``).

The references are the loops of ``records_indexing.py`` (one slot at a time, in order).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from minigrad.ops.gather import gather_p, scatter_add_p
from minigrad.ops.scatter import scatter_max_p, scatter_min_p, scatter_mul_p, scatter_p
from minigrad.testing.records_indexing import (
    ref_gather,
    ref_scatter,
    ref_scatter_add,
    ref_scatter_max,
    ref_scatter_min,
    ref_scatter_mul,
)
from minigrad.testing.samples import BOTH, F64, OpRecord, distinct, normal

X_SHAPE, WINDOW, N_WINDOWS = (5, 4), (2, 2), 3


def _windows(rng: np.random.Generator, fill: bool) -> tuple[np.ndarray, np.ndarray]:
    """Index arrays of shape (3, 2, 2) for 2x2 windows of a (5, 4) operand, as the lowering
    builds them: start + iota per axis. Rows start at 0, 2 or 3 (windows may overlap); with
    ``fill``, columns start in [-1, 4) and a window out of bounds has both starts moved to the
    axis size; else in [0, 3)."""
    rows = rng.choice([0, 2, 3], N_WINDOWS)
    cols = rng.integers(-1, 4, N_WINDOWS) if fill else rng.integers(0, 3, N_WINDOWS)
    bad = (cols < 0) | (cols > X_SHAPE[1] - WINDOW[1])
    rows, cols = np.where(bad, X_SHAPE[0], rows), np.where(bad, X_SHAPE[1], cols)
    i = rows[:, None, None] + np.arange(WINDOW[0])[None, :, None]
    j = cols[:, None, None] + np.arange(WINDOW[1])[None, None, :]
    shape = (N_WINDOWS, *WINDOW)
    return np.broadcast_to(i, shape).copy(), np.broadcast_to(j, shape).copy()


def _along(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """take_along_axis of a (3, 6) operand through an operand batching dim: an iota over the
    rows and 4 columns per row."""
    rows = np.broadcast_to(np.arange(3)[:, None], (3, 4)).copy()
    return rows, rng.integers(0, 6, (3, 4))


def _draw(indices: Callable[[np.random.Generator], tuple], x_shape: tuple,
          u_shape: tuple | None = None, values: Callable = normal) -> Callable:
    def make(rng: np.random.Generator, dt: np.dtype) -> tuple:
        idx = indices(rng)
        if u_shape is None:
            return (values(rng, x_shape, dt), *idx)
        if values is distinct:  # no ties anywhere, between x and updates either
            n = int(np.prod(x_shape))
            both = distinct(rng, (n + int(np.prod(u_shape)),), dt)
            return (both[:n].reshape(x_shape), both[n:].reshape(u_shape), *idx)
        return (values(rng, x_shape, dt), values(rng, u_shape, dt), *idx)

    return make


def _params(mode: str, **extra: Any) -> dict:
    return {"axes": (0, 1), "batch_dims": 0, "mode": mode, "wrap_negative": False, **extra}


def _gathers() -> list[OpRecord]:
    def rec(variant: str, make: Callable, params: dict) -> OpRecord:
        linear = ((0,),) if params["fill_value"] == 0 else ()
        return OpRecord(gather_p, variant, make, ref_gather, params, diff=(0,), linear=linear,
                        dtypes=BOTH)

    return [
        rec("lax-windows", _draw(lambda rng: _windows(rng, False), X_SHAPE),
            _params("raise", fill_value=0.0)),
        rec("lax-windows-fill", _draw(lambda rng: _windows(rng, True), X_SHAPE),
            _params("fill", fill_value=-2.5)),
        rec("lax-windows-fill0", _draw(lambda rng: _windows(rng, True), X_SHAPE),
            _params("fill", fill_value=0.0)),
        rec("lax-batching-iota", _draw(_along, (3, 6)), _params("raise", fill_value=0.0)),
    ]


def _scatters(prim: Any, reference: Callable, linear: tuple, values: Callable = normal
              ) -> list[OpRecord]:
    def rec(variant: str, make: Callable, params: dict) -> OpRecord:
        return OpRecord(prim, variant, make, reference, params, diff=(0, 1), linear=linear,
                        dtypes=(F64,))

    u_shape = (N_WINDOWS, *WINDOW)
    return [
        rec("lax-windows", _draw(lambda rng: _windows(rng, False), X_SHAPE, u_shape, values),
            _params("raise")),
        rec("lax-windows-drop", _draw(lambda rng: _windows(rng, True), X_SHAPE, u_shape,
                                      values), _params("fill")),
        rec("lax-batching-iota", _draw(_along, (3, 6), (3, 4), values), _params("raise")),
    ]


RECORDS: list[OpRecord] = [
    *_gathers(),
    *_scatters(scatter_add_p, ref_scatter_add, ((0, 1),)),
    *_scatters(scatter_p, ref_scatter, ((0, 1),)),
    *_scatters(scatter_mul_p, ref_scatter_mul, ((0,),)),
    *_scatters(scatter_min_p, ref_scatter_min, (), distinct),
    *_scatters(scatter_max_p, ref_scatter_max, (), distinct),
]

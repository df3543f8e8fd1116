"""Records of the primitives ``minigrad.lax``'s slicing and precision functions added
(``minigrad/ops/dynamic_slice.py``, ``minigrad/ops/reduce_precision.py``), each against a
reference written another way: the dynamic slices by a loop over the examples of the batch
dims, each window read with Python slices after clamping its starts with Python's ``min`` and
``max``; ``reduce_precision`` in the formats of the operand's own dtype (the identity).

Starts are drawn past both ends on purpose (the clamp is the semantics) and as int32, int64
and uint8 (an unsigned start is never negative).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from minigrad.ops.dynamic_slice import dynamic_slice_p, dynamic_update_slice_p
from minigrad.ops.reduce_precision import reduce_precision_p
from minigrad.testing.samples import BOTH, F64, OpRecord, normal


def _window(x_shape: tuple, starts: list[int], sizes: tuple) -> tuple:
    """Python slices of the window, each start clamped into ``[0, n - size]``."""
    return tuple(slice(max(0, min(int(s), n - z)), max(0, min(int(s), n - z)) + z)
                 for s, n, z in zip(starts, x_shape, sizes, strict=True))


def ref_dynamic_slice(x: np.ndarray, *starts: np.ndarray, slice_sizes: tuple, batch_dims: int
                      ) -> np.ndarray:
    batch = x.shape[:batch_dims]
    out = np.empty(batch + slice_sizes, x.dtype)
    for b in np.ndindex(*batch):
        out[b] = x[b][_window(x.shape[batch_dims:], [s[b] for s in starts], slice_sizes)]
    return out


def ref_dynamic_update_slice(x: np.ndarray, update: np.ndarray, *starts: np.ndarray,
                             batch_dims: int) -> np.ndarray:
    out = x.copy()
    for b in np.ndindex(*x.shape[:batch_dims]):
        key = _window(x.shape[batch_dims:], [s[b] for s in starts], update.shape[batch_dims:])
        out[b][key] = update[b]
    return out


def _draw(x_shape: tuple, batch_dims: int, update: tuple | None = None, dtype: Any = np.int64
          ) -> Callable:
    """(x, [update,] *starts): one start per axis after the batch dims, drawn in
    ``[-2, n + 2)`` (``[0, n + 2)`` unsigned): inside, past the end and before the start."""
    batch = x_shape[:batch_dims]

    def make(rng: np.random.Generator, dt: np.dtype) -> tuple:
        lo = 0 if np.dtype(dtype).kind == "u" else -2
        starts = tuple(rng.integers(lo, n + 2, batch).astype(dtype)
                       for n in x_shape[batch_dims:])
        if update is None:
            return (normal(rng, x_shape, dt), *starts)
        return (normal(rng, x_shape, dt), normal(rng, batch + update, dt), *starts)

    return make


def _slices() -> list[OpRecord]:
    def rec(variant: str, x_shape: tuple, sizes: tuple, batch_dims: int = 0,
            dtype: Any = np.int64, dtypes: tuple = (F64,)) -> OpRecord:
        return OpRecord(dynamic_slice_p, variant, _draw(x_shape, batch_dims, dtype=dtype),
                        ref_dynamic_slice, {"slice_sizes": sizes, "batch_dims": batch_dims},
                        diff=(0,), linear=((0,),), dtypes=dtypes)

    return [
        rec("1d", (6,), (3,), dtypes=BOTH),
        rec("2d-int32", (4, 5), (2, 3), dtype=np.int32),
        rec("3d-uint8", (3, 4, 2), (1, 4, 2), dtype=np.uint8),
        rec("empty-window", (4, 3), (0, 2)),
        rec("whole", (3, 2), (3, 2)),
        rec("batch-dims", (2, 5, 3), (2, 2), batch_dims=1),
        rec("two-batch-dims", (2, 3, 4), (3,), batch_dims=2),
        # whole trailing axes are read as slices by the impl, a whole leading one is not
        rec("batch-dims-whole-last", (2, 4, 3), (2, 3), batch_dims=1),
        rec("batch-dims-all-whole", (2, 3, 2), (3, 2), batch_dims=1),
        rec("batch-dims-whole-first", (2, 3, 4), (3, 2), batch_dims=1),
    ]


def _updates() -> list[OpRecord]:
    def rec(variant: str, x_shape: tuple, u_shape: tuple, batch_dims: int = 0,
            dtype: Any = np.int64, dtypes: tuple = (F64,)) -> OpRecord:
        return OpRecord(dynamic_update_slice_p, variant,
                        _draw(x_shape, batch_dims, u_shape, dtype), ref_dynamic_update_slice,
                        {"batch_dims": batch_dims}, diff=(0, 1), linear=((0, 1),),
                        dtypes=dtypes)

    return [
        rec("1d", (6,), (3,), dtypes=BOTH),
        rec("2d-int32", (4, 5), (2, 3), dtype=np.int32),
        rec("3d-uint8", (3, 4, 2), (1, 4, 1), dtype=np.uint8),
        rec("empty-update", (4, 3), (0, 2)),
        rec("whole", (3, 2), (3, 2)),
        rec("batch-dims", (2, 5, 3), (2, 2), batch_dims=1),
        rec("batch-dims-whole-last", (2, 4, 3), (2, 3), batch_dims=1),
    ]


def _normal_scaled(shape: tuple, exponents: tuple[int, int]) -> Callable:
    """Normal values scaled by powers of ten in ``exponents``."""
    def make(rng: np.random.Generator, dt: np.dtype) -> tuple:
        x = rng.standard_normal(shape) * 10.0 ** rng.integers(*exponents, shape)
        return (x.astype(dt),)
    return make


def _precision() -> list[OpRecord]:
    # The formats of the operand's own dtype: the identity, linear, so every rule is checked
    # exactly. A narrowing format's derivative is JAX's rounded identity, not the finite
    # differences of a step function: its values are checked against NumPy's float16 and
    # float32 conversions in tests/test_lax_errors.py and against JAX's bits in
    # tests/surface_records/lax_shapes.py.
    return [
        OpRecord(reduce_precision_p, "identity", _normal_scaled((3, 4), (-3, 3)),
                 lambda x, **p: x.copy(), {"exponent_bits": 11, "mantissa_bits": 52},
                 diff=(0,), linear=((0,),)),
        OpRecord(reduce_precision_p, "identity-f32", _normal_scaled((3, 4), (-3, 3)),
                 lambda x, **p: x.copy(), {"exponent_bits": 8, "mantissa_bits": 23},
                 diff=(0,), linear=((0,),), dtypes=(np.dtype(np.float32),)),
    ]


RECORDS: list[OpRecord] = [*_slices(), *_updates(), *_precision()]

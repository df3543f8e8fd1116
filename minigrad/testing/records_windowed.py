"""Records of the windowed reductions (``minigrad/ops/windowed.py``): ``reduce_window_sum``,
``reduce_window_max``, ``reduce_window_min``, ``select_and_gather_add`` and
``select_and_scatter_add``, each against a loop over output positions and window elements.

The loops read the operand through the window geometry directly (position ``o * stride + k *
window_dilation - lo`` of the dilated operand is element ``p // base_dilation`` when ``p`` is a
multiple of the dilation inside it, else a pad or a hole), independent of the impls' strided
views. Sums are drawn integral, so any order of addition is exact; max and min draw distinct
values (finite differences need no ties), the select pair draws ties on purpose (the first
element in window order wins).
"""

from __future__ import annotations

import operator
from typing import Any, Callable

import numpy as np

from minigrad.ops.windowed import (
    reduce_window_max_p,
    reduce_window_min_p,
    reduce_window_sum_p,
    select_and_gather_add_p,
    select_and_scatter_add_p,
)
from minigrad.testing.samples import BOTH, OpRecord, distinct, integral, normal


def _geometry(shape: tuple, params: dict) -> tuple[tuple, Callable[[tuple, tuple], Any]]:
    """The output shape, and ``element(o, k)``: the operand index window element ``k`` of
    output ``o`` reads, or None for a pad or a hole."""
    out_shape = []
    for n, k, s, (lo, hi), bd, wd in zip(shape, params["window_dimensions"],
                                         params["window_strides"], params["padding"],
                                         params["base_dilation"], params["window_dilation"],
                                         strict=True):
        length = (n - 1) * bd + 1 + lo + hi if n else lo + hi
        span = (k - 1) * wd + 1
        out_shape.append(max(0, (length - span) // s + 1))

    def element(o: tuple, k: tuple) -> tuple | None:
        index = []
        for oi, ki, n, s, (lo, _), bd, wd in zip(o, k, shape, params["window_strides"],
                                                 params["padding"], params["base_dilation"],
                                                 params["window_dilation"], strict=True):
            p = oi * s + ki * wd - lo
            if p < 0 or p % bd or p // bd >= n:
                return None
            index.append(p // bd)
        return tuple(index)

    return tuple(out_shape), element


def _ref_reduce(combine: Callable[[Any, Any], Any], init: float) -> Callable[..., np.ndarray]:
    def reference(x: np.ndarray, **params: Any) -> np.ndarray:
        out_shape, element = _geometry(x.shape, params)
        out = np.empty(out_shape, x.dtype)
        for o in np.ndindex(*out_shape):
            acc = x.dtype.type(init)
            for k in np.ndindex(*params["window_dimensions"]):
                at = element(o, k)
                if at is not None:
                    acc = combine(acc, x[at])
            out[o] = acc
        return out

    return reference


def _chosen(x: np.ndarray, select: str, element: Callable, o: tuple, window: tuple
            ) -> tuple | None:
    """The operand index XLA's select-and-scatter picks in a window, None for a pad or a hole
    (they hold -inf / +inf): scanning in row-major order, the pick moves on unless
    ``picked >= next`` (``<=`` for min). Without NaNs: the first maximal (minimal) element."""
    keep = operator.ge if select == "max" else operator.le
    best_value, best_at = None, None
    for k in np.ndindex(*window):
        at = element(o, k)
        value = x[at] if at is not None else (-np.inf if select == "max" else np.inf)
        if best_value is None or not keep(best_value, value):
            best_value, best_at = value, at
    return best_at


def ref_select_and_gather_add(t: np.ndarray, x: np.ndarray, *, select: str, **params: Any
                              ) -> np.ndarray:
    out_shape, element = _geometry(x.shape, params)
    out = np.zeros(out_shape, t.dtype)
    for o in np.ndindex(*out_shape):
        at = _chosen(x, select, element, o, params["window_dimensions"])
        if at is not None:
            out[o] = t[at]
    return out


def ref_select_and_scatter_add(source: np.ndarray, x: np.ndarray, *, select: str,
                               **params: Any) -> np.ndarray:
    out_shape, element = _geometry(x.shape, params)
    out = np.zeros(x.shape, source.dtype)
    for o in np.ndindex(*out_shape):
        at = _chosen(x, select, element, o, params["window_dimensions"])
        if at is not None:
            out[at] += source[o]
    return out


def _params(window: tuple, strides: tuple | None = None, padding: tuple | None = None,
            base: tuple | None = None, dilation: tuple | None = None) -> dict:
    n = len(window)
    return {"window_dimensions": window, "window_strides": strides or (1,) * n,
            "padding": padding or ((0, 0),) * n, "base_dilation": base or (1,) * n,
            "window_dilation": dilation or (1,) * n}


# (shape, params): every window holds at least one real element, so max and min are finite
GEOMETRIES = {
    "1d": ((7,), _params((3,))),
    "2d-stride-pad": ((5, 6), _params((2, 3), (2, 1), ((1, 0), (0, 2)))),
    "pool-2x2": ((2, 4, 4), _params((1, 2, 2), (1, 2, 2))),
    "base-dilation": ((4,), _params((3,), (1,), ((1, 1),), (2,))),
    "window-dilation": ((3, 7), _params((2, 2), (1, 2), ((0, 0), (0, 1)), None, (2, 2))),
    "negative-pad": ((6, 5), _params((2, 2), (2, 1), ((-1, 1), (1, -2)))),
    "dilations-3d": ((2, 5, 3), _params((1, 2, 2), (1, 2, 1), ((0, 0), (1, 0), (1, 1)),
                                        (1, 2, 1), (1, 1, 2))),
}


def _one(shape: tuple, draw: Callable) -> Callable:
    return lambda rng, dt: (draw(rng, shape, dt),)


def _ties(rng: np.random.Generator, shape: tuple, dtype: np.dtype) -> np.ndarray:
    """Values from {-1, 0, 1}: most windows hold ties."""
    return rng.integers(-1, 2, shape).astype(dtype)


def _select_make(shape: tuple, params: dict, scatter: bool) -> Callable:
    from minigrad.ops.windowed import window_out_shape

    def make(rng: np.random.Generator, dtype: np.dtype) -> tuple:
        if scatter:  # integral: the sums at a shared element are exact in any order
            return integral(rng, window_out_shape(shape, **params), dtype), _ties(rng, shape,
                                                                                 dtype)
        return normal(rng, shape, dtype), _ties(rng, shape, dtype)

    return make


RECORDS: list[OpRecord] = [
    *[OpRecord(reduce_window_sum_p, name, _one(shape, integral), _ref_reduce(operator.add, 0),
               params, diff=(0,), linear=((0,),), dtypes=BOTH if name == "1d" else (BOTH[0],))
      for name, (shape, params) in GEOMETRIES.items()],
    *[OpRecord(reduce_window_max_p, name, _one(shape, distinct), _ref_reduce(max, -np.inf),
               params, diff=(0,), dtypes=BOTH if name == "pool-2x2" else (BOTH[0],))
      for name, (shape, params) in GEOMETRIES.items()],
    *[OpRecord(reduce_window_min_p, name, _one(shape, distinct), _ref_reduce(min, np.inf),
               params, diff=(0,)) for name, (shape, params) in GEOMETRIES.items()
      if name in ("1d", "base-dilation", "negative-pad")],
    OpRecord(reduce_window_max_p, "int", lambda rng, dt: (rng.integers(-5, 5, (4, 5)),),
             _ref_reduce(max, np.iinfo(np.int64).min), _params((2, 2), None, ((1, 0), (0, 1))),
             out_dtype=np.dtype(np.int64)),
    *[OpRecord(select_and_gather_add_p, f"{select}-{name}", _select_make(shape, params, False),
               ref_select_and_gather_add, {"select": select, **params}, diff=(0,),
               linear=((0,),), dtypes=BOTH if name == "pool-2x2" else (BOTH[0],))
      for name, (shape, params) in GEOMETRIES.items() for select in ("max", "min")
      if select == "max" or name in ("1d", "negative-pad")],
    *[OpRecord(select_and_scatter_add_p, f"{select}-{name}", _select_make(shape, params, True),
               ref_select_and_scatter_add, {"select": select, **params}, diff=(0,),
               linear=((0,),), dtypes=BOTH if name == "pool-2x2" else (BOTH[0],))
      for name, (shape, params) in GEOMETRIES.items() for select in ("max", "min")
      if select == "max" or name in ("1d", "base-dilation")],
]

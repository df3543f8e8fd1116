"""Op records of the indexing family (``ops/gather.py``, ``ops/scatter.py``): gather and the
five scatters, over repeated and negative entries, several indexed axes, paired batch dims,
narrow and unsigned index dtypes, and each mode. The references are loops over the index
positions, written from the module docs' definitions (one slot at a time, in order)."""

from __future__ import annotations

from functools import partial
from typing import Any, Callable

import numpy as np

from minigrad.ops.gather import gather_p, scatter_add_p
from minigrad.ops.scatter import scatter_max_p, scatter_min_p, scatter_mul_p, scatter_p
from minigrad.testing.samples import BOTH, F64, OpRecord, distinct, normal


def _position(i: int, n: int, mode: str, wrap_negative: bool) -> int | None:
    """Where entry ``i`` lands on an axis of ``n`` (None: outside, in mode "fill")."""
    if mode == "wrap":
        return i % n
    if wrap_negative and i < 0:
        i += n
    if mode == "clip":
        return min(max(i, 0), n - 1)
    if not 0 <= i < n:
        assert mode == "fill", f"entry {i} out of range for size {n} in mode {mode}"
        return None
    return i


def _slots(x_shape: tuple, indices: tuple, axes: tuple, batch_dims: int, mode: str,
           wrap_negative: bool) -> Any:
    """For each index position p (in order): p, and the source coordinates of x with the rest
    axes left None (or None if the entry is dropped)."""
    for p in np.ndindex(*indices[0].shape):
        src: list[Any] = [None] * len(x_shape)
        src[:batch_dims] = p[:batch_dims]
        for index, a in zip(indices, axes, strict=True):
            src[a] = _position(int(index[p]), x_shape[a], mode, wrap_negative)
            if src[a] is None:
                break
        else:
            yield p, src
            continue
        yield p, None


def _rest(x_shape: tuple, axes: tuple, batch_dims: int) -> list[int]:
    return [a for a in range(batch_dims, len(x_shape)) if a not in axes]


def _with_rest(src: list, rest: list[int], r: tuple) -> tuple:
    out = list(src)
    for a, v in zip(rest, r, strict=True):
        out[a] = v
    return tuple(out)


def ref_gather(x: np.ndarray, *indices: np.ndarray, axes: tuple, batch_dims: int, mode: str,
               fill_value: Any, wrap_negative: bool) -> np.ndarray:
    rest = _rest(x.shape, axes, batch_dims)
    rest_shape = tuple(x.shape[a] for a in rest)
    out = np.empty(indices[0].shape + rest_shape, x.dtype)
    for p, src in _slots(x.shape, indices, axes, batch_dims, mode, wrap_negative):
        for r in np.ndindex(*rest_shape):
            out[p + r] = fill_value if src is None else x[_with_rest(src, rest, r)]
    return out


def _ref_scatter(combine: Callable[[Any, Any], Any], x: np.ndarray, updates: np.ndarray,
                 *indices: np.ndarray, axes: tuple, batch_dims: int, mode: str,
                 wrap_negative: bool) -> np.ndarray:
    out = x.copy()
    rest = _rest(x.shape, axes, batch_dims)
    for p, src in _slots(x.shape, indices, axes, batch_dims, mode, wrap_negative):
        if src is not None:
            for r in np.ndindex(*[x.shape[a] for a in rest]):
                at = _with_rest(src, rest, r)
                out[at] = combine(out[at], updates[p + r])
    return out


ref_scatter = partial(_ref_scatter, lambda old, new: new)  # in order: the last write stays
ref_scatter_add = partial(_ref_scatter, lambda old, new: old + new)
ref_scatter_mul = partial(_ref_scatter, lambda old, new: old * new)
ref_scatter_min = partial(_ref_scatter, min)
ref_scatter_max = partial(_ref_scatter, max)


# --------------------------------------------------------------------------- draws

def _index(rng: np.random.Generator, n: int, shape: tuple, dtype: Any = np.int64,
           lo: int | None = None, hi: int | None = None) -> np.ndarray:
    """Entries in [lo, hi) (default [-n, n): negatives count from the end), with the last
    repeating the first so repeated slots are always exercised."""
    index = rng.integers(-n if lo is None else lo, n if hi is None else hi, shape)
    if index.size >= 2:
        index.flat[-1] = index.flat[0]
    return index.astype(dtype)


def _out_shape(x_shape: tuple, ishape: tuple, axes: tuple, batch_dims: int) -> tuple:
    return ishape + tuple(x_shape[a] for a in _rest(x_shape, axes, batch_dims))


def _draw(x_shape: tuple, ishape: tuple, axes: tuple, batch_dims: int = 0, *,
          updates: bool = False, dtype: Any = np.int64, lo: int | None = None,
          hi: int | None = None, values: Callable = normal) -> Callable:
    """(x, [updates,] *indices): one index per axis in ``axes``, of shape ``ishape``."""
    full = x_shape[:batch_dims] + ishape

    def make(rng: np.random.Generator, dt: np.dtype) -> tuple:
        indices = tuple(_index(rng, x_shape[a], full, dtype, lo, hi) for a in axes)
        if not updates:
            return (values(rng, x_shape, dt), *indices)
        u_shape = _out_shape(x_shape, full, axes, batch_dims)
        if values is distinct:  # no ties anywhere, between x and updates either
            both = distinct(rng, (int(np.prod(x_shape)) + int(np.prod(u_shape)),), dt)
            x, u = both[:int(np.prod(x_shape))], both[int(np.prod(x_shape)):]
            return (x.reshape(x_shape), u.reshape(u_shape), *indices)
        return (values(rng, x_shape, dt), values(rng, u_shape, dt), *indices)

    return make


def _params(axes: tuple, batch_dims: int = 0, mode: str = "raise", wrap: bool = True,
            **extra: Any) -> dict:
    return {"axes": axes, "batch_dims": batch_dims, "mode": mode, "wrap_negative": wrap, **extra}


def _gathers() -> list[OpRecord]:
    def rec(variant: str, make: Callable, params: dict, dtypes: tuple = (F64,)) -> OpRecord:
        params = {"fill_value": 0.0, **params}  # (a nonzero fill makes the gather affine)
        return OpRecord(gather_p, variant, make, ref_gather, params, diff=(0,),
                        linear=((0,),) if params["fill_value"] == 0 else (), dtypes=dtypes)

    return [
        rec("axis1-neg-dup", _draw((3, 4), (5,), (1,)), _params((1,)), BOTH),
        rec("two-axes", _draw((3, 4, 2), (2, 3), (0, 2)), _params((0, 2))),
        rec("0d-index", _draw((3, 4), (), (0,)), _params((0,))),
        rec("batch_dims1", _draw((2, 4, 3), (5,), (1,), 1), _params((1,), 1), BOTH),
        rec("int8-index", _draw((3, 5), (4,), (1,), dtype=np.int8), _params((1,))),
        rec("uint16-index", _draw((6,), (4,), (0,), dtype=np.uint16, lo=0), _params((0,))),
        rec("clip", _draw((5, 2), (6,), (0,), lo=-9, hi=9), _params((0,), mode="clip")),
        rec("fill", _draw((5, 2), (6,), (0,), lo=-9, hi=9),
            _params((0,), mode="fill", fill_value=-7.5), BOTH),
        rec("wrap", _draw((5, 2), (6,), (0,), lo=-12, hi=12), _params((0,), mode="wrap")),
        rec("no-wrap-negative-fill", _draw((5,), (6,), (0,)),
            _params((0,), mode="fill", wrap=False)),
    ]


def _scatters(prim: Any, reference: Callable, linear: tuple, values: Callable = normal,
              dtypes: tuple = BOTH) -> list[OpRecord]:
    def rec(variant: str, make: Callable, params: dict, dt: tuple = (F64,)) -> OpRecord:
        return OpRecord(prim, variant, make, reference, params, diff=(0, 1), linear=linear,
                        dtypes=dt)

    return [
        rec("axis1-neg-dup", _draw((3, 4), (5,), (1,), updates=True, values=values),
            _params((1,)), dtypes),
        rec("two-axes", _draw((3, 4, 2), (2, 3), (0, 2), updates=True, values=values),
            _params((0, 2))),
        rec("batch_dims1", _draw((2, 4, 3), (5,), (1,), 1, updates=True, values=values),
            _params((1,), 1)),
        rec("uint8-index", _draw((5,), (4,), (0,), updates=True, dtype=np.uint8, lo=0,
                                 values=values), _params((0,))),
        rec("drop", _draw((5, 2), (6,), (0,), updates=True, lo=-9, hi=9, values=values),
            _params((0,), mode="fill")),
        rec("clip", _draw((5, 2), (6,), (0,), updates=True, lo=-9, hi=9, values=values),
            _params((0,), mode="clip")),
    ]


RECORDS: list[OpRecord] = [
    *_gathers(),
    *_scatters(scatter_add_p, ref_scatter_add, ((0, 1),)),
    *_scatters(scatter_p, ref_scatter, ((0, 1),)),
    *_scatters(scatter_mul_p, ref_scatter_mul, ((0,),)),
    *_scatters(scatter_min_p, ref_scatter_min, (), distinct),
    *_scatters(scatter_max_p, ref_scatter_max, (), distinct),
    OpRecord(scatter_add_p, "int", _draw((4,), (5,), (0,), updates=True,
                                          values=lambda rng, s, dt: rng.integers(-5, 5, s)),
             ref_scatter_add, _params((0,)), dtypes=(np.dtype(np.int64),)),
]

"""Records of the reduction, cumulative and sorting primitives (``ops/reductions.py``,
``ops/cumulative.py``, ``ops/sort.py``): appended to ``records.RECORDS``.

The references are loops over one element (or one line) at a time. Products and sums are of
small integers held as floats, so every order of multiplication gives the same bits; maxima,
minima, sorts and argmax move values without arithmetic. ``sort`` returns several arrays, so
its records check one output each, through ``fun`` (an op sample of the primitive).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from minigrad.ops.cumulative import cumlogsumexp_p, cummax_p, cummin_p, cumprod_p
from minigrad.ops.reductions import (
    argmax_p,
    argmin_p,
    reduce_and_p,
    reduce_min_p,
    reduce_or_p,
    reduce_prod_p,
)
from minigrad.ops.sort import sort_p
from minigrad.testing.samples import BOTH, F64, I32, I64, OpRecord, distinct, normal

BOOL = np.dtype(bool)


def _lines(x: np.ndarray, axis: int) -> Any:
    """Each index of ``x`` with ``axis`` dropped, and the line of ``x`` along ``axis``."""
    rest = [i for i in range(x.ndim) if i != axis]
    for idx in np.ndindex(*[x.shape[i] for i in rest]):
        where: list[Any] = list(idx)
        where.insert(axis, slice(None))
        yield tuple(where), x[tuple(where)]


def _ref_reduce(combine: Callable[[Any, Any], Any], dtype: Callable[[np.ndarray], np.dtype]
                ) -> Callable[..., np.ndarray]:
    def reference(x: np.ndarray, *, axes: tuple) -> np.ndarray:
        kept = [i for i in range(x.ndim) if i not in axes]
        out: dict[tuple, Any] = {}
        for idx in np.ndindex(x.shape):
            at = tuple(idx[i] for i in kept)
            out[at] = x[idx] if at not in out else combine(out[at], x[idx])
        result = np.empty([x.shape[i] for i in kept], dtype(x))
        for at, v in out.items():
            result[at] = v
        return result

    return reference


def _same(x: np.ndarray) -> np.dtype:
    return x.dtype


ref_reduce_min = _ref_reduce(lambda a, b: a if a <= b or a != a else b, _same)
ref_reduce_prod = _ref_reduce(lambda a, b: a * b, _same)
ref_reduce_and = _ref_reduce(lambda a, b: bool(a) and bool(b), lambda x: BOOL)
ref_reduce_or = _ref_reduce(lambda a, b: bool(a) or bool(b), lambda x: BOOL)


def _ref_arg(better: Callable[[Any, Any], bool]) -> Callable[..., np.ndarray]:
    """The first position whose value no later one beats; a NaN beats everything."""
    def reference(x: np.ndarray, *, axes: tuple, index_dtype: np.dtype) -> np.ndarray:
        (axis,) = axes
        out = np.empty([n for i, n in enumerate(x.shape) if i != axis], index_dtype)
        for where, line in _lines(x, axis):
            best = 0
            for k in range(1, len(line)):
                if line[best] == line[best]:  # (once a NaN is best, it stays)
                    if line[k] != line[k] or better(line[k], line[best]):
                        best = k
            out[tuple(w for w in where if not isinstance(w, slice))] = best
        return out

    return reference


def _ref_cumulative(step: Callable[[Any, Any], Any]) -> Callable[..., np.ndarray]:
    def reference(x: np.ndarray, *, axis: int, reverse: bool) -> np.ndarray:
        out = np.empty_like(x)
        for where, line in _lines(x, axis):
            order = range(len(line) - 1, -1, -1) if reverse else range(len(line))
            acc = None
            for k in order:
                acc = line[k] if acc is None else step(acc, line[k])
                out[where][k] = acc
        return out

    return reference


def _nan_max(a: Any, b: Any) -> Any:
    return a if a != a or a >= b else b


def _nan_min(a: Any, b: Any) -> Any:
    return a if a != a or a <= b else b


ref_cumprod = _ref_cumulative(lambda a, b: a * b)
ref_cummax = _ref_cumulative(_nan_max)
ref_cummin = _ref_cumulative(_nan_min)
ref_cumlogsumexp = _ref_cumulative(np.logaddexp)  # (NumPy's function, one pair at a time)


def _sort_key(values: list[Any]) -> tuple:
    # NaN after every number; ties keep input order (Python's sort is stable)
    return tuple((v != v, 0 if v != v else v) for v in values)


def ref_sort(*operands: np.ndarray, dimension: int, num_keys: int, output: int) -> np.ndarray:
    x = operands[output]
    out = np.empty_like(x)
    for where, _ in _lines(x, dimension):
        lines = [o[where] for o in operands]
        order = sorted(range(len(lines[0])),
                       key=lambda k: _sort_key([line[k] for line in lines[:num_keys]]))
        out[where] = lines[output][order]
    return out


def sort_output(*operands: Any, dimension: int, num_keys: int, output: int) -> Any:
    """One output of ``sort`` (a record checks one array at a time)."""
    return sort_p.bind(*operands, dimension=dimension, is_stable=True,
                       num_keys=num_keys)[output]


# --------------------------------------------------------------------------- draws


def _one(draw: Callable, shape: tuple) -> Callable:
    return lambda rng, dt: (draw(rng, shape, dt),)


def _with_ties(rng: np.random.Generator, shape: tuple, dtype: np.dtype) -> np.ndarray:
    """Values from a few levels: ties along every axis."""
    return rng.integers(-2, 3, shape).astype(dtype)


def _with_nans(rng: np.random.Generator, shape: tuple, dtype: np.dtype) -> np.ndarray:
    x = rng.standard_normal(shape).astype(dtype)
    x[rng.random(shape) < 0.3] = np.nan
    return x


def _zeros_in(rng: np.random.Generator, shape: tuple, dtype: np.dtype) -> np.ndarray:
    """Small integers with zeros: one in a line, two in another (the exact-product cases)."""
    x = rng.integers(1, 4, shape).astype(dtype) * rng.choice([-1, 1], shape)
    flat = x.reshape(-1, shape[-1])
    flat[0, 1] = 0
    if len(flat) > 1:
        flat[1, 0] = flat[1, -1] = 0
    return x


def _small(rng: np.random.Generator, shape: tuple, dtype: np.dtype) -> np.ndarray:
    """From +-0.5, 0.75, 1, 1.5: products of up to 14 are exact in float32 (mantissas are
    powers of 3) and stay near 1, where float32 finite differences of second derivatives work."""
    return (rng.choice([0.5, 0.75, 1.0, 1.5], shape) * rng.choice([-1, 1], shape)).astype(dtype)


def _bools(rng: np.random.Generator, shape: tuple, dtype: np.dtype) -> np.ndarray:
    return rng.random(shape) < 0.6


def _sort_operands(key_draws: list[Callable], others: list[Callable], shape: tuple
                   ) -> Callable:
    def make(rng: np.random.Generator, dtype: np.dtype) -> tuple:
        return tuple(d(rng, shape, dtype) for d in key_draws + others)

    return make


def _ints(rng: np.random.Generator, shape: tuple, dtype: np.dtype) -> np.ndarray:
    return rng.integers(-3, 4, shape).astype(I64)


def _reduction(prim: Any, variant: str, draw: Callable, shape: tuple, reference: Callable,
               axes: tuple, diff: bool = True, dtypes: tuple = (F64,),
               out_dtype: np.dtype | None = None, **params: Any) -> OpRecord:
    return OpRecord(prim, variant, _one(draw, shape), reference, {"axes": axes, **params},
                    diff=(0,) if diff else (), dtypes=dtypes, out_dtype=out_dtype)


def _cumulative(prim: Any, variant: str, draw: Callable, shape: tuple, reference: Callable,
                axis: int, reverse: bool, diff: bool = True, dtypes: tuple = (F64,),
                out_dtype: np.dtype | None = None) -> OpRecord:
    return OpRecord(prim, variant, _one(draw, shape), reference,
                    {"axis": axis, "reverse": reverse}, diff=(0,) if diff else (), dtypes=dtypes,
                    out_dtype=out_dtype)


def _sort(variant: str, make: Callable, dimension: int, num_keys: int, output: int,
          diff: tuple, linear: tuple = (), dtypes: tuple = (F64,),
          out_dtype: np.dtype | None = None) -> OpRecord:
    return OpRecord(sort_p, variant, make, ref_sort,
                    {"dimension": dimension, "num_keys": num_keys, "output": output},
                    diff=diff, linear=linear, dtypes=dtypes, out_dtype=out_dtype,
                    fun=sort_output)


RECORDS = [
    _reduction(reduce_min_p, "middle", distinct, (2, 3, 4), ref_reduce_min, (1,), dtypes=BOTH),
    _reduction(reduce_min_p, "all", distinct, (3, 4), ref_reduce_min, (0, 1)),
    _reduction(reduce_min_p, "nan", _with_nans, (3, 4), ref_reduce_min, (1,), diff=False),
    _reduction(reduce_min_p, "int", _ints, (3, 4), ref_reduce_min, (0,), diff=False,
               out_dtype=I64),
    _reduction(reduce_prod_p, "outer-axes", _small, (2, 3, 4), ref_reduce_prod, (0, 2),
               dtypes=BOTH),
    _reduction(reduce_prod_p, "zeros", _zeros_in, (3, 4), ref_reduce_prod, (1,)),
    _reduction(reduce_prod_p, "all-zeros", _zeros_in, (2, 3), ref_reduce_prod, (0, 1)),
    _reduction(reduce_prod_p, "int", _ints, (3, 4), ref_reduce_prod, (1,), diff=False,
               out_dtype=I64),
    _reduction(reduce_and_p, "rows", _bools, (3, 4), ref_reduce_and, (1,), diff=False,
               out_dtype=BOOL),
    _reduction(reduce_and_p, "all", _bools, (2, 3, 2), ref_reduce_and, (0, 2), diff=False,
               out_dtype=BOOL),
    _reduction(reduce_or_p, "rows", _bools, (3, 4), ref_reduce_or, (0,), diff=False,
               out_dtype=BOOL),
    _reduction(argmax_p, "ties", _with_ties, (3, 5), _ref_arg(lambda a, b: a > b), (1,),
               diff=False, dtypes=BOTH, out_dtype=I64, index_dtype=I64),
    _reduction(argmax_p, "nan-i32", _with_nans, (4, 3), _ref_arg(lambda a, b: a > b), (0,),
               diff=False, out_dtype=I32, index_dtype=I32),
    _reduction(argmin_p, "ties", _with_ties, (2, 3, 4), _ref_arg(lambda a, b: a < b), (2,),
               diff=False, dtypes=BOTH, out_dtype=I64, index_dtype=I64),
    _reduction(argmin_p, "nan", _with_nans, (3, 4), _ref_arg(lambda a, b: a < b), (1,),
               diff=False, out_dtype=I64, index_dtype=I64),
    _cumulative(cumprod_p, "forward", _small, (3, 4), ref_cumprod, 1, False, dtypes=BOTH),
    _cumulative(cumprod_p, "reverse-zeros", _zeros_in, (3, 5), ref_cumprod, 1, True),
    _cumulative(cumprod_p, "zeros-axis0", _zeros_in, (4, 3), ref_cumprod, 0, False),
    _cumulative(cumprod_p, "int", _ints, (3, 4), ref_cumprod, 1, False, diff=False,
                out_dtype=I64),
    _cumulative(cummax_p, "forward", normal, (3, 7), ref_cummax, 1, False, dtypes=BOTH),
    _cumulative(cummax_p, "reverse", normal, (6, 2), ref_cummax, 0, True),
    _cumulative(cummax_p, "nan", _with_nans, (3, 5), ref_cummax, 1, False, diff=False),
    _cumulative(cummin_p, "forward", normal, (2, 3, 5), ref_cummin, 2, False, dtypes=BOTH),
    _cumulative(cummin_p, "reverse", normal, (5, 3), ref_cummin, 0, True),
    _cumulative(cumlogsumexp_p, "forward", normal, (3, 6), ref_cumlogsumexp, 1, False),
    _cumulative(cumlogsumexp_p, "reverse", normal, (5, 2), ref_cumlogsumexp, 0, True),
    _sort("one-key", _sort_operands([normal], [], (3, 5)), 1, 1, 0, diff=(0,), dtypes=BOTH),
    _sort("axis0", _sort_operands([normal], [], (4, 3)), 0, 1, 0, diff=(0,)),
    _sort("values", _sort_operands([_with_ties], [normal], (3, 6)), 1, 1, 1, diff=(1,),
          linear=((1,),), dtypes=BOTH),
    _sort("indices", _sort_operands([_with_ties], [_ints], (3, 6)), 1, 1, 1, diff=(),
          out_dtype=I64),
    _sort("two-keys", _sort_operands([_with_ties, _with_ties], [normal], (2, 7)), 1, 2, 2,
          diff=(2,), linear=((2,),)),
    _sort("nan-keys", _sort_operands([_with_nans], [normal], (3, 5)), 1, 1, 1, diff=(1,),
          linear=((1,),)),
]

"""``sort``: a stable sort of several arrays together along one dimension (JAX's variadic
``lax.sort``), the primitive under ``sort``, ``argsort``, ``lexsort``, ``median``, ``unique`` ...

The first ``num_keys`` operands are the keys, compared lexicographically (the first key
first); every operand is permuted by the one permutation that sorts the keys, ties kept in
their input order. NaNs sort after every number, as in NumPy. ``argsort`` is ``sort`` of
``(x, iota)`` with one key.

Derivative: the permutation is piecewise constant, so each output element takes the tangent of
the input element it came from (with ties, exactly one: the stable order decides). The JVP
sorts the tangents as extra operands beside the keys, so it needs no gather. Sorting with
constant keys is linear in the other operands; its transpose puts each cotangent back where
its element came from, which is again a sort: by the permutation itself.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from minigrad.core import Primitive, ShapedArray, UndefPrimal, Zero, get_aval
from minigrad.ops import structural as st

sort_p = Primitive("sort")
sort_p.multiple_results = True


def sort(operands: Sequence[Any], dimension: int = -1, num_keys: int = 1) -> list[Any]:
    """The operands (arrays of one shape) permuted along ``dimension`` so that the first
    ``num_keys`` are in lexicographic order, stably; a list of the sorted operands."""
    operands = list(operands)
    ndim = get_aval(operands[0]).ndim
    dimension = int(dimension) % ndim if ndim else int(dimension)
    return sort_p.bind(*operands, dimension=dimension, is_stable=True, num_keys=int(num_keys))


def iota(shape: Sequence[int], dimension: int, dtype: Any) -> Any:
    """``0, 1, 2, ...`` along ``dimension``, broadcast to ``shape``."""
    shape = tuple(shape)
    return st.broadcast_in_dim(st.arange(0, shape[dimension], 1, dtype), shape, (dimension,))


@sort_p.def_impl
def _sort_impl(*operands: np.ndarray, dimension: int, is_stable: bool, num_keys: int
               ) -> list[np.ndarray]:
    x = operands[0]
    if len(operands) == 1:  # one key, nothing else to carry: NumPy's stable sort
        return [np.sort(x, axis=dimension, kind="stable")]
    if num_keys == 1:
        order = np.argsort(x, axis=dimension, kind="stable")
    else:  # lexsort's last key is its primary one, and it sorts along the last axis
        keys = [np.moveaxis(k, dimension, -1) for k in operands[:num_keys]]
        order = np.moveaxis(np.lexsort(keys[::-1], axis=-1), -1, dimension)
    return [np.take_along_axis(o, order, axis=dimension) for o in operands]


@sort_p.def_abstract_eval
def _sort_abstract_eval(*operands: ShapedArray, dimension: int, is_stable: bool, num_keys: int
                        ) -> list[ShapedArray]:
    shape = operands[0].shape
    if any(o.shape != shape for o in operands):
        raise ValueError(f"sort: operands must have one shape; got "
                         f"{', '.join(o.str_short() for o in operands)}")
    if not 1 <= num_keys <= len(operands):
        raise ValueError(f"sort: num_keys must be in [1, {len(operands)}]; got {num_keys}")
    if not 0 <= dimension < len(shape):
        raise ValueError(f"sort: dimension must be in [0, {len(shape)}); got {dimension}")
    return list(operands)


@sort_p.def_jvp
def _sort_jvp(primals: tuple, tangents: tuple, *, dimension: int, is_stable: bool,
              num_keys: int) -> tuple:
    # out_dot[k] = x_dot[perm[k]]: the tangents sorted beside the keys
    outs = sort_p.bind(*primals, dimension=dimension, is_stable=is_stable, num_keys=num_keys)
    moving = [i for i, t in enumerate(tangents) if not isinstance(t, Zero)]
    t_outs: list[Any] = [Zero(ShapedArray(get_aval(o).shape, t.aval.dtype))
                         if isinstance(t, Zero) else None for o, t in zip(outs, tangents,
                                                                            strict=True)]
    if moving:
        keys = list(primals[:num_keys])
        sorted_ = sort_p.bind(*keys, *[tangents[i] for i in moving], dimension=dimension,
                              is_stable=is_stable, num_keys=num_keys)
        for i, t in zip(moving, sorted_[num_keys:], strict=True):
            t_outs[i] = t
    return outs, t_outs


def permutation(keys: Sequence[Any], dimension: int, num_keys: int) -> Any:
    """The permutation that sorts ``keys`` stably: ``out[k]`` is the input position of the
    element that lands at ``k``."""
    shape = get_aval(keys[0]).shape
    positions = iota(shape, dimension, np.int64)
    return sort_p.bind(*keys[:num_keys], positions, dimension=dimension, is_stable=True,
                       num_keys=num_keys)[-1]


@sort_p.def_transpose
def _sort_transpose(cts: list, *operands: Any, dimension: int, is_stable: bool, num_keys: int
                    ) -> tuple:
    # ct_x[perm[k]] = ct[k]: sorting by perm undoes the sort (cotangents of the sorted keys,
    # which do not depend on the linear operands, contribute nothing)
    if any(isinstance(o, UndefPrimal) for o in operands[:num_keys]):
        raise TypeError("sort: transpose is defined only for the non-key operands; the keys "
                        "must be constant")
    linear = [i for i in range(num_keys, len(operands))
              if isinstance(operands[i], UndefPrimal) and not isinstance(cts[i], Zero)]
    out: list[Any] = [None] * len(operands)
    for i in range(num_keys, len(operands)):
        if isinstance(operands[i], UndefPrimal) and isinstance(cts[i], Zero):
            out[i] = cts[i]
    if linear:
        perm = permutation(operands[:num_keys], dimension, num_keys)
        back = sort_p.bind(perm, *[cts[i] for i in linear], dimension=dimension,
                           is_stable=True, num_keys=1)
        for i, ct in zip(linear, back[1:], strict=True):
            out[i] = ct
    return tuple(out)


@sort_p.def_batch
def _sort_batch(axis_size: int, vals: tuple, dims: tuple, *, dimension: int, is_stable: bool,
                num_keys: int) -> tuple:
    # every operand batched at one axis (an unbatched one broadcast to the front), the sorted
    # dimension moved past it if it comes after
    d = dims[0]
    if d is None or any(e != d for e in dims):
        vals = tuple(st.bdim_to_front(v, e, axis_size) for v, e in zip(vals, dims, strict=True))
        d = 0
    outs = sort_p.bind(*vals, dimension=dimension + (d <= dimension), is_stable=is_stable,
                       num_keys=num_keys)
    return outs, [d] * len(outs)


__all__ = ["iota", "permutation", "sort", "sort_p"]

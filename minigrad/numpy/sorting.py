"""Sorting and searching over the ``sort`` primitive: sort, argsort, lexsort, partition,
argpartition, searchsorted.

Every sort is stable (``stable=False`` is accepted and changes nothing) and puts NaN after
every number, as NumPy; ``descending=True`` reverses a stable ascending sort of the reversed
input, so equal elements keep their input order and NaNs come first. The derivative of a
sorted value is the tangent of the element it came from (one element per output, even with
ties). Indices are the default integer.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from minigrad.core import Tracer, get_aval
from minigrad.dtypes import default_int_dtype
from minigrad.numpy import fast_paths as fast
from minigrad.numpy.eager import canonical_real, eager
from minigrad.numpy.shape import ravel
from minigrad.numpy.util import ArrayLike, asarray, canonical_axes, dtype_arg, result_dtype
from minigrad.ops import elementwise as ew
from minigrad.ops import structural as st
from minigrad.ops.index_add import index_select
from minigrad.ops.rev import rev
from minigrad.ops.sort import iota
from minigrad.ops.sort import sort as sort_operands

__all__ = [  # what minigrad.numpy exports from here
    "argpartition", "argsort", "lexsort", "partition", "searchsorted", "sort",
]


def _sort_axis(a: ArrayLike, axis: int | None, fn: str) -> tuple[Any, int]:
    """The array (flattened for ``axis=None``) and its non-negative sort axis."""
    x = asarray(a)
    if axis is None:
        return ravel(x), 0
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise TypeError(f"{fn}: axis must be None or an int; got {axis!r}")
    ndim = get_aval(x).ndim
    if ndim == 0:
        raise np.exceptions.AxisError(f"{fn}: axis {axis} is out of range for an array of "
                                      f"rank 0 (use axis=None)")
    (ax,) = canonical_axes(axis, ndim, fn)
    return x, ax


def _check_sort_args(kind: Any, order: Any, stable: Any, descending: Any, fn: str) -> None:
    if kind is not None:
        raise TypeError(f"{fn}: kind is not supported (every sort is stable; use "
                        f"stable=True); got {kind!r}")
    if order is not None:
        raise TypeError(f"{fn}: order is not supported (arrays have no fields); got "
                        f"{order!r}")
    for name, value in (("stable", stable), ("descending", descending)):
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{fn}: {name} must be a bool; got {value!r}")


def _fast_sort(a: Any, axis: Any, descending: Any) -> bool:
    """Whether ``fast_paths`` sorts ``a``: eagerly, ascending, along one axis of a concrete
    array (``_sort_axis`` then binds nothing)."""
    return (not descending and canonical_real(a) and (axis is not None or a.ndim == 1)
            and eager())


def _fast_axis(a: Any, axis: Any, fn: str) -> int:
    """``_sort_axis``'s axis (and errors), the common int axis read directly."""
    if type(axis) is int and -a.ndim <= axis < a.ndim:
        return axis % a.ndim
    return _sort_axis(a, axis, fn)[1]


def sort(a: ArrayLike, axis: int | None = -1, *, kind: None = None, order: None = None,
         stable: bool = True, descending: bool = False) -> Any:
    """A sorted copy of ``a`` along ``axis`` (flattened if None); NaNs last (first with
    ``descending``). The array API's ``sort(x, /, *, axis, descending, stable)`` too."""
    _check_sort_args(kind, order, stable, descending, "sort")
    if _fast_sort(a, axis, descending):
        return fast.sort(a, _fast_axis(a, axis, "sort"))
    x, ax = _sort_axis(a, axis, "sort")
    (out,) = sort_operands([x], ax)
    return rev(out, (ax,)) if descending else out


def _index_dtype(dtype: Any) -> np.dtype:
    index_dtype = default_int_dtype() if dtype is None else dtype_arg(dtype, "argsort")
    if index_dtype.kind not in "iu":
        raise TypeError(f"argsort: dtype must be an integer dtype; got {index_dtype}")
    return index_dtype


def argsort(a: ArrayLike, axis: int | None = -1, *, kind: None = None, order: None = None,
            stable: bool = True, descending: bool = False, dtype: Any = None) -> Any:
    """The indices that sort ``a`` along ``axis``, stably (equal elements in input order,
    also with ``descending``); the default integer unless ``dtype`` says otherwise."""
    _check_sort_args(kind, order, stable, descending, "argsort")
    if _fast_sort(a, axis, descending):
        ax = _fast_axis(a, axis, "argsort")
        return fast.argsort(a, ax, _index_dtype(dtype))
    x, ax = _sort_axis(a, axis, "argsort")
    index_dtype = _index_dtype(dtype)
    positions = iota(get_aval(x).shape, ax, index_dtype)
    if descending:  # reversed in, reversed out: ties stay in input order
        _, index = sort_operands([rev(x, (ax,)), rev(positions, (ax,))], ax)
        return rev(index, (ax,))
    return sort_operands([x, positions], ax)[1]


def lexsort(keys: Sequence[ArrayLike] | Any, axis: int = -1) -> Any:
    """The indices that sort by several keys: the last key first, ties broken by the one
    before it, and so on (NumPy's order); a 2-D array's rows are the keys."""
    if isinstance(keys, (tuple, list)):
        arrays = [asarray(k) for k in keys]
    else:
        stacked = asarray(keys)
        if get_aval(stacked).ndim == 0:
            raise TypeError("lexsort: keys must be a sequence of arrays or an array of rank "
                            ">= 1; got a 0-d array")
        arrays = [stacked[i] for i in range(get_aval(stacked).shape[0])]  # type: ignore[index]
    if not arrays:
        raise TypeError("lexsort: keys must hold at least one key; got none")
    shapes = {get_aval(k).shape for k in arrays}
    if len(shapes) != 1:
        raise ValueError(f"lexsort: all keys must have one shape; got shapes "
                         f"{[get_aval(k).shape for k in arrays]}")
    x, ax = _sort_axis(arrays[0], axis, "lexsort")
    positions = iota(get_aval(x).shape, ax, default_int_dtype())
    return sort_operands([*arrays[::-1], positions], ax, num_keys=len(arrays))[-1]


def _kth(kth: Any, n: int, fn: str) -> int:
    if not isinstance(kth, (int, np.integer)) or isinstance(kth, bool):
        raise TypeError(f"{fn}: kth must be an int (a sequence of kth is not supported); got "
                        f"{kth!r}")
    if not -n <= kth < n:
        raise ValueError(f"{fn}: kth must be in [{-n}, {n}) for an axis of size {n}; got "
                         f"{kth}")
    return int(kth) % n


def _along(x: Any, axis: int, start: int, stop: int) -> Any:
    shape = get_aval(x).shape
    return st.slice_array(x, [start if i == axis else 0 for i in range(len(shape))],
                          [stop if i == axis else n for i, n in enumerate(shape)])


def partition(a: ArrayLike, kth: int, axis: int = -1) -> Any:
    """``a`` with its ``kth`` smallest element at position ``kth``, the smaller ones before
    it in ascending order and the larger ones after it in descending order (JAX's order;
    NumPy leaves both sides in an unspecified order)."""
    x, ax = _sort_axis(a, axis, "partition")
    n = get_aval(x).shape[ax]
    k = _kth(kth, n, "partition")
    (s,) = sort_operands([x], ax)
    return st.concatenate([_along(s, ax, 0, k + 1), rev(_along(s, ax, k + 1, n), (ax,))], ax)


def argpartition(a: ArrayLike, kth: int, axis: int = -1) -> Any:
    """The indices that partition ``a`` (see ``partition``): the ``kth + 1`` smallest in
    ascending order of value, then the others in ascending order of index (JAX's order)."""
    x, ax = _sort_axis(a, axis, "argpartition")
    n = get_aval(x).shape[ax]
    k = _kth(kth, n, "argpartition")
    order = argsort(x, ax)
    (rest,) = sort_operands([_along(order, ax, k + 1, n)], ax)
    return st.concatenate([_along(order, ax, 0, k + 1), rest], ax)


_METHODS = ("scan", "scan_unrolled", "sort", "compare_all")


def searchsorted(a: ArrayLike, v: ArrayLike, side: str = "left", sorter: ArrayLike | None = None,
                 *, method: str = "scan") -> Any:
    """Where each element of ``v`` would go in the sorted 1-D ``a`` to keep it sorted:
    before equal elements (``side='left'``) or after them (``'right'``). The array API's
    ``searchsorted(x1, x2, /, *, side, sorter)`` too.

    Eagerly this is NumPy's binary search; traced (jit, vmap) it sorts ``a`` and ``v``
    together and counts, with the same result (``method`` is accepted; all give it).
    """
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right'; got {side!r}")
    if method not in _METHODS:
        raise ValueError(f"searchsorted: method must be one of {_METHODS}; got {method!r}")
    arr, values = asarray(a), asarray(v)
    if get_aval(arr).ndim != 1:
        raise ValueError(f"searchsorted: a must be 1-D; got shape {get_aval(arr).shape}")
    if sorter is not None:
        order = asarray(sorter)
        if get_aval(order).dtype.kind not in "iu" or get_aval(order).shape != \
                get_aval(arr).shape:
            raise TypeError(f"searchsorted: sorter must be an integer array of a's shape "
                            f"{get_aval(arr).shape}; got {get_aval(order).str_short()}")
        arr = index_select(arr, 0, order)
    dtype = result_dtype(arr, v)  # (a Python scalar v is weak: it takes a's dtype)
    arr = ew.convert_element_type(arr, dtype)
    flat = ew.convert_element_type(st.reshape(values, (get_aval(values).size,)), dtype)
    shape = get_aval(values).shape
    if not isinstance(arr, Tracer) and not isinstance(flat, Tracer):
        found = np.searchsorted(np.asarray(arr), np.asarray(flat),
                                side="left" if side == "left" else "right")
        return asarray(found.astype(default_int_dtype()).reshape(shape))
    return st.reshape(_count_before(arr, flat, side), shape)


def _count_before(arr: Any, flat: Any, side: str) -> Any:
    """For each of ``flat``, the number of elements of ``arr`` before it: ``arr`` and
    ``flat`` sorted together, ties broken so a value goes before (left) or after (right) the
    equal elements of ``arr``; a running count of ``arr``'s elements, put back in order."""
    n, m = get_aval(arr).shape[0], get_aval(flat).shape[0]
    int_dtype = default_int_dtype()
    keys = st.concatenate([arr, flat], 0)
    first, second = (1, 0) if side == "left" else (0, 1)
    tie = st.concatenate([st.full((n,), first, np.int8), st.full((m,), second, np.int8)], 0)
    from_arr = st.concatenate([st.full((n,), 1, int_dtype), st.full((m,), 0, int_dtype)], 0)
    _, _, from_arr_sorted, perm = sort_operands([keys, tie, from_arr,
                                                 iota((n + m,), 0, int_dtype)], 0, num_keys=2)
    counts = st.cumsum(from_arr_sorted, 0)
    _, counts_back = sort_operands([perm, counts], 0)  # sorted by perm: input order again
    return _along(counts_back, 0, n, n + m)

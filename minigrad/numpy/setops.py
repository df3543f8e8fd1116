"""Unique values and set operations over the ``sort`` primitive: unique (and the array API's
unique_values, unique_counts, unique_inverse, unique_all), isin, intersect1d, union1d,
setdiff1d, setxor1d.

The number of results depends on the values, so eagerly (and under grad, whose values are
known) the result is as long as NumPy's; under jit and vmap the length must be given with
``size=``: the first ``size`` results, padded with ``fill_value`` (JAX's defaults: the smallest
value for unique, union1d, intersect1d and setxor1d, 0 for setdiff1d). Without ``size`` a
traced input is a clear error. Everything is sorts and their permutations: values are sorted,
the first of each run of equal values is kept, and "the first K kept positions" is again a
stable sort (by "not kept"). The derivative of the values flows to the element each one was
taken from (the first occurrence).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from minigrad.core import Tracer, get_aval
from minigrad.dtypes import default_int_dtype
from minigrad.numpy.shape import moveaxis, ravel
from minigrad.numpy.sorting import searchsorted
from minigrad.numpy.util import ArrayLike, asarray, canonical_axes, result_dtype
from minigrad.ops import elementwise as ew
from minigrad.ops import reductions as red
from minigrad.ops import structural as st
from minigrad.ops.index_add import index_select
from minigrad.ops.sort import iota
from minigrad.ops.sort import sort as sort_operands

__all__ = [  # what minigrad.numpy exports from here
    "intersect1d", "isin", "setdiff1d", "setxor1d", "union1d", "unique", "unique_all",
    "unique_counts", "unique_inverse", "unique_values",
]


class UniqueAllResult(NamedTuple):
    values: Any
    indices: Any
    inverse_indices: Any
    counts: Any


class UniqueCountsResult(NamedTuple):
    values: Any
    counts: Any


class UniqueInverseResult(NamedTuple):
    values: Any
    inverse_indices: Any


# --------------------------------------------------------------------------- building blocks


def _int(x: Any) -> Any:
    return ew.convert_element_type(x, default_int_dtype())


def _count(mask: Any, size: int | None, fn: str) -> tuple[Any, int]:
    """The number of True entries (an array) and the result length: ``size``, or that number
    itself if it is known (eagerly, or under grad), else an error."""
    count = st.reduce_sum(_int(mask), (0,))
    if size is not None:
        if isinstance(size, Tracer) or not isinstance(size, (int, np.integer)) or \
                isinstance(size, bool) or size < 0:
            raise TypeError(f"{fn}: size must be a non-negative Python int; got {size!r}")
        return count, int(size)
    value = count.concrete() if isinstance(count, Tracer) else np.asarray(count)
    if value is None:
        raise TypeError(f"{fn}: the number of results depends on the values, which are not "
                        f"known under jit or vmap; pass size= (and fill_value=) to fix the "
                        f"result's length")
    return count, int(value)


def _first_true(mask: Any, length: int) -> Any:
    """The positions of the True entries of the 1-D ``mask`` in order, as ``length`` entries
    (beyond the True ones: the other positions, to be masked by the caller, then 0)."""
    n = get_aval(mask).shape[0]
    not_kept = ew.convert_element_type(ew.eq(mask, st.full((n,), False, np.bool_)), np.int8)
    _, positions = sort_operands([not_kept, iota((n,), 0, default_int_dtype())], 0)
    if length <= n:
        return st.slice_array(positions, (0,), (length,))
    return st.concatenate([positions, st.full((length - n,), 0, default_int_dtype())], 0)


def _not(mask: Any) -> Any:
    return ew.eq(mask, st.full(get_aval(mask).shape, False, np.bool_))


def _and(a: Any, b: Any) -> Any:
    return ew.select(a, b, st.full(get_aval(a).shape, False, np.bool_))


def _valid(count: Any, length: int) -> Any:
    return ew.lt(iota((length,), 0, default_int_dtype()),
                 st.broadcast_to(count, (length,)))


def _take(x: Any, positions: Any) -> Any:
    """``x[positions]`` along axis 0 (positions in range)."""
    return index_select(x, 0, positions)


def _fill(values: Any, valid: Any, fill: Any) -> Any:
    """``values`` where ``valid`` (along axis 0), else ``fill`` (an array broadcast)."""
    shape = get_aval(values).shape
    mask = st.broadcast_in_dim(valid, shape, (0,))
    return ew.select(mask, values, st.broadcast_to(ew.convert_element_type(
        asarray(fill), get_aval(values).dtype), shape))


def _runs(columns: list[Any], equal_nan: bool) -> tuple[list[Any], Any, Any]:
    """The columns (1-D, one length) sorted together lexicographically, the permutation, and
    where a new run of equal rows starts (NaNs equal if ``equal_nan``)."""
    n = get_aval(columns[0]).shape[0]
    *ordered, perm = sort_operands([*columns, iota((n,), 0, default_int_dtype())], 0,
                                   num_keys=len(columns))
    if n == 0:
        return ordered, perm, st.full((0,), True, np.bool_)
    differs = None
    for c in ordered:
        later, earlier = st.slice_array(c, (1,), (n,)), st.slice_array(c, (0,), (n - 1,))
        d = ew.ne(later, earlier)
        if equal_nan and get_aval(c).dtype.kind in "fc":  # two NaNs are one value
            both_nan = ew.select(ew.ne(later, later), ew.ne(earlier, earlier),
                                 st.full((n - 1,), False, np.bool_))
            d = ew.select(both_nan, st.full((n - 1,), False, np.bool_), d)
        differs = d if differs is None else ew.select(differs, differs, d)
    assert differs is not None
    return ordered, perm, st.concatenate([st.full((1,), True, np.bool_), differs], 0)


# --------------------------------------------------------------------------- unique


def _columns(x: Any) -> list[Any]:
    """The sort keys of the rows of ``x`` (axis 0): ``x`` itself if 1-D, else each column of
    its rows flattened (rows compare lexicographically, as NumPy's unique with an axis)."""
    rows = get_aval(x).shape[0]
    if get_aval(x).ndim == 1:
        return [x]
    width = int(np.prod(get_aval(x).shape[1:], dtype=np.int64))
    if width == 0:  # rows with no elements are all equal
        return [st.full((rows,), 0, np.int8)]
    matrix = st.reshape(x, (rows, width))
    return [st.reshape(st.slice_array(matrix, (0, j), (rows, j + 1)), (rows,))
            for j in range(width)]


def _unique(ar: ArrayLike, return_index: bool, return_inverse: bool, return_counts: bool,
            axis: int | None, equal_nan: bool, size: int | None, fill_value: Any, fn: str
            ) -> tuple[Any, ...]:
    x = asarray(ar)
    in_shape = get_aval(x).shape
    if axis is None:
        x, ax = ravel(x), 0
    else:
        (ax,) = canonical_axes(axis, len(in_shape), fn)
        x = moveaxis(x, ax, 0)
    rows = get_aval(x).shape[0]
    if rows == 0:
        return _unique_of_nothing(x, return_index, return_inverse, return_counts, ax, size,
                                  fill_value, fn)
    _, perm, is_new = _runs(_columns(x), equal_nan)
    count, length = _count(is_new, size, fn)
    starts = _first_true(is_new, length + 1)  # where each run starts (one more: the end)
    valid = _valid(count, length)
    index_dtype = default_int_dtype()
    first = ew.select(valid, st.slice_array(starts, (0,), (length,)),
                      st.full((length,), 0, index_dtype))
    # each run's first element in input order; past the runs, the smallest (JAX's padding)
    source = _take(perm, first)
    values = _take(x, source)
    if fill_value is not None:
        values = _fill(values, valid, fill_value)
    out: list[Any] = [moveaxis(values, 0, ax)]
    if return_index:
        out.append(source)
    if return_inverse:
        group = ew.sub(st.cumsum(_int(is_new), 0), st.full((rows,), 1, index_dtype))
        _, inverse = sort_operands([perm, group], 0)  # back in input order
        out.append(st.reshape(inverse, in_shape) if axis is None else inverse)
    if return_counts:
        ends = ew.select(_valid(count, length + 1), starts,
                         st.full((length + 1,), rows, index_dtype))
        out.append(ew.sub(st.slice_array(ends, (1,), (length + 1,)),
                          st.slice_array(ends, (0,), (length,))))
    return tuple(out)


def _unique_of_nothing(x: Any, return_index: bool, return_inverse: bool, return_counts: bool,
                       ax: int, size: int | None, fill_value: Any, fn: str) -> tuple[Any, ...]:
    length = 0 if size is None else size
    if length and fill_value is None:
        raise ValueError(f"{fn}: an empty input with size={size} needs fill_value")
    shape = (length, *get_aval(x).shape[1:])
    values = st.full(shape, 0, get_aval(x).dtype)
    if length:
        values = _fill(values, st.full((length,), False, np.bool_), fill_value)
    out: list[Any] = [moveaxis(values, 0, ax)]
    zeros = st.full((length,), 0, default_int_dtype())
    if return_index:
        out.append(zeros)
    if return_inverse:
        out.append(st.full((0,), 0, default_int_dtype()))
    if return_counts:
        out.append(zeros)
    return tuple(out)


def _check_flags(fn: str, **flags: Any) -> None:
    for name, value in flags.items():
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{fn}: {name} must be a bool; got {value!r}")


def unique(ar: ArrayLike, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis: int | None = None, *, equal_nan: bool = True,
           size: int | None = None, fill_value: ArrayLike | None = None,
           sorted: bool = True) -> Any:
    """The sorted unique elements (rows, along ``axis``), with the index of each one's first
    occurrence, the inverse (each element's position in the result) and the counts on
    request. NaNs are one value unless ``equal_nan=False``; ``sorted=False`` gives the sorted
    result too (as JAX)."""
    _check_flags("unique", return_index=return_index, return_inverse=return_inverse,
                 return_counts=return_counts, equal_nan=equal_nan, sorted=sorted)
    out = _unique(ar, return_index, return_inverse, return_counts, axis, bool(equal_nan), size,
                  fill_value, "unique")
    return out[0] if len(out) == 1 else out


def unique_values(x: ArrayLike, /, *, size: int | None = None,
                  fill_value: ArrayLike | None = None) -> Any:
    """The array API's: the sorted unique elements (each NaN distinct, as the standard asks)."""
    return _unique(x, False, False, False, None, False, size, fill_value, "unique_values")[0]


def unique_counts(x: ArrayLike, /, *, size: int | None = None,
                  fill_value: ArrayLike | None = None) -> UniqueCountsResult:
    """The array API's: ``(values, counts)`` (each NaN distinct)."""
    return UniqueCountsResult(*_unique(x, False, False, True, None, False, size, fill_value,
                                       "unique_counts"))


def unique_inverse(x: ArrayLike, /, *, size: int | None = None,
                   fill_value: ArrayLike | None = None) -> UniqueInverseResult:
    """The array API's: ``(values, inverse_indices)``, the inverse of ``x``'s shape."""
    return UniqueInverseResult(*_unique(x, False, True, False, None, False, size, fill_value,
                                        "unique_inverse"))


def unique_all(x: ArrayLike, /, *, size: int | None = None,
               fill_value: ArrayLike | None = None) -> UniqueAllResult:
    """The array API's: ``(values, indices, inverse_indices, counts)`` (each NaN distinct)."""
    return UniqueAllResult(*_unique(x, True, True, True, None, False, size, fill_value,
                                    "unique_all"))


# --------------------------------------------------------------------------- membership


_ISIN_METHODS = ("auto", "compare_all", "binary_search", "sort")


def isin(element: ArrayLike, test_elements: ArrayLike, assume_unique: bool = False,
         invert: bool = False, *, method: str = "auto") -> Any:
    """Where each element of ``element`` is among ``test_elements`` (NaN is never found);
    ``invert`` negates. Small inputs compare every pair, large ones binary-search a sorted
    copy ('compare_all' and 'binary_search' force one; 'sort' is the binary search too)."""
    _check_flags("isin", assume_unique=assume_unique, invert=invert)
    if method not in _ISIN_METHODS:
        raise ValueError(f"isin: method must be one of {_ISIN_METHODS}; got {method!r}")
    e, t = asarray(element), asarray(test_elements)
    dtype = result_dtype(e, t)
    e, t = ew.convert_element_type(e, dtype), ew.convert_element_type(ravel(t), dtype)
    found = _contains(t, e, method)
    return _not(found) if invert else found


def _contains(t: Any, e: Any, method: str) -> Any:
    """Where ``e`` (any shape) is among the 1-D ``t``."""
    shape, m = get_aval(e).shape, get_aval(t).shape[0]
    if m == 0:
        return st.full(shape, False, np.bool_)
    size = get_aval(e).size
    if method == "compare_all" or (method == "auto" and size * m <= 1 << 16):
        pairs = ew.eq(st.broadcast_in_dim(e, (*shape, m), tuple(range(len(shape)))),
                      st.broadcast_in_dim(t, (*shape, m), (len(shape),)))
        return red.reduce_or(pairs, (len(shape),))
    (sorted_t,) = sort_operands([t], 0)
    flat = st.reshape(e, (size,))
    where = searchsorted(sorted_t, flat, side="left")
    inside = ew.lt(where, st.full((size,), m, default_int_dtype()))
    safe = ew.select(inside, where, st.full((size,), 0, default_int_dtype()))
    hit = ew.eq(_take(sorted_t, safe), flat)
    return st.reshape(ew.select(inside, hit, st.full((size,), False, np.bool_)), shape)


# --------------------------------------------------------------------------- set operations


def _pair(ar1: ArrayLike, ar2: ArrayLike) -> tuple[Any, Any]:
    """Both arrays flattened, in their common dtype."""
    a, b = asarray(ar1), asarray(ar2)
    dtype = result_dtype(a, b)
    return (ew.convert_element_type(ravel(a), dtype), ew.convert_element_type(ravel(b), dtype))


def _distinct_sorted(a: Any, assume_unique: bool) -> tuple[Any, Any, Any]:
    """``a`` sorted, the permutation, and which sorted elements are the first of their value
    (all of them if ``assume_unique``)."""
    (s,), perm, first = _runs([a], True)
    if assume_unique:
        first = st.full(get_aval(first).shape, True, np.bool_)
    return s, perm, first


def _compact(values: Any, keep: Any, size: int | None, fill_value: Any, default_fill: str,
             fn: str) -> tuple[Any, Any, Any]:
    """The kept elements of the 1-D ``values`` in order, padded to ``size``; the padding is
    ``fill_value``, or by default the smallest kept value ("min") or 0 ("zero"). Returns the
    result, the positions taken, and which entries are real."""
    count, length = _count(keep, size, fn)
    n = get_aval(values).shape[0]
    valid = _valid(count, length)
    if n == 0:
        positions = st.full((length,), 0, default_int_dtype())
        out = st.full((length,), 0, get_aval(values).dtype)
    else:
        positions = ew.select(valid, _first_true(keep, length),
                              st.full((length,), 0, default_int_dtype()))
        out = _take(values, positions)
    if fill_value is not None:
        return _fill(out, valid, fill_value), positions, valid
    if default_fill == "zero" or n == 0 or length == 0:
        return _fill(out, valid, 0), positions, valid
    smallest = st.reshape(st.slice_array(out, (0,), (1,)), ())  # (the first kept is smallest)
    smallest = ew.select(ew.gt(count, st.full((), 0, get_aval(count).dtype)), smallest,
                         st.full((), 0, get_aval(out).dtype))
    return _fill(out, valid, smallest), positions, valid


def union1d(ar1: ArrayLike, ar2: ArrayLike, *, size: int | None = None,
            fill_value: ArrayLike | None = None) -> Any:
    """The sorted unique values of both arrays."""
    a, b = _pair(ar1, ar2)
    return _unique(st.concatenate([a, b], 0), False, False, False, None, True, size,
                   fill_value, "union1d")[0]


def setdiff1d(ar1: ArrayLike, ar2: ArrayLike, assume_unique: bool = False, *,
              size: int | None = None, fill_value: ArrayLike | None = None) -> Any:
    """The sorted unique values of ``ar1`` that are not in ``ar2``."""
    _check_flags("setdiff1d", assume_unique=assume_unique)
    a, b = _pair(ar1, ar2)
    s, _, first = _distinct_sorted(a, assume_unique)
    keep = _and(first, _not(_contains(b, s, "auto")))
    return _compact(s, keep, size, fill_value, "zero", "setdiff1d")[0]


def setxor1d(ar1: ArrayLike, ar2: ArrayLike, assume_unique: bool = False, *,
             size: int | None = None, fill_value: ArrayLike | None = None) -> Any:
    """The sorted unique values in exactly one of the arrays."""
    _check_flags("setxor1d", assume_unique=assume_unique)
    a, b = _pair(ar1, ar2)
    sa, _, first_a = _distinct_sorted(a, assume_unique)
    sb, _, first_b = _distinct_sorted(b, assume_unique)
    keep = st.concatenate([_and(first_a, _not(_contains(b, sa, "auto"))),
                           _and(first_b, _not(_contains(a, sb, "auto")))], 0)
    both = st.concatenate([sa, sb], 0)
    # kept values first, in ascending order: one sort by (not kept, value)
    n = get_aval(both).shape[0]
    dropped = ew.convert_element_type(_not(keep), np.int8)
    _, ordered, kept_first = sort_operands([dropped, both, keep], 0, num_keys=2)
    del n
    return _compact(ordered, kept_first, size, fill_value, "min", "setxor1d")[0]


def intersect1d(ar1: ArrayLike, ar2: ArrayLike, assume_unique: bool = False,
                return_indices: bool = False, *, size: int | None = None,
                fill_value: ArrayLike | None = None) -> Any:
    """The sorted unique values in both arrays; with ``return_indices`` also the index of
    each one's first occurrence in each array (past the results: each array's size, as JAX)."""
    _check_flags("intersect1d", assume_unique=assume_unique, return_indices=return_indices)
    a, b = _pair(ar1, ar2)
    s, perm, first = _distinct_sorted(a, assume_unique)
    keep = _and(first, _contains(b, s, "auto"))
    values, positions, valid = _compact(s, keep, size, fill_value, "min", "intersect1d")
    if not return_indices:
        return values
    n_a, n_b = get_aval(a).shape[0], get_aval(b).shape[0]
    length = get_aval(values).shape[0]
    if n_a == 0 or n_b == 0:
        return values, st.full((length,), n_a, default_int_dtype()), \
            st.full((length,), n_b, default_int_dtype())
    in_a = _fill(_take(perm, positions), valid, n_a)
    sb, perm_b, _ = _distinct_sorted(b, False)
    where_b = searchsorted(sb, _take(s, positions), side="left")  # the first equal one
    safe = ew.select(valid, where_b, st.full((length,), 0, default_int_dtype()))
    in_b = _fill(_take(perm_b, safe), valid, n_b)
    return values, in_a, in_b

"""Functions that find, build or convert indices: ``nonzero``, ``argwhere``, ``flatnonzero``,
``compress``, ``extract``, ``choose``, ``select``, ``diag_indices(_from)``,
``tril_indices(_from)``, ``triu_indices(_from)``, ``indices``, ``ix_``, ``unravel_index``
and ``ravel_multi_index`` (NumPy's ``index_tricks`` and their neighbours).

Results whose shape depends on the data (``nonzero``, ``argwhere``, ``flatnonzero``,
``compress``, ``extract``) are computed from the concrete values eagerly; under jit or vmap
the values are abstract, and these functions raise a clear error unless ``size=`` fixes the
shape (as in JAX): then the first ``size`` hits are kept and the rest padded with
``fill_value``, with primitives only (a cumulative count of the hits ranks them, and a
scatter in mode "fill" drops those past ``size``).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from minigrad.core import Tracer, get_aval
from minigrad.dtypes import default_int_dtype
from minigrad.numpy import indexing as ix
from minigrad.numpy.shape import ravel
from minigrad.numpy.util import (
    ArrayLike,
    asarray,
    canonical_axes,
    check_broadcast,
    dtype_arg,
    promote,
)
from minigrad.ops import elementwise as ew
from minigrad.ops import structural as st
from minigrad.ops.gather import gather_p
from minigrad.ops.indexing import check_index
from minigrad.ops.scatter import scatter_p

__all__ = [  # what minigrad.numpy exports from here
    "argwhere", "choose", "compress", "diag_indices", "diag_indices_from", "extract",
    "flatnonzero", "indices", "ix_", "nonzero", "ravel_multi_index", "select",
    "tril_indices", "tril_indices_from", "triu_indices", "triu_indices_from",
    "unravel_index",
]

def _int_array(x: np.ndarray) -> Any:
    """A NumPy integer result as an eager array of the default int dtype."""
    return asarray(np.asarray(x).astype(default_int_dtype(), copy=False))


def _data_dependent(fn: str, x: Tracer) -> Exception:
    return TypeError(
        f"{fn}: the result's shape depends on the values of its argument (a data-dependent "
        f"shape), which are abstract here ({x.aval.str_short()} under {x._trace.transform}); "
        f"pass size=... (and fill_value=...) to fix the shape, or call it outside jit/vmap")


def _truth(x: Any) -> Any:
    return x if get_aval(x).dtype == np.bool_ else ew.ne(x, ew.full_like(x, 0))


# --------------------------------------------------------------------------- nonzero family

def nonzero(a: ArrayLike, *, size: int | None = None, fill_value: Any = None) -> tuple:
    """The indices of the non-zero entries of ``a``, one array per axis (row-major order).
    ``size``: keep the first ``size`` (padding with ``fill_value``, default 0), which works
    under jit and vmap.

    >>> import minigrad.numpy as mnp
    >>> mnp.nonzero(mnp.asarray([[0, 3], [4, 0]]))
    (Array([0, 1], dtype=int64), Array([1, 0], dtype=int64))
    """
    x = asarray(a)
    shape = get_aval(x).shape
    if not shape:
        raise ValueError("nonzero: a must have at least one dimension (as in NumPy 2 and JAX); "
                         "use atleast_1d")
    if size is None:
        value = x.concrete() if isinstance(x, Tracer) else np.asarray(x)
        if value is None:
            raise _data_dependent("nonzero", x)
        return tuple(_int_array(i) for i in np.nonzero(value))
    size = int(size)
    fills = fill_value if isinstance(fill_value, (tuple, list)) else [fill_value] * len(shape)
    if len(fills) != len(shape):
        raise ValueError(f"nonzero: fill_value must be a scalar or one per axis ({len(shape)}); "
                         f"got {len(fills)}")
    int_dtype = default_int_dtype()
    hits = ravel(_truth(x))
    n = get_aval(hits).shape[0]
    # rank of each hit among the hits (0, 1, ...); every other entry goes to `size`, dropped
    rank = st.cumsum(ew.convert_element_type(hits, int_dtype), 0)
    target = ew.select(hits, ew.sub(rank, ew.full_like(rank, 1)), ew.full_like(rank, size))
    out = []
    for axis, fill in enumerate(fills):
        coords = ravel(st.broadcast_in_dim(st.arange(0, shape[axis], 1, int_dtype), shape,
                                           (axis,)))
        start = st.full((size,), 0 if fill is None else fill, int_dtype)
        out.append(scatter_p.bind(start, coords, target, axes=(0,), batch_dims=0, mode="fill",
                                  wrap_negative=False) if n else start)
    return tuple(out)


def _flat(a: ArrayLike) -> Any:
    """``a`` flattened; a concrete ``a`` stays concrete (under jit too), as the functions of
    data-dependent shape need."""
    return ravel(a) if isinstance(a, Tracer) else asarray(np.ravel(a))


def flatnonzero(a: ArrayLike, *, size: int | None = None, fill_value: Any = None) -> Any:
    """The indices of the non-zero entries of the flattened ``a``."""
    return nonzero(_flat(a), size=size, fill_value=fill_value)[0]


def argwhere(a: ArrayLike, *, size: int | None = None, fill_value: Any = None) -> Any:
    """The indices of the non-zero entries of ``a`` as rows: shape ``(count, a.ndim)``."""
    x = asarray(a)
    ndim = get_aval(x).ndim
    found = nonzero(st.reshape(x, (1,)) if ndim == 0 else x, size=size, fill_value=fill_value)
    rows = st.concatenate([st.expand_dims(i, (1,)) for i in found], 1)
    if ndim == 0:  # NumPy: (1, 0) for a true 0-d a, (0, 0) for a false one
        rows = st.slice_array(rows, (0, 0), (get_aval(rows).shape[0], 0), (1, 1))
    return rows


def compress(condition: ArrayLike, a: ArrayLike, axis: int | None = None, *,
             size: int | None = None, fill_value: Any = 0, out: None = None) -> Any:
    """The slices of ``a`` along ``axis`` (of the flattened ``a`` if None) where the 1-D
    ``condition`` is true; ``size`` fixes the count (padding with ``fill_value``)."""
    if out is not None:
        raise ValueError("compress: out must be None (minigrad arrays are immutable)")
    cond = asarray(condition)
    if get_aval(cond).ndim != 1:
        raise ValueError(f"compress: condition must be 1-D; got shape {get_aval(cond).shape}")
    x = asarray(a)
    if axis is None:
        x, axis = ravel(x), 0
    (ax,) = canonical_axes(axis, get_aval(x).ndim, "compress")
    n = get_aval(x).shape[ax]
    if get_aval(cond).shape[0] > n:  # NumPy: true entries past the axis are an error
        value = cond.concrete() if isinstance(cond, Tracer) else np.asarray(cond)
        if value is None or np.any(value[n:]):
            raise IndexError(f"compress: condition has {get_aval(cond).shape[0]} entries, "
                             f"more than axis {ax}'s {n}")
        cond = st.slice_array(cond, (0,), (n,), (1,))
    (idx,) = nonzero(cond, size=size, fill_value=None if size is None else 0)
    picked = ix.take(x, idx, axis=ax)
    if size is None:
        return picked
    count = st.reduce_sum(ew.convert_element_type(_truth(cond), default_int_dtype()), (0,))
    keep = ew.lt(st.arange(0, size, 1, default_int_dtype()),
                 st.broadcast_in_dim(count, (size,), ()))
    shape = get_aval(picked).shape
    keep = st.broadcast_in_dim(keep, shape, (ax,))
    fill = ew.convert_element_type(asarray(fill_value), get_aval(picked).dtype)
    return ew.select(keep, picked, st.broadcast_to(fill, shape))


def extract(condition: ArrayLike, arr: ArrayLike, *, size: int | None = None,
            fill_value: Any = 0) -> Any:
    """The entries of ``arr`` where ``condition`` is true, flattened."""
    return compress(_flat(condition), _flat(arr), size=size, fill_value=fill_value)


# --------------------------------------------------------------------------- choosing

def choose(a: ArrayLike, choices: Sequence[ArrayLike], out: None = None,
           mode: str = "raise") -> Any:
    """``choices[a[i]][i]`` for every position ``i`` (all broadcast together). ``mode``:
    "raise" (an entry of ``a`` outside ``[0, len(choices))`` is an IndexError; NumPy's choose
    does not count negatives from the end), "wrap" or "clip"."""
    if out is not None:
        raise ValueError("choose: out must be None (minigrad arrays are immutable)")
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"choose: mode must be 'raise', 'wrap' or 'clip'; got {mode!r}")
    index = asarray(a)
    if get_aval(index).dtype.kind not in "iu":
        raise TypeError(f"choose: a must be an integer array; got dtype {get_aval(index).dtype}")
    options = promote(*choices, name="choose") if len(choices) else []
    if not options:
        raise ValueError("choose: choices must not be empty")
    shape = check_broadcast("choose", get_aval(index).shape, get_aval(options[0]).shape)
    stacked = st.concatenate([st.expand_dims(st.broadcast_to(c, shape), (0,)) for c in options],
                             0)
    index = st.broadcast_to(index, shape)
    k = len(shape)
    # positions first, the choice last: a gather with every position a paired batch dim
    stacked = st.transpose(stacked, (*range(1, k + 1), 0))
    try:
        return gather_p.bind(stacked, index, axes=(k,), batch_dims=k, mode=mode, fill_value=0,
                             wrap_negative=False)
    except IndexError as e:
        raise IndexError(str(e).replace("gather:", "choose:", 1)) from None


def select(condlist: Sequence[ArrayLike], choicelist: Sequence[ArrayLike],
           default: ArrayLike = 0) -> Any:
    """The entry of the first choice whose condition holds, else ``default`` (all broadcast
    together, choices promoted)."""
    if len(condlist) != len(choicelist):
        raise ValueError(f"select: condlist and choicelist must have one length; got "
                         f"{len(condlist)} and {len(choicelist)}")
    if len(condlist) == 0:
        raise ValueError("select: condlist must not be empty")
    conds = [asarray(c) for c in condlist]
    for i, c in enumerate(conds):
        if get_aval(c).dtype != np.bool_:
            raise TypeError(f"select: condlist[{i}] must be a bool array; got dtype "
                            f"{get_aval(c).dtype}")
    values = promote(*choicelist, default, name="select")
    result = values[-1]
    shapes = [get_aval(result).shape, *[get_aval(c).shape for c in conds]]
    shape = check_broadcast("select", *shapes)
    result = st.broadcast_to(result, shape)
    for cond, choice in zip(reversed(conds), reversed(values[:-1]), strict=True):
        result = ew.select(st.broadcast_to(cond, shape), st.broadcast_to(choice, shape), result)
    return result


# --------------------------------------------------------------------------- index builders

def diag_indices(n: int, ndim: int = 2) -> tuple:
    """The indices of the main diagonal of an ``(n,) * ndim`` array."""
    if n < 0 or ndim < 0:
        raise ValueError(f"diag_indices: n and ndim must be >= 0; got {n} and {ndim}")
    return tuple(_int_array(np.arange(n)) for _ in range(ndim))


def diag_indices_from(arr: ArrayLike) -> tuple:
    """``diag_indices`` for ``arr``, whose axes must all have one length."""
    shape = get_aval(asarray(arr)).shape
    if len(shape) < 2 or len(set(shape)) != 1:
        raise ValueError(f"diag_indices_from: arr must have at least 2 axes, all of one length; "
                         f"got shape {shape}")
    return diag_indices(shape[0], len(shape))


def tril_indices(n: int, k: int = 0, m: int | None = None) -> tuple:
    """The indices of the lower triangle (diagonal ``k`` and below) of an ``(n, m)`` array."""
    return tuple(_int_array(i) for i in np.tril_indices(n, k, m))


def triu_indices(n: int, k: int = 0, m: int | None = None) -> tuple:
    """The indices of the upper triangle (diagonal ``k`` and above) of an ``(n, m)`` array."""
    return tuple(_int_array(i) for i in np.triu_indices(n, k, m))


def _matrix_shape(arr: ArrayLike, fn: str) -> tuple:
    shape = get_aval(asarray(arr)).shape
    if len(shape) != 2:
        raise ValueError(f"{fn}: arr must be 2-D; got shape {shape}")
    return shape


def tril_indices_from(arr: ArrayLike, k: int = 0) -> tuple:
    n, m = _matrix_shape(arr, "tril_indices_from")
    return tril_indices(n, k, m)


def triu_indices_from(arr: ArrayLike, k: int = 0) -> tuple:
    n, m = _matrix_shape(arr, "triu_indices_from")
    return triu_indices(n, k, m)


def indices(dimensions: Sequence[int], dtype: Any = None, sparse: bool = False) -> Any:
    """A grid of indices: ``out[k][i_0, ..., i_n] = i_k`` (``sparse``: a tuple of open
    ranges)."""
    dtype = dtype_arg(dtype, "indices", default_int_dtype())
    grid: Any = np.indices(tuple(dimensions), dtype=dtype, sparse=sparse)  # type: ignore[call-overload]
    return tuple(asarray(g) for g in grid) if sparse else asarray(grid)


def ix_(*args: ArrayLike) -> tuple:
    """An open mesh from 1-D integer (or boolean) sequences: ``x[ix_(rows, cols)]`` is the
    cross product."""
    out = []
    for k, arg in enumerate(args):
        a = asarray(arg) if isinstance(arg, Tracer) or np.ndim(arg) or len(arg) else \
            np.zeros(0, default_int_dtype())
        aval = get_aval(a)
        if aval.ndim != 1:
            raise ValueError(f"ix_: each argument must be 1-D; argument {k} has shape "
                             f"{aval.shape}")
        if aval.dtype == np.bool_:
            (a,) = nonzero(a)
        elif aval.dtype.kind not in "iu":
            raise TypeError(f"ix_: arguments must be integer or bool; argument {k} has dtype "
                            f"{aval.dtype}")
        shape = (1,) * k + (-1,) + (1,) * (len(args) - k - 1)
        out.append(st.reshape(a, tuple(get_aval(a).shape[0] if s == -1 else s for s in shape)))
    return tuple(out)


def ravel_multi_index(multi_index: Sequence[ArrayLike], dims: Sequence[int], mode: str = "raise",
                      order: str = "C") -> Any:
    """The flat index of each tuple of coordinates into an array of shape ``dims``. ``mode``
    "raise" (an entry outside its dimension is an IndexError; negatives too, as in NumPy),
    "clip" or "wrap" (concrete indices only)."""
    dims = tuple(int(d) for d in dims)
    if len(multi_index) != len(dims):
        raise ValueError(f"ravel_multi_index: multi_index must have one array per dimension "
                         f"({len(dims)}); got {len(multi_index)}")
    if order not in ("C", "F"):
        raise ValueError(f"ravel_multi_index: order must be 'C' or 'F'; got {order!r}")
    arrays = [asarray(i) for i in multi_index]
    for k, a in enumerate(arrays):
        if get_aval(a).dtype.kind not in "iu":
            raise TypeError(f"ravel_multi_index: multi_index[{k}] must be integers; got dtype "
                            f"{get_aval(a).dtype}")
    if not any(isinstance(a, Tracer) for a in arrays):
        try:
            flat = np.ravel_multi_index(tuple(np.asarray(a) for a in arrays), dims,
                                        mode=mode, order=order)  # type: ignore[call-overload]
        except ValueError as e:
            raise IndexError(f"ravel_multi_index: {e}") from None
        return _int_array(flat)
    if mode != "raise":
        raise NotImplementedError(f"ravel_multi_index: mode {mode!r} with traced indices")
    int_dtype = default_int_dtype()
    arrays = promote(*arrays, dtype=int_dtype, name="ravel_multi_index")
    flat, stride = None, 1
    for k in (reversed(range(len(dims))) if order == "C" else range(len(dims))):
        term = ew.mul(check_index(arrays[k], dims[k], "ravel_multi_index", k),
                      ew.full_like(arrays[k], stride))
        flat = term if flat is None else ew.add(flat, term)
        stride *= dims[k]
    return flat


def unravel_index(indices: ArrayLike, shape: Sequence[int]) -> tuple:
    """The coordinates of flat ``indices`` into an array of ``shape`` (negatives count from
    the end; any other index out of range is an IndexError: JAX clamps)."""
    shape = tuple(int(s) for s in shape)
    size = int(np.prod(shape, dtype=np.int64))
    idx = asarray(indices)
    if get_aval(idx).dtype.kind not in "iu":
        raise TypeError(f"unravel_index: indices must be integers; got dtype "
                        f"{get_aval(idx).dtype}")
    if not isinstance(idx, Tracer):
        flat = np.asarray(idx)
        bad = (flat < -size) | (flat >= size)
        if bad.any():
            raise IndexError(f"unravel_index: index {flat[bad].flat[0]} is out of bounds for "
                             f"an array of size {size}")
        return tuple(_int_array(c) for c in np.unravel_index(np.where(flat < 0, flat + size,
                                                                      flat), shape))
    # Traced: read the coordinates from a table of every flat position's (exact integers,
    # the range checked by the gather); no integer division is needed.
    if size > 1 << 22:
        raise NotImplementedError(f"unravel_index: traced indices into more than 2**22 "
                                  f"positions (here {size})")
    table = np.stack(np.unravel_index(np.arange(size), shape), -1).astype(default_int_dtype())
    rows = gather_p.bind(table, idx, axes=(0,), batch_dims=0, mode="raise", fill_value=0,
                         wrap_negative=True)
    k = get_aval(idx).ndim
    return tuple(st.squeeze(st.slice_array(rows, (0,) * k + (j,),
                                           (*get_aval(rows).shape[:-1], j + 1),
                                           (1,) * (k + 1)), (k,)) for j in range(len(shape)))

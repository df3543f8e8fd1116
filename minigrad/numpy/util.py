"""What every family of minigrad.numpy shares: conversion, promotion, broadcasting and axes.

These resolve what the primitives leave to the caller: NumPy broadcasting, dtype promotion (a
Python scalar takes the array's dtype, so float32 stays float32: NumPy 2's rule), negative axes.
They work on ndarrays and on tracers alike. Not exported from ``minigrad.numpy``.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

import numpy as np

from minigrad import core
from minigrad.core import Tracer, get_aval
from minigrad.dtypes import canonicalize_dtype, default_float_dtype, scalar_dtype
from minigrad.ops import elementwise as ew
from minigrad.ops import structural as st
from minigrad.rebind import fresh, note_view

ArrayLike = Any
Axis = int | Sequence[int] | None


def is_array(x: Any) -> bool:
    return isinstance(x, (Tracer, np.ndarray, np.generic))


def asarray(x: ArrayLike, dtype: Any = None) -> Any:
    """Tracers pass through (converted if ``dtype`` differs); anything else becomes an eager
    array (``minigrad.Array``: a view of an ndarray, never a copy unless a dtype asks for one).
    As ``np.asarray(2.0)`` is a strongly typed array, a weak tracer (a Python number, traced)
    becomes strong: every function that takes its operands through ``asarray`` or ``promote``
    gives what NumPy's would, eagerly and traced."""
    if isinstance(x, Tracer):
        if dtype is None and not x.aval.weak_type:
            return x
        return ew.convert_element_type(x, x.aval.dtype if dtype is None else dtype,
                                       weak_type=False)
    if type(x) is core.eager_array_type and dtype is None:
        out = x
    else:
        if dtype is None and isinstance(x, (bool, int, float, complex)):
            dtype = result_dtype(x)  # alone, a Python scalar takes the default dtype of its kind
        out = np.asarray(x, dtype=dtype)
        if out.dtype == object:
            raise TypeError(f"expected an array or a number; got {type(x).__name__}")
    out = core.native(out)  # (a big-endian array becomes a native copy)
    canonical = canonicalize_dtype(out.dtype)  # (x64 off: a 64-bit array becomes 32-bit)
    return core.to_eager_array(out if canonical == out.dtype else out.astype(canonical))


def is_weak(x: ArrayLike) -> bool:
    """A Python scalar, or a tracer standing for one (a transform's input, or what operators
    made of them): weakly typed."""
    return x.aval.weak_type if isinstance(x, Tracer) else not isinstance(x, (np.ndarray,
                                                                             np.generic))


# A Python number of each kind a weak value can have, highest first: NumPy promotes a weak
# tracer as the number it stands for.
KIND_VALUE = {"c": 0j, "f": 0.0, "i": 0, "b": False}


def aval_of(x: ArrayLike) -> Any:
    """The shape and dtype ``asarray(x)`` has, without converting a tracer."""
    return get_aval(x) if isinstance(x, Tracer) else get_aval(asarray(x))


def result_dtype(*xs: ArrayLike) -> np.dtype:
    # Python scalars are "weak" under NumPy 2: they adopt the arrays' dtype. So do weak tracers.
    return promoted_dtype(xs, [is_weak(x) for x in xs])


def promoted_dtype(xs: Sequence[ArrayLike], weak: Sequence[bool]) -> np.dtype:
    """NumPy 2's promotion of ``xs`` (``weak``: which stand for Python numbers), canonical."""
    if all(weak):  # numbers only: the highest kind, as Python's arithmetic gives
        kinds = {get_aval(x).dtype.kind for x in xs}
        return scalar_dtype(next(v for k, v in KIND_VALUE.items() if k in kinds))
    return canonicalize_dtype(np.result_type(*[
        (KIND_VALUE[x.dtype.kind] if w else x.dtype) if is_array(x) else x
        for x, w in zip(xs, weak, strict=True)]))


def dtype_arg(dtype: Any, fn: str, default: np.dtype | None = None) -> np.dtype:
    """A function's ``dtype=`` argument: None gives ``default`` (the default float unless
    given), anything else its canonical form (with x64 off, a 64-bit dtype is truncated to 32
    bits, with a warning naming ``fn``)."""
    if dtype is None:
        return default_float_dtype() if default is None else default
    try:
        dtype = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"{fn}: dtype must be a NumPy dtype or its name; got {dtype!r}") from None
    return canonicalize_dtype(dtype, requested_by=fn)


def check_broadcast(name: str, *shapes: tuple[int, ...]) -> tuple[int, ...]:
    """``np.broadcast_shapes``, with an error naming the function instead of NumPy's."""
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise ValueError(f"{name}: operands must broadcast together (equal sizes or 1 in each "
                         f"axis, aligned from the right); got shapes "
                         f"{', '.join(map(str, shapes))}") from None


def promote(*xs: ArrayLike, dtype: np.dtype | None = None, name: str = "broadcast",
            keep_weak: bool = False) -> list[Any]:
    """Convert to one dtype and broadcast to one shape, NumPy's way. The operands come out
    strong, as NumPy's functions make them; with ``keep_weak`` (the operators: Python's own
    arithmetic keeps numbers numbers) weak ones stay weak if all are."""
    weak = [is_weak(x) for x in xs]
    dtype = promoted_dtype(xs, weak) if dtype is None else dtype
    flag = (True if all(weak) else None) if keep_weak else False
    # (a weak int going to a narrower integer dtype is range-checked, as NumPy checks a
    # Python int)
    arrays = [asarray(x, dtype) if not is_array(x)
              else ew.convert_element_type(x, dtype, flag, checked=w)
              for x, w in zip(xs, weak, strict=True)]
    shapes = [get_aval(a).shape for a in arrays]
    if all(s == shapes[0] for s in shapes):  # nothing to broadcast: the common case
        return arrays
    shape = check_broadcast(name, *shapes)
    # (the shapes are checked: straight to the structural op)
    return [a if s == shape else st.broadcast_to(a, shape)
            for a, s in zip(arrays, shapes, strict=True)]


def float_dtype(*xs: ArrayLike) -> np.dtype:
    dtype = result_dtype(*xs)
    return dtype if dtype.kind in "fc" else default_float_dtype()  # floating or complex


def copy_of(x: Any) -> Any:
    """A copy, where NumPy returns one and a primitive skipped a bind that would change
    nothing (returning ``x`` or a view of it): a later in-place update of ``x`` must not show
    through. Under a transform, a new tracer of the same value (``minigrad.rebind.fresh``)."""
    return fresh(x) if isinstance(x, Tracer) else core.to_eager_array(np.array(x, copy=True))


def returns_view(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn``'s result is what NumPy makes a view of its first argument: recorded when that is
    a tracer, so an in-place update under a transform can refuse what it cannot express
    (``minigrad.rebind``)."""
    @functools.wraps(fn)
    def view(*args: Any, **kwargs: Any) -> Any:
        out = fn(*args, **kwargs)
        x = args[0] if args else next(iter(kwargs.values()), None)
        return note_view(out, x) if isinstance(x, Tracer) else out

    return view


def canonical_axes(axis: Axis, ndim: int, fn: str) -> tuple[int, ...]:
    """``axis`` (None, an int or a sequence, negatives counting from the end) as sorted
    non-negative axes; out of range or repeated axes are errors naming ``fn``."""
    if axis is None:
        return tuple(range(ndim))
    try:
        axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    except TypeError:
        axes = (axis,)  # type: ignore[assignment]  # (not an int and not a sequence: the check below says so)
    for a in axes:
        if not isinstance(a, (int, np.integer)) or isinstance(a, bool):
            raise TypeError(f"{fn}: axis must be None, an int or a tuple of ints; got {axis!r}")
        if not -max(ndim, 1) <= a < max(ndim, 1) or (ndim == 0 and a not in (0, -1)):
            # NumPy's AxisError is both a ValueError and an IndexError (the array API's)
            raise np.exceptions.AxisError(f"{fn}: axis {a} is out of range for an array of "
                                          f"rank {ndim}")
    out = tuple(sorted(int(a) % ndim for a in axes)) if ndim else ()
    if len(set(out)) != len(out):
        raise ValueError(f"{fn}: axes must be distinct; got {axis}")
    return out


def keep(x: Any, axes: tuple[int, ...], keepdims: bool) -> Any:
    """A reduction's result with its reduced ``axes`` put back as size 1 if ``keepdims``."""
    return st.expand_dims(x, axes) if keepdims else x

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
from minigrad.config import x64_enabled
from minigrad.core import Tracer, get_aval
from minigrad.dtypes import canonicalize_dtype, default_float_dtype, scalar_dtype
from minigrad.ops import elementwise as ew
from minigrad.ops import structural as st
from minigrad.rebind import fresh, note_view

ArrayLike = Any
Axis = int | Sequence[int] | None


# The tracer's operators, by primitive name (filled in by ufuncs.py and division.py): the same
# computations as the functions, keeping weak types weak (Python's arithmetic keeps numbers
# numbers; NumPy's functions make arrays).
OPERATORS: dict[str, Callable[..., Any]] = {}


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


# --------------------------------------------------------------------------- type promotion
# NumPy 2's rules (NEP 50), in one place: an operand takes part by its *promotion key*, the dtype
# of an array, a NumPy scalar or a tracer (strong), or the type of a Python int, float or
# complex (weak: it adopts the other operands' dtype, so a float32 array times 2.0 stays
# float32). The key of a weakly typed tracer (a Python scalar that entered a transform) is its
# kind's Python type too.

_BOOL = np.dtype(np.bool_)
_WEAK_PROBE = {int: 0, float: 0.0, complex: 0j}  # any value of the type: NEP 50 ignores it
_WEAK_TYPE = {"i": int, "f": float, "c": complex}
PromotionKey = Any  # np.dtype, or one of the types int, float, complex


def promotion_key(x: ArrayLike, name: str = "") -> PromotionKey:
    """How ``x`` takes part in type promotion: its dtype, or (a Python scalar) its type.
    ``name``: the function asking, for the error about an operand that is not an array."""
    t = type(x)
    if t is float or t is int or t is complex:
        return t
    if t is bool:
        return _BOOL  # a Python bool is as strong as a bool array: bool is the lowest kind
    if isinstance(x, Tracer):  # a weak tracer stands for a Python number of its kind
        aval = x.aval
        return _WEAK_TYPE.get(aval.dtype.kind, aval.dtype) if aval.weak_type else aval.dtype
    dtype = getattr(x, "dtype", None)
    if isinstance(dtype, np.dtype):
        return dtype
    if isinstance(x, (int, float, complex)):  # subclasses (an IntEnum ...): weak, as NumPy
        return _BOOL if isinstance(x, bool) else next(k for k in _WEAK_PROBE if isinstance(x, k))
    try:
        return asarray(x).dtype  # (a list, a tuple ...: strong, as NumPy converts it)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{name or 'minigrad.numpy'}: operands must be arrays or numbers; "
                        f"got {type(x).__name__} ({e})") from None


def _canonical_key(key: PromotionKey) -> PromotionKey:
    return canonicalize_dtype(key) if isinstance(key, np.dtype) else key


def _describe(keys: Sequence[PromotionKey]) -> str:
    return " and ".join(f"{k.name}" if isinstance(k, np.dtype) else f"a Python {k.__name__}"
                        for k in keys)


# (keys..., x64) -> the promoted dtype
_RESULT: dict[tuple, np.dtype] = {}


def result_dtype_of_keys(keys: tuple) -> np.dtype:
    cache_key = (*keys, x64_enabled())
    found = _RESULT.get(cache_key)
    if found is None:
        probes = [_canonical_key(k) if isinstance(k, np.dtype) else _WEAK_PROBE[k] for k in keys]
        try:
            found = canonicalize_dtype(np.result_type(*probes))
        except TypeError:
            raise TypeError(f"no common dtype for {_describe(keys)}") from None
        _RESULT[cache_key] = found
    return found


class Resolved:
    """How NumPy computes a ufunc for given promotion keys: the operand dtypes and the output
    dtypes, canonical (x64 off: 32-bit); ``unchanged[i]``: operand i already has its dtype."""

    __slots__ = ("inputs", "outputs", "unchanged")

    def __init__(self, inputs: tuple[np.dtype, ...], outputs: tuple[np.dtype, ...],
                 keys: tuple):
        self.inputs = inputs
        self.outputs = outputs
        self.unchanged = tuple(k is d or k == d for k, d in zip(keys, inputs, strict=True))

    @property
    def out(self) -> np.dtype:
        return self.outputs[0]


# (ufunc, keys..., x64) -> Resolved
_RESOLVED: dict[tuple, Resolved] = {}


def resolve_ufunc(ufunc: np.ufunc, name: str, *keys: PromotionKey) -> Resolved:
    """The dtypes NumPy 2 computes ``ufunc`` in for operands with these promotion keys (its
    loop for the promoted operands: ``sqrt`` of int8 is float16, ``divide`` of int8 float64,
    ``equal`` of float16 and int8 compares in float16); a clear error naming ``name`` when
    NumPy has no loop (``subtract`` of bools, ``bitwise_and`` of floats)."""
    cache_key = (ufunc, *keys, x64_enabled())
    found = _RESOLVED.get(cache_key)
    if found is None:
        found = _RESOLVED[cache_key] = _resolve(ufunc, name, keys)
    return found


def _resolve(ufunc: np.ufunc, name: str, keys: tuple) -> Resolved:
    canonical = tuple(_canonical_key(k) for k in keys)  # x64 off: 64-bit arrays enter as 32
    try:
        dtypes = ufunc.resolve_dtypes((*canonical, *[None] * ufunc.nout))
    except TypeError as e:
        raise TypeError(f"{name}: not supported for operands of {_describe(keys)} "
                        f"({str(e).rstrip('.')})") from None
    dtypes = tuple(canonicalize_dtype(d) for d in dtypes)
    return Resolved(dtypes[:ufunc.nin], dtypes[ufunc.nin:], keys)


def convert(x: ArrayLike, dtype: np.dtype, name: str) -> Any:
    """``x`` as an operand of ``dtype``: a Python scalar as a 0-d array (NumPy 2's
    OverflowError, naming ``name``, for an integer that does not fit), an array or tracer
    converted if its dtype differs."""
    t = type(x)
    if t is np.ndarray or t is core.eager_array_type:  # (fast: no conversion to an Array)
        return x if x.dtype == dtype else ew.convert_element_type(x, dtype)
    if t is float or t is int or t is bool or t is complex:
        try:
            return np.asarray(x, dtype)
        except OverflowError:
            raise OverflowError(f"{name}: the Python integer {x} is out of bounds for "
                                f"{dtype.name}") from None
    if isinstance(x, Tracer):
        # (a weak tracer, a Python number traced, comes out strong as NumPy's results are; a
        # weak int is range-checked as NumPy checks a Python int)
        return ew.convert_element_type(x, dtype, False, checked=x.aval.weak_type)
    x = asarray(x)
    return x if get_aval(x).dtype == dtype else ew.convert_element_type(x, dtype)


def broadcast_operands(name: str, xs: list[Any]) -> list[Any]:
    """Operands of one shape for an elementwise primitive. Eagerly (the eval trace runs the
    impls) NumPy's ufuncs broadcast by themselves: only the shapes are checked. Under a
    transform the primitives' rules need equal shapes: the operands are broadcast."""
    shapes = [x.shape if type(x) is np.ndarray else get_aval(x).shape for x in xs]
    first = shapes[0]
    if all(s == first for s in shapes):
        return xs
    shape = check_broadcast(name, *shapes)
    if core.current_trace() is core.eval_trace:
        return xs
    return [x if s == shape else st.broadcast_to(x, shape)
            for x, s in zip(xs, shapes, strict=True)]


def broadcast_all(name: str, *xs: Any) -> list[Any]:
    """Operands broadcast to one shape, eagerly too (for composites whose pieces index or
    differentiate them together, such as a ``custom_jvp``)."""
    shapes = [get_aval(x).shape for x in xs]
    if all(s == shapes[0] for s in shapes):
        return list(xs)
    shape = check_broadcast(name, *shapes)
    return [x if s == shape else st.broadcast_to(x, shape)
            for x, s in zip(xs, shapes, strict=True)]


def ufunc_operands(ufunc: np.ufunc, name: str, *xs: ArrayLike) -> tuple[list[Any], Resolved]:
    """The operands of ``ufunc`` (promoted, converted, broadcast) and NumPy's dtypes for it."""
    resolved = resolve_ufunc(ufunc, name, *[promotion_key(x, name) for x in xs])
    ops = [convert(x, d, name) for x, d in zip(xs, resolved.inputs, strict=True)]
    return broadcast_operands(name, ops), resolved


def unary_operand(ufunc: np.ufunc, name: str, x: ArrayLike) -> Any:
    """``x`` as ``ufunc``'s operand, in the dtype NumPy computes it in."""
    if type(x) is core.eager_array_type or type(x) is np.ndarray:  # the common case, fast
        found = _RESOLVED.get((ufunc, x.dtype, x64_enabled()))
        if found is not None and found.unchanged[0]:
            return x
    resolved = resolve_ufunc(ufunc, name, promotion_key(x, name))
    return convert(x, resolved.inputs[0], name)


def binary_operands(ufunc: np.ufunc, name: str, x: ArrayLike, y: ArrayLike
                    ) -> tuple[Any, Any]:
    """``x`` and ``y`` as ``ufunc``'s operands: promoted as NumPy 2 does and broadcast."""
    tx = type(x)
    if tx is core.eager_array_type or tx is np.ndarray:  # the common cases, fast
        ty = type(y)
        if ty is core.eager_array_type or ty is np.ndarray:
            found = _RESOLVED.get((ufunc, x.dtype, y.dtype, x64_enabled()))  # type: ignore[union-attr]
            if found is not None and found.unchanged[0] and found.unchanged[1]:
                if x.shape == y.shape:  # type: ignore[union-attr]
                    return x, y
                if core.current_trace() is core.eval_trace:  # NumPy broadcasts: only check
                    check_broadcast(name, x.shape, y.shape)  # type: ignore[union-attr]
                    return x, y
        elif (ty is float or ty is int) and core.current_trace() is core.eval_trace:
            found = _RESOLVED.get((ufunc, x.dtype, ty, x64_enabled()))  # type: ignore[union-attr]
            if found is not None and found.unchanged[0]:
                return x, convert(y, found.inputs[1], name)
    (x, y), _ = ufunc_operands(ufunc, name, x, y)
    return x, y


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
    shape = _broadcast_shape(shapes)
    if shape is None:
        raise ValueError(f"{name}: operands must broadcast together (equal sizes or 1 in each "
                         f"axis, aligned from the right); got shapes "
                         f"{', '.join(map(str, shapes))}")
    return shape


@functools.lru_cache(maxsize=4096)
def _broadcast_shape(shapes: tuple[tuple[int, ...], ...]) -> tuple[int, ...] | None:
    # (cached: np.broadcast_shapes costs microseconds, and programs repeat their shapes)
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        return None


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

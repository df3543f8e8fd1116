"""Plumbing shared by the transforms' entry points and ``make_jaxpr``: argument conversion,
flattening, argnums, readable argument paths."""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Sequence

import numpy as np

from minigrad import core
from minigrad.core import (
    NATIVE_DTYPES,
    ShapedArray,
    Tracer,
    escaped_tracer_error,
    get_aval,
    is_weak_scalar,
    native,
    scalar_dtype,
)
from minigrad.tree import PyTreeDef, leaf_paths, tree_unflatten


def as_operand(x: Any, transform: str, path: str) -> Any:
    """An argument of a transformed function: tracers stay, anything else becomes an ndarray
    (without a copy: nothing in minigrad writes into its operands). A Python scalar takes
    ``scalar_dtype``; its weak type is kept by the transform (``input_avals``)."""
    if isinstance(x, Tracer):
        if not x._trace.valid:  # it escaped a transform that has returned: say so now
            raise escaped_tracer_error(x)
        return x
    if isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic):
        try:
            return np.asarray(x, scalar_dtype(x))
        except OverflowError:
            raise OverflowError(f"{transform}: {path} must fit in {scalar_dtype(x)}; got "
                                f"{x!r}") from None
    out = np.asarray(x) if isinstance(x, (np.ndarray, np.generic, bool, int, float,
                                          complex, list)) else None
    if out is None or out.dtype == object:
        raise TypeError(f"{transform}: {path} must be an array or a Python scalar; got "
                        f"{type(x).__name__}")
    return native(out)  # (a big-endian array becomes a native copy)


class Paths:
    """The readable paths of a tree's leaves (a list of strings, in effect), spelled on first
    use: a transform names a leaf only in an error or when it converts the leaf. (Speed:
    spelling them on every call is 2.3% of vmap(grad)'s instructions at B=1.)"""

    __slots__ = ("_spell", "_paths")

    def __init__(self, spell: Callable[[], list[str]]):
        self._spell = spell
        self._paths: list[str] | None = None

    def __getitem__(self, i: int) -> str:
        if self._paths is None:
            self._paths = self._spell()
        return self._paths[i]


def input_avals(raw: Sequence[Any], leaves: Sequence[Any]) -> list[ShapedArray]:
    """The types of a transform's inputs: ``leaves`` are ``raw`` through ``as_operand``, and a
    Python scalar's type is weak (the ndarray it became is not)."""
    return [get_aval(r) if is_weak_scalar(r) else get_aval(x)
            for r, x in zip(raw, leaves, strict=True)]


def weak_flags(raw: Sequence[Any]) -> list[bool]:
    """Which of a transform's raw inputs are weakly typed (Python scalars, weak tracers)."""
    return [is_weak_scalar(r) or (isinstance(r, Tracer) and r.aval.weak_type) for r in raw]


def as_operands(xs: Sequence[Any], transform: str, paths: Paths) -> list[Any]:
    """``as_operand`` of each leaf; ndarrays and live tracers, the common case, pass as they
    are without spelling their paths."""
    return [x if (type(x) is np.ndarray and x.dtype in NATIVE_DTYPES)
            or (isinstance(x, Tracer) and x._trace.valid)
            else as_operand(x, transform, paths[i]) for i, x in enumerate(xs)]


def unaliased(outs: Sequence[Any], args: Sequence[Any]) -> list[Any]:
    """``outs`` with a copy of every array that may share memory with one of ``args``: a
    transform's results never alias its arguments (a value passed straight through, like the
    tangent of ``x + 1``, is the caller's own array), so writing into a result never changes an
    argument. Arrays made by the computation are returned as they are. Either way they leave as
    eager arrays (``minigrad.Array``, a view)."""
    arrays = [a for a in args if isinstance(a, np.ndarray)]
    return [core.to_eager_array(o.copy() if any(np.may_share_memory(o, a) for a in arrays)
                                else o)
            if isinstance(o, np.ndarray) else o for o in outs]


def as_output(x: Any, transform: str) -> Any:
    """A leaf returned by a transformed function must be an array (or a tracer)."""
    if isinstance(x, Tracer):
        return x
    if isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic):
        return np.asarray(x, scalar_dtype(x))  # (float32 for 2.0 with jax_enable_x64 off)
    if isinstance(x, (np.ndarray, np.generic)):
        return native(np.asarray(x))
    raise TypeError(f"{transform}: the function must return arrays in a pytree; got a "
                    f"{type(x).__name__}")


def call_paths(in_tree: PyTreeDef) -> list[str]:
    """Readable paths (``args[0]['w']``, ``kwargs['y']``) of the leaves of ``(args, kwargs)``."""
    args_tree, kwargs_tree = in_tree.children
    return leaf_paths(args_tree, "args") + leaf_paths(kwargs_tree, "kwargs")


def flat_call(fun: Callable[..., Any], in_tree: PyTreeDef) -> Callable[..., Any]:
    """``fun`` as a function of the leaves of its argument tuple."""
    def flat(*leaves: Any) -> Any:
        return fun(*tree_unflatten(in_tree, leaves))

    return flat


def signature_of(fun: Callable[..., Any]) -> inspect.Signature | None:
    """``fun``'s signature, or None if it has none to read. A partial's is opaque, as in JAX:
    its own keywords are not parameters to fill."""
    try:
        return None if isinstance(fun, functools.partial) else inspect.signature(fun)
    except (TypeError, ValueError):
        return None


def resolve_kwargs(who: str, signature: inspect.Signature | None, args: tuple, kwargs: dict
                   ) -> tuple:
    """A call's arguments as positional ones, defaults applied (JAX's ``resolve_kwargs``): what
    a custom rule receives. A keyword-only or ``**kwargs`` argument that was passed cannot be
    placed: a TypeError naming ``who``."""
    if signature is None:
        if kwargs:
            raise TypeError(f"{who} takes no keyword arguments (its signature is unknown); "
                            f"got {sorted(kwargs)}")
        return args
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as e:
        raise TypeError(f"{who}: {e}") from None
    bound.apply_defaults()
    passed = [k for k in bound.kwargs if k in kwargs]
    if passed:
        raise TypeError(f"{who}: keyword arguments must be positional parameters, to be "
                        f"differentiated or batched; got {', '.join(passed)} (keyword-only or "
                        f"**kwargs): close over them instead")
    return bound.args


def check_callable(transform: str, fun: Any) -> None:
    """A transform's function must be callable: say so before any work, naming the transform."""
    if not callable(fun):
        raise TypeError(f"{transform}: fun must be a callable; got {type(fun).__name__}")


def check_argnums(transform: str, argnums: int | Sequence[int], nargs: int) -> tuple[int, ...]:
    """Normalize ``argnums`` (int or tuple, negative allowed) against ``nargs`` arguments."""
    try:
        nums: tuple[Any, ...] = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    except TypeError:  # not iterable (a float, None): reported below
        nums = (argnums,)
    if not nums or any(not isinstance(a, int) or isinstance(a, bool) for a in nums):
        raise TypeError(f"{transform}: argnums must be an int or a non-empty tuple of ints; "
                        f"got {argnums!r}")
    out = []
    for a in nums:
        if not -nargs <= a < nargs:
            raise ValueError(f"{transform}: argnums must be in [{-nargs}, {nargs}) for a call "
                             f"with {nargs} positional arguments; got {a}")
        out.append(a % nargs)
    if len(set(out)) != len(out):  # (an argument differentiated twice: JAX rejects it too)
        raise ValueError(f"{transform}: argnums must not repeat an argument; got "
                         f"{argnums!r}")
    return tuple(out)


def aux_output(x: Any, transform: str) -> Any:
    """A leaf of ``has_aux``'s auxiliary value, passed through untouched as in JAX (an array,
    a number, a label, any Python object); a NumPy scalar becomes a 0-d array, as every
    array minigrad returns is."""
    return np.asarray(x) if isinstance(x, np.generic) else x


# JAX's arguments minigrad does not support: accepted at their defaults, refused otherwise
# with the reason (docs/api.md has the table).
UNSUPPORTED = {
    "holomorphic": "minigrad differentiates real functions of real inputs (no complex "
                   "derivatives)",
    "reduce_axes": "it names axes of collectives, which minigrad does not have (JAX "
                   "deprecated it too)",
    "spmd_axis_name": "minigrad runs on one host, with no devices to map over",
    "sum_match": "minigrad's collectives take one axis name, with no matched sums",
    "axis_env": "name the axes with vmap(axis_name=...) around the function instead",
    "in_shardings": "minigrad runs on one host, in NumPy: there is nothing to shard",
    "out_shardings": "minigrad runs on one host, in NumPy: there is nothing to shard",
    "device": "minigrad runs on the host CPU, in NumPy",
    "backend": "minigrad runs on the host CPU, in NumPy",
    "compiler_options": "minigrad's compiler is its passes and code generator, with no "
                        "options",
    "nondiff_argnames": "name the static arguments by position (nondiff_argnums)",
    "flatten_with_keys_func": "minigrad's paths are built from the node's children; key "
                              "paths (tree_flatten_with_path) are not supported",
}


def check_unsupported(transform: str, **given: Any) -> None:
    """Raise NotImplementedError for any of JAX's arguments in ``given`` that is not at its
    default (False, None, or empty)."""
    for name, value in given.items():
        if value is not None and value is not False and value != ():
            raise NotImplementedError(f"{transform}: {name}={value!r} is not supported: "
                                      f"{UNSUPPORTED[name]}")

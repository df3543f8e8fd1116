"""JAX's remaining top-level names (issue #34): ``jacobian``, ``ShapeDtypeStruct`` and
``eval_shape``, ``named_call`` and ``ensure_compile_time_eval``.

``eval_shape`` traces the function as ``make_jaxpr`` does, from abstract inputs, and returns
only the outputs' shapes and dtypes: nothing is computed, however large the arrays.

>>> import minigrad as mg, numpy as np
>>> mg.eval_shape(lambda x, y: {"z": x @ y}, mg.ShapeDtypeStruct((4, 3), np.float32),
...               np.ones((3, 2), np.float32))
{'z': ShapeDtypeStruct(shape=(4, 2), dtype=float32)}
"""

from __future__ import annotations

import contextlib
import functools
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from minigrad.api_util import as_operand, as_output, call_paths, check_callable
from minigrad.core import ShapedArray, Tracer, current_trace, get_aval, is_weak_scalar, new_trace
from minigrad.dtypes import canonicalize_dtype
from minigrad.jaxpr import JaxprTrace
from minigrad.transforms.grad import jacrev
from minigrad.tree import tree_flatten, tree_unflatten


def jacobian(fun: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
             holomorphic: bool = False, allow_int: bool = False) -> Callable[..., Any]:
    """JAX's alias of ``jacrev``: the Jacobian by reverse mode (output shape, then input
    shape)."""
    return jacrev(fun, argnums, has_aux=has_aux, holomorphic=holomorphic, allow_int=allow_int)


class ShapeDtypeStruct:
    """A shape and a dtype standing for an array (``eval_shape``'s inputs and outputs).
    ``weak_type`` marks a Python scalar's type, as ``ShapedArray``'s."""

    __slots__ = ("shape", "dtype", "weak_type")

    def __init__(self, shape: Sequence[int], dtype: Any, *, sharding: Any = None,
                 weak_type: bool = False) -> None:
        if sharding is not None:
            raise NotImplementedError("ShapeDtypeStruct: sharding is not supported: minigrad "
                                      "has one device")
        try:
            dims = tuple(shape)
        except TypeError:
            raise TypeError(f"ShapeDtypeStruct: shape must be a sequence of ints; got "
                            f"{shape!r}") from None
        if any(isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 0
               for d in dims):
            raise TypeError(f"ShapeDtypeStruct: shape must be a sequence of non-negative ints; "
                            f"got {shape!r}")
        try:
            self.dtype = np.dtype(dtype)
        except TypeError:
            raise TypeError(f"ShapeDtypeStruct: dtype must be a NumPy dtype or its name; got "
                            f"{dtype!r}") from None
        self.shape = tuple(int(d) for d in dims)
        self.weak_type = bool(weak_type)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def update(self, **changes: Any) -> ShapeDtypeStruct:
        """A copy with some of ``shape``, ``dtype``, ``weak_type`` changed."""
        fields = {"shape": self.shape, "dtype": self.dtype, "weak_type": self.weak_type}
        unknown = set(changes) - set(fields)
        if unknown:
            raise TypeError(f"ShapeDtypeStruct.update: unknown fields {sorted(unknown)}")
        fields.update(changes)
        return ShapeDtypeStruct(fields["shape"], fields["dtype"],
                                weak_type=fields["weak_type"])

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, ShapeDtypeStruct) and self.shape == other.shape
                and self.dtype == other.dtype and self.weak_type == other.weak_type)

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype, self.weak_type))

    def __repr__(self) -> str:
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{weak})"


def _input_aval(x: Any, path: str) -> ShapedArray:
    """The abstract value of an argument of ``eval_shape``."""
    if isinstance(x, ShapeDtypeStruct) or (
            hasattr(x, "shape") and hasattr(x, "dtype")
            and not isinstance(x, (np.ndarray, np.generic, Tracer))):
        return ShapedArray(tuple(x.shape), canonicalize_dtype(np.dtype(x.dtype)),
                           bool(getattr(x, "weak_type", False)))
    if is_weak_scalar(x):
        return get_aval(as_operand(x, "eval_shape", path)).update_weak_type(True)
    return get_aval(as_operand(x, "eval_shape", path))


def eval_shape(fun: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """The shapes and dtypes of ``fun(*args, **kwargs)``, as ``ShapeDtypeStruct``s in the
    output's tree, without computing it. Arguments may be arrays, Python scalars,
    ``ShapeDtypeStruct``s or anything with ``shape`` and ``dtype``."""
    check_callable("eval_shape", fun)
    raw, in_tree = tree_flatten((args, kwargs))
    avals = [_input_aval(x, p) for x, p in zip(raw, call_paths(in_tree), strict=True)]
    trace = JaxprTrace(current_trace(), stage_all=True)
    trace.transform = "eval_shape"
    with new_trace(trace):
        tracers = [trace.new_arg(a) for a in avals]
        f_args, f_kwargs = tree_unflatten(in_tree, tracers)
        out_leaves, out_tree = tree_flatten(fun(*f_args, **f_kwargs))
        out_avals = [get_aval(o) if is_weak_scalar(o) else get_aval(as_output(o, "eval_shape"))
                     for o in out_leaves]
    return tree_unflatten(out_tree, [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)
                                     for a in out_avals])


def named_call(fun: Callable[..., Any], *, name: str | None = None) -> Callable[..., Any]:
    """``fun`` itself, under another name. JAX records the name for profilers and the
    compiled program's metadata; its jaxpr shows no trace of it, and neither does ours."""
    check_callable("named_call", fun)
    if name is not None and not isinstance(name, str):
        raise TypeError(f"named_call: name must be a str or None; got {type(name).__name__}")

    @functools.wraps(fun)
    def named(*args: Any, **kwargs: Any) -> Any:
        return fun(*args, **kwargs)

    if name is not None:
        named.__name__ = named.__qualname__ = name
    return named


@contextlib.contextmanager
def ensure_compile_time_eval() -> Iterator[None]:
    """Inside this block, an operation whose operands are all known (no traced argument) runs
    now, even while ``jit`` or ``make_jaxpr`` stages the function: its result is a concrete
    array, a constant of the program. Operations on traced values are staged as usual.
    Outside any staging it changes nothing."""
    staging = []
    trace = current_trace()
    while trace is not None:
        if isinstance(trace, JaxprTrace) and trace.stage_all:
            staging.append(trace)
        trace = trace.parent
    for t in staging:
        t.stage_all = False  # (a JaxprTrace without stage_all runs what it does not own now)
    try:
        yield
    finally:
        for t in staging:
            t.stage_all = True

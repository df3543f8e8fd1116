"""PyTorch's in-place variants of the five ops: ``index_add_``, ``index_copy_``, ``index_fill_``,
``masked_fill_``, ``masked_scatter_``.

They have no rules of their own. Each one runs its out-of-place op:

* **eagerly, on a NumPy array**, the op's argument checks run as usual (``index_add_operands``
  and the others: shapes, dtypes, index ranges, negative entries, mask counts), then its
  primitive's impl, writing into ``x`` instead of into a copy (``*_into(..., inplace=True)``).
  So ``x`` is unchanged on any error, keeps its shape and dtype, and is returned itself; a view
  writes into its base, as in NumPy.
* **under a transform**, ``x`` is a tracer: the out-of-place op is bound as usual, and ``x`` is
  rebound to its result (``minigrad.rebind``). The program shows the out-of-place
  primitive; ``jit`` then runs it in place when nothing else reads the old value.

An eager update while a function is being staged (``jit``, ``functionalize``, ``make_jaxpr``)
raises: it would run once, at trace time, and never when the program runs. Tracers have the five
as methods (``h.index_add_(0, index, source)``, as on a PyTorch tensor: ``METHODS``); a NumPy
array cannot have them, so on one call ``mg.index_add_(x, ...)``.

>>> import minigrad as mg, numpy as np
>>> x = np.zeros(4)
>>> mg.index_add_(x, 0, np.array([1, 1]), np.array([1.0, 2.0])) is x
True
>>> x
array([0., 3., 0., 0.])
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from minigrad.array import Array
from minigrad.core import Tracer, _get_current, eval_trace
from minigrad.jaxpr import JaxprTrace
from minigrad.ops.index_add import index_add, index_add_into, index_add_operands
from minigrad.ops.index_copy import index_copy, index_copy_into, index_copy_operands
from minigrad.ops.index_fill import index_fill, index_fill_into, index_fill_operands
from minigrad.ops.masked_fill import masked_fill, masked_fill_into, masked_fill_operands
from minigrad.ops.masked_scatter import (
    masked_scatter,
    masked_scatter_into,
    masked_scatter_operands,
)
from minigrad.rebind import InPlaceError, check_updatable, rebind, untraced_target


def _rebound(name: str, x: Tracer, update: Callable[[], Any]) -> Any:
    """Under a transform: ``x`` rebound to the out-of-place result."""
    check_updatable(x, name)
    return rebind(x, update(), name)


def _check_target(name: str, x: Any, args: tuple) -> None:
    """The checks of an eager update beyond the op's own: ``x`` a writable NumPy array, and
    nothing traced to write into it."""
    if not isinstance(x, np.ndarray):
        raise TypeError(f"{name}: x must be a NumPy array (it is updated in place); got "
                        f"{type(x).__name__}")
    for a in args:
        if isinstance(a, Tracer):
            raise untraced_target(name, a._trace.transform)
    if _get_current() is not eval_trace:  # (a transform is running: the rare case)
        _check_not_staging(name)
    if not x.flags.writeable:
        raise ValueError(f"{name}: x is read-only (a broadcast view, or flags.writeable is "
                         f"False): it cannot be updated in place")


def _check_not_staging(name: str) -> None:
    """An eager update while a function is staged would run once, at trace time: refused."""
    trace = _get_current()
    while trace is not None:
        if isinstance(trace, JaxprTrace) and trace.stage_all:
            raise InPlaceError(
                f"{name}: x is a NumPy array, and {trace.transform} is staging the function: "
                f"the update would run once, while tracing, and never when the program runs. "
                f"Pass x as an argument (jit and functionalize write updates of their "
                f"arguments back), or make it inside the function with minigrad.numpy "
                f"(mnp.zeros) so that it is traced")
        trace = trace.parent


def _check_no_broadcast(name: str, x: Any, mask: Any) -> None:
    shape, mask_shape = getattr(x, "shape", None), getattr(mask, "shape", None)
    if shape is not None and mask_shape == shape:
        return
    shape, mask_shape = np.shape(x), np.shape(mask)
    if mask_shape != shape and np.broadcast_shapes(shape, mask_shape) != shape:
        raise ValueError(f"{name}: mask of shape {np.shape(mask)} would broadcast x of shape "
                         f"{shape} to a larger shape; in place, x keeps its shape")


def _copy_back(x: np.ndarray, into: np.ndarray) -> None:
    """Give ``x`` what the impl wrote into ``into``: a view of ``x`` (a 0-d ``x``'s one slice)
    holds it already; a native copy of a big-endian ``x`` is copied back."""
    if not np.may_share_memory(into, x):
        np.copyto(x, into.reshape(x.shape))


# Eagerly, each variant runs the op's argument checks (``*_operands``), then its impl's code
# writing into x (into a one-slice view of a 0-d x, or a native copy of a big-endian one):
# every check has run before the first write. (The parameters are passed by name, not
# splatted: that costs 0.5 us a call.)


def index_add_(x: Any, dim: int, index: Any, source: Any, alpha: Any = 1) -> Any:
    """``x.index_add_(dim, index, source, alpha)``: ``index_add``, written into ``x``."""
    if isinstance(x, Tracer):
        return _rebound("index_add_", x, lambda: index_add(x, dim, index, source, alpha))
    _check_target("index_add_", x, (index, source, alpha))
    into, index, source, dim, alpha, _ = index_add_operands(x, dim, index, source, alpha)
    index_add_into(into, index, source, dim=dim, alpha=alpha, inplace=True)
    if into is not x:
        _copy_back(x, into)
    return x


def index_copy_(x: Any, dim: int, index: Any, source: Any) -> Any:
    """``x.index_copy_(dim, index, source)``: ``index_copy``, written into ``x``."""
    if isinstance(x, Tracer):
        return _rebound("index_copy_", x, lambda: index_copy(x, dim, index, source))
    _check_target("index_copy_", x, (index, source))
    into, index, source, dim, _ = index_copy_operands(x, dim, index, source)
    index_copy_into(into, index, source, dim=dim, inplace=True)
    if into is not x:
        _copy_back(x, into)
    return x


def index_fill_(x: Any, dim: int, index: Any, value: Any) -> Any:
    """``x.index_fill_(dim, index, value)``: ``index_fill``, written into ``x``."""
    if isinstance(x, Tracer):
        return _rebound("index_fill_", x, lambda: index_fill(x, dim, index, value))
    _check_target("index_fill_", x, (index, value))
    (into, index, value), p, _ = index_fill_operands(x, dim, index, value)
    index_fill_into(into, index, value, dim=p["dim"], inplace=True)
    if into is not x:
        _copy_back(x, into)
    return x


def masked_fill_(x: Any, mask: Any, value: Any) -> Any:
    """``x.masked_fill_(mask, value)``: ``masked_fill``, written into ``x`` (the mask may
    broadcast to x's shape, never x to the mask's)."""
    _check_no_broadcast("masked_fill_", x, mask)
    if isinstance(x, Tracer):
        return _rebound("masked_fill_", x, lambda: masked_fill(x, mask, value))
    _check_target("masked_fill_", x, (mask, value))
    (into, mask, value), _, _ = masked_fill_operands(x, mask, value)
    masked_fill_into(into, mask, value, inplace=True)
    if into is not x:
        _copy_back(x, into)
    return x


def masked_scatter_(x: Any, mask: Any, source: Any) -> Any:
    """``x.masked_scatter_(mask, source)``: ``masked_scatter``, written into ``x``."""
    _check_no_broadcast("masked_scatter_", x, mask)
    if isinstance(x, Tracer):
        return _rebound("masked_scatter_", x, lambda: masked_scatter(x, mask, source))
    _check_target("masked_scatter_", x, (mask, source))
    (into, mask, source), _, _ = masked_scatter_operands(x, mask, source)
    masked_scatter_into(into, mask, source, batch_dims=0, inplace=True)
    if into is not x:
        _copy_back(x, into)
    return x


# The methods h.index_add_(0, idx, src), as on a PyTorch tensor: installed on Tracer and on
# minigrad.Array here (a plain ndarray cannot take methods: mg.index_add_(x, ...) then).
METHODS = {"index_add_": index_add_, "index_copy_": index_copy_, "index_fill_": index_fill_,
           "masked_fill_": masked_fill_, "masked_scatter_": masked_scatter_}
for _name, _fn in METHODS.items():
    setattr(Tracer, _name, _fn)
    setattr(Array, _name, _fn)

__all__ = ["InPlaceError", "index_add_", "index_copy_", "index_fill_", "masked_fill_",
           "masked_scatter_"]

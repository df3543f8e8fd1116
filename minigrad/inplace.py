"""PyTorch's in-place variants of the five ops: ``index_add_``, ``index_copy_``, ``index_fill_``,
``masked_fill_``, ``masked_scatter_``.

They have no rules of their own. Each one runs its out-of-place op:

* **eagerly, on a NumPy array**, the op runs as usual (every check, on shapes and on values:
  index ranges, negative entries, mask counts) and its last step, the primitive's impl, writes
  into ``x`` instead of into a copy (the impl's ``*_into(..., inplace=True)``). So ``x`` is
  unchanged on any error, keeps its shape and dtype, and is returned itself; a view writes
  into its base, as in NumPy.
* **under a transform**, ``x`` is a tracer: the out-of-place op is bound as usual, and ``x`` is
  rebound to its result (``minigrad.rebind``). The program shows the out-of-place
  primitive; ``jit`` then runs it in place when nothing else reads the old value.

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

from minigrad.core import Primitive, Trace, Tracer, current_trace, new_trace
from minigrad.ops.index_add import index_add, index_add_p
from minigrad.ops.index_copy import index_copy, index_copy_p
from minigrad.ops.index_fill import index_fill, index_fill_p
from minigrad.ops.masked_fill import masked_fill, masked_fill_p
from minigrad.ops.masked_scatter import masked_scatter, masked_scatter_p
from minigrad.rebind import InPlaceError, check_updatable, rebind
from minigrad.staging.passes.inplace import INTO


class _WriteInto(Trace):
    """Runs an op eagerly with its primitive's impl writing into ``target``: every other
    primitive (a reshape of a 0-d ``x``, say) runs as usual, below."""

    transform = "in-place update"

    def __init__(self, parent: Trace, prim: Primitive, target: np.ndarray):
        super().__init__(parent)
        self.prim, self.target, self.written = prim, target, False

    def process_primitive(self, prim: Primitive, args: tuple, params: dict) -> Any:
        x = args[0] if args else None
        if prim is self.prim and isinstance(x, np.ndarray) and (
                x is self.target or np.may_share_memory(x, self.target)
                or x.size == self.target.size == 0):  # (an empty x: nothing to write)
            self.written = True
            return INTO[prim](*args, **params)  # the impl's own code, told to write into x
        return self.parent.process_primitive(prim, args, params)


def _update(name: str, op: Callable[..., Any], prim: Primitive, x: Any, *args: Any) -> Any:
    if isinstance(x, Tracer):  # under a transform: the out-of-place result, x rebound to it
        check_updatable(x, name)
        return rebind(x, op(x, *args), name)
    if not isinstance(x, np.ndarray):
        raise TypeError(f"{name}: x must be a NumPy array (it is updated in place); got "
                        f"{type(x).__name__}")
    if any(isinstance(a, Tracer) for a in args):
        raise InPlaceError(
            f"{name}: x is a NumPy array captured from outside the transformed function, and "
            f"the update depends on that function's arguments: the array cannot hold a traced "
            f"value. Copy x inside the function first (x = x * 1), and return the result")
    if not x.flags.writeable:
        raise ValueError(f"{name}: x is read-only (a broadcast view, or flags.writeable is "
                         f"False): it cannot be updated in place")
    trace = _WriteInto(current_trace(), prim, x)
    with new_trace(trace):
        op(x, *args)
    if not trace.written:  # the op did not reach its primitive: nothing to update (no shape)
        raise AssertionError(f"{name}: the update did not run")  # pragma: no cover
    return x


def _check_no_broadcast(name: str, x: Any, mask: Any) -> None:
    shape, mask_shape = np.shape(x), np.shape(mask)
    if mask_shape != shape and np.broadcast_shapes(shape, mask_shape) != shape:
        raise ValueError(f"{name}: mask of shape {np.shape(mask)} would broadcast x of shape "
                         f"{shape} to a larger shape; in place, x keeps its shape")


def index_add_(x: Any, dim: int, index: Any, source: Any, alpha: Any = 1) -> Any:
    """``x.index_add_(dim, index, source, alpha)``: ``index_add``, written into ``x``."""
    return _update("index_add_", index_add, index_add_p, x, dim, index, source, alpha)


def index_copy_(x: Any, dim: int, index: Any, source: Any) -> Any:
    """``x.index_copy_(dim, index, source)``: ``index_copy``, written into ``x``."""
    return _update("index_copy_", index_copy, index_copy_p, x, dim, index, source)


def index_fill_(x: Any, dim: int, index: Any, value: Any) -> Any:
    """``x.index_fill_(dim, index, value)``: ``index_fill``, written into ``x``."""
    return _update("index_fill_", index_fill, index_fill_p, x, dim, index, value)


def masked_fill_(x: Any, mask: Any, value: Any) -> Any:
    """``x.masked_fill_(mask, value)``: ``masked_fill``, written into ``x`` (the mask may
    broadcast to x's shape, never x to the mask's)."""
    _check_no_broadcast("masked_fill_", x, mask)
    return _update("masked_fill_", masked_fill, masked_fill_p, x, mask, value)


def masked_scatter_(x: Any, mask: Any, source: Any) -> Any:
    """``x.masked_scatter_(mask, source)``: ``masked_scatter``, written into ``x``."""
    _check_no_broadcast("masked_scatter_", x, mask)
    return _update("masked_scatter_", masked_scatter, masked_scatter_p, x, mask, source)


for _name, _fn in (("index_add_", index_add_), ("index_copy_", index_copy_),
                   ("index_fill_", index_fill_), ("masked_fill_", masked_fill_),
                   ("masked_scatter_", masked_scatter_)):
    setattr(Tracer, _name, _fn)  # h.index_add_(0, idx, src), as on a PyTorch tensor

__all__ = ["InPlaceError", "index_add_", "index_copy_", "index_fill_", "masked_fill_",
           "masked_scatter_"]

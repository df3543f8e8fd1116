"""Rebinding: how an in-place update (``h.index_add_(...)``) is expressed under a transform.

A transform's values are immutable: the update computes the out-of-place result, a new tracer,
and then the tracer ``h`` is *rebound* to it: the same Python object now stands for the updated
value (its trace's fields are copied over), so every name for ``h`` (``y = h`` before the
update) sees the update, as in PyTorch. No primitive is added: the program holds the
out-of-place op.

Two updates cannot be expressed this way and raise instead of giving a different answer than
NumPy would:

* an update whose result belongs to a transform inside ``h``'s (``h`` captured from outside,
  updated with a value of the transform running now): ``h``'s transform cannot see it;
* an update of a *view* of a tracer (the result of reshape or basic indexing), or of a tracer
  that has a view still alive: eagerly the update shows through the view, and a tracer is no
  view. ``note_view`` records views, by weak reference, on their trace.

The augmented operators (``x += y``) on tracers are such updates too (``augmented``), as they
are on NumPy arrays; and where NumPy returns a copy, a function returns a new tracer
(``fresh``), never ``x`` itself, which a later update of ``x`` would change.
"""

from __future__ import annotations

import weakref
from typing import Any, Callable

import numpy as np

from minigrad.core import Trace, Tracer, Zero, get_aval, set_current_trace, tangent_dtype
from minigrad.jaxpr import JaxprTrace, JaxprTracer
from minigrad.ops.elementwise import convert_element_type
from minigrad.ops.structural import bdim_to_front, instantiate
from minigrad.transforms.jvp import JVPTrace, JVPTracer
from minigrad.transforms.vmap import BatchTrace, BatchTracer


class InPlaceError(ValueError):
    """An in-place update that cannot be expressed under the transforms running."""


# What works instead, in the errors below: the out-of-place op's result is a value of the
# transform running now (``x = x * 1`` is not: a copy of a captured value is captured too).
_OUT_OF_PLACE = ("Use the out-of-place op and its result instead (x = mg.index_add(x, ...) for "
                 "mg.index_add_(x, ...), x = x + y for x += y)")


def untraced_target(what: str, transform: str, x: str = "x") -> InPlaceError:
    """The error for an update of a NumPy array ``x`` with a value traced by ``transform``."""
    return InPlaceError(
        f"{what}: {x} is a NumPy array, not a value of {transform}: an array captured from "
        f"outside the transformed function, or an argument the transform does not trace (one "
        f"vmap leaves unmapped, one grad does not differentiate); and the update depends on "
        f"the traced arguments, which a NumPy array cannot hold. {_OUT_OF_PLACE}, or make {x} "
        f"traced: map it, differentiate with respect to it, or pass it to jit or "
        f"functionalize as an argument (they write its updates back)")


def _slots(cls: type) -> list[str]:
    return [s for c in cls.__mro__ for s in getattr(c, "__slots__", ()) if s != "__weakref__"]


def _views(trace: Trace) -> list[tuple[weakref.ref, Tracer]]:
    views = trace.__dict__.get("views")
    if views is None:
        views = trace.__dict__["views"] = []
    return views  # type: ignore[no-any-return]


def note_view(view: Any, base: Any) -> Any:
    """Record that the tracer ``view`` may be a view of the tracer ``base`` (as NumPy's reshape
    or basic indexing would make it); returns ``view``."""
    if isinstance(view, Tracer) and isinstance(base, Tracer) and view is not base:
        _views(view._trace).append((weakref.ref(view), base))
    return view


def note_number(x: Tracer) -> None:
    """Record that ``x`` stands for a Python number (an argument jit converted to an array):
    ``x += 1`` then makes a new value, as it does on the number (of another type, maybe: True
    + 1 is 2), instead of updating x."""
    x._trace.__dict__.setdefault("numbers", set()).add(id(x))


def check_updatable(x: Tracer, what: str) -> None:
    """Raise unless ``x`` may be updated in place under its transform."""
    views = _views(x._trace)
    views[:] = [(ref, base) for ref, base in views if ref() is not None]  # the live ones
    if any(ref() is x for ref, _ in views):
        raise InPlaceError(
            f"{what}: x is a view (the result of reshape, transpose or basic indexing) of a "
            f"value of {x._trace.transform}; an in-place update of it would have to write "
            f"through to that value, which a transform cannot do. Update the value itself, or "
            f"make x its own array first (x = x * 1)")
    if any(base is x for ref, base in views):
        raise InPlaceError(
            f"{what}: x has a view still alive (a reshape, transpose or basic indexing of it), "
            f"which NumPy would show the update through and a transform cannot. Take the view "
            f"after the update, or drop it (del) before updating x")


def rebind(x: Tracer, out: Any, what: str) -> Tracer:
    """Make the tracer ``x`` stand for ``out``, the updated value; returns ``x``."""
    trace = x._trace
    if isinstance(out, Tracer) and out._trace is not trace and out._trace.inside(trace):
        raise InPlaceError(
            f"{what}: x is a value of {trace.transform}, captured from outside the function "
            f"{out._trace.transform} is transforming, and the update depends on that "
            f"function's arguments: the captured value cannot hold it. {_OUT_OF_PLACE}, and "
            f"return the result")
    new = out if isinstance(out, Tracer) and out._trace is trace else _lift(trace, out)
    for slot in _slots(type(x)):
        object.__setattr__(x, slot, object.__getattribute__(new, slot))
    return x


def fresh(x: Tracer) -> Tracer:
    """A new tracer for ``x``'s value: what NumPy's copy is under a transform (no equation; a
    later update of ``x`` rebinds ``x``, not this one)."""
    new = object.__new__(type(x))
    for slot in _slots(type(x)):
        object.__setattr__(new, slot, object.__getattribute__(x, slot))
    return new


def augmented(fn: Callable[[Any, Any], Any], symbol: str) -> Callable[[Tracer, Any], Tracer]:
    """``x += y`` (``symbol``) on a tracer, as on a NumPy array: an in-place update, ``x``
    rebound to ``fn(x, y)`` cast to x's dtype by NumPy's same_kind rule; x keeps its shape."""
    what = f"x {symbol} y"

    def update(x: Tracer, y: Any) -> Tracer:
        if id(x) in x._trace.__dict__.get("numbers", ()):
            return fn(x, y)  # type: ignore[no-any-return]
        check_updatable(x, what)
        out = fn(x, y)
        aval, new = x.aval, get_aval(out)
        if new.dtype != aval.dtype:  # (NumPy checks the casting first, then the shape)
            if not np.can_cast(new.dtype, aval.dtype, casting="same_kind"):
                raise TypeError(f"{what}: x must keep its dtype {aval.dtype} (it is updated in "
                                f"place), and NumPy's same_kind rule does not cast the "
                                f"result's {new.dtype} to it")
            out = convert_element_type(out, aval.dtype)
        if new.shape != aval.shape:
            raise ValueError(f"{what}: x must keep its shape {aval.shape} (it is updated in "
                             f"place); got a result of shape {new.shape}")
        return rebind(x, out, what)

    update.__name__ = f"__i{fn.__name__}__"
    return update


def _lift(trace: Trace, value: Any) -> Tracer:
    """``value`` (a constant to ``trace``: its update carried nothing of ``trace``, a zero
    tangent say) as one of ``trace``'s tracers."""
    if isinstance(trace, JVPTrace):
        aval = get_aval(value)
        with set_current_trace(trace.parent):
            zero = instantiate(Zero(type(aval)(aval.shape, tangent_dtype(aval.dtype))))
        return JVPTracer(trace, value, zero)
    if isinstance(trace, BatchTrace):
        with set_current_trace(trace.parent):
            return BatchTracer(trace, bdim_to_front(value, None, trace.axis_size), 0)
    if isinstance(trace, JaxprTrace):
        return JaxprTracer(trace, trace.atom(value))  # type: ignore[arg-type]
    raise TypeError(f"cannot rebind a tracer of {type(trace).__name__}")

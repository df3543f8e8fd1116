"""How jit's arguments alias, and the checks on the inputs a jitted function updates in place.

Eagerly, an update of one argument shows through every other name of its memory. A program has
no memory to share: so the same array passed twice is given to the function as one value (the
program is specialised to that aliasing: ``aliasing`` finds it, and it is part of jit's cache
key), and whatever the program cannot express raises before any work, naming the arguments
(``check_updates``): overlapping views of one array, an updated array the function also closes
over, a value of an outer transform written into a NumPy array.
"""

from __future__ import annotations

from typing import Any, Protocol, Sequence

import numpy as np
from numpy.lib.array_utils import byte_bounds

from minigrad.api_util import Paths
from minigrad.core import Tracer
from minigrad.jaxpr import ClosedJaxpr, Jaxpr
from minigrad.rebind import InPlaceError, check_updatable, untraced_target


class Entry(Protocol):
    """What the checks read of a jit cache entry (``minigrad.staging.api.Entry``)."""

    program: ClosedJaxpr
    mutated: tuple[int, ...]
    captured: list[Any]  # weak references to arrays


def aliasing(leaves: Sequence[Any]) -> tuple[tuple[int, ...] | None, list[tuple[int, int]]]:
    """How a call's leaves alias. ``same``: for each leaf, the first leaf that is the same
    array (the same tracer, or an ndarray of the same memory, shape, strides and dtype), or
    None when no two are; ``overlaps``: the pairs of other leaves that share memory
    (overlapping views of one array; disjoint views, a[::2] and a[1::2], do not)."""
    if len(leaves) < 2:  # (the common call: one argument)
        return None, []
    same = list(range(len(leaves)))
    first: dict[int, int] = {}
    arrays = []
    for i, x in enumerate(leaves):
        if isinstance(x, Tracer):
            same[i] = first.setdefault(id(x), i)
        elif isinstance(x, np.ndarray) and x.size:
            arrays.append((i, x))
    overlaps = []
    for i, j in _meeting(arrays):  # (i < j: the first of a group is met first)
        x, y = leaves[i], leaves[j]
        if (x.shape, x.strides, x.dtype) == (y.shape, y.strides, y.dtype) and \
                x.__array_interface__["data"][0] == y.__array_interface__["data"][0]:
            if same[j] == j:
                same[j] = same[i]
        elif _shares_memory(x, y):
            overlaps.append((i, j))
    if overlaps:  # an overlap is reported for the first leaf of each group
        overlaps = sorted({(min(same[i], same[j]), max(same[i], same[j])) for i, j in overlaps
                           if same[i] != same[j]})
    return (None if same == list(range(len(leaves))) else tuple(same)), overlaps


def _meeting(arrays: list[tuple[int, np.ndarray]]) -> list[tuple[int, int]]:
    """The pairs (i, j), i < j, whose memory bounds meet: compared pairwise in C when there
    are few arrays, by a sweep over their sorted bounds when there are many."""
    if len(arrays) <= 16:
        return [(i, j) for k, (i, x) in enumerate(arrays) for j, y in arrays[k + 1:]
                if np.may_share_memory(x, y)]
    spans = sorted((byte_bounds(x), i) for i, x in arrays)
    pairs = []
    for k, ((_, hi), i) in enumerate(spans):
        for (lo, _), j in spans[k + 1:]:
            if lo >= hi:
                break
            pairs.append((min(i, j), max(i, j)))
    return sorted(pairs)


def _shares_memory(x: np.ndarray, y: np.ndarray) -> bool:
    try:
        # (a bound on the work: NumPy's stubs list only -1 and 0, the runtime takes any int)
        return bool(np.shares_memory(x, y, max_work=10_000))  # type: ignore[arg-type]
    except np.exceptions.TooHardError:  # (strides too intricate to decide: assume they do)
        return True


def check_updates(name: str, entry: Entry, raw: list, leaves: list,
                  overlaps: list[tuple[int, int]], paths: Paths,
                  closed_over: Sequence[Any] = ()) -> None:
    """Before any work, as the eager update would: the inputs the function updates in place
    must be arrays it may write (``raw``: the caller's leaves, before conversion), able to
    hold their new values, and with no other name the program cannot show the update through
    (an overlapping view passed as another argument, an array or an outer transform's value
    the function closes over: those raise naming the arguments)."""
    if not entry.mutated:
        return
    mutated = set(entry.mutated)
    operands = [*closed_over, *leaves]
    traced: list[bool] | None = None
    tracers = [a for a in operands if isinstance(a, Tracer)]  # (none on the eval trace)
    for k, i in enumerate(entry.mutated):
        x = leaves[i]
        if isinstance(x, Tracer):
            check_updatable(x, name)  # (not a view of a tracer, nor one with a live view)
            if any(c is x for c in closed_over):
                raise InPlaceError(
                    f"{name}: the function updates {paths[i]} in place, and also closes over "
                    f"it: the program reads the closed-over value as it was. Pass it as an "
                    f"argument only")
            continue
        if not isinstance(raw[i], np.ndarray):  # a number, converted: not the caller's array
            raise TypeError(f"{name}: the function updates {paths[i]} in place, so it must "
                            f"be a NumPy array; got {type(raw[i]).__name__}")
        if not x.flags.writeable:  # (an ndarray subclass, np.memmap say, is written through x)
            raise ValueError(f"{name}: the function updates {paths[i]} in place, and that "
                             f"array is read-only")
        if tracers and traced is None:  # under a transform, whose values an array cannot hold
            traced = _depends(entry.program.jaxpr, [isinstance(a, Tracer) for a in operands])
        if traced is not None and traced[len(traced) - len(entry.mutated) + k]:
            raise untraced_target(name, tracers[0]._trace.transform, paths[i])
        captured = [c for c in (ref() for ref in entry.captured) if c is not None]
        if any(np.may_share_memory(x, c) and _shares_memory(x, c) for c in captured):
            raise InPlaceError(
                f"{name}: the function updates {paths[i]} in place, and that array is also "
                f"one it closes over (they share memory): the program reads the captured "
                f"array as it was traced, not as updated. Pass the array as an argument only, "
                f"or a copy of it")
    for i, j in overlaps:
        if i in mutated or j in mutated:
            k, other = (i, j) if i in mutated else (j, i)
            raise InPlaceError(
                f"{name}: {paths[k]} and {paths[other]} are overlapping views of one array "
                f"(they share memory, and are not the same array), and the function updates "
                f"{paths[k]} in place: eagerly the update would show through {paths[other]}, "
                f"which the program cannot express. Pass the same array for both, or a copy "
                f"for one")


def _depends(jaxpr: Jaxpr, flags: list[bool]) -> list[bool]:
    """For each output of ``jaxpr``: does it depend on an input whose flag is set?"""
    marked = {id(v) for v, f in zip(jaxpr.invars, flags, strict=True) if f}
    if marked:
        for e in jaxpr.eqns:
            if any(id(a) in marked for a in e.inputs):
                marked.update(id(v) for v in e.outs)
    return [id(v) in marked for v in jaxpr.outvars]

"""Frozen values: what a kept program (make_jaxpr's, jit's) holds of the arrays it captured.

A program that outlives the call that traced it must not see a later write into an array it
captured, nor let a caller write into a value it holds: so it holds read-only copies, made at
trace time (as JAX's device arrays are copies, and immutable). ``released`` gives a caller a
writable copy of such a value where a program would hand it out.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

# The read-only copies ``frozen`` made, by id (weakly: a copy dies with the last program that
# holds it). A program's values are never written, so one copy serves every program derived
# from it (its JVP, its transpose, a jit that calls it).
_frozen: weakref.WeakValueDictionary[int, np.ndarray] = weakref.WeakValueDictionary()


def is_frozen(x: Any) -> bool:
    """Whether ``x`` is a read-only copy made by ``frozen``, or a read-only view of one."""
    while isinstance(x, np.ndarray):
        if _frozen.get(id(x)) is x:
            return True
        if x.flags.writeable:
            return False
        x = x.base
    return False


def frozen(x: Any) -> Any:
    """What a kept program holds of an array it captured: a read-only copy of ``x`` that
    nothing else references, so a later write into ``x`` never reaches the program, and a
    write into a value the program hands out raises instead of changing the program. (Made
    at trace time only; anything else, a tracer or a NumPy scalar, is returned as it is.)"""
    if not isinstance(x, np.ndarray) or is_frozen(x):
        return x
    copy = np.array(x, copy=True, subok=False)
    copy.flags.writeable = False
    _frozen[id(copy)] = copy
    return copy


def released(values: list[Any]) -> list[Any]:
    """``values``, as a program hands them to its caller: a writable copy of each that is (or
    views) a frozen value of the program, so a result never aliases the program's state."""
    return [x.copy() if is_frozen(x) else x for x in values]


__all__ = ["frozen", "is_frozen", "released"]

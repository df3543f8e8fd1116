"""Types in control flow: a branch's outputs against another's and a loop's carry against its
body's (JAX's ``typematch``: shapes and dtypes, whatever the weak flags), the errors that show
both sides, and the promotion of a weakly typed carry to the type its body gives it."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from minigrad.core import ShapedArray, Tracer, typematch
from minigrad.lax.common import aval_of
from minigrad.ops.elementwise import convert_element_type
from minigrad.tree import PyTreeDef, leaf_paths


def same_types(xs: Sequence[ShapedArray], ys: Sequence[ShapedArray]) -> bool:
    """Equal shapes and dtypes, position by position, whatever the weak flags (JAX's
    ``typematch``: a weak ``0.0`` carry fits the strong f64 the body returns)."""
    return len(xs) == len(ys) and all(typematch(x, y) for x, y in zip(xs, ys, strict=True))


def check_same_types(what: str, names: tuple[str, str], trees: tuple[PyTreeDef, PyTreeDef],
                     avals: tuple[Sequence[ShapedArray], Sequence[ShapedArray]], root: str,
                     fix: str) -> None:
    """Raise TypeError unless the two outputs (of two branches, or a carry in and out) have
    one pytree structure and equal shapes and dtypes, naming the first leaf that differs and
    showing both sides."""
    a, b = names
    if trees[0] != trees[1]:
        raise TypeError(f"{what}: {a} and {b} must have the same pytree structure; {a} is "
                        f"{trees[0]} and {b} is {trees[1]} (* is an array). {fix}")
    for path, x, y in zip(leaf_paths(trees[0], root), avals[0], avals[1], strict=True):
        if not typematch(x, y):
            part = "shapes" if x.shape != y.shape else "dtypes"
            raise TypeError(f"{what}: {a} and {b} must have equal types; {path} is "
                            f"{x.str_short()} in {a} and {y.str_short()} in {b} (the {part} "
                            f"differ). {fix}")


def describe(value: Any) -> str:
    """A value, in an error message: an array by its type, a container by its kind."""
    if isinstance(value, (Tracer, np.ndarray, np.generic)):
        return f"an array {aval_of(value).str_short()}"
    return f"a {type(value).__name__}"


def promote_weak(leaves: list[Any], avals: Sequence[ShapedArray],
                 body_avals: Sequence[ShapedArray]) -> tuple[list[Any], list[ShapedArray], bool]:
    """A loop's carry with each weakly typed leaf (a Python scalar, a weak tracer) whose body
    output has another dtype that the weak value promotes to (``0`` or ``0.5`` to float32,
    not ``0.5`` to int32) converted to it, as JAX does; the new avals; and whether any leaf
    changed: then the body is traced again, at the promoted types."""
    out, new_avals, changed = list(leaves), list(avals), False
    for k, (a, b) in enumerate(zip(avals, body_avals, strict=False)):
        if a.weak_type and a.shape == b.shape and a.dtype != b.dtype:
            kind = _KIND_SCALAR.get(a.dtype.kind)
            if kind is not None and np.result_type(kind, b.dtype) == b.dtype:
                out[k] = convert_element_type(leaves[k], b.dtype, weak_type=False)
                new_avals[k] = ShapedArray(b.shape, b.dtype)
                changed = True
    return out, new_avals, changed


# a Python scalar of each weak kind: NumPy 2 promotes it as JAX promotes a weak type
_KIND_SCALAR: dict[str, Any] = {"i": 0, "u": 0, "f": 0.0, "c": 0j}


def strong(avals: Sequence[ShapedArray]) -> list[ShapedArray]:
    """The types of a control-flow primitive's outputs: strong, as every multiple-result
    primitive's are (``core.result_weak_type``), whatever its body's."""
    return [ShapedArray(a.shape, a.dtype) for a in avals]


__all__ = ["check_same_types", "describe", "promote_weak", "same_types", "strong"]

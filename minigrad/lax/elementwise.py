"""Elementwise functions of ``jax.lax`` over minigrad's primitives: ``select``."""

from __future__ import annotations

from typing import Any

from minigrad.api_util import as_operand
from minigrad.core import get_aval
from minigrad.ops.elementwise import select_p
from minigrad.ops.structural import broadcast_to


def select(pred: Any, on_true: Any, on_false: Any) -> Any:
    """``on_true`` where ``pred`` holds, ``on_false`` elsewhere (JAX's ``lax.select``): the
    operands have one shape and dtype, never promoted or broadcast; ``pred`` is bool, of
    their shape or a scalar. JVP: the select of the tangents; transpose: the cotangent to the
    chosen side, zeros to the other.

    >>> import minigrad as mg, numpy as np
    >>> mg.lax.select(np.array([True, False]), np.array([1.0, 2.0]), np.array([3.0, 4.0]))
    Array([1., 4.], dtype=float64)
    """
    pred = as_operand(pred, "select", "pred")
    on_true = as_operand(on_true, "select", "on_true")
    on_false = as_operand(on_false, "select", "on_false")
    p, x, y = get_aval(pred), get_aval(on_true), get_aval(on_false)
    if p.dtype.kind != "b":
        raise TypeError(f"select: pred must be bool; got {p.str_short()} (JAX also takes an "
                        f"integer pred, as select_n's index; here compare first: pred != 0)")
    if x.shape != y.shape:
        raise TypeError(f"select: on_true and on_false must have one shape; got "
                        f"{x.str_short()} and {y.str_short()} (lax.select never broadcasts: "
                        f"minigrad.numpy.where does)")
    if x.dtype != y.dtype:
        raise TypeError(f"select: on_true and on_false must have one dtype; got "
                        f"{x.str_short()} and {y.str_short()} (lax.select never promotes: "
                        f"minigrad.numpy.where does)")
    if p.shape not in ((), x.shape):
        raise TypeError(f"select: pred must be a scalar or have the operands' shape {x.shape}; "
                        f"got {p.str_short()}")
    if p.shape != x.shape:
        pred = broadcast_to(pred, x.shape)
    return select_p.bind(pred, on_true, on_false)


__all__ = ["select"]

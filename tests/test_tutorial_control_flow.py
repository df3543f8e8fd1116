"""The exercise at the end of docs/tutorial-control-flow.md, solved and checked, with a broken
variant the same check rejects.

``cumsum`` written with ``lax.scan``: its transpose (``linear_transpose``) is one scan with
``reverse=True`` whose values are the reversed cumulative sums; the backward scan of ``grad``
through ``scan(lambda c, x: (c + w * x, c), 0, xs)`` carries two values: the carry's cotangent
and the accumulator of ``w``'s cotangent (a linear constant of the tangent loop).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg
from minigrad import lax
from minigrad import numpy as mnp


def cumsum(xs: Any) -> Any:
    """ys[i] = xs[0] + ... + xs[i]: the carry after adding x_i is y_i."""
    def step(c: Any, x: Any) -> tuple:
        c = c + x
        return c, c

    return lax.scan(step, mnp.zeros((), xs.dtype), xs)[1]


def exclusive_cumsum(xs: Any) -> Any:
    """The broken variant: y_i is the carry before x_i (xs[0] + ... + xs[i-1])."""
    return lax.scan(lambda c, x: (c + x, c), mnp.zeros((), xs.dtype), xs)[1]


def check_transpose_is_a_reverse_scan(f: Callable[[Any], Any]) -> None:
    xs = np.array([1.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal(f(xs), np.cumsum(xs))
    transposed = mg.linear_transpose(f, xs)
    program = mg.make_jaxpr(transposed)(np.ones(4))
    (scan,) = [e for e in program.eqns if e.prim.name == "scan"]
    assert scan.params["reverse"] is True
    (ct,) = transposed(xs)
    np.testing.assert_array_equal(ct, np.cumsum(xs[::-1])[::-1])


def backward_scan_carries(xs: np.ndarray) -> int:
    def loss(w: Any) -> Any:
        return mnp.sum(lax.scan(lambda c, x: (c + w * x, c), np.float64(0.0), xs)[1])

    program = mg.make_jaxpr(mg.grad(loss))(np.float64(0.5))
    (backward,) = [e for e in program.eqns if e.prim.name == "scan" and e.params["reverse"]]
    return int(backward.params["num_carry"])


def test_solution() -> None:
    check_transpose_is_a_reverse_scan(cumsum)
    # the cotangent of the carry, and the accumulator of w's cotangent
    assert backward_scan_carries(np.arange(5.0)) == 2


def test_broken_variant_is_rejected() -> None:
    with pytest.raises(AssertionError):
        check_transpose_is_a_reverse_scan(exclusive_cumsum)

"""stop_gradient: the identity, with a zero derivative.

Its value is its operand's; its tangent is a symbolic zero, so no derivative flows through it
(forward or reverse: a zero tangent is never staged into a linear program, so the primitive
needs no transpose rule). Under ``vmap`` it is an elementwise identity; under ``jit`` its impl
returns its operand, as eagerly. ``minigrad.lax.stop_gradient`` maps it over a pytree.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from minigrad.core import Primitive, ShapedArray, Zero, get_aval, tangent_dtype
from minigrad.ops.structural import vectorized_batch

stop_gradient_p = Primitive("stop_gradient")


def stop_gradient(x: Any) -> Any:
    """``x``, with a zero derivative: ``grad(lambda x: x * stop_gradient(x))(3.0) == 3.0``.

    >>> import minigrad as mg, numpy as np
    >>> mg.grad(lambda x: x * stop_gradient(x))(np.float64(3.0))
    Array(3., dtype=float64)
    """
    return stop_gradient_p.bind(x)


@stop_gradient_p.def_impl
def _stop_gradient_impl(x: np.ndarray) -> np.ndarray:
    # The value itself, not a copy: the identity costs nothing (the executor and the
    # transforms' results copy a value that may alias an argument before handing it out).
    return x


@stop_gradient_p.def_abstract_eval
def _stop_gradient_abstract_eval(x: ShapedArray) -> ShapedArray:
    return x


@stop_gradient_p.def_jvp
def _stop_gradient_jvp(primals: tuple, tangents: tuple) -> tuple:
    # out_dot = 0
    (x,), _ = primals, tangents
    out = stop_gradient(x)
    aval = get_aval(out)
    return out, Zero(ShapedArray(aval.shape, tangent_dtype(aval.dtype)))


# an elementwise identity: the batch axis stays where it is
stop_gradient_p.def_batch(partial(vectorized_batch, stop_gradient_p))

__all__ = ["stop_gradient", "stop_gradient_p"]

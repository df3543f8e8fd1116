"""What ``minigrad.scipy``'s functions share: JAX's ``promote_args_inexact`` (every operand
real, promoted to one floating dtype and broadcast to one shape)."""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.core import get_aval
from minigrad.numpy.util import ArrayLike, float_dtype, promote

__all__ = ["inexact"]


def inexact(fn: str, *xs: ArrayLike, names: tuple[str, ...] = ()) -> list[Any]:
    """``xs`` promoted to one float dtype (an integer or bool operand alone gives the default
    float) and broadcast together; ``fn`` and ``names`` name them in the errors."""
    labels = names or tuple(f"argument {i}" for i in range(len(xs)))
    for label, x in zip(labels, xs, strict=True):
        if x is None or isinstance(x, (str, bytes)):
            raise TypeError(f"{fn}: {label} must be a real array or number; got "
                            f"{type(x).__name__}")
        dtype = getattr(x, "dtype", None)
        if isinstance(x, complex) or (isinstance(dtype, np.dtype) and dtype.kind not in "biuf"):
            raise TypeError(f"{fn}: {label} must be real; got "
                            f"{'a complex number' if dtype is None else f'dtype {dtype}'}")
    try:
        out = promote(*xs, dtype=float_dtype(*xs), name=fn)
    except TypeError as e:  # (a list of strings, an object ...)
        raise TypeError(f"{fn}: operands must be real arrays or numbers ({e})") from None
    for label, x in zip(labels, out, strict=True):
        if get_aval(x).dtype.kind != "f":
            raise TypeError(f"{fn}: {label} must be real; got dtype {get_aval(x).dtype}")
    return out

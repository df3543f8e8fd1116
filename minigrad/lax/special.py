"""``lax.betainc``: the regularized incomplete beta ``I_x(a, b)`` by name, over the
``regularized_incomplete_beta`` primitive (``ops/betainc.py``).

>>> import minigrad.lax as lax, numpy as np
>>> lax.betainc(1.0, 2.0, np.array([0.1, 0.5]))  # 1 - (1 - x)^2
Array([0.19, 0.75], dtype=float64)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.core import get_aval
from minigrad.lax.lax_ops import check_kind, same_operands
from minigrad.ops import betainc as _bi
from minigrad.ops import elementwise as ew

__all__ = ["betainc"]


def betainc(a: Any, b: Any, x: Any) -> Any:
    """``I_x(a, b) = 1/B(a, b) int_0^x t^(a-1) (1-t)^(b-1) dt``, elementwise; operands of one
    float dtype (lax never promotes; rank-0 operands broadcast). Differentiable in ``x`` only,
    as JAX's. float16 runs in float32, the result rounded back (as XLA upcasts it)."""
    a, b, x = same_operands("betainc", a, b, x, names=("a", "b", "x"))
    check_kind("betainc", a, "f", "a")
    dtype = get_aval(a).dtype
    if dtype.itemsize >= 4:
        return _bi.betainc(a, b, x)
    up = [ew.convert_element_type(v, np.dtype(np.float32)) for v in (a, b, x)]
    return ew.convert_element_type(_bi.betainc(*up), dtype)

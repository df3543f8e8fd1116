"""``lax.Precision``: JAX's matmul-precision enum, accepted for compatibility.

On accelerators JAX's precision trades speed for accuracy in float32 products. NumPy computes
every product at its dtype's full precision, so here the value is checked, carried in the
jaxpr, and has no effect on the result.
"""

from __future__ import annotations

import enum
from typing import Any

_NAMES = {"default": "DEFAULT", "fastest": "DEFAULT", "bfloat16": "DEFAULT",
          "high": "HIGH", "bfloat16_3x": "HIGH", "tensorfloat32": "HIGH",
          "highest": "HIGHEST", "float32": "HIGHEST"}


class Precision(enum.Enum):
    """``DEFAULT``, ``HIGH`` or ``HIGHEST`` (or their names as strings: ``Precision('highest')``);
    NumPy always computes at full precision, so all three give the same result here.

    >>> from minigrad.lax import Precision
    >>> Precision("highest"), Precision.HIGH
    (Precision.HIGHEST, Precision.HIGH)
    """

    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    @classmethod
    def _missing_(cls, value: object) -> Precision | None:
        name = _NAMES.get(value.lower()) if isinstance(value, str) else None
        return cls[name] if name is not None else None

    def __repr__(self) -> str:
        return f"Precision.{self.name}"

    def __str__(self) -> str:
        return self.name


CanonicalPrecision = tuple[Precision, Precision] | None


def canonicalize_precision(precision: Any, fn: str) -> CanonicalPrecision:
    """None, or one ``Precision`` per operand, from JAX's spellings: None, a ``Precision``,
    a name ('highest', 'float32', ...), or a pair of either."""
    def one(p: Any) -> Precision | None:
        if isinstance(p, Precision):
            return p
        try:
            return Precision(p) if isinstance(p, str) else None
        except ValueError:
            return None

    if precision is None:
        return None
    pair = tuple(precision) if isinstance(precision, (tuple, list)) else (precision, precision)
    canonical = tuple(one(p) for p in pair)
    if len(canonical) != 2 or None in canonical:
        raise ValueError(f"{fn}: precision must be None, a lax.Precision, one of the names "
                         f"{sorted(_NAMES)}, or a pair of them (one per operand); got "
                         f"{precision!r}")
    return canonical  # type: ignore[return-value]


__all__ = ["Precision", "canonicalize_precision"]

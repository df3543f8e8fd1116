"""The command line. For now: a demonstration of vmap(grad(f)) over index_add."""

from __future__ import annotations

import sys
from typing import Sequence

import numpy as np


def demo() -> int:
    import minigrad as mg
    from minigrad import numpy as mnp

    def loss(x: np.ndarray, index: np.ndarray, source: np.ndarray) -> np.ndarray:
        return mnp.sum(mnp.tanh(mg.index_add(x, 0, index, source)) ** 2)

    x = np.linspace(-1.0, 1.0, 12).reshape(4, 3)
    source = np.ones((2, 3))
    indices = np.array([[0, 0], [1, 3], [2, 2]])
    per_example = mg.vmap(mg.grad(loss), in_axes=(None, 0, None))(x, indices, source)
    looped = np.stack([mg.grad(loss)(x, i, source) for i in indices])
    print("minigrad: per-example gradients of a loss through index_add")
    print(mg.make_jaxpr(mg.vmap(mg.grad(loss), in_axes=(None, 0, None)))(x, indices, source))
    print(f"vmap(grad) == loop of grad: {np.allclose(per_example, looped)}")
    return 0 if np.allclose(per_example, looped) else 1


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] not in ("demo",):
        print(f"minigrad: unknown command {args[0]!r}; available: demo", file=sys.stderr)
        return 2
    return demo()

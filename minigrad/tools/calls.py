"""The call of each op in PyTorch and in JAX, as Python source text, for the golden vectors.

``torch_call`` and ``jax_call`` give an expression in the op's array arguments (``x``,
``index``, ``source``, ``mask``, ``value``) and its parameters (``dim``, ``alpha``, a
Python-scalar ``value``), written for one sample's shapes, so a consumer of the vectors builds
the other framework's function with no table of its own::

    fn = eval(f"lambda {', '.join(args)}: {call}", {"torch": torch, **params})

PyTorch's five ops take minigrad's arguments in minigrad's order (minigrad follows PyTorch's
signatures). JAX has none of them: its expressions are the ``.at[]`` updates and ``jnp.where``
that ``python -m minigrad crosscheck --against jax`` compares with
(``minigrad.testing.frameworks.Jax``), and ``masked_scatter`` is the static-shape form of
``jnp.place``.

>>> import numpy as np
>>> arrays = {"x": np.zeros((2, 5)), "index": np.array([1, 3]), "source": np.ones((2, 2))}
>>> torch_call("index_add", {"dim": 1, "alpha": 2.0}, arrays)
'torch.index_add(x, dim, index, source, alpha=alpha)'
>>> jax_call("index_add", {"dim": 1, "alpha": 2.0}, arrays)
'x.at[:, index].add(alpha * source)'
"""

from __future__ import annotations

import inspect
from typing import Any, Mapping

import numpy as np

# The modules each framework's expressions use, by the name they use them under.
IMPORTS = {"torch": {"torch": "torch"}, "jax": {"jnp": "jax.numpy"}}
# The loss whose per-example gradients the vectors hold, in each framework.
LOSS = {"torch": "(torch.sin(out) * loss_w).sum()", "jax": "(jnp.sin(out) * loss_w).sum()"}
# The index dtypes PyTorch takes (minigrad takes any integer dtype).
_TORCH_INDEX = {"index_add": ("int32", "int64")}


def torch_call(op: str, params: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> str:
    """``torch.<op>(...)`` with minigrad's arguments, the index cast where PyTorch needs it."""
    import minigrad

    words = []
    for p in inspect.signature(getattr(minigrad, op)).parameters.values():
        word = p.name
        if word == "index" and arrays["index"].dtype.name not in _TORCH_INDEX.get(op, ("int64",)):
            word = "index.long()"
        words.append(word if p.default is inspect.Parameter.empty else f"{p.name}={word}")
    return f"torch.{op}({', '.join(words)})"


def jax_call(op: str, params: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> str:
    """The JAX expression of ``op`` on these shapes (PyTorch's conventions: a 0-d x is one
    slice, a 0-d index one entry)."""
    if op == "masked_fill":
        return "jnp.where(mask, value, x)"
    if op == "masked_scatter":
        # position k of the mask takes source[count of true positions up to k, minus 1]; the
        # appended 0 is what index -1 (no true position yet, so not written) reads
        shape = np.broadcast_shapes(arrays["x"].shape, arrays["mask"].shape)
        return (f"jnp.where(mask, jnp.append(source.ravel(), 0)[jnp.cumsum(jnp.broadcast_to("
                f"mask, {shape})) - 1].reshape({shape}), x)")
    how = {"index_add": "add", "index_copy": "set", "index_fill": "set"}[op]
    update = {"index_add": "alpha * source", "index_copy": "source", "index_fill": "value"}[op]
    index = "index" if arrays["index"].ndim == 1 else "index.reshape(1)"
    x_rank = arrays["x"].ndim
    if x_rank == 0:
        if op != "index_fill":
            update = update.replace("source", "source.reshape(1)")
        return f"x.reshape(1).at[{index}].{how}({update}).reshape(())"
    where = ":, " * (params["dim"] % x_rank) + index
    return f"x.at[{where}].{how}({update})"


def calls(op: str, argnames: tuple[str, ...], params: Mapping[str, Any],
          arrays: Mapping[str, np.ndarray]) -> dict[str, dict[str, Any]]:
    """The manifest's ``calls`` of one entry: per framework, the expression and its imports."""
    return {"torch": {"call": torch_call(op, params, arrays), "args": list(argnames),
                      "imports": IMPORTS["torch"]},
            "jax": {"call": jax_call(op, params, arrays), "args": list(argnames),
                    "imports": IMPORTS["jax"]}}

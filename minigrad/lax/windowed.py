"""``jax.lax.reduce_window`` and ``reduce_window_shape_tuple``.

A sum, max or min with its identity as the initial value (``0``, ``-inf``, ``+inf``; the
dtype's extremes for integers) is one primitive of ``minigrad/ops/windowed.py``, with every
rule. Any other computation (a product, a pair of arrays reduced together, an initial value
that is not the identity) is a composite: the operand is padded and dilated with the initial
value, and the computation folds the window's elements in, one window offset at a time (each
step works on every output position at once), starting from the initial value. Padding and
holes are skipped, as JAX does on CPU. Every transform differentiates the composite through
the primitives it binds (JAX's generic ``reduce_window`` has no reverse mode).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from minigrad import numpy as mnp
from minigrad.core import Tracer, get_aval
from minigrad.lax.convolution import ints, pad_pairs, padtype_to_pads
from minigrad.numpy.util import asarray
from minigrad.ops import elementwise as ew
from minigrad.ops.structural import broadcast_in_dim, slice_array
from minigrad.ops.windowed import (
    dilate_dim,
    dilate_pad,
    identity,
    pad_general,
    reduce_window_max_p,
    reduce_window_min_p,
    reduce_window_sum_p,
    window_out_shape,
    window_params,
)
from minigrad.tree import tree_flatten, tree_unflatten

_PRIMITIVES = {"sum": reduce_window_sum_p, "max": reduce_window_max_p,
               "min": reduce_window_min_p}


def reduce_window_shape_tuple(operand_shape: Sequence[int], window_dimensions: Sequence[int],
                              window_strides: Sequence[int], padding: Sequence[tuple[int, int]],
                              base_dilation: Sequence[int] | None = None,
                              window_dilation: Sequence[int] | None = None) -> tuple[int, ...]:
    """The output shape of ``reduce_window`` (explicit padding pairs).

    >>> reduce_window_shape_tuple((4, 5), (2, 2), (2, 1), ((0, 0), (1, 1)))
    (2, 6)
    """
    fn = "reduce_window_shape_tuple"
    n = len(operand_shape)
    params = window_params(n, ints(window_dimensions, fn, "window_dimensions", n, per="axis"),
                           ints(window_strides, fn, "window_strides", n, per="axis"),
                           pad_pairs(padding, fn, n),
                           ints(base_dilation, fn, "base_dilation", n, per="axis"),
                           ints(window_dilation, fn, "window_dilation", n, per="axis"))
    return window_out_shape(tuple(int(s) for s in operand_shape), **params)


def _monoid(computation: Callable[..., Any], operands: list[Any], inits: list[Any]
            ) -> str | None:
    """'sum', 'max' or 'min' when the reduction is that monoid started at its identity (what
    JAX recognizes: then it is a primitive, with every rule); None otherwise."""
    if len(operands) != 1 or isinstance(inits[0], Tracer):
        return None
    known = {id(mnp.add): "sum", id(mnp.maximum): "max", id(mnp.minimum): "min"}
    kind = known.get(id(computation))
    module = getattr(computation, "__module__", None) or ""
    if kind is None and module.startswith("minigrad.lax"):  # lax.add, lax.max, lax.min
        kind = {"add": "sum", "max": "max", "min": "min"}.get(
            getattr(computation, "__name__", ""))
    if kind is None:
        return None
    dtype = get_aval(operands[0]).dtype
    value = np.asarray(inits[0])
    return kind if value == identity(kind, dtype) else None


def reduce_window(operand: Any, init_value: Any, computation: Callable[..., Any],
                  window_dimensions: Sequence[int], window_strides: Sequence[int] | None = None,
                  padding: str | Sequence[tuple[int, int]] = "VALID",
                  base_dilation: Sequence[int] | None = None,
                  window_dilation: Sequence[int] | None = None) -> Any:
    """Reduce every window of ``operand`` with ``computation`` from ``init_value`` (JAX's
    ``lax.reduce_window``; ``operand`` and ``init_value`` may be pytrees of one structure,
    reduced together). ``computation(acc, x)`` must be elementwise: it is applied to whole
    arrays, one window offset at a time. Padding names as in ``padtype_to_pads``.

    >>> import numpy as np, minigrad as mg
    >>> x = np.arange(1.0, 7.0)
    >>> reduce_window(x, -np.inf, mg.numpy.maximum, (2,), (2,))    # max pooling
    Array([2., 4., 6.], dtype=float64)
    >>> reduce_window(x, 1.0, mg.numpy.multiply, (2,))             # a product: a composite
    Array([ 2.,  6., 12., 20., 30.], dtype=float64)
    """
    fn = "reduce_window"
    flat, tree = tree_flatten(operand)
    flat_inits, init_tree = tree_flatten(init_value)
    if tree != init_tree:
        raise ValueError(f"{fn}: init_value must have the structure of operand {tree}; got "
                         f"{init_tree}")
    if not flat:
        raise ValueError(f"{fn}: operand must hold at least one array")
    if not callable(computation):
        raise TypeError(f"{fn}: computation must be a callable; got "
                        f"{type(computation).__name__}")
    operands = [asarray(x) for x in flat]
    shape = get_aval(operands[0]).shape
    if any(get_aval(x).shape != shape for x in operands):
        raise ValueError(f"{fn}: the operands must have one shape; got "
                         f"{[get_aval(x).str_short() for x in operands]}")
    inits = [_init(fn, v, get_aval(x).dtype) for v, x in zip(flat_inits, operands, strict=True)]
    n = len(shape)
    dims = ints(window_dimensions, fn, "window_dimensions", n, per="axis")
    strides = ints(window_strides, fn, "window_strides", n, per="axis")
    base = ints(base_dilation, fn, "base_dilation", n, per="axis")
    dilation = ints(window_dilation, fn, "window_dilation", n, per="axis")
    if isinstance(padding, str):
        pads = tuple(padtype_to_pads(shape, [dilate_dim(k, d) for k, d in
                                             zip(dims, dilation, strict=True)], strides,
                                     padding))
    else:
        pads = pad_pairs(padding, fn, n)
    for size, b, (lo, hi) in zip(shape, base, pads, strict=True):
        if dilate_dim(size, b) + lo + hi < 0:
            raise ValueError(f"{fn}: negative padding {pads} removes more than the operand "
                             f"{shape} has")
    params = window_params(n, dims, strides, pads, base, dilation)
    kind = _monoid(computation, operands, inits)
    if kind is not None:
        return tree_unflatten(tree, [_PRIMITIVES[kind].bind(operands[0], **params)])
    return tree_unflatten(tree, _fold(fn, operands, inits, computation, tree, params))


def _init(fn: str, value: Any, dtype: np.dtype) -> Any:
    """An initial value: a scalar of the operand's dtype (a Python number is converted)."""
    if isinstance(value, (bool, int, float, complex)):
        return asarray(np.asarray(value, dtype))
    value = asarray(value)
    aval = get_aval(value)
    if aval.shape != ():
        raise ValueError(f"{fn}: each init_value must be a scalar; got {aval.str_short()}")
    if aval.dtype != dtype:
        raise TypeError(f"{fn}: each init_value must have its operand's dtype {dtype}; got "
                        f"{aval.str_short()}")
    return value


def _fold(fn: str, operands: list[Any], inits: list[Any], computation: Callable[..., Any],
          tree: Any, params: dict[str, Any]) -> list[Any]:
    """The generic reduction: ``acc = computation(acc, x[window offset k])`` for each offset k
    in row-major order, from ``acc = init``, skipping the offsets where a window reads padding
    or a hole (a static mask)."""
    shape = get_aval(operands[0]).shape
    out_shape = window_out_shape(shape, **params)
    real = dilate_pad(np.ones(shape, bool), params["base_dilation"], params["padding"], False)
    config = [(lo, hi, b - 1) for (lo, hi), b in zip(params["padding"], params["base_dilation"],
                                                      strict=True)]
    filled = []
    for x, init in zip(operands, inits, strict=True):
        padded = pad_general(x, config)
        if not real.all():  # pads and holes hold the initial value
            padded = ew.select(real, padded, broadcast_in_dim(init, real.shape, ()))
        filled.append(padded)
    acc = [broadcast_in_dim(init, out_shape, ()) for init in inits]
    for k in np.ndindex(*params["window_dimensions"]):
        start = [ki * d for ki, d in zip(k, params["window_dilation"], strict=True)]
        limit = [s + (o - 1) * st + 1 if o else s for s, o, st in
                 zip(start, out_shape, params["window_strides"], strict=True)]
        where = real[tuple(slice(s, lim, st) for s, lim, st in
                           zip(start, limit, params["window_strides"], strict=True))]
        if not where.any():
            continue
        xs = [slice_array(f, start, limit, params["window_strides"]) for f in filled]
        new, new_tree = tree_flatten(computation(tree_unflatten(tree, acc),
                                                 tree_unflatten(tree, xs)))
        if new_tree != tree or any(get_aval(a) != get_aval(b) for a, b in
                                   zip(new, acc, strict=True)):
            raise TypeError(f"{fn}: computation must return the operands' structure {tree}, "
                            f"shapes and dtypes; got {[get_aval(v).str_short() for v in new]} "
                            f"for {[get_aval(v).str_short() for v in acc]}")
        acc = new if where.all() else [ew.select(where, a, b) for a, b in
                                        zip(new, acc, strict=True)]
    return acc


__all__ = ["reduce_window", "reduce_window_shape_tuple"]

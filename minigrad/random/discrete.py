"""Discrete samplers, as JAX 0.10.2 computes them: ``categorical``, ``permutation`` and
``choice``.

* ``categorical`` is the Gumbel-max trick: ``argmax(logits + gumbel)`` along the category axis;
  without replacement, the Gumbel top-k trick (``top_k`` of ``logits + gumbel``).
* ``permutation`` sorts by random 32-bit keys, stably, in ``ceil(3 ln n / ln(2**32 - 1))``
  rounds (0 for one element, 1 up to 1625, 2 beyond): each round splits the key and sorts the
  values by fresh ``bits``. Collisions of keys keep their order, and a second round makes a
  surviving collision unlikely.
* ``choice`` is ``randint`` and a gather (with replacement), a prefix of a ``permutation``
  (without), an inverse-CDF lookup ``searchsorted(cumsum(p), total * (1 - uniform))`` (with
  ``p``), or the Gumbel top-k trick on ``log(p)`` (``p`` without replacement).

XLA's CPU ``cumsum`` adds in blocks of 16 (``_xla_cumsum``): NumPy's running sum differs in the
last bit beyond 16 elements, which would move a ``choice`` across a boundary now and then.
"""

from __future__ import annotations

import math
import operator
from typing import Any, Sequence

import numpy as np

from minigrad.core import Tracer, get_aval
from minigrad.ops import elementwise as ew
from minigrad.ops import reductions as red
from minigrad.ops import special as sp
from minigrad.ops import structural as st
from minigrad.ops.sort import sort as sort_operands
from minigrad.random import _dtypes
from minigrad.random.keys import key_words, random_bits, shape_arg, split
from minigrad.random.samplers import _unit, gumbel

# --------------------------------------------------------------------------- helpers


def split_words(words: Any, n: int = 2) -> list[Any]:
    """``n`` raw keys split from the raw key ``words``."""
    keys = split(words, n)
    return [st.reshape(st.slice_array(keys, (i, 0), (i + 1, 2)), (2,)) for i in range(n)]


def _array(name: str, what: str, x: Any) -> Any:
    if isinstance(x, (list, tuple)):
        x = np.asarray(x)
    elif isinstance(x, (bool, int, float)):
        x = np.asarray(x, _dtypes.default_float() if isinstance(x, float)
                       else _dtypes.default_int())
    if not isinstance(x, (np.ndarray, np.generic, Tracer)):
        raise TypeError(f"{name}: {what} must be an array; got {type(x).__name__}")
    aval = get_aval(x)
    canon = _dtypes.canonical(aval.dtype)
    return x if canon == aval.dtype else ew.convert_element_type(x, canon)


def _axis(name: str, axis: Any, ndim: int) -> int:
    try:
        ax = operator.index(axis)
    except TypeError:
        raise TypeError(f"{name}: axis must be an int; got {axis!r}") from None
    if not -ndim <= ax < ndim:
        raise ValueError(f"{name}: axis {ax} is out of bounds for an array of rank {ndim}")
    return ax % ndim


def _take(x: Any, ind: Any, axis: int) -> Any:
    """``x``'s entries along ``axis`` at the in-range integer indices ``ind`` (any shape),
    which replace that axis."""
    from minigrad.numpy import take  # (the user layer's gather)

    return take(x, ind, axis=axis)


def _xla_cumsum(x: Any) -> Any:
    """The running sum of the 1-d ``x`` added in XLA CPU's order: blocks of 16 summed left to
    right, each block shifted by the running sum (the same scheme, recursively) of the block
    totals before it."""
    n = get_aval(x).shape[0]
    if n <= 16:
        return st.cumsum(x, 0)
    blocks = -(-n // 16)
    inner = st.cumsum(st.reshape(st.pad(x, [(0, blocks * 16 - n, 0)]), (blocks, 16)), 1)
    totals = st.reshape(st.slice_array(inner, (0, 15), (blocks, 16)), (blocks,))
    before = st.pad(st.slice_array(_xla_cumsum(totals), (0,), (blocks - 1,)), [(1, 0, 0)])
    out = ew.add(inner, st.broadcast_in_dim(before, (blocks, 16), (0,)))
    return st.slice_array(st.reshape(out, (blocks * 16,)), (0,), (n,))


def _top_k_indices(x: Any, k: int) -> Any:
    from minigrad.lax import top_k  # (ties: the lower index first, as XLA's)

    return top_k(x, k)[1]


# --------------------------------------------------------------------------- categorical


def categorical(key: Any, logits: Any, axis: int = -1, shape: Sequence[int] | None = None,
                replace: bool = True, mode: str | None = None) -> Any:
    """Category indices drawn with probabilities ``softmax(logits, axis)``: ``argmax`` of
    ``logits`` plus Gumbel noise (default int dtype). ``shape`` (default: ``logits``' shape
    without ``axis``) may add leading axes of independent draws. ``replace=False`` draws
    ``prod(leading axes)`` distinct categories per distribution (int32 indices, as JAX's
    ``top_k``). ``mode`` is ``gumbel``'s."""
    name = "categorical"
    words, _ = key_words(name, key)
    logits = _array(name, "logits", logits)
    aval = get_aval(logits)
    if aval.dtype.kind != "f":
        raise TypeError(f"{name}: logits must be a float array; got {aval.str_short()}")
    if aval.ndim == 0:
        raise ValueError(f"{name}: logits must have at least one axis (the categories); got "
                         f"a scalar")
    ax = _axis(name, axis, aval.ndim)
    batch_shape = aval.shape[:ax] + aval.shape[ax + 1:]
    shape = batch_shape if shape is None else shape_arg(name, shape)
    _check_shape(name, "logits without its category axis", shape, batch_shape)
    prefix = shape[:len(shape) - len(batch_shape)]
    n = aval.shape[ax]
    if not replace:
        k = math.prod(prefix)
        if k > n:
            raise ValueError(f"{name}: cannot draw {k} samples without replacement from {n} "
                             f"categories")
        noisy = ew.add(logits, gumbel(words, aval.shape, aval.dtype, mode))
        ind = _top_k_indices(st.moveaxis(noisy, ax, aval.ndim - 1), k)  # batch + (k,)
        ind = st.moveaxis(ind, aval.ndim - 1, 0)  # (k,) + batch
        return st.reshape(ind, shape)
    # the category axis among the trailing (batch) axes of the requested shape
    draw_axis = len(prefix) + ax
    draw_shape = (*shape[:draw_axis], n, *shape[draw_axis:])
    noise = gumbel(words, draw_shape, aval.dtype, mode)
    return red.argmax(ew.add(noise, st.broadcast_to(logits, draw_shape)), draw_axis,
                      _dtypes.default_int())


def _check_shape(name: str, what: str, shape: tuple[int, ...], other: tuple[int, ...]) -> None:
    try:
        ok = np.broadcast_shapes(shape, other) == shape
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"{name}: shape {shape} must be the broadcast of itself and the shape "
                         f"{other} of the {what}")


# --------------------------------------------------------------------------- permutation


def shuffle_rounds(size: int) -> int:
    """How many sorting rounds JAX's shuffle makes for ``size`` elements."""
    return int(np.ceil(3 * np.log(max(1, size)) / np.log(2**32 - 1)))


def _shuffle(words: Any, x: Any, axis: int) -> Any:
    aval = get_aval(x)
    for _ in range(shuffle_rounds(aval.size)):
        words, sub = split_words(words)
        sort_keys = random_bits(sub, 32, aval.shape)
        x = sort_operands([sort_keys, x], axis, num_keys=1)[1]  # (stable: collisions keep order)
    return x


def _population(name: str, x: Any) -> int:
    """An int ``x``: the size of the population ``arange(x)``."""
    if isinstance(x, Tracer):
        raise TypeError(f"{name}: an integer x must be concrete (it sets the output's shape); "
                        f"got a traced value")
    kind = np.asarray(x).dtype.kind
    if kind not in "iu" or isinstance(x, bool):
        raise TypeError(f"{name}: x must be an integer or an array of at least one axis; "
                        f"got {x!r}")
    n = int(x)
    if n < 0:
        raise ValueError(f"{name}: x must be a non-negative integer; got {n}")
    return n


def permutation(key: Any, x: Any, axis: int = 0, independent: bool = False) -> Any:
    """A random permutation of ``arange(x)`` (an int ``x``), or of ``x``'s entries along
    ``axis``: whole slices move together, unless ``independent``, when each 1-d line along
    ``axis`` is shuffled on its own."""
    name = "permutation"
    words, _ = key_words(name, key)
    if isinstance(x, (int, np.integer)) or (isinstance(x, (np.ndarray, Tracer))
                                            and get_aval(x).ndim == 0):
        n = _population(name, x)
        _axis(name, axis, 1)
        return _shuffle(words, st.arange(0, n, 1, _dtypes.default_int()), 0)
    x = _array(name, "x", x)
    aval = get_aval(x)
    if aval.ndim == 0:  # (a float scalar)
        raise TypeError(f"{name}: x must be an integer or an array of at least one axis; got "
                        f"{aval.str_short()}")
    ax = _axis(name, axis, aval.ndim)
    if independent or aval.ndim == 1:
        return _shuffle(words, x, ax)
    order = _shuffle(words, st.arange(0, aval.shape[ax], 1, _dtypes.default_int()), 0)
    return _take(x, order, ax)


# --------------------------------------------------------------------------- choice


def choice(key: Any, a: Any, shape: Sequence[int] = (), replace: bool = True, p: Any = None,
           axis: int = 0, mode: str | None = None) -> Any:
    """``shape`` draws from ``arange(a)`` (an int ``a``) or from ``a``'s slices along ``axis``
    (which ``shape`` replaces), with or without replacement, uniformly or with probabilities
    ``p`` (1-d, one per entry; as in JAX they are normalised by their sum and not checked)."""
    name = "choice"
    words, _ = key_words(name, key)
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"{name}: shape must be a sequence of ints; got {shape!r}")
    shape = shape_arg(name, shape)
    scalar = isinstance(a, (int, np.integer)) or (isinstance(a, (np.ndarray, Tracer))
                                                  and get_aval(a).ndim == 0)
    if scalar:
        n = _population(name, a)
        arr = None
    else:
        arr = _array(name, "a", a)
        if get_aval(arr).ndim == 0:
            raise TypeError(f"{name}: a must be an integer or an array of at least one axis; "
                            f"got {get_aval(arr).str_short()}")
        axis = _axis(name, axis, get_aval(arr).ndim)
        n = get_aval(arr).shape[axis]
    draws = math.prod(shape)
    if not replace and draws > n:
        raise ValueError(f"{name}: cannot take a larger sample ({draws}) than the population "
                         f"({n}) with replace=False")
    out_dtype = _dtypes.default_int() if arr is None else get_aval(arr).dtype
    out_shape = shape if arr is None else (*get_aval(arr).shape[:axis], *shape,
                                           *get_aval(arr).shape[axis + 1:])
    if p is not None:
        p = _array(name, "p", p)
        if get_aval(p).dtype.kind != "f":  # (JAX promotes to inexact)
            p = ew.convert_element_type(p, _dtypes.default_float())
        if get_aval(p).shape != (n,):
            raise ValueError(f"{name}: p must be None or a 1-d array with one probability per "
                             f"entry, shape ({n},); got shape {get_aval(p).shape}")
    if draws == 0:
        return st.full(out_shape, 0, out_dtype)
    if n == 0:
        raise ValueError(f"{name}: the population is empty; a must be greater than 0 unless "
                         f"no samples are taken")
    if p is None and replace:
        from minigrad.random.samplers import randint

        ind = randint(words, shape, 0, n)
        return ind if arr is None else _take(arr, ind, axis)
    if p is None:
        if arr is None:
            perm = permutation(words, n)
            return st.reshape(st.slice_array(perm, (0,), (draws,)), shape)
        perm = permutation(words, arr, axis)
        aval = get_aval(perm)
        limit = tuple(draws if i == axis else s for i, s in enumerate(aval.shape))
        return st.reshape(st.slice_array(perm, (0,) * aval.ndim, limit), out_shape)
    dtype = get_aval(p).dtype
    if replace:
        cdf = _xla_cumsum(p)
        total = st.reshape(st.slice_array(cdf, (n - 1,), (n,)), ())
        one = st.full(shape, 1, dtype)
        r = ew.mul(st.broadcast_to(total, shape), ew.sub(one, _unit(words, shape, dtype)))
        from minigrad.numpy import searchsorted

        ind = ew.convert_element_type(searchsorted(cdf, r), _dtypes.default_int())
    else:
        g = ew.add(gumbel(words, (n,), dtype, mode), sp.xla_log(p))
        ind = st.reshape(ew.convert_element_type(_top_k_indices(g, draws),
                                                 _dtypes.default_int()), shape)
    return ind if arr is None else _take(arr, ind, axis)

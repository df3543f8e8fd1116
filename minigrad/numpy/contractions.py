"""Contractions: ``matmul``, ``dot``, ``vdot``, ``inner``, ``outer``, ``tensordot``, ``vecdot``,
``kron``, ``cross``, each one binding of the ``dot`` primitive (a two-operand contraction in
einsum notation, ``ops/elementwise.py``) or an elementwise composite; ``einsum`` is in
``einsum.py``.

Why ``dot`` and not JAX's ``dot_general``: the einsum notation says the same (batch letters
appear in all three terms, contracted ones in both operands, free ones in an operand and the
output) and more (any output order, so no transpose after it), its transpose rule is a swap
of terms and its batching rule one new letter; ``dot_general``'s dimension numbers translate
into subscripts one to one, so ``lax.dot_general`` can be a thin wrapper over it.

``precision`` and ``preferred_element_type`` are accepted as JAX takes them. ``precision`` has
no effect: NumPy computes every product in the operands' dtype. ``preferred_element_type``
converts the operands to that dtype first, so the result (and the accumulation) has it.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from minigrad import core
from minigrad.core import get_aval
from minigrad.dtypes import canonicalize_dtype
from minigrad.numpy.eager import eager, wrap
from minigrad.numpy.util import (
    ArrayLike,
    asarray,
    canonical_axes,
    check_broadcast,
    dtype_arg,
    promote,
    result_dtype,
)
from minigrad.ops import complex as cx
from minigrad.ops import elementwise as ew
from minigrad.ops import structural as st

__all__ = [  # what minigrad.numpy exports from here
    "cross", "dot", "inner", "kron", "matmul", "outer", "tensordot", "vdot", "vecdot",
]

LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_PRECISIONS = {"default", "high", "highest", "fastest", "bfloat16", "tensorfloat32",
               "float32", "bf16_bf16_f32", "bf16_bf16_f32_x3", "bf16_bf16_f32_x6",
               "tf32_tf32_f32", "tf32_tf32_f32_x3", "f32_f32_f32", "f64_f64_f64"}


def check_precision(precision: Any, fn: str) -> None:
    """``precision``: None, a precision name or enum (``'highest'``, ``lax.Precision.HIGH``
    ...), or a pair of them (one per operand), as JAX takes it; it has no effect here."""
    if precision is None:
        return
    items = precision if isinstance(precision, (tuple, list)) else (precision,)
    for p in items:
        name = getattr(p, "name", p)
        if p is not None and (not isinstance(name, str) or name.lower() not in _PRECISIONS):
            raise ValueError(f"{fn}: precision must be None, a precision name such as "
                             f"'highest', or a pair of them; got {precision!r}")
    if len(items) > 2:
        raise ValueError(f"{fn}: precision must be one value or a pair; got {precision!r}")


def operands(fn: str, *xs: ArrayLike, precision: Any = None,
             preferred_element_type: Any = None) -> list[Any]:
    """The arrays of a contraction in one dtype: NumPy's promotion, or
    ``preferred_element_type``."""
    if precision is None and preferred_element_type is None and _plain(xs):
        return list(xs)  # (speed: eager arrays of one canonical dtype need nothing)
    check_precision(precision, fn)
    arrays = [asarray(x) for x in xs]
    for k, x in enumerate(arrays):
        if get_aval(x).dtype.kind not in "biufc":
            raise TypeError(f"{fn}: operand {k} must be a numeric array; got "
                            f"{get_aval(x).dtype}")
    dtype = (result_dtype(*arrays) if preferred_element_type is None
             else dtype_arg(preferred_element_type, fn))
    return [ew.convert_element_type(x, dtype) for x in arrays]


def _conj(x: Any) -> Any:
    """vdot and vecdot conjugate their first operand (a complex one: ``ops/complex.py``)."""
    return cx.conj(x) if get_aval(x).dtype.kind == "c" else x


_PLAIN = (np.ndarray, core.eager_array_type)


def _plain(xs: tuple) -> bool:
    """Every operand an eager array (an ndarray or ``minigrad.Array``) of one real numeric
    dtype that needs no canonicalization (the eval trace binds ndarrays as they are)."""
    dtype = None
    for x in xs:
        if type(x) not in _PLAIN or (dtype is not None and x.dtype != dtype):
            return False
        dtype = x.dtype
    return dtype is not None and dtype.kind in "biuf" and canonicalize_dtype(dtype) == dtype


@functools.lru_cache(maxsize=256)
def _letters(n: int, skip: str = "") -> str:
    return "".join(c for c in LETTERS if c not in skip)[:n]


# --------------------------------------------------------------------------- matmul


def matmul(x1: ArrayLike, x2: ArrayLike, /, *, precision: Any = None,
           preferred_element_type: Any = None) -> Any:
    """``x1 @ x2`` with NumPy's rules: a 1-D operand is a vector (its axis removed from the
    result), leading axes broadcast."""
    if (precision is None and preferred_element_type is None
            and type(x1) in _PLAIN and type(x2) in _PLAIN
            and x1.ndim == 2 and x2.ndim == 2 and x1.dtype == x2.dtype
            and x1.dtype.kind in "fiu" and x1.shape[1] == x2.shape[0]
            and canonicalize_dtype(x1.dtype) == x1.dtype):
        if eager():  # (what the eval trace's bind would do, without it)
            return wrap(ew.dot_p.impl(x1.view(np.ndarray), x2.view(np.ndarray),  # type: ignore[misc]
                                      subscripts="ij,jk->ik"))
        return ew.dot_p.bind(x1, x2, subscripts="ij,jk->ik")  # (speed: the common case)
    x, y = operands("matmul", x1, x2, precision=precision,
                    preferred_element_type=preferred_element_type)
    xs, ys = get_aval(x).shape, get_aval(y).shape
    if not xs or not ys:
        raise ValueError(f"matmul: operands must be at least 1-D (use multiply for scalars); "
                         f"got shapes {xs} and {ys}")
    if xs[-1] != ys[-2 if len(ys) > 1 else -1]:
        raise ValueError(f"matmul: the last axis of x1 must match the "
                         f"{'second-to-last' if len(ys) > 1 else 'only'} axis of x2; got "
                         f"shapes {xs} and {ys}")
    if len(xs) <= 2 and len(ys) <= 2:  # no batch: one binding, vectors by their letters
        a = "ij"[2 - len(xs):]
        b = "jk"[:len(ys)]
        out = ("i" if len(xs) == 2 else "") + ("k" if len(ys) == 2 else "")
        return ew.dot(x, y, f"{a},{b}->{out}")
    shapes = xs, ys
    x_vec, y_vec = len(xs) == 1, len(ys) == 1
    if x_vec:
        x, xs = st.reshape(x, (1, *xs)), (1, *xs)
    if y_vec:
        y, ys = st.reshape(y, (*ys, 1)), (*ys, 1)
    try:
        batch = check_broadcast("matmul", xs[:-2], ys[:-2])
    except ValueError:
        raise ValueError(f"matmul: the batch axes (all but the last two) must broadcast "
                         f"together; got shapes {shapes[0]} and {shapes[1]}") from None
    x = st.broadcast_to(x, (*batch, *xs[-2:]))
    y = st.broadcast_to(y, (*batch, *ys[-2:]))
    b = _letters(len(batch), "ijk")
    out = ew.dot(x, y, f"{b}ij,{b}jk->{b}ik")
    nb = len(batch)
    drop = ([nb] if x_vec else []) + ([nb + 1] if y_vec else [])
    return st.squeeze(out, drop)


# --------------------------------------------------------------------------- dot and friends


def dot(a: ArrayLike, b: ArrayLike, *, precision: Any = None,
        preferred_element_type: Any = None) -> Any:
    """NumPy's ``dot``: a product with a scalar; vector . vector; matrix products; for N-D
    ``a`` the sum over its last axis and ``b``'s second-to-last (its only, if 1-D)."""
    if precision is None and preferred_element_type is None and _plain((a, b)) and eager():
        xs, ys = a.shape, b.shape
        if xs and ys and xs[-1] == ys[-2 if len(ys) > 1 else 0]:
            # (speed: what the eval trace's bind of the last line would do, without it)
            return wrap(ew.dot_p.impl(a.view(np.ndarray), b.view(np.ndarray),  # type: ignore[misc]
                                      subscripts=_dot_subscripts(len(xs), len(ys))))
    x, y = operands("dot", a, b, precision=precision,
                    preferred_element_type=preferred_element_type)
    xn, yn = get_aval(x).ndim, get_aval(y).ndim
    if xn == 0 or yn == 0:
        return ew.mul(*promote(x, y, name="dot"))
    xs, ys = get_aval(x).shape, get_aval(y).shape
    k = ys[-2] if yn > 1 else ys[0]
    if xs[-1] != k:
        raise ValueError(f"dot: the last axis of a must match the "
                         f"{'second-to-last' if yn > 1 else 'only'} axis of b; got shapes "
                         f"{xs} and {ys}")
    return ew.dot(x, y, _dot_subscripts(xn, yn))


@functools.lru_cache(maxsize=64)
def _dot_subscripts(xn: int, yn: int) -> str:
    """NumPy's dot as a contraction: a's last axis with b's second-to-last (its only)."""
    xl = _letters(xn - 1, "z") + "z"
    free_b = _letters(yn - 1, xl + "z")
    yl = free_b[:-1] + "z" + free_b[-1:] if yn > 1 else "z"
    return f"{xl},{yl}->{xl[:-1]}{free_b}"


def vdot(a: ArrayLike, b: ArrayLike, *, precision: Any = None,
         preferred_element_type: Any = None) -> Any:
    """The inner product of the flattened arrays, the first conjugated."""
    x, y = operands("vdot", a, b, precision=precision,
                    preferred_element_type=preferred_element_type)
    x = _conj(x)
    if get_aval(x).size != get_aval(y).size:
        raise ValueError(f"vdot: the operands must have as many elements; got shapes "
                         f"{get_aval(x).shape} and {get_aval(y).shape}")
    x = st.reshape(x, (get_aval(x).size,))
    y = st.reshape(y, (get_aval(y).size,))
    return ew.dot(x, y, "i,i->")


def inner(a: ArrayLike, b: ArrayLike, *, precision: Any = None,
          preferred_element_type: Any = None) -> Any:
    """The sum over the last axes of ``a`` and ``b``; shape ``a.shape[:-1] + b.shape[:-1]``."""
    x, y = operands("inner", a, b, precision=precision,
                    preferred_element_type=preferred_element_type)
    xn, yn = get_aval(x).ndim, get_aval(y).ndim
    if xn == 0 or yn == 0:
        return ew.mul(*promote(x, y, name="inner"))
    xs, ys = get_aval(x).shape, get_aval(y).shape
    if xs[-1] != ys[-1]:
        raise ValueError(f"inner: the last axes must match; got shapes {xs} and {ys}")
    xl = _letters(xn - 1, "z")
    yl = _letters(yn - 1, xl + "z")
    return ew.dot(x, y, f"{xl}z,{yl}z->{xl}{yl}")


def outer(a: ArrayLike, b: ArrayLike, out: None = None) -> Any:
    """``a.ravel()[:, None] * b.ravel()[None, :]``."""
    if out is not None:
        raise NotImplementedError("outer: out= is not supported (arrays are immutable)")
    x, y = operands("outer", a, b)
    x = st.reshape(x, (get_aval(x).size,))
    y = st.reshape(y, (get_aval(y).size,))
    return ew.dot(x, y, "i,j->ij")


def _axis_list(axes: Any, fn: str, name: str) -> list[int]:
    items = list(axes) if isinstance(axes, (tuple, list)) else [axes]
    for ax in items:
        if isinstance(ax, bool) or not isinstance(ax, (int, np.integer)):
            raise TypeError(f"{fn}: {name} must hold integers; got {axes!r}")
    return [int(ax) for ax in items]


def tensordot(a: ArrayLike, b: ArrayLike, axes: Any = 2, *, precision: Any = None,
              preferred_element_type: Any = None) -> Any:
    """The sum over ``axes``: an int N pairs ``a``'s last N axes with ``b``'s first N; a pair
    of sequences (or ints) names them. The result: ``a``'s other axes, then ``b``'s."""
    x, y = operands("tensordot", a, b, precision=precision,
                    preferred_element_type=preferred_element_type)
    xs, ys = get_aval(x).shape, get_aval(y).shape
    xn, yn = len(xs), len(ys)
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        n = int(axes)
        if n < 0 or n > min(xn, yn):
            raise ValueError(f"tensordot: axes={n} must be in [0, {min(xn, yn)}] for shapes "
                             f"{xs} and {ys}")
        ax, bx = list(range(xn - n, xn)), list(range(n))
    elif isinstance(axes, (tuple, list)) and len(axes) == 2:
        ax = _axis_list(axes[0], "tensordot", "axes")
        bx = _axis_list(axes[1], "tensordot", "axes")
        if len(ax) != len(bx):
            raise ValueError(f"tensordot: the two sequences of axes must be equally long; got "
                             f"{axes!r}")
        ax = [canonical_axes(i, xn, "tensordot")[0] for i in ax]
        bx = [canonical_axes(i, yn, "tensordot")[0] for i in bx]
        if len(set(ax)) != len(ax) or len(set(bx)) != len(bx):
            raise ValueError(f"tensordot: an axis is repeated in {axes!r}")
    else:
        raise TypeError(f"tensordot: axes must be an int or a pair of sequences of ints; got "
                        f"{axes!r}")
    for i, j in zip(ax, bx, strict=True):
        if xs[i] != ys[j]:
            raise ValueError(f"tensordot: the contracted axes must have equal sizes; axis {i} "
                             f"of a (shape {xs}) has {xs[i]}, axis {j} of b (shape {ys}) has "
                             f"{ys[j]}")
    letters = iter(LETTERS)
    xl = [next(letters) for _ in range(xn)]
    yl = [next(letters) for _ in range(yn)]
    for i, j in zip(ax, bx, strict=True):
        yl[j] = xl[i]
    free = [c for k, c in enumerate(xl) if k not in ax] + [c for k, c in enumerate(yl)
                                                          if k not in bx]
    return ew.dot(x, y, f"{''.join(xl)},{''.join(yl)}->{''.join(free)}")


def vecdot(x1: ArrayLike, x2: ArrayLike, /, *, axis: int = -1, precision: Any = None,
           preferred_element_type: Any = None) -> Any:
    """The dot product of vectors along ``axis`` (of the broadcast shape); the other axes
    broadcast; ``x1`` is conjugated."""
    x, y = operands("vecdot", x1, x2, precision=precision,
                    preferred_element_type=preferred_element_type)
    x = _conj(x)
    xs, ys = get_aval(x).shape, get_aval(y).shape
    if not xs or not ys:
        raise ValueError(f"vecdot: operands must be at least 1-D; got shapes {xs} and {ys}")
    shape = check_broadcast("vecdot", xs, ys)
    (ax,) = canonical_axes(axis, len(shape), "vecdot")
    size_x = xs[ax - len(shape) + len(xs)] if ax - len(shape) + len(xs) >= 0 else 1
    size_y = ys[ax - len(shape) + len(ys)] if ax - len(shape) + len(ys) >= 0 else 1
    if size_x != size_y:
        raise ValueError(f"vecdot: axis {axis} must have one size in both operands; got "
                         f"shapes {xs} and {ys}")
    x = st.moveaxis(st.broadcast_to(x, shape), ax, len(shape) - 1)
    y = st.moveaxis(st.broadcast_to(y, shape), ax, len(shape) - 1)
    b = _letters(len(shape) - 1, "z")
    return ew.dot(x, y, f"{b}z,{b}z->{b}")


# --------------------------------------------------------------------------- kron, cross


def kron(a: ArrayLike, b: ArrayLike) -> Any:
    """The Kronecker product: each element of ``a`` times the whole of ``b``, blocks laid out
    like ``a``'s elements (the shorter shape padded with leading ones)."""
    x, y = operands("kron", a, b)
    xs, ys = get_aval(x).shape, get_aval(y).shape
    n = max(len(xs), len(ys))
    xs, ys = (1,) * (n - len(xs)) + xs, (1,) * (n - len(ys)) + ys
    # x's axes at even positions, y's at odd ones: (x0, 1, x1, 1, ...) * (1, y0, 1, y1, ...)
    x = st.reshape(x, tuple(d for s in xs for d in (s, 1)))
    y = st.reshape(y, tuple(d for s in ys for d in (1, s)))
    prod_shape = tuple(d for p, q in zip(xs, ys, strict=True) for d in (p, q))
    product = ew.mul(st.broadcast_to(x, prod_shape), st.broadcast_to(y, prod_shape))
    return st.reshape(product, tuple(p * q for p, q in zip(xs, ys, strict=True)))


def _component(v: Any, i: int) -> Any:
    shape = get_aval(v).shape
    part = st.slice_array(v, (0,) * (len(shape) - 1) + (i,), (*shape[:-1], i + 1))
    return st.reshape(part, shape[:-1])


def cross(a: ArrayLike, b: ArrayLike, axisa: int = -1, axisb: int = -1, axisc: int = -1,
          axis: int | None = None) -> Any:
    """The cross product of 3-vectors (or 2-vectors: the missing z is 0, and two 2-vectors
    give the z component alone) along ``axisa`` and ``axisb``, the result's vector axis at
    ``axisc``; ``axis`` sets all three."""
    if axis is not None:
        axisa = axisb = axisc = axis
    x, y = operands("cross", a, b)
    for name, v in (("a", x), ("b", y)):
        if get_aval(v).ndim == 0:
            raise ValueError(f"cross: {name} must be at least 1-D; got a scalar")
    x = st.moveaxis(x, canonical_axes(axisa, get_aval(x).ndim, "cross")[0],
                    get_aval(x).ndim - 1)
    y = st.moveaxis(y, canonical_axes(axisb, get_aval(y).ndim, "cross")[0],
                    get_aval(y).ndim - 1)
    nx, ny = get_aval(x).shape[-1], get_aval(y).shape[-1]
    if nx not in (2, 3) or ny not in (2, 3):
        raise ValueError(f"cross: the vector axes must have size 2 or 3; got {nx} (a) and "
                         f"{ny} (b)")
    shape = check_broadcast("cross", get_aval(x).shape[:-1], get_aval(y).shape[:-1])
    x = st.broadcast_to(x, (*shape, nx))
    y = st.broadcast_to(y, (*shape, ny))
    a0, a1 = _component(x, 0), _component(x, 1)
    b0, b1 = _component(y, 0), _component(y, 1)
    z = ew.sub(ew.mul(a0, b1), ew.mul(a1, b0))
    if nx == 2 and ny == 2:
        return z
    zero = st.full(shape, 0, get_aval(x).dtype)
    a2 = _component(x, 2) if nx == 3 else zero
    b2 = _component(y, 2) if ny == 3 else zero
    parts = [ew.sub(ew.mul(a1, b2), ew.mul(a2, b1)), ew.sub(ew.mul(a2, b0), ew.mul(a0, b2)), z]
    out = st.concatenate([st.expand_dims(p, (len(shape),)) for p in parts], len(shape))
    c = canonical_axes(axisc, len(shape) + 1, "cross")[0]
    return st.moveaxis(out, len(shape), c)

"""Samplers: bits to floats, floats to distributions, each as JAX 0.10.2 computes it.

A float in ``[0, 1)`` is made from random bits by keeping the top mantissa-many of them, ORing in
the bits of 1.0 (a float in ``[1, 2)``) and subtracting 1; a range ``[lo, hi)`` is then
``max(lo, fma(u, hi - lo, lo))`` (XLA's CPU code fuses that multiply-add: so do we). Normal
samples are ``sqrt(2) * erf_inv(u)`` for ``u`` uniform in ``(-1, 1)``; the others follow. Every
sampler is a composition of primitives, so it works under ``jit`` and ``vmap`` (over keys and
parameters), and ``grad`` flows through its float parameters.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from minigrad.core import Tracer, get_aval
from minigrad.ops import bitwise as bw
from minigrad.ops import elementwise as ew
from minigrad.ops import special as sp
from minigrad.ops import structural as st
from minigrad.random import _dtypes
from minigrad.random.keys import key_words, random_bits, shape_arg, split

# --------------------------------------------------------------------------- helpers


def _float_dtype(name: str, dtype: Any) -> np.dtype:
    dtype = _dtypes.default_float() if dtype is None else _dtypes.canonical(np.dtype(dtype))
    if dtype.name not in ("float32", "float64"):
        raise ValueError(f"{name}: dtype must be float32 or float64; got {dtype}")
    return dtype


def _param(name: str, what: str, value: Any, dtype: np.dtype) -> Any:
    """A parameter (Python number, array or tracer) converted to ``dtype``."""
    if isinstance(value, (bool, int, float)):
        return np.asarray(value, dtype)
    if isinstance(value, (list, tuple)):
        value = np.asarray(value)
    if not isinstance(value, (np.ndarray, np.generic, Tracer)):
        raise TypeError(f"{name}: {what} must be a number or an array; got "
                        f"{type(value).__name__}")
    return ew.convert_element_type(value, dtype)


def _fit(name: str, what: str, x: Any, shape: tuple[int, ...]) -> Any:
    """``x`` broadcast to ``shape``, which its shape must broadcast to exactly."""
    x_shape = get_aval(x).shape
    try:
        ok = np.broadcast_shapes(x_shape, shape) == shape
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"{name}: {what} of shape {x_shape} must broadcast to the shape "
                         f"{shape}")
    return st.broadcast_to(x, shape)


def _full(shape: tuple[int, ...], value: Any, dtype: Any) -> Any:
    return st.full(shape, value, dtype)


def _minimum(x: Any, y: Any) -> Any:
    return ew.neg(ew.maximum(ew.neg(x), ew.neg(y)))  # (max's tie rule: half each)


# --------------------------------------------------------------------------- uniform


def _unit(key: Any, shape: tuple[int, ...], dtype: np.dtype) -> Any:
    """Floats in [0, 1): the top ``nmant`` random bits as the mantissa of a float in [1, 2),
    minus 1."""
    info = np.finfo(dtype)
    nbits = dtype.itemsize * 8
    udtype = np.dtype(f"u{dtype.itemsize}")
    one = int(np.asarray(1, dtype).view(udtype))
    mantissa = bw.shift_right_logical(random_bits(key, nbits, shape),
                                      _full(shape, nbits - info.nmant, udtype))
    in_one_two = bw.bitcast_convert_type(bw.bitwise_or(mantissa, _full(shape, one, udtype)),
                                         dtype)
    return ew.sub(in_one_two, _full(shape, 1, dtype))


def _scaled(unit: Any, lo: Any, hi: Any) -> Any:
    # max(lo, u * (hi - lo) + lo), the multiply-add rounded once
    return ew.maximum(lo, sp.fma(unit, ew.sub(hi, lo), lo))


def uniform(key: Any, shape: Sequence[int] = (), dtype: Any = None, minval: Any = 0.0,
            maxval: Any = 1.0) -> Any:
    """Floats uniform in ``[minval, maxval)`` (default dtype float64; float32 with 64-bit
    defaults off). ``minval`` and ``maxval`` broadcast to ``shape``.

    >>> import minigrad.random as mr
    >>> mr.uniform(mr.PRNGKey(0), (3,), "float32")
    Array([0.947667  , 0.9785799 , 0.33229148], dtype=float32)
    """
    words, _ = key_words("uniform", key)
    shape = shape_arg("uniform", shape)
    dtype = _float_dtype("uniform", dtype)
    unit = _unit(words, shape, dtype)
    if isinstance(minval, (int, float)) and isinstance(maxval, (int, float)) and (
            minval, maxval) == (0, 1):
        return unit  # (max(0, u * 1 + 0) is u: the default range costs nothing)
    lo = _fit("uniform", "minval", _param("uniform", "minval", minval, dtype), shape)
    hi = _fit("uniform", "maxval", _param("uniform", "maxval", maxval, dtype), shape)
    return _scaled(unit, lo, hi)


# --------------------------------------------------------------------------- normal


def normal(key: Any, shape: Sequence[int] = (), dtype: Any = None) -> Any:
    """Standard normal samples: ``sqrt(2) * erf_inv(u)``, ``u`` uniform in ``(-1, 1)``."""
    words, _ = key_words("normal", key)
    return _normal(words, shape_arg("normal", shape), _float_dtype("normal", dtype))


def _normal(words: Any, shape: tuple[int, ...], dtype: np.dtype) -> Any:
    lo = np.nextafter(np.asarray(-1, dtype), np.asarray(0, dtype))  # (-1 itself is excluded)
    u = _scaled(_unit(words, shape, dtype), _full(shape, lo, dtype), _full(shape, 1, dtype))
    return ew.mul(_full(shape, np.sqrt(2), dtype), sp.erf_inv(u))


def truncated_normal(key: Any, lower: Any, upper: Any, shape: Sequence[int] | None = None,
                     dtype: Any = None) -> Any:
    """Normal samples conditioned on ``(lower, upper)``: ``sqrt(2) * erf_inv(u)`` for ``u``
    uniform between ``erf(lower / sqrt(2))`` and ``erf(upper / sqrt(2))``, clipped into the
    open interval. ``shape`` defaults to the broadcast of ``lower`` and ``upper``."""
    name = "truncated_normal"
    words, _ = key_words(name, key)
    dtype = _float_dtype(name, dtype)
    lower, upper = _param(name, "lower", lower, dtype), _param(name, "upper", upper, dtype)
    if shape is None:
        shape = tuple(np.broadcast_shapes(get_aval(lower).shape, get_aval(upper).shape))
    shape = shape_arg(name, shape)
    lower, upper = _fit(name, "lower", lower, shape), _fit(name, "upper", upper, shape)
    # lower / sqrt(2): XLA rewrites a division by a constant as a product with its reciprocal
    inv_sqrt2 = _full(shape, np.asarray(1, dtype) / np.asarray(np.sqrt(2), dtype), dtype)
    a, b = sp.xla_erf(ew.mul(lower, inv_sqrt2)), sp.xla_erf(ew.mul(upper, inv_sqrt2))
    u = _scaled(_unit(words, shape, dtype), a, b)
    out = ew.mul(_full(shape, np.sqrt(2), dtype), sp.erf_inv(u))
    # the bounds move one float inward; _next_up/_next_down carry no gradient
    return _minimum(_next_down(upper), ew.maximum(_next_up(lower), out))


def _next_up(x: Any) -> Any:
    """The next float above ``x`` (``nextafter(x, inf)``), by its bits: no derivative."""
    aval = get_aval(x)
    idtype = np.dtype(f"i{aval.dtype.itemsize}")
    bits = bw.bitcast_convert_type(x, idtype)
    # up in value: a positive float's bits go up, a negative float's (as signed) go down
    step = ew.select(ew.gt(x, _full(aval.shape, 0, aval.dtype)), _full(aval.shape, 1, idtype),
                     _full(aval.shape, -1, idtype))
    up = bw.bitcast_convert_type(ew.add(bits, step), aval.dtype)
    zero = ew.eq(x, _full(aval.shape, 0, aval.dtype))
    tiny = bw.bitcast_convert_type(_full(aval.shape, 1, idtype), aval.dtype)
    stays = ew.ne(x, x)  # NaN
    stays = bw.bitwise_or(stays, ew.eq(x, _full(aval.shape, np.inf, aval.dtype)))
    return ew.select(stays, x, ew.select(zero, tiny, up))


def _next_down(x: Any) -> Any:
    return ew.neg(_next_up(ew.neg(x)))


# --------------------------------------------------------------------------- integers


def _clip_to(x: Any, dtype: np.dtype) -> Any:
    """Integer ``x`` converted to ``dtype``, clipped to its range instead of wrapped."""
    src = get_aval(x).dtype
    low = max(np.iinfo(dtype).min, np.iinfo(src).min)
    high = min(np.iinfo(dtype).max, np.iinfo(src).max)
    return ew.convert_element_type(_clamp(x, low, high), dtype)


def _int_param(name: str, what: str, value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        if isinstance(value, (list, tuple)):
            value = np.asarray(value)
        if not isinstance(value, (np.ndarray, np.generic, Tracer)):
            raise TypeError(f"{name}: {what} must be an integer or an integer array; got "
                            f"{type(value).__name__}")
        if get_aval(value).dtype.kind not in "iu":
            value = ew.convert_element_type(value, _dtypes.default_int())  # (truncates)
        return value
    if isinstance(value, float):
        value = int(value)  # (toward zero, as JAX's astype(int))
    dtype = _dtypes.default_int()  # (a Python int is taken as the default int, as in JAX)
    info = np.iinfo(dtype)
    if not info.min <= value <= info.max:
        raise ValueError(f"{name}: {what} {value} does not fit {dtype.name}, the default "
                         f"integer type")
    return np.asarray(value, dtype)


def randint(key: Any, shape: Sequence[int], minval: Any, maxval: Any, dtype: Any = None
            ) -> Any:
    """Integers uniform in ``[minval, maxval)`` (default dtype int64; int32 with 64-bit
    defaults off). As in JAX: bounds are clipped to the dtype's range, and where
    ``maxval <= minval`` the result is ``minval`` (no error: the bounds may be traced). Two
    draws of the dtype's width make each value, ``(hi * 2**nbits + lo) mod span``."""
    name = "randint"
    words, _ = key_words(name, key)
    shape = shape_arg(name, shape)
    dtype = _dtypes.default_int() if dtype is None else _dtypes.canonical(np.dtype(dtype))
    if dtype.kind not in "iu":
        raise TypeError(f"{name}: dtype must be an integer dtype; got {dtype}")
    lo, hi = _int_param(name, "minval", minval), _int_param(name, "maxval", maxval)
    _fit(name, "minval", lo, shape), _fit(name, "maxval", hi, shape)
    if dtype.itemsize < 4:  # sampled in int32 (less biased), then converted (wrapping)
        i32, info = np.dtype(np.int32), np.iinfo(dtype)
        lo = _clamp(ew.convert_element_type(lo, i32), info.min, info.max)
        hi = _clamp(ew.convert_element_type(hi, i32), info.min, info.max + 1)
        return ew.convert_element_type(_randint(words, shape, lo, hi, i32), dtype)
    return _randint(words, shape, lo, hi, dtype)


def _clamp(x: Any, low: int, high: int) -> Any:
    aval = get_aval(x)
    low_, high_ = _full(aval.shape, low, aval.dtype), _full(aval.shape, high, aval.dtype)
    return ew.select(ew.lt(x, low_), low_, ew.select(ew.gt(x, high_), high_, x))


def _randint(words: Any, shape: tuple[int, ...], lo: Any, hi: Any, dtype: np.dtype) -> Any:
    nbits = dtype.itemsize * 8
    udtype = np.dtype(f"u{dtype.itemsize}")
    hi_dtype = get_aval(hi).dtype
    top = min(np.iinfo(dtype).max, np.iinfo(hi_dtype).max)  # the dtype's max, in hi's dtype
    hi_beyond = st.broadcast_to(ew.gt(hi, _full(get_aval(hi).shape, top, hi_dtype)), shape)
    lo = st.broadcast_to(_clip_to(lo, dtype), shape)
    hi = st.broadcast_to(_clip_to(hi, dtype), shape)
    k1, k2 = (st.reshape(st.slice_array(split(words), (i, 0), (i + 1, 2)), (2,)) for i in (0, 1))
    higher, lower = random_bits(k1, nbits, shape), random_bits(k2, nbits, shape)

    def full(v: int) -> Any:
        return _full(shape, v, udtype)

    # span = hi - lo in unsigned arithmetic; 1 where the range is empty (the result is lo);
    # one more where hi was beyond the dtype (it wraps to 0 at the full range: no reduction)
    span = ew.convert_element_type(ew.sub(hi, lo), udtype)
    span = ew.select(ew.le(hi, lo), full(1), span)
    span = ew.select(bw.bitwise_and(hi_beyond, ew.gt(hi, lo)), ew.add(span, full(1)), span)
    # (higher * 2**nbits + lower) mod span, without 2*nbits-bit arithmetic:
    # 2**nbits mod span = ((2**(nbits/2) mod span)**2) mod span
    mult = ew.rem(full(2 ** (nbits // 2)), span)
    mult = ew.rem(ew.mul(mult, mult), span)
    offset = ew.add(ew.mul(ew.rem(higher, span), mult), ew.rem(lower, span))
    offset = ew.rem(offset, span)
    return ew.add(lo, ew.convert_element_type(offset, dtype))


def bernoulli(key: Any, p: Any = 0.5, shape: Sequence[int] | None = None,
              mode: str = "low") -> Any:
    """Booleans, True with probability ``p`` (a float or float array): ``uniform < p``, in
    ``p``'s dtype (a Python float: the default float). ``mode="high"`` draws two uniforms per
    value for resolution below 2**-nmant. As in JAX, ``p`` outside [0, 1] is not an error
    (all False below 0, all True above 1)."""
    name = "bernoulli"
    words, _ = key_words(name, key)
    if mode not in ("low", "high"):
        raise ValueError(f"{name}: mode must be 'low' or 'high'; got {mode!r}")
    if isinstance(p, float):
        p = np.asarray(p, _dtypes.default_float())
    elif isinstance(p, (list, tuple)):
        p = np.asarray(p)
    if not isinstance(p, (np.ndarray, np.generic, Tracer)) or get_aval(p).dtype.kind != "f":
        raise TypeError(f"{name}: p must be a float or a float array; got {_kind(p)}")
    dtype = _dtypes.canonical(get_aval(p).dtype)
    p = ew.convert_element_type(p, dtype)
    shape = get_aval(p).shape if shape is None else shape_arg(name, shape)
    p = _fit(name, "p", p, shape)
    if mode == "low":
        return ew.lt(_unit(words, shape, dtype), p)
    both = _unit(words, (2, *shape), dtype)
    u1, u2 = (st.reshape(st.slice_array(both, (i, *(0,) * len(shape)), (i + 1, *shape)), shape)
              for i in (0, 1))
    u2 = ew.mul(u2, _full(shape, 2.0 ** -np.finfo(dtype).nmant, dtype))
    return ew.lt(u2, ew.sub(p, u1))


def _kind(x: Any) -> str:
    try:
        return get_aval(x).str_short()
    except TypeError:
        return type(x).__name__


# --------------------------------------------------------------------------- gumbel, exponential


def exponential(key: Any, shape: Sequence[int] = (), dtype: Any = None) -> Any:
    """Exponential(1) samples: ``-log1p(-u)``, ``u`` uniform in [0, 1) (XLA's log1p)."""
    words, _ = key_words("exponential", key)
    shape = shape_arg("exponential", shape)
    dtype = _float_dtype("exponential", dtype)
    return ew.neg(sp.xla_log1p(ew.neg(_unit(words, shape, dtype))))


def gumbel(key: Any, shape: Sequence[int] = (), dtype: Any = None, mode: str | None = None
           ) -> Any:
    """Gumbel samples: ``-log(-log(u))``. ``mode`` "low" (the default): ``u`` uniform in
    ``[tiny, 1)``; "high": ``u`` from two uniforms, finer near 0; "highest" (float32): ``u``
    from 64 random bits, with log1p below one half."""
    name = "gumbel"
    words, _ = key_words(name, key)
    shape = shape_arg(name, shape)
    dtype = _float_dtype(name, dtype)
    mode = "low" if mode is None else mode
    if mode not in ("low", "high", "highest"):
        raise ValueError(f"{name}: mode must be 'low', 'high' or 'highest'; got {mode!r}")
    info = np.finfo(dtype)

    def neg_log(x: Any) -> Any:
        return ew.neg(sp.xla_log(x))

    if mode == "highest" and dtype == np.float32:
        return _gumbel_highest(words, shape)
    if mode in ("high", "highest"):
        both = _unit(words, (2, *shape), dtype)
        high, low = (st.reshape(st.slice_array(both, (i, *(0,) * len(shape)),
                                               (i + 1, *shape)), shape) for i in (0, 1))
        fine = ew.add(ew.add(high, ew.mul(_full(shape, 2.0 ** -info.nmant, dtype), low)),
                      _full(shape, info.tiny, dtype))
        x = ew.select(ew.ge(high, _full(shape, 0.5, dtype)), high, fine)
        return neg_log(ew.neg(sp.xla_log1p(ew.neg(x))))
    u = _scaled(_unit(words, shape, dtype), _full(shape, info.tiny, dtype),
                _full(shape, 1, dtype))
    return neg_log(neg_log(u))


def _gumbel_highest(words: Any, shape: tuple[int, ...]) -> Any:
    """float32 gumbel from 64 random bits ``(hi, lo)`` read as a fixed-point fraction ``f``:
    ``-log(-log1p(-f))`` for ``f < 1/2`` and ``-log(-log(1 - f))`` above, with ``1 - f``
    formed exactly in fixed point and converted to float without losing leading bits."""
    u32 = np.dtype(np.uint32)

    def full(v: int) -> Any:
        return _full(shape, v, u32)

    def part(x: Any, i: int) -> Any:
        return st.reshape(st.slice_array(x, (i, *(0,) * len(shape)), (i + 1, *shape)), shape)

    both = random_bits(words, 32, (2, *shape))
    hi, lo = part(both, 0), part(both, 1)
    # 1 - f = ~f + 2**-64: add one to the low word, carrying into the high word
    neg_hi, neg_lo = bw.bitwise_not(hi), bw.bitwise_not(lo)
    carry = ew.convert_element_type(ew.eq(neg_lo, full(0xFFFFFFFF)), u32)
    neg_hi, neg_lo = ew.add(neg_hi, carry), ew.add(neg_lo, full(1))
    flip = ew.lt(hi, full(1 << 31))  # f < 1/2
    x = _fixed_to_float(ew.select(flip, hi, neg_hi), ew.select(flip, lo, neg_lo))
    x = bw.bitcast_convert_type(x, np.float32)
    small = ew.neg(sp.xla_log(ew.neg(sp.xla_log1p(ew.neg(x)))))
    large = ew.neg(sp.xla_log(ew.neg(sp.xla_log(x))))
    return ew.select(flip, small, large)


def _fixed_to_float(hi: Any, lo: Any) -> Any:
    """The float32 bits of the 64-bit fixed-point fraction ``(hi, lo) / 2**64``, truncated:
    the leading 24 significant bits become the mantissa, the leading zeros the exponent."""
    u32 = np.dtype(np.uint32)
    shape = get_aval(hi).shape

    def full(v: int) -> Any:
        return _full(shape, v, u32)

    hi_clz, lo_clz = bw.clz(hi), bw.clz(lo)
    hi_empty = ew.eq(hi_clz, full(32))
    mantissa = bw.bitwise_or(bw.shift_left(hi, hi_clz), ew.select(
        hi_empty, bw.shift_left(lo, lo_clz), bw.shift_right_logical(lo, ew.sub(full(32),
                                                                               hi_clz))))
    mantissa = bw.bitwise_and(bw.shift_right_logical(mantissa, full(32 - 23 - 1)),
                              full((1 << 23) - 1))
    zeros = ew.select(hi_empty, ew.add(full(32), lo_clz), hi_clz)
    exponent = bw.shift_left(ew.sub(full(126), zeros), full(23))  # -minexp - zeros, biased
    exponent = bw.bitwise_and(exponent, full((1 << 30) - (1 << 22)))
    return bw.bitwise_or(exponent, mantissa)

"""NumPy kernels that round as XLA's CPU code does, for the functions NumPy lacks.

JAX computes ``erf_inv`` (and so every normal sample), ``erf`` and the float32 ``log1p`` inside
them with XLA's own polynomials, and LLVM fuses their multiply-adds into FMA instructions (one
rounding each). These kernels follow the same algorithms step by step, with the same float32 or
float64 constants and an exactly rounded ``fma`` wherever XLA's compiled code has one, so they
give XLA's values, not merely close ones. Measured against JAX 0.10.2's jitted ``lax`` functions
on this x86-64 CPU (``tests/test_special.py`` keeps the checks): erf_inv, erf, log and log1p in
float32 and float64, 0 mismatches in a million inputs each.

The polynomials are published: Giles, "Approximating the erfinv function" (GPU Computing Gems
Jade, 2011) for erf_inv, Cephes (Moshier) for log and log1p, Eigen's rational approximation for
the float32 erf. Float64 erf is the C library's, which is what XLA calls.
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any, Callable

import numpy as np

F32, F64 = np.dtype(np.float32), np.dtype(np.float64)
U64 = np.dtype(np.uint64)


# --------------------------------------------------------------------------- fused multiply-add


def fma(a: Any, b: Any, c: Any) -> np.ndarray:
    """``a * b + c`` with one rounding, in the operands' dtype (float32 or float64)."""
    dtype = np.result_type(a, b, c)
    if dtype == F32:
        return _fma_f32_blocks(a, b, c)
    if dtype == F64:
        return _fma_f64(np.asarray(a, F64), np.asarray(b, F64), np.asarray(c, F64))
    raise TypeError(f"fma: operands must be float32 or float64; got {dtype}")


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    # s + e == a + b exactly (Knuth)
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _round_to_odd(s: np.ndarray, err: np.ndarray) -> np.ndarray:
    """The float64 next to ``s`` with an odd last bit, on the side of ``s + err``, where
    ``err`` != 0 (``s + err`` is inexact in float64): rounding it again to a format at least two
    bits narrower then rounds ``s + err`` correctly (Boldo and Melquiond, 2008)."""
    step = (err != 0) & ((s.view(U64) & np.uint64(1)) == 0) & np.isfinite(s)
    if not step.any():
        return s
    toward = np.where(err > 0, np.inf, -np.inf)
    return np.where(step, np.nextafter(s, toward), s)


def _fma_f32(a: Any, b: Any, c: Any, subnormal: bool = True) -> np.ndarray:
    # The product of two float32s is exact in float64 (24 + 24 < 53 bits): s rounds once.
    # Rounding s to float32 rounds twice, which is wrong only where s falls on a float32
    # midpoint (low 29 bits 1000...0) or below float32's normal range (fewer bits there) while
    # a*b + c is not exact in float64: those few are rounded to odd first. (``subnormal``
    # False skips the second test, for kernels that emulate XLA: it flushes subnormals to 0.)
    s = np.asarray(np.multiply(a, b, dtype=F64))  # (an array even for 0-d operands: written
    s += c  # in place below, where a NumPy scalar would take the fix into a copy)
    bits = s.view(U64)
    # (speed: the low 29 bits shifted to the top are int64's least value only at a midpoint,
    # so one shift and one min find whether any element needs the slow test)
    risky = None
    if (bits << np.uint64(35)).view(np.int64).min(initial=0) == _INT64_MIN:
        risky = (bits & np.uint64(0x1FFFFFFF)) == np.uint64(0x10000000)
    if subnormal:
        tiny = (bits & np.uint64(0x7FF0000000000000)) < np.uint64((1023 - 126) << 52)
        risky = tiny if risky is None else risky | tiny
    if risky is not None and risky.any():
        at = np.flatnonzero(risky)
        sub, err = _two_sum(_pick(a, s.shape, at) * _pick(b, s.shape, at), _pick(c, s.shape, at))
        s.reshape(-1)[at] = _round_to_odd(sub, err)  # (s is new and contiguous: a view)
    return s.astype(F32)


_INT64_MIN = np.iinfo(np.int64).min


def _pick(v: Any, shape: tuple[int, ...], at: np.ndarray) -> np.ndarray:
    """The elements ``at`` (flat indices into ``shape``) of ``v`` broadcast to ``shape``, as
    float64; a scalar stays one. (Reads only those elements: no broadcast copy.)"""
    v = np.asarray(v)
    if v.ndim == 0:
        return v.astype(F64)
    if v.shape == tuple(shape):
        return v.reshape(-1)[at].astype(F64)
    return np.broadcast_to(v, shape)[np.unravel_index(at, shape)].astype(F64)


_SPLIT = 134217729.0  # 2**27 + 1: Veltkamp's splitter for float64


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    # a == hi + lo exactly, each with at most 26 significant bits
    with np.errstate(over="ignore", invalid="ignore"):  # (huge or infinite a: no split)
        c = _SPLIT * a
        hi = c - (c - a)
    return hi, a - hi


def _fma_f64(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    # Boldo-Melquiond: the product and the sum error-free (Dekker, Knuth), the two error
    # terms summed with rounding to odd, then one correctly rounded addition.
    uh = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    ul = ((ah * bh - uh) + ah * bl + al * bh) + al * bl
    th, tl = _two_sum(c, uh)
    v, err = _two_sum(tl, ul)
    out = th + _round_to_odd(v, err)
    # a product that overflows has no exact split: there the plain formula is the answer
    bad = ~np.isfinite(uh) | ~np.isfinite(out)
    if bad.any():
        out = np.where(bad, a * b + c, out)
    return out


_BLOCK = 1 << 15


def _blockwise(kernel: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    """``kernel`` applied to blocks of a flattened array that stay in the CPU's cache (the
    kernels make tens of passes over their operand), quietly about NaN and infinities."""
    def apply(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x)
        # (infinities and NaN pass through the polynomials of the branch not taken)
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            if x.size <= _BLOCK:
                return kernel(x)
            flat = x.ravel()
            out = np.empty_like(flat)
            for lo in range(0, flat.size, _BLOCK):
                out[lo:lo + _BLOCK] = kernel(flat[lo:lo + _BLOCK])
            return out.reshape(x.shape)

    apply.__doc__, apply.__name__ = kernel.__doc__, kernel.__name__
    return apply


def _fma_f32_blocks(a: Any, b: Any, c: Any) -> np.ndarray:
    # _fma_f32 makes several float64 passes: over a large array, block by block, in cache
    shape = np.broadcast_shapes(np.shape(a), np.shape(b), np.shape(c))
    n = math.prod(shape)
    if n <= _BLOCK:
        return _fma_f32(a, b, c)
    flat = [_flat_operand(v, shape) for v in (a, b, c)]
    out = np.empty(n, F32)
    for lo in range(0, n, _BLOCK):
        a, b, c = (v if v.ndim == 0 else v[lo:lo + _BLOCK] for v in flat)
        out[lo:lo + _BLOCK] = _fma_f32(a, b, c)
    return out.reshape(shape)


def _flat_operand(v: Any, shape: tuple[int, ...]) -> np.ndarray:
    """``v`` broadcast to ``shape`` and flattened, or its one value if it is a broadcast of one."""
    v = np.asarray(v)
    if v.ndim == 0 or (v.size and not any(v.strides)):
        return v.reshape(-1)[:1].reshape(())
    return np.broadcast_to(v, shape).reshape(-1)


# --------------------------------------------------------------------------- log, log1p


def _f32(x: float) -> np.float32:
    return np.float32(x)


@_blockwise
def log_f32(t: np.ndarray) -> np.ndarray:
    """XLA's float32 log (Cephes' logf): ``t = m * 2**e`` with ``m`` in ``[sqrt(.5), sqrt(2))``,
    ``log(m)`` by a polynomial in ``m - 1``, plus ``e * log(2)`` in two parts."""
    t = np.asarray(t, F32)
    bits = np.maximum(t, _f32(1.1754944e-38)).view(np.uint32)  # (subnormals: as the least)
    e = ((bits >> np.uint32(23)).astype(np.int32) - 127).astype(F32) + _f32(1)
    m = ((bits & np.uint32(0x807FFFFF)) | np.uint32(0x3F000000)).view(F32)  # in [0.5, 1)
    low = m < _f32(0.70710677)
    e = np.where(low, e - _f32(1), e)
    x = (m + _f32(-1)) + np.where(low, m, _f32(0))  # m - 1, or 2m - 1 below sqrt(.5)
    x2 = x * x
    x3 = x * x2
    fma_ = partial(_fma_f32, subnormal=False)
    y0 = fma_(x, fma_(x, _f32(0.070376836), _f32(-0.1151461)), _f32(0.116769984))
    y1 = fma_(x, fma_(x, _f32(-0.12420141), _f32(0.14249323)), _f32(-0.16668057))
    y2 = fma_(x, fma_(x, _f32(0.20000714), _f32(-0.24999994)), _f32(0.3333333))
    y = fma_(x3, fma_(x3, y0, y1), y2)
    r = (x - x2 * _f32(0.5)) + fma_(x3, y, e * _f32(-0.00021219444))  # (halving is exact)
    r = fma_(e, _f32(0.6933594), r)
    if t.size and t.min() > 0 and t.max() < np.inf:  # (speed: no edge case in the block)
        return r
    r = np.where(t > 0, r, np.nan)
    return np.where(t == 0, -np.inf, np.where(t == np.inf, np.inf, r)).astype(F32)


def log(x: np.ndarray) -> np.ndarray:
    """XLA's log: ``log_f32`` in float32, the C library's log in float64."""
    x = np.asarray(x)
    if x.dtype == F32:
        return log_f32(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        return _libm_log(x)


# Cephes' log1p rational function: log1p(z) = z - z**2/2 + z**3 * P(z) / Q(z), Q monic.
_LOG1P_P = (4.5270000862445199635215e-5, 4.9854102823193375972212e-1,
            6.5787325942061044846969e0, 2.9911919328553073277375e1,
            6.0949667980987787057556e1, 5.7112963590585538103336e1,
            2.0039553499201281259648e1)
_LOG1P_Q = (1.0, 1.5062909083469192043167e1, 8.3047565967967209469434e1,
            2.2176239823732856465394e2, 3.0909872225312059774938e2,
            2.1642788614495947685003e2, 6.0118660497603843919306e1)
_SQRT2_MINUS_1 = 0.41421356237309504880  # below it the rational function, above log(1 + z)


def _horner(t: np.ndarray, coeffs: tuple, dtype: np.dtype) -> np.ndarray:
    """``sum(coeffs[i] * t**(n-i))``, each step ``p * t + c`` rounded once (an FMA)."""
    if dtype == F64:
        return _horner_f64(t, coeffs)
    t = t.astype(F64)  # (exact: converted once)
    p = np.full(t.shape, coeffs[0], dtype)
    for c in coeffs[1:]:
        p = _fma_f32(t, p, dtype.type(c), subnormal=False)
    return p


def _horner_f64(t: np.ndarray, coeffs: tuple) -> np.ndarray:
    # float64 Horner steps as FMAs, more cheaply than _fma_f64: t is split once, and the last
    # addition skips rounding to odd, so a step can be wrong only where that addition is an
    # exact tie (about 2**-52 of steps; none in the measurements)
    th, tl = _split(t)
    p = np.full(t.shape, coeffs[0], F64)
    for c in coeffs[1:]:
        uh = p * t
        ph, pl = _split(p)
        ul = ((ph * th - uh) + ph * tl + pl * th) + pl * tl  # uh + ul == p * t exactly
        s = uh + c
        bb = s - uh
        p = s + (((uh - (s - bb)) + (c - bb)) + ul)  # s + its error + ul
    return p


@_blockwise
def log1p(z: np.ndarray) -> np.ndarray:
    """XLA's log1p: Cephes' rational function for ``|z| < sqrt(2) - 1``, else ``log(1 + z)``
    (float32: ``log_f32``; float64: the C library's log, which XLA calls)."""
    z = np.asarray(z)
    dtype = z.dtype
    out = np.empty_like(z)
    small = np.abs(z) < dtype.type(_SQRT2_MINUS_1)
    if small.any():
        s = z[small]
        q = _horner(s, _LOG1P_P, dtype) / _horner(s, _LOG1P_Q, dtype)
        s2 = s * s
        # (XLA fuses the last multiply-add; halving is exact, so a plain one rounds alike)
        out[small] = s + ((s * s2) * q - s2 * dtype.type(0.5))
    large = ~small  # (and NaN)
    if large.any():
        t = z[large] + dtype.type(1)
        out[large] = log_f32(t) if dtype == F32 else _libm_log(t)
    return out


_libm_log_each = np.frompyfunc(math.log, 1, 1)


def _libm_log(x: np.ndarray) -> np.ndarray:
    # math.log is the C library's log, which XLA's float64 code calls (NumPy's own SIMD log
    # differs in the last bit now and then); it refuses x <= 0, which NumPy's gives.
    out = np.log(x)
    ok = np.isfinite(out)
    out[ok] = _libm_log_each(x[ok]).astype(F64)
    return out


# --------------------------------------------------------------------------- erf_inv

# Giles' single-precision erfinv: w = -log(1 - x**2); x * P(w - 2.5) for w < 5, else
# x * P(sqrt(w) - 3). Highest power first.
_ERF_INV_F32: tuple[tuple[float, ...], ...] = (
    (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
     -0.00125372503, -0.00417768164, 0.246640727, 1.50140941),
    (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
     -0.0076224613, 0.00943887047, 1.00167406, 2.83297682),
)
# Giles' double-precision erfinv: three pieces, at w < 6.25 (t = w - 3.125), w < 16
# (t = sqrt(w) - 3.25) and beyond (t = sqrt(w) - 5).
_ERF_INV_F64: tuple[tuple[float, ...], ...] = (
    (-3.64441206401782e-21, -1.6850591381820166e-19, 1.28584807152564e-18,
     1.1157877678025181e-17, -1.333171662854621e-16, 2.0972767875968562e-17,
     6.637638134358324e-15, -4.054566272975207e-14, -8.151934197605472e-14,
     2.6335093153082323e-12, -1.2975133253453532e-11, -5.415412054294628e-11,
     1.0512122733215323e-09, -4.112633980346984e-09, -2.9070369957882005e-08,
     4.2347877827932404e-07, -1.3654692000834679e-06, -1.3882523362786469e-05,
     0.00018673420803405714, -0.000740702534166267, -0.006033670871430149,
     0.24015818242558962, 1.6536545626831027),
    (2.2137376921775787e-09, 9.075656193888539e-08, -2.7517406297064545e-07,
     1.8239629214389228e-08, 1.5027403968909828e-06, -4.013867526981546e-06,
     2.9234449089955446e-06, 1.2475304481671779e-05, -4.7318229009055734e-05,
     6.828485145957318e-05, 2.4031110387097894e-05, -0.0003550375203628475,
     0.0009532893797373805, -0.0016882755560235047, 0.002491442096107851,
     -0.003751208507569241, 0.005370914553590064, 1.0052589676941592, 3.0838856104922208),
    (-2.7109920616438573e-11, -2.555641816996525e-10, 1.5076572693500548e-09,
     -3.789465440126737e-09, 7.61570120807834e-09, -1.496002662714924e-08,
     2.914795345090108e-08, -6.771199775845234e-08, 2.2900482228026655e-07,
     -9.9298272942317e-07, 4.526062597223154e-06, -1.968177810553167e-05,
     7.599527703001776e-05, -0.00021503011930044477, -0.00013871931833623122,
     1.0103004648645344, 4.849906401408584),
)


@_blockwise
def erf_inv(x: np.ndarray) -> np.ndarray:
    """XLA's erf_inv (Giles' polynomials over ``w = -log1p(-x*x)``); +-inf at +-1, NaN
    outside [-1, 1]."""
    x = np.asarray(x)
    dtype = x.dtype
    w = -log1p(x * -x)
    root = np.sqrt(w)
    if dtype == F32:
        pieces = [(w < 5, w - _f32(2.5)), (w >= 5, root + _f32(-3))]
        coeffs = _ERF_INV_F32
    else:
        mid = (w >= 6.25) & (w < 16)
        pieces = [(w < 6.25, w - 3.125), (mid, root - 3.25), (w >= 16, root - 5.0)]
        coeffs = _ERF_INV_F64
    # (speed: the piece most elements fall in is evaluated over the whole block, which costs
    # less than gathering and scattering them; the others are written over it)
    counts = [int(np.count_nonzero(where)) for where, _ in pieces]
    most = counts.index(max(counts))
    p = np.asarray(_horner(pieces[most][1], coeffs[most], dtype))  # (0-d: an array to write)
    for i, ((where, t), c) in enumerate(zip(pieces, coeffs, strict=True)):
        if i != most and counts[i]:
            p[where] = _horner(t[where], c, dtype)
    p[np.isnan(w)] = np.nan  # (x outside [-1, 1]: no piece applies)
    return np.where(np.abs(x) == 1, dtype.type(np.inf), p) * x


# --------------------------------------------------------------------------- erf

# Eigen's float32 erf: x * P(x**2) / Q(x**2), and +-1 beyond |x| = 3.832507.
_ERF_P_F32 = (0.00022905065, 0.003408291, 0.050955694, 0.18520832, 1.1283791)
_ERF_Q_F32 = (-1.1791603e-07, 2.3547966e-05, 0.0010179626, 0.01407047, 0.11098505,
              0.49746925, 1.0)
_libm_erf_each = np.frompyfunc(math.erf, 1, 1)


@_blockwise
def erf(x: np.ndarray) -> np.ndarray:
    """XLA's erf: Eigen's rational function in float32, the C library's erf in float64."""
    x = np.asarray(x)
    if x.dtype == F64:
        return np.asarray(_libm_erf_each(x), F64).reshape(x.shape)
    x2 = x * x
    ratio = (x * _horner(x2, _ERF_P_F32, F32)) / _horner(x2, _ERF_Q_F32, F32)
    return np.where(np.abs(x) >= _f32(3.832507), np.copysign(_f32(1), x), ratio).astype(F32)

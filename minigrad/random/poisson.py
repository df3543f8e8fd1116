"""``poisson``: Poisson(lam) counts, as JAX 0.10.2 draws them (in float32 whatever the dtype).

Two algorithms, switched per element on ``lam``, both run over the whole array with the same
key and the result selected:

* ``lam < 10`` (and NaN): Knuth's. Multiply uniforms (add their logs) until the product falls
  below ``exp(-lam)``; the count of factors before that, minus one, is the sample. Each round
  splits the key and draws one uniform for every element, until no element needs another.
* ``lam >= 10``: Hormann's transformed rejection ("The transformed rejection method for
  generating Poisson random variables", 1993): a candidate ``k`` from two uniforms, accepted by
  a quick test or by comparing ``log`` of a hat function with ``-lam + k log(lam) -
  lgamma(k + 1)``. Each round splits the key into three, for every element, until all accept.

``lam == 0`` gives 0. As in JAX, ``lam`` is not checked (a negative one gives -1): the values may
be traced.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from minigrad.core import get_aval
from minigrad.ops import bitwise as bw
from minigrad.ops import elementwise as ew
from minigrad.ops import reductions as red
from minigrad.ops import special as sp
from minigrad.ops import structural as st
from minigrad.ops import unary as un
from minigrad.random import _dtypes
from minigrad.random.discrete import split_words
from minigrad.random.keys import key_words, shape_arg
from minigrad.random.samplers import _param, _unit

F32 = np.dtype(np.float32)


def _any(x: Any) -> Any:
    return red.reduce_or(x, tuple(range(get_aval(x).ndim)))


def _full(x: Any, value: Any, dtype: Any = None) -> Any:
    aval = get_aval(x)
    return st.full(aval.shape, value, aval.dtype if dtype is None else dtype)


# Lanczos' approximation (g = 7) as XLA's float32 lgamma evaluates it
_LANCZOS = (676.520368121885098567009190444019, -1259.13921672240287047156078755283,
            771.3234287776530788486528258894, -176.61502916214059906584551354,
            12.507343278686904814458936853, -0.13857109526572011689554707,
            9.984369578019570859563e-6, 1.50563273514931155834e-7)


def _lgamma_f32(x: Any) -> Any:
    """XLA's float32 ``lgamma`` for ``x >= 1/2`` (no reflection): with ``z = x - 1``,
    ``log(sqrt(2 pi)) + (z + 1/2 - t / log t) log t + log(sum)``, ``t = z + 7.5``, ``log t``
    as ``log1p(z / 7.5) + log(7.5)`` (the division a product with the rounded reciprocal, as
    XLA rewrites it) and ``sum = 1 + sum_i c_i / (z + i + 1)``; 0 mismatches against
    ``jax.lax.lgamma`` on [1, 3000) and [90000, 110000)."""
    def c(v: float) -> Any:
        return _full(x, v)

    z = ew.sub(x, c(1))
    total = c(1)
    for i, coeff in enumerate(_LANCZOS):
        total = ew.add(total, ew.div(c(coeff), ew.add(z, c(i + 1))))
    log_t = ew.add(sp.xla_log1p(ew.mul(z, c(np.float32(1) / np.float32(7.5)))),
                   c(np.log(7.5)))
    t = ew.add(z, c(7.5))
    factor = ew.sub(ew.add(z, c(0.5)), ew.div(t, log_t))
    return ew.add(sp.fma(factor, log_t, c((np.log(2) + np.log(np.pi)) / 2)),
                  sp.xla_log(total))


def _knuth(words: Any, lam: Any, dtype: np.dtype) -> Any:
    from minigrad.lax import while_loop

    shape = get_aval(lam).shape
    neg_lam = ew.neg(lam)
    top = np.iinfo(dtype).max

    def more(state: tuple) -> Any:
        i, _, _, log_prod = state
        return bw.bitwise_and(_any(ew.gt(log_prod, neg_lam)), ew.lt(i, st.full((), top, dtype)))

    def step(state: tuple) -> tuple:
        i, k, key, log_prod = state
        key, sub = split_words(key)
        k = ew.select(ew.gt(log_prod, neg_lam), ew.add(k, _full(k, 1)), k)
        log_u = sp.xla_log(_unit(sub, shape, F32))
        return ew.add(i, st.full((), 1, dtype)), k, key, ew.add(log_prod, log_u)

    init = (st.full((), 0, dtype), st.full(shape, 0, dtype), words, _full(lam, 0))
    k = while_loop(more, step, init)[1]
    return ew.sub(k, st.full(shape, 1, dtype))


def _rejection(words: Any, lam: Any, dtype: np.dtype) -> Any:
    from minigrad.lax import while_loop

    shape = get_aval(lam).shape

    def c(v: float) -> Any:
        return _full(lam, v)

    log_lam = sp.xla_log(lam)
    b = sp.fma(c(2.53), ew.sqrt(lam), c(0.931))  # (XLA fuses these multiply-adds)
    a = sp.fma(c(0.02483), b, c(-0.059))
    inv_alpha = ew.add(c(1.1239), ew.div(c(1.1328), ew.sub(b, c(3.4))))
    v_r = ew.sub(c(0.9277), ew.div(c(3.6224), ew.sub(b, c(2))))
    top = np.iinfo(dtype).max

    def more(state: tuple) -> Any:
        i, _, accepted, _ = state
        return bw.bitwise_and(_any(bw.bitwise_not(accepted)),
                              ew.lt(i, st.full((), top, dtype)))

    def step(state: tuple) -> tuple:
        i, k_out, accepted, key = state
        key, key_u, key_v = split_words(key, 3)
        u = ew.sub(_unit(key_u, shape, F32), c(0.5))
        v = _unit(key_v, shape, F32)
        u_shifted = ew.sub(c(0.5), un.abs_(u))
        # (u_shifted is a multiple of 2**-23, 0 once in 2**23 draws: JAX divides by 0, gets
        # k = -inf and rejects; dividing by 2**-23 there rejects alike, without a warning)
        u_div = ew.maximum(u_shifted, c(2.0 ** -23))
        k = un.floor(ew.add(sp.fma(ew.add(ew.div(ew.mul(c(2), a), u_div), b), u, lam),
                            c(0.43)))
        s = sp.xla_log(ew.div(ew.mul(v, inv_alpha),
                              ew.add(ew.div(a, ew.mul(u_div, u_div)), b)))
        # (lgamma's argument kept >= 1: where k < 0 the candidate is rejected before t counts)
        t = ew.sub(sp.fma(k, log_lam, ew.neg(lam)), _lgamma_f32(ew.maximum(ew.add(k, c(1)),
                                                                           c(1))))
        accept1 = bw.bitwise_and(ew.ge(u_shifted, c(0.07)), ew.le(v, v_r))
        reject = bw.bitwise_or(ew.lt(k, c(0)), bw.bitwise_and(ew.lt(u_shifted, c(0.013)),
                                                              ew.gt(v, u_shifted)))
        accept = bw.bitwise_or(accept1, bw.bitwise_and(bw.bitwise_not(reject), ew.le(s, t)))
        return (ew.add(i, st.full((), 1, dtype)), ew.select(accept, k, k_out),
                bw.bitwise_or(accepted, accept), key)

    init = (st.full((), 0, dtype), c(-1), st.full(shape, False, np.bool_), words)
    return ew.convert_element_type(while_loop(more, step, init)[1], dtype)


def poisson(key: Any, lam: Any, shape: Sequence[int] | None = None, dtype: Any = None) -> Any:
    """Poisson(lam) counts (default int dtype): Knuth's method below ``lam = 10``, Hormann's
    transformed rejection above, computed in float32 as JAX does. ``shape`` defaults to
    ``lam``'s, which must broadcast to it."""
    name = "poisson"
    words, _ = key_words(name, key)
    dtype = _dtypes.default_int() if dtype is None else _dtypes.canonical(np.dtype(dtype))
    if dtype.kind not in "iu":
        raise TypeError(f"{name}: dtype must be an integer dtype; got {dtype}")
    lam = _param(name, "lam", lam, F32)
    lam_shape = get_aval(lam).shape
    shape = lam_shape if shape is None else shape_arg(name, shape)
    try:
        ok = np.broadcast_shapes(lam_shape, shape) == shape
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"{name}: lam of shape {lam_shape} must broadcast to the shape {shape}")
    lam = st.broadcast_to(lam, shape)
    use_knuth = bw.bitwise_or(ew.ne(lam, lam), ew.lt(lam, _full(lam, 10)))
    lam_knuth = ew.select(use_knuth, lam, _full(lam, 0))
    lam_rejection = ew.select(use_knuth, _full(lam, 1e5), lam)
    result = ew.select(use_knuth, _knuth(words, lam_knuth, dtype),
                       _rejection(words, lam_rejection, dtype))
    return ew.select(ew.eq(lam, _full(lam, 0)), st.full(shape, 0, dtype), result)

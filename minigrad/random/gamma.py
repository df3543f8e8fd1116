"""Gamma variates and what is made of them: ``gamma``, ``loggamma``, ``beta``, ``dirichlet``.

``gamma(key, a)`` draws each element with its own key (``split(key, a.size)``) by Marsaglia
and Tsang's rejection method ("A simple method for generating gamma variables", ACM TOMS
2000), as JAX 0.10.2 does:

* ``d = a - 1/3`` and ``c = (1/3) / sqrt(d)`` (for ``a < 1``: with ``a + 1``, boosted back at
  the end by ``u ** (1/a)``, ``u`` uniform in (0, 1]);
* repeat: draw normals ``x`` until ``v = 1 + c x`` is positive; ``X = x*x``, ``V = v*v*v``,
  ``U`` uniform; accept when ``U < 1 - 0.0331 X*X`` or ``log U < X/2 + d (1 - V + log V)``;
* the sample is ``d V`` (times the boost).

The loop is ``minigrad.lax.while_loop`` (with a nested one for ``v > 0``), mapped over the
elements with ``vmap``: each element keeps its own trip count, as in JAX. ``loggamma`` returns
the logarithm, computed in log space (the boost is ``log(u) / a``), for small ``a``. ``beta``
and ``dirichlet`` normalise log-gamma variates.

Gradients with respect to ``a`` are not implemented (JAX differentiates implicitly through the
gamma CDF): ``grad`` through ``a`` raises a clear error.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from minigrad import numpy as mnp
from minigrad.core import Tracer, get_aval
from minigrad.ops import bitwise as bw
from minigrad.ops import elementwise as ew
from minigrad.ops import special as sp
from minigrad.ops import structural as st
from minigrad.random import _dtypes
from minigrad.random.discrete import split_words
from minigrad.random.keys import key_words, shape_arg, split
from minigrad.random.samplers import _float_dtype, _normal, _param, _unit

# --------------------------------------------------------------------------- one variate


def _const(x: Any, value: float) -> Any:
    aval = get_aval(x)
    return st.full(aval.shape, value, aval.dtype)


def _gamma_one(words: Any, alpha: Any, log_space: bool) -> Any:
    """One gamma (or log-gamma) variate of the scalar ``alpha`` from the raw key ``words``."""
    from minigrad.lax import while_loop

    dtype = get_aval(alpha).dtype
    zero, one = _const(alpha, 0), _const(alpha, 1)
    third = _const(alpha, 1.0 / 3.0)
    boost = ew.ge(alpha, one)
    alpha_up = ew.select(boost, alpha, ew.add(alpha, one))
    d = ew.sub(alpha_up, third)
    c = ew.div(third, ew.sqrt(d))

    def reject(state: tuple) -> Any:
        _, x2, v3, u = state
        # u >= 1 - 0.0331 x**4 (a multiply-subtract XLA fuses), and the log test
        squeeze = sp.fma(ew.neg(_const(alpha, 0.0331)), ew.mul(x2, x2), one)
        log_test = ew.add(ew.mul(x2, _const(alpha, 0.5)),
                          ew.mul(d, ew.add(ew.sub(one, v3), sp.xla_log(v3))))
        return bw.bitwise_and(ew.ge(u, squeeze), ew.ge(sp.xla_log(u), log_test))

    def positive_v(state: tuple) -> tuple:
        key, _, _ = state
        key, sub = split_words(key)
        x = _normal(sub, (), dtype)
        return key, x, sp.fma(x, c, one)  # v = 1 + x c, fused as XLA does

    def propose(state: tuple) -> tuple:
        key, x_key, u_key = split_words(state[0], 3)
        _, x, v = while_loop(lambda s: ew.le(s[2], zero), positive_v,
                             (x_key, zero, _const(alpha, -1)))
        return key, ew.mul(x, x), ew.mul(ew.mul(v, v), v), _unit(u_key, (), dtype)

    words, sub = split_words(words)
    # the initial state fails the test, so the loop runs at least once
    _, _, v3, _ = while_loop(reject, propose, (words, zero, one, _const(alpha, 2)))
    if log_space:
        log_u = sp.xla_log1p(ew.neg(_unit(sub, (), dtype)))  # -exponential(sub)
        keep = bw.bitwise_or(boost, ew.eq(log_u, zero))
        log_boost = ew.select(keep, zero, ew.mul(log_u, ew.div(one, alpha)))
        return ew.add(ew.add(sp.xla_log(d), sp.xla_log(v3)), log_boost)
    u = ew.sub(one, _unit(sub, (), dtype))
    scale = ew.select(boost, one, ew.pow_(u, ew.div(one, alpha)))
    out = ew.mul(ew.mul(d, v3), scale)
    # XLA's CPU code flushes subnormal results to zero
    tiny = _const(alpha, np.finfo(dtype).tiny)
    return ew.select(ew.lt(out, tiny), zero, out)


# --------------------------------------------------------------------------- gamma


def _shape_and_a(name: str, key: Any, a: Any, shape: Sequence[int] | None, dtype: Any
                 ) -> tuple[Any, Any, tuple[int, ...]]:
    words, _ = key_words(name, key)
    dtype = _float_dtype(name, dtype)
    a = _param(name, "a", a, dtype)
    a_shape = get_aval(a).shape
    shape = a_shape if shape is None else shape_arg(name, shape)
    _check_shape(name, shape, a_shape)
    return words, st.broadcast_to(a, shape), shape


def _check_shape(name: str, shape: tuple[int, ...], *others: tuple[int, ...]) -> None:
    try:
        ok = np.broadcast_shapes(shape, *others) == shape
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"{name}: the parameters' shapes {list(others)} must broadcast to the "
                         f"shape {shape}")


def _gamma(words: Any, a: Any, log_space: bool) -> Any:
    from minigrad.transforms.vmap import vmap  # (each element's own loop)

    shape = get_aval(a).shape
    size = int(np.prod(shape, dtype=np.int64))
    if size == 0:
        return a
    keys = split(words, size)
    flat = st.reshape(a, (size,))
    samples = vmap(lambda k, x: _gamma_one(k, x, log_space))(keys, flat)
    return st.reshape(samples, shape)


def _no_gradient(name: str, a: Any) -> Any:
    """``a`` with no derivative: differentiating through it raises an error naming ``name``."""
    from minigrad.custom_rules import custom_jvp

    @custom_jvp
    def pass_through(x: Any) -> Any:
        return x

    @pass_through.defjvp
    def _refuse(primals: tuple, tangents: tuple) -> tuple:
        raise NotImplementedError(
            f"{name}: the derivative with respect to the shape parameter is not implemented "
            f"(JAX's implicit reparameterisation gradient); differentiate through a scale "
            f"instead, e.g. theta * {name}(key, a)")

    return pass_through(a)


def gamma(key: Any, a: Any, shape: Sequence[int] | None = None, dtype: Any = None) -> Any:
    """Gamma(a, 1) samples (density ``x**(a-1) exp(-x) / Gamma(a)``), ``a > 0``; ``shape``
    defaults to ``a``'s. Divide by a rate or multiply by a scale for other parameters."""
    words, a, _ = _shape_and_a("gamma", key, a, shape, dtype)
    return _gamma(words, _no_gradient("gamma", a), False)


def loggamma(key: Any, a: Any, shape: Sequence[int] | None = None, dtype: Any = None) -> Any:
    """The logarithm of Gamma(a, 1) samples, computed in log space (accurate for small
    ``a``, where the samples underflow)."""
    words, a, _ = _shape_and_a("loggamma", key, a, shape, dtype)
    return _gamma(words, _no_gradient("loggamma", a), True)


def beta(key: Any, a: Any, b: Any, shape: Sequence[int] | None = None, dtype: Any = None
         ) -> Any:
    """Beta(a, b) samples in [0, 1]: ``Ga / (Ga + Gb)`` for gamma variates ``Ga``, ``Gb``,
    formed from their logarithms without overflow. ``shape`` defaults to the broadcast of
    ``a`` and ``b``."""
    name = "beta"
    words, _ = key_words(name, key)
    dtype = _float_dtype(name, dtype)
    for what, x in (("a", a), ("b", b)):  # (JAX refuses narrowing casts here)
        if isinstance(x, (np.ndarray, np.generic, Tracer)):
            src = _dtypes.canonical(get_aval(x).dtype)
            if not np.can_cast(src, dtype, "same_kind") or src.itemsize > dtype.itemsize:
                raise TypeError(f"{name}: cannot safely cast {what} of dtype {src} to {dtype}")
    a, b = _param(name, "a", a, dtype), _param(name, "b", b, dtype)
    shapes = (get_aval(a).shape, get_aval(b).shape)
    if shape is None:
        try:
            shape = tuple(np.broadcast_shapes(*shapes))
        except ValueError:
            raise ValueError(f"{name}: the parameters' shapes {list(shapes)} do not broadcast "
                             f"together") from None
    else:
        shape = shape_arg(name, shape)
    _check_shape(name, shape, *shapes)
    key_a, key_b = split_words(words)
    log_a = _gamma(key_a, _no_gradient(name, st.broadcast_to(a, shape)), True)
    log_b = _gamma(key_b, _no_gradient(name, st.broadcast_to(b, shape)), True)
    top = ew.maximum(log_a, log_b)
    ga, gb = ew.exp(ew.sub(log_a, top)), ew.exp(ew.sub(log_b, top))
    return ew.div(ga, ew.add(ga, gb))


def dirichlet(key: Any, alpha: Any, shape: Sequence[int] | None = None, dtype: Any = None
              ) -> Any:
    """Dirichlet(alpha) samples on the simplex (last axis): the softmax of log-gamma variates.
    ``alpha`` has shape ``(..., n)``; ``shape`` (default ``alpha.shape[:-1]``) is the batch
    shape, the result ``shape + (n,)``."""
    name = "dirichlet"
    words, _ = key_words(name, key)
    dtype = _float_dtype(name, dtype)
    alpha = _param(name, "alpha", alpha, dtype)
    a_shape = get_aval(alpha).shape
    if not a_shape:
        raise ValueError(f"{name}: alpha must have at least one axis (the categories); got a "
                         f"scalar")
    shape = a_shape[:-1] if shape is None else shape_arg(name, shape)
    _check_shape(name, shape, a_shape[:-1])
    full_shape = (*shape, a_shape[-1])
    logs = _gamma(words, _no_gradient(name, st.broadcast_to(alpha, full_shape)), True)
    # nn.softmax over the last axis, written out (minigrad.nn imports minigrad.random)
    unnormalized = mnp.exp(logs - mnp.max(logs, axis=-1, keepdims=True))
    return unnormalized / mnp.sum(unnormalized, axis=-1, keepdims=True)

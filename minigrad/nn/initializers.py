"""``minigrad.nn.initializers``: JAX's weight initializers, bit for bit.

Each builder (``normal(stddev)``, ``glorot_uniform()``, ...) returns an ``init(key, shape,
dtype)`` function, as ``jax.nn.initializers``. The samples are ``minigrad.random``'s, which
are jax.random's bits; every later step (the scale computed in Python floats, rounded once to
``dtype``, then a square root, a division and a product in ``dtype``) is the one JAX takes, so
the results are JAX's exactly. ``orthogonal`` goes through a QR factorization: NumPy's LAPACK
computes a float32 matrix in float64 where JAX's LAPACK call is float32, so there float32
results agree to 1.5 float32 epsilons (float64 ones bit for bit; docs/divergences.md).

>>> import minigrad.random as mr
>>> from minigrad.nn import initializers
>>> initializers.glorot_normal()(mr.PRNGKey(42), (2, 3), "float32")
Array([[-0.019425  ,  0.31951216,  0.20267111],
       [ 0.10534006, -0.08510312,  0.14876758]], dtype=float32)
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import numpy as np

from minigrad import numpy as mnp
from minigrad import random as mr
from minigrad.dtypes import canonicalize_dtype, default_float_dtype

__all__ = ["Initializer", "constant", "delta_orthogonal", "glorot_normal", "glorot_uniform",
           "he_normal", "he_uniform", "kaiming_normal", "kaiming_uniform", "lecun_normal",
           "lecun_uniform", "normal", "ones", "orthogonal", "truncated_normal", "uniform",
           "variance_scaling", "xavier_normal", "xavier_uniform", "zeros"]

Initializer = Callable[..., Any]  # init(key, shape, dtype=None, out_sharding=None) -> array
Axes = int | Sequence[int]


def _dtype(name: str, dtype: Any) -> np.dtype:
    """The initializer's dtype: the default float when None, 32-bit with x64 off."""
    dt = default_float_dtype() if dtype is None else canonicalize_dtype(np.dtype(dtype))
    if dt.kind != "f":
        raise TypeError(f"{name}: dtype must be a real floating dtype; got {dt} (JAX's "
                        "complex initializers are not supported)")
    return dt


def _shape(name: str, shape: Any) -> tuple[int, ...]:
    shape = (shape,) if isinstance(shape, (int, np.integer)) else shape
    try:
        dims = tuple(int(d) for d in shape)
    except TypeError:
        raise TypeError(f"{name}: shape must be a sequence of ints; got {shape!r}") from None
    if any(isinstance(d, (bool, float)) for d in shape) or any(d < 0 for d in dims):
        raise TypeError(f"{name}: shape must be a sequence of non-negative ints; got {shape!r}")
    return dims


def _no_sharding(name: str, out_sharding: Any) -> None:
    if out_sharding is not None:
        raise NotImplementedError(f"{name}: out_sharding is not supported: minigrad has one "
                                  "device")


def _scalar(value: Any, dtype: np.dtype) -> Any:
    """``jnp.array(value, dtype)``: a Python number rounded once, an array converted."""
    return mnp.asarray(value, dtype=dtype)


def zeros(key: Any, shape: Any, dtype: Any = None, out_sharding: Any = None) -> Any:
    """An array of zeros (the key is ignored)."""
    _no_sharding("zeros", out_sharding)
    return mnp.zeros(_shape("zeros", shape), _dtype("zeros", dtype))


def ones(key: Any, shape: Any, dtype: Any = None, out_sharding: Any = None) -> Any:
    """An array of ones (the key is ignored)."""
    _no_sharding("ones", out_sharding)
    return mnp.ones(_shape("ones", shape), _dtype("ones", dtype))


def constant(value: Any, dtype: Any = None) -> Initializer:
    """An initializer filling the array with ``value`` (the key is ignored)."""
    def init(key: Any, shape: Any, dtype: Any = dtype, out_sharding: Any = None) -> Any:
        _no_sharding("constant", out_sharding)
        return mnp.full(_shape("constant", shape), value, _dtype("constant", dtype))
    return init


def uniform(scale: Any = 1e-2, dtype: Any = None) -> Initializer:
    """Samples uniform in ``[0, scale)``."""
    def init(key: Any, shape: Any, dtype: Any = dtype, out_sharding: Any = None) -> Any:
        _no_sharding("uniform", out_sharding)
        dt = _dtype("uniform", dtype)
        return mr.uniform(key, _shape("uniform", shape), dt) * _scalar(scale, dt)
    return init


def normal(stddev: Any = 1e-2, dtype: Any = None) -> Initializer:
    """Normal samples of mean 0 and standard deviation ``stddev``."""
    def init(key: Any, shape: Any, dtype: Any = dtype, out_sharding: Any = None) -> Any:
        _no_sharding("normal", out_sharding)
        dt = _dtype("normal", dtype)
        return mr.normal(key, _shape("normal", shape), dt) * _scalar(stddev, dt)
    return init


def truncated_normal(stddev: Any = 1e-2, dtype: Any = None, lower: Any = -2.0,
                     upper: Any = 2.0) -> Initializer:
    """Standard normal samples truncated to ``(lower, upper)``, then times ``stddev`` (no
    variance correction, as JAX)."""
    def init(key: Any, shape: Any, dtype: Any = dtype, out_sharding: Any = None) -> Any:
        _no_sharding("truncated_normal", out_sharding)
        dt = _dtype("truncated_normal", dtype)
        sample = mr.truncated_normal(key, lower, upper, _shape("truncated_normal", shape), dt)
        return sample * _scalar(stddev, dt)
    return init


def _axis_size(name: str, what: str, shape: tuple[int, ...], axes: Axes) -> int:
    axes_list = [axes] if isinstance(axes, (int, np.integer)) else list(axes)
    for a in axes_list:
        if isinstance(a, bool) or not isinstance(a, (int, np.integer)):
            raise TypeError(f"{name}: {what} must be an int or a sequence of ints; got {axes!r}")
        if not -len(shape) <= a < len(shape):
            raise ValueError(f"{name}: {what} {a} is out of bounds for shape {shape}")
    return math.prod(shape[a] for a in axes_list)


def _compute_fans(name: str, shape: tuple[int, ...], in_axis: Axes, out_axis: Axes,
                  batch_axis: Axes) -> tuple[float, float]:
    """``(fan_in, fan_out)``: the input and output sizes times the receptive field (the
    product of the axes that are neither input, output nor batch), in Python floats as JAX."""
    if isinstance(in_axis, int) and in_axis == -2 and len(shape) <= 1:
        raise ValueError(f"{name}: the default in_axis=-2 needs a shape of at least 2 "
                         f"dimensions; got {shape} (pass in_axis explicitly)")
    in_size = _axis_size(name, "in_axis", shape, in_axis)
    out_size = _axis_size(name, "out_axis", shape, out_axis)
    batch_size = _axis_size(name, "batch_axis", shape, batch_axis)
    if 0 in (in_size, out_size, batch_size):
        raise ValueError(f"{name}: the input, output and batch axes of shape {shape} must not "
                         "be empty (the fans would divide by zero)")
    receptive_field = math.prod(shape) / in_size / out_size / batch_size
    return in_size * receptive_field, out_size * receptive_field


_MODES = ("fan_in", "fan_out", "fan_avg", "fan_geo_avg")
_DISTRIBUTIONS = ("truncated_normal", "normal", "uniform")
# The standard deviation of a standard normal truncated to (-2, 2).
_TRUNCATED_STDDEV = 0.8796256610342398


def variance_scaling(scale: Any, mode: str, distribution: str, in_axis: Axes = -2,
                     out_axis: Axes = -1, batch_axis: Axes = (), dtype: Any = None
                     ) -> Initializer:
    """Samples of variance ``scale / n``, ``n`` the fan given by ``mode`` (fan_in, fan_out,
    their mean fan_avg or geometric mean fan_geo_avg), from a normal truncated at two
    standard deviations, a normal, or a uniform (``distribution``)."""
    if mode not in _MODES:
        raise ValueError(f"variance_scaling: mode must be one of {_MODES}; got {mode!r}")
    if distribution not in _DISTRIBUTIONS:
        raise ValueError(f"variance_scaling: distribution must be one of {_DISTRIBUTIONS}; got "
                         f"{distribution!r}")

    def init(key: Any, shape: Any, dtype: Any = dtype, out_sharding: Any = None) -> Any:
        name = "variance_scaling"
        _no_sharding(name, out_sharding)
        dims, dt = _shape(name, shape), _dtype(name, dtype)
        fan_in, fan_out = _compute_fans(name, dims, in_axis, out_axis, batch_axis)
        denominator = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2,
                       "fan_geo_avg": (fan_in * fan_out) ** 0.5}[mode]
        variance = _scalar(scale / denominator, dt)  # (a Python float, rounded once)
        if distribution == "truncated_normal":
            stddev = mnp.sqrt(variance) / _scalar(_TRUNCATED_STDDEV, dt)
            return mr.truncated_normal(key, -2, 2, dims, dt) * stddev
        if distribution == "normal":
            return mr.normal(key, dims, dt) * mnp.sqrt(variance)
        return mr.uniform(key, dims, dt, -1) * mnp.sqrt(3 * variance)
    return init


def _specialized(scale: float, mode: str, distribution: str, doc: str) -> Callable[..., Any]:
    def builder(in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Axes = (),
                dtype: Any = None) -> Initializer:
        return variance_scaling(scale, mode, distribution, in_axis=in_axis,
                                out_axis=out_axis, batch_axis=batch_axis, dtype=dtype)
    builder.__doc__ = doc
    return builder


glorot_uniform = _specialized(1.0, "fan_avg", "uniform", "variance_scaling(1, fan_avg, uniform)")
glorot_normal = _specialized(1.0, "fan_avg", "truncated_normal",
                             "variance_scaling(1, fan_avg, truncated_normal)")
lecun_uniform = _specialized(1.0, "fan_in", "uniform", "variance_scaling(1, fan_in, uniform)")
lecun_normal = _specialized(1.0, "fan_in", "truncated_normal",
                            "variance_scaling(1, fan_in, truncated_normal)")
he_uniform = _specialized(2.0, "fan_in", "uniform", "variance_scaling(2, fan_in, uniform)")
he_normal = _specialized(2.0, "fan_in", "truncated_normal",
                         "variance_scaling(2, fan_in, truncated_normal)")
for _f, _n in ((glorot_uniform, "glorot_uniform"), (glorot_normal, "glorot_normal"),
               (lecun_uniform, "lecun_uniform"), (lecun_normal, "lecun_normal"),
               (he_uniform, "he_uniform"), (he_normal, "he_normal")):
    _f.__name__ = _f.__qualname__ = _n
xavier_uniform, xavier_normal = glorot_uniform, glorot_normal
kaiming_uniform, kaiming_normal = he_uniform, he_normal


def _orthogonal_matrix(key: Any, n: int, m: int, dtype: np.dtype) -> Any:
    """jax.random.orthogonal's ``(n, m)`` matrix: the Q of a normal matrix's QR, its columns'
    signs fixed by R's diagonal (so the law is uniform), transposed when ``n < m``."""
    z = mr.normal(key, (max(n, m), min(n, m)), dtype)
    q, r = mnp.linalg.qr(z)
    x = q * mnp.expand_dims(mnp.sign(mnp.diagonal(r)), -2)
    return x.T if n < m else x


def orthogonal(scale: Any = 1.0, column_axis: int = -1, dtype: Any = None) -> Initializer:
    """A (semi-)orthogonal matrix times ``scale``: the array seen as a matrix of
    ``shape[column_axis]`` columns has orthonormal rows or columns, whichever are fewer."""
    def init(key: Any, shape: Any, dtype: Any = dtype, out_sharding: Any = None) -> Any:
        _no_sharding("orthogonal", out_sharding)
        dims, dt = _shape("orthogonal", shape), _dtype("orthogonal", dtype)
        if len(dims) < 2:
            raise ValueError(f"orthogonal: shape must have at least 2 dimensions; got {dims}")
        if not -len(dims) <= column_axis < len(dims):
            raise ValueError(f"orthogonal: column_axis {column_axis} is out of bounds for "
                             f"shape {dims}")
        if 0 in dims:
            return mnp.zeros(dims, dt)
        n_cols = dims[column_axis]
        q = _orthogonal_matrix(key, math.prod(dims) // n_cols, n_cols, dt)
        rest = tuple(np.delete(np.array(dims), column_axis))
        q = mnp.moveaxis(mnp.reshape(q, (*rest, n_cols)), -1, column_axis)
        return _scalar(scale, dt) * q
    return init


def delta_orthogonal(scale: Any = 1.0, column_axis: int = -1, dtype: Any = None
                     ) -> Initializer:
    """A convolution kernel (3, 4 or 5 dimensions, spatial first) that is zero except at the
    spatial centre, where it is ``orthogonal(scale)`` of shape ``shape[-2:]``."""
    def init(key: Any, shape: Any, dtype: Any = dtype, out_sharding: Any = None) -> Any:
        _no_sharding("delta_orthogonal", out_sharding)
        dims, dt = _shape("delta_orthogonal", shape), _dtype("delta_orthogonal", dtype)
        if len(dims) not in (3, 4, 5):
            raise ValueError(f"delta_orthogonal: shape must have 3, 4 or 5 dimensions; got "
                             f"{dims}")
        if dims[-1] < dims[-2]:
            raise ValueError(f"delta_orthogonal: the input size shape[-2] must be <= the "
                             f"output size shape[-1]; got shape {dims}")
        matrix = orthogonal(scale, column_axis, dt)(key, dims[-2:])
        centre = tuple((k - 1) // 2 for k in dims[:-2])
        return mnp.zeros(dims, dt).at[centre].set(matrix)
    return init

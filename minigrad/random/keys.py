"""PRNG keys, and the bits they hash to.

A key is a value, never a state: two uint32 words, ``PRNGKey(seed)``, or the same data typed
(``key(seed)``, a ``KeyArray``). Everything random is ``threefry2x32`` of the key and a counter:
``bits(key, shape)`` hashes the counters ``0, 1, ..., size - 1`` (one per element, row-major),
``split(key, n)`` hashes ``0 .. n-1`` and keeps both result words as the new keys, and
``fold_in(key, d)`` hashes the counter pair ``(0, d)``. Nothing is remembered between calls, so
the same key always gives the same numbers, eagerly, under ``jit`` and under ``vmap``; drawing
twice from one key gives the same numbers twice (the classic mistake: ``split`` first).
"""

from __future__ import annotations

import math
import operator
from typing import Any, Hashable, Iterable, Iterator, Sequence

import numpy as np

from minigrad.core import Tracer, get_aval
from minigrad.ops import bitwise as bw
from minigrad.ops import elementwise as ew
from minigrad.ops import structural as st
from minigrad.ops.threefry import threefry2x32
from minigrad.random import _dtypes
from minigrad.tree import register_pytree_node

U32 = np.dtype(np.uint32)
_WORD = 0xFFFFFFFF


class KeyDtype:
    """The dtype of typed keys: ``key<fry>`` (threefry2x32 keys, as JAX prints them)."""

    name = "key<fry>"

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__


KEY_DTYPE = KeyDtype()


class KeyArray:
    """An array of typed PRNG keys (``random.key``, ``split`` of a typed key): shape
    ``data.shape[:-1]``, over ``uint32[..., 2]`` key data (``key_data``). A pytree whose one
    leaf is the data, so it passes through ``jit``, ``vmap`` (map over leading axes: a negative
    ``in_axes`` would count the data's word axis) and every other transform."""

    __slots__ = ("_data",)

    def __init__(self, data: Any):
        self._data = data

    @property
    def shape(self) -> tuple[int, ...]:
        return get_aval(self._data).shape[:-1]

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    dtype = KEY_DTYPE

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a single key (shape ())")
        return self.shape[0]

    def __getitem__(self, index: Any) -> KeyArray:
        index = index if isinstance(index, tuple) else (index,)
        if any(i is Ellipsis or i is None for i in index) or len(index) > self.ndim:
            raise IndexError(f"key arrays take at most {self.ndim} int or slice indices (no "
                             f"... or None); got {index!r}")
        return KeyArray(self._data[index])

    def __iter__(self) -> Iterator[KeyArray]:
        return (self[i] for i in range(len(self)))

    def __eq__(self, other: object) -> Any:
        if not isinstance(other, KeyArray):
            return NotImplemented
        return np.all(np.asarray(self._data) == np.asarray(other._data), axis=-1)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        data = self._data
        if isinstance(data, Tracer):
            return f"KeyArray({data!r})"
        return f"Array({self.shape}, dtype={KEY_DTYPE}) overlaying:\n{np.asarray(data)}"


def _unflatten(aux: Hashable, children: Iterable[Any]) -> KeyArray:
    (data,) = children
    shape = getattr(data, "shape", None)  # (transforms also rebuild trees of non-arrays)
    if shape is not None and tuple(shape)[-1:] != (2,):
        raise ValueError(f"typed PRNG key data must end in an axis of 2 words; got shape "
                         f"{tuple(shape)} (vmap maps a key array over its leading axes: give "
                         f"it a non-negative in_axes)")
    return KeyArray(data)


register_pytree_node(KeyArray, lambda k: ((k._data,), None), _unflatten)


# --------------------------------------------------------------------------- checking keys


def _describe(x: Any) -> str:
    try:
        return get_aval(x).str_short()
    except TypeError:
        return type(x).__name__


def key_words(name: str, key: Any, batched: bool = False) -> tuple[Any, bool]:
    """The uint32 key data of ``key`` (typed or raw), and whether it was typed; a single key
    unless ``batched``. Errors name the function ``name``."""
    typed = isinstance(key, KeyArray)
    data = key._data if typed else key
    if isinstance(data, (list, tuple)):
        data = np.asarray(data)
    if not isinstance(data, (np.ndarray, np.generic, Tracer)):
        raise TypeError(f"{name}: key must be a PRNG key (a typed key from random.key, or a "
                        f"uint32 array of shape (2,) from random.PRNGKey); got "
                        f"{type(key).__name__}")
    aval = get_aval(data)
    if aval.dtype != U32 or aval.shape[-1:] != (2,):
        raise TypeError(f"{name}: key must be a PRNG key (a typed key from random.key, or a "
                        f"uint32 array of shape (2,) from random.PRNGKey); got "
                        f"{aval.str_short()}")
    if not batched and aval.ndim != 1:
        raise ValueError(f"{name}: accepts a single key, but was given a key array of shape "
                         f"{aval.shape[:-1] if typed else aval.shape}; use minigrad.vmap to "
                         f"batch over keys")
    return data, typed


def _as_key(words: Any, typed: bool) -> Any:
    return KeyArray(words) if typed else words


def shape_arg(name: str, shape: Any) -> tuple[int, ...]:
    """``shape`` as a tuple of non-negative ints (an int is a 1-d shape)."""
    dims = (shape,) if isinstance(shape, (int, np.integer)) else shape
    try:
        dims = tuple(operator.index(d) for d in dims)
    except TypeError:
        raise TypeError(f"{name}: shape must be a sequence of ints; got {shape!r}") from None
    if any(d < 0 for d in dims):
        raise ValueError(f"{name}: shape must have non-negative sizes; got {dims}")
    return dims


# --------------------------------------------------------------------------- seeds


def _seed_words(name: str, seed: Any) -> Any:
    """uint32[2] = (the seed's high 32 bits, its low 32 bits), as JAX converts seeds: a
    Python int as int64 (int32 with 64-bit defaults off: it wraps), an integer array in its own
    dtype, narrower than 64 bits sign-extended into the low word."""
    if isinstance(seed, KeyArray):
        raise TypeError(f"{name}: accepts a scalar integer seed, but was given a PRNG key")
    if isinstance(seed, (bool, int)):  # (bool is an int, as in JAX)
        if not -2**63 <= seed < 2**63:
            raise ValueError(f"{name}: seed must fit in int64, in [-2**63, 2**63); got {seed}")
        seed = np.asarray(seed, np.int64)
    elif not isinstance(seed, (np.ndarray, np.generic, Tracer)):
        raise TypeError(f"{name}: seed must be an integer; got {type(seed).__name__}")
    aval = get_aval(seed)
    if aval.dtype.kind not in "iu":
        raise TypeError(f"{name}: seed must be an integer; got {aval.str_short()}")
    if aval.ndim:
        raise TypeError(f"{name}: accepts a scalar seed, but was given an array of shape "
                        f"{aval.shape}; use minigrad.vmap to batch over seeds")
    dtype = _dtypes.canonical(aval.dtype)
    seed = ew.convert_element_type(seed, dtype)  # (64-bit defaults off: wraps to 32 bits)
    if dtype.itemsize == 8:
        bits = bw.bitcast_convert_type(seed, np.uint64)
        high = ew.convert_element_type(
            bw.shift_right_logical(bits, st.full((), 32, np.uint64)), U32)
    else:  # a logical shift by 32 or more gives 0
        bits, high = seed, st.full((), 0, U32)
    low = ew.convert_element_type(bits, U32)  # (the low word; sign-extended if narrower)
    return st.concatenate([st.reshape(high, (1,)), st.reshape(low, (1,))], 0)


def PRNGKey(seed: Any) -> Any:
    """A raw key, ``uint32[2]``, from an integer seed: ``[seed >> 32, seed & 0xFFFFFFFF]``.

    >>> PRNGKey(42)
    Array([ 0, 42], dtype=uint32)
    """
    return _seed_words("PRNGKey", seed)


def key(seed: Any) -> KeyArray:
    """A typed key (shape ``()``, dtype ``key<fry>``) over ``PRNGKey(seed)``'s data."""
    return KeyArray(_seed_words("key", seed))


def key_data(keys: Any) -> Any:
    """The ``uint32[..., 2]`` data of typed (or raw) keys."""
    return key_words("key_data", keys, batched=True)[0]


def wrap_key_data(key_bits_array: Any) -> KeyArray:
    """Typed keys over ``uint32[..., 2]`` key data (``key_data``'s inverse)."""
    if isinstance(key_bits_array, KeyArray):
        raise TypeError("wrap_key_data: expects uint32 key data; got typed keys")
    return KeyArray(key_words("wrap_key_data", key_bits_array, batched=True)[0])


def clone(key: Any) -> Any:
    """``key`` itself: values are immutable here, there is nothing to copy (JAX's clone exists
    for buffer donation)."""
    key_words("clone", key, batched=True)
    return key


# --------------------------------------------------------------------------- hashing


def _word(key: Any, i: int) -> Any:
    return st.reshape(st.slice_array(key, (i,), (i + 1,)), ())


def hash_counters(key: Any, shape: tuple[int, ...]) -> Any:
    """``threefry2x32(key, counter)`` for the counters ``0 .. size-1`` laid out in ``shape``
    (row-major): ``uint32[2, *shape]``, the two result words. (The counter is a 64-bit
    integer split into two words, high first; below 2**32 elements the high word is 0.)"""
    size = math.prod(shape)
    if size > 2**32:
        raise ValueError(f"minigrad.random: at most 2**32 values per draw; got shape {shape}")
    k0, k1 = (st.broadcast_in_dim(_word(key, i), shape, ()) for i in (0, 1))
    high = st.full(shape, 0, U32)
    low = st.reshape(st.arange(0, size, 1, U32), shape)
    return threefry2x32(k0, k1, high, low)


def random_bits(key: Any, width: int, shape: tuple[int, ...]) -> Any:
    """``width``-bit unsigned random bits: from the two hash words ``y0, y1`` of each element,
    ``y0 ^ y1`` (cut to 8 or 16 bits), or ``y0 << 32 | y1`` for 64 bits."""
    words = hash_counters(key, shape)
    y0, y1 = (st.reshape(st.slice_array(words, (i, *(0,) * len(shape)), (i + 1, *shape)), shape)
              for i in (0, 1))
    if width == 64:
        u64 = np.dtype(np.uint64)
        high = bw.shift_left(ew.convert_element_type(y0, u64), st.full(shape, 32, u64))
        return bw.bitwise_or(high, ew.convert_element_type(y1, u64))
    mixed = bw.bitwise_xor(y0, y1)
    return mixed if width == 32 else ew.convert_element_type(mixed, f"u{width // 8}")


def split(key: Any, num: int | Sequence[int] = 2) -> Any:
    """``num`` new keys (``num`` an int or a shape): the hash words of the counters
    ``0 .. size-1``, on a new last axis. Typed in, typed out.

    >>> split(PRNGKey(0))
    Array([[1797259609, 2579123966],
           [ 928981903, 3453687069]], dtype=uint32)
    """
    words, typed = key_words("split", key)
    shape = shape_arg("split", num)
    return _as_key(st.moveaxis(hash_counters(words, shape), 0, len(shape)), typed)


def fold_in(key: Any, data: Any) -> Any:
    """A new key from ``key`` and a 32-bit integer ``data``: the hash of the counter pair
    ``(0, data)``; equal to ``split(key, data + 1)[data]``."""
    words, typed = key_words("fold_in", key)
    if isinstance(data, (bool, int)):
        if not 0 <= data < 2**32:
            raise ValueError(f"fold_in: data must be in [0, 2**32) (a uint32); got {data}")
        data = np.asarray(data, U32)
    elif not isinstance(data, (np.ndarray, np.generic, Tracer)):
        raise TypeError(f"fold_in: data must be an integer; got {type(data).__name__}")
    aval = get_aval(data)
    if aval.dtype.kind not in "iu":
        raise TypeError(f"fold_in: data must be an integer; got {aval.str_short()}")
    if aval.ndim:
        raise TypeError(f"fold_in: accepts a scalar, but was given an array of shape "
                        f"{aval.shape}; use minigrad.vmap to batch")
    d = ew.convert_element_type(data, U32)  # (wraps, as JAX's conversion does)
    zero = st.full((), 0, U32)
    return _as_key(threefry2x32(_word(words, 0), _word(words, 1), zero, d), typed)


def bits(key: Any, shape: Sequence[int] = (), dtype: Any = None) -> Any:
    """Uniform random bits: unsigned integers of ``dtype`` (default uint64, or uint32 with
    64-bit defaults off)."""
    words, _ = key_words("bits", key)
    dtype = _dtypes.default_uint() if dtype is None else _dtypes.canonical(np.dtype(dtype))
    if dtype.kind != "u":
        raise ValueError(f"bits: dtype must be an unsigned integer dtype; got {dtype}")
    return random_bits(words, dtype.itemsize * 8, shape_arg("bits", shape))

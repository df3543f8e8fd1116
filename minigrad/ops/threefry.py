"""``threefry2x32``: the counter-based hash all of ``minigrad.random`` draws from.

Threefry-2x32 (Salmon, Moraes, Dror and Shaw, "Parallel Random Numbers: As Easy as 1, 2, 3",
SC'11; the Random123 library) maps a key pair ``(k0, k1)`` and a counter pair ``(x0, x1)`` of
uint32 words to two uint32 words, through 20 rounds of add, rotate and xor with the key
injected every four rounds. Here it is elementwise over four uint32 arrays of one shape, and the
two result words are stacked on a new leading axis: ``out[0], out[1] = y0, y1``.

All arithmetic is uint32 and wraps: NumPy wraps unsigned array arithmetic silently, and the
kernel updates 1-d arrays in place (arithmetic on NumPy scalars would warn on overflow). The
outputs are bits, not numbers: no derivative (float0 tangents; a real tangent for a key or
counter is an error naming ``minigrad.random``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad.core import Primitive, ShapedArray, Zero, float0, get_aval
from minigrad.ops.structural import bdim_to_front

U32 = np.dtype(np.uint32)

# The Random123 rotation distances of Threefry-2x32: the rounds use the first four, then the
# second four, alternately (five groups of four rounds).
ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
# The key schedule's parity constant (Threefish's C240, cut to 32 bits).
PARITY = 0x1BD11BDA

threefry2x32_p = Primitive("threefry2x32")


def threefry2x32(k0: Any, k1: Any, x0: Any, x1: Any) -> Any:
    """The Threefry-2x32 hash of counters ``(x0, x1)`` under key ``(k0, k1)``, elementwise;
    four uint32 arrays of one shape in, ``uint32[2, *shape]`` out.

    >>> import numpy as np
    >>> z = np.zeros(1, np.uint32)
    >>> threefry2x32(z, z, z, z)[:, 0]  # Random123's known-answer test for zero inputs
    Array([1797259609, 2579123966], dtype=uint32)
    """
    return threefry2x32_p.bind(k0, k1, x0, x1)


def threefry2x32_reference(k0: int, k1: int, x0: int, x1: int) -> tuple[int, int]:
    """One hash in plain Python integers, the algorithm as the paper writes it (the test
    oracle for the kernel)."""
    mask = 0xFFFFFFFF
    ks = (k0, k1, k0 ^ k1 ^ PARITY)
    x0, x1 = (x0 + ks[0]) & mask, (x1 + ks[1]) & mask
    for group in range(5):
        for r in ROTATIONS[group % 2]:
            x0 = (x0 + x1) & mask
            x1 = ((x1 << r) | (x1 >> (32 - r))) & mask
            x1 ^= x0
        # inject the key after each group of four rounds, with the group number
        x0 = (x0 + ks[(group + 1) % 3]) & mask
        x1 = (x1 + ks[(group + 2) % 3] + group + 1) & mask
    return x0, x1


# (speed: the rounds run on blocks that stay in the CPU's cache, in place, with one scratch
# array; a key broadcast to the counters' shape, as every sampler's is, is read as one word.)
_BLOCK = 1 << 15


def _operand(v: np.ndarray) -> np.ndarray:
    """``v`` flattened, or its one word if it is a broadcast of a single value."""
    v = np.asarray(v)
    if v.size and not any(v.strides):
        return v.reshape(-1)[:1].reshape(())
    return np.ravel(v)


def _part(v: np.ndarray, block: slice) -> np.ndarray:
    return v if v.ndim == 0 else v[block]


@threefry2x32_p.def_impl
def _threefry2x32_impl(k0: np.ndarray, k1: np.ndarray, x0: np.ndarray, x1: np.ndarray
                       ) -> np.ndarray:
    shape = np.shape(x0)
    k0, k1, x0, x1 = map(_operand, (k0, k1, x0, x1))
    k2 = k0 ^ k1 ^ np.uint32(PARITY)
    n = math.prod(shape)
    out = np.empty((2, n), U32)
    scratch = np.empty(min(n, _BLOCK), U32)
    for lo in range(0, n, _BLOCK):
        hi = min(lo + _BLOCK, n)

        block = slice(lo, hi)
        a, b, t = out[0, block], out[1, block], scratch[:hi - lo]
        ks = tuple(_part(k, block) for k in (k0, k1, k2))
        np.add(_part(x0, block), ks[0], out=a)
        np.add(_part(x1, block), ks[1], out=b)
        for group in range(5):
            for r in ROTATIONS[group % 2]:
                a += b
                np.left_shift(b, np.uint32(r), out=t)  # b = rotate_left(b, r) ^ a
                b >>= np.uint32(32 - r)
                b |= t
                b ^= a
            a += ks[(group + 1) % 3]  # inject the key, with the group number
            b += ks[(group + 2) % 3]
            b += np.uint32(group + 1)
    return out.reshape((2, *shape))


@threefry2x32_p.def_abstract_eval
def _threefry2x32_abstract_eval(*xs: ShapedArray) -> ShapedArray:
    first = xs[0]
    if any(x.shape != first.shape or x.dtype != U32 for x in xs):
        raise TypeError(f"threefry2x32: the key and counter words must be uint32 arrays of "
                        f"one shape; got {', '.join(x.str_short() for x in xs)}")
    return ShapedArray((2, *first.shape), U32)


@threefry2x32_p.def_jvp
def _threefry2x32_jvp(primals: tuple, tangents: tuple) -> tuple:
    # Not differentiable: bits have float0 tangents. A real tangent cannot arise from uint32
    # operands; refuse one rather than drop it.
    for t in tangents:
        if not isinstance(t, Zero) and get_aval(t).dtype != float0:
            raise TypeError("threefry2x32 (the hash under minigrad.random) is not "
                            "differentiable: PRNG keys and counters are uint32 bits; got a "
                            f"tangent of {get_aval(t).str_short()}")
    out = threefry2x32(*primals)
    return out, Zero(ShapedArray(get_aval(out).shape, float0))


@threefry2x32_p.def_batch
def _threefry2x32_batch(axis_size: int, vals: tuple, dims: tuple) -> tuple:
    # Elementwise: line the batch axes up; the result's word axis comes first, so the batch
    # axis d of the operands is axis d + 1 of the result.
    if None not in dims and len(set(dims)) == 1:
        return threefry2x32(*vals), dims[0] + 1
    return threefry2x32(*[bdim_to_front(x, d, axis_size)
                          for x, d in zip(vals, dims, strict=True)]), 1

"""The kernels that compute what XLA computes (``ops/xla_math.py``), the Threefry hash and the
exactly rounded fma: against JAX's own functions when JAX is installed, and against known
answers when it is not."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from minigrad.ops import special as sp
from minigrad.ops import xla_math
from minigrad.ops.threefry import threefry2x32, threefry2x32_reference


def test_threefry_known_answers() -> None:
    # Random123's known-answer vectors for Threefry-2x32 with 20 rounds
    vectors = [((0, 0), (0, 0), (0x6B200159, 0x99BA4EFE)),
               ((0xFFFFFFFF,) * 2, (0xFFFFFFFF,) * 2, (0x1CB996FC, 0xBB002BE7)),
               ((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0))]
    for key, count, expected in vectors:
        words = [np.array([v], np.uint32) for v in (*key, *count)]
        assert tuple(int(w) for w in threefry2x32(*words)[:, 0]) == expected
        assert threefry2x32_reference(*key, *count) == expected


def test_threefry_kernel_blocks_and_broadcast_keys() -> None:
    # more elements than a block, keys broadcast from one word (the samplers' layout)
    rng = np.random.default_rng(0)
    n = 70001
    k0, k1 = np.broadcast_to(np.uint32(7), (n,)), np.broadcast_to(np.uint32(2**32 - 1), (n,))
    x0, x1 = rng.integers(0, 2**32, (2, n), dtype=np.uint32)
    out = threefry2x32(k0, k1, x0, x1)
    for i in (0, 32767, 32768, n - 1):
        assert tuple(out[:, i]) == threefry2x32_reference(7, 2**32 - 1, int(x0[i]), int(x1[i]))


def test_fma_rounds_once() -> None:
    rng = np.random.default_rng(1)
    for dtype in (np.float32, np.float64):
        x, y = rng.standard_normal((2, 2000)).astype(dtype)
        z = (-(x.astype(np.float64) * y) * (1 + rng.uniform(-1e-6, 1e-6, 2000))).astype(dtype)
        # subnormal results and exact midpoints: the cases a double rounding gets wrong
        x[:2], y[:2], z[:2] = np.asarray([1e-20, 1 + 2**-11], dtype), np.asarray(
            [1e-20, 1 + 2**-12], dtype), np.asarray([0, -1], dtype)
        out = sp.fma(x, y, z)
        exact = [Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
                 for a, b, c in zip(x, y, z, strict=True)]
        for o, e in zip(out, exact, strict=True):  # o is a nearest float of dtype to e
            gap = abs(Fraction(float(o)) - e)
            for n in (np.nextafter(o, dtype(np.inf)), np.nextafter(o, dtype(-np.inf))):
                assert gap <= abs(Fraction(float(n)) - e)


def test_fma_rounds_once_block_by_block() -> None:
    # float32 operands larger than a block, one of them a broadcast scalar: the midpoint and
    # subnormal cases sit in later blocks
    rng = np.random.default_rng(3)
    n = 70001
    x = rng.standard_normal(n).astype(np.float32)
    y = np.broadcast_to(np.float32(2**-12 * (1 - 2**-23)), (n,))
    z = rng.standard_normal(n).astype(np.float32)
    # x y + z = 1 + 3 * 2**-24 - 2**-70: float64 rounds it to a float32 midpoint, which
    # float32 then rounds up (to even), where the nearest float32 is below
    at = [40000, 69999, 65536]
    x[at], z[at] = np.float32(2**-12 * (1 + 2**-23)), np.float32(1 + 2**-23)
    x[50000], z[50000] = np.float32(1e-20), np.float32(0)  # below float32's normal range
    out = sp.fma(x, y, z)
    # the same midpoint with 0-d operands (NumPy hands back scalars there)
    assert sp.fma(x[at[0]], y[0], z[at[0]]) == np.float32(1 + 2**-23)
    for i in [*at, 50000, 0, 32767, 32768]:
        e = Fraction(float(x[i])) * Fraction(float(y[i])) + Fraction(float(z[i]))
        o = out[i]
        gap = abs(Fraction(float(o)) - e)
        for near in (np.nextafter(o, np.float32(np.inf)), np.nextafter(o, np.float32(-np.inf))):
            assert gap <= abs(Fraction(float(near)) - e)


def _inputs(name: str, dtype: Any, rng: np.random.Generator) -> np.ndarray:
    n = 200_000
    if name == "erf_inv":
        x = rng.uniform(-1, 1, n)
        x[:1000] = 1 - rng.uniform(0, 1e-6, 1000)
        extra = [0.0, -0.0, 1.0, -1.0, 2.0, np.nan]
    elif name in ("log", "log1p"):
        x = rng.uniform(-1, 3, n) if name == "log1p" else rng.uniform(0, 10, n)
        extra = [0.0, -1.0, np.inf, np.nan, 1.0]
    else:
        x = rng.standard_normal(n) * 2
        extra = [0.0, -0.0, 5.0, -5.0, np.inf, -np.inf, np.nan, 3.832507]
    return np.concatenate([x, extra]).astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["erf_inv", "erf", "log", "log1p"])
def test_kernels_compute_what_xla_computes(name: str, dtype: str) -> None:
    jax = pytest.importorskip("jax", reason="needs JAX to compare with")
    from jax import lax

    x = _inputs(name, dtype, np.random.default_rng(2))
    with jax.enable_x64(dtype == "float64"):
        expected = np.asarray(jax.jit(getattr(lax, name))(x))
    ours = getattr(xla_math, name)(x)
    assert ours.dtype == expected.dtype
    both_nan = np.isnan(ours) & np.isnan(expected)
    np.testing.assert_array_equal(np.where(both_nan, 0, ours), np.where(both_nan, 0, expected))

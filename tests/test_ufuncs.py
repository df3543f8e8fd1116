"""The elementwise composites against NumPy, property by property (hypothesis): the division
family over random integers of every dtype and floats with zeros, negatives, infinities and
NaNs; the shifts over every integer dtype with counts past the width; rounding, frexp, ldexp,
modf, spacing, copysign and hypot; and the tracer operators. The per-function records
(tests/surface_records/ufuncs.py) cover the transforms."""

from __future__ import annotations

import operator

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import minigrad as mg
import minigrad.numpy as mnp

INT_DTYPES = [np.dtype(t) for t in ("int8", "int16", "int32", "int64", "uint8", "uint16",
                                    "uint32", "uint64")]
FLOAT_DTYPES = [np.dtype(np.float32), np.dtype(np.float64)]
quiet = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def int_pairs(dtype: np.dtype) -> st.SearchStrategy:
    # small values (zeros and signs likely) and the dtype's extremes
    info = np.iinfo(dtype)
    values = st.one_of(st.integers(-9, 9).filter(lambda v: info.min <= v <= info.max),
                       st.sampled_from([int(info.min), int(info.max), 0, 1]),
                       st.integers(int(info.min), int(info.max)))
    return hnp.arrays(dtype, 12, elements=values).flatmap(
        lambda x: hnp.arrays(dtype, 12, elements=values).map(lambda y: (x, y)))


def float_pairs(dtype: np.dtype) -> st.SearchStrategy:
    specials = st.sampled_from([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.0, -3.0, 0.5])
    width = dtype.itemsize * 8
    values = st.one_of(specials, st.floats(-100, 100, width=width),
                       st.floats(allow_nan=True, allow_infinity=True, width=width))
    return hnp.arrays(dtype, 12, elements=values).flatmap(
        lambda x: hnp.arrays(dtype, 12, elements=values).map(lambda y: (x, y)))


def same(ours: object, theirs: np.ndarray, signed_zeros: bool = True, what: str = "") -> None:
    ours = np.asarray(ours)
    assert ours.dtype == theirs.dtype, what
    np.testing.assert_array_equal(ours, theirs, err_msg=what)
    if signed_zeros and theirs.dtype.kind == "f":
        zeros = theirs == 0
        np.testing.assert_array_equal(np.signbit(ours[zeros]), np.signbit(theirs[zeros]),
                                      err_msg=f"{what}: signs of zeros")


# --------------------------------------------------------------------------- division


@quiet
@pytest.mark.parametrize("dtype", INT_DTYPES, ids=str)
@given(data=st.data())
def test_integer_division_family_is_numpys(dtype: np.dtype, data: st.DataObject) -> None:
    x, y = data.draw(int_pairs(dtype))
    same(mnp.floor_divide(x, y), np.floor_divide(x, y))
    same(mnp.remainder(x, y), np.remainder(x, y))
    same(mnp.fmod(x, y), np.fmod(x, y))
    q, r = mnp.divmod(x, y)
    same(q, np.floor_divide(x, y))
    same(r, np.remainder(x, y))


@quiet
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
@given(data=st.data())
def test_float_division_family_is_numpys(dtype: np.dtype, data: st.DataObject) -> None:
    x, y = data.draw(float_pairs(dtype))
    same(mnp.floor_divide(x, y), standard_floor_divide(x, y))
    same(mnp.fmod(x, y), np.fmod(x, y))
    same(mnp.remainder(x, y), np.remainder(x, y))
    q, r = mnp.divmod(x, y)
    same(q, standard_floor_divide(x, y))
    same(r, np.remainder(x, y))


def standard_floor_divide(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """NumPy's floor_divide, except with an infinite operand: the array API standard's
    ``floor(x / y)`` (NumPy: ``-1 // inf`` is -1, ``inf // 2`` NaN; the standard: -0.0, inf)."""
    with np.errstate(all="ignore"):
        return np.where(np.isinf(x) | np.isinf(y), np.floor(x / y), np.floor_divide(x, y))


def test_floor_divide_and_remainder_special_cases_are_the_standards() -> None:
    inf = np.inf
    x = np.array([-1.0, 1.0, 1.0, -1.0, inf, inf, -inf, -inf, 0.0, -0.0])
    y = np.array([inf, -inf, inf, -inf, 2.0, -2.0, 2.0, -2.0, -1.0, 1.0])
    same(mnp.floor_divide(x, y), np.array([-0.0, -0.0, 0.0, 0.0, inf, -inf, -inf, inf,
                                           -0.0, -0.0]))
    same(mg.jit(mnp.floor_divide)(x, y), mnp.floor_divide(x, y))
    # the floored remainder's zero takes y's sign; its derivative in x stays 1
    same(mnp.remainder(x[8:], y[8:]), np.array([-0.0, 0.0]))
    assert float(mg.grad(mnp.remainder)(0.0, -1.0)) == 1.0
    assert float(mg.jit(mg.grad(mnp.remainder))(-0.0, 1.0)) == 1.0


@quiet
def test_division_family_under_jit_and_vmap() -> None:
    x = np.array([7.0, -7.0, 7.0, -7.0, 0.0, -0.0, 5.0, np.inf, 2.0])
    y = np.array([2.0, 2.0, -2.0, -2.0, -3.0, 3.0, 0.0, 2.0, np.inf])
    for fn in (mnp.floor_divide, mnp.remainder, mnp.fmod):
        want = (standard_floor_divide if fn is mnp.floor_divide else getattr(np, fn.__name__))
        same(mg.jit(fn)(x, y), want(x, y))
        same(mg.vmap(fn)(x, y), want(x, y))
    xi, yi = np.array([7, -7, 7, -7, 0, 5]), np.array([2, 2, -2, -2, 0, 0])
    same(mg.jit(operator.floordiv)(xi, yi), xi // yi)
    same(mg.vmap(mnp.remainder)(xi, yi), xi % yi)


def test_integer_division_by_zero_is_numpys_not_jaxs() -> None:
    # NumPy: 0 (with its warning); JAX: -1 and -2 (floor_divide), and rem gives x
    with pytest.warns(RuntimeWarning, match="divide by zero"):
        out = mnp.floor_divide(np.array([7, -7, 0]), 0)
    np.testing.assert_array_equal(out, [0, 0, 0])
    np.testing.assert_array_equal(mnp.remainder(np.array([7, -7], np.uint8 if False else
                                                         np.int32), 0), [0, 0])
    np.testing.assert_array_equal(mnp.floor_divide(np.array([200], np.uint8), np.uint8(0)), [0])
    # INT_MIN // -1 wraps to INT_MIN, as NumPy (with its overflow warning)
    with pytest.warns(RuntimeWarning, match="overflow"):
        out = mnp.floor_divide(np.array([-128], np.int8), np.int8(-1))
    np.testing.assert_array_equal(out, [-128])


# --------------------------------------------------------------------------- shifts, bits


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=str)
@given(data=st.data())
def test_shifts_are_numpys_for_every_count(dtype: np.dtype, data: st.DataObject) -> None:
    width = dtype.itemsize * 8
    info = np.iinfo(dtype)
    x = data.draw(hnp.arrays(dtype, 10, elements=st.integers(int(info.min), int(info.max))))
    low = 0 if dtype.kind == "u" else -3
    counts = data.draw(hnp.arrays(dtype, 10, elements=st.integers(
        low, min(width + 5, int(info.max)))))
    same(mnp.left_shift(x, counts), np.left_shift(x, counts))
    same(mnp.right_shift(x, counts), np.right_shift(x, counts))
    for op in (mnp.bitwise_and, mnp.bitwise_or, mnp.bitwise_xor):
        same(op(x, counts), getattr(np, op.__name__)(x, counts))
    same(mnp.invert(x), np.invert(x))
    same(mnp.bitwise_count(x), np.bitwise_count(x))


def test_shift_counts_past_the_width() -> None:
    x = np.array([1, -1, 100, -100], np.int32)
    for count in (31, 32, 33, 64, 1000):
        same(mnp.left_shift(x, count), np.left_shift(x, count))
        same(mnp.right_shift(x, count), np.right_shift(x, count))
    u = np.array([1, 255], np.uint8)
    same(mnp.right_shift(u, np.array([8, 9], np.uint8)), np.array([0, 0], np.uint8))
    # a negative Python count with an unsigned array: NumPy's OverflowError, naming the function
    with pytest.raises(OverflowError, match="right_shift: the Python integer -1"):
        mnp.right_shift(u, -1)


def test_bit_operations_refuse_floats() -> None:
    with pytest.raises(TypeError, match="bitwise_and: not supported for operands of float64"):
        mnp.bitwise_and(np.ones(2), np.ones(2))
    with pytest.raises(TypeError, match="left_shift: not supported"):
        mnp.left_shift(np.ones(2), 1)
    with pytest.raises(TypeError, match="invert: not supported"):
        mnp.invert(np.ones(2))


# --------------------------------------------------------------------------- other composites


@quiet
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
@given(data=st.data())
def test_float_composites_are_numpys(dtype: np.dtype, data: st.DataObject) -> None:
    x, y = data.draw(float_pairs(dtype))
    for name in ("trunc", "fix", "rint", "floor", "ceil", "isnan", "isinf", "isfinite",
                 "signbit", "isposinf", "isneginf", "logical_not", "spacing", "log2", "log10",
                 "deg2rad", "rad2deg", "square", "reciprocal", "sign", "fabs"):
        ours, theirs = getattr(mnp, name)(x), getattr(np, name)(x)
        if name in ("log2", "log10", "deg2rad", "rad2deg"):  # one rounding more than NumPy
            np.testing.assert_allclose(ours, theirs, rtol=4 * np.finfo(dtype).eps, atol=0,
                                       err_msg=f"{name} of {x}")
        else:
            same(ours, theirs, what=f"{name} of {x}")
    m, e = mnp.frexp(x)
    same(m, np.frexp(x)[0])
    same(e, np.frexp(x)[1])
    frac, whole = mnp.modf(x)
    same(whole, np.modf(x)[1])
    same(frac, np.modf(x)[0], signed_zeros=False)  # (0 from a negative integer: +0, as JAX)
    for name in ("copysign", "nextafter", "fmax", "fmin", "maximum", "minimum", "heaviside",
                 "logical_and", "logical_or", "logical_xor", "equal", "less"):
        same(getattr(mnp, name)(x, y), getattr(np, name)(x, y),
             signed_zeros=name not in ("fmax", "fmin"))  # (ties of +-0 go to x2, as JAX)
    eps = np.finfo(dtype).eps
    with np.errstate(invalid="ignore", over="ignore"):
        scale = np.abs(x.astype(np.float64)) + np.abs(y.astype(np.float64))
    for name in ("hypot", "logaddexp", "logaddexp2", "arctan2"):
        ours, theirs = np.asarray(getattr(mnp, name)(x, y)), getattr(np, name)(x, y)
        assert ours.dtype == theirs.dtype
        # a few roundings, relative to the result or (a cancellation near 0) the operands
        close = np.isclose(ours, theirs, rtol=4 * eps, atol=0, equal_nan=True)
        close |= np.abs(ours - theirs.astype(np.float64)) <= 4 * eps * scale
        assert close.all(), f"{name}({x[~close]}, {y[~close]}): {ours[~close]} vs " \
                            f"{theirs[~close]}"
    n = data.draw(hnp.arrays(np.int32, 12, elements=st.integers(-1100, 1100)))
    same(mnp.ldexp(x, n), np.ldexp(x, n))


def test_round_is_numpys() -> None:
    x = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 1.25, 1.35, 123.456, -0.0])
    for decimals in (0, 1, 2, -1, -2):
        same(mnp.round(x, decimals), np.round(x, decimals))
        same(mnp.round(x.astype(np.float32), decimals), np.round(x.astype(np.float32),
                                                                 decimals))
    i = np.array([125, 135, -125, -135, 150, 149, 0, 2 ** 53 - 5])
    for decimals in (0, 1, -1, -2, -3, -19, -20):
        same(mnp.round(i, decimals), np.round(i, decimals))
    # exact beyond 2**53, where NumPy rounds through float64 (9e18 + 15 -> 9e18)
    same(mnp.round(np.array([9_000_000_000_000_000_015]), -1),
         np.array([9_000_000_000_000_000_020]))
    same(mnp.round(np.array([True, False])), np.round(np.array([True, False])))
    same(mnp.round(np.array([15, 25, 35], np.int8), -1), np.array([20, 20, 40], np.int8))


def test_hypot_and_logaddexp_do_not_overflow() -> None:
    big = np.array([1e300, 3e300])
    np.testing.assert_allclose(mnp.hypot(big, big), np.hypot(big, big), rtol=1e-15)
    g = mg.grad(lambda x, y: mnp.hypot(x, y), argnums=(0, 1))(1e300, 1e300)
    np.testing.assert_allclose(g, [2 ** -0.5, 2 ** -0.5], rtol=1e-15)  # (JAX: 1.06, overflow)
    np.testing.assert_allclose(mnp.logaddexp(1000.0, 1000.0), 1000 + np.log(2), rtol=1e-15)


def test_sinc_has_every_derivative_at_zero() -> None:
    d1 = mg.grad(mnp.sinc)(0.0)
    d2 = mg.grad(mg.grad(mnp.sinc))(0.0)
    d4 = mg.grad(mg.grad(mg.grad(mg.grad(mnp.sinc))))(0.0)
    assert float(d1) == 0.0
    np.testing.assert_allclose(d2, -np.pi ** 2 / 3, rtol=1e-15)
    np.testing.assert_allclose(d4, np.pi ** 4 / 5, rtol=1e-15)


def test_gradients_at_the_edges_without_jax() -> None:
    # JAX 0.10.2's values, measured and recorded here
    grad = mg.grad
    assert float(grad(mnp.abs)(0.0)) == 1.0 and float(grad(mnp.abs)(-0.0)) == 1.0
    assert float(grad(lambda x: mnp.maximum(x, 0.0))(0.0)) == 0.5
    assert np.isinf(grad(mnp.sqrt)(0.0)) and np.isinf(grad(mnp.cbrt)(0.0))
    assert float(grad(lambda x: x ** 0)(0.0)) == 0.0
    assert np.isnan(grad(lambda x: mnp.power(x, 0.0))(0.0))
    assert float(grad(lambda x: mnp.power(x, np.array([0]))[0])(0.0)) == 0.0
    assert float(grad(lambda x: mnp.power(x, 1.0))(0.0)) == 1.0
    assert float(grad(lambda x: x ** -1)(0.0)) == -np.inf
    np.testing.assert_allclose(grad(mnp.logaddexp, argnums=(0, 1))(1.0, 1.0), [0.5, 0.5],
                               rtol=1e-15)
    np.testing.assert_array_equal(grad(mnp.logaddexp, argnums=(0, 1))(np.inf, np.inf), [1, 1])
    assert np.isnan(grad(mnp.logaddexp, argnums=(0, 1))(-np.inf, -np.inf)).all()
    np.testing.assert_array_equal(grad(mnp.hypot, argnums=(0, 1))(0.0, 0.0), [0.5, 0.5])
    assert np.isnan(grad(mnp.arctan2, argnums=(0, 1))(0.0, 0.0)).all()
    np.testing.assert_array_equal(grad(mnp.clip, argnums=(0, 1, 2))(1.0, 1.0, 2.0),
                                  [0.5, 0.5, 0.0])
    np.testing.assert_array_equal(grad(mnp.clip, argnums=(0, 1, 2))(3.0, 2.0, 1.0),
                                  [0.0, 0.0, 1.0])
    np.testing.assert_array_equal(grad(mnp.fmax, argnums=(0, 1))(1.0, 1.0), [0.0, 1.0])
    np.testing.assert_array_equal(grad(mnp.fmax, argnums=(0, 1))(np.nan, 1.0), [0.0, 1.0])
    np.testing.assert_array_equal(mg.vmap(grad(mnp.nan_to_num))(
        np.array([1.0, np.nan, np.inf, -np.inf])), [1.0, 0.0, 0.0, 0.0])
    np.testing.assert_array_equal(grad(mnp.remainder, argnums=(0, 1))(-5.0, 2.0), [1.0, 3.0])
    np.testing.assert_array_equal(grad(mnp.fmod, argnums=(0, 1))(-5.0, 2.0), [1.0, 2.0])
    np.testing.assert_array_equal(grad(mnp.floor_divide, argnums=(0, 1))(5.0, 0.0), [0, 0])


# --------------------------------------------------------------------------- tracer operators


def test_every_operator_on_tracers_is_the_function() -> None:
    x = np.array([5, -7, 12, 3], np.int32)
    y = np.array([2, 3, -5, 1], np.int32)
    binary = [(operator.add, np.add), (operator.sub, np.subtract), (operator.mul, np.multiply),
              (operator.truediv, np.divide), (operator.floordiv, np.floor_divide),
              (operator.mod, np.remainder), (operator.and_, np.bitwise_and),
              (operator.or_, np.bitwise_or), (operator.xor, np.bitwise_xor),
              (operator.lshift, np.left_shift), (operator.rshift, np.right_shift),
              (operator.eq, np.equal), (operator.ne, np.not_equal), (operator.lt, np.less),
              (operator.le, np.less_equal), (operator.gt, np.greater),
              (operator.ge, np.greater_equal), (divmod, np.divmod)]
    for op, ref in binary:
        for args in ((x, y), (x, 2), (7, y)):  # the plain, a Python scalar, the reflected form
            traced = [a for a in args if isinstance(a, np.ndarray)]

            def f(*arrays, args=args, op=op):
                it = iter(arrays)
                return op(*[next(it) if isinstance(a, np.ndarray) else a for a in args])

            out = mg.jit(f)(*traced)
            expected = ref(*args)
            for o, e in zip(out if isinstance(out, tuple) else [out],
                            expected if isinstance(expected, tuple) else [expected],
                            strict=True):
                same(o, e)
    for op, ref in ((operator.neg, np.negative), (operator.pos, np.positive),
                    (operator.invert, np.invert), (abs, np.abs)):
        same(mg.jit(op)(x), ref(x))
    xf = np.array([1.25, -2.5, 3.0])
    same(mg.jit(lambda t: t ** 2)(xf), xf ** 2)
    same(mg.jit(lambda t: 2.0 ** t)(xf), 2.0 ** xf)
    same(mg.jit(lambda t: round(t, 1))(xf), np.round(xf, 1))
    same(mg.jit(lambda t: t.round())(xf), np.round(xf))
    same(mg.jit(lambda t: t.clip(-1, 1))(xf), np.clip(xf, -1, 1))
    same(mg.jit(lambda t: t.conj())(xf), xf)
    same(mg.jit(lambda t: t.real)(xf), xf)
    same(mg.jit(lambda t: t.imag)(xf), np.zeros(3))
    same(mg.jit(lambda t: np.sin(t) + np.maximum(t, 0))(xf), np.sin(xf) + np.maximum(xf, 0))
    same(mg.jit(lambda t: np.divmod(t, 2.0)[1])(xf), np.divmod(xf, 2.0)[1], False)
    with pytest.raises(TypeError, match="modulus"):
        mg.jit(lambda t: pow(t, 2, 3))(x)


def test_augmented_assignment_on_tracers() -> None:
    # t op= y gives the value of t op y (here through Python's fallback to the operator; the
    # in-place helper's __iadd__ ... give the same values)
    def f(t):
        t += 1
        t *= 2
        t //= 3
        t <<= 1
        return t

    x = np.array([1, 5, -4])
    want = ((x + 1) * 2 // 3) << 1
    same(mg.jit(f)(x.copy()), want)  # (x.copy(): t += 1 writes the caller's array, as NumPy's)


def test_x64_off_gives_jaxs_32_bit_world() -> None:
    x = np.array([0.5, -1.5, 2.0])  # float64: enters as float32
    with mg.enable_x64(False):
        for fn in (mnp.sin, mnp.sqrt, mnp.logaddexp, mnp.floor_divide, mnp.hypot, mnp.sinc,
                   mnp.arctan2):
            args = (x,) if fn in (mnp.sin, mnp.sqrt, mnp.sinc) else (x, 2.0)
            assert fn(*args).dtype == np.float32, fn.__name__
            assert mg.jit(fn)(*args).dtype == np.float32, fn.__name__
            args32 = tuple(a.astype(np.float32) if isinstance(a, np.ndarray) else a
                           for a in args)  # (grad does not narrow a float64 argument yet)
            g = mg.grad(lambda *a, fn=fn: mnp.sum(fn(*a)))(*args32)
            assert g.dtype == np.float32, fn.__name__
        assert mnp.divide(np.array([1, 2]), 2).dtype == np.float32
        assert mnp.floor_divide(np.array([7, -7]), 2).dtype == np.int32
        assert mnp.left_shift(np.array([1], np.int64), 40).dtype == np.int32
        np.testing.assert_array_equal(mnp.left_shift(np.array([1], np.int64), 40), [0])
        assert mnp.result_type(np.float64, 1) == np.float32


@quiet
def test_an_arrays_floor_division_operators_are_floor_divides() -> None:
    # minigrad.Array's //, reflected // and //= (NumPy's own operators give -1.0 and NaN here)
    x, y = mnp.asarray([-1.0, np.inf, 7.0]), mnp.asarray([np.inf, 2.0, 2.0])
    want = np.array([-0.0, np.inf, 3.0])
    same(x // y, want)
    same(np.asarray(x).tolist() // y, want)
    before = x
    x //= y
    assert x is before
    same(x, want)
    i = mnp.asarray([7, -7])
    i //= 2
    same(i, np.array([3, -4]))

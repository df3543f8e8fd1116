"""Special functions as primitives: ``erf``, ``erfc``, ``lgamma``, ``digamma`` and ``polygamma``.

NumPy has none of them, so the impls are written here, in float64 (a float32 operand is computed
in float64 and rounded once): Chebyshev series whose coefficients were computed with mpmath
(``tests/special_coefficients.py`` recomputes them and a test checks they are these), asymptotic
series with exact Bernoulli numbers, and the functions' recurrences and reflection formulas. The
derivatives close the family: erf' and erfc' are Gaussians, lgamma' = digamma, digamma' =
polygamma(1, .) and polygamma(n, .)' = polygamma(n + 1, .).

(``erf_inv`` lives in ``ops/special.py``, from the random branch; the lead merges the two.)
Values at the poles follow JAX: lgamma is +inf at 0 and the negative integers (and at -inf),
digamma NaN there, polygamma(n, .) +inf for odd n and NaN for even n.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cache
from typing import Any

import numpy as np

from minigrad.core import Primitive, ShapedArray
from minigrad.ops.elementwise import exp, full_like, mul, neg, unary
from minigrad.ops.structural import vectorized_batch

# --------------------------------------------------------------------------- tables
# Chebyshev coefficients (tests/special_coefficients.py; the interval is in each name's fit)

_ERF_OVER_X = (
    1.083882205490613,
    -0.04367779108737525,
    0.0008071118294133213,
    -1.191317951927046e-05,
    1.440278733630302e-07,
    -1.467715582316901e-09,
    1.2902439604484931e-11,
    -9.963857180158892e-14,
    6.857505850501729e-16,
    -4.2553704353907005e-18,
    2.403681398998458e-20,
)
_ERFCX_MID = (
    0.4006822530639845,
    -0.17395587897748596,
    0.03383702540740585,
    -0.006032263577025819,
    0.001000274118215681,
    -0.0001558965252433288,
    2.3014442396758424e-05,
    -3.2375421924541957e-06,
    4.360702485858127e-07,
    -5.645684833789816e-08,
    7.048623263203286e-09,
    -8.509612327566787e-10,
    9.957554366871612e-11,
    -1.1316613855047192e-11,
    1.251336999292314e-12,
    -1.348367808531293e-13,
    1.4178345409698665e-14,
    -1.456695351723711e-15,
    1.463834413999447e-16,
    -1.4274639366304835e-17,
)
_X_ERFCX_TAIL = (
    0.5357589655101462,
    -0.026532434337606717,
    0.0017111539779208558,
    -0.00016375166345851787,
    1.9871293500552038e-05,
    -2.843712412766555e-06,
    4.6061613089631305e-07,
    -8.227753025879209e-08,
    1.5921418727709012e-08,
    -3.295071362252843e-09,
    7.223439760400554e-10,
    -1.6648558133987242e-10,
    4.01039258823753e-11,
    -1.0048162144253865e-11,
    2.608275913291445e-12,
    -6.991110560172884e-13,
    1.9294923326553773e-13,
    -5.4701311727040237e-14,
    1.589663266873226e-14,
    -4.726892822825231e-15,
    1.4358702216046385e-15,
    -4.449423627676023e-16,
    1.4045686858795029e-16,
    -4.506992082121262e-17,
    1.45504710722282e-17,
    -4.3299396893129134e-18,
)
_LGAMMA_1_2 = (
    0.49141539302938714,
    -0.07611416167043585,
    0.008432324965932778,
    -0.001079493726328608,
    0.00014900748003692963,
    -2.1512399888556784e-05,
    3.1979329860862186e-06,
    -4.851693012139927e-07,
    7.47148782116316e-08,
    -1.1638296700170518e-08,
    1.829400437118668e-09,
    -2.8969180607129607e-10,
    4.61570140620909e-11,
    -7.392810230497981e-12,
    1.1894280008332992e-12,
    -1.921206867651721e-13,
    3.113975526353531e-14,
    -5.062843296425325e-15,
    8.254150159788434e-16,
    -1.3490571642073269e-16,
    2.2098317807745667e-17,
    -3.624733526290953e-18,
    5.80327902764587e-19,
)

# B_2, B_4, ..., B_20: the Bernoulli numbers of the asymptotic series
_BERNOULLI = (Fraction(1, 6), Fraction(-1, 30), Fraction(1, 42), Fraction(-1, 30),
              Fraction(5, 66), Fraction(-691, 2730), Fraction(7, 6), Fraction(-3617, 510),
              Fraction(43867, 798), Fraction(-174611, 330))
_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


def _chebyshev(coefs: tuple[float, ...], u: np.ndarray, a: float, b: float) -> np.ndarray:
    """The series sum c_k T_k(t), t = (2u - a - b) / (b - a), by Clenshaw's recurrence."""
    t = (2 * u - (a + b)) / (b - a)
    b1 = np.zeros_like(t)
    b2 = np.zeros_like(t)
    for c in coefs[:0:-1]:
        b1, b2 = 2 * t * b1 - b2 + c, b1
    return t * b1 - b2 + coefs[0]  # type: ignore[no-any-return]


def _horner(coefs: list[float], z: np.ndarray) -> np.ndarray:
    out = np.zeros_like(z)
    for c in reversed(coefs):
        out = out * z + c
    return out


def _in_float64(fn: Any) -> Any:
    """``fn`` on float64 values, its result in the operand's dtype; NumPy's warnings off (the
    infinities and NaNs of the formulas are the functions' own values)."""
    def impl(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            out = fn(np.asarray(x, np.float64))
        return np.asarray(out, x.dtype)

    impl.__name__ = fn.__name__
    return impl


# --------------------------------------------------------------------------- erf, erfc

def _exp_minus_square(x: np.ndarray) -> np.ndarray:
    # exp(-x**2) with x**2 split as h**2 + (x - h)(x + h), h = x to 1/16: h**2 is exact, so
    # the rounding of x**2 (relative error x**2 * 2**-53 in the result) is avoided
    h = np.trunc(x * 16) / 16
    out = np.exp(-h * h) * np.exp(-(x - h) * (x + h))
    return np.where(np.isinf(x), 0.0, out)  # (inf - inf in the split)


def _erfc_of_positive(x: np.ndarray) -> np.ndarray:
    """erfc(x) for x >= 0.5, as exp(-x**2) erfcx(x)."""
    mid = _chebyshev(_ERFCX_MID, np.minimum(x, 2.0), 0.5, 2.0)
    u = 1 / np.maximum(x, 2.0) ** 2
    tail = _chebyshev(_X_ERFCX_TAIL, u, 0.0, 0.25) / np.maximum(x, 2.0)
    return _exp_minus_square(x) * np.where(x < 2, mid, tail)  # type: ignore[no-any-return]


@_in_float64
def _erf(x: np.ndarray) -> np.ndarray:
    ax = np.absolute(x)
    small = x * _chebyshev(_ERF_OVER_X, np.minimum(x * x, 0.25), 0.0, 0.25)
    large = np.copysign(1 - _erfc_of_positive(np.maximum(ax, 0.5)), x)
    return np.where(ax < 0.5, small, large)


@_in_float64
def _erfc(x: np.ndarray) -> np.ndarray:
    ax = np.absolute(x)
    small = 1 - x * _chebyshev(_ERF_OVER_X, np.minimum(x * x, 0.25), 0.0, 0.25)
    tail = _erfc_of_positive(np.maximum(ax, 0.5))
    return np.where(ax < 0.5, small, np.where(x > 0, tail, 2 - tail))


_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)


def _gaussian_slope(x: Any) -> Any:
    # erf'(x) = 2 / sqrt(pi) * exp(-x**2)
    return mul(full_like(x, _TWO_OVER_SQRT_PI), exp(neg(mul(x, x))))


erf_p = unary("erf", _erf, lambda t, x, out: mul(t, _gaussian_slope(x)))
erfc_p = unary("erfc", _erfc, lambda t, x, out: neg(mul(t, _gaussian_slope(x))))


def erf(x: Any) -> Any:
    """The error function, 2 / sqrt(pi) * integral of exp(-t**2) from 0 to x."""
    return erf_p.bind(x)


def erfc(x: Any) -> Any:
    """1 - erf(x), accurate where erf(x) is near 1."""
    return erfc_p.bind(x)


# --------------------------------------------------------------------------- lgamma

def _stirling(x: np.ndarray) -> np.ndarray:
    # lgamma(x) = (x - 1/2) log x - x + log(2 pi)/2 + sum B_2k / (2k (2k-1) x**(2k-1)), x >= 8
    terms = [float(b / (2 * k * (2 * k - 1))) for k, b in enumerate(_BERNOULLI, 1)]
    z = 1 / x
    return (x - 0.5) * np.log(x) - x + _HALF_LOG_2PI + z * _horner(terms, z * z)


def _lgamma_of_positive(x: np.ndarray) -> np.ndarray:
    """lgamma for x > 0: Stirling from 8 on; below, down to [1, 2] by lgamma(x) = lgamma(x - 1)
    + log(x - 1) (or up from (0, 1) by lgamma(x) = lgamma(x + 1) - log x), where the zeros at
    1 and 2 are factored out of the series."""
    y = np.where(x < 1, x + 1, np.minimum(x, 8.0))
    log_factor = np.zeros_like(x)
    product = np.ones_like(x)
    for _ in range(6):  # y in [2, 8): at most six steps down
        above = y >= 2
        product = np.where(above, product * (y - 1), product)
        y = np.where(above, y - 1, y)
    log_factor = np.log(product) - np.where(x < 1, np.log(x), 0.0)
    middle = (y - 1) * (y - 2) * _chebyshev(_LGAMMA_1_2, y, 1.0, 2.0) + log_factor
    return np.where(x >= 8, _stirling(np.maximum(x, 8.0)), middle)  # type: ignore[no-any-return]


@_in_float64
def _lgamma(x: np.ndarray) -> np.ndarray:
    positive = _lgamma_of_positive(np.where(x > 0, x, 1 - x))
    # reflection below 0: lgamma(x) = log(pi / |sin(pi x)|) - lgamma(1 - x), with sin's
    # argument reduced exactly to [-1/2, 1/2] (0 at the poles, so log gives inf)
    f = x - np.round(x)
    reflected = np.log(np.pi / np.absolute(np.sin(np.pi * f))) - positive
    out = np.where(x > 0, positive, reflected)
    return np.where(np.isinf(x), np.inf, out)


# lgamma' = digamma
lgamma_p = unary("lgamma", _lgamma, lambda t, x, out: mul(t, digamma(x)))


def lgamma(x: Any) -> Any:
    """log |Gamma(x)|."""
    return lgamma_p.bind(x)


# --------------------------------------------------------------------------- digamma, polygamma

_SHIFT = 8.0  # the asymptotic series are used from here up (plus the order, for polygamma)


def _digamma_asymptotic(x: np.ndarray) -> np.ndarray:
    # psi(x) = log x - 1/(2x) - sum B_2k / (2k x**2k)
    terms = [float(b / (2 * k)) for k, b in enumerate(_BERNOULLI, 1)]
    z = 1 / (x * x)
    return np.log(x) - 0.5 / x - z * _horner(terms, z)  # type: ignore[no-any-return]


def _shift_up(x: np.ndarray, start: float, term: Any) -> tuple[np.ndarray, np.ndarray]:
    """x moved up to at least ``start`` by steps of 1, and the sum of ``term(x)`` over the
    values it left behind (the recurrence's correction)."""
    total = np.zeros_like(x)
    for _ in range(math.ceil(start)):  # x > 0 here: a bounded number of steps
        below = x < start
        total = total + np.where(below, term(x), 0.0)
        x = np.where(below, x + 1, x)
    return x, total


@_in_float64
def _digamma(x: np.ndarray) -> np.ndarray:
    y = np.where(x > 0, x, 1 - x)
    # psi(x) = psi(x + 1) - 1/x
    shifted, correction = _shift_up(y, _SHIFT, lambda v: 1 / v)
    positive = _digamma_asymptotic(shifted) - correction
    # reflection: psi(x) = psi(1 - x) - pi / tan(pi x); NaN at the poles, as JAX
    f = x - np.round(x)
    reflected = np.where(f == 0, np.nan, positive - np.pi / np.tan(np.pi * f))
    out = np.where(x > 0, positive, reflected)
    return np.where(x == np.inf, np.inf, out)


# digamma' = polygamma(1, .)
digamma_p = unary("digamma", _digamma, lambda t, x, out: mul(t, polygamma(1, x)))


def digamma(x: Any) -> Any:
    """psi(x), the derivative of lgamma."""
    return digamma_p.bind(x)


@cache
def _cot_derivative(n: int) -> tuple[int, ...]:
    """The polynomial P_n (coefficients, lowest first) with d^n/dx^n cot(pi x) = pi^n P_n(c),
    c = cot(pi x): P_0 = c, P_(k+1) = -(1 + c**2) P_k'."""
    p = [0, 1]
    for _ in range(n):
        dp = [k * p[k] for k in range(1, len(p))] or [0]
        nxt = [0] * (len(dp) + 2)
        for k, c in enumerate(dp):
            nxt[k] -= c
            nxt[k + 2] -= c
        p = nxt
    return tuple(p)


def _polygamma_of_positive(n: int, x: np.ndarray) -> np.ndarray:
    sign = -1.0 if n % 2 == 0 else 1.0  # (-1)**(n + 1)
    fact = math.factorial(n)
    # psi^(n)(x) = psi^(n)(x + 1) - (-1)**n n! / x**(n + 1)
    shifted, correction = _shift_up(x, _SHIFT + n, lambda v: 1 / v ** (n + 1))
    # (-1)**(n+1) [(n-1)!/x**n + n!/(2 x**(n+1)) + sum B_2k (2k+n-1)!/((2k)! x**(2k+n))]
    terms = [float(b * math.factorial(2 * k + n - 1) / math.factorial(2 * k))
             for k, b in enumerate(_BERNOULLI, 1)]
    z = 1 / shifted
    series = (math.factorial(n - 1) * z ** n + fact / 2 * z ** (n + 1)
              + z ** (n + 2) * _horner(terms, z * z))
    return sign * series + sign * fact * correction  # type: ignore[no-any-return]


def _polygamma_impl(x: np.ndarray, *, n: int) -> np.ndarray:
    def compute(x: np.ndarray) -> np.ndarray:
        positive = _polygamma_of_positive(n, np.where(x > 0, x, 1 - x))
        # reflection: psi^(n)(x) = (-1)**n psi^(n)(1 - x) - pi**(n+1) P_n(cot(pi x))
        f = x - np.round(x)
        cot = 1 / np.tan(np.pi * f)
        poly = _horner([float(c) for c in _cot_derivative(n)], cot)
        reflected = (-1) ** n * positive - np.pi ** (n + 1) * poly
        pole = np.inf if n % 2 else np.nan
        out = np.where(x > 0, positive, np.where(f == 0, pole, reflected))
        return np.where(x == np.inf, 0.0, out)

    return _in_float64(compute)(x)  # type: ignore[no-any-return]


polygamma_p = Primitive("polygamma")


def polygamma(n: int, x: Any) -> Any:
    """The n-th derivative of digamma, for a static integer ``n >= 1``."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"polygamma: n must be an integer >= 1 (digamma is n = 0); got {n!r}")
    return polygamma_p.bind(x, n=int(n))


polygamma_p.def_impl(_polygamma_impl)


@polygamma_p.def_abstract_eval
def _polygamma_abstract_eval(x: ShapedArray, *, n: int) -> ShapedArray:
    return x


@polygamma_p.def_jvp
def _polygamma_jvp(primals: tuple, tangents: tuple, *, n: int) -> tuple:
    # d/dx psi^(n)(x) = psi^(n+1)(x)
    (x,), (t,) = primals, tangents
    return polygamma(n, x), mul(t, polygamma(n + 1, x))


polygamma_p.def_batch(lambda axis_size, vals, dims, *, n: vectorized_batch(
    polygamma_p, axis_size, vals, dims, n=n))

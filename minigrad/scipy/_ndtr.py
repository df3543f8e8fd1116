"""The standard normal's distribution function and its inverse, JAX's formulas:
``ndtr`` (from erf near 0 and erfc in the tails), ``log_ndtr`` (three regions, an asymptotic
series in the far left tail, and JAX's rule ``log_ndtr' = exp(log_pdf - log_ndtr)``), and
``ndtri`` (Cephes' piecewise rational approximation, differentiated through its formula as
JAX does: 0 at ``p = 0`` and ``p = 1``, where the value is ``-inf`` and ``inf``).
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from minigrad import numpy as mnp
from minigrad.core import get_aval
from minigrad.custom_rules import custom_jvp
from minigrad.numpy.util import ArrayLike
from minigrad.ops.special_functions import erf, erfc
from minigrad.scipy._util import inexact

__all__ = ["log_ndtr", "ndtr", "ndtri"]

_HALF_SQRT_2 = 0.5 * math.sqrt(2.0)
_LOG_SQRT_2PI = math.log(math.sqrt(2 * math.pi))


def _ndtr(x: Any) -> Any:
    # ndtr(x) = (1 + erf(x / sqrt 2)) / 2 near 0; erfc's form in the tails keeps the digits
    w = x * _HALF_SQRT_2
    z = mnp.abs(w)
    y = mnp.where(z < _HALF_SQRT_2, 1 + erf(w), mnp.where(w > 0, 2 - erfc(z), erfc(z)))
    return 0.5 * y


def ndtr(x: ArrayLike) -> Any:
    """The standard normal CDF, ``(1 + erf(x / sqrt 2)) / 2``.

    >>> from minigrad.scipy.special import ndtr
    >>> ndtr(0.0)
    Array(0.5, dtype=float64)
    """
    (x,) = inexact("ndtr", x, names=("x",))
    return _ndtr(x)


# ------------------------------------------------------------------------------------ log_ndtr

# (lower, upper) segment ends per dtype: the asymptotic series below lower, -ndtr(-x) above
_SEGMENTS = {np.dtype(np.float64): (-20.0, 8.0), np.dtype(np.float32): (-10.0, 5.0)}


def _log_ndtr_series(x: Any, series_order: int) -> Any:
    # log ndtr(x) ~ -x**2/2 - log(-x) - log(2 pi)/2 + log(1 + sum_n (-1)^n (2n-1)!! / x^(2n))
    x2 = x * x
    log_scale = -0.5 * x2 - mnp.log(-x) - _LOG_SQRT_2PI
    if series_order <= 0:
        return log_scale
    even = mnp.zeros_like(x)
    odd = mnp.zeros_like(x)
    x2n = x2
    for n in range(1, series_order + 1):
        term = float(math.prod(range(2 * n - 1, 0, -2))) / x2n
        if n % 2:
            odd = odd + term
        else:
            even = even + term
        x2n = x2n * x2
    return log_scale + mnp.log(1.0 + even - odd)


def _log_ndtr_value(x: Any, series_order: int) -> Any:
    lower, upper = _SEGMENTS[get_aval(x).dtype]
    above = x > upper
    # (both ndtr calls in one; the clamps keep the unused branches finite)
    res = _ndtr(mnp.where(above, -x, mnp.maximum(x, lower)))
    return mnp.where(above, -res, mnp.where(x > lower, mnp.log(res),
                                            _log_ndtr_series(mnp.minimum(x, lower),
                                                             series_order)))


_log_ndtr = custom_jvp(_log_ndtr_value, nondiff_argnums=(1,))


@_log_ndtr.defjvp
def _log_ndtr_jvp(series_order: int, primals: tuple, tangents: tuple) -> tuple:
    # out_dot = x_dot * pdf(x) / ndtr(x) = x_dot * exp(log_pdf(x) - log_ndtr(x))
    (x,), (x_dot,) = primals, tangents
    out = _log_ndtr(x, series_order)
    return out, x_dot * mnp.exp(-0.5 * (x * x) - _LOG_SQRT_2PI - out)


def log_ndtr(x: ArrayLike, series_order: int = 3) -> Any:
    """``log(ndtr(x))``, accurate in both tails (``-ndtr(-x)`` above 8, an asymptotic series
    of order ``series_order`` below -20; float32: 5 and -10).

    >>> from minigrad.scipy.special import log_ndtr
    >>> log_ndtr(-40.0)  # ndtr(-40) underflows; its log does not
    Array(-804.60844201, dtype=float64)
    """
    if isinstance(series_order, bool) or not isinstance(series_order, (int, np.integer)):
        raise TypeError(f"log_ndtr: series_order must be an int; got {series_order!r}")
    if not 0 <= series_order <= 30:
        raise ValueError(f"log_ndtr: series_order must be in [0, 30]; got {series_order}")
    (x,) = inexact("log_ndtr", x, names=("x",))
    if get_aval(x).dtype not in _SEGMENTS:
        raise TypeError(f"log_ndtr: x must be float32 or float64 (as JAX); got dtype "
                        f"{get_aval(x).dtype}")
    return _log_ndtr(x, int(series_order))


# ------------------------------------------------------------------------------------ ndtri

# Cephes' coefficients (ndtri.c), highest power first: p > exp(-2) uses P0/Q0 in w = p - 1/2;
# below, z = sqrt(-2 log p) and P1/Q1 (z < 8) or P2/Q2 (z >= 8) in 1/z
_P0 = (-5.99633501014107895267e1, 9.80010754185999661536e1, -5.66762857469070293439e1,
       1.39312609387279679503e1, -1.23916583867381258016e0)
_Q0 = (1.0, 1.95448858338141759834e0, 4.67627912898881538453e0, 8.63602421390890590575e1,
       -2.25462687854119370527e2, 2.00260212380060660359e2, -8.20372256168333339912e1,
       1.59056225126211695515e1, -1.18331621121330003142e0)
_P1 = (4.05544892305962419923e0, 3.15251094599893866154e1, 5.71628192246421288162e1,
       4.40805073893200834700e1, 1.46849561928858024014e1, 2.18663306850790267539e0,
       -1.40256079171354495875e-1, -3.50424626827848203418e-2, -8.57456785154685413611e-4)
_Q1 = (1.0, 1.57799883256466749731e1, 4.53907635128879210584e1, 4.13172038254672030440e1,
       1.50425385692907503408e1, 2.50464946208309415979e0, -1.42182922854787788574e-1,
       -3.80806407691578277194e-2, -9.33259480895457427372e-4)
_P2 = (3.23774891776946035970e0, 6.91522889068984211695e0, 3.93881025292474443415e0,
       1.33303460815807542389e0, 2.01485389549179081538e-1, 1.23716634817820021358e-2,
       3.01581553508235416007e-4, 2.65806974686737550832e-6, 6.23974539184983293730e-9)
_Q2 = (1.0, 6.02427039364742014255e0, 3.67983563856160859403e0, 1.37702099489081330271e0,
       2.16236993594496635890e-1, 1.34204006088543189037e-2, 3.28014464682127739104e-4,
       2.89247864745380683936e-6, 6.79019408009981274425e-9)


def _polyval(coefs: Sequence[float], x: Any) -> Any:
    out = mnp.zeros_like(x)
    for c in coefs:  # Horner's rule, highest power first
        out = out * x + c
    return out


def _ndtri(p: Any) -> Any:
    complement = p > -math.expm1(-2.0)
    q = mnp.where(complement, 1 - p, p)  # the nearer tail, in (0, 1 - exp(-2)]
    q = mnp.where(q == 0, 0.5, q)  # (any finite stand-in: p = 0 and 1 are set below)
    w = q - 0.5
    ww = w * w
    x_big = (w + w * ww * (_polyval(_P0, ww) / _polyval(_Q0, ww))) * -math.sqrt(2 * math.pi)
    z = mnp.sqrt(-2.0 * mnp.log(q))
    first = z - mnp.log(z) / z
    x_small = first - _polyval(_P2, 1 / z) / _polyval(_Q2, 1 / z) / z
    x_other = first - _polyval(_P1, 1 / z) / _polyval(_Q1, 1 / z) / z
    x = mnp.where(q > math.exp(-2.0), x_big, mnp.where(z >= 8.0, x_small, x_other))
    x = mnp.where(p > 1 - math.exp(-2.0), x, -x)
    return mnp.where(p == 0, -np.inf, mnp.where(p == 1, np.inf, x))


def ndtri(p: ArrayLike) -> Any:
    """The inverse of ``ndtr``: ``x`` with ``ndtr(x) = p``; ``-inf`` at 0, ``inf`` at 1, NaN
    outside [0, 1].

    >>> from minigrad.scipy.special import ndtri
    >>> ndtri(0.975)
    Array(1.95996398, dtype=float64)
    """
    (p,) = inexact("ndtri", p, names=("p",))
    return _ndtri(p)

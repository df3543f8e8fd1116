"""Where the constants of ``minigrad/ops/special_functions.py`` come from: Chebyshev
interpolants computed with mpmath at 50 digits (a test-time tool, never a runtime dependency).

Each fit is ``(name, f, a, b, degree)``: ``f`` interpolated at ``degree + 1`` Chebyshev points of
the first kind on ``[a, b]``; the module evaluates the series with Clenshaw's recurrence at
``t = (2u - a - b) / (b - a)``. ``python tests/special_coefficients.py`` prints the tables;
tests/test_special_functions.py checks that the module's tables are these.
"""

from __future__ import annotations

from typing import Any, Callable


def fits() -> list[tuple[str, Callable[[Any], Any], float, float, int]]:
    import mpmath as mp

    def erf_over_x(s: Any) -> Any:  # erf(x) / x as a function of s = x**2
        return mp.erf(mp.sqrt(s)) / mp.sqrt(s) if s != 0 else 2 / mp.sqrt(mp.pi)

    def erfcx(x: Any) -> Any:  # exp(x**2) erfc(x)
        return mp.exp(x * x) * mp.erfc(x)

    def x_erfcx(u: Any) -> Any:  # x erfcx(x) as a function of u = 1 / x**2
        return erfcx(1 / mp.sqrt(u)) / mp.sqrt(u) if u != 0 else 1 / mp.sqrt(mp.pi)

    def lgamma_reduced(x: Any) -> Any:  # lgamma(x) / ((x - 1)(x - 2)), zeros divided out
        if x in (1, 2):
            return mp.diff(mp.loggamma, x) / ((x - 2) if x == 1 else (x - 1))
        return mp.loggamma(x) / ((x - 1) * (x - 2))

    return [("ERF_OVER_X", erf_over_x, 0.0, 0.25, 10),
            ("ERFCX_MID", erfcx, 0.5, 2.0, 19),
            ("X_ERFCX_TAIL", x_erfcx, 0.0, 0.25, 25),
            ("LGAMMA_1_2", lgamma_reduced, 1.0, 2.0, 22)]


def chebyshev_coefficients(f: Callable[[Any], Any], a: float, b: float, degree: int
                           ) -> tuple[float, ...]:
    import mpmath as mp

    mp.mp.dps = 50
    n = degree + 1
    lo, hi = mp.mpf(a), mp.mpf(b)
    angles = [mp.pi * (k + mp.mpf(1) / 2) / n for k in range(n)]
    values = [f((hi - lo) / 2 * mp.cos(th) + (hi + lo) / 2) for th in angles]
    coefs = [2 * mp.fsum(v * mp.cos(j * th) for v, th in zip(values, angles, strict=True)) / n
             for j in range(n)]
    coefs[0] /= 2
    return tuple(float(c) for c in coefs)


def tables() -> dict[str, tuple[float, ...]]:
    return {name: chebyshev_coefficients(f, a, b, deg) for name, f, a, b, deg in fits()}


if __name__ == "__main__":
    for name, coefs in tables().items():
        print(f"_{name} = (")
        for c in coefs:
            print(f"    {c!r},")
        print(")")

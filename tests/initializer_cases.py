"""The golden cases of ``minigrad.nn.initializers``: calls spelled once, run by
``jax.nn.initializers`` to record ``tests/data/initializers_golden_x64.npz`` and ``..._x32.npz``
(``python tests/make_initializers_golden.py``, which needs JAX) and by minigrad to compare
(``tests/test_initializers.py``, which does not).

A case is ``(id, name, builder_kwargs, seed, shape, dtype)``; ``name`` "zeros" and "ones" are
initializers themselves, the others builders called with ``builder_kwargs``. A seed given as
``["typed", s]`` is a typed key (``random.key``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

Case = tuple[str, str, dict, Any, tuple, Any]
DIRECT = ("zeros", "ones")
ORTHOGONAL = ("orthogonal", "delta_orthogonal")  # through a QR: compared to a few ulps


def _cases() -> list[Case]:
    cases: list[Case] = []

    def add(name: str, kwargs: dict, seed: Any, shape: tuple, dtype: Any = None) -> None:
        cases.append((f"{name}-{len(cases)}", name, kwargs, seed, shape, dtype))

    for dtype in (None, "float32", "float64"):
        add("zeros", {}, 0, (2, 3), dtype)
        add("ones", {}, 0, (4,), dtype)
        add("constant", {"value": -7.25}, 0, (2, 2), dtype)
        add("uniform", {}, 1, (3, 4), dtype)
        add("uniform", {"scale": 3.5}, 2, (5,), dtype)
        add("normal", {}, 3, (3, 4), dtype)
        add("normal", {"stddev": 2.0}, ["typed", 4], (2, 3, 2), dtype)
        add("truncated_normal", {}, 5, (4, 3), dtype)
        add("truncated_normal", {"stddev": 0.5, "lower": -1.0, "upper": 3.0}, 6, (7,), dtype)
        for name in ("glorot_uniform", "glorot_normal", "lecun_uniform", "lecun_normal",
                     "he_uniform", "he_normal", "xavier_uniform", "xavier_normal",
                     "kaiming_uniform", "kaiming_normal"):
            add(name, {}, 7, (4, 5), dtype)
            add(name, {"in_axis": 0, "out_axis": 1}, 8, (3, 2, 6), dtype)
        for mode in ("fan_in", "fan_out", "fan_avg", "fan_geo_avg"):
            for distribution in ("truncated_normal", "normal", "uniform"):
                add("variance_scaling", {"scale": 0.7, "mode": mode,
                                         "distribution": distribution}, 9, (3, 3, 4, 5), dtype)
        add("variance_scaling", {"scale": 1.3, "mode": "fan_avg", "distribution": "uniform",
                                 "in_axis": (0, 1), "out_axis": -1, "batch_axis": 2},
            10, (2, 3, 4, 5), dtype)
        add("variance_scaling", {"scale": 2.0, "mode": "fan_in", "distribution": "normal",
                                 "in_axis": 1, "out_axis": (2, 3), "batch_axis": (0,)},
            11, (2, 3, 4, 5), dtype)
        add("variance_scaling", {"scale": 1.0, "mode": "fan_out",
                                 "distribution": "truncated_normal", "in_axis": 0,
                                 "out_axis": 0}, 12, (6,), dtype)
        add("orthogonal", {}, 13, (3, 3), dtype)
        add("orthogonal", {"scale": 2.0}, 14, (2, 5), dtype)
        add("orthogonal", {}, 15, (5, 2), dtype)
        add("orthogonal", {"column_axis": 0}, 16, (3, 2, 4), dtype)
        add("orthogonal", {}, 17, (0, 3), dtype)
        add("delta_orthogonal", {}, 18, (3, 2, 4), dtype)
        add("delta_orthogonal", {"scale": 0.5}, 19, (3, 3, 4, 4), dtype)
        add("delta_orthogonal", {}, 20, (2, 1, 2, 3, 3), dtype)
    return cases


CASES = _cases()


def run(initializers: Any, random: Any, case: Case) -> np.ndarray:
    """Run one case with ``initializers`` and ``random`` (JAX's or minigrad's modules)."""
    _, name, kwargs, seed, shape, dtype = case
    if isinstance(seed, list):
        key = random.key(seed[1])
    else:
        key = random.PRNGKey(seed)
    init = getattr(initializers, name)
    if name not in DIRECT:
        init = init(**kwargs)
    dt = None if dtype is None else np.dtype(dtype)
    return np.asarray(init(key, shape, dt))

"""The golden cases of minigrad.random: calls spelled once, run by jax.random to record
``tests/data/random_golden_x64.npz`` and ``..._x32.npz`` (``python tests/make_random_golden.py``,
which needs JAX) and by minigrad.random to compare (``tests/test_random.py``, which does not).

A case is ``(id, function, kwargs)``, compared bit for bit. ``kwargs["key"]`` is a seed (a raw
``PRNGKey``) or ``["typed", seed]`` (``key``); an argument ``{"array": values, "dtype": name}``
is an array; ``["int64", v]``-style pairs in ``seed`` and ``data`` are NumPy scalars.
"""

from __future__ import annotations

from typing import Any

import numpy as np

Case = tuple[str, str, dict]  # id, function, keyword arguments


def _cases() -> list[Case]:
    cases: list[Case] = []

    def add(fn: str, **kwargs: Any) -> None:
        cases.append((f"{fn}-{len(cases)}", fn, kwargs))

    for seed in (0, 1, 42, -1, -5, 2**31, 2**32 + 5, 2**40, 2**63 - 1, -2**63, ["int32", -7],
                 ["uint32", 2**32 - 1], ["int8", -3], ["uint8", 200], ["int64", -1],
                 ["uint64", 2**64 - 1]):
        add("PRNGKey", seed=seed)
    add("key_data", keys=["typed", 42])
    for num in (2, 3, [2, 3], 0, [1]):
        add("split", key=7, num=num)
    add("split", key=["typed", 7], num=4)
    for data in (0, 7, 2**32 - 1, ["int64", 2**40 + 3], ["int32", -1]):
        add("fold_in", key=3, data=data)
    add("fold_in", key=["typed", 3], data=5)
    for dtype in ("uint8", "uint16", "uint32", "uint64", None):
        for shape in ([], [5], [2, 3]):
            add("bits", key=11, shape=shape, dtype=dtype)
    for dtype in ("float32", "float64", None):
        for seed in (0, 42):
            add("uniform", key=seed, shape=[7], dtype=dtype)
            add("uniform", key=seed, shape=[2, 3], dtype=dtype, minval=-2.5, maxval=3.7)
        add("uniform", key=1, shape=[], dtype=dtype, minval=1e-3, maxval=1e3)
        add("uniform", key=["typed", 5], shape=[2, 3], dtype=dtype,
            minval={"array": [-1.0, 0.0, 10.0], "dtype": "float32"},
            maxval={"array": [[0.0], [1.0]], "dtype": "float64"})
        for seed in (0, 1, 42, 12345):
            add("normal", key=seed, shape=[64],
                dtype=dtype)
        add("normal", key=["typed", 9], shape=[2, 3], dtype="float32")
        for lower, upper in ((-1.5, 0.5), (-2.0, 2.0), (0.0, 3.0), (1.0, 1.5)):
            add("truncated_normal", key=4,
                lower=lower, upper=upper, shape=[32], dtype=dtype)
        add("truncated_normal", key=4,
            lower={"array": [-1.0, 0.0, 0.5], "dtype": "float32"}, upper=2.0, dtype=dtype)
        for mode in (None, "low", "high", "highest"):
            add("gumbel", key=8, shape=[64], dtype=dtype, mode=mode)
        add("exponential", key=8, shape=[64], dtype=dtype)
    for dtype in ("int8", "uint8", "int16", "int32", "uint32", "int64", "uint64", None):
        for lo, hi in ((0, 10), (-300, 300), (5, 3), (-2**31, 2**31 - 1), (0, 256), (3, 4)):
            add("randint", key=6, shape=[40], minval=lo, maxval=hi, dtype=dtype)
    add("randint", key=6, shape=[2, 3], dtype="int32",
        minval={"array": [0, -5, 100], "dtype": "int32"},
        maxval={"array": [[10], [7]], "dtype": "int64"})
    add("randint", key=6, shape=[6], minval=0.5, maxval=7.9, dtype="int32")
    for p in (0.5, 0.3, 1.5, -0.5):
        add("bernoulli", key=2, p=p, shape=[40])
    add("bernoulli", key=2, p={"array": [0.1, 0.5, 0.9, 0.99, 0.01], "dtype": "float32"})
    add("bernoulli", key=2, p={"array": [0.1, 0.5], "dtype": "float64"}, shape=[3, 2],
        mode="high")
    add("bernoulli", key=["typed", 2], p=0.25, shape=[3, 4], mode="high")
    return cases


CASES = _cases()


def _scalar(value: Any) -> Any:
    if isinstance(value, list) and len(value) == 2 and isinstance(value[0], str):
        return np.dtype(value[0]).type(value[1])
    return value


def arguments(random: Any, kwargs: dict) -> dict:
    """The keyword arguments of a case for ``random`` (jax.random or minigrad.random)."""
    out: dict[str, Any] = {}
    for name, value in kwargs.items():
        if name in ("key", "keys"):
            typed = isinstance(value, list) and value[0] == "typed"
            seed = value[1] if typed else value
            value = random.key(seed) if typed else random.PRNGKey(seed)
        elif isinstance(value, dict):
            value = np.asarray(value["array"], value["dtype"])
        elif name in ("seed", "data"):
            value = _scalar(value)
        elif name in ("shape", "num") and isinstance(value, list):
            value = tuple(value)
        out[name] = value
    return out


def run(random: Any, fn: str, kwargs: dict) -> np.ndarray:
    """The case's result as a NumPy array (a typed key's data)."""
    result = getattr(random, fn)(**arguments(random, kwargs))
    if type(result).__name__ in ("KeyArray", "PRNGKeyArray") or str(
            getattr(result, "dtype", "")).startswith("key<"):
        result = random.key_data(result)
    return np.asarray(result)


"""The golden cases of minigrad.random's phase 2 (categorical, permutation, choice and the
distributions beyond), in ``random_cases.py``'s format: recorded from jax.random by
``python tests/make_random_golden2.py`` into ``tests/data/random_golden2_x64.npz`` and
``..._x32.npz``, compared bit for bit by ``tests/test_random2.py`` (no JAX needed there)."""

from __future__ import annotations

from typing import Any

import numpy as np

Case = tuple[str, str, dict]


def _arr(values: Any, dtype: str) -> dict:
    return {"array": np.asarray(values, dtype).tolist(), "dtype": dtype}


def _cases() -> list[Case]:
    cases: list[Case] = []

    def add(fn: str, **kwargs: Any) -> None:
        cases.append((f"{fn}-{len(cases)}", fn, kwargs))

    rng = np.random.default_rng(2026)
    probs = rng.random(40)
    probs /= probs.sum()
    logits = np.log(rng.dirichlet(np.ones(5), size=3))  # (3, 5)
    for dtype in ("float32", "float64"):
        lg = _arr(logits, dtype)
        for seed in (0, 7):
            add("categorical", key=seed, logits=lg)
            add("categorical", key=seed, logits=lg, axis=0)
            add("categorical", key=seed, logits=lg, shape=[4, 3])
            add("categorical", key=seed, logits=lg, axis=0, shape=[2, 5])
            add("categorical", key=seed, logits=lg, shape=[2, 3], replace=False)
            add("categorical", key=seed, logits=lg, axis=0, shape=[3, 5], replace=False)
        add("categorical", key=["typed", 3], logits=lg, mode="high")
        add("categorical", key=3, logits=_arr(logits[:1], dtype), shape=[6, 2])
        add("choice", key=5, a=40, shape=[64], p=_arr(probs, dtype))
        add("choice", key=5, a=40, shape=[2, 4], p=_arr(probs, dtype), replace=False)
        add("choice", key=5, a=_arr(np.arange(80).reshape(2, 40), dtype), shape=[3],
            p=_arr(probs, dtype), axis=1)
        add("permutation", key=1, x=_arr(np.arange(12).reshape(3, 4), dtype), axis=1)
        add("permutation", key=1, x=_arr(np.arange(12).reshape(3, 4), dtype), axis=1,
            independent=True)
        add("permutation", key=1, x=_arr(np.arange(6), dtype))
    for n in (1, 2, 10, 1625, 1626, 3000):
        add("permutation", key=2, x=n)
    add("permutation", key=["typed", 2], x=_arr(np.arange(4000).reshape(2, 2000), "int32"),
        axis=1, independent=True)
    add("permutation", key=2, x=_arr(np.arange(3000).reshape(1500, 2), "int32"))
    for seed in (0, 9):
        add("choice", key=seed, a=10, shape=[5])
        add("choice", key=seed, a=10, shape=[2, 3], replace=False)
        add("choice", key=seed, a=_arr(np.arange(12).reshape(3, 4), "int32"), shape=[2, 5],
            axis=1)
        add("choice", key=seed, a=_arr(np.arange(12).reshape(3, 4), "float32"), shape=[2],
            replace=False)
        add("choice", key=seed, a=3000, shape=[4], replace=False)
    add("choice", key=4, a=_arr(np.arange(5), "int32"), shape=[0])
    add("choice", key=4, a=7, shape=[])
    return cases


CASES = _cases()

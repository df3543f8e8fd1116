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
    # poisson: both algorithms (below and above lam = 10), bit for bit
    lams = [0.0, 0.5, 1.0, 3.0, 9.9, 10.0, 15.0, 50.0, 1000.0, 1e5]
    for seed in (0, 1):
        add("poisson", key=seed, lam=_arr(np.tile(lams, 4), "float32"))
    add("poisson", key=2, lam=4.0, shape=[7, 3], dtype="int32")
    add("poisson", key=["typed", 2], lam=_arr([2.0, 40.0], "float64"), shape=[3, 2])
    # multivariate_normal: float64 factors are LAPACK's own, bit for bit; float32 cholesky
    # within a few ulps (TOLERANT); float32 eigh/svd vectors may differ in sign (X64_ONLY)
    a = rng.standard_normal((3, 3))
    cov = a @ a.T + 3 * np.eye(3)
    mean = rng.standard_normal(3)
    for method in ("cholesky", "eigh", "svd"):
        add("multivariate_normal", key=3, mean=_arr(mean, "float64"), cov=_arr(cov, "float64"),
            shape=[20], method=method)
    add("multivariate_normal", key=3, mean=_arr(np.zeros((2, 3)), "float64"),
        cov=_arr(cov, "float64"))
    add("multivariate_normal", key=3, mean=_arr(mean, "float32"), cov=_arr(cov, "float32"),
        shape=[20])
    # gamma and what is made of it: within a few ulps (TOLERANT; see test_random2.py)
    alphas = [0.01, 0.3, 0.9, 1.0, 1.5, 3.0, 10.0, 100.0]
    for dtype in ("float32", "float64"):
        add("gamma", key=5, a=_arr(np.tile(alphas, 3), dtype), dtype=dtype)
        add("loggamma", key=5, a=_arr(np.tile(alphas, 3), dtype), dtype=dtype)
        add("beta", key=5, a=_arr(np.tile(alphas, 3), dtype), b=2.0, dtype=dtype)
        add("dirichlet", key=5, alpha=_arr(alphas[1:6], dtype), shape=[4], dtype=dtype)
    add("gamma", key=6, a=2.5, shape=[3, 2])
    return cases


CASES = _cases()

# compared within a tolerance, not bit for bit: XLA computes (1/3) / sqrt(d) in the gamma
# sampler with the CPU's approximate reciprocal square root (rsqrtss, vrsqrt14pd) and one
# Newton step, whose bits depend on the processor; pow and exp are XLA's own too
TOLERANT = {"gamma", "loggamma", "beta", "dirichlet"}
# float32 eigenvectors and singular vectors from LAPACK builds that differ: signs may differ,
# and so the samples (the x32 world makes every float32)
X64_ONLY = {c[0] for c in CASES if c[2].get("method") in ("eigh", "svd")}
# float32 Cholesky factors differ from JAX's in the last bits (different LAPACK builds)
TOLERANT_IDS = {c[0] for c in CASES if c[1] == "multivariate_normal"}

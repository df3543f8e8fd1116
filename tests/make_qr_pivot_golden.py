"""Record jax.scipy.linalg.qr(..., pivoting=True)'s values and derivatives (needs JAX):

    python tests/make_qr_pivot_golden.py

writes ``tests/data/qr_pivot_jax.json``: for each case its input, JAX's ``(q, r, p)`` in every
mode, and, where JAX's derivative is the true one (``m >= n``: see docs/divergences.md for the
wide case), the JVP of ``(q, r)`` along a recorded tangent. tests/test_qr_pivoting.py compares
minigrad with these to a few eps (LAPACK's last bits differ between NumPy builds).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
MODES = ("full", "economic", "r")


def _cases() -> list[tuple[str, np.ndarray, int]]:
    """(id, input, rank): the pivots and factors past ``rank`` are rounding noise, not
    recorded for comparison."""
    rng = np.random.default_rng(2026)
    low = rng.standard_normal((6, 2)) @ rng.standard_normal((2, 5))
    dup = rng.standard_normal((4, 3))
    c0 = rng.standard_normal(6)
    near = np.stack([c0, c0 + 1e-12 * rng.standard_normal(6), 0.3 * rng.standard_normal(6),
                     2e-9 * rng.standard_normal(6), -0.5 * c0 + 1e-9 * rng.standard_normal(6)],
                    axis=1)
    return [
        ("tall", rng.standard_normal((6, 4)), 4),
        ("square", rng.standard_normal((4, 4)), 4),
        ("wide", rng.standard_normal((3, 6)), 3),
        ("batched", rng.standard_normal((2, 3, 4, 3)), 3),
        ("scaled-columns", rng.standard_normal((5, 5)) * np.logspace(-6, 6, 5), 5),
        ("rank-2", low, 2),
        ("duplicate-columns", np.concatenate([dup, dup[:, ::-1]], axis=1), 3),
        ("integers", np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 10.0]]), 3),
        ("float32", rng.standard_normal((5, 3)).astype(np.float32), 3),
        # downdated norms cancel: LAPACK recomputes them (a recorded pivot order that
        # downdating alone gets wrong)
        ("near-dependent", near, 5),
    ]


def record() -> None:
    import jax
    import jax.scipy.linalg as jsl

    jax.config.update("jax_enable_x64", True)
    rng = np.random.default_rng(7)
    out: dict = {"jax_version": jax.__version__, "cases": []}
    for case_id, a, rank in _cases():
        entry: dict = {"id": case_id, "a": a.tolist(), "dtype": str(a.dtype), "rank": rank}
        for mode in MODES:
            entry[mode] = [np.asarray(x).tolist() for x in jsl.qr(a, mode=mode, pivoting=True)]
        m, n = a.shape[-2:]
        # (the scaled and near-dependent matrices' derivatives are too ill conditioned to
        # compare to a few eps)
        ordinary = a.dtype == np.float64 and case_id not in ("near-dependent", "scaled-columns")
        if m >= n and rank == min(m, n) and ordinary:
            t = rng.standard_normal(a.shape)
            entry["tangent"] = t.tolist()
            for mode in ("full", "economic"):
                def f(x, mode=mode):
                    return jsl.qr(x, mode=mode, pivoting=True)[:2]
                # (JAX's rule indexes the tangent with a stack of permutations wrongly: one
                # matrix at a time through vmap)
                jvp = jax.vmap(lambda x, t, f=f: jax.jvp(f, (x,), (t,))[1])
                flat_a, flat_t = a.reshape(-1, m, n), t.reshape(-1, m, n)
                dq, dr = (np.asarray(d).reshape(*a.shape[:-2], *d.shape[1:])
                          for d in jvp(flat_a, flat_t))
                entry[f"jvp_{mode}"] = [dq.tolist(), dr.tolist()]
        out["cases"].append(entry)
    path = HERE / "data" / "qr_pivot_jax.json"
    path.write_text(json.dumps(out, indent=None) + "\n")
    print(f"{path}: {len(out['cases'])} cases, jax {jax.__version__}")


if __name__ == "__main__":
    record()

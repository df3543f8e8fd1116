"""Record JAX's regularized incomplete beta and beta-distribution values:
``python tests/make_betainc_golden.py`` (JAX and SciPy installed).

Writes tests/data/betainc_jax.json, which tests/test_betainc.py compares minigrad against,
so CI checks the agreement with JAX without installing JAX: ``jax.scipy.special.betainc`` on a
grid of ``(a, b, x)`` in float64 and float32 and at the edges, its gradient in ``x``, and
``jax.scipy.stats.beta``'s ``cdf``, ``logcdf``, ``sf``, ``logsf`` with their gradients in
``x``; and SciPy's betainc on the same grid. (NaN and infinities are written as JSON's NaN,
Infinity.)
"""

from __future__ import annotations

import itertools
import json
import pathlib

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
SHAPES = (0.1, 0.5, 1.0, 2.5, 7.0, 20.0)
XS = (0.001, 0.1, 0.3, 0.5, 0.7, 0.9, 0.999)
NAN, INF = float("nan"), float("inf")
# (a, b, x): the ends of [0, 1], outside it, degenerate and invalid shapes, NaN
EDGES = [(2.0, 3.0, 0.0), (2.0, 3.0, 1.0), (0.5, 0.5, 0.0), (0.5, 0.5, 1.0), (2.0, 3.0, -0.1),
         (2.0, 3.0, 1.1), (0.0, 1.0, 0.0), (0.0, 1.0, 0.5), (0.0, 0.0, 0.5), (INF, 1.0, 1.0),
         (INF, 1.0, 0.5), (2.0, INF, 0.3), (2.0, 0.0, 1.0), (2.0, 0.0, 0.5), (-1.0, 1.0, 0.5),
         (1.0, -1.0, 0.5), (NAN, 2.0, 0.5), (2.0, NAN, 0.5), (2.0, 2.0, NAN), (INF, INF, 0.5)]
# (x, a, b, loc, scale) for the distribution: inside, at and beyond the ends, NaN
DIST = [(x, a, b, loc, scale)
        for x in (-1.0, -0.2, 0.0, 0.05, 0.3, 0.6, 0.95, 1.0, 1.3, 2.0, NAN)
        for a, b in ((2.5, 0.7), (0.5, 3.0), (4.0, 4.0))
        for loc, scale in ((0.0, 1.0), (-0.2, 1.5))]


def record() -> dict:
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)
    from jax.scipy.special import betainc
    from jax.scipy.stats import beta

    grid = np.array(list(itertools.product(SHAPES, SHAPES, XS))).T
    edges = np.array(EDGES).T
    points = np.concatenate([grid, edges], axis=1)
    a, b, x = points
    grad_x = jax.vmap(jax.grad(betainc, argnums=2))
    out: dict = {"betainc": {"a": a.tolist(), "b": b.tolist(), "x": x.tolist(),
                             "float64": np.asarray(betainc(a, b, x)).tolist(),
                             "grad_x": np.asarray(grad_x(a, b, x)).tolist()}}
    a32, b32, x32 = (jnp.asarray(v, jnp.float32) for v in (a, b, x))
    out["betainc"]["float32"] = np.asarray(betainc(a32, b32, x32), np.float64).tolist()
    dist = np.array(DIST).T
    out["beta"] = {"x": dist[0].tolist(), "a": dist[1].tolist(), "b": dist[2].tolist(),
                   "loc": dist[3].tolist(), "scale": dist[4].tolist()}
    for fn in ("cdf", "logcdf", "sf", "logsf"):
        f = getattr(beta, fn)
        out["beta"][fn] = np.asarray(f(*dist)).tolist()
        out["beta"][f"{fn}_grad_x"] = np.asarray(jax.vmap(jax.grad(f))(*dist)).tolist()
    import scipy
    import scipy.special

    # SciPy's (Boost's) values too: JAX's own are about 50 eps from them on this grid, so
    # they check minigrad's accuracy more tightly, also where CI has no SciPy
    out["betainc"]["scipy_float64"] = scipy.special.betainc(a, b, x).tolist()
    out["jax_version"] = jax.__version__
    out["scipy_version"] = scipy.__version__
    return out


if __name__ == "__main__":
    path = ROOT / "tests" / "data" / "betainc_jax.json"
    data = record()
    # one line per array, so a re-recording diffs by array
    lines = [f" {json.dumps(section)}: {{\n" + ",\n".join(
        f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in sorted(data[section].items())) + "\n }"
        for section in ("beta", "betainc")]
    versions = [f' {json.dumps(k)}: {json.dumps(data[k])}' for k in ("jax_version",
                                                                      "scipy_version")]
    text = "{\n" + ",\n".join(lines + versions) + "\n}\n"
    assert json.loads(text) == json.loads(json.dumps(data))
    path.write_text(text)
    print(f"wrote {path}")

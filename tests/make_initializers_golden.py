"""Record the golden values of minigrad.nn.initializers from jax.nn.initializers (needs JAX;
the tests do not).

    python tests/make_initializers_golden.py

runs every case of ``initializer_cases.py`` under JAX twice, in fresh processes with
``JAX_ENABLE_X64=1`` and ``=0``, and writes ``tests/data/initializers_golden_x64.npz`` and
``initializers_golden_x32.npz`` (one array per case id, plus ``jax_version``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent


def record(world: str) -> None:
    import jax
    import jax.random as jr
    import numpy as np

    sys.path.insert(0, str(HERE))
    from initializer_cases import CASES, run

    assert jax.config.jax_enable_x64 == (world == "x64")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # float64 asked for with x64 off: JAX truncates
        results = {case[0]: run(jax.nn.initializers, jr, case) for case in CASES}
    results["jax_version"] = np.asarray(jax.__version__)
    np.savez_compressed(HERE / "data" / f"initializers_golden_{world}.npz", **results)
    print(f"{world}: {len(CASES)} cases, jax {jax.__version__}")


if __name__ == "__main__":
    if len(sys.argv) == 2:
        record(sys.argv[1])
    else:
        for world, flag in (("x64", "1"), ("x32", "0")):
            env = {**os.environ, "JAX_ENABLE_X64": flag, "JAX_PLATFORMS": "cpu"}
            subprocess.run([sys.executable, __file__, world], env=env, check=True)

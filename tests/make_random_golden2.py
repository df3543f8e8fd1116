"""Record the phase-2 golden values of minigrad.random from jax.random (needs JAX):

    python tests/make_random_golden2.py

runs every case of ``random_cases2.py`` under JAX in fresh processes with ``JAX_ENABLE_X64=1``
and ``=0`` and writes ``tests/data/random_golden2_x64.npz`` and ``random_golden2_x32.npz`` (one
array per case id, plus ``jax_version``). The phase-1 files (``make_random_golden.py``) are
left as they are.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def record(world: str) -> None:
    import jax
    import jax.random as jr
    import numpy as np

    sys.path.insert(0, str(HERE))
    from random_cases import run
    from random_cases2 import CASES

    assert jax.config.jax_enable_x64 == (world == "x64")
    results = {case_id: run(jr, fn, kwargs) for case_id, fn, kwargs in CASES}
    results["jax_version"] = np.asarray(jax.__version__)
    np.savez_compressed(HERE / "data" / f"random_golden2_{world}.npz", **results)
    print(f"{world}: {len(CASES)} cases, jax {jax.__version__}")


if __name__ == "__main__":
    if len(sys.argv) == 2:
        record(sys.argv[1])
    else:
        for world, flag in (("x64", "1"), ("x32", "0")):
            env = {**os.environ, "JAX_ENABLE_X64": flag, "JAX_PLATFORMS": "cpu"}
            subprocess.run([sys.executable, __file__, world], env=env, check=True)

"""The driver of the scripts that record golden values from JAX in both of its worlds
(``make_random_golden.py``, ``make_random_golden2.py``, ``make_initializers_golden.py``).

``main(script, record)`` runs ``script`` again in a fresh process per world, with
``JAX_ENABLE_X64=1`` ("x64") and ``=0`` ("x32"), where it calls ``record(world)``; ``save``
writes a world's results to ``tests/data/<name>_<world>.npz`` with ``jax_version`` beside them.
JAX reads the flag once, at import: hence a process per world.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
WORLDS = (("x64", "1"), ("x32", "0"))


def main(script: str, record: Callable[[str], None]) -> None:
    if len(sys.argv) == 2:
        record(sys.argv[1])
        return
    for world, flag in WORLDS:
        env = {**os.environ, "JAX_ENABLE_X64": flag, "JAX_PLATFORMS": "cpu"}
        subprocess.run([sys.executable, script, world], env=env, check=True)


def save(name: str, world: str, results: dict[str, Any]) -> None:
    import jax
    import numpy as np

    assert jax.config.jax_enable_x64 == (world == "x64")
    count = len(results)
    results["jax_version"] = np.asarray(jax.__version__)
    np.savez_compressed(HERE / "data" / f"{name}_{world}.npz", **results)
    print(f"{world}: {count} cases, jax {jax.__version__}")

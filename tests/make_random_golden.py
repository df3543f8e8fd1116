"""Record the golden values of minigrad.random from jax.random (needs JAX; the tests do not).

    python tests/make_random_golden.py

runs every case of ``random_cases.py`` under JAX twice, in fresh processes with
``JAX_ENABLE_X64=1`` and ``=0``, and writes ``tests/data/random_golden_x64.npz`` and
``random_golden_x32.npz`` (one array per case id, plus ``jax_version``).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # (run as a script: tests/ first)
from golden_worlds import main, save


def record(world: str) -> None:
    import jax.random as jr
    from random_cases import CASES, run

    results = {case_id: run(jr, fn, kwargs) for case_id, fn, kwargs in CASES}
    save("random_golden", world, results)


if __name__ == "__main__":
    main(__file__, record)

"""Record the golden values of minigrad.nn.initializers from jax.nn.initializers (needs JAX;
the tests do not).

    python tests/make_initializers_golden.py

runs every case of ``initializer_cases.py`` under JAX twice, in fresh processes with
``JAX_ENABLE_X64=1`` and ``=0``, and writes ``tests/data/initializers_golden_x64.npz`` and
``initializers_golden_x32.npz`` (one array per case id, plus ``jax_version``).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # (run as a script: tests/ first)
from golden_worlds import main, save


def record(world: str) -> None:
    import jax
    import jax.random as jr
    from initializer_cases import CASES, run

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # float64 asked for with x64 off: JAX truncates
        results = {case[0]: run(jax.nn.initializers, jr, case) for case in CASES}
    save("initializers_golden", world, results)


if __name__ == "__main__":
    main(__file__, record)

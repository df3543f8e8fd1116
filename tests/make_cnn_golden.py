"""Record the small CNN's figures on JAX: ``python tests/make_cnn_golden.py`` (JAX installed).

Writes tests/data/cnn_jax.npz (x64 on, minigrad's default): the initial parameters, the loss
before each of the SGD steps, the trained parameters and the per-example gradients of
tests/cnn_model.py run on JAX. tests/test_cnn.py compares minigrad's run of the same code with
them, so CI checks the agreement with JAX without installing JAX.
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

if __name__ == "__main__":
    import jax

    jax.config.update("jax_enable_x64", True)
    import cnn_model

    figures = cnn_model.run("jax")
    path = HERE / "data" / "cnn_jax.npz"
    figures["jax_version"] = np.array(jax.__version__)
    np.savez(path, **figures)  # type: ignore[arg-type]
    print(f"wrote {path} ({len(figures) - 1} arrays, JAX {jax.__version__})")

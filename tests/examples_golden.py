"""Record the examples' figures on JAX: ``python tests/examples_golden.py`` (JAX installed).

Writes tests/data/examples_jax.json, which tests/test_examples.py compares minigrad's runs of
the same programs against, so CI checks the agreement with JAX without installing JAX.
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent

# each example at a size that runs in seconds
SMALL = {
    "mlp_classifier": ["--steps", "60", "--batch", "64"],
    "dp_sgd": ["--steps", "10", "--batch", "32"],
    "char_rnn": ["--steps", "5"],
    "newton_implicit": ["--points", "50"],
    "gaussian_process": ["--steps", "10", "--points", "16"],
    "index_add_per_example": ["--batch", "8"],
}


def run(name: str, framework: str) -> dict:
    """Run examples/NAME.py at its small size and return the figures it writes."""
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "figures.json"
        cmd = [sys.executable, str(ROOT / "examples" / f"{name}.py"), *SMALL[name],
               "--framework", framework, "--repeats", "1", "--json", str(out)]
        subprocess.run(cmd, check=True, cwd=ROOT, capture_output=True, text=True,
                       env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
        return json.loads(out.read_text())


if __name__ == "__main__":
    # (the timings are this machine's: not recorded)
    figures = {name: {k: v for k, v in run(name, "jax").items() if not k.endswith("_s")}
               for name in SMALL}
    path = ROOT / "tests" / "data" / "examples_jax.json"
    path.write_text(json.dumps(figures, indent=1, sort_keys=True) + "\n")
    print(f"wrote {path}")

import importlib.util
import os
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest
from hypothesis import HealthCheck, settings

# Test modules share the op records of tests/records.py (`from records import ...`); the
# importlib import mode does not put tests/ on sys.path, so it is added here.
sys.path.insert(0, str(Path(__file__).parent))

# CI is derandomized: the same examples every run. Locally, hypothesis explores.
settings.register_profile("ci", derandomize=True, deadline=None, max_examples=30,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", deadline=None, max_examples=30,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("long", deadline=None, max_examples=1000,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("MINIGRAD_HYPOTHESIS_PROFILE",
                                     "ci" if os.environ.get("CI") else "dev"))


@pytest.fixture(scope="module")
def jax_x64() -> Iterator[Any]:
    """JAX with 64-bit types on for a module's comparisons (JAX's default restored after it);
    the test skips, saying so, where JAX is not installed (CI has none)."""
    if importlib.util.find_spec("jax") is None:
        pytest.skip("jax is not installed (pip install jax): the comparison with JAX needs it")
    import jax

    before = jax.config.read("jax_enable_x64")
    jax.config.update("jax_enable_x64", True)
    yield jax
    jax.config.update("jax_enable_x64", before)

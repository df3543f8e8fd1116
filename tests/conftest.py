import os
import sys
from pathlib import Path

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

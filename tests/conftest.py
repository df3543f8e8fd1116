import os

from hypothesis import HealthCheck, settings

# CI is derandomized: the same examples every run. Locally, hypothesis explores.
settings.register_profile("ci", derandomize=True, deadline=None, max_examples=30,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", deadline=None, max_examples=30,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("long", deadline=None, max_examples=1000,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("MINIGRAD_HYPOTHESIS_PROFILE",
                                     "ci" if os.environ.get("CI") else "dev"))

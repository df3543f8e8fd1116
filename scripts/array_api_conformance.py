"""Run the array API standard's test suite (data-apis/array-api-tests) against minigrad.numpy,
with fixed settings, and print how many of its tests pass.

    python scripts/array_api_conformance.py SUITE_DIR [--json OUT] [--min N] [PYTEST_ARG ...]

SUITE_DIR is the suite's checkout (for example ../shared/vendor's archive, unpacked); the suite
is run as it is, never modified. The settings make the count reproducible: the 2024.12
standard, five examples per test, derandomized, no deadline, no shrinking, PYTHONHASHSEED=0,
Python's global ``random`` seeded per test (the special-case tests draw with it), and
Hypothesis's pool of constants from local source files off (an editable install counts as local
source, which would make the draws move with minigrad's own edits). With ``--min N`` the exit
status is 1 when fewer than N tests pass (CI's check against the figure in docs/array-api.md).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

PLUGIN = '''
import random
import zlib

import pytest
from hypothesis import Phase, settings
from hypothesis.internal.conjecture import providers


@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    # after the suite's conftest has loaded its profile: the same, without shrinking
    settings.register_profile("minigrad-conformance", parent=settings.get_profile(
        "array-api-tests"), phases=[Phase.explicit, Phase.reuse, Phase.generate])
    settings.load_profile("minigrad-conformance")
    providers._get_local_constants = lambda: providers.Constants()


@pytest.fixture(autouse=True)
def _seed_python_random(request):
    random.seed(zlib.crc32(request.node.nodeid.encode()))
'''


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("suite", type=Path, help="the array-api-tests checkout")
    parser.add_argument("--json", type=Path, help="write the outcome of every test here")
    parser.add_argument("--min", type=int, help="fail when fewer tests pass")
    args, extra = parser.parse_known_args(argv)
    suite = args.suite.resolve()
    if not (suite / "array_api_tests").is_dir():
        parser.error(f"{suite} is not the array-api-tests suite (no array_api_tests/ in it)")
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "minigrad_conformance.py").write_text(PLUGIN)
        report = Path(tmp) / "report.json"
        root = Path(__file__).resolve().parent.parent
        env = {**os.environ, "ARRAY_API_TESTS_MODULE": "minigrad.numpy",
               "ARRAY_API_TESTS_VERSION": "2024.12", "PYTHONHASHSEED": "0",
               "PYTHONPATH": os.pathsep.join([tmp, str(root),
                                              os.environ.get("PYTHONPATH", "")])}
        cmd = [sys.executable, "-m", "pytest", "array_api_tests", "-p", "minigrad_conformance",
               "--max-examples", "5", "--derandomize", "--disable-deadline", "-q",
               "-p", "no:cacheprovider", "--json-report", f"--json-report-file={report}",
               "-o", "addopts=", *extra]
        subprocess.run(cmd, cwd=suite, env=env, check=False)
        tests = json.loads(report.read_text())["tests"]
    outcomes = {t["nodeid"]: t["outcome"] for t in tests}
    passed = sum(o == "passed" for o in outcomes.values())
    print(f"array API conformance: {passed} of {len(outcomes)} tests pass")
    if args.json:
        args.json.write_text(json.dumps(outcomes, indent=1, sort_keys=True) + "\n")
    if args.min is not None and passed < args.min:
        print(f"array API conformance: below the recorded figure {args.min}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

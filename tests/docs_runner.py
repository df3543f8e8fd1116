"""docs/run_docs.py, loaded once as the module ``run_docs`` for the tests that run doc pages
(``test_docs.py``, ``test_nan_safety.py``)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def load_run_docs() -> ModuleType:
    """docs/run_docs.py as a module (docs/ is not a package). The first call loads it and
    registers it in ``sys.modules`` (its dataclasses look their module up there); later calls
    return that same module."""
    if "run_docs" in sys.modules:
        return sys.modules["run_docs"]
    spec = importlib.util.spec_from_file_location("run_docs", ROOT / "docs" / "run_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["run_docs"] = module
    spec.loader.exec_module(module)
    return module

"""The NumPy surface's function records, one module per family (see tests/surface.py)."""

from __future__ import annotations

import importlib
import pkgutil

RECORDS = []
for _info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    RECORDS += importlib.import_module(f"{__name__}.{_info.name}").RECORDS

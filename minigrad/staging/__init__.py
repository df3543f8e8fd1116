"""Staging: ``jit`` (trace once, optimize, run generated NumPy code), above the transforms.

``call.py`` holds the ``jit`` primitive and its rules, ``passes/`` the optimizations,
``executor.py`` the code generator, ``api.py`` the user's ``jit`` and its cache.
"""

from minigrad.staging.api import Functionalized, Jitted, Lowered, functionalize, jit
from minigrad.staging.call import jit_p
from minigrad.staging.passes.inplace import declare_fresh, declare_inplace

__all__ = ["Functionalized", "Jitted", "Lowered", "declare_fresh", "declare_inplace",
           "functionalize", "jit", "jit_p"]

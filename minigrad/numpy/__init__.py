"""minigrad.numpy: NumPy's functions over minigrad's primitives, on ndarrays and tracers alike.

The functions live in modules by theme (``ufuncs``, ``reductions``, ``shape``, ``joining``,
``indexing``, ``contractions``, ``creation``), each built from primitives and carrying no rules
of its own, each listing what it exports in its ``__all__``; ``methods`` installs the tracers'
operators and methods. This module only gathers the names.
"""

import sys

import numpy as _np

from minigrad import array as _array_module
from minigrad.array import Array as ndarray  # noqa: F401  (jnp.ndarray is the array type)
from minigrad.numpy import array_api as _array_api
from minigrad.numpy import at as _at
from minigrad.numpy import bitwise as _bitwise
from minigrad.numpy import contractions as _contractions
from minigrad.numpy import creation as _creation
from minigrad.numpy import cumulative as _cumulative
from minigrad.numpy import division as _division
from minigrad.numpy import dtypes as _dtypes
from minigrad.numpy import einsum as _einsum
from minigrad.numpy import fft as fft  # (minigrad.numpy.fft, as jnp.fft)
from minigrad.numpy import index_tricks as _index_tricks
from minigrad.numpy import indexing as _indexing
from minigrad.numpy import joining as _joining
from minigrad.numpy import linalg  # noqa: F401  (minigrad.numpy.linalg, as jnp.linalg)
from minigrad.numpy import methods as _methods  # noqa: F401  (installs the tracer methods)
from minigrad.numpy import nanfunctions as _nanfunctions
from minigrad.numpy import reductions as _reductions
from minigrad.numpy import selection as _selection
from minigrad.numpy import setops as _setops
from minigrad.numpy import shape as _shape
from minigrad.numpy import sorting as _sorting
from minigrad.numpy import statistics as _statistics
from minigrad.numpy import ufuncs as _ufuncs
from minigrad.numpy.array_api import *  # noqa: F403
from minigrad.numpy.at import *  # noqa: F403
from minigrad.numpy.bitwise import *  # noqa: F403
from minigrad.numpy.contractions import *  # noqa: F403
from minigrad.numpy.creation import *  # noqa: F403
from minigrad.numpy.cumulative import *  # noqa: F403
from minigrad.numpy.division import *  # noqa: F403
from minigrad.numpy.dtypes import *  # noqa: F403
from minigrad.numpy.einsum import *  # noqa: F403
from minigrad.numpy.index_tricks import *  # noqa: F403
from minigrad.numpy.indexing import *  # noqa: F403
from minigrad.numpy.joining import *  # noqa: F403
from minigrad.numpy.nanfunctions import *  # noqa: F403
from minigrad.numpy.reductions import *  # noqa: F403
from minigrad.numpy.selection import *  # noqa: F403
from minigrad.numpy.setops import *  # noqa: F403
from minigrad.numpy.shape import *  # noqa: F403
from minigrad.numpy.sorting import *  # noqa: F403
from minigrad.numpy.statistics import *  # noqa: F403
from minigrad.numpy.ufuncs import *  # noqa: F403

bool = _np.bool_
_array_module.register_namespace(sys.modules[__name__])  # Array.__array_namespace__

__all__ = sorted({"bool", "fft", "linalg", "ndarray", *_array_api.__all__, *_at.__all__,
                  *_bitwise.__all__, *_contractions.__all__, *_creation.__all__,
                  *_division.__all__, *_dtypes.__all__, *_einsum.__all__,
                  *_index_tricks.__all__, *_indexing.__all__, *_joining.__all__,
                  *_reductions.__all__, *_selection.__all__, *_shape.__all__,
                  *_ufuncs.__all__,
                  # reductions, cumulative, sorting, statistics and sets
                  *_cumulative.__all__, *_nanfunctions.__all__, *_sorting.__all__,
                  *_statistics.__all__, *_setops.__all__})


def __dir__() -> list[str]:
    # dir(minigrad.numpy) lists what it exports, not the modules it is built from.
    return list(__all__)

"""minigrad.numpy: NumPy's functions over minigrad's primitives, on ndarrays and tracers alike.

The functions live in modules by theme (``ufuncs``, ``reductions``, ``shape``, ``indexing``,
``contractions``, ``creation``), each built from primitives and carrying no rules of its own;
``methods`` installs the tracers' operators and methods. This module only gathers the names.
"""

from minigrad.numpy import methods as _methods  # noqa: F401  (installs the tracer methods)
from minigrad.numpy.at import put, put_along_axis
from minigrad.numpy.contractions import dot, matmul, vdot
from minigrad.numpy.creation import arange, full, full_like, ones, ones_like, zeros, zeros_like
from minigrad.numpy.index_tricks import (
    argwhere,
    choose,
    compress,
    diag_indices,
    diag_indices_from,
    extract,
    flatnonzero,
    indices,
    ix_,
    nonzero,
    ravel_multi_index,
    select,
    tril_indices,
    tril_indices_from,
    triu_indices,
    triu_indices_from,
    unravel_index,
)
from minigrad.numpy.indexing import getitem, take, take_along_axis
from minigrad.numpy.reductions import cumsum, max, mean, sum
from minigrad.numpy.shape import (
    broadcast_to,
    concatenate,
    expand_dims,
    moveaxis,
    ravel,
    reshape,
    squeeze,
    stack,
    swapaxes,
    transpose,
)
from minigrad.numpy.ufuncs import (
    add,
    astype,
    cos,
    divide,
    equal,
    exp,
    greater,
    greater_equal,
    less,
    less_equal,
    log,
    maximum,
    minimum,
    multiply,
    negative,
    not_equal,
    power,
    sin,
    sqrt,
    square,
    subtract,
    tanh,
    true_divide,
    where,
)
from minigrad.numpy.util import asarray

__all__ = [
    "add", "arange", "asarray", "astype", "broadcast_to", "concatenate", "cos", "cumsum",
    "divide", "dot", "equal", "exp", "expand_dims", "full", "full_like", "getitem", "greater",
    "greater_equal", "less", "less_equal", "log", "matmul", "max", "maximum", "mean", "minimum",
    "moveaxis", "multiply", "negative", "not_equal", "ones", "ones_like", "power", "ravel",
    "reshape", "sin", "sqrt", "square", "squeeze", "stack", "subtract", "sum", "swapaxes",
    "take", "tanh", "transpose", "true_divide", "vdot", "where", "zeros", "zeros_like",
    # indexing (numpy/indexing.py, at.py, index_tricks.py)
    "argwhere", "choose", "compress", "diag_indices", "diag_indices_from", "extract",
    "flatnonzero", "indices", "ix_", "nonzero", "put", "put_along_axis", "ravel_multi_index",
    "select", "take_along_axis", "tril_indices", "tril_indices_from", "triu_indices",
    "triu_indices_from", "unravel_index",
]


def __dir__() -> list[str]:
    # dir(minigrad.numpy) lists what it exports, not the modules it is built from.
    return sorted(__all__)

"""``minigrad.lax``: JAX's ``jax.lax`` names over minigrad's primitives.

Each name is imported from the module of its theme; add a name by importing it here and
listing it in ``__all__`` (the list is kept sorted by theme, then by name).
"""

from minigrad.lax import linalg as linalg  # (jax.lax.linalg: a namespace of its own)
from minigrad.lax import scan_reverse as _scan_reverse  # noqa: F401  (scan's reverse-mode rules)
from minigrad.lax.autodiff import stop_gradient
from minigrad.lax.conditionals import cond, switch
from minigrad.lax.conversions import (  # (issue #34, with lax_ops, shapes and slicing)
    bitcast_convert_type,
    convert_element_type,
    reduce_precision,
)
from minigrad.lax.convolution import (
    ConvDimensionNumbers,
    conv,
    conv_dimension_numbers,
    conv_general_dilated,
    conv_general_permutations,
    conv_general_shape_tuple,
    conv_shape_tuple,
    conv_transpose,
    conv_transpose_shape_tuple,
    conv_with_general_padding,
    padtype_to_pads,
)
from minigrad.lax.dot import dot, dot_general
from minigrad.lax.elementwise import select
from minigrad.lax.lax_ops import (  # elementwise, shapes and slicing by name (issue #34)
    RoundingMethod,
    abs,
    acos,
    acosh,
    add,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    bitwise_and,
    bitwise_not,
    bitwise_or,
    bitwise_xor,
    cbrt,
    ceil,
    clz,
    complex,
    conj,
    cos,
    cosh,
    digamma,
    div,
    eq,
    erf,
    erf_inv,
    erfc,
    exp,
    exp2,
    expm1,
    floor,
    ge,
    gt,
    igamma,
    igammac,
    imag,
    integer_pow,
    is_finite,
    le,
    lgamma,
    log,
    log1p,
    logistic,
    lt,
    max,
    min,
    mul,
    ne,
    neg,
    nextafter,
    population_count,
    pow,
    real,
    reciprocal,
    rem,
    round,
    rsqrt,
    shift_left,
    shift_right_arithmetic,
    shift_right_logical,
    sign,
    sin,
    sinh,
    sqrt,
    square,
    sub,
    tan,
    tanh,
)
from minigrad.lax.loops import map, scan
from minigrad.lax.precision import Precision
from minigrad.lax.reductions import (
    argmax,
    argmin,
    cumlogsumexp,
    cummax,
    cummin,
    cumprod,
    cumsum,
    reduce_and,
    reduce_max,
    reduce_min,
    reduce_or,
    reduce_prod,
    reduce_sum,
    sort,
    sort_key_val,
    top_k,
)
from minigrad.lax.remat import checkpoint, remat
from minigrad.lax.shapes import (  # (issue #34, with lax_ops and slicing)
    broadcast,
    broadcast_in_dim,
    broadcast_shapes,
    broadcast_to_rank,
    broadcasted_iota,
    clamp,
    collapse,
    concatenate,
    empty,
    expand_dims,
    full,
    full_like,
    iota,
    pad,
    reshape,
    rev,
    select_n,
    split,
    squeeze,
    stack,
    tile,
    transpose,
    unstack,
)
from minigrad.lax.slicing import (  # (issue #34, with lax_ops and shapes)
    dynamic_index_in_dim,
    dynamic_slice,
    dynamic_slice_in_dim,
    dynamic_update_index_in_dim,
    dynamic_update_slice,
    dynamic_update_slice_in_dim,
    index_in_dim,
    slice,
    slice_in_dim,
)
from minigrad.lax.slicing_gather import (
    GatherDimensionNumbers,
    GatherScatterMode,
    ScatterDimensionNumbers,
    gather,
    scatter,
    scatter_add,
    scatter_apply,
    scatter_max,
    scatter_min,
    scatter_mul,
    scatter_sub,
)
from minigrad.lax.special import betainc  # (issue #34: the incomplete beta)
from minigrad.lax.while_loop import fori_loop, while_loop
from minigrad.lax.windowed import reduce_window, reduce_window_shape_tuple

__all__ = [
    # autodiff
    "checkpoint", "remat", "stop_gradient",
    # control flow
    "cond", "fori_loop", "map", "scan", "switch", "while_loop",
    # convolutions
    "ConvDimensionNumbers", "conv", "conv_dimension_numbers", "conv_general_dilated",
    "conv_general_permutations", "conv_general_shape_tuple", "conv_shape_tuple",
    "conv_transpose", "conv_transpose_shape_tuple", "conv_with_general_padding",
    "padtype_to_pads",
    # dot_general, gather and scatter (minigrad/lax/dot.py, slicing_gather.py)
    "GatherDimensionNumbers", "GatherScatterMode", "ScatterDimensionNumbers", "dot",
    "dot_general", "gather", "scatter", "scatter_add", "scatter_apply", "scatter_max",
    "scatter_min", "scatter_mul", "scatter_sub",
    # elementwise
    "select",
    # reductions, cumulative reductions, sorting
    "argmax", "argmin", "cumlogsumexp", "cummax", "cummin", "cumprod", "cumsum", "reduce_and",
    "reduce_max", "reduce_min", "reduce_or", "reduce_prod", "reduce_sum", "sort",
    "sort_key_val", "top_k",
    # precision
    "Precision",
    # windowed reductions
    "reduce_window", "reduce_window_shape_tuple",
    # elementwise by name (lax_ops.py; issue #34)
    "RoundingMethod", "abs", "acos", "acosh", "add", "asin", "asinh", "atan", "atan2", "atanh",
    "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "cbrt", "ceil", "cos", "cosh",
    "digamma", "div", "eq", "erf", "erf_inv", "erfc", "exp", "exp2", "expm1", "floor", "ge",
    "gt", "integer_pow", "le", "lgamma", "log", "log1p", "logistic", "lt", "max", "min", "mul",
    "ne", "neg", "nextafter", "population_count", "pow", "rem", "round", "rsqrt",
    "shift_left", "shift_right_arithmetic", "shift_right_logical", "sign", "sin", "sinh",
    "sqrt", "sub", "tan", "tanh",
    # dtypes and shapes by name (conversions.py, shapes.py; issue #34)
    "bitcast_convert_type", "broadcast", "broadcast_in_dim", "broadcasted_iota", "clamp",
    "concatenate", "convert_element_type", "expand_dims", "iota", "pad", "reduce_precision",
    "reshape", "rev", "select_n", "squeeze", "transpose",
    # more by name, after issue #34 (lax_ops.py, shapes.py)
    "broadcast_shapes", "broadcast_to_rank", "clz", "collapse", "complex", "conj", "empty",
    "full", "full_like", "igamma", "igammac", "imag", "is_finite", "real", "reciprocal", "split",
    "square", "stack", "tile", "unstack",
    # slicing by name (slicing.py; issue #34)
    "dynamic_index_in_dim", "dynamic_slice", "dynamic_slice_in_dim",
    "dynamic_update_index_in_dim", "dynamic_update_slice", "dynamic_update_slice_in_dim",
    "index_in_dim", "slice", "slice_in_dim",
    # special functions by name (special.py; issue #34)
    "betainc",
]

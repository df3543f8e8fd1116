"""minigrad: JAX-style automatic differentiation and vectorization in pure NumPy."""

from minigrad import collectives, lax, nn, numpy, random, tree, tree_util  # tree*: issue #34
from minigrad.api_extras import (  # issue #34
    ShapeDtypeStruct,
    ensure_compile_time_eval,
    eval_shape,
    jacobian,
    named_call,
)
from minigrad.array import (
    Array,
    Device,
    block_until_ready,
    default_backend,
    device_count,
    device_get,
    device_put,
    devices,
    local_device_count,
    local_devices,
    process_count,
    process_index,
)
from minigrad.config import config, enable_x64
from minigrad.core import Primitive, ShapedArray, UnexpectedTracerError, float0
from minigrad.custom_rules import custom_jvp, custom_vjp, custom_vmap
from minigrad.inplace import (
    InPlaceError,
    index_add_,
    index_copy_,
    index_fill_,
    masked_fill_,
    masked_scatter_,
)
from minigrad.jaxpr import ClosedJaxpr, eval_jaxpr, make_jaxpr
from minigrad.lax import checkpoint, remat
from minigrad.ops.index_add import index_add
from minigrad.ops.index_copy import index_copy
from minigrad.ops.index_fill import index_fill
from minigrad.ops.masked_fill import masked_fill
from minigrad.ops.masked_scatter import masked_scatter
from minigrad.staging import functionalize, jit
from minigrad.transforms.grad import grad, hessian, jacrev, value_and_grad
from minigrad.transforms.jvp import jacfwd, jvp
from minigrad.transforms.linearize import linearize
from minigrad.transforms.transpose import linear_transpose, vjp
from minigrad.transforms.vmap import vmap
from minigrad.tree import (
    register_pytree_node,
    tree_flatten,
    tree_leaves,
    tree_map,
    tree_structure,
    tree_unflatten,
)

__version__ = "0.1.0"

__all__ = [
    "Array", "Device", "block_until_ready", "config", "default_backend", "device_count",
    "device_get", "device_put", "devices", "enable_x64", "local_device_count", "local_devices",
    "process_count", "process_index",
    "ClosedJaxpr", "InPlaceError", "Primitive", "ShapedArray", "UnexpectedTracerError",
    "checkpoint", "collectives", "custom_jvp", "custom_vjp", "custom_vmap", "eval_jaxpr", "float0",
    "functionalize", "grad", "hessian", "index_add", "index_add_", "index_copy", "index_copy_",
    "index_fill", "index_fill_", "jacfwd", "jacrev", "jit", "jvp", "lax", "linear_transpose",
    "linearize", "make_jaxpr", "masked_fill", "masked_fill_", "masked_scatter",
    "masked_scatter_", "nn", "numpy", "random", "register_pytree_node", "remat", "tree_flatten",
    "tree_leaves", "tree_map", "tree_structure", "tree_unflatten", "value_and_grad", "vjp",
    "vmap",
    # Issue #34 (branch nn-tree)
    "ShapeDtypeStruct", "ensure_compile_time_eval", "eval_shape", "jacobian", "named_call",
    "tree", "tree_util",
]

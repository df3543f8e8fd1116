"""minigrad: JAX-style automatic differentiation and vectorization in pure NumPy."""

from minigrad import numpy
from minigrad.core import Primitive, ShapedArray, UnexpectedTracerError, float0
from minigrad.jaxpr import ClosedJaxpr, eval_jaxpr, make_jaxpr
from minigrad.ops.index_add import index_add
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

# The five ops are also tracer methods: t.index_add(dim, index, source).
TRACER_METHODS = ("index_add",)

__all__ = [
    "ClosedJaxpr", "Primitive", "ShapedArray", "UnexpectedTracerError", "eval_jaxpr", "float0",
    "grad", "hessian", "index_add", "jacfwd", "jacrev", "jvp", "linear_transpose", "linearize",
    "make_jaxpr", "numpy", "register_pytree_node", "tree_flatten", "tree_leaves", "tree_map",
    "tree_structure", "tree_unflatten", "value_and_grad", "vjp", "vmap",
]

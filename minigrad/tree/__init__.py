"""``minigrad.tree``: pytrees, with ``jax.tree``'s short names (``map``, ``flatten``, ...).

The machinery (the registry, ``PyTreeDef``, flattening, prefix broadcasting for ``in_axes``)
is in ``pytree.py``, key paths in ``paths.py``, the other utilities in ``util.py``;
``minigrad.tree_util`` has the same functions under JAX's long names. The transforms import
the machinery's names from here (``tree_flatten``, ``leaf_paths``, ``broadcast_prefix``...);
they stay importable, but ``__all__`` is JAX's list.

>>> import minigrad as mg
>>> mg.tree.map(lambda x: x * 2, {"b": [1, 2], "a": 3})
{'a': 6, 'b': [2, 4]}
"""

from minigrad.tree.paths import (
    tree_flatten_with_path,
    tree_leaves_with_path,
    tree_map_with_path,
)
from minigrad.tree.pytree import (
    LEAF,
    PyTreeDef,
    broadcast_prefix,
    leaf_paths,
    register_pytree_node,
    tree_flatten,
    tree_leaves,
    tree_map,
    tree_structure,
    tree_unflatten,
)
from minigrad.tree.util import tree_all, tree_broadcast, tree_reduce, tree_transpose

# JAX's short names. They shadow builtins only in this namespace, which uses none.
all = tree_all
broadcast = tree_broadcast
flatten = tree_flatten
flatten_with_path = tree_flatten_with_path
leaves = tree_leaves
leaves_with_path = tree_leaves_with_path
map = tree_map
map_with_path = tree_map_with_path
reduce = tree_reduce
structure = tree_structure
transpose = tree_transpose
unflatten = tree_unflatten

__all__ = ["all", "broadcast", "flatten", "flatten_with_path", "leaves", "leaves_with_path",
           "map", "map_with_path", "reduce", "structure", "transpose", "unflatten"]

# The machinery's names the rest of minigrad imports from here (not part of jax.tree).
_INTERNAL = (LEAF, PyTreeDef, broadcast_prefix, leaf_paths, register_pytree_node)

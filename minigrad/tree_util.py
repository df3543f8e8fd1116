"""``minigrad.tree_util``: pytrees under ``jax.tree_util``'s long names. One implementation
with ``minigrad.tree`` (``tree_util.tree_map is tree.map``).

>>> from minigrad import tree_util
>>> leaves, treedef = tree_util.tree_flatten({"w": [1.0, 2.0], "b": None})
>>> leaves, tree_util.tree_unflatten(treedef, [3.0, 4.0])
([1.0, 2.0], {'b': None, 'w': [3.0, 4.0]})
"""

from minigrad.tree.paths import (
    DictKey,
    FlattenedIndexKey,
    GetAttrKey,
    KeyEntry,
    KeyPath,
    SequenceKey,
    keystr,
    tree_flatten_with_path,
    tree_leaves_with_path,
    tree_map_with_path,
)
from minigrad.tree.pytree import (
    PyTreeDef,
    register_pytree_node,
    tree_flatten,
    tree_leaves,
    tree_map,
    tree_structure,
    tree_unflatten,
)
from minigrad.tree.util import (
    Partial,
    all_leaves,
    register_dataclass,
    register_pytree_node_class,
    register_pytree_with_keys,
    register_pytree_with_keys_class,
    register_static,
    tree_all,
    tree_broadcast,
    tree_reduce,
    tree_transpose,
)

__all__ = ["DictKey", "FlattenedIndexKey", "GetAttrKey", "KeyEntry", "KeyPath", "Partial",
           "PyTreeDef", "SequenceKey", "all_leaves", "keystr", "register_dataclass",
           "register_pytree_node", "register_pytree_node_class", "register_pytree_with_keys",
           "register_pytree_with_keys_class", "register_static", "tree_all", "tree_broadcast",
           "tree_flatten", "tree_flatten_with_path", "tree_leaves", "tree_leaves_with_path",
           "tree_map", "tree_map_with_path", "tree_reduce", "tree_structure", "tree_transpose",
           "tree_unflatten"]

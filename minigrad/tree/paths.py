"""Key paths: where each leaf sits in its tree, as a tuple of keys (JAX's ``KeyPath``).

A key says how to step from a node to one child: ``SequenceKey(i)`` for a tuple or list,
``DictKey(k)`` for a dict, ``GetAttrKey(name)`` for a namedtuple or dataclass field, and
``FlattenedIndexKey(i)`` for a registered class that names no keys. Paths are built by a walk of
their own (never by ``tree_flatten``, which stays as fast as before); the leaves and their order
are ``tree_flatten``'s.
"""

from __future__ import annotations

import collections
from dataclasses import dataclass
from typing import Any, Callable, Hashable

from minigrad.tree.pytree import (
    LEAF,
    PyTreeDef,
    _flatten_up_to,
    _node_of,
    _registry,
    tree_unflatten,
)


@dataclass(frozen=True)
class SequenceKey:
    """The ``idx``-th child of a tuple or list: ``[idx]``."""

    idx: int

    def __str__(self) -> str:
        return f"[{self.idx!r}]"


@dataclass(frozen=True)
class DictKey:
    """The child of a dict at ``key``: ``['key']``."""

    key: Hashable

    def __str__(self) -> str:
        return f"[{self.key!r}]"


@dataclass(frozen=True)
class GetAttrKey:
    """The field ``name`` of a namedtuple or dataclass: ``.name``."""

    name: str

    def __str__(self) -> str:
        return f".{self.name}"


@dataclass(frozen=True)
class FlattenedIndexKey:
    """The ``key``-th child of a registered class that names no keys."""

    key: int

    def __str__(self) -> str:
        return f"[<flat index {self.key}>]"


KeyEntry = Any  # one of the four above, or whatever a flatten_with_keys_func returns
KeyPath = tuple[KeyEntry, ...]

_MAPPINGS = (dict, collections.OrderedDict)


def _keyed_children(x: Any, node_type: type, spec: Any) -> tuple[list[tuple[Any, Any]], Any]:
    """The (key, child) pairs of the node ``x`` and its aux data."""
    if node_type is tuple or node_type is list:
        return [(SequenceKey(i), c) for i, c in enumerate(x)], None
    if node_type in _MAPPINGS or node_type is collections.defaultdict:
        children, aux = spec.to_iterable(x)
        keys = aux[1] if node_type is collections.defaultdict else aux
        return [(DictKey(k), c) for k, c in zip(keys, children, strict=True)], aux
    if node_type not in _registry:  # a namedtuple
        return [(GetAttrKey(f), c) for f, c in zip(x._fields, x, strict=True)], None
    if spec.to_keyed is not None:
        pairs, aux = spec.to_keyed(x)
        return [(k, c) for k, c in pairs], aux
    children, aux = spec.to_iterable(x)
    return [(FlattenedIndexKey(i), c) for i, c in enumerate(children)], aux


def tree_flatten_with_path(tree: Any, is_leaf: Callable[..., bool] | None = None,
                           is_leaf_takes_path: bool = False
                           ) -> tuple[list[tuple[KeyPath, Any]], PyTreeDef]:
    """``tree_flatten`` with each leaf's key path: ``([(path, leaf), ...], treedef)``.
    With ``is_leaf_takes_path=True``, ``is_leaf`` is called as ``is_leaf(path, x)``."""
    pairs: list[tuple[KeyPath, Any]] = []

    def stop(path: KeyPath, x: Any) -> bool:
        if is_leaf is None:
            return False
        return bool(is_leaf(path, x) if is_leaf_takes_path else is_leaf(x))

    def rec(path: KeyPath, x: Any) -> PyTreeDef:
        node = _node_of(x)
        if node is None or stop(path, x):
            pairs.append((path, x))
            return LEAF
        node_type, spec = node
        keyed, aux = _keyed_children(x, node_type, spec)
        return PyTreeDef(node_type, aux, tuple(rec((*path, k), c) for k, c in keyed))

    treedef = rec((), tree)
    return pairs, treedef


def tree_leaves_with_path(tree: Any, is_leaf: Callable[..., bool] | None = None,
                          is_leaf_takes_path: bool = False) -> list[tuple[KeyPath, Any]]:
    """The ``(path, leaf)`` pairs of ``tree``, in ``tree_leaves``' order."""
    return tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)[0]


def tree_map_with_path(f: Callable[..., Any], tree: Any, *rest: Any,
                       is_leaf: Callable[..., bool] | None = None,
                       is_leaf_takes_path: bool = False) -> Any:
    """``tree_map`` whose ``f`` receives each leaf's key path first: ``f(path, x, *ys)``."""
    if not callable(f):
        raise TypeError(f"tree_map_with_path: f must be a callable; got {type(f).__name__}")
    pairs, treedef = tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)
    others = [_flatten_up_to(treedef, r, "rest", k) for k, r in enumerate(rest)]
    paths = [p for p, _ in pairs]
    leaves = [x for _, x in pairs]
    return tree_unflatten(treedef, [f(p, *xs) for p, *xs in
                                    zip(paths, leaves, *others, strict=True)])


def keystr(keys: KeyPath, *, simple: bool = False, separator: str = "") -> str:
    """A key path as text: ``"['a'][0].b"``; ``simple=True`` drops the brackets, quotes and
    dots (``keystr(path, simple=True, separator="/")`` gives ``"a/0/b"``)."""
    if not isinstance(keys, tuple):
        raise TypeError(f"keystr: keys must be a tuple of keys (a key path); got "
                        f"{type(keys).__name__}")
    return separator.join(_simple(k) if simple else str(k) for k in keys)


def _simple(key: Any) -> str:
    for cls, field in ((SequenceKey, "idx"), (DictKey, "key"), (GetAttrKey, "name"),
                       (FlattenedIndexKey, "key")):
        if isinstance(key, cls):
            return str(getattr(key, field))
    return str(key)

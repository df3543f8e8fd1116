"""The rest of JAX's pytree utilities, over ``pytree.py``: reductions, transposition,
broadcasting a prefix, ``Partial``, and registration helpers for classes and dataclasses."""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, Callable, Sequence, TypeVar

from minigrad.tree.paths import GetAttrKey
from minigrad.tree.pytree import (
    PyTreeDef,
    _flatten_up_to,
    register_pytree_node,
    tree_flatten,
    tree_leaves,
    tree_map,
    tree_structure,
    tree_unflatten,
)

T = TypeVar("T")
_NO_INITIALIZER = object()


def tree_reduce(function: Callable[[Any, Any], Any], tree: Any,
                initializer: Any = _NO_INITIALIZER,
                is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """``functools.reduce(function, tree_leaves(tree))``, from ``initializer`` when given."""
    leaves = tree_leaves(tree, is_leaf)
    if initializer is _NO_INITIALIZER:
        return functools.reduce(function, leaves)
    return functools.reduce(function, leaves, initializer)


def tree_all(tree: Any, *, is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """True if every leaf is truthy (an empty tree: True). ``None`` is a node, not a leaf."""
    return all(tree_leaves(tree, is_leaf))


def tree_transpose(outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None,
                   pytree_to_transpose: Any) -> Any:
    """Turn a tree of structure ``outer`` whose leaves are trees of structure ``inner`` into a
    tree ``inner`` of trees ``outer``; ``inner_treedef=None`` takes the first such subtree's."""
    for name, td in (("outer_treedef", outer_treedef), ("inner_treedef", inner_treedef)):
        if not isinstance(td, PyTreeDef) and not (td is None and name == "inner_treedef"):
            raise TypeError(f"tree_transpose: {name} must be a PyTreeDef; got "
                            f"{type(td).__name__}")
    flat, treedef = tree_flatten(pytree_to_transpose)
    if inner_treedef is None:
        inner_treedef = tree_structure(
            _flatten_up_to(outer_treedef, pytree_to_transpose, "tree", 0)[0])
    inner_size, outer_size = inner_treedef.num_leaves, outer_treedef.num_leaves
    if treedef.num_leaves != inner_size * outer_size:
        raise TypeError(f"tree_transpose: the tree has structure {treedef}, not {outer_treedef} "
                        f"with {inner_treedef} at each leaf ({outer_size} x {inner_size} "
                        f"leaves)")
    rows = [flat[i * inner_size:(i + 1) * inner_size] for i in range(outer_size)]
    columns = [tree_unflatten(outer_treedef, [row[j] for row in rows])
               for j in range(inner_size)]
    return tree_unflatten(inner_treedef, columns)


def tree_broadcast(prefix_tree: Any, full_tree: Any,
                   is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """``full_tree``'s structure, each leaf the leaf of ``prefix_tree`` that covers it."""
    return tree_map(lambda x, sub: tree_map(lambda _: x, sub), prefix_tree, full_tree,
                    is_leaf=is_leaf)


class _Unmerged:
    """A ``functools.partial`` held whole: ``functools.partial`` would merge a partial's
    arguments into its own, and ``Partial``'s leaves are exactly the arguments it was given."""

    def __init__(self, inner: functools.partial) -> None:
        self.inner = inner

    def __call__(self, *args: Any, **kw: Any) -> Any:
        return self.inner(*args, **kw)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def __eq__(self, other: object) -> bool:
        inner = other.inner if isinstance(other, _Unmerged) else other
        return bool(self.inner == inner)

    def __hash__(self) -> int:
        return hash(self.inner)

    def __repr__(self) -> str:
        return repr(self.inner)


class Partial(functools.partial):
    """``functools.partial`` as a pytree: its positional and keyword arguments are the leaves,
    the function is the (static) aux data, so a ``Partial`` can cross a transform boundary."""

    def __new__(cls, func: Callable[..., Any], *args: Any, **kw: Any) -> Partial:
        if isinstance(func, functools.partial):
            func = _Unmerged(func)
        return super().__new__(cls, func, *args, **kw)


register_pytree_node(
    Partial,
    lambda p: ((p.args, p.keywords), p.func),
    lambda func, xs: Partial(func, *xs[0], **xs[1]),  # type: ignore[index, arg-type]
)


def register_pytree_node_class(cls: type[T]) -> type[T]:
    """Class decorator: register ``cls`` with its own ``tree_flatten`` method and
    ``tree_unflatten`` classmethod."""
    for name in ("tree_flatten", "tree_unflatten"):
        if not callable(getattr(cls, name, None)):
            raise TypeError(f"register_pytree_node_class: {getattr(cls, '__name__', cls)} "
                            f"must define {name}")
    register_pytree_node(cls, lambda x: x.tree_flatten(), cls.tree_unflatten)  # type: ignore
    return cls


def register_dataclass(nodetype: type[T], data_fields: Sequence[str] | None = None,
                       meta_fields: Sequence[str] | None = None,
                       drop_fields: Sequence[str] = ()) -> type[T]:
    """Register a class whose ``data_fields`` are children and ``meta_fields`` aux data,
    rebuilt by ``nodetype(**fields)``. For a dataclass both may be omitted: a field with
    ``metadata={"static": True}`` is meta, the others data. Children get ``GetAttrKey``s."""
    if (data_fields is None) != (meta_fields is None):
        raise TypeError(f"register_dataclass: data_fields and meta_fields must both be given "
                        f"or both omitted; got data_fields={data_fields!r}, "
                        f"meta_fields={meta_fields!r}")
    if data_fields is None or meta_fields is None:
        if not dataclasses.is_dataclass(nodetype):
            raise TypeError(f"register_dataclass: data_fields and meta_fields are required "
                            f"when nodetype is not a dataclass; got {nodetype!r}")
        fields = dataclasses.fields(nodetype)
        data_fields = [f.name for f in fields if not f.metadata.get("static", False)]
        meta_fields = [f.name for f in fields if f.metadata.get("static", False)]
    data, meta = tuple(data_fields), tuple(meta_fields)
    if dataclasses.is_dataclass(nodetype):
        init = {f.name for f in dataclasses.fields(nodetype) if f.init} - set(drop_fields)
        if {*data, *meta} != init:
            raise ValueError(f"register_dataclass: data_fields and meta_fields must name every "
                             f"dataclass field with init=True and only those; missing "
                             f"{sorted(init - {*data, *meta})}, unexpected "
                             f"{sorted({*data, *meta} - init)}")
    if set(data) & set(meta):
        raise ValueError(f"register_dataclass: data_fields and meta_fields must not overlap; "
                         f"both have {sorted(set(data) & set(meta))}")
    def flatten(x: Any) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        return tuple(getattr(x, n) for n in data), tuple(getattr(x, n) for n in meta)

    def flatten_with_keys(x: Any) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        return (tuple((GetAttrKey(n), getattr(x, n)) for n in data),
                tuple(getattr(x, n) for n in meta))

    def unflatten(aux: Any, children: Any) -> Any:
        return nodetype(**dict(zip(meta, aux, strict=True)),
                        **dict(zip(data, children, strict=True)))

    register_pytree_node(nodetype, flatten, unflatten, flatten_with_keys)
    return nodetype


def register_pytree_with_keys(nodetype: type, flatten_with_keys: Callable[[Any], Any],
                              unflatten_func: Callable[[Any, Any], Any],
                              flatten_func: Callable[[Any], Any] | None = None) -> None:
    """``register_pytree_node`` from the keyed flatten: ``flatten_with_keys(x) -> (((key,
    child), ...), aux)``; the plain flatten drops the keys unless ``flatten_func`` is given."""
    def plain(x: Any) -> tuple[list[Any], Any]:
        pairs, aux = flatten_with_keys(x)
        return [c for _, c in pairs], aux

    register_pytree_node(nodetype, flatten_func or plain, unflatten_func, flatten_with_keys)


def register_pytree_with_keys_class(cls: type[T]) -> type[T]:
    """Class decorator: register ``cls`` with its ``tree_flatten_with_keys`` method (and its
    ``tree_flatten`` if it has one) and its ``tree_unflatten`` classmethod."""
    for name in ("tree_flatten_with_keys", "tree_unflatten"):
        if not callable(getattr(cls, name, None)):
            raise TypeError(f"register_pytree_with_keys_class: {getattr(cls, '__name__', cls)} "
                            f"must define {name}")
    flat = getattr(cls, "tree_flatten", None)
    register_pytree_with_keys(cls, lambda x: x.tree_flatten_with_keys(),
                              cls.tree_unflatten,  # type: ignore[attr-defined]
                              (lambda x: x.tree_flatten()) if callable(flat) else None)
    return cls


def register_static(cls: type[T]) -> type[T]:
    """Register ``cls`` as a node without children: an instance is aux data (it must be
    hashable), part of the structure, never a leaf."""
    register_pytree_node(cls, lambda x: ((), x), lambda aux, _: aux)
    return cls


def all_leaves(iterable: Any, is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """True if every item is a leaf (``None`` is not: it is an empty node)."""
    return all(tree_structure(x, is_leaf).node_type is None for x in iterable)

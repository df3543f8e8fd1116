"""Pytrees: nested tuples, lists, dicts, namedtuples and None, plus registered classes.

A pytree is flattened into a list of leaves and a ``PyTreeDef`` that rebuilds it. Transforms take
and return pytrees; ``in_axes`` and ``out_axes`` are tree *prefixes* of the arguments.
"""

from __future__ import annotations

import collections
from typing import Any, Callable, Hashable, Iterable, NamedTuple


class _NodeType(NamedTuple):
    to_iterable: Callable[[Any], tuple[Iterable[Any], Hashable]]
    from_iterable: Callable[[Hashable, Iterable[Any]], Any]
    # (key, child) pairs and aux, for key paths (tree_flatten_with_path); None: the children's
    # keys are their positions (FlattenedIndexKey). Never used by tree_flatten.
    to_keyed: Callable[[Any], tuple[Iterable[tuple[Any, Any]], Hashable]] | None = None


_registry: dict[type, _NodeType] = {}


def register_pytree_node(
    nodetype: type,
    flatten_func: Callable[[Any], tuple[Iterable[Any], Hashable]],
    unflatten_func: Callable[[Hashable, Iterable[Any]], Any],
    flatten_with_keys_func: Callable[..., Any] | None = None,
) -> None:
    """Make ``nodetype`` a pytree node: ``flatten_func(x) -> (children, aux)`` and
    ``unflatten_func(aux, children) -> x``. ``aux`` must be hashable and comparable.
    ``flatten_with_keys_func(x) -> (((key, child), ...), aux)`` names the children in key
    paths (``tree_flatten_with_path``); without it they are ``FlattenedIndexKey(i)``."""
    if not isinstance(nodetype, type):
        raise TypeError(f"register_pytree_node: nodetype must be a class; got "
                        f"{type(nodetype).__name__}")
    for name, fn in (("flatten_func", flatten_func), ("unflatten_func", unflatten_func),
                     ("flatten_with_keys_func", flatten_with_keys_func or flatten_func)):
        if not callable(fn):
            raise TypeError(f"register_pytree_node: {name} must be a callable; got "
                            f"{type(fn).__name__}")
    if nodetype in _registry:
        raise ValueError(f"register_pytree_node: {nodetype.__name__} is already registered")
    _registry[nodetype] = _NodeType(flatten_func, unflatten_func, flatten_with_keys_func)


def _sorted_dict_keys(d: dict) -> list:
    try:
        return sorted(d)
    except TypeError:
        # As JAX 0.10: a dict's leaves are in key order, so its keys must be comparable.
        raise ValueError(f"tree_flatten: a dict's keys must be sortable (its leaves are "
                         f"in key order); got keys {list(d)!r}") from None


register_pytree_node(tuple, lambda t: (t, None), lambda _, c: tuple(c))
register_pytree_node(list, lambda t: (t, None), lambda _, c: list(c))
register_pytree_node(type(None), lambda _: ((), None), lambda _, c: None)
register_pytree_node(
    dict,
    lambda d: ([d[k] for k in _sorted_dict_keys(d)], tuple(_sorted_dict_keys(d))),
    lambda keys, c: dict(zip(keys, c, strict=True)),  # type: ignore[call-overload]
)
# As JAX: an OrderedDict keeps its insertion order (and is a node of its own type); a
# defaultdict sorts its keys and keeps its default_factory.
register_pytree_node(
    collections.OrderedDict,
    lambda d: (list(d.values()), tuple(d)),
    lambda keys, c: collections.OrderedDict(zip(keys, c, strict=True)),  # type: ignore
)
register_pytree_node(
    collections.defaultdict,
    lambda d: ([d[k] for k in _sorted_dict_keys(d)],
               (d.default_factory, tuple(_sorted_dict_keys(d)))),
    lambda aux, c: collections.defaultdict(aux[0], zip(aux[1], c, strict=True)),  # type: ignore
)


def _is_namedtuple(x: Any) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _node_of(x: Any) -> tuple[type, _NodeType] | None:
    t = type(x)
    node = _registry.get(t)
    if node is not None:
        return t, node
    if isinstance(x, tuple) and _is_namedtuple(x):  # (a tuple subclass: not in the registry)
        return t, _NodeType(lambda v: (tuple(v), None), lambda _, c: t(*c))
    return None


class PyTreeDef:
    """The structure of a pytree: a node type, its aux data and the children's structures.
    A leaf is a PyTreeDef with ``node_type`` None."""

    __slots__ = ("node_type", "aux", "children", "num_leaves")

    def __init__(self, node_type: type | None, aux: Hashable, children: tuple[PyTreeDef, ...]):
        self.node_type = node_type
        self.aux = aux
        self.children = children
        self.num_leaves: int = 1 if node_type is None else sum(c.num_leaves for c in children)

    @property
    def num_nodes(self) -> int:
        """The number of nodes, leaves included (as JAX's)."""
        return 1 + sum(c.num_nodes for c in self.children)

    def unflatten(self, leaves: Iterable[Any]) -> Any:
        """``tree_unflatten(self, leaves)``."""
        return tree_unflatten(self, leaves)

    def flatten_up_to(self, tree: Any) -> list[Any]:
        """The subtrees of ``tree`` at this structure's leaves (it must be a prefix of it)."""
        return _flatten_up_to(self, tree, "tree", 0)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, PyTreeDef) and self.node_type is other.node_type
                and self.aux == other.aux and self.children == other.children)

    def __hash__(self) -> int:
        return hash((self.node_type, self.aux, self.children))

    def __repr__(self) -> str:
        if self.node_type is None:
            return "*"
        inner = ", ".join(repr(c) for c in self.children)
        if self.node_type is tuple:
            return f"({inner}{',' if len(self.children) == 1 else ''})"
        if self.node_type is list:
            return f"[{inner}]"
        if self.node_type is dict:
            return "{" + ", ".join(f"{k!r}: {c!r}" for k, c in
                                   zip(self.aux, self.children, strict=True)) + "}"  # type: ignore
        if self.node_type is type(None):
            return "None"
        return f"{self.node_type.__name__}({inner})"


LEAF = PyTreeDef(None, None, ())


def tree_flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None
                 ) -> tuple[list[Any], PyTreeDef]:
    """Flatten ``tree`` into its leaves (left to right) and its structure."""
    leaves: list[Any] = []

    def rec(x: Any) -> PyTreeDef:
        node = _node_of(x)
        if node is None or (is_leaf is not None and is_leaf(x)):
            leaves.append(x)
            return LEAF
        node_type, spec = node
        flat = spec.to_iterable(x)
        if not isinstance(flat, (tuple, list)) or len(flat) != 2:
            raise TypeError(f"tree_flatten: the flatten function registered for "
                            f"{node_type.__name__} must return a pair (children, aux); got "
                            f"{type(flat).__name__}")
        children, aux = flat
        defs = []
        for c in children:
            if _plain_leaf(c):  # the common case: no recursion per leaf
                leaves.append(c)
                defs.append(LEAF)
            else:
                defs.append(rec(c))
        return PyTreeDef(node_type, aux, tuple(defs))

    treedef = rec(tree)
    return leaves, treedef


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable[Any]) -> Any:
    """Rebuild a tree of structure ``treedef`` from ``leaves``."""
    if not isinstance(treedef, PyTreeDef):
        raise TypeError(f"tree_unflatten: treedef must be a PyTreeDef (from tree_flatten or "
                        f"tree_structure); got {type(treedef).__name__}")
    leaves = list(leaves)
    if len(leaves) != treedef.num_leaves:
        raise ValueError(f"tree_unflatten: the structure {treedef} needs {treedef.num_leaves} "
                         f"leaves; got {len(leaves)}")
    it = iter(leaves)

    def rec(td: PyTreeDef) -> Any:
        if td.node_type is None:
            return next(it)
        children = [next(it) if c.node_type is None else rec(c) for c in td.children]
        if _registry.get(td.node_type) is None:  # a namedtuple
            return td.node_type(*children)
        return _registry[td.node_type].from_iterable(td.aux, children)

    return rec(treedef)


def tree_leaves(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list[Any]:
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> PyTreeDef:
    return tree_flatten(tree, is_leaf)[1]


def tree_map(f: Callable[..., Any], tree: Any, *rest: Any,
             is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """Apply ``f`` leafwise to ``tree`` and to trees ``rest``, as JAX does: ``tree`` must be a
    prefix of each of ``rest`` (a leaf of ``tree`` receives the whole subtree of the others at
    its place), and ``is_leaf`` marks more of ``tree``'s nodes as leaves."""
    if not callable(f):
        raise TypeError(f"tree_map: f must be a callable; got {type(f).__name__}")
    leaves, treedef = tree_flatten(tree, is_leaf)
    others = [_flatten_up_to(treedef, r, "rest", k) for k, r in enumerate(rest)]
    return tree_unflatten(treedef, [f(*xs) for xs in zip(leaves, *others, strict=True)])


def _flatten_up_to(treedef: PyTreeDef, tree: Any, what: str, k: int) -> list[Any]:
    """The subtrees of ``tree`` at the leaves of ``treedef``, which must be a prefix of it."""
    if treedef.node_type is None:
        return [tree]
    node = _node_of(tree)
    children: Any = ()
    if node is not None and node[0] is treedef.node_type:
        children, aux = node[1].to_iterable(tree)
        children = list(children)
    if (node is None or node[0] is not treedef.node_type or aux != treedef.aux
            or len(children) != len(treedef.children)):
        raise ValueError(f"tree_map: the first tree's structure must be a prefix of every "
                         f"other's; tree {k + 1} has {tree_structure(tree)} where the first "
                         f"has {treedef}")
    out: list[Any] = []
    for c, td in zip(children, treedef.children, strict=True):
        out += _flatten_up_to(td, c, what, k)
    return out


def _child_keys(td: PyTreeDef) -> list[str]:
    if td.node_type is dict or td.node_type is collections.OrderedDict:
        return [f"[{k!r}]" for k in td.aux]  # type: ignore[attr-defined]
    if td.node_type is collections.defaultdict:
        return [f"[{k!r}]" for k in td.aux[1]]  # type: ignore[index]
    fields = getattr(td.node_type, "_fields", None)
    if fields is not None:
        return [f".{name}" for name in fields]
    return [f"[{i}]" for i in range(len(td.children))]


def leaf_paths(treedef: PyTreeDef, root: str = "") -> list[str]:
    """A readable path for each leaf, e.g. ``args[0]['w']``, for error messages."""
    if treedef.node_type is None:
        return [root]
    paths: list[str] = []
    for key, child in zip(_child_keys(treedef), treedef.children, strict=True):
        if child.node_type is None:  # a leaf: no need to recurse
            paths.append(root + key)
        else:
            paths.extend(leaf_paths(child, root + key))
    return paths


def broadcast_prefix(prefix: Any, full: Any, what: str, root: str = "",
                     of: str = "the arguments") -> list[Any]:
    """For each leaf of ``full``, the leaf of the tree prefix ``prefix`` that covers it.

    ``None`` in ``prefix`` is a leaf (it covers a whole subtree). Raises a ValueError naming
    ``what`` and the first path where the structures disagree.
    """
    out: list[Any] = []
    noun = "the argument" if of == "the arguments" else "the value"

    # ``at`` is the path to the node, step by step: it is spelled out only for an error, as the
    # spelling costs more than the walk.
    def rec(p: Any, f: Any, at: tuple) -> None:
        p_node = _node_of(p) if p is not None else None
        if p_node is None:  # a prefix leaf covers the whole subtree
            out.extend([p] * (1 if _node_of(f) is None else len(tree_leaves(f))))
            return
        f_node = _node_of(f)
        p_children, p_aux = p_node[1].to_iterable(p)
        if f_node is None or f_node[0] is not p_node[0]:
            raise ValueError(
                f"{what} must be a tree prefix of {of}; at {_path(root, at)} it is a "
                f"{p_node[0].__name__} but {noun} is {_describe(f)}")
        f_children, f_aux = f_node[1].to_iterable(f)
        p_children, f_children = list(p_children), list(f_children)
        if p_aux != f_aux or len(p_children) != len(f_children):
            raise ValueError(
                f"{what} must be a tree prefix of {of}; at {_path(root, at)} it has "
                f"structure {tree_structure(p)} but {noun} has {tree_structure(f)}")
        for i, (pc, fc) in enumerate(zip(p_children, f_children, strict=True)):
            if _plain_leaf(pc) and _plain_leaf(fc):
                out.append(pc)  # a leaf covering a leaf: the common case, without recursing
            else:
                rec(pc, fc, (*at, (f_node[0], f_aux, len(f_children), i)))

    rec(prefix, full, ())
    return out


def _plain_leaf(x: Any) -> bool:
    """True if ``x`` is certainly a leaf: neither a registered node nor a tuple (a namedtuple
    is a node). Cheaper than ``_node_of``; a False may still be a leaf."""
    return type(x) not in _registry and not isinstance(x, tuple)


def _path(root: str, at: tuple) -> str:
    """The readable path (``args[0]['w']``) of the node that ``at`` leads to from ``root``:
    ``at`` holds a (node type, aux data, number of children, child number) step per level."""
    keys = (_child_keys(PyTreeDef(t, aux, (LEAF,) * n))[i] for t, aux, n, i in at)
    return root + "".join(keys) or "the root"


def _describe(x: Any) -> str:
    if _node_of(x) is None:
        shape = getattr(x, "shape", None)
        return f"a leaf of shape {shape}" if shape is not None else f"a leaf ({type(x).__name__})"
    return f"a {type(x).__name__}"

"""``minigrad.tree`` (JAX's short names) and ``minigrad.tree_util`` (the long ones): one
implementation under both, key paths, reductions, transposition, ``Partial``, registration of
classes and dataclasses. Expected values are written out (they need no JAX); when JAX is
installed, each case is also compared with ``jax.tree`` / ``jax.tree_util``."""

from __future__ import annotations

import collections
import dataclasses
import functools
import operator
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import minigrad as mg
from minigrad import tree_util as tu

NT = collections.namedtuple("NT", "a b")
TREE = {"b": [1, None, (2, 3)], "a": NT(4, {"z": 5, "y": 6})}


def test_one_implementation_under_both_names() -> None:
    pairs = {"map": "tree_map", "flatten": "tree_flatten", "unflatten": "tree_unflatten",
             "leaves": "tree_leaves", "structure": "tree_structure", "reduce": "tree_reduce",
             "all": "tree_all", "transpose": "tree_transpose",
             "flatten_with_path": "tree_flatten_with_path",
             "map_with_path": "tree_map_with_path", "leaves_with_path": "tree_leaves_with_path",
             "broadcast": "tree_broadcast"}
    for short, long in pairs.items():
        assert getattr(mg.tree, short) is getattr(tu, long), short
    assert mg.tree_map is tu.tree_map and mg.tree_util is tu
    assert sorted(mg.tree.__all__) == sorted(pairs)


def test_flatten_sorts_dict_keys_and_keeps_none_as_a_node() -> None:
    leaves, treedef = mg.tree.flatten(TREE)
    assert leaves == [4, 6, 5, 1, 2, 3]
    assert mg.tree.unflatten(treedef, leaves) == TREE
    assert type(mg.tree.unflatten(treedef, leaves)["a"]) is NT
    assert mg.tree.leaves([None, 1]) == [1]
    assert mg.tree.leaves([None, 1], is_leaf=lambda x: x is None) == [None, 1]
    assert mg.tree.map(lambda x: x * 10, [None, 1]) == [None, 10]


def test_flatten_with_path_and_keystr() -> None:
    pairs, treedef = mg.tree.flatten_with_path(TREE)
    assert treedef == mg.tree.structure(TREE)
    assert [x for _, x in pairs] == mg.tree.leaves(TREE)
    assert pairs[1][0] == (tu.DictKey("a"), tu.GetAttrKey("b"), tu.DictKey("y"))
    assert [tu.keystr(p) for p, _ in pairs] == [
        "['a'].a", "['a'].b['y']", "['a'].b['z']", "['b'][0]", "['b'][2][0]", "['b'][2][1]"]
    assert [tu.keystr(p, simple=True, separator="/") for p, _ in pairs] == [
        "a/a", "a/b/y", "a/b/z", "b/0", "b/2/0", "b/2/1"]
    assert repr(tu.SequenceKey(1)) == "SequenceKey(idx=1)"
    assert str(tu.FlattenedIndexKey(2)) == "[<flat index 2>]"
    with pytest.raises(TypeError, match="keystr: keys must be a tuple"):
        tu.keystr("['a']")


def test_is_leaf_takes_path() -> None:
    got = mg.tree.leaves_with_path([1, {"a": 2}], is_leaf=lambda p, x: len(p) == 1,
                                   is_leaf_takes_path=True)
    assert got == [((tu.SequenceKey(0),), 1), ((tu.SequenceKey(1),), {"a": 2})]


def test_map_with_path_over_several_trees() -> None:
    got = mg.tree.map_with_path(lambda p, x, y: (tu.keystr(p), x + y), [1, {"a": 2}],
                                [3, {"a": 4}])
    assert got == [("[0]", 4), {"a": ("[1]['a']", 6)}]


class Box:
    def __init__(self, x: Any, y: Any) -> None:
        self.x, self.y = x, y


mg.register_pytree_node(Box, lambda b: ((b.x, b.y), None), lambda _, c: Box(*c))


class KeyedBox(Box):
    pass


mg.register_pytree_node(KeyedBox, lambda b: ((b.x, b.y), None), lambda _, c: KeyedBox(*c),
                        lambda b: (((tu.GetAttrKey("x"), b.x), (tu.GetAttrKey("y"), b.y)), None))


def test_registered_nodes_keys() -> None:
    paths = [tu.keystr(p) for p, _ in mg.tree.leaves_with_path([Box(1, 2), KeyedBox(3, 4)])]
    assert paths == ["[0][<flat index 0>]", "[0][<flat index 1>]", "[1].x", "[1].y"]


def test_reduce_all_transpose_broadcast() -> None:
    assert mg.tree.reduce(operator.add, [1, (2, 3)], 10) == 16
    assert mg.tree.reduce(operator.add, [1, (2, 3)]) == 6
    with pytest.raises(TypeError):
        mg.tree.reduce(operator.add, [])
    assert mg.tree.all([1, None, 2]) and not mg.tree.all([1, 0]) and mg.tree.all([])
    outer, inner = mg.tree.structure([0, 0]), mg.tree.structure((0, 0))
    assert mg.tree.transpose(outer, inner, [(1, 2), (3, 4)]) == ([1, 3], [2, 4])
    assert mg.tree.transpose(outer, None, [(1, 2), (3, 4)]) == ([1, 3], [2, 4])
    with pytest.raises(TypeError, match="tree_transpose"):
        mg.tree.transpose(outer, inner, [(1, 2), (3, 4, 5)])
    assert mg.tree.broadcast([1, 2], [(3, 4), {"a": 5}]) == [(1, 1), {"a": 2}]


def test_ordered_and_default_dicts() -> None:
    od = collections.OrderedDict([("b", 1), ("a", 2)])
    leaves, treedef = mg.tree.flatten(od)
    assert leaves == [1, 2] and mg.tree.unflatten(treedef, [3, 4]) == collections.OrderedDict(
        [("b", 3), ("a", 4)])
    dd = collections.defaultdict(list, {"b": 1, "a": 2})
    back = mg.tree.map(lambda x: x + 1, dd)
    assert type(back) is collections.defaultdict and back.default_factory is list
    assert mg.tree.leaves(dd) == [2, 1] and back == {"a": 3, "b": 2}


def test_unsortable_dict_keys_are_an_error() -> None:
    with pytest.raises(ValueError, match="keys must be sortable"):
        mg.tree.flatten({1: "a", "b": 2})


def test_partial_is_a_pytree_and_crosses_a_transform() -> None:
    p = tu.Partial(operator.mul, np.array(3.0))
    assert mg.tree.leaves(tu.Partial(max, 1, key=2)) == [1, 2]
    grads = mg.grad(lambda f, x: f(x))(p, np.array(2.0))
    assert isinstance(grads, tu.Partial) and float(grads.args[0]) == 2.0
    inner = functools.partial(operator.add, 1)
    outer = tu.Partial(inner, 2)
    assert outer() == 3 and mg.tree.leaves(outer) == [2]  # the inner partial is aux data


@tu.register_pytree_node_class
class Pair:
    def __init__(self, a: Any, b: Any) -> None:
        self.a, self.b = a, b

    def tree_flatten(self) -> tuple[tuple[Any, Any], None]:
        return (self.a, self.b), None

    @classmethod
    def tree_unflatten(cls, aux: None, children: Any) -> Pair:
        return cls(*children)


@dataclasses.dataclass
class Layer:
    w: Any
    b: Any
    name: str = dataclasses.field(default="dense", metadata={"static": True})


tu.register_dataclass(Layer)


def test_register_pytree_node_class_and_dataclass() -> None:
    assert mg.tree.leaves(Pair(1, [2, 3])) == [1, 2, 3]
    doubled = mg.tree.map(lambda x: 2 * x, Layer(1, 2, "l1"))
    assert (doubled.w, doubled.b, doubled.name) == (2, 4, "l1")
    assert [tu.keystr(p) for p, _ in mg.tree.leaves_with_path(Layer(1, 2))] == [".w", ".b"]
    g = mg.grad(lambda layer: layer.w * layer.b)(Layer(np.array(2.0), np.array(5.0)))
    assert float(g.w) == 5.0 and float(g.b) == 2.0
    with pytest.raises(TypeError, match="register_dataclass"):
        tu.register_dataclass(Box)
    with pytest.raises(ValueError, match="missing"):
        @dataclasses.dataclass
        class Half:
            x: int
            y: int

        tu.register_dataclass(Half, data_fields=["x"], meta_fields=[])
    with pytest.raises(TypeError, match="must define tree_flatten"):
        tu.register_pytree_node_class(type("Bare", (), {}))


# --- against JAX ------------------------------------------------------------------------------

CASES = [TREE, [None, 1], (), {"x": (1, None, [2, {"z": 3}])}, NT(1, (2, 3)),
         collections.OrderedDict([("b", 1), ("a", 2)]), 5]


@pytest.mark.parametrize("k", range(len(CASES)))
def test_matches_jax_tree(k: int) -> None:
    jax = pytest.importorskip("jax", reason="compares with jax.tree")
    tree = CASES[k]
    assert mg.tree.leaves(tree) == jax.tree.leaves(tree)
    ours = [(tu.keystr(p), x) for p, x in mg.tree.leaves_with_path(tree)]
    theirs = [(jax.tree_util.keystr(p), x) for p, x in jax.tree.leaves_with_path(tree)]
    assert ours == theirs
    ours = [tu.keystr(p, simple=True, separator="/") for p, _ in mg.tree.leaves_with_path(tree)]
    theirs = [jax.tree_util.keystr(p, simple=True, separator="/")
              for p, _ in jax.tree.leaves_with_path(tree)]
    assert ours == theirs
    is_none = lambda x: x is None  # noqa: E731
    assert mg.tree.leaves(tree, is_leaf=is_none) == jax.tree.leaves(tree, is_leaf=is_none)
    assert mg.tree.map(lambda x: (x,), tree) == jax.tree.map(lambda x: (x,), tree)
    assert mg.tree.all(tree) == jax.tree.all(tree)


def test_matches_jax_structure_errors_and_transpose() -> None:
    jax = pytest.importorskip("jax", reason="compares with jax.tree")
    for first, second in [({"a": None}, {"a": 1}), ((1, 2), [3, 4]), ((1, 2), NT(3, 4))]:
        with pytest.raises(ValueError):
            jax.tree.map(lambda a, b: a, first, second)
        with pytest.raises(ValueError):
            mg.tree.map(lambda a, b: a, first, second)
    assert mg.tree.map(lambda a, b: (a, b), {"a": 1}, {"a": None}) == jax.tree.map(
        lambda a, b: (a, b), {"a": 1}, {"a": None})
    tree = [{"x": 1, "y": 2}, {"x": 3, "y": 4}, {"x": 5, "y": 6}]
    outer = mg.tree.structure([0, 0, 0])
    got = mg.tree.transpose(outer, None, tree)
    assert got == jax.tree.transpose(jax.tree.structure([0, 0, 0]), None, tree)
    assert mg.tree.broadcast([1, 2], [(3, 4), {"a": 5}]) == jax.tree.broadcast(
        [1, 2], [(3, 4), {"a": 5}])
    with pytest.raises(ValueError):
        jax.tree.flatten({1: "a", "b": 2})


class Keyed:
    def __init__(self, a: Any, b: Any) -> None:
        self.a, self.b = a, b

    def tree_flatten_with_keys(self) -> tuple[tuple, None]:
        return ((tu.GetAttrKey("a"), self.a), (tu.GetAttrKey("b"), self.b)), None

    @classmethod
    def tree_unflatten(cls, aux: None, children: Any) -> Keyed:
        return cls(*children)


tu.register_pytree_with_keys_class(Keyed)


@tu.register_static
class Config:
    def __init__(self, n: int) -> None:
        self.n = n

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Config) and other.n == self.n

    def __hash__(self) -> int:
        return hash(self.n)


def test_keyed_and_static_registration_and_treedef_methods() -> None:
    assert [tu.keystr(p) for p, _ in mg.tree.leaves_with_path([Keyed(1, 2)])] == ["[0].a",
                                                                                  "[0].b"]
    assert mg.tree.map(lambda x: x + 1, Keyed(1, 2)).b == 3
    assert mg.tree.leaves([Config(3), 1]) == [1]
    assert mg.tree.structure([Config(3)]) != mg.tree.structure([Config(4)])
    assert tu.all_leaves([1, 2.0]) and not tu.all_leaves([1, None])
    assert tu.all_leaves([None], is_leaf=lambda x: x is None)
    td = mg.tree.structure({"a": [1, 2], "b": 3})
    assert (td.num_nodes, td.num_leaves) == (5, 3)
    assert td.unflatten([4, 5, 6]) == {"a": [4, 5], "b": 6}
    assert td.flatten_up_to({"a": [5, 6], "b": (7, 8)}) == [5, 6, (7, 8)]


def test_treedef_counts_match_jax() -> None:
    jax = pytest.importorskip("jax", reason="compares with jax.tree")
    for tree in CASES:
        ours, theirs = mg.tree.structure(tree), jax.tree.structure(tree)
        assert (ours.num_nodes, ours.num_leaves) == (theirs.num_nodes, theirs.num_leaves)


TREES = st.recursive(
    st.integers(-5, 5),
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.tuples(children, children),
        st.dictionaries(st.text("abc", min_size=1, max_size=2), children, max_size=3),
        st.builds(NT, children, children),
        st.none(),
    ),
    max_leaves=8,
)


def follow(tree: Any, path: tuple) -> Any:
    for key in path:
        if isinstance(key, tu.GetAttrKey):
            tree = getattr(tree, key.name)
        elif isinstance(key, tu.DictKey):
            tree = tree[key.key]
        else:
            tree = tree[key.idx]
    return tree


@given(tree=TREES)
def test_paths_lead_to_their_leaves(tree: Any) -> None:
    pairs, treedef = mg.tree.flatten_with_path(tree)
    assert treedef == mg.tree.structure(tree)
    assert [x for _, x in pairs] == mg.tree.leaves(tree)
    assert all(follow(tree, p) is x for p, x in pairs)
    doubled = mg.tree.map_with_path(lambda p, x: (tu.keystr(p), 2 * x), tree)
    assert mg.tree.leaves(doubled, is_leaf=lambda x: isinstance(x, tuple) and len(x) == 2
                          and isinstance(x[0], str)) == [(tu.keystr(p), 2 * x)
                                                         for p, x in pairs]


@given(tree=TREES)
def test_paths_match_jax_property(tree: Any) -> None:
    jax = pytest.importorskip("jax", reason="compares with jax.tree")
    ours = [(tu.keystr(p), x) for p, x in mg.tree.leaves_with_path(tree)]
    theirs = [(jax.tree_util.keystr(p), x) for p, x in jax.tree.leaves_with_path(tree)]
    assert ours == theirs
    assert mg.tree.structure(tree).num_nodes == jax.tree.structure(tree).num_nodes

"""Pytrees: flatten/unflatten, tree_map, registration."""

from collections import namedtuple

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import minigrad as mg
from minigrad.tree import PyTreeDef, broadcast_prefix, leaf_paths

Point = namedtuple("Point", "x y")


class Box:
    """A registered container: one child, plus static aux data."""

    def __init__(self, value, tag):
        self.value, self.tag = value, tag

    def __eq__(self, other):
        return type(other) is Box and self.tag == other.tag and self.value == other.value


mg.register_pytree_node(Box, lambda b: ((b.value,), b.tag), lambda tag, c: Box(c[0], tag))


CASES = {
    "tuple": ((1, 2, 3), [1, 2, 3]),
    "list": ([1, [2, 3]], [1, 2, 3]),
    "dict_sorted": ({"b": 1, "a": 2, "c": 3}, [2, 1, 3]),
    "none": (None, []),
    "empty": ((), []),
    "namedtuple": (Point(1, (2, 3)), [1, 2, 3]),
    "nested": ({"x": (1, None, [2, {"z": 3}])}, [1, 2, 3]),
    "registered": (Box((1, 2), "tag"), [1, 2]),
    "leaf": (5, [5]),
    "array_leaf": (np.arange(3), None),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_flatten_unflatten_round_trip(name):
    tree, expected_leaves = CASES[name]
    leaves, treedef = mg.tree_flatten(tree)
    if expected_leaves is not None:
        assert leaves == expected_leaves
    assert treedef.num_leaves == len(leaves)
    rebuilt = mg.tree_unflatten(treedef, leaves)
    if isinstance(tree, np.ndarray):
        assert rebuilt is tree
    else:
        assert rebuilt == tree
        assert type(rebuilt) is type(tree)
    assert mg.tree_structure(rebuilt) == treedef


def test_dict_keys_sorted_and_rebuilt():
    leaves, treedef = mg.tree_flatten({"b": 1, "a": 2})
    assert leaves == [2, 1]
    assert list(mg.tree_unflatten(treedef, [10, 20])) == ["a", "b"]
    assert mg.tree_unflatten(treedef, [10, 20]) == {"a": 10, "b": 20}


def test_namedtuple_type_kept():
    out = mg.tree_unflatten(mg.tree_structure(Point(1, 2)), [3, 4])
    assert type(out) is Point and out == Point(3, 4)


def test_none_is_an_empty_node_not_a_leaf():
    assert mg.tree_leaves([None, 1, None]) == [1]
    assert mg.tree_unflatten(mg.tree_structure([None, 1]), [7]) == [None, 7]


def test_treedef_equality_and_repr():
    assert mg.tree_structure((1, {"a": 2})) == mg.tree_structure((5, {"a": 7}))
    assert mg.tree_structure((1, 2)) != mg.tree_structure([1, 2])
    assert mg.tree_structure({"a": 1}) != mg.tree_structure({"b": 1})
    assert mg.tree_structure(Box(1, "p")) != mg.tree_structure(Box(1, "q"))
    assert repr(mg.tree_structure((1, [2, None], {"k": 3}))) == "(*, [*, None], {'k': *})"
    assert repr(mg.tree_structure((1,))) == "(*,)"
    assert repr(mg.tree_structure(Point(1, 2))) == "Point(*, *)"
    assert isinstance(mg.tree_structure(1), PyTreeDef)
    assert hash(mg.tree_structure((1, 2))) == hash(mg.tree_structure((3, 4)))


def test_is_leaf():
    leaves, _ = mg.tree_flatten((1, (2, 3)), is_leaf=lambda x: x == (2, 3))
    assert leaves == [1, (2, 3)]


json_trees = st.recursive(
    st.integers(),
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.tuples(children, children),
        st.dictionaries(st.text("abc", min_size=1, max_size=2), children, max_size=3),
        st.builds(Point, children, children),
        st.none(),
    ),
    max_leaves=8,
)


@given(tree=json_trees)
def test_round_trip_property(tree):
    leaves, treedef = mg.tree_flatten(tree)
    assert mg.tree_unflatten(treedef, leaves) == tree
    assert mg.tree_map(lambda v: v * 2, tree) == mg.tree_unflatten(
        treedef, [v * 2 for v in leaves])


# --------------------------------------------------------------------------- tree_map


def test_tree_map_single_and_multiple_trees():
    assert mg.tree_map(lambda v: v + 1, {"a": 1, "b": (2, None)}) == {"a": 2, "b": (3, None)}
    out = mg.tree_map(lambda a, b: a * b, [1, Point(2, 3)], [10, Point(20, 30)])
    assert out == [10, Point(40, 90)]
    assert mg.tree_map(lambda v: v, None) is None


def test_tree_map_structure_mismatch_errors():
    with pytest.raises(ValueError, match="prefix"):
        mg.tree_map(lambda a, b: a + b, {"x": 1}, {"y": 1})
    with pytest.raises(ValueError, match="prefix"):
        mg.tree_map(lambda a, b: a + b, (1, 2), [1, 2])
    with pytest.raises(ValueError, match="tree 1 has"):
        mg.tree_map(lambda a, b: a + b, [1, [2, 3]], [1, 2])  # the first is no prefix


def test_tree_map_first_tree_is_a_prefix_and_is_leaf():
    # as JAX: a leaf of the first tree receives the whole subtree of the others at its place
    assert mg.tree_map(lambda a, b: (a, b), [1, 2], [[3, 4], {"k": 5}]) == [(1, [3, 4]),
                                                                          (2, {"k": 5})]
    assert mg.tree_map(lambda a: len(a), {"a": (1, 2), "b": [3]},
                       is_leaf=lambda x: isinstance(x, (tuple, list))) == {"a": 2, "b": 1}
    assert mg.tree_map(lambda a, b: a + len(b), (1, 2), ((7, 8), [9]),
                       is_leaf=None) == (3, 3)


def test_tree_map_over_registered_class():
    out = mg.tree_map(lambda v: v * 3, Box([1, 2], "t"))
    assert out == Box([3, 6], "t")


# --------------------------------------------------------------------------- errors


def test_unflatten_wrong_leaf_count():
    treedef = mg.tree_structure((1, [2, 3]))
    with pytest.raises(ValueError, match="needs 3 leaves; got 2"):
        mg.tree_unflatten(treedef, [1, 2])
    with pytest.raises(ValueError, match="needs 3 leaves; got 4"):
        mg.tree_unflatten(treedef, [1, 2, 3, 4])


def test_register_twice_errors():
    with pytest.raises(ValueError, match="Box is already registered"):
        mg.register_pytree_node(Box, lambda b: ((b.value,), b.tag), lambda t, c: Box(c[0], t))
    with pytest.raises(ValueError, match="already registered"):
        mg.register_pytree_node(tuple, lambda t: (t, None), lambda _, c: tuple(c))


# --------------------------------------------------------------------------- with transforms


def test_registered_class_through_transforms():
    b = Box(np.array([1.0, 2.0]), "w")
    g = mg.grad(lambda b: (b.value ** 2).sum())(b)
    assert type(g) is Box and g.tag == "w"
    np.testing.assert_allclose(g.value, [2.0, 4.0])
    out = mg.vmap(lambda b: Box(b.value * 2.0, b.tag))(b)
    assert type(out) is Box and out.tag == "w"
    np.testing.assert_allclose(out.value, [2.0, 4.0])


# --------------------------------------------------------------------------- helpers


def test_leaf_paths():
    treedef = mg.tree_structure(({"w": 1, "b": [2, 3]}, Point(4, 5)))
    assert leaf_paths(treedef, "args") == [
        "args[0]['b'][0]", "args[0]['b'][1]", "args[0]['w']", "args[1].x", "args[1].y"]


def test_broadcast_prefix():
    full = ({"a": 1, "b": (2, 3)}, 4)
    assert broadcast_prefix(0, full, "axes") == [0, 0, 0, 0]
    assert broadcast_prefix(({"a": None, "b": 1}, 2), full, "axes") == [None, 1, 1, 2]
    assert broadcast_prefix((None, 0), full, "axes") == [None, None, None, 0]
    with pytest.raises(ValueError, match=r"axes must be a tree prefix.*\[0\]\['b'\]"):
        broadcast_prefix(({"a": 0, "b": (0, 0, 0)}, 0), full, "axes")

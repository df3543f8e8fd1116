"""The gather/scatter primitives beyond their records (minigrad/testing/records_indexing.py,
which the checker runs through every rule): range checks for every integer index dtype and
size, the modes, last-write-wins at scale, and the gradients at repeated slots and ties
(JAX's values, recorded: no JAX needed)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad.ops.gather import gather, scatter_add
from minigrad.ops.scatter import scatter, scatter_max, scatter_min, scatter_mul

INDEX_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                np.uint64]


@pytest.mark.parametrize("dtype", INDEX_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("n", [1, 3, 127, 128, 200, 256, 300, 70000])
def test_range_checks_hold_for_every_index_dtype_and_size(dtype: type, n: int) -> None:
    info = np.iinfo(dtype)
    x = np.arange(n, dtype=np.float64)
    # every representable entry: in range gathers, out of range raises naming axis/index/size
    entries = {info.min, -n - 1, -n, -1, 0, n - 1, n, info.max}
    for entry in sorted(e for e in entries if info.min <= e <= info.max):
        index = np.array([entry], dtype)
        if -n <= entry < n:
            assert gather(x, [index], [0])[0] == x[entry]
            out = scatter_add(np.zeros(n), np.ones(1), [index], [0])
            assert out[entry] == 1.0 and out.sum() == 1.0
        else:
            message = f"index {entry} is out of bounds for axis 0 with size {n}"
            with pytest.raises(IndexError, match=message):
                gather(x, [index], [0])
            with pytest.raises(IndexError, match=message):
                scatter(x, np.ones(1), [index], [0])


def test_a_long_index_is_checked_too() -> None:
    x = np.zeros(50)
    index = np.arange(100, dtype=np.uint64) % 50
    index[77] = np.uint64(2**64 - 1)
    with pytest.raises(IndexError, match="index 18446744073709551615 is out of bounds"):
        gather(x, [index], [0])
    index = np.zeros(100, np.int8)
    index[5] = -51
    with pytest.raises(IndexError, match="index -51 is out of bounds for axis 0 with size 50"):
        scatter_add(x, np.ones(100), [index], [0])


def test_the_error_names_the_axis_of_x() -> None:
    with pytest.raises(IndexError, match="gather: index 4 is out of bounds for axis 2 with size 4"):
        gather(np.zeros((2, 3, 4)), [np.array([0, 4])], [2])
    # under vmap the batch axis is not counted
    with pytest.raises(IndexError, match="axis 1 with size 4"):
        mg.vmap(lambda x, i: gather(x, [i], [1]))(np.zeros((2, 3, 4)),
                                                  np.array([[0], [4]]))


def test_a_traced_index_is_checked_on_every_call_under_jit() -> None:
    f = mg.jit(lambda x, i: gather(x, [i], [0]))
    assert f(np.arange(3.0), np.array([2]))[0] == 2.0
    with pytest.raises(IndexError, match="index 3 is out of bounds"):
        f(np.arange(3.0), np.array([3]))
    with pytest.raises(IndexError, match="index -4 is out of bounds"):
        f(np.arange(3.0), np.array([-4]))


def test_modes() -> None:
    x = np.arange(5.0)
    i = np.array([-7, -5, -1, 0, 4, 5, 9])
    np.testing.assert_array_equal(gather(x, [i], [0], mode="clip"), [0, 0, 4, 0, 4, 4, 4])
    np.testing.assert_array_equal(gather(x, [i], [0], mode="wrap"), np.take(x, i, mode="wrap"))
    np.testing.assert_array_equal(gather(x, [i], [0], mode="fill", fill_value=-1),
                                  [-1, 0, 4, 0, 4, -1, -1])
    np.testing.assert_array_equal(gather(x, [i], [0], mode="fill", fill_value=-1,
                                         wrap_negative=False), [-1, -1, -1, 0, 4, -1, -1])
    np.testing.assert_array_equal(scatter_add(np.zeros(5), np.ones(7), [i], [0], mode="fill"),
                                  [2, 0, 0, 0, 2])
    np.testing.assert_array_equal(scatter_add(np.zeros(5), np.ones(7), [i], [0], mode="clip"),
                                  [3, 0, 0, 0, 4])
    with pytest.raises(IndexError, match="cannot clip"):
        gather(np.zeros(0), [np.array([0])], [0], mode="clip")


@pytest.mark.parametrize("n", [3, 40])
def test_set_sees_a_negative_entry_and_its_positive_twin_as_one_slot(n: int) -> None:
    index = np.arange(n)
    index[-1], index[0] = -1, n - 1  # slot n - 1 twice: first as n - 1, last as -1
    updates = np.arange(n, dtype=float) + 1
    out = scatter(np.zeros(n), updates, [index], [0])
    assert out[n - 1] == updates[-1]
    with pytest.raises(IndexError, match=f"index {n} is out of bounds"):
        scatter(np.zeros(n), np.ones(2), [np.array([n, 0])], [0])  # a losing entry too


def test_set_keeps_the_last_write_at_scale() -> None:
    rng = np.random.default_rng(0)
    index = rng.integers(0, 4, 10_000)
    updates = rng.standard_normal(10_000)
    expected = np.zeros(4)
    for i, u in zip(index, updates, strict=True):
        expected[i] = u
    np.testing.assert_array_equal(scatter(np.zeros(4), updates, [index], [0]), expected)
    np.testing.assert_array_equal(mg.jit(lambda u: scatter(np.zeros(4), u, [index], [0]))(
        updates), expected)


def test_set_gradient_goes_to_the_winner_only() -> None:
    # updates [10, 20, 30] at [0, 0, 1]: grads [0, c0, c1] (JAX's, and index_copy's)
    w = np.array([1.0, 2.0, 3.0])
    g = mg.grad(lambda u: (scatter(np.zeros(3), u, [np.array([0, 0, 1])], [0]) * w).sum())(
        np.array([10.0, 20.0, 30.0]))
    np.testing.assert_array_equal(g, [0.0, 1.0, 2.0])
    gx = mg.grad(lambda x: (scatter(x, np.ones(3), [np.array([0, 0, 1])], [0]) * w).sum())(
        np.zeros(3))
    np.testing.assert_array_equal(gx, [0.0, 0.0, 3.0])


@pytest.mark.parametrize("x, u, gx, gu", [
    # JAX 0.10.2's x.at[[0, 0, 1]].max(u) gradients (measured): ties split equally
    ([1.0, 0, 0], [1.0, 0.5, 3], [0.5, 0, 1], [0.5, 0, 1]),
    ([0.0, 0, 0], [2.0, 2, 3], [0, 0, 1], [0.5, 0.5, 1]),
    ([2.0, 0, 0], [2.0, 2, 3], [1 / 3, 0, 1], [1 / 3, 1 / 3, 1]),
])
def test_max_and_min_ties_share_the_gradient(x: list, u: list, gx: list, gu: list) -> None:
    i = [np.array([0, 0, 1])]
    for op, sign in ((scatter_max, 1.0), (scatter_min, -1.0)):
        def f(x: np.ndarray, u: np.ndarray, op: object = op) -> object:
            return op(x, u, i, [0]).sum()  # type: ignore[operator]

        got = mg.grad(f, argnums=(0, 1))(sign * np.array(x), sign * np.array(u))
        np.testing.assert_allclose(got[0], gx, atol=1e-15)
        np.testing.assert_allclose(got[1], gu, atol=1e-15)


@pytest.mark.parametrize("u", [[2.0, 3.0, 5.0], [2.0, 0.0, 5.0], [0.0, 0.0, 5.0],
                               [0.0, -1.5, 4.0]])
def test_mul_gradient_with_repeats_is_the_product_of_the_others(u: list) -> None:
    # JAX refuses this gradient unless the indices are unique; it is well defined: the
    # derivative in update j is x * (product of the other updates to its slot)
    u_ = np.array(u)
    i = [np.array([1, 1, 1])]
    x = np.array([7.0, 3.0])
    g = mg.grad(lambda v: scatter_mul(x, v, i, [0]).sum())(u_)
    expected = [3.0 * np.prod(np.delete(u_, j)) for j in range(3)]
    np.testing.assert_allclose(g, expected, rtol=1e-15)
    gx = mg.grad(lambda x: scatter_mul(x, u_, i, [0]).sum())(x)
    np.testing.assert_allclose(gx, [1.0, np.prod(u_)])
    # second derivatives, zeros or not: d2/du_j du_k = x * (the third update)
    h = mg.hessian(lambda v: scatter_mul(x, v, i, [0]).sum())(u_)
    expected_h = 3.0 * np.array([[0 if j == k else u_[3 - j - k] for k in range(3)]
                                 for j in range(3)])
    np.testing.assert_allclose(h, expected_h, rtol=1e-15)


def test_batching_has_no_loop_over_the_batch() -> None:
    def f(x: np.ndarray, u: np.ndarray, i: np.ndarray) -> np.ndarray:
        return scatter(x, u, [i], [0]) + gather(x, [i[:1]], [0]).sum()

    def count(b: int) -> int:
        args = (np.zeros((b, 5)), np.ones((b, 3)), np.zeros((b, 3), np.int64))
        return len(mg.make_jaxpr(mg.vmap(mg.grad(lambda *a: f(*a).sum(), argnums=(0, 1))))(
            *args).jaxpr.eqns)

    assert count(2) == count(2000)

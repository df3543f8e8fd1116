"""minigrad.random's phase 2 (categorical, permutation, choice, and the distributions beyond)
against jax.random's recorded values (``tests/data/random_golden2_*.npz``, made by
``make_random_golden2.py`` from JAX 0.10.2), under vmap and jit, with bad input, and against
jax.random itself when JAX is installed."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst
from random_cases import run
from random_cases2 import CASES

import minigrad as mg
import minigrad.random as mr

DATA = Path(__file__).parent / "data"
WORLDS = ("x64", "x32")
GOLDEN = {w: dict(np.load(DATA / f"random_golden2_{w}.npz")) for w in WORLDS}
KEY = mr.PRNGKey(1234)


@pytest.fixture
def world(request: Any) -> Iterator[str]:
    with mg.enable_x64(request.param == "x64"):
        yield request.param


def test_golden_files_are_jax_0_10_2() -> None:
    for w in WORLDS:
        assert str(GOLDEN[w]["jax_version"]) == "0.10.2"
        assert set(GOLDEN[w]) == {c[0] for c in CASES} | {"jax_version"}


@pytest.mark.parametrize("world", WORLDS, indirect=True)
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_golden(world: str, case: tuple) -> None:
    case_id, fn, kwargs = case
    expected = GOLDEN[world][case_id]
    actual = run(mr, fn, kwargs)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    np.testing.assert_array_equal(actual, expected)


# --------------------------------------------------------------------------- transforms

LOGITS = np.log(np.array([[0.1, 0.2, 0.7], [0.3, 0.3, 0.4]]))
PROBS = np.random.default_rng(0).dirichlet(np.ones(40))
GRID = np.arange(12.0).reshape(3, 4)

SAMPLERS: dict[str, Callable[[Any], Any]] = {
    "categorical": lambda k: mr.categorical(k, LOGITS, shape=(3, 2)),
    "categorical_axis0": lambda k: mr.categorical(k, LOGITS, axis=0),
    "categorical_no_replace": lambda k: mr.categorical(k, LOGITS, shape=(2, 2), replace=False),
    "permutation": lambda k: mr.permutation(k, 2000),  # two rounds
    "permutation_rows": lambda k: mr.permutation(k, GRID, 1),
    "permutation_independent": lambda k: mr.permutation(k, GRID, 1, independent=True),
    "choice": lambda k: mr.choice(k, GRID, (2, 5), axis=1),
    "choice_no_replace": lambda k: mr.choice(k, 10, (4,), replace=False),
    "choice_p": lambda k: mr.choice(k, 40, (50,), p=PROBS),
    "choice_p_no_replace": lambda k: mr.choice(k, 40, (7,), replace=False, p=PROBS),
}


@pytest.mark.parametrize("name", SAMPLERS)
def test_vmap_over_keys_and_jit(name: str) -> None:
    f = SAMPLERS[name]
    keys = mr.split(KEY, 4)
    looped = np.stack([f(k) for k in keys])
    np.testing.assert_array_equal(mg.vmap(f)(keys), looped)
    np.testing.assert_array_equal(mg.vmap(f, in_axes=1)(keys.T), looped)
    np.testing.assert_array_equal(mg.jit(f)(KEY), f(KEY))
    np.testing.assert_array_equal(mg.jit(mg.vmap(f))(keys), looped)


@pytest.mark.parametrize("fn, params", [
    (lambda lg: mr.categorical(KEY, lg), np.log(np.random.default_rng(1).dirichlet(
        np.ones(5), 4))),
    (lambda lg: mr.categorical(KEY, lg, shape=(3,), replace=False),
     np.log(np.random.default_rng(1).dirichlet(np.ones(5), 4))),
    (lambda p: mr.choice(KEY, 40, (20,), p=p), np.random.default_rng(2).dirichlet(
        np.ones(40), 3)),
    (lambda p: mr.choice(KEY, 40, (5,), False, p=p), np.random.default_rng(2).dirichlet(
        np.ones(40), 3)),
    (lambda x: mr.permutation(KEY, x), np.arange(24.0).reshape(2, 12)),
    (lambda x: mr.choice(KEY, x, (3,), replace=False), np.arange(24.0).reshape(2, 12)),
])
def test_vmap_over_parameters(fn: Callable[[Any], Any], params: np.ndarray) -> None:
    np.testing.assert_array_equal(mg.vmap(fn)(params), np.stack([fn(p) for p in params]))


def test_permutation_and_choice_carry_gradients_to_the_entries() -> None:
    # a permutation moves each entry's cotangent back to where the entry came from
    perm = mr.permutation(KEY, 12)
    g = mg.grad(lambda x: (mr.permutation(KEY, x) * np.arange(12.0)).sum())(np.arange(12.0))
    np.testing.assert_array_equal(g[np.asarray(perm)], np.arange(12.0))
    idx = mr.choice(KEY, 6, (10,))
    g = mg.grad(lambda x: mr.choice(KEY, x, (10,)).sum())(np.zeros(6))
    np.testing.assert_array_equal(g, np.bincount(np.asarray(idx), minlength=6))


def test_categorical_frequencies_follow_softmax() -> None:
    draws = np.asarray(mr.categorical(KEY, np.log([0.2, 0.5, 0.3]), shape=(30000,)))
    np.testing.assert_allclose(np.bincount(draws) / draws.size, [0.2, 0.5, 0.3], atol=0.01)
    picks = np.asarray(mr.choice(KEY, 3, (30000,), p=np.array([0.6, 0.1, 0.3])))
    np.testing.assert_allclose(np.bincount(picks) / picks.size, [0.6, 0.1, 0.3], atol=0.01)


@given(n=hst.integers(1, 60), seed=hst.integers(0, 2**32 - 1))
@settings(max_examples=25)
def test_permutations_and_draws_without_replacement_are_distinct(n: int, seed: int) -> None:
    key = mr.PRNGKey(seed)
    assert sorted(np.asarray(mr.permutation(key, n)).tolist()) == list(range(n))
    k = (seed % n) + 1
    picked = np.asarray(mr.choice(key, n, (k,), replace=False))
    assert len(set(picked.tolist())) == k and picked.min() >= 0 and picked.max() < n
    no_rep = np.asarray(mr.categorical(key, np.zeros(n), shape=(k,), replace=False))
    assert len(set(no_rep.tolist())) == k


def test_cumsum_in_xla_order() -> None:
    # blocks of 16: beyond 16 entries NumPy's running sum differs in the last bit now and then
    from minigrad.random.discrete import _xla_cumsum

    x = np.random.default_rng(3).random(1000).astype(np.float32)
    blocks = np.cumsum(np.pad(x, (0, 8)).reshape(63, 16), 1, dtype=np.float32)
    tot = _xla_cumsum(blocks[:, -1].copy())
    expected = blocks + np.concatenate([[0], np.asarray(tot)[:-1]]).astype(np.float32)[:, None]
    np.testing.assert_array_equal(_xla_cumsum(x), expected.reshape(-1)[:1000])
    assert not np.array_equal(np.cumsum(x), expected.reshape(-1)[:1000])


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize("call, error, message", [
    (lambda: mr.categorical(np.zeros(2), LOGITS), TypeError, r"categorical: key must be"),
    (lambda: mr.categorical(KEY, np.arange(3)), TypeError, r"categorical: logits must be a "
                                                           r"float array; got i64\[3\]"),
    (lambda: mr.categorical(KEY, np.float64(1.0)), ValueError, r"categorical: logits must have "
                                                               r"at least one axis"),
    (lambda: mr.categorical(KEY, LOGITS, axis=2), ValueError, r"categorical: axis 2 is out of "
                                                              r"bounds"),
    (lambda: mr.categorical(KEY, LOGITS, shape=(3,)), ValueError, r"categorical: shape \(3,\) "
                                                                  r"must be the broadcast"),
    (lambda: mr.categorical(KEY, LOGITS, shape=(4, 2), replace=False), ValueError,
     r"categorical: cannot draw 4 samples without replacement from 3 categories"),
    (lambda: mr.categorical(KEY, LOGITS, mode="mid"), ValueError, r"gumbel: mode must be"),
    (lambda: mr.permutation(KEY, 3.0), TypeError, r"permutation: x must be an integer or an "
                                                  r"array"),
    (lambda: mr.permutation(KEY, -2), ValueError, r"permutation: x must be a non-negative"),
    (lambda: mr.permutation(KEY, GRID, axis=2), ValueError, r"permutation: axis 2 is out of"),
    (lambda: mr.permutation(KEY, "abc"), TypeError, r"permutation: x must be an array"),
    (lambda: mg.jit(lambda n: mr.permutation(KEY, n))(np.int64(3)), TypeError,
     r"permutation: an integer x must be concrete"),
    (lambda: mr.choice(KEY, 5, 3), TypeError, r"choice: shape must be a sequence of ints; got 3"),
    (lambda: mr.choice(KEY, 5, (6,), replace=False), ValueError,
     r"choice: cannot take a larger sample \(6\) than the population \(5\) with replace=False"),
    (lambda: mr.choice(KEY, GRID, (5,), replace=False, axis=1), ValueError,
     r"population \(4\)"),
    (lambda: mr.choice(KEY, 5, (2,), p=np.ones(4) / 4), ValueError,
     r"choice: p must be None or a 1-d array with one probability per entry, shape \(5,\); "
     r"got shape \(4,\)"),
    (lambda: mr.choice(KEY, 0, (2,)), ValueError, r"choice: the population is empty"),
    (lambda: mr.choice(KEY, GRID, (2,), axis=-3), ValueError, r"choice: axis -3 is out of"),
    (lambda: mr.choice(mr.split(KEY, 2), 5, (2,)), ValueError, r"choice: accepts a single key"),
])
def test_bad_inputs(call: Any, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        call()


# --------------------------------------------------------------------------- against JAX

DRAWS = {
    "categorical": lambda r, k, dt: r.categorical(k, LOGITS.astype(dt), shape=(5, 2)),
    "categorical_no_replace": lambda r, k, dt: r.categorical(k, LOGITS.astype(dt), axis=0,
                                                             shape=(2, 3), replace=False),
    "permutation": lambda r, k, dt: r.permutation(k, 1700),
    "permutation_independent": lambda r, k, dt: r.permutation(k, GRID.astype(dt), 1, True),
    "choice": lambda r, k, dt: r.choice(k, GRID.astype(dt), (2, 3), axis=1),
    "choice_no_replace": lambda r, k, dt: r.choice(k, 30, (2, 4), replace=False),
    "choice_p": lambda r, k, dt: r.choice(k, 40, (9,), p=PROBS.astype(dt)),
    "choice_p_no_replace": lambda r, k, dt: r.choice(k, 40, (9,), False, p=PROBS.astype(dt)),
}


@pytest.mark.parametrize("x64", [True, False], ids=["x64", "x32"])
@pytest.mark.parametrize("name", DRAWS)
@given(seed=hst.integers(-2**63, 2**63 - 1), dtype=hst.sampled_from(["float32", "float64"]))
@settings(max_examples=10)
def test_matches_jax_random(x64: bool, name: str, seed: int, dtype: str) -> None:
    jax = pytest.importorskip("jax", reason="the differential test needs JAX")
    import jax.random as jr

    with jax.enable_x64(x64), mg.enable_x64(x64):
        expected = np.asarray(DRAWS[name](jr, jr.PRNGKey(seed), dtype))
        actual = DRAWS[name](mr, mr.PRNGKey(seed), dtype)
    assert actual.dtype == expected.dtype
    np.testing.assert_array_equal(actual, expected)

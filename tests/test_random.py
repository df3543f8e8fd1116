"""minigrad.random against jax.random's recorded values, and its keys and errors.

The golden values (``tests/data/random_golden_*.npz``, made by ``make_random_golden.py`` from
JAX 0.10.2) need no JAX here. Both dtype worlds are checked: 64-bit defaults on (minigrad's
default) and off (JAX's), switched with ``minigrad.enable_x64``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pytest
from random_cases import CASES, run

import minigrad as mg
import minigrad.random as mr

DATA = Path(__file__).parent / "data"
WORLDS = ("x64", "x32")


@pytest.fixture
def world(request: Any) -> Iterator[str]:
    with mg.enable_x64(request.param == "x64"):
        yield request.param


GOLDEN = {w: dict(np.load(DATA / f"random_golden_{w}.npz")) for w in WORLDS}


def test_golden_files_are_jax_0_10_2() -> None:
    for w in WORLDS:
        assert str(GOLDEN[w]["jax_version"]) == "0.10.2"
        assert set(GOLDEN[w]) == {c[0] for c in CASES} | {"jax_version"}


@pytest.mark.parametrize("world", WORLDS, indirect=True)
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_golden(world: str, case: tuple) -> None:
    # every sampler, bit for bit (the float transcendental steps are XLA's algorithms)
    case_id, fn, kwargs = case
    expected = GOLDEN[world][case_id]
    actual = run(mr, fn, kwargs)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    np.testing.assert_array_equal(actual, expected)


def test_golden_cases_cover_every_function() -> None:
    assert {c[1] for c in CASES} == {"PRNGKey", "key_data", "split", "fold_in", "bits",
                                     "uniform", "normal", "truncated_normal", "gumbel",
                                     "exponential", "randint", "bernoulli"}


# --------------------------------------------------------------------------- keys


def test_seeds_split_into_high_and_low_words() -> None:
    assert mr.PRNGKey(42).tolist() == [0, 42]
    assert mr.PRNGKey(-1).tolist() == [2**32 - 1, 2**32 - 1]
    assert mr.PRNGKey(2**32 + 5).tolist() == [1, 5]
    assert mr.PRNGKey(np.int8(-3)).tolist() == [0, 2**32 - 3]  # narrower: sign-extended low
    assert mr.PRNGKey(np.uint64(2**64 - 1)).tolist() == [2**32 - 1, 2**32 - 1]
    assert mr.PRNGKey(True).tolist() == [0, 1]


@pytest.mark.parametrize("world", ["x32"], indirect=True)
def test_seeds_wrap_to_32_bits_without_64_bit_defaults(world: str) -> None:
    assert mr.PRNGKey(2**32 + 5).tolist() == [0, 5]
    assert mr.PRNGKey(-1).tolist() == [0, 2**32 - 1]


def test_fold_in_is_the_data_th_split_key() -> None:
    k = mr.PRNGKey(11)
    for d in (0, 1, 5, 17):
        np.testing.assert_array_equal(mr.fold_in(k, d), mr.split(k, d + 1)[d])


def test_typed_keys_carry_the_raw_data() -> None:
    tk = mr.key(3)
    assert tk.shape == () and str(tk.dtype) == "key<fry>"
    np.testing.assert_array_equal(mr.key_data(tk), mr.PRNGKey(3))
    keys = mr.split(tk, (2, 3))
    assert isinstance(keys, mr.KeyArray) and keys.shape == (2, 3) and len(keys) == 2
    np.testing.assert_array_equal(mr.key_data(keys), mr.split(mr.PRNGKey(3), (2, 3)))
    np.testing.assert_array_equal(mr.key_data(keys[1, 2]), mr.split(mr.PRNGKey(3), (2, 3))[1, 2])
    assert [k.shape for k in keys] == [(3,), (3,)]
    assert (mr.wrap_key_data(mr.key_data(keys)) == keys).all()
    assert "key<fry>" in repr(tk)
    assert mr.clone(tk) is tk
    # the same numbers from a typed key as from its raw data
    np.testing.assert_array_equal(mr.normal(tk, (4,)), mr.normal(mr.PRNGKey(3), (4,)))


def test_typed_keys_pass_through_jit_and_vmap() -> None:
    keys = mr.split(mr.key(0), 3)
    out = mg.jit(lambda k: mr.split(k))(mr.key(0))
    assert isinstance(out, mr.KeyArray) and out.shape == (2,)
    draws = mg.vmap(lambda k: mr.uniform(k, (2,)))(keys)
    np.testing.assert_array_equal(draws, np.stack([mr.uniform(k, (2,)) for k in keys]))
    split_all = mg.vmap(mr.split)(keys)
    assert isinstance(split_all, mr.KeyArray) and split_all.shape == (3, 2)
    with pytest.raises(ValueError, match="non-negative in_axes"):
        mg.vmap(lambda k: mr.uniform(k), in_axes=-1)(keys)


def test_reusing_a_key_repeats_the_numbers() -> None:
    # legal, and the classic mistake: the same key gives the same draws
    k = mr.PRNGKey(0)
    np.testing.assert_array_equal(mr.normal(k, (3,)), mr.normal(k, (3,)))
    k1, k2 = mr.split(k)
    assert not np.array_equal(mr.normal(k1, (3,)), mr.normal(k2, (3,)))


# --------------------------------------------------------------------------- errors

KEY = mr.PRNGKey(0)


@pytest.mark.parametrize("call, error, message", [
    (lambda: mr.uniform(np.zeros(2)), TypeError, r"uniform: key must be a PRNG key .* got f64"),
    (lambda: mr.normal(np.zeros(3, np.uint32)), TypeError, r"normal: key must .*got u32\[3\]"),
    (lambda: mr.uniform([1, 2]), TypeError, r"uniform: key must be a PRNG key"),
    (lambda: mr.uniform("key"), TypeError, r"uniform: key must be a PRNG key .* got str"),
    (lambda: mr.uniform(mr.split(KEY, 3)), ValueError, r"uniform: accepts a single key, .* "
                                                       r"shape \(3, 2\); use minigrad.vmap"),
    (lambda: mr.split(mr.split(mr.key(0), 3)), ValueError, r"split: .* shape \(3,\)"),
    (lambda: mr.PRNGKey(1.5), TypeError, r"PRNGKey: seed must be an integer; got float"),
    (lambda: mr.PRNGKey(np.float32(1)), TypeError, r"PRNGKey: seed must be an integer; got f32"),
    (lambda: mr.PRNGKey(np.array([1, 2])), TypeError, r"PRNGKey: accepts a scalar seed"),
    (lambda: mr.PRNGKey(2**64), ValueError, r"PRNGKey: seed must fit in int64"),
    (lambda: mr.key(mr.key(0)), TypeError, r"key: accepts a scalar integer seed, but was given "
                                           r"a PRNG key"),
    (lambda: mr.split(KEY, -1), ValueError, r"split: shape must have non-negative sizes"),
    (lambda: mr.split(KEY, 2.5), TypeError, r"split: shape must be a sequence of ints"),
    (lambda: mr.uniform(KEY, (2, -1)), ValueError, r"uniform: shape must have non-negative"),
    (lambda: mr.fold_in(KEY, -1), ValueError, r"fold_in: data must be in \[0, 2\*\*32\)"),
    (lambda: mr.fold_in(KEY, 1.5), TypeError, r"fold_in: data must be an integer"),
    (lambda: mr.fold_in(KEY, np.arange(2)), TypeError, r"fold_in: accepts a scalar"),
    (lambda: mr.bits(KEY, (2,), np.int32), ValueError, r"bits: dtype must be an unsigned"),
    (lambda: mr.uniform(KEY, dtype=np.int32), ValueError, r"uniform: dtype must be float32 or "
                                                          r"float64; got int32"),
    (lambda: mr.uniform(KEY, (2, 3), minval=np.zeros(4)), ValueError,
     r"uniform: minval of shape \(4,\) must broadcast to the shape \(2, 3\)"),
    (lambda: mr.uniform(KEY, (), maxval=np.ones(3)), ValueError, r"uniform: maxval of shape"),
    (lambda: mr.uniform(KEY, minval="a"), TypeError, r"uniform: minval must be a number"),
    (lambda: mr.randint(KEY, (2,), 0, 5, np.float32), TypeError, r"randint: dtype must be an "
                                                                 r"integer dtype"),
    (lambda: mr.randint(KEY, (2,), 0, 2**64), ValueError, r"randint: maxval .* does not fit "
                                                          r"int64"),
    (lambda: mr.randint(KEY, (2,), np.zeros(3, int), 5), ValueError, r"randint: minval of "
                                                                     r"shape \(3,\)"),
    (lambda: mr.bernoulli(KEY, 1), TypeError, r"bernoulli: p must be a float"),
    (lambda: mr.bernoulli(KEY, np.array([1, 0])), TypeError, r"bernoulli: p must be a float"),
    (lambda: mr.bernoulli(KEY, 0.5, (2,), mode="mid"), ValueError, r"bernoulli: mode must be"),
    (lambda: mr.bernoulli(KEY, np.full(3, 0.5), (2,)), ValueError, r"bernoulli: p of shape"),
    (lambda: mr.gumbel(KEY, mode="x"), ValueError, r"gumbel: mode must be 'low', 'high' or"),
    (lambda: mr.truncated_normal(KEY, np.zeros(2), np.ones(3)), ValueError, r"shape mismatch"),
    (lambda: mr.wrap_key_data(np.zeros((2, 3), np.uint32)), TypeError, r"wrap_key_data: key "
                                                                       r"must be a PRNG key"),
    (lambda: mr.key_data(np.zeros(2, np.int32)), TypeError, r"key_data: key must be"),
])
def test_bad_inputs(call: Any, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        call()


@pytest.mark.parametrize("world", ["x32"], indirect=True)
def test_python_int_bounds_must_fit_the_32_bit_default(world: str) -> None:
    with pytest.raises(ValueError, match=r"randint: maxval 2147483648 does not fit int32"):
        mr.randint(KEY, (2,), 0, 2**31)


def test_jax_behaviours_kept_where_they_are_not_errors() -> None:
    # randint with an empty range gives minval; bernoulli with p outside [0, 1] saturates
    np.testing.assert_array_equal(mr.randint(KEY, (4,), 5, 3), [5, 5, 5, 5])
    assert mr.bernoulli(KEY, 1.5, (5,)).all() and not mr.bernoulli(KEY, -0.5, (5,)).any()
    # bounds beyond the dtype are clipped to it
    assert mr.randint(KEY, (50,), -300, 300, np.int8).min() >= -128


def test_differentiating_a_key_is_refused() -> None:
    with pytest.raises(TypeError, match=r"grad: args\[0\] must be a floating array .* uint32"):
        mg.grad(lambda k: mr.uniform(k))(KEY)
    with pytest.raises(TypeError, match="float0"):
        mg.jvp(lambda k: mr.uniform(k, (2,)), (KEY,), (np.ones(2),))

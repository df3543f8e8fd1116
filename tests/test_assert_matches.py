"""minigrad as the oracle for a user's function: ``per_example_grads`` against a loop of
``grad`` for every combination of batched arguments, and ``assert_matches`` against torch.func
(and JAX when installed): it passes on the same function, fails on a wrong one naming the check
and the combination, and names the documented divergence that explains a known bug."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import minigrad as mg
from minigrad import numpy as mnp
from minigrad.testing import all_in_axes, assert_matches, per_example_grads
from minigrad.testing.frameworks import FrameworkUnavailable

IDX = np.array([0, 2, 2])
MASK = np.array([True, False, True, False])


def loss(w: Any, x: Any) -> Any:
    h = mg.index_add(x * w, 0, IDX, x[:3] * 2.0)
    return mnp.sum(mnp.tanh(mg.masked_fill(h, MASK, 0.0)))


ARGS = (np.random.default_rng(0).standard_normal(4), np.random.default_rng(1).standard_normal(4))


@pytest.mark.parametrize("axes", all_in_axes(2))
def test_per_example_grads_is_a_loop_of_grad(axes: tuple) -> None:
    rng = np.random.default_rng(2)
    args = [a if ax is None else rng.standard_normal((3, 4)) for a, ax in zip(ARGS, axes,
                                                                            strict=True)]
    got = per_example_grads(loss, args, axes, argnums=(0, 1))
    for b in range(3):
        example = [a if ax is None else a[b] for a, ax in zip(args, axes, strict=True)]
        want = mg.grad(loss, argnums=(0, 1))(*example)
        for g, w in zip(got, want, strict=True):
            assert isinstance(g, np.ndarray)
            np.testing.assert_allclose(g[b], w, rtol=1e-12, atol=1e-12)
    one = per_example_grads(loss, args, axes)  # argnums=0: one array
    np.testing.assert_array_equal(one, got[0])


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"f": 3}, TypeError, "f must be callable"),
    ({"args": np.ones(3)}, TypeError, "args must be a tuple"),
    ({"in_axes": (0,)}, ValueError, "one entry per argument"),
    ({"in_axes": (None, None)}, ValueError, "at least one argument"),
    ({"in_axes": (0, 2)}, ValueError, "does not fit an argument of shape"),
    ({"argnums": 2}, ValueError, "must be distinct positions"),
    ({"argnums": (0, 0)}, ValueError, "must be distinct positions"),
    ({"argnums": True}, TypeError, "argnums must be an int"),
])
def test_per_example_grads_checks_its_arguments(kwargs: dict, error: type, match: str) -> None:
    call = {"f": loss, "args": (ARGS[0], np.ones((3, 4))), "in_axes": (None, 0), **kwargs}
    with pytest.raises(error, match=match):
        per_example_grads(**call)


# --------------------------------------------------------------------------- torch

@pytest.fixture
def torch() -> Any:
    return pytest.importorskip("torch", reason="assert_matches against torch needs torch")


def torch_loss(torch: Any) -> Any:
    idx, mask = torch.from_numpy(IDX), torch.from_numpy(MASK)

    def theirs(w: Any, x: Any) -> Any:
        h = torch.index_add(x * w, 0, idx, x[:3] * 2.0)
        return torch.tanh(torch.masked_fill(h, mask, 0.0)).sum()

    return theirs


def test_the_same_function_matches(torch: Any) -> None:
    assert_matches(torch_loss(torch), loss, ARGS)
    f32 = tuple(a.astype(np.float32) for a in ARGS)
    assert_matches(torch_loss(torch), loss, f32)  # float32: a looser tolerance


def test_a_wrong_value_fails_naming_the_check(torch: Any) -> None:
    theirs = torch_loss(torch)
    with pytest.raises(AssertionError, match=r"assert_matches \(torch .*\): forward: "):
        assert_matches(lambda w, x: theirs(w, x) * 1.001, loss, ARGS)


def test_a_wrong_gradient_fails_in_vjp(torch: Any) -> None:
    theirs = torch_loss(torch)
    with pytest.raises(AssertionError, match="vjp: Mismatch: output 0") as info:
        assert_matches(lambda w, x: theirs(w.detach(), x), loss, ARGS)  # no gradient in w
    assert "documented divergence" not in str(info.value)


def test_a_wrong_per_example_gradient_fails_naming_the_combination(torch: Any) -> None:
    theirs = torch_loss(torch)
    with pytest.raises(AssertionError, match="vjp"):
        assert_matches(lambda w, x: theirs(w.detach(), x), loss, ARGS, checks=("vjp",))
    with pytest.raises(AssertionError, match=r"vmap\(grad\) in_axes=\(None, 0\): Mismatch"):
        assert_matches(lambda w, x: theirs(w.detach(), x), loss, ARGS, checks=("vmap(grad)",))


def test_a_documented_divergence_is_named_and_still_fails(torch: Any) -> None:
    def ours(x: Any, src: Any) -> Any:
        return mnp.sum(mnp.sin(mg.index_copy(x, 0, np.array([1, 1]), src)))

    def theirs(x: Any, src: Any) -> Any:
        return torch.sin(torch.index_copy(x, 0, torch.tensor([1, 1]), src)).sum()

    with pytest.raises(AssertionError, match=r"vjp: .*\n.*\[torch-index_copy-duplicates\]"):
        assert_matches(theirs, ours, (np.ones(3), np.array([0.5, 1.5])))


def test_the_0d_source_and_batched_value_bugs_are_named(torch: Any) -> None:
    def ours(x: Any, src: Any) -> Any:
        return mnp.sum(mnp.sin(mg.index_copy(x, 0, np.array([2]), src)))

    def theirs(x: Any, src: Any) -> Any:
        return torch.sin(torch.index_copy(x, 0, torch.tensor([2]), src)).sum()

    with pytest.raises(AssertionError, match=r"vmap\(grad\) in_axes=\(None, 0\).*\n.*"
                                             r"\[torch-index_copy-0d-source\]"):
        assert_matches(theirs, ours, (np.ones(5), np.asarray(0.3)))

    def ours_fill(x: Any, v: Any) -> Any:
        return mnp.sum(mnp.sin(mg.index_fill(x, 0, np.array([0, 2]), v)))

    def theirs_fill(x: Any, v: Any) -> Any:
        return torch.sin(torch.index_fill(x, 0, torch.tensor([0, 2]), v)).sum()

    with pytest.raises(AssertionError, match=r"vmap in_axes=\(None, 0\).*\n.*"
                                             r"\[torch-index_fill-batched-value\]"):
        assert_matches(theirs_fill, ours_fill, (np.ones(4), np.asarray(0.5)))


def test_assert_matches_checks_its_arguments() -> None:
    with pytest.raises(TypeError, match="must be callables"):
        assert_matches(None, loss, ARGS)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown check 'grad'"):
        assert_matches(loss, loss, ARGS, checks=("grad",))
    with pytest.raises(ValueError, match="batch_size must be an int >= 2"):
        assert_matches(loss, loss, ARGS, batch_size=1)
    with pytest.raises(FrameworkUnavailable, match="framework must be one of torch, jax"):
        assert_matches(loss, loss, ARGS, framework="tensorflow")
    assert issubclass(FrameworkUnavailable, ImportError)


def test_against_jax() -> None:
    jax = pytest.importorskip("jax", reason="assert_matches against jax needs jax")
    jnp = jax.numpy

    def theirs(w: Any, x: Any) -> Any:
        h = (x * w).at[IDX].add(x[:3] * 2.0)
        return jnp.tanh(jnp.where(MASK, 0.0, h)).sum()

    assert_matches(theirs, loss, ARGS, framework="jax")
    with pytest.raises(AssertionError, match=r"assert_matches \(jax .*\): forward"):
        assert_matches(lambda w, x: theirs(w, x) + 1e-3, loss, ARGS, framework="jax")


def test_python_scalars_are_passed_through_and_never_differentiated(torch: Any) -> None:
    def ours(x: Any, scale: float) -> Any:
        return mnp.sum(mg.masked_fill(x, MASK, 0.0) * scale)

    def theirs(x: Any, scale: float) -> Any:
        return (torch.masked_fill(x, torch.from_numpy(MASK), 0.0) * scale).sum()

    assert_matches(theirs, ours, (ARGS[0], 2.0))
    with pytest.raises(TypeError, match="must name floating array arguments"):
        assert_matches(theirs, ours, (ARGS[0], 2.0), argnums=1)

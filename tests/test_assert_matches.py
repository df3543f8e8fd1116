"""minigrad.testing.per_example_grads and assert_matches: a user's function checked against
PyTorch's torch.func (and JAX when installed). Correct pairs pass; deliberately wrong ones fail
at the first differing array, naming the check, the combination and the documented divergence
that applies; bad arguments are refused before any work."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad as mg
from minigrad import numpy as mnp
from minigrad.testing import all_in_axes, assert_matches, oracle, per_example_grads

W = np.array([0.5, -1.0, 2.0])
X = np.array([1.0, 2.0, -0.5])
IDX = np.array([0, 3, 3])


def loss_mg(w, x, idx):
    h = mg.index_add(np.zeros(4), 0, idx, w * x)
    return mnp.sum(mnp.sin(mg.masked_fill(h, h < 0, 0.0)))


def torch_mod():
    return pytest.importorskip("torch", reason="the checks against PyTorch need torch")


def loss_torch(w, x, idx):
    torch = torch_mod()
    h = torch.zeros(4, dtype=w.dtype).index_add(0, idx, w * x)
    return torch.sin(h.masked_fill(h < 0, 0.0)).sum()


# --------------------------------------------------------------------------- per_example_grads


def test_per_example_grads_is_a_loop_of_grad_for_every_combination() -> None:
    rng = np.random.default_rng(0)
    examples = [(rng.standard_normal(3), rng.standard_normal(3), rng.integers(0, 4, 3))
                for _ in range(5)]
    stacked = [np.stack([e[i] for e in examples]) for i in range(3)]
    for axes in all_in_axes(3):
        args = [stacked[i] if ax is not None else examples[0][i] for i, ax in enumerate(axes)]
        got = per_example_grads(loss_mg, args, axes, argnums=(0, 1))
        assert isinstance(got, tuple) and len(got) == 2
        for b in range(5):
            one = [examples[b][i] if ax is not None else examples[0][i]
                   for i, ax in enumerate(axes)]
            want = mg.grad(loss_mg, argnums=(0, 1))(*one)
            for g, w in zip(got, want, strict=True):
                assert isinstance(g, np.ndarray)
                np.testing.assert_allclose(g[b], w, rtol=1e-12, atol=1e-12)


def test_per_example_grads_one_argnum_gives_one_array_and_takes_any_axis() -> None:
    xs = np.arange(6.0).reshape(3, 2)  # examples along axis 1
    got = per_example_grads(lambda w, x: mnp.sum((w * x) ** 2), (W, xs), (None, 1))
    assert isinstance(got, np.ndarray) and got.shape == (2, 3)
    np.testing.assert_allclose(got, 2 * W * xs.T ** 2)  # d/dw sum((w x)^2), per example


@pytest.mark.parametrize("call, error, message", [
    (lambda: per_example_grads(3, (W, X), 0), TypeError, "f must be callable; got int"),
    (lambda: per_example_grads(loss_mg, W, 0), TypeError, "args must be a tuple or list"),
    (lambda: per_example_grads(loss_mg, (W, [1.0], IDX), 0), TypeError,
     "args[1] must be a NumPy array or a Python number; got list"),
    (lambda: per_example_grads(loss_mg, (W, X, IDX), (0, 0)), ValueError,
     "in_axes must have one entry per argument (3)"),
    (lambda: per_example_grads(loss_mg, (W, X, IDX), (None, 1, None)), ValueError,
     "in_axes[1] = 1 must be None or an axis of args[1] (shape (3,))"),
    (lambda: per_example_grads(loss_mg, (W, X, IDX), None), ValueError,
     "in_axes must batch at least one argument"),
    (lambda: per_example_grads(loss_mg, (W, np.ones((2, 3)), np.ones((4, 3), int)), (None, 0, 0)),
     ValueError, "the batched arguments must agree on the batch size; got 2 for args[1], 4 for "
     "args[2]"),
    (lambda: per_example_grads(loss_mg, (W, X, IDX), 0, argnums=3), ValueError,
     "argnums must be in [0, 3) for 3 arguments; got 3"),
    (lambda: per_example_grads(loss_mg, (W, X, IDX), 0, argnums=2), TypeError,
     "args[2] (in argnums) must be a floating NumPy array to be differentiated; got int64"),
    (lambda: per_example_grads(loss_mg, (W, X, IDX), 0, argnums=(0, 0)), ValueError,
     "argnums must not repeat an argument"),
    (lambda: per_example_grads(loss_mg, (W, X, IDX), 0, argnums=True), TypeError,
     "argnums must be an int or a tuple of ints"),
    (lambda: per_example_grads(loss_mg, (W, X, IDX), (0, 0.5, None)), TypeError,
     "in_axes entries must be ints or None; got 0.5 for args[1]"),
])
def test_per_example_grads_names_the_bad_argument(call, error, message) -> None:
    with pytest.raises(error, match=re.escape("per_example_grads: " + message)
                       if not message.startswith("f must") else re.escape(message)):
        call()


# --------------------------------------------------------------------------- against torch


def test_correct_torch_pairs_pass() -> None:
    torch = torch_mod()
    assert_matches(loss_torch, loss_mg, (W, X, IDX), argnums=(0, 1))
    # float32 and a non-scalar output with two results: vmap(grad) does not apply, the rest do
    cols = np.array([2, 0, 2])
    assert_matches(lambda x, m: (torch.masked_fill(x, m, 2.0),
                                 x.index_fill(1, torch.from_numpy(cols), 0.5)),
                   lambda x, m: (mg.masked_fill(x, m, 2.0), mg.index_fill(x, 1, cols, 0.5)),
                   (X.astype(np.float32) * np.ones((4, 3), np.float32), X > 0))


def test_a_wrong_constant_fails_at_values_with_no_divergence() -> None:
    torch = torch_mod()
    with pytest.raises(AssertionError) as e:
        assert_matches(lambda w, x, i: loss_torch(w, x, i) * 1.001 + 0 * torch.sum(w),
                       loss_mg, (W, X, IDX), argnums=(0, 1))
    msg = str(e.value)
    assert msg.startswith(f"assert_matches: torch {torch.__version__} differs from minigrad at "
                          "values: the output: 1 of 1 elements differ")
    assert "no documented divergence explains it" in msg


def _torch_functions():
    torch = torch_mod()

    class WrongGradSin(torch.autograd.Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(x):
            return torch.sin(x)

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])
            ctx.save_for_forward(inputs[0])

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * torch.cos(x) * 1.5  # wrong: 1.5 too much

        @staticmethod
        def jvp(ctx, t):
            return t * torch.cos(ctx.saved_tensors[0])

    class WrongJvpSin(WrongGradSin):
        @staticmethod
        def backward(ctx, g):
            return g * torch.cos(ctx.saved_tensors[0])

        @staticmethod
        def jvp(ctx, t):
            return -t * torch.cos(ctx.saved_tensors[0])  # wrong sign

    class WrongVmapMul(torch.autograd.Function):
        @staticmethod
        def forward(w, x):
            return w * x

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def vmap(info, in_dims, w, x):
            wd, xd = in_dims
            w = w if wd is None else w.movedim(wd, 0)
            x = x if xd is None else x.movedim(xd, 0)
            scale = 2.0 if xd is None else 1.0  # wrong when only w is batched
            return w * x * scale, 0

    return WrongGradSin, WrongJvpSin, WrongVmapMul


def test_a_wrong_gradient_fails_at_vjp_and_at_vmap_grad() -> None:
    WrongGradSin, _, _ = _torch_functions()
    with pytest.raises(AssertionError, match=r"at vjp: the cotangent of args\[0\]: 3 of 3 "):
        assert_matches(lambda x: WrongGradSin.apply(x).sum(), lambda x: mnp.sin(x).sum(), (X,))
    with pytest.raises(AssertionError, match=re.escape(
            "at vmap(grad) in_axes=(None, 0): the gradient in args[0]: 12 of 12")):
        assert_matches(lambda x, y: (WrongGradSin.apply(x) * y).sum(),
                       lambda x, y: (mnp.sin(x) * y).sum(), (X, W), checks=("vmap(grad)",))


def test_a_wrong_jvp_fails_at_jvp() -> None:
    _, WrongJvpSin, _ = _torch_functions()
    with pytest.raises(AssertionError, match=r"at jvp: the output: 3 of 3 elements differ"):
        assert_matches(lambda x: WrongJvpSin.apply(x), mnp.sin, (X,))


def test_a_wrong_batching_rule_fails_at_its_combination_only() -> None:
    _, _, WrongVmapMul = _torch_functions()
    with pytest.raises(AssertionError) as e:
        assert_matches(WrongVmapMul.apply, lambda w, x: w * x, (W, X), checks=("vmap",))
    # (None, 0) comes first and passes; (0, None) is the one the rule gets wrong
    assert "differs from minigrad at vmap in_axes=(0, None): the output: 12 of 12" in str(e.value)
    assert_matches(WrongVmapMul.apply, lambda w, x: w * x, (W, X), checks=("vmap",),
                   in_axes=[(None, 0), (0, 0), (-1, 0)])  # the combinations it gets right


def test_the_documented_divergence_is_named() -> None:
    torch = torch_mod()
    dup = np.array([1, 1, 3])

    def copy_torch(x, s, i):
        return torch.sin(x.index_copy(0, i, s)).sum()

    def copy_mg(x, s, i):
        return mnp.sin(mg.index_copy(x, 0, i, s)).sum()

    with pytest.raises(AssertionError) as e:  # duplicates: only the last write gets gradient
        assert_matches(copy_torch, copy_mg, (np.zeros(5), X, dup), argnums=(0, 1))
    msg = str(e.value)
    assert "at vjp: the cotangent of args[1]: 1 of 3 elements differ" in msg
    assert "documented divergence [torch-index_copy-duplicates] (index_copy, when index has a " \
           "repeated entry): PyTorch's index_copy VJP" in msg
    # under jit the op sits in a call's program: the lookup looks inside
    with pytest.raises(AssertionError, match=r"\[torch-index_copy-duplicates\]"):
        assert_matches(copy_torch, mg.jit(copy_mg), (np.zeros(5), X, dup), argnums=(0, 1))
    # the same function with distinct entries agrees everywhere
    assert_matches(copy_torch, copy_mg, (np.zeros(5), X, np.array([0, 1, 3])), argnums=(0, 1))
    with pytest.raises(AssertionError) as e:  # a 0-d source, torch.func.vmap over the rest
        assert_matches(copy_torch, copy_mg, (np.zeros(5), np.array(2.0), np.array([1])),
                       argnums=(0, 1))
    # the first combination: only the index batched (the same index in every example)
    assert "at vmap(grad) in_axes=(None, None, 0): the gradient in args[1]" in str(e.value)
    assert "[torch-index_copy-0d-source]" in str(e.value)


def test_a_batched_fill_value_names_its_divergence() -> None:
    torch = torch_mod()
    idx = torch.from_numpy(IDX)
    with pytest.raises(AssertionError) as e:
        assert_matches(lambda x, v: x.index_fill(0, idx, v), lambda x, v: mg.index_fill(
            x, 0, IDX, v), (np.zeros(5), np.array(2.0)), checks=("vmap",))
    assert "at vmap in_axes=(None, 0)" in str(e.value)
    assert ("[torch-index_fill-batched-value] (index_fill, when value batched, x not batched, "
            "index not empty)") \
        in str(e.value)


def test_a_failed_lookup_still_fails_with_the_mismatch(monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
    torch = torch_mod()

    def broken(*args):
        raise RuntimeError("no jaxpr")

    monkeypatch.setattr(oracle, "explain", broken)
    with pytest.raises(AssertionError) as e:
        assert_matches(lambda x: torch.cos(x), mnp.sin, (X,))
    assert "at values: the output: 3 of 3" in str(e.value)
    assert "(no divergence looked up: RuntimeError: no jaxpr)" in str(e.value)


def test_an_error_of_the_other_framework_fails_with_its_divergence() -> None:
    torch = torch_mod()
    # per-example indices with different numbers of distinct entries: torch.func's _unique
    # loop cannot stack them; the batch is given, since only the user knows valid indices
    batch = {1: np.array([[0, 0, 0], [0, 1, 1], [0, 1, 2]])}
    with pytest.raises(AssertionError) as e:
        assert_matches(lambda x, i, v: torch.sin(x.index_fill(0, i, v)).sum(),
                       lambda x, i, v: mnp.sin(mg.index_fill(x, 0, i, v)).sum(),
                       (np.ones(4), np.array([0, 0, 0]), np.array(2.0)), argnums=(0, 2),
                       batch=batch, checks=("vmap(grad)",), in_axes=(None, 0, None))
    msg = str(e.value)
    assert "at vmap(grad) in_axes=(None, 0, None): torch raised RuntimeError" in msg
    assert "[torch-index_fill-unique]" in msg


def test_tolerances_follow_the_dtype_and_can_be_overridden() -> None:
    torch = torch_mod()

    def near(x):
        return torch.sin(x) * (1 + 1e-6)

    assert_matches(near, mnp.sin, (X.astype(np.float32),))  # within float32's 1e-4
    with pytest.raises(AssertionError, match=r"at values: .*atol 1e-10, rtol 1e-10"):
        assert_matches(near, mnp.sin, (X,))
    assert_matches(near, mnp.sin, (X,), rtol=1e-5)
    with pytest.raises(AssertionError, match=r"gives float32\[3\], minigrad float64\[3\]"):
        assert_matches(lambda x: torch.sin(x).float(), mnp.sin, (X,))


def test_the_batch_size_equals_no_dimension() -> None:
    stacks = oracle._draw_batches([np.ones(3), np.ones((4, 5)), 2.0], None, None, 0)
    assert set(stacks) == {0, 1} and stacks[0].shape == (6, 3) and stacks[1].shape == (6, 4, 5)
    assert not np.array_equal(stacks[0][1], stacks[0][0])  # floating examples differ
    ints = oracle._draw_batches([np.arange(3)], None, 2, 0)[0]
    np.testing.assert_array_equal(ints, [[0, 1, 2], [0, 1, 2]])


def _never(*args):
    raise AssertionError("called before the arguments were checked")


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(framework="tf"), ValueError, "framework must be one of torch, jax; got 'tf'"),
    (dict(checks=("values", "grad")), ValueError, "checks must be a sequence of values, vjp"),
    (dict(checks="values"), ValueError, "checks must be a sequence"),
    (dict(rtol=-1.0), ValueError, "rtol must be a number >= 0 or None; got -1.0"),
    (dict(argnums=2), TypeError, "args[2] (in argnums) must be a floating NumPy array"),
    (dict(batch={1: np.ones((3, 4))}), ValueError,
     "batch[1] must stack examples of args[1] (float64[3]) along axis 0; got float64[3, 4]"),
    (dict(batch={5: np.ones(3)}), ValueError, "batch keys must be argument positions in [0, 3)"),
    (dict(batch={0: np.ones((2, 3))}, batch_size=4), ValueError,
     "batch and batch_size must agree on the batch size; got [2, 4]"),
    (dict(in_axes=(0, 2, None)), ValueError,
     "in_axes (0, 2, None): axis 2 is out of range for batched args[1] (rank 2)"),
    (dict(in_axes=(None, None, None)), ValueError, "in_axes must batch at least one argument"),
    (dict(in_axes=0), TypeError, "in_axes must be None (every combination), a tuple (one) or "
     "a list of tuples; got 0"),
])
def test_assert_matches_names_the_bad_argument(kwargs, error, message) -> None:
    with pytest.raises(error, match=re.escape("assert_matches: " + message)):
        assert_matches(_never, _never, (W, X, IDX), **kwargs)


def test_assert_matches_refuses_checks_that_do_not_apply() -> None:
    with pytest.raises(ValueError, match=re.escape(
            "check 'vmap(grad)' needs minigrad_fn to return a real floating scalar")):
        assert_matches(_never, mnp.sin, (X,), checks=("vmap(grad)",))
    with pytest.raises(ValueError, match=re.escape("in_axes (0, 0): entry 1 must be None")):
        assert_matches(_never, lambda x, a: x * a, (X, 2.0), in_axes=(0, 0))


def test_a_missing_framework_is_an_import_error(monkeypatch: pytest.MonkeyPatch) -> None:
    class Absent:
        def __init__(self) -> None:
            raise ImportError("No module named 'jax'")

    monkeypatch.setattr(oracle, "Jax", Absent)
    with pytest.raises(ImportError, match=r"framework 'jax' is not installed .*pip install jax"):
        assert_matches(_never, mnp.sin, (X,), framework="jax")


# --------------------------------------------------------------------------- against jax


def test_jax_pairs() -> None:
    jax = pytest.importorskip("jax", reason="the checks against JAX need jax installed "
                              "(pip install jax jaxlib); CI has no jax")
    jnp = jax.numpy
    x64 = jax.config.jax_enable_x64

    def loss_jax(w, x, idx):
        h = jnp.zeros(4).at[idx].add(w * x)
        return jnp.sin(jnp.where(h < 0, 0.0, h)).sum()

    assert_matches(loss_jax, loss_mg, (W, X, IDX), framework="jax", argnums=(0, 1))
    assert jax.config.jax_enable_x64 == x64  # the caller's setting is left as it was
    with pytest.raises(AssertionError, match=r"jax .* differs from minigrad at vjp: the "
                       r"cotangent of args\[0\]"):
        assert_matches(lambda x: jnp.sin(jax.lax.stop_gradient(x)), mnp.sin, (X,),
                       framework="jax")


def test_the_docs_pytest_file_runs_under_pytest(tmp_path) -> None:
    """docs/oracle.md's first block is a pytest file of under 15 lines: run it as one."""
    torch_mod()
    root = Path(__file__).resolve().parent.parent
    page = (root / "docs" / "oracle.md").read_text()
    body = page.split("```python torch\n", 1)[1].split("\n```", 1)[0]
    assert "index_add" in body and "masked_fill" in body and "assert_matches" in body
    assert len(body.splitlines()) < 15
    (tmp_path / "test_user_loss.py").write_text(body + "\n")
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          str(tmp_path / "test_user_loss.py")], capture_output=True, text=True,
                         cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(root)})
    assert run.returncode == 0 and "1 passed" in run.stdout, run.stdout + run.stderr

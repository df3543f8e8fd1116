"""The ``dot`` primitive's impl (ops/elementwise.py: ``np.matmul`` where the contraction is
one, else ``np.einsum``) against ``np.einsum`` over random valid subscripts: every letter
in two of the three terms, in any order, with batch, contracted and free letters, size 0 and
1 axes, and integer and bool operands."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import minigrad as mg
import minigrad.numpy as mnp
from minigrad.ops.elementwise import dot_p


@st.composite
def contraction(draw: st.DrawFn) -> tuple[str, np.ndarray, np.ndarray]:
    """Subscripts whose letters are each batch (x, y, out), contracted (x, y), x-free (x,
    out) or y-free (y, out), shuffled within each term, with operands of drawn sizes."""
    kinds = draw(st.lists(st.sampled_from(["batch", "contract", "xfree", "yfree"]),
                          max_size=6))
    letters = "abcdef"[:len(kinds)]
    x = [c for c, k in zip(letters, kinds, strict=True) if k in ("batch", "contract", "xfree")]
    y = [c for c, k in zip(letters, kinds, strict=True) if k in ("batch", "contract", "yfree")]
    out = [c for c, k in zip(letters, kinds, strict=True) if k != "contract"]
    x, y, out = (draw(st.permutations(t)) for t in (x, y, out))
    sizes = {c: draw(st.sampled_from([0, 1, 2, 3])) for c in letters}
    dtype = draw(st.sampled_from([np.float64, np.float32, np.int64, np.bool_]))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))

    def operand(term: list[str]) -> np.ndarray:
        return (rng.standard_normal([sizes[c] for c in term]) * 3).astype(dtype)

    return f"{''.join(x)},{''.join(y)}->{''.join(out)}", operand(x), operand(y)


@given(contraction())
def test_plan_matches_einsum(case: tuple[str, np.ndarray, np.ndarray]) -> None:
    subscripts, x, y = case
    got = dot_p.impl(x, y, subscripts=subscripts)
    want = np.einsum(subscripts, x, y)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_impl_is_the_plan() -> None:
    x = np.arange(24.0).reshape(2, 3, 4)
    y = np.arange(20.0).reshape(4, 5)
    out = dot_p.impl(x, y, subscripts="bij,jk->kbi")
    np.testing.assert_array_equal(out, np.einsum("bij,jk->kbi", x, y))


@st.composite
def einsum_case(draw: st.DrawFn) -> tuple[str, list[np.ndarray]]:
    """One to four operands over letters a-e (repeats within an operand allowed), some axes
    of size 1 against a larger size elsewhere, and an explicit or implicit output."""
    sizes = {c: draw(st.integers(1, 3)) for c in "abcde"}
    n_ops = draw(st.integers(1, 4))
    terms = [draw(st.lists(st.sampled_from("abcde"), max_size=4)) for _ in range(n_ops)]
    used = sorted({c for t in terms for c in t})
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    ops = []
    for t in terms:
        shape = [1 if draw(st.booleans()) and draw(st.booleans()) and t.count(c) == 1
                 else sizes[c] for c in t]
        ops.append(rng.standard_normal(shape))
    text = ",".join("".join(t) for t in terms)
    if draw(st.booleans()):
        chosen = sorted(draw(st.sets(st.sampled_from(used)))) if used else []
        text += "->" + "".join(draw(st.permutations(chosen)))
    return text, ops


@given(einsum_case(), st.sampled_from(["auto", False, "greedy", "optimal"]))
def test_einsum_matches_numpy(case: tuple[str, list[np.ndarray]], optimize: object) -> None:
    text, ops = case
    want = np.einsum(text, *ops)
    got = mnp.einsum(text, *ops, optimize=optimize)
    assert type(got) is mg.Array and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


def test_einsum_forms() -> None:
    rng = np.random.default_rng(0)
    x, y, z = rng.standard_normal((2, 3)), rng.standard_normal((3, 4)), rng.standard_normal(4)
    want = np.einsum("ij,jk,k->i", x, y, z)
    np.testing.assert_allclose(mnp.einsum(x, [0, 1], y, [1, 2], z, [2], [0]), want)
    path, report = mnp.einsum_path("ij,jk,k->i", x, y, z, optimize="optimal")
    assert path[0] == "einsum_path" and isinstance(report, str)
    np.testing.assert_allclose(mnp.einsum("ij,jk,k->i", x, y, z, optimize=path), want)
    np.testing.assert_allclose(mnp.einsum("...j,j...->...", x[0], y), np.einsum(
        "...j,j...->...", x[0], y))
    b = np.array([[True, False], [True, True]])
    assert mnp.einsum("ij,jk->ik", b, b).dtype == np.bool_
    np.testing.assert_array_equal(mnp.einsum("ij,jk->ik", b, b), np.einsum("ij,jk->ik", b, b))
    x32 = x.astype(np.float32)
    assert mnp.einsum("ij,jk", x32, y, preferred_element_type=np.float32).dtype == np.float32
    assert mnp.einsum("ij,jk", x32, x32.T, precision="highest").dtype == np.float32

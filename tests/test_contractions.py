"""The ``dot`` primitive's impl plan (ops/elementwise.py ``dot_plan``: one batched
``np.matmul``) against ``np.einsum`` over random valid subscripts: every letter in two of the
three terms, in any order, with batch, contracted and free letters, size 0 and 1 axes, and
integer and bool operands."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from minigrad.ops.elementwise import dot_p, dot_plan


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
    got = dot_plan(subscripts, x.shape, y.shape)(x, y)
    want = np.einsum(subscripts, x, y)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_impl_is_the_plan() -> None:
    x = np.arange(24.0).reshape(2, 3, 4)
    y = np.arange(20.0).reshape(4, 5)
    out = dot_p.impl(x, y, subscripts="bij,jk->kbi")
    np.testing.assert_array_equal(out, np.einsum("bij,jk->kbi", x, y))

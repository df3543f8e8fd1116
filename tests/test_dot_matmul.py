"""dot's fast path: a contraction that is one (batched) matrix product runs as ``np.matmul``
(``matmul_plan``), and equals the plain einsum on every such pattern, with any operand order,
and batch and broadcast axes; the others keep einsum."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from minigrad.ops.elementwise import dot, matmul, matmul_plan

LETTERS = "abcdefg"


@st.composite
def contractions(draw: st.DrawFn) -> str:
    """Random valid dot subscripts: every letter in at least two of the three terms."""
    letters = draw(st.lists(st.sampled_from(LETTERS), min_size=1, max_size=5, unique=True))
    a, b, out = [], [], []
    for c in letters:
        where = draw(st.sampled_from(["ab", "ao", "bo", "abo"]))
        for term, t in (("a", a), ("b", b), ("o", out)):
            if term in where:
                t.append(c)
    a, b, out = (draw(st.permutations(t)) for t in (a, b, out))
    return f"{''.join(a)},{''.join(b)}->{''.join(out)}"


@given(contractions(), st.integers(0, 2**31))
def test_matmul_equals_einsum(subscripts: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    ins, _ = subscripts.split("->")
    a, b = ins.split(",")
    sizes = {c: int(rng.integers(1, 4)) for c in set(a + b)}
    x = rng.standard_normal([sizes[c] for c in a])
    y = rng.standard_normal([sizes[c] for c in b])
    expected = np.einsum(subscripts, x, y)
    got = dot(x, y, subscripts)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    plan = matmul_plan(subscripts)
    if plan is not None:
        np.testing.assert_allclose(matmul(x, y, plan), expected, rtol=1e-12, atol=1e-12)


def test_the_patterns_that_take_the_fast_path() -> None:
    for fast in ("ij,jk->ik", "ij,kj->ik", "ik,jk->ij", "ij,ik->jk", "bij,bjk->bik", "i,i->",
                 "zij,jk->zik", "i,ij->j"):
        assert matmul_plan(fast) is not None, fast
    for slow in ("i,j->ij", "ij,ij->", "zij,yjk->yzik"):
        assert matmul_plan(slow) is None, slow


def test_integer_and_float32_operands_keep_their_dtype() -> None:
    x, y = np.arange(6).reshape(2, 3), np.arange(12).reshape(3, 4)
    assert dot(x, y, "ij,jk->ik").dtype == np.int64
    np.testing.assert_array_equal(dot(x, y, "ij,jk->ik"), x @ y)
    f = dot(x.astype(np.float32), y.astype(np.float32), "ij,jk->ik")
    assert f.dtype == np.float32


def test_simplify_makes_a_transposed_dot_one_dot() -> None:
    # the transpose of h @ w.T gives dot(h, ct) then a transpose: one dot writing its result
    # in the order it is read (a contiguous array, not a transposed view)
    import minigrad as mg
    from minigrad import numpy as mnp
    from minigrad.staging.passes import simplify

    w, h = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(4, 3)
    program = mg.make_jaxpr(mg.grad(lambda w: mnp.sum(mnp.sin(h @ w.T))))(w)
    names = [e.prim.name for e in program.eqns]
    assert "transpose" in names
    out = simplify(program)
    dots = [e for e in out.eqns if e.prim.name == "dot"]
    assert all(e.prim.name != "transpose" or e.inputs[0] not in [d.outs[0] for d in dots]
               for e in out.eqns)
    g = mg.jit(mg.grad(lambda w: mnp.sum(mnp.sin(h @ w.T))))(w)
    np.testing.assert_allclose(g, np.cos(h @ w.T).T @ h, rtol=1e-14)

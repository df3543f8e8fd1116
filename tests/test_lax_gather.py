"""lax.gather and the lax.scatter family on random dimension numbers (hypothesis): values
against the loop references of tests/surface_records/lax_gather.py and against jax.lax,
JVP against finite differences, the transpose by the dot-product test, vmap against a loop for
every batched combination; and the facts the records do not show: the deterministic last write
of ``scatter``, the default fill values, the transposes in the staged programs, one primitive
under vmap, JAX's NamedTuples as dimension numbers, uint64 indices, inputs never written."""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from surface_records.lax_gather import SCATTER_REFS, ref_gather

import minigrad as mg
from minigrad import lax
from minigrad.testing import all_in_axes, check_jvp, check_vjp, check_vmap

HAS_JAX = importlib.util.find_spec("jax") is not None
G, S = lax.GatherDimensionNumbers, lax.ScatterDimensionNumbers


@pytest.fixture(scope="module", autouse=True)
def jax_x64() -> Any:
    """JAX with x64 (minigrad's default), for this module's comparisons."""
    if not HAS_JAX:
        yield None
        return
    import jax

    before = jax.config.read("jax_enable_x64")
    jax.config.update("jax_enable_x64", True)
    yield jax
    jax.config.update("jax_enable_x64", before)


@st.composite
def gathers(draw: Any) -> dict:
    """A random gather: operand shape, dimension numbers, slice sizes, indices and mode."""
    r = draw(st.integers(1, 3))
    shape = tuple(draw(st.integers(1, 4)) for _ in range(r))
    roles = [draw(st.sampled_from(["window", "window", "collapsed", "batching"]))
             for _ in range(r)]
    batching = [d for d in range(r) if roles[d] == "batching"]
    free = [d for d in range(r) if roles[d] != "batching"]
    start_map = draw(st.permutations(free).map(lambda p: p[:draw(st.integers(0, len(p)))]))
    nb = len(batching) + draw(st.integers(0, 2))
    index_batching = draw(st.permutations(range(nb)))[:len(batching)]
    batch = [draw(st.integers(1, 3)) for _ in range(nb)]
    for d, j in zip(batching, index_batching, strict=True):
        batch[j] = shape[d]
    sizes = tuple(draw(st.integers(0 if shape[d] > 1 else 1, shape[d]))
                  if roles[d] == "window" else 1 for d in range(r))
    window = [d for d in range(r) if roles[d] == "window"]
    out_rank = nb + len(window)
    offset = tuple(sorted(draw(st.permutations(range(out_rank)))[:len(window)]))
    mode = draw(st.sampled_from(["clip", "fill", "promise_in_bounds"]))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 16)))
    lo = np.array([0 if mode == "promise_in_bounds" else -2 for _ in start_map], int)
    hi = np.array([shape[d] - sizes[d] + (1 if mode == "promise_in_bounds" else 3)
                   for d in start_map], int)
    indices = rng.integers(lo, hi, (*batch, len(start_map))) if start_map else \
        np.zeros((*batch, 0), int)
    dnums = G(offset, tuple(d for d in range(r) if roles[d] == "collapsed"), tuple(start_map),
              tuple(batching), tuple(index_batching))
    return {"x": rng.standard_normal(shape), "indices": indices, "dnums": dnums,
            "sizes": sizes, "mode": mode, "rng": rng}


def _batched(examples: list[tuple], axes: tuple) -> list[Any]:
    """Each argument's two examples stacked where batched, else its first example."""
    return [np.stack(e) if ax is not None else e[0]
            for e, ax in zip(examples, axes, strict=True)]


def _scatter_numbers(g: G) -> S:
    return S(g.offset_dims, g.collapsed_slice_dims, g.start_index_map,
             g.operand_batching_dims, g.start_indices_batching_dims)


@given(gathers())
def test_gather_on_random_dimension_numbers(case: dict) -> None:
    x, idx, dn, sizes, mode = (case[k] for k in ("x", "indices", "dnums", "sizes", "mode"))

    def f(x: Any) -> Any:
        return lax.gather(x, idx, dn, sizes, mode=mode, fill_value=-1.5)

    expected = ref_gather(x, idx, dn, sizes, mode=mode, fill_value=-1.5)
    np.testing.assert_array_equal(f(x), expected)
    if HAS_JAX:
        import jax

        theirs = jax.lax.gather(x, idx, dn, sizes, mode=mode, fill_value=-1.5)
        np.testing.assert_array_equal(expected, np.asarray(theirs))
    if expected.size:
        check_jvp(f, [x])
        check_vjp(f, [x])
    examples = [(x, x + 1), (idx, idx[::-1] if idx.ndim > 1 else idx)]
    for axes in all_in_axes(2):
        check_vmap(lambda x, i: lax.gather(x, i, dn, sizes, mode=mode, fill_value=-1.5),
                   _batched(examples, axes), axes)


@given(gathers(), st.sampled_from(sorted(SCATTER_REFS)))
def test_scatters_on_random_dimension_numbers(case: dict, name: str) -> None:
    x, idx, dn, sizes, mode = (case[k] for k in ("x", "indices", "dnums", "sizes", "mode"))
    sdn = _scatter_numbers(dn)
    updates = case["rng"].standard_normal(ref_gather(x, idx, dn, sizes, mode="clip").shape)
    op = getattr(lax, name)

    def f(x: Any, u: Any) -> Any:
        return op(x, idx, u, sdn, mode=mode)

    expected = SCATTER_REFS[name](x, idx, updates, sdn, mode=mode)
    np.testing.assert_allclose(f(x, updates), expected, rtol=1e-13, atol=1e-13)
    # scatter and scatter_mul: JAX's order of repeated writes is undefined. An empty index
    # vector: JAX 0.10.2 on CPU keeps only the last update when a window axis comes before the
    # scatter axes in updates (scatter_add of [[1., 10.]] into [0.] with update_window_dims
    # (0,) gives [10.], with the axes the other way round [11.]); the loop above is the spec
    if (HAS_JAX and name in ("scatter_add", "scatter_sub", "scatter_min", "scatter_max")
            and idx.shape[-1]):
        import jax

        theirs = getattr(jax.lax, name)(x, idx, updates, sdn, mode=mode)
        np.testing.assert_allclose(expected, np.asarray(theirs), rtol=1e-13, atol=1e-13)
    check_jvp(f, [x, updates])
    check_vjp(f, [x, updates])
    examples = [(x, x - 1), (updates, updates * 2), (idx, idx[::-1] if idx.ndim > 1 else idx)]
    for axes in all_in_axes(3):
        check_vmap(lambda x, u, i: op(x, i, u, sdn, mode=mode), _batched(examples, axes), axes)


# --------------------------------------------------------------------------- facts

ROWS_S = S(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
ROWS_G = G(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))


def test_scatter_last_write_wins_with_its_gradient() -> None:
    x = np.zeros((3, 2))
    idx = np.array([[1], [2], [1], [1]])
    u = np.arange(8.0).reshape(4, 2)
    np.testing.assert_array_equal(lax.scatter(x, idx, u, ROWS_S),
                                  [[0, 0], [6, 7], [2, 3]])
    gx, gu = mg.grad(lambda x, u: (lax.scatter(x, idx, u, ROWS_S) * np.arange(6.0).reshape(3, 2)
                                   ).sum(), argnums=(0, 1))(x, u)
    np.testing.assert_array_equal(gx, [[0, 1], [0, 0], [0, 0]])  # overwritten: no cotangent
    np.testing.assert_array_equal(gu, [[0, 0], [4, 5], [0, 0], [2, 3]])  # to the winner only


def test_default_fill_values_are_jax_s() -> None:
    idx = np.array([[5]])
    for dtype, fill in [(np.float32, np.nan), (np.int32, np.iinfo(np.int32).min),
                        (np.uint8, 255), (np.bool_, True)]:
        out = lax.gather(np.zeros((3, 2), dtype), idx, ROWS_G, (1, 2), mode="fill")
        assert out.dtype == dtype
        np.testing.assert_array_equal(out, np.full((1, 2), fill, dtype))


def test_transposes_in_the_staged_programs() -> None:
    idx = np.array([[1], [0]])
    _, pullback = mg.vjp(lambda x: lax.gather(x, idx, ROWS_G, (1, 2), mode="clip"),
                         np.ones((3, 2)))
    text = str(mg.make_jaxpr(pullback)(np.ones((2, 2))))
    assert "scatter_add" in text and "gather[" not in text
    _, pullback = mg.vjp(lambda u: lax.scatter_add(np.zeros((3, 2)), idx, u, ROWS_S),
                         np.ones((2, 2)))
    assert "gather[" in str(mg.make_jaxpr(pullback)(np.ones((3, 2))))


def test_vmap_is_one_primitive() -> None:
    # a batched operand and batched indices: one gather with a paired batch dim, no loop
    f = mg.vmap(lambda x, i: lax.gather(x, i, ROWS_G, (1, 2)))
    text = str(mg.make_jaxpr(f)(np.ones((4, 3, 2)), np.zeros((4, 5, 1), int)))
    assert text.count("gather[") == 1 and "batch_dims=1" in text


def test_jax_named_tuples_are_dimension_numbers() -> None:
    jax = pytest.importorskip("jax")
    x = np.arange(6.0).reshape(3, 2)
    dn = jax.lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                        start_index_map=(0,))
    np.testing.assert_array_equal(lax.gather(x, np.array([[2]]), dn, (1, 2)), [[4, 5]])
    sdn = jax.lax.ScatterDimensionNumbers((1,), (0,), (0,))
    np.testing.assert_array_equal(lax.scatter_add(x, np.array([[2]]), np.ones((1, 2)), sdn),
                                  [[0, 1], [2, 3], [5, 6]])


def test_uint64_indices_past_int64() -> None:
    x = np.arange(6.0).reshape(3, 2)
    idx = np.array([[2 ** 63 + 5]], np.uint64)
    np.testing.assert_array_equal(lax.gather(x, idx, ROWS_G, (1, 2), mode="clip"), [[4, 5]])
    assert np.isnan(lax.gather(x, idx, ROWS_G, (1, 2), mode="fill")).all()
    np.testing.assert_array_equal(lax.scatter_add(x, idx, np.ones((1, 2)), ROWS_S), x)
    with pytest.raises(IndexError, match=r"gather: index .* is out of bounds for axis 0"):
        lax.gather(x, idx, ROWS_G, (1, 2))


def test_inputs_are_never_written() -> None:
    x, idx, u = np.arange(6.0).reshape(3, 2), np.array([[2], [2]]), np.ones((2, 2))
    before = [a.copy() for a in (x, idx, u)]
    for name in sorted(SCATTER_REFS):
        getattr(lax, name)(x, idx, u, ROWS_S)
    lax.gather(x, idx, ROWS_G, (1, 2))
    for a, b in zip((x, idx, u), before, strict=True):
        np.testing.assert_array_equal(a, b)


def test_scatter_mul_with_repeated_indices_is_differentiable() -> None:
    # JAX refuses this derivative unless unique_indices=True; it is well defined
    idx = np.array([[1], [1], [0]])
    u = np.array([[2.0, 0.5], [-1.0, 3.0], [0.25, 4.0]])

    def f(x: Any, u: Any) -> Any:
        return lax.scatter_mul(x, idx, u, ROWS_S)

    check_jvp(f, [np.arange(1.0, 7.0).reshape(3, 2), u])
    check_vjp(f, [np.arange(1.0, 7.0).reshape(3, 2), u])


def test_dot_general_matches_jax_dtypes() -> None:
    jax = pytest.importorskip("jax")
    dn = (((1,), (0,)), ((), ()))
    cases = [(np.int32, np.float32, None), (np.int8, np.int8, np.int32),
             (np.float64, np.float64, np.int32), (np.int32, np.int32, np.float32),
             (np.bool_, np.bool_, None), (np.float64, np.float64, np.float32),
             (np.uint8, np.int8, None)]
    for a, b, pref in cases:
        x, y = np.full((1, 2), 3, a), np.full(2, 100, b)
        ours = lax.dot_general(x, y, dn, preferred_element_type=pref)
        theirs = jax.lax.dot_general(x, y, dn, preferred_element_type=pref)
        assert ours.dtype == theirs.dtype, (a, b, pref)
        np.testing.assert_array_equal(ours, np.asarray(theirs))


def test_rank0_operand() -> None:
    # empty dimension numbers: every batch position reads (or updates) the one element
    g, s = G((), (), ()), S((), (), ())
    idx = np.zeros((3, 0), np.int64)
    np.testing.assert_array_equal(lax.gather(np.float64(2.5), idx, g, ()), [2.5, 2.5, 2.5])
    u = np.array([1.0, 2.0, 4.0])
    assert lax.scatter_add(np.float64(0.5), idx, u, s) == 7.5
    assert lax.scatter(np.float64(0.5), idx, u, s) == 4.0
    assert lax.scatter_max(np.float64(3.0), idx, u, s) == 4.0
    check_jvp(lambda x, u: lax.scatter_mul(x, idx, u, s), [np.float64(0.5), u])
    check_vjp(lambda x: lax.gather(x, idx, g, ()), [np.float64(2.5)])
    if HAS_JAX:  # (JAX 0.10.2 fails to compile a scatter into a 0-d operand: gather only)
        import jax

        theirs = jax.lax.gather(np.float64(2.5), idx, g, ())
        np.testing.assert_array_equal(lax.gather(np.float64(2.5), idx, g, ()), theirs)

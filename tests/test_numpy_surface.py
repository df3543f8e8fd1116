"""Every record of the NumPy surface (tests/surface_records/) through every check: eager
against NumPy, jit against eager, jvp and vjp against finite differences, vmap against a loop for
every combination of batched arguments, vmap(grad) against a loop of grad, and JAX's values and
gradients when JAX is installed. What each check does: tests/surface.py."""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np
import pytest
from surface import F64, Rec, all_records, assert_close, leaves, tolerance

import minigrad as mg
from minigrad.testing import all_in_axes, check_jvp, check_vjp, check_vmap

RECORDS = all_records()
HAS_JAX = importlib.util.find_spec("jax") is not None


def cases(pred: Any = None) -> list[Any]:
    return [pytest.param(r, dt, id=f"{r.id}-{dt.name}") for r in RECORDS for dt in r.dtypes
            if pred is None or pred(r, dt)]


def f64_cases(pred: Any = None) -> list[Any]:
    return [pytest.param(r, id=r.id) for r in RECORDS if np.dtype(np.float64) in r.dtypes
            or set(r.dtypes) <= {np.dtype(np.int32), np.dtype(np.int64), np.dtype(bool)}
            if pred is None or pred(r)]


def test_names_are_unique() -> None:
    ids = [r.id for r in RECORDS]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)


@pytest.mark.parametrize("rec, dtype", cases())
def test_eager(rec: Rec, dtype: np.dtype) -> None:
    args = rec.draw(dtype)
    out = rec.fn()(*args, **rec.kwargs)
    for leaf in leaves(out):
        assert type(leaf) is mg.Array, f"{rec.id}: a result leaf is {type(leaf).__name__}"
    ref = rec.reference()
    if ref is not None:
        try:
            expected = ref(*[np.asarray(a) if isinstance(a, mg.Array) else a for a in args],
                           **rec.kwargs)
        except ModuleNotFoundError as e:  # (SciPy is an optional extra, as JAX and torch)
            if e.name != "scipy":
                raise
            pytest.skip("the reference is SciPy's, and SciPy is not installed")
        assert_close(out, expected, tolerance(dtype, rec), f"{rec.id} against NumPy",
                     dtype=rec.ref_dtype)
        # never a view of an argument where NumPy's result is a new array (issue #29 item 6: a
        # later write into the argument would show through). (A copy where NumPy gives a
        # view, diagonal's read-only one say, costs memory but changes no result.)
        for i, a in enumerate(args):
            if isinstance(a, np.ndarray):
                for j, (o, e) in enumerate(zip(leaves(out), leaves(expected), strict=True)):
                    assert not np.shares_memory(o, a) or np.shares_memory(e, a), \
                        f"{rec.id}: result {j} is a view of argument {i}; NumPy's is a copy"


@pytest.mark.parametrize("rec, dtype", cases())
def test_jit(rec: Rec, dtype: np.dtype) -> None:
    args = rec.draw(dtype)
    dyn = rec.dynamic(args)
    eager = rec.fn()(*args, **rec.kwargs)
    jitted = mg.jit(rec.bind(rec.fn(), args, dyn))(*[args[i] for i in dyn])
    for leaf in leaves(jitted):
        assert type(leaf) is mg.Array, f"{rec.id}: a jit result leaf is {type(leaf).__name__}"
    assert_close(jitted, eager, tolerance(dtype, rec), f"{rec.id}: jit against eager")


def _float_results(rec: Rec, args: tuple) -> bool:
    return all(np.asarray(o).dtype.kind == "f" for o in leaves(rec.fn()(*args, **rec.kwargs)))


@pytest.mark.parametrize("rec", f64_cases(lambda r: r.grad))
def test_jvp_and_vjp(rec: Rec) -> None:
    args = rec.draw(np.dtype(np.float64))
    diff = rec.differentiable(args)
    assert diff, f"{rec.id}: no floating argument to differentiate; set grad=False"
    assert _float_results(rec, args), f"{rec.id}: non-float results; set grad=False"
    f = rec.bind(rec.fn(), args, diff)
    primals = [args[i] for i in diff]
    check_jvp(f, primals, atol=rec.tol, rtol=rec.tol)
    check_vjp(f, primals, atol=rec.tol, rtol=rec.tol)


@pytest.mark.parametrize("rec", f64_cases(lambda r: r.batch))
def test_vmap(rec: Rec) -> None:
    dtype = np.dtype(np.float64) if np.dtype(np.float64) in rec.dtypes else rec.dtypes[0]
    size = 3
    examples = [rec.draw(dtype, seed) for seed in range(size)]
    dyn = rec.dynamic(examples[0])
    arrays = [i for i in dyn if isinstance(examples[0][i], np.ndarray)]
    tol = max(tolerance(dtype, rec), 1e-12)
    for in_axes in all_in_axes(len(arrays)):
        # batched arguments stack the examples; unbatched ones are the first example's
        batched = [np.stack([e[i] for e in examples]) if ax is not None else examples[0][i]
                   for i, ax in zip(arrays, in_axes, strict=True)]
        f = rec.bind(rec.fn(), examples[0], arrays)
        check_vmap(f, batched, in_axes, atol=tol, rtol=tol)


@pytest.mark.parametrize("rec", f64_cases(lambda r: r.grad and r.batch))
def test_vmap_grad(rec: Rec) -> None:
    size = 3
    examples = [rec.draw(np.dtype(np.float64), seed) for seed in range(size)]
    diff = rec.differentiable(examples[0])
    f = rec.bind(rec.fn(), examples[0], diff)
    rng = np.random.default_rng(7)
    out = f(*[examples[0][i] for i in diff])
    weights = [rng.standard_normal(np.shape(o)) for o in leaves(out)]

    def loss(*xs: Any) -> Any:
        total = 0.0
        for o, w in zip(leaves(f(*xs)), weights, strict=True):
            total = total + mg.numpy.sum(o * w)
        return total

    argnums = tuple(range(len(diff)))
    per_example = mg.vmap(mg.grad(loss, argnums=argnums))(
        *[np.stack([e[i] for e in examples]) for i in diff])
    for b, e in enumerate(examples):
        expected = mg.grad(loss, argnums=argnums)(*[e[i] for i in diff])
        got = [np.asarray(g)[b] for g in per_example]
        assert_close(got, list(expected), max(tolerance(np.dtype(np.float64), rec), 1e-11),
                     f"{rec.id}: vmap(grad) example {b}")


# --------------------------------------------------------------------------- against JAX

@pytest.fixture(scope="module")
def jax_x64() -> Any:
    if not HAS_JAX:
        pytest.skip("jax is not installed (pip install jax): the differential test needs it")
    import jax

    before = jax.config.read("jax_enable_x64")
    jax.config.update("jax_enable_x64", True)  # minigrad's default: compare like with like
    yield jax
    jax.config.update("jax_enable_x64", before)  # (other tests and pages run JAX's default)


def _jax_args(args: tuple) -> list[Any]:
    import jax.numpy as jnp

    return [jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args]


def _projection(rec: Rec, fn: Any, args: list[Any], diff: list[int], weights: list[Any],
                xnp: Any) -> Any:
    """``sum(w * f(args))`` as a function of the differentiated arguments."""
    def loss(*xs: Any) -> Any:
        full = list(args)
        for p, x in zip(diff, xs, strict=True):
            full[p] = x
        outs = leaves(fn(*full, **rec.kwargs))
        return sum((xnp.sum(o * w) for o, w in zip(outs, weights, strict=True)),
                   start=xnp.zeros(()))
    return loss


def _compare_with_jax(rec: Rec, args: tuple, dtype: np.dtype, what: str) -> None:
    import jax
    import jax.numpy as jnp

    ours = rec.fn()(*args, **rec.kwargs)
    theirs = rec.jax_fn()(*_jax_args(args), **rec.kwargs)
    tol = tolerance(dtype, rec)
    assert_close(ours, [np.asarray(t) for t in leaves(theirs)], tol, what + " value",
                 dtype=rec.jax_dtype)
    if not rec.grad or not rec.jax_grad or dtype != np.dtype(np.float64):
        return
    diff = rec.differentiable(args)
    rng = np.random.default_rng(11)
    weights = [rng.standard_normal(np.shape(o)) for o in leaves(ours)]
    argnums = tuple(range(len(diff)))
    g_ours = mg.grad(_projection(rec, rec.fn(), list(args), diff, weights, mg.numpy),
                     argnums=argnums)(*[args[i] for i in diff])
    g_theirs = jax.grad(_projection(rec, rec.jax_fn(), _jax_args(args), diff, weights, jnp),
                        argnums=argnums)(*[jnp.asarray(args[i]) for i in diff])
    assert_close(list(g_ours), [np.asarray(g) for g in g_theirs], max(tol, 1e-10),
                 what + " gradient")


@pytest.mark.parametrize("rec", [pytest.param(r, id=r.id) for r in RECORDS if r.jax])
def test_against_jax(rec: Rec, jax_x64: Any) -> None:
    for dtype in rec.dtypes:
        points = [rec.draw(dtype)] + [tuple(np.asarray(a, dtype) if isinstance(a, np.ndarray)
                                            and a.dtype.kind == "f" else a for a in edge)
                                      for edge in rec.edges]
        for k, args in enumerate(points):
            what = f"{rec.id} {dtype.name} " + ("drawn" if k == 0 else f"edge {k - 1}")
            _compare_with_jax(rec, args, dtype, what)


def test_records_cover_float64() -> None:
    # the derivative checks run in float64 (finite differences need it): every differentiable
    # record must draw it
    missing = [r.id for r in RECORDS if r.grad and np.dtype(np.float64) not in r.dtypes]
    assert missing == []
    assert F64[0] == np.dtype(np.float64)

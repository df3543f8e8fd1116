"""NaN and inf: overwritten positions get exactly zero derivative, in every mode, whatever x
holds there; the ``where`` caveat behaves as in JAX; docs/nan-safety.md runs as written.

The op files each check ``grad`` once with inf and nan; here every overwriting op meets every
mode: grad, jacfwd, jacrev, vjp, jvp, vmap(grad) and hessian (second order).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest
from docs_runner import load_run_docs

import minigrad as mg
from minigrad import numpy as mnp

ROOT = Path(__file__).resolve().parent.parent

# x holds inf, -inf and nan at the positions each op overwrites (flat 1, 4, 6 of a 3x3).
BAD = np.zeros((3, 3), bool)
BAD.flat[[1, 4, 6]] = True
X = np.arange(9.0).reshape(3, 3) / 4 - 1
X[BAD] = [np.inf, np.nan, -np.inf]
SAFE = ~BAD


def _rows(i: int) -> np.ndarray:
    return np.array([1, 1]) if i else np.array([1])


# Each op overwrites exactly the BAD positions of X (and keeps every other one). index ops on
# dim 1 overwrite columns, so their x carries the bad values in a whole column.
X_COLS = np.arange(9.0).reshape(3, 3) / 4 - 1
X_COLS[:, 1] = [np.inf, np.nan, -np.inf]
BAD_COLS = np.zeros((3, 3), bool)
BAD_COLS[:, 1] = True
COL = np.array([1, 1])  # a duplicate: filled / copied once, the last copy wins

OPS: dict[str, tuple[Callable[[Any], Any], np.ndarray, np.ndarray]] = {
    "index_copy": (lambda x: mg.index_copy(x, 1, COL, mnp.ones((3, 2)) * 0.5), X_COLS,
                   BAD_COLS),
    "index_fill": (lambda x: mg.index_fill(x, -1, COL, 0.5), X_COLS, BAD_COLS),
    "index_fill-traced-value": (lambda x: mg.index_fill(x, 1, COL, mnp.sum(x[:, 0]) * 0.1),
                                X_COLS, BAD_COLS),
    "masked_fill": (lambda x: mg.masked_fill(x, BAD, 0.5), X, BAD),
    "masked_fill-traced-value": (lambda x: mg.masked_fill(x, BAD, x[0, 0] * 2.0), X, BAD),
    "masked_scatter": (lambda x: mg.masked_scatter(x, BAD, mnp.tanh(x[0, 0] + mnp.ones(5))),
                       X, BAD),
}


def loss(op: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda x: mnp.sum(mnp.exp(op(x) * 0.3))


def jacobian_columns(jac: np.ndarray) -> np.ndarray:
    """``jac`` (out 3x3, in 3x3) as (9 outputs, 9 inputs)."""
    return np.asarray(jac).reshape(9, 9)


@pytest.mark.parametrize("name", sorted(OPS))
def test_forward_values_are_finite(name: str) -> None:
    op, x, bad = OPS[name]
    out = op(x)
    assert np.all(np.isfinite(out))
    np.testing.assert_array_equal(out[~bad], x[~bad])


MODES = ["grad", "vjp", "jacrev", "jacfwd", "jvp", "vmap(grad)", "hessian"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(OPS))
def test_overwritten_positions_get_exactly_zero(name: str, mode: str) -> None:
    op, x, bad = OPS[name]
    f = loss(op)
    if mode == "grad":
        g = mg.grad(f)(x)
    elif mode == "vjp":
        g = mg.vjp(op, x)[1](np.ones((3, 3)))[0]
    elif mode in ("jacrev", "jacfwd"):
        jac = jacobian_columns((mg.jacrev if mode == "jacrev" else mg.jacfwd)(op)(x))
        assert np.all(jac[:, bad.ravel()] == 0.0)  # no output depends on an overwritten x
        assert np.all(np.isfinite(jac))
        return
    elif mode == "jvp":
        # a tangent that is nonzero only at the overwritten positions moves nothing
        t = np.where(bad, 1.0, 0.0)
        _, t_out = mg.jvp(op, (x,), (t,))
        assert np.all(t_out[~bad] == 0.0) and np.all(np.isfinite(t_out))
        return
    elif mode == "vmap(grad)":
        g = mg.vmap(mg.grad(f))(np.stack([x, np.where(bad, x, 2 * x)]))
        assert g.shape == (2, 3, 3)
        assert np.all(g[:, bad] == 0.0) and np.all(np.isfinite(g))
        return
    else:  # hessian: rows and columns of the overwritten positions are zero
        h = mg.hessian(f)(x).reshape(9, 9)
        assert np.all(h[bad.ravel()] == 0.0) and np.all(h[:, bad.ravel()] == 0.0)
        assert np.all(np.isfinite(h))
        return
    assert np.all(g[bad] == 0.0), g
    assert np.all(np.isfinite(g))


def test_kept_positions_still_get_their_gradient() -> None:
    # The zeros above are not a blanket zero: kept positions get the ordinary derivative.
    g = mg.grad(loss(lambda x: mg.masked_fill(x, BAD, 0.5)))(X)
    np.testing.assert_allclose(g[SAFE], 0.3 * np.exp(0.3 * X[SAFE]))


# --------------------------------------------------------------------------- the where caveat


def sqrt_where(x: Any) -> Any:
    return mnp.where(x > 0, mnp.sqrt(x), 0.0)


def sqrt_masked(x: Any) -> Any:
    return mnp.sum(mg.masked_fill(mnp.sqrt(x), x <= 0, 0.0))


@pytest.mark.filterwarnings("ignore:divide by zero encountered:RuntimeWarning",
                            "ignore:invalid value encountered:RuntimeWarning")
def test_where_caveat_is_jax_semantics() -> None:
    """grad of where(x > 0, sqrt(x), 0) at 0 is nan (0 * inf from the unselected branch), as in
    JAX; forward mode picks the selected branch's tangent and gives 0."""
    zero = np.float64(0.0)
    assert np.isnan(mg.grad(sqrt_where)(zero))
    assert np.isnan(mg.jacrev(sqrt_where)(zero))
    assert mg.jacfwd(sqrt_where)(zero) == 0.0
    assert mg.jvp(sqrt_where, (zero,), (np.float64(1.0),))[1] == 0.0
    # the overwriting ops are selects too: the same caveat
    g = mg.grad(sqrt_masked)(np.array([0.0, 4.0, -1.0]))
    assert np.isnan(g[0]) and g[1] == 0.25 and np.isnan(g[2])


def test_double_where_trick_fixes_it() -> None:
    def safe(x: Any) -> Any:
        positive = x > 0
        return mnp.where(positive, mnp.sqrt(mnp.where(positive, x, 1.0)), 0.0)

    assert mg.grad(safe)(np.float64(0.0)) == 0.0
    assert mg.grad(safe)(np.float64(4.0)) == 0.25
    assert mg.grad(safe)(np.float64(-1.0)) == 0.0


# --------------------------------------------------------------------------- the doc page


def test_doc_page_runs_and_prints_what_it_shows() -> None:
    """Every python block of docs/nan-safety.md runs, and prints the text block under it."""
    run_docs = load_run_docs()
    page = ROOT / "docs" / "nan-safety.md"
    blocks = run_docs.run_page(page)
    assert len(blocks) >= 3
    report = run_docs.report(blocks)
    assert not report, report

"""Checks shared by the tests of the indexing ops (index_add, index_copy, index_fill,
masked_fill, masked_scatter): drawn forward cases, finite-difference Jacobians and the batching
checks.

Each op's test file keeps its own parametrized tests (one test id per ``in_axes``); their bodies
call these helpers. The oracles themselves are ``minigrad.testing``'s (``batch_args``,
``check_vmap``); this module only names the patterns the op tests repeat.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np
from hypothesis import strategies as st

import minigrad as mg
from minigrad import numpy as mnp
from minigrad.testing import batch_args, check_vmap

MakeArgs = Callable[[np.random.Generator], tuple]


# --------------------------------------------------------------------------- drawn cases


@st.composite
def shape_dim_and_index(draw: st.DrawFn) -> tuple[tuple[int, ...], int, np.ndarray]:
    """A hypothesis strategy: an x shape of rank 0 to 3 (sides 1 to 4), a dim of it (negative
    too; a 0-d x takes dim 0 or -1, as if it were (1,)) and an int64 index of up to 6 entries
    valid along that dim, duplicates allowed."""
    ndim = draw(st.integers(0, 3))
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=ndim, max_size=ndim)))
    dim = draw(st.integers(-max(ndim, 1), max(ndim, 1) - 1))
    n = (shape or (1,))[dim % max(ndim, 1)]
    index = np.array(draw(st.lists(st.integers(0, n - 1), max_size=6)), np.int64)
    return shape, dim, index


# --------------------------------------------------------------------------- finite differences


def fd_jacobian(f: Callable[..., Any], args: Sequence[Any], argnum: int,
                eps: float = 1e-6) -> np.ndarray:
    """Central-difference Jacobian of ``f(*args)`` with respect to ``args[argnum]``, one
    column per element of that argument: shape ``out.shape + args[argnum].shape``."""
    x = np.asarray(args[argnum], np.float64)
    cols = []
    for i in range(x.size):
        d = np.zeros(x.size)
        d[i] = eps
        plus, minus = list(args), list(args)
        plus[argnum] = x + d.reshape(x.shape)
        minus[argnum] = x - d.reshape(x.shape)
        cols.append((np.asarray(f(*plus)) - np.asarray(f(*minus))) / (2 * eps))
    if not cols:  # an empty argument: an empty Jacobian of the output's shape
        return np.zeros((*np.shape(f(*args)), *x.shape))
    return np.stack(cols, -1).reshape((*np.shape(cols[0]), *x.shape))


def numerical_jacobian(f: Callable[[np.ndarray], Any], x: np.ndarray,
                       eps: float = 1e-6) -> np.ndarray:
    """``fd_jacobian`` of a one-argument ``f``, flattened to ``(f(x).size, x.size)``: the layout
    of ``jacfwd(f)(x).reshape(out_size, x.size)``."""
    x = np.asarray(x, np.float64)
    return fd_jacobian(f, [x], 0, eps).reshape(-1, x.size)


# --------------------------------------------------------------------------- batching


def check_vmap_against_loop(f: Callable[..., Any], make_args: MakeArgs,
                            in_axes: Sequence[int | None], size: int, *, seed: int = 0,
                            atol: float = 1e-12, rtol: float = 1e-12) -> None:
    """Draw ``size`` examples with ``make_args`` (stacked along ``in_axes``; one shared draw
    for the unbatched operands) and assert that ``vmap(f, in_axes)`` equals a Python loop of
    ``f`` over them, output by output, within ``atol + rtol * |expected|``."""
    check_vmap(f, batch_args(make_args, in_axes, size, seed), in_axes, atol=atol, rtol=rtol)


def grad_of_sum_of_squares(op: Callable[..., Any], argnums: int | tuple[int, ...]
                           ) -> Callable[..., Any]:
    """``grad(lambda *args: sum(op(*args) ** 2), argnums)``: a gradient whose jaxpr holds the
    op's JVP and transpose rules, for checking that they batch too."""
    return mg.grad(lambda *args: mnp.sum(op(*args) ** 2), argnums)


def check_jaxpr_size_independent_of_batch(functions: Sequence[Callable[..., Any]],
                                          make_args: MakeArgs, in_axes: Sequence[int | None],
                                          sizes: Sequence[int] = (2, 64)) -> None:
    """For each function ``f``, the jaxpr of ``vmap(f, in_axes)`` has the same number of
    equations at every batch size in ``sizes``: the batching rules are whole-array operations,
    not a Python loop over the examples."""
    for f in functions:
        counts = {n: len(mg.make_jaxpr(mg.vmap(f, in_axes))(
            *batch_args(make_args, in_axes, n)).eqns) for n in sizes}
        assert len(set(counts.values())) == 1, (
            f"vmap({getattr(f, '__name__', f)}, in_axes={in_axes}): jaxpr equations by batch "
            f"size {counts}")

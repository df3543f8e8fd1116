"""Records of minigrad.scipy.linalg (minigrad/scipy/linalg.py), compared with scipy.linalg
(eager, one matrix at a time) and jax.scipy.linalg (values and gradients; stacks too).

Draws are well conditioned (tests/surface_records/linalg.py's helpers): symmetric positive
definite matrices for the Cholesky functions and ``assume_a='pos'``, triangular matrices with
a dominant diagonal for the triangular solves. ``cholesky``, ``cho_factor`` and ``solve(...,
assume_a='pos')`` read one triangle: their derivative is the computed function's (finite
differences agree), JAX's takes the whole tangent, so their gradients are compared with JAX's
on symmetric tangents in tests/test_scipy_linalg.py instead (``jax_grad=False`` here).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from surface import F64, Rec

from surface_records.linalg import dominant, separated, spd, symmetric


@dataclass
class Via(Rec):
    """A record whose function takes what the drawn arrays make: ``via(f)`` is the function
    of the arrays (``cho_solve((c, lower), b)`` from ``c`` and ``b``), for minigrad's, SciPy's
    and JAX's ``f`` alike."""

    via: Callable[[Callable[..., Any]], Callable[..., Any]] | None = None

    def fn(self) -> Callable[..., Any]:
        assert self.via is not None
        return self.via(super().fn())

    def reference(self) -> Callable[..., Any] | None:
        ref = super().reference()
        return None if ref is None or self.via is None else self.via(ref)

    def jax_fn(self) -> Callable[..., Any]:
        assert self.via is not None
        return self.via(super().jax_fn())


def triangular(*shape, lower=True, unit=False):
    """A triangular matrix (the other triangle holds noise, never read) with a diagonal of
    size about n, and right-hand sides."""
    def draw(rng, dt):
        n = shape[-1]
        a = rng.standard_normal(shape) + n * np.eye(n)
        return (a.astype(dt),)
    return draw


def with_rhs(first, *shapes):
    return lambda rng, dt: (*first(rng, dt), *(rng.standard_normal(s).astype(dt)
                                               for s in shapes))


def factor_of(draw, lower):
    """The Cholesky factor of an spd draw (for cho_solve's c)."""
    def make(rng, dt):
        (a,) = draw(rng, np.dtype(np.float64))
        c = np.linalg.cholesky(a)
        return ((c if lower else c.T).astype(dt),)
    return make


def scipy_fn(name):
    def call(*args, **kwargs):
        return getattr(importlib.import_module("scipy.linalg"), name)(*args, **kwargs)
    return call


RECORDS = [
    # solve_triangular: every trans, both triangles, unit diagonals, vectors, stacks
    *[Rec("scipy.linalg.solve_triangular", with_rhs(triangular(4, 4), (4, 2)),
          kwargs={"trans": t, "lower": lo}, tag=f"trans{t}-lower{lo}")
      for t in (0, 1, 2, "T") for lo in (True, False)],
    Rec("scipy.linalg.solve_triangular", with_rhs(triangular(4, 4), (4,)),
        kwargs={"lower": True, "unit_diagonal": True}, tag="unit-vector"),
    Rec("scipy.linalg.solve_triangular", with_rhs(triangular(2, 3, 3), (2, 3, 2)),
        kwargs={"lower": True, "trans": 1}, tag="batched", ref=None),
    Rec("scipy.linalg.solve_triangular", with_rhs(triangular(3, 3), (2, 3, 4)),
        tag="broadcast", ref=None),
    # Cholesky
    *[Rec("scipy.linalg.cholesky", spd(4, 4), kwargs={"lower": lo}, tag=f"lower{lo}",
          jax_grad=False, edges=((np.array([[1.0, 2.0], [2.0, 1.0]]),),))
      for lo in (True, False)],
    Rec("scipy.linalg.cholesky", spd(2, 3, 3), tag="batched", ref=None, jax_grad=False),
    *[Via("scipy.linalg.cho_factor", spd(3, 3), tag=f"lower{lo}", ref=None, jax_grad=False,
          via=lambda f, lo=lo: (lambda a: f(a, lower=lo)[0]))
      for lo in (True, False)],
    *[Via("scipy.linalg.cho_solve", with_rhs(factor_of(spd(4, 4), lo), (4, 2)),
          tag=f"lower{lo}", via=lambda f, lo=lo: (lambda c, b: f((c, lo), b)))
      for lo in (True, False)],
    Via("scipy.linalg.cho_solve", with_rhs(factor_of(spd(4, 4), True), (4,)), tag="vector",
        via=lambda f: (lambda c, b: f((c, True), b))),
    Via("scipy.linalg.cho_solve", with_rhs(factor_of(spd(2, 3, 3), True), (2, 3, 2)),
        tag="batched", ref=None, via=lambda f: (lambda c, b: f((c, True), b))),
    # solve, inv, det
    Rec("scipy.linalg.solve", with_rhs(dominant(4, 4), (4, 2)), kwargs={"assume_a": "gen"},
        tag="gen"),
    # ('sym' solves by LU, as JAX: on a symmetric matrix SciPy's triangle-reading solve agrees)
    Rec("scipy.linalg.solve", with_rhs(symmetric(4, 4), (4, 2)), kwargs={"assume_a": "sym"},
        tag="sym"),
    Rec("scipy.linalg.solve", with_rhs(dominant(4, 4), (4,)), tag="vector"),
    *[Rec("scipy.linalg.solve", with_rhs(spd(4, 4), (4, 2)),
          kwargs={"assume_a": "pos", "lower": lo}, tag=f"pos-lower{lo}", jax_grad=False)
      for lo in (True, False)],
    Rec("scipy.linalg.solve", with_rhs(spd(4, 4), (4,)), kwargs={"assume_a": "pos"},
        tag="pos-vector", jax_grad=False),
    Rec("scipy.linalg.inv", dominant(4, 4)),
    Rec("scipy.linalg.det", dominant(4, 4), ref_dtype=False, edges=((np.diag([1.0, 2.0, 0.0]),),)),
    # factorizations
    # (eigenvectors' signs: LAPACK's syevd, as NumPy's eigh; SciPy's driver picks others)
    Rec("scipy.linalg.eigh", symmetric(4, 4), ref=lambda a: tuple(np.linalg.eigh(a))),
    Rec("scipy.linalg.eigh", symmetric(4, 4), kwargs={"lower": False}, tag="upper",
        ref=lambda a, lower: tuple(np.linalg.eigh(a, UPLO="L" if lower else "U"))),
    Rec("scipy.linalg.eigh", symmetric(4, 4), kwargs={"eigvals_only": True}, tag="values"),
    Rec("scipy.linalg.svd", separated(4, 3), kwargs={"full_matrices": False}),
    Rec("scipy.linalg.svd", separated(3, 3), tag="square-full"),
    Rec("scipy.linalg.svd", separated(4, 3), kwargs={"compute_uv": False}, tag="values"),
    Rec("scipy.linalg.qr", separated(4, 3), tag="full", grad=False,
        note="full Q of a tall matrix: no derivative (as JAX)"),
    Rec("scipy.linalg.qr", separated(3, 3), tag="square"),
    Rec("scipy.linalg.qr", separated(4, 3), kwargs={"mode": "economic"}, tag="economic"),
    Rec("scipy.linalg.qr", separated(3, 4), kwargs={"mode": "r"}, tag="r"),
    # (qr-pivot) pivoting: values, vmap, jit, SciPy and JAX here; the derivatives (p is an
    # integer result) in tests/test_qr_pivoting.py
    *[Rec("scipy.linalg.qr", separated(*shape), kwargs={"pivoting": True, "mode": mode},
          tag=f"pivoting-{mode}", grad=False, note="p int32: derivatives in test_qr_pivoting")
      for shape, mode in (((4, 4), "full"), ((5, 3), "economic"), ((3, 5), "r"))],
    Rec("scipy.linalg.lu", dominant(4, 4)),
    Rec("scipy.linalg.lu", normal_draw := (lambda rng, dt: (rng.standard_normal((5, 3))
                                                           .astype(dt),)), tag="tall"),
    Rec("scipy.linalg.lu", lambda rng, dt: (rng.standard_normal((3, 5)).astype(dt),),
        tag="wide"),
    Rec("scipy.linalg.lu", dominant(4, 4), kwargs={"permute_l": True}, tag="permute_l"),
    Rec("scipy.linalg.lu_factor", lambda rng, dt: (rng.standard_normal((4, 4)).astype(dt),),
        diff=(0,), grad=False, note="the pivots are integers; lu's derivative is lu's"),
    *[Via("scipy.linalg.lu_solve", lambda rng, dt: (rng.standard_normal((4, 4)).astype(dt),
                                                    rng.standard_normal((4, 2)).astype(dt)),
          tag=f"trans{t}", via=lambda f, t=t: (lambda a, b: f(_factor(f, a), b, trans=t)))
      for t in (0, 1)],
    Rec("scipy.linalg.expm", lambda rng, dt: (rng.standard_normal((4, 4)).astype(dt),),
        tol=1e-9, dtypes=F64),  # (the finite differences' noise reached 1.6e-10 on a draw)
    Rec("scipy.linalg.expm", lambda rng, dt: (4 * rng.standard_normal((3, 3)).astype(dt),),
        tag="squarings", tol=1e-9, dtypes=F64),
    Rec("scipy.linalg.expm", lambda rng, dt: (rng.standard_normal((2, 3, 3)).astype(dt),),
        tag="batched", tol=1e-9, dtypes=F64, ref=None),
]
del normal_draw


def _factor(lu_solve_fn, a):
    """lu_factor from the namespace ``lu_solve_fn`` belongs to."""
    module = importlib.import_module(lu_solve_fn.__module__)
    return module.lu_factor(a)

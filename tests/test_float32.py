"""float32: every rule check passes in float32, with float32 tolerances, and no transform turns
float32 into float64.

* Every sample of every primitive (the op records of ``minigrad.testing.records`` and the op
  samples of the five ops) that has a float64 run but no float32 one is converted to float32
  here and run through ``check_primitive``, whose finite-difference steps and tolerances come
  from the float32 row of ``minigrad.testing``'s table. (Samples that already have a float32 run are
  checked by ``test_primitives.py`` and ``test_samples.py``.)
* The five ops under every transform (jvp, vjp, linearize, grad, value_and_grad, vmap, jacfwd,
  jacrev, hessian, make_jaxpr, eval_jaxpr, linear_transpose): float32 outputs, tangents,
  cotangents, Jacobians, Hessians and jaxpr types. Python-scalar and float64 constants do not
  promote (NumPy 2's rule for scalars; a float64 *traced* value is converted to x's dtype and
  keeps its own dtype's gradient).
* Every float32 sample of every primitive keeps float32 under grad, vmap, jacfwd, jacrev and
  linearize.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg
from minigrad import numpy as mnp
from minigrad.core import Primitive
from minigrad.jaxpr import Var
from minigrad.testing import OPS, Sample, check_primitive, primitives, samples_for

F32, F64 = np.dtype(np.float32), np.dtype(np.float64)
C64 = np.dtype(np.complex64)


def _is_f64(x: Any) -> bool:
    return isinstance(x, np.ndarray) and x.dtype == F64


def _to_f32(x: Any) -> Any:
    return x.astype(F32) if _is_f64(x) else x


def float32_variant(s: Sample) -> Sample | None:
    """``s`` with its float64 operands as float32, or None when that would not be the same
    check (a dtype parameter fixes the output dtype, or no operand is float64)."""
    if any(isinstance(v, (np.dtype, type)) for v in s.params.values()):
        return None
    if not any(_is_f64(o) for o in s.make(np.random.default_rng(0))):
        return None

    def make(rng: np.random.Generator) -> tuple:
        return tuple(_to_f32(o) for o in s.make(rng))

    # The reference runs in float32 too; allow it a few float32 ulps.
    return Sample(f"{s.name}->f32", make, s.params, s.diff, s.linear, s.batchable, s.reference,
                  s.fun, s.argnames, max(s.tol, 1e-6), s.reverse)


def converted_samples() -> list[tuple[Primitive, Sample]]:
    out = []
    for name, prim in primitives().items():
        samples = samples_for(name)
        names = {s.name for s in samples}
        for s in samples:
            if s.name.endswith("-f64") and s.name[:-4] + "-f32" in names:
                continue  # already run in float32 elsewhere
            if s.name.endswith("-f32"):
                continue
            variant = float32_variant(s)
            if variant is not None:
                out.append((prim, variant))
    return out


CONVERTED = converted_samples()


def test_conversion_covers_every_primitive_with_float_operands() -> None:
    """Every primitive with a float64 sample has a float32 run somewhere: converted here or
    drawn in float32 by its record."""
    covered = {p.name for p, _ in CONVERTED}
    for name in primitives():
        samples = samples_for(name)
        operands = [o for s in samples for o in s.make(np.random.default_rng(0))]
        has_f64 = any(_is_f64(o) for o in operands)
        has_f32 = any(isinstance(o, np.ndarray) and o.dtype == F32 for o in operands)
        assert not has_f64 or has_f32 or name in covered, name
    assert set(OPS) <= covered  # the five ops' float64-only op samples among them


# Known: LAPACK's eigenvector signs flip between a + 1e-2 t and a - 1e-2 t at this draw (the
# float32 step), so central differences of the sign-ambiguous eigenvectors are meaningless
# there; the JVP itself agrees with differences at smaller steps (surface-linalg report).
KNOWN_FD_FAILURES = {"eigh:lower-f64->f32": "eigenvector signs flip within the float32 step"}


@pytest.mark.filterwarnings("ignore:divide by zero encountered:RuntimeWarning",
                            "ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize(("prim", "sample"), [
    pytest.param(p, s, id=s.name, marks=pytest.mark.xfail(strict=True,
                                                          reason=KNOWN_FD_FAILURES[s.name]))
    if s.name in KNOWN_FD_FAILURES else pytest.param(p, s, id=s.name) for p, s in CONVERTED])
def test_rules_in_float32(prim: Primitive, sample: Sample) -> None:
    results = check_primitive(prim, [sample])
    assert {r.check for r in results} >= {"shape/impl", "vmap"}
    ops = sample.make(np.random.default_rng(0))
    for leaf in mg.tree_leaves(sample.function(prim)(*ops)):  # (several results: each)
        out = np.asarray(leaf)
        if out.dtype.kind == "f":
            assert out.dtype == F32


# --------------------------------------------------------------------------- the five ops


RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 3)).astype(F32)
SOURCE = RNG.standard_normal((2, 3)).astype(F32)
INDEX = np.array([3, 3])
MASK = RNG.random((4, 3)) < 0.5
MASK_ROW = np.array([True, False, True])  # broadcasts against x


def op_fns() -> dict[str, tuple[Callable[..., Any], tuple]]:
    """Each op as a function of its float operands, with float32 arguments."""
    value = np.float32(1.5)
    return {
        "index_add": (lambda x, s: mg.index_add(x, 0, INDEX, s, 2.0), (X, SOURCE)),
        "index_copy": (lambda x, s: mg.index_copy(x, 0, INDEX, s), (X, SOURCE)),
        "index_fill": (lambda x, v: mg.index_fill(x, -2, INDEX, v), (X, value)),
        "index_fill-scalar": (lambda x: mg.index_fill(x, 1, 0, 0.25), (X,)),
        "masked_fill": (lambda x, v: mg.masked_fill(x, MASK_ROW, v), (X, value)),
        "masked_fill-scalar": (lambda x: mg.masked_fill(x, MASK, -1.0), (X,)),
        "masked_scatter": (lambda x, s: mg.masked_scatter(x, MASK, s), (X, X[::-1].copy())),
    }


def transforms() -> dict[str, Callable[[Callable[..., Any], tuple], list]]:
    """Each transform applied to ``f`` at ``args``: the arrays it returns, flattened."""
    def loss(f: Callable[..., Any]) -> Callable[..., Any]:
        return lambda *a: mnp.sum(mnp.sin(f(*a)))

    def ones(t: tuple) -> tuple:
        return tuple(np.ones_like(a) for a in t)

    def every(args: tuple) -> tuple:
        return tuple(range(len(args)))

    def jaxpr_types(f: Callable[..., Any], args: tuple) -> list:
        closed = mg.make_jaxpr(f)(*args)
        var_avals = [v.aval for v in closed.jaxpr.invars + [v for e in closed.eqns for v in e.outs]
                     + [o for o in closed.jaxpr.outvars if isinstance(o, Var)]]
        return [np.zeros(a.shape, a.dtype) for a in var_avals if a.dtype.kind == "f"]

    return {
        "eager": lambda f, a: [f(*a)],
        "jvp": lambda f, a: list(mg.jvp(f, a, ones(a))),
        "vjp": lambda f, a: [mg.vjp(f, *a)[0], *mg.vjp(f, *a)[1](np.ones_like(f(*a)))],
        "linearize": lambda f, a: [mg.linearize(f, *a)[0], mg.linearize(f, *a)[1](*ones(a))],
        "grad": lambda f, a: list(mg.grad(loss(f), every(a))(*a)),
        "value_and_grad": lambda f, a: [mg.value_and_grad(loss(f))(*a)[0],
                                        mg.value_and_grad(loss(f))(*a)[1]],
        "vmap": lambda f, a: [mg.vmap(f)(*[np.stack([x, x * 2]) for x in a])],
        "vmap-unbatched-x": lambda f, a: [mg.vmap(f, in_axes=(None, *[0] * (len(a) - 1)))(
            a[0], *[np.stack([x, x]) for x in a[1:]])] if len(a) > 1 else [f(*a)],
        "jacfwd": lambda f, a: list(mg.jacfwd(f, every(a))(*a)),
        "jacrev": lambda f, a: list(mg.jacrev(f, every(a))(*a)),
        "hessian": lambda f, a: [h for row in mg.hessian(loss(f), every(a))(*a) for h in row],
        "make_jaxpr": jaxpr_types,
        "eval_jaxpr": lambda f, a: [mg.make_jaxpr(f)(*a)(*a)],
        "linear_transpose": lambda f, a: list(mg.linear_transpose(f, *a)(np.ones_like(f(*a)))),
    }


OP_FNS, TRANSFORMS = op_fns(), transforms()
# With a constant nonzero value the fills are affine in x, not linear: no linear_transpose.
PAIRS = [(op, t) for op in sorted(OP_FNS) for t in sorted(TRANSFORMS)
         if not (op.endswith("-scalar") and t == "linear_transpose")]


@pytest.mark.parametrize(("op", "transform"), PAIRS)
def test_five_ops_stay_float32_under_every_transform(op: str, transform: str) -> None:
    f, args = OP_FNS[op]
    outs = TRANSFORMS[transform](f, args)
    assert outs, "the transform returned something to check"
    for i, out in enumerate(outs):
        assert np.asarray(out).dtype == F32, f"{op} under {transform}: result {i} is " \
                                             f"{np.asarray(out).dtype}"


def test_float64_traced_value_into_float32_x() -> None:
    """A float64 traced value fills a float32 x as float32; its own gradient stays float64."""
    for op in (lambda x, v: mg.index_fill(x, 0, INDEX, v),
               lambda x, v: mg.masked_fill(x, MASK, v)):
        def loss(x: Any, v: Any, op: Callable[..., Any] = op) -> Any:
            return mnp.sum(op(x, v * 2.0))

        out = op(X, np.float64(0.5))  # a concrete float64 value that float32 holds
        assert out.dtype == F32
        gx, gv = mg.grad(loss, (0, 1))(X, np.float64(0.5))
        assert gx.dtype == F32 and gv.dtype == F64


# --------------------------------------------------------------------------- every primitive


def fixes_dtype(s: Sample) -> bool:
    """A dtype parameter (preferred_element_type, new_dtype) fixes the output dtype."""
    return any(isinstance(v, (np.dtype, type)) for v in s.params.values())


def float32_samples() -> list[tuple[Primitive, Sample]]:
    out = [(prim, s) for name, prim in primitives().items() for s in samples_for(name)
           if s.name.endswith("-f32") and s.diff and not fixes_dtype(s)]
    out += [(p, s) for p, s in CONVERTED if s.diff]
    return out


F32_SAMPLES = float32_samples()


@pytest.mark.parametrize(("prim", "sample"), F32_SAMPLES, ids=[s.name for _, s in F32_SAMPLES])
def test_every_primitive_stays_float32_under_the_transforms(prim: Primitive, sample: Sample
                                                            ) -> None:
    ops = sample.make(np.random.default_rng(0))
    f = sample.function(prim)
    # a primitive with several results (lu: factors, pivots, permutation) is checked on its
    # floating ones
    floating = [k for k, o in enumerate(mg.tree_leaves(f(*ops)))
                if np.asarray(o).dtype.kind == "f"]
    for o in mg.tree_leaves(f(*ops)):
        if np.asarray(o).dtype.kind == "f" and np.asarray(o).dtype != F32:
            pytest.fail(f"{sample.name}: float32 operands give {np.asarray(o).dtype}")
    diff = sample.diff

    def g(*vals: Any) -> Any:
        full = list(ops)
        for i, v in zip(diff, vals, strict=True):
            full[i] = v
        outs = mg.tree_leaves(f(*full))
        return outs[0] if not prim.multiple_results else tuple(outs[k] for k in floating)

    primals = tuple(ops[i] for i in diff)
    results = {
        "jacfwd": mg.jacfwd(g, tuple(range(len(diff))))(*primals),
        "linearize": mg.linearize(g, *primals)[1](*[np.ones_like(p) for p in primals]),
        "vmap": mg.vmap(g)(*[np.stack([p, p]) for p in primals]),
    }
    if sample.reverse:  # (a while_loop has forward mode only)
        results["grad"] = mg.grad(lambda *v: sum(mnp.sum(mnp.sin(mnp.real(o)))
                                                 for o in mg.tree_leaves(g(*v))),
                                  tuple(range(len(diff))))(*primals)
        if not any(np.asarray(o).dtype.kind == "c" for o in mg.tree_leaves(f(*ops))):
            # (jacrev takes real outputs only)
            results["jacrev"] = mg.jacrev(g, tuple(range(len(diff))))(*primals)
    for name, result in results.items():
        for leaf in mg.tree_leaves(result):
            # (complex64 is float32's complex twin: complex's outputs and their tangents)
            assert np.asarray(leaf).dtype in (F32, C64), f"{sample.name} under {name}"

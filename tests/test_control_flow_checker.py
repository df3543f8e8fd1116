"""The checker over the control-flow primitives: ``check_primitive`` runs every rule of cond,
scan, while and remat2 through their samples (minigrad/testing/control_flow.py), including the
staged type check of the nested programs; ``python -m minigrad check`` lists them; their impls
never bind; and a broken rule is caught by the staged type check."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import minigrad as mg
from minigrad.core import Primitive
from minigrad.jaxpr import ClosedJaxpr, Jaxpr, typecheck
from minigrad.lax.loops import scan_p
from minigrad.testing import check_primitive, primitives, samples_for
from minigrad.testing.control_flow import SAMPLES

NAMES = sorted(SAMPLES)


@pytest.mark.parametrize("name", NAMES)
def test_every_rule_passes_on_the_samples(name: str) -> None:
    samples = samples_for(name)
    assert samples, name
    results = check_primitive(primitives()[name], samples)
    ran = {r.check for r in results}
    assert {"reference", "shape/impl", "jvp", "vmap", "staged"} <= ran
    if name != "while":
        assert {"vmap(grad)", "grad(grad)"} <= ran and any(c.startswith("transpose")
                                                           for c in ran)
    else:  # forward mode only: no reverse check ran
        assert not {"vmap(grad)", "grad(grad)"} & ran


def test_the_cli_lists_them() -> None:
    assert set(NAMES) <= set(primitives())


def test_nested_programs_are_typechecked() -> None:
    # a scan whose body takes the wrong carry type: typecheck names the outer equation
    good = mg.make_jaxpr(lambda c, xs: mg.lax.scan(lambda c, x: (c + x, c), c, xs))(
        np.float64(0.0), np.ones(3))
    typecheck(good)
    (eqn,) = good.eqns
    body = eqn.params["jaxpr"].jaxpr
    bad_body = Jaxpr(body.constvars, body.invars, body.eqns, [body.outvars[0], body.invars[0]])
    eqn.params = {**eqn.params, "jaxpr": ClosedJaxpr(bad_body, [])}
    typecheck(good)  # same types: still fine
    wrong = ClosedJaxpr(Jaxpr([], body.invars, body.eqns, [body.outvars[0]]), [])
    eqn.params = {**eqn.params, "jaxpr": wrong}
    with pytest.raises(TypeError, match=r"equation 0 \(scan\)"):
        typecheck(good)


@pytest.fixture
def impls_may_not_bind(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    inside: list[str] = []
    bind = Primitive.bind

    def guarded(self: Primitive, *args: object, **params: object) -> object:
        if inside:
            raise AssertionError(f"the impl of {inside[-1]} binds {self.name}")
        return bind(self, *args, **params)

    monkeypatch.setattr(Primitive, "bind", guarded)
    for name in NAMES:
        prim = primitives()[name]

        def impl(*args: object, _p: Primitive = prim, _impl: Any = prim.impl,
                 **params: object) -> object:
            inside.append(_p.name)
            try:
                return _impl(*args, **params)
            finally:
                inside.pop()

        monkeypatch.setattr(prim, "impl", impl)
    return inside


@pytest.mark.parametrize("name", NAMES)
def test_impls_never_bind(name: str, impls_may_not_bind: list[str]) -> None:
    for sample in samples_for(name):
        ops = sample.make(np.random.default_rng(0))
        np.testing.assert_allclose(sample.call(*ops), sample.reference(*ops), rtol=1e-5)


def test_a_broken_batching_rule_is_caught() -> None:
    rule = scan_p.batch

    def broken(axis_size: int, vals: tuple, dims: tuple, **params: Any) -> tuple:
        outs, out_dims = rule(axis_size, vals, dims, **params)  # type: ignore[misc]
        return outs, [0 if d is not None else None for d in out_dims]  # ys are at axis 1

    scan_p.batch = broken
    try:
        results = check_primitive(scan_p, samples_for("scan")[:1], raise_on_failure=False)
    finally:
        scan_p.batch = rule
    assert {r.check for r in results if not r.passed} >= {"vmap"}

"""An impl is NumPy on arrays and never binds a primitive.

``EvalTrace.process_primitive`` calls ``impl`` directly, and a trace with nothing to do hands a
primitive straight down to it while that trace is still current; so a primitive bound inside an
impl would land in whatever transform is running. Every primitive is run here, eagerly and with
a JVP trace current above the eval trace, with ``bind`` rigged to fail inside an impl.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad.core import Primitive
from minigrad.testing import primitives, samples_for
from minigrad.testing.checks import results_of

PRIMS = primitives()


@pytest.fixture
def impls_may_not_bind(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    inside: list[str] = []
    bind = Primitive.bind

    def guarded_bind(self: Primitive, *args: object, **params: object) -> object:
        if inside:
            raise AssertionError(f"the impl of {inside[-1]} binds {self.name}")
        return bind(self, *args, **params)

    monkeypatch.setattr(Primitive, "bind", guarded_bind)
    for prim in PRIMS.values():
        def impl(*args: object, _prim: Primitive = prim, _impl: object = prim.impl,
                 **params: object) -> object:
            inside.append(_prim.name)
            try:
                return _impl(*args, **params)  # type: ignore[operator]
            finally:
                inside.pop()

        monkeypatch.setattr(prim, "impl", impl)
    return inside


@pytest.mark.parametrize("name", sorted(PRIMS))
def test_impl_never_binds(name: str, impls_may_not_bind: list[str]) -> None:
    prim = PRIMS[name]
    samples = [s for s in samples_for(name) if s.fun is None][:2]
    if not samples:
        pytest.skip(f"{name} has no primitive samples")  # (test_samples.py requires them)
    for sample in samples:
        operands = sample.make(np.random.default_rng(0))
        eager = prim.bind(*operands, **sample.params)
        # The operands are constants of the jvp: its trace, current, hands the primitive
        # straight down to the eval trace.
        out, _ = mg.jvp(lambda _, xs=operands, p=sample.params: prim.bind(*xs, **p), (np.ones(()),),
                        (np.ones(()),))
        for o, e in zip(results_of(out), results_of(eager), strict=True):
            np.testing.assert_array_equal(o, e)


def test_the_guard_catches_an_impl_that_binds(impls_may_not_bind: list[str]) -> None:
    sneaky = Primitive("sneaky")
    inside = impls_may_not_bind

    def impl(x: object) -> object:  # binds sin: wrapped by hand, as the fixture wraps the rest
        inside.append("sneaky")
        try:
            return mg.numpy.sin(x)
        finally:
            inside.pop()

    sneaky.def_impl(impl)
    with pytest.raises(AssertionError, match="the impl of sneaky binds sin"):
        sneaky.bind(np.ones(2))

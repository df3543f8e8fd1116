"""checkpoint / remat: one ``remat2`` equation, values and derivatives identical to the
function's, and reverse mode that keeps only the inputs (the backward pass recomputes)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import minigrad as mg
from minigrad import lax
from minigrad import numpy as mnp
from minigrad.testing import check_grads, check_vmap


def prims(jaxpr: Any) -> list[str]:
    return [e.prim.name for e in jaxpr.eqns]


def chain(x: Any) -> Any:
    for _ in range(4):
        x = mnp.sin(x) * 1.3
    return x


def test_one_equation_with_jax_parameters() -> None:
    jaxpr = mg.make_jaxpr(mg.checkpoint(chain))(np.ones(3))
    assert prims(jaxpr) == ["remat2"]
    assert jaxpr.eqns[0].params["differentiated"] is False
    assert jaxpr.eqns[0].params["prevent_cse"] is True
    text = str(jaxpr)
    assert "remat2[" in text and "policy=None" in text
    assert mg.remat is mg.checkpoint and lax.checkpoint is mg.checkpoint


def test_values_and_derivatives_are_the_functions() -> None:
    x = np.array([0.2, -1.0, 0.7])
    f = mg.checkpoint(chain)
    np.testing.assert_array_equal(f(x), chain(x))
    check_grads(f, [x], order=2)
    np.testing.assert_allclose(mg.jacrev(f)(x), mg.jacfwd(chain)(x), rtol=1e-14)
    np.testing.assert_allclose(mg.hessian(lambda x: mnp.sum(f(x)))(x),
                               mg.hessian(lambda x: mnp.sum(chain(x)))(x), rtol=1e-12)
    check_vmap(mg.grad(lambda x: mnp.sum(f(x))), [np.stack([x, x * 2])], (0,))


def test_reverse_mode_keeps_only_the_inputs() -> None:
    x = np.array([0.2, -1.0, 0.7])
    _, plain = mg.linearize(lambda x: mnp.sum(chain(x)), x)
    _, remat = mg.linearize(lambda x: mnp.sum(mg.checkpoint(chain)(x)), x)
    # the residuals a linear program keeps: without checkpoint every intermediate's cosine,
    # with it only x itself
    assert len(plain.jaxpr.consts) > 1
    assert [np.shape(c) for c in remat.jaxpr.consts] == [(3,)]
    (eqn,) = [e for e in remat.jaxpr.eqns if e.prim.name == "remat2"]
    assert eqn.params["differentiated"] is True
    grad_program = mg.make_jaxpr(mg.grad(lambda x: mnp.sum(mg.checkpoint(chain)(x))))(x)
    assert "remat2" in prims(grad_program)  # the transposed program, recomputing


def test_static_argnums() -> None:
    def f(x, n, scale):
        for _ in range(n):
            x = mnp.sin(x) * scale
        return x

    g = mg.checkpoint(f, static_argnums=(1,))
    x = np.float64(0.5)
    np.testing.assert_array_equal(g(x, 3, 1.1), f(x, 3, 1.1))
    np.testing.assert_allclose(mg.grad(g)(x, 3, 1.1), mg.grad(f)(x, 3, 1.1))
    assert mg.grad(g, argnums=2)(x, 2, 1.1) == mg.grad(f, argnums=2)(x, 2, 1.1)


@pytest.mark.parametrize("call, error, match", [
    (lambda: mg.checkpoint(chain, policy=lambda *a: True), NotImplementedError,
     "checkpoint: policy is not supported yet"),
    (lambda: mg.checkpoint(chain, prevent_cse=1), TypeError, "prevent_cse must be a bool"),
    (lambda: mg.checkpoint(chain, static_argnums=1.0), TypeError, "static_argnums must be"),
    (lambda: mg.checkpoint(chain, static_argnums=3)(np.ones(2)), ValueError,
     "static_argnums entry 3 is out of range"),
    (lambda: mg.checkpoint(3), TypeError, "checkpoint: fun must be a callable"),
])
def test_errors(call: Any, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        call()


def test_jit_calls_its_own_compiled_program() -> None:
    f = mg.jit(mg.grad(lambda x: mnp.sum(mg.checkpoint(chain)(x) * chain(x))))
    x = np.array([0.2, -1.0, 0.7])
    np.testing.assert_allclose(f(x), mg.grad(lambda x: mnp.sum(chain(x) ** 2))(x), rtol=1e-13)
    assert "remat_e" in f.lower(x).as_text()  # not merged with the forward pass by CSE

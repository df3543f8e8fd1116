"""Tracers that escape their transform are invalid afterwards, with an error naming it."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.numpy as mnp
from minigrad import core

X = np.array([0.5, -1.0, 2.0])

# How to run a function under each transform; the function is f(x) -> scalar.
RUNNERS = {
    "jvp": lambda f: mg.jvp(f, (X,), (np.ones(3),)),
    "vmap": lambda f: mg.vmap(f)(np.stack([X, X])),
    "grad": lambda f: mg.grad(f)(X),
    "linearize": lambda f: mg.linearize(f, X),
    "vjp": lambda f: mg.vjp(f, X),
    "make_jaxpr": lambda f: mg.make_jaxpr(f)(X),
    "jacfwd": lambda f: mg.jacfwd(f)(X),
    "jacrev": lambda f: mg.jacrev(f)(X),
    "value_and_grad": lambda f: mg.value_and_grad(f)(X),
    "hessian": lambda f: mg.hessian(f)(X),
    # f's (non-linear) result is dead, so the staged function is linear in x
    "linear_transpose": lambda f: mg.linear_transpose(lambda x: (f(x), x * 3.0)[1], X),
}

# A later, different transform in which to use the leaked tracer t.
LATER = {
    "jvp": lambda t: mg.jvp(lambda y: y * t, (np.ones(3),), (np.ones(3),)),
    "vmap": lambda t: mg.vmap(lambda y: y * t)(np.ones((2, 3))),
    "grad": lambda t: mg.grad(lambda y: (y * t).sum())(np.ones(3)),
    "make_jaxpr": lambda t: mg.make_jaxpr(lambda y: y + t)(np.ones(3)),
    "value_and_grad": lambda t: mg.value_and_grad(lambda y: (y * t).sum())(np.ones(3)),
    "vjp": lambda t: mg.vjp(lambda y: y * t, np.ones(3)),
    "linearize": lambda t: mg.linearize(lambda y: y * t, np.ones(3)),
    "jacfwd": lambda t: mg.jacfwd(lambda y: y * t)(np.ones(3)),
    "jacrev": lambda t: mg.jacrev(lambda y: y * t)(np.ones(3)),
    "hessian": lambda t: mg.hessian(lambda y: (y * y * t).sum())(np.ones(3)),
    "linear_transpose": lambda t: mg.linear_transpose(lambda y: y * t, np.ones(3))(np.ones(3)),
}


def leak(transform):
    box = []

    def f(x):
        box.append(mnp.sin(x) * 2.0)
        return (x * x).sum()

    RUNNERS[transform](f)
    assert len(box) == 1
    return box[0]


def test_exported_error_class():
    assert mg.UnexpectedTracerError is core.UnexpectedTracerError
    assert issubclass(mg.UnexpectedTracerError, Exception)


@pytest.mark.parametrize("transform", sorted(RUNNERS))
def test_escaped_tracer_used_eagerly(transform):
    t = leak(transform)
    assert isinstance(t, core.Tracer)
    with pytest.raises(mg.UnexpectedTracerError, match=f"tracer of {transform}") as info:
        t + 1.0
    msg = str(info.value)
    assert f"used after {transform} returned" in msg
    assert "f64[3]" in msg
    with pytest.raises(mg.UnexpectedTracerError, match="passed to sin"):
        mnp.sin(t)


@pytest.mark.parametrize("transform", sorted(RUNNERS))
@pytest.mark.parametrize("later", sorted(LATER))
def test_escaped_tracer_used_in_later_transform(transform, later):
    t = leak(transform)
    with pytest.raises(mg.UnexpectedTracerError, match=f"tracer of {transform} that escaped"):
        LATER[later](t)


@pytest.mark.parametrize("transform", ["jvp", "grad", "vmap", "make_jaxpr"])
def test_escaped_tracer_as_argument_of_later_transform(transform):
    t = leak(transform)
    with pytest.raises(mg.UnexpectedTracerError, match=transform):
        mg.grad(lambda y: (y * 2.0).sum())(t)


@pytest.mark.parametrize("transform", ["jvp", "grad", "vmap"])
def test_escaped_tracer_methods_and_indexing(transform):
    t = leak(transform)
    with pytest.raises(mg.UnexpectedTracerError, match=transform):
        t.sum()
    with pytest.raises(mg.UnexpectedTracerError, match=transform):
        t[0]
    with pytest.raises(mg.UnexpectedTracerError, match=transform):
        t @ np.ones(3)


def test_escaped_from_inner_transform_used_in_outer():
    # The inner transform has returned; the outer one is still running.
    box = []

    def outer(x):
        mg.jvp(lambda y: box.append(y * 2.0) or y, (x,), (x,))
        return box[0] * 3.0

    with pytest.raises(mg.UnexpectedTracerError, match="tracer of jvp"):
        mg.grad(lambda x: outer(x).sum())(X)


def test_tracer_used_while_its_transform_is_active_is_fine():
    # Closing over an outer tracer inside an inner transform is not an escape.
    def f(x):
        return mg.grad(lambda y: (x * y).sum())(np.ones(3)).sum() * x  # sum(x) * x

    np.testing.assert_allclose(mg.grad(lambda x: f(x).sum())(X), 2 * X.sum() * np.ones(3))
    np.testing.assert_allclose(mg.jacfwd(f)(X), X.sum() * np.eye(3) + np.outer(X, np.ones(3)))


def test_every_public_transform_is_covered():
    # A transform added to the API without a row here would not be checked for escapes.
    transforms = {"jvp", "vmap", "grad", "value_and_grad", "vjp", "linearize", "jacfwd",
                  "jacrev", "hessian", "make_jaxpr", "linear_transpose"}
    assert set(RUNNERS) == transforms
    assert set(LATER) == transforms
    assert set(AS_ARGUMENT) == transforms


# Each transform called with the escaped tracer t as its argument.
AS_ARGUMENT = {
    "jvp": lambda t: mg.jvp(mnp.sin, (t,), (np.ones(3),)),
    "vmap": lambda t: mg.vmap(mnp.sin)(t),
    "grad": lambda t: mg.grad(lambda y: y.sum())(t),
    "value_and_grad": lambda t: mg.value_and_grad(lambda y: y.sum())(t),
    "vjp": lambda t: mg.vjp(mnp.sin, t),
    "linearize": lambda t: mg.linearize(mnp.sin, t),
    "jacfwd": lambda t: mg.jacfwd(mnp.sin)(t),
    "jacrev": lambda t: mg.jacrev(mnp.sin)(t),
    "hessian": lambda t: mg.hessian(lambda y: y.sum())(t),
    # these two use only the argument's shape, but an escaped tracer is still a mistake
    "make_jaxpr": lambda t: mg.make_jaxpr(mnp.sin)(t),
    "linear_transpose": lambda t: mg.linear_transpose(lambda y: y * 2.0, t),
}


@pytest.mark.parametrize("receiver", sorted(AS_ARGUMENT))
@pytest.mark.parametrize("transform", ["jvp", "grad", "vmap", "make_jaxpr", "hessian",
                                       "linear_transpose"])
def test_escaped_tracer_as_argument_of_every_transform(transform, receiver):
    t = leak(transform)
    with pytest.raises(mg.UnexpectedTracerError, match=f"tracer of {transform} that escaped"):
        AS_ARGUMENT[receiver](t)


def test_escaped_tracer_in_vjp_function_and_linearized_function():
    # Tracers that escape into the closures vjp and linearize return are caught when those
    # closures run, not silently used.
    t = leak("grad")
    _, f_vjp = mg.vjp(lambda x: x * 2.0, X)
    with pytest.raises(mg.UnexpectedTracerError, match="tracer of grad"):
        f_vjp(t)
    _, f_jvp = mg.linearize(lambda x: x * 2.0, X)
    with pytest.raises(mg.UnexpectedTracerError, match="tracer of grad"):
        f_jvp(t)

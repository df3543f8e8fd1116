"""jax.Array's methods and properties on traced values: each gives what it gives eagerly."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.numpy as mnp

METHODS = {
    "copy": lambda x: x.copy(),
    "flatten": lambda x: x.flatten(),
    "diagonal": lambda x: x.diagonal(),
    "repeat": lambda x: x.repeat(2, axis=1),
    "mT": lambda x: x.mT,
    # (the order inside each side of the partition is unspecified: compare the kth entry)
    "argpartition": lambda x: mnp.take_along_axis(x, x.argpartition(1), -1)[..., 1],
    "to_device": lambda x: x.to_device("cpu"),
    "block_until_ready": lambda x: x.block_until_ready(),
}


@pytest.mark.parametrize("name", sorted(METHODS))
@pytest.mark.parametrize("transform", ["jit", "vmap", "jvp"])
def test_method_under_a_transform_matches_eager(name, transform):
    x = np.arange(24.0).reshape(2, 3, 4) % 7
    method = METHODS[name]
    eager = np.stack([np.asarray(method(mnp.asarray(xi))) for xi in x])
    if transform == "jit":
        out = np.stack([np.asarray(mg.jit(method)(xi)) for xi in x])
    elif transform == "vmap":
        out = np.asarray(mg.vmap(method)(x))
    else:
        out = np.stack([np.asarray(mg.jvp(method, (xi,), (np.ones_like(xi),))[0]) for xi in x])
    np.testing.assert_array_equal(out, eager)


def test_properties_on_a_tracer():
    seen = {}

    def f(x):
        seen.update(device=x.device, itemsize=x.itemsize, nbytes=x.nbytes)
        return x.sum()

    mg.grad(f)(np.ones((3, 4), np.float32))
    assert seen == {"device": mnp.ones(1).device, "itemsize": 4, "nbytes": 48}


def test_copy_is_differentiable_and_in_place_updates_of_a_copy_trace():
    def f(w, feat):
        out = feat @ w  # a value of grad and of vmap alike
        out.index_add_(0, np.array([0, 1, 1]), w)
        return mnp.sum(out.copy() ** 2)

    w, feats = np.ones((3, 2)), np.arange(24.0).reshape(4, 2, 3)
    per_example = mg.vmap(mg.grad(f), in_axes=(None, 0))(w, feats)
    loop = np.stack([np.asarray(mg.grad(f)(w, x)) for x in feats])
    np.testing.assert_allclose(per_example, loop)


def test_to_device_rejects_another_device():
    with pytest.raises(ValueError, match="to_device"):
        mg.jit(lambda x: x.to_device("gpu"))(np.ones(2))


NUMPY_CALLS = {
    "einsum": (lambda xp, x: xp.einsum("ij,j->i", x, x[0])),
    "linalg.solve": (lambda xp, x: xp.linalg.solve(x, x[0])),
    "linalg.det": (lambda xp, x: xp.linalg.det(x)),
    "linalg.inv": (lambda xp, x: xp.linalg.inv(x)),
    "linalg.norm": (lambda xp, x: xp.linalg.norm(x, axis=0)),
    "kron": (lambda xp, x: xp.kron(x, x[:2])),
    "diff": (lambda xp, x: xp.diff(x, axis=1)),
    "tril": (lambda xp, x: xp.tril(x)),
}


@pytest.mark.parametrize("name", sorted(NUMPY_CALLS))
def test_numpy_functions_on_tracers_are_minigrad_s_namesakes(name):
    # np.einsum(tracer, ...), np.linalg.solve(tracer, ...): NumPy hands the call to the tracer
    # (__array_function__), which runs minigrad.numpy's function of the same name
    call = NUMPY_CALLS[name]
    x = np.arange(9.0).reshape(3, 3) % 4 + 3 * np.eye(3)

    def ours(v):
        return mnp.sum(mnp.sin(call(mnp, v)))

    def theirs(v):
        return mnp.sum(mnp.sin(call(np, v)))

    np.testing.assert_allclose(mg.grad(theirs)(x), mg.grad(ours)(x), rtol=1e-12)
    np.testing.assert_allclose(mg.jit(theirs)(x), ours(x), rtol=1e-12)


def test_a_numpy_function_minigrad_lacks_is_a_clear_error():
    with pytest.raises(TypeError, match=r"numpy\.piecewise is not supported on minigrad tracers"):
        mg.grad(lambda x: np.piecewise(x, [x > 0], [1.0]).sum())(np.ones(2))

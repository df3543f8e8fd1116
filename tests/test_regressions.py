"""Regression tests: one per bug found by the reliability work (issue 8), each with a comment
naming the bug, where it was and the fix. The differential fuzzer (test_fuzz.py) found the
first two; the others came out of the bad-input catalogue (test_bad_inputs.py, whose rows
marked "fixed" pin the messages), the aliasing audit (test_no_mutation.py) and the escaped-tracer
matrix (test_escaped.py).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad import numpy as mnp

# --------------------------------------------------------------------------- found by the fuzzer


def test_sums_do_not_depend_on_the_memory_layout() -> None:
    # Bug (fuzzer, randomized profile: test_jit.py seed 870, test_jit_passes.py seed 135735):
    # jit's result differed from eager's by an ulp on programs that sum a transposed value.
    # NumPy adds in memory order (pairwise), and jit's passes change intermediate layouts (a
    # product with a broadcast scalar becomes one with the scalar: its result keeps the
    # transposed operand's layout). Fixed in reduce_sum's and reduce_prod's impls: they reduce
    # in the logical order, so the result is a function of the values alone.
    rng = np.random.default_rng(0)
    x = rng.normal(size=(40, 30, 20))
    t = np.transpose(x, (2, 0, 1))
    assert not t.flags.c_contiguous
    # (the eager fast paths of mean, var, softmax and norm sum as reduce_sum's impl does)
    for f in (lambda a: mnp.sum(a), lambda a: mnp.sum(a, axis=(0, 2)), lambda a: mnp.prod(
            a[:3], axis=(0, 1)), lambda a: mnp.mean(a), lambda a: mnp.var(a, axis=1),
            lambda a: mg.nn.softmax(a, axis=(0, 1)), lambda a: mnp.linalg.norm(a, axis=(0, 1))):
        assert f(t).tobytes() == f(np.ascontiguousarray(t)).tobytes()
        assert mg.jit(f)(t).tobytes() == f(np.ascontiguousarray(t)).tobytes()


@pytest.mark.parametrize("shape", [(0,), (2, 0), (0, 3)])
def test_jacobians_of_zero_size_inputs(shape: tuple) -> None:
    # Bug (fuzzer, a program on x of shape (0,)): jacfwd, jacrev and hessian of any function
    # of a zero-size input raised "cannot reshape array of size 0 into shape (0)".
    # transforms/jvp.py std_basis reshaped the basis with -1, ambiguous for 0 rows; fixed by
    # reshaping to the basis' row count.
    x = np.zeros(shape)
    assert mg.jacfwd(lambda a: a * 2.0)(x).shape == shape + shape
    assert mg.jacrev(lambda a: a * 2.0)(x).shape == shape + shape
    assert mg.jacfwd(lambda a: mnp.sum(a))(x).shape == shape
    assert mg.jacrev(lambda a: mnp.sum(a))(x).shape == shape
    assert mg.hessian(lambda a: mnp.sum(a * a))(x).shape == shape + shape
    # a zero-size input next to a non-empty one: the non-empty one's Jacobian is still right
    j = mg.jacfwd(lambda a, b: mnp.sum(a) + b * 3.0, argnums=(0, 1))(x, np.ones(2))
    assert j[0].shape == (2, *shape)
    np.testing.assert_array_equal(j[1], 3.0 * np.eye(2))


def test_a_forwarded_operand_keeps_its_memory_order() -> None:
    # Bug (fuzzer, a cond whose true branch returns its operand, a strided view, then a sum):
    # eagerly lax.cond handed back a C-order copy of the operand while its program passed the
    # operand itself on, so the later reduce_sum added in another order and eval_jaxpr of
    # make_jaxpr differed from the eager run in the last bits. minigrad/lax/common.py
    # unaliased now copies with np.copy, which keeps the memory order.
    x = np.random.default_rng(0).standard_normal((4, 2, 3)).transpose(1, 0, 2)[..., :1]

    def f(x):
        return mnp.sum(mg.lax.cond(True, lambda h: h, mnp.sin, x) * 3.0)

    assert f(x) == mg.make_jaxpr(f)(x)(x)
    assert mg.lax.cond(True, lambda h: h, mnp.sin, x).strides == x.copy(order="K").strides


def test_batched_index_checked_as_a_whole() -> None:
    # Bug (fuzzer, vmap(jacfwd(vmap(f))) with the index batched twice): a fast path for small
    # indices in ops/indexing.py check_index_values took min() over index.tolist(), which for the
    # 2-D index a batching rule checks is a list of lists: "TypeError: '>=' not supported
    # between instances of 'list' and 'int'". Fixed by ravelling before tolist().
    x = np.arange(12.0).reshape(3, 4)
    source = np.ones((2, 4))
    index = np.array([[[0, 2], [1, 1]], [[2, 2], [0, 1]]])  # (2, 2, 2): batched twice

    def f(i: np.ndarray) -> np.ndarray:
        return mg.index_add(x, 0, i, source)

    out = mg.vmap(mg.vmap(f))(index)
    expected = np.stack([np.stack([f(i) for i in row]) for row in index])
    np.testing.assert_array_equal(out, expected)
    with pytest.raises(IndexError, match=r"index_add: index entries must be in \[0, 3\).*got 5"):
        mg.vmap(mg.vmap(f))(np.where(index == 2, 5, index))
    with pytest.raises(IndexError, match="got -1"):
        mg.vmap(f)(np.array([[0, 1], [-1, 0]]))


# --------------------------------------------------------------------------- escaped tracers


@pytest.mark.parametrize("transform, run", [
    ("value_and_grad", lambda f: mg.value_and_grad(f)(np.ones(3))),
    ("hessian", lambda f: mg.hessian(f)(np.ones(3))),
    ("linear_transpose", lambda f: mg.linear_transpose(lambda a: (f(a), a * 2.0)[1],
                                                       np.ones(3))),
])
def test_escaped_tracer_names_the_transform_called(transform: str, run: object) -> None:
    # Bug: a tracer escaping value_and_grad, hessian or linear_transpose was reported as a
    # tracer of grad, jacrev or make_jaxpr, the transforms they are built on. Fixed in
    # transforms/grad.py (_value_and_grad, _jacrev take the name), transforms/jvp.py
    # (jacfwd_named) and jaxpr.py (make_jaxpr_named, used by linear_transpose).
    box = []

    def f(a: object) -> object:
        box.append(a * 2.0)  # type: ignore[operator]
        return mnp.sum(a * a)  # type: ignore[operator]

    run(f)  # type: ignore[operator]
    with pytest.raises(mg.UnexpectedTracerError, match=f"tracer of {transform} that escaped"):
        box[0] + 1.0


def test_escaped_tracer_passed_as_an_argument() -> None:
    # Bug: an escaped tracer passed as the argument of make_jaxpr or linear_transpose (which
    # only look at its shape) was accepted silently; other transforms noticed only at its
    # first use. Fixed in api_util.py as_operand: a dead tracer is rejected on entry.
    box = []
    mg.grad(lambda a: box.append(a * 2.0) or mnp.sum(a))(np.ones(3))
    for call in (lambda t: mg.make_jaxpr(mnp.sin)(t),
                 lambda t: mg.linear_transpose(lambda a: a * 2.0, t),
                 lambda t: mg.vmap(lambda a: 1.0, in_axes=0)(t)):
        with pytest.raises(mg.UnexpectedTracerError, match="tracer of grad"):
            call(box[0])


# --------------------------------------------------------------------------- aliasing


def test_transform_results_do_not_alias_arguments() -> None:
    # Bug: a value a transform passed straight through came back as the caller's own array:
    # the tangent of x + 1 under jvp *was* the tangent passed in (likewise vjp's cotangent of
    # x + 1, linearize's f_jvp, linear_transpose of the identity, vmap of the identity, a 0-d
    # value_and_grad of the identity, has_aux outputs), so `out *= 2` changed the caller's
    # input. Fixed by api_util.py unaliased() at each transform's exit.
    x, t = np.ones(3), np.full(3, 2.0)
    _, t_out = mg.jvp(lambda a: a + 1.0, (x,), (t,))
    t_out *= 10
    (ct,) = mg.vjp(lambda a: a + 1.0, x)[1](t)
    ct *= 10
    batched = mg.vmap(lambda a: a)(x)
    batched *= 10
    aux = mg.grad(lambda a: (mnp.sum(a), a), has_aux=True)(x)[1]
    aux *= 10
    np.testing.assert_array_equal(x, np.ones(3))
    np.testing.assert_array_equal(t, np.full(3, 2.0))


# --------------------------------------------------------------------------- bad inputs


def test_non_array_x_is_rejected_by_the_ops() -> None:
    # Bug: masked_fill(None, mask, v) returned an object array (a wrong answer), and
    # index_add("abc", ...) blamed the source ("source must have x's dtype <U3"). Fixed in
    # ops/indexing.py as_array, which now names the op and the argument for anything that is not
    # an array of numbers or bools; the five ops pass their names.
    mask = np.zeros(3, bool)
    with pytest.raises(TypeError, match="masked_fill: x must be an array of numbers"):
        mg.masked_fill(None, mask, 1.0)
    with pytest.raises(TypeError, match="index_add: x must be an array of numbers"):
        mg.index_add("abc", 0, np.array([0]), np.ones(1))
    with pytest.raises(TypeError, match="masked_scatter: source must be an array of numbers"):
        mg.masked_scatter(np.zeros(3), mask, "abc")


@pytest.mark.parametrize("make", [
    lambda: mg.grad(None), lambda: mg.vmap(3), lambda: mg.jacfwd("f"),
    lambda: mg.hessian(None), lambda: mg.make_jaxpr(None),
    lambda: mg.jvp(None, (np.ones(1),), (np.ones(1),)),
])
def test_non_callable_function_is_named(make: object) -> None:
    # Bug: mg.grad(None) was accepted and failed at the call with "'NoneType' object is not
    # callable"; vmap, jvp, jacfwd and the rest likewise. Fixed by api_util.py
    # check_callable, called by every transform before any work.
    with pytest.raises(TypeError, match="fun must be a callable"):
        make()  # type: ignore[operator]


def test_bad_argnums_kind() -> None:
    # Bug: argnums=0.0 raised "'float' object is not iterable". Fixed in api_util.py
    # check_argnums.
    with pytest.raises(TypeError, match="grad: argnums must be an int"):
        mg.grad(lambda a: mnp.sum(a), argnums=0.0)(np.ones(2))


def test_grad_of_a_tuple_output() -> None:
    # Bug: grad of a function returning a tuple said "the function must return arrays in a
    # pytree; got a tuple" (a tuple is a pytree). Fixed in transforms/grad.py: it asks for a
    # scalar and points at has_aux.
    with pytest.raises(TypeError, match=r"must return a scalar array; got a tuple.*has_aux"):
        mg.grad(lambda a: (mnp.sum(a), a))(np.ones(2))


def test_cotangent_of_the_wrong_dtype_is_a_type_error() -> None:
    # Bug: a cotangent of the wrong dtype raised ValueError (dtypes are TypeErrors:
    # docs/design.md, section 5), and a non-array cotangent was called "output". Fixed in
    # transforms/transpose.py _check_ct and the as_operand labels.
    _, f_vjp = mg.vjp(lambda a: a * 2.0, np.ones(2))
    with pytest.raises(TypeError, match="cotangent of output must be f64"):
        f_vjp(np.ones(2, np.float32))
    with pytest.raises(TypeError, match="vjp: the cotangent of output must be an array"):
        f_vjp("ct")


def test_vmap_axis_size_of_the_wrong_kind() -> None:
    # Bug: axis_size=2.0 raised ValueError; a wrong kind is a TypeError. Fixed in vmap.
    with pytest.raises(TypeError, match="vmap: axis_size"):
        mg.vmap(lambda a: a, axis_size=2.0)


def test_broadcast_mismatch_under_a_transform() -> None:
    # Bug: x + y with shapes that do not broadcast, inside a transform, surfaced NumPy's own
    # "shape mismatch: objects cannot be broadcast" from numpy/lib/_stride_tricks_impl.py.
    # Fixed in minigrad/numpy/util.py check_broadcast, used by promote and where.
    with pytest.raises(ValueError, match=r"add: operands must broadcast.*\(3,\), \(5,\)"):
        mg.grad(lambda a: mnp.sum(a + np.ones(5)))(np.ones(3))
    with pytest.raises(ValueError, match=r"where: operands must broadcast"):
        mg.vmap(lambda a: mnp.where(np.ones(5, bool), a, 0.0))(np.ones((2, 3)))


def test_linear_transpose_of_a_product_names_itself() -> None:
    # Bug: linear_transpose(lambda x: x * x) raised "mul: transpose needs one operand to be
    # constant", naming neither linear_transpose nor what was wrong with the function. Fixed
    # in transforms/transpose.py: transpose-rule errors are reported as non-linearity.
    with pytest.raises(TypeError, match=r"linear_transpose: the function must be linear.*mul"):
        mg.linear_transpose(lambda a: a * a, np.ones(2))(np.ones(2))


def test_pytree_registration_and_flatten_results_are_checked() -> None:
    # Bugs in tree.py: register_pytree_node accepted a non-class and non-callable functions
    # (failing later as "'NoneType' object is not callable"); a flatten function returning one
    # value instead of (children, aux) gave "too many values to unpack"; tree_unflatten of a
    # non-treedef gave an AttributeError; tree_map of a non-callable "'int' object is not
    # callable". Each now raises a TypeError naming the function and the argument.
    class Node:
        pass

    with pytest.raises(TypeError, match="register_pytree_node: nodetype must be a class"):
        mg.register_pytree_node(Node(), lambda n: ((), None), lambda aux, c: Node())
    with pytest.raises(TypeError, match="register_pytree_node: unflatten_func must be a callable"):
        mg.register_pytree_node(Node, lambda n: ((), None), None)
    mg.register_pytree_node(Node, lambda n: [1, 2, 3], lambda aux, c: Node())
    with pytest.raises(TypeError, match="flatten function registered for Node must return"):
        mg.tree_leaves(Node())
    with pytest.raises(TypeError, match="tree_unflatten: treedef must be a PyTreeDef"):
        mg.tree_unflatten(None, [])
    with pytest.raises(TypeError, match="tree_map: f must be a callable"):
        mg.tree_map(None, [1])


def test_cli_negative_seed_and_unknown_op_before_loading(capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    # Bugs in the command line: --seed -1 reached NumPy and came back as "internal error:
    # ValueError: expected non-negative integer" (fixed in cli.py: the --seed type rejects
    # negatives); crosscheck checked its op names only after importing the framework, so a
    # typo with jax missing said "jax is not installed" (fixed in crosscheck.py main).
    from minigrad.tools.cli import main

    assert main(["check", "--seed", "-1", "tanh"]) == 2
    assert "argument --seed: must be a non-negative int; got -1" in capsys.readouterr().err
    assert main(["crosscheck", "--against", "jax", "index_put"]) == 2
    assert "crosscheck: unknown op 'index_put'" in capsys.readouterr().err

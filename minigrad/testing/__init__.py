"""Rule checkers, usable on any function or primitive (minigrad's own tests use them too).

Three oracles, one per kind of rule:

* ``check_jvp``: the JVP against central finite differences;
* ``check_vjp``: the dot-product test ``<J v, w> == <v, J^T w>``, with ``J v`` from finite
  differences, so the VJP is checked independently of the JVP;
* ``check_vmap``: ``vmap(f)`` against a Python loop over the batch and ``np.stack``.

``check_primitive`` runs all of them over a primitive's samples (``samples_for``): the impl
against a loop reference, the shape rule against the impl, the JVP, each transpose rule, the
batching rule for every combination of batched operands, ``vmap(grad)`` against a loop of
``grad``, ``grad`` of ``grad``, and the staged forms of all of these (``staged_programs``
traces them with ``make_jaxpr``, so every shape rule runs; then ``minigrad.jaxpr.typecheck``).
``register`` makes a primitive of your own known to ``python -m minigrad check --module``. The
sample generators of the five ops are re-exported here (``op_samples``, ``samples_for``,
``Sample``), so one import gives a test suite everything.

For a function of your own, ``per_example_grads`` gives its per-example gradients as NumPy
arrays, and ``assert_matches(other_fn, minigrad_fn, args, framework="torch")`` checks another
framework's values, VJP, JVP, ``vmap`` and ``vmap(grad)`` of it against minigrad's (``oracle``).

The subpackage holds ``checks`` (the checkers), ``staged`` (the staged forms), ``samples``
(``Sample`` and the five ops' op samples), ``records`` (the op records of the base primitives,
and ``samples_for``), ``oracle`` and ``situations`` (the checks of a user's function, and which
documented divergences apply to it), ``frameworks`` (the torch and jax adapters) and
``divergences`` (where they differ from minigrad, documented).

>>> import numpy as np, minigrad as mg
>>> from minigrad.testing import check_grads, check_vmap
>>> check_grads(lambda x: mg.numpy.sin(x) * x, [np.array([0.5, 1.0])])
>>> check_vmap(lambda x: x * 2.0, [np.ones((3, 2))], (0,))
0.0
"""

from minigrad.testing.checks import (
    CheckResult,
    all_in_axes,
    batch_args,
    check_grads,
    check_jvp,
    check_primitive,
    check_vjp,
    check_vmap,
    numerical_jvp,
)
from minigrad.testing.oracle import assert_matches, per_example_grads
from minigrad.testing.records import samples_for
from minigrad.testing.samples import OPS, Sample, op_samples, primitives, register, registered
from minigrad.testing.staged import staged_programs

__all__ = ["OPS", "CheckResult", "Sample", "all_in_axes", "assert_matches", "batch_args",
           "check_grads", "check_jvp", "check_primitive", "check_vjp", "check_vmap",
           "numerical_jvp", "op_samples", "per_example_grads", "primitives", "register",
           "registered", "samples_for", "staged_programs"]

"""The documented divergences: where PyTorch or JAX differ from minigrad on the five ops, on
purpose or by a known bug, each with the condition under which it applies and the reason.

``python -m minigrad crosscheck`` classifies each mismatch with them, ``assert_matches`` names
the one that explains a failure on a user's function, and the golden vectors' manifest lists
those that apply to each file. A ``Situation`` is what a condition looks at: one comparison
(``check``) of one call of an op, with which of its arguments are batched, 0-d, and so on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

CHECKS = ("forward", "vjp", "jvp", "jacfwd", "jacrev", "vmap", "vmap(grad)", "negative-index",
          "in-place", "in-place vmap(grad)")


@dataclass(frozen=True)
class Situation:
    """What a divergence's condition looks at: one comparison of one sample."""

    op: str
    check: str
    batched: frozenset[str] = frozenset()  # names of the batched arguments (vmap checks)
    duplicates: bool = False  # a repeated index entry, in some example
    value_array: bool = False  # the fill value is an array operand, not a Python scalar
    zero_d: frozenset[str] = frozenset()  # names of the arguments that are 0-d (per example)
    ragged_unique: bool = False  # the examples' indices differ in their counts of distinct entries
    empty: frozenset[str] = frozenset()  # names of the arguments with no elements (per example)


@dataclass(frozen=True)
class Divergence:
    """A documented difference between minigrad and ``framework`` on ``op`` for ``checks``,
    when ``condition`` holds (``when`` decides it). ``kind`` "info" is no mismatch of values.
    ``affects`` names what differs: ``out`` for the output, an argument's name for its
    derivative; () for everything the check computes (an error, or no narrower claim)."""

    id: str
    framework: str
    op: str
    checks: tuple[str, ...]
    condition: str
    reason: str
    when: Callable[[Situation], bool] = field(default=lambda s: True, compare=False)
    kind: str = "divergence"
    affects: Callable[[Situation], tuple[str, ...]] = field(default=lambda s: (), compare=False)


DIVERGENCES: list[Divergence] = [
    Divergence(
        "torch-index_copy-duplicates", "torch", "index_copy",
        ("vjp", "jacrev", "vmap(grad)", "in-place vmap(grad)"),
        "index has a repeated entry",
        "PyTorch's index_copy VJP gives every duplicate source slice the cotangent of its "
        "destination (derivatives.yaml: grad.index_select(dim, index)), although only the last "
        "write survives; minigrad gives it to the winner only, so its VJP is the transpose of "
        "its forward (PyTorch's own jacfwd and jacrev disagree here; pytorch#473)",
        lambda s: s.duplicates, affects=lambda s: ("source",)),
    Divergence(
        "torch-index_copy-0d-source", "torch", "index_copy",
        ("jacrev", "vmap(grad)", "in-place vmap(grad)"),
        "a 0-d source into an x of rank 1",
        "under torch.func.vmap, PyTorch's source gradient for a 0-d source "
        "(grad.index_select(dim, index.squeeze(0))) comes out multiplied by x.size(dim): "
        "jacrev gives 5 for an x of 5 elements, where autograd and torch.func.grad give 1 "
        "(seen in torch 2.13)",
        lambda s: "source" in s.zero_d and "x" not in s.zero_d, affects=lambda s: ("source",)),
    Divergence(
        "torch-index_fill-batched-value", "torch", "index_fill", ("vmap", "vmap(grad)"),
        "value batched, x not batched, index not empty",
        "torch.func's index_fill batching rule loops over a batched value writing into an "
        "expanded (stride-0) copy of the unbatched x, one buffer all examples share: each "
        "example shows every example's fills, so with an unbatched index every example gets "
        "the last example's value (seen in torch 2.13)",
        lambda s: "value" in s.batched and "x" not in s.batched and "index" not in s.empty,
        # x's gradient is wrong only where other examples' slices land in this one's
        affects=lambda s: ("out", "value") + (
            ("x",) if "index" in s.batched and "x" not in s.zero_d else ())),
    Divergence(
        "torch-index_fill-unique", "torch", "index_fill", ("vmap(grad)", "in-place vmap(grad)"),
        "index batched, value differentiable, the examples' counts of distinct entries differ",
        "PyTorch's value gradient deduplicates the index with _unique, which has no batching "
        "rule: torch.func loops and fails to stack when the examples' counts of distinct "
        "entries differ",
        lambda s: "index" in s.batched and s.value_array and s.ragged_unique),
    Divergence(
        "torch-index_fill-negative", "torch", "index_fill", ("negative-index",),
        "an index entry of -1",
        "PyTorch's index_fill wraps negative entries (and its backward then rejects them); "
        "minigrad rejects them everywhere, like PyTorch's index_add and index_copy"),
    Divergence(
        "torch-index_fill-unique-loop", "torch", "index_fill", ("vmap(grad)",),
        "index batched, value differentiable, the examples' counts of distinct entries agree",
        "torch.func loops over _unique (no batching rule) in the value gradient; where the "
        "examples' counts of distinct entries agree, the values agree",
        lambda s: "index" in s.batched and s.value_array and not s.ragged_unique, kind="info"),
    Divergence(
        "torch-masked_scatter-loop", "torch", "masked_scatter",
        ("jacfwd", "jacrev", "vmap", "vmap(grad)"), "vmapped (jacfwd and jacrev vmap too)",
        "torch.func has no batching rule for masked_scatter (nor masked_scatter_backward) and "
        "loops over the batch; the values agree, only the speed differs",
        kind="info"),
    Divergence(
        "torch-masked_fill-loop", "torch", "masked_fill", ("jacfwd", "vmap", "vmap(grad)"),
        "an array value, vmapped",
        "torch.func has no batching rule for masked_fill.Tensor and loops over the batch; the "
        "values agree, only the speed differs",
        lambda s: s.value_array, kind="info"),
    Divergence(
        "torch-inplace-unbatched-self", "torch", "*", ("in-place vmap(grad)",),
        "x not batched, an update batched",
        "torch.func refuses to write a batched value into an unbatched tensor in place "
        "(\"vmap: inplace arithmetic(self, *extra_args) is not possible\"); minigrad rebinds "
        "the tracer to the out-of-place result, which may be batched",
        lambda s: "x" not in s.batched and bool(s.batched)),
    Divergence(
        "torch-index_fill-negative-inplace", "torch", "index_fill", ("in-place",),
        "an index entry of -1",
        "PyTorch's index_fill_ wraps negative entries, as its index_fill does; minigrad "
        "rejects them"),
    Divergence(
        "jax-negative-index", "jax", "*", ("negative-index",), "an index entry of -1",
        "JAX's .at[] indexing wraps negative entries (NumPy's convention); minigrad rejects "
        "them"),
    Divergence(
        "jax-masked_scatter-composition", "jax", "masked_scatter", CHECKS,
        "always",
        "JAX has no masked_scatter: the comparison is with the composition where(mask, "
        "take(source.ravel(), cumsum(mask) - 1), x), the static-shape form of jnp.place",
        kind="info"),
]


def has_duplicates(index: Any, batched: bool = False) -> bool:
    """Whether ``index`` (each example ``index[b]``, if ``batched``) repeats an entry. A 0-d
    index is one entry: it cannot."""
    examples = np.asarray(index) if batched else np.asarray(index)[None]
    if examples.ndim < 2 or examples.size == 0:
        return False
    rows = examples.reshape(-1, examples.shape[-1])
    return any(len(set(r.tolist())) < len(r) for r in rows)


def distinct_counts_differ(index: Any) -> bool:
    """Whether the examples of a batched ``index`` (examples on axis 0) differ in their counts
    of distinct entries, which is where torch.func's loop over ``_unique`` fails to stack."""
    index = np.asarray(index)
    if index.ndim < 2 or index.shape[0] < 2:
        return False
    return len({len(set(r.tolist())) for r in index}) > 1


def situation(op: str, names: Sequence[str], args: Sequence[Any], check: str = "",
              batched: frozenset[str] = frozenset(), batch: Sequence[Any] | None = None
              ) -> Situation:
    """What the records' conditions look at, for ``check`` of one call of ``op`` on ``args``
    (one example, named ``names``). A batched check passes ``batch``: the call's arguments
    with those in ``batched`` stacked on axis 0, whose examples' indices decide the
    duplicates and the counts of distinct entries."""
    named = dict(zip(names, args, strict=True))
    index = None
    if "index" in named:
        index = named["index"] if batch is None else batch[list(names).index("index")]
    mapped = "index" in batched
    return Situation(op, check, batched=batched,
                     duplicates=index is not None and has_duplicates(index, batched=mapped),
                     value_array="value" in named,
                     zero_d=frozenset(n for n, a in named.items() if np.ndim(a) == 0),
                     ragged_unique=mapped and distinct_counts_differ(index),
                     empty=frozenset(n for n, a in named.items() if np.size(a) == 0))


def applicable(framework: str, situation: Situation, kind: str = "divergence"
               ) -> list[Divergence]:
    """Every record of ``kind`` whose condition holds in ``situation`` for ``framework``."""
    return [d for d in DIVERGENCES
            if d.framework == framework and d.kind == kind and d.op in (situation.op, "*")
            and situation.check in d.checks and d.when(situation)]


def documented(framework: str, situation: Situation, kind: str = "divergence"
               ) -> Divergence | None:
    """The record that documents ``situation`` for ``framework``, if any."""
    found = applicable(framework, situation, kind)
    return found[0] if found else None


__all__ = ["CHECKS", "DIVERGENCES", "Divergence", "Situation", "applicable",
           "distinct_counts_differ", "documented", "has_duplicates", "situation"]

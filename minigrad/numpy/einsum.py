"""``einsum``: any number of operands, as pairwise contractions over the ``dot`` primitive.

The subscripts are parsed once per signature (``_plan``, cached): ``...`` becomes fresh
letters, right-aligned as NumPy broadcasts; a size-1 axis whose letter is larger elsewhere is
squeezed (the operand is constant along it); a letter repeated within one operand takes the
diagonal of those axes (a strided slice); a letter in one operand only, and not in the output,
is summed out first. The operands are then contracted two at a time along a path: NumPy's
``einsum_path`` for ``optimize`` ``'greedy'``, ``'optimal'``, ``True`` and ``'auto'`` (optimal
up to four operands, greedy above, like opt_einsum's 'auto' that JAX uses), left to right for
``False``, or an explicit path. Each contraction is one ``dot``; the last one writes the output
order directly.
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple, Sequence

import numpy as np

from minigrad.core import get_aval
from minigrad.dtypes import default_int_dtype
from minigrad.numpy.contractions import LETTERS, operands
from minigrad.numpy.util import ArrayLike, copy_of
from minigrad.ops import elementwise as ew
from minigrad.ops import structural as st

__all__ = ["einsum", "einsum_path"]


class _Plan(NamedTuple):
    inputs: tuple[str, ...]  # each operand's letters, ellipsis expanded
    output: str
    sizes: dict[str, int]
    path: tuple[tuple[int, ...], ...]
    direct: str | None  # two operands that need no preparation: one ``dot`` with these


def _split_term(term: str, ndim: int, k: int, subscripts: str) -> tuple[str, int]:
    """A term's letters with ``.`` standing for the ellipsis, and the ellipsis's rank."""
    if term.count("...") > 1 or term.replace("...", "").count("."):
        raise ValueError(f"einsum: subscripts {subscripts!r}: an ellipsis is written '...', "
                         f"at most once per operand; got {term!r}")
    named = len(term.replace("...", ""))
    if "..." in term:
        if named > ndim:
            raise ValueError(f"einsum: subscripts {subscripts!r} name {named} axes of operand "
                             f"{k}, which has {ndim}")
        return term.replace("...", "."), ndim - named
    if named != ndim:
        raise ValueError(f"einsum: subscripts {subscripts!r} name {named} axes of operand "
                         f"{k} ({term!r}), which has {ndim}")
    return term, 0


@functools.lru_cache(maxsize=1024)
def _plan(subscripts: str, shapes: tuple[tuple[int, ...], ...], optimize: Any) -> _Plan:
    s = subscripts.replace(" ", "")
    bad = sorted({c for c in s if not (c in LETTERS or c in ",.->")})
    if bad or s.count("->") > 1 or s.replace("->", "").count("-") or \
            s.replace("->", "").count(">"):
        raise ValueError(f"einsum: subscripts {subscripts!r} may hold letters, ',', '...' and "
                         f"one '->'" + (f"; got {''.join(bad)!r}" if bad else ""))
    lhs, arrow, rhs = s.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        raise ValueError(f"einsum: subscripts {subscripts!r} name {len(terms)} operand(s); "
                         f"got {len(shapes)}")
    split = [_split_term(t, len(shape), k, subscripts)
             for k, (t, shape) in enumerate(zip(terms, shapes, strict=True))]
    rank = max((e for _, e in split), default=0)
    fresh = "".join(c for c in LETTERS if c not in s)[:rank]
    inputs = tuple(t.replace(".", fresh[rank - e:]) for t, e in split)
    sizes: dict[str, int] = {}
    where: dict[str, int] = {}
    for k, (term, shape) in enumerate(zip(inputs, shapes, strict=True)):
        for c, n in zip(term, shape, strict=True):
            if c in sizes and n != sizes[c] and 1 not in (n, sizes[c]):
                raise ValueError(f"einsum: index {c!r} has size {sizes[c]} in operand "
                                 f"{where[c]} (shape {shapes[where[c]]}) and {n} in operand "
                                 f"{k} (shape {shape}); subscripts {subscripts!r}")
            if c not in sizes or sizes[c] == 1:
                sizes[c], where[c] = n, k
    if arrow:
        if rhs.count("...") > 1 or rhs.replace("...", "").count("."):
            raise ValueError(f"einsum: subscripts {subscripts!r}: the output may hold one "
                             f"'...'")
        output = rhs.replace("...", fresh)
        for c in output:
            if c not in sizes:
                raise ValueError(f"einsum: output index {c!r} of subscripts {subscripts!r} "
                                 f"names no input axis")
        if len(set(output)) != len(output):
            raise ValueError(f"einsum: subscripts {subscripts!r} repeat an output index")
    else:  # NumPy's implicit output: the broadcast axes, then the letters used once, sorted
        counts = "".join(inputs)
        output = fresh + "".join(sorted(c for c in set(counts) if counts.count(c) == 1
                                        and c not in fresh))
    direct = None
    if len(inputs) == 2:
        three = (*inputs, output)
        letters = set("".join(three))
        if all(len(set(t)) == len(t) for t in three) and \
                all(sum(c in t for t in three) >= 2 for c in letters) and \
                all(n == sizes[c] for t, shape in zip(inputs, shapes, strict=True)
                    for c, n in zip(t, shape, strict=True)):
            direct = f"{inputs[0]},{inputs[1]}->{output}"
    return _Plan(inputs, output, sizes, _path(inputs, output, sizes, optimize), direct)


def _path(inputs: tuple[str, ...], output: str, sizes: dict[str, int], optimize: Any
          ) -> tuple[tuple[int, ...], ...]:
    n = len(inputs)
    if isinstance(optimize, (list, tuple)):
        steps = [tuple(p) for p in optimize if p != "einsum_path"]
        left = n
        for step in steps:
            if not step or len(set(step)) != len(step) or min(step) < 0 or max(step) >= left:
                raise ValueError(f"einsum: each step of the path must name distinct operands; "
                                 f"got step {step!r} with {left} operands left")
            left -= len(step) - 1
        if n and left != 1:
            raise ValueError(f"einsum: the path leaves {left} operands; it must contract them "
                             f"all")
        return tuple(steps)
    how = {"auto": "optimal" if n <= 4 else "greedy", True: "greedy"}.get(optimize, optimize)
    if how not in ("greedy", "optimal", False, None):
        raise ValueError(f"einsum: optimize must be 'auto', 'greedy', 'optimal', a bool or a "
                         f"path; got {optimize!r}")
    if n < 2:
        return ()
    if how is False or how is None:
        return ((0, 1),) * (n - 1)
    # (einsum_path reads shapes only: zero-stride stand-ins cost no memory)
    dummies = [np.broadcast_to(np.zeros(()), [sizes[c] for c in t]) for t in inputs]
    path, _ = np.einsum_path(f"{','.join(inputs)}->{output}", *dummies, optimize=how)
    return tuple(tuple(p) for p in path[1:])


# --------------------------------------------------------------------------- the steps


def _diagonal(x: Any, letters: str, c: str) -> tuple[Any, str]:
    """The diagonal over the first two axes labelled ``c``, as one axis labelled ``c`` at the
    end: those two axes moved last, flattened, every (n+1)-th element."""
    i = letters.index(c)
    j = letters.index(c, i + 1)
    nd = len(letters)
    order = [k for k in range(nd) if k not in (i, j)] + [i, j]
    x = st.transpose(x, order)
    shape = get_aval(x).shape
    n, m = shape[-2:]
    if n != m:
        raise ValueError(f"einsum: index {c!r} repeated within one operand needs equal sizes; "
                         f"got {n} and {m}")
    flat = st.reshape(x, (*shape[:-2], n * m))
    nb = len(shape) - 2
    diag = st.slice_array(flat, (0,) * (nb + 1), (*shape[:-2], n * m), (1,) * nb + (n + 1,))
    rest = "".join(letters[k] for k in order[:-2])
    return diag, rest + c


def _squeeze(x: Any, letters: str, sizes: dict[str, int]) -> tuple[Any, str]:
    """An operand with its size-1 axes squeezed where the letter is larger elsewhere (NumPy
    broadcasts them: the operand is constant along them)."""
    shape = get_aval(x).shape
    ones = [k for k, (c, n) in enumerate(zip(letters, shape, strict=True))
            if n == 1 and sizes[c] != 1]
    if not ones:
        return x, letters
    return st.squeeze(x, ones), "".join(c for k, c in enumerate(letters) if k not in ones)


def _prepare(x: Any, letters: str, keep: str) -> tuple[Any, str]:
    """An operand with its repeated letters reduced to diagonals and its letters not in
    ``keep`` summed out."""
    for c in sorted(set(letters), key=letters.index):
        while letters.count(c) > 1:
            x, letters = _diagonal(x, letters, c)
    summed = [k for k, c in enumerate(letters) if c not in keep]
    if summed:
        x = st.reduce_sum(x, summed)
        letters = "".join(c for k, c in enumerate(letters) if k not in summed)
    return x, letters


def _contract(x: Any, xl: str, y: Any, yl: str, keep: str, out: str | None) -> tuple[Any, str]:
    """One ``dot`` of two prepared operands: the letters in ``keep`` survive (in the order
    ``out`` if given), the others shared by both are contracted."""
    kept = out if out is not None else "".join(dict.fromkeys(c for c in xl + yl if c in keep))
    return ew.dot(x, y, f"{xl},{yl}->{kept}"), kept


def einsum(subscripts: Any, /, *operands_: Any, out: None = None, optimize: Any = "auto",
           precision: Any = None, preferred_element_type: Any = None,
           _dot_general: Any = None) -> Any:
    """NumPy's ``einsum``, with JAX's keywords: explicit (``'ij,jk->ik'``) and implicit
    (``'ij,jk'``) output, ``...``, repeated indices within an operand (traces, diagonals),
    size-1 broadcasting, and the interleaved form ``einsum(x, [0, 1], y, [1, 2], [0, 2])``.

    >>> import minigrad.numpy as mnp
    >>> mnp.einsum("ii->", mnp.eye(3))
    Array(3., dtype=float64)
    """
    if out is not None:
        raise NotImplementedError("einsum: out= is not supported (arrays are immutable)")
    if _dot_general is not None:
        raise NotImplementedError("einsum: _dot_general is not supported (contractions bind "
                                  "minigrad's dot primitive)")
    if not isinstance(subscripts, str):
        subscripts, listed = _interleaved(subscripts, operands_)
        operands_ = tuple(listed)
    arrays = operands("einsum", *operands_, precision=precision,
                      preferred_element_type=preferred_element_type) if operands_ else []
    shapes = tuple(get_aval(x).shape for x in arrays)
    try:
        plan = _plan(subscripts, shapes, optimize if not isinstance(optimize, list)
                     else tuple(map(tuple, [p for p in optimize if p != "einsum_path"])))
    except TypeError:  # an unhashable optimize
        raise TypeError(f"einsum: optimize must be 'auto', 'greedy', 'optimal', a bool or a "
                        f"path (a list of index tuples); got {optimize!r}") from None
    if not arrays:
        raise ValueError("einsum: needs at least one operand")
    dtype = get_aval(arrays[0]).dtype
    boolean = dtype == np.bool_
    if plan.direct is not None and not boolean:  # (speed: one binding, as the path would)
        return ew.dot(arrays[0], arrays[1], plan.direct)
    if boolean:  # sums of booleans count: reduce in integers, then compare with 0
        arrays = [ew.convert_element_type(x, default_int_dtype()) for x in arrays]
    # first the broadcast size-1 axes go (so a letter may then live in one operand only),
    # then each operand's diagonals and its letters no other term needs
    squeezed = [_squeeze(x, letters, plan.sizes)
                for x, letters in zip(arrays, plan.inputs, strict=True)]
    terms = []
    for k, (x, letters) in enumerate(squeezed):
        others = "".join(t for j, (_, t) in enumerate(squeezed) if j != k)
        terms.append(_prepare(x, letters, plan.output + others))
    for step in plan.path:  # a step names operands to contract into one (NumPy's paths
        # may name three or more at once: they are contracted pairwise, left to right)
        if not step or len(set(step)) != len(step) or max(step) >= len(terms) or \
                min(step) < 0:
            raise ValueError(f"einsum: each step of the path must name distinct operands; got "
                             f"step {step!r} with {len(terms)} operands left")
        group = [terms[k] for k in step]
        terms = [t for k, t in enumerate(terms) if k not in step]
        rest = "".join(letters for _, letters in terms)
        x, xl = group[0]
        for k, (y, yl) in enumerate(group[1:], start=2):
            later = "".join(letters for _, letters in group[k:])
            last = not terms and k == len(group)
            x, xl = _contract(x, xl, y, yl, rest + later + plan.output,
                              plan.output if last else None)
        terms.append((x, xl))
    if len(terms) != 1:
        raise ValueError(f"einsum: the path leaves {len(terms)} operands; it must contract "
                         f"them all")
    (x, letters), = terms
    x = st.transpose(x, [letters.index(c) for c in plan.output])
    if boolean:
        x = ew.ne(x, st.full(get_aval(x).shape, 0, get_aval(x).dtype))
    if any(x is a for a in arrays):  # nothing bound ("ij->ij"): a new array, as NumPy's
        x = copy_of(x)
    return x


def _interleaved(first: Any, rest: Sequence[Any]) -> tuple[str, list[Any]]:
    """``einsum(op0, sub0, op1, sub1, ..., [out])``: subscripts from lists of ints (and
    Ellipsis)."""
    items = [first, *rest]
    ops, subs = items[0::2], items[1::2]
    output = None
    if len(ops) > len(subs):
        output = ops.pop()

    def spell(sub: Any) -> str:
        text = ""
        for v in sub:
            if v is Ellipsis:
                text += "..."
            elif isinstance(v, (int, np.integer)) and not isinstance(v, bool) and 0 <= v < 52:
                text += LETTERS[int(v)]
            else:
                raise ValueError(f"einsum: sublist entries must be integers in [0, 52) or "
                                 f"Ellipsis; got {v!r}")
        return text

    text = ",".join(spell(sub) for sub in subs)
    if output is not None:
        text += "->" + spell(output)
    return text, ops


def einsum_path(subscripts: str, *operands_: ArrayLike, optimize: Any = "greedy"
                ) -> tuple[list[Any], str]:
    """NumPy's ``einsum_path`` on the operands' shapes: the contraction order and its
    report (JAX returns opt_einsum's; the path is what ``einsum(optimize=path)`` takes)."""
    shapes = [np.shape(x) for x in operands_]
    dummies = [np.broadcast_to(np.zeros(()), s) for s in shapes]
    path, report = np.einsum_path(subscripts, *dummies, optimize=optimize)
    return list(path), report

"""Sample inputs: what the rule checks, ``python -m minigrad check``, the cross-checks and the
golden vectors all draw from.

A ``Sample`` draws fresh operands of fixed shapes from a NumPy generator (``make(rng)``), so a
batch for ``vmap`` is ``size`` independent draws stacked (``minigrad.testing.batch_args``). It
knows which operands are differentiable (``diff``), which groups the function is jointly linear
in (``linear``), which operands may be batched (``batchable``; an index or a mask may be, each
example then drawing its own) and an independent loop ``reference``. There are two kinds:

* **primitive samples** (``fun`` is None): operands of ``prim.bind`` with canonical parameters,
  from the op records of ``minigrad.testing.records``;
* **op samples** (``fun`` set): arguments of a user function, ``minigrad.index_add`` and the
  other four, where negative dims, 0-d arrays, broadcasting and Python-scalar values live.

``op_samples("index_add")`` gives the second kind for one of the five ops;
``minigrad.testing.samples_for(name)`` gives every sample of any primitive (both kinds for the
five).

>>> from minigrad.testing.samples import op_samples
>>> import numpy as np
>>> s = op_samples("masked_fill")[0]
>>> s.name, s.argnames, s.diff
('masked_fill:same-shape-f64', ('x', 'mask', 'value'), (0, 2))
>>> x, mask, value = s.make(np.random.default_rng(0))
>>> np.array_equal(s.call(x, mask, value), s.reference(x, mask, value, **s.params))
True
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import threading
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Callable, Sequence

import numpy as np

from minigrad.core import Primitive, dtype_name
from minigrad.ops.index_add import index_add, index_add_p
from minigrad.ops.index_copy import index_copy, index_copy_p
from minigrad.ops.index_fill import index_fill, index_fill_p
from minigrad.ops.masked_fill import masked_fill, masked_fill_p
from minigrad.ops.masked_scatter import masked_scatter, masked_scatter_p

F64 = np.dtype(np.float64)
F32 = np.dtype(np.float32)
I64 = np.dtype(np.int64)
I32 = np.dtype(np.int32)
BOTH = (F64, F32)

# The five headline ops, in the order every table lists them.
OPS = ("index_add", "index_copy", "index_fill", "masked_fill", "masked_scatter")


@dataclass
class Sample:
    """Sample inputs of one primitive (or of a user function that binds it).

    ``make(rng)`` draws fresh operands of fixed shapes; ``params`` are the static keyword
    arguments. ``diff``: positions of differentiable operands; ``linear``: groups of positions in
    which the function is jointly linear (the other operands held at their drawn values);
    ``batchable``: positions that may be batched (None: all); ``reference``: an independent NumPy
    implementation, ``reference(*operands, **params)``, compared exactly unless ``tol`` (absolute
    and relative) is set; ``fun``: the user function ``fun(*operands, **params)``, or None for
    the primitive's own ``bind``; ``argnames``: the operands' names; ``reverse``: False for a
    function with forward mode only (a ``while_loop``'s: its VJP, ``vmap(grad)`` and
    ``grad(grad)`` are not checked).
    """

    name: str
    make: Callable[[np.random.Generator], tuple]
    params: dict = field(default_factory=dict)
    diff: tuple[int, ...] = ()
    linear: tuple[tuple[int, ...], ...] = ()
    batchable: tuple[int, ...] | None = None
    reference: Callable[..., Any] | None = None
    fun: Callable[..., Any] | None = None
    argnames: tuple[str, ...] = ()
    tol: float = 0.0
    reverse: bool = True

    def function(self, prim: Primitive) -> Callable[..., Any]:
        """The function of the operands alone that this sample exercises."""
        return partial(self.fun if self.fun is not None else prim.bind, **self.params)

    def call(self, *operands: Any) -> Any:
        """``fun(*operands, **params)`` (op samples only)."""
        if self.fun is None:
            raise TypeError(f"{self.name}: a primitive sample; use sample.function(prim)")
        return self.fun(*operands, **self.params)


@dataclass
class OpRecord:
    """One sample, run once per dtype in ``dtypes``: ``make(rng, dtype)`` draws the operands.

    ``out_dtype``: the dtype the output must have; None means the dtype of the run. ``fun``,
    ``argnames`` and ``tol`` as in ``Sample`` (``fun`` set: an op sample of a user function;
    ``tol`` for a reference that cannot be bit-identical, such as a special function's).
    """

    prim: Primitive
    variant: str
    make: Callable[[np.random.Generator, np.dtype], tuple]
    reference: Callable[..., Any]
    params: dict = field(default_factory=dict)
    diff: tuple[int, ...] = ()
    linear: tuple[tuple[int, ...], ...] = ()
    batchable: tuple[int, ...] | None = None
    dtypes: tuple[np.dtype, ...] = (F64,)
    out_dtype: np.dtype | None = None
    fun: Callable[..., Any] | None = None
    argnames: tuple[str, ...] = ()
    tol: float = 0.0

    def sample(self, dtype: np.dtype) -> Sample:
        def make(rng: np.random.Generator) -> tuple:
            return self.make(rng, dtype)

        return Sample(f"{self.prim.name}:{self.variant}-{dtype_name(dtype)}", make, self.params,
                      self.diff, self.linear, self.batchable, self.reference, self.fun,
                      self.argnames, self.tol)

    def samples(self) -> list[Sample]:
        return [self.sample(dt) for dt in self.dtypes]

    def expected_dtype(self, dtype: np.dtype) -> np.dtype:
        return dtype if self.out_dtype is None else self.out_dtype


# --------------------------------------------------------------------------- operand draws


def normal(rng: np.random.Generator, shape: tuple, dtype: np.dtype) -> np.ndarray:
    return np.asarray(rng.standard_normal(shape)).astype(dtype)


def positive(rng: np.random.Generator, shape: tuple, dtype: np.dtype) -> np.ndarray:
    """In [0.5, 2]: inside the domain of log, sqrt and pow, away from its edge."""
    return np.asarray(rng.uniform(0.5, 2.0, shape)).astype(dtype)


def nonzero(rng: np.random.Generator, shape: tuple, dtype: np.dtype) -> np.ndarray:
    return (rng.choice([-1.0, 1.0], shape) * rng.uniform(0.5, 2.0, shape)).astype(dtype)


def integral(rng: np.random.Generator, shape: tuple, dtype: np.dtype) -> np.ndarray:
    """Small integers as floats: every sum of them is exact, whatever the order."""
    return rng.integers(-4, 5, shape).astype(dtype)


def distinct(rng: np.random.Generator, shape: tuple, dtype: np.dtype) -> np.ndarray:
    """Pairwise distinct values 0.5 apart: no ties for max, even after a finite-difference
    step in float32."""
    size = int(np.prod(shape, dtype=np.int64))
    return ((rng.permutation(size) - size / 2) * 0.5).reshape(shape).astype(dtype)


def apart(rng: np.random.Generator, x: np.ndarray) -> np.ndarray:
    """A partner for ``x`` at least 0.1 away from it, elementwise (no ties for max)."""
    gap = rng.choice([-1.0, 1.0], x.shape) * rng.uniform(0.1, 1.0, x.shape)
    return (x + gap).astype(x.dtype)


def with_ties(rng: np.random.Generator, x: np.ndarray) -> np.ndarray:
    """A partner for ``x`` equal to it at about a third of the positions (for comparisons)."""
    other = rng.standard_normal(x.shape).astype(x.dtype)
    return np.where(rng.random(x.shape) < 0.35, x, other)


def index_with_duplicate(rng: np.random.Generator, size: int, length: int,
                         dtype: np.dtype = I64) -> np.ndarray:
    """``length`` entries in [0, size), the last repeating the first (when there are two)."""
    index = rng.integers(0, size, length)
    if length >= 2:
        index[-1] = index[0]
    return index.astype(dtype)


def distinct_index(rng: np.random.Generator, size: int, length: int) -> np.ndarray:
    return rng.permutation(size)[:length].astype(I64)


def bool_mask(rng: np.random.Generator, shape: tuple, p: float = 0.5) -> np.ndarray:
    return np.asarray(rng.random(shape) < p)


# --------------------------------------------------------------------------- loop references
# The five ops as PyTorch documents them, one slice or element at a time, on user arguments
# (a 0-d x is one slice of size 1; dim may be negative; the masked ops broadcast).


def _slices(x: np.ndarray, dim: int) -> tuple[np.ndarray, int]:
    """A copy of ``x`` as rank >= 1, and ``dim`` made non-negative."""
    out = np.array(x, copy=True).reshape(np.shape(x) or (1,))
    return out, dim % out.ndim


def _slice_shape(x: np.ndarray, dim: int, k: int) -> tuple[int, ...]:
    shape = np.shape(x) or (1,)
    return (*shape[:dim], k, *shape[dim + 1:])


def loop_index_add(x: np.ndarray, index: np.ndarray, source: np.ndarray, *, dim: int,
                   alpha: Any = 1) -> np.ndarray:
    out, d = _slices(x, dim)
    index = np.atleast_1d(index)
    src = np.asarray(source).reshape(_slice_shape(x, d, len(index)))
    for i, j in enumerate(index):
        np.moveaxis(out, d, 0)[j] += np.asarray(alpha, out.dtype) * np.moveaxis(src, d, 0)[i]
    return out.reshape(np.shape(x))


def loop_index_copy(x: np.ndarray, index: np.ndarray, source: np.ndarray, *, dim: int
                    ) -> np.ndarray:
    """Later writes overwrite earlier ones: the last occurrence of a duplicate wins."""
    out, d = _slices(x, dim)
    index = np.atleast_1d(index)
    src = np.asarray(source).reshape(_slice_shape(x, d, len(index)))
    for i, j in enumerate(index):
        np.moveaxis(out, d, 0)[j] = np.moveaxis(src, d, 0)[i]
    return out.reshape(np.shape(x))


def loop_index_fill(x: np.ndarray, index: np.ndarray, value: Any, *, dim: int) -> np.ndarray:
    out, d = _slices(x, dim)
    for j in np.atleast_1d(index):
        np.moveaxis(out, d, 0)[j] = value
    return out.reshape(np.shape(x))


def loop_masked_fill(x: np.ndarray, mask: np.ndarray, value: Any) -> np.ndarray:
    shape = np.broadcast_shapes(np.shape(x), np.shape(mask))
    xb, mb = np.broadcast_to(x, shape), np.broadcast_to(mask, shape)
    out = np.empty(shape, np.asarray(x).dtype)
    for idx in np.ndindex(*shape):
        out[idx] = value if mb[idx] else xb[idx]
    return out


def loop_masked_scatter(x: np.ndarray, mask: np.ndarray, source: np.ndarray) -> np.ndarray:
    """True positions, in row-major order of the broadcast shape, take ``source.ravel()`` in
    order."""
    shape = np.broadcast_shapes(np.shape(x), np.shape(mask))
    out = np.array(np.broadcast_to(x, shape))
    mb = np.broadcast_to(mask, shape)
    src = np.asarray(source).ravel()
    k = 0
    for idx in np.ndindex(*shape):
        if mb[idx]:
            out[idx] = src[k]
            k += 1
    return out


def loop_masked_gather(y: np.ndarray, mask: np.ndarray, n: int) -> np.ndarray:
    out = np.zeros(n, y.dtype)
    k = 0
    for idx in np.ndindex(*y.shape):
        if mask[idx]:
            out[k] = y[idx]
            k += 1
    return out


# --------------------------------------------------------------------------- op samples


def _index_make(shape: tuple, dim: int, k: int | None, *, dup: bool = True,
                index_dtype: np.dtype = I64, source: str | None = "slices",
                value: bool = False) -> Callable[..., tuple]:
    """x of ``shape`` and an index along ``dim`` (``k`` entries, or None: a 0-d index), then a
    source (``"slices"``: x's shape with dim of size k; ``"scalar"``: 0-d) and/or a 0-d value."""
    def make(rng: np.random.Generator, dtype: np.dtype) -> tuple:
        x = normal(rng, shape, dtype)
        d = dim % max(len(shape), 1)
        n = (shape or (1,))[d]
        if k is None:
            index = np.asarray(rng.integers(0, n), index_dtype)
        elif dup:
            index = index_with_duplicate(rng, n, k, index_dtype)
        else:
            index = distinct_index(rng, n, k).astype(index_dtype)
        out: tuple = (x, index)
        if source == "slices":  # a 0-d x takes a 0-d source
            out += (normal(rng, _slice_shape(x, d, 1 if k is None else k) if shape else (), dtype),)
        elif source == "scalar":
            out += (normal(rng, (), dtype),)
        if value:
            out += (normal(rng, (), dtype),)
        return out

    return make


def _mask_make(x_shape: tuple, mask_shape: tuple, *, source: int | None = None,
               value: bool = False, p: float = 0.5) -> Callable[..., tuple]:
    """x, a bool mask (probability ``p`` of True) and a source of shape ``source`` elements or
    a 0-d value. A source always has at least the broadcast size, so no draw of the mask can
    outrun it."""
    def make(rng: np.random.Generator, dtype: np.dtype) -> tuple:
        out: tuple = (normal(rng, x_shape, dtype), bool_mask(rng, mask_shape, p))
        if source is not None:
            out += (normal(rng, (source,), dtype),)
        if value:
            out += (normal(rng, (), dtype),)
        return out

    return make


def _source_2d(make: Callable[..., tuple], rows: int) -> Callable[..., tuple]:
    """The same draw with the source reshaped to ``rows`` rows: only its element count counts."""
    def reshaped(rng: np.random.Generator, dtype: np.dtype) -> tuple:
        x, mask, source = make(rng, dtype)
        return x, mask, source.reshape(rows, -1)

    return reshaped


def _fn_index_add(x: Any, index: Any, source: Any, *, dim: int, alpha: Any = 1) -> Any:
    return index_add(x, dim, index, source, alpha)


def _fn_index_copy(x: Any, index: Any, source: Any, *, dim: int) -> Any:
    return index_copy(x, dim, index, source)


def _fn_index_fill(x: Any, index: Any, value: Any, *, dim: int) -> Any:
    return index_fill(x, dim, index, value)


def _fn_index_fill_scalar(x: Any, index: Any, *, dim: int, value: Any) -> Any:
    return _fn_index_fill(x, index, value, dim=dim)


def _fn_masked_fill(x: Any, mask: Any, value: Any) -> Any:
    return masked_fill(x, mask, value)


def _fn_masked_fill_scalar(x: Any, mask: Any, *, value: Any) -> Any:
    return _fn_masked_fill(x, mask, value)


def _fn_masked_scatter(x: Any, mask: Any, source: Any) -> Any:
    return masked_scatter(x, mask, source)


def _ref_index_fill_scalar(x: np.ndarray, index: np.ndarray, *, dim: int, value: Any
                           ) -> np.ndarray:
    return loop_index_fill(x, index, value, dim=dim)


def _ref_masked_fill_scalar(x: np.ndarray, mask: np.ndarray, *, value: Any) -> np.ndarray:
    return loop_masked_fill(x, mask, value)


def _op_records() -> dict[str, list[OpRecord]]:

    def index_add(variant: str, make: Callable, dim: int, alpha: Any = 1,
                  dtypes: tuple = (F64,)) -> OpRecord:
        return OpRecord(index_add_p, variant, make, loop_index_add, {"dim": dim, "alpha": alpha},
                        (0, 2), ((0, 2),), None, dtypes, fun=_fn_index_add,
                        argnames=("x", "index", "source"))

    def index_copy(variant: str, make: Callable, dim: int, dtypes: tuple = (F64,)) -> OpRecord:
        return OpRecord(index_copy_p, variant, make, loop_index_copy, {"dim": dim}, (0, 2),
                        ((0, 2),), None, dtypes, fun=_fn_index_copy,
                        argnames=("x", "index", "source"))

    def index_fill(variant: str, make: Callable, dim: int, dtypes: tuple = (F64,)) -> OpRecord:
        return OpRecord(index_fill_p, variant, make, loop_index_fill, {"dim": dim}, (0, 2),
                        ((0, 2),), None, dtypes, fun=_fn_index_fill,
                        argnames=("x", "index", "value"))

    def masked_fill(variant: str, make: Callable, dtypes: tuple = (F64,)) -> OpRecord:
        return OpRecord(masked_fill_p, variant, make, loop_masked_fill, {}, (0, 2), ((0, 2),),
                        None, dtypes, fun=_fn_masked_fill, argnames=("x", "mask", "value"))

    def masked_scatter(variant: str, make: Callable, dtypes: tuple = (F64,)) -> OpRecord:
        return OpRecord(masked_scatter_p, variant, make, loop_masked_scatter, {}, (0, 2),
                        ((0, 2),), None, dtypes, fun=_fn_masked_scatter,
                        argnames=("x", "mask", "source"))

    return {
        "index_add": [
            index_add("dup", _index_make((5, 3), 0, 6), 0, 1, BOTH),
            index_add("neg-dim-alpha", _index_make((2, 4, 3), -2, 3, index_dtype=I32), -2, -2.5),
            index_add("0-d", _index_make((), -1, None), -1, 2),
            index_add("empty-index", _index_make((4, 2), 0, 0), 0),
            index_add("empty-x", _index_make((0, 3), 1, 2), 1, 0.5),
        ],
        "index_copy": [
            index_copy("dup", _index_make((3, 4), 1, 5), 1, BOTH),
            index_copy("neg-dim", _index_make((3, 2, 4), -1, 2, dup=False), -1),
            index_copy("0-d", _index_make((), 0, None), 0),
            index_copy("scalar-source", _index_make((5,), 0, 1, source="scalar"), 0),
            index_copy("empty-index", _index_make((4, 2), 0, 0), 0),
        ],
        "index_fill": [
            index_fill("dup", _index_make((3, 4), 1, 3, source=None, value=True), 1, BOTH),
            index_fill("neg-dim", _index_make((2, 3, 4), -3, 1, source=None, value=True), -3),
            index_fill("0-d", _index_make((), -1, None, source=None, value=True), -1),
            index_fill("empty-index", _index_make((4, 2), 1, 0, source=None, value=True), 1),
            # a Python-scalar value is a constant: the op is affine in x, so no linear group
            OpRecord(index_fill_p, "scalar-value", _index_make((4, 3), -2, 3, source=None),
                     _ref_index_fill_scalar, {"dim": -2, "value": 1.5}, (0,), (), None, BOTH,
                     fun=_fn_index_fill_scalar, argnames=("x", "index")),
        ],
        "masked_fill": [
            masked_fill("same-shape", _mask_make((3, 4), (3, 4), value=True), BOTH),
            masked_fill("x-broadcasts", _mask_make((4,), (3, 4), value=True)),
            masked_fill("both-broadcast", _mask_make((2, 1), (3,), value=True)),
            masked_fill("0-d-x", _mask_make((), (2, 3), value=True)),
            masked_fill("0-d-mask", _mask_make((2, 3), (), value=True)),
            masked_fill("empty", _mask_make((0, 3), (3,), value=True)),
            OpRecord(masked_fill_p, "scalar-value", _mask_make((3, 4), (3, 4)),
                     _ref_masked_fill_scalar, {"value": -1.0}, (0,), (), None, BOTH,
                     fun=_fn_masked_fill_scalar, argnames=("x", "mask")),
        ],
        "masked_scatter": [
            masked_scatter("same-shape", _source_2d(_mask_make((3, 4), (3, 4), source=14), 2),
                           BOTH),
            masked_scatter("x-broadcasts", _mask_make((4,), (3, 4), source=13)),
            masked_scatter("mask-broadcasts", _source_2d(_mask_make((3, 4), (4,), source=15),
                                                         3)),
            masked_scatter("0-d-x", _mask_make((), (2, 3), source=6)),
            masked_scatter("0-d", _mask_make((), (), source=1)),
            masked_scatter("all-false-empty-source", _mask_make((2, 3), (2, 3), source=0, p=0)),
        ],
    }


_OP_RECORDS: dict[str, list[OpRecord]] | None = None
_OP_RECORDS_LOCK = threading.Lock()


def op_records() -> dict[str, list[OpRecord]]:
    """The op records of the five ops, by op name (built on first use, once, whichever thread
    asks first)."""
    global _OP_RECORDS
    with _OP_RECORDS_LOCK:
        if _OP_RECORDS is None:
            _OP_RECORDS = _op_records()
        return _OP_RECORDS


def op_samples(op: str) -> list[Sample]:
    """The op samples of one of the five ops (every variant at every dtype): duplicates,
    negative dims, 0-d and empty arrays, broadcasting, float64 and float32."""
    if op not in OPS:
        raise ValueError(f"op_samples: op must be one of {', '.join(OPS)}; got {op!r}")
    return [s for r in op_records()[op] for s in r.samples()]


# --------------------------------------------------------------------------- the registry


def primitives() -> dict[str, Primitive]:
    """Every primitive defined in a module of ``minigrad.ops``, ``jit``, the control-flow
    primitives of ``minigrad.lax``, and every primitive registered with ``register``, by
    name."""
    found = _builtin()
    with _lock:
        found.update({name: r.prim for name, r in _registered.items()})
    return dict(sorted(found.items()))


def _builtin() -> dict[str, Primitive]:
    import minigrad.ops
    from minigrad.lax.conditionals import cond_p
    from minigrad.lax.loops import scan_p
    from minigrad.lax.remat import remat_p
    from minigrad.lax.while_loop import while_p
    from minigrad.staging import jit_p

    found: dict[str, Primitive] = {p.name: p for p in (jit_p, cond_p, scan_p, while_p, remat_p)}
    for info in sorted(pkgutil.iter_modules(minigrad.ops.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"minigrad.ops.{info.name}")
        for value in vars(module).values():
            if isinstance(value, Primitive):
                found.setdefault(value.name, value)
    return found


@dataclass
class Registration:
    """A primitive defined outside minigrad, with its samples, the module that registered it
    and a description for ``explain``."""

    prim: Primitive
    samples: list[Sample]
    module: str
    doc: str


_registered: dict[str, Registration] = {}
_lock = threading.Lock()


def register(prim: Primitive, samples: Sequence[Sample], *, doc: str = "") -> Primitive:
    """Make a primitive of your own, with its samples, known to minigrad's tools:
    ``python -m minigrad check --module yourpkg.ops`` (and ``explain --module``) import the
    module and check every primitive it registered, as they check minigrad's own. Call it at
    import time, in the module that defines the primitive; registering a name again replaces
    the entry (a reloaded module). Returns ``prim``.

    >>> import numpy as np
    >>> from minigrad.core import Primitive
    >>> from minigrad.testing import Sample, register
    >>> cube_p = Primitive("my_cube")
    >>> _ = register(cube_p, [Sample("3", lambda rng: (rng.standard_normal(3),), diff=(0,))],
    ...              doc="x ** 3, elementwise")
    """
    if not isinstance(prim, Primitive):
        raise TypeError(f"register: prim must be a minigrad Primitive; got {type(prim).__name__}")
    samples = list(samples)
    bad = next((x for x in samples if not isinstance(x, Sample)), None)
    if bad is not None:
        raise TypeError(f"register: samples must be minigrad.testing.Sample objects; got "
                        f"{type(bad).__name__}")
    builtin = _builtin()
    if builtin.get(prim.name, prim) is not prim:
        raise ValueError(f"register: {prim.name!r} is the name of one of minigrad's own "
                         f"primitives; give yours another name")
    caller = sys._getframe(1).f_globals.get("__name__", "")  # the registering module
    with _lock:
        _registered[prim.name] = Registration(prim, samples, caller, doc)
    return prim


def registered(module: str | None = None) -> dict[str, Registration]:
    """The registrations, by primitive name: all, or those made by ``module`` (or one of its
    submodules)."""
    with _lock:
        return {n: r for n, r in _registered.items()
                if module is None or r.module == module or r.module.startswith(module + ".")}


__all__ = ["BOTH", "F32", "F64", "OPS", "OpRecord", "Sample", "bool_mask", "loop_index_add",
           "loop_index_copy", "loop_index_fill", "loop_masked_fill", "loop_masked_gather",
           "loop_masked_scatter", "op_records", "op_samples", "primitives", "register",
           "registered"]

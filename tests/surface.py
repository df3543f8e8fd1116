"""The function records of the NumPy surface: one record per function (or per way of calling
it), and the checks every record gets (``tests/test_numpy_surface.py`` runs them).

A record names a public function by its JAX path ("sin", "linalg.solve", "nn.softmax",
"scipy.special.logsumexp") and says how to draw its arguments. From that alone it gets:

* eager: the result is a ``minigrad.Array`` (every leaf), equal to NumPy's (or SciPy's) function
  of the same name, dtype included, unless the record says NumPy has no twin;
* jit: ``jit(f)`` equals eager, dtype included;
* jvp and vjp: against central finite differences and by the dot-product test (float64);
* vmap: against a loop over examples, for every combination of batched array arguments;
* vmap(grad): per-example gradients against a loop of grad;
* jax (when installed, with x64): values, and the gradient of a random projection, equal to
  ``jax.numpy``'s (or jax.nn's, jax.scipy's) at the drawn arguments and at the record's edge
  points (kinks, ties, zeros, infinities).

Records live in ``tests/surface_records/<family>.py`` (a list ``RECORDS`` each), so families
added in parallel never touch one file. Adding a function means adding a record.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np
import pytest

import minigrad as mg
from minigrad.tree import tree_leaves

FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
F64 = (np.dtype(np.float64),)
INTS = (np.dtype(np.int32), np.dtype(np.int64))

Draw = Callable[[np.random.Generator, np.dtype], tuple]


@dataclass
class Rec:
    """How to call one public function.

    * ``name``: its JAX path, resolved in minigrad, NumPy/SciPy and JAX alike.
    * ``args(rng, dtype)``: the positional arguments, drawn for one dtype.
    * ``kwargs``: keyword arguments (static: never traced).
    * ``static``: positions among ``args`` that are static (ints, shapes, axes): closed over,
      never traced, batched or differentiated.
    * ``diff``: positions differentiated by the jvp/vjp/grad checks (default: every floating
      array argument); ``grad=False`` for functions with no derivative to check (integer or
      boolean results, or piecewise constant ones).
    * ``ref``: the NumPy reference; ``"auto"`` finds the function of the same name in NumPy (or
      SciPy), ``None`` means NumPy has none. ``ref_dtype=False`` when NumPy's result dtype
      differs on purpose (say why in ``note``).
    * ``jax``: compare with JAX's function of the same name (``jax_name`` when it differs);
      ``jax_dtype=False`` when JAX's result dtype differs on purpose (say why in ``note``).
    * ``edges``: argument tuples at edge points, compared with JAX (values and gradients).
    * ``listarg``: the function takes the drawn arrays as one list (``concatenate(arrays)``);
      the checks see a function of the arrays themselves.
    * ``jax_grad=False``: compare only values with JAX (it defines no derivative).
    """

    name: str
    args: Draw
    kwargs: dict[str, Any] = field(default_factory=dict)
    dtypes: tuple[np.dtype, ...] = FLOATS
    static: tuple[int, ...] = ()
    diff: tuple[int, ...] | None = None
    grad: bool = True
    batch: bool = True
    ref: Any = "auto"
    ref_dtype: bool = True
    jax: bool = True
    jax_name: str | None = None
    jax_dtype: bool = True
    jax_grad: bool = True
    edges: tuple[tuple, ...] = ()
    tol: float | None = None
    note: str = ""
    tag: str = ""
    listarg: bool = False  # the function takes its arrays as one list (concatenate, stack)

    @property
    def id(self) -> str:
        return self.name + (f"[{self.tag}]" if self.tag else "")

    def fn(self) -> Callable[..., Any]:
        return self._spread(resolve(mg, self.name))

    def reference(self) -> Callable[..., Any] | None:
        if self.ref != "auto":
            return None if self.ref is None else self._spread(self.ref)
        twin = numpy_twin(self.name)
        return None if twin is None else self._spread(twin)

    def jax_fn(self) -> Callable[..., Any] | None:
        import jax

        return self._spread(resolve(jax, self.jax_name or self.name))

    def _spread(self, f: Callable[..., Any]) -> Callable[..., Any]:
        if not self.listarg:
            return f
        return lambda *xs, **kw: f(list(xs), **kw)

    def draw(self, dtype: np.dtype, seed: int = 0) -> tuple:
        return self.args(np.random.default_rng(seed), dtype)

    def dynamic(self, args: Sequence[Any]) -> list[int]:
        """Positions of the traced arguments."""
        return [i for i in range(len(args)) if i not in self.static]

    def differentiable(self, args: Sequence[Any]) -> list[int]:
        if self.diff is not None:
            return list(self.diff)
        return [i for i in self.dynamic(args)
                if isinstance(args[i], np.ndarray) and args[i].dtype.kind == "f"]

    def bind(self, fn: Callable[..., Any], args: Sequence[Any], positions: Sequence[int]
             ) -> Callable[..., Any]:
        """``fn`` as a function of the arguments at ``positions`` only; the others (and the
        keyword arguments) are closed over."""
        def f(*xs: Any) -> Any:
            full = list(args)
            for p, x in zip(positions, xs, strict=True):
                full[p] = x
            return fn(*full, **self.kwargs)

        return f


def resolve(root: Any, name: str) -> Callable[..., Any]:
    """``numpy.linalg.solve`` from ``jax`` or ``minigrad`` and "linalg.solve"; a bare name is
    a numpy function, "nn.x" and "scipy.x" are found from the root."""
    parts = name.split(".")
    if parts[0] not in ("nn", "scipy", "lax", "random", "tree"):
        parts = ["numpy", *parts]
    obj = root
    for i, part in enumerate(parts):
        if not hasattr(obj, part):
            obj = importlib.import_module(".".join([root.__name__, *parts[:i + 1]]))
        else:
            obj = getattr(obj, part)
    return obj


def numpy_twin(name: str) -> Callable[..., Any] | None:
    parts = name.split(".")
    if parts[0] in ("nn", "lax", "random", "tree"):
        return None
    try:
        if parts[0] == "scipy":
            obj: Any = importlib.import_module(".".join(parts[:-1]))
            return getattr(obj, parts[-1], None)
        obj = np
        for part in parts:
            obj = getattr(obj, part)
        return obj
    except (AttributeError, ImportError):
        return None


def leaves(x: Any) -> list[Any]:
    if isinstance(x, (tuple, list)) and not hasattr(x, "_fields"):
        return [leaf for item in x for leaf in leaves(item)]
    if hasattr(x, "_fields"):  # NumPy's named results (SlogdetResult ...)
        return [leaf for item in tuple(x) for leaf in leaves(item)]
    return tree_leaves(x)


def tolerance(dtype: np.dtype, rec: Rec) -> float:
    if rec.tol is not None:
        return rec.tol
    return {np.dtype(np.float16): 1e-2, np.dtype(np.float32): 1e-5,
            np.dtype(np.complex64): 1e-5}.get(np.dtype(dtype), 1e-12)


def assert_close(actual: Any, expected: Any, tol: float, what: str, dtype: bool = True) -> None:
    a, e = leaves(actual), leaves(expected)
    assert len(a) == len(e), f"{what}: {len(a)} results, expected {len(e)}"
    for i, (x, y) in enumerate(zip(a, e, strict=True)):
        x, y = np.asarray(x), np.asarray(y)
        assert x.shape == y.shape, f"{what}, result {i}: shape {x.shape}, expected {y.shape}"
        if dtype:
            assert x.dtype == y.dtype, f"{what}, result {i}: dtype {x.dtype}, expected {y.dtype}"
        if x.dtype.kind in "biuV" and y.dtype.kind in "biuV":
            np.testing.assert_array_equal(x, y, err_msg=f"{what}, result {i}")
        else:
            np.testing.assert_allclose(x, y, rtol=tol, atol=tol, equal_nan=True,
                                       err_msg=f"{what}, result {i}")


def all_records() -> list[Rec]:
    import surface_records

    return surface_records.RECORDS


def bad_input_tests(rows: Sequence[tuple[str, Callable[[Any], Any], type, str]],
                    x: Any) -> tuple[Callable[..., None], Callable[..., None]]:
    """The two tests of a family's bad-input table (rows of (what, call, error, match)): each
    call raises the error, its message matching, eagerly on ``x`` and under ``jit`` alike.
    A test module binds them to test names: ``test_eagerly, test_under_jit = ...``."""
    ids = [r[0] for r in rows]

    @pytest.mark.parametrize("what, call, error, match", rows, ids=ids)
    def test_eagerly(what: str, call: Callable[[Any], Any], error: type, match: str) -> None:
        with pytest.raises(error, match=match):
            call(x)

    @pytest.mark.parametrize("what, call, error, match", rows, ids=ids)
    def test_under_jit(what: str, call: Callable[[Any], Any], error: type, match: str) -> None:
        with pytest.raises(error, match=match):
            mg.jit(call)(x)

    return test_eagerly, test_under_jit

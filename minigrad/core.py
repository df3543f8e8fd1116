"""The interpreter core: primitives, abstract values, traces and tracers.

Dispatch is by context (JAX's "stackless" model): there is one current trace, every trace has a
parent, and ``bind`` hands a primitive to the current trace. A trace unboxes only the tracers it
owns (by identity) and treats every other value as a constant. Rules run with the parent trace
current, so the primitives a rule binds go to the outer transforms; that identity check is what
keeps nested derivatives apart (no perturbation confusion). The current trace is a context
variable: each thread and each asyncio task has its own.
"""

from __future__ import annotations

import contextvars
import math
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from minigrad import config, dtypes

# The tangent dtype of integer and bool values, as in JAX: a dtype with no room for data.
float0 = np.dtype([("float0", np.void, 0)])

_SHORT_NAMES = {
    "float16": "f16", "float32": "f32", "float64": "f64", "int8": "i8", "int16": "i16",
    "int32": "i32", "int64": "i64", "uint8": "u8", "uint16": "u16", "uint32": "u32",
    "uint64": "u64", "bool": "bool", "complex64": "c64", "complex128": "c128",
}


def dtype_name(dtype: np.dtype) -> str:
    """Short dtype name used in jaxpr listings: ``f32``, ``i64``, ``bool``, ``float0``."""
    if dtype == float0:
        return "float0"
    name = _SHORT_NAMES.get(dtype.name, dtype.name)
    return name if dtype.isnative else f"{name}(byte-swapped)"  # (f64 and >f8 differ)


def is_float(dtype: np.dtype) -> bool:
    return np.dtype(dtype).kind == "f"  # np.issubdtype says the same, ten times slower


def tangent_dtype(dtype: np.dtype) -> np.dtype:
    """Floating values have tangents of their own dtype; everything else has float0 tangents."""
    return dtype if np.dtype(dtype).kind in "fc" else float0  # floating or complex


class ShapedArray:
    """The abstract value of an array: its shape and dtype, and whether its type is *weak*.

    A weak type is JAX's answer to Python scalars: ``2.0`` has no dtype of its own and adopts
    the other operand's (``float32 array * 2.0`` is float32, NumPy 2's rule too). A transform's
    input that is a Python scalar is a weak tracer, and a primitive's result is weak when its
    operands are (``result_weak_type``), so ``jit``, ``vmap`` and ``grad`` promote as eager code
    does. Equality includes the weak flag (a jit cache key tells ``2.0`` from a 0-d float64
    array); ``typematch`` compares a value with a type and ignores it, as values have none."""

    __slots__ = ("shape", "dtype", "weak_type")
    array_abstraction_level = 1

    def __init__(self, shape: tuple[int, ...], dtype: np.dtype, weak_type: bool = False):
        # Avals are made on every bind: the conversions are skipped when the types are right.
        self.shape = shape if type(shape) is tuple else tuple(shape)
        self.dtype = dtype if isinstance(dtype, np.dtype) else np.dtype(dtype)
        self.weak_type = weak_type

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, ShapedArray) and self.shape == other.shape
                and self.dtype == other.dtype and self.weak_type == other.weak_type)

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype, self.weak_type))

    def update_weak_type(self, weak_type: bool) -> ShapedArray:
        return self if weak_type == self.weak_type else ShapedArray(self.shape, self.dtype,
                                                                    weak_type)

    def str_short(self) -> str:
        """``f32[2,3]``, as jaxpr listings print it (JAX's listings show no weak marker)."""
        return f"{dtype_name(self.dtype)}[{','.join(map(str, self.shape))}]"

    def __repr__(self) -> str:
        return ("~" if self.weak_type else "") + self.str_short()  # JAX's str(aval)


def typematch(a: ShapedArray, b: ShapedArray) -> bool:
    """Same shape and dtype, whatever the weak flags: a value (never weak) fits a weak type."""
    return a.shape == b.shape and a.dtype == b.dtype


def scalar_dtype(x: bool | int | float | complex) -> np.dtype:
    """The dtype a Python scalar takes alone: bool, or the default int, float or complex
    (int64, float64, complex128; their 32-bit twins with ``jax_enable_x64`` off):
    ``minigrad.dtypes`` decides."""
    return dtypes.scalar_dtype(x)


def is_weak_scalar(x: Any) -> bool:
    """A Python int, float or complex (not a bool, nor a NumPy scalar, which subclass them):
    the values whose type is weak, as in JAX."""
    return isinstance(x, (int, float, complex)) and not isinstance(x, (bool, np.generic))


def is_literal(x: Any) -> bool:
    """A 0-d numeric array constant: a jaxpr writes it inline, and it is no operand for the
    weak-type rule (minigrad.numpy made it from a number in the user's code after applying
    the promotion, which is where that number's weakness counts)."""
    return isinstance(x, np.ndarray) and x.ndim == 0 and x.dtype.kind in "biufc"


def get_aval(x: Any) -> ShapedArray:
    """The abstract value of a tracer, an array or a Python scalar (weak, but for a bool)."""
    if type(x) is np.ndarray or type(x) is eager_array_type:  # speed: an ndarray's shape is a
        # tuple, its dtype a dtype, so __init__'s conversions are skipped (with those in
        # __init__: 2.3% of vmap(grad) at B=1)
        aval = object.__new__(ShapedArray)
        aval.shape, aval.dtype = x.shape, x.dtype
        aval.weak_type = False
        return aval
    if isinstance(x, Tracer):
        return x.aval
    if isinstance(x, (np.ndarray, np.generic)):
        return ShapedArray(x.shape, x.dtype)
    if isinstance(x, (bool, int, float, complex)):
        return ShapedArray((), scalar_dtype(x), not isinstance(x, bool))
    raise TypeError(f"expected an array, a tracer or a Python scalar; got {type(x).__name__}")


def result_weak_type(prim: Primitive, operands: Sequence[Any], params: dict) -> bool:
    """Whether ``prim``'s result is weak: by its own ``weak_type_rule(**params)`` if it has one
    (convert_element_type's), else by JAX's rule: weak iff every operand is weak, and some
    operand is. A tracer (or an aval) tells by its flag, a Python scalar is weak, a literal
    does not count, any other array is strong. The results of a primitive with several (a
    call: jit's, a custom rule's) are strong, as a called function's results are arrays when
    it runs eagerly."""
    if prim.weak_type_rule is not None:
        return bool(prim.weak_type_rule(**params))
    if prim.multiple_results:
        return False
    weak = False
    for x in operands:  # (on every bind under a transform: the common case returns first)
        if isinstance(x, Tracer):
            aval = x.aval
        elif isinstance(x, ShapedArray):
            aval = x
        elif is_literal(x):
            continue
        else:
            aval = get_aval(x)
        if not aval.weak_type:
            return False
        weak = True
    return weak
# The dtypes of numbers and bools in the machine's byte order: an ndarray of one of these enters
# minigrad as it is (a membership test costs what reading dtype.kind does).
NATIVE_DTYPES = frozenset(np.dtype(c) for c in "?bhilqpBHILQPefdgFDG")


def native(x: np.ndarray) -> np.ndarray:
    """``x`` in the machine's byte order: ``x`` itself, or a converted copy (of a big-endian
    array from np.load or np.frombuffer, say). Arrays entering minigrad pass through here, so
    that avals, jit's cache keys and the ops' dtype checks see one spelling of each dtype."""
    return x if x.dtype.isnative else x.astype(x.dtype.newbyteorder("="))


class Zero:
    """A symbolic zero tangent or cotangent: carries only the abstract value."""

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray):
        self.aval = aval

    def __repr__(self) -> str:
        return f"Zero({self.aval.str_short()})"


class UndefPrimal:
    """A linear input of a transpose rule: its value is unknown, only its abstract value."""

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray):
        self.aval = aval

    def __repr__(self) -> str:
        return f"UndefPrimal({self.aval.str_short()})"


# --------------------------------------------------------------------------- primitives

Rule = Callable[..., Any]


class Primitive:
    """A named operation plus its rules.

    * ``impl(*arrays, **params) -> array``: the NumPy computation.
    * ``abstract_eval(*avals, **params) -> ShapedArray``: the shape and dtype rule.
    * ``jvp(primals, tangents, **params) -> (primal_out, tangent_out)``; tangents may be ``Zero``.
    * ``transpose(ct, *args, **params) -> tuple``: one cotangent (or None) per operand; the linear
      operands arrive as ``UndefPrimal``.
    * ``batch(axis_size, vals, dims, **params) -> (out, out_dim)``; a dim of ``None`` is unbatched.

    Array operands are positional; static parameters are keyword-only and hashable. A
    primitive with ``multiple_results`` (``jit``'s call) returns a list: its impl, shape rule,
    JVP and batching rule return lists (of arrays, avals, tangents, dims), and its transpose
    receives a list of cotangents.
    """

    multiple_results = False

    def __init__(self, name: str):
        self.name = name
        self.impl: Rule | None = None
        self.abstract_eval: Rule | None = None
        self.jvp: Rule | None = None
        self.transpose: Rule | None = None
        self.batch: Rule | None = None
        # Whether the result is weak, from the params (convert_element_type's); None: the
        # standard rule of ``result_weak_type``.
        self.weak_type_rule: Rule | None = None

    def __repr__(self) -> str:
        return self.name

    def bind(self, *args: Any, **params: Any) -> Any:
        """Apply this primitive under the current trace."""
        trace = _get_current()
        if not trace.valid:  # a stale copied context: see current_trace
            trace = current_trace()
        return trace.process_primitive(self, args, params)

    # Decorators, so each rule is registered where it is written.
    def def_impl(self, rule: Rule) -> Rule:
        self.impl = rule
        return rule

    def def_abstract_eval(self, rule: Rule) -> Rule:
        self.abstract_eval = rule
        return rule

    def def_jvp(self, rule: Rule) -> Rule:
        self.jvp = rule
        return rule

    def def_transpose(self, rule: Rule) -> Rule:
        self.transpose = rule
        return rule

    def def_batch(self, rule: Rule) -> Rule:
        self.batch = rule
        return rule


def bind(prim: Primitive, *args: Any, **params: Any) -> Any:
    """Apply ``prim`` under the current trace (the same as ``prim.bind(*args, **params)``)."""
    return prim.bind(*args, **params)


# --------------------------------------------------------------------------- traces


class set_current_trace:
    """Context manager: make ``trace`` current for the duration of the block. A trace runs its
    rules inside ``with set_current_trace(self.parent):``, so the primitives a rule binds go to
    the transforms outside."""

    __slots__ = ("trace", "token")

    def __init__(self, trace: Trace):
        self.trace = trace

    def __enter__(self) -> Trace:
        self.token = _current.set(self.trace)
        return self.trace

    def __exit__(self, *exc: object) -> None:
        _current.reset(self.token)


class Trace:
    """An interpreter. Subclasses implement ``process_primitive``."""

    transform = "eval"

    parent: Trace  # None only for the eval trace, which has nothing to hand down

    def __init__(self, parent: Trace | None):
        self.parent = parent  # type: ignore[assignment]
        self.valid = True

    def process_primitive(self, prim: Primitive, args: tuple, params: dict) -> Any:
        """Apply ``prim`` to ``args``. A trace with nothing to do (no operand is its own) hands
        the primitive to its parent, ``self.parent.process_primitive(...)``; so this may run
        while a trace above this one is current, and must not rely on being current."""
        raise NotImplementedError

    def owns(self, x: Any) -> bool:
        """True for this trace's own tracers. Foreign tracers are constants here if they belong
        to a transform outside this one; any other tracer escaped (its transform has returned,
        or runs in another thread or task), and we say so."""
        if isinstance(x, Tracer):
            trace = x._trace
            if trace is self:
                return True
            if trace is not self.parent and not self.inside(trace):  # (the parent: common)
                raise escaped_tracer_error(x)
        return False

    def inside(self, outer: Trace) -> bool:
        """True if ``outer`` is one of the traces below this one, and still running."""
        trace = self.parent
        while trace is not None:
            if trace is outer:
                return outer.valid
            trace = trace.parent
        return False

    def invalidate(self) -> None:
        self.valid = False

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.transform})"


# The type of every value minigrad hands back eagerly, and the conversion to it (a view): the
# ndarray subclass minigrad.Array, registered by minigrad.array, which is built above the core.
eager_array_type: type[np.ndarray] = np.ndarray
to_eager_array: Callable[[Any], Any] = np.asarray


def register_eager_array_type(cls: type[np.ndarray], convert: Callable[[Any], Any]) -> None:
    global eager_array_type, to_eager_array
    eager_array_type, to_eager_array = cls, convert


# jax_debug_nans / jax_debug_infs: True once either flag has been on (globally or for a block, in
# any thread); until then the eval trace pays one global read, after it reads the flags.
_debug_numerics = False


@config.on_change
def _refresh_debug_numerics() -> None:
    global _debug_numerics
    _debug_numerics = _debug_numerics or config.config.read("jax_debug_nans") or \
        config.config.read("jax_debug_infs")


def _check_numerics(prim: Primitive, outs: list) -> None:
    """Raise FloatingPointError if a result of ``prim`` has a NaN (inf) and jax_debug_nans
    (jax_debug_infs) is on in this thread or task."""
    nans, infs = config.config.read("jax_debug_nans"), config.config.read("jax_debug_infs")
    for o in outs:
        if isinstance(o, np.ndarray) and o.dtype.kind in "fc":
            if nans and np.isnan(o).any():
                raise FloatingPointError(f"invalid value (nan) encountered in {prim.name} "
                                         f"(jax_debug_nans is on)")
            if infs and np.isinf(o).any():
                raise FloatingPointError(f"invalid value (inf) encountered in {prim.name} "
                                         f"(jax_debug_infs is on)")


class EvalTrace(Trace):
    """The bottom of every chain: run ``impl`` on NumPy arrays. Impls see plain ndarrays (an
    eager array's view is taken off: NumPy's subclass handling costs ~0.6 us a ufunc) and their
    results leave as eager arrays (NumPy's scalars, too: minigrad always returns arrays)."""

    def process_primitive(self, prim: Primitive, args: tuple, params: dict) -> Any:
        plain = True
        for a in args:
            if type(a) is not np.ndarray:
                if isinstance(a, Tracer):  # every trace above has let it pass: it escaped
                    raise escaped_tracer_error(a, prim)
                plain = False
        # (a list: a generator's tuple costs ~0.3 us more)
        operands = args if plain else [a.view(np.ndarray) if type(a) is eager_array_type else a
                                       for a in args]
        out = prim.impl(*operands, **params)  # type: ignore[misc]
        if prim.multiple_results:
            outs = [to_eager_array(o) for o in out]
            if _debug_numerics:
                _check_numerics(prim, outs)
            return outs
        out = to_eager_array(out)
        if _debug_numerics:
            _check_numerics(prim, [out])
        return out


eval_trace = EvalTrace(None)
# The current trace, per thread and per asyncio task: a transform running in one thread never
# sees another thread's trace. A new thread starts at the eval trace; a task starts with a copy
# of its creator's context, as contextvars do. Reading it is nearly as cheap as reading a
# global; setting it costs more (it copies the context's mapping), so traces set it only to run
# rules and start transforms, and hand a primitive they have nothing to do with straight down.
_current: contextvars.ContextVar[Trace] = contextvars.ContextVar("minigrad_trace",
                                                                 default=eval_trace)
_get_current = _current.get


def current_trace() -> Trace:
    trace = _get_current()
    # A context copied inside a transform (a task or callback created there) may run after the
    # transform has returned: the transforms still running are then the current ones.
    while not trace.valid:
        trace = trace.parent  # type: ignore[assignment]
    return trace


class new_trace:
    """Run a transform's body: make ``trace`` current, and invalidate it when the body ends."""

    __slots__ = ("trace", "ctx")

    def __init__(self, trace: Trace):
        self.trace = trace
        self.ctx = set_current_trace(trace)

    def __enter__(self) -> Trace:
        return self.ctx.__enter__()

    def __exit__(self, *exc: object) -> None:
        self.ctx.__exit__()
        self.trace.invalidate()


def escaped_tracer_error(t: Tracer, prim: Primitive | None = None) -> Exception:
    where = f" (passed to {prim.name})" if prim is not None else ""
    name = t._trace.transform
    when = (f"outside it, while {name} is still running: in another thread or asyncio task"
            if t._trace.valid else f"after {name} returned")
    return UnexpectedTracerError(
        f"encountered a tracer of {name} that escaped its transform{where}: "
        f"{t.aval.str_short()} was created inside {name} and used {when}. Return it from the "
        f"function instead of storing it.")


class UnexpectedTracerError(Exception):
    """A tracer was used outside the transform that created it."""


# --------------------------------------------------------------------------- tracers


class Tracer:
    """A value under a transform. Subclasses define ``aval`` and, if they can, ``concrete``."""

    __slots__ = ("_trace", "__weakref__")  # (weak references: in-place updates track views)
    __array_priority__ = 1000
    __hash__ = None  # type: ignore[assignment]  # == builds an array, as in NumPy

    _trace: Trace
    aval: ShapedArray  # set by each subclass

    def concrete(self) -> np.ndarray | None:
        """The concrete value if this trace knows it (forward mode does), else None."""
        return None

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: self.aval.ndim)
    size = property(lambda self: self.aval.size)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    def __repr__(self) -> str:
        return f"{type(self).__name__}<{self._trace.transform}>({self.aval.str_short()})"

    def _concrete_or_error(self, what: str) -> np.ndarray:
        value = self.concrete()
        if value is None:
            raise ConcretizationError(
                f"{what} needs a concrete value, but this is an abstract tracer of "
                f"{self._trace.transform} with {self.aval.str_short()}; use minigrad.numpy.where "
                f"or minigrad.lax.cond instead of Python control flow on it (lax.fori_loop, "
                f"lax.while_loop or lax.scan for a loop), or (under jit) pass the value as a "
                f"static argument: jit(f, static_argnums=...)")
        return value

    def __bool__(self) -> bool:
        return bool(self._concrete_or_error("bool()"))

    def __int__(self) -> int:
        return int(self._concrete_or_error("int()"))

    def __float__(self) -> float:
        return float(self._concrete_or_error("float()"))

    def __index__(self) -> int:
        # Only integers are indices (as a Python float is not): NumPy < 2.3 reads a float
        # exponent through __index__ in ``ndarray ** t``, and int(2.5) would make it 2.
        if self.aval.dtype.kind not in "iu":
            raise TypeError(f"only an integer tracer can be used as an index; got "
                            f"{self.aval.str_short()}")
        return int(self._concrete_or_error("use as an index"))

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        raise TypeError(
            f"cannot convert a tracer of {self._trace.transform} ({self.aval.str_short()}) to a "
            f"NumPy array; use minigrad.numpy functions inside transformed functions")

    def __iter__(self) -> Iterator[Any]:
        return (self[i] for i in range(len(self)))  # type: ignore[index]  # (see below)

    # Operators (+, ==, [] ...), methods (.sum(), .reshape(), .index_add() ...) and NumPy's
    # protocols (np.sin(t)) are installed on this class by minigrad.numpy, which is built on
    # the ops, which are built on this module: registration, not an upward import.


class ConcretizationError(TypeError):
    """A Python-level decision (bool, int, indexing) was asked of an abstract tracer."""

"""``jit``: trace once per signature, run the compiled program on every later call.

The signature is the pytree structure of the dynamic arguments, each leaf's shape and dtype,
and the values of the static arguments (hashable: they are part of the key). On a miss the
function is traced to a program (Python side effects run then, and only then); the call itself
is one ``jit`` equation, so every transform applies to it (its rules are in ``call.py``).

A function that updates an argument in place is also specialised to how the arguments alias
(as torch.compile's guards do): the same array passed twice is one input of the program, so
an update of one shows through the other, as eagerly (the first such call traces the function
twice: for distinct arguments, which shows that it updates one, then for these); overlapping
views of one array, which a program cannot express, raise naming both arguments.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import struct
import threading
from typing import Any, Callable, Hashable, Sequence

import numpy as np

from minigrad import config, core
from minigrad.api_util import (
    Paths,
    as_operands,
    as_output,
    call_paths,
    check_callable,
    check_unsupported,
    input_avals,
)
from minigrad.config import x64_enabled
from minigrad.core import Tracer, _get_current, eval_trace
from minigrad.frozen import released
from minigrad.jaxpr import ClosedJaxpr, Jaxpr, eval_jaxpr
from minigrad.rebind import note_number, rebind
from minigrad.staging.aliasing import aliasing, check_updates
from minigrad.staging.call import jit_p, trace_program
from minigrad.staging.executor import Compiled, compiled
from minigrad.transforms.vmap import axis_env
from minigrad.tree import PyTreeDef, tree_flatten, tree_unflatten


def _int_tuple(what: str, value: Any) -> tuple[int, ...]:
    items = (value,) if isinstance(value, int) else tuple(value)
    if any(not isinstance(i, int) or isinstance(i, bool) for i in items):
        raise TypeError(f"jit: {what} must be an int or a sequence of ints; got {value!r}")
    return items


def _str_tuple(what: str, value: Any) -> tuple[str, ...]:
    items = (value,) if isinstance(value, str) else tuple(value)
    if any(not isinstance(i, str) for i in items):
        raise TypeError(f"jit: {what} must be a str or a sequence of strs; got {value!r}")
    return items


def static_key(value: Any) -> Hashable:
    """The cache key of a static argument's value: equal for values that give the same
    program. Python's ``==`` is not that: ``nan != nan`` (a NaN would miss on every call),
    ``0.0 == -0.0`` and ``1 == 1.0 == True`` (one would run the other's program). So floats
    are keyed by their bits and every value with its type, inside tuples too."""
    kind = type(value)
    if kind is int or kind is str or kind is bool or value is None:  # (the common statics)
        return (kind, value)
    if isinstance(value, float):
        return (kind, struct.pack("<d", value))
    if isinstance(value, complex):
        return (kind, struct.pack("<dd", value.real, value.imag))
    if isinstance(value, np.generic):
        return (kind, value.dtype, value.tobytes())
    if isinstance(value, tuple):
        return (kind, tuple(static_key(v) for v in value))
    if isinstance(value, frozenset):
        return (kind, frozenset(static_key(v) for v in value))
    return (kind, value)


class Entry:
    """A cached trace: the program, how to rebuild the output tree, and which inputs the
    function updates in place (``mutated``, positions among the leaves: the program returns
    their final values after its outputs, and the call writes them back). ``same``: the
    aliasing the program was traced for (``aliasing``), None for distinct arguments;
    ``captured``: weak references to the arrays it closes over, when it updates an input
    (checked against the inputs on every call: the program holds copies of them). ``used``:
    whether a call ran it since the cache last looked (see ``Jitted.cache_size``)."""

    __slots__ = ("program", "out_tree", "fn", "donate", "mutated", "same", "captured", "used",
                 "cached", "build")

    def __init__(self, program: ClosedJaxpr, out_tree: PyTreeDef, donate: tuple[int, ...],
                 mutated: tuple[int, ...] = (), same: tuple[int, ...] | None = None):
        self.program, self.out_tree, self.donate = program, out_tree, donate
        self.mutated, self.same = mutated, same
        self.captured = list(getattr(program, "originals", ())) if mutated else []
        self.fn: Callable[..., list] | None = None  # compiled on first use
        self.build: Callable[[list], Any] | None = None  # (the fast path's, with fn)
        self.used = False
        self.cached = False  # whether the cache holds it


class Jitted:
    """A jitted function: call it, or ``lower`` it to read its program and generated code.

    It keeps at most ``cache_size`` signatures' programs (a class attribute; set it on one
    function to change that function's bound). A miss beyond that drops the least recently
    used one, by the second-chance rule: a call marks its entry used, and the eviction passes
    over a marked entry once (unmarking it) before it drops an unmarked one, so a hit costs
    one attribute store."""

    cache_size = 256

    def __init__(self, fun: Callable[..., Any], static_argnums: tuple[int, ...],
                 static_argnames: tuple[str, ...], donate_argnums: tuple[int, ...]):
        self.fun = fun
        self.static_argnums, self.static_argnames = static_argnums, static_argnames
        self.donate_argnums = donate_argnums
        self.cache: dict[Any, Entry] = {}  # in order of insertion or of a second chance
        self.fast: dict[Any, Entry] = {}  # positional arrays only: by their shapes and dtypes
        self.lock = threading.Lock()  # (for the cache's updates, on a miss)
        self.traces = 0  # how many times fun was traced (a miss of the cache)
        self.name = getattr(fun, "__name__", type(fun).__name__)
        if self.name == "<lambda>":
            self.name = "lambda"
        # (its name and docstring; not its __dict__, whose attributes would overwrite ours:
        # jit of a custom_jvp function ran the function without its rule, since its ``fun``
        # replaced ours)
        functools.update_wrapper(self, fun, updated=())  # type: ignore[arg-type]

    kind = "jit"

    def __repr__(self) -> str:
        return f"{self.kind}({self.name})"

    def _split(self, args: tuple, kwargs: dict) -> tuple[tuple, dict, tuple, tuple[int, ...]]:
        """(dynamic args, dynamic kwargs, the static values, donated positions)."""
        n = len(args)
        static = set()
        for i in self.static_argnums:
            if -n <= i < n:  # (beyond: passed by name, or left at its default)
                static.add(i % n)
        donate = {i % n for i in self.donate_argnums if -n <= i < n}
        statics: list[Any] = [("arg", i, args[i]) for i in sorted(static)]
        statics += [("kwarg", k, kwargs[k]) for k in sorted(kwargs) if k in self.static_argnames]
        for kind, where, value in statics:
            try:
                hash(value)
            except TypeError:
                label = f"args[{where}]" if kind == "arg" else f"kwargs[{where!r}]"
                raise TypeError(f"{self!r}: the static argument {label} must be "
                                f"hashable (it is part of the cache key); got a "
                                f"{type(value).__name__}. Pass a tuple instead of a list, or "
                                f"make it a dynamic (array) argument") from None
        dyn = tuple(a for i, a in enumerate(args) if i not in static)
        dyn_kwargs = {k: v for k, v in kwargs.items() if k not in self.static_argnames}
        # donated positions among the dynamic positional arguments
        positions = [i for i in range(n) if i not in static]
        donated = tuple(j for j, i in enumerate(positions) if i in donate)
        return dyn, dyn_kwargs, tuple(statics), donated

    def _entry(self, args: tuple, kwargs: dict) -> tuple[Entry, list[Any], list[Any], list[Any]]:
        """The cache entry for this call, its leaves, and any values of outer transforms the
        traced function closes over (extra operands of the call; such traces are not kept)."""
        dyn, dyn_kwargs, statics, donated_args = self._split(args, kwargs)
        raw, in_tree = tree_flatten((dyn, dyn_kwargs))
        leaves = as_operands(raw, repr(self), Paths(lambda: call_paths(in_tree)))
        # donated leaves: every leaf of a donated positional argument
        donate: tuple[int, ...] = ()
        if donated_args:
            counts = [len(tree_flatten(a)[0]) for a in dyn]
            starts = np.cumsum([0, *counts])
            donate = tuple(k for j in donated_args for k in range(starts[j], starts[j + 1]))
        # (Python numbers among the leaves: x += 1 makes a new number of them, not an update)
        numbers = tuple([i for i, r in enumerate(raw) if type(r) is not np.ndarray
                         and not isinstance(r, (np.ndarray, Tracer))])
        # A Python scalar's type is weak (so 2.0 and a 0-d float64 array trace apart); the named
        # axes of the vmaps running are in the key, as collectives read their sizes.
        avals = input_avals(raw, leaves)
        statics_key = tuple((kind, where, static_key(value)) for kind, where, value in statics)
        key: Any = (in_tree, tuple(avals), statics_key, donate, numbers, axis_env(),
                    x64_enabled())  # (the defaults a trace picks depend on the flag)
        entry = self.cache.get(key)
        closed_over: list[Any] = []
        if entry is None:
            entry, closed_over = self._trace(in_tree, avals, statics, donate, numbers, None)
            if not closed_over:
                self.store(key, entry)
        else:
            entry.used = True
        if entry.mutated:  # then the program depends on how the arguments alias
            same, overlaps = aliasing(leaves)
            if same is not None:  # the same array twice: a program of its own
                key = (key, same)
                special = self.cache.get(key)
                if special is None:
                    special, closed_over = self._trace(in_tree, avals, statics, donate,
                                                       numbers, same)
                    if not closed_over:
                        self.store(key, special)
                else:
                    special.used = True
                entry = special
            check_updates(repr(self), entry, raw, leaves, overlaps,
                          Paths(lambda: call_paths(in_tree)), closed_over)
        return entry, leaves, closed_over, raw

    def _trace(self, in_tree: PyTreeDef, avals: list[Any], statics: tuple,
               donate: tuple[int, ...], numbers: tuple[int, ...], same: tuple[int, ...] | None
               ) -> tuple[Entry, list[Any]]:
        """A new trace of the function, and the values of outer transforms it closes over.
        ``numbers``: the leaves that were Python numbers; ``same``: one tracer for the leaves
        that are one array (``aliasing``)."""
        self.traces += 1
        out_box: list[PyTreeDef] = []
        mutated: list[int] = []

        def flat(*tracers: Any) -> list[Any]:
            if same is not None:
                tracers = tuple(tracers[j] for j in same)
            for i in numbers:
                note_number(tracers[i])
            inputs = [t.var for t in tracers]
            f_args, f_kwargs = tree_unflatten(in_tree, tracers)
            full = list(f_args)
            for kind, where, value in statics:  # the static values back in their places
                if kind == "arg":
                    full.insert(where, value)
            f_kwargs = {**f_kwargs, **{w: v for kind, w, v in statics if kind == "kwarg"}}
            out = self.fun(*full, **f_kwargs)
            out_leaves, out_tree = tree_flatten(out)
            out_box.append(out_tree)
            # an input the function updated in place (its tracer was rebound) is an output too
            mutated[:] = [i for i, (t, v) in enumerate(zip(tracers, inputs, strict=True))
                          if t.var is not v and (same is None or same[i] == i)]
            return ([as_output(o, repr(self)) for o in out_leaves]
                    + [tracers[i] for i in mutated])

        program = trace_program(flat, avals, repr(self), keep=True)
        # Values of outer transforms the function closed over become leading operands; a
        # program that holds them belongs to this call only.
        lifted = [isinstance(c, Tracer) for c in program.consts]
        closed_over = [c for c, t in zip(program.consts, lifted, strict=True) if t]
        if closed_over:
            j = program.jaxpr
            cv = [v for v, t in zip(j.constvars, lifted, strict=True) if t]
            program = ClosedJaxpr(
                Jaxpr([v for v, t in zip(j.constvars, lifted, strict=True) if not t],
                      cv + j.invars, j.eqns, j.outvars),
                [c for c, t in zip(program.consts, lifted, strict=True) if not t])
            program.kept = True
        # The caller's array is overwritten with an updated input's final value anyway, so the
        # program may build that value in its buffer (donation): no copy back is needed then.
        donate = tuple(sorted({*donate, *mutated}))
        if closed_over:
            donate = tuple(k + len(closed_over) for k in donate)
        return Entry(program, out_box[0], donate, tuple(mutated), same), closed_over

    def store(self, key: Any, entry: Entry) -> None:
        """Cache ``entry`` under ``key``, first dropping entries beyond ``cache_size``: the
        oldest one not used since the eviction last passed it (second chance)."""
        with self.lock:
            cache = self.cache
            while cache and len(cache) >= max(1, self.cache_size):
                old_key, old = next(iter(cache.items()))
                del cache[old_key]
                if old.used:  # a second chance: to the back, unmarked
                    old.used = False
                    cache[old_key] = old
                    continue
                old.cached = False
                for k in [k for k, e in self.fast.items() if e is old]:
                    del self.fast[k]
            cache[key] = entry
            entry.cached = True

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if _flags_seen and not _inside_flagged.get():
            out = _flagged_call(self, args, kwargs)
            if out is not _NOT_FLAGGED:
                return out
        # speed: positional arrays and no transform running, the common call, skip the
        # flattening, the key's tree and the bind (one-primitive function: 14.8 -> 3 us). A
        # program traced with 64-bit types on serves only calls with them on (the default).
        # The same for tuples, lists and dicts of such arrays (parameters), by their
        # structure's signature (an MLP step's 6 leaves: 32 -> 6 us).
        if not kwargs and _get_current() is eval_trace and x64_enabled():
            flat: list[np.ndarray] = []
            key = _fast_key(args, flat)
            entry = self.fast.get(key) if key is not None else None
            if entry is not None and not entry.mutated:
                entry.used = True
                if entry.fn is None or entry.build is None:
                    entry.build = builder(entry.out_tree)
                    entry.fn = compiled(entry.program, entry.donate, self.name).fn
                return entry.build(entry.fn(*flat))
        entry, leaves, closed_over, raw = self._entry(args, kwargs)
        # (not an argument converted on the way in, big-endian say: its program's arguments
        # are the converted ones)
        if not closed_over and not kwargs and not self.static_argnums and entry.same is None \
                and all(x is r or (type(r) is core.eager_array_type and x.dtype == r.dtype)
                        for r, x in zip(raw, leaves, strict=True)) and x64_enabled():
            fast_key = _fast_key(args, [])
            if fast_key is not None:
                with self.lock:
                    if entry.cached:  # (not dropped by another thread meanwhile)
                        self.fast[fast_key] = entry
        outs = self.run(entry, [*closed_over, *leaves])
        return write_back(entry, leaves, outs, repr(self), raw)

    def run(self, entry: Entry, operands: list[Any]) -> list[Any]:
        """The program on ``operands``: one ``jit`` equation. (A transform's rules make new
        programs and drop the donation: only a call that reaches the eval trace with the
        caller's arrays writes into them.)"""
        return jit_p.bind(*operands, jaxpr=entry.program,  # type: ignore[no-any-return]
                          name=self.name, donate=entry.donate)

    def lower(self, *args: Any, **kwargs: Any) -> Lowered:
        """The program and generated code for arguments like these (values unused)."""
        entry, _, _, _ = self._entry(args, kwargs)
        return Lowered(compiled(entry.program, entry.donate, self.name), entry.program)


def builder(tree: PyTreeDef) -> Callable[[list], Any]:
    """A function of the program's results that returns them as Arrays (as the eval trace's
    bind hands them back) in the output tree: for a tree of tuples, lists and dicts, one
    generated expression (the MLP step's five results: tree_unflatten and a conversion per
    leaf cost ~6 us, this ~1.5 us); for other nodes, tree_unflatten."""
    namespace: dict[str, Any] = {"A": core.to_eager_array}
    leaf = iter(range(tree.num_leaves))

    def expr(td: PyTreeDef) -> str | None:
        if td.node_type is None:
            return f"A(o[{next(leaf)}])"
        if td.node_type is type(None):
            return "None"
        parts = [expr(c) for c in td.children]
        if any(p is None for p in parts):
            return None
        if td.node_type is tuple:
            return f"({''.join(p + ', ' for p in parts)})"  # type: ignore[operator]
        if td.node_type is list:
            return f"[{', '.join(parts)}]"  # type: ignore[arg-type]
        if td.node_type is dict:  # (the keys reach the code through its namespace)
            names = [f"k{len(namespace) + i}" for i in range(len(parts))]
            namespace.update(zip(names, td.aux, strict=True))  # type: ignore[call-overload]
            return "{" + ", ".join(f"{k}: {p}" for k, p in zip(names, parts, strict=True)) + "}"
        return None

    body = expr(tree)
    if body is None:
        return lambda outs: tree_unflatten(tree, [core.to_eager_array(o) for o in outs])
    exec(f"def build(o):\n    return {body}\n", namespace)
    return namespace["build"]  # type: ignore[no-any-return]


def _fast_key(args: tuple, leaves: list[np.ndarray]) -> Any:
    """The fast path's cache key for positional ``args``, appending their arrays (plain
    ndarrays, as impls take them) to ``leaves``; None if the general path must flatten them.
    Plain ndarrays alone (the commonest call): their shapes and dtypes."""
    if all(type(a) is np.ndarray for a in args):
        leaves.extend(args)
        return tuple([(a.shape, a.dtype) for a in args])
    return _signature(args, leaves)


def _signature(tree: Any, leaves: list[np.ndarray]) -> Any:
    """The key of ``tree`` made of tuples, lists and dicts (sortable keys) of ndarrays and
    Arrays, appending the arrays to ``leaves`` in tree_flatten's order; None for anything else.
    The key holds each container's type and dict keys and each array's shape and dtype: what
    the general key's tree and avals hold for such a tree. (It is a tuple beginning with a
    type, never one of the all-ndarray key's (shape, dtype) pairs.)"""
    t = type(tree)
    if t is np.ndarray or t is core.eager_array_type:
        leaves.append(tree if t is np.ndarray else tree.view(np.ndarray))
        return (tree.shape, tree.dtype)
    if t is dict:
        try:
            keys = sorted(tree)
        except TypeError:
            return None
        children: Any = [tree[k] for k in keys]
        parts: list[Any] = [t, tuple(keys)]
    elif t is tuple or t is list:
        children, parts = tree, [t]
    else:
        return None
    for x in children:
        if type(x) is np.ndarray:  # (the commonest child: no call for it)
            leaves.append(x)
            parts.append((x.shape, x.dtype))
            continue
        part = _signature(x, leaves)
        if part is None:
            return None
        parts.append(part)
    return tuple(parts)


# jax_disable_jit, jax_debug_nans, jax_debug_infs: True once any has been on (globally or for a
# block); until then a call pays one global read.
_flags_seen = False
_NOT_FLAGGED = object()
_inside_flagged: contextvars.ContextVar[bool] = contextvars.ContextVar("minigrad_jit_flagged",
                                                                       default=False)


@config.on_change
def _refresh_flags() -> None:
    global _flags_seen
    _flags_seen = _flags_seen or any(config.config.read(name) for name in (
        "jax_disable_jit", "jax_debug_nans", "jax_debug_infs"))


def _flagged_call(jitted: Jitted, args: tuple, kwargs: dict) -> Any:
    """A call with a flag on that changes what jit does. ``jax_disable_jit``: the function
    runs as it is, op by op. ``jax_debug_nans`` (``_infs``): the program runs, and if a result
    holds a NaN (an inf) the function runs again op by op, so that the eager check raises
    naming the first primitive that made one (JAX's behaviour; side effects run twice)."""
    if config.config.read("jax_disable_jit"):
        return jitted.fun(*args, **kwargs)
    nans, infs = config.config.read("jax_debug_nans"), config.config.read("jax_debug_infs")
    if not (nans or infs):
        return _NOT_FLAGGED
    token = _inside_flagged.set(True)
    try:
        out = jitted(*args, **kwargs)
    finally:
        _inside_flagged.reset(token)
    bad = [leaf for leaf in tree_flatten(out)[0] if isinstance(leaf, np.ndarray)
           and leaf.dtype.kind in "fc" and ((nans and np.isnan(leaf).any())
                                            or (infs and np.isinf(leaf).any()))]
    if bad and _get_current() is eval_trace:
        jitted.fun(*args, **kwargs)  # (raises at the first primitive making a NaN or an inf)
        raise FloatingPointError(f"{jitted!r}: a result holds a "
                                 f"{'NaN' if nans and np.isnan(bad[0]).any() else 'inf'}, "
                                 f"but no primitive made one when run op by op")
    return out


def write_back(entry: Entry, leaves: list, outs: list, what: str, raw: list | None = None
               ) -> Any:
    """Give the caller the updated inputs' final values (into its arrays, or by rebinding its
    tracers), and return the function's outputs. ``raw``: the caller's leaves, if any was
    converted (a big-endian array becomes a native copy, but the caller's array is written)."""
    n = len(outs) - len(entry.mutated)
    if raw is not None and entry.mutated:
        leaves = [r if type(r) is np.ndarray else x for r, x in zip(raw, leaves, strict=True)]
    kept = [leaves[i] for i in entry.mutated if isinstance(leaves[i], np.ndarray)]
    # A result built in an updated input's buffer (x[1] of the updated x, say) would change
    # when the caller next writes x: the caller keeps x, so such a result is copied.
    results = [o.copy() if isinstance(o, np.ndarray) and any(np.may_share_memory(o, x)
                                                            for x in kept) else o
               for o in outs[:n]]
    for i, new in zip(entry.mutated, outs[n:], strict=True):
        x = leaves[i]
        if isinstance(x, Tracer):
            rebind(x, new, what)
        elif new is not x:  # (built in x's own buffer when the program could)
            np.copyto(x, new)
    return tree_unflatten(entry.out_tree, results)


class Functionalized(Jitted):
    """``functionalize(f)``: ``f``'s results, and the caller's arrays updated as ``f`` updates
    them, from a program of out-of-place primitives, run without compiling it: so
    ``make_jaxpr`` of it shows those primitives."""

    kind = "functionalize"

    def run(self, entry: Entry, operands: list[Any]) -> list[Any]:
        return released(eval_jaxpr(entry.program.jaxpr, entry.program.consts, *operands))


def functionalize(fun: Callable[..., Any]) -> Functionalized:
    """``fun`` traced functionally (torch.func.functionalize's semantics): its in-place updates
    are out-of-place primitives in the traced program, and the inputs it updates are extra
    outputs of that program (``make_jaxpr(functionalize(f))`` shows them), copied back into the
    caller's arrays after it runs. The program is traced once per signature, as by ``jit``.

    >>> import minigrad as mg, numpy as np
    >>> def f(x):
    ...     mg.index_fill_(x, 0, np.array([0]), 9.0)
    ...     return x.sum()
    >>> x = np.zeros(3)
    >>> mg.functionalize(f)(x), x
    (Array(9., dtype=float64), array([9., 0., 0.]))
    """
    check_callable("functionalize", fun)
    return Functionalized(fun, (), (), ())


class Lowered:
    """What ``jit(f).lower(*args)`` returns: ``jaxpr`` is the optimized program,
    ``traced`` the program as traced, ``as_text()`` the generated Python source, ``stats``
    what each pass did."""

    def __init__(self, result: Compiled, traced: ClosedJaxpr):
        self.jaxpr, self.traced, self.stats = result.program, traced, result.stats
        self._source = result.source

    def as_text(self) -> str:
        return self._source

    def __repr__(self) -> str:
        return f"Lowered(\n{self._source})"


def jit(fun: Callable[..., Any] | None = None, *, in_shardings: Any = None,
        out_shardings: Any = None, static_argnums: int | Sequence[int] | None = (),
        static_argnames: str | Sequence[str] | None = (),
        donate_argnums: int | Sequence[int] | None = (),
        donate_argnames: str | Sequence[str] | None = (), keep_unused: bool = False,
        device: Any = None, backend: Any = None, inline: bool = False,
        compiler_options: Any = None) -> Any:
    """``fun``, traced once per signature and run as compiled NumPy code (usable as
    ``@jit`` or ``@jit(static_argnums=...)``). JAX's arguments: ``donate_argnames`` names
    donated parameters as ``static_argnames`` names static ones; ``keep_unused`` and
    ``inline`` are accepted and change nothing (every input is kept; nested calls are always
    inlined when compiled); the shardings, ``device``, ``backend`` and ``compiler_options``
    are refused (one host, NumPy).

    >>> import minigrad as mg, numpy as np
    >>> f = mg.jit(lambda x: mg.numpy.sin(x) * 2.0)
    >>> f(np.zeros(2))
    Array([0., 0.], dtype=float64)
    """
    check_unsupported("jit", in_shardings=in_shardings, out_shardings=out_shardings,
                      device=device, backend=backend, compiler_options=compiler_options)
    def given(value: Any) -> Any:  # (JAX's default is None; 0 is an argument number)
        return () if value is None else value

    static_nums = _int_tuple("static_argnums", given(static_argnums))
    static_names = _str_tuple("static_argnames", given(static_argnames))
    donate_nums = _int_tuple("donate_argnums", given(donate_argnums))
    donate_names = _str_tuple("donate_argnames", given(donate_argnames))
    if set(static_nums) & set(donate_nums):
        raise ValueError(f"jit: an argument cannot be both static and donated; got "
                         f"static_argnums={static_nums} and donate_argnums={donate_nums}")

    def wrap(f: Callable[..., Any]) -> Jitted:
        check_callable("jit", f)
        nums, names = static_nums, static_names
        try:  # static_argnums and static_argnames name the same parameters, as in JAX
            params = list(inspect.signature(f).parameters.values())
        except (TypeError, ValueError):
            params = []
        positional = [p.name for p in params
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if params and not any(p.kind == p.VAR_POSITIONAL for p in params):
            for i in (*nums, *donate_nums):
                if not -len(positional) <= i < len(positional):
                    raise ValueError(f"jit: argnums entry {i} is out of range for "
                                     f"{getattr(f, '__name__', 'fun')}, which takes "
                                     f"{len(positional)} positional arguments")
        names = tuple(dict.fromkeys([*names, *(positional[i] for i in nums
                                               if -len(positional) <= i < len(positional))]))
        nums = tuple(dict.fromkeys([*nums, *(positional.index(n) for n in names
                                             if n in positional)]))
        unknown = [n for n in donate_names if n not in positional]
        if unknown:
            raise ValueError(f"jit: donate_argnames {unknown[0]!r} is not a positional "
                             f"parameter of {getattr(f, '__name__', 'fun')}")
        donated = tuple(dict.fromkeys([*donate_nums,
                                       *(positional.index(n) for n in donate_names)]))
        if set(nums) & set(donated):
            raise ValueError(f"jit: an argument cannot be both static and donated; got "
                             f"static {nums} and donated {donated}")
        return Jitted(f, nums, names, donated)

    return wrap if fun is None else wrap(fun)


__all__ = ["Functionalized", "Jitted", "Lowered", "functionalize", "jit"]

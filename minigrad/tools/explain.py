"""``python -m minigrad explain OP``: what a student reads to see a primitive's rules.

It prints the primitive's semantics and, on its first sample, the jaxprs of its JVP, of its
transpose (the linear part of the VJP: ``linearize`` then ``linear_transpose``, so the listing
holds only the backward pass) and of its batched form (every batchable operand batched).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from types import ModuleType
from typing import Any

import numpy as np

from minigrad.core import Primitive, float0, get_aval
from minigrad.jaxpr import make_jaxpr
from minigrad.staging import jit
from minigrad.testing import OPS, Sample, batch_args, primitives, registered, samples_for
from minigrad.tools.errors import UsageError
from minigrad.transforms.jvp import jvp
from minigrad.transforms.linearize import linearize
from minigrad.transforms.transpose import linear_transpose
from minigrad.transforms.vmap import vmap

# One line each for the base primitives (the five and their support primitives say more in
# their own docstrings).
SEMANTICS = {
    "add": "x + y, elementwise (operands of one shape and dtype)",
    "sub": "x - y, elementwise",
    "mul": "x * y, elementwise",
    "div": "x / y, elementwise",
    "neg": "-x, elementwise",
    "exp": "exp(x), elementwise", "log": "log(x), elementwise", "sin": "sin(x), elementwise",
    "cos": "cos(x), elementwise", "tanh": "tanh(x), elementwise",
    "sqrt": "sqrt(x), elementwise",
    "pow": "x ** y, elementwise, for floating x and y",
    "integer_pow": "x ** y for a static integer y",
    "max": "the elementwise maximum of x and y; at ties each side gets half the derivative",
    "eq": "x == y (bool; not differentiable)", "ne": "x != y (bool)", "lt": "x < y (bool)",
    "le": "x <= y (bool)", "gt": "x > y (bool)", "ge": "x >= y (bool)",
    "select": "where(pred, x, y): x where the bool pred is true, else y",
    "convert_element_type": "x converted to new_dtype",
    "dot": "an einsum of two operands (subscripts such as 'ij,jk->ik')",
    "transpose": "x with its axes permuted",
    "broadcast_in_dim": "x placed in the broadcast_dimensions of a larger shape",
    "reshape": "x with new_sizes, row-major", "squeeze": "x without the given size-1 axes",
    "expand_dims": "x with size-1 axes inserted", "concatenate": "operands joined along dimension",
    "slice": "x[start:limit:stride] along every axis",
    "pad": "x with low, high and interior zero padding along every axis",
    "reduce_sum": "the sum of x over axes", "reduce_max": "the maximum of x over axes",
    "cumsum": "the cumulative sum of x along axis (reversed with reverse=True)",
    "full": "an array of shape filled with fill_value (no operands)",
    "arange": "range(start, stop, step) as an array (no operands)",
}


def defining_module(prim: Primitive) -> ModuleType | None:
    """The module of ``minigrad.ops`` that defines ``prim``: of the modules that hold it (the
    ops import each other's primitives), the one where most of its rules are written."""
    import minigrad.ops

    def home(rule: Any) -> str | None:
        rule = getattr(rule, "func", rule)  # a functools.partial's function
        return getattr(rule, "__module__", None)

    homes = [home(r) for r in (prim.impl, prim.abstract_eval, prim.jvp, prim.transpose,
                                prim.batch)]
    best: tuple[int, ModuleType] | None = None
    for info in pkgutil.iter_modules(minigrad.ops.__path__):
        module = importlib.import_module(f"minigrad.ops.{info.name}")
        if any(v is prim for v in vars(module).values()):
            score = homes.count(module.__name__)
            if best is None or score > best[0]:
                best = (score, module)
    return None if best is None else best[1]


def semantics(prim: Primitive) -> str:
    """The five: their module docstring; support primitives: their user function's docstring;
    the rest: one line."""
    reg = registered().get(prim.name)
    if reg is not None:  # a user's primitive: the description it was registered with
        return reg.doc or "(no description: pass doc= to minigrad.testing.register)"
    module = defining_module(prim)
    if prim.name in OPS and module is not None and module.__doc__:
        return inspect.cleandoc(module.__doc__)
    function = getattr(module, prim.name, None)
    if prim.name not in SEMANTICS and callable(function) and function.__doc__:
        return inspect.cleandoc(function.__doc__).split("\n\n")[0]
    return SEMANTICS.get(prim.name, "(no description)")


def _where(prim: Primitive) -> str:
    reg = registered().get(prim.name)
    if reg is not None:
        return f"registered by {reg.module}"
    module = defining_module(prim)
    return "" if module is None else f"{module.__name__.replace('.', '/')}.py"


def _describe(s: Sample, ops: tuple) -> str:
    names = s.argnames or tuple(f"arg{i}" for i in range(len(ops)))
    args = "  ".join(f"{n}: {get_aval(o).str_short()}" for n, o in zip(names, ops, strict=True))
    params = " ".join(f"{k}={_param(v)}" for k, v in s.params.items())
    return f"{args}{'  params: ' + params if params else ''}"


def explain(name: str, seed: int = 0) -> str:
    """The text ``python -m minigrad explain name`` prints."""
    prims = primitives()
    if name not in prims:
        raise UsageError(f"explain: unknown primitive {name!r}; known: {', '.join(prims)}")
    prim = prims[name]
    samples = samples_for(name)
    # Prefer an op sample (the user's view) with a differentiable operand, in float64.
    samples.sort(key=lambda s: (s.fun is None, not s.diff, "f32" in s.name))
    lines = [f"{name}  ({_where(prim)})", "", semantics(prim), ""]
    if not samples:
        return "\n".join([*lines, "no samples"])
    s = samples[0]
    ops = s.make(np.random.default_rng(seed))
    f = s.function(prim)
    lines += [f"sample {s.name}:  {_describe(s, ops)}", ""]
    if s.diff:
        primals = [ops[i] for i in s.diff]

        def f_diff(*vals: Any) -> Any:
            full = list(ops)
            for i, v in zip(s.diff, vals, strict=True):
                full[i] = v
            return f(*full)

        def jvp_fn(*a: Any) -> Any:
            return jvp(f_diff, tuple(a[:len(primals)]), tuple(a[len(primals):]))

        lines += [f"JVP: (out, out_dot) = jvp(f, {_names(s, s.diff)}, tangents)",
                  str(make_jaxpr(jvp_fn)(*primals, *primals)), ""]
        out, f_lin = linearize(f_diff, *primals)
        transposed = linear_transpose(f_lin, *primals)
        # (several results: a list of cotangents, float0 ones for integer results)
        ct = ([np.asarray(o) if get_aval(o).dtype.kind == "f" else
               np.zeros(np.shape(o), float0) for o in out]
              if isinstance(out, (list, tuple)) else np.asarray(out))
        lines += [f"transpose (the linear part of the VJP): ct -> cotangents of "
                  f"{_names(s, s.diff)}", str(make_jaxpr(transposed)(ct)), ""]
    else:
        lines += ["JVP and transpose: none (no differentiable operand in this sample)", ""]
    batchable = range(len(ops)) if s.batchable is None else s.batchable
    axes = tuple(0 if i in batchable else None for i in range(len(ops)))
    if any(a is not None for a in axes):
        g = vmap(f, in_axes=axes)
        counts = [len(make_jaxpr(g)(*batch_args(s.make, axes, n, seed)).eqns) for n in (2, 2000)]
        lines += [f"batched: vmap(f, in_axes={axes}) over 3 examples "
                  f"({_plural(counts[0], 'equation')} for a batch of 2, {counts[1]} for 2000)",
                  str(make_jaxpr(g)(*batch_args(s.make, axes, 3, seed))), ""]
        lowered = jit(g).lower(*batch_args(s.make, axes, 3, seed))
        what = "jit(vmap(f))"
    else:
        lowered, what = jit(f).lower(*ops), "jit(f)"
    lines += [f"under jit: the code {what} runs, its program after the passes (a name ending "
              f"in _ writes in place)", lowered.as_text()]
    return "\n".join(lines).rstrip("\n")


def _param(v: Any) -> str:
    return v.name if isinstance(v, np.dtype) else repr(v)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _names(s: Sample, positions: tuple[int, ...]) -> str:
    names = [s.argnames[i] if s.argnames else f"arg{i}" for i in positions]
    return f"({', '.join(names)}{',' if len(names) == 1 else ''})"


def main(name: str, module: str | None = None) -> int:
    if module is not None:
        from minigrad.tools.check import import_module

        own = import_module(module, "explain")
        if name not in own:
            raise UsageError(f"explain: module {module!r} does not register {name!r}; it "
                             f"registers: {', '.join(own)}")
    print(explain(name))
    return 0

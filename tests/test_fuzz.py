"""Differential fuzzing: random programs under random stacks of transforms.

A *program* is a chain of two to five steps over a float input ``x``: the five ops (with
constant or input-dependent sources and values, indices with repeats, negative dims, 0-d
indices, masks that broadcast either way) and base ops (sin, tanh, products with a second float
input ``y``, transpose, reshape, reductions, cumsum, flips, concatenation, take) and control flow
(``lax.cond`` on a constant or on the ``mask`` input, ``lax.scan`` over the leading axis,
``fori_loop`` with static bounds, ``while_loop`` counting to a bound read from ``mask``: a
program with a ``while`` has forward mode only, and its reverse mode must raise). Two more inputs
feed the ops when their shapes fit: an integer ``idx`` and a bool ``mask``, so ``vmap`` can batch
indices and masks too. Programs are smooth in ``x`` and ``y`` (indices and masks are never
computed from floats) and their steps cannot compound into huge values, so central finite
differences are a fair oracle.

Every check compares two independent routes to the same numbers:

* ``jacfwd == jacrev ==`` central finite differences, ``grad`` == the chain rule through the
  Jacobian, ``linearize == jvp``, ``eval_jaxpr(make_jaxpr(f)) == f`` (bit for bit), dtypes kept;
* ``vmap`` with random ``in_axes`` over all four inputs (negative, None) and random
  ``out_axes`` == a Python loop, batch sizes 0 to 3 (``axis_size`` when nothing is mapped);
* a random stack of two to four transforms (grad, vmap, jvp, vjp, jacfwd, jacrev, linearize,
  hessian, linear_transpose, a make_jaxpr round trip) == the same stack with every transform
  replaced by an equivalent route: jacfwd <-> jacrev, jvp <-> linearize, vmap <-> a loop,
  grad <-> jacfwd of the scalar, vjp <-> a contracted jacfwd, hessian <-> jacrev of jacrev,
  linear_transpose of the JVP <-> vjp, the round trip <-> the function itself; float64 and
  float32, and in float64 the whole stack's JVP against a directional finite difference.

CI runs a bounded, derandomized number of examples (the ``fuzz_settings`` counts: about 20 s
for the file). Set ``MINIGRAD_FUZZ_EXAMPLES=5000`` (per test) to run longer, and
``MINIGRAD_HYPOTHESIS_PROFILE=dev`` to explore new examples rather than the fixed CI ones.
Hypothesis draws only a seed; the program, inputs and transforms come from a NumPy generator
seeded with it, so every example is a fully random program (structured draws shrank to tiny
programs and missed planted bugs). A failure prints the program. Every bug this file found is
pinned in ``test_regressions.py``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from op_checks import fd_jacobian

import minigrad as mg
from minigrad import lax
from minigrad import numpy as mnp

# Examples per test: the CI default keeps the whole file near 20 s.
_ENV_EXAMPLES = int(os.environ.get("MINIGRAD_FUZZ_EXAMPLES", "0"))


def fuzz_settings(ci_examples: int) -> Any:
    return settings(max_examples=_ENV_EXAMPLES or ci_examples, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])


MAX_SIZE = 24  # elements of any intermediate value: finite differences stay cheap
DIMS = [1, 2, 2, 3, 3, 3, 4, 4, 0]  # axis sizes, one in nine empty
F64, F32 = np.dtype(np.float64), np.dtype(np.float32)


# --------------------------------------------------------------------------- programs


@dataclass
class Step:
    """One step of a program: ``kind`` and its static arguments (constants are NumPy arrays,
    cast to the running dtype when used)."""

    kind: str
    args: dict = field(default_factory=dict)

    def __repr__(self) -> str:
        def short(v: Any) -> str:
            if isinstance(v, np.ndarray):
                if v.dtype == bool or v.dtype.kind in "iu":
                    return f"np.array({v.tolist()}, {v.dtype.name})"
                return f"<{v.dtype.name}{list(v.shape)}>"
            return repr(v)

        inner = ", ".join(f"{k}={short(v)}" for k, v in self.args.items())
        return f"{self.kind}({inner})"


@dataclass
class Program:
    """``x`` and ``y`` have ``x_shape``; ``idx`` (``idx_len`` entries in ``[0, idx_size)``) and
    ``mask`` (``mask_shape``) are inputs too. ``out_shape`` is the result's shape."""

    x_shape: tuple
    idx_size: int
    idx_len: int
    mask_shape: tuple
    steps: list
    out_shape: tuple

    @property
    def forward_only(self) -> bool:
        """A ``while_loop`` step has no reverse mode (JAX's rule)."""
        return any(s.kind == "while" for s in self.steps)

    def __repr__(self) -> str:
        lines = [f"Program(x,y: {self.x_shape}, idx: {self.idx_len} in [0, {self.idx_size}), "
                 f"mask: {self.mask_shape}, out: {self.out_shape})"]
        lines += [f"    {s!r}" for s in self.steps]
        return "\n".join(lines)

    def inputs(self, seed: int, dtype: np.dtype = F64) -> tuple:
        rng = np.random.default_rng(seed)
        x = rng.standard_normal(self.x_shape).astype(dtype)
        y = rng.standard_normal(self.x_shape).astype(dtype)
        mask = rng.random(self.mask_shape) < 0.5
        return x, y, draw_index(rng, self.idx_size, self.idx_len), mask


def draw_index(rng: np.random.Generator, size: int, length: int, dtype: Any = np.int64
               ) -> np.ndarray:
    """``length`` entries in [0, size); when there are two or more, one value repeats."""
    index = rng.integers(0, max(size, 1), length)
    if length >= 2:
        index[rng.integers(1, length)] = index[0]
    return index.astype(dtype)


def _cast(c: Any, dtype: np.dtype) -> Any:
    return c.astype(dtype) if isinstance(c, np.ndarray) and c.dtype.kind == "f" else c


def _value(mode: str, arg: Any, h: Any, y: Any) -> Any:
    """A fill value: a Python float, a 0-d constant, or a 0-d value computed from the inputs."""
    if mode == "float":
        return arg
    if mode == "array0d":
        return _cast(arg, h.dtype)
    if mode == "sum_h":
        return mnp.sum(h) * 0.1
    return mnp.tanh(mnp.sum(y))  # "tanh_y"


def _index(a: dict, idx: Any) -> Any:
    return idx if isinstance(a["index"], str) else a["index"]


def _source(a: dict, h: Any) -> Any:
    mode, dtype = a["source"], h.dtype
    if mode == "const":
        return _cast(a["const"], dtype)
    if mode == "take_h":  # slices of h itself, so the source depends on the input
        h1 = mnp.reshape(h, (1,)) if h.ndim == 0 else h
        return mnp.take(h1, a["take"], axis=a["dim"]) * 0.5
    return _cast(a["const"], dtype) * mnp.sum(h)  # "const_times_sum"


def _mask(a: dict, mask: Any) -> Any:
    return mask if isinstance(a["mask"], str) else a["mask"]


def apply_step(s: Step, h: Any, y: Any, idx: Any, mask: Any) -> Any:
    a, k = s.args, s.kind
    if k == "unary":
        fn = a["fn"]
        if fn == "sin":
            return mnp.sin(h)
        if fn == "tanh":
            return mnp.tanh(h)
        if fn == "cubic":  # a polynomial that cannot compound into huge values
            return mnp.tanh(h) * h * h * 0.1 + h
        return mnp.exp(mnp.tanh(h))  # "exp_tanh"
    if k == "mul_y":
        return h * y if h.shape == y.shape else h * mnp.sum(mnp.sin(y))
    if k == "pow2":  # integer_pow, bounded so repeated steps stay small
        return mnp.tanh(h) ** 2 + h * 0.5
    if k == "where_const":
        return mnp.where(a["pred"], h, h * 0.5 + 0.25)
    if k == "index_add":
        return mg.index_add(h, a["dim"], _index(a, idx), _source(a, h), a["alpha"])
    if k == "index_copy":
        return mg.index_copy(h, a["dim"], _index(a, idx), _source(a, h))
    if k == "index_fill":
        return mg.index_fill(h, a["dim"], _index(a, idx), _value(a["value"], a.get("v"), h, y))
    if k == "masked_fill":
        return mg.masked_fill(h, _mask(a, mask), _value(a["value"], a.get("v"), h, y))
    if k == "masked_scatter":
        if a["source"] == "const":
            source = _cast(a["const"], h.dtype)
        else:  # the input's values first, then constant padding up to the needed size
            source = mnp.concatenate([mnp.ravel(mnp.sin(h)), _cast(a["pad"], h.dtype)])
        return mg.masked_scatter(h, _mask(a, mask), source)
    if k == "transpose":
        return mnp.transpose(h, a["perm"])
    if k == "reshape":
        return mnp.reshape(h, a["shape"])
    if k == "sum_keep":
        return mnp.sum(h, axis=a["axis"], keepdims=True)
    if k == "cumsum":
        return mnp.cumsum(h, axis=a["axis"])
    if k == "flip":
        return h[(slice(None),) * a["axis"] + (slice(None, None, -1),)]
    if k == "concat":
        return mnp.concatenate([h, mnp.tanh(h)], axis=a["axis"])
    if k == "take":
        return mnp.take(h, a["take"], axis=a["axis"])
    if k in CONTROL_FLOW:
        return apply_control_flow(s, h, y, mask)
    raise AssertionError(k)


# Branches of a cond step (each keeps h's shape; "id" forwards h, which cond prunes).
BRANCHES: dict[str, Callable[[Any, Any], Any]] = {
    "sin": lambda h, y: mnp.sin(h),
    "tanh_y": lambda h, y: h * mnp.tanh(mnp.sum(y)),  # closes over the input y
    "cubic": lambda h, y: mnp.tanh(h) * h * h * 0.1 + h,
    "id": lambda h, y: h,
}


def _mask_count(mask: Any, cap: int) -> Any:
    """How many entries of ``mask`` are set, at most ``cap`` (an int64 scalar)."""
    count = mnp.sum(mnp.astype(mask, np.int64))
    return mnp.minimum(count, cap)


def apply_control_flow(s: Step, h: Any, y: Any, mask: Any) -> Any:
    a, k = s.args, s.kind
    if k == "cond":
        pred = (_mask_count(mask, 99) > a["k"]) if a["pred"] == "mask" else a["pred"]
        fa, fb = BRANCHES[a["fns"][0]], BRANCHES[a["fns"][1]]
        return lax.cond(pred, lambda h: fa(h, y), lambda h: fb(h, y), h)
    if k == "scan":
        if h.ndim == 0:  # xs=None: a loop of ``n`` steps over the carry alone
            return lax.scan(lambda c, _: (mnp.sin(c) * 0.9 + 0.1 * mnp.tanh(mnp.sum(y)), None),
                            h, None, length=a["n"])[0]

        def body(c: Any, x: Any) -> tuple:
            c2 = mnp.tanh(c * 0.5 + x)
            return c2, c2 * x + mnp.sin(x) * mnp.tanh(mnp.sum(y))

        return lax.scan(body, mnp.tanh(mnp.sum(h, axis=0)), h, reverse=a["reverse"])[1]
    if k == "fori":
        return lax.fori_loop(0, a["n"], lambda i, c: mnp.sin(c) * 0.9 + c * 0.1, h)
    assert k == "while"
    bound = _mask_count(mask, 3) if a["bound"] == "mask" else a["bound"]

    def step(c: tuple) -> tuple:
        return c[0] + 1, mnp.sin(c[1]) * 0.9 + c[1] * 0.1 * mnp.tanh(mnp.sum(y))

    return lax.while_loop(lambda c: c[0] < bound, step, (0, h))[1]


def run(prog: Program, x: Any, y: Any, idx: Any, mask: Any) -> Any:
    h = x
    for s in prog.steps:
        h = apply_step(s, h, y, idx, mask)
    return h


def size_of(shape: tuple) -> int:
    return int(np.prod(shape, dtype=np.int64))


def pick(rng: np.random.Generator, options: list) -> Any:
    return options[int(rng.integers(len(options)))]


def make_program(rng: np.random.Generator, max_size: int = MAX_SIZE, max_steps: int = 5,
                 while_loops: bool = False) -> Program:
    """A random program; shapes are tracked statically so every step is valid. A
    ``while_loop`` step (forward mode only) is drawn only with ``while_loops``: the other test
    files that draw programs take their reverse mode."""
    kinds = KINDS if while_loops else [k for k in KINDS if k != "while"]
    rank = pick(rng, [0, 1, 1, 2, 2, 2, 3, 3])
    x_shape = tuple(pick(rng, DIMS) for _ in range(rank))
    while size_of(x_shape) > max_size:  # shrink the largest axis until it fits
        dims = list(x_shape)
        dims[dims.index(max(dims))] -= 1
        x_shape = tuple(dims)
    eff = x_shape or (1,)
    idx_size = pick(rng, list(eff))
    idx_len = pick(rng, [0, 1, 2, 3, 3, 4, 4]) if idx_size else 0
    mask_shape = broadcastable_to(rng, x_shape)
    inputs = Program(x_shape, idx_size, idx_len, mask_shape, [], ())
    steps = []
    s = x_shape
    for _ in range(int(rng.integers(2, max_steps + 1))):
        made = MAKERS[pick(rng, kinds)](rng, s, inputs, max_size)
        if made is not None:
            step, s = made
            steps.append(step)
    if not steps:
        steps.append(Step("unary", {"fn": "sin"}))
    return Program(x_shape, idx_size, idx_len, mask_shape, steps, s)


def broadcastable_to(rng: np.random.Generator, shape: tuple) -> tuple:
    """A shape that broadcasts with ``shape``: some axes 1, some leading axes dropped."""
    dims = [d if rng.random() < 0.6 else 1 for d in shape]
    return tuple(dims[int(rng.integers(0, len(dims) + 1)) if rng.random() < 0.4 else 0:])


def _dim(rng: np.random.Generator, shape: tuple) -> tuple[int, int]:
    """(dim as passed, possibly negative; dim normalized) for an index op on ``shape``."""
    n = max(len(shape), 1)
    d = int(rng.integers(0, n))
    return (d - n if rng.random() < 0.5 else d), d


def _index_arg(rng: np.random.Generator, size: int, prog: Program) -> Any:
    if prog.idx_len and size >= prog.idx_size and rng.random() < 0.7:
        return "input"
    if size and rng.random() < 0.15:
        return np.asarray(rng.integers(0, size), pick(rng, [np.int64, np.int32]))
    k = int(rng.integers(0, 5)) if size else 0
    return draw_index(rng, size, k, pick(rng, [np.int64, np.int32, np.uint8]))


def _index_len(index: Any, prog: Program) -> int:
    if isinstance(index, str):
        return prog.idx_len
    return 1 if index.ndim == 0 else len(index)


def make_index_update(kind: str) -> Callable[..., Any]:
    def make(rng: np.random.Generator, s: tuple, prog: Program, max_size: int) -> tuple | None:
        dim, d = _dim(rng, s)
        eff = s or (1,)
        index = _index_arg(rng, eff[d], prog)
        k = _index_len(index, prog)
        src_shape = (*eff[:d], k, *eff[d + 1:])
        if size_of(src_shape) > max_size:
            return None
        mode = pick(rng, ["const", "take_h", "const_times_sum"])
        if mode == "take_h" and eff[d] == 0 and k:
            mode = "const"
        args: dict = {"dim": dim, "index": index, "source": mode}
        if mode == "take_h":
            args["take"], args["dim"] = draw_index(rng, eff[d], k), d
        else:
            args["const"] = rng.standard_normal(src_shape)
        if kind == "index_add":
            args["alpha"] = pick(rng, [1, 2.0, -0.5, 0.0, 3])
        return Step(kind, args), s

    return make


def _value_arg(rng: np.random.Generator, args: dict) -> None:
    args["value"] = pick(rng, ["float", "array0d", "sum_h", "tanh_y"])
    if args["value"] == "float":
        args["v"] = pick(rng, [0.0, 1.5, -2.0, 1e3])
    elif args["value"] == "array0d":
        args["v"] = np.asarray(rng.standard_normal())


def make_index_fill(rng: np.random.Generator, s: tuple, prog: Program, max_size: int) -> tuple:
    dim, d = _dim(rng, s)
    args: dict = {"dim": dim, "index": _index_arg(rng, (s or (1,))[d], prog)}
    _value_arg(rng, args)
    return Step("index_fill", args), s


def _mask_arg(rng: np.random.Generator, s: tuple, prog: Program, max_size: int
              ) -> tuple[Any, tuple]:
    try:
        with_input: tuple | None = tuple(np.broadcast_shapes(s, prog.mask_shape))
    except ValueError:
        with_input = None
    if with_input is not None and size_of(with_input) <= max_size and rng.random() < 0.6:
        return "input", with_input
    shape = broadcastable_to(rng, s)
    if rng.random() < 0.2 and size_of(s) * 2 <= max_size and len(s) < 3:
        shape = (2, *([1] * (len(s) - len(shape))), *shape)  # the mask adds a leading axis
    return rng.random(shape) < 0.5, tuple(np.broadcast_shapes(s, shape))


def make_masked_fill(rng: np.random.Generator, s: tuple, prog: Program, max_size: int
                     ) -> tuple:
    mask, out = _mask_arg(rng, s, prog, max_size)
    args: dict = {"mask": mask}
    _value_arg(rng, args)
    return Step("masked_fill", args), out


def make_masked_scatter(rng: np.random.Generator, s: tuple, prog: Program, max_size: int
                        ) -> tuple:
    mask, out = _mask_arg(rng, s, prog, max_size)
    extra = int(rng.integers(0, 3))
    args: dict = {"mask": mask, "source": pick(rng, ["const", "dep"])}
    if args["source"] == "const":  # enough for any mask, 1-D or 2-D
        n = size_of(out) + extra
        shape = (2, n // 2) if n % 2 == 0 and n and rng.random() < 0.5 else (n,)
        args["const"] = rng.standard_normal(shape)
    else:
        args["pad"] = rng.standard_normal(max(size_of(out) - size_of(s), 0) + extra)
    return Step("masked_scatter", args), out


def make_simple(kind: str) -> Callable[..., Any]:
    def make(rng: np.random.Generator, s: tuple, prog: Program, max_size: int) -> tuple | None:
        if kind == "unary":
            return Step(kind, {"fn": pick(rng, ["sin", "tanh", "cubic", "exp_tanh"])}), s
        if kind in ("mul_y", "pow2"):
            return Step(kind), s
        if kind == "where_const":
            return Step(kind, {"pred": rng.random(s) < 0.5}), s
        if not s:
            return None
        axis = int(rng.integers(0, len(s)))
        if kind == "transpose":
            perm = tuple(int(p) for p in rng.permutation(len(s)))
            return Step(kind, {"perm": perm}), tuple(s[p] for p in perm)
        if kind == "reshape":
            shape = pick(rng, [(size_of(s),), s[::-1], (*s, 1)])
            return Step(kind, {"shape": shape}), shape
        if kind == "sum_keep":
            return Step(kind, {"axis": axis}), (*s[:axis], 1, *s[axis + 1:])
        if kind in ("cumsum", "flip"):
            return Step(kind, {"axis": axis}), s
        if kind == "concat":
            if size_of(s) * 2 > max_size:
                return None
            return Step(kind, {"axis": axis}), (*s[:axis], 2 * s[axis], *s[axis + 1:])
        # take: entries with repeats along axis
        k = int(rng.integers(0, 4)) if s[axis] else 0
        out = (*s[:axis], k, *s[axis + 1:])
        if size_of(out) > max_size:
            return None
        return Step(kind, {"axis": axis, "take": draw_index(rng, s[axis], k)}), out

    return make


def make_control_flow(kind: str) -> Callable[..., Any]:
    def make(rng: np.random.Generator, s: tuple, prog: Program, max_size: int) -> tuple:
        if kind == "cond":
            args: dict = {"pred": pick(rng, ["mask", True, False]), "k": int(rng.integers(0, 3)),
                          "fns": tuple(rng.choice(sorted(BRANCHES), 2))}
        elif kind == "scan":
            args = {"reverse": bool(rng.random() < 0.5), "n": int(rng.integers(0, 4))}
        elif kind == "fori":
            args = {"n": int(rng.integers(0, 4))}
        else:
            args = {"bound": pick(rng, ["mask", 0, 2])}
        return Step(kind, args), s

    return make


CONTROL_FLOW = ("cond", "scan", "fori", "while")
FIVE = ["index_add", "index_copy", "index_fill", "masked_fill", "masked_scatter"]
MAKERS: dict[str, Callable[..., Any]] = {
    "index_add": make_index_update("index_add"),
    "index_copy": make_index_update("index_copy"),
    "index_fill": make_index_fill,
    "masked_fill": make_masked_fill,
    "masked_scatter": make_masked_scatter,
    **{k: make_simple(k) for k in ("unary", "mul_y", "pow2", "where_const", "transpose",
                                   "reshape", "sum_keep", "cumsum", "flip", "concat", "take")},
    **{k: make_control_flow(k) for k in CONTROL_FLOW},
}
# Each of the five ops four times as often as any base op, each base op four times as often as
# each control-flow step (whose transforms cost the most to trace: about a tenth of the
# programs hold one, and cost four times as much as the others).
KINDS = sorted([*FIVE * 16, *sorted(MAKERS.keys() - set(FIVE) - set(CONTROL_FLOW)) * 4,
                *CONTROL_FLOW])


# --------------------------------------------------------------------------- comparisons


def assert_close(actual: Any, expected: Any, dtype: np.dtype, what: str, tol: float | None = None
                 ) -> None:
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    tol = tol if tol is not None else (1e-7 if dtype == F64 else 2e-3)
    scale = max(1.0, float(np.max(np.abs(expected), initial=0.0)))
    np.testing.assert_allclose(actual, expected, rtol=tol, atol=tol * scale, err_msg=what)


# --------------------------------------------------------------------------- one program


SEEDS = st.integers(0, 2**32 - 1)


@fuzz_settings(600)
@given(seed=SEEDS)
def test_program_derivatives(seed: int) -> None:
    """jacfwd == jacrev == finite differences (in x and in y), grad == the chain rule,
    linearize == jvp == J t, the jaxpr round trip is exact, and dtypes are kept. In float32 (a
    third of the runs) the oracle is the float64 Jacobian."""
    rng = np.random.default_rng(seed)
    prog = make_program(rng, while_loops=True)
    dtype = F32 if rng.random() < 0.3 else F64
    note(f"{prog!r}\n{dtype}")
    x, y, idx, mask = prog.inputs(seed, dtype)
    out = np.asarray(run(prog, x, y, idx, mask))  # eager steps on 0-d arrays give NumPy scalars
    assert out.shape == prog.out_shape and out.dtype == dtype

    # eval_jaxpr(make_jaxpr(f)) == f, bit for bit
    closed = mg.make_jaxpr(lambda *a: run(prog, *a))(x, y, idx, mask)
    again = closed(x, y, idx, mask)
    np.testing.assert_array_equal(again, out)
    assert again.dtype == dtype

    for argnum in (0, 1):
        def f(v: Any, argnum: int = argnum) -> Any:
            args = [x, y, idx, mask]
            args[argnum] = v
            return run(prog, *args)

        arg = (x, y)[argnum]
        j_fwd = mg.jacfwd(f)(arg)
        j_rev = reverse_or_refused(prog, lambda f=f, arg=arg: mg.jacrev(f)(arg), j_fwd)
        assert j_fwd.dtype == j_rev.dtype == dtype
        assert j_fwd.shape == (*prog.out_shape, *prog.x_shape)
        assert_close(j_rev, j_fwd, dtype, f"jacrev vs jacfwd, argnum {argnum}")
        if dtype == F64:
            j_ref = fd_jacobian(f, [arg], 0)
            # atol no tighter than the difference quotient's own rounding: f(x +- 1e-6) carry
            # an ulp or two of |f|, which 2e-6 divides (cubic(1000) makes |f| ~ 1e10)
            noise = 4 * np.finfo(F64).eps * float(np.max(np.abs(out), initial=1.0)) / 1e-6
            scale = max(1.0, float(np.max(np.abs(j_ref), initial=0.0)))
            np.testing.assert_allclose(j_fwd, j_ref, rtol=1e-5, atol=max(noise, 1e-5 * scale),
                                       err_msg=f"jacfwd vs finite differences, argnum {argnum}")
        else:  # the float64 program's exact Jacobian
            args64 = [a.astype(F64) if a.dtype == F32 else a for a in (x, y, idx, mask)]

            def f64(v: Any, argnum: int = argnum, args64: list = args64) -> Any:
                args = list(args64)
                args[argnum] = v
                return run(prog, *args)

            j_ref = mg.jacfwd(f64)(args64[argnum])
            assert_close(j_fwd, j_ref, dtype, f"float32 jacfwd vs float64, argnum {argnum}",
                         tol=2e-3)

        # grad of a scalar of the output is J^T applied to the outer derivative
        cos = np.cos(out.astype(F64)).reshape(-1)
        chain = (cos @ j_fwd.astype(F64).reshape(out.size, arg.size)).reshape(arg.shape)
        g = reverse_or_refused(
            prog, lambda f=f, arg=arg: mg.grad(lambda v: mnp.sum(mnp.sin(f(v))))(arg),
            chain.astype(dtype))
        assert g.dtype == dtype and g.shape == arg.shape
        assert_close(g, chain, dtype, f"grad vs chain rule, argnum {argnum}")

        # linearize == jvp == J t
        t = np.random.default_rng(seed + 1).standard_normal(arg.shape).astype(dtype)
        primal, t_jvp = mg.jvp(f, (arg,), (t,))
        primal_lin, f_jvp = mg.linearize(f, arg)
        t_lin = f_jvp(t)
        np.testing.assert_array_equal(primal, out)
        np.testing.assert_array_equal(primal_lin, out)
        assert t_jvp.dtype == t_lin.dtype == dtype
        assert_close(t_lin, t_jvp, dtype, f"linearize vs jvp, argnum {argnum}")
        jt = j_fwd.astype(F64).reshape(out.size, arg.size) @ t.astype(F64).reshape(arg.size)
        assert_close(t_jvp, jt.reshape(out.shape), dtype, f"jvp vs J t, argnum {argnum}")


def reverse_or_refused(prog: Program, reverse: Callable[[], Any], instead: Any) -> Any:
    """``reverse()``; for a program with a ``while_loop``, the error reverse mode must raise
    when a tangent reaches the loop (then ``instead`` stands in for the result)."""
    if not prog.forward_only:
        return reverse()
    try:
        return reverse()
    except ValueError as e:
        assert "Reverse-mode differentiation does not work for lax.while_loop" in str(e)
        return instead


# --------------------------------------------------------------------------- vmap


def batched_call(rng: np.random.Generator) -> tuple:
    """A program, in_axes for (x, y, idx, mask) (ints, negative ones, None; when none is
    mapped, the test passes axis_size), out_axes, and a batch size 0 to 3."""
    prog = make_program(rng, while_loops=True)  # (vmap only: a while_loop batches)
    ranks = [len(prog.x_shape), len(prog.x_shape), 1, len(prog.mask_shape)]
    in_axes = [_axis_or_none(rng, r) for r in ranks]
    if all(a is None for a in in_axes) and rng.random() < 0.5:
        in_axes[0] = 0  # otherwise nothing is mapped: vmap needs axis_size
    r = len(prog.out_shape)
    out_axes = int(rng.integers(-r - 1, r + 1))
    return prog, tuple(in_axes), out_axes, pick(rng, [0, 1, 2, 3, 3])


def _axis_or_none(rng: np.random.Generator, rank: int) -> int | None:
    """None, or an axis (negative half the time) for a value of ``rank`` + 1 dimensions."""
    return None if rng.random() < 0.4 else int(rng.integers(-rank - 1, rank + 1))


def stack_batch(draws: list, axis: int | None, b_size: int, example: np.ndarray) -> np.ndarray:
    """Stack the per-example draws along ``axis`` (non-negative), or keep the first."""
    if axis is None:
        return example
    if b_size == 0:
        shape = list(example.shape)
        shape.insert(axis, 0)
        return np.zeros(shape, example.dtype)
    return np.stack(draws, axis=axis)


@fuzz_settings(1000)
@given(seed=SEEDS)
def test_vmap_matches_loop(seed: int) -> None:
    prog, in_axes, out_axes, b_size = call = batched_call(np.random.default_rng(seed))
    note(repr(call))
    examples = [prog.inputs(seed + b) for b in range(max(b_size, 1))]
    axes = [None if a is None else a % (np.ndim(examples[0][i]) + 1)
            for i, a in enumerate(in_axes)]
    args = [stack_batch([e[i] for e in examples[:b_size]], ax, b_size, examples[0][i])
            for i, ax in enumerate(axes)]
    axis_size = b_size if all(a is None for a in in_axes) else None
    batched = mg.vmap(lambda *a: run(prog, *a), in_axes=in_axes, out_axes=out_axes,
                      axis_size=axis_size)(*args)
    out_axis = out_axes % (len(prog.out_shape) + 1)
    if b_size == 0:
        expected_shape = list(prog.out_shape)
        expected_shape.insert(out_axis, 0)
        assert batched.shape == tuple(expected_shape) and batched.dtype == F64
        return
    rows = []
    for b in range(b_size):
        row = [a if ax is None else np.take(a, b, axis=ax) for a, ax in zip(args, axes,
                                                                               strict=True)]
        rows.append(run(prog, *row))
    expected = np.stack(rows, axis=out_axis)
    assert batched.dtype == expected.dtype
    assert_close(batched, expected, F64, f"vmap in_axes={in_axes} out_axes={out_axes}",
                 tol=1e-12)


# --------------------------------------------------------------------------- transform stacks


def _fixed(shape: tuple, dtype: np.dtype, salt: float) -> np.ndarray:
    """A deterministic tangent or cotangent of ``shape``."""
    return np.cos(np.arange(size_of(shape)) * 0.7 + salt).reshape(shape).astype(dtype)


def _scalar(g: Callable[..., Any]) -> Callable[..., Any]:
    return lambda x, *rest: mnp.sum(mnp.sin(g(x, *rest)))


def _contract(ct: Any, jac: Any, in_ndim: int) -> Any:
    """sum over the output axes of ct * J: the VJP from a Jacobian."""
    out_ndim = jac.ndim - in_ndim
    weights = mnp.reshape(ct, (*np.shape(ct), *([1] * in_ndim)))
    return mnp.sum(jac * weights, axis=tuple(range(out_ndim)))


def _slice_axis(a: Any, axis: int, b: int) -> Any:
    return a[(slice(None),) * axis + (b,)]


@dataclass
class Level:
    """One transform of a stack; ``in_axes``/``out_axes``/``size`` for vmap only."""

    name: str
    in_axes: tuple = ()
    out_axes: int = 0
    size: int = 0

    def __repr__(self) -> str:
        if self.name == "vmap":
            return f"vmap(in_axes={self.in_axes}, out_axes={self.out_axes}, size={self.size})"
        return self.name


def primary(level: Level, g: Callable[..., Any]) -> Callable[..., Any]:
    """The transform under test, differentiating with respect to x (the first argument)."""
    name = level.name
    if name == "grad":
        return lambda x, *r: mg.grad(_scalar(g))(x, *r)
    if name == "jacfwd":
        return lambda x, *r: mg.jacfwd(g)(x, *r)
    if name == "jacrev":
        return lambda x, *r: mg.jacrev(g)(x, *r)
    if name == "jvp":
        return lambda x, *r: mg.jvp(lambda v: g(v, *r), (x,), (_fixed(x.shape, x.dtype, .3),))[1]
    if name == "linearize":
        return lambda x, *r: mg.linearize(lambda v: g(v, *r), x)[1](_fixed(x.shape, x.dtype, .3))
    if name == "vjp":
        def vjp_route(x: Any, *r: Any) -> Any:
            out, pullback = mg.vjp(lambda v: g(v, *r), x)
            return pullback(_fixed(out.shape, out.dtype, .9))[0]

        return vjp_route
    if name == "hessian":
        return lambda x, *r: mg.hessian(_scalar(g))(x, *r)
    if name == "linear_transpose":  # the VJP as the transpose of the (linear) JVP
        def transposed(x: Any, *r: Any) -> Any:
            out = g(x, *r)
            ct = _fixed(out.shape, out.dtype, .9)
            jvp_in_t = lambda t: mg.jvp(lambda v: g(v, *r), (x,), (t,))[1]  # noqa: E731
            return mg.linear_transpose(jvp_in_t, x)(ct)[0]

        return transposed
    if name == "vmap":
        return mg.vmap(g, in_axes=level.in_axes, out_axes=level.out_axes)
    assert name == "jaxpr"
    return lambda *a: mg.make_jaxpr(g)(*a)(*a)


def alternative(level: Level, g: Callable[..., Any]) -> Callable[..., Any]:
    """An equivalent route to ``primary(level, g)`` through other code."""
    name = level.name
    if name == "grad":
        return lambda x, *r: mg.jacfwd(_scalar(g))(x, *r)
    if name in ("jacfwd", "jacrev"):
        return primary(Level("jacrev" if name == "jacfwd" else "jacfwd"), g)
    if name in ("jvp", "linearize"):
        return primary(Level("linearize" if name == "jvp" else "jvp"), g)
    if name == "hessian":  # reverse over reverse instead of forward over reverse
        return lambda x, *r: mg.jacrev(mg.jacrev(_scalar(g)))(x, *r)
    if name == "linear_transpose":
        return primary(Level("vjp"), g)
    if name == "vjp":
        def contracted(x: Any, *r: Any) -> Any:
            jac = mg.jacfwd(g)(x, *r)
            out_shape = jac.shape[:jac.ndim - x.ndim]
            return _contract(_fixed(out_shape, x.dtype, .9), jac, x.ndim)

        return contracted
    if name == "vmap":
        def loop(*args: Any) -> Any:
            axes = [None if a is None else a % v.ndim
                    for a, v in zip(level.in_axes, args, strict=True)]
            rows = [g(*[v if ax is None else _slice_axis(v, ax, b)
                        for v, ax in zip(args, axes, strict=True)]) for b in range(level.size)]
            return mnp.stack(rows, axis=level.out_axes)

        return loop
    assert name == "jaxpr"
    return g


DERIVATIVES = ["grad", "jacfwd", "jacrev", "jvp", "linearize", "vjp", "hessian",
               "linear_transpose"]


def make_stack(rng: np.random.Generator) -> tuple:
    """A small program and two to four transforms, innermost first, with the inputs' ranks
    tracked so vmap's axes are valid."""
    prog = make_program(rng, max_size=6, max_steps=3, while_loops=True)
    ranks = [len(prog.x_shape), len(prog.x_shape), 1, len(prog.mask_shape)]
    out_rank = len(prog.out_shape)
    levels: list[Level] = []
    jacobians = 0
    # a while_loop has forward mode only: every transform and its alternative route forward
    pool = (["jvp", "linearize"] if prog.forward_only else DERIVATIVES) + ["vmap", "vmap", "jaxpr"]
    for _ in range(int(rng.integers(2, 5))):
        name = pick(rng, pool)
        if name in ("jacfwd", "jacrev", "vjp", "grad", "hessian", "linear_transpose"):
            jacobians += 2 if name == "hessian" else 1
            if jacobians > 2:  # Jacobians of Jacobians grow fast: keep the run short
                name = "jvp"
        if name in ("jacfwd", "jacrev"):
            out_rank += ranks[0]
        elif name in ("grad", "vjp", "linear_transpose"):
            out_rank = ranks[0]
        elif name == "hessian":
            out_rank = 2 * ranks[0]
        elif name == "vmap":
            in_axes = [_axis_or_none(rng, r) for r in ranks]
            if all(a is None for a in in_axes):
                in_axes[0] = int(rng.integers(-ranks[0] - 1, ranks[0] + 1))
            ranks = [r + (a is not None) for r, a in zip(ranks, in_axes, strict=True)]
            out_axes = int(rng.integers(-out_rank - 1, out_rank + 1))
            out_rank += 1
            levels.append(Level("vmap", tuple(in_axes), out_axes, int(rng.integers(1, 4))))
            continue
        levels.append(Level(name))
    return prog, levels


def stack_inputs(prog: Program, levels: list, seed: int, dtype: np.dtype) -> list:
    """Inputs for the outermost function: each vmap inserts its batch axis (innermost first)."""
    shapes = [list(prog.x_shape), list(prog.x_shape), [prog.idx_len], list(prog.mask_shape)]
    for level in levels:
        if level.name == "vmap":
            for s, a in zip(shapes, level.in_axes, strict=True):
                if a is not None:
                    s.insert(a % (len(s) + 1), level.size)
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shapes[0]).astype(dtype),
            rng.standard_normal(shapes[1]).astype(dtype),
            rng.integers(0, max(prog.idx_size, 1), shapes[2]),
            rng.random(shapes[3]) < 0.5]


@fuzz_settings(600)
@given(seed=SEEDS)
def test_transform_stack(seed: int) -> None:
    """A stack of transforms == the stack of their alternative routes, float64 or float32."""
    rng = np.random.default_rng(seed)
    prog, levels = make_stack(rng)
    dtype = F32 if rng.random() < 0.3 else F64
    note(f"{prog!r}\nstack (innermost first): {levels}, {dtype}")
    args = stack_inputs(prog, levels, seed, dtype)
    f_test: Callable[..., Any] = lambda *a: run(prog, *a)  # noqa: E731
    f_ref = f_test
    for level in levels:
        f_test, f_ref = primary(level, f_test), alternative(level, f_ref)
    got, want = f_test(*args), f_ref(*args)
    assert isinstance(got, np.ndarray)
    assert got.dtype == dtype and want.dtype == dtype, (got.dtype, want.dtype)
    assert_close(got, want, dtype, f"stack {levels}", tol=1e-6 if dtype == F64 else 5e-3)
    if dtype == F64:
        # Both routes share every JVP rule; a directional finite difference of the whole stack
        # checks those rules too (the stack is smooth in x).
        x, rest = args[0], args[1:]
        v = rng.standard_normal(x.shape)
        eps = 1e-6
        fd = (f_test(x + eps * v, *rest) - f_test(x - eps * v, *rest)) / (2 * eps)
        _, t_out = mg.jvp(lambda x_: f_test(x_, *rest), (x,), (v,))
        assert_close(t_out, fd, dtype, f"jvp of stack {levels} vs finite differences", tol=1e-5)

"""The in-place variants (``index_add_`` ...) and ``functionalize``.

Eagerly: the update equals copy + out-of-place on every op sample, writes into ``x`` and
returns it, and leaves ``x`` as it was on every row of the bad-input catalogue. Under every
transform: PyTorch-style code (a scratch buffer updated in place) equals its out-of-place
version, the program holds only out-of-place primitives, names of the buffer see the update,
and the updates a transform cannot express raise. jit and functionalize write updated inputs
back, as the eager function would.
"""

from __future__ import annotations

import tracemalloc
from typing import Any, Callable

import numpy as np
import pytest
from test_bad_inputs import OPS as BAD_OPS
from test_bad_inputs import Row

import minigrad as mg
from minigrad import numpy as mnp
from minigrad.ops import index_fill, indexing, masked_fill, masked_scatter
from minigrad.testing.samples import OPS, op_samples

FIVE: dict[str, Callable[..., Any]] = {
    "index_add": lambda x, index, source, dim, alpha=1: mg.index_add_(x, dim, index, source,
                                                                      alpha),
    "index_copy": lambda x, index, source, dim: mg.index_copy_(x, dim, index, source),
    "index_fill": lambda x, index, value, dim: mg.index_fill_(x, dim, index, value),
    "masked_fill": lambda x, mask, value: mg.masked_fill_(x, mask, value),
    "masked_scatter": lambda x, mask, source: mg.masked_scatter_(x, mask, source),
}
SAMPLES = [(op, s) for op in OPS for s in op_samples(op)]


def broadcasts_x(op: str, ops: tuple) -> bool:
    x = np.asarray(ops[0])
    return op.startswith("masked") and np.broadcast_shapes(x.shape, np.shape(ops[1])) != x.shape


@pytest.mark.parametrize(("op", "sample"), SAMPLES, ids=[s.name for _, s in SAMPLES])
def test_eager_in_place_is_copy_plus_out_of_place(op: str, sample: Any) -> None:
    ops = sample.make(np.random.default_rng(0))
    x = np.array(ops[0])  # the caller's array: ours to write
    others = [np.array(o, copy=True) if isinstance(o, np.ndarray) else o for o in ops[1:]]
    if broadcasts_x(op, ops):  # PyTorch: x keeps its shape; a larger mask is an error
        before = x.copy()
        with pytest.raises(ValueError, match=f"{op}_: mask of shape"):
            FIVE[op](x, *ops[1:], **sample.params)
        assert x.tobytes() == before.tobytes()
        return
    expected = np.asarray(sample.call(*ops))
    out = FIVE[op](x, *ops[1:], **sample.params)
    assert out is x
    assert x.shape == np.shape(ops[0]) and x.dtype == np.asarray(ops[0]).dtype
    assert x.tobytes() == expected.astype(x.dtype).tobytes()  # bit for bit
    for o, kept in zip(ops[1:], others, strict=True):  # the other operands are never written
        if isinstance(o, np.ndarray):
            np.testing.assert_array_equal(o, kept)


def test_a_view_writes_into_its_base() -> None:
    base = np.zeros((3, 4))
    mg.index_fill_(base[1], 0, np.array([0, 2]), 5.0)  # a NumPy view: its base changes
    mg.masked_fill_(base.T, np.eye(4, 3, dtype=bool), 1.0)
    assert base[1].tolist() == [5.0, 1.0, 5.0, 0.0]
    assert base[0, 0] == 1.0 and base[2, 2] == 1.0


def test_errors_of_the_eager_variants() -> None:
    with pytest.raises(TypeError, match="index_add_: x must be a NumPy array"):
        mg.index_add_(3.0, 0, np.array([0]), 1.0)
    frozen = np.zeros(3)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="index_fill_: x is read-only"):
        mg.index_fill_(frozen, 0, np.array([0]), 1.0)
    with pytest.raises(ValueError, match="read-only"):
        mg.masked_fill_(np.broadcast_to(np.zeros(3), (2, 3)), np.ones((2, 3), bool), 1.0)


EAGER_BAD = [r for r in BAD_OPS
             if not any(w in r.id for w in ("batched", "staged", "traced", "vmap", "grad",
                                            "jvp", "jit"))]


@pytest.mark.parametrize("case", EAGER_BAD, ids=[r.id for r in EAGER_BAD])
def test_bad_input_leaves_x_unchanged(case: Row, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every eager row of the bad-input catalogue, through the in-place variant on a copy of
    its x: an error (of the row's kind, or a TypeError for an x that is not an array), and x
    exactly as it was."""
    seen: list[tuple[np.ndarray, bytes]] = []

    def in_place(name: str) -> Callable[..., Any]:
        variant = getattr(mg, name + "_")

        def call(x: Any, *args: Any, **kwargs: Any) -> Any:
            if isinstance(x, np.ndarray) and x.dtype != object:
                x = np.array(x)  # writable, and not the catalogue's shared array
                seen.append((x, x.tobytes()))
            return variant(x, *args, **kwargs)

        return call

    for name in OPS:
        monkeypatch.setattr(mg, name, in_place(name))
    with pytest.raises((case.error, TypeError, ValueError)):
        case.call()
    for x, before in seen:
        assert x.tobytes() == before


# The eager fast paths (arguments already canonical skip the conversions) against the full
# checks: the same result, or the same error, on every op sample and bad-input row.
FAST_PATHS = [(indexing, "canonical_eagerly"), (index_fill, "canonical_eagerly"),
              (masked_fill, "mask_canonical"), (masked_scatter, "mask_canonical")]


def outcome(call: Callable[[], Any]) -> tuple:
    try:
        out = np.asarray(call())
    except Exception as e:  # the error is the outcome compared
        return type(e), str(e)
    return out.shape, out.dtype, out.tobytes()


@pytest.mark.parametrize("case", [*SAMPLES, *EAGER_BAD],
                         ids=[*(s.name for _, s in SAMPLES), *(r.id for r in EAGER_BAD)])
def test_the_eager_fast_paths_agree_with_the_full_checks(case: Any,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    if isinstance(case, Row):
        call = case.call
    else:
        sample = case[1]
        ops = sample.make(np.random.default_rng(0))
        call = lambda: sample.call(*ops)  # noqa: E731
    fast = outcome(call)
    for module, name in FAST_PATHS:
        monkeypatch.setattr(module, name, lambda *args: False)
    assert outcome(call) == fast


# --------------------------------------------------------------------------- under transforms


def pytorch_style(x: Any, idx: Any, uidx: Any, cols: Any, mask: Any, mask2: Any, src: Any,
                  ssrc: Any) -> Any:
    h = x * 2.0  # one scratch buffer, updated in place by every step
    alias = h  # another name for it: sees every update, as in PyTorch
    h.index_add_(0, idx, src * 2.0, alpha=0.5)
    h.index_copy_(0, uidx, src)
    h.index_fill_(1, cols, 0.0)
    h.masked_fill_(mask, -1.0)
    h.masked_scatter_(mask2, ssrc)
    return mnp.sum(mnp.tanh(alias) ** 2)


def functional(x: Any, idx: Any, uidx: Any, cols: Any, mask: Any, mask2: Any, src: Any,
               ssrc: Any) -> Any:
    h = x * 2.0
    h = mg.index_add(h, 0, idx, src * 2.0, alpha=0.5)
    h = mg.index_copy(h, 0, uidx, src)
    h = mg.index_fill(h, 1, cols, 0.0)
    h = mg.masked_fill(h, mask, -1.0)
    h = mg.masked_scatter(h, mask2, ssrc)
    return mnp.sum(mnp.tanh(h) ** 2)


def workload(b: int, seed: int = 0) -> tuple:
    rng = np.random.default_rng(seed)
    n, d, k = 6, 4, 3
    return (rng.standard_normal((b, n, d)), rng.integers(0, n, (b, k)),
            np.argsort(rng.random((b, n)), axis=1)[:, :k],
            np.argsort(rng.random((b, d)), axis=1)[:, :2], rng.random((b, n, d)) < 0.3,
            rng.random((b, n, d)) < 0.2, rng.standard_normal((b, k, d)),
            rng.standard_normal((b, n * d)))


def test_pytorch_style_code_under_every_transform() -> None:
    args = workload(3)
    one = tuple(a[0] for a in args)
    np.testing.assert_array_equal(mg.grad(pytorch_style)(*one), mg.grad(functional)(*one))
    expected = mg.vmap(mg.grad(functional))(*args)
    for route in (mg.vmap(mg.grad(pytorch_style)), mg.jit(mg.vmap(mg.grad(pytorch_style))),
                  mg.vmap(mg.grad(mg.jit(pytorch_style)))):
        np.testing.assert_allclose(route(*args), expected, rtol=1e-14)
    t = np.random.default_rng(1).standard_normal(one[0].shape)
    np.testing.assert_allclose(
        mg.jvp(lambda v: pytorch_style(v, *one[1:]), (one[0],), (t,)),
        mg.jvp(lambda v: functional(v, *one[1:]), (one[0],), (t,)), rtol=1e-14)
    _, lin = mg.linearize(lambda v: pytorch_style(v, *one[1:]), one[0])
    np.testing.assert_allclose(lin(t), mg.jvp(lambda v: functional(v, *one[1:]), (one[0],),
                                              (t,))[1], rtol=1e-14)
    # no new primitive: the program is the out-of-place one
    names = [e.prim.name for e in mg.make_jaxpr(pytorch_style)(*one).eqns]
    assert names == [e.prim.name for e in mg.make_jaxpr(functional)(*one).eqns]
    assert not any(n.endswith("_") for n in names)


def test_rebinding_keeps_aliases() -> None:
    def f(v: Any) -> Any:
        h = v * 1.0
        y = h
        returned = h.index_fill_(0, np.array([0]), 0.0)
        assert returned is h and y is h
        return (y * y).sum()

    v = np.arange(1.0, 4.0)
    np.testing.assert_array_equal(mg.grad(f)(v), [0.0, 4.0, 6.0])


def test_updates_a_transform_cannot_express_raise() -> None:
    v = np.arange(4.0)
    captured = np.zeros(4)

    def into_captured(a: Any) -> Any:
        mg.index_fill_(captured, 0, np.array([0]), a)
        return captured.sum()

    with pytest.raises(mg.InPlaceError, match="captured from outside"):
        mg.grad(into_captured)(np.float64(1.0))
    assert captured.tolist() == [0.0] * 4

    def outer(y: Any) -> Any:
        h = y * 1.0
        return mg.grad(lambda z: h.index_fill_(0, np.array([0]), z).sum())(np.float64(2.0))

    with pytest.raises(mg.InPlaceError, match="captured from outside"):
        mg.grad(outer)(v)

    def through_a_view(a: Any) -> Any:
        h = (a * 2.0).reshape(2, 2)
        h[0].index_fill_(0, np.array([0]), 0.0)
        return h.sum()

    with pytest.raises(mg.InPlaceError, match="x is a view"):
        mg.grad(through_a_view)(v)

    def base_with_a_live_view(a: Any) -> Any:
        h = a * 2.0
        w = h[1:]
        h.index_fill_(0, np.array([1]), 0.0)
        return w.sum()

    with pytest.raises(mg.InPlaceError, match="view still alive"):
        mg.grad(base_with_a_live_view)(v)

    def dead_view(a: Any) -> Any:  # a view no longer alive is no obstacle
        h = a * 2.0
        s = h[1:].sum()
        h.index_fill_(0, np.array([1]), 0.0)
        return s + h.sum()

    np.testing.assert_array_equal(mg.grad(dead_view)(v), [2.0, 2.0, 4.0, 4.0])


def test_transforms_never_mutate_the_callers_arrays() -> None:
    def f(x: Any) -> Any:
        mg.index_fill_(x, 0, np.array([0]), 7.0)
        return (x * x).sum()

    x = np.arange(1.0, 4.0)
    xs = np.stack([x, x])
    np.testing.assert_array_equal(mg.grad(f)(x), [0.0, 4.0, 6.0])
    np.testing.assert_array_equal(mg.vmap(f)(xs), [62.0, 62.0])
    np.testing.assert_array_equal(mg.jvp(f, (x,), (x,))[1], 26.0)
    np.testing.assert_array_equal(mg.vmap(mg.grad(f))(xs), [[0.0, 4.0, 6.0]] * 2)
    assert x.tolist() == [1.0, 2.0, 3.0] and xs.tolist() == [[1.0, 2.0, 3.0]] * 2


# --------------------------------------------------------------------------- jit, functionalize


def test_jit_and_functionalize_write_updated_inputs_back() -> None:
    def f(x: Any, i: Any, s: Any) -> Any:
        mg.index_add_(x, 0, i, s)
        mg.masked_fill_(x, x > 2.5, 0.0)
        return x.sum()

    i, s = np.array([1, 1]), np.array([1.0, 2.0])
    eager = np.arange(5.0)
    value = f(eager, i, s)
    for route in (mg.jit(f), mg.functionalize(f)):
        for _ in range(2):  # the first call traces, the second runs the cached program
            x = np.arange(5.0)
            assert route(x, i, s) == value
            assert x.tobytes() == eager.tobytes()
    program = mg.functionalize(f).lower(np.arange(5.0), i, s).traced
    assert [e.prim.name for e in program.eqns] == ["index_add", "broadcast_in_dim", "gt",
                                                   "masked_fill", "reduce_sum"]
    assert len(program.jaxpr.outvars) == 2  # the sum, and x's final value
    staged = mg.make_jaxpr(mg.functionalize(f))(np.arange(5.0), i, s)
    assert [e.prim.name for e in staged.eqns] == [e.prim.name for e in program.eqns]
    assert len(staged.jaxpr.outvars) == 2  # make_jaxpr shows x's final value: an output
    value_out, (x_out,) = staged(np.arange(5.0), i, s)
    assert value_out == value and x_out.tobytes() == eager.tobytes()
    # under grad and vmap, the caller's array is never written: the tracer is rebound
    x = np.arange(5.0)
    np.testing.assert_array_equal(mg.grad(mg.jit(f))(x, i, s), mg.grad(f)(x, i, s))
    np.testing.assert_array_equal(mg.grad(mg.functionalize(f))(x, i, s), mg.grad(f)(x, i, s))
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    with pytest.raises(ValueError, match="read-only"):
        frozen = np.arange(5.0)
        frozen.flags.writeable = False
        mg.jit(f)(frozen, i, s)


def test_jit_updates_an_input_in_its_own_buffer() -> None:
    n = 5_000_000  # 40 MB of float64
    i, s = np.array([1, 1, 3]), np.array([1.0, 2.0, 3.0])

    def f(x: Any) -> Any:
        mg.index_add_(x, 0, i, s)
        return x[1]

    jf = mg.jit(f)
    jf(np.zeros(n))  # traced and compiled outside the measurement
    assert "index_add_" in jf.lower(np.zeros(n)).as_text()
    x = np.zeros(n)
    tracemalloc.start()
    try:
        out = jf(x)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert out == 3.0 and x[1] == 3.0 and x[3] == 3.0 and x.sum() == 6.0
    assert peak < n * 8 // 10, f"peak {peak} bytes: an x-sized buffer was allocated"


DIFF_SAMPLES = [(op, s) for op, s in SAMPLES if s.diff and 0 in s.diff]


@pytest.mark.parametrize(("op", "sample"), DIFF_SAMPLES, ids=[s.name for _, s in DIFF_SAMPLES])
def test_in_place_equals_out_of_place_under_transforms(op: str, sample: Any) -> None:
    """Per op sample: grad, vmap(grad) and jit of PyTorch-style code (a copy of x updated in
    place) against the same with the out-of-place op, bit for bit."""
    ops = sample.make(np.random.default_rng(0))
    if broadcasts_x(op, ops):
        return  # refused in place (test above)

    def styled(*a: Any) -> Any:
        h = a[0] * 1.0
        FIVE[op](h, *a[1:], **sample.params)
        return mnp.sum(mnp.sin(h))

    def plain(*a: Any) -> Any:
        return mnp.sum(mnp.sin(sample.call(a[0] * 1.0, *a[1:])))

    argnums = sample.diff
    for route in (lambda f: mg.grad(f, argnums=argnums), lambda f: mg.jit(mg.grad(f, argnums))):
        for got, want in zip(route(styled)(*ops), route(plain)(*ops), strict=True):
            np.testing.assert_array_equal(got, want)
    batched = [np.stack([o, o]) for o in ops]
    for got, want in zip(mg.vmap(mg.grad(styled, argnums))(*batched),
                         mg.vmap(mg.grad(plain, argnums))(*batched), strict=True):
        np.testing.assert_array_equal(got, want)


def test_a_result_never_aliases_an_updated_input() -> None:
    def f(x: Any) -> Any:
        mg.index_fill_(x, 0, np.array([0]), 5.0)
        return x[1:], x  # views of x, eagerly
    x = np.zeros(3)
    view, whole = mg.jit(f)(x)
    assert x.tolist() == [5.0, 0.0, 0.0]
    x[:] = -1.0  # the caller writes x again: the jitted results keep their values
    assert view.tolist() == [0.0, 0.0] and whole.tolist() == [5.0, 0.0, 0.0]

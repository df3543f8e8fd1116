"""Samples of the control-flow primitives (``cond``, ``scan``, ``while``, ``remat2``): a body
plus operands, as op samples of a function that binds the primitive once, with a NumPy loop
as the reference. ``check_primitive`` runs every rule through them (the batching checks batch
the predicate and the index too, which turns ``cond`` into a select and makes ``while``'s
predicate batched), and its staged column typechecks the nested programs each rule derives.
A ``while`` has forward mode only: its samples say so (``reverse=False``).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from minigrad import lax
from minigrad import numpy as mnp
from minigrad.testing.samples import F32, F64, Sample, normal

_TOL = {F64: 1e-12, F32: 1e-5}


def _sample(name: str, dtype: np.dtype, make: Callable[[np.random.Generator, np.dtype], tuple],
            fun: Callable[..., Any], reference: Callable[..., Any], argnames: tuple[str, ...],
            diff: tuple[int, ...], linear: tuple[tuple[int, ...], ...] = (),
            reverse: bool = True) -> Sample:
    short = {F64: "f64", F32: "f32"}[dtype]
    return Sample(f"{name}-{short}", lambda rng: make(rng, dtype), {}, diff, linear, None,
                  reference, fun, argnames, _TOL[dtype], reverse)


# --------------------------------------------------------------------------- cond


def _cond_fun(p: Any, x: Any, y: Any) -> Any:
    return lax.cond(p, lambda x, y: mnp.sin(x) * y, lambda x, y: x - y * 2.0, x, y)


def _cond_ref(p: Any, x: Any, y: Any) -> Any:
    return np.sin(x) * y if p else x - y * 2


def _cond_make(rng: np.random.Generator, dtype: np.dtype) -> tuple:
    return np.asarray(rng.random() < 0.5), normal(rng, (3,), dtype), normal(rng, (3,), dtype)


_SCALE = np.array([1.0, -2.0, 0.5])  # a value the branches close over


def _cond_linear(p: Any, x: Any) -> Any:
    return lax.cond(p, lambda x: x * _SCALE.astype(x.dtype), lambda x: -x, x)


def _number_pred(p: Any, x: Any) -> Any:
    return lax.cond(p, lambda x: mnp.tanh(x), lambda x: x * x, x)


def _number_make(rng: np.random.Generator, dtype: np.dtype) -> tuple:
    return np.asarray(rng.choice([0.0, 1.5])), normal(rng, (2, 2), dtype)


_BRANCHES = (lambda x: mnp.sin(x), lambda x: x * 3.0, lambda x: mnp.exp(mnp.tanh(x)))


def _switch_fun(i: Any, x: Any) -> Any:
    return lax.switch(i, _BRANCHES, x)


def _switch_ref(i: Any, x: Any) -> Any:
    k = min(max(int(i), 0), 2)
    return [np.sin(x), x * 3, np.exp(np.tanh(x))][k]


def cond_samples() -> list[Sample]:
    return [
        *[_sample("cond:two-operands", dt, _cond_make, _cond_fun, _cond_ref, ("pred", "x", "y"),
                  (1, 2)) for dt in (F64, F32)],
        _sample("cond:linear-closure", F64,
                lambda rng, dt: (np.asarray(rng.random() < 0.5), normal(rng, (3,), dt)),
                _cond_linear, lambda p, x: x * _SCALE if p else -x, ("pred", "x"), (1,),
                ((1,),)),
        _sample("cond:number-pred", F64, _number_make, _number_pred,
                lambda p, x: np.tanh(x) if p != 0 else x * x, ("pred", "x"), (1,)),
        _sample("switch:clamped", F64,
                lambda rng, dt: (np.asarray(rng.integers(-2, 5)), normal(rng, (2, 3), dt)),
                _switch_fun, _switch_ref, ("index", "x"), (1,)),
    ]


# --------------------------------------------------------------------------- scan


def _rnn(reverse: bool) -> Callable[..., Any]:
    def fun(h0: Any, xs: Any, w: Any) -> Any:
        c, ys = lax.scan(lambda h, x: (mnp.tanh(h @ w + x), h * x), h0, xs, reverse=reverse)
        return mnp.concatenate([mnp.expand_dims(c, 0), ys])

    return fun


def _rnn_ref(reverse: bool) -> Callable[..., Any]:
    def ref(h0: Any, xs: Any, w: Any) -> Any:
        h, ys = h0, np.empty_like(xs)
        for t in (range(len(xs) - 1, -1, -1) if reverse else range(len(xs))):
            h, ys[t] = np.tanh(h @ w + xs[t]), h * xs[t]
        return np.concatenate([h[None], ys])

    return ref


def _rnn_make(rng: np.random.Generator, dtype: np.dtype) -> tuple:
    return (normal(rng, (3,), dtype), normal(rng, (4, 3), dtype),
            (normal(rng, (3, 3), dtype) * 0.5).astype(dtype))


def _scan_linear(h0: Any, xs: Any) -> Any:
    c, ys = lax.scan(lambda c, x: (c * 0.5 + x, c), h0, xs)
    return mnp.concatenate([mnp.expand_dims(c, 0), ys])


def _scan_linear_ref(h0: Any, xs: Any) -> Any:
    c, ys = h0, []
    for x in xs:
        ys.append(c)
        c = c * 0.5 + x
    return np.concatenate([c[None], np.stack(ys)])


def _scan_length(x: Any) -> Any:
    return lax.scan(lambda c, _: (mnp.sin(c) * 1.1, c), x, None, length=3)[1]


def _scan_length_ref(x: Any) -> Any:
    ys = []
    for _ in range(3):
        ys.append(x)
        x = np.sin(x) * 1.1
    return np.stack(ys)


def scan_samples() -> list[Sample]:
    return [
        *[_sample("scan:rnn", dt, _rnn_make, _rnn(False), _rnn_ref(False), ("h0", "xs", "w"),
                  (0, 1, 2)) for dt in (F64, F32)],
        _sample("scan:rnn-reverse", F64, _rnn_make, _rnn(True), _rnn_ref(True),
                ("h0", "xs", "w"), (0, 1, 2)),
        _sample("scan:linear", F64, lambda rng, dt: (normal(rng, (2,), dt),
                                                     normal(rng, (3, 2), dt)),
                _scan_linear, _scan_linear_ref, ("h0", "xs"), (0, 1), ((0, 1),)),
        _sample("scan:xs=None", F64, lambda rng, dt: (normal(rng, (2, 2), dt),), _scan_length,
                _scan_length_ref, ("init",), (0,)),
    ]


# --------------------------------------------------------------------------- while


def _counted(x: Any, n: Any) -> Any:
    return lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, mnp.sin(c[1]) * 1.1 + 0.1),
                          (0, x))[1]


def _counted_ref(x: Any, n: Any) -> Any:
    for _ in range(int(n)):
        x = np.sin(x) * 1.1 + 0.1
    return x


def _doubling(x: Any) -> Any:
    return lax.while_loop(lambda c: mnp.sum(c) < 10.0, lambda c: c * 2.0, x)


def _doubling_ref(x: Any) -> Any:
    while x.sum() < 10:
        x = x * 2
    return x


def while_samples() -> list[Sample]:
    # (the doubling loop's sum starts in [0.7, 1.2]: 4 steps, far from any boundary, so
    # finite differences never change the trip count)
    return [
        *[_sample("while:counted", dt,
                  lambda rng, dt: (normal(rng, (3,), dt), np.asarray(rng.integers(0, 5))),
                  _counted, _counted_ref, ("x", "n"), (0,), reverse=False) for dt in (F64, F32)],
        _sample("while:doubling", F64,
                lambda rng, dt: (np.full(2, rng.uniform(0.35, 0.6), dt),), _doubling,
                _doubling_ref, ("x",), (0,), reverse=False),
    ]


# --------------------------------------------------------------------------- remat


def _remat_fun(x: Any, y: Any) -> Any:
    return lax.checkpoint(lambda x, y: mnp.sin(x) * mnp.tanh(y) + x)(x, y)


def remat_samples() -> list[Sample]:
    return [
        *[_sample("checkpoint:two-operands", dt,
                  lambda rng, dt: (normal(rng, (2, 3), dt), normal(rng, (2, 3), dt)),
                  _remat_fun, lambda x, y: np.sin(x) * np.tanh(y) + x, ("x", "y"), (0, 1))
          for dt in (F64, F32)],
        _sample("checkpoint:linear", F64, lambda rng, dt: (normal(rng, (4,), dt),),
                lax.checkpoint(lambda x: mnp.cumsum(x * 3.0)), lambda x: np.cumsum(x * 3),
                ("x",), (0,), ((0,),)),
    ]


SAMPLES: dict[str, Callable[[], list[Sample]]] = {
    "cond": cond_samples, "scan": scan_samples, "while": while_samples,
    "remat2": remat_samples,
}


def control_flow_samples(name: str) -> list[Sample]:
    """The samples of the control-flow primitive ``name`` (none for any other name)."""
    make = SAMPLES.get(name)
    return make() if make is not None else []


__all__ = ["SAMPLES", "control_flow_samples"]

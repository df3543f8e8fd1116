"""The frameworks minigrad is compared with (``python -m minigrad crosscheck``,
``minigrad.testing.assert_matches``): PyTorch (autograd and torch.func) and JAX, behind one
small interface on NumPy inputs and outputs.

Each adapter imports its framework when it is made (``load``), so nothing here touches torch or
jax until a cross-check runs. The ops follow the user-level conventions of minigrad's samples:
a 0-d x counts as one slice, ``dim`` may be negative, a Python-scalar ``value`` in the params
selects PyTorch's Scalar overloads.
"""

from __future__ import annotations

import contextlib
import warnings
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from minigrad.testing.checks import errors

FRAMEWORKS = ("torch", "jax")
INSTALL = {"torch": "pip install torch==2.13.0 (the CPU build)", "jax": "pip install jax jaxlib"}


class Framework:
    """The operations a cross-check needs, on NumPy inputs and NumPy outputs."""

    name = ""
    version = ""

    def op(self, op: str, params: dict) -> Callable[..., Any]:
        raise NotImplementedError

    def array(self, a: Any, op: str, argname: str) -> Any:
        raise NotImplementedError

    def numpy(self, t: Any) -> np.ndarray:
        return np.asarray(t)

    def sin_sum(self, out: Any, w: Any) -> Any:
        raise NotImplementedError

    def vjp(self, f: Callable[..., Any], primals: list, ct: Any) -> list:
        raise NotImplementedError

    def func_vjp(self, f: Callable[..., Any], primals: list, ct: Any) -> list:
        """Reverse mode through the framework's function transform (``torch.func.vjp``,
        ``jax.vjp``) rather than autograd's tape; ``ct`` has the structure of ``f``'s output."""
        raise NotImplementedError

    def jvp(self, f: Callable[..., Any], primals: list, tangents: list) -> Any:
        raise NotImplementedError

    def jac(self, mode: str, f: Callable[..., Any], primals: list) -> list:
        raise NotImplementedError

    def vmap(self, f: Callable[..., Any], in_axes: tuple, args: list) -> Any:
        raise NotImplementedError

    def grad(self, f: Callable[..., Any], argnums: tuple[int, ...]) -> Callable[..., Any]:
        raise NotImplementedError

    @contextlib.contextmanager
    def loops(self, seen: list[str]) -> Iterator[None]:
        """Collect the names of ops the framework looped over (no batching rule)."""
        yield

    def session(self) -> contextlib.AbstractContextManager[Any]:
        """The settings the comparisons need, in force only inside this context (the caller's
        own settings of the framework are left as they were)."""
        return contextlib.nullcontext()


class Torch(Framework):
    name = "torch"

    def __init__(self) -> None:
        import torch
        import torch.func

        self.torch = torch
        self.version = torch.__version__

    def op(self, op: str, params: dict) -> Callable[..., Any]:
        t = self.torch
        p = dict(params)
        if op == "index_add":
            return lambda x, i, s: t.index_add(x, p["dim"], i, s, alpha=p["alpha"])
        if op == "index_copy":
            return lambda x, i, s: t.index_copy(x, p["dim"], i, s)
        if op == "index_fill":
            if "value" in p:  # the Scalar overload
                return lambda x, i: t.index_fill(x, p["dim"], i, p["value"])
            return lambda x, i, v: t.index_fill(x, p["dim"], i, v)
        if op == "masked_fill":
            if "value" in p:
                return lambda x, m: t.masked_fill(x, m, p["value"])
            return lambda x, m, v: t.masked_fill(x, m, v)
        return lambda x, m, s: t.masked_scatter(x, m, s)

    def op_inplace(self, op: str, params: dict) -> Callable[..., Any]:
        """The in-place method (``x.index_add_(...)``): it writes into ``x`` and returns it."""
        p = dict(params)
        if op == "index_add":
            return lambda x, i, s: x.index_add_(p["dim"], i, s, alpha=p["alpha"])
        if op == "index_copy":
            return lambda x, i, s: x.index_copy_(p["dim"], i, s)
        if op == "index_fill":
            if "value" in p:
                return lambda x, i: x.index_fill_(p["dim"], i, p["value"])
            return lambda x, i, v: x.index_fill_(p["dim"], i, v)
        if op == "masked_fill":
            if "value" in p:
                return lambda x, m: x.masked_fill_(m, p["value"])
            return lambda x, m, v: x.masked_fill_(m, v)
        return lambda x, m, s: x.masked_scatter_(m, s)

    def array(self, a: Any, op: str, argname: str) -> Any:
        a = np.array(a)
        if argname == "index" and op in ("index_copy", "index_fill"):
            a = a.astype(np.int64)  # PyTorch takes int64 only there; minigrad any integer
        return self.torch.from_numpy(a)

    def numpy(self, t: Any) -> np.ndarray:
        return t.detach().numpy()

    def sin_sum(self, out: Any, w: Any) -> Any:
        return (self.torch.sin(out) * w).sum()

    def vjp(self, f: Callable[..., Any], primals: list, ct: Any) -> list:
        leaves = [p.detach().clone().requires_grad_(True) for p in primals]
        grads = self.torch.autograd.grad(f(*leaves), leaves, grad_outputs=ct, allow_unused=True)
        return [self.torch.zeros_like(p) if g is None else g for p, g in
                zip(primals, grads, strict=True)]

    def func_vjp(self, f: Callable[..., Any], primals: list, ct: Any) -> list:
        return list(self.torch.func.vjp(f, *primals)[1](ct))

    def jvp(self, f: Callable[..., Any], primals: list, tangents: list) -> Any:
        return self.torch.func.jvp(f, tuple(primals), tuple(tangents))[1]

    def jac(self, mode: str, f: Callable[..., Any], primals: list) -> list:
        fn = self.torch.func.jacfwd if mode == "jacfwd" else self.torch.func.jacrev
        return list(fn(f, argnums=tuple(range(len(primals))))(*primals))

    def vmap(self, f: Callable[..., Any], in_axes: tuple, args: list) -> Any:
        return self.torch.func.vmap(f, in_dims=in_axes)(*args)

    def grad(self, f: Callable[..., Any], argnums: tuple[int, ...]) -> Callable[..., Any]:
        return self.torch.func.grad(f, argnums=argnums)

    @contextlib.contextmanager
    def loops(self, seen: list[str]) -> Iterator[None]:
        functorch = self.torch._C._functorch
        functorch._set_vmap_fallback_warning_enabled(True)
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                yield
        finally:
            # torch has no getter for this switch: put back its default (on), not "off"
            functorch._set_vmap_fallback_warning_enabled(True)
        marker = "batching rule for "
        for w in caught:
            text = str(w.message)
            if marker in text:
                seen.append(text.split(marker, 1)[1].split(".")[0].split()[0])


class Jax(Framework):
    name = "jax"

    def __init__(self) -> None:
        import jax
        import jax.numpy as jnp

        self.jax, self.jnp = jax, jnp
        self.version = jax.__version__

    def session(self) -> contextlib.AbstractContextManager[Any]:
        # float64 as in minigrad; a context, not jax.config.update: that would switch 64-bit
        # types on for the rest of the process, in the caller's own JAX code too
        return self.jax.enable_x64(True)  # type: ignore[no-any-return]

    def _index_update(self, x: Any, dim: int, index: Any, update: Any, how: str) -> Any:
        """``x`` with ``update`` added or set at ``index`` along ``dim``, with PyTorch's
        conventions for a 0-d x, a 0-d index and a 0-d update."""
        shape = x.shape or (1,)
        d = dim % len(shape)
        idx = index.reshape(-1)
        if how != "fill":
            update = update.reshape((*shape[:d], idx.shape[0], *shape[d + 1:]))
        where = (slice(None),) * d + (idx,)
        ref = x.reshape(shape).at[where]
        out = ref.add(update) if how == "add" else ref.set(update)
        return out.reshape(x.shape)

    def _masked_scatter(self, x: Any, mask: Any, source: Any) -> Any:
        jnp = self.jnp
        shape = jnp.broadcast_shapes(x.shape, mask.shape)
        m = jnp.broadcast_to(mask, shape).ravel()
        xs = jnp.broadcast_to(x, shape).ravel()
        src = source.ravel()
        if src.shape[0] == 0:
            return xs.reshape(shape)
        taken = src[jnp.clip(jnp.cumsum(m) - 1, 0, src.shape[0] - 1)]
        return jnp.where(m, taken, xs).reshape(shape)

    def op(self, op: str, params: dict) -> Callable[..., Any]:
        p, jnp = dict(params), self.jnp
        if op == "index_add":
            return lambda x, i, s: self._index_update(x, p["dim"], i, p["alpha"] * s, "add")
        if op == "index_copy":
            return lambda x, i, s: self._index_update(x, p["dim"], i, s, "set")
        if op == "index_fill":
            if "value" in p:
                return lambda x, i: self._index_update(x, p["dim"], i, p["value"], "fill")
            return lambda x, i, v: self._index_update(x, p["dim"], i, v, "fill")
        if op == "masked_fill":
            if "value" in p:
                return lambda x, m: jnp.where(m, jnp.asarray(p["value"], x.dtype), x)
            return lambda x, m, v: jnp.where(m, v, x)
        return self._masked_scatter

    def array(self, a: Any, op: str, argname: str) -> Any:
        return self.jnp.asarray(np.array(a))

    def sin_sum(self, out: Any, w: Any) -> Any:
        return (self.jnp.sin(out) * w).sum()

    def vjp(self, f: Callable[..., Any], primals: list, ct: Any) -> list:
        return list(self.jax.vjp(f, *primals)[1](ct))

    func_vjp = vjp  # jax.vjp is JAX's function transform already

    def jvp(self, f: Callable[..., Any], primals: list, tangents: list) -> Any:
        return self.jax.jvp(f, tuple(primals), tuple(tangents))[1]

    def jac(self, mode: str, f: Callable[..., Any], primals: list) -> list:
        fn = self.jax.jacfwd if mode == "jacfwd" else self.jax.jacrev
        return list(fn(f, argnums=tuple(range(len(primals))))(*primals))

    def vmap(self, f: Callable[..., Any], in_axes: tuple, args: list) -> Any:
        return self.jax.vmap(f, in_axes=in_axes)(*args)

    def grad(self, f: Callable[..., Any], argnums: tuple[int, ...]) -> Callable[..., Any]:
        return self.jax.grad(f, argnums=argnums)


# --------------------------------------------------------------------------- comparing results


class Mismatch(AssertionError):
    """Two frameworks' values differ."""


# Cross-framework tolerances, absolute and relative, by dtype: float32 differs in summation
# order and fused kernels, float64 barely.
_TOLERANCE = {np.dtype(np.float16): 1e-2, np.dtype(np.float32): 1e-4,
              np.dtype(np.float64): 1e-10}


def tolerance(*values: Any) -> float:
    """The tolerance for comparing ``values`` (arrays, or dtypes): that of their coarsest
    floating dtype (a complex dtype counts as its real part's)."""
    dtypes = [v if isinstance(v, np.dtype) else np.asarray(v).dtype for v in values]
    return max((_TOLERANCE.get(np.dtype(np.finfo(d).dtype), 1e-10) for d in dtypes
                if np.issubdtype(d, np.inexact)), default=1e-10)


def compare(got: Sequence[Any], want: Sequence[Any], tol: float, rtol: float | None = None
            ) -> float:
    """The worst absolute difference of two lists of arrays; ``Mismatch`` when a shape differs
    or an element is outside ``tol + rtol * |want|`` (``rtol`` is ``tol`` unless given)."""
    rtol = tol if rtol is None else rtol
    worst = 0.0
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        g, w = np.asarray(g), np.asarray(w)
        if g.shape != w.shape:
            raise Mismatch(f"output {k}: shape {g.shape}, minigrad's {w.shape}")
        if w.size == 0:
            continue
        err, bad = errors(g, w, tol, rtol)
        if bad.any():
            raise Mismatch(f"output {k}: {int(bad.sum())} of {w.size} elements differ (worst "
                           f"|error| {float(np.nanmax(err)):.3g}); theirs {g.ravel()[:6]}, "
                           f"minigrad {w.ravel()[:6]}")
        worst = max(worst, float(np.nanmax(err)))
    return worst


class FrameworkUnavailable(ImportError):
    """The framework asked for is unknown, or not installed (the message says how to install
    it)."""


def load(framework: str, caller: str = "load", option: str = "framework") -> Framework:
    """The adapter of ``framework``; ``FrameworkUnavailable`` when it is unknown or not
    installed (the message names ``caller`` and its ``option``)."""
    if framework not in FRAMEWORKS:
        raise FrameworkUnavailable(f"{caller}: {option} must be one of "
                                   f"{', '.join(FRAMEWORKS)}; got {framework!r}")
    try:
        return Torch() if framework == "torch" else Jax()
    except ImportError as e:
        raise FrameworkUnavailable(f"{caller}: {framework} is not installed ({e}); install it "
                                   f"with {INSTALL[framework]}") from None

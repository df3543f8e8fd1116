"""``minigrad.config``: JAX's configuration flags, by JAX's names.

```python
import minigrad as mg
mg.config.update("jax_enable_x64", False)   # JAX's 32-bit defaults from here on
with mg.enable_x64(True):                   # or for one block (this thread or task only)
    ...
```

``jax_enable_x64`` is on by default, unlike JAX: a NumPy reference and an oracle want float64.
Off, minigrad gives JAX's 32-bit world (``minigrad.dtypes`` says what changes). The environment
variable ``JAX_ENABLE_X64`` sets the starting value, read as JAX reads it. The other flags a JAX
program sets at start-up are accepted; those with an effect here say so below.

This module imports nothing of minigrad's: the core reads it (the dtype of a Python scalar
depends on x64), so it sits below the core.
"""

from __future__ import annotations

import contextvars
import os
from typing import Any

__all__ = ["config", "enable_x64"]


def _env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    truthy = {"1", "true", "t", "yes", "y", "on"}
    falsy = {"0", "false", "f", "no", "n", "off"}
    if value.strip().lower() in truthy | falsy:
        return value.strip().lower() in truthy
    raise ValueError(f"minigrad.config: environment variable {name} must be a boolean such as "
                     f"1, 0, true or false; got {value!r}")


def _bool(name: str, value: Any) -> bool:
    if isinstance(value, bool) or (isinstance(value, int) and value in (0, 1)):
        return bool(value)
    raise TypeError(f"minigrad.config: {name} must be a bool; got {value!r}")


def _choice(*allowed: Any) -> Any:
    def check(name: str, value: Any) -> Any:
        if value not in allowed:
            raise ValueError(f"minigrad.config: {name} must be one of {allowed} here (minigrad "
                             f"computes with NumPy on the CPU); got {value!r}")
        return value
    return check


def _any(name: str, value: Any) -> Any:
    return value


# name -> (default, validator, what it does here). Flags JAX programs commonly set; the ones
# marked "no effect" are accepted so that such a program starts, and read back as set.
_FLAGS: dict[str, tuple[Any, Any, str]] = {
    "jax_enable_x64": (_env_bool("JAX_ENABLE_X64", True), _bool,
                       "64-bit dtypes (on, the default here) or JAX's 32-bit defaults (off)"),
    "jax_debug_nans": (_env_bool("JAX_DEBUG_NANS", False), _bool,
                       "raise FloatingPointError on the first NaN an eager primitive produces"),
    "jax_debug_infs": (_env_bool("JAX_DEBUG_INFS", False), _bool,
                       "raise FloatingPointError on the first inf an eager primitive produces"),
    "jax_disable_jit": (_env_bool("JAX_DISABLE_JIT", False), _bool,
                        "jit runs the function eagerly, op by op"),
    "jax_platform_name": ("", _choice("", "cpu"), "no effect: the one device is the CPU"),
    "jax_platforms": (None, _choice(None, "", "cpu"), "no effect: the one device is the CPU"),
    "jax_default_matmul_precision": (None, _any, "no effect: NumPy computes at full precision"),
    "jax_default_prng_impl": ("threefry2x32", _choice("threefry2x32"),
                              "the PRNG of minigrad.random (threefry2x32 only)"),
    "jax_threefry_partitionable": (True, _bool, "how minigrad.random lays out its counters"),
    "jax_numpy_rank_promotion": ("allow", _choice("allow"), "no effect: ranks promote"),
    "jax_log_compiles": (False, _bool, "no effect"),
    "jax_enable_checks": (False, _bool, "no effect: minigrad always checks"),
    "jax_traceback_filtering": ("auto", _any, "no effect"),
    "jax_compilation_cache_dir": (None, _any, "no effect: nothing is compiled to disk"),
}

_values = {name: default for name, (default, _, _) in _FLAGS.items()}
# Overrides for a block (`with enable_x64(...)`), per thread and per asyncio task, as the
# current trace is: a block in one thread never changes another thread's dtypes.
_overrides: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "minigrad_config", default=None)


# Called with no arguments after any flag changes (globally or for a block): a module that
# reads a flag on a hot path (the core, for jax_debug_nans) caches it and refreshes it here.
_listeners: list[Any] = []


def on_change(fn: Any) -> Any:
    _listeners.append(fn)
    fn()
    return fn


def _changed() -> None:
    for fn in _listeners:
        fn()


def _check_name(name: str) -> None:
    if name not in _FLAGS:
        raise AttributeError(f"minigrad.config: unrecognized config option {name!r}; known: "
                             f"{', '.join(sorted(_FLAGS))}")


class Config:
    """The flags: ``update(name, value)``, ``read(name)``, or an attribute
    (``config.jax_enable_x64``)."""

    def update(self, name: str, value: Any) -> None:
        """Set a flag for the whole program (every thread)."""
        _check_name(name)
        _values[name] = _FLAGS[name][1](name, value)
        _changed()

    def read(self, name: str) -> Any:
        _check_name(name)
        overrides = _overrides.get()
        return overrides[name] if overrides and name in overrides else _values[name]

    def __getattr__(self, name: str) -> Any:
        if name.startswith("jax_"):
            return self.read(name)
        raise AttributeError(name)

    def config_with_absl(self) -> None:
        """Accepted, as JAX programs call it at start-up; minigrad reads no absl flags."""

    def parse_flags_with_absl(self) -> None:
        """Accepted, as config_with_absl."""

    def flags(self) -> dict[str, str]:
        """Each flag and what it does here."""
        return {name: doc for name, (_, _, doc) in _FLAGS.items()}

    def __repr__(self) -> str:
        return f"minigrad.config({', '.join(f'{n}={self.read(n)!r}' for n in _FLAGS)})"

    def override(self, name: str, value: Any) -> _Override:
        """A context manager setting ``name`` for a block, in this thread or task only."""
        _check_name(name)
        return _Override(name, _FLAGS[name][1](name, value))


class _Override:
    def __init__(self, name: str, value: Any):
        self.name, self.value = name, value

    def __enter__(self) -> None:
        self.token = _overrides.set({**(_overrides.get() or {}), self.name: self.value})
        _changed()

    def __exit__(self, *exc: object) -> None:
        _overrides.reset(self.token)
        _changed()

    def __call__(self, fn: Any) -> Any:  # also a decorator, as JAX's context managers are
        import functools

        @functools.wraps(fn)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            with _Override(self.name, self.value):
                return fn(*args, **kwargs)
        return wrapped


config = Config()


def enable_x64(new_val: bool = True) -> _Override:
    """``with minigrad.enable_x64(False): ...`` runs a block in JAX's 32-bit world (JAX's
    ``jax.enable_x64``)."""
    return config.override("jax_enable_x64", new_val)


def x64_enabled() -> bool:
    """The hot-path read of ``jax_enable_x64``."""
    overrides = _overrides.get()
    return overrides.get("jax_enable_x64", _values["jax_enable_x64"]) if overrides else \
        _values["jax_enable_x64"]


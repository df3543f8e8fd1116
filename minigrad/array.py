"""``minigrad.Array``: the type of every value minigrad hands back eagerly.

An Array is a NumPy ndarray (a subclass, made as a zero-copy view where a value leaves minigrad),
so everything NumPy does with ndarrays it does with Arrays: NumPy functions, operators with
NumPy's semantics, ``torch.from_numpy``. It adds what JAX's arrays have and ndarray lacks:
``.at[...]`` (functional updates through minigrad's primitives), ``.block_until_ready()``,
``.device`` and ``.devices()``, ``.to_device``, ``__array_namespace__`` (minigrad.numpy) and
JAX's repr. Plain ndarrays, lists and scalars stay first-class inputs everywhere; primitives'
impls see plain ndarrays (the eval trace takes the view off), so NumPy's fast paths are kept.

``isinstance(x, minigrad.Array)`` is also true for tracers, as ``isinstance(t, jax.Array)`` is in
JAX: Array's metaclass is ``abc.ABCMeta`` and ``Tracer`` is registered as a virtual subclass
(an ABC registration, so the check stays in C; tracers do not become ndarrays).
"""

from __future__ import annotations

import abc
from typing import Any

import numpy as np

from minigrad import core, dtypes
from minigrad.core import ShapedArray, Tracer


class Device:
    """The one device: the CPU NumPy computes on (JAX's ``CpuDevice(id=0)``)."""

    platform = "cpu"
    device_kind = "cpu"
    id = 0
    process_index = 0
    host_id = 0

    def __repr__(self) -> str:
        return "CpuDevice(id=0)"

    def __str__(self) -> str:
        return "cpu:0"


CPU = Device()


def check_device(device: Any, fn: str) -> None:
    """``device`` must name the CPU: the Device itself, "cpu", or None."""
    if device is None or device is CPU or device == "cpu":
        return
    raise ValueError(f"{fn}: device must be minigrad's one device, CpuDevice(id=0) (or 'cpu'); "
                     f"got {device!r}")


class Array(np.ndarray, metaclass=abc.ABCMeta):
    """A minigrad array: a NumPy ndarray with JAX's array methods (see the module's doc)."""

    # ----------------------------------------------------------------- JAX's array methods

    def block_until_ready(self) -> Array:
        """Returns the array itself: NumPy computes eagerly, so it is always ready."""
        return self

    def copy_to_host_async(self) -> None:
        """A no-op: the array already lives in host memory."""

    def is_ready(self) -> bool:
        return True

    @property
    def device(self) -> Device:  # type: ignore[override]  # (NumPy says "cpu")
        return CPU

    def devices(self) -> set[Device]:
        return {CPU}

    def to_device(self, device: Any, /, *, stream: Any = None) -> Array:
        """The array on ``device`` (the array API's method): itself, as there is one device."""
        check_device(device, "to_device")
        if stream is not None:
            raise ValueError(f"to_device: stream must be None on the CPU; got {stream!r}")
        return self

    @property
    def is_fully_addressable(self) -> bool:
        return True

    @property
    def is_fully_replicated(self) -> bool:
        return True

    @property
    def weak_type(self) -> bool:
        return False  # an eager value always has its dtype: Python scalars become arrays

    @property
    def aval(self) -> ShapedArray:
        return ShapedArray(self.shape, self.dtype)

    def on_device_size_in_bytes(self) -> int:
        return int(self.nbytes)

    def __array_namespace__(self, /, *, api_version: str | None = None) -> Any:
        """minigrad.numpy, the array API namespace of minigrad's arrays."""
        return array_namespace(api_version)

    def __getitem__(self, key: Any) -> Any:
        # NumPy's indexing, unless the key holds a tracer (an Array captured by a transformed
        # function, indexed by a traced index): then minigrad.numpy's, as JAX's arrays do.
        if type(key) is tuple:
            traced = any(isinstance(k, Tracer) for k in key)
        else:
            traced = isinstance(key, Tracer)
        if not traced:
            return super().__getitem__(key)
        from minigrad.numpy.indexing import getitem  # (built above this module)

        return getitem(self, key)

    # ----------------------------------------------------------------- floor division
    # NumPy's // with an infinite operand is not the array API standard's floor(x / y) (-1 // inf
    # is -1.0, inf // 2 NaN): minigrad.numpy.floor_divide's values, as a tracer's // has.

    def __floordiv__(self, other: Any) -> Any:
        from minigrad.numpy.division import floor_divide  # (built above this module)

        return floor_divide(self, other)

    def __rfloordiv__(self, other: Any) -> Any:
        from minigrad.numpy.division import floor_divide

        return floor_divide(other, self)

    def __ifloordiv__(self, other: Any) -> Any:
        # in place, as NumPy's //=: the result cast back to this array's dtype (same_kind)
        from minigrad.numpy.division import floor_divide

        np.copyto(self, floor_divide(self, other), casting="same_kind")
        return self

    @property
    def at(self) -> Any:
        """JAX's functional updates: ``x.at[key].set(v)``, ``.add(v)`` ... (a new Array; the
        original is never written), by minigrad.numpy's ``at.py``."""
        global _index_update_helper
        if _index_update_helper is None:
            from minigrad.numpy.at import IndexUpdateHelper  # (built above this module)

            _index_update_helper = IndexUpdateHelper
        return _index_update_helper(self)

    # ----------------------------------------------------------------- printing

    def __repr__(self) -> str:
        # JAX's form: Array([1., 2.], dtype=float32), the dtype always shown.
        plain = self.view(np.ndarray)
        if plain.size == 0 and plain.ndim != 1:
            return f"Array([], shape={plain.shape}, dtype={plain.dtype.name})"
        body = np.array2string(plain, separator=", ", prefix="Array(")
        return f"Array({body}, dtype={plain.dtype.name})"

    def __reduce__(self) -> Any:
        # Pickles as a plain ndarray made into an Array again (NumPy's own reduce would record
        # the subclass and its metaclass, which is fine, but this keeps the payload portable).
        return (_unpickle, (self.view(np.ndarray).copy(),))


_index_update_helper: Any = None  # minigrad.numpy.at.IndexUpdateHelper, once imported


def _unpickle(value: np.ndarray) -> Array:
    return value.view(Array)


SUPPORTED_API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12")
_namespace: list[Any] = []  # minigrad.numpy, which registers itself (it is built above this)


def register_namespace(module: Any) -> None:
    _namespace[:] = [module]


def array_namespace(api_version: str | None = None) -> Any:
    """minigrad.numpy, for tracers' and Arrays' ``__array_namespace__``."""
    if api_version is not None and api_version not in SUPPORTED_API_VERSIONS:
        raise ValueError(f"__array_namespace__: api_version must be one of "
                         f"{SUPPORTED_API_VERSIONS} or None; got {api_version!r}")
    return _namespace[0]

Array.register(Tracer)  # isinstance(tracer, Array), as in JAX


def as_array(x: Any) -> Any:
    """``x`` as an Array (a view, never a copy) if it is an ndarray or a NumPy scalar; tracers
    and anything else pass through."""
    t = type(x)
    if t is np.ndarray:  # (first: what every impl returns; the eval trace's hot path)
        return x if x.dtype.kind == "V" else x.view(Array)
    if t is Array:
        return x
    if isinstance(x, np.generic):  # (next: a ufunc's result on 0-d operands)
        return np.asarray(x).view(Array)
    if isinstance(x, np.ndarray):
        # float0 (the tangent dtype of integers) stays a NumPy array, as in JAX
        return x if x.dtype.kind == "V" else x.view(Array)
    return x  # (tracers, and anything else)


# Every eager result of a primitive is an Array from here on (the core is built below this
# module and learns the type by registration).
core.register_eager_array_type(Array, as_array)


# --------------------------------------------------------------------------- devices (JAX's)

def devices(backend: str | None = None) -> list[Device]:
    """The devices: one CPU."""
    if backend not in (None, "cpu"):
        raise ValueError(f"devices: backend must be 'cpu' or None; got {backend!r}")
    return [CPU]


local_devices = devices


def default_backend() -> str:
    return "cpu"


def device_count() -> int:
    return 1


local_device_count = device_count


def process_index() -> int:
    return 0


def process_count() -> int:
    return 1


def device_put(x: Any, device: Any = None, *, src: Any = None, donate: bool = False,
               may_alias: bool | None = None) -> Any:
    """Each leaf of the pytree ``x`` as an Array of its own (a copy, as JAX's device buffers are
    the device's: a later write into the NumPy array does not show through). An Array is passed
    as it is, as JAX passes an array already on the device."""
    from minigrad.tree import tree_map

    check_device(device, "device_put")

    def put(leaf: Any) -> Any:
        if isinstance(leaf, Tracer) or type(leaf) is Array:
            return leaf
        out = np.array(leaf, copy=may_alias is not True)
        if out.dtype == object:
            raise TypeError(f"device_put: leaves must be arrays or numbers; got "
                            f"{type(leaf).__name__}")
        if dtypes.is_python_scalar(leaf):
            out = out.astype(dtypes.scalar_dtype(leaf))
        return out.astype(dtypes.canonicalize_dtype(out.dtype), copy=False).view(Array)

    return tree_map(put, x)


def device_get(x: Any) -> Any:
    """Each Array leaf of the pytree ``x`` as a plain NumPy array (a view); other leaves as
    they are."""
    from minigrad.tree import tree_map

    return tree_map(lambda leaf: leaf.view(np.ndarray) if type(leaf) is Array else leaf, x)


def block_until_ready(x: Any) -> Any:
    """Returns ``x``: NumPy computes eagerly, so every array is ready."""
    return x

"""Records of lax.dot, lax.dot_general, lax.gather and the lax.scatter family
(minigrad/lax/dot.py, minigrad/lax/slicing_gather.py): eager against loop references written
from the spec (docs/gather_scatter.md: one output element, one update at a time), jit,
jvp/vjp, vmap over every batched combination (the indices too: each example draws its own),
vmap(grad), and JAX's values and gradients. The patterns are those jnp's indexing lowers to
(x[i], x[:, i], take_along_axis through batching dims, x[i, j] point gathers, x.at[i].op)
plus windows, interleaved offset dims and each mode."""

from __future__ import annotations

import numpy as np
from surface import FLOATS, INTS, Rec

from minigrad.lax import GatherDimensionNumbers as G
from minigrad.lax import ScatterDimensionNumbers as S

F64 = (np.dtype(np.float64),)


# --------------------------------------------------------------------------- loop references

def _fill(fill_value, dtype):
    if fill_value is not None:
        return fill_value
    if dtype.kind in "fc":
        return np.nan
    return np.iinfo(dtype).min if dtype.kind == "i" else np.iinfo(dtype).max


def _start(x_shape, idx, b, start_map, operand_batching, index_batching, sizes, mode):
    """The window start for batch position ``b``, after the mode (None: out of bounds and
    filled or dropped)."""
    start = [0] * len(x_shape)
    for i, d in enumerate(start_map):
        start[d] = int(idx[(*b, i)])
    for d, j in zip(operand_batching, index_batching, strict=True):
        start[d] = b[j]
    inside = all(0 <= start[d] <= x_shape[d] - sizes[d] for d in start_map)
    if mode == "clip":
        for d in start_map:
            start[d] = min(max(start[d], 0), x_shape[d] - sizes[d])
    elif not inside:
        if mode in ("fill", "drop"):
            return None
        raise IndexError(f"window at {start} is out of bounds")
    return start


def ref_gather(x, idx, dimension_numbers, slice_sizes, mode=None, fill_value=None, **_):
    dn, r, batch = dimension_numbers, x.ndim, idx.shape[:-1]
    window = [d for d in range(r) if d not in dn.collapsed_slice_dims
              and d not in dn.operand_batching_dims]
    out_rank = len(batch) + len(window)
    batch_pos = [p for p in range(out_rank) if p not in dn.offset_dims]
    it_b, it_w = iter(batch), iter(slice_sizes[d] for d in window)
    out_shape = tuple(next(it_w) if p in dn.offset_dims else next(it_b) for p in range(out_rank))
    out = np.empty(out_shape, x.dtype)
    for o in np.ndindex(*out_shape):
        b = tuple(o[p] for p in batch_pos)
        start = _start(x.shape, idx, b, dn.start_index_map, dn.operand_batching_dims,
                       dn.start_indices_batching_dims, slice_sizes, mode)
        if start is None:
            out[o] = _fill(fill_value, x.dtype)
            continue
        offset = dict(zip(window, (o[p] for p in dn.offset_dims), strict=True))
        out[o] = x[tuple(start[d] + offset.get(d, 0) for d in range(r))]
    return out


def _ref_scatter(combine):
    def reference(x, idx, updates, dimension_numbers, mode=None, **_):
        dn, r, batch = dimension_numbers, x.ndim, idx.shape[:-1]
        window = [d for d in range(r) if d not in dn.inserted_window_dims
                  and d not in dn.operand_batching_dims]
        sizes = [1] * r
        for d, p in zip(window, dn.update_window_dims, strict=True):
            sizes[d] = updates.shape[p]
        scatter_pos = [p for p in range(updates.ndim) if p not in dn.update_window_dims]
        out = x.copy()
        for b in np.ndindex(*batch):  # in order: of repeated slots the last update stays
            start = _start(x.shape, idx, b, dn.scatter_dims_to_operand_dims,
                           dn.operand_batching_dims, dn.scatter_indices_batching_dims, sizes,
                           "fill" if mode is None else mode)
            if start is None:
                continue
            for w in np.ndindex(*[sizes[d] for d in window]):
                u = [0] * updates.ndim
                for p, bp in zip(scatter_pos, b, strict=True):
                    u[p] = bp
                for p, wp in zip(dn.update_window_dims, w, strict=True):
                    u[p] = wp
                offset = dict(zip(window, w, strict=True))
                at = tuple(start[d] + offset.get(d, 0) for d in range(r))
                out[at] = combine(out[at], updates[tuple(u)])
        return out

    return reference


SCATTER_REFS = {"scatter": _ref_scatter(lambda old, new: new),
                "scatter_add": _ref_scatter(lambda old, new: old + new),
                "scatter_sub": _ref_scatter(lambda old, new: old - new),
                "scatter_mul": _ref_scatter(lambda old, new: old * new),
                "scatter_min": _ref_scatter(min), "scatter_max": _ref_scatter(max)}


def ref_scatter_apply(x, idx, func, dimension_numbers, update_shape=(), mode=None, **_):
    # func applied once per window covering a slot: a scatter "multiplying" by one more round
    rounds = SCATTER_REFS["scatter_add"](np.zeros(x.shape), idx, np.ones(update_shape),
                                         dimension_numbers, mode=mode)
    out = x.copy()
    for _ in range(int(rounds.max()) if rounds.size else 0):
        out = np.where(rounds > 0, func(out), out)
        rounds = rounds - 1
    return out


def ref_dot_general(x, y, dimension_numbers, precision=None, preferred_element_type=None):
    (lc, rc), (lb, rb) = dimension_numbers
    letters = "abcdefghijklmnopqrstuvwxyz"
    a = letters[:x.ndim]
    free = iter(letters[x.ndim:])
    pairs = dict(zip(rc, lc, strict=True)) | dict(zip(rb, lb, strict=True))
    b = "".join(a[pairs[j]] if j in pairs else next(free) for j in range(y.ndim))
    out = ("".join(a[i] for i in lb) + "".join(a[i] for i in range(x.ndim)
                                              if i not in lc and i not in lb)
           + "".join(b[j] for j in range(y.ndim) if j not in pairs))
    return np.einsum(f"{a},{b}->{out}", x, y)


def ref_dot(x, y, **_):
    return np.dot(x, y)


# --------------------------------------------------------------------------- draws

def _values(rng, shape, dt):
    if np.dtype(dt).kind in "iu":
        return rng.integers(-5, 6, shape).astype(dt)
    return rng.standard_normal(shape).astype(dt)


def gather_args(x_shape, index):
    """(x, indices): ``index(rng)`` draws the indices."""
    return lambda rng, dt: (_values(rng, x_shape, dt), index(rng))


def scatter_args(x_shape, index, u_shape):
    return lambda rng, dt: (_values(rng, x_shape, dt), index(rng), _values(rng, u_shape, dt))


def ints(lo, hi, shape):
    return lambda rng: rng.integers(lo, hi, shape)


def distinct_rows(n, k, shape):
    """``k`` distinct entries of [0, n) in an index of ``shape`` (unique slots)."""
    return lambda rng: rng.permutation(n)[:k].reshape(shape)


def take_along(n, rows, k):
    """Per row, ``k`` distinct entries of [0, n): shape (rows, k, 1)."""
    return lambda rng: np.stack([rng.permutation(n)[:k] for _ in range(rows)])[..., None]


def windows(rng):
    """Starts of (2, 2) windows into a (5, 4) operand: distinct rows (windows never overlap),
    columns in [-1, 4): some windows are out of bounds (start -1 or 3)."""
    rows = rng.permutation([0, 2, 4])  # (a start of 4 is out of bounds for a window of 2)
    return np.stack([rows, rng.integers(-1, 4, 3)], axis=1)


def grec(tag, x_shape, index, dnums, sizes, dtypes=FLOATS, grad=True, **kw):
    return Rec("lax.gather", gather_args(x_shape, index), tag=tag, ref=ref_gather,
               kwargs={"dimension_numbers": dnums, "slice_sizes": sizes, **kw}, dtypes=dtypes,
               grad=grad and dtypes != INTS)


def srec(name, tag, x_shape, index, u_shape, dnums, jax_grad=True, **kw):
    # JAX differentiates scatter_mul only with unique_indices=True (every index here is)
    extra = {"unique_indices": True} if name == "scatter_mul" else {}
    return Rec(f"lax.{name}", scatter_args(x_shape, index, u_shape), tag=tag,
               ref=SCATTER_REFS[name], kwargs={"dimension_numbers": dnums, **extra, **kw},
               jax_grad=jax_grad)


ROWS = G(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
COLS = G(offset_dims=(0,), collapsed_slice_dims=(1,), start_index_map=(1,))
ALONG = G(offset_dims=(), collapsed_slice_dims=(1,), start_index_map=(1,),
          operand_batching_dims=(0,), start_indices_batching_dims=(0,))
POINTS = G(offset_dims=(1,), collapsed_slice_dims=(0, 1), start_index_map=(0, 1))
WINDOWS = G(offset_dims=(1, 2), collapsed_slice_dims=(), start_index_map=(0, 1))
INTERLEAVED = G(offset_dims=(0, 3), collapsed_slice_dims=(1,), start_index_map=(1,))
SLICE = G(offset_dims=(0, 1), collapsed_slice_dims=(), start_index_map=(0, 1))

S_ROWS = S(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
S_COLS = S(update_window_dims=(0,), inserted_window_dims=(1,), scatter_dims_to_operand_dims=(1,))
S_ALONG = S(update_window_dims=(), inserted_window_dims=(1,), scatter_dims_to_operand_dims=(1,),
            operand_batching_dims=(0,), scatter_indices_batching_dims=(0,))
S_WINDOWS = S(update_window_dims=(1, 2), inserted_window_dims=(),
              scatter_dims_to_operand_dims=(0, 1))

SCATTERS = ("scatter", "scatter_add", "scatter_sub", "scatter_mul", "scatter_min",
            "scatter_max")

RECORDS = [
    # dot and dot_general
    Rec("lax.dot", lambda rng, dt: (rng.standard_normal((2, 3)).astype(dt),
                                    rng.standard_normal((3, 4)).astype(dt)), tag="matmul",
        ref=ref_dot),
    Rec("lax.dot", lambda rng, dt: (rng.standard_normal((2, 3)).astype(dt),
                                    rng.standard_normal(3).astype(dt)), tag="matvec",
        ref=ref_dot),
    Rec("lax.dot", lambda rng, dt: (rng.standard_normal(3).astype(dt),
                                    rng.standard_normal(3).astype(dt)), tag="vecvec",
        ref=ref_dot),
    *[Rec("lax.dot_general", lambda rng, dt, a=a, b=b: (_values(rng, a, dt), _values(rng, b, dt)),
          tag=tag, ref=ref_dot_general, kwargs={"dimension_numbers": dn}, dtypes=dts,
          grad=dts != INTS)
      for tag, a, b, dn, dts in [
          ("batched-matmul", (5, 2, 3), (5, 3, 4), (((2,), (1,)), ((0,), (0,))), FLOATS),
          ("two-contracted", (3, 4, 5), (5, 4, 2), (((1, 2), (1, 0)), ((), ())), FLOATS),
          ("batch-last-in-rhs", (2, 3), (4, 3, 2), (((1,), (1,)), ((0,), (2,))), FLOATS),
          ("outer", (2, 3), (4,), (((), ()), ((), ())), FLOATS),
          ("ints", (2, 3), (3, 4), (((1,), (0,)), ((), ())), INTS)]],
    Rec("lax.dot_general", lambda rng, dt: (rng.standard_normal((2, 3)).astype(dt),
                                            rng.standard_normal((3, 2)).astype(dt)),
        tag="preferred-float64", ref=None,
        kwargs={"dimension_numbers": (((1,), (0,)), ((), ())), "precision": "highest",
                "preferred_element_type": np.float64}),
    # gathers: jnp's patterns, windows and modes
    grec("x[i]", (5, 4), ints(0, 5, (3, 1)), ROWS, (1, 4)),
    grec("x[:,i]", (4, 5), ints(0, 5, (3, 1)), COLS, (4, 1)),
    grec("take_along_axis", (3, 6), ints(0, 6, (3, 4, 1)), ALONG, (1, 1)),
    grec("x[i,j]", (4, 5, 2), lambda rng: np.stack([rng.integers(0, 4, 6),
                                                    rng.integers(0, 5, 6)], axis=1), POINTS,
         (1, 1, 2)),
    grec("windows-clip", (5, 4), ints(-2, 6, (3, 2)), WINDOWS, (2, 3), mode="clip"),
    grec("windows-fill", (5, 4), ints(-2, 6, (3, 2)), WINDOWS, (2, 3), mode="fill",
         fill_value=-1.5),
    grec("windows-fill-nan", (5, 4), ints(-2, 6, (3, 2)), WINDOWS, (2, 3), mode="fill",
         grad=False),  # (NaN reads: finite differences of NaN say nothing; -1.5 above does)
    grec("windows-fill-ints", (5, 4), ints(-2, 6, (3, 2)), WINDOWS, (2, 3), dtypes=INTS,
         mode="fill"),
    grec("interleaved-offsets", (5, 4, 3), ints(0, 5, (2, 2, 1)), INTERLEAVED, (5, 1, 2),
         mode="clip"),
    grec("dynamic-slice", (5, 4), lambda rng: rng.integers(-1, 5, (2,)), SLICE, (2, 3),
         mode="clip"),
    grec("int8-indices", (5, 4), lambda rng: rng.integers(0, 5, (3, 1)).astype(np.int8), ROWS,
         (1, 4), indices_are_sorted=False, unique_indices=False),
    # scatters: x.at[i].op, x.at[:, i].op, batching dims, windows dropped or clipped
    *[srec(n, "x.at[i]", (5, 4), distinct_rows(5, 3, (3, 1)), (3, 4), S_ROWS)
      for n in SCATTERS],
    *[srec(n, "x.at[:,i]", (4, 5), distinct_rows(5, 3, (3, 1)), (4, 3), S_COLS)
      for n in SCATTERS],
    *[srec(n, "batching-dims", (3, 6), take_along(6, 3, 2), (3, 2), S_ALONG)
      for n in SCATTERS],
    *[srec(n, "windows-drop", (5, 4), windows, (3, 2, 2), S_WINDOWS) for n in SCATTERS],
    *[srec(n, "windows-clip", (5, 4), ints(-2, 6, (3, 2)), (3, 2, 2), S_WINDOWS, mode="clip")
      for n in ("scatter_add", "scatter_sub")],
    # JAX's derivative of scatter_min/max in CLIP mode is wrong for out-of-bounds windows: its
    # JVP counts the winners with a scatter_add in the default mode (FILL_OR_DROP), which drops
    # the windows its gathers clamp (jax/_src/lax/slicing.py, _scatter_extremal_jvp); ours
    # passes the finite-difference checks, so only values are compared with JAX here
    *[srec(n, "windows-clip", (5, 4), ints(-2, 6, (3, 2)), (3, 2, 2), S_WINDOWS, mode="clip",
           jax_grad=False) for n in ("scatter_min", "scatter_max")],
    *[Rec("lax.scatter_apply", lambda rng, dt, i=i: (_values(rng, (5, 4), dt), i(rng)),
          tag=tag, ref=ref_scatter_apply, jax_grad=False,
          note="JAX does not differentiate scatter_apply; minigrad does (select rounds)",
          kwargs={"func": lambda v: v * 2.0 + 1.0, "dimension_numbers": dn,
                  "update_shape": us, **kw})
      for tag, i, dn, us, kw in [
          ("x.at[i]-repeated", lambda rng: np.array([[3], [0], [3]]), S_ROWS, (3, 4), {}),
          ("windows-drop", windows, S_WINDOWS, (3, 2, 2), {})]],
    *[srec(n, "repeated", (5, 4), lambda rng: np.array([[3], [0], [3], [1], [0]]), (5, 4),
           S_ROWS) for n in ("scatter_add", "scatter_sub", "scatter_min", "scatter_max")],
]

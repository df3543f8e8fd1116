"""Records of minigrad.lax's dtype, shape and slicing functions by name
(minigrad/lax/shapes.py, minigrad/lax/slicing.py), compared with jax.lax (NumPy has no twin).
Start indices are drawn as arrays (traced under jit, batched under vmap) inside and past both
ends of their axis: JAX clamps them."""

from __future__ import annotations

import numpy as np
from surface import Rec

NAN, INF = np.nan, np.inf
F64 = (np.dtype(np.float64),)
I32, I64, U8 = (np.dtype(t) for t in (np.int32, np.int64, np.uint8))


def normal(*shapes):
    return lambda rng, dt: tuple(rng.standard_normal(s).astype(dt) for s in shapes)


def with_starts(shape, *ranges, extra=()):
    """(x, *extra arrays of x's dtype, *starts): one int64 0-d start per range ``(lo, hi)``."""
    def draw(rng, dt):
        arrays = [rng.standard_normal(s).astype(dt) for s in (shape, *extra)]
        return (*arrays, *[np.asarray(rng.integers(lo, hi)) for lo, hi in ranges])
    return draw


def with_start_vector(shape, extra=()):
    """(x, *extra, starts): one 1-d int array of starts in ``[-2, n + 2)``."""
    def draw(rng, dt):
        arrays = [rng.standard_normal(s).astype(dt) for s in (shape, *extra)]
        return (*arrays, np.array([rng.integers(-2, n + 2) for n in shape]))
    return draw


def dslice(tag, shape, sizes):
    return Rec("lax.dynamic_slice", with_start_vector(shape), kwargs={"slice_sizes": sizes},
               tag=tag, ref=None)


def dus(tag, shape, update):
    return Rec("lax.dynamic_update_slice", with_start_vector(shape, (update,)), tag=tag,
               ref=None)


PAD_VALUE = lambda rng, dt: (rng.standard_normal((3, 4)).astype(dt),  # noqa: E731
                             np.asarray(rng.standard_normal(), dt))

RECORDS = [
    # dtypes
    Rec("lax.convert_element_type", normal((3, 4)), kwargs={"new_dtype": np.float32},
        ref=None, tag="to-f32", tol=1e-5),
    Rec("lax.convert_element_type", lambda rng, dt: (rng.uniform(-300, 300, (3, 4))
                                                     .astype(dt),),
        kwargs={"new_dtype": np.int8}, tag="to-int8", ref=None, grad=False,
        edges=((np.array([1.7, -1.7, NAN, INF, -INF, 3e9, -3e9, 127.9, -128.9, 0.5]),),)),
    Rec("lax.convert_element_type", lambda rng, dt: (rng.uniform(-1e20, 1e20, (5,))
                                                     .astype(dt),),
        kwargs={"new_dtype": np.uint32}, tag="to-uint32", ref=None, grad=False,
        edges=((np.array([-0.5, -1.0, 4294967295.5, 4294967296.0, NAN, 2.5]),),)),
    Rec("lax.convert_element_type", lambda rng, dt: (rng.integers(-300, 300, (4,))
                                                     .astype(dt),),
        kwargs={"new_dtype": np.uint8}, tag="int-to-uint8", ref=None, grad=False,
        dtypes=(I64,)),
    Rec("lax.bitcast_convert_type", normal((3, 4)), kwargs={"new_dtype": np.int64},
        ref=None, grad=False, dtypes=F64),
    Rec("lax.bitcast_convert_type", normal((3, 4)), kwargs={"new_dtype": np.uint16},
        tag="narrower", ref=None, grad=False),
    Rec("lax.bitcast_convert_type", lambda rng, dt: (rng.integers(-99, 99, (3, 4))
                                                     .astype(dt),),
        kwargs={"new_dtype": np.float64}, tag="wider", ref=None, grad=False,
        dtypes=(np.dtype(np.int16),)),
    Rec("lax.reduce_precision", normal((3, 4)), kwargs={"exponent_bits": 5,
                                                        "mantissa_bits": 10},
        ref=None, tag="float16", jax_grad=False, grad=False,
        edges=((np.array([1.1, 65519.0, 65520.0, 1e-6, -0.0, INF, NAN]),),)),
    Rec("lax.reduce_precision", normal((3, 4)), kwargs={"exponent_bits": 11,
                                                        "mantissa_bits": 52},
        ref=None, tag="float64-identity", dtypes=F64),
    # iota and broadcasting
    Rec("lax.iota", lambda rng, dt: (), kwargs={"dtype": np.int32, "size": 5}, ref=None,
        grad=False, batch=False, dtypes=F64),
    Rec("lax.broadcasted_iota", lambda rng, dt: (),
        kwargs={"dtype": np.float32, "shape": (2, 3), "dimension": 1}, ref=None, grad=False,
        batch=False, dtypes=F64),
    Rec("lax.broadcast", normal((2, 3)), kwargs={"sizes": (4,)}, ref=None),
    Rec("lax.broadcast_in_dim", normal((1, 3)),
        kwargs={"shape": (2, 4, 3), "broadcast_dimensions": (0, 2)}, ref=None),
    # axes
    Rec("lax.reshape", normal((2, 3, 2)), kwargs={"new_sizes": (3, 4)}, ref=None),
    Rec("lax.reshape", normal((2, 3, 2)), kwargs={"new_sizes": (6, 2),
                                                 "dimensions": (1, 0, 2)},
        tag="dimensions", ref=None),
    Rec("lax.squeeze", normal((1, 3, 1)), kwargs={"dimensions": (0, -1)}, ref=None),
    Rec("lax.expand_dims", normal((3, 2)), kwargs={"dimensions": (0, -1)}, ref=None),
    Rec("lax.transpose", normal((2, 3, 4)), kwargs={"permutation": (2, 0, 1)}, ref=None),
    Rec("lax.rev", normal((3, 4)), kwargs={"dimensions": (1,)}, ref=None),
    Rec("lax.concatenate", normal((2, 3), (2, 1), (2, 2)), kwargs={"dimension": 1},
        listarg=True, ref=None),
    # pad
    Rec("lax.pad", PAD_VALUE, kwargs={"padding_config": ((1, 2, 1), (0, 1, 2))}, ref=None),
    Rec("lax.pad", PAD_VALUE, kwargs={"padding_config": ((-1, 2, 0), (2, -3, 1))},
        tag="negative", ref=None),
    Rec("lax.pad", normal((3, 4)), kwargs={"padding_value": 0.0,
                                           "padding_config": ((-2, -1, 2), (1, 0, 0))},
        tag="negative-zero-value", ref=None, dtypes=F64),
    # select_n and clamp
    Rec("lax.select_n", lambda rng, dt: (rng.integers(0, 3, (3, 4)),
                                         *[rng.standard_normal((3, 4)).astype(dt)
                                           for _ in range(3)]), ref=None),
    Rec("lax.select_n", lambda rng, dt: (rng.random((3, 4)) < 0.5,
                                         *[rng.standard_normal((3, 4)).astype(dt)
                                           for _ in range(2)]), tag="bool", ref=None),
    Rec("lax.select_n", lambda rng, dt: (np.asarray(rng.integers(0, 2), np.uint8),
                                         *[rng.standard_normal((3,)).astype(dt)
                                           for _ in range(2)]), tag="scalar-uint8", ref=None),
    Rec("lax.clamp", lambda rng, dt: (np.full((3, 4), -0.5, dt),
                                      rng.standard_normal((3, 4)).astype(dt),
                                      np.full((3, 4), 0.5, dt)), ref=None,
        edges=((np.array([0.0, 0.0, 1.0, 2.0, NAN, 0.0]), np.array([0.0, -1.0, 1.0, 0.0, 0.0,
                                                                    NAN]),
                np.array([1.0, 1.0, 1.0, 1.0, 1.0, 1.0])),)),
    Rec("lax.clamp", lambda rng, dt: (rng.standard_normal((3, 4)).astype(dt),
                                      rng.standard_normal((3, 4)).astype(dt),
                                      rng.standard_normal((3, 4)).astype(dt)),
        tag="crossed-bounds", ref=None, grad=False,
        note="values only: where min > max, JAX's derivative (ours) sends nothing to min or "
        "max where x < max, though the value is max there; finite differences disagree"),
    # static slices
    Rec("lax.slice", normal((5, 6)), kwargs={"start_indices": (1, 0),
                                             "limit_indices": (4, 6), "strides": (2, 3)},
        ref=None),
    Rec("lax.slice_in_dim", normal((5, 6)), kwargs={"start_index": -4, "limit_index": None,
                                                    "stride": 2, "axis": 1}, ref=None),
    Rec("lax.index_in_dim", normal((5, 6)), kwargs={"index": -2, "axis": 0,
                                                    "keepdims": False}, ref=None),
    # dynamic slices: starts drawn inside and past both ends (clamped, as JAX's)
    dslice("2d", (5, 6), (2, 3)),
    dslice("whole-axis", (4, 3), (4, 1)),
    dus("2d", (5, 6), (2, 3)),
    dus("full-rank-column", (4, 3), (4, 1)),
    Rec("lax.dynamic_slice_in_dim", with_starts((5, 6), (-8, 9)),
        kwargs={"slice_size": 3, "axis": 1}, ref=None),
    Rec("lax.dynamic_index_in_dim", with_starts((5, 6), (-7, 8)),
        kwargs={"axis": 0, "keepdims": False}, ref=None),
    Rec("lax.dynamic_update_slice_in_dim", with_starts((5, 6), (-7, 8), extra=((2, 6),)),
        kwargs={"axis": 0}, ref=None),
    Rec("lax.dynamic_update_index_in_dim", with_starts((5, 6), (-9, 9), extra=((5,),)),
        kwargs={"axis": 1}, ref=None),
]

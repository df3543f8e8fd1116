"""Records of minigrad.lax's convolutions and windowed reductions (minigrad/lax/convolution.py,
minigrad/lax/windowed.py): eager, jit, jvp/vjp, vmap over every batched combination, vmap(grad),
and (convolutions) JAX's values and gradients. ``reduce_window`` takes its computation as a
function, which JAX recognizes only as its own ``lax.max`` (minigrad: ``minigrad.numpy.maximum``
or ``minigrad.lax``'s), so its comparison with JAX is in tests/test_windowed.py."""

from __future__ import annotations

import numpy as np
from surface import Rec

import minigrad as mg


def normal(*shapes):
    return lambda rng, dt: tuple(rng.standard_normal(s).astype(dt) for s in shapes)


def conv(tag, lhs, rhs, name="conv_general_dilated", **kwargs):
    return Rec(f"lax.{name}", normal(lhs, rhs), kwargs=kwargs, tag=tag, ref=None)


def pool(tag, shape, init, computation, **kwargs):
    return Rec("lax.reduce_window", normal(shape), tag=tag, ref=None, jax=False,
               kwargs={"init_value": init, "computation": computation, **kwargs})


RECORDS = [
    conv("1d-same", (2, 3, 7), (4, 3, 3), window_strides=(2,), padding="SAME"),
    conv("2d-valid-nchw", (2, 3, 6, 5), (4, 3, 3, 2), window_strides=(1, 1), padding="VALID"),
    conv("2d-nhwc-dilated", (2, 6, 5, 3), (3, 2, 3, 4), window_strides=(1, 2),
         padding=((1, 0), (2, 1)), lhs_dilation=(2, 1), rhs_dilation=(1, 2),
         dimension_numbers=("NHWC", "HWIO", "NHWC")),
    conv("2d-feature-groups", (2, 4, 5, 5), (6, 2, 3, 3), window_strides=(1, 1),
         padding="SAME_LOWER", feature_group_count=2),
    conv("1d-batch-groups", (4, 3, 6), (4, 3, 2), window_strides=(1,), padding="VALID",
         batch_group_count=2),
    conv("3d", (1, 2, 4, 3, 4), (2, 2, 2, 2, 2), window_strides=(2, 1, 1), padding="SAME",
         dimension_numbers=("NCDHW", "OIDHW", "NCDHW")),
    conv("", (2, 3, 5, 5), (4, 3, 3, 3), name="conv", window_strides=(1, 1), padding="SAME"),
    conv("", (2, 3, 5, 5), (4, 3, 2, 2), name="conv_with_general_padding",
         window_strides=(1, 1), padding=((1, 1), (0, 1)), lhs_dilation=(2, 1),
         rhs_dilation=(1, 2)),
    conv("same", (1, 4, 4, 2), (3, 3, 2, 3), name="conv_transpose", strides=(2, 2),
         padding="SAME"),
    conv("valid-transpose-kernel", (1, 3, 4, 2), (2, 3, 3, 2), name="conv_transpose",
         strides=(2, 1), padding="VALID", transpose_kernel=True),
    pool("max-2x2", (2, 3, 4, 4), -np.inf, mg.numpy.maximum, window_dimensions=(1, 1, 2, 2),
         window_strides=(1, 1, 2, 2)),
    pool("sum-same", (3, 5), 0.0, mg.numpy.add, window_dimensions=(2, 3), padding="SAME",
         window_dilation=(1, 2)),
    pool("min-dilated", (7,), np.inf, mg.numpy.minimum, window_dimensions=(3,),
         padding=((1, 2),), base_dilation=(2,)),
    pool("product", (2, 5), 1.0, mg.numpy.multiply, window_dimensions=(1, 2),
         padding=((0, 0), (1, 0))),
]

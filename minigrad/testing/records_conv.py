"""Records of ``conv_general_dilated`` (``minigrad/ops/conv.py``): 0 to 3 spatial dimensions,
strides, padding (negative too), both dilations, feature and batch groups, layouts other than
NCHW, and ``preferred_element_type``; each against a loop over every output element, group,
input feature and kernel offset. Operands are drawn integral, so every sum is exact.
"""

from __future__ import annotations

import itertools
from typing import Any, Callable

import numpy as np

from minigrad.ops.conv import ConvDimensionNumbers, conv_general_dilated_p
from minigrad.testing.samples import BOTH, F32, F64, OpRecord, integral


def ref_conv(lhs: np.ndarray, rhs: np.ndarray, *, window_strides: tuple, padding: tuple,
             lhs_dilation: tuple, rhs_dilation: tuple,
             dimension_numbers: ConvDimensionNumbers, feature_group_count: int,
             batch_group_count: int, precision: Any, preferred_element_type: Any
             ) -> np.ndarray:
    """The convolution as XLA defines it, one output element at a time."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    dtype = lhs.dtype if preferred_element_type is None else np.dtype(preferred_element_type)
    x, w = np.transpose(lhs, lhs_spec), np.transpose(rhs, rhs_spec)
    n, _, *space = x.shape
    o, i, *kernel = w.shape
    fgc, bgc = feature_group_count, batch_group_count
    out_space = []
    for s, k, st, (lo, hi), ld, rd in zip(space, kernel, window_strides, padding,
                                          lhs_dilation, rhs_dilation, strict=True):
        length = (s - 1) * ld + 1 + lo + hi if s else lo + hi
        out_space.append(max(0, (length - ((k - 1) * rd + 1)) // st + 1))
    out = np.zeros((n // bgc, o, *out_space), dtype)
    for nb, oo, *y in itertools.product(range(n // bgc), range(o), *map(range, out_space)):
        group = oo // (o // (fgc * bgc))
        batch = group * (n // bgc) + nb if bgc > 1 else nb
        acc = dtype.type(0)
        for ii, *k in itertools.product(range(i), *map(range, kernel)):
            feature = group * i + ii if fgc > 1 else ii
            at = []
            for yy, kk, s, st, (lo, _), ld, rd in zip(y, k, space, window_strides, padding,
                                                      lhs_dilation, rhs_dilation, strict=True):
                p = yy * st + kk * rd - lo  # position in the dilated lhs
                if p < 0 or p % ld or p // ld >= s:
                    break  # a pad or a hole: zero
                at.append(p // ld)
            else:
                x_at, w_at = (batch, feature, *at), (oo, ii, *k)
                acc += dtype.type(x[x_at]) * dtype.type(w[w_at])
        out_at = (nb, oo, *y)
        out[out_at] = acc
    return out.transpose(np.argsort(out_spec))


def _numbers(lhs: str, rhs: str, out: str) -> ConvDimensionNumbers:
    """JAX's string form ('NCHW', 'OIHW', 'NCHW') as permutations (spatial axes in rhs
    order)."""
    spatial = [ch for ch in rhs if ch not in "OI"]

    def spec(s: str, first: str, second: str) -> tuple:
        return (s.index(first), s.index(second), *(s.index(ch) for ch in spatial))

    return ConvDimensionNumbers(spec(lhs, "N", "C"), spec(rhs, "O", "I"), spec(out, "N", "C"))


def conv_params(nd: int, strides: tuple | None = None, padding: tuple | None = None,
                lhs_dilation: tuple | None = None, rhs_dilation: tuple | None = None,
                numbers: ConvDimensionNumbers | None = None, fgc: int = 1, bgc: int = 1,
                preferred: Any = None) -> dict:
    ones = (1,) * nd
    iota = tuple(range(nd + 2))
    return {"window_strides": strides or ones, "padding": padding or ((0, 0),) * nd,
            "lhs_dilation": lhs_dilation or ones, "rhs_dilation": rhs_dilation or ones,
            "dimension_numbers": numbers or ConvDimensionNumbers(iota, iota, iota),
            "feature_group_count": fgc, "batch_group_count": bgc, "precision": None,
            "preferred_element_type": preferred}


def _small(rng: np.random.Generator, shape: tuple, dtype: np.dtype) -> np.ndarray:
    """Integers in [-1, 1] (float32) or quarters in [-1, 1] (float64; every sum of products
    is exact, whatever the order): small enough for float32's second differences, also when
    test_float32.py converts a float64 sample."""
    if np.dtype(dtype) == F32:
        return rng.integers(-1, 2, shape).astype(dtype)
    return integral(rng, shape, dtype) / 4


def _draw(lhs_shape: tuple, rhs_shape: tuple, dtype: np.dtype | None = None) -> Callable:
    return lambda rng, dt: (_small(rng, lhs_shape, dtype or dt),
                            _small(rng, rhs_shape, dtype or dt))


NHWC = _numbers("NHWC", "HWIO", "NHWC")
CASES = {  # name: (lhs shape, rhs shape, params)
    "1d-valid": ((2, 3, 7), (4, 3, 3), conv_params(1)),
    "2d-stride-pad": ((2, 3, 6, 5), (4, 3, 3, 2), conv_params(2, (2, 1), ((1, 1), (0, 1)))),
    "2d-dilations": ((1, 2, 4, 5), (3, 2, 2, 3),
                     conv_params(2, (1, 2), ((0, 1), (2, 0)), (2, 1), (1, 2))),
    "negative-pad": ((2, 2, 6, 5), (2, 2, 2, 2), conv_params(2, None, ((-1, 0), (1, -1)))),
    "nhwc": ((2, 5, 4, 3), (2, 3, 3, 4), conv_params(2, (1, 2), ((1, 0), (1, 1)), None, None,
                                                     NHWC)),
    "mixed-layout": ((2, 3, 5, 4), (3, 3, 2, 2),
                     conv_params(2, None, ((1, 1), (0, 0)), None, None,
                                 _numbers("NCHW", "HIOW", "WNCH"))),
    "feature-groups": ((2, 4, 5, 5), (6, 2, 2, 3), conv_params(2, (2, 1), None, None, None,
                                                               None, 2)),
    "batch-groups": ((4, 3, 5), (4, 3, 2), conv_params(1, (1,), ((1, 0),), None, (2,), None,
                                                       1, 2)),
    "3d": ((1, 2, 4, 3, 3), (2, 2, 2, 2, 1), conv_params(3, (1, 2, 1), ((0, 1), (1, 0), (0, 0)),
                                                         (1, 1, 2))),
    "0d": ((3, 4), (2, 4), conv_params(0)),
    "transposed-conv": ((1, 2, 3, 3), (2, 2, 3, 3),
                        conv_params(2, None, ((2, 2), (1, 2)), (2, 2), None)),
}


RECORDS: list[OpRecord] = [
    *[OpRecord(conv_general_dilated_p, name, _draw(lhs_shape, rhs_shape), ref_conv, params,
               diff=(0, 1), linear=((0,), (1,)),
               dtypes=BOTH if name in ("2d-stride-pad", "feature-groups") else (F64,))
      for name, (lhs_shape, rhs_shape, params) in CASES.items()],
    OpRecord(conv_general_dilated_p, "preferred-f64", _draw((2, 2, 5), (3, 2, 2), F32), ref_conv,
             conv_params(1, preferred=F64), diff=(0, 1), linear=((0,), (1,)), dtypes=(F32,),
             out_dtype=F64),
    OpRecord(conv_general_dilated_p, "int", lambda rng, dt: (rng.integers(-3, 4, (2, 2, 5, 4)),
                                                             rng.integers(-3, 4, (3, 2, 2, 2))),
             ref_conv, conv_params(2, (2, 1)), out_dtype=np.dtype(np.int64)),
]

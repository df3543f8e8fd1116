"""Convolutions of ``jax.lax``: ``conv_general_dilated`` and the functions around it, over the
``conv_general_dilated`` primitive (``minigrad/ops/conv.py``; its semantics and rules are
written out in that module: its docstring and a comment above each rule).

These functions turn JAX's arguments (padding strings, dimension-number strings, None for
defaults, precision names) into the primitive's canonical parameters, and check every argument
before any work: an error names the function and the argument.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from minigrad.core import get_aval
from minigrad.dtypes import canonicalize_dtype
from minigrad.lax.precision import canonicalize_precision
from minigrad.numpy.util import asarray
from minigrad.ops.conv import ConvDimensionNumbers, conv_general_dilated_p
from minigrad.ops.rev import rev
from minigrad.ops.structural import transpose
from minigrad.ops.windowed import dilate_dim

Padding = str | Sequence[tuple[int, int]]
_PADDINGS = ("SAME", "SAME_LOWER", "VALID")


# --------------------------------------------------------------------------- argument helpers


def ints(value: Any, fn: str, what: str, n: int, least: int = 1, per: str = "spatial axis"
         ) -> tuple[int, ...]:
    """``value`` as ``n`` Python ints (one ``per`` axis), each at least ``least``; None gives
    ones."""
    if value is None:
        return (1,) * n
    try:
        out = tuple(int(v) for v in value)
        exact = all(int(v) == v and not isinstance(v, (bool, np.bool_)) for v in value)
    except (TypeError, ValueError):
        raise TypeError(f"{fn}: {what} must be a sequence of {n} integers; got "
                        f"{value!r}") from None
    if not exact:
        raise TypeError(f"{fn}: {what} must hold integers; got {value!r}")
    if len(out) != n or any(v < least for v in out):
        raise ValueError(f"{fn}: {what} must hold {n} integers >= {least} (one per {per}); "
                         f"got {value!r}")
    return out


def pad_pairs(padding: Any, fn: str, n: int) -> tuple[tuple[int, int], ...]:
    """Explicit ``(low, high)`` pairs, one per spatial axis."""
    try:
        pairs = tuple((int(lo), int(hi)) for lo, hi in padding)
    except (TypeError, ValueError):
        raise TypeError(f"{fn}: padding must be one of {_PADDINGS} or a sequence of {n} "
                        f"(low, high) integer pairs; got {padding!r}") from None
    if len(pairs) != n:
        raise ValueError(f"{fn}: padding must hold {n} (low, high) pairs (one per spatial "
                         f"axis); got {padding!r}")
    return pairs


def padtype_to_pads(in_shape: Sequence[int], window_shape: Sequence[int],
                    window_strides: Sequence[int], padding: str) -> list[tuple[int, int]]:
    """The (low, high) pairs a padding name stands for. 'VALID': none. 'SAME' and
    'SAME_LOWER': enough for ``ceil(in / stride)`` windows, split evenly, the odd element at
    the end ('SAME') or at the start ('SAME_LOWER').

    >>> padtype_to_pads((5, 6), (3, 2), (2, 1), "SAME")
    [(1, 1), (0, 1)]
    """
    if not isinstance(padding, str) or padding.upper() not in _PADDINGS:
        raise ValueError(f"padtype_to_pads: padding must be one of {_PADDINGS}; got "
                         f"{padding!r}")
    kind = padding.upper()
    if kind == "VALID":
        return [(0, 0)] * len(in_shape)
    pads = []
    for n, k, s in zip(in_shape, window_shape, window_strides, strict=True):
        total = max(0, (-(-int(n) // int(s)) - 1) * int(s) + int(k) - int(n))
        small, large = total // 2, total - total // 2
        pads.append((small, large) if kind == "SAME" else (large, small))
    return pads


# --------------------------------------------------------------------------- dimension numbers


def conv_general_permutations(dimension_numbers: Sequence[str]
                              ) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """The three permutations of JAX's string form, e.g. ``('NHWC', 'HWIO', 'NHWC')``: for
    lhs and the output (batch 'N', feature 'C', spatial...), for rhs (out feature 'O', in
    feature 'I', spatial...); the spatial axes in the order rhs names them.

    >>> conv_general_permutations(("NHWC", "HWIO", "NHWC"))
    ((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))
    """
    fn = "conv_dimension_numbers"
    if not isinstance(dimension_numbers, (tuple, list)) or len(dimension_numbers) != 3 or \
            not all(isinstance(s, str) for s in dimension_numbers):
        raise TypeError(f"{fn}: dimension_numbers must be None, a ConvDimensionNumbers or "
                        f"three strings such as ('NCHW', 'OIHW', 'NCHW'); got "
                        f"{dimension_numbers!r}")
    lhs, rhs, out = dimension_numbers
    for s, (a, b) in zip(dimension_numbers, (("N", "C"), ("O", "I"), ("N", "C")), strict=True):
        if s.count(a) != 1 or s.count(b) != 1 or len(set(s)) != len(s):
            raise ValueError(f"{fn}: {s!r} must name {a!r} and {b!r} once each and no axis "
                             f"twice; got dimension_numbers {tuple(dimension_numbers)}")
    spatial = [ch for ch in rhs if ch not in "OI"]
    if set(lhs) - {"N", "C"} != set(spatial) or set(out) - {"N", "C"} != set(spatial):
        raise ValueError(f"{fn}: lhs, rhs and output must name the same spatial axes; got "
                         f"{tuple(dimension_numbers)}")

    def perm(s: str, a: str, b: str) -> tuple[int, ...]:
        return (s.index(a), s.index(b), *(s.index(ch) for ch in spatial))

    return perm(lhs, "N", "C"), perm(rhs, "O", "I"), perm(out, "N", "C")


def conv_dimension_numbers(lhs_shape: Sequence[int], rhs_shape: Sequence[int],
                           dimension_numbers: Any) -> ConvDimensionNumbers:
    """``dimension_numbers`` (None, three strings, or a ``ConvDimensionNumbers``) as a
    ``ConvDimensionNumbers`` of permutations; None means NCHW / OIHW / NCHW.

    >>> conv_dimension_numbers((1, 5, 5, 3), (3, 3, 3, 8), ("NHWC", "HWIO", "NHWC"))
    ConvDimensionNumbers(lhs_spec=(0, 3, 1, 2), rhs_spec=(3, 2, 0, 1), out_spec=(0, 3, 1, 2))
    """
    ndim = len(lhs_shape)
    if len(rhs_shape) != ndim:
        raise ValueError(f"conv_dimension_numbers: lhs and rhs must have the same rank; got "
                         f"shapes {tuple(lhs_shape)} and {tuple(rhs_shape)}")
    if dimension_numbers is None:
        iota = tuple(range(ndim))
        return ConvDimensionNumbers(iota, iota, iota)
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        specs = tuple(tuple(int(a) for a in spec) for spec in dimension_numbers)
    else:
        specs = conv_general_permutations(dimension_numbers)
    for name, spec in zip(ConvDimensionNumbers._fields, specs, strict=True):
        if sorted(spec) != list(range(ndim)):
            raise ValueError(f"conv_dimension_numbers: {name} must be a permutation of the "
                             f"{ndim} axes of lhs {tuple(lhs_shape)}; got {spec}")
    return ConvDimensionNumbers(*specs)


# --------------------------------------------------------------------------- shapes


def conv_shape_tuple(lhs_shape: Sequence[int], rhs_shape: Sequence[int],
                     strides: Sequence[int], pads: Padding, batch_group_count: int = 1
                     ) -> tuple[int, ...]:
    """The output shape of a convolution in the canonical layout (N C S..., O I K...)."""
    space, kernel = list(lhs_shape[2:]), list(rhs_shape[2:])
    if isinstance(pads, str):
        pads = padtype_to_pads(space, kernel, strides, pads)
    pairs = pad_pairs(pads, "conv_shape_tuple", len(space))
    out = []
    for n, k, s, (lo, hi) in zip(space, kernel, strides, pairs, strict=True):
        if n + lo + hi < 0:
            raise ValueError(f"conv_shape_tuple: negative padding {pairs} removes more than "
                             f"the lhs spatial shape {tuple(space)} has")
        out.append(max(0, (int(n) + lo + hi - int(k)) // int(s) + 1))
    return (int(lhs_shape[0]) // batch_group_count, int(rhs_shape[0]), *out)


def conv_general_shape_tuple(lhs_shape: Sequence[int], rhs_shape: Sequence[int],
                             window_strides: Sequence[int], padding: Padding,
                             dimension_numbers: Any) -> tuple[int, ...]:
    """The output shape of ``conv_general_dilated`` (without dilations) in the output layout.

    >>> conv_general_shape_tuple((2, 3, 5, 5), (4, 3, 3, 3), (1, 1), "SAME",
    ...                          ("NCHW", "OIHW", "NCHW"))
    (2, 4, 5, 5)
    """
    dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    lhs = [lhs_shape[a] for a in dn.lhs_spec]
    rhs = [rhs_shape[a] for a in dn.rhs_spec]
    out = conv_shape_tuple(lhs, rhs, window_strides, padding)
    return tuple(out[p] for p in np.argsort(dn.out_spec))


def _transpose_padding(k: int, s: int, padding: Any) -> tuple[int, int]:
    """The padding of ``conv_transpose``'s convolution that undoes a forward convolution with
    kernel size ``k`` (dilated), stride ``s`` and ``padding`` ('SAME', 'VALID' or a pair)."""
    if padding == "SAME":
        total = k + s - 2
        before = k - 1 if s > k - 1 else -(-total // 2)
    elif padding == "VALID":
        total = k + s - 2 + max(k - s, 0)
        before = k - 1
    else:
        lo, hi = (int(p) for p in padding)
        before, total = k - lo - 1, 2 * k - lo - hi - 2
    return before, total - before


def conv_transpose_shape_tuple(lhs_shape: Sequence[int], rhs_shape: Sequence[int],
                               window_strides: Sequence[int], padding: Padding,
                               dimension_numbers: Any) -> tuple[int, ...]:
    """The output shape of ``conv_transpose`` in the output layout."""
    dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    lhs = [int(lhs_shape[a]) for a in dn.lhs_spec]
    rhs = [int(rhs_shape[a]) for a in dn.rhs_spec]
    if isinstance(padding, str):
        pairs = [_transpose_padding(k, s, padding.upper())
                 for k, s in zip(rhs[2:], window_strides, strict=True)]
    else:
        pairs = list(pad_pairs(padding, "conv_transpose_shape_tuple", len(lhs) - 2))
    space = [(n - 1) * s - k + 2 + lo + hi for n, k, s, (lo, hi) in
             zip(lhs[2:], rhs[2:], window_strides, pairs, strict=True)]
    out = (lhs[0], rhs[0], *space)
    return tuple(out[p] for p in np.argsort(dn.out_spec))


# --------------------------------------------------------------------------- the convolutions


def _operands(fn: str, lhs: Any, rhs: Any) -> tuple[Any, Any]:
    lhs, rhs = asarray(lhs), asarray(rhs)
    a, b = get_aval(lhs), get_aval(rhs)
    for name, aval in (("lhs", a), ("rhs", b)):
        if aval.dtype.kind not in "biufc":
            raise TypeError(f"{fn}: {name} must be a numeric array; got {aval.str_short()}")
    if a.ndim != b.ndim or a.ndim < 2:
        raise ValueError(f"{fn}: lhs and rhs must have the same rank, at least 2 (batch and "
                         f"feature axes, then the spatial axes); got {a.str_short()} and "
                         f"{b.str_short()}")
    if a.dtype != b.dtype:
        raise TypeError(f"{fn}: lhs and rhs must have the same dtype (lax never promotes); got "
                        f"{a.str_short()} and {b.str_short()}")
    return lhs, rhs


def _preferred(fn: str, preferred: Any, dtype: np.dtype) -> np.dtype | None:
    if preferred is None:
        return None
    try:
        want = canonicalize_dtype(np.dtype(preferred))
    except TypeError:
        raise TypeError(f"{fn}: preferred_element_type must be None or a dtype; got "
                        f"{preferred!r}") from None
    same_kind = (want.kind == "f") == (dtype.kind == "f") and \
        (want.kind == "c") == (dtype.kind == "c") and (want.kind == "b") == (dtype.kind == "b")
    if not same_kind or want.itemsize < dtype.itemsize:
        raise TypeError(f"{fn}: preferred_element_type must be of the inputs' kind and at "
                        f"least as wide as {dtype}; got {want}")
    return None if want == dtype else want


def _groups(fn: str, feature_group_count: Any, batch_group_count: Any, n: int, c: int,
            o: int, i: int) -> tuple[int, int]:
    fgc = ints((feature_group_count,), fn, "feature_group_count", 1)[0]
    bgc = ints((batch_group_count,), fn, "batch_group_count", 1)[0]
    if fgc > 1 and bgc > 1:
        raise ValueError(f"{fn}: at most one of feature_group_count and batch_group_count may "
                         f"exceed 1; got {fgc} and {bgc}")
    if c % fgc or c // fgc != i:
        raise ValueError(f"{fn}: the lhs feature size ({c}) must be feature_group_count "
                         f"({fgc}) times the rhs input feature size ({i})")
    if o % (fgc * bgc):
        raise ValueError(f"{fn}: the rhs output feature size ({o}) must be a multiple of "
                         f"{'feature' if fgc > 1 else 'batch'}_group_count ({fgc * bgc})")
    if n % bgc:
        raise ValueError(f"{fn}: batch_group_count ({bgc}) must divide the lhs batch size "
                         f"({n})")
    return fgc, bgc


def conv_general_dilated(lhs: Any, rhs: Any, window_strides: Sequence[int],
                         padding: Padding, lhs_dilation: Sequence[int] | None = None,
                         rhs_dilation: Sequence[int] | None = None,
                         dimension_numbers: Any = None, feature_group_count: int = 1,
                         batch_group_count: int = 1, precision: Any = None,
                         preferred_element_type: Any = None, out_sharding: Any = None) -> Any:
    """JAX's general convolution (minigrad/ops/conv.py states it and its rules in full).
    ``out_sharding`` is accepted and ignored (one device).

    >>> import numpy as np
    >>> x = np.arange(5.0).reshape(1, 1, 5)   # N C W
    >>> conv_general_dilated(x, np.ones((1, 1, 2)), (1,), "VALID")
    Array([[[1., 3., 5., 7.]]], dtype=float64)
    """
    return _conv("conv_general_dilated", lhs, rhs, window_strides, padding, lhs_dilation,
                 rhs_dilation, dimension_numbers, feature_group_count, batch_group_count,
                 precision, preferred_element_type)


def _conv(fn: str, lhs: Any, rhs: Any, window_strides: Sequence[int], padding: Padding,
          lhs_dilation: Sequence[int] | None, rhs_dilation: Sequence[int] | None,
          dimension_numbers: Any, feature_group_count: int, batch_group_count: int,
          precision: Any, preferred_element_type: Any) -> Any:
    """``conv_general_dilated`` for the function ``fn`` (whose name the errors carry)."""
    lhs, rhs = _operands(fn, lhs, rhs)
    a, b = get_aval(lhs), get_aval(rhs)
    dn = conv_dimension_numbers(a.shape, b.shape, dimension_numbers)
    nd = a.ndim - 2
    strides = ints(window_strides, fn, "window_strides", nd)
    ld = ints(lhs_dilation, fn, "lhs_dilation", nd)
    rd = ints(rhs_dilation, fn, "rhs_dilation", nd)
    n, c, *space = (a.shape[p] for p in dn.lhs_spec)
    o, i, *kernel = (b.shape[p] for p in dn.rhs_spec)
    if isinstance(padding, str):
        if any(d != 1 for d in ld):
            raise ValueError(f"{fn}: padding must be explicit (low, high) pairs with an "
                             f"lhs_dilation ({ld}); or use conv_transpose")
        pads = tuple(padtype_to_pads(space, [dilate_dim(k, d) for k, d in
                                             zip(kernel, rd, strict=True)], strides, padding))
    else:
        pads = pad_pairs(padding, fn, nd)
    for s, d, (lo, hi) in zip(space, ld, pads, strict=True):
        if dilate_dim(s, d) + lo + hi < 0:
            raise ValueError(f"{fn}: negative padding {pads} removes more than the lhs "
                             f"spatial shape {tuple(space)} has")
    fgc, bgc = _groups(fn, feature_group_count, batch_group_count, n, c, o, i)
    return conv_general_dilated_p.bind(
        lhs, rhs, window_strides=strides, padding=pads, lhs_dilation=ld, rhs_dilation=rd,
        dimension_numbers=dn, feature_group_count=fgc, batch_group_count=bgc,
        precision=canonicalize_precision(precision, fn),
        preferred_element_type=_preferred(fn, preferred_element_type, a.dtype))


def conv(lhs: Any, rhs: Any, window_strides: Sequence[int], padding: Padding,
         precision: Any = None, preferred_element_type: Any = None) -> Any:
    """``conv_general_dilated`` in NCHW / OIHW layout, without dilation or groups."""
    return _conv("conv", lhs, rhs, window_strides, padding, None, None, None, 1, 1, precision,
                 preferred_element_type)


def conv_with_general_padding(lhs: Any, rhs: Any, window_strides: Sequence[int],
                              padding: Padding, lhs_dilation: Sequence[int] | None,
                              rhs_dilation: Sequence[int] | None, precision: Any = None,
                              preferred_element_type: Any = None) -> Any:
    """``conv_general_dilated`` in NCHW / OIHW layout with dilations."""
    return _conv("conv_with_general_padding", lhs, rhs, window_strides, padding, lhs_dilation,
                 rhs_dilation, None, 1, 1, precision, preferred_element_type)


_TRANSPOSE_LAYOUTS = {2: ("NC", "IO", "NC"), 3: ("NHC", "HIO", "NHC"),
                      4: ("NHWC", "HWIO", "NHWC"), 5: ("NHWDC", "HWDIO", "NHWDC")}


def conv_transpose(lhs: Any, rhs: Any, strides: Sequence[int], padding: Padding,
                   rhs_dilation: Sequence[int] | None = None, dimension_numbers: Any = None,
                   transpose_kernel: bool = False, precision: Any = None,
                   preferred_element_type: Any = None, use_consistent_padding: bool = False
                   ) -> Any:
    """A fractionally strided convolution (JAX's ``conv_transpose``): lhs dilated by
    ``strides``, padded so that 'SAME' and 'VALID' (and, with ``use_consistent_padding``,
    explicit pairs) mean the padding of the forward convolution it undoes; explicit pairs
    otherwise pad the dilated lhs directly. The layout defaults to TensorFlow's (NHWC, HWIO).
    ``transpose_kernel=True`` flips the kernel's spatial axes and swaps its I and O axes (the
    gradient of a forward convolution with that kernel)."""
    fn = "conv_transpose"
    lhs, rhs = asarray(lhs), asarray(rhs)
    ndim = get_aval(lhs).ndim
    if dimension_numbers is None:
        if ndim not in _TRANSPOSE_LAYOUTS or get_aval(rhs).ndim != ndim:
            raise ValueError(f"{fn}: with dimension_numbers None, lhs and rhs must have rank "
                             f"2 to 5; got {get_aval(lhs).str_short()} and "
                             f"{get_aval(rhs).str_short()}")
        dimension_numbers = _TRANSPOSE_LAYOUTS[ndim]
    dn = conv_dimension_numbers(get_aval(lhs).shape, get_aval(rhs).shape, dimension_numbers)
    nd = ndim - 2
    strides = ints(strides, fn, "strides", nd)
    rd = ints(rhs_dilation, fn, "rhs_dilation", nd)
    kernel = [dilate_dim(get_aval(rhs).shape[a], d) for a, d in zip(dn.rhs_spec[2:], rd,
                                                                     strict=True)]
    if isinstance(padding, str):
        if padding.upper() not in ("SAME", "VALID"):
            raise ValueError(f"{fn}: padding must be 'SAME', 'VALID' or (low, high) pairs; got "
                             f"{padding!r}")
        pads = tuple(_transpose_padding(k, s, padding.upper())
                     for k, s in zip(kernel, strides, strict=True))
    elif use_consistent_padding:
        pads = tuple(_transpose_padding(k, s, p) for k, s, p in
                     zip(kernel, strides, pad_pairs(padding, fn, nd), strict=True))
    else:
        pads = pad_pairs(padding, fn, nd)
    if transpose_kernel:  # flip the spatial axes, swap the O and I axes
        perm = list(range(ndim))
        perm[dn.rhs_spec[0]], perm[dn.rhs_spec[1]] = dn.rhs_spec[1], dn.rhs_spec[0]
        rhs = transpose(rev(rhs, dn.rhs_spec[2:]), perm)
    return _conv(fn, lhs, rhs, (1,) * nd, pads, strides, rd, dn, 1, 1, precision,
                 preferred_element_type)


__all__ = ["ConvDimensionNumbers", "conv", "conv_dimension_numbers",
           "conv_general_dilated", "conv_general_permutations", "conv_general_shape_tuple",
           "conv_shape_tuple", "conv_transpose", "conv_transpose_shape_tuple",
           "conv_with_general_padding", "padtype_to_pads"]

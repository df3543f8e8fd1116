"""``conv_general_dilated``: JAX's general convolution, with every rule.

In the canonical layout (``lhs`` N C S..., ``rhs`` O I K..., output N O Y...), with the lhs
dilated by ``lhs_dilation`` and padded by ``padding`` (``lhs_pd``) and the groups split out
(``feature_group_count`` G: C = G * I and O = G * Og; ``batch_group_count`` G: N = G * Nb and
O = G * Og; at most one of them exceeds 1)::

    out[n, g*Og + o, y] = sum_{i, k} lhs_pd[n', g*I' + i, y * stride + k * rhs_dilation]
                                     * rhs[g*Og + o, i, k]

where ``n' = n, I' = I`` for feature groups and ``n' = g*Nb + n, I' = 0`` for batch groups.
It is bilinear: each transpose is again a convolution (written out above each rule), and the
batching rule folds the vmapped axis into the batch or the group dimension, with no loop.

``dimension_numbers`` is a ``ConvDimensionNumbers`` of three permutations, JAX's ``lhs_spec``
(batch, feature, spatial... axes of lhs), ``rhs_spec`` (out feature, in feature, spatial...)
and ``out_spec``; the rules work in the canonical layout and transpose at the edges (views).
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple, Sequence

import numpy as np

from minigrad.core import Primitive, ShapedArray, UndefPrimal, Zero, get_aval, tangent_dtype
from minigrad.ops.elementwise import add_tangents, convert_element_type
from minigrad.ops.rev import rev
from minigrad.ops.structural import full, moveaxis, reshape, transpose
from minigrad.ops.windowed import dilate_dim, dilate_pad, window_view

Shape = tuple[int, ...]


class ConvDimensionNumbers(NamedTuple):
    """Where the batch, feature and spatial axes are: ``lhs_spec`` = (batch, feature,
    spatial...) axes of lhs, ``rhs_spec`` = (out feature, in feature, spatial...) axes of rhs,
    ``out_spec`` = (batch, feature, spatial...) axes of the output."""

    lhs_spec: Shape
    rhs_spec: Shape
    out_spec: Shape


def canonical_numbers(ndim: int) -> ConvDimensionNumbers:
    iota = tuple(range(ndim))
    return ConvDimensionNumbers(iota, iota, iota)


conv_general_dilated_p = Primitive("conv_general_dilated")


def conv_general_dilated(lhs: Any, rhs: Any, **params: Any) -> Any:
    """The primitive on canonical parameters (``minigrad.lax.conv_general_dilated`` makes
    them from JAX's arguments)."""
    return conv_general_dilated_p.bind(lhs, rhs, **params)


# --------------------------------------------------------------------------- impl


@conv_general_dilated_p.def_impl
def _conv_impl(lhs: np.ndarray, rhs: np.ndarray, *, window_strides: Shape,
               padding: tuple, lhs_dilation: Shape, rhs_dilation: Shape,
               dimension_numbers: ConvDimensionNumbers, feature_group_count: int,
               batch_group_count: int, precision: Any, preferred_element_type: Any
               ) -> np.ndarray:
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    dtype = lhs.dtype if preferred_element_type is None else np.dtype(preferred_element_type)
    work = np.dtype(np.int64) if dtype == np.bool_ else dtype  # bool: is any product true
    x = lhs.transpose(lhs_spec).astype(work, copy=False)
    w = rhs.transpose(rhs_spec).astype(work, copy=False)
    xp = dilate_pad(x, (1, 1, *lhs_dilation), ((0, 0), (0, 0), *padding), 0)
    out = conv_canonical(xp, w, window_strides, rhs_dilation, feature_group_count,
                         batch_group_count)
    return (out != 0 if dtype == np.bool_ else out).transpose(np.argsort(out_spec))


def conv_canonical(xp: np.ndarray, w: np.ndarray, strides: Sequence[int],
                   rhs_dilation: Sequence[int], feature_group_count: int,
                   batch_group_count: int) -> np.ndarray:
    """The convolution of an already dilated and padded ``xp`` (N C S...) with ``w``
    (O I K...), output N O Y...: ``conv_im2col`` or ``conv_shift``, whichever moves fewer
    elements (they compute the same sums; tests/test_conv.py checks them against
    ``conv_einsum``, the plain statement)."""
    groups = feature_group_count * batch_group_count
    n, c = xp.shape[:2]
    o = w.shape[0]
    space, kernel = xp.shape[2:], w.shape[2:]
    out_space = [max(0, (s - dilate_dim(k, d)) // st + 1) for s, k, d, st in
                 zip(space, kernel, rhs_dilation, strides, strict=True)]
    batch = n // batch_group_count
    if batch * o * math.prod(out_space) == 0 or c == 0 or math.prod(kernel) == 0:
        return np.zeros((batch, o, *out_space), xp.dtype)
    # im2col copies one patch per output position (batch * Y * C * K elements); the shift
    # form writes one product per input position and kernel offset (batch * S * O * K)
    patches = batch * math.prod(out_space) * (c // feature_group_count) * math.prod(kernel)
    shifted = batch * groups * math.prod(space) * (o // groups) * math.prod(kernel)
    kernel_fn = conv_shift if shifted < patches else conv_im2col
    return kernel_fn(xp, w, strides, rhs_dilation, feature_group_count, batch_group_count)


def _grouped(xp: np.ndarray, feature_group_count: int, batch_group_count: int) -> np.ndarray:
    """``xp`` (N C S...) as (G, Nb, Cg, S...): the group axis split out of N or C, in front."""
    n, c = xp.shape[:2]
    if batch_group_count > 1:
        return xp.reshape(batch_group_count, n // batch_group_count, c, *xp.shape[2:])
    g = feature_group_count
    return np.moveaxis(xp.reshape(n, g, c // g, *xp.shape[2:]), 1, 0)


def _ungrouped(out: np.ndarray, nd: int) -> np.ndarray:
    """(G, Nb, Y..., Og) -> (Nb, G * Og, Y...)."""
    g, nb, og = out.shape[0], out.shape[1], out.shape[-1]
    if g == 1:  # a view: no copy of the output
        return out[0].transpose(0, 1 + nd, *range(1, 1 + nd))
    perm = (1, 0, 2 + nd, *range(2, 2 + nd))
    return out.transpose(perm).reshape(nb, g * og, *out.shape[2:2 + nd])


def conv_im2col(xp: np.ndarray, w: np.ndarray, strides: Sequence[int],
                rhs_dilation: Sequence[int], feature_group_count: int,
                batch_group_count: int) -> np.ndarray:
    """Patches (one row per output position: Cg * K elements) times the kernel, one matmul
    per group."""
    nd = xp.ndim - 2
    groups = feature_group_count * batch_group_count
    view = window_view(xp, (1, 1, *w.shape[2:]), (1, 1, *strides), (1, 1, *rhs_dilation))
    view = view[(slice(None),) * (2 + nd) + (0, 0)]  # (N, C, Y..., K...)
    v = _grouped(view, feature_group_count, batch_group_count)  # (G, Nb, Cg, Y..., K...)
    g, nb, out_space = v.shape[0], v.shape[1], v.shape[3:3 + nd]
    perm = (0, 1, *range(3, 3 + nd), 2, *range(3 + nd, 3 + 2 * nd))
    patches = v.transpose(perm).reshape(g, nb * math.prod(out_space), -1)
    kernel = w.reshape(groups, w.shape[0] // groups, -1).transpose(0, 2, 1)  # (G, Cg*K, Og)
    out = np.matmul(patches, kernel)  # (G, Nb*Y, Og)
    return _ungrouped(out.reshape(g, nb, *out_space, -1), nd)


def conv_shift(xp: np.ndarray, w: np.ndarray, strides: Sequence[int],
               rhs_dilation: Sequence[int], feature_group_count: int,
               batch_group_count: int) -> np.ndarray:
    """The matmul first, then the windows: ``z[.., s, o, k] = sum_i x[.., i, s] w[o, i, k]``
    for every input position s and kernel offset k (one matmul per group), then
    ``out[y, o] = sum_k z[y * stride + k * dilation, o, k]``: one strided-slice add per
    kernel offset, in row-major order (NumPy adds a few strided slices far faster than it
    reduces a view's small strided axes)."""
    nd = xp.ndim - 2
    groups = feature_group_count * batch_group_count
    kernel = w.shape[2:]
    v = _grouped(xp, feature_group_count, batch_group_count)  # (G, Nb, Cg, S...)
    g, nb, cg, space = v.shape[0], v.shape[1], v.shape[2], v.shape[3:]
    x = v.transpose(0, 1, *range(3, 3 + nd), 2).reshape(g, -1, cg)  # (G, Nb*S, Cg)
    og = w.shape[0] // groups
    wk = w.reshape(g, og, cg, -1).transpose(0, 2, 1, 3).reshape(g, cg, -1)  # (G, Cg, Og*K)
    z = np.matmul(x, wk).reshape(g, nb, *space, og, math.prod(kernel))
    out_space = [max(0, (s - dilate_dim(k, d)) // st + 1) for s, k, d, st in
                 zip(space, kernel, rhs_dilation, strides, strict=True)]
    out = None
    for j, ks in enumerate(np.ndindex(*kernel)):
        rows = tuple(slice(k * d, k * d + (y - 1) * st + 1, st) for k, d, y, st in
                     zip(ks, rhs_dilation, out_space, strides, strict=True))
        index = (slice(None), slice(None), *rows, slice(None), j)
        part = z[index]
        if out is None:
            out = part.copy()  # (G, Nb, Y..., Og)
        else:
            out += part
    assert out is not None  # (the kernel is not empty: conv_canonical checks)
    return _ungrouped(out, nd)


def conv_einsum(xp: np.ndarray, w: np.ndarray, strides: Sequence[int],
                rhs_dilation: Sequence[int], feature_group_count: int,
                batch_group_count: int) -> np.ndarray:
    """The plain statement, one einsum over the window view (the spec the kernels above are
    tested against)."""
    nd = xp.ndim - 2
    groups = feature_group_count * batch_group_count
    view = window_view(xp, (1, 1, *w.shape[2:]), (1, 1, *strides), (1, 1, *rhs_dilation))
    v = _grouped(view[(slice(None),) * (2 + nd) + (0, 0)], feature_group_count,
                 batch_group_count)
    wg = w.reshape(groups, w.shape[0] // groups, *w.shape[1:])
    letters = "abcdefhjklmnpqrtuvwxyz"
    ys, ks = letters[:nd], letters[nd:2 * nd]
    out = np.einsum(f"GNC{ys}{ks},GOC{ks}->GN{ys}O", v, wg)
    return _ungrouped(out, nd)


# --------------------------------------------------------------------------- shape rule


def _check(ok: bool, message: str) -> None:
    if not ok:
        raise ValueError(f"conv_general_dilated: {message}")


@conv_general_dilated_p.def_abstract_eval
def _conv_abstract_eval(lhs: ShapedArray, rhs: ShapedArray, *, window_strides: Shape,
                        padding: tuple, lhs_dilation: Shape, rhs_dilation: Shape,
                        dimension_numbers: ConvDimensionNumbers, feature_group_count: int,
                        batch_group_count: int, precision: Any, preferred_element_type: Any
                        ) -> ShapedArray:
    if lhs.dtype != rhs.dtype:
        raise TypeError(f"conv_general_dilated: lhs and rhs must have the same dtype; got "
                        f"{lhs.str_short()} and {rhs.str_short()}")
    _check(lhs.ndim == rhs.ndim >= 2, f"lhs and rhs must have the same rank, at least 2; got "
                                      f"{lhs.str_short()} and {rhs.str_short()}")
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    for name, spec in (("lhs_spec", lhs_spec), ("rhs_spec", rhs_spec), ("out_spec", out_spec)):
        _check(sorted(spec) == list(range(lhs.ndim)),
               f"dimension_numbers.{name} must be a permutation of range({lhs.ndim}); got "
               f"{spec}")
    nd = lhs.ndim - 2
    for name, value in (("window_strides", window_strides), ("lhs_dilation", lhs_dilation),
                        ("rhs_dilation", rhs_dilation)):
        _check(len(value) == nd and all(v >= 1 for v in value),
               f"{name} must hold {nd} integers >= 1 (one per spatial axis); got {value}")
    _check(len(padding) == nd, f"padding must hold {nd} (low, high) pairs; got {padding}")
    n, c, *space = (lhs.shape[a] for a in lhs_spec)
    o, i, *kernel = (rhs.shape[a] for a in rhs_spec)
    fgc, bgc = feature_group_count, batch_group_count
    _check(fgc >= 1 and bgc >= 1, f"feature_group_count and batch_group_count must be >= 1; "
                                  f"got {fgc} and {bgc}")
    _check(fgc == 1 or bgc == 1, f"at most one of feature_group_count and batch_group_count "
                                 f"may exceed 1; got {fgc} and {bgc}")
    _check(c % fgc == 0 and c // fgc == i,
           f"the lhs feature size {c} must be feature_group_count ({fgc}) times the rhs input "
           f"feature size {i}")
    _check(o % (fgc * bgc) == 0, f"the rhs output feature size {o} must be a multiple of "
                                 f"feature_group_count * batch_group_count = {fgc * bgc}")
    _check(n % bgc == 0, f"batch_group_count ({bgc}) must divide the lhs batch size {n}")
    out_space = []
    for s, k, st, (lo, hi), ld, rd in zip(space, kernel, window_strides, padding,
                                          lhs_dilation, rhs_dilation, strict=True):
        padded = dilate_dim(s, ld) + lo + hi
        _check(padded >= 0, f"negative padding {padding} removes more than the lhs has "
                            f"({lhs.str_short()})")
        out_space.append(max(0, (padded - dilate_dim(k, rd)) // st + 1))
    dtype = lhs.dtype if preferred_element_type is None else preferred_element_type
    canonical = (n // bgc, o, *out_space)
    return ShapedArray(tuple(canonical[p] for p in np.argsort(out_spec)), dtype)


# --------------------------------------------------------------------------- JVP


@conv_general_dilated_p.def_jvp
def _conv_jvp(primals: tuple, tangents: tuple, **params: Any) -> tuple:
    # out_dot = conv(lhs_dot, rhs) + conv(lhs, rhs_dot)
    (lhs, rhs), (lhs_dot, rhs_dot) = primals, tangents
    out = conv_general_dilated(lhs, rhs, **params)
    aval = get_aval(out)
    t_out: Any = Zero(ShapedArray(aval.shape, tangent_dtype(aval.dtype)))  # float0 for ints
    if not isinstance(lhs_dot, Zero):
        t_out = add_tangents(t_out, conv_general_dilated(lhs_dot, rhs, **params))
    if not isinstance(rhs_dot, Zero):
        t_out = add_tangents(t_out, conv_general_dilated(lhs, rhs_dot, **params))
    return out, t_out


# --------------------------------------------------------------------------- transpose


def _spatial(ndim: int) -> list[int]:
    return list(range(2, ndim))


@conv_general_dilated_p.def_transpose
def _conv_transpose(ct: Any, lhs: Any, rhs: Any, **params: Any) -> tuple:
    if isinstance(lhs, UndefPrimal) and isinstance(rhs, UndefPrimal):
        raise TypeError("conv_general_dilated: transpose needs one operand to be constant; "
                        "both are linear")
    if isinstance(lhs, UndefPrimal):
        return _transpose_lhs(ct, lhs.aval, rhs, **params), None
    return None, _transpose_rhs(ct, lhs, rhs.aval, **params)


def _transpose_lhs(ct: Any, lhs: ShapedArray, rhs: Any, *, window_strides: Shape,
                   padding: tuple, lhs_dilation: Shape, rhs_dilation: Shape,
                   dimension_numbers: ConvDimensionNumbers, feature_group_count: int,
                   batch_group_count: int, precision: Any, preferred_element_type: Any) -> Any:
    # ct_lhs = conv(ct, rev(rhs) with in/out features swapped per group,
    #               window_strides=lhs_dilation, lhs_dilation=window_strides,
    #               rhs_dilation=rhs_dilation, padding=(K_d - 1 - lo, ...)):
    # element p of lhs_pd meets output y through kernel offset k when y*s + k*d = p, so
    # ct_lhs_pd is ct dilated by the strides, correlated with the flipped kernel. Batch groups
    # become feature groups whose outputs are then moved back into the batch.
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    groups = feature_group_count * batch_group_count
    g = transpose(convert_element_type(ct, lhs.dtype), out_spec)  # (Nb, O, Y...)
    w = transpose(rhs, rhs_spec)  # (G*Og, I, K...)
    o, i, *kernel = get_aval(w).shape
    w = reshape(w, (groups, o // groups, i, *kernel))
    w = reshape(moveaxis(w, 2, 1), (groups * i, o // groups, *kernel))
    w = rev(w, _spatial(lhs.ndim))
    space = [lhs.shape[a] for a in lhs_spec[2:]]
    out_space = get_aval(g).shape[2:]
    pads = []
    for s, k, y, st, (lo, _), ld, rd in zip(space, kernel, out_space, window_strides, padding,
                                            lhs_dilation, rhs_dilation, strict=True):
        front = dilate_dim(k, rd) - 1 - lo
        pads.append((front, dilate_dim(s, ld) + dilate_dim(k, rd) - 1 - dilate_dim(y, st)
                     - front))
    out = conv_general_dilated(g, w, window_strides=lhs_dilation, padding=tuple(pads),
                               lhs_dilation=window_strides, rhs_dilation=rhs_dilation,
                               dimension_numbers=canonical_numbers(lhs.ndim),
                               feature_group_count=groups, batch_group_count=1,
                               precision=precision, preferred_element_type=None)
    if batch_group_count > 1:  # (Nb, G*C, S...) -> (G*Nb, C, S...)
        nb, gc, *rest = get_aval(out).shape
        out = reshape(out, (nb, batch_group_count, gc // batch_group_count, *rest))
        out = reshape(moveaxis(out, 1, 0), (batch_group_count * nb, gc // batch_group_count,
                                            *rest))
    return transpose(out, tuple(np.argsort(lhs_spec)))


def _transpose_rhs(ct: Any, lhs: Any, rhs: ShapedArray, *, window_strides: Shape,
                   padding: tuple, lhs_dilation: Shape, rhs_dilation: Shape,
                   dimension_numbers: ConvDimensionNumbers, feature_group_count: int,
                   batch_group_count: int, precision: Any, preferred_element_type: Any) -> Any:
    # ct_rhs[o, i, k] = sum_{n, y} ct[n, o, y] * lhs_pd[n, i, y*s + k*d]: a convolution of
    # lhs (batch and feature swapped) with ct as the kernel (its spatial axes dilated by the
    # strides), window_strides=rhs_dilation; feature groups become batch groups and back.
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    ct_aval = get_aval(ct)
    if ct_aval.size == 0:
        return Zero(rhs)
    x = transpose(lhs, (lhs_spec[1], lhs_spec[0], *lhs_spec[2:]))  # (C, N, S...)
    g = transpose(convert_element_type(ct, rhs.dtype), (out_spec[1], out_spec[0],
                                                        *out_spec[2:]))  # (O, Nb, Y...)
    space = get_aval(x).shape[2:]
    out_space = get_aval(g).shape[2:]
    kernel = [rhs.shape[a] for a in rhs_spec[2:]]
    pads = tuple((lo, dilate_dim(y, st) - dilate_dim(s, ld) + dilate_dim(k, rd) - 1 - lo)
                 for s, k, y, st, (lo, _), ld, rd in zip(space, kernel, out_space,
                                                         window_strides, padding,
                                                         lhs_dilation, rhs_dilation,
                                                         strict=True))
    out = conv_general_dilated(x, g, window_strides=rhs_dilation, padding=pads,
                               lhs_dilation=lhs_dilation, rhs_dilation=window_strides,
                               dimension_numbers=canonical_numbers(rhs.ndim),
                               feature_group_count=batch_group_count,
                               batch_group_count=feature_group_count, precision=precision,
                               preferred_element_type=None)  # (I, O, K...)
    out = transpose(out, (1, 0, *_spatial(rhs.ndim)))  # (O, I, K...)
    return transpose(out, tuple(np.argsort(rhs_spec)))


conv_general_dilated_p.def_transpose(_conv_transpose)


# --------------------------------------------------------------------------- batching


@conv_general_dilated_p.def_batch
def _conv_batch(axis_size: int, vals: tuple, dims: tuple, *,
                dimension_numbers: ConvDimensionNumbers, feature_group_count: int,
                batch_group_count: int, **params: Any) -> tuple:
    # The vmapped axis B is folded into an axis the convolution already has, so one call
    # does every example (canonical layout; G the group count, 1 without groups):
    #   lhs only: into the lhs batch (inside each batch group), out (B*N, ...) -> (B, N, ...)
    #   rhs only: into the out features (inside each group), out (N, G*B*Og) -> (B, N, O)
    #   both:     B more feature groups (or batch groups), out (N, B*O) -> (B, N, O)
    (lhs, rhs), (ld, rd) = vals, dims
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    b = axis_size
    ndim = len(lhs_spec)
    fgc, bgc = feature_group_count, batch_group_count
    groups = fgc * bgc
    canonical = canonical_numbers(ndim)
    to_out = (0, *(p + 1 for p in np.argsort(out_spec)))
    x = transpose(moveaxis(lhs, ld, 0), (0, *(a + 1 for a in lhs_spec))) \
        if ld is not None else transpose(lhs, lhs_spec)
    w = transpose(moveaxis(rhs, rd, 0), (0, *(a + 1 for a in rhs_spec))) \
        if rd is not None else transpose(rhs, rhs_spec)

    def call(x: Any, w: Any, **groups: int) -> Any:
        return conv_general_dilated(x, w, dimension_numbers=canonical, **groups, **params)

    if b == 0:
        unbatched = _conv_abstract_eval(
            ShapedArray(get_aval(x).shape[ld is not None:], get_aval(x).dtype),
            ShapedArray(get_aval(w).shape[rd is not None:], get_aval(w).dtype),
            dimension_numbers=canonical, feature_group_count=fgc, batch_group_count=bgc,
            **params)
        return transpose(full((0, *unbatched.shape), 0, unbatched.dtype), to_out), 0
    if rd is None:  # x: (B, N, C, S...)
        _, n, *rest = get_aval(x).shape
        if bgc > 1:  # keep the B examples inside each batch group
            x = reshape(x, (b, bgc, n // bgc, *rest))
            x = moveaxis(x, 0, 1)
        x = reshape(x, (b * n, *rest))
        out = call(x, w, feature_group_count=fgc, batch_group_count=bgc)
        nb, *tail = get_aval(out).shape  # (B * Nb, O, Y...): example-major in every case
        return transpose(reshape(out, (b, nb // b, *tail)), to_out), 0
    if ld is None:  # w: (B, O, I, K...)
        _, o, *rest = get_aval(w).shape
        w = moveaxis(reshape(w, (b, groups, o // groups, *rest)), 0, 1)  # (G, B, Og, I, K)
        out = call(x, reshape(w, (groups * b * (o // groups), *rest)),
                   feature_group_count=fgc, batch_group_count=bgc)
        n, _, *ys = get_aval(out).shape
        out = reshape(out, (n, groups, b, o // groups, *ys))
        out = reshape(moveaxis(out, 2, 0), (b, n, o, *ys))
        return transpose(out, to_out), 0
    _, n, c, *space = get_aval(x).shape
    _, o, *rest = get_aval(w).shape
    w = reshape(w, (b * o, *rest))
    if bgc > 1:  # B more batch groups
        x = reshape(x, (b * n, c, *space))
        out = call(x, w, feature_group_count=1, batch_group_count=b * bgc)
    else:  # B more feature groups
        x = reshape(moveaxis(x, 0, 1), (n, b * c, *space))
        out = call(x, w, feature_group_count=b * fgc, batch_group_count=1)
    nb, _, *ys = get_aval(out).shape
    out = moveaxis(reshape(out, (nb, b, o, *ys)), 1, 0)
    return transpose(out, to_out), 0


__all__ = ["ConvDimensionNumbers", "canonical_numbers", "conv_canonical", "conv_einsum",
           "conv_general_dilated", "conv_general_dilated_p", "conv_im2col", "conv_shift"]

"""``lax.dot`` and ``lax.dot_general``: JAX's general contraction, as one binding of minigrad's
``dot`` primitive (a two-operand contraction in einsum notation, ``ops/elementwise.py``).

``dimension_numbers = ((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))`` says which
axes of ``lhs`` and ``rhs`` are summed over pairwise, and which are paired batch axes. The result
has the batch axes first (in ``lhs_batch``'s order), then ``lhs``'s other axes, then ``rhs``'s,
each in order::

    out[b, i, j] = sum_k lhs[b, i, k] * rhs[b, k, j]     (b, i, j, k: groups of axes)

The dimension numbers translate one to one into einsum subscripts (a letter per axis; a batch
axis's letter in all three terms, a contracted one in both operands, a free one in its operand
and the output), so the primitive's rules (JVP by the product rule, transpose by swapping terms,
batching by one more letter) are dot_general's: nothing is added here but the translation.

Dtypes are JAX's rule (XLA's "higher precision type", not NumPy's promotion): the result has the
operand dtype that is complex before real, then has the larger exponent range, mantissa, width,
and signed before unsigned (int32 with float32 gives float32; JAX raises for two different
dtypes that tie). ``preferred_element_type`` is the result's dtype (JAX refuses one narrower
than an integer result); the products are accumulated in the wider of the two, then converted.
``precision`` is checked and has no effect: NumPy computes at the dtype's full precision.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from minigrad.core import get_aval
from minigrad.dtypes import canonicalize_dtype
from minigrad.lax.precision import canonicalize_precision
from minigrad.numpy.util import asarray
from minigrad.ops import elementwise as ew

__all__ = ["DotDimensionNumbers", "dot", "dot_general"]

DotDimensionNumbers = tuple[tuple[Sequence[int], Sequence[int]],
                            tuple[Sequence[int], Sequence[int]]]
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _rank_key(dtype: np.dtype) -> tuple:
    """XLA's order of precision: complex, exponent range, mantissa, width, signedness."""
    real = np.finfo(dtype).dtype if dtype.kind == "c" else dtype
    floating = real.kind == "f"
    return (dtype.kind == "c",
            np.finfo(real).maxexp if floating else -1,
            np.finfo(real).nmant if floating else -1,
            8 * real.itemsize if real.kind != "b" else 1,
            real.kind != "u")


def result_dtype(fn: str, a: np.dtype, b: np.dtype, preferred: Any) -> np.dtype:
    """The result dtype of a contraction of ``a`` and ``b`` dtypes (see the module's doc)."""
    ka, kb = _rank_key(a), _rank_key(b)
    if ka == kb and a != b:
        raise TypeError(f"{fn}: lhs and rhs dtypes {a} and {b} have no higher-precision one")
    dtype = a if ka >= kb else b
    if preferred is None:
        return dtype
    try:
        want = canonicalize_dtype(np.dtype(preferred), requested_by=fn)
    except TypeError:
        raise TypeError(f"{fn}: preferred_element_type must be None or a dtype; got "
                        f"{preferred!r}") from None
    if want.kind not in "biufc":
        raise TypeError(f"{fn}: preferred_element_type must be a numeric dtype; got {want}")
    if dtype.kind != "f" and want != dtype and _rank_key(want)[3] < _rank_key(dtype)[3]:
        raise TypeError(f"{fn}: preferred_element_type must not be narrower than the "
                        f"operands' {dtype}; got {want}")
    return want


def _dims(value: Any, ndim: int, fn: str, what: str) -> tuple[int, ...]:
    try:
        dims = tuple(value)
    except TypeError:
        raise TypeError(f"{fn}: {what} must be a sequence of ints; got {value!r}") from None
    for d in dims:
        if isinstance(d, (bool, np.bool_)) or not isinstance(d, (int, np.integer)):
            raise TypeError(f"{fn}: {what} must hold ints; got {value!r}")
    if any(not 0 <= d < ndim for d in dims) or len(set(dims)) != len(dims):
        raise ValueError(f"{fn}: {what} must be distinct axes in [0, {ndim}); got {value!r}")
    return tuple(int(d) for d in dims)


def _numbers(dimension_numbers: Any, lhs_ndim: int, rhs_ndim: int, fn: str
             ) -> tuple[tuple[int, ...], ...]:
    try:
        (lc, rc), (lb, rb) = dimension_numbers
    except (TypeError, ValueError):
        raise TypeError(f"{fn}: dimension_numbers must be ((lhs_contracting, "
                        f"rhs_contracting), (lhs_batch, rhs_batch)); got "
                        f"{dimension_numbers!r}") from None
    lc, lb = _dims(lc, lhs_ndim, fn, "lhs_contracting"), _dims(lb, lhs_ndim, fn, "lhs_batch")
    rc, rb = _dims(rc, rhs_ndim, fn, "rhs_contracting"), _dims(rb, rhs_ndim, fn, "rhs_batch")
    for side, c, b in (("lhs", lc, lb), ("rhs", rc, rb)):
        if set(c) & set(b):
            raise ValueError(f"{fn}: an {side} axis cannot be both contracting and batch; got "
                             f"contracting {c} and batch {b}")
    if len(lc) != len(rc) or len(lb) != len(rb):
        raise ValueError(f"{fn}: lhs and rhs must name as many contracting axes and as many "
                         f"batch axes; got {dimension_numbers!r}")
    return lc, rc, lb, rb


def dot_general(lhs: Any, rhs: Any, dimension_numbers: Any, precision: Any = None,
                preferred_element_type: Any = None, *, out_sharding: Any = None) -> Any:
    """The contraction of ``lhs`` and ``rhs`` over the paired contracting axes, with paired
    batch axes; the result's axes: batch, then ``lhs``'s free axes, then ``rhs``'s.

    >>> import numpy as np
    >>> from minigrad import lax
    >>> x, y = np.ones((5, 2, 3)), np.ones((5, 3, 4))
    >>> lax.dot_general(x, y, (((2,), (1,)), ((0,), (0,)))).shape
    (5, 2, 4)
    """
    return _dot_general(lhs, rhs, dimension_numbers, precision, preferred_element_type,
                        out_sharding, "dot_general")


def dot(lhs: Any, rhs: Any, *, dimension_numbers: Any = None, precision: Any = None,
        preferred_element_type: Any = None, out_sharding: Any = None) -> Any:
    """``dot_general``; without ``dimension_numbers``, the vector or matrix product of 1-D or
    2-D operands (``lhs``'s last axis with ``rhs``'s first).

    >>> import numpy as np
    >>> from minigrad import lax
    >>> lax.dot(np.arange(6.).reshape(2, 3), np.ones(3))
    Array([ 3., 12.], dtype=float64)
    """
    if dimension_numbers is None:
        lhs, rhs = asarray(lhs), asarray(rhs)
        a, b = get_aval(lhs).shape, get_aval(rhs).shape
        if not (1 <= len(a) <= 2 and 1 <= len(b) <= 2 and a[-1] == b[0]):
            raise ValueError(f"dot: dimension_numbers must be given unless the operands are 1-D "
                             f"or 2-D with lhs's last axis the size of rhs's first; got shapes "
                             f"{a} and {b}")
        dimension_numbers = (((len(a) - 1,), (0,)), ((), ()))
    return _dot_general(lhs, rhs, dimension_numbers, precision, preferred_element_type,
                        out_sharding, "dot")


def _dot_general(lhs: Any, rhs: Any, dimension_numbers: Any, precision: Any,
                 preferred_element_type: Any, out_sharding: Any, fn: str) -> Any:
    canonicalize_precision(precision, fn)
    if out_sharding is not None:
        raise ValueError(f"{fn}: out_sharding must be None (minigrad runs on one device); got "
                         f"{out_sharding!r}")
    x, y = asarray(lhs), asarray(rhs)
    xa, ya = get_aval(x), get_aval(y)
    for name, aval in (("lhs", xa), ("rhs", ya)):
        if aval.dtype.kind not in "biufc":
            raise TypeError(f"{fn}: {name} must be a numeric array; got {aval.str_short()}")
    lc, rc, lb, rb = _numbers(dimension_numbers, xa.ndim, ya.ndim, fn)
    for what, ls, rs in (("contracting", lc, rc), ("batch", lb, rb)):
        for i, j in zip(ls, rs, strict=True):
            if xa.shape[i] != ya.shape[j]:
                raise ValueError(f"{fn}: {what} axes must have equal sizes; lhs axis {i} of "
                                 f"{xa.str_short()} has {xa.shape[i]}, rhs axis {j} of "
                                 f"{ya.str_short()} has {ya.shape[j]}")
    out_dtype = result_dtype(fn, xa.dtype, ya.dtype, preferred_element_type)
    # accumulate in the wider of the operands' and the result's dtype, then convert
    compute = canonicalize_dtype(np.promote_types(result_dtype(fn, xa.dtype, ya.dtype, None),
                                                  out_dtype))
    x, y = ew.convert_element_type(x, compute), ew.convert_element_type(y, compute)
    # one letter per axis: lhs's own, rhs's contracted and batch axes reuse lhs's letters
    a = _LETTERS[:xa.ndim]
    free = iter(_LETTERS[xa.ndim:])
    pairs = dict(zip(rc, lc, strict=True)) | dict(zip(rb, lb, strict=True))
    b = "".join(a[pairs[j]] if j in pairs else next(free) for j in range(ya.ndim))
    out = ("".join(a[i] for i in lb)
           + "".join(a[i] for i in range(xa.ndim) if i not in lc and i not in lb)
           + "".join(b[j] for j in range(ya.ndim) if j not in pairs))
    result = ew.dot(x, y, f"{a},{b}->{out}")
    return ew.convert_element_type(result, out_dtype)

"""Elementwise primitives, dtype conversion and the contraction ``dot``.

Operands of the binary primitives have equal shapes and dtypes: NumPy broadcasting and Python
scalars are resolved by the user functions in ``minigrad.numpy``, so the rules here never
broadcast. Rules come in families: a unary op is a line of impl and a line of derivative.
"""

from __future__ import annotations

import functools
from functools import partial
from typing import Any, Callable, Sequence

import numpy as np

from minigrad.core import (
    Primitive,
    ShapedArray,
    UndefPrimal,
    Zero,
    float0,
    get_aval,
    tangent_dtype,
)
from minigrad.ops.structural import (
    bdim_to_front,
    broadcast_in_dim,
    full,
    instantiate,
    moveaxis,
    reduce_sum,
    reduction_abstract_eval,
    reduction_batch,
    vectorized_batch,
    zeros,
)


def add_tangents(a: Any, b: Any) -> Any:
    if isinstance(a, Zero):
        return b
    if isinstance(b, Zero):
        return a
    return add(a, b)


# --------------------------------------------------------------------------- rule families


def _same_shape_abstract_eval(name: str, out_dtype: np.dtype | None, *xs: ShapedArray
                              ) -> ShapedArray:
    first = xs[0]
    if any(x.shape != first.shape or x.dtype != first.dtype for x in xs):
        raise TypeError(f"{name}: operands must have equal shapes and dtypes; got "
                        f"{', '.join(x.str_short() for x in xs)}")
    return ShapedArray(first.shape, first.dtype if out_dtype is None else out_dtype)


def _elementwise_batch(prim: Primitive, axis_size: int, vals: tuple, dims: tuple,
                       **params: Any) -> tuple:
    # Every operand batched along the same axis: nothing to move. Otherwise line them up at 0.
    if None not in dims and len(set(dims)) == 1:
        return prim.bind(*vals, **params), dims[0]
    return prim.bind(*[bdim_to_front(x, d, axis_size) for x, d in zip(vals, dims, strict=True)],
                     **params), 0


def defjvp(prim: Primitive, *derivs: Callable[..., Any] | None) -> None:
    """JVP as a sum of per-operand terms: ``derivs[i](x_dot_i, *primals)``; None = not
    differentiable in that operand."""

    def jvp(primals: tuple, tangents: tuple, **params: Any) -> tuple:
        out = prim.bind(*primals, **params)
        t_out: Any = None  # the sum of the terms so far
        for deriv, t in zip(derivs, tangents, strict=True):
            if deriv is not None and not isinstance(t, Zero):
                term = deriv(t, *primals, out=out)
                t_out = term if t_out is None else add(t_out, term)
        if t_out is None:  # (an integer output's zero tangent is float0)
            aval = get_aval(out)
            return out, Zero(ShapedArray(aval.shape, tangent_dtype(aval.dtype)))
        return out, t_out

    prim.def_jvp(jvp)


def unary(name: str, impl: Callable[[np.ndarray], np.ndarray],
          deriv: Callable[..., Any] | None) -> Primitive:
    """An elementwise unary primitive from its NumPy function and ``deriv(t, x, out=y)``."""
    prim = Primitive(name)
    prim.def_impl(impl)
    prim.def_abstract_eval(partial(_same_shape_abstract_eval, name, None))
    prim.def_batch(partial(vectorized_batch, prim))
    defjvp(prim, deriv)
    return prim


def binary(name: str, impl: Callable[[np.ndarray, np.ndarray], np.ndarray],
           deriv_x: Callable[..., Any] | None, deriv_y: Callable[..., Any] | None,
           out_dtype: np.dtype | None = None) -> Primitive:
    prim = Primitive(name)
    prim.def_impl(impl)
    prim.def_abstract_eval(partial(_same_shape_abstract_eval, name, out_dtype))
    prim.def_batch(partial(_elementwise_batch, prim))
    if out_dtype is None:
        defjvp(prim, deriv_x, deriv_y)
    return prim


# --------------------------------------------------------------------------- arithmetic

# x_dot, y_dot -> x_dot + y_dot; ct_x = ct_y = ct
add_p = binary("add", np.add, lambda t, x, y, out: t, lambda t, x, y, out: t)
# x_dot - y_dot; ct_x = ct, ct_y = -ct
sub_p = binary("sub", np.subtract, lambda t, x, y, out: t, lambda t, x, y, out: neg(t))
# x_dot * y + x * y_dot; ct_x = ct * y (y not linear)
mul_p = binary("mul", np.multiply, lambda t, x, y, out: mul(t, y), lambda t, x, y, out: mul(x, t))
# x_dot / y - y_dot * out / y; ct_x = ct / y (y not linear)
div_p = binary("div", np.divide, lambda t, x, y, out: div(t, y),
               lambda t, x, y, out: neg(mul(t, div(out, y))))
neg_p = unary("neg", np.negative, lambda t, x, out: neg(t))


def add(x: Any, y: Any) -> Any: return add_p.bind(x, y)
def sub(x: Any, y: Any) -> Any: return sub_p.bind(x, y)
def mul(x: Any, y: Any) -> Any: return mul_p.bind(x, y)
def div(x: Any, y: Any) -> Any: return div_p.bind(x, y)
def neg(x: Any) -> Any: return neg_p.bind(x)


add_p.def_transpose(lambda ct, x, y: (ct if isinstance(x, UndefPrimal) else None,
                                      ct if isinstance(y, UndefPrimal) else None))
sub_p.def_transpose(lambda ct, x, y: (ct if isinstance(x, UndefPrimal) else None,
                                      neg(ct) if isinstance(y, UndefPrimal) else None))
neg_p.def_transpose(lambda ct, x: (neg(ct),))


@mul_p.def_transpose
def _mul_transpose(ct: Any, x: Any, y: Any) -> tuple:
    if isinstance(x, UndefPrimal) and isinstance(y, UndefPrimal):
        raise TypeError("mul: transpose needs one operand to be constant; both are linear")
    return (mul(ct, y), None) if isinstance(x, UndefPrimal) else (None, mul(x, ct))


@div_p.def_transpose
def _div_transpose(ct: Any, x: Any, y: Any) -> tuple:
    if isinstance(y, UndefPrimal):
        raise TypeError("div: transpose is defined only for a linear numerator")
    return (div(ct, y), None)


def _rem_impl(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    # C's remainder (the dividend's sign); an integer x rem 0 is x, as in XLA (NumPy: 0)
    if x.dtype.kind in "iu":
        zero = y == 0
        return np.where(zero, x, np.fmod(x, np.where(zero, 1, y).astype(y.dtype)))
    return np.fmod(x, y)


rem_p = binary("rem", _rem_impl, None, None)


def rem(x: Any, y: Any) -> Any: return rem_p.bind(x, y)


@rem_p.def_jvp
def _rem_jvp(primals: tuple, tangents: tuple) -> tuple:
    # out_dot = x_dot - y_dot * trunc(x / y), trunc(q) = q - rem(q, 1) (q if infinite);
    # integers: float0
    x, y = primals
    tx, ty = tangents
    out = rem(x, y)
    aval = get_aval(out)
    if aval.dtype.kind not in "fc":
        return out, Zero(ShapedArray(aval.shape, float0))
    t_out: Any = Zero(aval) if isinstance(tx, Zero) else tx
    if not isinstance(ty, Zero):
        q = div(x, y)
        r = rem(q, full_like(q, 1))  # (NaN for an infinite q, whose trunc is q itself)
        trunc = select(eq(r, r), sub(q, r), q)
        t_out = add_tangents(t_out, neg(mul(ty, trunc)))
    return out, t_out


# --------------------------------------------------------------------------- transcendental


def _where_safe_log(x: Any) -> Any:
    # log(x) where x != 0, else 0: d/dy x**y at x == 0 is taken to be 0 (JAX's choice).
    is_zero = eq(x, zeros(get_aval(x)))
    return select(is_zero, zeros(get_aval(x)), log(select(is_zero, full_like(x, 1), x)))


def full_like(x: Any, value: Any) -> Any:
    aval = get_aval(x)
    return full(aval.shape, value, aval.dtype)


exp_p = unary("exp", np.exp, lambda t, x, out: mul(t, out))
log_p = unary("log", np.log, lambda t, x, out: div(t, x))
sin_p = unary("sin", np.sin, lambda t, x, out: mul(t, cos(x)))
cos_p = unary("cos", np.cos, lambda t, x, out: neg(mul(t, sin(x))))
tanh_p = unary("tanh", np.tanh, lambda t, x, out: mul(t, sub(full_like(out, 1), mul(out, out))))
sqrt_p = unary("sqrt", np.sqrt, lambda t, x, out: div(t, mul(full_like(out, 2), out)))
# x_dot * y * x**(y-1) + y_dot * log(x) * out
pow_p = binary("pow", np.power,
               lambda t, x, y, out: mul(t, mul(y, pow_(x, sub(y, full_like(y, 1))))),
               lambda t, x, y, out: mul(t, mul(_where_safe_log(x), out)))


def exp(x: Any) -> Any: return exp_p.bind(x)
def log(x: Any) -> Any: return log_p.bind(x)
def sin(x: Any) -> Any: return sin_p.bind(x)
def cos(x: Any) -> Any: return cos_p.bind(x)
def tanh(x: Any) -> Any: return tanh_p.bind(x)
def sqrt(x: Any) -> Any: return sqrt_p.bind(x)
def pow_(x: Any, y: Any) -> Any: return pow_p.bind(x, y)


integer_pow_p = Primitive("integer_pow")


def integer_pow(x: Any, y: int) -> Any:
    """``x ** y`` for a static Python int ``y``: a cheaper rule than ``pow``'s."""
    return integer_pow_p.bind(x, y=int(y))


def _integer_pow_impl(x: np.ndarray, *, y: int) -> np.ndarray:
    """XLA's (so JAX's) ``x ** y``: binary exponentiation by multiplication (x**3 is x * (x * x)),
    then one division for ``y < 0``. (np.power rounds x**y once, a last bit apart from JAX's
    in about half the elements for y = 3; integers multiply exactly alike, wrapping.)"""
    if x.dtype.kind in "iub" and y >= 0:
        return np.power(x, y)
    if y == 0:
        return np.ones_like(x)
    n, acc, base = abs(y), None, x
    while n:
        if n & 1:
            acc = base if acc is None else acc * base
        n >>= 1
        if n:
            base = base * base
    assert acc is not None
    if y < 0:
        return np.divide(np.ones((), acc.dtype), acc)
    return acc if acc is not x else np.array(x, copy=True)


integer_pow_p.def_impl(_integer_pow_impl)
integer_pow_p.def_abstract_eval(lambda x, *, y: x)
integer_pow_p.def_batch(partial(vectorized_batch, integer_pow_p))


@integer_pow_p.def_jvp
def _integer_pow_jvp(primals: tuple, tangents: tuple, *, y: int) -> tuple:
    # out_dot = x_dot * y * x ** (y - 1)
    (x,), (t,) = primals, tangents
    out = integer_pow(x, y)
    if y == 0:
        return out, Zero(get_aval(t))
    if y == 2:  # 2 * x as x + x: exact, and no constant to build
        return out, mul(t, add(x, x))
    scale = full_like(x, y) if y == 1 else mul(full_like(x, y), integer_pow(x, y - 1))
    return out, mul(t, scale)


def _max_weight(a: Any, b: Any) -> Any:
    # The share of max(a, b)'s derivative that goes to a: 1 where a > b, 1/2 at ties.
    aval = get_aval(a)
    gt_ = convert_element_type(gt(a, b), aval.dtype)
    eq_ = convert_element_type(eq(a, b), aval.dtype)
    return add(gt_, mul(full_like(a, 0.5), eq_))


max_p = binary("max", np.maximum, lambda t, x, y, out: mul(t, _max_weight(x, y)),
               lambda t, x, y, out: mul(t, _max_weight(y, x)))


def maximum(x: Any, y: Any) -> Any: return max_p.bind(x, y)


# --------------------------------------------------------------------------- comparisons


def _comparison(name: str, impl: Callable[..., np.ndarray]) -> Primitive:
    prim = binary(name, impl, None, None, out_dtype=np.dtype(bool))

    @prim.def_jvp
    def _jvp(primals: tuple, tangents: tuple) -> tuple:
        out = prim.bind(*primals)  # not differentiable: a float0 zero tangent
        return out, Zero(ShapedArray(get_aval(out).shape, float0))

    return prim


eq_p = _comparison("eq", np.equal)
ne_p = _comparison("ne", np.not_equal)
lt_p = _comparison("lt", np.less)
le_p = _comparison("le", np.less_equal)
gt_p = _comparison("gt", np.greater)
ge_p = _comparison("ge", np.greater_equal)


def eq(x: Any, y: Any) -> Any: return eq_p.bind(x, y)
def ne(x: Any, y: Any) -> Any: return ne_p.bind(x, y)
def lt(x: Any, y: Any) -> Any: return lt_p.bind(x, y)
def le(x: Any, y: Any) -> Any: return le_p.bind(x, y)
def gt(x: Any, y: Any) -> Any: return gt_p.bind(x, y)
def ge(x: Any, y: Any) -> Any: return ge_p.bind(x, y)


# --------------------------------------------------------------------------- select

select_p = Primitive("select")


def select(pred: Any, on_true: Any, on_false: Any) -> Any:
    """``where(pred, on_true, on_false)``: all three of one shape, ``pred`` bool."""
    return select_p.bind(pred, on_true, on_false)


select_p.def_impl(np.where)


@select_p.def_abstract_eval
def _select_abstract_eval(pred: ShapedArray, x: ShapedArray, y: ShapedArray) -> ShapedArray:
    if pred.dtype != np.bool_ or pred.shape != x.shape:
        raise TypeError(f"select: pred must be bool of shape {x.shape}; got {pred.str_short()}")
    return _same_shape_abstract_eval("select", None, x, y)


@select_p.def_jvp
def _select_jvp(primals: tuple, tangents: tuple) -> tuple:
    # out_dot = select(pred, x_dot, y_dot)
    pred, x, y = primals
    _, tx, ty = tangents
    out = select(pred, x, y)
    if isinstance(tx, Zero) and isinstance(ty, Zero):
        return out, tx
    return out, select(pred, instantiate(tx), instantiate(ty))


@select_p.def_transpose
def _select_transpose(ct: Any, pred: Any, x: Any, y: Any) -> tuple:
    # ct_x = select(pred, ct, 0); ct_y = select(pred, 0, ct)
    if isinstance(pred, UndefPrimal):
        raise TypeError("select: the predicate cannot be a linear input")
    zero = zeros(get_aval(ct))
    return (None,
            select(pred, ct, zero) if isinstance(x, UndefPrimal) else None,
            select(pred, zero, ct) if isinstance(y, UndefPrimal) else None)


select_p.def_batch(partial(_elementwise_batch, select_p))


# --------------------------------------------------------------------------- convert_element_type

convert_element_type_p = Primitive("convert_element_type")


def convert_element_type(x: Any, new_dtype: Any, weak_type: bool | None = None,
                         checked: bool = False) -> Any:
    """``x`` as ``new_dtype``. The result is weak with ``weak_type=True`` (minigrad.numpy's
    promotion of weak operands among themselves) and strong with False (a weak value made
    strong, as a NumPy function's result is); with None, converting to ``x``'s own dtype does
    nothing, and any other conversion is strong. ``checked``: an integer out of the new
    integer dtype's range is an OverflowError (a Python int's promotion, NumPy's rule), not
    wrapped."""
    new_dtype = np.dtype(new_dtype)
    aval = get_aval(x)
    if aval.dtype == new_dtype and (weak_type is None or aval.weak_type == weak_type):
        return x
    params: dict[str, Any] = {"new_dtype": new_dtype}
    if weak_type or aval.dtype == new_dtype:  # (shown when it is the point)
        params["weak_type"] = bool(weak_type)
    if checked and aval.dtype.kind in "iu" and new_dtype.kind in "iu":
        params["checked"] = True
    return convert_element_type_p.bind(x, **params)


convert_element_type_p.weak_type_rule = lambda *, weak_type=False, **params: weak_type


@convert_element_type_p.def_impl
def _convert_impl(x: np.ndarray, *, new_dtype: np.dtype, weak_type: bool = False,
                  checked: bool = False) -> np.ndarray:
    if checked and x.size:
        info = np.iinfo(new_dtype)
        bad = x[(x < info.min) | (x > info.max)]
        if bad.size:
            raise OverflowError(f"Python integer {bad.flat[0]} out of bounds for {new_dtype}")
    if x.dtype.kind == "c" and new_dtype.kind in "iuf":  # (to bool: nonzero, either part)
        # the real part, as NumPy's cast (without its warning) and lax's: also the transpose
        # of real -> complex for the pairing Re(sum(a b)) (ops/complex.py)
        x = x.real
    return x.astype(new_dtype)


@convert_element_type_p.def_abstract_eval
def _convert_abstract_eval(x: ShapedArray, *, new_dtype: np.dtype, **params: Any
                           ) -> ShapedArray:
    return ShapedArray(x.shape, new_dtype)


@convert_element_type_p.def_jvp
def _convert_jvp(primals: tuple, tangents: tuple, **params: Any) -> tuple:
    # float -> float converts the tangent; anything from or to a non-float has a zero tangent
    (x,), (t,) = primals, tangents
    new_dtype = params["new_dtype"]
    out = convert_element_type_p.bind(x, **params)
    if isinstance(t, Zero) or get_aval(t).dtype == float0 or new_dtype.kind not in "fc":
        tdtype = new_dtype if new_dtype.kind in "fc" else float0
        return out, Zero(ShapedArray(get_aval(x).shape, tdtype))
    return out, convert_element_type(t, new_dtype)


@convert_element_type_p.def_transpose
def _convert_transpose(ct: Any, x: UndefPrimal, **params: Any) -> tuple:
    return (convert_element_type(ct, x.aval.dtype),)


convert_element_type_p.def_batch(partial(vectorized_batch, convert_element_type_p))


# --------------------------------------------------------------------------- dot (einsum)

dot_p = Primitive("dot")


def dot(x: Any, y: Any, subscripts: str) -> Any:
    """A two-operand contraction in einsum notation, e.g. ``"ij,jk->ik"``. Every index letter
    appears in at least two of the three terms, so the rule transposes by swapping terms."""
    return dot_p.bind(x, y, subscripts=subscripts)


def _split(subscripts: str) -> tuple[str, str, str]:
    ins, out = subscripts.split("->")
    a, b = ins.split(",")
    return a, b, out


@dot_p.def_impl
def _dot_impl(x: np.ndarray, y: np.ndarray, *, subscripts: str) -> np.ndarray:
    # A (batched) matrix product goes to np.matmul: BLAS, with none of einsum's fixed cost
    # (einsum's path search costs ~50x a small matmul: a loop body of an RNN pays it each step)
    plan = matmul_plan(subscripts)
    if plan is not None:
        return matmul(x, y, plan)
    # BLAS through tensordot when the arrays are big enough to pay for the path search.
    return np.einsum(subscripts, x, y, optimize=x.size * y.size > 4096)


@functools.lru_cache(maxsize=512)
def matmul_plan(subscripts: str) -> tuple | None:
    """How the contraction ``subscripts`` is one ``np.matmul``, or None when it is not (no
    contracted letter or several, or several free letters in y): ``(x's axes as (batch, m...,
    k), y's as (batch, k, n), no m, no n, the output's permutation, where y's broadcast axes
    go, how many)``. Several free letters of x (a ``vmap`` of ``h @ w``) are matmul's own
    broadcasting: y gets size-1 axes for all but the last."""
    a, b, out = _split(subscripts)
    batch = [c for c in out if c in a and c in b]
    contracted = [c for c in a if c in b and c not in out]
    free_a, free_b = [c for c in a if c not in b], [c for c in b if c not in a]
    if len(contracted) != 1 or len(free_b) > 1:
        return None
    if len(free_a) == 1 and len(free_b) == 1 and out.index(free_b[0]) < out.index(free_a[0]):
        return ("swap", matmul_plan(f"{b},{a}->{out}"))  # y^T x^T: the output in its order
    x_axes = tuple(a.index(c) for c in batch + free_a + contracted)
    y_axes = tuple(b.index(c) for c in batch + contracted + free_b)
    result = batch + free_a + free_b
    perm = tuple(result.index(c) for c in out)

    def moved(axes: tuple[int, ...]) -> tuple[int, ...] | None:  # None: already in order
        return None if axes == tuple(range(len(axes))) else axes

    return (moved(x_axes), moved(y_axes), not free_a, not free_b, moved(perm), len(batch),
            max(len(free_a) - 1, 0))


def matmul(x: np.ndarray, y: np.ndarray, plan: tuple) -> np.ndarray:
    """``dot(x, y, subscripts)`` by ``np.matmul``, following ``matmul_plan(subscripts)``
    (tests/test_primitives.py checks it equal to einsum)."""
    if plan[0] == "swap":
        return matmul(y, x, plan[1])
    x_axes, y_axes, no_m, no_n, perm, n_batch, spread = plan
    if x_axes is not None:
        x = x.transpose(x_axes)
    if y_axes is not None:
        y = y.transpose(y_axes)
    if spread:
        y = y.reshape(y.shape[:n_batch] + (1,) * spread + y.shape[n_batch:])
    if not (no_m or no_n or perm):  # the common case: one product, nothing to move
        if x.shape[-1] == 1:  # one term per entry (x.T @ g at batch 1): an outer product,
            return np.multiply(x, y)  # matmul's values, ~3x faster than BLAS at tiny sizes
        return np.matmul(x, y)  # type: ignore[no-any-return]
    if no_m and no_n and x.ndim == 1:  # one inner product: matmul's vector form, the same
        return np.asarray(np.matmul(x, y))  # sum as (1, n) @ (n, 1) (1.4 -> 0.9 us)
    out = np.matmul(x[..., None, :] if no_m else x, y[..., None] if no_n else y)
    if no_n:
        out = out[..., 0]
    if no_m:
        out = out[..., 0] if no_n else out[..., 0, :]
    if perm is not None:
        out = np.ascontiguousarray(out.transpose(perm))
    return out if out.ndim else np.asarray(out)


@dot_p.def_abstract_eval
def _dot_abstract_eval(x: ShapedArray, y: ShapedArray, *, subscripts: str) -> ShapedArray:
    a, b, out = _split(subscripts)
    sizes: dict[str, int] = {}
    ok = len(a) == x.ndim and len(b) == y.ndim and x.dtype == y.dtype
    for letters, shape in ((a, x.shape), (b, y.shape)):
        for letter, n in zip(letters, shape, strict=False):
            ok = ok and sizes.setdefault(letter, n) == n
    terms = (a, b, out)
    ok = ok and all(len(set(t)) == len(t) for t in terms) and all(
        sum(letter in t for t in terms) >= 2 for letter in set(a + b + out))
    if not ok:
        raise TypeError(f"dot: operands {x.str_short()} and {y.str_short()} do not fit "
                        f"subscripts {subscripts!r}")
    return ShapedArray(tuple(sizes[c] for c in out), x.dtype)


@dot_p.def_jvp
def _dot_jvp(primals: tuple, tangents: tuple, *, subscripts: str) -> tuple:
    # out_dot = dot(x_dot, y) + dot(x, y_dot)
    x, y = primals
    tx, ty = tangents
    out = dot(x, y, subscripts)
    t_out: Any = Zero(get_aval(out))
    if not isinstance(tx, Zero):
        t_out = add_tangents(t_out, dot(tx, y, subscripts))
    if not isinstance(ty, Zero):
        t_out = add_tangents(t_out, dot(x, ty, subscripts))
    return out, t_out


@dot_p.def_transpose
def _dot_transpose(ct: Any, x: Any, y: Any, *, subscripts: str) -> tuple:
    # for "a,b->o": ct_x = dot(ct, y, "o,b->a"), ct_y = dot(x, ct, "a,o->b")
    a, b, out = _split(subscripts)
    if isinstance(x, UndefPrimal) and isinstance(y, UndefPrimal):
        raise TypeError("dot: transpose needs one operand to be constant; both are linear")
    if isinstance(x, UndefPrimal):
        return dot(ct, y, f"{out},{b}->{a}"), None
    return None, dot(x, ct, f"{a},{out}->{b}")


@dot_p.def_batch
def _dot_batch(axis_size: int, vals: tuple, dims: tuple, *, subscripts: str) -> tuple:
    # A fresh letter for the batch axis: batched operands carry it, and so does the output.
    a, b, out = _split(subscripts)
    letter = next(c for c in "zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJIHGFEDCBA"
                  if c not in a + b + out)
    (x, y), (dx, dy) = vals, dims
    if dx is not None:
        x, a = moveaxis(x, dx, 0), letter + a
    if dy is not None:
        y, b = moveaxis(y, dy, 0), letter + b
    return dot(x, y, f"{a},{b}->{letter}{out}"), 0


# --------------------------------------------------------------------------- reduce_max
# A reduction, defined here rather than beside reduce_sum: its JVP compares and divides.

reduce_max_p = Primitive("reduce_max")


def reduce_max(x: Any, axes: Sequence[int]) -> Any:
    axes = tuple(sorted(int(a) for a in axes))
    return reduce_max_p.bind(x, axes=axes) if axes else x


def _reduce_max_impl(x: np.ndarray, *, axes: tuple[int, ...]) -> np.ndarray:
    if x.size == 0 and any(x.shape[a] == 0 for a in axes):
        raise ValueError(f"reduce_max: cannot reduce an axis of size 0; got shape {x.shape} "
                         f"and axes {axes}")
    return np.maximum.reduce(x, axis=axes)  # (np.max's own reduction, without its wrapper)


reduce_max_p.def_impl(_reduce_max_impl)
reduce_max_p.def_abstract_eval(partial(reduction_abstract_eval, "reduce_max"))
reduce_max_p.def_batch(partial(reduction_batch, reduce_max_p))


@reduce_max_p.def_jvp
def _reduce_max_jvp(primals: tuple, tangents: tuple, *, axes: tuple[int, ...]) -> tuple:
    # y_dot = sum(x_dot * [x == y]) / count(x == y): ties share the derivative equally
    (x,), (t,) = primals, tangents
    y = reduce_max(x, axes)
    aval = get_aval(x)
    kept = [i for i in range(aval.ndim) if i not in axes]
    at_max = convert_element_type(eq(x, broadcast_in_dim(y, aval.shape, kept)), aval.dtype)
    return y, div(reduce_sum(mul(t, at_max), axes), reduce_sum(at_max, axes))

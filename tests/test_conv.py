"""conv_general_dilated over random geometries (hypothesis): the kernels (im2col, shift, the
plain einsum) against the loop reference, every rule by its oracle (finite differences, the
dot-product test, a loop over examples for every batched combination), and values, gradients
and batching against jax.lax when JAX is installed. The op records (records_conv.py) cover the
fixed cases in every column of ``python -m minigrad check``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import minigrad as mg
from minigrad import lax
from minigrad.ops.conv import (
    ConvDimensionNumbers,
    conv_einsum,
    conv_general_dilated_p,
    conv_im2col,
    conv_shift,
)
from minigrad.ops.windowed import dilate_pad, select_and_gather_add_p, select_and_scatter_add_p
from minigrad.testing import all_in_axes, check_jvp, check_vjp, check_vmap
from minigrad.testing.records_conv import ref_conv
from minigrad.testing.records_windowed import (
    ref_select_and_gather_add,
    ref_select_and_scatter_add,
)


@st.composite
def geometries(draw: Any) -> dict[str, Any]:
    """A convolution: operand shapes, canonical parameters (a random layout), small sizes."""
    nd = draw(st.sampled_from([1, 1, 2, 2, 3, 0]))
    groups = draw(st.sampled_from(["none", "none", "feature", "batch"]))
    g = draw(st.integers(2, 3)) if groups != "none" else 1
    nb, cg, og = draw(st.integers(1, 2)), draw(st.integers(1, 3)), draw(st.integers(1, 2))
    fgc, bgc = (g, 1) if groups == "feature" else (1, g) if groups == "batch" else (1, 1)
    hi_size = 4 if nd == 3 else 6
    space = [draw(st.integers(1, hi_size)) for _ in range(nd)]
    kernel = [draw(st.integers(1, 3)) for _ in range(nd)]
    strides = tuple(draw(st.integers(1, 3)) for _ in range(nd))
    lhs_dilation = tuple(draw(st.integers(1, 2)) for _ in range(nd))
    rhs_dilation = tuple(draw(st.integers(1, 2)) for _ in range(nd))
    padding = []
    for s, d in zip(space, lhs_dilation, strict=True):
        lo, hi = draw(st.integers(-1, 2)), draw(st.integers(-1, 2))
        if (s - 1) * d + 1 + lo + hi < 0:
            lo, hi = 0, 0
        padding.append((lo, hi))
    perms = [tuple(draw(st.permutations(range(nd + 2)))) for _ in range(3)]
    canonical_lhs = (nb * bgc, cg * fgc, *space)
    canonical_rhs = (og * fgc * bgc, cg, *kernel)
    lhs_shape = tuple(canonical_lhs[perms[0].index(a)] for a in range(nd + 2))
    rhs_shape = tuple(canonical_rhs[perms[1].index(a)] for a in range(nd + 2))
    params = {"window_strides": strides, "padding": tuple(padding),
              "lhs_dilation": lhs_dilation, "rhs_dilation": rhs_dilation,
              "dimension_numbers": ConvDimensionNumbers(*perms),
              "feature_group_count": fgc, "batch_group_count": bgc, "precision": None,
              "preferred_element_type": None}
    return {"lhs": lhs_shape, "rhs": rhs_shape, "params": params}


def integral(shape: tuple, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(-3, 4, shape).astype(np.float64)


def normal(shape: tuple, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape)


def bind(params: dict[str, Any]) -> Any:
    return lambda x, w: conv_general_dilated_p.bind(x, w, **params)


@given(geometries())
def test_impl_and_kernels_against_the_loop(geo: dict[str, Any]) -> None:
    x, w, p = integral(geo["lhs"]), integral(geo["rhs"], 1), geo["params"]
    expected = ref_conv(x, w, **p)
    np.testing.assert_array_equal(bind(p)(x, w), expected)
    # each kernel on the canonical layout, whichever the impl chose
    lhs_spec, rhs_spec, out_spec = p["dimension_numbers"]
    xp = dilate_pad(x.transpose(lhs_spec), (1, 1, *p["lhs_dilation"]),
                    ((0, 0), (0, 0), *p["padding"]), 0)
    canonical = expected.transpose(out_spec)
    for kernel in (conv_im2col, conv_shift, conv_einsum):
        if canonical.size == 0 or 0 in w.shape:
            continue
        got = kernel(xp, w.transpose(rhs_spec), p["window_strides"], p["rhs_dilation"],
                     p["feature_group_count"], p["batch_group_count"])
        np.testing.assert_array_equal(got, canonical, err_msg=kernel.__name__)


@given(geometries())
def test_rules_by_their_oracles(geo: dict[str, Any]) -> None:
    x, w, p = normal(geo["lhs"]), normal(geo["rhs"], 1), geo["params"]
    f = bind(p)
    check_jvp(f, [x, w])
    check_vjp(f, [x, w])
    check_vjp(lambda x: f(x, w), [x])  # each transpose alone
    check_vjp(lambda w: f(x, w), [w])
    size = 2
    for in_axes in all_in_axes(2, axes=(0, -1)):
        args = [np.stack([a * (b + 1) for b in range(size)], axis=ax) if ax is not None else a
                for a, ax in zip((x, w), in_axes, strict=True)]
        check_vmap(f, args, in_axes)


def test_vmap_of_grad_per_example() -> None:
    x, w = normal((3, 2, 3, 5, 5)), normal((4, 3, 3, 3), 1)

    def loss(x: Any, w: Any) -> Any:
        return mg.numpy.sum(mg.numpy.tanh(lax.conv(x, w, (1, 2), "SAME")))

    per_example = mg.vmap(mg.grad(loss, argnums=1), in_axes=(0, None))(x, w)
    for b in range(3):
        np.testing.assert_allclose(per_example[b], mg.grad(loss, argnums=1)(x[b], w),
                                   rtol=1e-12, atol=1e-12)
    # the jaxpr of the batched gradient has as many equations for 3 examples as for 30
    count = [len(mg.make_jaxpr(mg.vmap(mg.grad(loss, argnums=1), in_axes=(0, None)))(
        normal((b, 2, 3, 5, 5)), w).eqns) for b in (3, 30)]
    assert count[0] == count[1]


def test_precision_is_accepted_and_has_no_effect() -> None:
    x, w = normal((1, 2, 5)), normal((3, 2, 2), 1)
    plain = lax.conv(x, w, (1,), "VALID")
    for precision in ("highest", lax.Precision.HIGH, ("default", "float32"),
                      (lax.Precision.DEFAULT, lax.Precision.HIGHEST)):
        np.testing.assert_array_equal(lax.conv(x, w, (1,), "VALID", precision=precision), plain)
    assert lax.Precision("bfloat16") is lax.Precision.DEFAULT


def test_preferred_element_type_and_int_and_bool() -> None:
    x = np.arange(10, dtype=np.int8).reshape(1, 2, 5)
    w = np.ones((1, 2, 2), np.int8)
    out = lax.conv(x, w, (1,), "VALID", preferred_element_type=np.int32)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, ref_conv(x.astype(np.int32), w.astype(np.int32),
                                                **_plain(1)))
    b = lax.conv(x > 4, w > 0, (1,), "VALID")
    assert b.dtype == np.bool_
    np.testing.assert_array_equal(b, np.asarray(out) > 0)
    f32 = lax.conv(x.astype(np.float32), w.astype(np.float32), (1,), "VALID",
                   preferred_element_type=np.float64)
    assert f32.dtype == np.float64


def test_x64_off_gives_float32() -> None:
    with mg.enable_x64(False):
        out = lax.conv(normal((1, 2, 5)), normal((3, 2, 2)), (1,), "SAME")
        pooled = lax.reduce_window(normal((4, 4)), -np.inf, mg.numpy.maximum, (2, 2), (2, 2))
    assert out.dtype == np.float32 and pooled.dtype == np.float32


def _plain(nd: int) -> dict[str, Any]:
    iota = tuple(range(nd + 2))
    return {"window_strides": (1,) * nd, "padding": ((0, 0),) * nd, "lhs_dilation": (1,) * nd,
            "rhs_dilation": (1,) * nd, "dimension_numbers": ConvDimensionNumbers(iota, iota,
                                                                                 iota),
            "feature_group_count": 1, "batch_group_count": 1, "precision": None,
            "preferred_element_type": None}


# --------------------------------------------------------------------------- against JAX

def _jax_conv(jax: Any, p: dict[str, Any]) -> Any:
    jdn = jax.lax.ConvDimensionNumbers(*p["dimension_numbers"])
    return lambda x, w: jax.lax.conv_general_dilated(
        x, w, p["window_strides"], p["padding"], p["lhs_dilation"], p["rhs_dilation"], jdn,
        p["feature_group_count"], p["batch_group_count"])


@given(geo=geometries())
def test_against_jax(jax_x64: Any, geo: dict[str, Any]) -> None:
    x, w, p = normal(geo["lhs"]), normal(geo["rhs"], 1), geo["params"]
    ours, theirs = bind(p), _jax_conv(jax_x64, p)
    y = ours(x, w)
    np.testing.assert_allclose(y, theirs(x, w), rtol=1e-10, atol=1e-10)
    ct = normal(np.shape(y), 2)
    for a, b in zip(mg.vjp(ours, x, w)[1](ct), jax_x64.vjp(theirs, x, w)[1](ct), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10)
    xs, ws = np.stack([x, 2 * x]), np.stack([w, -w])
    for in_axes in ((0, None), (None, 0), (0, 0)):
        args = [xs if in_axes[0] == 0 else x, ws if in_axes[1] == 0 else w]
        np.testing.assert_allclose(mg.vmap(ours, in_axes)(*args),
                                   jax_x64.vmap(theirs, in_axes)(*args), rtol=1e-10,
                                   atol=1e-10)


@pytest.mark.parametrize("padding", ["SAME", "VALID", "SAME_LOWER", "same"])
@pytest.mark.parametrize("strides", [(1, 1), (2, 3)])
def test_shape_functions_against_jax(jax_x64: Any, padding: str, strides: tuple) -> None:
    jl = jax_x64.lax
    lhs, rhs = (2, 7, 6, 3), (3, 2, 3, 4)
    dn = ("NHWC", "HWIO", "NHWC")
    assert lax.padtype_to_pads((7, 6), (3, 2), strides, padding) == \
        [tuple(map(int, p)) for p in jl.padtype_to_pads((7, 6), (3, 2), strides, padding)]
    assert lax.conv_general_shape_tuple(lhs, rhs, strides, padding, dn) == \
        tuple(map(int, jl.conv_general_shape_tuple(lhs, rhs, strides, padding, dn)))
    assert tuple(lax.conv_dimension_numbers(lhs, rhs, dn)) == \
        tuple(tuple(map(int, s)) for s in jl.conv_dimension_numbers(lhs, rhs, dn))
    if padding in ("SAME", "VALID"):
        assert lax.conv_transpose_shape_tuple(lhs, rhs, strides, padding, dn) == tuple(
            map(int, jl.conv_transpose_shape_tuple(lhs, rhs, strides, padding, dn)))
    assert lax.reduce_window_shape_tuple((7, 6), (3, 2), strides, ((1, 0), (0, 2)), (2, 1),
                                         (1, 2)) == tuple(map(int, jl.reduce_window_shape_tuple(
                                             (7, 6), (3, 2), strides, ((1, 0), (0, 2)), (2, 1),
                                             (1, 2))))


@pytest.mark.parametrize("padding", ["SAME", "VALID", ((1, 2), (0, 1))])
@pytest.mark.parametrize("consistent", [False, True])
@pytest.mark.parametrize("transpose_kernel", [False, True])
def test_conv_transpose_against_jax(jax_x64: Any, padding: Any, consistent: bool,
                                    transpose_kernel: bool) -> None:
    x, w = normal((2, 4, 3, 2)), normal((3, 2, 2, 2), 1)
    kwargs = {"padding": padding, "use_consistent_padding": consistent,
              "transpose_kernel": transpose_kernel, "rhs_dilation": (1, 2)}
    ours = mg.grad(lambda x, w: mg.numpy.sum(mg.numpy.sin(
        lax.conv_transpose(x, w, (2, 1), **kwargs))), argnums=(0, 1))(x, w)
    theirs = jax_x64.grad(lambda x, w: jax_x64.numpy.sum(jax_x64.numpy.sin(
        jax_x64.lax.conv_transpose(x, w, (2, 1), **kwargs))), argnums=(0, 1))(x, w)
    np.testing.assert_allclose(lax.conv_transpose(x, w, (2, 1), **kwargs),
                               jax_x64.lax.conv_transpose(x, w, (2, 1), **kwargs), rtol=1e-12)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


# --------------------------------------------------------------------------- window picks


@st.composite
def windows(draw: Any) -> dict[str, Any]:
    """A 1-D or 2-D window geometry over values with ties, NaNs and infinities."""
    nd = draw(st.integers(1, 2))
    shape = tuple(draw(st.integers(1, 6)) for _ in range(nd))
    values = st.sampled_from([-1.0, 0.0, 1.0, np.nan, np.inf, -np.inf])
    x = np.array(draw(st.lists(values, min_size=int(np.prod(shape)),
                               max_size=int(np.prod(shape)))), np.float64).reshape(shape)
    params = {"window_dimensions": tuple(draw(st.integers(1, 3)) for _ in range(nd)),
              "window_strides": tuple(draw(st.integers(1, 2)) for _ in range(nd)),
              "padding": tuple((draw(st.integers(0, 1)), draw(st.integers(0, 1)))
                               for _ in range(nd)),
              "base_dilation": tuple(draw(st.integers(1, 2)) for _ in range(nd)),
              "window_dilation": tuple(draw(st.integers(1, 2)) for _ in range(nd))}
    return {"x": x, "params": params, "select": draw(st.sampled_from(["max", "min"]))}


@given(windows())
def test_window_picks_with_nans_and_infinities_against_the_loop(w: dict[str, Any]) -> None:
    """The vectorised pick (ops/windowed.py) is XLA's select-and-scatter scan, element by
    element, NaNs and infinities included; gather and scatter share it, so each stays the
    other's transpose."""
    x, p, select = w["x"], w["params"], w["select"]
    t = normal(x.shape, 3)
    gathered = select_and_gather_add_p.bind(t, x, select=select, **p)
    np.testing.assert_array_equal(gathered, ref_select_and_gather_add(t, x, select=select, **p))
    source = normal(np.shape(gathered), 4)
    np.testing.assert_allclose(select_and_scatter_add_p.bind(source, x, select=select, **p),
                               ref_select_and_scatter_add(source, x, select=select, **p),
                               rtol=1e-12, atol=1e-12)


@given(w=windows())
def test_pooling_gradient_with_nans_and_infinities_against_jax(jax_x64: Any,
                                                                w: dict[str, Any]) -> None:
    """grad of a max (min) pool matches JAX's (XLA's select-and-scatter) even where a window
    holds NaNs or only infinities. (JAX's forward-mode tangent uses another pick in those
    windows, so it is not compared there: see the module docstring of ops/windowed.py.)"""
    x, p, select = w["x"], w["params"], w["select"]
    if any(d > 1 for d in p["window_dilation"]):
        p = {**p, "window_dilation": (1,) * x.ndim}  # JAX has no such gradient
    init = -np.inf if select == "max" else np.inf
    args = (p["window_dimensions"], p["window_strides"], p["padding"], p["base_dilation"],
            p["window_dilation"])
    ours = lambda x: lax.reduce_window(  # noqa: E731
        x, init, mg.numpy.maximum if select == "max" else mg.numpy.minimum, *args)
    theirs = lambda x: jax_x64.lax.reduce_window(  # noqa: E731
        x, init, jax_x64.lax.max if select == "max" else jax_x64.lax.min, *args)
    y, pull = mg.vjp(ours, x)
    jy, jpull = jax_x64.vjp(theirs, x)
    np.testing.assert_array_equal(y, jy)
    ct = normal(np.shape(y), 5)
    np.testing.assert_allclose(pull(ct)[0], jpull(ct)[0], rtol=1e-12, atol=1e-12)

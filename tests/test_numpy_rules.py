"""Every differentiable ``adcore.numpy`` primitive against finite differences.

One line per case in ``SPECS``: a name, the function, the shapes of its
arguments and the interval each argument is drawn from. Each case runs on every
backend, in float64 and float32, in forward and reverse mode, to order 2, and
its value is compared with NumPy in float64.
"""

import numpy
import pytest

import adcore.numpy as np
from adcore import grad, make_vjp
from adcore.numpy.elementwise import _tanh_tangent
from adcore.test_util import check_grads
from specs import COMPLEX, P, R, Spec, U, binary, cases, spec_tests, unary

SPECS = [
    *unary(np.negative),
    *unary(np.abs, P),
    *unary(lambda x: np.abs(-x), P),
    *unary(np.exp),
    *unary(np.log, P),
    *unary(np.log1p, P),
    *unary(np.expm1),
    *unary(np.sqrt, P),
    *unary(np.square),
    *unary(np.sin),
    *unary(np.cos),
    *unary(np.tan, U),
    *unary(np.sinh),
    *unary(np.cosh),
    *unary(np.tanh),
    *unary(np.arcsin, U),
    *unary(np.arccos, U),
    *unary(np.arctan),
    *unary(np.arcsinh),
    *unary(np.arccosh, (1.2, 3.0)),
    *unary(np.arctanh, U),
    *unary(np.log2, P),
    *unary(np.log10, P),
    *unary(np.reciprocal, P),
    *unary(np.exp2),
    *unary(np.deg2rad),
    *unary(np.rad2deg),
    *unary(np.cbrt, P),
    *unary(lambda x: np.cbrt(-x), P),
    *unary(np.sinc),
    *unary(np.fabs, P),
    *unary(np.nan_to_num),
    *unary(np.angle, dtypes=COMPLEX),
    *binary(np.arctan2),
    *binary(np.hypot),
    *binary(np.logaddexp),
    *binary(np.logaddexp2),
    *binary(np.mod, (P, (2.5, 3.0))),
    *binary(np.remainder, (R, (2.5, 3.0))),
    *binary(np.copysign, (P, R)),
    *binary(np.fmax),
    *binary(np.fmin),
    *binary(np.float_power, (P, R)),
    *binary(np.add),
    *binary(np.subtract),
    *binary(np.multiply),
    *binary(np.divide, (R, P)),
    *binary(np.true_divide, (R, P)),
    *binary(np.power, (P, R)),
    *binary(np.maximum),
    *binary(np.minimum),
    *cases("power_int_exponent", lambda x: x**3, ((2, 3),)),
    *cases("rpow", lambda x: 2.0**x, ((2, 3),)),
    # both operands traced: array-api-strict raises on `raw + box` instead of deferring to the box
    Spec("operators", lambda x, y: (-x + y) * x / y - (x**2 @ y.T) @ y + 1.0 - 2.0 / y, ((2, 3), (2, 3)), (R, P), joint=True),
    *cases("where", lambda x, y: np.where(x > 0, x, y), ((2, 3), (3,))),
    *cases("clip", lambda x: np.clip(x, -1.0, 1.0), ((2, 3),)),
    *cases("clip_lower", lambda x: np.clip(x, -1.0, None), ((2, 3),)),
    *[
        Spec(f"sum_axis{axis}_keepdims{k}", lambda x, a=axis, k=k: np.sum(x, axis=a, keepdims=k), ((2, 3, 4),))
        for axis in (None, 0, -1, (0, 2))
        for k in (False, True)
    ],
    *[Spec(f"mean_axis{axis}", lambda x, a=axis: np.mean(x, axis=a), ((2, 3, 4),)) for axis in (None, 1, (0, 2))],
    *[Spec(f"prod_axis{axis}", lambda x, a=axis: np.prod(x, axis=a), ((2, 3, 4),)) for axis in (None, 1, (0, 2))],
    *[
        Spec(f"{f.__name__}_axis{axis}_keepdims{k}", lambda x, f=f, a=axis, k=k: f(x, axis=a, keepdims=k), ((2, 3, 4),))
        for f in (np.max, np.min)
        for axis in (None, 0, (1, 2))
        for k in (False, True)
    ],
    *[
        Spec(f"matmul{a}{b}", np.matmul, (a, b))
        for a, b in [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4))]
    ],
    *[
        Spec(f"dot{a}{b}", np.dot, (a, b))
        for a, b in [((3,), (3,)), ((2, 3), (3,)), ((2, 3), (3, 4)), ((), (3,)), ((2, 3, 4), (5, 4, 2))]
    ],
    *[
        Spec(f"tensordot_axes{axes}", lambda a, b, axes=axes: np.tensordot(a, b, axes=axes), shapes)
        for axes, shapes in [
            (1, ((2, 3), (3, 4))),
            (2, ((2, 3, 4), (3, 4))),
            (([1], [0]), ((2, 3), (3, 4))),
            (([0, 2], [1, 0]), ((2, 3, 4), (4, 2, 5))),
        ]
    ],
    *[
        Spec(f"{f.__name__}_axis{axis}_ddof{d}", lambda x, f=f, a=axis, d=d: f(x, axis=a, ddof=d, keepdims=a == 1), ((2, 3, 4),))
        for f in (np.var, np.std, np.nanvar, np.nanstd)
        for axis in (None, 1, (0, 2))
        for d in (0, 1)
    ],
    *cases("var_complex", lambda z: np.var(z, axis=0), ((3, 2),), dtypes=COMPLEX),
    *[
        Spec(f"{f.__name__}_axis{axis}", lambda x, f=f, a=axis: f(x, axis=a), ((2, 3, 4),))
        for f in (np.cumsum, np.cumprod, np.nancumsum, np.nancumprod, np.flip)
        for axis in (None, 0, -1)
    ],
    *[
        Spec(f"{f.__name__}_axis{axis}", lambda x, f=f, a=axis: f(x, axis=a), ((2, 3, 4),))
        for f in (np.nansum, np.nanprod, np.nanmean, np.nanmax, np.nanmin, np.ptp)
        for axis in (None, 1, (0, 2))
    ],
    *cases("average_weights", lambda x, w: np.average(x, axis=1, weights=w), ((2, 3), (3,)), (R, P)),
    *cases("average", lambda x: np.average(x), ((2, 3),)),
    *cases("fliplr_flipud", lambda x: np.fliplr(x) * np.flipud(x), ((3, 3),)),
    *[Spec(f"rot90_{k}", lambda x, k=k: np.rot90(x, k), ((2, 3),)) for k in (1, 2, 3, -1)],
    *cases("atleast", lambda x: np.atleast_3d(x)[0, ...] + np.atleast_2d(x) + np.atleast_1d(x), ((3,),)),
    *cases("stacks", lambda x, y: np.hstack([x, y]) + np.vstack([x, y]).sum() + np.column_stack([x, y]).sum(), ((3,), (3,))),
    *cases("dstack_append", lambda x, y: np.dstack([x, y]).sum() + np.append(x, y), ((2, 3), (2, 3))),
    *cases("split", lambda x: np.split(x, 2, axis=1)[1] * np.array_split(x, 3, axis=1)[0][:, :1], ((3, 4),)),
    *cases("hsplit_vsplit", lambda x: np.hsplit(x, [1])[1].sum() * np.vsplit(x, [2])[0], ((3, 4),)),
    *[Spec(f"tile{r}", lambda x, r=r: np.tile(x, r), ((2, 3),)) for r in (2, (2, 1), (2, 1, 2))],
    *[Spec(f"repeat{r}_{a}", lambda x, r=r, a=a: np.repeat(x, r, a), ((2, 3),)) for r, a in ((2, None), (3, 1), ([1, 0, 2], 1))],
    *[Spec(f"roll{s}_{a}", lambda x, s=s, a=a: np.roll(x, s, a), ((2, 3),)) for s, a in ((1, None), (-1, 1), ((1, 2), (0, 1)))],
    *cases("rollaxis", lambda x: np.rollaxis(x, 2, 0), ((2, 3, 4),)),
    *[Spec(f"diff{n}_{a}", lambda x, n=n, a=a: np.diff(x, n, a), ((3, 4),)) for n, a in ((1, -1), (2, 1), (1, 0))],
    *cases("diff_prepend", lambda x: np.diff(x, prepend=0.0), ((4,),)),
    *cases("gradient", lambda x: np.gradient(x)[1] * np.gradient(x, 2.0, axis=0), ((3, 4),)),
    *[
        Spec(f"pad_{mode}", lambda x, m=mode: np.pad(x, ((1, 2), (0, 1)), mode=m), ((3, 4),))
        for mode in ("constant", "edge", "reflect", "symmetric", "wrap")
    ],
    *cases("pad_constant_value", lambda x: np.pad(x, 1, constant_values=2.5), ((2, 2),)),
    *[  # pads wider than the axis (NumPy's repeated reflections), per-axis widths, both reflect types
        Spec(f"pad_wide_{mode}_{kind}", lambda x, m=mode, k=kind: np.pad(x, ((3, 5), (4, 0)), mode=m, reflect_type=k), ((2, 3),))
        for mode in ("reflect", "symmetric")
        for kind in ("even", "odd")
    ],
    *cases("pad_wide_wrap", lambda x: np.pad(x, ((3, 5), (0, 7)), mode="wrap"), ((2, 3),)),
    *[
        Spec(f"pad_{m}_stat_length", lambda x, m=m: np.pad(x, ((1, 2), (2, 1)), mode=m, stat_length=((1, 2), (3, 2))), ((3, 4),))
        for m in ("maximum", "minimum", "mean", "median")
    ],
    *cases("pad_median_full", lambda x: np.pad(x, 2, mode="median"), ((3, 3),)),
    *cases(
        "pad_linear_ramp", lambda x: np.pad(x, ((1, 2), (3, 0)), mode="linear_ramp", end_values=((1, -2), (0.5, 3))), ((2, 3),)
    ),
    *cases("pad_empty_inner", lambda x: np.pad(x, ((1, 2), (2, 1)), mode="empty")[1:-2, 2:-1], ((2, 3),)),
    *cases("diag", lambda x: np.diag(np.diag(x, 1), -1), ((3, 4),)),
    *cases("kron", np.kron, ((2, 3), (3, 2))),
    *cases("kron_mixed_ndim", np.kron, ((2,), (3, 2))),
    *cases("outer_inner", lambda x, y: np.outer(x, y) + np.inner(x, y), ((3,), (3,))),
    *cases("inner_nd", np.inner, ((2, 3), (4, 3))),
    *cases("vdot", np.vdot, ((2, 3), (3, 2))),
    *cases("vdot_complex", np.vdot, ((2, 3), (6,)), dtypes=COMPLEX),
    *cases("cross3", np.cross, ((4, 3), (3,))),
    *cases("cross2", np.cross, ((4, 2), (4, 2))),
    *cases("cross_axis", lambda a, b: np.cross(a, b, axis=0), ((3, 2), (3, 2))),
    *cases("full_of_traced", lambda x: np.full((2, 3), x) * x, ((),)),
    *cases("linspace_of_traced", lambda a, b: np.linspace(a, b, 5) ** 2, ((), ())),
    *cases("where_one_argument", lambda x: x[np.where(x > 0.0)] * 1.0, ((2, 3),)),
    *cases("copy", lambda x: np.copy(x) * 2.0, ((2,),)),
    *cases("reshape", lambda x: np.reshape(x, (3, 2)), ((2, 3),)),
    *cases("reshape_method", lambda x: x.reshape(6, 1), ((2, 3),)),
    *cases("ravel", np.ravel, ((2, 3),)),
    *cases("transpose", np.transpose, ((2, 3, 4),)),
    *cases("transpose_axes", lambda x: np.transpose(x, (1, -1, 0)), ((2, 3, 4),)),
    *cases("T", lambda x: x.T, ((2, 3),)),
    *cases("expand_dims", lambda x: np.expand_dims(x, (0, -1)), ((2, 3),)),
    *cases("squeeze", lambda x: np.squeeze(x, 1), ((2, 1, 3),)),
    *cases("broadcast_to", lambda x: np.broadcast_to(x, (4, 2, 3)), ((2, 1),)),
    *cases("concatenate", lambda x, y: np.concatenate([x, y, x], axis=1), ((2, 3), (2, 1))),
    *cases("concatenate_flat", lambda x, y: np.concatenate([x, y], axis=None), ((2, 3), (4,))),
    *cases("stack", lambda x, y: np.stack([x, y], axis=-1), ((2, 3), (2, 3))),
    *cases("array_of_boxes", lambda x, y: np.array([[x[0], y], [y, x[1]]]), ((2,), ())),
    *cases("swapaxes", lambda x: np.swapaxes(x, 0, -1), ((2, 3, 4),)),
    *cases("matrix_transpose", np.matrix_transpose, ((2, 3, 4),)),
    *cases("moveaxis", lambda x: np.moveaxis(x, [0, 1], [-1, 0]), ((2, 3, 4),)),
    *[
        Spec(f"diagonal{offset}{axes}", lambda x, o=offset, a=axes: np.diagonal(x, o, *a), ((3, 4, 2),))
        for offset in (0, 1, -2)
        for axes in ((0, 1), (2, 0), (-1, -2))
    ],
    *cases("trace", lambda x: np.trace(x, 1), ((3, 4),)),
    *cases("tril", lambda x: np.tril(x, -1), ((2, 3, 4),)),
    *cases("triu", lambda x: np.triu(x, 1), ((4, 3),)),
    *cases("getitem_slices", lambda x: x[1:, ::-2], ((3, 4),)),
    *cases("getitem_int", lambda x: x[1, -1], ((3, 4),)),
    *cases("getitem_none_ellipsis", lambda x: x[None, ..., 1], ((3, 4),)),
    *cases("getitem_mask", lambda x: x[x > 0.0] * 1.0, ((2, 3),)),
    *cases("iterate", lambda x: np.stack([row * i for i, row in enumerate(x)]), ((3, 2),)),
    *cases("astype", lambda x: np.astype(x * 2.0, np.float64) * 3.0, ((2, 3),)),
    # complex inputs (autograd's convention: the gradient of a real f of z is df/dx - i df/dy)
    *[s for f in (np.exp, np.sin, np.cos, np.tanh, np.square, np.negative, np.conj) for s in unary(f, dtypes=COMPLEX)],
    *unary(np.log, P, dtypes=COMPLEX),
    *unary(np.sqrt, P, dtypes=COMPLEX),
    *binary(np.multiply, dtypes=COMPLEX),
    *binary(np.divide, (R, P), dtypes=COMPLEX),
    *binary(np.add, dtypes=COMPLEX),
    *cases("real_of_complex", lambda z: np.real(z) ** 2 + np.imag(z) * 3.0, ((2, 3),), dtypes=COMPLEX),
    *cases("abs_of_complex", lambda z: np.abs(z) ** 2, ((2, 3),), (P,), dtypes=COMPLEX),
    *cases("complex_matmul", lambda a, b: a @ b, ((2, 3), (3,)), dtypes=COMPLEX, joint=True),
    *cases("sum_of_complex", lambda z: np.sum(z * np.conj(z), axis=0), ((2, 3),), dtypes=COMPLEX),
]


test_derivatives, test_value_matches_numpy = spec_tests(SPECS)


def test_getitem_integer_array_accumulates_repeated_indices(backend):
    x = backend.asarray([1.0, 2.0, 3.0])
    index = backend.backend.from_numpy(numpy.array([0, 0, 2]), device=backend.device)
    g = grad(lambda x: np.sum(x[index] * backend.asarray([1.0, 10.0, 100.0])))(x)
    numpy.testing.assert_array_equal(backend.to_numpy(g), [11.0, 0.0, 100.0])
    check_grads(lambda x: x[index] ** 2)(x)


#: indexes mixing an integer array (repeating a position) with integers and slices, as NumPy reads them
MIXED_INDEXES = {
    "int_slice_array": lambda i: (1, slice(None), i),  # advanced indices apart: their axis comes first
    "reversed_slices_array": lambda i: (slice(None, None, -1), slice(2, None, -2), i),
    "list": lambda i: [1, 0, 1],  # NumPy reads a list as an integer array
}


@pytest.mark.parametrize("kind", MIXED_INDEXES)
def test_getitem_mixed_index_follows_numpy(backend, kind):
    data = numpy.random.default_rng(0).uniform(-2.0, 2.0, (2, 3, 4))
    index = MIXED_INDEXES[kind](backend.backend.from_numpy(numpy.array([3, 0, 3]), device=backend.device))
    x = backend.asarray(data)
    _, value = make_vjp(lambda x: x[index])(x)
    backend.check_device(value)
    numpy.testing.assert_array_equal(backend.to_numpy(value), data[MIXED_INDEXES[kind](numpy.array([3, 0, 3]))])
    check_grads(lambda x: x[index] ** 2)(x)


#: functions joining a real array ``x`` and an array ``z`` of another dtype, whose output has their promoted dtype
JOINS = {
    "concatenate": lambda x, z: np.concatenate([x, z, x], axis=1),
    "concatenate_flat": lambda x, z: np.concatenate([z, x], axis=None),
    "stack": lambda x, z: np.stack([x, z], axis=-1),
    "vstack": lambda x, z: np.vstack([z, x]),
    "array": lambda x, z: np.array([x, z]),
}


@pytest.mark.parametrize("dtypes", [("float64", "complex128"), ("float32", "complex64"), ("float32", "float64")])
@pytest.mark.parametrize("join", JOINS)
def test_joined_arrays_of_two_dtypes_get_cotangents_of_their_own(backend, join, dtypes):
    """Beside a complex array a real one's cotangent is the real part of its piece, beside a float64 one
    a float32 one's is float32 (``check_grads`` checks each rule's output dtype), in both modes, to order 2;
    with the other array a constant too, as in a real and a complex output of one function flattened together."""
    rng = numpy.random.default_rng(0)
    x = backend.asarray(rng.uniform(-2.0, 2.0, (2, 3)), dtypes[0])
    z_data = rng.uniform(-2.0, 2.0, (2, 3)) + (1j * rng.uniform(-2.0, 2.0, (2, 3)) if dtypes[1].startswith("complex") else 0.0)
    z = backend.asarray(z_data, dtypes[1])
    check_grads(JOINS[join], (0, 1))(x, z)
    check_grads(JOINS[join])(x, z)


def test_prod_gradient_with_zero_entries(backend):
    g = grad(lambda x: np.prod(x))(backend.asarray([2.0, 0.0, 3.0]))
    numpy.testing.assert_array_equal(backend.to_numpy(g), [0.0, 6.0, 0.0])
    g = grad(lambda x: np.prod(x))(backend.asarray([0.0, 0.0, 3.0]))
    numpy.testing.assert_array_equal(backend.to_numpy(g), [0.0, 0.0, 0.0])
    g = grad(lambda x: np.sum(np.prod(x, axis=1)))(backend.asarray([[2.0, 0.0], [4.0, 5.0]]))
    numpy.testing.assert_array_equal(backend.to_numpy(g), [[0.0, 2.0], [5.0, 4.0]])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_tanh_tangent_derivatives(backend, dtype):
    """``_tanh_tangent(g, x) = g sech(x)**2``, tanh's tangent as one primitive (what forward mode records of tanh
    inside an enclosing trace: ``hvp``), against finite differences in both arguments, both modes, to order 2."""
    rng = numpy.random.default_rng(0)
    g, x = (backend.asarray(rng.uniform(-2.0, 2.0, (2, 3)), dtype) for _ in range(2))
    check_grads(_tanh_tangent, argnum=(0, 1), modes=("fwd", "rev"), order=2)(g, x)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_hvp_through_tanh_is_exact_in_both_tails(backend, dtype):
    """The HVP of ``sum(tanh(x))`` (reverse over forward, through ``_tanh_tangent``) is ``-2 sech(x)**2 tanh(x)``
    (mpmath) to the rounding of the dtype, also where ``1 - tanh(x)**2`` is 0 (|x| > 19 in float64, 9 in float32)."""
    import mpmath as mp

    from adcore import hvp

    points = numpy.array([-40.0, -19.5, -9.5, -3.0, -0.3, 0.0, 1e-8, 0.7, 5.0, 12.0, 20.0, 40.0])
    x = backend.asarray(points, dtype)
    value = backend.to_numpy(hvp(lambda x: np.sum(np.tanh(x)))(x, backend.asarray(numpy.ones_like(points), dtype)))
    with mp.workdps(40):
        expected = numpy.array([float(-2 * mp.sech(mp.mpf(p)) ** 2 * mp.tanh(mp.mpf(p))) for p in points])
    numpy.testing.assert_allclose(value, expected, rtol=2e-6 if dtype == "float32" else 4e-15, atol=0)


def test_hvp_through_tanh_ignores_nan_data_masked_out(backend):
    """A NaN in the data that ``nansum`` masks out contributes 0 to the HVP through tanh (0 times a NaN partial is 0)."""
    from adcore import hvp

    z = backend.asarray([1.0, numpy.nan, -2.0], "float64")
    s, one = backend.asarray(0.3, "float64"), backend.asarray(1.0, "float64")
    value = hvp(lambda s: np.nansum(np.tanh(np.multiply(z, s))))(s, one)
    t = numpy.tanh(numpy.array([0.3, -0.6]))
    numpy.testing.assert_allclose(backend.to_numpy(value), numpy.sum(numpy.array([1.0, 4.0]) * -2.0 * (1 - t**2) * t), rtol=1e-13)

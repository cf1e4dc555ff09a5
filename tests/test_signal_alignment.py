"""Where the output window of ``adcore.scipy.signal``'s ``"full"``, ``"same"`` and ``"valid"``
convolutions and correlations lies, for every pair of sizes and parities, in values and derivatives:
``convolve`` and ``correlate`` (each ``method``), ``fftconvolve`` and ``oaconvolve`` (with ``axes``
and broadcasting), ``convolve2d`` and ``correlate2d`` (each ``boundary``).

SciPy swaps the inputs of a ``"valid"`` pair when ``in2`` is the larger, centres ``"same"`` on
``in1``'s shape from ``(full - n1) // 2``, conjugates ``correlate``'s second input, and centres
``correlate2d``'s ``"same"`` window differently (and conjugates its swapped ``"valid"`` output).
Each function is linear in each input (real-linear where it conjugates), so the reference Jacobian
is SciPy's function at the basis vectors of the input's real space (``check_linear_map`` of
``tests/test_alignment.py``); ``check_grads`` checks a few to order 2 (and the spec table of
``tests/test_scipy_signal_integrate.py`` has a line for each function).
"""

import itertools

import numpy
import pytest
import scipy.signal
from hypothesis import given
from hypothesis import strategies as st
from test_alignment import check_linear_map
from test_properties import PROFILE, on_backends

from adcore import make_jvp
from adcore.scipy import signal as asignal
from adcore.test_util import check_grads

MODES = ("full", "same", "valid")
KINDS = {"real": ("float64", "float64"), "complex": ("complex128", "complex128"), "mixed": ("float64", "complex128")}
#: every pair of sizes 1..5 (every parity pair, in both orders)
PAIRS = list(itertools.product(range(1, 6), repeat=2))
#: the sizes 1..3 (still every parity pair in both orders, and kernels larger than the image) off NumPy: the
#: other backends compute without SciPy, one operation at a time (Dask builds and computes a graph per evaluation)
LAZY_PAIRS = list(itertools.product(range(1, 4), repeat=2))


def shape_pairs(pairs, step):
    """1-d pairs, then 2-d pairs whose rows take each pair once and whose columns take each pair
    once (pair ``(step * i + 1) mod len(pairs)`` beside row pair ``i``; ``step`` prime to the count)."""
    one = [((n1,), (n2,)) for n1, n2 in pairs]
    two = [((n1, m1), (n2, m2)) for i, (n1, n2) in enumerate(pairs) for m1, m2 in [pairs[(step * i + 1) % len(pairs)]]]
    return one + two


SHAPES, LAZY_SHAPES = shape_pairs(PAIRS, 7), shape_pairs(LAZY_PAIRS, 4)
#: SciPy's function and adcore's, by name (``convolve`` and ``correlate`` once per ``method``)
ND = {
    **{f"{name}-{how}": (name, {"method": how}) for name in ("convolve", "correlate") for how in ("auto", "direct", "fft")},
    "fftconvolve": ("fftconvolve", {}),
    "oaconvolve": ("oaconvolve", {}),
}


def _array(rng, shape, dtype):
    x = rng.standard_normal(shape)
    return (x + 1j * rng.standard_normal(shape)).astype(dtype) if dtype.startswith("complex") else x.astype(dtype)


def _check(name, args, options, backend, rng, label):
    """``name`` of adcore against SciPy's at ``args``: the same error, or the same values and derivatives."""
    ours, theirs = getattr(asignal, name), getattr(scipy.signal, name)
    try:
        theirs(*args, **options)
    except ValueError:
        with pytest.raises(ValueError, match=name):
            ours(*(backend.asarray(x, x.dtype.name) for x in args), **options)
        return
    check_linear_map(lambda *a: ours(*a, **options), lambda *a: theirs(*a, **options), args, backend, rng, label)


@pytest.mark.parametrize("kind", ["real", "complex"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", ND)
def test_nd_every_shape_pair(name, mode, kind, backend):
    """Every pair of 1-d sizes 1..5 and 2-d shapes built from them, in both orders."""
    function, options = ND[name]
    if backend.name == "dask" and name not in ("convolve-auto", "correlate-direct", "fftconvolve"):
        pytest.skip("Dask: one convolve, one correlate and one FFT form (the others share their code off SciPy)")
    rng = numpy.random.default_rng(0)
    for shape1, shape2 in SHAPES if backend.name == "numpy" else LAZY_SHAPES:
        args = (_array(rng, shape1, KINDS[kind][0]), _array(rng, shape2, KINDS[kind][1]))
        _check(function, args, {"mode": mode, **options}, backend, rng, f"{name}({shape1}, {shape2}, {mode!r})")


BOUNDARY_CASES = [(mode, boundary) for mode in ("full", "same") for boundary in ("fill", "wrap", "symm")] + [("valid", "fill")]


@pytest.mark.parametrize("kind", ["real", "complex"])
@pytest.mark.parametrize("mode, boundary", BOUNDARY_CASES)
@pytest.mark.parametrize("name", ["convolve2d", "correlate2d"])
def test_2d_every_shape_pair_and_boundary(name, mode, boundary, kind, backend):
    """Every pair of rows 1..5 and every pair of columns 1..5 (kernels larger than the image
    included, where the boundary pattern repeats)."""
    rng = numpy.random.default_rng(1)
    shapes = [pair for pair in (SHAPES if backend.name == "numpy" else LAZY_SHAPES) if len(pair[0]) == 2]
    if backend.name == "dask" and (boundary, kind) != ("symm", "complex") and mode != "valid":
        pytest.skip("Dask: the symm boundary (complex) and valid mode only (the boundaries share their code)")
    for shape1, shape2 in shapes:
        args = (_array(rng, shape1, KINDS[kind][0]), _array(rng, shape2, KINDS[kind][1]))
        label = f"{name}({shape1}, {shape2}, {mode!r}, {boundary!r})"
        _check(name, args, {"mode": mode, "boundary": boundary}, backend, rng, label)


@pytest.mark.parametrize(
    "shape1, shape2, axes",
    [
        ((1, 4), (3, 3), 1),
        ((3, 4), (1, 2), -1),
        ((2, 3), (2, 5), [1]),
        ((4, 2), (3, 2), 0),
        ((3, 1, 4), (1, 2, 2), (0, 2)),
        ((2, 3, 5), (2, 4, 1), (2, 1)),
        ((1, 5), (3, 2), None),
    ],
    ids=str,
)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", ["fftconvolve", "oaconvolve"])
def test_frequency_forms_along_axes_broadcast_the_others(name, mode, shape1, shape2, axes, backend):
    """``axes``: convolved along those, broadcast along the others (``"same"`` keeps ``in1``'s centred
    entries there too); an axis where one input has one entry does not count in ``"valid"``'s rule."""
    if backend.name == "dask" and (name, mode) != ("fftconvolve", "same"):
        pytest.skip("Dask: fftconvolve 'same' only")
    rng = numpy.random.default_rng(2)
    args = (_array(rng, shape1, "complex128"), _array(rng, shape2, "float64"))
    _check(name, args, {"mode": mode, "axes": axes}, backend, rng, f"{name}({shape1}, {shape2}, {mode!r}, axes={axes})")


# ---- property tests: any shapes, methods, axes and dtypes ----


@st.composite
def nd_cases(draw):
    """``(function name, options, shape1, shape2, dtypes)``: sizes 1..5 in 1 to 3 dimensions; for the
    FFT forms, ``axes`` and sizes 1 or equal along the other axes."""
    ndim = draw(st.integers(1, 3), label="ndim")
    name = draw(st.sampled_from(sorted(ND)), label="function")
    function, options = ND[name]
    shape1 = draw(st.lists(st.integers(1, 5), min_size=ndim, max_size=ndim), label="shape1")
    shape2 = draw(st.lists(st.integers(1, 5), min_size=ndim, max_size=ndim), label="shape2")
    options = {**options, "mode": draw(st.sampled_from(MODES), label="mode")}
    if function in ("fftconvolve", "oaconvolve"):
        axes = draw(st.lists(st.integers(-ndim, ndim - 1), min_size=1, max_size=ndim, unique_by=lambda a: a % ndim), label="axes")
        for i in range(ndim):
            if i not in [a % ndim for a in axes]:
                shape2[i] = draw(st.sampled_from([1, shape1[i]]), label="broadcast size")
        options["axes"] = axes
    return function, options, tuple(shape1), tuple(shape2), KINDS[draw(st.sampled_from(sorted(KINDS)), label="kind")]


@on_backends
@PROFILE
@given(case=nd_cases(), seed=st.integers(0, 2**16))
def test_nd_at_any_shapes(backend, case, seed):
    function, options, shape1, shape2, dtypes = case
    rng = numpy.random.default_rng(seed)
    x, y = _array(rng, shape1, dtypes[0]), _array(rng, shape2, dtypes[1])
    for args in [(x, y), (y, x)]:
        _check(function, args, options, backend, rng, f"{function}({args[0].shape}, {args[1].shape}, {options})")


@on_backends
@PROFILE
@given(
    name=st.sampled_from(["convolve2d", "correlate2d"]),
    shapes=st.lists(st.integers(1, 6), min_size=4, max_size=4),
    mode=st.sampled_from(MODES),
    boundary=st.sampled_from(["fill", "pad", "wrap", "circular", "symm", "symmetric"]),
    kind=st.sampled_from(sorted(KINDS)),
    seed=st.integers(0, 2**16),
)
def test_2d_at_any_shapes(backend, name, shapes, mode, boundary, kind, seed):
    rng = numpy.random.default_rng(seed)
    args = (_array(rng, tuple(shapes[:2]), KINDS[kind][0]), _array(rng, tuple(shapes[2:]), KINDS[kind][1]))
    for pair in (args, args[::-1]):
        label = f"{name}({pair[0].shape}, {pair[1].shape}, {mode!r}, {boundary!r})"
        _check(name, pair, {"mode": mode, "boundary": boundary}, backend, rng, label)


# ---- fillvalue, dtypes, gradients to order 2, errors ----


@pytest.mark.parametrize("mode", ["full", "same"])
@pytest.mark.parametrize("name", ["convolve2d", "correlate2d"])
def test_fillvalue_values_and_derivative(name, mode, backend):
    """``fillvalue`` beyond the edges (constant or traced): the output is affine in it, its derivative is
    the convolution of the kernel with the mask of the extension."""
    rng = numpy.random.default_rng(3)
    a, k = rng.standard_normal((3, 4)), rng.standard_normal((4, 3)) + 1j * rng.standard_normal((4, 3))
    ours, theirs = getattr(asignal, name), getattr(scipy.signal, name)
    for fillvalue in (1.5, numpy.array([-2.0]), 0.5 - 1.0j):
        expected = theirs(a, k, mode, "fill", fillvalue)
        result = ours(backend.asarray(a), backend.asarray(k, "complex128"), mode, "fill", fillvalue)
        backend.check_device(result)
        numpy.testing.assert_allclose(backend.to_numpy(result), expected, rtol=1e-12, atol=1e-12)
    slope = theirs(a, k, mode, "fill", 1.0) - theirs(a, k, mode, "fill", 0.0)
    check_grads(lambda a, k, v: ours(a, k, mode, "fill", v), (0, 1, 2), modes=("fwd", "rev"), order=2)(
        backend.asarray(a), backend.asarray(k, "complex128"), backend.asarray(0.7)
    )
    along = make_jvp(lambda v: ours(backend.asarray(a), backend.asarray(k, "complex128"), mode, "fill", v))
    _, tangent = along(backend.asarray(0.7))(backend.asarray(1.0))
    numpy.testing.assert_allclose(backend.to_numpy(tangent), slope, rtol=1e-10, atol=1e-12)


def test_dtypes_follow_scipy():
    """The FFT forms compute integers in float64; the 2-d forms keep integers (a fillvalue cast to them)."""
    a, k = numpy.arange(1, 7).reshape(2, 3), numpy.array([[2, -1]])
    for name in ("fftconvolve", "oaconvolve"):
        result = getattr(asignal, name)(a, k)
        assert result.dtype == getattr(scipy.signal, name)(a, k).dtype == numpy.float64
    for name in ("convolve2d", "correlate2d"):
        result, expected = getattr(asignal, name)(a, k, fillvalue=1.5), getattr(scipy.signal, name)(a, k, fillvalue=1.5)
        assert result.dtype == expected.dtype
        numpy.testing.assert_array_equal(result, expected)
    f32 = numpy.float32
    assert asignal.correlate(a.astype(f32), k.astype(f32)).dtype == f32
    assert asignal.fftconvolve(a.astype(f32), k.astype(f32)).dtype == f32
    numpy.testing.assert_allclose(asignal.correlate(2.0, 1j), scipy.signal.correlate(numpy.array(2.0), numpy.array(1j)))
    numpy.testing.assert_allclose(asignal.fftconvolve(2.0, 3.0), 6.0)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: asignal.correlate(numpy.ones(3), numpy.ones(2), "circular"), "correlate: acceptable mode flags"),
        (lambda: asignal.correlate(numpy.ones(3), numpy.ones(2), method="winograd"), "correlate: acceptable method flags"),
        (lambda: asignal.correlate(numpy.ones((2, 3)), numpy.ones(2)), "correlate: in1 and in2 should have the same dim"),
        (lambda: asignal.correlate(numpy.ones((2, 3)), numpy.ones((3, 2)), "valid"), "correlate: for 'valid' mode"),
        (lambda: asignal.fftconvolve(numpy.ones((2, 3)), numpy.ones((3, 5)), axes=1), "fftconvolve: incompatible shapes"),
        (lambda: asignal.fftconvolve(numpy.ones((2, 3)), numpy.ones((2, 5)), axes=2), "fftconvolve: axes .* exceed"),
        (lambda: asignal.oaconvolve(numpy.ones((2, 3)), numpy.ones((2, 5)), axes=[1, -1]), "oaconvolve: all axes must be unique"),
        (lambda: asignal.oaconvolve(numpy.ones((2, 3)), numpy.ones((2, 5)), axes=[]), "oaconvolve: .* axes cannot be empty"),
        (lambda: asignal.fftconvolve(numpy.ones(3), numpy.ones(2), "lagged"), "fftconvolve: acceptable mode flags"),
        (lambda: asignal.convolve2d(numpy.ones(3), numpy.ones(2)), "convolve2d: inputs must both be 2-D"),
        (lambda: asignal.correlate2d(numpy.ones((2, 2)), numpy.ones((2, 2)), boundary="reflect"), "correlate2d: acceptable b"),
        (lambda: asignal.convolve2d(numpy.ones((2, 2)), numpy.ones((2, 2)), fillvalue=[1, 2]), "convolve2d: `fillvalue` must be"),
        (lambda: asignal.convolve2d(numpy.ones((2, 2)), numpy.ones((2, 2)), fillvalue=1j), "convolve2d: could not cast"),
        (lambda: asignal.convolve2d(numpy.ones((2, 3)), numpy.ones((3, 2)), "valid"), "convolve2d: for 'valid' mode"),
    ],
)
def test_errors_name_the_function_and_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()

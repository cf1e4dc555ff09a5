"""Gathers, sorting and order statistics (``adcore/numpy/selection.py``).

``CASES`` lists each differentiable case once with its NumPy reference: it runs
against finite differences in both modes to order 2, in float64 and float32,
and its value is compared with NumPy's, on every backend and device. Inputs
are drawn uniformly, so their entries are distinct and sorting is locally
smooth. The exact tests below pin down what finite differences cannot see:
repeated indices accumulating, one-hot median gradients, ties, NaNs, errors.
"""

import warnings

import numpy
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import adcore.numpy as np
from adcore import grad, make_jvp, make_vjp
from adcore.numpy.selection import METHODS
from adcore.test_util import check_grads
from specs import R, Spec, inputs, spec_tests

Q = (0.05, 0.95)  # probabilities away from 0 and 1
WEIGHTS = numpy.array([[0.0, 2.0, 1.0, 0.5], [1.0, 0.0, 3.0, 0.0]])  # with zeros, a leading one among them


def nans_below(x, threshold=-1.0):
    """``x`` with NaN where it is below ``threshold`` (works for NumPy and traced arrays alike)."""
    return np.where(x < threshold, np.nan, x)


def numpy_nans_below(x, threshold=-1.0):
    return numpy.where(x < threshold, numpy.nan, x)


def case(name, fun, reference, *shapes, domains=(R, R), **options):
    """A spec line and the NumPy function its value must match (None: tested by hand below)."""
    return Spec(name, fun, shapes, domains, **options), reference


CASES = [
    # take: repeated and negative indices, any shape of indices, every kind of axis
    case("take_flat", lambda x: np.take(x, [0, 3, 3, -1]), lambda x: numpy.take(x, [0, 3, 3, -1]), (5,)),
    case("take_2d_indices_flat", lambda x: np.take(x, [[0, 11], [5, 5]]), lambda x: numpy.take(x, [[0, 11], [5, 5]]), (3, 4)),
    case("take_axis0", lambda x: np.take(x, [2, 0, 2], axis=0), lambda x: numpy.take(x, [2, 0, 2], axis=0), (3, 4)),
    case(
        "take_axis-1",
        lambda x: np.take(x, [[1, 1], [3, 0]], axis=-1),
        lambda x: numpy.take(x, [[1, 1], [3, 0]], axis=-1),
        (2, 3, 4),
    ),
    case("take_scalar_index", lambda x: np.take(x, -2, axis=1), lambda x: numpy.take(x, -2, axis=1), (2, 3)),
    # take_along_axis: repeats, broadcasting of the other axes, axis=None
    case(
        "take_along_axis1",
        lambda x: np.take_along_axis(x, [[0, 0], [3, 1], [2, -1]], axis=1),
        lambda x: numpy.take_along_axis(x, numpy.array([[0, 0], [3, 1], [2, -1]]), axis=1),
        (3, 4),
    ),
    case(
        "take_along_axis-1",
        lambda x: np.take_along_axis(x, [[[3, 0, 0, 1, 2]], [[1, 1, 2, 2, 3]]], axis=-1),
        lambda x: numpy.take_along_axis(x, numpy.array([[[3, 0, 0, 1, 2]], [[1, 1, 2, 2, 3]]]), axis=-1),
        (2, 3, 4),
    ),
    case(
        "take_along_axis_broadcast",
        lambda x: np.take_along_axis(x, [[0, 1, 2, 0], [2, 2, 1, 0]], axis=0),
        lambda x: numpy.take_along_axis(x, numpy.array([[0, 1, 2, 0], [2, 2, 1, 0]]), axis=0),
        (3, 1),
    ),
    case(
        "take_along_axis_None",
        lambda x: np.take_along_axis(x, [5, 0, 0], axis=None),
        lambda x: numpy.take_along_axis(x, numpy.array([5, 0, 0]), axis=None),
        (2, 3),
    ),
    # sort
    case("sort", np.sort, numpy.sort, (5,)),
    case("sort_axis0", lambda x: np.sort(x, axis=0), lambda x: numpy.sort(x, axis=0), (3, 4)),
    case("sort_axis-1", lambda x: np.sort(x, -1, kind="stable"), lambda x: numpy.sort(x, -1), (3, 4)),
    case("sort_axis1_3d", lambda x: np.sort(x, axis=1), lambda x: numpy.sort(x, axis=1), (2, 3, 4)),
    case("sort_None", lambda x: np.sort(x, axis=None), lambda x: numpy.sort(x, axis=None), (2, 3)),
    # partition (values: test_partition_property)
    case("partition", lambda x: np.partition(x, 2), None, (6,)),
    case("partition_kths_axis0", lambda x: np.partition(x, [0, -1], axis=0), None, (3, 4)),
    case("partition_None", lambda x: np.partition(x, 3, axis=None), None, (2, 3)),
    # median: odd and even lengths, every kind of axis, keepdims
    case("median_odd", np.median, numpy.median, (5,)),
    case("median_even", np.median, numpy.median, (4,)),
    case("median_axis0", lambda x: np.median(x, axis=0), lambda x: numpy.median(x, axis=0), (3, 4)),
    case("median_axis-1", lambda x: np.median(x, -1), lambda x: numpy.median(x, -1), (3, 4)),
    case("median_None", lambda x: np.median(x, axis=None), lambda x: numpy.median(x, axis=None), (3, 4)),
    case(
        "median_axes_keepdims",
        lambda x: np.median(x, axis=(0, -1), keepdims=True),
        lambda x: numpy.median(x, axis=(0, -1), keepdims=True),
        (2, 3, 5),
    ),
    # quantile and percentile: scalar and 1-d q, axes, keepdims, the discrete methods
    case("quantile_scalar_q", lambda x: np.quantile(x, 0.3), lambda x: numpy.quantile(x, 0.3), (7,)),
    case(
        "quantile_axis-1",
        lambda x: np.quantile(x, [0.1, 0.5, 0.9], axis=-1),
        lambda x: numpy.quantile(x, [0.1, 0.5, 0.9], axis=-1),
        (3, 5),
    ),
    case("quantile_None_ends", lambda x: np.quantile(x, [0.0, 1.0, 0.45]), lambda x: numpy.quantile(x, [0.0, 1.0, 0.45]), (3, 4)),
    case(
        "quantile_axes_keepdims",
        lambda x: np.quantile(x, 0.6, axis=(0, 2), keepdims=True),
        lambda x: numpy.quantile(x, 0.6, axis=(0, 2), keepdims=True),
        (2, 3, 4),
    ),
    *[
        case(
            f"quantile_{method}",
            lambda x, m=method: np.quantile(x, [0.0, 0.2, 0.35, 0.5, 1.0], axis=0, method=m),
            lambda x, m=method: numpy.quantile(x, [0.0, 0.2, 0.35, 0.5, 1.0], axis=0, method=m),
            (5, 3),
        )
        for method in METHODS
        if method != "linear"
    ],
    # Hyndman and Fan's continuous methods are differentiable in q too
    *[
        case(
            f"quantile_{method}_traced_q",
            lambda x, q, m=method: np.quantile(x, q, axis=-1, method=m),
            lambda x, q, m=method: numpy.quantile(x, q, axis=-1, method=m),
            (3, 5),
            (2,),
            domains=(R, Q),
            dtypes=("float64",),
        )
        for method in ("interpolated_inverted_cdf", "hazen", "weibull", "median_unbiased", "normal_unbiased")
    ],
    # weights (method="inverted_cdf" only): of a's shape, or of the reduced axes in axis's order
    case(
        "quantile_weights_full",
        lambda x: np.quantile(x, [0.1, 0.5, 1.0], axis=1, method="inverted_cdf", weights=WEIGHTS),
        lambda x: numpy.quantile(x, [0.1, 0.5, 1.0], axis=1, method="inverted_cdf", weights=WEIGHTS),
        (2, 4),
    ),
    case(
        "quantile_weights_axes_keepdims",
        lambda x: np.quantile(x, 0.4, axis=(2, 0), method="inverted_cdf", weights=WEIGHTS.T, keepdims=True),
        lambda x: numpy.quantile(x, 0.4, axis=(2, 0), method="inverted_cdf", weights=WEIGHTS.T, keepdims=True),
        (2, 3, 4),
    ),
    case(
        "nanpercentile_weights",
        lambda x: np.nanpercentile(nans_below(x), [20, 70], axis=-1, method="inverted_cdf", weights=WEIGHTS[0] + 1),
        # NumPy's nanquantile fails on 1-d weights of a 2-d a (an IndexError): its reference has them broadcast
        lambda x: numpy.nanpercentile(
            numpy_nans_below(x), [20, 70], axis=-1, method="inverted_cdf", weights=numpy.broadcast_to(WEIGHTS[0] + 1, x.shape)
        ),
        (3, 4),
    ),
    case(
        "percentile_hazen_axes_keepdims",
        lambda x: np.percentile(x, [10, 55], axis=(0, -1), method="hazen", keepdims=True),
        lambda x: numpy.percentile(x, [10, 55], axis=(0, -1), method="hazen", keepdims=True),
        (2, 3, 4),
    ),
    case(
        "nanquantile_weibull",
        lambda x: np.nanquantile(nans_below(x), [0.0, 0.3, 0.9], axis=0, method="weibull"),
        lambda x: numpy.nanquantile(numpy_nans_below(x), [0.0, 0.3, 0.9], axis=0, method="weibull"),
        (6, 3),
    ),
    case(
        "quantile_traced_q",
        lambda x, q: np.quantile(x, q, axis=-1),
        lambda x, q: numpy.quantile(x, q, axis=-1),
        (3, 5),
        (2,),
        domains=(R, Q),
        # q is cast to x's dtype, so in float32 finite differences in q (step 1e-6) drown in rounding
        dtypes=("float64",),
    ),
    case(
        "percentile_axis0",
        lambda x: np.percentile(x, [25, 60], axis=0),
        lambda x: numpy.percentile(x, [25, 60], axis=0),
        (5, 3),
    ),
    case("percentile_scalar", lambda x: np.percentile(x, 50.0), lambda x: numpy.percentile(x, 50.0), (6,)),
    # the nan versions, on inputs with NaNs (no slice is all NaN at these shapes and seed)
    case(
        "nanmedian_axis0",
        lambda x: np.nanmedian(nans_below(x), axis=0),
        lambda x: numpy.nanmedian(numpy_nans_below(x), axis=0),
        (4, 5),
    ),
    case("nanmedian_None", lambda x: np.nanmedian(nans_below(x)), lambda x: numpy.nanmedian(numpy_nans_below(x)), (3, 4)),
    case(
        "nanquantile_axis-1_keepdims",
        lambda x: np.nanquantile(nans_below(x), [0.2, 0.8], axis=-1, keepdims=True),
        lambda x: numpy.nanquantile(numpy_nans_below(x), [0.2, 0.8], axis=-1, keepdims=True),
        (3, 6),
    ),
    case(
        "nanpercentile",
        lambda x: np.nanpercentile(nans_below(x), 30),
        lambda x: numpy.nanpercentile(numpy_nans_below(x), 30),
        (7,),
    ),
]

SPECS = [spec for spec, _ in CASES]
REFERENCES = [pytest.param(spec, reference, id=spec.name) for spec, reference in CASES if reference is not None]

test_derivatives, test_value_matches_numpy = spec_tests(SPECS)


#: why NumPy's weighted quantiles are no reference here (None where they are: NumPy 2.4 on)
_OLD_WEIGHTED_QUANTILE = (
    f"NumPy {numpy.__version__}'s weighted quantiles differ from NumPy 2.4's over several axes and NaN slices "
    "(the reference adcore follows); checked on NumPy 2.4 and later"
    if tuple(int(p) for p in numpy.__version__.split(".")[:2]) < (2, 4)
    else None
)


@pytest.mark.parametrize("spec, reference", REFERENCES)
def test_value_matches_numpy_reference(spec, reference, backend):
    """Each case against NumPy's own function, computed on the host in float64."""
    if "weights" in spec.name and _OLD_WEIGHTED_QUANTILE:
        pytest.skip(_OLD_WEIGHTED_QUANTILE)
    args = inputs(backend, spec, "float64")
    expected = reference(*[backend.to_numpy(a) for a in args])
    result = spec.fun(*args)
    backend.check_device(result)
    assert numpy.shape(backend.to_numpy(result)) == numpy.shape(expected)
    numpy.testing.assert_allclose(backend.to_numpy(result), expected, rtol=1e-12, atol=1e-12)


# ---- exact values of derivatives ----


def indices(backend, values):
    return backend.backend.from_numpy(numpy.array(values), device=backend.device)


def test_take_gradient_accumulates_repeated_indices(backend):
    x = backend.asarray([1.0, 2.0, 3.0])
    weights = backend.asarray([1.0, 10.0, 100.0])
    for index in ([0, 0, 2], indices(backend, [0, 0, 2]), indices(backend, [-3, 0, -1])):
        g = grad(lambda x, index=index: np.sum(np.take(x, index) * weights))(x)
        backend.check_device(g)
        numpy.testing.assert_array_equal(backend.to_numpy(g), [11.0, 0.0, 100.0])
        check_grads(lambda x, index=index: np.take(x, index) ** 2)(x)
    x = backend.asarray(numpy.ones((2, 3)))
    g = grad(lambda x: np.sum(np.take(x, indices(backend, [[2, 2], [2, 0]]), axis=1)))(x)
    numpy.testing.assert_array_equal(backend.to_numpy(g), [[1.0, 0.0, 3.0], [1.0, 0.0, 3.0]])


def test_take_along_axis_gradient_accumulates_and_unbroadcasts(backend):
    x = backend.asarray([[1.0], [2.0], [3.0]])  # broadcast along axis 1 against the indices
    index = indices(backend, [[0, 0, 2], [1, 0, 0]])
    g = grad(lambda x: np.sum(np.take_along_axis(x, index, axis=0)))(x)
    numpy.testing.assert_array_equal(backend.to_numpy(g), [[4.0], [1.0], [1.0]])


def test_sort_gradient_is_the_inverse_permutation(backend):
    x = backend.asarray([3.0, 1.0, 2.0, 5.0, 4.0])
    weights = backend.asarray([1.0, 10.0, 100.0, 1000.0, 10000.0])
    g = grad(lambda x: np.sum(np.sort(x) * weights))(x)
    numpy.testing.assert_array_equal(backend.to_numpy(g), [100.0, 1.0, 10.0, 10000.0, 1000.0])
    _, tangent = make_jvp(np.sort)(x)(weights)
    numpy.testing.assert_array_equal(backend.to_numpy(tangent), [10.0, 100.0, 1.0, 10000.0, 1000.0])


def test_sort_ties_follow_the_stable_order(backend):
    """Of equal entries, the first in ``x`` owns the earlier output position and its derivative."""
    x = backend.asarray([[2.0, 1.0, 2.0, 1.0]])
    weights = backend.asarray([[1.0, 10.0, 100.0, 1000.0]])
    g = grad(lambda x: np.sum(np.sort(x, axis=1) * weights))(x)
    numpy.testing.assert_array_equal(backend.to_numpy(g), [[100.0, 1.0, 1000.0, 10.0]])
    numpy.testing.assert_array_equal(backend.to_numpy(np.argsort(x)), [[1, 3, 0, 2]])


def test_median_gradient_is_one_hot_for_an_odd_length(backend):
    x = backend.asarray([3.0, -1.0, 7.0, 0.5, 2.0])
    g = grad(np.median)(x)
    backend.check_device(g)
    numpy.testing.assert_array_equal(backend.to_numpy(g), [0.0, 0.0, 0.0, 0.0, 1.0])
    g = grad(lambda x: np.median(x[:4]))(x)  # even: the two middle entries share it
    numpy.testing.assert_array_equal(backend.to_numpy(g), [0.5, 0.0, 0.0, 0.5, 0.0])
    x = backend.asarray([[3.0, 1.0], [1.0, 5.0], [2.0, 4.0]])
    g = grad(lambda x: np.sum(np.median(x, axis=0)))(x)
    numpy.testing.assert_array_equal(backend.to_numpy(g), [[0.0, 0.0], [0.0, 0.0], [1.0, 1.0]])


def test_quantile_gradient_is_split_between_the_two_order_statistics(backend):
    x = backend.asarray([6.0, 1.0, 5.0, 2.0, 4.0, 3.0])  # q = 0.3: position 1.5, between 2.0 and 3.0
    g = grad(lambda x: np.quantile(x, 0.3))(x)
    numpy.testing.assert_allclose(backend.to_numpy(g), [0.0, 0.0, 0.0, 0.5, 0.0, 0.5], atol=1e-15)
    g = grad(lambda x: np.sum(np.quantile(x, [0.0, 1.0])))(x)
    numpy.testing.assert_array_equal(backend.to_numpy(g), [1.0, 1.0, 0.0, 0.0, 0.0, 0.0])
    q = backend.asarray([0.3])
    g = grad(lambda q: np.sum(np.quantile(x, q)))(q)  # d/dq: (n - 1) * (x_hi - x_lo)
    numpy.testing.assert_allclose(backend.to_numpy(g), [5.0])


FUNCTIONS = {"quantile": 1.0, "percentile": 100.0, "nanquantile": 1.0, "nanpercentile": 100.0}


@st.composite
def quantile_cases(draw, method):
    """``(name, data, q, options)``: one of the four functions, distinct entries 0.25 apart (NaNs
    for the nan versions), an axis (None, an int or a tuple in any order), keepdims, and
    probabilities that include 0, 1 and the fractions ``j / (2 n)`` where the methods jump,
    with weights (some 0) for ``inverted_cdf`` half of the time."""
    name = draw(st.sampled_from(sorted(FUNCTIONS)))
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    size = int(numpy.prod(shape))
    rng = numpy.random.default_rng(draw(st.integers(0, 2**16)))
    data = (rng.permutation(size) * 0.25 - 1.0).reshape(shape)
    axis = draw(st.one_of(st.none(), st.integers(-len(shape), len(shape) - 1), st.permutations(range(len(shape)))))
    if isinstance(axis, list):
        axis = tuple(axis[: draw(st.integers(1, len(shape)))])
    if name.startswith("nan"):
        data[rng.uniform(size=shape) < 0.3] = numpy.nan
    n = size if axis is None else int(numpy.prod([shape[ax] for ax in numpy.atleast_1d(axis)]))
    fractions = st.one_of(st.integers(0, 2 * n).map(lambda j: j / (2 * n)), st.floats(0.0, 1.0))
    q = draw(st.one_of(fractions, st.lists(fractions, min_size=1, max_size=4)))
    options = {"axis": axis, "keepdims": draw(st.booleans()), "method": method}
    if method == "inverted_cdf" and draw(st.booleans()):
        # (NumPy's nanquantile fails on weights along an axis of a 2-d or more a)
        along = draw(st.booleans()) and axis is not None and (len(shape) == 1 or not name.startswith("nan"))
        weights_shape = tuple(shape[ax] for ax in numpy.atleast_1d(axis)) if along else shape
        weights = rng.integers(0, 4, size=weights_shape).astype(float)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                getattr(numpy, name)(data, 0.5, **options, weights=weights)
        except ValueError:  # a slice of zero total weight (NumPy refuses it; tested apart)
            weights += 1.0
        options["weights"] = weights
    return name, data, [FUNCTIONS[name] * p for p in q] if isinstance(q, list) else FUNCTIONS[name] * q, options


def _differences(fun, data, cotangent, step=1e-3):
    """The exact gradient of ``sum(cotangent * fun(data))`` where ``fun`` is linear between the
    entries' gaps (0.25 here): central differences of step ``step``, NaN entries and results 0."""
    gradient = numpy.zeros_like(data)
    for i in numpy.ndindex(data.shape):
        if numpy.isnan(data[i]):
            continue
        up, down = data.copy(), data.copy()
        up[i] += step
        down[i] -= step
        difference = numpy.nan_to_num(fun(up) - fun(down))
        gradient[i] = numpy.sum(cotangent * difference) / (2 * step)
    return gradient


@pytest.mark.parametrize("method", METHODS)
@settings(max_examples=6, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_quantile_matches_numpy_in_every_method(backend, method, data):
    """Every method of the four functions, with axes, keepdims and weights: values against NumPy's
    (exactly), gradients in both modes against NumPy's central differences (exact, since the
    result is piecewise linear in the entries and the step is far below their gaps)."""
    name, host, q, options = data.draw(quantile_cases(method))
    if "weights" in options and _OLD_WEIGHTED_QUANTILE:
        pytest.skip(_OLD_WEIGHTED_QUANTILE)
    with numpy.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's warning for a slice of NaNs only

        def reference(x):
            return getattr(numpy, name)(x, q, **options)

        expected = reference(host)
        fun = getattr(np, name)
        x = backend.asarray(host)
        result = fun(x, q, **options)
        backend.check_device(result)
        numpy.testing.assert_array_equal(backend.to_numpy(result), expected)
        cotangent = numpy.random.default_rng(0).uniform(1.0, 2.0, numpy.shape(expected))
        expected_gradient = _differences(reference, host, cotangent)
        tangent = numpy.random.default_rng(1).uniform(-1.0, 1.0, host.shape)
        expected_forward = numpy.nan_to_num((reference(host + 1e-3 * tangent) - reference(host - 1e-3 * tangent)) / 2e-3)
    c = backend.asarray(cotangent)
    gradient = grad(lambda x: np.sum(np.multiply(fun(x, q, **options), c)))(x)
    numpy.testing.assert_allclose(backend.to_numpy(gradient), expected_gradient, rtol=1e-9, atol=1e-9)
    _, forward = make_jvp(lambda x: fun(x, q, **options))(x)(backend.asarray(tangent))
    numpy.testing.assert_allclose(numpy.nan_to_num(backend.to_numpy(forward)), expected_forward, rtol=1e-9, atol=1e-9)


def test_invalid_weights_give_an_error_or_nan(backend):
    """Weights are checked on the host as NumPy checks them; an array of a backend other than
    NumPy is not (that would force its value): its invalid slices give NaN, never a number."""
    x = backend.asarray([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    weights = numpy.array([[1.0, -1.0, 1.0], [1.0, 2.0, 1.0]])
    if backend.name == "numpy":
        with pytest.raises(ValueError, match="quantile: weights must be non-negative"):
            np.quantile(x, 0.5, axis=1, method="inverted_cdf", weights=backend.asarray(weights))
    else:
        for invalid in (-1.0, numpy.inf, numpy.nan):
            weights[0, 1] = invalid
            result = np.quantile(x, 0.5, axis=1, method="inverted_cdf", weights=backend.asarray(weights))
            numpy.testing.assert_array_equal(backend.to_numpy(result), [numpy.nan, 5.0])
    # nanquantile: the entries that are not NaN all of weight 0 (NumPy raises ValueError)
    x = backend.asarray([[1.0, numpy.nan, 3.0], [4.0, 5.0, 6.0]])
    result = np.nanquantile(x, [0.5], axis=1, method="inverted_cdf", weights=[0.0, 1.0, 0.0])
    numpy.testing.assert_array_equal(backend.to_numpy(result), [[numpy.nan, 5.0]])


def test_nan_propagates_in_median_and_is_skipped_by_nanmedian(backend):
    x = backend.asarray([[1.0, numpy.nan, 3.0], [4.0, 5.0, 9.0], [numpy.nan, numpy.nan, numpy.nan]])
    numpy.testing.assert_array_equal(backend.to_numpy(np.median(x, axis=1)), [numpy.nan, 5.0, numpy.nan])
    with numpy.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        expected = numpy.nanmedian(backend.to_numpy(x), axis=1)
    numpy.testing.assert_array_equal(backend.to_numpy(np.nanmedian(x, axis=1)), expected)
    g = grad(lambda x: np.sum(np.nanmedian(x[:2, ...], axis=1)))(x)
    numpy.testing.assert_array_equal(backend.to_numpy(g), [[0.5, 0.0, 0.5], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]])


# ---- values that NumPy's own results cannot be compared with directly ----


@pytest.mark.parametrize(
    "shape, kth, axis",
    [((7,), 3, -1), ((7,), [0, 6], -1), ((3, 5), -2, 1), ((4, 3), [1, 2], 0), ((2, 3), 4, None)],
)
def test_partition_property(backend, shape, kth, axis):
    """The ``kth`` entries are NumPy's, nothing before them is greater and nothing after them smaller."""
    x = backend.asarray(numpy.random.default_rng(1).uniform(-2.0, 2.0, size=shape))
    result = backend.to_numpy(make_vjp(lambda x: np.partition(x, kth, axis=axis))(x)[1])
    expected = numpy.partition(backend.to_numpy(x), kth, axis=axis)
    result = numpy.moveaxis(result, -1 if axis is None else axis, -1)
    expected = numpy.moveaxis(expected, -1 if axis is None else axis, -1)
    for k in numpy.atleast_1d(kth):
        numpy.testing.assert_array_equal(result[..., k], expected[..., k])
        assert numpy.all(result[..., :k] <= result[..., k : k + 1]) and numpy.all(result[..., k:] >= result[..., k : k + 1])
    numpy.testing.assert_array_equal(numpy.sort(result, axis=-1), numpy.sort(expected, axis=-1))


def test_argsort_argpartition_and_searchsorted_match_numpy(backend):
    data = numpy.array([[2.0, 1.0, 2.0, 0.5], [1.0, 1.0, -3.0, 4.0]])
    x = backend.asarray(data)
    for axis in (0, -1, None):
        result = np.argsort(x, axis=axis)
        backend.check_device(result)
        numpy.testing.assert_array_equal(backend.to_numpy(result), numpy.argsort(data, axis=axis, kind="stable"))
    order = backend.to_numpy(np.argpartition(x, 1, axis=1))
    numpy.testing.assert_array_equal(numpy.take_along_axis(data, order, axis=1)[:, 1], numpy.partition(data, 1, axis=1)[:, 1])
    table = numpy.array([0.5, 1.0, 1.0, 2.0])
    a = backend.asarray(table)
    for v in (1.0, [0.0, 1.0, 3.0], backend.asarray([[1.0, 1.5], [2.0, 0.5]])):
        v_host = backend.to_numpy(v) if hasattr(v, "shape") else v
        for side in ("left", "right"):
            result = np.searchsorted(a, v, side=side)
            backend.check_device(result)
            numpy.testing.assert_array_equal(backend.to_numpy(result), numpy.searchsorted(table, v_host, side=side))
    shuffled = numpy.array([2.0, 0.5, 1.0])
    sorter = indices(backend, numpy.argsort(shuffled))
    result = np.searchsorted(backend.asarray(shuffled), 1.5, sorter=sorter)
    assert int(backend.to_numpy(result)) == numpy.searchsorted(shuffled, 1.5, sorter=numpy.argsort(shuffled))


def test_nondifferentiable_functions_accept_traced_arrays(backend):
    x = backend.asarray([3.0, 1.0, 2.0])
    g = grad(lambda x: np.sum(np.take(x, np.argsort(x)) * backend.asarray([1.0, 2.0, 3.0])))(x)
    numpy.testing.assert_array_equal(backend.to_numpy(g), [3.0, 1.0, 2.0])
    g = grad(lambda x: np.sum(x * np.astype(np.searchsorted(np.sort(x), x), np.float64)))(x)
    numpy.testing.assert_array_equal(backend.to_numpy(g), [2.0, 0.0, 1.0])


@pytest.mark.parametrize(
    "fun",
    [
        lambda x: np.take(x, [1, 0], axis=0),
        lambda x: np.take_along_axis(x, [[0], [1]], axis=1),
        lambda x: np.sort(x, axis=0),
        lambda x: np.median(x, axis=1),
        lambda x: np.quantile(x, [0.2, 0.7]),
        lambda x: np.nanpercentile(x, 40.0, axis=0),
    ],
    ids=["take", "take_along_axis", "sort", "median", "quantile", "nanpercentile"],
)
def test_float32_stays_float32(backend, fun):
    x = backend.asarray(numpy.random.default_rng(2).uniform(size=(2, 3)), "float32")
    vjp, result = make_vjp(fun)(x)
    assert backend.to_numpy(result).dtype == numpy.float32
    assert backend.to_numpy(vjp(result)).dtype == numpy.float32


def test_integer_input_gives_a_float64_median(backend):
    x = backend.asarray([3, 1, 2, 8], "int64")
    result = np.median(x)
    assert backend.to_numpy(result).dtype == numpy.float64
    assert float(backend.to_numpy(result)) == 2.5


# ---- errors ----


def test_errors_name_the_function_and_the_way_out(backend):
    x = backend.asarray([[1.0, 2.0, 3.0]])
    with pytest.raises(ValueError, match=r"quantile: q must be in the range \[0, 1\]"):
        np.quantile(x, 1.5)
    with pytest.raises(ValueError, match=r"percentile: q must be in the range \[0, 100\]"):
        np.percentile(x, [50, -1])
    with pytest.raises(ValueError, match="method 'hyndman' is not one of NumPy's quantile methods: inverted_cdf"):
        np.quantile(x, 0.5, method="hyndman")
    with pytest.raises(ValueError, match="percentile: only method 'inverted_cdf' supports weights"):
        np.percentile(x, 50, weights=[[1, 1, 1]])
    with pytest.raises(TypeError, match="quantile: axis must be given when the shapes of a"):
        np.quantile(x, 0.5, method="inverted_cdf", weights=[1, 1, 1])
    with pytest.raises(ValueError, match=r"nanquantile: weights of shape \(2,\) do not fit a of shape \(1, 3\)"):
        np.nanquantile(x, 0.5, axis=1, method="inverted_cdf", weights=[1, 1])
    with pytest.raises(ValueError, match="quantile: weights must be non-negative"):
        np.quantile(x, 0.5, axis=1, method="inverted_cdf", weights=[1, -1, 1])
    with pytest.raises(ValueError, match="quantile: the weights of a slice are not finite or all zero"):
        np.quantile(x, 0.5, axis=1, method="inverted_cdf", weights=[0, 0, 0])
    with pytest.raises(TypeError, match="out= is not supported"):
        np.median(x, out=x)
    with pytest.raises(ValueError, match="empty slice"):
        np.median(backend.asarray(numpy.zeros((2, 0))), axis=1)
    with pytest.raises(numpy.exceptions.AxisError, match="sort"):
        np.sort(x, axis=2)
    with pytest.raises(numpy.exceptions.AxisError, match="median"):
        np.median(x, axis=(0, -3))
    with pytest.raises(ValueError, match="repeated axis"):
        np.median(x, axis=(0, -2))
    with pytest.raises(ValueError, match=r"partition: kth\(=3\) out of bounds \(3\)"):
        np.partition(x, [0, 3])
    with pytest.raises(NotImplementedError, match="order="):
        np.argsort(x, order="f")
    with pytest.raises(TypeError, match="take: indices must be integers"):
        np.take(x, [0.5])


def test_indices_of_another_backend_are_an_error():
    import backends

    if backends.unavailable_reason("array_api_strict"):
        pytest.skip("array_api_strict is not installed")
    strict = backends.get_backend("array_api_strict")
    x = strict.from_numpy(numpy.arange(3.0))
    with pytest.raises(ValueError, match="take: arrays from two backends"):
        np.take(x, numpy.array([0, 1]))
    other_device = strict.from_numpy(numpy.array([0, 1]), device=strict.xp.Device("device1"))
    with pytest.raises(ValueError, match="take_along_axis: array_api_strict arrays on two devices"):
        np.take_along_axis(x, other_device, axis=0)
    with pytest.raises(ValueError, match="quantile: arrays from two backends"):
        np.quantile(x, numpy.array([0.5]))


def test_names_are_exported():
    for name in ["take", "take_along_axis", "sort", "argsort", "partition", "argpartition", "searchsorted"]:
        assert name in np.__all__
    for name in ["median", "quantile", "percentile", "nanmedian", "nanquantile", "nanpercentile"]:
        assert name in np.__all__

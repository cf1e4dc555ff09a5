"""Values and derivatives at the singular points listed in docs/numerical-safety.md, which gives
each convention and its source. ``tests/test_edges.py`` already checks the reverse-mode gradients
of ``sqrt`` and ``linalg.norm`` at 0 and the double-``where`` pattern; this file adds forward mode,
higher orders, float32, and the other points. Each test runs on numpy and array-api-strict.
"""

import warnings

import numpy
import pytest
from conftest import TEST_BACKENDS
from test_numpy_rules import SPECS

import adcore.numpy as np
from adcore import elementwise_grad, grad, make_jvp
from adcore.scipy.special import log_softmax, logsumexp, softmax

INF = numpy.inf
SAFETY_BACKENDS = [case for case in TEST_BACKENDS if case.name in ("numpy", "array_api_strict")]
on_backends = pytest.mark.parametrize("backend", SAFETY_BACKENDS, ids=lambda case: case.id, indirect=True)
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy warns on log(0), 0/0: the values are the point


def assert_equal(backend, value, expected):
    """Exact equality (NaN equal to NaN), on the input's backend and device."""
    backend.check_device(value)
    numpy.testing.assert_array_equal(backend.to_numpy(value), expected)


def tangent(f, x, v):
    return make_jvp(f)(x)(v)[1]


# ---- sqrt and norm at 0: derivative 0


@on_backends
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_sqrt_at_zero_in_forward_mode_and_at_second_order(backend, dtype):
    x = backend.asarray([0.0, 4.0], dtype)
    assert_equal(backend, np.sqrt(x), [0.0, 2.0])
    assert_equal(backend, tangent(np.sqrt, x, backend.asarray([1.0, 1.0], dtype)), [0.0, 0.25])
    assert_equal(backend, elementwise_grad(elementwise_grad(np.sqrt))(x), [0.0, -1.0 / 32.0])


@on_backends
def test_power_one_half_is_not_sqrt_at_zero(backend):
    """``x ** 0.5`` follows ``power``'s rule, ``0.5 * x ** -0.5``: inf at 0, as in NumPy's value of the formula."""
    x = backend.asarray([0.0, 4.0])
    assert_equal(backend, elementwise_grad(lambda x: x**0.5)(x), [INF, 0.25])


@on_backends
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_zero_exponent_has_derivative_zero_at_zero(backend, dtype):
    """``x ** 0`` is the constant 1: its partial in ``x`` is exactly 0 at ``x = 0`` too (autograd's
    ``x ** where(y, y - 1, 1)``), so a polynomial ``sum(c * x ** arange(n))`` has its derivatives at 0."""
    c, powers = backend.asarray([1.0, 2.0, 3.0, 4.0], dtype), backend.asarray([0.0, 1.0, 2.0, 3.0], dtype)

    def polynomial(x):
        return np.sum(np.multiply(c, np.power(x, powers)))

    zero = backend.asarray(0.0, dtype)
    assert_equal(backend, grad(polynomial)(zero), 2.0)
    assert_equal(backend, grad(grad(polynomial))(zero), 6.0)
    assert_equal(backend, tangent(polynomial, zero, backend.asarray(1.0, dtype)), 2.0)
    assert_equal(backend, grad(lambda x: x**0.0)(zero), 0.0)
    assert_equal(backend, grad(grad(lambda x: x**1.0))(zero), 0.0)


@on_backends
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_norm_at_zero_in_forward_mode(backend, dtype):
    zero = backend.asarray([0.0, 0.0, 0.0], dtype)
    v = backend.asarray([1.0, -2.0, 2.0], dtype)
    for f in (np.linalg.norm, lambda x: np.sqrt(np.sum(x**2)), lambda x: np.linalg.norm(x, 1), lambda x: np.linalg.norm(x, INF)):
        value, t = make_jvp(f)(zero)(v)
        assert_equal(backend, value, 0.0)
        assert_equal(backend, t, 0.0)


# ---- log of 0 in a masked branch


def single_where(x):
    return np.where(x > 0.0, np.log(x), 0.0)


def double_where(x):
    positive = x > 0.0
    return np.where(positive, np.log(np.where(positive, x, 1.0)), 0.0)


@on_backends
def test_log_of_zero_in_a_masked_branch(backend):
    x = backend.asarray([0.0, 2.0])
    assert_equal(backend, single_where(x), [0.0, numpy.log(2.0)])
    # reverse mode: the unselected branch gets cotangent 0, and log's VJP gives 0 * (1 / 0) = NaN
    assert_equal(backend, grad(lambda x: np.sum(single_where(x)))(x), [numpy.nan, 0.5])
    # forward mode: log's tangent 1 / 0 = inf is made first, then where drops it
    assert_equal(backend, tangent(single_where, x, backend.asarray([1.0, 1.0])), [0.0, 0.5])
    # the double where keeps 0 out of log: 0 in both modes
    assert_equal(backend, double_where(x), [0.0, numpy.log(2.0)])
    assert_equal(backend, tangent(double_where, x, backend.asarray([1.0, 1.0])), [0.0, 0.5])


# ---- logsumexp and softmax with -inf entries and large logits


@on_backends
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_logsumexp_with_minus_infinity_entries(backend, dtype):
    x = backend.asarray([-INF, 0.0, numpy.log(3.0)], dtype)
    assert_equal(backend, logsumexp(x), numpy.asarray(numpy.log(4.0), dtype))
    expected = numpy.asarray([0.0, 0.25, 0.75], dtype)
    numpy.testing.assert_allclose(backend.to_numpy(grad(logsumexp)(x)), expected, rtol=1e-6)
    numpy.testing.assert_allclose(
        backend.to_numpy(tangent(logsumexp, x, backend.asarray([5.0, 1.0, 1.0], dtype))), 1.0, rtol=1e-6
    )


@on_backends
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_logsumexp_of_minus_infinity_only_has_derivative_zero(backend, dtype):
    x = backend.asarray([-INF, -INF], dtype)
    assert_equal(backend, logsumexp(x), -INF)
    g = grad(logsumexp)(x)
    assert g.dtype == x.dtype
    assert_equal(backend, g, [0.0, 0.0])
    assert_equal(backend, tangent(logsumexp, x, backend.asarray([1.0, 1.0], dtype)), 0.0)
    # per slice: a row of -inf among finite rows, and the sign of an empty sum
    rows = backend.asarray([[-INF, -INF], [0.0, 0.0]], dtype)
    assert_equal(backend, logsumexp(rows, axis=1), numpy.asarray([-INF, numpy.log(2.0)], dtype))
    assert_equal(backend, grad(lambda r: np.sum(logsumexp(r, axis=1, keepdims=True)))(rows), [[0.0, 0.0], [0.5, 0.5]])
    value, sign = logsumexp(x, return_sign=True)
    assert_equal(backend, value, -INF)
    assert_equal(backend, sign, 0.0)


@on_backends
def test_softmax_with_minus_infinity_entries(backend):
    x = backend.asarray([-INF, 0.0, 0.0])
    assert_equal(backend, softmax(x), [0.0, 0.5, 0.5])
    assert_equal(backend, grad(lambda x: softmax(x)[1])(x), [0.0, 0.25, -0.25])
    # a slice of -inf only has no distribution: 0 / 0 = NaN, as SciPy's softmax
    assert numpy.isnan(backend.to_numpy(softmax(backend.asarray([-INF, -INF])))).all()


@on_backends
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_large_logits(backend, dtype):
    x = backend.asarray([1e3, 0.0, -1e3], dtype)
    assert_equal(backend, softmax(x), numpy.asarray([1.0, 0.0, 0.0], dtype))
    assert_equal(backend, log_softmax(x), numpy.asarray([0.0, -1e3, -2e3], dtype))
    assert_equal(backend, logsumexp(backend.asarray([1e3, 1e3], dtype)), numpy.asarray(1e3 + numpy.log(2.0), dtype))
    # d softmax_0 / dx = s_0 (e_0 - s): all 0 for a one-hot s; d log_softmax_1 / dx = e_1 - s
    for g in (grad(lambda x: softmax(x)[0])(x), tangent(lambda x: softmax(x)[0], x, backend.asarray([1.0, 2.0, 3.0], dtype))):
        assert g.dtype == x.dtype
        assert_equal(backend, g, numpy.zeros_like(backend.to_numpy(g)))
    assert_equal(backend, grad(lambda x: log_softmax(x)[1])(x), numpy.asarray([-1.0, 1.0, 0.0], dtype))
    assert_equal(backend, grad(lambda x: logsumexp(x))(x), numpy.asarray([1.0, 0.0, 0.0], dtype))


# ---- arctan2 at the origin


@on_backends
def test_arctan2_at_the_origin(backend):
    zero, minus_zero = backend.asarray(0.0), backend.asarray(-0.0)
    assert_equal(backend, np.arctan2(zero, zero), 0.0)  # IEEE 754 / C99 atan2(+0, +0)
    assert_equal(backend, np.arctan2(zero, minus_zero), numpy.pi)
    # the angle is discontinuous there: x / (x^2 + y^2) and -y / (x^2 + y^2) are 0 / 0 = NaN in both modes
    for g in grad(np.arctan2, (0, 1))(zero, zero):
        assert_equal(backend, g, numpy.nan)
    assert_equal(backend, tangent(lambda y: np.arctan2(y, zero), zero, backend.asarray(1.0)), numpy.nan)
    # away from it, and with the origin kept out by a double where, the derivatives are finite
    y, x = backend.asarray([0.0, 1.0]), backend.asarray([0.0, 1.0])

    def safe_angle(y, x):
        origin = np.logical_and(y == 0.0, x == 0.0)
        return np.where(origin, 0.0, np.arctan2(np.where(origin, 1.0, y), x))

    gy, gx = grad(lambda y, x: np.sum(safe_angle(y, x)), (0, 1))(y, x)
    # (x / r) / r with r = hypot(x, y): within a rounding of 1/2 (and no overflow of x**2 + y**2)
    numpy.testing.assert_allclose(backend.to_numpy(gy), [0.0, 0.5], rtol=1e-15, atol=0)
    numpy.testing.assert_allclose(backend.to_numpy(gx), [0.0, -0.5], rtol=1e-15, atol=0)


# ---- Python numbers and arrays agree at the singular points


REAL_ELEMENTWISE = {spec.name: spec for spec in SPECS if spec.elementwise and len(spec.shapes) == 1 and spec.shapes[0] == ()}
REAL_ELEMENTWISE = {name: spec for name, spec in REAL_ELEMENTWISE.items() if spec.dtypes[0].startswith("float")}


@pytest.mark.parametrize("name", REAL_ELEMENTWISE)
def test_python_numbers_and_arrays_have_the_same_derivative(name):
    """At 0, -0, 1 and -1 (poles and branch points of the table's functions) a Python number gets
    what a 0-d array gets, inf and NaN included, never ``ZeroDivisionError``."""
    f = REAL_ELEMENTWISE[name].fun
    for point in (0.0, -0.0, 1.0, -1.0):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            expected = grad(f)(numpy.asarray(point))
            numpy.testing.assert_array_equal(grad(f)(point), expected, err_msg=f"{name} at {point}")
            numpy.testing.assert_array_equal(make_jvp(f)(point)(1.0)[1], expected, err_msg=f"{name} at {point}")

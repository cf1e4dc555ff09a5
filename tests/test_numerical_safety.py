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
from adcore import elementwise_grad, grad, hessian, hvp, make_jvp, vmap
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


# ---- float16: sums and counts accumulate in float32 (every backend with float16)

N16 = 80_000  # above 65504, float16's largest finite value, with the NaN left out too; and 2048 + 1 rounds to 2048


def alternating(n):
    """0, 2, 0, 2, ...: mean 1, variance 1."""
    return 2.0 * (numpy.arange(n) % 2)


def with_nan(n):
    """Ones with a NaN every 16 entries (75,000 entries of 80,000 are not NaN)."""
    x = numpy.ones(n)
    x[::16] = numpy.nan
    return x


def scaled_cumsum(x):
    """The cotangent of ``cumsum`` is ones on 3000 entries: its VJP accumulates past 2048."""
    return np.sum(np.cumsum(x * 1e-4)[:3000])


#: name -> (function, input): the float16 value and derivatives must be those computed in float64, rounded
FLOAT16_CASES = {
    "mean": (np.mean, numpy.ones(N16)),
    "var": (np.var, alternating(N16)),
    "std": (np.std, alternating(N16)),
    "average": (lambda x: np.average(x, weights=np.ones_like(x)), alternating(N16)),
    "nanmean": (np.nanmean, with_nan(N16)),
    "nanvar": (np.nanvar, numpy.where(numpy.isnan(with_nan(N16)), numpy.nan, alternating(N16))),
    "nanstd": (np.nanstd, numpy.where(numpy.isnan(with_nan(N16)), numpy.nan, alternating(N16))),
    "max_ties": (np.max, numpy.ones(N16)),
    "min_ties": (np.min, numpy.ones(N16)),
    "nanmax_ties": (np.nanmax, with_nan(N16)),
    "cumsum": (lambda x: np.cumsum(x)[60_000], numpy.ones(N16)),
    "cumsum_vjp": (scaled_cumsum, numpy.ones(N16)),
    "logsumexp": (logsumexp, numpy.zeros(N16)),
    "softmax": (lambda x: softmax(x)[0], numpy.zeros(N16)),
    "log_softmax": (lambda x: log_softmax(x)[0], numpy.zeros(N16)),
    "norm": (np.linalg.norm, numpy.ones(N16)),
    "sum_of_broadcast": (lambda w: np.sum(np.broadcast_to(w, (N16,)) * 0.25), numpy.asarray(1.0)),
}


@pytest.mark.parametrize("name", FLOAT16_CASES)
def test_float16_reductions_accumulate_in_float32(name, backend):
    """Above 65504 entries (float16's largest value) and past 2048 (where float16 stops counting by
    ones), a float16 reduction and its derivatives are the float64 results rounded to float16,
    not inf, NaN, 0 or a count stuck at 2048 (NumPy's own var, std and cumsum are)."""
    if backend.name == "array_api_strict":
        pytest.skip("array-api-strict has no float16")
    f, data = FLOAT16_CASES[name]
    x16, x64 = backend.asarray(data, "float16"), numpy.asarray(data, "float64")
    v = numpy.ones_like(data)
    results = {
        "value": (f(x16), f(x64)),
        "gradient": (grad(f)(x16), grad(f)(x64)),
        "tangent": (tangent(f, x16, backend.asarray(v, "float16")), tangent(f, x64, v)),
    }
    for what, (half, exact) in results.items():
        backend.check_device(half)
        half = backend.to_numpy(half)
        assert half.dtype == numpy.float16, f"{name}: the {what} is {half.dtype}, not float16"
        # float16 rounds to 11 bits (rtol 5e-4), and 1/80000 is a subnormal (spacing 6e-8)
        numpy.testing.assert_allclose(half.astype(float), exact, rtol=2e-3, atol=6e-8, err_msg=f"{name}: {what}")


# ---- NaN in nan* reductions and -inf in log-space sums: weight 0 (every backend)

Z = numpy.array([1.0, numpy.nan, 2.0, -0.5, numpy.nan, 3.0])
CLEAN = Z[~numpy.isnan(Z)]
ZEROED = numpy.nan_to_num(Z)

#: name -> (f(z, s) on the data with NaN, the same on the data without them[, those data if not CLEAN]):
#: the derivative in s is the one where the NaN entries were never there (or were the constant 0 or 1 of nancumsum, nancumprod)
NAN_CASES = {
    "nansum": (lambda z, s: np.nansum(np.multiply(z, s)), lambda c, s: np.sum(c * s)),
    "nanmean": (lambda z, s: np.nanmean(np.multiply(z, s)), lambda c, s: np.mean(c * s)),
    "nanvar": (lambda z, s: np.nanvar(np.multiply(z, s)), lambda c, s: np.var(c * s)),
    "nanstd": (lambda z, s: np.nanstd(np.multiply(z, s)), lambda c, s: np.std(c * s)),
    "nanprod": (lambda z, s: np.nanprod(np.multiply(z, s)), lambda c, s: np.prod(c * s)),
    "nanmax": (lambda z, s: np.nanmax(np.multiply(z, s)), lambda c, s: np.max(c * s)),
    "nanmin": (lambda z, s: np.nanmin(np.multiply(z, s)), lambda c, s: np.min(c * s)),
    "nanmedian": (lambda z, s: np.nanmedian(np.multiply(z, s)), lambda c, s: np.median(c * s)),
    "nanpercentile": (lambda z, s: np.nanpercentile(np.multiply(z, s), 30.0), lambda c, s: np.percentile(c * s, 30.0)),
    "nanquantile": (lambda z, s: np.nanquantile(np.multiply(z, s), 0.7), lambda c, s: np.quantile(c * s, 0.7)),
    "nancumsum": (lambda z, s: np.sum(np.nancumsum(np.multiply(z, s))), lambda c, s: np.sum(np.cumsum(c * s)), ZEROED),
    "nancumprod": (
        lambda z, s: np.sum(np.nancumprod(np.multiply(z, s))),
        lambda c, s: np.sum(np.cumprod(np.where(numpy.isnan(Z), 1.0, c * s))),  # a NaN entry is a constant 1
        ZEROED,
    ),
    "nansum_exp": (lambda z, s: np.nansum(np.exp(np.multiply(z, s))), lambda c, s: np.sum(np.exp(c * s))),
    "nanmean_divide": (lambda z, s: np.nanmean(np.divide(z, s)), lambda c, s: np.mean(c / s)),
    "nanmean_data_divided": (lambda z, s: np.nanmean(np.divide(s, np.add(z, 2.0))), lambda c, s: np.mean(s / (c + 2.0))),
}

INF = numpy.inf
LOG_WEIGHTS = [-INF, 0.0, numpy.log(3.0)]  # log-space weights, one of them log 0
#: name -> (f(t, w, k) with w the log-space weights and k = [0, 1, 2], the derivative in t at 0): -inf is
#: log 0, an entry of weight 0 whose derivative is 0
MINUS_INF_CASES = {
    "logaddexp_both": (lambda t, w, k: np.logaddexp(w[0], t - INF), 0.0),
    "logaddexp_one": (lambda t, w, k: np.logaddexp(w[0], t), 1.0),
    "logaddexp_self": (lambda t, w, k: np.logaddexp(t - INF, t - INF), 0.0),
    "logaddexp2_both": (lambda t, w, k: np.logaddexp2(w[0], t - INF), 0.0),
    "logaddexp2_one": (lambda t, w, k: np.logaddexp2(t, w[0]), 1.0),
    "logsumexp_all": (lambda t, w, k: logsumexp(np.add(w[:1], t)), 0.0),
    "logsumexp_some": (lambda t, w, k: logsumexp(np.add(w, np.multiply(t, k))), 0.25 * 1.0 + 0.75 * 2.0),
    "softmax": (lambda t, w, k: softmax(np.add(w, np.multiply(t, k)))[1], 0.25 * (1.0 - 1.75)),
    "log_softmax": (lambda t, w, k: log_softmax(np.add(w, np.multiply(t, k)))[1], 1.0 - 1.75),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", NAN_CASES)
def test_nan_reductions_ignore_nan_data_in_both_modes(name, dtype, backend):
    """``grad(lambda s: np.nansum(z * s))`` with NaN in ``z`` is the derivative over the other entries
    (a masked NaN times its zero cotangent contributes 0), in reverse and forward mode."""
    masked, plain, *data = NAN_CASES[name]
    z = backend.asarray(Z, dtype)
    clean = numpy.asarray(data[0] if data else CLEAN, dtype)
    s, one = backend.asarray(1.5, dtype), backend.asarray(1.0, dtype)
    expected = grad(lambda s: plain(clean, s))(numpy.asarray(1.5, dtype))
    for what, value in (("reverse", grad(lambda s: masked(z, s))(s)), ("forward", tangent(lambda s: masked(z, s), s, one))):
        backend.check_device(value)
        numpy.testing.assert_allclose(backend.to_numpy(value), expected, rtol=1e-5 if dtype == "float32" else 1e-12, err_msg=what)


#: name -> (f(z, s), the same without the NaN entries): second derivatives, with a nonlinear function of the data
SECOND_ORDER_NAN_CASES = {
    **{name: NAN_CASES[name][:2] for name in ("nansum", "nanmean", "nanvar", "nanprod", "nansum_exp", "nanmean_divide")},
    "nansum_tanh": (lambda z, s: np.nansum(np.tanh(np.multiply(z, s))), lambda c, s: np.sum(np.tanh(c * s))),
    "nansum_sin_squared": (lambda z, s: np.nansum(np.sin(np.multiply(z, s)) ** 2), lambda c, s: np.sum(np.sin(c * s) ** 2)),
    "where_log": (
        lambda z, s: np.sum(np.where(np.isnan(z), 0.0, np.log(np.multiply(np.abs(z), s) + 1.0))),
        lambda c, s: np.sum(np.log(np.abs(c) * s + 1.0)),
    ),
}


@pytest.mark.parametrize("name", SECOND_ORDER_NAN_CASES)
def test_nan_data_masked_out_stays_out_of_second_derivatives(name, backend):
    """A NaN of data that a ``nan*`` reduction or a ``where`` masks out contributes nothing to second derivatives
    either, in every nesting (reverse over reverse, forward over reverse, reverse over forward): the derivative of
    the chain rule's masked product 0 * NaN is 0, not the NaN partial (``grad(grad(...))`` of ``nansum(tanh(z * s))``
    was NaN)."""
    masked, plain = SECOND_ORDER_NAN_CASES[name]
    z, s = backend.asarray(Z), backend.asarray(1.5)
    f = lambda s: masked(z, s)  # noqa: E731
    expected = grad(grad(lambda s: plain(CLEAN, s)))(numpy.asarray(1.5))
    results = {"grad of grad": grad(grad(f))(s), "hvp": hvp(f)(s, backend.asarray(1.0)), "hessian": hessian(f)(s)}
    for what, value in results.items():
        backend.check_device(value)
        numpy.testing.assert_allclose(backend.to_numpy(value), expected, rtol=1e-10, err_msg=what)


@pytest.mark.parametrize("name", SECOND_ORDER_NAN_CASES)
def test_nan_data_masked_out_stays_out_of_batched_second_derivatives(name, backend):
    """The same under ``adcore.vmap``, over a batch of ``s``: a partial that is a batch of values is asked whether
    it may hold a NaN as its batch's array (``backends.array_under``), so the masked product is made where an
    example needs it, and each example's second derivative is the loop's."""
    masked, plain = SECOND_ORDER_NAN_CASES[name]
    z, batch, one = backend.asarray(Z), backend.asarray([0.5, 1.5, 2.5]), backend.asarray(1.0)
    f = lambda s: masked(z, s)  # noqa: E731
    expected = [grad(grad(lambda s: plain(CLEAN, s)))(numpy.asarray(s)) for s in (0.5, 1.5, 2.5)]
    operators = {"grad of grad": grad(grad(f)), "hvp": lambda s: hvp(f)(s, one)}
    for what, operator in operators.items():
        value = vmap(operator)(batch)
        backend.check_device(value)
        numpy.testing.assert_allclose(backend.to_numpy(value), expected, rtol=1e-10, err_msg=what)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", MINUS_INF_CASES)
def test_minus_infinity_has_weight_zero_in_log_space_sums(name, dtype, backend):
    """``grad(lambda t: np.logaddexp(-inf, t - inf))`` is 0, not NaN: -inf is log 0, as in ``logsumexp``."""
    f, expected = MINUS_INF_CASES[name]
    w, k = backend.asarray(LOG_WEIGHTS, dtype), backend.asarray([0.0, 1.0, 2.0], dtype)
    t, one = backend.asarray(0.0, dtype), backend.asarray(1.0, dtype)
    for what, value in (("reverse", grad(f)(t, w, k)), ("forward", tangent(lambda t: f(t, w, k), t, one))):
        backend.check_device(value)
        numpy.testing.assert_allclose(backend.to_numpy(value), expected, rtol=1e-5 if dtype == "float32" else 1e-12, err_msg=what)

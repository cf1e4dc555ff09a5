"""``adcore.scipy.stats`` against finite differences and ``scipy.stats``.

Each function of each distribution is one spec, differentiated in the data and
every parameter with a closed-form derivative (both modes, order 2, float64 and
float32); parameters without one are held constant with ``full_like``. The
distributions built from the standard's operations (``expon``, ``laplace``,
``cauchy``, ``logistic``, ``uniform``, ``multivariate_normal``, and ``norm``'s
density) also run on array-api-strict, on both its devices; the others need
SciPy's special functions and are skipped there.
"""

import inspect

import mpmath
import numpy
import pytest
import scipy.stats

import adcore.numpy as np
from adcore import grad
from adcore.scipy import special
from adcore.test_util import check_grads
from adcore.scipy import stats
from specs import OTHER_BACKENDS, SCIPY_BACKENDS, P, R, Spec, spec_tests

UNIT = (0.1, 0.9)
SHAPES = ((2, 3), (3,), ())  # data, and parameters broadcasting against it
FUNCTIONS = ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")
#: distribution -> its functions that run on backends without SciPy's special functions
EVERYWHERE = {
    "norm": ("logpdf", "pdf"),
    "expon": FUNCTIONS,
    "laplace": FUNCTIONS,
    "cauchy": FUNCTIONS,
    "logistic": FUNCTIONS,
    "uniform": FUNCTIONS,
    "multivariate_normal": ("logpdf", "pdf", "entropy"),
}


def spec(distribution, function, fun, shapes, domains, suffix=""):
    everywhere = function in EVERYWHERE.get(distribution, ())
    skip = {} if everywhere else {b: f"{distribution}.{function} needs SciPy's special functions" for b in OTHER_BACKENDS}
    return Spec(f"{distribution}.{function}{suffix}", fun, shapes, domains, skip=skip)


def const(x, value):
    """An untraced array of ``value`` like ``x`` (a parameter held constant)."""
    return np.full_like(x, value)


def location_scale(distribution, domains=(R, R, P)):
    """Every function of a location-scale family, in ``x``, ``loc`` and ``scale``."""
    module = getattr(stats, distribution)
    return [spec(distribution, f, getattr(module, f), SHAPES, domains) for f in FUNCTIONS]


def spd(x):
    return np.matmul(x, np.matrix_transpose(x)) + float(x.shape[-1]) * np.eye_like(x)


SPECS = [
    *location_scale("norm"),
    *location_scale("expon", ((1.0, 3.0), (-0.5, 0.5), P)),
    *location_scale("laplace"),
    *location_scale("cauchy"),
    *location_scale("logistic"),
    *location_scale("uniform", ((0.3, 0.7), (-0.2, 0.2), (1.0, 1.5))),
    # t, gamma, chi2, beta: densities in every argument, distribution functions with the shape parameters held constant
    *[spec("t", f, getattr(stats.t, f), ((2, 3), (3,), (3,), ()), (R, (1.5, 5.0), R, P)) for f in ("logpdf", "pdf")],
    *[
        spec("t", f, lambda x, loc, scale, f=f: getattr(stats.t, f)(x, const(x, 3.5), loc, scale), SHAPES, (R, R, P))
        for f in ("cdf", "logcdf", "sf", "logsf")
    ],
    *[
        spec(name, f, getattr(getattr(stats, name), f), ((2, 3), (3,), (3,), ()), ((1.0, 3.0), (0.5, 3.0), (-0.5, 0.5), P))
        for name in ("gamma", "chi2")
        for f in ("logpdf", "pdf")
    ],
    *[
        spec(
            name,
            f,
            lambda x, loc, scale, name=name, f=f: getattr(getattr(stats, name), f)(x, const(x, 1.7), loc, scale),
            SHAPES,
            ((1.0, 3.0), (-0.5, 0.5), P),
        )
        for name in ("gamma", "chi2")
        for f in ("cdf", "logcdf", "sf", "logsf")
    ],
    *[spec("beta", f, getattr(stats.beta, f), ((2, 3), (3,), ()), (UNIT, (0.5, 3.0), (0.5, 3.0))) for f in ("logpdf", "pdf")],
    spec("beta", "logpdf", stats.beta.logpdf, ((3,), (), (), (), ()), ((0.3, 0.6), P, P, (-0.2, 0.1), (1.2, 1.5)), "_loc_scale"),
    *[
        spec(
            "beta",
            f,
            lambda x, loc, scale, f=f: getattr(stats.beta, f)(x, const(x, 1.5), const(x, 2.5), loc, scale),
            SHAPES[:1] * 3,
            ((0.3, 0.6), (-0.2, 0.1), (1.2, 1.5)),
        )
        for f in ("cdf", "logcdf", "sf", "logsf")
    ],
    # poisson: the count k = floor(5 u) is a constant (derivative 0), mu is differentiated
    *[
        spec("poisson", f, lambda u, mu, f=f: getattr(stats.poisson, f)(np.floor(5.0 * u), mu), ((2, 3), (3,)), (UNIT, P))
        for f in ("logpmf", "pmf", "cdf", "logcdf", "sf", "logsf")
    ],
    # dirichlet: points on the simplex (components along the first axis), or K - 1 of them
    *[
        spec(
            "dirichlet",
            f,
            lambda x, alpha, f=f: getattr(stats.dirichlet, f)(x / np.sum(x, axis=0), alpha),
            ((3, 2), (3,)),
            (P, P),
        )
        for f in ("logpdf", "pdf")
    ],
    spec("dirichlet", "logpdf", lambda x, alpha: stats.dirichlet.logpdf(x * 0.3, alpha), ((2,), (3,)), (P, P), "_k_minus_1"),
    # multivariate normal: a symmetric positive-definite covariance built from any square matrix
    *[
        spec(
            "multivariate_normal",
            f,
            lambda x, m, c, f=f: getattr(stats.multivariate_normal, f)(x, m, spd(c)),
            ((4, 3), (3,), (3, 3)),
            (R, R, R),
        )
        for f in ("logpdf", "pdf")
    ],
    spec(
        "multivariate_normal",
        "logpdf",
        lambda x, m, c: stats.multivariate_normal.logpdf(x, m, c),
        ((3,), (3,), (3,)),
        (R, R, P),
        "_diagonal",
    ),
    spec("multivariate_normal", "logpdf", lambda x, c: stats.multivariate_normal.logpdf(x, cov=c), ((5,), ()), (R, P), "_scalar"),
    spec("multivariate_normal", "entropy", lambda c: stats.multivariate_normal.entropy(cov=spd(c)), ((3, 3),), (R,)),
    spec("multivariate_normal", "logpdf", lambda z, m: singular_logpdf(z, m), ((2,), (3,)), (R, R), "_singular"),
]


def singular_logpdf(z, m):
    """The density of rank 2 in 3 dimensions (``allow_singular``) at ``m + B z``, a point of its support."""
    b = np.eye_like(m)[:, :2] + 0.5
    return stats.multivariate_normal.logpdf(
        np.add(m, np.matmul(b, z)), m, np.matmul(b, np.matrix_transpose(b)), allow_singular=True
    )


test_derivatives, test_value_matches_numpy = spec_tests(SPECS)


# ---- values and dtypes against scipy.stats ----

_RNG = numpy.random.default_rng(5)


def _draw(low, high, shape=(5,)):
    return _RNG.uniform(low, high, size=shape)


_X = numpy.array([-50.0, -3.0, -0.5, 0.0, 0.7, 2.0, 40.0])
_POSITIVE = numpy.array([0.0, 1e-3, 0.4, 1.0, 3.0, 25.0])

#: (distribution, function) -> arguments (the same for adcore and SciPy)
VALUE_CASES = {
    **{("norm", f): [_X, 0.3, 1.7] for f in FUNCTIONS},
    **{("t", f): [_X, numpy.array([0.7, 1.0, 2.5, 4.0, 30.0, 3.0, 1.5]), 0.2, 1.3] for f in FUNCTIONS},
    **{("gamma", f): [_POSITIVE - 0.1, numpy.array([0.5, 1.0, 1.5, 2.5, 4.0, 9.0]), 0.0, 1.2] for f in FUNCTIONS},
    **{("chi2", f): [_POSITIVE, 3.0, -0.1, 1.1] for f in FUNCTIONS},
    **{("beta", f): [numpy.array([-0.1, 0.0, 0.05, 0.5, 0.97, 1.0, 1.2]), 1.5, 2.5] for f in FUNCTIONS},
    **{("beta", f + "_shapes"): [numpy.array([0.2, 0.5, 0.8]), numpy.array([0.5, 1.0, 3.0]), 0.8, 0.1, 1.1] for f in FUNCTIONS},
    **{("expon", f): [_X, 0.2, 1.5] for f in FUNCTIONS},
    **{("laplace", f): [_X, 0.2, 1.5] for f in FUNCTIONS},
    **{("cauchy", f): [_X, 0.2, 1.5] for f in FUNCTIONS},
    **{("logistic", f): [_X, 0.2, 1.5] for f in FUNCTIONS},
    **{("uniform", f): [numpy.array([-1.0, 0.0, 0.3, 1.0, 2.0, 3.5]), 0.0, 2.0] for f in FUNCTIONS},
    **{
        ("poisson", f): [numpy.array([-1.0, 0.0, 1.0, 2.5, 3.0, 12.0]), 2.5]
        for f in ("logpmf", "pmf", "cdf", "logcdf", "sf", "logsf")
    },
    ("poisson", "pmf_loc"): [numpy.array([1.0, 2.0, 5.0]), numpy.array([0.5, 2.0, 0.0]), 1.0],
    ("dirichlet", "logpdf"): [numpy.array([[0.2, 0.5], [0.3, 0.1], [0.5, 0.4]]), numpy.array([1.5, 0.7, 2.0])],
    ("dirichlet", "pdf"): [numpy.array([0.2, 0.3, 0.5]), numpy.array([1.5, 0.7, 2.0])],
    ("multivariate_normal", "logpdf"): [
        _draw(-1.0, 1.0, (4, 3)),
        numpy.array([0.1, -0.2, 0.3]),
        numpy.array([[2.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 1.5]]),
    ],
    ("multivariate_normal", "pdf"): [_draw(-1.0, 1.0, (3,)), numpy.array([0.1, -0.2, 0.3]), numpy.array([0.5, 1.0, 2.0])],
    ("multivariate_normal", "logpdf_1d"): [_draw(-1.0, 1.0, (4,)), 0.3, 2.0],
    ("multivariate_normal", "entropy"): [numpy.array([0.1, -0.2]), numpy.array([[2.0, 0.3], [0.3, 1.0]])],
}


def _runs_here(distribution, function, backend):
    return backend.name in SCIPY_BACKENDS or function.split("_")[0] in EVERYWHERE.get(distribution, ())


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("case", list(VALUE_CASES), ids=lambda c: f"{c[0]}.{c[1]}")
def test_values_match_scipy(case, backend):
    """Float64 values equal scipy.stats' (to rounding) on the input's backend and device, NaN and
    infinities included."""
    distribution, function = case
    if not _runs_here(distribution, function, backend):
        pytest.skip(f"{distribution}.{function} needs SciPy's special functions")
    name = function.split("_")[0]
    args = VALUE_CASES[case]
    ours = getattr(getattr(stats, distribution), name)(*[backend.asarray(a) if isinstance(a, numpy.ndarray) else a for a in args])
    if (distribution, name) in OLD_SCIPY_TAILS and _scipy_version() < (1, 15):
        with mpmath.workdps(50):
            theirs = numpy.array([float(OLD_SCIPY_TAILS[distribution, name](*_scalars(args, i))) for i in range(len(args[0]))])
    else:
        theirs = getattr(getattr(scipy.stats, distribution), name)(*args)
    backend.check_device(ours)
    numpy.testing.assert_allclose(backend.to_numpy(ours), theirs, rtol=1e-10, atol=1e-300)


def _scipy_version():
    return tuple(int(part) for part in scipy.__version__.split(".")[:2])


def _scalars(args, i):
    return [a[i] if isinstance(a, numpy.ndarray) else a for a in args]


def _expon_logcdf(x, loc, scale):
    z = (mpmath.mpf(x) - loc) / scale
    return mpmath.log(-mpmath.expm1(-z)) if z > 0 else -mpmath.inf


def _laplace_logcdf(x, loc, scale):
    z = (mpmath.mpf(x) - loc) / scale
    return z - mpmath.log(2) if z < 0 else mpmath.log1p(-mpmath.exp(-z) / 2)


#: (distribution, function) -> its mpmath value (50 digits), the reference where SciPy < 1.15 loses the tail
#: (its log(-expm1(-z)) and log1p(-exp(-z)/2) forms round 1 - 1e-12 first: relative errors up to 1e-2 in the
#: last entries, where adcore is right to 1e-15)
OLD_SCIPY_TAILS = {
    ("expon", "logcdf"): _expon_logcdf,
    ("laplace", "logcdf"): _laplace_logcdf,
    ("laplace", "logsf"): lambda x, loc, scale: _laplace_logcdf(2 * loc - x, loc, scale),
}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("case", list(VALUE_CASES), ids=lambda c: f"{c[0]}.{c[1]}")
def test_float32_in_float32_out(case, backend):
    """float32 data with Python-scalar parameters gives float32 (scalars do not widen it)."""
    distribution, function = case
    if not _runs_here(distribution, function, backend):
        pytest.skip(f"{distribution}.{function} needs SciPy's special functions")
    name = function.split("_")[0]
    args = VALUE_CASES[case]
    ours = getattr(getattr(stats, distribution), name)(
        *[backend.asarray(a, "float32") if isinstance(a, numpy.ndarray) else a for a in args]
    )
    assert str(ours.dtype).endswith("float32"), f"{distribution}.{function}: float32 in gave {ours.dtype}"


# ---- derivatives that are not implemented, and conventions ----


@pytest.mark.parametrize(
    "fun, args, argnum",
    [
        (stats.beta.cdf, (0.3, 1.5, 2.5), 1),
        (stats.beta.sf, (0.3, 1.5, 2.5), 2),
        (stats.beta.logcdf, (0.93, 40.0, 3.5), 1),
        (stats.beta.logsf, (0.02, 0.3, 25.0), 2),
        (stats.t.cdf, (0.3, 3.0), 1),
        (stats.t.sf, (2.5, 0.7), 1),
        (stats.t.logcdf, (-6.0, 12.0), 1),
        (stats.t.logsf, (-1.2, 150.0), 1),
    ],
)
def test_beta_and_t_distribution_functions_are_differentiable_in_the_shapes(fun, args, argnum):
    """beta's ``a`` and ``b`` and t's ``df`` (they raised ``NotImplementedError``), through ``special.betainc``:
    both modes against finite differences, at a point and its neighbour, with loc and scale."""
    x, *shapes = args

    def at(shape):
        values = [*shapes]
        values[argnum - 1] = shape
        return fun(x, *values, 0.01, 1.02)

    check_grads(at, modes=("fwd", "rev"), order=1)(numpy.array([args[argnum], args[argnum] * 1.1]))


def test_t_cdf_derivative_in_df_matches_mpmath():
    """d/d(df) of F(t) = 1 - I_(df/(df+t²))(df/2, 1/2) / 2 (t > 0, A&S 26.7.1) by mpmath at 50 digits: an
    independent form of the one adcore differentiates."""
    mpmath = pytest.importorskip("mpmath")
    with mpmath.workdps(50):
        for t, df in ((0.3, 3.0), (2.5, 0.7), (4.0, 60.0)):
            exact = mpmath.diff(lambda v: 1 - mpmath.betainc(v / 2, 0.5, 0, v / (v + t**2), regularized=True) / 2, df)
            numpy.testing.assert_allclose(grad(stats.t.cdf, 1)(t, df), float(exact), rtol=1e-10)


@pytest.mark.parametrize(
    "fun, x, shape",
    [
        (stats.gamma.cdf, 0.3, 1.5),
        (stats.gamma.sf, 4.0, 1.5),
        (stats.gamma.logcdf, 30.0, 25.0),
        (stats.gamma.logsf, 0.2, 0.05),
        (stats.chi2.cdf, 0.3, 2.0),
        (stats.chi2.sf, 12.0, 3.5),
    ],
)
def test_gamma_and_chi2_distribution_functions_are_differentiable_in_the_shape(fun, x, shape):
    """gamma's ``a`` and chi2's ``df`` (they raised ``NotImplementedError``): both modes against finite
    differences, and chi2.cdf in ``df`` is half gammainc's derivative in ``a`` at (df / 2, x / 2)."""
    check_grads(lambda s: fun(x, s, 0.1, 1.3), modes=("fwd", "rev"), order=1)(numpy.array([shape, shape * 1.1]))
    if fun is stats.chi2.cdf:
        expected = 0.5 * grad(special.gammainc, 0)(shape / 2, x / 2)
        numpy.testing.assert_allclose(grad(fun, 1)(x, shape), expected, rtol=1e-13)


def test_t_cdf_derivative_at_the_centre_is_the_density():
    """The betainc form used is smooth at x = loc, where A&S's form has a 0 * inf."""
    numpy.testing.assert_allclose(grad(stats.t.cdf)(0.0, 3.0), scipy.stats.t.pdf(0.0, 3.0), rtol=1e-12)
    numpy.testing.assert_allclose(grad(stats.t.sf)(0.0, 3.0), -scipy.stats.t.pdf(0.0, 3.0), rtol=1e-12)


def test_parameter_gradients_match_closed_forms():
    x, loc, scale = 0.7, 0.2, 1.3
    z = (x - loc) / scale
    numpy.testing.assert_allclose(grad(stats.norm.logpdf, 2)(x, loc, scale), (z**2 - 1.0) / scale, rtol=1e-12)
    numpy.testing.assert_allclose(grad(stats.poisson.logpmf, 1)(3.0, 2.5), 3.0 / 2.5 - 1.0, rtol=1e-12)
    numpy.testing.assert_allclose(grad(stats.poisson.cdf, 1)(3.0, 2.5), -scipy.stats.poisson.pmf(3, 2.5), rtol=1e-12)
    assert grad(stats.poisson.logpmf, 0)(3.0, 2.5) == 0.0


def test_multivariate_normal_covariance_gradient_is_autograds_symmetric_one():
    x, mean = numpy.array([0.3, -0.4]), numpy.array([0.1, 0.2])
    cov = numpy.array([[2.0, 0.3], [0.3, 1.0]])
    inverse = numpy.linalg.inv(cov)
    solved = inverse @ (x - mean)
    expected = 0.5 * (numpy.outer(solved, solved) - inverse)
    numpy.testing.assert_allclose(grad(stats.multivariate_normal.logpdf, 2)(x, mean, cov), expected, rtol=1e-12)


@pytest.mark.parametrize(
    "cov",
    [numpy.diag([1.0, 2.0, 0.0, 0.0]), numpy.array([[2.0, 1.0, 3.0], [1.0, 2.0, 3.0], [3.0, 3.0, 6.0]]), numpy.eye(2)],
    ids=["diagonal", "rank2", "regular"],
)
def test_multivariate_normal_allow_singular_matches_scipy(cov):
    """SciPy's pseudo-determinant and pseudo-inverse, at points of the support."""
    rng = numpy.random.default_rng(3)
    mean = rng.standard_normal(len(cov))
    w, v = numpy.linalg.eigh(cov)
    points = mean + rng.standard_normal((4, len(cov))) @ (v * (w > 1e-9)).T  # in the span of cov
    expected = scipy.stats.multivariate_normal.logpdf(points, mean, cov, allow_singular=True)
    result = stats.multivariate_normal.logpdf(points, mean, cov, allow_singular=True)
    numpy.testing.assert_allclose(result, expected, rtol=1e-10)
    numpy.testing.assert_allclose(
        stats.multivariate_normal.pdf(points[0], mean, cov, allow_singular=True), numpy.exp(expected[0])
    )


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_invalid_arguments():
    assert numpy.isnan(stats.norm.logpdf(0.3, 0.0, -1.0))
    assert numpy.isnan(stats.gamma.cdf(numpy.array([0.3]), numpy.array([-1.0]))).all()
    with pytest.raises(ValueError, match="dirichlet.logpdf: x must have 3 or 2 entries"):
        stats.dirichlet.logpdf(numpy.ones(4) / 4, numpy.ones(3))


@pytest.mark.parametrize(
    "distribution", ["norm", "laplace", "logistic", "cauchy", "expon", "uniform", "t", "gamma", "beta", "chi2"]
)
def test_arguments_by_position_and_keyword_agree(distribution):
    """The functions made by the location-scale factory take their arguments as SciPy's do: by position
    or keyword, loc 0 and scale 1 by default, and refuse what Python refuses, naming the function."""
    module = getattr(stats, distribution)
    shapes = {"t": {"df": 3.5}, "gamma": {"a": 1.7}, "beta": {"a": 1.5, "b": 2.5}, "chi2": {"df": 2.6}}.get(distribution, {})
    x = numpy.array([0.15, 0.4, 0.9])
    for name in FUNCTIONS:
        fun = getattr(module, name)
        assert list(inspect.signature(fun).parameters) == ["x", *shapes, "loc", "scale"]
        expected = fun(x, *shapes.values(), 0.0, 1.0)
        for args, kwargs in [((x, *shapes.values()), {}), ((x,), {**shapes, "scale": 1.0}), ((), {"x": x, **shapes, "loc": 0.0})]:
            numpy.testing.assert_array_equal(fun(*args, **kwargs), expected)
        shifted = fun(x, *shapes.values(), 0.05, 1.3)
        numpy.testing.assert_array_equal(fun(x, *shapes.values(), scale=1.3, loc=0.05), shifted)
        numpy.testing.assert_array_equal(fun(x, *shapes.values(), 0.05, scale=1.3), shifted)
        given = (x, *shapes.values())
        refused = [((), {}), ((*given, 0.0, 1.0, 2.0), {}), (given, {"x": x}), (given, {"size": 3}), ((), {"loc": 0.0})]
        for args, kwargs in refused + ([((x,), {}), ((x,), {"scale": 1.3})] if shapes else []):
            with pytest.raises(TypeError, match=rf"\b{name}\(\)"):
                fun(*args, **kwargs)

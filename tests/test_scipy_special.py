"""``adcore.scipy.special`` against finite differences and SciPy.

The spec table checks each function in both modes to order 2, in float64 and
float32, on every backend that can compute it: SciPy's functions run on numpy
(and cupy); on array-api-strict only the functions built from the standard's
operations run, the others are skipped there (and checked to raise instead of
copying to the host). Arguments without a closed-form derivative (orders of Bessel functions) and those
differentiable to first order only (the shapes of ``betainc``, ``gammainc`` and their inverses, checked
below in their own tests) are held constant with
``full_like``, which makes an untraced array on the input's backend and device.
"""

import subprocess
import sys

import numpy
import pytest
import scipy.special

import adcore.numpy as np
import adcore.scipy.special as special
from adcore import grad, hessian, make_jvp
from adcore.test_util import check_grads
from specs import OTHER_BACKENDS, SCIPY_BACKENDS, P, R, Spec, U, spec_tests

#: the functions that backends without SciPy's (array-api-strict) compute from the standard's operations
STANDARD = {
    "expit",
    "log_expit",
    "logit",
    "xlogy",
    "xlog1py",
    "rel_entr",
    "kl_div",
    "entr",
    "logsumexp",
    "softmax",
    "log_softmax",
}
UNIT = (0.1, 0.9)
#: SciPy's functions that cupyx.scipy.special has not (adcore's cupy backend raises NotImplementedError for them)
NOT_IN_CUPYX = {"betaincc", "betainccinv"}


def without_scipy(name):
    """The skip entries of a function that needs SciPy's special functions (none if the standard's operations do)."""
    if name in STANDARD:
        return {}
    skip = {b: f"the Array API standard has no {name}, and adcore's {b} backend has no scipy.special" for b in OTHER_BACKENDS}
    if name in NOT_IN_CUPYX:
        skip["cupy"] = f"cupyx.scipy.special has no {name}"
    return skip


def spec(name, fun, shapes, domains=(R, R, R), **options):
    function = name.split("(")[0].split("_axis")[0]
    return Spec(name, fun, shapes, domains, skip=without_scipy(function), **options)


def unary(name, domain, shapes=((3,), (2, 3))):
    fun = getattr(special, name)
    return [spec(f"{name}{shape}", fun, (shape,), (domain,)) for shape in shapes]


def binary(name, domains, pairs=(((3,), (3,)), ((2, 1), (3,)), ((), (2,)))):
    fun = getattr(special, name)
    return [spec(f"{name}{a}{b}", fun, (a, b), domains) for a, b in pairs]


def const(x, value):
    """An untraced array of ``value`` like ``x`` (a parameter held constant)."""
    return np.full_like(x, value)


SPECS = [
    # gamma and related functions
    *unary("gamma", P),
    spec("gamma_negative", special.gamma, ((3,),), ((-0.8, -0.2),)),
    *unary("gammaln", P),
    spec("gammaln_negative", special.gammaln, ((3,),), ((-1.8, -1.2),)),
    *unary("digamma", P),
    *unary("psi", P, shapes=((3,),)),
    spec("polygamma_1", lambda x: special.polygamma(1, x), ((3,),), (P,)),
    spec("polygamma_3", lambda x: special.polygamma(3, x), ((2, 3),), (P,)),
    spec("polygamma_int_array", lambda x: special.polygamma(np.astype(const(x, 2.0), np.int64), x), ((3,),), (P,)),
    *unary("rgamma", P),
    spec("multigammaln", lambda a: special.multigammaln(a, 3), ((2, 3),), ((1.2, 3.0),)),
    *binary("beta", (P, P)),
    *binary("betaln", (P, P)),
    spec("betainc", lambda x: special.betainc(const(x, 1.5), const(x, 2.5), x), ((2, 3),), (UNIT,)),
    spec("betainc_small_a", lambda x: special.betainc(const(x, 0.7), const(x, 1.0), x), ((3,),), (UNIT,)),
    spec("betaincc", lambda x: special.betaincc(const(x, 1.5), const(x, 2.5), x), ((3,),), (UNIT,)),
    spec("betaincinv", lambda y: special.betaincinv(const(y, 1.5), const(y, 2.5), y), ((2, 3),), (UNIT,)),
    spec("betainccinv", lambda y: special.betainccinv(const(y, 0.7), const(y, 3.0), y), ((3,),), (UNIT,)),
    spec("gammaincinv", lambda y: special.gammaincinv(const(y, 1.5), y), ((2, 3),), (UNIT,)),
    spec("gammainccinv", lambda y: special.gammainccinv(const(y, 0.7), y), ((3,),), (UNIT,)),
    spec("gammainc", lambda x: special.gammainc(const(x, 1.5), x), ((2, 3),), (P,)),
    spec("gammainc_scalar_a", lambda x: special.gammainc(0.7, x), ((3,),), (P,)),
    spec("gammaincc", lambda x: special.gammaincc(const(x, 2.5), x), ((2, 3),), (P,)),
    # error functions
    *unary("erf", R),
    *unary("erfc", R),
    *unary("erfinv", U),
    *unary("erfcinv", (0.2, 1.8)),
    *unary("ndtr", R),
    *unary("log_ndtr", (-6.0, 2.0)),
    *unary("ndtri", UNIT),
    *unary("erfcx", R),
    spec("erfcx_tail", special.erfcx, ((3,),), ((11.0, 14.0),)),  # across the switch to the asymptotic series
    # exponential integrals, Wright's omega
    *unary("exp1", P),
    *unary("expi", P),
    spec("expi_negative", special.expi, ((3,),), ((-2.0, -0.2),)),
    *unary("wrightomega", R),
    # Bessel functions
    *unary("j0", R),
    *unary("j1", R),
    *unary("y0", P),
    *unary("y1", P),
    spec("jn_2", lambda x: special.jn(2, x), ((2, 3),), (R,)),
    spec("jn_real_order", lambda x: special.jn(1.5, x), ((3,),), (P,)),
    spec("yn_3", lambda x: special.yn(3, x), ((3,),), ((0.5, 2.0),)),
    *unary("i0", R),
    *unary("i1", R),
    spec("iv_2", lambda x: special.iv(2, x), ((2, 3),), (R,)),
    spec("iv_real_order", lambda x: special.iv(1.5, x), ((3,),), (P,)),
    spec("ive_1", lambda x: special.ive(1, x), ((2, 3),), (R,)),
    spec("ive_real_order", lambda x: special.ive(0.5, x), ((3,),), (P,)),
    *unary("i0e", R),
    *unary("i1e", R),
    spec("kv_1", lambda x: special.kv(1, x), ((2, 3),), (P,)),
    spec("kv_real_order", lambda x: special.kv(0.3, x), ((3,),), (P,)),
    spec("kve_0", lambda x: special.kve(0, x), ((2, 3),), (P,)),
    spec("kve_real_order", lambda x: special.kve(2.5, x), ((3,),), (P,)),
    # logistic functions, x log y, entropies (on every backend)
    *unary("expit", R),
    *unary("log_expit", R),
    *unary("logit", UNIT),
    *binary("xlogy", (R, P)),
    *binary("xlog1py", (R, U)),
    *binary("rel_entr", (P, P)),
    *binary("kl_div", (P, P)),
    *unary("entr", P),
    # log-sum-exp and softmax
    *[
        spec(f"logsumexp_axis{axis}_keepdims{k}", lambda x, a=axis, k=k: special.logsumexp(x, axis=a, keepdims=k), ((2, 3),))
        for axis in (None, 1, (0, 1))
        for k in (False, True)
    ],
    spec("logsumexp_b", lambda x, b: special.logsumexp(x, axis=0, b=b), ((2, 3), (3,)), (R, P)),
    spec("logsumexp_return_sign", lambda x, b: special.logsumexp(x, b=b, return_sign=True)[0], ((2, 3), (2, 3)), (R, P)),
    *[spec(f"softmax_axis{axis}", lambda x, a=axis: special.softmax(x, axis=a), ((2, 3),)) for axis in (None, 0, -1)],
    *[spec(f"log_softmax_axis{axis}", lambda x, a=axis: special.log_softmax(x, axis=a), ((2, 3),)) for axis in (None, 1)],
]

test_derivatives, test_value_matches_numpy = spec_tests(SPECS)


# ---- values and dtypes against SciPy ----

_RNG = numpy.random.default_rng(3)


def _draw(low, high, shape=(4,)):
    return _RNG.uniform(low, high, size=shape)


#: name -> (adcore call, SciPy call, arguments (float64 NumPy arrays or Python scalars))
VALUE_CASES = {
    "gamma": (special.gamma, scipy.special.gamma, [_draw(-2.5, 4.0)]),
    "gammaln": (special.gammaln, scipy.special.gammaln, [_draw(-2.5, 30.0)]),
    "digamma": (special.digamma, scipy.special.digamma, [_draw(0.1, 5.0)]),
    "psi": (special.psi, scipy.special.psi, [_draw(0.1, 5.0)]),
    "polygamma": (special.polygamma, scipy.special.polygamma, [numpy.array([0, 1, 2, 3]), _draw(0.1, 5.0)]),
    "rgamma": (special.rgamma, scipy.special.rgamma, [_draw(-2.5, 4.0)]),
    "gammasgn": (special.gammasgn, scipy.special.gammasgn, [_draw(-2.5, 4.0)]),
    "multigammaln": (lambda a: special.multigammaln(a, 3), lambda a: scipy.special.multigammaln(a, 3), [_draw(1.1, 5.0)]),
    "beta": (special.beta, scipy.special.beta, [_draw(0.2, 3.0), _draw(0.2, 3.0)]),
    "betaln": (special.betaln, scipy.special.betaln, [_draw(0.2, 30.0), _draw(0.2, 3.0)]),
    "betainc": (special.betainc, scipy.special.betainc, [_draw(0.2, 3.0), _draw(0.2, 3.0), _draw(0.0, 1.0)]),
    "gammainc": (special.gammainc, scipy.special.gammainc, [_draw(0.2, 3.0), _draw(0.0, 5.0)]),
    "gammaincc": (special.gammaincc, scipy.special.gammaincc, [_draw(0.2, 3.0), _draw(0.0, 5.0)]),
    "betaincc": (special.betaincc, scipy.special.betaincc, [_draw(0.2, 3.0), _draw(0.2, 3.0), _draw(0.0, 1.0)]),
    "betaincinv": (special.betaincinv, scipy.special.betaincinv, [_draw(0.2, 3.0), _draw(0.2, 3.0), _draw(0.0, 1.0)]),
    "betainccinv": (special.betainccinv, scipy.special.betainccinv, [_draw(0.2, 3.0), _draw(0.2, 3.0), _draw(0.0, 1.0)]),
    "gammaincinv": (special.gammaincinv, scipy.special.gammaincinv, [_draw(0.2, 3.0), _draw(0.0, 1.0)]),
    "gammainccinv": (special.gammainccinv, scipy.special.gammainccinv, [_draw(0.2, 3.0), _draw(0.0, 1.0)]),
    "erf": (special.erf, scipy.special.erf, [_draw(-3.0, 3.0)]),
    "erfc": (special.erfc, scipy.special.erfc, [_draw(-3.0, 3.0)]),
    "erfinv": (special.erfinv, scipy.special.erfinv, [_draw(-0.99, 0.99)]),
    "erfcinv": (special.erfcinv, scipy.special.erfcinv, [_draw(0.01, 1.99)]),
    "ndtr": (special.ndtr, scipy.special.ndtr, [_draw(-5.0, 5.0)]),
    "log_ndtr": (special.log_ndtr, scipy.special.log_ndtr, [_draw(-40.0, 5.0)]),
    "ndtri": (special.ndtri, scipy.special.ndtri, [_draw(0.01, 0.99)]),
    "j0": (special.j0, scipy.special.j0, [_draw(-10.0, 10.0)]),
    "j1": (special.j1, scipy.special.j1, [_draw(-10.0, 10.0)]),
    "y0": (special.y0, scipy.special.y0, [_draw(0.1, 10.0)]),
    "y1": (special.y1, scipy.special.y1, [_draw(0.1, 10.0)]),
    "jn": (special.jn, scipy.special.jn, [numpy.array([0, 1, 2, 5]), _draw(-10.0, 10.0)]),
    "yn": (special.yn, scipy.special.yn, [numpy.array([0, 1, 2, 5]), _draw(0.1, 10.0)]),
    "i0": (special.i0, scipy.special.i0, [_draw(-5.0, 5.0)]),
    "i1": (special.i1, scipy.special.i1, [_draw(-5.0, 5.0)]),
    "iv": (special.iv, scipy.special.iv, [_draw(-1.5, 3.0), _draw(0.1, 5.0)]),
    "ive": (special.ive, scipy.special.ive, [_draw(-1.5, 3.0), _draw(0.1, 50.0)]),
    "erfcx": (special.erfcx, scipy.special.erfcx, [numpy.array([-9.0, -1.5, 0.0, 0.5, 11.0, 13.0, 1e3, 1e30])]),
    "exp1": (special.exp1, scipy.special.exp1, [_draw(0.01, 30.0)]),
    "expi": (special.expi, scipy.special.expi, [numpy.array([-30.0, -1.5, -1e-3, 1e-3, 0.5, 30.0])]),
    "wrightomega": (special.wrightomega, scipy.special.wrightomega, [numpy.array([-800.0, -20.0, -1.0, 0.0, 2.0, 1e3])]),
    "i0e": (special.i0e, scipy.special.i0e, [numpy.array([-800.0, -3.0, 0.0, 1e-5, 2.0, 1e4])]),
    "i1e": (special.i1e, scipy.special.i1e, [numpy.array([-800.0, -3.0, 0.0, 1e-5, 2.0, 1e4])]),
    "kv": (special.kv, scipy.special.kv, [_draw(-1.5, 3.0), _draw(0.1, 5.0)]),
    "kve": (special.kve, scipy.special.kve, [_draw(-1.5, 3.0), _draw(0.1, 500.0)]),
    "expit": (special.expit, scipy.special.expit, [numpy.array([-800.0, -30.0, -1.5, 0.0, 2.0, 40.0, 800.0])]),
    "log_expit": (special.log_expit, scipy.special.log_expit, [numpy.array([-800.0, -30.0, -1.5, 0.0, 2.0, 40.0, 800.0])]),
    "logit": (special.logit, scipy.special.logit, [numpy.array([0.0, 1e-300, 0.3, 0.5, 0.9, 1.0 - 1e-12, 1.0])]),
    "xlogy": (
        special.xlogy,
        scipy.special.xlogy,
        [numpy.array([0.0, 0.0, 0.0, 2.0, -1.5]), numpy.array([0.0, 3.0, numpy.nan, 0.5, 2.0])],
    ),
    "xlog1py": (
        special.xlog1py,
        scipy.special.xlog1py,
        [numpy.array([0.0, 0.0, 2.0, -1.5]), numpy.array([-1.0, 3.0, 1e-10, 2.0])],
    ),
    "rel_entr": (
        special.rel_entr,
        scipy.special.rel_entr,
        [numpy.array([0.0, 0.0, 2.0, -1.0, 1.0]), numpy.array([0.0, 3.0, 0.5, 2.0, -1.0])],
    ),
    "kl_div": (
        special.kl_div,
        scipy.special.kl_div,
        [numpy.array([0.0, 0.0, 2.0, -1.0, 1.0]), numpy.array([0.0, 3.0, 0.5, 2.0, -1.0])],
    ),
    "entr": (special.entr, scipy.special.entr, [numpy.array([0.0, 0.5, 2.0, -1.0])]),
    "logsumexp": (special.logsumexp, scipy.special.logsumexp, [numpy.array([[1000.0, 1001.0], [-numpy.inf, -numpy.inf]])]),
    "logsumexp_axis": (
        lambda a, b: special.logsumexp(a, axis=1, b=b, keepdims=True),
        lambda a, b: scipy.special.logsumexp(a, axis=1, b=b, keepdims=True),
        [_draw(-3.0, 3.0, (2, 3)), _draw(0.1, 2.0, (3,))],
    ),
    "logsumexp_sign": (
        lambda a, b: special.logsumexp(a, axis=0, b=b, return_sign=True),
        lambda a, b: scipy.special.logsumexp(a, axis=0, b=b, return_sign=True),
        [_draw(-3.0, 3.0, (2, 3)), numpy.array([[1.0, -1.0, 2.0], [-3.0, 2.0, 1.0]])],
    ),
    "softmax": (lambda x: special.softmax(x, axis=1), lambda x: scipy.special.softmax(x, axis=1), [_draw(-3.0, 3.0, (2, 3))]),
    "log_softmax": (special.log_softmax, scipy.special.log_softmax, [_draw(-3.0, 3.0, (2, 3))]),
}


def _arguments(backend, arrays, dtype):
    return [backend.asarray(a, dtype if a.dtype.kind == "f" else a.dtype) for a in arrays]


def _pairs(result, expected):
    """(ours, SciPy's) for each output (``logsumexp(return_sign=True)`` has two)."""
    return zip(result, expected) if isinstance(expected, tuple) else [(result, expected)]


def _skip_without_scipy(name, backend):
    function = name.split("_axis")[0].split("_sign")[0]
    if backend.name not in SCIPY_BACKENDS and function not in STANDARD:
        pytest.skip(f"the Array API standard has no {function}")
    if backend.name == "cupy" and function in NOT_IN_CUPYX:
        pytest.skip(f"cupyx.scipy.special has no {function}")


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", list(VALUE_CASES))
def test_values_match_scipy(name, backend):
    """Float64 values equal SciPy's (to rounding), on the input's backend and device."""
    _skip_without_scipy(name, backend)
    ours, theirs, arrays = VALUE_CASES[name]
    result = ours(*_arguments(backend, arrays, "float64"))
    expected = theirs(*arrays)
    for r, e in _pairs(result, expected):
        backend.check_device(r)
        numpy.testing.assert_allclose(backend.to_numpy(r), e, rtol=1e-13, atol=1e-300)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", list(VALUE_CASES))
def test_float32_in_float32_out(name, backend):
    """float32 arguments give a float32 result (SciPy's float64-only functions are cast back),
    close to SciPy's float64 value."""
    _skip_without_scipy(name, backend)
    ours, theirs, arrays = VALUE_CASES[name]
    result = ours(*_arguments(backend, arrays, "float32"))
    expected = theirs(*[a.astype(numpy.float32).astype(numpy.float64) if a.dtype.kind == "f" else a for a in arrays])
    for r, e in _pairs(result, expected):
        assert str(r.dtype).endswith("float32"), f"{name}: float32 in gave {r.dtype}"
        numpy.testing.assert_allclose(backend.to_numpy(r), e, rtol=2e-5, atol=1e-30)


def test_result_dtype_follows_the_floating_arguments():
    """Integer arrays and Python scalars give float64; an integer order does not widen float32 ``x``;
    NumPy scalars count as NumPy arrays (as in NumPy)."""
    assert special.gammaln(numpy.array([1, 2, 3])).dtype == numpy.float64
    assert special.gammaln(3).dtype == numpy.float64
    assert special.jn(numpy.array([1, 2]), 1.5).dtype == numpy.float64
    assert special.jn(numpy.array([1, 2]), numpy.array([1.5], numpy.float32)).dtype == numpy.float32
    assert special.jn(numpy.array([1, 2]), numpy.float32(1.5)).dtype == numpy.float32
    assert special.beta(numpy.float64(1.5), numpy.array([1.5], numpy.float32)).dtype == numpy.float64


# ---- backends without SciPy's special functions ----


@pytest.mark.parametrize("name", ["gamma", "erf", "ndtr", "j0", "gammainc", "multigammaln"])
def test_strict_backend_raises_without_a_host_copy(name, backend):
    """array-api-strict (any device) has no special functions: the call raises, naming the backend
    and the function, rather than copying to the host."""
    if backend.name != "array_api_strict":
        pytest.skip("only array-api-strict lacks scipy.special")
    x = backend.asarray([1.5, 2.5])
    args = {"gammainc": (x, x), "multigammaln": (x, 2)}.get(name, (x,))
    with pytest.raises(
        NotImplementedError, match=r"array_api_strict backend has no special function '(gamma|erf|ndtr|j0|gammainc|gammaln)'"
    ):
        getattr(special, name)(*args)


def test_importing_adcore_does_not_import_scipy():
    code = "import sys, adcore, adcore.numpy; assert 'scipy' not in sys.modules, 'scipy imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


# ---- derivatives that are not implemented, and edge cases ----


@pytest.mark.parametrize(
    "fun, argnum",
    [
        (special.iv, 0),
        (special.ive, 0),
        (special.kv, 0),
        (special.kve, 0),
        (special.jn, 0),
        (special.yn, 0),
        (special.polygamma, 0),
    ],
)
def test_parameters_without_closed_form_derivative_raise(fun, argnum):
    args = {special.polygamma: [1.0, 2.0]}.get(fun, [1.0, 0.7])
    name = fun.__name__
    assert name in special.DERIVATIVES_NOT_IMPLEMENTED
    with pytest.raises(NotImplementedError, match=f"scipy.special.{name}: the derivative with respect to"):
        grad(fun, argnum)(*args)
    with pytest.raises(NotImplementedError, match=f"scipy.special.{name}: the derivative with respect to"):
        make_jvp(lambda v: fun(*args[:argnum], v, *args[argnum + 1 :]))(args[argnum])(1.0)


GAMMA_SHAPES = [(0.01, 0.5), (0.3, 2.0), (1.0, 1.0), (2.5, 1.2), (2.5, 7.0), (40.0, 38.0), (40.0, 45.0), (900.0, 950.0)]


@pytest.mark.parametrize("fun", [special.gammainc, special.gammaincc])
@pytest.mark.parametrize("a, x", GAMMA_SHAPES)
def test_incomplete_gamma_is_differentiable_in_its_shape(fun, a, x, backend):
    """gammainc/gammaincc(a, x) have a derivative in ``a`` (they raised ``NotImplementedError``), checked
    in both modes against finite differences, on either side of x = a + 1 (series and continued fraction)."""
    _skip_without_scipy("gammainc", backend)
    a_array, x_array = backend.asarray([a, a * 1.01]), backend.asarray([x, x * 0.99])
    check_grads(lambda a: fun(a, x_array), modes=("fwd", "rev"), order=1)(a_array)
    check_grads(lambda a, x: fun(a, x), modes=("fwd", "rev"), order=1)(a_array, x_array)


@pytest.mark.parametrize("fun, sign", [(special.gammainc, 1.0), (special.gammaincc, -1.0)])
def test_incomplete_gamma_mixed_second_derivative(fun, sign):
    """∂²P/∂a∂x = x^(a-1) e^(-x) / Γ(a) (log x - ψ(a)), through both orders of differentiation; the second
    derivative in ``a`` alone raises a clear ``NotImplementedError``."""
    for a, x in ((0.5, 0.3), (2.5, 7.0), (40.0, 41.5)):
        expected = sign * x ** (a - 1) * numpy.exp(-x) / scipy.special.gamma(a) * (numpy.log(x) - scipy.special.digamma(a))
        numpy.testing.assert_allclose(float(grad(grad(fun, 0), 1)(a, x)), expected, rtol=1e-12)
        numpy.testing.assert_allclose(float(grad(grad(fun, 1), 0)(a, x)), expected, rtol=1e-12)
        with pytest.raises(NotImplementedError, match=f"scipy.special.gammainc: the second derivative with respect to a"):
            grad(grad(fun, 0), 0)(a, x)
    assert "a (second order)" in special.DERIVATIVES_NOT_IMPLEMENTED["gammainc"]


def test_incomplete_gamma_shape_derivative_edges():
    """0 at x = 0 and x = inf, NaN outside the domain, dtype kept."""
    a = numpy.array([1.5, 1.5, 0.0, -1.0, 1.5])
    x = numpy.array([0.0, numpy.inf, 1.0, 1.0, -1.0])
    with numpy.errstate(invalid="ignore"):
        d = grad(lambda a: np.sum(special.gammainc(a, x)))(a)
    numpy.testing.assert_array_equal(d, [0.0, 0.0, numpy.nan, numpy.nan, numpy.nan])
    assert grad(special.gammainc)(numpy.float32(2.0), numpy.float32(1.0)).dtype == numpy.float32


#: (a, b, x): small and large shapes, both sides of the mean (the continued fraction of I_x(a, b) and of I_(1-x)(b, a))
BETA_SHAPES = [(0.05, 0.5, 0.3), (0.7, 3.0, 0.05), (1.5, 2.5, 0.9), (2.5, 0.3, 0.98), (30.0, 40.0, 0.42), (300.0, 200.0, 0.61)]


@pytest.mark.parametrize("fun", [special.betainc, special.betaincc])
@pytest.mark.parametrize("a, b, x", BETA_SHAPES)
def test_incomplete_beta_is_differentiable_in_its_shapes(fun, a, b, x, backend):
    """betainc/betaincc(a, b, x) have derivatives in ``a`` and ``b`` (they raised ``NotImplementedError``), checked in
    both modes against finite differences, alone and with ``x``."""
    _skip_without_scipy(fun.__name__, backend)
    a_array, b_array = backend.asarray([a, a * 1.01]), backend.asarray([b, b * 0.99])
    x_array = backend.asarray([x, x * 0.99])
    check_grads(lambda a, b: fun(a, b, x_array), modes=("fwd", "rev"), order=1)(a_array, b_array)
    check_grads(fun, modes=("fwd", "rev"), order=1)(a_array, b_array, x_array)


@pytest.mark.parametrize(
    "fun, shapes, y",
    [
        (special.gammaincinv, ([0.3, 40.0],), [0.2, 0.9]),
        (special.gammainccinv, ([2.5, 0.8],), [0.7, 1e-3]),
        (special.betaincinv, ([0.4, 30.0], [2.0, 25.0]), [0.3, 0.6]),
        (special.betainccinv, ([1.5, 0.6], [0.5, 7.0]), [0.01, 0.8]),
    ],
)
def test_inverse_incomplete_functions_are_differentiable_in_their_shapes(fun, shapes, y, backend):
    """The inverses in x, by the implicit function theorem: both modes against finite differences in every argument,
    and the derivative in a shape is -(∂F/∂s) / (∂F/∂x) of the function inverted (checked through ``grad`` of F)."""
    _skip_without_scipy(fun.__name__, backend)
    arrays = [backend.asarray(v) for v in (*shapes, y)]
    check_grads(fun, modes=("fwd", "rev"), order=1)(*arrays)
    if backend.name == "numpy":
        forward = {special.gammaincinv: special.gammainc, special.gammainccinv: special.gammaincc}
        forward |= {special.betaincinv: special.betainc, special.betainccinv: special.betaincc}
        point = [v[0] for v in (*shapes, y)]
        x = fun(*point)
        last = len(shapes)
        for argnum in range(last):
            expected = -grad(forward[fun], argnum)(*point[:-1], x) / grad(forward[fun], last)(*point[:-1], x)
            numpy.testing.assert_allclose(grad(fun, argnum)(*point), expected, rtol=1e-12)


@pytest.mark.parametrize("fun, sign", [(special.betainc, 1.0), (special.betaincc, -1.0)])
def test_incomplete_beta_mixed_second_derivative(fun, sign):
    """∂²I/∂a∂x = the density times log x - ψ(a) + ψ(a + b), ∂²I/∂b∂x times log(1 - x) - ψ(b) + ψ(a + b),
    through both orders of differentiation; a second derivative in the shapes raises a clear ``NotImplementedError``."""
    for a, b, x in ((0.5, 2.0, 0.3), (2.5, 7.0, 0.8), (40.0, 35.0, 0.55)):
        density = x ** (a - 1) * (1 - x) ** (b - 1) / scipy.special.beta(a, b)
        psi = scipy.special.digamma
        for argnum, log in ((0, numpy.log(x)), (1, numpy.log1p(-x))):
            expected = sign * density * (log - psi((a, b)[argnum]) + psi(a + b))
            numpy.testing.assert_allclose(float(grad(grad(fun, argnum), 2)(a, b, x)), expected, rtol=1e-11)
            numpy.testing.assert_allclose(float(grad(grad(fun, 2), argnum)(a, b, x)), expected, rtol=1e-11)
            for second in (0, 1):
                with pytest.raises(NotImplementedError, match="scipy.special.betainc: the second derivative with respect to"):
                    grad(grad(fun, argnum), second)(a, b, x)
    assert {"a (second order)", "b (second order)"} <= set(special.DERIVATIVES_NOT_IMPLEMENTED["betainc"])


def test_incomplete_beta_shape_derivative_edges():
    """0 at x = 0 and x = 1, NaN outside the domain, dtype kept; shapes far beyond the grid converge or are NaN,
    never a wrong finite number (here: the a = b symmetry at x = 1/2, ∂I/∂a = -∂I/∂b, at 1e8)."""
    x = numpy.array([0.0, 1.0, -0.1, 1.1, numpy.nan, 0.3, 0.3])
    a = numpy.array([1.5, 1.5, 1.5, 1.5, 1.5, 0.0, -1.0])
    with numpy.errstate(invalid="ignore"):
        for argnum in (0, 1):
            d = grad(lambda *s: np.sum(special.betainc(*s, x)), argnum)(a, numpy.full(7, 2.0))
            numpy.testing.assert_array_equal(d, [0.0, 0.0, numpy.nan, numpy.nan, numpy.nan, numpy.nan, numpy.nan])
    assert grad(special.betainc)(numpy.float32(2.0), numpy.float32(1.0), numpy.float32(0.3)).dtype == numpy.float32
    d_a, d_b = grad(special.betainc, 0)(1e8, 1e8, 0.5), grad(special.betainc, 1)(1e8, 1e8, 0.5)
    numpy.testing.assert_allclose(d_a, -d_b, rtol=1e-6)


def test_lambertw_is_complex_valued_and_differentiable(backend):
    """lambertw (it was missing): SciPy's complex values and dtypes (complex64 for float32), and W' = W / (z (1 + W))
    in both modes to order 2 on branches 0 and ±1, for real z (the real part of the cotangent) and complex z; W'(0) = 1."""
    _skip_without_scipy("lambertw", backend)
    x = numpy.array([-0.3, 0.0, 0.5, 3.0, 100.0])
    z = numpy.array([0.5 + 1j, -2.0 + 0.3j, 3.0 - 1j])
    for values, k in ((x, 0), (z, 0), (z, -1), (z, 1)):
        result = special.lambertw(backend.asarray(values, values.dtype.name), k)
        backend.check_device(result)
        numpy.testing.assert_allclose(backend.to_numpy(result), scipy.special.lambertw(values, k), rtol=1e-13)
    assert str(special.lambertw(backend.asarray(x, "float32")).dtype).endswith("complex64")
    assert str(special.lambertw(backend.asarray(x)).dtype).endswith("complex128")
    check_grads(lambda x: special.lambertw(x), modes=("fwd", "rev"), order=2)(backend.asarray(x))
    check_grads(lambda x: np.real(special.lambertw(x)), modes=("fwd", "rev"), order=2)(backend.asarray(x))
    for k in (0, -1, 1):
        check_grads(lambda z: special.lambertw(z, k), modes=("fwd", "rev"), order=2)(backend.asarray(z, "complex128"))
    if backend.name == "numpy":
        assert float(grad(lambda x: np.real(special.lambertw(x)))(0.0)) == 1.0
        w = scipy.special.lambertw(3.0).real
        numpy.testing.assert_allclose(grad(lambda x: np.real(special.lambertw(x)))(3.0), w / (3.0 * (1 + w)), rtol=1e-14)


def test_gammasgn_is_not_differentiable():
    x = numpy.array([-0.5, 1.5])
    numpy.testing.assert_array_equal(grad(lambda x: np.sum(special.gammasgn(x) * x))(x), [-1.0, 1.0])


def test_bessel_derivatives_at_zero():
    """j1 and i1 rules use J_1(x)/x and I_1(x)/x, whose limit at 0 is 1/2; second derivatives are 0 there."""
    for fun in (special.j1, special.i1):
        assert float(grad(fun)(0.0)) == 0.5
        assert float(hessian(fun)(0.0)) == 0.0


def test_scaled_bessel_derivatives_at_the_corner_and_zero():
    """i0e has a corner at 0 (one-sided derivatives -1 and 1): its derivative there is 0, between
    them; i1e / x tends to 1/2, so i1e'(0) = 1 - 1/2 = 1/2."""
    assert float(grad(special.i0e)(0.0)) == 0.0
    assert float(grad(special.i1e)(0.0)) == 0.5
    for x in (-1e-6, 1e-6):  # the series of i1e(x) / x joins the quotient
        numpy.testing.assert_allclose(float(grad(special.i1e)(x)), 0.5 - abs(x), rtol=1e-10)


def test_erfcx_derivative_keeps_its_digits_in_the_tail():
    """2x erfcx(x) - 2/sqrt(pi) cancels for large x: the asymptotic series keeps full precision."""
    for x, expected in ((30.0, -6.2583541050748407e-04), (1e3, -5.6418873726549667e-07), (1e8, -5.641895835477562e-17)):
        numpy.testing.assert_allclose(float(grad(special.erfcx)(x)), expected, rtol=1e-13)


def test_xlogy_derivative_in_y_is_zero_where_x_is_zero():
    assert float(grad(special.xlogy, 1)(0.0, 0.0)) == 0.0
    assert float(grad(special.xlog1py, 1)(0.0, -1.0)) == 0.0


def test_logsumexp_keeps_every_order_exact_with_the_shift():
    """The maximum subtracted for stability is a constant: the Hessian is that of the plain formula."""
    x = numpy.array([1.0, 2.0, 3.0])
    p = scipy.special.softmax(x)
    numpy.testing.assert_allclose(grad(special.logsumexp)(x), p, rtol=1e-14)
    numpy.testing.assert_allclose(hessian(special.logsumexp)(x), numpy.diag(p) - numpy.outer(p, p), rtol=1e-12, atol=1e-15)


def test_multigammaln_is_nan_outside_its_domain():
    assert numpy.isnan(special.multigammaln(numpy.array(0.9), 3))


def test_log_ndtr_derivative_is_finite_far_in_the_tail():
    g = grad(special.log_ndtr)(-40.0)
    assert numpy.isfinite(g) and abs(g - 40.0) < 0.1

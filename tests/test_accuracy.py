"""The accuracy of every elementwise derivative rule, against mpmath at 50 digits.

One line per partial derivative of each elementwise function of ``adcore.numpy`` and
``adcore.scipy.special``: the function, its exact derivative written with mpmath, and an array of
points that reaches both tails, poles, zeros and tiny arguments. The derivative is computed in
reverse and forward mode, in float64 and float32, at the points rounded to the dtype (mpmath is
evaluated at the rounded input), and must be within ``ACCURACY`` (relative error 1e-10 in
float64, 1e-4 in float32) wherever the true derivative is a normal float of the dtype; out of that
range it must underflow to 0 or a subnormal, or overflow to the infinity of the right sign. The
exceptions are listed in the table with their reason (``Loose``). Run this file as a script to
print the largest error of each line per backend and dtype.
"""

import math
from fractions import Fraction

import mpmath as mp
import numpy
import pytest
import scipy.special

import adcore.numpy as np
import adcore.scipy.special as special
from specs import OTHER_BACKENDS, REAL, Loose, accuracy_errors, accuracy_tests, accurate

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # overflow and underflow are the point

SQRT_PI = mp.sqrt(mp.pi)


def sym(*xs):
    """The points and their negatives."""
    return tuple(xs) + tuple(-x for x in xs)


TINY = sym(5e-324, 1e-300, 1e-30, 1e-8)
REAL_LINE = (0.0, *TINY, *sym(0.5, 1.0, 2.5, 10.0, 19.5, 30.0, 100.0, 700.0))
POSITIVE = (5e-324, 1e-308, 1e-300, 1e-30, 1e-8, 0.5, 1.0, 1.0 + 2.0**-52, 2.0, 1e8, 1e300, 1.7e308)
BELOW_ONE = (0.0, *TINY, *sym(0.5, 0.9999, 1.0 - 1e-8, 1.0 - 2.0**-53))  # inside (-1, 1), up to the ends
NEAR_PI_HALF = (1.5707963267948966, 1.5707963267948966 - 1e-8, 4.71238898038469)


def mp_sign(x):
    return mp.mpf(mp.sign(x))


def expit(x):
    """The logistic function in mpmath, without cancellation in either tail."""
    return 1 / (1 + mp.exp(-x))


# ---- adcore.numpy ----

SUBNORMAL_HYPOT = "subnormal inputs: hypot(x, y) is subnormal, with fewer significant digits than the normal x / hypot(x, y)"

# the standard's functions that the strict and torch backends compute themselves
NUMPY = [
    *accurate("negative", np.negative, [lambda x: -1], REAL_LINE),
    *accurate("positive", np.positive, [lambda x: 1], REAL_LINE),
    *accurate("abs", np.abs, [mp_sign], REAL_LINE),
    *accurate("fabs", np.fabs, [mp_sign], REAL_LINE),
    *accurate("real", np.real, [lambda x: 1], REAL_LINE),
    *accurate("conj", np.conj, [lambda x: 1], REAL_LINE),
    *accurate("nan_to_num", np.nan_to_num, [lambda x: 1], REAL_LINE),
    *accurate("deg2rad", np.deg2rad, [lambda x: mp.pi / 180], REAL_LINE),
    *accurate("rad2deg", np.rad2deg, [lambda x: 180 / mp.pi], REAL_LINE),
    *accurate("square", np.square, [lambda x: 2 * x], (*REAL_LINE, 1e154, 1e300)),
    *accurate("exp", np.exp, [mp.exp], (*REAL_LINE, 709.0, -745.0)),
    *accurate("exp2", np.exp2, [lambda x: mp.ln2 * 2**x], (*REAL_LINE, 1023.0, -1074.0, 0.1)),
    *accurate("expm1", np.expm1, [mp.exp], (*REAL_LINE, -45.0, 709.0, -745.0)),
    *accurate("log", np.log, [lambda x: 1 / x], POSITIVE),
    *accurate("log2", np.log2, [lambda x: 1 / (x * mp.ln2)], POSITIVE),
    *accurate("log10", np.log10, [lambda x: 1 / (x * mp.ln10)], POSITIVE),
    *accurate("log1p", np.log1p, [lambda x: 1 / (1 + x)], (*TINY, 0.0, -0.5, -1 + 1e-8, -1 + 2.0**-53, 1.0, 1e8, 1e300)),
    *accurate("sqrt", np.sqrt, [lambda x: 1 / (2 * mp.sqrt(x))], POSITIVE),
    *accurate("cbrt", np.cbrt, [lambda x: mp.cbrt(abs(x)) ** -2 / 3], sym(5e-324, 1e-300, 1e-8, 0.5, 1.0, 8.0, 1e8, 1e300)),
    *accurate("reciprocal", np.reciprocal, [lambda x: -1 / x**2], sym(1e-300, 1e-160, 1e-8, 0.5, 1.0, 3.0, 1e8, 1e160, 1e300)),
    *accurate("sin", np.sin, [mp.cos], (*REAL_LINE, *NEAR_PI_HALF, 3.141592653589793, 1e6)),
    *accurate("cos", np.cos, [lambda x: -mp.sin(x)], (*REAL_LINE, *NEAR_PI_HALF, 3.141592653589793, 1e6)),
    *accurate("tan", np.tan, [lambda x: 1 / mp.cos(x) ** 2], (*TINY, 0.0, *sym(0.5, 1.0, 1.5), *NEAR_PI_HALF, 10.0, 1e6)),
    *accurate("sinh", np.sinh, [mp.cosh], (*REAL_LINE, 710.0)),
    *accurate("cosh", np.cosh, [mp.sinh], (*REAL_LINE, 710.0)),
    *accurate("tanh", np.tanh, [lambda x: mp.sech(x) ** 2], (*REAL_LINE, *sym(40.0, 300.0, 355.0, 400.0))),
    *accurate("arcsin", np.arcsin, [lambda x: 1 / mp.sqrt(1 - x**2)], BELOW_ONE),
    *accurate("arccos", np.arccos, [lambda x: -1 / mp.sqrt(1 - x**2)], BELOW_ONE),
    *accurate("arctan", np.arctan, [lambda x: 1 / (1 + x**2)], (*REAL_LINE, *sym(1e10, 1e154, 1e200))),
    *accurate("arcsinh", np.arcsinh, [lambda x: 1 / mp.sqrt(1 + x**2)], (*REAL_LINE, *sym(1e10, 1e154, 1e200, 1e300))),
    *accurate(
        "arccosh",
        np.arccosh,
        [lambda x: 1 / mp.sqrt(x**2 - 1)],
        (1 + 2.0**-52, 1 + 1e-8, 1.5, 2.0, 10.0, 1e8, 1e154, 1e200, 1e300),
    ),
    *accurate("arctanh", np.arctanh, [lambda x: 1 / (1 - x**2)], BELOW_ONE),
    *accurate(
        "sinc",
        np.sinc,
        # d/dx sin(pi x) / (pi x) = -pi j1(pi x), j1 the spherical Bessel function: no cancellation near 0
        [lambda x: 0 * x if x == 0 else -mp.pi * mp.sign(x) * mp.sqrt(1 / (2 * abs(x))) * mp.besselj(1.5, mp.pi * abs(x))],
        (0.0, *TINY, *sym(1e-3, 0.1, 0.5, 1.0, 1.5, 2.5, 10.5, 1000.25)),
    ),
]


def pairs(*points):
    return tuple(points)


ARITHMETIC_PAIRS = pairs((1.0, 3.0), (-2.5, 0.5), (1e-300, 1e300), (1e300, 1e-300), (0.0, 2.0), (3.0, -1e-8), (1e8, 1e-8))
POWER_PAIRS = pairs(
    (2.0, 3.0), (0.5, -2.5), (1e-100, 2.5), (1e100, 0.5), (3.0, 0.1), (1 + 1e-10, 1e10), (1e-300, 0.5), (0.5, 1000.0), (7.0, 1e-8)
)
TIES = pairs((1.0, 3.0), (-2.5, 0.5), (2.0, 2.0), (1e300, -1e300), (-1e-300, 1e-300), (0.0, -0.0))
LOG_SUMS = pairs(
    (0.0, 0.0), (1.0, 2.0), (30.0, -30.0), (-745.0, 0.0), (700.0, -700.0), (1e8, 1e8 - 30.0), (-1e8, -1e8 - 1.0), (1e300, 1e300)
)


def logaddexp_partial(b):
    """d/dx log_b(b**x + b**y) = 1 / (1 + b**(y - x))."""
    return lambda x, y: 1 / (1 + mp.power(b, y - x))


def log2addexp_partial_y(x, y):
    return logaddexp_partial(2)(y, x)


NUMPY += [
    *accurate("add", np.add, [lambda x, y: 1, lambda x, y: 1], ARITHMETIC_PAIRS),
    *accurate("subtract", np.subtract, [lambda x, y: 1, lambda x, y: -1], ARITHMETIC_PAIRS),
    *accurate("multiply", np.multiply, [lambda x, y: y, lambda x, y: x], ARITHMETIC_PAIRS),
    *accurate("divide", np.divide, [lambda x, y: 1 / y, lambda x, y: -x / y**2], ARITHMETIC_PAIRS),
    *accurate("power", np.power, [lambda x, y: y * x ** (y - 1), lambda x, y: mp.log(x) * x**y], POWER_PAIRS),
    *accurate("power_negative_base", np.power, [lambda x, y: y * x ** (y - 1)], pairs((-2.0, 3.0), (-0.5, -2.0), (-1e10, 5.0))),
    *accurate("float_power", np.float_power, [lambda x, y: y * x ** (y - 1), lambda x, y: mp.log(x) * x**y], POWER_PAIRS),
    *accurate("maximum", np.maximum, [lambda x, y: (1 + mp.sign(x - y)) / 2, lambda x, y: (1 - mp.sign(x - y)) / 2], TIES),
    *accurate("minimum", np.minimum, [lambda x, y: (1 - mp.sign(x - y)) / 2, lambda x, y: (1 + mp.sign(x - y)) / 2], TIES),
    *accurate("fmax", np.fmax, [lambda x, y: (1 + mp.sign(x - y)) / 2, lambda x, y: (1 - mp.sign(x - y)) / 2], TIES),
    *accurate("fmin", np.fmin, [lambda x, y: (1 - mp.sign(x - y)) / 2, lambda x, y: (1 + mp.sign(x - y)) / 2], TIES),
    *accurate(
        "arctan2",
        np.arctan2,
        [lambda y, x: x / (x**2 + y**2), lambda y, x: -y / (x**2 + y**2)],
        pairs((1.0, 1.0), (1e-200, 1e-200), (1e200, 1e200), (1e-300, 1.0), (1.0, 1e-300), (-1.0, 0.5), (3.0, -4.0), (1e300, 1.0)),
    ),
    *accurate(
        "hypot",
        np.hypot,
        [lambda x, y: x / mp.hypot(x, y), lambda x, y: y / mp.hypot(x, y)],
        pairs((3.0, 4.0), (1e-200, 1e-200), (1e300, 1e300), (1.0, 1e-300), (0.0, 2.0), (-5e-324, 1e-320)),
        exceptions=(Loose(SUBNORMAL_HYPOT, rtol=1e-6, where=lambda x, y: numpy.hypot(x, y) < numpy.finfo(x.dtype).tiny),),
    ),
    *accurate("logaddexp", np.logaddexp, [logaddexp_partial(mp.e), lambda x, y: logaddexp_partial(mp.e)(y, x)], LOG_SUMS),
    *accurate("logaddexp2", np.logaddexp2, [logaddexp_partial(2), log2addexp_partial_y], LOG_SUMS),
    *accurate(
        "remainder",
        np.remainder,
        [lambda x, y: 1, lambda x, y: -mp.floor(x / y)],
        # each x / y beside an integer (a jump of the derivative in y), not within a rounding of one in either dtype:
        # float32's 0.7 / 0.1 rounds to 7 where the exact quotient is below it (CuPy's floor(x / y) then differs)
        pairs((5.5, 2.0), (-5.5, 2.0), (0.3, 0.1), (0.69, 0.1), (1e10 + 0.5, 3.0), (7.0, -2.5), (1e-300, 3.0)),
    ),
    *accurate(
        "copysign",
        np.copysign,
        [lambda x, y: mp.sign(x) * (-1 if y < 0 else 1)],
        pairs((1.0, -2.0), (-3.0, 2.0), (0.5, 1e-300), (-1e30, -1e-30), (2.0, 0.0)),
    ),
    *accurate(
        "clip",
        lambda a: np.clip(a, -1.0, 2.0),
        [lambda a: 1 if -1 < a < 2 else 0],
        (-1e300, -3.0, -1.0 - 1e-15, -0.5, 0.0, 1e-300, 1.999, 2.0 + 1e-15, 1e300),
    ),
]

# ---- adcore.scipy.special ----

#: the functions that backends without SciPy's special functions compute from the standard's operations
STANDARD = {"expit", "log_expit", "logit", "xlogy", "xlog1py", "rel_entr", "kl_div", "entr"}


def needs_scipy(name):
    if name in STANDARD:
        return {}
    return {b: f"the Array API standard has no {name}, and adcore's {b} backend has no scipy.special" for b in OTHER_BACKENDS}


def special_lines(name, fun, exacts, points, **options):
    return accurate(name, fun, exacts, points, skip=needs_scipy(name.split("_")[0] if name not in STANDARD else name), **options)


def inverse(f, y, guess):
    """``x`` with ``f(x) = y`` (an inverse function at 50 digits), starting from ``guess`` (ValueError
    where the guess is infinite: ``y`` is at the end of the range, where the derivative is infinite)."""
    if not numpy.isfinite(guess):
        raise ValueError(f"no finite inverse at {y}")
    return mp.findroot(lambda x: f(x) - y, mp.mpf(guess))


def inverse_derivative(f, df, scipy_inverse):
    """The derivative of the inverse of ``f`` at ``y``: ``1 / f'(x)`` with ``f(x) = y``."""
    return lambda y: 1 / df(inverse(f, y, scipy_inverse(float(y))))


def gammainc_shape(a, x):
    """∂P(a, x)/∂a, by mpmath's differentiation of P for x <= a and of -Q above (each where it has no
    cancellation against 1)."""
    if x > a:
        return -mp.diff(lambda t: mp.gammainc(t, x, mp.inf, regularized=True), a)
    return mp.diff(lambda t: mp.gammainc(t, 0, x, regularized=True), a)


#: small and large shapes, x near 0, either side of a (series and continued fraction), both tails
GAMMA_SHAPE_GRID = tuple(
    (a, x)
    for a in (0.01, 0.1, 0.5, 1.0, 2.5, 10.0, 100.0, 1000.0)
    for x in (1e-300, 1e-8, 0.01, 0.5, 1.0, 1.5, 3.0, 11.0, 50.0, 101.0, 500.0, 999.0, 1001.0, 1100.0, 2000.0, 1e4)
)


def betainc_shape(argnum):
    """∂I_x(a, b)/∂a (``argnum`` 0) or ∂/∂b, by mpmath's differentiation of I_x(a, b) for x <= a / (a + b) and
    of -I_(1-x)(b, a) above (each where it has no cancellation against 1; mpmath's upper integral has)."""

    def exact(a, b, x):
        if x > a / (a + b):
            upper = (
                lambda t: mp.betainc(b, t, 0, 1 - x, regularized=True),
                lambda t: mp.betainc(t, a, 0, 1 - x, regularized=True),
            )
            return -mp.diff(upper[argnum], (a, b)[argnum])
        lower = (lambda t: mp.betainc(t, b, 0, x, regularized=True), lambda t: mp.betainc(a, t, 0, x, regularized=True))
        return mp.diff(lower[argnum], (a, b)[argnum])

    return exact


#: small and large shapes (each against each), x from 0 to 1 - 1e-8: both sides of the mean (the continued
#: fraction of I_x(a, b) and of I_(1-x)(b, a))
BETA_SHAPE_GRID = tuple(
    (a, b, x)
    for a in (0.01, 0.3, 1.0, 7.5, 100.0, 1000.0)
    for b in (0.01, 0.3, 1.0, 7.5, 100.0, 1000.0)
    for x in (1e-300, 1e-8, 0.05, 0.3, 0.5, 0.8, 0.999, 1 - 1e-8)
)


def inverse_shape(cdf, shape_derivative, density, scipy_inverse):
    """The derivatives of the inverse ``x(*shapes, y)`` of ``y = cdf(*shapes, x)``: in each shape s,
    -(∂cdf/∂s) / density (``shape_derivative(argnum)(*shapes, x)``), and in y, 1 / density, at the exact
    inverse (from SciPy's value)."""

    def at_inverse(*args):
        *shapes, y = args
        # the secant steps may leave the real line by a rounding (mpmath's betainc of x > 1 is complex)
        return mp.re(inverse(lambda x: cdf(*shapes, x), y, scipy_inverse(*(float(v) for v in args)))), shapes

    def in_shape(argnum):
        def exact(*args):
            x, shapes = at_inverse(*args)
            return -shape_derivative(argnum)(*shapes, x) / density(*shapes, x)

        return exact

    def in_y(*args):
        x, shapes = at_inverse(*args)
        return 1 / density(*shapes, x)

    return in_shape, in_y


def gamma_cdf(a, x):
    return mp.gammainc(a, 0, x, regularized=True)


def gamma_density(a, x):
    return x ** (a - 1) * mp.exp(-x) / mp.gamma(a)


def beta_cdf(a, b, x):
    return mp.betainc(a, b, 0, x, regularized=True)


def beta_density(a, b, x):
    return x ** (a - 1) * (1 - x) ** (b - 1) / mp.beta(a, b)


GAMMAINCINV_SHAPE, GAMMAINCINV_Y = inverse_shape(
    gamma_cdf, lambda argnum: gammainc_shape, gamma_density, scipy.special.gammaincinv
)
GAMMAINCCINV_SHAPE, GAMMAINCCINV_Y = inverse_shape(
    lambda a, x: mp.gammainc(a, x, mp.inf, regularized=True),
    lambda argnum: lambda a, x: -gammainc_shape(a, x),
    lambda a, x: -gamma_density(a, x),
    scipy.special.gammainccinv,
)
BETAINCCINV_SHAPE, BETAINCCINV_Y = inverse_shape(
    lambda a, b, x: mp.betainc(b, a, 0, 1 - x, regularized=True),
    lambda argnum: lambda a, b, x: -betainc_shape(argnum)(a, b, x),
    lambda a, b, x: -beta_density(a, b, x),
    scipy.special.betainccinv,
)
BETAINCINV_SHAPE, BETAINCINV_Y = inverse_shape(beta_cdf, betainc_shape, beta_density, scipy.special.betaincinv)
#: shapes, and probabilities from 1e-8 to 1 - 1e-8 (inverses away from 0 and 1 of float64)
def near_one(scipy_inverse):
    """The exceptions where the inverse ``x`` is near 1: a float keeps the digits of 1 - x to eps / (1 - x) only, and
    the derivative (a function of 1 - x) is right at the rounded inverse, not at the exact one."""

    def one_minus(*args):
        return 1 - scipy_inverse(*(a.astype(numpy.float64) for a in args))

    return (
        Loose(
            "the inverse rounds to a float within 1e-5 of 1, whose 1 - x keeps a relative precision of eps / (1 - x) "
            "only (1e-4 at 1 - x = 7e-13)",
            rtol=1e-3,
            dtypes=("float64",),
            where=lambda *args: one_minus(*args) < 1e-5,
        ),
        Loose(
            "in float32 the inverse within 1e-3 of 1 keeps 1 - x to 6e-8 / (1 - x), and rounds to 1 (derivatives 0) "
            "below 3e-8",
            rtol=math.inf,
            dtypes=("float32",),
            where=lambda *args: one_minus(*args) < 1e-3,
        ),
    )


SCIPY_FLOAT32_BETAINCINV = Loose(
    "SciPy's float32 betaincinv is accurate to about 1e-3 relative only (0.3091467 for 0.3089292 at a = b = 100, "
    "y = 1e-8), and the derivative is taken at its value",
    rtol=0.1,
    dtypes=("float32",),
)
FLOAT32_LARGE_SHAPE = Loose(
    "in float32 the density x^(a-1) e^(-x) / Γ(a) is computed from logarithms of size a, which keep a ε₃₂ of it",
    rtol=1e-3,
    dtypes=("float32",),
    where=lambda a, y: a >= 100,
)
INVERSE_GAMMA_GRID = tuple((a, y) for a in (0.1, 0.5, 2.5, 10.0, 100.0, 1000.0) for y in (1e-8, 0.01, 0.3, 0.5, 0.9, 0.999))
INVERSE_BETA_GRID = tuple(
    (a, b, y) for a in (0.3, 1.0, 7.5, 100.0) for b in (0.3, 1.0, 7.5, 100.0) for y in (1e-8, 0.01, 0.3, 0.5, 0.9, 0.999)
)


def phi(x):
    return mp.exp(-(x**2) / 2) / mp.sqrt(2 * mp.pi)


GAMMA_LINE = (1e-300, 1e-8, 0.5, 1.0, 1.4616321449683622, 2.0, 10.5, 100.0, 170.0)  # through the minimum of Γ
GAMMA_LINE += (-0.5, -1 + 1e-8, -2.5, -3 + 1e-10, -10.5, -100.5)  # between and near the poles
GAMMA_POSITIVE = (1e-300, 1e-8, 0.5, 1.0, 1.4616321449683622, 2.0, 10.5, 100.0, 1e5, 1e10, 1e300)
J_LINE = (0.0, *TINY, *sym(0.5, 1.0, 2.404825557695773, 3.8317059702075125, 10.0, 100.0, 1e4))
Y_LINE = (1e-300, 1e-8, 0.5, 0.8935769662791675, 2.197141326031017, 10.0, 100.0, 1e4)
I_LINE = (0.0, *TINY, *sym(0.5, 1.0, 10.0, 100.0, 700.0))
UNIT = (1e-300, 1e-30, 1e-8, 0.3, 0.5, 0.9, 1 - 1e-8, 1 - 2.0**-53)


def bessel_derivative(kind, v):
    """d/dx of the Bessel function ``kind`` (``mp.besselj``, ``mp.bessely``, ``mp.besseli``) of order ``v >= 0``,
    by DLMF 10.6.1 and 10.29.1 (mpmath's own derivatives, and its negative integer orders, do not return
    for some tiny and large arguments). Y is defined for x > 0 only (a float32 rounds 1e-300 to 0)."""
    sign = 1 if kind is mp.besseli else -1

    def derivative(x):
        if kind is mp.bessely and x <= 0:
            raise ValueError("Y_v is defined for x > 0")
        if v == 0:
            return sign * kind(1, x)  # I_0' = I_1, J_0' = -J_1, Y_0' = -Y_1
        return (kind(v - 1, x) + sign * kind(v + 1, x)) / 2

    return derivative


def besseli_scaled(v):
    """d/dx I_v(x) exp(-|x|)."""
    return lambda x: (bessel_derivative(mp.besseli, v)(x) - mp.sign(x) * mp.besseli(v, x)) * mp.exp(-abs(x))


K_LINE = (1e-300, 1e-8, 0.5, 1.0, 10.0, 100.0, 600.0)


def erfcx_derivative(x):
    """2 x erfcx(x) - 2/sqrt(pi), with the digits that exp(x²) and the cancellation of its two terms
    (about 1/x² of them) take."""
    with mp.workdps(50 + 4 * int(mp.log10(abs(x) + 1))):
        return 2 * x * mp.exp(x**2) * mp.erfc(x) - 2 / mp.sqrt(mp.pi)


def besselk_derivative(v, scaled):
    """d/dx K_v(x) (DLMF 10.29.1), times exp(x) and plus that of the scale if ``scaled``."""

    def derivative(x):
        d = -(mp.besselk(v - 1, x) + mp.besselk(v + 1, x)) / 2
        return (d + mp.besselk(v, x)) * mp.exp(x) if scaled else d

    return derivative


def log_ratio(x, y):
    return mp.log(x / y)


def near_zero(name, zero):
    """The exception for the derivative ``±name`` of a Bessel function near a zero of ``name``."""
    return Loose(
        f"near the zero {zero} of {name}, the derivative's own value, SciPy's {name} has an absolute (not a relative) "
        "accuracy of about 1e-16",
        atol=2e-16,
        where=lambda x: abs(abs(x) - zero) < 1e-6,
    )


IV_TINY = Loose(
    "SciPy's iv (AMOS) underflows to 0 below x = 1e-150 or so, and is NaN at subnormal x, where I_v is a normal number",
    rtol=math.inf,
    backends=("numpy",),
    where=lambda x: abs(x) < 1e-100,
)
IVE_LARGE = (
    # ive' = (ive(v-1) + ive(v+1)) / 2 - sign(x) ive(v), three values of 1 / sqrt(2 pi x) whose sum is 1 / (2x) times smaller
    Loose(
        "the derivative of ive is a difference of nearly equal terms for large |x|: relative error about 2 eps |x|",
        rtol=1e-9,
        dtypes=("float64",),
        where=lambda x: abs(x) > 1e4,
    ),
    Loose("as in float64", rtol=0.2, dtypes=("float32",), where=lambda x: abs(x) > 1e3),
)

SPECIAL = [
    *special_lines("gamma", special.gamma, [lambda x: mp.gamma(x) * mp.digamma(x)], GAMMA_LINE),
    *special_lines("gammaln", special.gammaln, [mp.digamma], (*GAMMA_LINE, 1e5, 1e10, 1e300)),
    *special_lines("digamma", special.digamma, [lambda x: mp.psi(1, x)], GAMMA_LINE),
    *special_lines("psi", special.psi, [lambda x: mp.psi(1, x)], GAMMA_POSITIVE),
    *special_lines("polygamma_1", lambda x: special.polygamma(1, x), [lambda x: mp.psi(2, x)], GAMMA_POSITIVE),
    *special_lines("polygamma_3", lambda x: special.polygamma(3, x), [lambda x: mp.psi(4, x)], GAMMA_POSITIVE[1:]),
    *special_lines("rgamma", special.rgamma, [lambda x: mp.diff(mp.rgamma, x)], (*GAMMA_LINE, 0.0, -1.0, -2.0, -10.0)),
    *special_lines(
        "multigammaln",
        lambda a: special.multigammaln(a, 3),
        [lambda a: mp.digamma(a) + mp.digamma(a - 0.5) + mp.digamma(a - 1)],
        (1 + 1e-8, 1.5, 10.0, 1e5, 1e10),
    ),
    *special_lines(
        "beta",
        special.beta,
        [
            lambda a, b: mp.beta(a, b) * (mp.digamma(a) - mp.digamma(a + b)),
            lambda a, b: mp.beta(a, b) * (mp.digamma(b) - mp.digamma(a + b)),
        ],
        pairs((1.0, 2.0), (0.5, 0.5), (1e-8, 3.0), (2.5, 1e-8), (10.0, 20.0), (100.0, 3.5)),
    ),
    *special_lines(
        "betaln",
        special.betaln,
        [lambda a, b: mp.digamma(a) - mp.digamma(a + b), lambda a, b: mp.digamma(b) - mp.digamma(a + b)],
        pairs((1.0, 2.0), (0.5, 0.5), (1e-8, 3.0), (2.5, 1e-8), (10.0, 20.0), (100.0, 3.5), (1e5, 2e5)),
    ),
    *special_lines(
        "betainc",
        lambda x: special.betainc(np.full_like(x, 2.5), np.full_like(x, 0.5), x),
        [lambda x: x**1.5 * (1 - x) ** -0.5 / mp.beta(2.5, 0.5)],
        (1e-300, 1e-8, 0.3, 0.5, 0.9, 1 - 1e-8, 1 - 2.0**-53),
    ),
    *special_lines(
        "gammainc",
        lambda x: special.gammainc(np.full_like(x, 3.5), x),
        [lambda x: x**2.5 * mp.exp(-x) / mp.gamma(3.5)],
        (1e-300, 1e-8, 0.5, 3.5, 10.0, 100.0, 700.0),
    ),
    *special_lines(
        "gammaincc",
        lambda x: special.gammaincc(np.full_like(x, 0.5), x),
        [lambda x: -(x**-0.5) * mp.exp(-x) / mp.gamma(0.5)],
        (1e-300, 1e-8, 0.5, 3.5, 10.0, 100.0, 700.0),
    ),
    *special_lines("gammainc_shape", special.gammainc, [lambda a, x: gammainc_shape(a, x), None], GAMMA_SHAPE_GRID),
    *special_lines("gammaincc_shape", special.gammaincc, [lambda a, x: -gammainc_shape(a, x), None], GAMMA_SHAPE_GRID),
    *special_lines("betainc_shape", special.betainc, [betainc_shape(0), betainc_shape(1), None], BETA_SHAPE_GRID),
    *special_lines(
        "betaincc_shape",
        special.betaincc,
        [lambda *p: -betainc_shape(0)(*p), lambda *p: -betainc_shape(1)(*p), None],
        BETA_SHAPE_GRID,
    ),
    *special_lines(
        "gammaincinv_shape",
        special.gammaincinv,
        [GAMMAINCINV_SHAPE(0), GAMMAINCINV_Y],
        INVERSE_GAMMA_GRID,
        exceptions=(FLOAT32_LARGE_SHAPE,),
    ),
    *special_lines(
        "gammainccinv_shape",
        special.gammainccinv,
        [GAMMAINCCINV_SHAPE(0), GAMMAINCCINV_Y],
        INVERSE_GAMMA_GRID,
        exceptions=(FLOAT32_LARGE_SHAPE,),
    ),
    *special_lines(
        "betaincinv_shape",
        special.betaincinv,
        [BETAINCINV_SHAPE(0), BETAINCINV_SHAPE(1), BETAINCINV_Y],
        INVERSE_BETA_GRID,
        exceptions=(*near_one(scipy.special.betaincinv), SCIPY_FLOAT32_BETAINCINV),
    ),
    *accurate(
        "betainccinv_shape",
        special.betainccinv,
        [BETAINCCINV_SHAPE(0), BETAINCCINV_SHAPE(1), BETAINCCINV_Y],
        INVERSE_BETA_GRID,
        exceptions=(*near_one(scipy.special.betainccinv), SCIPY_FLOAT32_BETAINCINV),
        skip={**needs_scipy("betainccinv"), "cupy": "cupyx.scipy.special has no betainccinv"},
    ),
    *special_lines(
        "lambertw",
        lambda x: np.real(special.lambertw(x)),
        [lambda x: 1 / (mp.exp(mp.lambertw(x)) * (1 + mp.lambertw(x)))],  # W / (x (1 + W)), 1 at 0
        (-0.36787944117144233, -0.3678, -0.3, 0.0, *TINY[:4], 0.5, 1.0, 10.0, 1e5, 1e300),
    ),
    *special_lines("erf", special.erf, [lambda x: 2 / SQRT_PI * mp.exp(-(x**2))], (0.0, *TINY, *sym(0.5, 3.0, 6.0, 26.0, 27.5))),
    *special_lines(
        "erfc", special.erfc, [lambda x: -2 / SQRT_PI * mp.exp(-(x**2))], (0.0, *TINY, *sym(0.5, 3.0, 6.0, 26.0, 27.5))
    ),
    *special_lines(
        "erfinv",
        special.erfinv,
        [inverse_derivative(mp.erf, lambda x: 2 / SQRT_PI * mp.exp(-(x**2)), scipy.special.erfinv)],
        BELOW_ONE,
    ),
    *special_lines(
        "erfcinv",
        special.erfcinv,
        [inverse_derivative(mp.erfc, lambda x: -2 / SQRT_PI * mp.exp(-(x**2)), scipy.special.erfcinv)],
        (1e-300, 1e-100, 1e-10, 0.5, 1.0, 1.5, 2 - 1e-10, 2 - 2.0**-52),
    ),
    *special_lines("ndtr", special.ndtr, [phi], (0.0, *TINY, *sym(0.5, 3.0, 10.0, 37.0, 39.0))),
    *special_lines(
        "log_ndtr", special.log_ndtr, [lambda x: phi(x) / mp.ncdf(x)], (-1e5, -1e3, -40.0, -20.0, -5.0, 0.0, 5.0, 10.0, 30.0)
    ),
    *special_lines("ndtri", special.ndtri, [inverse_derivative(mp.ncdf, phi, scipy.special.ndtri)], UNIT),
    *special_lines(
        "j0", special.j0, [bessel_derivative(mp.besselj, 0)], J_LINE, exceptions=(near_zero("j1", 3.8317059702075125),)
    ),
    *special_lines("j1", special.j1, [bessel_derivative(mp.besselj, 1)], J_LINE),
    *special_lines(
        "y0", special.y0, [bessel_derivative(mp.bessely, 0)], Y_LINE, exceptions=(near_zero("y1", 2.197141326031017),)
    ),
    *special_lines("y1", special.y1, [bessel_derivative(mp.bessely, 1)], Y_LINE),
    *special_lines("jn_2", lambda x: special.jn(2, x), [bessel_derivative(mp.besselj, 2)], J_LINE),
    *special_lines("jn_real_order", lambda x: special.jn(1.5, x), [bessel_derivative(mp.besselj, 1.5)], Y_LINE),
    *special_lines("yn_3", lambda x: special.yn(3, x), [bessel_derivative(mp.bessely, 3)], Y_LINE[1:]),
    *special_lines("i0", special.i0, [bessel_derivative(mp.besseli, 0)], I_LINE),
    *special_lines("i1", special.i1, [bessel_derivative(mp.besseli, 1)], I_LINE),
    *special_lines("iv_2", lambda x: special.iv(2, x), [bessel_derivative(mp.besseli, 2)], I_LINE, exceptions=(IV_TINY,)),
    *special_lines(
        "iv_real_order", lambda x: special.iv(1.5, x), [bessel_derivative(mp.besseli, 1.5)], Y_LINE, exceptions=(IV_TINY,)
    ),
    *special_lines("ive_1", lambda x: special.ive(1, x), [besseli_scaled(1)], (*I_LINE, *sym(1e4, 1e6)), exceptions=IVE_LARGE),
    *special_lines(
        "ive_real_order",
        lambda x: special.ive(0.5, x),
        [besseli_scaled(0.5)],
        (*Y_LINE, 1e6),
        exceptions=(
            *IVE_LARGE,
            Loose("SciPy's ive(-1/2, 0) is NaN, where the limit is +inf", rtol=math.inf, where=lambda x: x == 0),
        ),
    ),
    *special_lines(
        "erfcx",
        special.erfcx,
        [erfcx_derivative],
        (0.0, *TINY, *sym(0.5, 3.0, 11.9, 12.1, 26.0), 30.0, 1e3, 1e8, 1e30),  # 1e30: float32 holds it
    ),
    *special_lines(
        "i0e", special.i0e, [besseli_scaled(0)], (*TINY, *sym(0.5, 1.0, 10.0, 100.0, 700.0, 1e4, 1e6)), exceptions=IVE_LARGE
    ),
    *special_lines(
        "i1e", special.i1e, [besseli_scaled(1)], (0.0, *TINY, *sym(5e-5, 2e-4, 0.5, 10.0, 700.0, 1e4, 1e6)), exceptions=IVE_LARGE
    ),
    *special_lines("kv_1", lambda x: special.kv(1, x), [besselk_derivative(1, scaled=False)], K_LINE),
    *special_lines("kv_real_order", lambda x: special.kv(0.3, x), [besselk_derivative(0.3, scaled=False)], K_LINE),
    *special_lines("kve_0", lambda x: special.kve(0, x), [besselk_derivative(0, scaled=True)], K_LINE, exceptions=IVE_LARGE),
    *special_lines(
        "kve_real_order", lambda x: special.kve(2.5, x), [besselk_derivative(2.5, scaled=True)], K_LINE, exceptions=IVE_LARGE
    ),
    *special_lines("exp1", special.exp1, [lambda x: -mp.exp(-x) / x], (1e-300, 1e-8, 0.5, 1.0, 10.0, 100.0, 700.0)),
    *special_lines("expi", special.expi, [lambda x: mp.exp(x) / x], (*TINY, *sym(0.5, 0.3725074107813666, 10.0, 100.0, 700.0))),
    *special_lines(
        "wrightomega",
        special.wrightomega,
        [lambda x: mp.lambertw(mp.exp(x)) / (1 + mp.lambertw(mp.exp(x)))],
        (0.0, *TINY, *sym(0.5, 2.0, 30.0, 700.0), -740.0, 1e5, 1e300),
    ),
    *special_lines("expit", special.expit, [lambda x: expit(x) * expit(-x)], (*REAL_LINE, *sym(36.0, 745.0))),
    *special_lines("log_expit", special.log_expit, [lambda x: expit(-x)], (*REAL_LINE, *sym(36.0, 745.0))),
    *special_lines("logit", special.logit, [lambda p: 1 / (p * (1 - p))], UNIT),
    *special_lines(
        "xlogy",
        special.xlogy,
        [lambda x, y: mp.log(y), lambda x, y: x / y],
        pairs((2.0, 3.0), (-1.5, 1 + 1e-12), (1e-300, 1e300), (1e300, 1e-300), (0.5, 1e-8), (3.0, 1.0)),
    ),
    *special_lines(
        "xlog1py",
        special.xlog1py,
        [lambda x, y: mp.log1p(y), lambda x, y: x / (1 + y)],
        pairs((2.0, 3.0), (-1.5, 1e-12), (1e-300, 1e300), (0.5, -1 + 1e-8), (3.0, -1e-300), (0.5, 1e-8)),
    ),
    *special_lines(
        "rel_entr",
        special.rel_entr,
        [lambda x, y: log_ratio(x, y) + 1, lambda x, y: -x / y],
        pairs((2.0, 3.0), (1.0, 1.0 + 1e-8), (1e-300, 1e300), (1e300, 1e-300), (0.5, 1e-8), (3.0, 1.0)),
    ),
    *special_lines(
        "kl_div",
        special.kl_div,
        [log_ratio, lambda x, y: 1 - x / y],
        pairs((2.0, 3.0), (1.0, 1.0 + 1e-8), (1e10, 1e10 + 1.0), (1e-30, 1e30), (1e300, 1e-300), (0.5, 1e-8), (3.0, 1.0)),
    ),
    *special_lines("entr", special.entr, [lambda x: -(mp.log(x) + 1)], (1e-300, 1e-8, 0.3, 0.5, 1.0, 2.0, 1e8, 1e300)),
]

TABLE = NUMPY + SPECIAL
assert len({line.name for line in TABLE}) == len(TABLE), "names in the accuracy table must be unique"


def subnormal(*args):
    """The points with a subnormal argument."""
    return numpy.any([(a != 0) & (abs(a) < numpy.finfo(a.dtype).tiny) for a in args], axis=0)


#: an exception of every line (a property of the backend, not of a rule)
FLUSHED_TO_ZERO = Loose("XLA flushes subnormal inputs to zero on the CPU", rtol=math.inf, backends=("jax",), where=subnormal)
for line in TABLE:
    line.exceptions = (*line.exceptions, FLUSHED_TO_ZERO)

#: the lines also run on Dask (one per kind of rule: Dask's elementwise arithmetic is NumPy's, and each line builds graphs)
DASK_LINES = {"expm1", "tanh", "arctanh", "arcsinh", "sinc", "arctan2[x]", "logaddexp[y]", "logaddexp2[x]", "remainder[y]"}
DASK_LINES |= {"expit", "kl_div[x]", "kl_div[y]"}
for line in TABLE:
    if line.name not in DASK_LINES:
        line.skip.setdefault("dask", "a few lines only run on Dask (DASK_LINES), whose elementwise arithmetic is NumPy's")

test_derivative_accuracy = accuracy_tests(TABLE)

@pytest.mark.parametrize("dtype", REAL)
def test_remainder_is_sampled_beside_its_jumps(dtype):
    """At each point of ``remainder``'s line, ``floor(x / y)`` computed in ``dtype`` is the exact quotient's floor:
    no point lies within a rounding of a jump, where a library computing ``floor(x / y)`` (CuPy) gives the other
    side's derivative."""
    (line,) = [line for line in TABLE if line.name == "remainder[y]"]
    for x, y in line.points:
        x, y = numpy.asarray(x, dtype), numpy.asarray(y, dtype)
        exact = math.floor(Fraction(float(x)) / Fraction(float(y)))
        computed = numpy.floor(x / y)
        assert computed == exact, f"remainder at ({x}, {y}) in {dtype}: floor(x / y) is {computed}, exactly {exact}"


#: the functions of adcore.scipy.special that are not elementwise, or not differentiable
NOT_ELEMENTWISE = {"logsumexp", "softmax", "log_softmax", "gammasgn"}


def test_the_table_covers_every_elementwise_function():
    """Each elementwise function of the spec table of ``adcore.numpy`` (``Spec.elementwise``) and each
    function of ``adcore.scipy.special`` has a line here (a line ``name``, ``name[x]`` or ``name_...``)."""
    from test_numpy_rules import SPECS

    names = {line.name for line in TABLE}

    def covered(function):
        return any(n == function or n.startswith((f"{function}[", f"{function}_")) for n in names)

    numpy_functions = {s.fun.__name__ for s in SPECS if s.elementwise and s.dtypes[0] in REAL} - {"<lambda>"}
    special_functions = set(special.__all__) - NOT_ELEMENTWISE
    assert not {f for f in numpy_functions | special_functions if not covered(f)}


def report(backend_cases):
    """Print the largest relative error of each line per backend, dtype and mode (at the points where
    the derivative is a normal float), and the points above the bound."""
    for spec in TABLE:
        for case in backend_cases:
            if case.name in spec.skip:
                continue
            for dtype in REAL:
                worst = []
                for mode in ("rev", "fwd"):
                    try:
                        e = accuracy_errors(spec, case, dtype, mode)
                    except Exception as exc:  # noqa: BLE001 - a report lists what fails
                        worst.append(f"{mode}: {type(exc).__name__}: {str(exc)[:80]}")
                        continue
                    finite = e.error[numpy.isfinite(e.error)]
                    worst.append(
                        f"{mode} {finite.max() if finite.size else 0:.1e}"
                        + "".join(
                            f" | {tuple(float(a[i]) for a in e.points)}: {e.computed[i]:.3g} vs {e.expected[i]:.3g}"
                            for i in numpy.flatnonzero(~e.ok)[:4]
                        )
                    )
                print(f"{spec.name:24s} {case.id:18s} {dtype:8s} " + " ; ".join(worst))


if __name__ == "__main__":
    import sys

    from conftest import TEST_BACKENDS

    wanted = sys.argv[1:] or ["numpy"]
    report([case for case in TEST_BACKENDS if case.id in wanted])

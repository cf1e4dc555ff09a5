"""The beta distribution with shapes ``a`` and ``b`` on [0, 1]: ``scipy.stats.beta``'s functions.

Density ``x^(a-1) (1-x)^(b-1) / B(a, b)`` (standardised by ``loc`` and ``scale``),
as compositions of ``adcore.numpy`` and ``adcore.scipy.special`` functions.
``logpdf`` and ``pdf`` are differentiable in every argument, to any order; ``cdf``,
``logcdf``, ``sf`` and ``logsf`` (``betainc``) too, their derivatives in ``a`` and ``b``
being ``special.betainc``'s (a continued fraction differentiated in the shapes, relative
error below 2e-12 for shapes up to 1000, first order only: the second derivative in
``a`` and ``b`` raises ``NotImplementedError``). The arguments broadcast; the result has their floating dtype; NaN
where ``a``, ``b`` or ``scale`` is not positive. Only ``numpy`` and ``cupy`` have
the special functions these need.
"""

import math

from ...numpy import wrapper as anp
from ..special import betainc, betaln, xlog1py, xlogy
from ._util import positive, standardized, valid

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x, a, b, loc=0.0, scale=1.0):
    """``(a-1) log z + (b-1) log(1-z) - log B(a, b) - log(scale)`` on ``0 <= z <= 1``, else -inf."""
    z, scale, a, b = standardized(x, loc, scale, a, b)
    inside = anp.logical_and(anp.greater_equal(z, 0), anp.less_equal(z, 1))
    z_in = anp.where(inside, z, 0.5)
    value = anp.add(xlogy(anp.subtract(a, 1.0), z_in), xlog1py(anp.subtract(b, 1.0), anp.negative(z_in)))
    value = anp.subtract(value, anp.add(betaln(a, b), anp.log(scale)))
    return valid(anp.where(inside, value, -math.inf), positive(a), positive(b), positive(scale))


def pdf(x, a, b, loc=0.0, scale=1.0):
    """``exp(logpdf(x, a, b, loc, scale))``."""
    return anp.exp(logpdf(x, a, b, loc, scale))


def _clamped(z, below, between, above):
    """``below`` for ``z <= 0``, ``above`` for ``z >= 1``, else ``between(z)`` (evaluated where-safely)."""
    inside = anp.logical_and(anp.greater(z, 0), anp.less(z, 1))
    return anp.where(anp.less_equal(z, 0), below, anp.where(inside, between(anp.where(inside, z, 0.5)), above))


def cdf(x, a, b, loc=0.0, scale=1.0):
    """``I_z(a, b)`` (``special.betainc``), clamped to 0 and 1 outside [0, 1]."""
    z, scale, a, b = standardized(x, loc, scale, a, b)
    value = _clamped(z, 0.0, lambda z_in: betainc(a, b, z_in), 1.0)
    return valid(value, positive(a), positive(b), positive(scale))


def logcdf(x, a, b, loc=0.0, scale=1.0):
    """``log(cdf(x, a, b, loc, scale))``."""
    return anp.log(cdf(x, a, b, loc, scale))


def sf(x, a, b, loc=0.0, scale=1.0):
    """``I_(1-z)(b, a) = 1 - I_z(a, b)`` (DLMF 8.17.4), accurate in the upper tail."""
    z, scale, a, b = standardized(x, loc, scale, a, b)
    value = _clamped(z, 1.0, lambda z_in: betainc(b, a, 1.0 - z_in), 0.0)
    return valid(value, positive(a), positive(b), positive(scale))


def logsf(x, a, b, loc=0.0, scale=1.0):
    """``log(sf(x, a, b, loc, scale))``."""
    return anp.log(sf(x, a, b, loc, scale))

"""The gamma distribution with shape ``a``: ``scipy.stats.gamma``'s functions.

Density ``x^(a-1) e^(-x) / Γ(a)`` on ``x >= 0`` (standardised by ``loc`` and
``scale``), as compositions of ``adcore.numpy`` and ``adcore.scipy.special``
functions. ``logpdf`` and ``pdf`` are differentiable in every argument, to any
order; ``cdf``, ``logcdf``, ``sf`` and ``logsf`` (``gammainc``, ``gammaincc``) too,
their derivative in ``a`` being ``special.gammainc``'s (a series and a continued
fraction, relative error below 2e-12 for a up to 1000, first order only: the second
derivative in ``a`` raises ``NotImplementedError``). The arguments broadcast; the result has their floating
dtype; NaN where ``a <= 0`` or ``scale <= 0``. Only ``numpy`` and ``cupy`` have the
special functions these need.
"""

import math

from ...numpy import wrapper as anp
from ..special import gammainc, gammaincc, gammaln, xlogy
from ._util import positive, standardized, valid

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x, a, loc=0.0, scale=1.0):
    """``(a - 1) log z - z - log Γ(a) - log(scale)`` for ``z = (x - loc) / scale >= 0``, else -inf."""
    z, scale, a = standardized(x, loc, scale, a)
    inside = anp.greater_equal(z, 0)
    z_in = anp.where(inside, z, 1.0)
    value = anp.subtract(anp.subtract(xlogy(anp.subtract(a, 1.0), z_in), z_in), anp.add(gammaln(a), anp.log(scale)))
    return valid(anp.where(inside, value, -math.inf), positive(a), positive(scale))


def pdf(x, a, loc=0.0, scale=1.0):
    """``exp(logpdf(x, a, loc, scale))``."""
    return anp.exp(logpdf(x, a, loc, scale))


def cdf(x, a, loc=0.0, scale=1.0):
    """``P(a, z)`` (``special.gammainc``) for ``z > 0``, else 0."""
    z, scale, a = standardized(x, loc, scale, a)
    above = anp.greater(z, 0)
    return valid(anp.where(above, gammainc(a, anp.where(above, z, 1.0)), 0.0), positive(a), positive(scale))


def logcdf(x, a, loc=0.0, scale=1.0):
    """``log(cdf(x, a, loc, scale))``."""
    return anp.log(cdf(x, a, loc, scale))


def sf(x, a, loc=0.0, scale=1.0):
    """``Q(a, z)`` (``special.gammaincc``) for ``z > 0``, else 1; accurate in the upper tail."""
    z, scale, a = standardized(x, loc, scale, a)
    above = anp.greater(z, 0)
    return valid(anp.where(above, gammaincc(a, anp.where(above, z, 1.0)), 1.0), positive(a), positive(scale))


def logsf(x, a, loc=0.0, scale=1.0):
    """``log(sf(x, a, loc, scale))``."""
    return anp.log(sf(x, a, loc, scale))

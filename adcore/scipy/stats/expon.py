"""The exponential distribution: ``scipy.stats.expon``'s functions, differentiable in every argument.

Density ``e^(-z) / scale`` for ``z = (x - loc) / scale >= 0``: compositions of
``adcore.numpy`` functions, on every backend. The arguments broadcast; the result
has their floating dtype; NaN where ``scale <= 0``.
"""

import math

from ...numpy import wrapper as anp
from ._util import positive, standardized, valid

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]

_LN2 = math.log(2.0)


def _above(z):
    """``(z > 0, z there and 1 elsewhere)``: the support and a where-safe ``z``."""
    above = anp.greater(z, 0)
    return above, anp.where(above, z, 1.0)


def logpdf(x, loc=0.0, scale=1.0):
    """``-z - log(scale)`` for ``z >= 0``, else -inf."""
    z, scale = standardized(x, loc, scale)
    value = anp.where(anp.greater_equal(z, 0), anp.subtract(anp.negative(z), anp.log(scale)), -math.inf)
    return valid(value, positive(scale))


def pdf(x, loc=0.0, scale=1.0):
    """``exp(logpdf(x, loc, scale))``."""
    return anp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0.0, scale=1.0):
    """``1 - e^(-z) = -expm1(-z)`` for ``z > 0``, else 0."""
    z, scale = standardized(x, loc, scale)
    above, z_in = _above(z)
    return valid(anp.where(above, anp.negative(anp.expm1(anp.negative(z_in))), 0.0), positive(scale))


def logcdf(x, loc=0.0, scale=1.0):
    """``log(1 - e^(-z))``, accurate for small and large ``z`` (Mächler's log1mexp), -inf for ``z <= 0``."""
    z, scale = standardized(x, loc, scale)
    above, z_in = _above(z)
    small = anp.log(anp.negative(anp.expm1(anp.negative(z_in))))
    large = anp.log1p(anp.negative(anp.exp(anp.negative(z_in))))
    return valid(anp.where(above, anp.where(anp.less(z_in, _LN2), small, large), -math.inf), positive(scale))


def sf(x, loc=0.0, scale=1.0):
    """``e^(-z)`` for ``z > 0``, else 1."""
    z, scale = standardized(x, loc, scale)
    above, z_in = _above(z)
    return valid(anp.where(above, anp.exp(anp.negative(z_in)), 1.0), positive(scale))


def logsf(x, loc=0.0, scale=1.0):
    """``-z`` for ``z > 0``, else 0."""
    z, scale = standardized(x, loc, scale)
    return valid(anp.where(anp.greater(z, 0), anp.negative(z), 0.0), positive(scale))

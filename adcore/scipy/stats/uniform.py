"""The uniform distribution on [loc, loc + scale]: ``scipy.stats.uniform``'s functions.

Compositions of ``adcore.numpy`` functions, on every backend, differentiable in
every argument (piecewise: ``cdf`` has derivative ``1 / scale`` in ``x`` inside
the interval and 0 outside). The arguments broadcast; the result has their
floating dtype; NaN where ``scale <= 0``.
"""

import math

from ...numpy import wrapper as anp
from ._util import positive, standardized, valid

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def _inside(z):
    return anp.logical_and(anp.greater_equal(z, 0), anp.less_equal(z, 1))


def logpdf(x, loc=0.0, scale=1.0):
    """``-log(scale)`` on ``0 <= z <= 1``, else -inf (``z = (x - loc) / scale``)."""
    z, scale = standardized(x, loc, scale)
    return valid(anp.where(_inside(z), anp.negative(anp.log(scale)), -math.inf), positive(scale))


def pdf(x, loc=0.0, scale=1.0):
    """``exp(logpdf(x, loc, scale))``: ``1 / scale`` inside, 0 outside."""
    return anp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0.0, scale=1.0):
    """``z`` clamped to [0, 1]."""
    z, scale = standardized(x, loc, scale)
    return valid(anp.where(anp.less(z, 0), 0.0, anp.where(anp.greater(z, 1), 1.0, z)), positive(scale))


def logcdf(x, loc=0.0, scale=1.0):
    """``log(cdf(x, loc, scale))``."""
    return anp.log(cdf(x, loc, scale))


def sf(x, loc=0.0, scale=1.0):
    """``1 - z`` clamped to [0, 1]."""
    z, scale = standardized(x, loc, scale)
    return valid(anp.where(anp.less(z, 0), 1.0, anp.where(anp.greater(z, 1), 0.0, 1.0 - z)), positive(scale))


def logsf(x, loc=0.0, scale=1.0):
    """``log(sf(x, loc, scale))``."""
    return anp.log(sf(x, loc, scale))

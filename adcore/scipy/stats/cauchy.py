"""The Cauchy distribution: ``scipy.stats.cauchy``'s functions, differentiable in every argument.

Density ``1 / (π scale (1 + z²))``, ``z = (x - loc) / scale``: compositions of
``adcore.numpy`` functions, on every backend. The arguments broadcast; the result
has their floating dtype; NaN where ``scale <= 0``.
"""

import math

from ...numpy import wrapper as anp
from ._util import positive, standardized, valid

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]

_LOG_PI = math.log(math.pi)


def logpdf(x, loc=0.0, scale=1.0):
    """``-log(π scale) - log1p(z²)``."""
    z, scale = standardized(x, loc, scale)
    return valid(anp.subtract(anp.negative(anp.log1p(anp.square(z))) - _LOG_PI, anp.log(scale)), positive(scale))


def pdf(x, loc=0.0, scale=1.0):
    """``exp(logpdf(x, loc, scale))``."""
    return anp.exp(logpdf(x, loc, scale))


def _standard_cdf(z):
    """``1/2 + arctan(z) / π``, as ``arctan(-1/z) / π`` below 0 (no cancellation in the lower tail)."""
    below = anp.less(z, 0)
    z_neg = anp.where(below, z, -1.0)
    return anp.where(below, anp.arctan(-1.0 / z_neg) / math.pi, 0.5 + anp.arctan(z) / math.pi)


def cdf(x, loc=0.0, scale=1.0):
    """``1/2 + arctan(z) / π``."""
    z, scale = standardized(x, loc, scale)
    return valid(_standard_cdf(z), positive(scale))


def logcdf(x, loc=0.0, scale=1.0):
    """``log(cdf(x, loc, scale))``."""
    return anp.log(cdf(x, loc, scale))


def sf(x, loc=0.0, scale=1.0):
    """``cdf`` at ``-z`` (the distribution is symmetric)."""
    z, scale = standardized(x, loc, scale)
    return valid(_standard_cdf(anp.negative(z)), positive(scale))


def logsf(x, loc=0.0, scale=1.0):
    """``log(sf(x, loc, scale))``."""
    return anp.log(sf(x, loc, scale))

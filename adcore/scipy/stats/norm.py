"""The normal distribution N(loc, scale²): ``scipy.stats.norm``'s functions, differentiable in every argument.

Compositions of ``adcore.numpy`` functions and ``adcore.scipy.special``'s ``ndtr``
and ``log_ndtr``, so the derivatives in ``x``, ``loc`` and ``scale`` (every order,
both modes) come from their rules. The arguments broadcast; the result has their
floating dtype (float32 stays float32), on their backend and device; NaN where
``scale <= 0``, as in SciPy. ``pdf`` and ``logpdf`` run on every backend; the
others need ``ndtr`` (numpy, cupy).
"""

import math

from ...numpy import wrapper as anp
from ..special import log_ndtr, ndtr
from ._util import positive, standardized, valid

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


def logpdf(x, loc=0.0, scale=1.0):
    """``-z²/2 - log(scale) - log √(2π)`` with ``z = (x - loc) / scale``."""
    z, scale = standardized(x, loc, scale)
    return valid(anp.subtract(anp.multiply(anp.square(z), -0.5) - _LOG_SQRT_2PI, anp.log(scale)), positive(scale))


def pdf(x, loc=0.0, scale=1.0):
    """``exp(logpdf(x, loc, scale))``."""
    return anp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0.0, scale=1.0):
    """``Φ(z)`` (``special.ndtr``)."""
    z, scale = standardized(x, loc, scale)
    return valid(ndtr(z), positive(scale))


def logcdf(x, loc=0.0, scale=1.0):
    """``log Φ(z)`` (``special.log_ndtr``, accurate in the lower tail)."""
    z, scale = standardized(x, loc, scale)
    return valid(log_ndtr(z), positive(scale))


def sf(x, loc=0.0, scale=1.0):
    """``1 - Φ(z) = Φ(-z)``, accurate in the upper tail."""
    z, scale = standardized(x, loc, scale)
    return valid(ndtr(anp.negative(z)), positive(scale))


def logsf(x, loc=0.0, scale=1.0):
    """``log Φ(-z)``."""
    z, scale = standardized(x, loc, scale)
    return valid(log_ndtr(anp.negative(z)), positive(scale))

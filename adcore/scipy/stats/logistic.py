"""The logistic distribution: ``scipy.stats.logistic``'s functions, differentiable in every argument.

``cdf = expit(z)``, ``z = (x - loc) / scale``, and the density is
``expit(z) expit(-z) / scale``: compositions of ``special.expit`` and
``special.log_expit``, which run on every backend (built from the Array API's
operations where the backend has no ``scipy.special``). The arguments broadcast;
the result has their floating dtype; NaN where ``scale <= 0``.
"""

from ...numpy import wrapper as anp
from ..special import expit, log_expit
from ._util import positive, standardized, valid

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x, loc=0.0, scale=1.0):
    """``log_expit(z) + log_expit(-z) - log(scale)`` (smooth at 0, unlike the ``|z|`` form)."""
    z, scale = standardized(x, loc, scale)
    return valid(anp.subtract(anp.add(log_expit(z), log_expit(anp.negative(z))), anp.log(scale)), positive(scale))


def pdf(x, loc=0.0, scale=1.0):
    """``exp(logpdf(x, loc, scale))``."""
    return anp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0.0, scale=1.0):
    """``expit(z)``."""
    z, scale = standardized(x, loc, scale)
    return valid(expit(z), positive(scale))


def logcdf(x, loc=0.0, scale=1.0):
    """``log_expit(z)``."""
    z, scale = standardized(x, loc, scale)
    return valid(log_expit(z), positive(scale))


def sf(x, loc=0.0, scale=1.0):
    """``expit(-z)``."""
    z, scale = standardized(x, loc, scale)
    return valid(expit(anp.negative(z)), positive(scale))


def logsf(x, loc=0.0, scale=1.0):
    """``log_expit(-z)``."""
    z, scale = standardized(x, loc, scale)
    return valid(log_expit(anp.negative(z)), positive(scale))

"""The chi-squared distribution with ``df`` degrees of freedom: ``scipy.stats.chi2``'s functions.

The gamma distribution with shape ``df / 2`` and scale ``2 * scale``, so each
function is the ``adcore.scipy.stats.gamma`` one, with its derivatives in every
argument (``cdf``, ``logcdf``, ``sf`` and ``logsf`` in ``df`` to first order only,
as ``gamma``'s in ``a``). NaN where ``df <= 0`` or ``scale <= 0``.
"""

from ...numpy import wrapper as anp
from . import gamma
from ._util import promote

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def _as_gamma(x, df, loc, scale):
    """The gamma distribution's arguments: ``(x, df / 2, loc, 2 * scale)``, promoted first (so
    Python-scalar parameters keep a float32 ``x`` float32)."""
    x, df, loc, scale = promote(x, df, loc, scale)
    return x, anp.multiply(df, 0.5), loc, anp.multiply(scale, 2.0)


def logpdf(x, df, loc=0.0, scale=1.0):
    """``gamma.logpdf(x, df / 2, loc, 2 * scale)``."""
    return gamma.logpdf(*_as_gamma(x, df, loc, scale))


def pdf(x, df, loc=0.0, scale=1.0):
    """``gamma.pdf(x, df / 2, loc, 2 * scale)``."""
    return gamma.pdf(*_as_gamma(x, df, loc, scale))


def cdf(x, df, loc=0.0, scale=1.0):
    """``gamma.cdf(x, df / 2, loc, 2 * scale)``."""
    return gamma.cdf(*_as_gamma(x, df, loc, scale))


def logcdf(x, df, loc=0.0, scale=1.0):
    """``gamma.logcdf(x, df / 2, loc, 2 * scale)``."""
    return gamma.logcdf(*_as_gamma(x, df, loc, scale))


def sf(x, df, loc=0.0, scale=1.0):
    """``gamma.sf(x, df / 2, loc, 2 * scale)``."""
    return gamma.sf(*_as_gamma(x, df, loc, scale))


def logsf(x, df, loc=0.0, scale=1.0):
    """``gamma.logsf(x, df / 2, loc, 2 * scale)``."""
    return gamma.logsf(*_as_gamma(x, df, loc, scale))

"""The chi-squared distribution with ``df`` degrees of freedom: ``scipy.stats.chi2``'s functions.

The gamma distribution with shape ``df / 2`` and scale ``2 * scale``, so each
function is the ``adcore.scipy.stats.gamma`` one, with its derivatives in every
argument (``cdf``, ``logcdf``, ``sf`` and ``logsf`` in ``df`` to first order only,
as ``gamma``'s in ``a``). NaN where ``df <= 0`` or ``scale <= 0``.
"""

from ... import numpy as anp
from . import gamma
from ._util import promote

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def _via_gamma(name):
    """chi2's function ``name``: gamma's at ``(x, df / 2, loc, 2 * scale)``."""
    of_gamma = getattr(gamma, name)

    def function(x, df, loc=0.0, scale=1.0):
        x, df, loc, scale = promote(x, df, loc, scale)  # first, so Python-scalar parameters keep a float32 x float32
        return of_gamma(x, anp.multiply(df, 0.5), loc, anp.multiply(scale, 2.0))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``gamma.{name}(x, df / 2, loc, 2 * scale)``."
    return function


logpdf, pdf, cdf, logcdf, sf, logsf = map(_via_gamma, ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"))

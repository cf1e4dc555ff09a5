"""The Laplace distribution: ``scipy.stats.laplace``'s functions, differentiable in every argument.

Density ``e^(-|z|) / (2 scale)``, ``z = (x - loc) / scale``: compositions of
``adcore.numpy`` functions, on every backend (at ``z = 0`` the derivative of
``|z|`` is taken as 0, as ``abs``'s). The arguments broadcast; the result has
their floating dtype; NaN where ``scale <= 0``.
"""

import math

from ... import numpy as anp
from ._util import location_scale

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]

_LN2 = math.log(2.0)


def _halves(z):
    """``(z < 0, min(z, 0), max(z, 0))``: each branch sees only its half line (where-safe)."""
    below = anp.less(z, 0)
    return below, anp.where(below, z, 0.0), anp.where(below, 0.0, z)


def _standard_cdf(z):
    below, z_neg, z_pos = _halves(z)
    return anp.where(below, anp.multiply(anp.exp(z_neg), 0.5), 1.0 - anp.multiply(anp.exp(anp.negative(z_pos)), 0.5))


def _standard_logcdf(z):
    below, z_neg, z_pos = _halves(z)
    return anp.where(below, z_neg - _LN2, anp.log1p(anp.multiply(anp.exp(anp.negative(z_pos)), -0.5)))


logpdf, pdf, cdf, logcdf, sf, logsf = location_scale(
    __name__,
    logpdf=("``-|z| - log(2 scale)``.", lambda z: anp.negative(anp.abs(z)) - _LN2),
    cdf=("``e^z / 2`` for ``z < 0``, ``1 - e^(-z) / 2`` otherwise.", _standard_cdf),
    logcdf=("``z - log 2`` for ``z < 0``, ``log1p(-e^(-z) / 2)`` otherwise.", _standard_logcdf),
    symmetric=True,
)

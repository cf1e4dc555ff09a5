"""The Laplace distribution: ``scipy.stats.laplace``'s functions, differentiable in every argument.

Density ``e^(-|z|) / (2 scale)``, ``z = (x - loc) / scale``: compositions of
``adcore.numpy`` functions, on every backend (at ``z = 0`` the derivative of
``|z|`` is taken as 0, as ``abs``'s). The arguments broadcast; the result has
their floating dtype; NaN where ``scale <= 0``.
"""

import math

from ...numpy import elementwise, indexing
from ._util import location_scale

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]

_LN2 = math.log(2.0)


def _halves(z):
    """``(z < 0, min(z, 0), max(z, 0))``: each branch sees only its half line (where-safe)."""
    below = elementwise.less(z, 0)
    return below, indexing.where(below, z, 0.0), indexing.where(below, 0.0, z)


def _standard_cdf(z):
    below, z_neg, z_pos = _halves(z)
    return indexing.where(below, elementwise.multiply(elementwise.exp(z_neg), 0.5), 1.0 - elementwise.multiply(elementwise.exp(elementwise.negative(z_pos)), 0.5))


def _standard_logcdf(z):
    below, z_neg, z_pos = _halves(z)
    return indexing.where(below, z_neg - _LN2, elementwise.log1p(elementwise.multiply(elementwise.exp(elementwise.negative(z_pos)), -0.5)))


logpdf, pdf, cdf, logcdf, sf, logsf = location_scale(
    __name__,
    logpdf=("``-|z| - log(2 scale)``.", lambda z: elementwise.negative(elementwise.abs(z)) - _LN2),
    cdf=("``e^z / 2`` for ``z < 0``, ``1 - e^(-z) / 2`` otherwise.", _standard_cdf),
    logcdf=("``z - log 2`` for ``z < 0``, ``log1p(-e^(-z) / 2)`` otherwise.", _standard_logcdf),
    symmetric=True,
)

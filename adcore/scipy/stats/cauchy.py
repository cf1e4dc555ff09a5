"""The Cauchy distribution: ``scipy.stats.cauchy``'s functions, differentiable in every argument.

Density ``1 / (π scale (1 + z²))``, ``z = (x - loc) / scale``: compositions of
``adcore.numpy`` functions, on every backend. The arguments broadcast; the result
has their floating dtype; NaN where ``scale <= 0``.
"""

import math

from ... import numpy as anp
from ._util import location_scale

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]

_LOG_PI = math.log(math.pi)


def _standard_cdf(z):
    """``1/2 + arctan(z) / π``, as ``arctan(-1/z) / π`` below 0 (no cancellation in the lower tail)."""
    below = anp.less(z, 0)
    z_neg = anp.where(below, z, -1.0)
    return anp.where(below, anp.arctan(-1.0 / z_neg) / math.pi, 0.5 + anp.arctan(z) / math.pi)


logpdf, pdf, cdf, logcdf, sf, logsf = location_scale(
    __name__,
    logpdf=("``-log(π scale) - log1p(z²)``.", lambda z: anp.negative(anp.log1p(anp.square(z))) - _LOG_PI),
    cdf=("``1/2 + arctan(z) / π``.", _standard_cdf),
    symmetric=True,
)

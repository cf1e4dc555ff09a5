"""The exponential distribution: ``scipy.stats.expon``'s functions, differentiable in every argument.

Density ``e^(-z) / scale`` for ``z = (x - loc) / scale >= 0``: compositions of
``adcore.numpy`` functions, on every backend. The arguments broadcast; the result
has their floating dtype; NaN where ``scale <= 0``.
"""

import math

from ... import numpy as anp
from ._util import location_scale

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]

_LN2 = math.log(2.0)


def _standard_logcdf(z):
    """Mächler's log1mexp: ``log(-expm1(-z))`` below ``log 2``, ``log1p(-e^(-z))`` above."""
    small = anp.log(anp.negative(anp.expm1(anp.negative(z))))
    large = anp.log1p(anp.negative(anp.exp(anp.negative(z))))
    return anp.where(anp.less(z, _LN2), small, large)


logpdf, pdf, cdf, logcdf, sf, logsf = location_scale(
    __name__,
    logpdf=("``-z - log(scale)`` for ``z >= 0``, else -inf.", anp.negative),
    cdf=("``1 - e^(-z) = -expm1(-z)`` for ``z > 0``, else 0.", lambda z: anp.negative(anp.expm1(anp.negative(z)))),
    logcdf=(
        "``log(1 - e^(-z))``, accurate for small and large ``z`` (Mächler's log1mexp), -inf for ``z <= 0``.",
        _standard_logcdf,
    ),
    sf=("``e^(-z)`` for ``z > 0``, else 1.", lambda z: anp.exp(anp.negative(z))),
    logsf=("``-z`` for ``z > 0``, else 0.", anp.negative),
    support=(0.0, math.inf),
)

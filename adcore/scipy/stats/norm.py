"""The normal distribution N(loc, scale²): ``scipy.stats.norm``'s functions, differentiable in every argument.

Compositions of ``adcore.numpy`` functions and ``adcore.scipy.special``'s ``ndtr``
and ``log_ndtr``, so the derivatives in ``x``, ``loc`` and ``scale`` (every order,
both modes) come from their rules. The arguments broadcast; the result has their
floating dtype (float32 stays float32), on their backend and device; NaN where
``scale <= 0``, as in SciPy. ``pdf`` and ``logpdf`` run on every backend; the
others need ``ndtr`` (numpy, cupy).
"""

import math

from ... import numpy as anp
from ..special import log_ndtr, ndtr
from ._util import location_scale

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)

logpdf, pdf, cdf, logcdf, sf, logsf = location_scale(
    __name__,
    logpdf=(
        "``-z²/2 - log(scale) - log √(2π)`` with ``z = (x - loc) / scale``.",
        lambda z: anp.multiply(anp.square(z), -0.5) - _LOG_SQRT_2PI,
    ),
    cdf=("``Φ(z)`` (``special.ndtr``).", ndtr),
    logcdf=("``log Φ(z)`` (``special.log_ndtr``, accurate in the lower tail).", log_ndtr),
    sf="``1 - Φ(z) = Φ(-z)``, accurate in the upper tail.",
    logsf="``log Φ(-z)``.",
    symmetric=True,
)

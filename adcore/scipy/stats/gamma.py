"""The gamma distribution with shape ``a``: ``scipy.stats.gamma``'s functions.

Density ``x^(a-1) e^(-x) / Γ(a)`` on ``x >= 0`` (standardised by ``loc`` and
``scale``), as compositions of ``adcore.numpy`` and ``adcore.scipy.special``
functions. ``logpdf`` and ``pdf`` are differentiable in every argument, to any
order; ``cdf``, ``logcdf``, ``sf`` and ``logsf`` (``gammainc``, ``gammaincc``) too,
their derivative in ``a`` being ``special.gammainc``'s (a series and a continued
fraction, relative error below 2e-12 for a up to 1000, first order only: the second
derivative in ``a`` raises ``NotImplementedError``). The arguments broadcast; the result has their floating
dtype; NaN where ``a <= 0`` or ``scale <= 0``. Only ``numpy`` and ``cupy`` have the
special functions these need.
"""

import math

from ... import numpy as anp
from ..special import gammainc, gammaincc, gammaln, xlogy
from ._util import location_scale

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]

logpdf, pdf, cdf, logcdf, sf, logsf = location_scale(
    __name__,
    "a",
    logpdf=(
        "``(a - 1) log z - z - log Γ(a) - log(scale)`` for ``z = (x - loc) / scale >= 0``, else -inf.",
        lambda z, a: anp.subtract(anp.subtract(xlogy(anp.subtract(a, 1.0), z), z), gammaln(a)),
    ),
    cdf=("``P(a, z)`` (``special.gammainc``) for ``z > 0``, else 0.", lambda z, a: gammainc(a, z)),
    sf=("``Q(a, z)`` (``special.gammaincc``) for ``z > 0``, else 1; accurate in the upper tail.", lambda z, a: gammaincc(a, z)),
    support=(0.0, math.inf),
)

"""The beta distribution with shapes ``a`` and ``b`` on [0, 1]: ``scipy.stats.beta``'s functions.

Density ``x^(a-1) (1-x)^(b-1) / B(a, b)`` (standardised by ``loc`` and ``scale``),
as compositions of ``adcore.numpy`` and ``adcore.scipy.special`` functions.
``logpdf`` and ``pdf`` are differentiable in every argument, to any order; ``cdf``,
``logcdf``, ``sf`` and ``logsf`` (``betainc``) too, their derivatives in ``a`` and ``b``
being ``special.betainc``'s (a continued fraction differentiated in the shapes, relative
error below 2e-12 for shapes up to 1000, first order only: the second derivative in
``a`` and ``b`` raises ``NotImplementedError``). The arguments broadcast; the result has their floating dtype; NaN
where ``a``, ``b`` or ``scale`` is not positive. Only ``numpy`` and ``cupy`` have
the special functions these need.
"""

from ... import numpy as anp
from ..special import betainc, betaln, xlog1py, xlogy
from ._util import location_scale

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def _standard_logpdf(z, a, b):
    return anp.subtract(anp.add(xlogy(anp.subtract(a, 1.0), z), xlog1py(anp.subtract(b, 1.0), anp.negative(z))), betaln(a, b))


logpdf, pdf, cdf, logcdf, sf, logsf = location_scale(
    __name__,
    "a",
    "b",
    logpdf=("``(a-1) log z + (b-1) log(1-z) - log B(a, b) - log(scale)`` on ``0 <= z <= 1``, else -inf.", _standard_logpdf),
    cdf=("``I_z(a, b)`` (``special.betainc``), clamped to 0 and 1 outside [0, 1].", lambda z, a, b: betainc(a, b, z)),
    sf=("``I_(1-z)(b, a) = 1 - I_z(a, b)`` (DLMF 8.17.4), accurate in the upper tail.", lambda z, a, b: betainc(b, a, 1.0 - z)),
    support=(0.0, 1.0),
)

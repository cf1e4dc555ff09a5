"""Student's t distribution with ``df`` degrees of freedom: ``scipy.stats.t``'s functions.

Compositions of ``adcore.numpy`` and ``adcore.scipy.special`` functions. ``logpdf``
and ``pdf`` are differentiable in every argument (``gammaln`` gives the ``df``
derivative through ``digamma``). ``cdf``, ``logcdf``, ``sf`` and ``logsf`` use the
regularized incomplete beta function, ``F(t) = I_u(df/2, df/2)`` with
``u = (t + √(t² + df)) / (2 √(t² + df))`` (equivalent to A&S 26.7.1, which uses
``I_(df/(df+t²))(df/2, 1/2)`` and a branch on the sign of ``t``; the tests check it
against SciPy's ``stdtr``), evaluated without cancellation in either tail and
smooth at ``t = 0`` (the A&S form has an infinite derivative factor there): they
are differentiable in every argument, in ``df`` through ``special.betainc``'s
derivative in its shapes (first order only; autograd's ``t.cdf`` has none in
``df`` and ``scale``). The arguments
broadcast; the result has their floating dtype; NaN where ``df <= 0`` or
``scale <= 0``. Only ``numpy`` and ``cupy`` have the special functions these need.
"""

import math

from ... import numpy as anp
from ..special import betainc, gammaln
from ._util import location_scale

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def _standard_logpdf(z, df):
    half_df_plus = anp.multiply(anp.add(df, 1.0), 0.5)
    log_norm = anp.subtract(gammaln(half_df_plus), gammaln(anp.multiply(df, 0.5)))
    log_norm = anp.subtract(log_norm, anp.multiply(anp.log(anp.multiply(df, math.pi)), 0.5))
    return anp.subtract(log_norm, anp.multiply(half_df_plus, anp.log1p(anp.divide(anp.square(z), df))))


def _standard_cdf(z, df):
    """``F(z)``: ``I_u(df/2, df/2)`` below 0 and ``1 - I_(1-u)(df/2, df/2)`` above, with both ``u``
    and ``1 - u`` written as ``df / (2 s (s ∓ z))``, ``s = √(z² + df)``, free of cancellation."""
    s = anp.sqrt(anp.add(anp.square(z), df))
    half = anp.multiply(df, 0.5)
    lower = betainc(half, half, anp.divide(half, anp.multiply(s, anp.subtract(s, z))))
    upper = betainc(half, half, anp.divide(half, anp.multiply(s, anp.add(s, z))))
    return anp.where(anp.less(z, 0), lower, 1.0 - upper)


logpdf, pdf, cdf, logcdf, sf, logsf = location_scale(
    __name__,
    "df",
    logpdf=(
        "``log Γ((df+1)/2) - log Γ(df/2) - log √(df π) - log(scale) - (df+1)/2 log(1 + z²/df)``.",
        _standard_logpdf,
    ),
    cdf=("``F(z)``, ``z = (x - loc) / scale``, through ``special.betainc``.", _standard_cdf),
    sf="``1 - F(z) = F(-z)``, accurate in the upper tail.",
    symmetric=True,
)

"""The logistic distribution: ``scipy.stats.logistic``'s functions, differentiable in every argument.

``cdf = expit(z)``, ``z = (x - loc) / scale``, and the density is
``expit(z) expit(-z) / scale``: compositions of ``special.expit`` and
``special.log_expit``, which run on every backend (built from the Array API's
operations where the backend has no ``scipy.special``). The arguments broadcast;
the result has their floating dtype; NaN where ``scale <= 0``.
"""

from ... import numpy as anp
from ..special import expit, log_expit
from ._util import location_scale

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]

logpdf, pdf, cdf, logcdf, sf, logsf = location_scale(
    __name__,
    logpdf=(
        "``log_expit(z) + log_expit(-z) - log(scale)`` (smooth at 0, unlike the ``|z|`` form).",
        lambda z: anp.add(log_expit(z), log_expit(anp.negative(z))),
    ),
    cdf=("``expit(z)``.", expit),
    logcdf=("``log_expit(z)``.", log_expit),
    sf="``expit(-z)``.",
    logsf="``log_expit(-z)``.",
    symmetric=True,
)

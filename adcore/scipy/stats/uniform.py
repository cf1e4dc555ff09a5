"""The uniform distribution on [loc, loc + scale]: ``scipy.stats.uniform``'s functions.

Compositions of ``adcore.numpy`` functions, on every backend, differentiable in
every argument (piecewise: ``cdf`` has derivative ``1 / scale`` in ``x`` inside
the interval and 0 outside). The arguments broadcast; the result has their
floating dtype; NaN where ``scale <= 0``.
"""

from ._util import location_scale

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]

logpdf, pdf, cdf, logcdf, sf, logsf = location_scale(
    __name__,
    logpdf=("``-log(scale)`` on ``0 <= z <= 1``, else -inf (``z = (x - loc) / scale``).", lambda z: 0.0),
    pdf="``exp(logpdf(x, loc, scale))``: ``1 / scale`` inside, 0 outside.",
    cdf=("``z`` clamped to [0, 1].", lambda z: z),
    sf=("``1 - z`` clamped to [0, 1].", lambda z: 1.0 - z),
    support=(0.0, 1.0),
    closed=True,
)

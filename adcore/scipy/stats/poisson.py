"""The Poisson distribution with mean ``mu``: ``scipy.stats.poisson``'s functions.

Compositions of ``adcore.numpy`` and ``adcore.scipy.special`` functions,
differentiable in ``mu`` (``logpmf``: ``k / mu - 1``; ``cdf``: ``-pmf(floor(k), mu)``,
from ``gammaincc``'s derivative in ``x``). The count ``k`` (and the shift ``loc``)
is used as a constant: the functions are piecewise constant in it, so its
derivative is 0 wherever one exists (as ``floor``'s; autograd raises instead).
``k`` may be a float or an integer array; the arguments broadcast; the result has
the floating dtype of the arguments (float64 for an integer ``k`` with a Python
``mu``); NaN where ``mu < 0``. Only ``numpy`` and ``cupy`` have the special
functions these need.
"""

import math

from ... import numpy as anp
from ...core import getval
from ..special import gammainc, gammaincc, gammaln, xlogy
from ._util import promote, valid

__all__ = ["cdf", "logcdf", "logpmf", "logsf", "pmf", "sf"]


def _count(k, mu, loc):
    """``(k - loc, mu)`` promoted together, ``k - loc`` as a constant (no derivative)."""
    k, mu, loc = promote(k, mu, loc)
    return anp.subtract(getval(k), getval(loc)), mu


def logpmf(k, mu, loc=0):
    """``k log(mu) - log(k!) - mu`` at integers ``k - loc >= 0``, else -inf."""
    k, mu = _count(k, mu, loc)
    at_count = anp.logical_and(anp.equal(k, anp.floor(k)), anp.greater_equal(k, 0))
    count = anp.where(at_count, k, 0.0)
    value = anp.subtract(anp.subtract(xlogy(count, mu), gammaln(count + 1.0)), mu)
    return valid(anp.where(at_count, value, -math.inf), anp.greater_equal(mu, 0))


def pmf(k, mu, loc=0):
    """``exp(logpmf(k, mu, loc))``."""
    return anp.exp(logpmf(k, mu, loc))


def _floor_count(k):
    """``(k >= 0, floor(k) + 1)``: where the distribution function is positive, and the ``a`` of
    ``gammaincc`` there (1 elsewhere, where-safe)."""
    counted = anp.greater_equal(k, 0)
    return counted, anp.where(counted, anp.floor(k), 0.0) + 1.0


def cdf(k, mu, loc=0):
    """``Q(floor(k) + 1, mu)`` (``special.gammaincc``) for ``k >= 0``, else 0."""
    k, mu = _count(k, mu, loc)
    counted, a = _floor_count(k)
    return valid(anp.where(counted, gammaincc(a, mu), 0.0), anp.greater_equal(mu, 0))


def logcdf(k, mu, loc=0):
    """``log(cdf(k, mu, loc))``."""
    return anp.log(cdf(k, mu, loc))


def sf(k, mu, loc=0):
    """``P(floor(k) + 1, mu)`` (``special.gammainc``) for ``k >= 0``, else 1."""
    k, mu = _count(k, mu, loc)
    counted, a = _floor_count(k)
    return valid(anp.where(counted, gammainc(a, mu), 1.0), anp.greater_equal(mu, 0))


def logsf(k, mu, loc=0):
    """``log(sf(k, mu, loc))``."""
    return anp.log(sf(k, mu, loc))

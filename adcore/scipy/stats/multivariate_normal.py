"""The multivariate normal distribution: ``scipy.stats.multivariate_normal``'s ``logpdf``, ``pdf`` and ``entropy``.

Compositions of ``adcore.numpy.linalg`` functions (``cholesky``, ``solve``), so
they are differentiable in ``x``, ``mean`` and ``cov`` at every order, on every
backend with the Array API's ``linalg`` extension. ``cov`` enters through its
symmetric part ``(cov + cov.T) / 2``, so the gradient in ``cov`` is the symmetric
matrix ``((cov⁻¹ d)(cov⁻¹ d)ᵀ - cov⁻¹) / 2`` of autograd's ``covgrad`` (Giles 2008),
not a triangle of it.
"""

import math

from ...numpy import linalg
from ...numpy import wrapper as anp
from ._util import promote

__all__ = ["entropy", "logpdf", "pdf"]

_LOG_2PI = math.log(2.0 * math.pi)


def _dimension(mean, cov):
    """The dimension ``d``, from ``mean`` or ``cov`` (1 if both are scalars), as SciPy."""
    if mean is not None and anp.ndim(mean) > 0:
        return anp.shape(mean)[0]
    return anp.shape(cov)[0] if anp.ndim(cov) > 0 else 1


def _cholesky(cov, dimension, allow_singular, op):
    """The lower Cholesky factor of the ``d x d`` covariance given by ``cov`` (a scalar times the
    identity, a 1-d diagonal, or a matrix, as SciPy takes it), from its symmetric part."""
    if allow_singular:
        raise NotImplementedError(
            f"multivariate_normal.{op}: allow_singular=True (a pseudo-determinant and pseudo-inverse) is not "
            "supported; pass a positive-definite cov"
        )
    if anp.ndim(cov) == 0:
        cov = anp.multiply(cov, anp.eye_like(cov, dimension))
    elif anp.ndim(cov) == 1:
        cov = anp.diag(cov)
    return linalg.cholesky(anp.multiply(anp.add(cov, anp.matrix_transpose(cov)), 0.5))


def _log_det(chol):
    return anp.multiply(anp.sum(anp.log(anp.diagonal(chol))), 2.0)


def logpdf(x, mean=None, cov=1, allow_singular=False):
    """``-(d log 2π + log det cov + (x - mean)ᵀ cov⁻¹ (x - mean)) / 2`` for each point of ``x``.

    Parameters
    ----------
    x : array
        Points ``(..., d)``; for ``d = 1`` also ``(n,)`` or a scalar.
    mean : array of shape ``(d,)``, optional
        Zero by default.
    cov : scalar, array ``(d,)`` or ``(d, d)``
        A multiple of the identity, a diagonal, or a symmetric positive-definite matrix.
    allow_singular : bool
        Must be False.

    Returns
    -------
    array
        Shape ``x.shape[:-1]`` with axes of length 1 removed (a scalar for one point), as SciPy.

    Raises
    ------
    NotImplementedError
        For ``allow_singular=True``.
    numpy.linalg.LinAlgError
        (on NumPy) If ``cov`` is not positive definite.
    """
    x, mean, cov = promote(anp.asarray(x), mean, cov)
    dimension = _dimension(mean, cov)
    chol = _cholesky(cov, dimension, allow_singular, "logpdf")
    if anp.ndim(x) == 0:
        x = anp.reshape(x, (1,))
    elif anp.ndim(x) == 1 and dimension == 1:
        x = anp.expand_dims(x, -1)
    diff = x if mean is None else anp.subtract(x, mean)
    whitened = linalg.solve(chol, anp.expand_dims(diff, -1))
    mahalanobis = anp.sum(anp.square(whitened), axis=(-2, -1))
    result = anp.multiply(anp.add(mahalanobis, _log_det(chol) + dimension * _LOG_2PI), -0.5)
    return anp.squeeze(result)


def pdf(x, mean=None, cov=1, allow_singular=False):
    """``exp(logpdf(x, mean, cov, allow_singular))``."""
    return anp.exp(logpdf(x, mean, cov, allow_singular))


def entropy(mean=None, cov=1):
    """``(d (1 + log 2π) + log det cov) / 2``, the differential entropy (a scalar)."""
    mean, cov = promote(mean, anp.asarray(cov))
    dimension = _dimension(mean, cov)
    return anp.multiply(anp.add(_log_det(_cholesky(cov, dimension, False, "entropy")), dimension * (1.0 + _LOG_2PI)), 0.5)

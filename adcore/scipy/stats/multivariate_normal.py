"""The multivariate normal distribution: ``scipy.stats.multivariate_normal``'s ``logpdf``, ``pdf`` and ``entropy``.

Compositions of ``adcore.numpy.linalg`` functions (``cholesky``, ``solve``), so
they are differentiable in ``x``, ``mean`` and ``cov`` at every order, on every
backend with the Array API's ``linalg`` extension. ``cov`` enters through its
symmetric part ``(cov + cov.T) / 2``, so the gradient in ``cov`` is the symmetric
matrix ``((cov⁻¹ d)(cov⁻¹ d)ᵀ - cov⁻¹) / 2`` of autograd's ``covgrad`` (Giles 2008),
not a triangle of it.
"""

import math

from backends import backend_of

from ...core import getval
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


def _covariance(cov, dimension):
    """The symmetric part of the ``d x d`` covariance given by ``cov`` (a scalar times the identity,
    a 1-d diagonal, or a matrix, as SciPy takes it)."""
    if anp.ndim(cov) == 0:
        cov = anp.multiply(cov, anp.eye_like(cov, dimension))
    elif anp.ndim(cov) == 1:
        cov = anp.diag(cov)
    return anp.multiply(anp.add(cov, anp.matrix_transpose(cov)), 0.5)


def _log_det(chol):
    return anp.multiply(anp.sum(anp.log(anp.diagonal(chol))), 2.0)


def _log_det_and_mahalanobis(cov, diff, allow_singular):
    """``(log det cov, (diff cov⁻¹ diff) per point, rank)``; with ``allow_singular``, SciPy's
    pseudo-determinant and pseudo-inverse over the eigenvalues above SciPy's cutoff (``1e6 eps``
    times the largest, ``1e3 eps`` in float32), and the rank they span."""
    if not allow_singular:
        chol = linalg.cholesky(cov)
        whitened = linalg.solve(chol, anp.expand_dims(diff, -1))
        return _log_det(chol), anp.sum(anp.square(whitened), axis=(-2, -1)), anp.shape(cov)[-1]
    w, v = linalg.eigh(cov)
    raw_w = getval(w)
    factor = 1e3 if "float32" in str(raw_w.dtype) else 1e6
    kept = raw_w > factor * float(backend_of(raw_w).finfo(raw_w.dtype).eps) * anp.max(anp.abs(raw_w))
    safe_w = anp.where(kept, w, 1.0)
    projected = anp.sum(anp.multiply(anp.expand_dims(diff, -1), v), axis=-2)  # v.T @ diff, per point
    mahalanobis = anp.sum(anp.where(kept, anp.square(projected) / safe_w, 0.0), axis=-1)
    return anp.sum(anp.log(safe_w)), mahalanobis, int(anp.sum(anp.astype(kept, "int64")))


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
        Whether ``cov`` may be singular: the density is then taken on the subspace its eigenvalues
        above SciPy's cutoff span (pseudo-determinant and pseudo-inverse, as SciPy), and
        differentiated in ``x`` and ``mean`` (the derivative in ``cov`` needs distinct eigenvalues).

    Returns
    -------
    array
        Shape ``x.shape[:-1]`` with axes of length 1 removed (a scalar for one point), as SciPy.

    Raises
    ------
    numpy.linalg.LinAlgError
        (on NumPy) If ``cov`` is not positive definite.
    """
    x, mean, cov = promote(anp.asarray(x), mean, cov)
    dimension = _dimension(mean, cov)
    if anp.ndim(x) == 0:
        x = anp.reshape(x, (1,))
    elif anp.ndim(x) == 1 and dimension == 1:
        x = anp.expand_dims(x, -1)
    diff = x if mean is None else anp.subtract(x, mean)
    log_det, mahalanobis, rank = _log_det_and_mahalanobis(_covariance(cov, dimension), diff, allow_singular)
    result = anp.multiply(anp.add(mahalanobis, log_det + rank * _LOG_2PI), -0.5)
    return anp.squeeze(result)


def pdf(x, mean=None, cov=1, allow_singular=False):
    """``exp(logpdf(x, mean, cov, allow_singular))``."""
    return anp.exp(logpdf(x, mean, cov, allow_singular))


def entropy(mean=None, cov=1):
    """``(d (1 + log 2π) + log det cov) / 2``, the differential entropy (a scalar)."""
    mean, cov = promote(mean, anp.asarray(cov))
    dimension = _dimension(mean, cov)
    log_det = _log_det(linalg.cholesky(_covariance(cov, dimension)))
    return anp.multiply(anp.add(log_det, dimension * (1.0 + _LOG_2PI)), 0.5)

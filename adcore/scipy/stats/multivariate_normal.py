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
from ...numpy import dtypes, elementwise, indexing, linalg, reductions, shapes
from ._util import promote

__all__ = ["entropy", "logpdf", "pdf"]

_LOG_2PI = math.log(2.0 * math.pi)


def _dimension(mean, cov):
    """The dimension ``d``, from ``mean`` or ``cov`` (1 if both are scalars), as SciPy."""
    if mean is not None and shapes.ndim(mean) > 0:
        return shapes.shape(mean)[0]
    return shapes.shape(cov)[0] if shapes.ndim(cov) > 0 else 1


def _covariance(cov, dimension):
    """The symmetric part of the ``d x d`` covariance given by ``cov`` (a scalar times the identity,
    a 1-d diagonal, or a matrix, as SciPy takes it)."""
    if shapes.ndim(cov) == 0:
        cov = elementwise.multiply(cov, indexing.eye_like(cov, dimension))
    elif shapes.ndim(cov) == 1:
        cov = indexing.diag(cov)
    return elementwise.multiply(elementwise.add(cov, shapes.matrix_transpose(cov)), 0.5)


def _log_det(chol):
    return elementwise.multiply(reductions.sum(elementwise.log(indexing.diagonal(chol))), 2.0)


def _log_det_and_mahalanobis(cov, diff, allow_singular):
    """``(log det cov, (diff cov⁻¹ diff) per point, rank)``; with ``allow_singular``, SciPy's
    pseudo-determinant and pseudo-inverse over the eigenvalues above SciPy's cutoff (``1e6 eps``
    times the largest, ``1e3 eps`` in float32), and the rank they span."""
    if not allow_singular:
        chol = linalg.cholesky(cov)
        whitened = linalg.solve(chol, shapes.expand_dims(diff, -1))
        return _log_det(chol), reductions.sum(elementwise.square(whitened), axis=(-2, -1)), shapes.shape(cov)[-1]
    w, v = linalg.eigh(cov)
    raw_w = getval(w)
    factor = 1e3 if "float32" in str(raw_w.dtype) else 1e6
    kept = raw_w > factor * float(backend_of(raw_w).finfo(raw_w.dtype).eps) * reductions.max(elementwise.abs(raw_w))
    safe_w = indexing.where(kept, w, 1.0)
    projected = reductions.sum(elementwise.multiply(shapes.expand_dims(diff, -1), v), axis=-2)  # v.T @ diff, per point
    mahalanobis = reductions.sum(indexing.where(kept, elementwise.square(projected) / safe_w, 0.0), axis=-1)
    return reductions.sum(elementwise.log(safe_w)), mahalanobis, int(reductions.sum(dtypes.astype(kept, "int64")))


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
    x, mean, cov = promote(shapes.asarray(x), mean, cov)
    dimension = _dimension(mean, cov)
    if shapes.ndim(x) == 0:
        x = shapes.reshape(x, (1,))
    elif shapes.ndim(x) == 1 and dimension == 1:
        x = shapes.expand_dims(x, -1)
    diff = x if mean is None else elementwise.subtract(x, mean)
    log_det, mahalanobis, rank = _log_det_and_mahalanobis(_covariance(cov, dimension), diff, allow_singular)
    result = elementwise.multiply(elementwise.add(mahalanobis, log_det + rank * _LOG_2PI), -0.5)
    return shapes.squeeze(result)


def pdf(x, mean=None, cov=1, allow_singular=False):
    """``exp(logpdf(x, mean, cov, allow_singular))``."""
    return elementwise.exp(logpdf(x, mean, cov, allow_singular))


def entropy(mean=None, cov=1):
    """``(d (1 + log 2π) + log det cov) / 2``, the differential entropy (a scalar)."""
    mean, cov = promote(mean, shapes.asarray(cov))
    dimension = _dimension(mean, cov)
    log_det = _log_det(linalg.cholesky(_covariance(cov, dimension)))
    return elementwise.multiply(elementwise.add(log_det, dimension * (1.0 + _LOG_2PI)), 0.5)

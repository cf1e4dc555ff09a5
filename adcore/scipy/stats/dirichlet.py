"""The Dirichlet distribution with concentrations ``alpha``: ``scipy.stats.dirichlet``'s ``logpdf``, ``pdf`` and ``rvs``.

Compositions of ``adcore.numpy`` and ``adcore.scipy.special`` functions,
differentiable in ``x`` (``(alpha - 1) / x``) and ``alpha``
(``log x + ψ(sum alpha) - ψ(alpha)``), at every order. As in SciPy, ``x`` has the
components along its first axis: shape ``(K,)`` or ``(K, ...)`` for ``alpha`` of
shape ``(K,)``, or ``K - 1`` components, the last one being ``1 - sum``. SciPy
raises when ``x`` is off the simplex; adcore does not check it (the check would
force lazy values; the formula's derivative off the simplex is the ambient one,
as autograd's). NaN where some ``alpha <= 0``. Only ``numpy`` and ``cupy`` have
``gammaln``.
"""

import importlib

from backends import backend_of

from ... import numpy as anp
from ...numpy import reductions, shapes
from ...numpy.passthrough import _on_default_backend, without_derivative
from ..special import gammaln, xlogy
from ._util import promote, valid

__all__ = ["logpdf", "pdf", "rvs"]


def logpdf(x, alpha):
    """``sum((alpha - 1) log x, axis=0) + log Γ(sum alpha) - sum(log Γ(alpha))``: shape ``x.shape[1:]``.

    Raises
    ------
    ValueError
        If ``alpha`` is not 1-d, or ``x``'s first axis has neither ``K`` nor ``K - 1`` entries.
    """
    x, alpha = promote(x, alpha)
    if anp.ndim(alpha) != 1:
        raise ValueError(f"dirichlet.logpdf: alpha must be 1-d (K concentrations), got shape {anp.shape(alpha)}")
    k = anp.shape(alpha)[0]
    if anp.ndim(x) == 0 or anp.shape(x)[0] not in (k, k - 1):
        raise ValueError(f"dirichlet.logpdf: x must have {k} or {k - 1} entries along its first axis, got shape {anp.shape(x)}")
    if anp.shape(x)[0] == k - 1:
        x = shapes.concatenate([x, 1.0 - reductions.sum(x, axis=0, keepdims=True)], axis=0)
    alpha_column = shapes.reshape(alpha, (k,) + (1,) * (anp.ndim(x) - 1))
    log_kernel = reductions.sum(xlogy(anp.subtract(alpha_column, 1.0), x), axis=0)
    log_norm = anp.subtract(gammaln(reductions.sum(alpha)), reductions.sum(gammaln(alpha)))
    return valid(anp.add(log_kernel, log_norm), reductions.all(anp.greater(alpha, 0)))


def pdf(x, alpha):
    """``exp(logpdf(x, alpha))``."""
    return anp.exp(logpdf(x, alpha))


def _rvs(alpha, size=1, random_state=None):
    """SciPy's samples (``scipy.stats.dirichlet.rvs``: shape ``size + (K,)``, drawn by NumPy from
    ``random_state``), on the default backend; ``alpha`` of any backend is read on the host."""
    alpha = backend_of(alpha).to_numpy(alpha) if hasattr(alpha, "shape") else alpha
    scipy_stats = importlib.import_module("scipy.stats")
    return _on_default_backend(scipy_stats.dirichlet.rvs(alpha, size=size, random_state=random_state))


rvs = without_derivative(_rvs, "scipy.stats.dirichlet.rvs", "a sample's derivative in alpha needs implicit reparametrization")

"""The differentiable ``adcore.scipy.stats`` namespace: one module per distribution, with SciPy's function names.

``from adcore.scipy.stats import norm; norm.logpdf(x, loc, scale)``::

    >>> from adcore import grad
    >>> from adcore.scipy.stats import norm
    >>> float(grad(norm.logpdf, 2)(0.5, 0.0, 2.0))  # d/dscale: (z**2 - 1) / scale
    -0.46875

autograd's
distributions (``norm``, ``t``, ``beta``, ``gamma``, ``chi2``, ``poisson``,
``dirichlet``, ``multivariate_normal``) and ``expon``, ``laplace``, ``cauchy``,
``logistic``, ``uniform``; every function is a composition of ``adcore.numpy``
and ``adcore.scipy.special`` functions, so it is differentiable in both modes at
every order, in the data and the parameters (each module says where a parameter
has no derivative). Univariate functions take ``loc`` and ``scale`` as SciPy's
do, broadcast their arguments, give the arguments' floating dtype (float32 stays
float32) and give NaN for invalid parameters, as SciPy.
"""

from . import beta, cauchy, chi2, dirichlet, expon, gamma, laplace, logistic, multivariate_normal, norm, poisson, t, uniform

__all__ = [
    "beta",
    "cauchy",
    "chi2",
    "dirichlet",
    "expon",
    "gamma",
    "laplace",
    "logistic",
    "multivariate_normal",
    "norm",
    "poisson",
    "t",
    "uniform",
]

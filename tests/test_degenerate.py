"""Derivatives of ``eigh``, ``svd`` and ``eig`` at degenerate points (repeated eigen or singular values):
right, or NaN where the rule cannot know the answer; never a finite wrong number.

Spectra are drawn by hypothesis with repeated values and rotated by a random orthogonal ``Q``
(``Q diag(w) Q.T``). Functions of the values alone (the sum over a degenerate cluster) have exact
derivatives; functions of the vectors that do not depend on the choice of basis
(``v diag(exp(w)) v.T == expm(a)``, the polar factor ``u vh``) are compared with an independent
reference (SciPy's ``expm_frechet``, central differences) and must match or be NaN.
"""

import numpy
import pytest
import scipy.linalg
from hypothesis import given
from hypothesis import strategies as st
from test_properties import PROFILE

import adcore.numpy as np
from adcore import grad

VALUES = st.sampled_from([-1.0, 0.5, 1.0, 2.0])


@st.composite
def degenerate_spectra(draw, low=2, high=5):
    """``(values, seed)``: a spectrum with at least one repeated value, and a seed for ``Q``."""
    n = draw(st.integers(low, high))
    values = draw(st.lists(VALUES, min_size=n - 1, max_size=n - 1))
    values.append(values[draw(st.integers(0, n - 2))])
    return numpy.sort(values), draw(st.integers(0, 2**16))


def _rotated(values, seed):
    rng = numpy.random.default_rng(seed)
    q, _ = numpy.linalg.qr(rng.standard_normal((values.size, values.size)))
    return q, q @ numpy.diag(values) @ q.T, rng.standard_normal((values.size, values.size))


def _right_or_nan(actual, expected):
    actual = numpy.asarray(actual)
    ok = numpy.isnan(actual) | numpy.isclose(actual, expected, rtol=1e-6, atol=1e-6)
    assert ok.all(), f"a finite wrong derivative:\n{actual}\nexpected (or NaN):\n{expected}"


@PROFILE
@given(degenerate_spectra())
def test_eigh_of_a_basis_invariant_function_is_right_or_nan(backend, spectrum):
    """``v diag(exp(w)) v.T`` of the symmetric part: its gradient is expm's (SciPy's Fréchet derivative)."""
    q, a, c = _rotated(*spectrum)

    def through_eigh(a):
        w, v = np.linalg.eigh(np.multiply(np.add(a, np.swapaxes(a, -1, -2)), 0.5))
        return np.sum(np.multiply(backend.asarray(c), np.matmul(np.multiply(v, np.exp(w)), np.swapaxes(v, -1, -2))))

    frechet = scipy.linalg.expm_frechet(a, c, compute_expm=False)
    _right_or_nan(backend.to_numpy(grad(through_eigh)(backend.asarray(a))), (frechet + frechet.T) / 2)


@PROFILE
@given(degenerate_spectra())
def test_eigh_of_the_sum_of_a_degenerate_cluster_is_exact(backend, spectrum):
    """The derivative of the sum of the eigenvalues equal to ``w[k]`` is the projector onto their space."""
    q, a, _ = _rotated(*spectrum)
    values = spectrum[0]
    cluster = numpy.flatnonzero(values == values[numpy.flatnonzero(numpy.diff(values) == 0)[0]])

    def cluster_sum(a):
        w = np.linalg.eigh(np.multiply(np.add(a, np.swapaxes(a, -1, -2)), 0.5))[0]
        return np.sum(w[int(cluster[0]) : int(cluster[-1]) + 1])

    projector = q[:, cluster] @ q[:, cluster].T
    numpy.testing.assert_allclose(backend.to_numpy(grad(cluster_sum)(backend.asarray(a))), projector, atol=1e-8)


def _central_gradient(f, a, eps=1e-6):
    g = numpy.zeros_like(a)
    for index in numpy.ndindex(a.shape):
        step = numpy.zeros_like(a)
        step[index] = eps
        g[index] = (f(a + step) - f(a - step)) / (2 * eps)
    return g


@PROFILE
@given(degenerate_spectra())
def test_svd_of_a_basis_invariant_function_is_right_or_nan(backend, spectrum):
    """The polar factor ``u @ vh`` at repeated singular values, against central differences of SciPy's."""
    values, seed = spectrum
    q, _, c = _rotated(values, seed)
    p, _ = numpy.linalg.qr(numpy.random.default_rng(seed + 1).standard_normal((values.size, values.size)))
    a = q @ numpy.diag(numpy.abs(values) + 1.0) @ p.T  # singular values |w| + 1, repeated where w is

    def polar(a):
        u, _, vh = np.linalg.svd(a)
        return np.sum(np.multiply(backend.asarray(c), np.matmul(u, vh)))

    expected = _central_gradient(lambda a: numpy.sum(c * scipy.linalg.polar(a)[0]), a)
    _right_or_nan(backend.to_numpy(grad(polar)(backend.asarray(a))), expected)


@PROFILE
@given(degenerate_spectra())
def test_eig_of_a_basis_invariant_function_is_right_or_nan(backend, spectrum):
    """``v diag(exp(w)) inv(v)`` of a non-symmetric matrix with repeated eigenvalues: expm's derivative."""
    if backend.name == "dask":
        pytest.skip("linalg.eig's dtype depends on the values (not lazy)")
    values, seed = spectrum
    rng = numpy.random.default_rng(seed)
    s = numpy.eye(values.size) + 0.3 * rng.standard_normal((values.size, values.size))
    a, c = s @ numpy.diag(values) @ numpy.linalg.inv(s), rng.standard_normal((values.size, values.size))

    def through_eig(a):
        w, v = np.linalg.eig(a)
        return np.real(np.sum(np.multiply(backend.asarray(c), np.matmul(np.multiply(v, np.exp(w)), np.linalg.inv(v)))))

    _right_or_nan(backend.to_numpy(grad(through_eig)(backend.asarray(a))), scipy.linalg.expm_frechet(a.T, c, compute_expm=False))

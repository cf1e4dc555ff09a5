"""``scipy.linalg.pinvh`` at repeated eigenvalues: its derivative is exact (``pinv``'s rule needs no
eigenvectors), where a composition of ``eigh``'s vectors is NaN.

Spectra are drawn by hypothesis with repeated values (``tests/test_degenerate.py``), rotated by a
random orthogonal (unitary) ``Q``; the derivatives along a random direction are compared with
central differences of SciPy's ``pinvh``. At a rank-deficient point the direction keeps the rank
(``pinvh`` is not differentiable along the others).
"""

import numpy
import pytest
import scipy.linalg
from hypothesis import given
from hypothesis import strategies as st
from test_degenerate import degenerate_spectra
from test_properties import PROFILE, on_backends

import adcore.numpy as np
from adcore import grad, make_jvp
from adcore.scipy import linalg as alinalg

STEP = 1e-6


def _central_difference(a, direction, c, lower):
    """``d/dt Re(sum(c * pinvh(a + t direction)))`` from SciPy, by central differences; with a cutoff of
    1e-10 of the largest eigenvalue, so that an eigenvalue that is 0 in exact arithmetic (rounding leaves
    ~1e-16) is cut at every SciPy version (SciPy 1.13's default kept one of them, and inverted it)."""

    def f(x):
        return numpy.real(numpy.sum(c * scipy.linalg.pinvh(x, lower=lower, atol=0.0, rtol=1e-10)))

    return (f(a + STEP * direction) - f(a - STEP * direction)) / (2 * STEP)


def _check(backend, a, direction, c, lower):
    """JVP along ``direction`` and the gradient contracted with it, against central differences."""
    dtype = "complex128" if numpy.iscomplexobj(a) else "float64"

    def f(x):
        return np.real(np.sum(np.multiply(backend.asarray(c, c.dtype.name), alinalg.pinvh(x, lower=lower))))

    expected = _central_difference(a, direction, c, lower)
    _, tangent = make_jvp(f)(backend.asarray(a, dtype))(backend.asarray(direction, dtype))
    g = backend.to_numpy(grad(f)(backend.asarray(a, dtype)))
    assert numpy.isfinite(g).all(), f"a NaN or infinite gradient at a degenerate spectrum:\n{g}"
    numpy.testing.assert_allclose(float(backend.to_numpy(tangent)), expected, rtol=1e-6, atol=1e-7, err_msg="JVP")
    # autograd's convention: the gradient of a real function of z = x + iy is df/dx - i df/dy
    numpy.testing.assert_allclose(numpy.real(numpy.sum(g * direction)), expected, rtol=1e-6, atol=1e-7, err_msg="VJP")


@on_backends
@PROFILE
@given(spectrum=degenerate_spectra(), lower=st.booleans(), hermitian=st.booleans())
def test_pinvh_at_repeated_eigenvalues_is_exact(backend, spectrum, lower, hermitian):
    """Full rank, repeated eigenvalues, any direction (only the triangle read counts), real or complex."""
    values, seed = spectrum
    rng = numpy.random.default_rng(seed)
    n = values.size
    draw = (
        (lambda: rng.standard_normal((n, n)) + 1j * rng.standard_normal((n, n)))
        if hermitian
        else (lambda: rng.standard_normal((n, n)))
    )
    q, _ = numpy.linalg.qr(draw())
    a = q @ numpy.diag(values) @ q.conj().T
    _check(backend, a, draw(), draw(), lower)


@pytest.mark.parametrize("values", [[0.0, 0.0, 1.5, 1.5], [0.0, 2.0, 2.0, 2.0, -1.0], [0.0, 0.0, 0.0, 3.0]], ids=str)
def test_pinvh_rank_deficient_and_degenerate(values, backend):
    """Zero and repeated eigenvalues together, along a direction that keeps the range (and so the rank)."""
    rng = numpy.random.default_rng(len(values))
    n = len(values)
    q, _ = numpy.linalg.qr(rng.standard_normal((n, n)))
    a = q @ numpy.diag(values) @ q.T
    kept = q[:, numpy.flatnonzero(values)]
    s = rng.standard_normal((kept.shape[1], kept.shape[1]))
    direction = kept @ (s + s.T) @ kept.T
    _check(backend, a, direction, rng.standard_normal((n, n)), True)

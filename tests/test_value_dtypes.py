"""Results whose dtype NumPy picks by the values: ``linalg.eig``, ``linalg.eigvals`` and
``scipy.linalg.eig`` follow NumPy (SciPy) on every backend that knows the values (issue 33, item 2).

Random real matrices with real distinct, real repeated and complex spectra, and complex matrices, drawn
by hypothesis, in float64 and float32:

- the dtypes are NumPy's (real eigenvalues and eigenvectors for a real matrix whose eigenvalues are all
  real, complex otherwise; SciPy's eigenvalues always complex); on Dask, whose values are unknown until
  computed, always complex (README's backend table);
- the eigenvalues are NumPy's (as a set), the eigenvectors unit columns with ``a v = v diag(w)``;
- for distinct eigenvalues, the derivatives of functions that do not depend on the eigenvectors'
  normalisation (the eigenvalues, ``v diag(w) inv(v)``) match finite differences in both modes, in the
  dtype of the values.

Before the fix ``eig`` of a real matrix was always complex, which NumPy's is not when every eigenvalue
is real.
"""

import numpy
import pytest
import scipy.linalg
from hypothesis import given
from hypothesis import strategies as st
from test_linalg import STRICT_HAS_EIG
from test_properties import PROFILE

import adcore.numpy as np
import adcore.scipy.linalg as sla
from adcore.numpy.linalg import NUMPY_EIG_ALWAYS_COMPLEX
from adcore.test_util import check_grads

pytestmark = pytest.mark.skipif(not STRICT_HAS_EIG, reason="array-api-strict before 2025.12 has no linalg.eig")

SPECTRA = ("real", "repeated", "complex", "complex_input")


def _matrix(spectrum, n, seed):
    """A matrix of ``n`` rows whose spectrum is of the kind ``spectrum`` (see the module's notes)."""
    rng = numpy.random.default_rng(seed)
    basis = rng.standard_normal((n, n)) + 2.0 * numpy.eye(n)
    if spectrum == "real":  # distinct, at least 0.5 apart
        values = numpy.cumsum(rng.uniform(0.5, 1.5, n)) - n / 2
        return basis @ numpy.diag(values) @ numpy.linalg.inv(basis)
    if spectrum == "repeated":  # triangular: LAPACK reads the (repeated) diagonal exactly
        diagonal = rng.choice([-1.0, 2.0], n)
        return numpy.triu(rng.standard_normal((n, n)), 1) + numpy.diag(diagonal)
    if spectrum == "complex":  # a conjugate pair (and real eigenvalues) in a random basis
        block = numpy.diag(numpy.cumsum(rng.uniform(0.5, 1.5, n)))
        if n >= 2:
            a, b = rng.uniform(-1.0, 1.0), rng.uniform(0.5, 1.5)
            block[:2, :2] = [[a, -b], [b, a]]
        return basis @ block @ numpy.linalg.inv(basis)
    return rng.standard_normal((n, n)) + 1j * rng.standard_normal((n, n))


def _dtype_name(x):
    return str(x.dtype).split(".")[-1]


def _expected_dtype(numpy_dtype, backend):
    """NumPy's dtype, or on Dask (values unknown) the complex dtype of its precision."""
    name = numpy.dtype(numpy_dtype).name
    if backend.name == "dask":
        return {"float32": "complex64", "float64": "complex128"}.get(name, name)
    return name


def _same_set(got, expected, tolerance):
    for value in expected:
        assert numpy.min(numpy.abs(got - value)) <= tolerance * (1 + abs(value)), f"{value} not among {got}"


@pytest.mark.parametrize("spectrum", SPECTRA)
@PROFILE
@given(n=st.integers(1, 4), seed=st.integers(0, 2**16), single=st.booleans())
def test_eig_dtypes_and_values_are_numpys(backend, spectrum, n, seed, single):
    a = _matrix(spectrum, n, seed)
    if single:
        a = a.astype(numpy.complex64 if spectrum == "complex_input" else numpy.float32)
    w_np, _ = numpy.linalg.eig(a)
    x = backend.asarray(a, a.dtype.name)
    w, v = np.linalg.eig(x)
    backend.check_device(w)
    assert _dtype_name(w) == _dtype_name(v) == _expected_dtype(w_np.dtype, backend), f"{spectrum}: {w.dtype}, NumPy {w_np.dtype}"
    assert _dtype_name(np.linalg.eigvals(x)) == _dtype_name(w)
    tolerance = 1e-3 if single else 1e-8
    w_host, v_host = backend.to_numpy(w), backend.to_numpy(v)
    _same_set(w_host, w_np, tolerance if spectrum != "repeated" else 10 * tolerance)
    numpy.testing.assert_allclose(numpy.linalg.norm(v_host, axis=0), 1.0, rtol=tolerance)
    if spectrum != "repeated":  # a defective repeated eigenvalue has no full set of eigenvectors
        scale = 1 + numpy.abs(a).max()
        numpy.testing.assert_allclose(a @ v_host, v_host * w_host, atol=tolerance * scale * 10)


@pytest.mark.parametrize("spectrum", SPECTRA)
@PROFILE
@given(n=st.integers(1, 4), seed=st.integers(0, 2**16))
def test_scipy_eig_dtypes_are_scipys(backend, spectrum, n, seed):
    """SciPy's eigenvalues are always complex, its eigenvectors real where NumPy's are."""
    a = _matrix(spectrum, n, seed)
    w_sp, v_sp = scipy.linalg.eig(a)
    w, v = sla.eig(backend.asarray(a, a.dtype.name))
    assert _dtype_name(w) == numpy.dtype(w_sp.dtype).name
    assert _dtype_name(v) == _expected_dtype(v_sp.dtype, backend)
    _same_set(backend.to_numpy(w), w_sp, 1e-6)
    assert _dtype_name(sla.eigvals(backend.asarray(a, a.dtype.name))) == numpy.dtype(w_sp.dtype).name


def _eigenvalue_function(x):
    w = np.linalg.eigvals(x)
    return np.sum(w * w * w) + np.prod(w)  # symmetric in the eigenvalues: no dependence on their order


def _reconstruction(x):
    w, v = np.linalg.eig(x)
    return np.linalg.solve(np.swapaxes(v, -1, -2), np.swapaxes(v * w[..., None, :], -1, -2))  # (v diag(w) inv(v))^T


@pytest.mark.parametrize("function", [_eigenvalue_function, _reconstruction], ids=["eigenvalues", "reconstruction"])
@pytest.mark.parametrize("spectrum", ["real", "complex", "complex_input"])
@PROFILE
@given(n=st.integers(1, 3), seed=st.integers(0, 2**16))
def test_eig_derivatives_have_the_values_dtype(backend, function, spectrum, n, seed):
    """Distinct eigenvalues: derivatives against finite differences (both modes), and for a real
    matrix with real eigenvalues real values all the way (the function's value is real)."""
    x = backend.asarray(_matrix(spectrum, n, seed), "complex128" if spectrum == "complex_input" else "float64")
    value = function(x)
    if spectrum == "real" and backend.name != "dask" and not NUMPY_EIG_ALWAYS_COMPLEX:
        assert _dtype_name(value) == "float64"
    check_grads(function, modes=("fwd", "rev"), order=1)(x)


@pytest.mark.parametrize("coefficients", [[1.0, -3.0, 2.0], [1.0, 0.0, 1.0], [2.0, -1.0, -7.0, 6.0], [1.0, 0.0, 0.0]])
def test_roots_dtypes_are_numpys(backend, coefficients):
    """``roots`` is real where NumPy's is (all roots real), complex otherwise, whichever NumPy: its ``eigvals``
    is always complex from 2.5 on, its ``roots`` not; on Dask always complex."""
    expected = numpy.roots(coefficients)
    got = np.roots(backend.asarray(coefficients))
    assert _dtype_name(got) == _expected_dtype(expected.dtype, backend)
    _same_set(backend.to_numpy(got), expected, 1e-10)

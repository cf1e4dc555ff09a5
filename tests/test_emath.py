"""``adcore.numpy.emath`` (NumPy's ``numpy.emath``): results whose dtype NumPy picks by the values
(issue 33, item 2). Real arguments inside and outside each function's real domain, in float64 and
float32, drawn by hypothesis: the dtype and values are NumPy's on every backend that knows the values
(on Dask, whose values are unknown until computed, always complex), and the derivatives match finite
differences in both modes, to second order, on both sides of the domain's edge."""

import numpy
import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_properties import PROFILE

import adcore.numpy as np
from adcore.test_util import check_grads

#: name -> (the real domain's edge: |x| <= 1 for the inverse functions, x >= 0 otherwise)
UNARY = {"sqrt": 0, "log": 0, "log2": 0, "log10": 0, "arccos": 1, "arcsin": 1, "arctanh": 1}
CALLS = {
    **{name: (lambda x, name=name: getattr(np.emath, name)(x), lambda x, name=name: getattr(numpy.emath, name)(x)) for name in UNARY},
    "logn": (lambda x: np.emath.logn(3.0, x), lambda x: numpy.emath.logn(3.0, x)),
    "power": (lambda x: np.emath.power(x, 0.5), lambda x: numpy.emath.power(x, 0.5)),
}


def _argument(name, outside, size, seed, dtype):
    """Entries inside the real domain of ``name`` (away from its edges), with one outside if ``outside``."""
    rng = numpy.random.default_rng(seed)
    inverse = UNARY.get(name) == 1
    x = rng.uniform(-0.8, 0.8, size) if inverse else rng.uniform(0.2, 3.0, size)
    if outside:
        x[rng.integers(size)] = rng.choice([-1.0, 1.0]) * rng.uniform(1.2, 3.0) if inverse else -rng.uniform(0.2, 3.0)
    return x.astype(dtype)


def _expected_dtype(dtype, backend):
    if backend.name == "dask":
        return {"float32": "complex64", "float64": "complex128"}.get(dtype.name, dtype.name)
    return dtype.name


@pytest.mark.parametrize("name", CALLS)
@PROFILE
@given(outside=st.booleans(), size=st.integers(1, 5), seed=st.integers(0, 2**16), single=st.booleans())
def test_dtypes_and_values_are_numpys(backend, name, outside, size, seed, single):
    dtype = "float32" if single else "float64"
    x = _argument(name, outside, size, seed, dtype)
    ours, theirs = CALLS[name]
    expected = theirs(x)
    got = ours(backend.asarray(x, dtype))
    backend.check_device(got)
    assert str(got.dtype).split(".")[-1] == _expected_dtype(expected.dtype, backend)
    numpy.testing.assert_allclose(backend.to_numpy(got), expected, rtol=1e-5 if single else 1e-12, atol=1e-6 if single else 1e-13)


@pytest.mark.parametrize("name", CALLS)
@pytest.mark.parametrize("outside", [False, True], ids=["real", "complex"])
def test_derivatives_on_both_sides_of_the_domain(backend, name, outside):
    x = backend.asarray(_argument(name, outside, 3, seed=1, dtype="float64"))
    ours = CALLS[name][0]
    check_grads(lambda x: np.real(ours(x)) + 0.5 * np.imag(ours(x)), order=2)(x)


def test_integer_powers_are_made_float_where_one_is_negative():
    assert np.emath.power(numpy.array([2, 4]), numpy.array([-1, 2])).dtype == numpy.float64
    numpy.testing.assert_array_equal(np.emath.power(numpy.array([2, 4]), numpy.array([-1, 2])), [0.5, 16.0])
    assert np.emath.power(numpy.array([2, 4]), 2).dtype == numpy.emath.power(numpy.array([2, 4]), 2).dtype


def test_real_and_imag_of_a_real_array_are_numpys(backend):
    """NumPy's ``real`` of a real array is the array, its ``imag`` zeros (the Array API's take complex
    arrays only: array-api-strict and PyTorch refused), with derivatives 1 and 0."""
    x = backend.asarray([1.5, -2.0])
    numpy.testing.assert_array_equal(backend.to_numpy(np.real(x)), [1.5, -2.0])
    numpy.testing.assert_array_equal(backend.to_numpy(np.imag(x)), [0.0, 0.0])
    backend.check_device(np.imag(x))
    check_grads(lambda x: np.real(x) * 2.0 + np.imag(x), order=2)(x)

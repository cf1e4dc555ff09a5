"""``adcore.numpy.fft`` against NumPy's values, finite differences (both modes, order 2) and exact derivatives.

One line per case in ``TRANSFORMS`` (function name, input shape, keyword
arguments, input dtypes) drives three tests: the value against ``numpy.fft``
in its own dtype (float32 and complex64 kept), the derivatives of the spec
table (every backend, both dtypes of each kind) and the traced value against
the untraced one. The transforms are linear, so order 2 checks the VJP's own
VJP (the transpose of the transpose) and the JVP of the VJP.
"""

import autograd
import autograd.numpy as anp
import numpy
import pytest

import adcore
import adcore.numpy as np
from adcore import grad, make_jvp, make_vjp
from adcore.numpy import fft
from specs import COMPLEX, REAL, Spec, spec_tests

NORMS = (None, "ortho", "forward")

# (function, input shape, keyword arguments, input dtypes); odd and even lengths, cropping (n or s
# below the input's size) and zero-padding (above it), several axes, repeated axes, every norm
TRANSFORMS = [
    *[("fft", (5,), {"norm": norm}, dtypes) for norm in NORMS for dtypes in (REAL, COMPLEX)],
    *[("ifft", (4,), {"norm": norm}, dtypes) for norm in NORMS for dtypes in (REAL, COMPLEX)],
    ("fft", (4, 3), {"n": 2, "axis": 0, "norm": "ortho"}, COMPLEX),
    ("fft", (3, 4), {"n": 7, "norm": "forward"}, REAL),
    ("ifft", (2, 3), {"n": 2}, COMPLEX),
    ("ifft", (4, 3), {"n": 6, "axis": 0, "norm": "ortho"}, REAL),
    ("fft2", (3, 4), {}, COMPLEX),
    ("fft2", (3, 4), {"s": (2, 6), "norm": "ortho"}, REAL),
    ("ifft2", (2, 3, 4), {"s": (4, 2), "axes": (0, 2)}, COMPLEX),
    ("ifft2", (3, 4), {"norm": "forward"}, REAL),
    ("fftn", (2, 3, 4), {}, COMPLEX),
    ("fftn", (2, 3, 4), {"s": (3, 2), "axes": (2, 0), "norm": "forward"}, COMPLEX),
    ("fftn", (2, 3), {"axes": (0, 0)}, COMPLEX),
    ("ifftn", (2, 3, 4), {"s": (5,), "axes": (1,), "norm": "ortho"}, REAL),
    ("ifftn", (2, 3), {"s": (4, 2), "axes": (1, 1)}, REAL),
    *[("rfft", (6,), {"norm": norm}, REAL) for norm in NORMS],
    ("rfft", (5,), {}, REAL),
    ("rfft", (5,), {"n": 4}, REAL),
    ("rfft", (5,), {"n": 9, "norm": "ortho"}, REAL),
    ("rfft", (6, 2), {"n": 3, "axis": 0, "norm": "forward"}, REAL),
    ("rfft", (5, 3), {"n": 8, "axis": 0}, REAL),
    *[("irfft", (4,), {"norm": norm}, COMPLEX) for norm in NORMS],
    ("irfft", (4,), {"n": 5}, COMPLEX),
    ("irfft", (4,), {"n": 11, "norm": "ortho"}, COMPLEX),
    ("irfft", (5, 2), {"n": 4, "axis": 0, "norm": "forward"}, COMPLEX),
    ("irfft", (3, 2), {"n": 7, "axis": 0}, COMPLEX),
    ("irfft", (4,), {}, REAL),
    ("rfft2", (3, 4), {}, REAL),
    ("rfft2", (3, 4), {"s": (2, 5), "norm": "ortho"}, REAL),
    ("irfft2", (3, 3), {}, COMPLEX),
    ("irfft2", (3, 3), {"s": (4, 5), "norm": "forward"}, COMPLEX),
    ("rfftn", (2, 3, 4), {}, REAL),
    ("rfftn", (2, 3, 4), {"s": (3, 5), "axes": (2, 0), "norm": "forward"}, REAL),
    ("rfftn", (2, 4), {"axes": (1, 1)}, REAL),
    ("irfftn", (2, 3, 3), {}, COMPLEX),
    ("irfftn", (2, 3, 3), {"s": (3, 4), "axes": (2, 1), "norm": "ortho"}, COMPLEX),
    ("irfftn", (2, 3), {"axes": (0, 1, 1)}, COMPLEX),
    ("hfft", (4,), {}, COMPLEX),
    ("hfft", (4,), {"n": 5, "norm": "ortho"}, COMPLEX),
    ("hfft", (3, 2), {"n": 7, "axis": 0, "norm": "forward"}, REAL),
    ("ihfft", (6,), {}, REAL),
    ("ihfft", (4,), {"n": 5, "norm": "forward"}, REAL),
    ("ihfft", (4, 2), {"n": 3, "axis": 0, "norm": "ortho"}, REAL),
    ("fftshift", (5,), {}, REAL),
    ("fftshift", (3, 4), {"axes": 0}, COMPLEX),
    ("ifftshift", (3, 5), {"axes": (0, 1)}, REAL),
    ("ifftshift", (2, 3), {}, COMPLEX),
]


def _name(name, shape, kwargs):
    return name + str(shape) + "".join(f"-{key}{value}" for key, value in kwargs.items())


def _transform(name, kwargs):
    def f(x):
        return getattr(fft, name)(x, **kwargs)

    f.__name__ = name
    return f


SPECS = [
    *[
        Spec(_name(name, shape, kwargs), _transform(name, kwargs), (shape,), dtypes=dtypes)
        for name, shape, kwargs, dtypes in TRANSFORMS
    ],
    # inside real-valued functions, and composed with each other
    Spec("power_spectrum", lambda x: np.sum(np.abs(fft.fft(x)) ** 2), ((5,),)),
    Spec("circular_convolution", lambda x, y: fft.irfft(fft.rfft(x, 7) * fft.rfft(y, 7), 7), ((5,), (4,)), joint=True),
    Spec("complex_convolution", lambda x, y: fft.ifft(fft.fft(x) * fft.fft(y)), ((2, 3), (3,)), joint=True, dtypes=COMPLEX),
    Spec("rfft_round_trip", lambda x: fft.irfft(fft.rfft(x), 5) * x, ((5,),)),
    Spec("shifted_magnitude", lambda x: fft.fftshift(np.real(fft.fft2(x) * np.conj(fft.fft2(x)))), ((3, 4),), dtypes=COMPLEX),
]

test_derivatives, test_value_matches_numpy = spec_tests(SPECS)


def _dtype_name(x):
    return str(x.dtype).split(".")[-1]


def _random(shape, dtype, seed=0):
    rng = numpy.random.default_rng(seed)
    data = rng.uniform(-2.0, 2.0, size=shape)
    if numpy.dtype(dtype).kind == "c":
        data = data + 1j * rng.uniform(-2.0, 2.0, size=shape)
    return data.astype(dtype)


@pytest.mark.parametrize(
    "name, shape, kwargs, dtype",
    [
        pytest.param(name, shape, kwargs, dtype, id=f"{_name(name, shape, kwargs)}-{dtype}")
        for name, shape, kwargs, dtypes in TRANSFORMS
        for dtype in dtypes
    ],
)
def test_value_and_dtype_match_numpy_fft(backend, name, shape, kwargs, dtype):
    """Each transform equals ``numpy.fft``'s in value and dtype (NumPy 2 keeps single precision)."""
    data = _random(shape, dtype)
    result = getattr(fft, name)(backend.asarray(data, dtype), **kwargs)
    expected = getattr(numpy.fft, name)(data, **kwargs)
    backend.check_device(result)
    assert _dtype_name(result) == str(expected.dtype)
    tolerance = 1e-5 if dtype in ("float32", "complex64") else 1e-12
    numpy.testing.assert_allclose(backend.to_numpy(result), expected, rtol=tolerance, atol=tolerance)


# ---- exact derivatives ----


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_parseval_gradient_of_the_power_spectrum(backend, dtype):
    """``sum |fft(x)|^2 = n sum |x|^2``, so its gradient is ``2 n x`` (``2 x`` with ``norm="ortho"``)."""
    data = _random((6,), dtype)
    x = backend.asarray(data, dtype)
    g = grad(lambda x: np.sum(np.abs(fft.fft(x)) ** 2))(x)
    g_ortho = grad(lambda x: np.sum(np.abs(fft.fft(x, norm="ortho")) ** 2))(x)
    backend.check_device(g)
    assert _dtype_name(g) == dtype and _dtype_name(g_ortho) == dtype
    tolerance = 1e-4 if dtype == "float32" else 1e-12
    numpy.testing.assert_allclose(backend.to_numpy(g), 2 * 6 * data, rtol=tolerance, atol=tolerance)
    numpy.testing.assert_allclose(backend.to_numpy(g_ortho), 2 * data, rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_parseval_gradient_of_complex_input(backend, dtype):
    """For complex ``z`` the gradient of ``n sum |z|^2`` is ``2 n conj(z)`` (``df/dx - i df/dy``)."""
    data = _random((2, 3), dtype)
    z = backend.asarray(data, dtype)
    g = grad(lambda z: np.sum(np.abs(fft.fft2(z)) ** 2))(z)
    assert _dtype_name(g) == dtype
    tolerance = 1e-4 if dtype == "complex64" else 1e-12
    numpy.testing.assert_allclose(backend.to_numpy(g), 2 * 6 * numpy.conj(data), rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("n", [6, 7])
def test_rfft_vjp_is_the_transposed_half_spectrum(backend, n):
    """A unit cotangent at frequency ``k`` gives ``cos(2 pi j k / n)``, an imaginary one ``sin``: exact at
    frequency 0 and Nyquist too, where the weights differ (odd and even ``n``)."""
    vjp, _ = make_vjp(fft.rfft)(backend.asarray(numpy.zeros(n)))
    j = numpy.arange(n)
    for k in range(n // 2 + 1):
        unit = numpy.zeros(n // 2 + 1, complex)
        unit[k] = 1.0
        angle = 2 * numpy.pi * j * k / n
        numpy.testing.assert_allclose(backend.to_numpy(vjp(backend.asarray(unit, "complex128"))), numpy.cos(angle), atol=1e-12)
        numpy.testing.assert_allclose(
            backend.to_numpy(vjp(backend.asarray(1j * unit, "complex128"))), numpy.sin(angle), atol=1e-12
        )


@pytest.mark.parametrize("n", [6, 7])
def test_irfft_vjp_is_the_transposed_half_spectrum(backend, n):
    """``y_j = (1/n) sum_k w_k Re(x_k e^{2 pi i j k / n})`` with ``w`` 1 at frequency 0 and Nyquist, else 2;
    so the cotangent of ``x_k`` from a unit at ``y_j`` is ``w_k / n * e^{2 pi i j k / n}``."""
    m = n // 2 + 1
    vjp, _ = make_vjp(lambda x: fft.irfft(x, n))(backend.asarray(numpy.zeros(m), "complex128"))
    k = numpy.arange(m)
    weights = numpy.where((k == 0) | (2 * k == n), 1.0, 2.0)
    for j in range(n):
        unit = numpy.zeros(n)
        unit[j] = 1.0
        expected = weights / n * numpy.exp(2j * numpy.pi * j * k / n)
        numpy.testing.assert_allclose(backend.to_numpy(vjp(backend.asarray(unit))), expected, atol=1e-12)


def test_jvp_is_the_transform_of_the_tangent(backend):
    x, v = (backend.asarray(_random((3, 4), "complex128", seed), "complex128") for seed in (0, 1))
    y, tangent = make_jvp(lambda x: fft.fftn(x, s=(2, 5), axes=(0, 1), norm="ortho"))(x)(v)
    expected = numpy.fft.fftn(backend.to_numpy(v), s=(2, 5), axes=(0, 1), norm="ortho")
    numpy.testing.assert_allclose(backend.to_numpy(tangent), expected, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "complex64"])
def test_single_precision_derivatives_stay_single(backend, dtype):
    x = backend.asarray(_random((4, 3), dtype), dtype)

    def f(x):
        spectrum = fft.rfft2(np.real(x), s=(5, 3)) if dtype == "complex64" else fft.rfft2(x, s=(5, 3))
        return np.sum(fft.irfft(spectrum, 4, axis=0) ** 2) + np.sum(np.abs(fft.ifftshift(fft.hfft(x, 5))))

    g = grad(f)(x)
    _, tangent = make_jvp(f)(x)(x)
    backend.check_device(g)
    assert _dtype_name(g) == dtype and _dtype_name(tangent) == "float32"


# ---- against autograd 1.9.1 (same complex convention) on NumPy ----


@pytest.mark.parametrize(
    "name, shape, kwargs, dtype",
    [
        ("fft", (5,), {"n": 7, "norm": "ortho"}, "complex128"),
        ("ifft2", (3, 4), {"s": (2, 4)}, "float64"),
        ("fftn", (2, 3, 4), {"axes": (0, 2), "norm": "forward"}, "complex128"),
        ("rfft", (6,), {}, "float64"),
        ("irfft", (4, 3), {"axis": 0}, "complex128"),
        ("rfftn", (4, 6), {"norm": "ortho"}, "float64"),
        ("fftshift", (3, 4), {"axes": 1}, "complex128"),
    ],
)
def test_gradients_match_autograd(name, shape, kwargs, dtype):
    """autograd supports even lengths of the real transforms only; where both run, the gradients agree."""
    x = _random(shape, dtype)
    out_shape = getattr(numpy.fft, name)(x, **kwargs).shape
    w_real, w_imag = _random(out_shape, "float64", 1), _random(out_shape, "float64", 2)

    def loss(module, real, imag):
        return lambda x: module.sum(
            real(getattr(module.fft, name)(x, **kwargs)) * w_real + imag(getattr(module.fft, name)(x, **kwargs)) * w_imag
        )

    expected = autograd.grad(loss(anp, anp.real, anp.imag))(x)
    numpy.testing.assert_allclose(grad(loss(np, np.real, np.imag))(x), expected, atol=1e-12)


# ---- frequencies and errors ----


def test_sample_frequencies_match_numpy_on_the_default_backend(backend):
    device = backend.device
    with adcore.use_backend(backend.name):
        freqs, rfreqs = fft.fftfreq(6, 0.5, device=device), fft.rfftfreq(7, d=2.0, device=device)
    backend.check_device(freqs)
    backend.check_device(rfreqs)
    numpy.testing.assert_allclose(backend.to_numpy(freqs), numpy.fft.fftfreq(6, 0.5))
    numpy.testing.assert_allclose(backend.to_numpy(rfreqs), numpy.fft.rfftfreq(7, d=2.0))


def test_spectral_derivative_of_a_periodic_function():
    """d/dt sin(3 t) through the spectrum, ``irfft(i k rfft(y))``; the operator is antisymmetric, so the
    gradient of ``<D y, cos(3 t)>`` is ``-D cos(3 t) = 3 sin(3 t)``."""
    t = numpy.linspace(0.0, 2 * numpy.pi, 16, endpoint=False)
    k = fft.rfftfreq(16, d=1.0 / 16)  # the integer frequencies 0 .. 8

    def derivative(y):
        return fft.irfft(fft.rfft(y) * (1j * k), 16)

    numpy.testing.assert_allclose(derivative(np.sin(3 * t)), 3 * numpy.cos(3 * t), atol=1e-12)
    g = grad(lambda y: np.sum(derivative(y) * np.cos(3 * t)))(np.sin(3 * t))
    numpy.testing.assert_allclose(g, 3 * numpy.sin(3 * t), atol=1e-12)


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda x: fft.rfft(x * 1j), TypeError, "rfft: the input must be real"),
        (lambda x: fft.fft(x, norm="backwards"), ValueError, "fft: invalid norm 'backwards'"),
        (lambda x: fft.irfft(x, 0), ValueError, r"irfft: invalid number of FFT data points \(0\)"),
        (lambda x: fft.fftn(x, s=(2, 3), axes=(0,)), ValueError, "fftn: s and axes have different lengths"),
        (lambda x: fft.fft(x, axis=2), numpy.exceptions.AxisError, "fft: axis 2 is out of bounds"),
    ],
)
def test_bad_arguments_are_named(call, error, match):
    with pytest.raises(error, match=match):
        grad(lambda x: np.sum(np.real(call(x))))(numpy.ones((2, 3)))

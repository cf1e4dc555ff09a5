"""``adcore.scipy.signal``'s convolutions and ``adcore.scipy.integrate.odeint`` against finite
differences, SciPy and closed forms (``tests/test_signal_alignment.py`` checks the convolutions'
windows at every pair of sizes).

``convolve`` runs on every backend (SciPy on NumPy; the standard's ``fft`` or direct
sums on array-api-strict). ``odeint`` is NumPy only (SciPy's solver runs on the host);
its specs are skipped elsewhere and a test checks that other backends raise. The ODE
specs ask the solver for tolerances of 1e-12, so that the finite differences the
checker compares with are not dominated by the solver's error.
"""

import numpy
import pytest
import scipy.integrate
import scipy.signal

import adcore.numpy as np
from adcore import grad, make_jvp
from adcore.scipy import signal
from adcore.scipy.integrate import odeint
from adcore.scipy.signal import convolve
from specs import COMPLEX, P, R, Spec, spec_tests

NUMPY_ONLY = {"array_api_strict": "scipy.integrate.odeint runs on NumPy arrays only (other backends are checked to raise)"}
TIGHT = {"rtol": 1e-12, "atol": 1e-12}


def conv(mode, method="auto"):
    def fun(in1, in2):
        return convolve(in1, in2, mode=mode, method=method)

    return fun


def conv_axes(axes, dot_axes=((), ()), mode="full", positional=False):
    """autograd's form ``convolve(a, b, axes, dot_axes, mode)``, by keyword or by position."""

    def fun(a, b):
        if positional:
            return convolve(a, b, axes, dot_axes, mode)
        return convolve(a, b, axes=axes, dot_axes=dot_axes, mode=mode)

    return fun


def corr(mode, method="auto"):
    def fun(in1, in2):
        return signal.correlate(in1, in2, mode=mode, method=method)

    return fun


def frequency(name, mode, axes=None):
    """``fftconvolve`` or ``oaconvolve``."""

    def fun(in1, in2):
        return getattr(signal, name)(in1, in2, mode=mode, axes=axes)

    return fun


def two_d(name, mode, boundary):
    """``convolve2d`` or ``correlate2d``."""

    def fun(in1, in2):
        return getattr(signal, name)(in1, in2, mode, boundary)

    return fun


def filled(name, mode):
    """``convolve2d`` or ``correlate2d`` with a traced ``fillvalue``."""

    def fun(in1, in2, fillvalue):
        return getattr(signal, name)(in1, in2, mode, "fill", fillvalue)

    return fun


def times(dt):
    """Increasing output times ``0, dt_0, dt_0 + dt_1, ...`` (differentiable in ``dt``)."""
    return np.concatenate([np.zeros_like(dt[:1]), np.cumsum(dt)])


def decay(y0, k):
    t = np.asarray(numpy.linspace(0.0, 1.0, 4))
    return odeint(lambda y, t, k: -k * y, y0, t, args=(k,), **TIGHT)


def forced_oscillator(y0, w, dt):
    """``y'' = -w0 y - w1 y' + sin(t)``: differentiable in the state, the parameters and the times."""

    def rate(y, t, w):
        return np.stack([y[1], -w[0] * y[0] - w[1] * y[1] + np.sin(t)])

    return odeint(rate, y0, times(dt), args=(w,), **TIGHT)


def lotka_volterra(y0, p):
    """Two populations with four rates passed as a dict, time first (``tfirst``)."""

    def rate(t, y, params):
        a, b = params["growth"], params["interaction"]
        return np.stack([a[0] * y[0] - b[0] * y[0] * y[1], b[1] * y[0] * y[1] - a[1] * y[1]])

    t = np.asarray(numpy.linspace(0.0, 0.5, 3))
    return odeint(rate, y0, t, args=({"growth": p[:2], "interaction": p[2:]},), tfirst=True, **TIGHT)


SPECS = [
    Spec("convolve_full", conv("full"), ((5,), (3,))),
    Spec("convolve_valid_swapped", conv("valid"), ((3,), (5,))),
    Spec("convolve_same", conv("same"), ((5,), (3,))),
    Spec("convolve_same_smaller_first", conv("same"), ((3,), (4,))),
    Spec("convolve_2d_full_direct", conv("full", "direct"), ((3, 4), (2, 3))),
    Spec("convolve_2d_valid_fft", conv("valid", "fft"), ((4, 5), (2, 3))),
    Spec("convolve_2d_same_mixed_sizes", conv("same"), ((2, 5), (3, 2))),
    Spec("convolve_3d_same", conv("same", "direct"), ((2, 3, 4), (2, 2, 3))),
    Spec("convolve_0d", conv("full"), ((), ())),
    Spec("convolve_complex", conv("same"), ((4,), (3,)), dtypes=COMPLEX),
    Spec("convolve_axes_outer", conv_axes(([1], [0])), ((3, 5), (3, 4))),
    Spec("convolve_axes_dot_valid", conv_axes(([1], [2]), ([0], [0]), "valid"), ((2, 5), (2, 3, 2))),
    Spec("convolve_axes_2d_same_positional", conv_axes(([1, 0], [1, 0]), mode="same", positional=True), ((4, 3), (3, 2))),
    Spec("convolve_axes_image_filters", conv_axes(([2, 3], [2, 3]), ([1], [0]), "valid"), ((2, 1, 4, 4), (1, 2, 2, 2))),
    Spec("correlate_same_even_kernel", corr("same"), ((5,), (4,))),
    Spec("correlate_full_swapped_direct", corr("full", "direct"), ((3,), (5,)), dtypes=COMPLEX),
    Spec("correlate_2d_valid_swapped_fft", corr("valid", "fft"), ((2, 3), (4, 5))),
    Spec("fftconvolve_axes_broadcast_same", frequency("fftconvolve", "same", 1), ((1, 4), (3, 3))),
    Spec("oaconvolve_valid_swapped", frequency("oaconvolve", "valid"), ((3,), (6,))),
    Spec("convolve2d_same_wrap", two_d("convolve2d", "same", "wrap"), ((3, 4), (2, 3))),
    Spec("convolve2d_full_symm_kernel_larger", two_d("convolve2d", "full", "symm"), ((2, 2), (3, 4))),
    Spec("convolve2d_fillvalue", filled("convolve2d", "same"), ((3, 3), (2, 2), ())),
    Spec("correlate2d_same_symm", two_d("correlate2d", "same", "symm"), ((3, 4), (2, 2))),
    Spec("correlate2d_valid_swapped", two_d("correlate2d", "valid", "fill"), ((2, 2), (3, 3)), dtypes=COMPLEX),
    Spec("correlate2d_fillvalue", filled("correlate2d", "full"), ((2, 3), (2, 2), ())),
    Spec("odeint_decay", decay, ((2,), ()), (R, P), order=1, skip=NUMPY_ONLY),
    Spec("odeint_decay_order2", decay, ((1,), ()), (R, P), order=2, dtypes=("float64",), skip=NUMPY_ONLY, full_only=("numpy",)),
    Spec("odeint_forced_oscillator", forced_oscillator, ((2,), (2,), (3,)), (R, P, P), order=1, skip=NUMPY_ONLY),
    Spec(
        "odeint_forced_oscillator_joint", forced_oscillator, ((2,), (2,), (2,)), (R, P, P), order=1, joint=True, skip=NUMPY_ONLY
    ),
    Spec("odeint_tfirst_dict_args", lotka_volterra, ((2,), (4,)), (P, P), order=1, skip=NUMPY_ONLY),
]

test_derivatives, test_value_matches_numpy = spec_tests(SPECS)


# ---- convolve: values against SciPy ----

SHAPES = [((5,), (3,)), ((3,), (5,)), ((4,), (4,)), ((4, 5), (2, 3)), ((2, 3), (4, 5)), ((2, 5), (3, 2)), ((3, 2, 4), (2, 2, 2))]


@pytest.mark.parametrize("shapes", SHAPES, ids=str)
@pytest.mark.parametrize("mode", ["full", "valid", "same"])
@pytest.mark.parametrize("method", ["auto", "direct", "fft"])
def test_convolve_matches_scipy(shapes, mode, method, backend):
    rng = numpy.random.default_rng(0)
    in1, in2 = rng.standard_normal(shapes[0]), rng.standard_normal(shapes[1])
    try:
        expected = scipy.signal.convolve(in1, in2, mode=mode, method=method)
    except ValueError:
        with pytest.raises(ValueError, match="at least as large as the other"):
            convolve(backend.asarray(in1), backend.asarray(in2), mode=mode, method=method)
        return
    result = convolve(backend.asarray(in1), backend.asarray(in2), mode=mode, method=method)
    backend.check_device(result)
    numpy.testing.assert_allclose(backend.to_numpy(result), expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtypes", [("float32", "float32"), ("float32", "float64"), ("int64", "int64"), ("complex64", "float32")])
def test_convolve_dtypes_follow_scipy(dtypes, backend):
    """The promoted dtype; integers stay exact integers (direct sums)."""
    in1, in2 = numpy.arange(1, 6).astype(dtypes[0]), numpy.array([3, -1, 2]).astype(dtypes[1])
    expected = scipy.signal.convolve(in1, in2)
    result = convolve(backend.asarray(in1, dtypes[0]), backend.asarray(in2, dtypes[1]))
    assert str(result.dtype).endswith(str(expected.dtype))
    numpy.testing.assert_allclose(backend.to_numpy(result), expected, rtol=1e-6)


def test_convolve_gradient_is_a_correlation(backend):
    """d sum(w * convolve(x, k)) / dx = correlate(w, k, "valid"), SciPy's correlation."""
    rng = numpy.random.default_rng(1)
    x, k, w = rng.standard_normal(6), rng.standard_normal(3), rng.standard_normal(8)
    g = grad(lambda x: np.sum(np.multiply(convolve(x, backend.asarray(k)), backend.asarray(w))))(backend.asarray(x))
    numpy.testing.assert_allclose(backend.to_numpy(g), scipy.signal.correlate(w, k, mode="valid"), rtol=1e-12)


def convolve_reference(a, b, axes, dot_axes, mode):
    """autograd's generalised convolution from SciPy's N-d one: per pair of the other axes' entries,
    the sum over the dot axes of the N-d convolutions along ``axes``."""
    (conv_a, conv_b), (dot_a, dot_b) = axes, dot_axes
    ignore_a = [i for i in range(a.ndim) if i not in conv_a and i not in dot_a]
    ignore_b = [j for j in range(b.ndim) if j not in conv_b and j not in dot_b]
    a = numpy.transpose(a, ignore_a + list(dot_a) + list(conv_a))
    b = numpy.transpose(b, ignore_b + list(dot_b) + list(conv_b))
    a_ignored, b_ignored = a.shape[: len(ignore_a)], b.shape[: len(ignore_b)]
    dots = int(numpy.prod(a.shape[len(ignore_a) : len(ignore_a) + len(dot_a)]))
    a = a.reshape((-1, dots) + a.shape[len(ignore_a) + len(dot_a) :])
    b = b.reshape((-1, dots) + b.shape[len(ignore_b) + len(dot_b) :])
    out = numpy.array([[sum(scipy.signal.convolve(x[d], y[d], mode) for d in range(dots)) for y in b] for x in a])
    return out.reshape(a_ignored + b_ignored + out.shape[2:])


@pytest.mark.parametrize(
    "shapes, axes, dot_axes",
    [
        (((3, 5), (3, 4)), ([1], [0]), ([], [])),
        (((3, 5), (3, 4)), ([], []), ([0], [0])),
        (((3, 5), (3, 4, 2)), ([1], [2]), ([0], [0])),
        (((2, 5, 4, 3), (2, 4, 2, 3, 2)), ([1, 2], [2, 4]), ([0, 3], [0, 3])),
        (((4, 3), (3, 2)), ([1, 0], [1, 0]), ([], [])),
        (((3,), (5,)), ([0], [0]), ([], [])),
        (((2, 1, 6, 6), (1, 3, 3, 3)), ([2, 3], [2, 3]), ([1], [0])),
    ],
    ids=str,
)
@pytest.mark.parametrize("mode", ["full", "valid", "same"])
def test_convolve_axes_matches_scipy(shapes, axes, dot_axes, mode, backend):
    """autograd's ``convolve(A, B, axes, dot_axes, mode)``: out axes are A's others, B's others, then the convolved."""
    rng = numpy.random.default_rng(0)
    a, b = rng.standard_normal(shapes[0]), rng.standard_normal(shapes[1])
    sizes = [(a.shape[i], b.shape[j]) for i, j in zip(*axes)]
    if mode == "valid" and not (all(n >= m for n, m in sizes) or all(m >= n for n, m in sizes)):
        with pytest.raises(ValueError, match="at least as large as the other"):
            convolve(backend.asarray(a), backend.asarray(b), axes=axes, dot_axes=dot_axes, mode=mode)
        return
    result = convolve(backend.asarray(a), backend.asarray(b), axes=axes, dot_axes=dot_axes, mode=mode)
    backend.check_device(result)
    expected = convolve_reference(a, b, axes, dot_axes, mode)
    numpy.testing.assert_allclose(backend.to_numpy(result), expected, rtol=1e-10, atol=1e-12)


def test_convolve_forms_are_told_apart():
    a, b = numpy.arange(4.0), numpy.array([1.0, -1.0, 2.0])
    scipy_form = scipy.signal.convolve(a, b, "same")
    numpy.testing.assert_allclose(convolve(a, b, "same"), scipy_form)
    numpy.testing.assert_allclose(convolve(a, b, "same", "direct"), scipy_form)
    numpy.testing.assert_allclose(convolve(a, b, ([0], [0]), ([], []), "same"), scipy_form)
    numpy.testing.assert_allclose(convolve(a, b, axes=([0], [0]), mode="same"), scipy_form)
    with pytest.raises(TypeError, match="argument 'mode' twice"):
        convolve(a, b, "same", mode="full")
    with pytest.raises(TypeError, match="at most 5 positional arguments"):
        convolve(a, b, ([0], [0]), ([], []), "full", "direct")
    with pytest.raises(TypeError, match=r"unexpected keyword argument\(s\) \['axis'\]"):
        convolve(a, b, axis=0)
    with pytest.raises(ValueError, match="pair as many axes"):
        convolve(a, b, axes=([0], []))
    with pytest.raises(ValueError, match="out of range"):
        convolve(a, b, axes=([1], [0]))


def test_convolve_errors_name_the_argument():
    with pytest.raises(ValueError, match="mode flags"):
        convolve(numpy.ones(3), numpy.ones(2), mode="circular")
    with pytest.raises(ValueError, match="method flags"):
        convolve(numpy.ones(3), numpy.ones(2), method="winograd")
    with pytest.raises(ValueError, match="same dimensionality"):
        convolve(numpy.ones((3, 2)), numpy.ones(2))
    with pytest.raises(ValueError, match="at least as large as the other"):
        convolve(numpy.ones((2, 3)), numpy.ones((3, 2)), mode="valid")


# ---- odeint: closed forms, SciPy, options, errors ----

T = numpy.linspace(0.0, 2.0, 5)


def test_odeint_of_exponential_decay_and_its_derivatives_in_closed_form():
    """``y = y0 exp(-k t)``: ``dy/dk = -t y``, ``dy/dy0 = exp(-k t)``, ``dy/dt_i = -k y_i`` (i >= 1)
    and ``dy_i/dt_0 = k y_i``, in both modes."""
    y0, k = numpy.array([1.5, -0.5]), 0.8

    def solution(y0, k, t):
        return odeint(lambda y, t, k: -k * y, y0, t, args=(k,), **TIGHT)

    exact = y0 * numpy.exp(-k * T)[:, None]
    numpy.testing.assert_allclose(solution(y0, k, T), exact, rtol=1e-9, atol=1e-12)
    weights = numpy.random.default_rng(0).standard_normal(exact.shape)

    def loss(*args):
        return np.sum(np.multiply(solution(*args), weights))

    numpy.testing.assert_allclose(grad(loss, 1)(y0, k, T), numpy.sum(-T[:, None] * exact * weights), rtol=1e-8)
    numpy.testing.assert_allclose(grad(loss, 0)(y0, k, T), numpy.sum(numpy.exp(-k * T)[:, None] * weights, axis=0), rtol=1e-8)
    g_t = numpy.sum(-k * exact * weights, axis=1)
    g_t[0] = numpy.sum(k * exact[1:] * weights[1:])
    numpy.testing.assert_allclose(grad(loss, 2)(y0, k, T), g_t, rtol=1e-8)
    _, tangent = make_jvp(lambda k: solution(y0, k, T))(k)(1.0)
    numpy.testing.assert_allclose(tangent, -T[:, None] * exact, rtol=1e-8, atol=1e-12)
    _, tangent = make_jvp(lambda t: solution(y0, k, t))(T)(numpy.ones_like(T))
    numpy.testing.assert_allclose(tangent, numpy.zeros_like(exact), atol=1e-9)  # shifting every time leaves y unchanged


def test_odeint_matches_scipy_with_its_options():
    def rate(y, t, a):
        return np.array([y[1], -a * np.sin(y[0])])

    ours = odeint(rate, [1.0, 0.0], T, args=(2.0,), rtol=1e-6, atol=1e-8, mxstep=1000, hmax=0.5)
    theirs = scipy.integrate.odeint(
        lambda y, t, a: [y[1], -a * numpy.sin(y[0])], [1.0, 0.0], T, args=(2.0,), rtol=1e-6, atol=1e-8, mxstep=1000, hmax=0.5
    )
    numpy.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_odeint_scalar_state_dfun_and_float32():
    """A scalar ``y0`` is a state of size 1; ``Dfun`` is used for the value; float32 stays float32."""
    calls = []

    def jacobian(y, t, k):
        calls.append(t)
        return numpy.array([[-k]])

    y = odeint(lambda y, t, k: -k * y, 2.0, T, args=(0.5,), Dfun=jacobian)
    numpy.testing.assert_allclose(y[:, 0], 2.0 * numpy.exp(-0.5 * T), rtol=1e-6)
    y32 = odeint(lambda y, t, k: -k * y, numpy.ones(1, numpy.float32), T.astype(numpy.float32), args=(0.5,))
    assert y.shape == (5, 1) and y32.dtype == numpy.float32
    assert odeint(lambda y, t: -y, y32[0], T).dtype == numpy.float64  # promoted with the float64 times
    assert grad(lambda y0: np.sum(odeint(lambda y, t: -y, y0, T)))(numpy.ones(2, numpy.float32)).dtype == numpy.float32


def test_odeint_errors_name_the_way_out(backend):
    with pytest.raises(NotImplementedError, match="full_output"):
        odeint(lambda y, t: -y, 1.0, T, full_output=1)
    with pytest.raises(TypeError, match="args must hold arrays and numbers"):
        odeint(lambda y, t, name: -y, 1.0, T, args=("decay",))
    with pytest.raises(TypeError, match="pass such values through args"):
        grad(lambda k: np.sum(odeint(lambda y, t: -k * y, 1.0, T)))(0.5)
    if backend.name != "numpy":
        with pytest.raises(NotImplementedError, match=f"the {backend.name} backend is not supported"):
            odeint(lambda y, t: -y, backend.asarray([1.0]), backend.asarray(T))

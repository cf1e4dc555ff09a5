"""The differential operators: values, shapes, dtypes, argnum handling and names, on every backend."""

import numpy
import pytest

import adcore.numpy as np
from adcore import checkpoint, deriv, elementwise_grad, grad, grad_and_aux, hessian, jacobian, make_jvp, make_vjp, value_and_grad
from adcore.test_util import check_grads


def f(x):
    return np.sum(np.tanh(x) ** 2)


def df(x):
    t = numpy.tanh(x)
    return 2 * t * (1 - t**2)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_grad_value_shape_dtype_device(backend, dtype):
    data = numpy.array([[0.1, -0.5, 1.2], [0.3, 0.0, -2.0]])
    x = backend.asarray(data, dtype)
    g = grad(f)(x)
    backend.check_device(g)
    assert g.dtype == x.dtype and g.shape == x.shape
    rtol = 1e-6 if dtype == "float32" else 1e-13
    numpy.testing.assert_allclose(backend.to_numpy(g), df(data), rtol=rtol, atol=rtol)


def test_value_and_grad_and_aux(backend):
    x = backend.asarray([0.5, -1.0])
    value, g = value_and_grad(f)(x)
    numpy.testing.assert_allclose(backend.to_numpy(value), numpy.sum(numpy.tanh([0.5, -1.0]) ** 2))
    numpy.testing.assert_allclose(backend.to_numpy(g), df(numpy.array([0.5, -1.0])))
    g2, aux = grad_and_aux(lambda x: (f(x), "aux"))(x)
    assert aux == "aux"
    numpy.testing.assert_allclose(backend.to_numpy(g2), backend.to_numpy(g))


def test_elementwise_grad(backend):
    x = backend.asarray([0.5, -1.0, 2.0])
    g = elementwise_grad(np.tanh)(x)
    numpy.testing.assert_allclose(backend.to_numpy(g), 1 - numpy.tanh([0.5, -1.0, 2.0]) ** 2)


def test_jacobian_and_hessian_shapes_and_values(backend):
    data = numpy.array([[0.1, -0.5], [1.2, 0.3]])
    x = backend.asarray(data)
    jac = jacobian(lambda x: x**2)(x)
    assert jac.shape == (2, 2, 2, 2)
    expected = numpy.zeros((2, 2, 2, 2))
    for i in range(2):
        for j in range(2):
            expected[i, j, i, j] = 2 * data[i, j]
    numpy.testing.assert_allclose(backend.to_numpy(jac), expected)
    hess = hessian(lambda x: np.sum(x**3))(x)
    assert hess.shape == (2, 2, 2, 2)
    numpy.testing.assert_allclose(backend.to_numpy(hess).reshape(4, 4), numpy.diag(6 * data.ravel()), atol=1e-14)


def test_deriv_and_make_jvp(backend):
    x = backend.asarray([0.5, 2.0])
    numpy.testing.assert_allclose(backend.to_numpy(deriv(np.sin)(x)), numpy.cos([0.5, 2.0]))
    ans, tangent = make_jvp(np.exp)(x)(backend.asarray([1.0, -1.0]))
    numpy.testing.assert_allclose(backend.to_numpy(tangent), numpy.exp([0.5, 2.0]) * [1.0, -1.0])
    vjp, ans = make_vjp(np.exp)(x)
    numpy.testing.assert_allclose(backend.to_numpy(vjp(backend.asarray([1.0, -1.0]))), numpy.exp([0.5, 2.0]) * [1.0, -1.0])


def test_argnum_int_and_tuple(backend):
    x, y = backend.asarray([1.0, 2.0]), backend.asarray([3.0, -1.0])

    def g(x, y, scale=1.0):
        return np.sum(np.multiply(x, y)) * scale  # `raw * traced` raises on array-api-strict (README, known limits)

    numpy.testing.assert_allclose(backend.to_numpy(grad(g, 1)(x, y, scale=2.0)), [2.0, 4.0])
    gx, gy = grad(g, (0, 1))(x, y)
    numpy.testing.assert_allclose(backend.to_numpy(gx), [3.0, -1.0])
    numpy.testing.assert_allclose(backend.to_numpy(gy), [1.0, 2.0])
    check_grads(g, (0, 1))(x, y)


def test_names_follow_autograd():
    def loss(x, y):
        return x * y

    assert grad(loss).__name__ == "grad_of_loss"
    assert grad(loss, 1).__name__ == "grad_of_loss_wrt_argnum_1"
    assert jacobian(loss).__name__ == "jacobian_of_loss"
    assert "with respect to argument number 1" in grad(loss, 1).__doc__


def test_checkpoint_matches_plain_gradient_in_both_modes(backend):
    def block(x):
        return np.sin(x) * np.exp(-x)

    x = backend.asarray([0.1, 0.7, -0.4])
    loss = lambda x: np.sum(checkpoint(block)(x) ** 2)  # noqa: E731
    plain = lambda x: np.sum(block(x) ** 2)  # noqa: E731
    numpy.testing.assert_allclose(backend.to_numpy(grad(loss)(x)), backend.to_numpy(grad(plain)(x)), rtol=1e-14)
    check_grads(loss, modes=("fwd", "rev"), order=2)(x)


def test_second_derivative_of_scalar_function():
    assert hessian(lambda x: x**3)(2.0) == pytest.approx(12.0)
    assert deriv(deriv(np.sin))(1.0) == pytest.approx(-numpy.sin(1.0))

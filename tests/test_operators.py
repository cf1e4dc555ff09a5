"""The differential operators: values, shapes, dtypes, argnum handling and names, on every backend."""

import numpy
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes

import adcore.numpy as np
from adcore import (
    checkpoint,
    deriv,
    elementwise_grad,
    grad,
    grad_and_aux,
    hessian,
    jacfwd,
    jacobian,
    jacrev,
    make_jvp,
    make_vjp,
    tensor_jacobian_product,
    value_and_grad,
)
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


def _mixed(x, y, z):
    """A function of three arguments of different shapes whose Jacobian has every block non-zero
    (through ``sort``, whose VJP is not batch-safe, and ``matmul``, whose is)."""
    return np.add(np.tanh(np.multiply(np.matmul(y, x), z)), np.multiply(np.sort(x)[0], z))  # `raw * traced` fails on strict


@pytest.mark.parametrize("operator", [jacobian, jacrev, jacfwd])
@pytest.mark.parametrize("argnum", [(0, 1, 2), (2, 0), (1,), [0, 2]])
def test_jacobian_with_a_tuple_argnum_is_the_tuple_of_single_argument_jacobians(backend, operator, argnum):
    x, y, z = backend.asarray([0.3, -0.7]), backend.asarray([[0.5, 1.0], [-0.2, 0.4], [0.9, 0.1]]), backend.asarray(1.3)
    blocks = operator(_mixed, argnum)(x, y, z)
    assert type(blocks) is tuple and len(blocks) == len(argnum)
    for i, block in zip(argnum, blocks):
        backend.check_device(block)
        single = operator(_mixed, i)(x, y, z)
        assert block.shape == (3,) + (x, y, z)[i].shape == single.shape
        numpy.testing.assert_allclose(backend.to_numpy(block), backend.to_numpy(single), rtol=1e-13, atol=1e-15)


def test_derivatives_of_jacobian_blocks(backend):
    x, y, z = backend.asarray([0.3, -0.7]), backend.asarray([[0.5, 1.0], [-0.2, 0.4], [0.9, 0.1]]), backend.asarray(1.3)
    check_grads(lambda x, y, z: jacobian(_mixed, (2, 0))(x, y, z), (0, 1, 2), modes=("fwd", "rev"), order=2)(x, y, z)


@pytest.mark.parametrize("operator", [jacobian, jacrev, jacfwd])
def test_jacobian_of_a_container_argument_has_its_structure(backend, operator):
    params = {"w": backend.asarray([[0.5, -1.0], [0.2, 0.3]]), "b": (backend.asarray([0.1, -0.2]), backend.asarray(2.0))}

    def predict(params, x):
        return np.tanh(np.matmul(params["w"], x) + params["b"][0]) * params["b"][1]

    x = backend.asarray([0.4, -0.6])
    jac = operator(predict)(params, x)
    assert set(jac) == {"w", "b"} and type(jac["b"]) is tuple and len(jac["b"]) == 2
    assert jac["w"].shape == (2, 2, 2) and jac["b"][0].shape == (2, 2) and jac["b"][1].shape == (2,)
    expected = jacobian(lambda w, b0, b1: predict({"w": w, "b": (b0, b1)}, x), (0, 1, 2))(params["w"], *params["b"])
    for block, single in zip((jac["w"], *jac["b"]), expected):
        numpy.testing.assert_allclose(backend.to_numpy(block), backend.to_numpy(single), rtol=1e-13, atol=1e-15)


def test_jacobian_with_a_tuple_argnum_of_a_complex_output_and_an_unused_argument(backend):
    x, y = backend.asarray([0.3, -0.7]), backend.asarray([1.0, 2.0, 3.0])
    fun = lambda x, y: np.exp(1j * x)  # noqa: E731  (y unused: its block is zero)
    jx, jy = jacobian(fun, (0, 1))(x, y)
    numpy.testing.assert_allclose(backend.to_numpy(jx), numpy.diag(1j * numpy.exp(1j * numpy.array([0.3, -0.7]))))
    assert jy.shape == (2, 3) and not numpy.any(backend.to_numpy(jy))
    empty = jacfwd(lambda x, y: x * np.sum(y), (0, 1))(x, backend.asarray(numpy.zeros(0)))
    assert empty[0].shape == (2, 2) and empty[1].shape == (2, 0)


@pytest.mark.parametrize("argnum", [(0, 1, 2), (2, 1), (0,)])
def test_hessian_with_a_tuple_argnum_is_nested_as_jax(backend, argnum):
    def loss(x, y, z):
        return np.add(np.sum(_mixed(x, y, z) ** 2), np.multiply(np.sum(x**3), z))

    args = backend.asarray([0.3, -0.7]), backend.asarray([[0.5, 1.0], [-0.2, 0.4], [0.9, 0.1]]), backend.asarray(1.3)
    rows = hessian(loss, argnum)(*args)
    assert type(rows) is tuple and len(rows) == len(argnum)
    for i, row in zip(argnum, rows):
        assert type(row) is tuple and len(row) == len(argnum)
        for j, block in zip(argnum, row):
            backend.check_device(block)
            assert block.shape == args[i].shape + args[j].shape
            expected = jacobian(grad(loss, i), j)(*args)
            numpy.testing.assert_allclose(backend.to_numpy(block), backend.to_numpy(expected), rtol=1e-12, atol=1e-14)
        if i == j:
            numpy.testing.assert_allclose(backend.to_numpy(row[argnum.index(i)]), backend.to_numpy(hessian(loss, i)(*args)))
    check_grads(lambda *args: hessian(loss, argnum)(*args), (0, 1, 2), modes=("fwd", "rev"), order=1)(*args)


def test_tensor_jacobian_product_with_a_tuple_argnum_is_autograds(backend):
    x, y, z = backend.asarray([0.3, -0.7]), backend.asarray([[0.5, 1.0], [-0.2, 0.4], [0.9, 0.1]]), backend.asarray(1.3)
    v = backend.asarray([1.0, -2.0, 0.5])
    products = tensor_jacobian_product(_mixed, (0, 2))(x, y, z, v)
    vjp, _ = make_vjp(_mixed, (0, 2))(x, y, z)
    assert type(products) is tuple and len(products) == 2
    for product, expected in zip(products, vjp(v)):
        numpy.testing.assert_allclose(backend.to_numpy(product), backend.to_numpy(expected), rtol=1e-13, atol=1e-15)


@settings(max_examples=10, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(shapes=st.lists(array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=3), min_size=1, max_size=3), data=st.data())
def test_tuple_argnum_blocks_match_the_exact_jacobian_and_hessian(shapes, data):
    """``z`` the raveled arguments joined, ``f = tanh(A z)``, ``s = sum(log cosh(A z))``: ``J = diag(1 - f**2) A``
    and ``H = A.T diag(1 - f**2) A``, cut into the blocks of the arguments ``argnum`` picks (in its order)."""
    argnum = tuple(data.draw(st.permutations(range(len(shapes)))))[: data.draw(st.integers(1, len(shapes)))]
    sizes = [int(numpy.prod(shape)) for shape in shapes]
    rng = numpy.random.default_rng(data.draw(st.integers(0, 2**16)))
    args = [rng.uniform(-1, 1, shape) for shape in shapes]
    a = rng.uniform(-1, 1, (4, sum(sizes)))
    z = numpy.concatenate([arg.ravel() for arg in args])
    t = numpy.tanh(a @ z)
    starts = numpy.cumsum([0] + sizes)

    def joined(*args):
        return np.matmul(a, np.concatenate([np.reshape(arg, (-1,)) for arg in args]))

    def columns(m, i):
        return m[..., starts[i] : starts[i + 1]]

    for operator in (jacobian, jacrev, jacfwd):
        blocks = operator(lambda *args: np.tanh(joined(*args)), argnum)(*args)
        for i, block in zip(argnum, blocks):
            numpy.testing.assert_allclose(block, columns((1 - t**2)[:, None] * a, i).reshape((4,) + shapes[i]), atol=1e-14)
    rows = hessian(lambda *args: np.sum(np.log(np.cosh(joined(*args)))), argnum)(*args)
    exact = a.T @ ((1 - t**2)[:, None] * a)
    for i, row in zip(argnum, rows):
        for j, block in zip(argnum, row):
            expected = columns(exact[starts[i] : starts[i + 1]], j).reshape(shapes[i] + shapes[j])
            numpy.testing.assert_allclose(block, expected, atol=1e-14)


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

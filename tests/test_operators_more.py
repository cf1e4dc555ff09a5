"""The operators beyond the basics: Jacobians in both modes (complex outputs too), Hessians and
Hessian-vector products in the mode the rules allow, autograd's remaining operators, JAX's functional
forms, and containers as inputs and outputs."""

from collections import OrderedDict, namedtuple

import numpy
import pytest

import adcore.numpy as np
from adcore import (
    grad,
    grad_named,
    hessian,
    hessian_tensor_product,
    hessian_vector_product,
    holomorphic_grad,
    hvp,
    jacfwd,
    jacobian,
    jacrev,
    jvp,
    linearize,
    make_ggnvp,
    make_hvp,
    make_jvp,
    make_vjp,
    multigrad_dict,
    tensor_jacobian_product,
    vector_jacobian_product,
    vjp,
)
from adcore.builtins import isinstance as ad_isinstance
from adcore.builtins import tuple as ad_tuple
from adcore.builtins import type as ad_type
from adcore.core import isbox

A = numpy.array([[1.0, 2.0, 0.5], [-1.0, 0.3, 2.0]])


def test_forward_and_reverse_jacobians_agree(backend):
    x = backend.asarray([0.2, -0.4, 0.9])
    a = backend.asarray(A)
    g = lambda x: np.tanh(np.matmul(a, x)) * np.sum(x**2)  # noqa: E731
    forward, reverse, chosen = (backend.to_numpy(j(g)(x)) for j in (jacfwd, jacrev, jacobian))
    assert forward.shape == (2, 3)
    numpy.testing.assert_allclose(forward, reverse, rtol=1e-13)
    numpy.testing.assert_allclose(chosen, reverse, rtol=1e-13)
    wide = backend.to_numpy(jacobian(lambda x: np.concatenate([x, x, x]) ** 2)(x))
    numpy.testing.assert_allclose(wide, numpy.vstack([numpy.diag(2 * backend.to_numpy(x))] * 3), rtol=1e-13)


def test_jacobians_of_complex_outputs():
    x = numpy.array([0.3, -1.1])
    expected = numpy.diag(1j * numpy.exp(1j * x))
    for j in (jacfwd, jacrev, jacobian):
        numpy.testing.assert_allclose(j(lambda x: np.exp(1j * x))(x), expected, rtol=1e-14)
    z = numpy.array([0.3 + 0.2j, -1.1 + 0.5j])
    for j in (jacfwd, jacrev):  # holomorphic: both give f'(z)
        numpy.testing.assert_allclose(j(lambda z: z**2)(z), numpy.diag(2 * z), rtol=1e-14)


def test_hessian_and_hessian_vector_products_match_reverse_over_reverse(backend):
    a = backend.asarray(A.T @ A)

    def loss_on(x):
        return np.sum(np.tanh(np.matmul(a, x)) ** 2) + np.sum(x**3) / 3.0

    x = backend.asarray([0.2, -0.4, 0.9])
    reverse_over_reverse = backend.to_numpy(jacrev(jacrev(loss_on))(x))
    numpy.testing.assert_allclose(backend.to_numpy(hessian(loss_on)(x)), reverse_over_reverse, rtol=1e-10, atol=1e-12)
    v = backend.asarray([1.0, -2.0, 0.5])
    expected = reverse_over_reverse @ backend.to_numpy(v)
    for product in (hvp(loss_on), hessian_tensor_product(loss_on), hessian_vector_product(loss_on)):
        numpy.testing.assert_allclose(backend.to_numpy(product(x, v)), expected, rtol=1e-10)
    hvp_at_x, gradient = make_hvp(loss_on)(x)
    numpy.testing.assert_allclose(backend.to_numpy(hvp_at_x(v)), expected, rtol=1e-10)
    numpy.testing.assert_allclose(backend.to_numpy(gradient), backend.to_numpy(grad(loss_on)(x)), rtol=1e-14)


def test_hessian_of_a_200_dimensional_function():
    rng = numpy.random.default_rng(0)
    a, x = rng.standard_normal((200, 200)) / 10.0, rng.standard_normal(200)

    def f(x):
        return np.sum(np.tanh(a @ x) ** 2)

    numpy.testing.assert_allclose(hessian(f)(x), jacrev(grad(f))(x), rtol=1e-10, atol=1e-12)


def test_hessian_of_a_function_that_calls_grad():
    def energy(x):
        return np.sum(grad(lambda y: np.sum(np.sin(y) * y))(x) ** 2)

    x = numpy.array([0.3, 1.2])
    numpy.testing.assert_allclose(hessian(energy)(x), jacrev(jacrev(energy))(x), rtol=1e-10)


def test_tensor_jacobian_product_and_ggnvp(backend):
    a = backend.asarray(A)

    def f_on(x):
        return np.tanh(np.matmul(a, x)) * np.sum(x**2)

    x, v, u = backend.asarray([0.2, -0.4, 0.9]), backend.asarray([1.0, -0.5]), backend.asarray([0.5, 1.0, -1.0])
    j = backend.to_numpy(jacobian(f_on)(x))
    expected = backend.to_numpy(v) @ j
    numpy.testing.assert_allclose(backend.to_numpy(tensor_jacobian_product(f_on)(x, v)), expected, rtol=1e-13)
    numpy.testing.assert_allclose(backend.to_numpy(vector_jacobian_product(f_on)(x, v)), expected, rtol=1e-13)
    numpy.testing.assert_allclose(backend.to_numpy(make_ggnvp(f_on)(x)(u)), j.T @ j @ backend.to_numpy(u), rtol=1e-12)


def test_holomorphic_grad():
    z = 0.7 + 0.4j
    assert holomorphic_grad(lambda z: np.exp(z) * z)(z) == pytest.approx(numpy.exp(z) * (1 + z))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_holomorphic_grad_of_a_real_input_is_the_complex_derivative(backend, dtype):
    # issue 13: with complex constants, a real input gave only the real part of f'(x), silently
    def f(z):
        return z * np.exp(1j * z)

    def f_prime(x):
        return numpy.exp(1j * x) * (1 + 1j * x)

    tolerance = 1e-12 if dtype == "float64" else 1e-6
    x = backend.asarray(0.5, dtype)
    derivative = holomorphic_grad(f)(x)
    backend.check_device(derivative)
    assert str(derivative.dtype).endswith("complex128" if dtype == "float64" else "complex64")
    assert complex(backend.to_numpy(derivative)) == pytest.approx(f_prime(0.5), rel=tolerance)
    # a function real on the real line gets its derivative too, as a complex number
    assert complex(backend.to_numpy(holomorphic_grad(lambda z: z**3)(x))) == pytest.approx(0.75, rel=tolerance)
    # a Python float is taken as a Python complex
    assert complex(holomorphic_grad(f)(0.5)) == pytest.approx(f_prime(0.5), rel=1e-12)


def test_named_and_dict_gradients():
    def h(a, b, scale=2.0):
        return np.sum(a * b) * scale

    a, b = numpy.array([1.0, 2.0]), numpy.array([3.0, -1.0])
    numpy.testing.assert_allclose(grad_named(h, "b")(a, b), 2.0 * a)
    gradients = multigrad_dict(h)(a, b)
    assert list(gradients) == ["a", "b", "scale"]
    numpy.testing.assert_allclose(gradients["a"], 2.0 * b)
    assert gradients["scale"] == pytest.approx(1.0)


def test_jax_functional_forms():
    x, y = numpy.array([0.5, 1.0]), numpy.array([2.0, -1.0])
    value, pullback = vjp(lambda x, y: x * y, x, y)
    gx, gy = pullback(numpy.ones(2))
    numpy.testing.assert_allclose(gx, y) and numpy.testing.assert_allclose(gy, x)
    value, tangent = jvp(lambda x, y: x * y, (x, y), (numpy.ones(2), numpy.zeros(2)))
    numpy.testing.assert_allclose(tangent, y)
    value, pushforward = linearize(np.sin, x)
    numpy.testing.assert_allclose(value, numpy.sin(x))
    numpy.testing.assert_allclose(pushforward(numpy.array([1.0, 2.0])), numpy.cos(x) * [1.0, 2.0])


Point = namedtuple("Point", "x y")


def test_containers_as_inputs_and_outputs(backend):
    params = {"w": backend.asarray([1.0, 2.0]), "b": (backend.asarray(0.5), [backend.asarray([3.0])])}

    def model(params):
        return np.sum(params["w"] ** 2) * params["b"][0] + np.sum(params["b"][1][0])

    g = grad(model)(params)
    assert type(g) is dict and type(g["b"]) is tuple and type(g["b"][1]) is list
    numpy.testing.assert_allclose(backend.to_numpy(g["w"]), [1.0, 2.0])
    numpy.testing.assert_allclose(backend.to_numpy(g["b"][0]), 5.0)
    numpy.testing.assert_allclose(backend.to_numpy(g["b"][1][0]), [1.0])

    point = Point(backend.asarray(1.5), backend.asarray(-2.0))
    g = grad(lambda p: p.x * p.y)(point)
    assert type(g) is Point
    numpy.testing.assert_allclose([float(backend.to_numpy(g.x)), float(backend.to_numpy(g.y))], [-2.0, 1.5])
    ordered = OrderedDict(a=backend.asarray(1.0))
    assert type(grad(lambda d: d["a"] * 2.0)(ordered)) is OrderedDict

    pullback, (s, c) = make_vjp(lambda x: (np.sin(x), {"c": np.cos(x)}))(backend.asarray([0.3]))
    gx = pullback((backend.asarray([1.0]), {"c": backend.asarray([1.0])}))
    numpy.testing.assert_allclose(backend.to_numpy(gx), numpy.cos(0.3) - numpy.sin(0.3))
    _, tangent = make_jvp(lambda x: [x * 2.0, x * 3.0])(backend.asarray([1.0]))(backend.asarray([1.0]))
    assert [float(backend.to_numpy(t)[0]) for t in tangent] == [2.0, 3.0]


def test_builtins_see_through_boxes():
    seen = []

    def h(x):
        seen.append((ad_isinstance(x, numpy.ndarray), ad_type(x) is numpy.ndarray, isbox(ad_tuple([x, x]))))
        return np.sum(x)

    grad(h)(numpy.ones(2))
    assert seen == [(True, True, True)]


def test_gradient_of_a_container_with_items_the_output_ignores(backend):
    """Each item's cotangent is put back into zeros of the others (``container_untake``); the sum of
    those containers skips the zeros, and an item never read keeps zeros of its shape and dtype."""
    params = {"w": backend.asarray([[1.0, 2.0], [3.0, 4.0]]), "unused": backend.asarray([1.0, 2.0, 3.0], "float32")}
    params["pair"] = (backend.asarray([0.5, -0.5]), backend.asarray(2.0))

    def loss(p):
        return np.sum(p["w"] ** 2) * p["pair"][1] + np.sum(p["pair"][0] * p["w"][0, ...])

    g = grad(loss)(params)
    numpy.testing.assert_allclose(backend.to_numpy(g["w"]), [[4.5, 7.5], [12.0, 16.0]])
    numpy.testing.assert_allclose(backend.to_numpy(g["pair"][0]), [1.0, 2.0])
    numpy.testing.assert_allclose(backend.to_numpy(g["pair"][1]), 30.0)
    assert g["unused"].shape == (3,) and g["unused"].dtype == params["unused"].dtype
    numpy.testing.assert_array_equal(backend.to_numpy(g["unused"]), numpy.zeros(3))


def test_gradient_of_a_sequence_read_with_negative_indices_and_slices(backend):
    """``p[-1]`` and ``p[1:]`` put their cotangents back where they read (``container_untake`` uses
    the container's own assignment): the last layer of an MLP is read as ``params[-2], params[-1]``."""
    params = (backend.asarray([1.0, 2.0]), backend.asarray([3.0]), backend.asarray([-1.0, 0.5]))

    def loss(p):
        return np.sum(p[-1] ** 2) + np.sum(p[1:][0] * 3.0) + np.sum(p[-3] ** 3)

    g = grad(loss)(params)
    numpy.testing.assert_array_equal(backend.to_numpy(g[0]), [3.0, 12.0])
    numpy.testing.assert_array_equal(backend.to_numpy(g[1]), [3.0])
    numpy.testing.assert_array_equal(backend.to_numpy(g[2]), [-2.0, 1.0])


def test_reading_n_parameters_costs_linear_in_n(monkeypatch):
    """The cotangent of a container holds the items read only (``adcore.builtins.SparseCotangent``):
    reading each of ``n`` parameters once builds no container of ``n`` zeros per read, so the work
    (counted in vector spaces made) grows linearly with ``n``, not with its square."""
    from adcore.numpy import vspaces

    made = []
    original = vspaces.ArrayVSpace.__init__
    monkeypatch.setattr(vspaces.ArrayVSpace, "__init__", lambda self, value: made.append(1) or original(self, value))

    def spaces_made(n):
        params = [(numpy.full((2, 2), 0.1), numpy.zeros(2)) for _ in range(n)]

        def loss(params):
            h = numpy.ones((3, 2))
            for w, b in params:
                h = np.tanh(h @ w + b)
            return np.sum(h)

        made.clear()
        g = grad(loss)(params)
        assert type(g) is list and all(type(pair) is tuple and pair[0].shape == (2, 2) for pair in g)
        return len(made)

    small, large = spaces_made(8), spaces_made(32)
    assert large <= 4 * small + 8, (small, large)


def test_unread_items_and_dict_keys_get_zeros(backend):
    params = {"used": [backend.asarray([1.0, 2.0]), backend.asarray([5.0])], "unused": (backend.asarray([3.0]),)}
    g = grad(lambda p: np.sum(p["used"][0] * p["used"][0]))(params)
    assert type(g) is dict and type(g["used"]) is list and type(g["unused"]) is tuple
    numpy.testing.assert_array_equal(backend.to_numpy(g["used"][0]), [2.0, 4.0])
    numpy.testing.assert_array_equal(backend.to_numpy(g["used"][1]), [0.0])
    numpy.testing.assert_array_equal(backend.to_numpy(g["unused"][0]), [0.0])
    backend.check_device(g["unused"][0])


def _only_vjp_primitive():
    """A primitive with a VJP and no JVP, as libraries built on autograd define them."""
    from adcore.extend import defvjp, primitive

    @primitive
    def cube(x):
        return x * x * x

    defvjp(cube, lambda ans, x: lambda g: g * 3.0 * x**2)
    return cube


def test_hessian_and_hvp_of_a_primitive_with_only_a_vjp_are_reverse_over_reverse():
    cube = _only_vjp_primitive()
    x, v = numpy.array([0.5, -2.0]), numpy.array([1.0, 3.0])
    numpy.testing.assert_allclose(hessian(lambda x: np.sum(cube(x)))(x), numpy.diag(6 * x))
    numpy.testing.assert_allclose(hvp(lambda x: np.sum(cube(x)))(x, v), 6 * x * v)


def test_hessian_is_forward_over_reverse_where_a_rule_uses_a_primitive_without_vjp():
    from adcore.extend import defjvp, defvjp, primitive

    @primitive
    def scaled(x):  # differentiable forward only
        return 3.0 * x

    defjvp(scaled, lambda g, ans, x: 3.0 * g)

    @primitive
    def cube(x):
        return x * x * x

    defvjp(cube, lambda ans, x: lambda g: g * scaled(x**2))
    defjvp(cube, lambda g, ans, x: g * 3.0 * x**2)
    x = numpy.array([0.5, -2.0])
    numpy.testing.assert_allclose(hessian(lambda x: np.sum(cube(x)))(x), numpy.diag(6 * x))

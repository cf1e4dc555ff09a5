"""Points where naive rules fail: zeros in products, ties, kinks, unselected branches, complex inputs.

Conventions (each checked exactly below):

- ``prod``/``cumprod`` with zero entries: the exact derivative (products of the other entries).
- ties in ``max``/``min``/``maximum``/``minimum``: the derivative is split evenly (autograd's convention).
- ``abs`` at 0: derivative 0 (a subgradient, autograd's and JAX's choice).
- ``where``: the unselected branch gets a zero cotangent, so a NaN *value* there (``log`` of a
  negative number) leaves the gradient finite. A branch whose *derivative* is infinite at the point
  (``log`` or ``sqrt`` at exactly 0) still gives ``0 * inf = NaN``, as in every reverse-mode AD;
  the fix is the double-``where`` pattern, which keeps the point out of the branch's input:
  ``np.where(x > 0, np.log(np.where(x > 0, x, 1.0)), 0.0)``.
- ``sqrt`` at 0: derivative 0 (not +inf), so ``sqrt(sum(x**2))`` at ``x = 0`` gets the finite
  subgradient 0, as ``linalg.norm`` does, instead of ``0 * inf = NaN``.
- complex input: the gradient of a real ``f(z)`` is ``df/dx - i df/dy``.
"""

import numpy
import pytest

import adcore.numpy as np
from adcore import grad, make_jvp
from adcore.test_util import check_grads


def test_prod_and_cumprod_with_zeros(backend):
    for data in ([2.0, 0.0, 3.0, 4.0], [0.0, 2.0, 0.0, 3.0], [1.5, -2.0, 0.5, 0.0]):
        x = backend.asarray(data)
        check_grads(np.prod, modes=("fwd", "rev"), order=1)(x)
        check_grads(lambda x: np.cumprod(x) * backend.asarray([1.0, 2.0, 3.0, 4.0]), modes=("fwd", "rev"), order=1)(x)
    g = grad(lambda x: np.sum(np.cumprod(x)))(backend.asarray([2.0, 0.0, 3.0]))
    # d/dx of x0 + x0 x1 + x0 x1 x2 at (2, 0, 3): (1 + x1 + x1 x2, x0 + x0 x2, x0 x1) = (1, 8, 0)
    numpy.testing.assert_array_equal(backend.to_numpy(g), [1.0, 8.0, 0.0])


def test_ties_are_split_evenly(backend):
    x = backend.asarray([1.0, 3.0, 3.0, 2.0])
    numpy.testing.assert_array_equal(backend.to_numpy(grad(np.max)(x)), [0.0, 0.5, 0.5, 0.0])
    numpy.testing.assert_array_equal(backend.to_numpy(make_jvp(np.max)(x)(backend.asarray([0.0, 2.0, 4.0, 0.0]))[1]), 3.0)
    y = backend.asarray([1.0, 3.0, 0.0, 2.0])
    gx, gy = grad(lambda x, y: np.sum(np.maximum(x, y)), (0, 1))(x, y)
    numpy.testing.assert_array_equal(backend.to_numpy(gx), [0.5, 0.5, 1.0, 0.5])
    numpy.testing.assert_array_equal(backend.to_numpy(gy), [0.5, 0.5, 0.0, 0.5])


def test_abs_at_zero_has_derivative_zero(backend):
    x = backend.asarray([-1.0, 0.0, 2.0])
    numpy.testing.assert_array_equal(backend.to_numpy(grad(lambda x: np.sum(np.abs(x)))(x)), [-1.0, 0.0, 1.0])


def test_nan_in_the_unselected_branch_leaves_the_gradient_finite(backend):
    x = backend.asarray([-1.0, 2.0])
    with numpy.errstate(invalid="ignore"):
        g = grad(lambda x: np.sum(np.where(x > 0.0, np.log(x), 0.0)))(x)
    numpy.testing.assert_array_equal(backend.to_numpy(g), [0.0, 0.5])


def test_double_where_keeps_an_infinite_derivative_out(backend):
    def safe_log(x):
        positive = x > 0.0
        return np.where(positive, np.log(np.where(positive, x, 1.0)), 0.0)

    g = grad(lambda x: np.sum(safe_log(x)))(backend.asarray([0.0, 2.0]))
    numpy.testing.assert_array_equal(backend.to_numpy(g), [0.0, 0.5])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_norm_like_functions_at_zero_have_a_finite_subgradient(backend, dtype):
    zero = backend.asarray([0.0, 0.0, 0.0], dtype)
    for f in (lambda x: np.sqrt(np.sum(x**2)), np.linalg.norm, lambda x: np.sqrt(x[0] ** 2 + x[1] ** 2)):
        g = grad(f)(zero)
        assert g.dtype == zero.dtype
        numpy.testing.assert_array_equal(backend.to_numpy(g), [0.0, 0.0, 0.0])
    assert grad(np.sqrt)(0.0) == 0.0
    x = backend.asarray([3.0, 4.0, 0.0], dtype)
    numpy.testing.assert_allclose(backend.to_numpy(grad(lambda x: np.sqrt(np.sum(x**2)))(x)), [0.6, 0.8, 0.0], rtol=1e-6)


@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_complex_gradient_convention(backend, dtype):
    z = backend.asarray([1.0 + 2.0j, -0.5 + 0.25j], dtype)
    g = grad(lambda z: np.sum(np.abs(z) ** 2))(z)
    assert g.dtype == z.dtype
    numpy.testing.assert_allclose(backend.to_numpy(g), 2.0 * numpy.conj(backend.to_numpy(z)), rtol=1e-6)
    g = grad(lambda z: np.sum(np.real(z) * 3.0 + np.imag(z) * 5.0))(z)
    numpy.testing.assert_allclose(backend.to_numpy(g), [3.0 - 5.0j, 3.0 - 5.0j])


def test_traced_values_never_become_object_arrays():
    with pytest.raises(TypeError, match="traced array cannot become a NumPy array"):
        grad(lambda x: numpy.sum(numpy.array([x, x])))(1.0)
    g = grad(lambda x: np.sum(np.array([x, 2.0 * x])))(1.0)
    assert g == 3.0


def test_multi_dot_of_traced_values(backend):
    a = backend.asarray([[1.0, 2.0], [0.5, -1.0]])
    check_grads(lambda a: np.linalg.multi_dot([a, np.matrix_transpose(a), a]))(a)


def test_lists_are_arrays_in_composed_functions():
    numpy.testing.assert_allclose(
        [np.mean([1.0, 2.0]), np.std([1.0, 2.0, 3.0]), np.dot([1.0, 2.0], [3.0, 4.0]), np.linalg.norm([3.0, 4.0])],
        [1.5, numpy.std([1.0, 2.0, 3.0]), 11.0, 5.0],
    )
    assert grad(lambda x: np.mean([x**2, x**3]))(2.0) == pytest.approx(8.0)
    assert grad(lambda x: np.sum(np.array([x, 1.0])))(3.0) == 1.0
    assert np.shape([[1.0, 2.0]]) == (1, 2) and np.ndim([1.0]) == 1


def test_functions_of_repeated_eigenvalues_alone(backend):
    eye = backend.asarray(numpy.eye(3))
    g = grad(lambda a: np.sum(np.linalg.eigh(a)[0] ** 2))(eye)
    numpy.testing.assert_allclose(backend.to_numpy(g), 2.0 * numpy.eye(3), atol=1e-12)
    g = grad(lambda a: np.sum(np.linalg.svd(a)[1]))(eye)
    numpy.testing.assert_allclose(backend.to_numpy(g), numpy.eye(3), atol=1e-12)


def test_casts_to_integer_or_boolean_have_zero_derivative(backend):
    x = backend.asarray([0.4, 1.2])
    numpy.testing.assert_array_equal(
        backend.to_numpy(grad(lambda x: np.sum(np.astype(np.astype(x, np.int64), x.dtype)))(x)), [0.0, 0.0]
    )
    _, tangent = make_jvp(lambda x: np.astype(x, bool))(x)(backend.asarray([1.0, 1.0]))
    assert not bool(np.any(tangent))


def test_modulo_and_floor_division_of_traced_values():
    x = numpy.array([0.4, 1.7])
    # d/dx: 1 from x % 1, 0 from x // 1, -floor(3 / (x + 2)) from 3 % (x + 2)
    numpy.testing.assert_allclose(grad(lambda x: np.sum(x % 1.0 + x // 1.0 + 3.0 % (x + 2.0)))(x), [0.0, 1.0])

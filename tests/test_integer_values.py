"""Integer and boolean values computed from traced values carry no tangent or cotangent.

Such values are piecewise constant in the input (their derivative is zero wherever it exists): a
cast to an integer or boolean dtype, a sum or product in one, ``where(condition)``'s indices, as
comparisons, ``floor`` and ``argmax`` already were. They come back untraced, so they serve as
indices, shapes and factors in both modes and at every order; the derivatives of functions using
them are checked against finite differences.
"""

import numpy
import pytest

import adcore.numpy as np
from adcore import hessian, jacfwd, jacobian, jacrev, make_jvp, make_vjp
from adcore.core import isbox
from adcore.core import make_jvp as core_make_jvp
from adcore.core import make_vjp as core_make_vjp
from adcore.test_util import check_grads

#: name -> a function of a traced float array ``x`` making an integer or boolean value
INTEGER_VALUES = {
    "astype_int": lambda x: x[0].astype(int),
    "astype_bool": lambda x: np.astype(x, bool),
    "np_astype_int32": lambda x: np.astype(x, "int32"),
    "array_dtype_int": lambda x: np.array(x, dtype=int),
    "asarray_dtype_int": lambda x: np.asarray(x, dtype=np.int64),
    "full_dtype_int": lambda x: np.full((2,), x[0], dtype=int),
    "sum_dtype_int": lambda x: np.sum(x, dtype=int),
    "prod_dtype_int": lambda x: np.prod(x, axis=0, dtype=int),
    "method_sum_dtype_int": lambda x: x.sum(dtype=int),
    "where_indices": lambda x: np.where(x - 1.5)[0],
}


@pytest.mark.parametrize("name", INTEGER_VALUES)
@pytest.mark.parametrize("mode", ["rev", "fwd"])
def test_integer_values_are_untraced(backend, name, mode):
    make_value = INTEGER_VALUES[name]
    x = backend.asarray([1.7, 2.2, 0.4])
    seen = []

    def f(x):
        value = make_value(x)
        seen.append(value)
        return x * 2.0

    if mode == "rev":
        core_make_vjp(f, x)
    else:
        core_make_jvp(f, x)(x)
    assert not isbox(seen[0]), f"{name} gave a traced value"
    backend.check_device(seen[0])
    numpy.testing.assert_array_equal(backend.to_numpy(seen[0]), make_value(numpy.array([1.7, 2.2, 0.4])))


def indexed_by_itself(x):
    """Issue 13's example: ``x[x[0].astype(int)] * x ** 2`` (the index is locally constant)."""
    return x[x[0].astype(int)] * x**2


def scaled_by_a_count(x):
    """An integer factor computed from ``x`` (made float: the standard multiplies no float by an integer
    array): the derivative is that of ``x ** 2`` times the factor."""
    return x**2 * np.astype(np.sum(x, dtype=int) + x[1].astype(int), x.dtype)


def shaped_by_itself(x):
    """An integer from ``x`` as a shape: ``x[0]`` copies of ``sum(x ** 2)``."""
    return np.broadcast_to(np.sum(x**2), (int(x[0].astype(int)),))


def selected_by_where(x):
    """The indices of ``where(x - 1.5)`` (every entry here), used as an index."""
    return x[np.where(x - 1.5)[0]] ** 3


FUNCTIONS = [indexed_by_itself, scaled_by_a_count, shaped_by_itself, selected_by_where]


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_functions_of_integer_values_against_finite_differences(backend, f):
    x = backend.asarray([1.7, 2.2, 0.4])
    check_grads(f, modes=("fwd", "rev"), order=2)(x)
    check_grads(lambda x: np.sum(f(x)), modes=("fwd", "rev"), order=2)(x)


def _central_differences_jacobian(f, x, eps=1e-6):
    columns = []
    for i in range(x.size):
        step = numpy.zeros(x.size)
        step[i] = eps
        columns.append((numpy.asarray(f(x + step)) - numpy.asarray(f(x - step))) / (2 * eps))
    return numpy.stack(columns, axis=-1)


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_jacobians_and_hessians_of_integer_values(backend, f):
    data = numpy.array([1.7, 2.2, 0.4])
    x = backend.asarray(data)
    expected = _central_differences_jacobian(f, data)
    for jac in (jacobian, jacrev, jacfwd):
        numpy.testing.assert_allclose(backend.to_numpy(jac(f)(x)), expected, rtol=1e-6, atol=1e-6, err_msg=jac.__name__)
    _, tangent = make_jvp(f)(x)(backend.asarray([1.0, -2.0, 0.5]))
    numpy.testing.assert_allclose(backend.to_numpy(tangent), expected @ [1.0, -2.0, 0.5], rtol=1e-6, atol=1e-6)
    vjp, value = make_vjp(f)(x)
    u = numpy.linspace(0.5, 1.5, numpy.size(expected) // 3).reshape(numpy.shape(expected)[:-1])
    numpy.testing.assert_allclose(backend.to_numpy(vjp(backend.asarray(u))), u.ravel() @ expected.reshape(-1, 3), rtol=1e-6)

    def total(x):
        return np.sum(f(x))

    gradient = jacobian(lambda x: jacobian(total)(x))
    numpy.testing.assert_allclose(
        backend.to_numpy(hessian(total)(x)), backend.to_numpy(gradient(x)), rtol=1e-10, atol=1e-10, err_msg="hessian"
    )
    numpy.testing.assert_allclose(
        backend.to_numpy(hessian(total)(x)),
        _central_differences_jacobian(lambda d: backend.to_numpy(jacobian(total)(backend.asarray(d))), data),
        rtol=1e-5,
        atol=1e-5,
    )

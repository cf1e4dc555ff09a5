"""Writes to arrays between the forward and the backward pass do not change a derivative.

A recorded call keeps snapshots of its mutable constant arguments, and ``make_vjp``
of its input and of the output it returns (``adcore.core.snapshots``): each test
writes to one of them after tracing and checks that ``vjp`` gives exactly the
derivative at the values seen when tracing.
"""

import numpy
import pytest

import adcore.numpy as np
from adcore import make_vjp


@pytest.fixture
def mutable(backend):
    if not backend.backend.mutable_arrays:
        pytest.skip(f"{backend.name} arrays cannot be written to")
    return backend


def assert_same(case, actual, expected):
    case.check_device(actual)
    numpy.testing.assert_array_equal(case.to_numpy(actual), expected)


def test_constant_of_multiply(mutable):
    weights = mutable.asarray([1.0, 2.0, 3.0])
    vjp, _ = make_vjp(lambda x: np.sum(np.multiply(weights, x)))(mutable.asarray([0.5, -1.0, 2.0]))
    weights[0] = 100.0
    assert_same(mutable, vjp(mutable.asarray(1.0)), [1.0, 2.0, 3.0])


def test_constant_of_matmul(mutable):
    matrix = mutable.asarray([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    vjp, _ = make_vjp(lambda x: np.sum(np.matmul(matrix, x)))(mutable.asarray([0.5, -1.0, 2.0]))
    matrix[1, 1] = -50.0
    assert_same(mutable, vjp(mutable.asarray(1.0)), [5.0, 7.0, 9.0])


def test_input_of_make_vjp(mutable):
    x = mutable.asarray([0.5, -1.0, 2.0])
    vjp, ans = make_vjp(lambda x: np.sum(x * x))(x)
    x[2] = 7.0
    assert_same(mutable, vjp(mutable.asarray(1.0)), [1.0, -2.0, 4.0])
    assert float(mutable.to_numpy(ans)) == 5.25


def test_output_of_make_vjp(mutable):
    original = [0.5, -1.0, 2.0]
    vjp, ans = make_vjp(np.exp)(mutable.asarray(original))
    expected = mutable.to_numpy(ans).copy()
    ans[0] = 100.0
    assert_same(mutable, vjp(mutable.asarray([1.0, 1.0, 1.0])), expected)

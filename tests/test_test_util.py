"""The gradient checker has tests of its own: a rule wrong by 0.1% must fail, naming the function."""

import numpy
import pytest

import adcore.numpy as np
from adcore.extend import defjvp, defvjp, getval, primitive
from adcore.test_util import check_grads


def _sin_with_rules(vjp_scale, jvp_scale):
    @primitive
    def my_sin(x):
        return np.sin(x)

    defvjp(my_sin, lambda ans, x: lambda g: g * np.cos(x) * vjp_scale)
    defjvp(my_sin, lambda g, ans, x: g * np.cos(x) * jvp_scale)
    return my_sin


X = numpy.array([0.3, -0.7, 1.1])


def test_correct_rules_pass():
    check_grads(_sin_with_rules(1.0, 1.0), modes=("fwd", "rev"), order=1)(X)


def test_vjp_wrong_by_a_tenth_of_a_percent_fails():
    with pytest.raises(AssertionError, match="VJP of my_sin disagrees with finite differences"):
        check_grads(_sin_with_rules(1.001, 1.0), modes=("rev",), order=1)(X)


def test_jvp_wrong_by_a_tenth_of_a_percent_fails():
    with pytest.raises(AssertionError, match="JVP of my_sin disagrees with finite differences"):
        check_grads(_sin_with_rules(1.0, 1.001), modes=("fwd",), order=1)(X)


def test_wrong_second_derivative_fails():
    @primitive
    def my_square(x):
        return x * x

    # first derivative right, but partly computed from the untraced value, so its own derivative is 0.1% off
    defvjp(my_square, lambda ans, x: lambda g: g * (1.998 * x + 0.002 * getval(x)))
    with pytest.raises(AssertionError, match="VJP of vjp_of_my_square"):
        check_grads(my_square, modes=("rev",), order=2)(X)


def test_cotangent_of_the_wrong_dtype_fails():
    @primitive
    def widening(x):
        return x * 2.0

    defvjp(widening, lambda ans, x: lambda g: np.astype(g * 2.0, np.float64))
    with pytest.raises(ValueError, match=r"VJP of .*widening for argnum 0 returned a cotangent of dtype float64 instead"):
        check_grads(widening, modes=("rev",), order=1)(X.astype(numpy.float32))

"""Bad input gets a clear error (type, message naming the function and the argument), never a wrong number."""

import numpy
import pytest

import adcore.numpy as np
from adcore import grad, jacobian, make_jvp, value_and_grad


def test_grad_of_non_scalar_output():
    with pytest.raises(TypeError, match="real scalar-output.*jacobian, elementwise_grad or holomorphic_grad"):
        grad(lambda x: x * 2.0)(numpy.ones(3))


def test_grad_of_complex_output():
    with pytest.raises(TypeError, match="real scalar-output"):
        grad(lambda x: x * 1j)(1.0)


@pytest.mark.parametrize(
    "value, named",
    [(3, "int"), (numpy.int64(3), "int64"), (numpy.array([True]), "bool"), ("abc", "str"), (None, "NoneType"), ([1, 2], "int")],
)
def test_differentiating_a_non_float_argument(value, named):
    with pytest.raises(TypeError, match=rf"grad: argument 0 of <lambda> .*{named}"):
        grad(lambda x: x)(value)


def test_function_returning_none():
    with pytest.raises(TypeError, match="must return an array or a scalar.*NoneType"):
        grad(lambda x: None)(1.0)


def test_argnum_errors():
    with pytest.raises(TypeError, match="argnum 2 is out of range"):
        grad(lambda x, y: x * y, 2)(1.0, 2.0)
    with pytest.raises(TypeError, match="argnum must be an int or a tuple of ints"):
        grad(lambda x: x, "x")


def test_item_assignment_into_traced_array():
    def f(x):
        x[0] = 1.0
        return np.sum(x)

    with pytest.raises(TypeError, match="cannot be assigned to.*where"):
        grad(f)(numpy.ones(3))


def test_arrays_from_two_backends():
    strict = pytest.importorskip("array_api_strict")
    with pytest.raises(ValueError, match="multiply: arrays from two backends in one call, numpy .* and array_api_strict"):
        grad(lambda x: np.sum(x * strict.asarray([1.0, 2.0])))(numpy.ones(2))


def test_arrays_from_two_devices():
    strict = pytest.importorskip("array_api_strict")
    x = strict.asarray([1.0, 2.0], device=strict.Device("device1"))
    other = strict.asarray([1.0, 2.0])
    with pytest.raises(ValueError, match="add: array_api_strict arrays on two devices.*device1.*CPU_DEVICE"):
        value_and_grad(lambda x: np.sum(x + other))(x)


def test_missing_backend_function_names_backend_and_function():
    import backends

    with pytest.raises(NotImplementedError, match="the array_api_strict backend has no function 'cumprod'"):
        backends.get_backend("array_api_strict").cumprod  # noqa: B018 - the attribute lookup is what raises


def test_unknown_backend_name():
    import adcore

    with pytest.raises(ValueError, match="unknown adcore backend 'tensorflow'"):
        adcore.set_backend("tensorflow")


def test_jacobian_and_jvp_reject_strings():
    with pytest.raises(TypeError, match="jacobian: argument 0"):
        jacobian(lambda x: x)("a")
    with pytest.raises(TypeError, match="make_jvp: argument 0"):
        make_jvp(lambda x: x)("a")


def test_grad_and_aux_returns_the_plain_aux_value():
    from adcore import grad_and_aux

    g, aux = grad_and_aux(lambda x: (x**2, {"shifted": x + 1.0}))(3.0)
    assert g == 6.0 and aux["shifted"] == 4.0 and type(aux["shifted"]).__name__ == "float64"


def test_an_argnum_named_twice():
    with pytest.raises(TypeError, match=r"grad: argnum \(0, 0\) names an argument twice"):
        grad(lambda x, y: x * y, (0, 0))


def test_jacobian_of_a_container():
    with pytest.raises(TypeError, match="jacobian: function <lambda> returned a tuple of 2 items; jacobian needs an array"):
        jacobian(lambda x: (x, x))(numpy.ones(2))


@pytest.mark.parametrize("convert", [float, int, complex, lambda x: x.item(), lambda x: numpy.array([x, x])])
def test_traced_values_refuse_to_become_numbers(convert):
    with pytest.raises(TypeError, match="traced"):
        grad(lambda x: np.sum(x) * convert(x))(1.5)

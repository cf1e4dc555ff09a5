"""A traced value never leaves adcore's tracing machinery: a primitive's raw function that reaches
a value being differentiated other than through its arguments, and an operator whose result would
hold a box of a trace that has ended, raise ``UnexpectedBoxError`` saying how to write it instead.

Two ways a value escapes: the raw function of a primitive defined inside the differentiated
function closes over its variable (the call would return a box, or a number missing that
dependence), or a derivative rule does (the derivative, computed after the trace ended, would be a
box of it). Every operator is checked with both, on every backend; the legal nesting (a primitive
called on values of an inner trace that closes over a value of an outer one) gives the right
derivatives.
"""

import numpy
import pytest

import adcore
import adcore.numpy as np
from adcore import UnexpectedBoxError
from adcore.extend import defjvp, defvjp, primitive


def closing_over_in_raw(x):
    """``x * x`` through a primitive whose raw function closes over ``x``."""

    @primitive
    def times_x(y):
        return np.multiply(y, x)

    defvjp(times_x, lambda ans, y: lambda g: g * y)
    defjvp(times_x, lambda g, ans, y: g * y)
    return np.sum(times_x(np.sin(x)))


def closing_over_in_rules(x):
    """``x * sin(x)`` through a primitive taking ``sin(x)`` whose rules close over ``x``."""

    @primitive
    def scaled(y, x_raw):
        return y * x_raw

    defvjp(scaled, lambda ans, y, x_raw: lambda g: np.multiply(g, x))
    defjvp(scaled, lambda g, ans, y, x_raw: np.multiply(g, x))
    return np.sum(scaled(np.sin(x), adcore.core.getval(x)))


def through_keyword(x):
    """A traced value handed to a raw function as a keyword argument."""

    @primitive
    def shifted(y, shift=0.0):
        return np.add(y, shift)

    defvjp(shifted, lambda ans, y, shift=0.0: lambda g: g)
    defjvp(shifted, lambda g, ans, y, shift=0.0: g)
    return np.sum(shifted(x, shift=x * x))


def _scalar_jvp(f):
    return lambda x: adcore.make_jvp(f)(x)(np.ones_like(x))[1]


def _holomorphic(f):
    return lambda x: adcore.holomorphic_grad(lambda z: f(z))(x + 0j)


OPERATORS = {
    "grad": lambda f: adcore.grad(f),
    "grad_jit": lambda f: adcore.grad(f, jit=True),
    "value_and_grad": lambda f: adcore.value_and_grad(f),
    "elementwise_grad": lambda f: adcore.elementwise_grad(f),
    "jacobian": lambda f: adcore.jacobian(lambda x: f(x) * x),
    "hessian": lambda f: adcore.hessian(f),
    "make_vjp": lambda f: lambda x: adcore.make_vjp(f)(x)[0](1.0),
    "make_jvp": _scalar_jvp,
    "holomorphic_grad": _holomorphic,
}
ESCAPES = {"raw": closing_over_in_raw, "rules": closing_over_in_rules, "keyword": through_keyword}


@pytest.mark.parametrize("escape", ESCAPES)
@pytest.mark.parametrize("operator", OPERATORS)
def test_an_escaping_traced_value_raises(operator, escape, backend):
    if operator == "holomorphic_grad" and backend.name == "dask":
        pytest.skip("the complex input is made by the operator; the check does not depend on the backend")
    x = backend.asarray([0.5, -1.25])
    with pytest.raises(UnexpectedBoxError, match="argument"):
        OPERATORS[operator](ESCAPES[escape])(x)


def test_the_error_says_what_happened_and_the_way_out():
    with pytest.raises(UnexpectedBoxError) as raw:
        adcore.grad(closing_over_in_raw)(numpy.array([0.5]))
    assert "times_x" in str(raw.value) and "closure" in str(raw.value) and "Pass the value" in str(raw.value)
    with pytest.raises(UnexpectedBoxError) as rules:
        adcore.grad(closing_over_in_rules)(numpy.array([0.5]))
    assert "grad" in str(rules.value) and "ended" in str(rules.value) and "Pass the value" in str(rules.value)


def test_a_value_of_an_outer_trace_inside_an_inner_primitive_is_legal(backend):
    """``d/dx [d/dy (x y^2)]`` at ``y = y0``: ``2 y0``, and the inner derivative ``2 x y0``, with the primitive
    called on the inner trace's ``y`` closing over the outer trace's ``x`` (in its raw function and rules)."""
    y0 = backend.asarray(1.5)

    def inner_derivative(x):
        @primitive
        def times_x(y):
            return np.multiply(y, x)

        defvjp(times_x, lambda ans, y: lambda g: np.multiply(g, x))
        defjvp(times_x, lambda g, ans, y: np.multiply(g, x))
        return adcore.grad(lambda y: times_x(y) * y)(y0)

    x = backend.asarray(0.75)
    numpy.testing.assert_allclose(backend.to_numpy(inner_derivative(x)), 2 * 0.75 * 1.5)
    numpy.testing.assert_allclose(backend.to_numpy(adcore.grad(inner_derivative)(x)), 2 * 1.5)
    numpy.testing.assert_allclose(backend.to_numpy(adcore.make_jvp(inner_derivative)(x)(backend.asarray(1.0))[1]), 2 * 1.5)


def test_a_primitive_of_an_outer_value_called_on_the_outer_value_inside_an_inner_trace_raises():
    """Called on a value of the outer trace (inside an inner one), the raw function sees that trace's own value."""

    def inner(x):
        @primitive
        def times_x(y):
            return np.multiply(y, x)

        defvjp(times_x, lambda ans, y: lambda g: np.multiply(g, x))
        return adcore.grad(lambda y: times_x(x) * y)(2.0)

    with pytest.raises(UnexpectedBoxError):
        adcore.grad(inner)(0.75)


def test_a_primitive_with_its_value_as_an_argument_is_right(backend):
    """The way out the error gives: the closed-over value passed as an argument with its own rule."""

    @primitive
    def product(y, x):
        return np.multiply(y, x)

    defvjp(product, lambda ans, y, x: lambda g: g * x, lambda ans, y, x: lambda g: g * y)
    x = backend.asarray([0.5, -1.25])
    gradient = adcore.grad(lambda x: np.sum(product(np.sin(x), x)))(x)
    expected = numpy.cos([0.5, -1.25]) * [0.5, -1.25] + numpy.sin([0.5, -1.25])
    numpy.testing.assert_allclose(backend.to_numpy(gradient), expected)


class Holder:
    """An object that holds traced values, as a circuit holds its parameters."""

    def __init__(self, values):
        self.values = values


@primitive
def held_product(values, holder):
    """``sin(a) cos(b)`` for ``values = [a, b]``, computed from what ``holder`` holds (the same values)."""
    a, b = holder.values
    return np.sin(a) * np.cos(b)


def held_product_vjp(ans, values, holder):
    a, b = values
    return lambda g: [np.multiply(g, np.cos(a) * np.cos(b)), np.multiply(g, -np.sin(a) * np.sin(b))]


defvjp(held_product, held_product_vjp)


@primitive
def held_product_in_tuples(values, holder):
    """``((sin(a) cos(b),),)``: the box the raw function computes is inside tuples."""
    return ((held_product.fun(values, holder),),)


defvjp(held_product_in_tuples, lambda ans, values, holder: lambda g: held_product_vjp(ans, values, holder)(g[0][0]))


def through_a_holder(x):
    items = [x[0], x[1]]
    return held_product(adcore.builtins.list(items), Holder(items))


def through_a_holder_in_tuples(x):
    items = [x[0], x[1]]
    return held_product_in_tuples(adcore.builtins.list(items), Holder(items))[0][0]


@pytest.mark.parametrize("through_a_holder", [through_a_holder, through_a_holder_in_tuples], ids=["box", "in_tuples"])
def test_a_raw_function_reaching_its_arguments_through_an_object_is_differentiated_by_its_rules(through_a_holder, backend):
    """The raw function reads its traced arguments from an object that holds them: its result is
    computed from the arguments only, so the rules give the derivative, at every order (as autograd)."""
    a, b = 0.5, -1.25
    x = backend.asarray([a, b])
    numpy.testing.assert_allclose(backend.to_numpy(through_a_holder(x)), numpy.sin(a) * numpy.cos(b))
    value, gradient = adcore.value_and_grad(through_a_holder)(x)
    numpy.testing.assert_allclose(backend.to_numpy(value), numpy.sin(a) * numpy.cos(b))
    numpy.testing.assert_allclose(backend.to_numpy(gradient), [numpy.cos(a) * numpy.cos(b), -numpy.sin(a) * numpy.sin(b)])
    off_diagonal = -numpy.cos(a) * numpy.sin(b)
    hessian = [[-numpy.sin(a) * numpy.cos(b), off_diagonal], [off_diagonal, -numpy.sin(a) * numpy.cos(b)]]
    numpy.testing.assert_allclose(backend.to_numpy(adcore.jacobian(adcore.grad(through_a_holder))(x)), hessian)
    numpy.testing.assert_allclose(backend.to_numpy(adcore.hessian(through_a_holder)(x)), hessian)


def test_a_raw_function_reaching_a_value_derived_from_its_arguments_through_an_object_raises():
    """The object holds ``x * x``, made from the argument but not passed: its dependence would be missed."""

    def derived(x):
        items = [x[0], x[1]]
        return held_product(adcore.builtins.list(items), Holder([x[0] * x[0], x[1]]))

    with pytest.raises(UnexpectedBoxError, match="argument"):
        adcore.grad(derived)(numpy.array([0.5, -1.25]))

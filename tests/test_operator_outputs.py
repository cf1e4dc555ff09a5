"""What a differentiated function returns, at every level, and the errors every operator raises.

- ``make_vjp`` and ``make_jvp`` (``adcore.core``'s and the operators') differentiate a returned
  tuple, list, dict or named tuple, nested to any depth: the value holds no traced value, the
  tangent has the output's structure, the cotangent is taken with it.
- The operators that need a scalar or an array refuse a container with a ``TypeError`` naming the
  operator, the function and the container (a tuple of one item is not a scalar: a trailing comma).
- Every operator of ``adcore.operators.__all__`` names itself and the user's function in its errors
  (not an operator it is built from, nor an internal type), for a function that is not callable, an
  integer argument, an output that is no array, and a container output.
"""

from collections import namedtuple

import numpy
import pytest

import adcore.core
import adcore.numpy as np
from adcore import operators
from adcore.core import getval, isbox
from adcore.test_util import check_grads

Pair = namedtuple("Pair", ["first", "second"])

#: a structure name -> a function of ``x`` returning that structure of arrays
STRUCTURES = {
    "tuple_of_1": lambda x: (np.sin(x),),
    "list_of_1": lambda x: [np.sin(x)],
    "dict_of_1": lambda x: {"a": np.sin(x)},
    "list_of_2": lambda x: [np.sin(x), x**2],
    "namedtuple": lambda x: Pair(np.sin(x), 3.0 * x),
    "nested": lambda x: (np.sin(x), [x**2, {"a": 3.0 * x, "b": (np.cos(x),)}]),
}


def _leaves(value):
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


def _assert_same_structure(actual, expected):
    assert type(actual) is type(expected), f"{type(actual).__name__} for {type(expected).__name__}"
    if isinstance(expected, dict):
        assert list(actual) == list(expected)
        for key in expected:
            _assert_same_structure(actual[key], expected[key])
    elif isinstance(expected, (tuple, list)):
        assert len(actual) == len(expected)
        for a, e in zip(actual, expected):
            _assert_same_structure(a, e)


def _assert_leaves_close(backend, actual, expected):
    for a, e in zip(_leaves(actual), _leaves(expected)):
        assert not isbox(a), "a traced value leaked out"
        backend.check_device(a)
        numpy.testing.assert_allclose(backend.to_numpy(a), backend.to_numpy(e), rtol=1e-12, atol=1e-12)


def _map_leaves(fun, value):
    if isinstance(value, dict):
        return {key: _map_leaves(fun, item) for key, item in value.items()}
    if isinstance(value, (tuple, list)):
        items = [_map_leaves(fun, item) for item in value]
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    return fun(value)


@pytest.mark.parametrize("structure", STRUCTURES)
@pytest.mark.parametrize("level", ["core", "operators"])
def test_make_vjp_and_make_jvp_of_a_container(backend, structure, level):
    f = STRUCTURES[structure]
    x = backend.asarray([0.3, -1.2, 2.0])
    v = backend.asarray([1.0, -0.5, 2.0])
    eps = 1e-6
    expected_value = f(x)
    # the JVP along v, leaf by leaf, by central differences (f is smooth; float64)
    expected_tangent = [(a - b) / (2 * eps) for a, b in zip(_leaves(f(x + eps * v)), _leaves(f(x - eps * v)))]
    if level == "core":
        vjp, value = adcore.core.make_vjp(f, x)
        jvp_value, tangent = adcore.core.make_jvp(f, x)(v)
    else:
        vjp, value = operators.make_vjp(f)(x)
        jvp_value, tangent = operators.make_jvp(f)(x)(v)
    for got in (value, jvp_value, tangent):
        _assert_same_structure(got, expected_value)
    _assert_leaves_close(backend, value, expected_value)
    _assert_leaves_close(backend, jvp_value, expected_value)
    for a, e in zip(_leaves(tangent), expected_tangent):
        numpy.testing.assert_allclose(backend.to_numpy(a), backend.to_numpy(e), rtol=1e-6, atol=1e-8)
    # <u, J v> == <J^T u, v> for a cotangent u of the output's structure (each leaf weighted differently)
    u = _map_leaves(lambda leaf: leaf * 0.0 + backend.asarray([0.5, 2.0, -1.0]), expected_value)
    cotangent = vjp(u)
    assert not isbox(cotangent)
    backend.check_device(cotangent)
    left = sum(float(backend.to_numpy(np.sum(a * b))) for a, b in zip(_leaves(u), _leaves(tangent)))
    right = float(backend.to_numpy(np.sum(cotangent * v)))
    assert left == pytest.approx(right, rel=1e-12)


@pytest.mark.parametrize("structure", STRUCTURES)
def test_container_outputs_pass_the_gradient_checker(backend, structure):
    check_grads(STRUCTURES[structure], modes=("fwd", "rev"), order=2)(backend.asarray([0.3, -1.2, 2.0]))


def test_a_container_with_other_items_is_refused_by_the_core():
    x = numpy.array([1.0, 2.0])
    for make in (adcore.core.make_vjp, lambda f, x: adcore.core.make_jvp(f, x)(x)):
        with pytest.raises(TypeError, match="returned a tuple holding a str beside traced values"):
            make(lambda x: (x * 2.0, "label"), x)


def _with_aux(fun):
    """``fun`` returning ``(its value, "aux")``, under the same name."""

    def paired(x):
        return fun(x), "aux"

    paired.__name__ = fun.__name__
    return paired


#: operator name -> how it is called on ``fun`` at ``x``, for the operators that need a scalar or an array
NEEDS_A_SCALAR = {
    "grad": lambda fun, x: operators.grad(fun)(x),
    "value_and_grad": lambda fun, x: operators.value_and_grad(fun)(x),
    "grad_and_aux": lambda fun, x: operators.grad_and_aux(_with_aux(fun))(x),
    "hessian": lambda fun, x: operators.hessian(fun)(x),
    "hvp": lambda fun, x: operators.hvp(fun)(x, x),
    "make_hvp": lambda fun, x: operators.make_hvp(fun)(x),
    "holomorphic_grad": lambda fun, x: operators.holomorphic_grad(fun)(x),
    "grad_named": lambda fun, x: operators.grad_named(fun, "x")(x),
    "multigrad_dict": lambda fun, x: operators.multigrad_dict(fun)(x),
}
NEEDS_AN_ARRAY = {
    "elementwise_grad": lambda fun, x: operators.elementwise_grad(fun)(x),
    "jacobian": lambda fun, x: operators.jacobian(fun)(x),
    "jacrev": lambda fun, x: operators.jacrev(fun)(x),
    "jacfwd": lambda fun, x: operators.jacfwd(fun)(x),
    "tensor_jacobian_product": lambda fun, x: operators.tensor_jacobian_product(fun)(x, 1.0),
}


@pytest.mark.parametrize("kind", ["tuple", "list", "dict"])
@pytest.mark.parametrize("op", [*NEEDS_A_SCALAR, *NEEDS_AN_ARRAY])
def test_operators_that_need_a_scalar_or_an_array_refuse_a_container_of_one(backend, op, kind):
    def loss(x):
        value = np.sum(x**2)
        return {"tuple": (value,), "list": [value], "dict": {"value": value}}[kind]

    needs = "a real scalar output" if op != "holomorphic_grad" else "a scalar output"
    if op in NEEDS_AN_ARRAY:
        needs = "an array output"
    call = {**NEEDS_A_SCALAR, **NEEDS_AN_ARRAY}[op]
    message = rf"^{op}: function loss returned .*a {kind} of 1 item; {op} needs {needs}\."
    if kind == "tuple":
        message += " Did you leave a trailing comma?"
    with pytest.raises(TypeError, match=message):
        call(loss, backend.asarray([1.0, 2.0]))


def test_grad_of_a_trailing_comma_was_silently_zero():
    # the example of issue 13: grad(lambda w: (np.sum(w ** 2),)) returned zeros, value_and_grad a leaked box
    w = numpy.array([1.0, 2.0])
    with pytest.raises(TypeError, match="trailing comma"):
        operators.grad(lambda w: (np.sum(w**2),))(w)
    with pytest.raises(TypeError, match="value_and_grad: .*list of 1 item"):
        operators.value_and_grad(lambda w: [np.sum(w**2)])(w)


# ---- every operator names itself and the user's function ----


def _call(name, fun, x):
    """``name``'s operator applied to ``fun`` (called ``loss``) at ``x``, through to a value."""
    v = numpy.ones(numpy.shape(x))
    calls = {
        **NEEDS_A_SCALAR,
        **NEEDS_AN_ARRAY,
        "hvp": lambda fun, x: operators.hvp(fun)(x, v),
        "hessian_tensor_product": lambda fun, x: operators.hessian_tensor_product(fun)(x, v),
        "hessian_vector_product": lambda fun, x: operators.hessian_vector_product(fun)(x, v),
        "vector_jacobian_product": lambda fun, x: operators.vector_jacobian_product(fun)(x, 1.0),
        "make_vjp": lambda fun, x: operators.make_vjp(fun)(x),
        "make_jvp": lambda fun, x: operators.make_jvp(fun)(x)(v),
        "make_jvp_reversemode": lambda fun, x: operators.make_jvp_reversemode(fun)(x)(v),
        "deriv": lambda fun, x: operators.deriv(fun)(x),
        "vjp": lambda fun, x: operators.vjp(fun, x),
        "jvp": lambda fun, x: operators.jvp(fun, (x,), (v,)),
        "linearize": lambda fun, x: operators.linearize(fun, x)[1](v),
        "make_ggnvp": lambda fun, x: operators.make_ggnvp(fun)(x)(v),
        "checkpoint": lambda fun, x: operators.grad(lambda x: np.sum(operators.checkpoint(fun)(x)[0]))(x),
    }
    return calls[name](fun, x)


#: the operators whose function may return a container (the others refuse one)
TAKE_CONTAINERS = {"make_vjp", "make_jvp", "make_jvp_reversemode", "deriv", "vjp", "jvp", "linearize", "checkpoint", "make_ggnvp"}


def _expected_name(name):
    """The name an operator reports: its own (an alias reports the operator it is)."""
    return getattr(operators, name).__name__


def _assert_names(error, name, function_name="loss"):
    message = str(error.value)
    assert message.startswith(f"{_expected_name(name)}: "), message
    assert function_name in message, message
    for internal in ("Box", "Node", "VSpace", "unary_f"):
        assert internal not in message, message


@pytest.mark.parametrize("name", operators.__all__)
def test_every_operator_names_itself_for_a_function_not_callable(name):
    with pytest.raises(TypeError) as error:
        if name in ("vjp", "jvp", "linearize"):
            _call(name, 3, numpy.ones(2))
        elif name == "grad_named":
            operators.grad_named(3, "x")
        else:
            getattr(operators, name)(3)
    _assert_names(error, name, function_name="int 3")


def _values(result, v):
    """The arrays of what an operator returned, a function returned (``make_vjp``'s, ``make_hvp``'s)
    taken at ``v``, as NumPy arrays."""
    if callable(result):
        return _values(result(v), v)
    if isinstance(result, (tuple, list, dict)):
        return [leaf for item in (result.values() if isinstance(result, dict) else result) for leaf in _values(item, v)]
    return [numpy.asarray(result)]


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
@pytest.mark.parametrize("name", sorted(set(operators.__all__) - {"checkpoint"}))
def test_every_operator_differentiates_an_integer_array_in_the_default_float_dtype(name, dtype):
    # issue 12: as autograd, an integer array is differentiated (elementwise_grad(f)(np.arange(3))); the
    # derivative is that at the same values in float64, NumPy's default floating dtype (complex128 for holomorphic_grad)
    def loss(x):
        return np.sum(np.sin(x) * x)

    v = numpy.ones(2) if name == "make_hvp" else 1.0  # make_hvp's hvp takes a tangent, make_vjp's vjp a cotangent
    got = _values(_call(name, loss, numpy.arange(1, 3, dtype=dtype)), v)
    expected = _values(_call(name, loss, numpy.arange(1.0, 3.0)), v)
    assert len(got) == len(expected) and any(e.dtype in (numpy.float64, numpy.complex128) for e in expected)
    for a, e in zip(got, expected):
        assert a.dtype == e.dtype and a.shape == e.shape
        numpy.testing.assert_array_equal(a, e)


@pytest.mark.parametrize(
    "argument",
    [3, numpy.int64(3), numpy.array([True, False]), "text", None],
    ids=["int", "numpy_int64", "bool_array", "str", "None"],
)
@pytest.mark.parametrize("name", sorted(set(operators.__all__) - {"checkpoint"}))
def test_every_operator_names_itself_and_the_function_for_an_argument_it_cannot_differentiate(name, argument):
    # integer scalars (write 3.0; autograd refuses them too), boolean masks, and values of no vector space
    def loss(x):
        return np.sum(x**2)

    with pytest.raises(TypeError) as error:
        _call(name, loss, argument)
    _assert_names(error, name)
    where = "argument x of loss" if name == "multigrad_dict" else "argument 0 of loss"
    assert where in str(error.value) and "differentiated" in str(error.value), str(error.value)


@pytest.mark.parametrize("output", [None, "text"])
@pytest.mark.parametrize("name", operators.__all__)
def test_every_operator_names_itself_and_the_function_for_an_output_that_is_no_array(name, output):
    def loss(x):
        return output

    with pytest.raises(TypeError) as error:
        _call(name, loss, numpy.ones(2))
    _assert_names(error, name)
    assert type(output).__name__ in str(error.value)


@pytest.mark.parametrize("name", operators.__all__)
def test_every_operator_differentiates_or_refuses_a_container_output(name):
    x = numpy.array([0.5, -1.0])

    def loss(x):
        return (np.sum(x**2) if name not in NEEDS_AN_ARRAY else x**2,)

    if name == "make_ggnvp":  # its g takes what f returns
        result = operators.make_ggnvp(loss, lambda t: 0.5 * np.sum(t[0] ** 2))(x)(x * 0.0 + 1.0)
        numpy.testing.assert_allclose(result, (2 * x) * numpy.sum(2 * x), rtol=1e-12)  # J^T H J v, J = 2 x^T, H = 1
    elif name in TAKE_CONTAINERS:
        _call(name, loss, x)
    else:
        with pytest.raises(TypeError) as error:
            _call(name, loss, x)
        _assert_names(error, name)
        assert "tuple of 1 item" in str(error.value) and "trailing comma" in str(error.value)


def test_grad_named_names_an_argument_the_function_lacks():
    def loss(x, y):
        return x * y

    with pytest.raises(TypeError, match="grad_named: loss has no argument 'z'; its arguments are x, y"):
        operators.grad_named(loss, "z")


def test_hessian_names_itself_not_grad():
    # issue 17: hessian(lambda x: x ** 2)(np.ones(3)) said "grad only applies ... returned a ArrayBox"
    with pytest.raises(TypeError) as error:
        operators.hessian(lambda x: x**2)(numpy.ones(3))
    message = str(error.value)
    assert message.startswith("hessian: function <lambda> returned a ndarray of dtype float64 and shape (3,)"), message
    assert "ArrayBox" not in message and "grad only" not in message


def test_a_composed_operator_is_named_after_what_the_user_called():
    def loss(x):
        return np.sum(x**3)

    assert operators.hessian(loss).__name__ == "hessian_of_loss"
    assert operators.hvp(loss).__name__ == "hvp_of_loss"


def test_untraced_aux_keeps_named_tuples():
    g, aux = operators.grad_and_aux(lambda x: (x**2, Pair(x, 2.0 * x)))(3.0)
    assert g == 6.0 and type(aux) is Pair and not isbox(aux.first) and getval(aux.second) == 6.0

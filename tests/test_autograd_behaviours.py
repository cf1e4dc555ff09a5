"""Behaviours that programs written for autograd rely on, beyond its names (issue 12, item 3).

Each runs on every backend where it applies, in both modes and in float64 and float32:
autograd's ``VSpace`` API (``randn()`` without a generator, a Python float's space equal to a
0-d array's, user spaces whose hooks ``_add``, ``_scalar_mul``, ``_inner_prod`` and
``_covector`` are honoured), traced Python scalars that behave as 0-d arrays, functions
returning lists of arrays (``split``) differentiated by the engine's own ``make_vjp`` and
``make_jvp``, NumPy functions given Python lists of traced values, writable creation
functions, integer arrays differentiated in the default floating dtype, and autograd's
container types (``isinstance(x, adcore.list)``).
"""

import numpy
import pytest

import adcore
import adcore.numpy as np
from adcore import elementwise_grad, grad, jacobian, use_backend
from adcore.core import make_jvp, make_vjp, vspace
from adcore.extend import Box, VSpace, defjvp, defvjp, primitive
from adcore.test_util import check_grads

DTYPES = ("float64", "float32")


# ---- autograd's VSpace API ----


@pytest.mark.parametrize("dtype", DTYPES)
def test_randn_without_a_generator_draws_from_numpys_global_one(dtype, backend):
    """autograd's ``vs.randn()``: NumPy's global generator (``np.random.seed`` makes it repeatable),
    in the space's backend, device, dtype and shape; containers draw item by item."""
    x = backend.asarray(numpy.zeros((2, 3)), dtype)
    numpy.random.seed(7)
    first = vspace(x).randn()
    numpy.random.seed(7)
    again = vspace((x, x)).randn()
    backend.check_device(first)
    assert first.dtype == x.dtype and tuple(first.shape) == (2, 3)
    expected = numpy.random.RandomState(7).standard_normal((2, 3)).astype(dtype)
    numpy.testing.assert_array_equal(backend.to_numpy(first), expected)
    numpy.testing.assert_array_equal(backend.to_numpy(again[0]), expected)


@pytest.mark.parametrize("dtype", DTYPES)
def test_python_float_and_0d_array_share_a_space(dtype, backend):
    """As in autograd, ``vspace(1.0) == vspace(array(1.0))`` on the default backend (a Python
    scalar has no device, so any device matches); another dtype or shape is another space."""
    with use_backend(backend.name):
        zero_d = backend.asarray(2.0, dtype)
        assert (vspace(1.0) == vspace(zero_d)) == (dtype == "float64")
        assert vspace(1.0) != vspace(backend.asarray([2.0], dtype))
        assert vspace(zero_d) == vspace(backend.asarray(3.0, dtype))


def test_covector_conjugates_complex_values(backend):
    z = backend.asarray([1.0 + 2.0j], "complex128")
    numpy.testing.assert_array_equal(backend.to_numpy(vspace(z).covector(z)), [1.0 - 2.0j])
    x = backend.asarray([1.0, 2.0])
    assert vspace(x).covector(x) is x


class Polynomial:
    """A user's value type: a polynomial by its coefficients (autograd's rkhs.py style)."""

    def __init__(self, coefficients):
        self.coefficients = coefficients


class PolynomialBox(Box):
    pass


PolynomialBox.register(Polynomial)


class PolynomialVSpace(VSpace):
    """Only the hooks: ``add``, ``scalar_mul``, ``inner_prod`` and ``covector`` come from ``VSpace``."""

    calls = []

    def __init__(self, value):
        self.size = len(value.coefficients)

    def zeros(self):
        return Polynomial(numpy.zeros(self.size))

    def randn(self, rng=None):
        return Polynomial(numpy.random.randn(self.size))

    def _add(self, x, y):
        self.calls.append("_add")
        return Polynomial(x.coefficients + y.coefficients)

    def _scalar_mul(self, x, a):
        self.calls.append("_scalar_mul")
        return Polynomial(a * x.coefficients)

    def _inner_prod(self, x, y):
        self.calls.append("_inner_prod")
        return float(numpy.dot(x.coefficients, y.coefficients))

    def _covector(self, x):
        self.calls.append("_covector")
        return x


PolynomialVSpace.register(Polynomial)


@primitive
def evaluate(p, t):
    """``sum_k c_k t^k``."""
    return sum(c * t**k for k, c in enumerate(p.coefficients))


def slope(p, t):
    return sum(k * c * t ** (k - 1) for k, c in enumerate(p.coefficients) if k)


defvjp(
    evaluate,
    lambda ans, p, t: lambda g: Polynomial(g * t ** numpy.arange(len(p.coefficients))),
    lambda ans, p, t: lambda g: g * slope(p, t),
)
defjvp(evaluate, lambda g, ans, p, t: evaluate(g, t), lambda g, ans, p, t: g * slope(p, t))


def test_user_vspace_hooks_are_honoured():
    """The public operations of a user's space call its hooks, and are themselves differentiable."""
    p, q = Polynomial(numpy.array([1.0, 2.0])), Polynomial(numpy.array([0.5, -1.0]))
    vs = vspace(p)
    PolynomialVSpace.calls.clear()
    assert list(vs.add(p, q).coefficients) == [1.5, 1.0]
    assert list(vs.scalar_mul(p, 3.0).coefficients) == [3.0, 6.0]
    assert vs.inner_prod(p, q) == -1.5
    assert vs.covector(p) is p
    assert PolynomialVSpace.calls == ["_add", "_scalar_mul", "_inner_prod", "_covector"]
    # through the operations: d/da <a p, q> = <p, q>; (p + q)(t) = 1.5 + t, of slope 1
    assert grad(lambda a: vs.inner_prod(vs.scalar_mul(p, a), q))(2.0) == -1.5
    assert grad(lambda t: evaluate(vs.add(p, q), t))(2.0) == 1.0
    # cotangents of a user value are summed with its space's _add, and its gradient is a Polynomial
    gradient = grad(lambda p: evaluate(p, 2.0) + evaluate(vs.scalar_mul(p, 2.0), 3.0))(p)
    numpy.testing.assert_allclose(gradient.coefficients, [1.0 + 2.0, 2.0 + 2.0 * 3.0])
    _, tangent = make_jvp(lambda a: evaluate(vs.scalar_mul(p, a), 2.0), 1.0)(1.0)
    assert tangent == evaluate(p, 2.0)


# ---- traced Python scalars behave as 0-d arrays of the default float dtype ----


@pytest.mark.parametrize(
    "fun",
    [
        lambda x: np.max(x * 2.0),
        lambda x: np.prod(x),
        lambda x: np.sum(np.linspace(x, 2.0 * x, 3)),
        lambda x: x * np.ones(2, dtype=x.dtype),
        lambda x: np.real(x * x),
    ],
    ids=["max", "prod", "linspace", "dtype", "real"],
)
def test_traced_python_float(fun):
    assert np.result_type(1.0) == numpy.float64
    check_grads(fun, modes=["fwd", "rev"], order=2)(1.3)


def test_cotangent_of_a_python_complex_is_complex():
    vjp, _ = make_vjp(np.real, 0.4 + 0.1j)
    g = vjp(1.0)
    assert numpy.iscomplexobj(g) and g == 1.0
    assert vspace(g) == vspace(0.4 + 0.1j)


def test_special_functions_of_a_python_complex_are_complex():
    from adcore.scipy import special

    assert numpy.iscomplexobj(special.erf(0.4 + 0.1j))
    vjp, ans = make_vjp(special.erf, 0.4 + 0.1j)
    assert vspace(vjp(vspace(ans).ones())) == vspace(0.4 + 0.1j)
    check_grads(special.erfc, modes=["fwd", "rev"])(0.4 + 0.1j)


def test_extended_precision_scalars_are_traced():
    x = numpy.ones((2, 2), dtype=numpy.clongdouble)
    assert grad(lambda x: np.real(np.sum(x * x)))(x).dtype == numpy.clongdouble
    assert grad(lambda x: np.sum(x * x))(numpy.ones(2, dtype=numpy.float16)).dtype == numpy.float16


@pytest.mark.parametrize(
    "condition, x, y, expected",
    [
        (True, 1, 2, 1),
        (True, 3.0, 4.0, 3.0),
        (False, 1, 2.0, 2.0),
        (True, [1, 2], [3, 4], [1, 2]),
        ([True, False], 1.0, 2.0, [1.0, 2.0]),
    ],
)
def test_where_of_python_values_gives_python_values(condition, x, y, expected):
    """autograd's ``where``: with no array among its arguments, Python numbers and lists."""
    result = np.where(condition, x, y)
    assert result == expected and type(result) is type(expected)
    assert type(np.where(True, numpy.float32(1.0), 2.0)) is numpy.ndarray


@pytest.mark.parametrize(
    "call",
    [
        lambda: np.where(0.5, 1.5),
        lambda: np.where(numpy.ones(2), numpy.zeros(2)),
        lambda: np.where(numpy.ones(2), y=numpy.zeros(2)),
        lambda: np.where(True, y=1.0),
    ],
)
def test_where_with_x_or_y_alone_is_refused_as_in_numpy(call):
    with pytest.raises(ValueError, match="give both x and y, or neither"):
        call()


# ---- functions that return lists of arrays, through the engine's make_vjp and make_jvp ----


@pytest.mark.parametrize(
    "fun",
    [
        lambda x: np.split(x, 2),
        lambda x: np.array_split(x, 3, axis=1),
        lambda x: np.hsplit(x, [1]),
        lambda x: np.gradient(x),
        lambda x: np.atleast_1d(x, 2.0 * x),
    ],
    ids=["split", "array_split", "hsplit", "gradient", "atleast_1d"],
)
@pytest.mark.parametrize("dtype", DTYPES)
def test_list_outputs_are_traced_lists(fun, dtype, backend):
    """As autograd's primitives return them: the engine's ``make_jvp`` (which traces one value,
    unlike the operators) sees the whole list, so its tangent is not zero."""
    x = backend.asarray(numpy.arange(12.0).reshape(4, 3) / 7.0, dtype)
    v = backend.asarray(numpy.arange(12.0).reshape(4, 3) ** 2 / 50.0, dtype)
    _, tangent = make_jvp(fun, x)(v)
    _, expected = make_jvp(lambda x: np.concatenate([np.ravel(p) for p in fun(x)]), x)(v)
    numpy.testing.assert_allclose(backend.to_numpy(np.concatenate([np.ravel(t) for t in tangent])), backend.to_numpy(expected))
    assert numpy.any(backend.to_numpy(expected) != 0)
    vjp, ans = make_vjp(fun, x)
    backend.check_device(vjp(vspace(ans).ones()))
    check_grads(fun, modes=["fwd", "rev"], order=2)(x)
    assert [type(p) for p in fun(backend.to_numpy(x))] == [numpy.ndarray] * len(fun(backend.to_numpy(x)))


# ---- NumPy functions given Python lists of traced values ----


@pytest.mark.parametrize(
    "fun",
    [
        lambda a, b: np.sum([a, b * a]),
        lambda a, b: np.prod([a, b], axis=0),
        lambda a, b: np.max([a, 2.0 * b], axis=0),
        lambda a, b: np.min([[a, b], [b, a]]),
        lambda a, b: np.mean([a, b]),
        lambda a, b: np.diag([a, b]),
        lambda a, b: np.array([[a, 0.0], [0.0, b]]),
    ],
    ids=["sum", "prod", "max", "min", "mean", "diag", "array"],
)
@pytest.mark.parametrize("dtype", DTYPES)
def test_lists_of_traced_values(fun, dtype, backend):
    a, b = backend.asarray(0.7, dtype), backend.asarray(-1.3, dtype)
    check_grads(fun, argnum=(0, 1), modes=["fwd", "rev"], order=2)(a, b)
    assert backend.to_numpy(fun(a, b)).dtype == numpy.dtype(dtype)


@pytest.mark.parametrize(
    "fun",
    [
        lambda a, b: np.append(a, b, axis=0),
        lambda a, b: np.sum(np.append(a, b) ** 2) + a[0][1] * b[0][0],
        lambda a, b: np.concatenate([a, b]) * np.stack([a[1], b[0], a[0]]),
    ],
    ids=["append", "append_and_items", "concatenate_and_rows"],
)
def test_nested_lists_taken_whole_by_an_array_function(fun):
    """Arguments that are nested lists of floats, taken whole by an array function (whose rule gives
    an array cotangent, as autograd's do) and also read item by item: the two cotangents add."""
    check_grads(fun, argnum=(0, 1), modes=["fwd", "rev"], order=2)([[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0]])


def test_lists_of_python_floats():
    """The same functions on plain lists give NumPy's values."""
    assert np.sum([1.0, 2.0]) == 3.0
    numpy.testing.assert_array_equal(np.max([[1, 2], [3, 0]], axis=0), [3, 2])
    numpy.testing.assert_array_equal(np.diag([1.0, 2.0]), numpy.diag([1.0, 2.0]))


# ---- creation functions return arrays that can be written to ----


@pytest.mark.parametrize(
    "make",
    [
        lambda: np.full((2, 3), numpy.float64(0.0)),
        lambda: np.full((2, 3), numpy.array([1.0, 2.0, 3.0])),
        lambda: np.full(3, 1.5),
        lambda: np.zeros(3),
        lambda: np.ones((2, 2)),
        lambda: np.eye(2),
        lambda: np.zeros_like(numpy.ones(3)),
        lambda: np.full_like(numpy.ones(3), 2.0),
        lambda: np.array([1.0, 2.0]),
        lambda: np.linspace(0.0, 1.0, 3),
        lambda: np.arange(3.0),
        lambda: np.diag(numpy.ones(2)),
        lambda: np.tile(numpy.ones(2), 2),
    ],
    ids=["full_numpy_scalar", "full_row", "full", "zeros", "ones", "eye", "zeros_like", "full_like", "array", "linspace"]
    + ["arange", "diag", "tile"],
)
def test_creation_functions_return_writable_arrays(make):
    x = make()
    x[0] = 7.0
    assert x.flags.writeable and x.ravel()[0] == 7.0


def _second_call(function, x):
    function(x)
    return function(x)


@pytest.mark.parametrize(
    "derivative",
    [
        lambda x: grad(np.sum)(x),
        lambda x: grad(np.mean)(x),
        lambda x: grad(lambda x: np.sum(np.sum(x, axis=0) + 1.0))(x),
        lambda x: grad(lambda x: np.sum(x[0, :]) - np.sum(x))(x),
        lambda x: elementwise_grad(lambda x: x * 0.0 + np.sum(x))(x),
        lambda x: grad(lambda xs: np.sum(xs[0]) + np.sum(xs[1]))([x, x])[1],
        lambda x: adcore.make_jvp(lambda s: s + x)(x[0, 0])(x[0, 0])[1],
        lambda x: adcore.deriv(lambda s: s * np.ones_like(x))(x[0, 0]),
        lambda x: adcore.make_vjp(np.sum)(x)[0](1.0),
        lambda x: _second_call(grad(lambda x: np.sum(x) ** 2, jit=True), x),
        lambda x: _second_call(grad(lambda xs: np.sum(xs[0]) * np.sum(xs[1]), jit=True), [x, x])[1],
    ],
    ids=["sum", "mean", "sum_axis", "index_and_sum", "elementwise_grad", "container_item", "make_jvp", "deriv", "make_vjp"]
    + ["jit_replay", "jit_replay_container_item"],
)
def test_derivatives_are_writable_entry_by_entry(backend, derivative):
    """A derivative that is a broadcast of one value (a linear reduction's gradient, a linear function's tangent)
    is handed back as an array of its own: NumPy and array-api-strict refused a write to the read-only
    broadcast view, and PyTorch wrote every entry at once (a wrong number). Writing one entry changes only it; so
    too in a replay of ``adcore.jit``, which records the copy."""
    if backend.name == "jax":
        pytest.skip("JAX arrays are immutable")
    x = backend.asarray(numpy.ones((2, 3)))
    d = derivative(x)
    expected = backend.to_numpy(d).copy()
    d[0, 0] = 7.0
    expected[0, 0] = 7.0
    numpy.testing.assert_array_equal(backend.to_numpy(d), expected)


def test_owned_copy_is_the_identity_in_both_modes(backend):
    """``_owned_copy``, the copy a derivative view gets before it is handed back, and its rules (identity)."""
    from adcore.numpy.elementwise import _owned_copy

    x = backend.asarray(numpy.linspace(-1.0, 1.0, 6).reshape(2, 3))
    numpy.testing.assert_array_equal(backend.to_numpy(_owned_copy(x)), backend.to_numpy(x))
    check_grads(lambda x: _owned_copy(np.sin(x)) * x, modes=["fwd", "rev"], order=2)(x)


# ---- integer arrays are differentiated in the default floating dtype ----


def test_integer_arrays_are_differentiated_as_floats(backend):
    """As autograd: the values are taken as the library's default floating dtype (``x * 1.0``'s),
    in both modes; Python and NumPy integer scalars still raise, naming the argument."""
    n = backend.asarray([0, 1, 2], "int64")
    float_dtype = backend.backend.default_float(backend.device)
    g = elementwise_grad(lambda x: x**2)(n)
    backend.check_device(g)
    assert g.dtype == float_dtype
    numpy.testing.assert_allclose(backend.to_numpy(g), [0.0, 2.0, 4.0])
    numpy.testing.assert_allclose(backend.to_numpy(grad(lambda x: np.sum(np.sin(x)))(n)), numpy.cos([0.0, 1.0, 2.0]), rtol=1e-6)
    numpy.testing.assert_allclose(backend.to_numpy(jacobian(lambda x: 3.0 * x)(n)), 3.0 * numpy.eye(3))
    _, tangent = adcore.make_jvp(lambda x: x * x)(n)(backend.asarray([1.0, 1.0, 1.0], str(float_dtype).split(".")[-1]))
    numpy.testing.assert_allclose(backend.to_numpy(tangent), [0.0, 2.0, 4.0])
    for scalar in (3, numpy.int64(3)):
        with pytest.raises(TypeError, match="only floating-point or complex values can be differentiated"):
            grad(lambda x: x * 1.0)(scalar)


@pytest.mark.parametrize("output", [lambda x: np.allclose(x, x), lambda x: np.astype(np.sum(x), "int64")], ids=["bool", "int"])
def test_grad_of_a_non_float_output_raises(output):
    """autograd's ``grad`` refuses an output that is not a float (its derivative is not defined)."""
    with pytest.raises(TypeError, match="grad: function <lambda> returned .*; grad only applies to real scalar-output functions"):
        grad(output)(numpy.array([1.0, 2.0]))


# ---- autograd's container types ----


def test_container_types_test_plain_and_traced_containers():
    """``adcore.list`` (autograd's ``list``) builds a traced list and matches plain lists in
    ``isinstance``; ``adcore.isinstance`` sees through boxes."""

    def fun(x):
        assert adcore.isinstance(x, list) and adcore.isinstance(x, adcore.list)
        assert not adcore.isinstance(x, adcore.tuple)
        return adcore.tuple([x[0], x[1] * 2.0])[1]

    assert fun([1.0, 2.0]) == 4.0
    assert grad(fun)([1.0, 2.0]) == [0.0, 2.0]
    assert isinstance({}, adcore.dict) and isinstance((), adcore.tuple) and not isinstance([], adcore.dict)
    assert adcore.dict(a=1.0) == {"a": 1.0} and adcore.list() == []


# ---- names autograd's tests and examples need (kept together: item 2 adds the others) ----


@pytest.mark.parametrize(
    "fun",
    [
        lambda x, y: np.r_[x, 0.5, y, 1:3],
        lambda x, y: np.c_[x, y, x],
        lambda x, y: np.row_stack([x, y]),
        lambda x, y: np.select([x > 0.0, y > 0.0], [x * y, y], default=x),
        lambda x, y: np.make_diagonal(x * y, axis1=-1, axis2=-2),
        lambda x, y: np.concatenate([np.ravel(g) for g in np.meshgrid(x, y[:2])]),
        lambda x, y: np.concatenate([np.ravel(g) for g in np.meshgrid(x, y, x[:1], indexing="ij", sparse=True)]),
    ],
    ids=["r_", "c_", "row_stack", "select", "make_diagonal", "meshgrid", "meshgrid_ij_sparse"],
)
@pytest.mark.parametrize("dtype", DTYPES)
def test_names_the_alias_needs(fun, dtype, backend):
    x = backend.asarray([0.3, -1.2, 0.8], dtype)
    y = backend.asarray([-0.4, 0.9, 1.1], dtype)
    expected = fun(backend.to_numpy(x).astype("float64"), backend.to_numpy(y).astype("float64"))
    numpy.testing.assert_allclose(backend.to_numpy(fun(x, y)), expected, rtol=1e-6)
    check_grads(fun, argnum=(0, 1), modes=["fwd", "rev"], order=2)(x, y)


def test_names_that_are_numpys():
    assert np.ndarray is numpy.ndarray and np.dtype is numpy.dtype and np.longdouble is numpy.longdouble
    assert np.__version__ == numpy.__version__ and np.isrealobj(1.0) and not np.isrealobj(1j)
    numpy.testing.assert_array_equal(np.r_[numpy.ones(2), 0:3, 2.0], numpy.r_[numpy.ones(2), 0:3, 2.0])
    numpy.testing.assert_array_equal(np.c_[numpy.ones(2), numpy.zeros(2)], numpy.c_[numpy.ones(2), numpy.zeros(2)])
    numpy.testing.assert_array_equal(np.r_["0,2", numpy.ones(2)], numpy.r_["0,2", numpy.ones(2)])
    assert np.real_if_close(numpy.array([1.0 + 1e-3j])).dtype == numpy.complex128
    assert np.seterr is numpy.seterr
    for kwargs in ({}, {"indexing": "ij"}, {"sparse": True}):
        grids, expected = (
            np.meshgrid(numpy.arange(3.0), numpy.arange(2.0), **kwargs),
            numpy.meshgrid(numpy.arange(3.0), numpy.arange(2.0), **kwargs),
        )
        assert all(numpy.array_equal(g, e) and g.shape == e.shape for g, e in zip(grids, expected))
    check_grads(lambda x, y: np.real_if_close(x + 0j) * y, argnum=(0, 1))(numpy.array([0.3, -1.2]), numpy.array([0.5, 2.0]))
    check_grads(lambda z: np.real_if_close(z * z), modes=["fwd", "rev"])(numpy.array([0.3 + 0.1j, -1.2j]))


def test_integer_types_cast_traced_values(backend):
    """``np.int64(x)`` of a traced ``x`` is its value cast (autograd's integer types); the types stay
    NumPy's dtypes for ``dtype=`` and ``astype`` on every backend."""
    x = backend.asarray([[0.5, 2.0], [1.5, 0.0]])

    def fun(x):
        rows = np.int64(np.ravel(x)[:1] * 2.0) if backend.name == "numpy" else np.astype(np.ravel(x)[:1] * 2.0, np.int64)
        assert str(rows.dtype).endswith("int64")
        return np.sum(np.take(x, rows, axis=0))

    numpy.testing.assert_allclose(backend.to_numpy(grad(fun)(x)), [[0.0, 0.0], [1.0, 1.0]])
    assert numpy.dtype(np.int32) == numpy.int32 and np.zeros(2, dtype=np.int8).dtype == numpy.int8
    assert type(np.int64(3)) is numpy.int64


@pytest.mark.parametrize("dtype", DTYPES)
def test_deprecated_methods_of_autograd_core_primitive(dtype, backend):
    """autograd.core.primitive (served by adcore.compat.autograd_core) gives defgrad, defvjp (the
    rule of autograd < 1.2, taking the spaces) and defvjp_is_zero, each warning; rules registered
    one argument at a time are kept together."""
    from adcore.compat.autograd_core import primitive

    @primitive
    def scaled_product(x, y, z):
        return x * y + 0.0 * z

    with pytest.warns(DeprecationWarning, match="scaled_product.defgrad is deprecated since autograd 1.2"):
        scaled_product.defgrad(lambda ans, x, y, z: lambda g: g * y)
    with pytest.warns(DeprecationWarning, match="scaled_product.defvjp is deprecated"):
        scaled_product.defvjp(lambda g, ans, vs, gvs, x, y, z: vs.zeros() + g * x, argnum=1)
    with pytest.warns(DeprecationWarning, match="scaled_product.defvjp_is_zero is deprecated"):
        scaled_product.defvjp_is_zero([2])
    x, y, z = (backend.asarray(numpy.arange(1.0, 4.0) * k, dtype) for k in (1.0, -0.5, 2.0))
    check_grads(lambda x, y, z: scaled_product(x, y, z) ** 2, modes=["rev"], order=2)(x, y, z)
    gz = grad(lambda z: np.sum(scaled_product(x, y, z)))(z)
    numpy.testing.assert_array_equal(backend.to_numpy(gz), numpy.zeros(3, dtype))

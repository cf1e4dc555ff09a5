"""adcore.misc: flatten, the optimizers, implicitly differentiated fixed points and const_graph,
on every backend, and against autograd.misc where the results must agree."""

import collections
import math

import autograd.misc
import autograd.misc.optimizers
import autograd.numpy
import numpy
import pytest

import adcore.numpy as np
from adcore import deriv, grad
from adcore.misc import const_graph, fixed_point, flatten, flatten_func, optimizers
from adcore.misc.optimizers import adam, rmsprop, sgd
from adcore.test_util import check_grads


def nested(backend, dtype="float64"):
    return {
        "w": backend.asarray([[1.0, 2.0], [3.0, 4.0]], dtype),
        "b": (backend.asarray([5.0], dtype), 6.0),
        "layers": [backend.asarray(7.0, dtype), {"z": backend.asarray([8.0, 9.0], dtype)}],
    }


def assert_same_structure(backend, actual, expected):
    """Same container types and dict key order; leaves equal arrays of ``expected``'s shape on the backend's device."""
    if isinstance(expected, (tuple, list, dict)):
        assert type(actual) is type(expected)
    if isinstance(expected, dict):
        assert list(actual) == list(expected)
        for key in expected:
            assert_same_structure(backend, actual[key], expected[key])
    elif isinstance(expected, (tuple, list)):
        assert len(actual) == len(expected)
        for a, e in zip(actual, expected):
            assert_same_structure(backend, a, e)
    else:
        backend.check_device(actual)
        assert np.shape(actual) == np.shape(expected)
        expected = expected if isinstance(expected, float) else backend.to_numpy(expected)
        numpy.testing.assert_array_equal(backend.to_numpy(actual), expected)


# ---- flatten ----


def test_flatten_round_trip(backend):
    value = nested(backend)
    flat, unflatten = flatten(value)
    backend.check_device(flat)
    assert flat.shape == (9,) and flat.dtype == value["w"].dtype
    numpy.testing.assert_array_equal(backend.to_numpy(flat), [5, 6, 7, 8, 9, 1, 2, 3, 4])  # dict items by sorted key
    assert_same_structure(backend, unflatten(flat), value)


def test_flatten_keeps_float32_and_casts_scalars_to_it(backend):
    flat, unflatten = flatten(nested(backend, "float32"))
    assert flat.dtype == backend.asarray(0.0, "float32").dtype
    assert unflatten(flat)["b"][1].dtype == flat.dtype


def test_flatten_matches_autograd():
    value = {"w": numpy.arange(6.0).reshape(2, 3), "b": [numpy.ones(2), (3.0, numpy.array(4.0))], "a": 0.5}
    flat, unflatten = flatten(value)
    expected, expected_unflatten = autograd.misc.flatten(value)
    numpy.testing.assert_array_equal(flat, expected)
    rebuilt = unflatten(flat * 2)
    numpy.testing.assert_array_equal(rebuilt["w"], expected_unflatten(expected * 2)["w"])
    numpy.testing.assert_array_equal(rebuilt["b"][1][1], 8.0)


def test_grad_through_unflatten_and_flatten(backend):
    value = nested(backend)
    flat, unflatten = flatten(value)

    def loss(vector):
        params = unflatten(vector)
        return np.sum(params["w"] ** 2) + params["b"][1] * np.sum(params["layers"][1]["z"])

    g = grad(loss)(flat)
    backend.check_device(g)
    numpy.testing.assert_allclose(backend.to_numpy(g), [0, 17, 0, 6, 6, 2, 4, 6, 8])
    x, y = backend.asarray([1.0, -2.0]), backend.asarray([[3.0]])
    gx, gy = grad(lambda pair: np.sum(flatten(pair)[0] ** 2))((x, y))
    numpy.testing.assert_allclose(backend.to_numpy(gx), [2.0, -4.0])
    numpy.testing.assert_allclose(backend.to_numpy(gy), [[6.0]])


def test_flatten_func(backend):
    example = {"a": backend.asarray([1.0, 2.0]), "c": 3.0}
    flat_func, unflatten, flat_example = flatten_func(lambda p, k: (p["a"] * k, np.sum(p["a"]) * p["c"]), example)
    out = flat_func(flat_example, 2.0)
    numpy.testing.assert_allclose(backend.to_numpy(out), [2.0, 4.0, 9.0])
    g = grad(lambda v: flat_func(v, 2.0)[2])(flat_example)
    numpy.testing.assert_allclose(backend.to_numpy(g), [3.0, 3.0, 3.0])
    assert_same_structure(backend, unflatten(flat_example), {"a": example["a"], "c": backend.asarray(3.0)})


def test_flatten_edge_cases():
    flat, unflatten = flatten([])
    assert flat.shape == (0,) and flat.dtype == numpy.float64
    assert unflatten(flat) == []
    flat, unflatten = flatten((1.0, 2))
    numpy.testing.assert_array_equal(flat, [1.0, 2.0])
    flat, _ = flatten(numpy.float32(2.0))
    assert flat.shape == (1,)
    Params = collections.namedtuple("Params", "w b")
    value = collections.OrderedDict(z=Params(numpy.ones(2), 3.0), a=[numpy.zeros((1, 1))])
    flat, unflatten = flatten(value)
    numpy.testing.assert_array_equal(flat, [0.0, 1.0, 1.0, 3.0])
    rebuilt = unflatten(flat + 1.0)
    assert type(rebuilt) is collections.OrderedDict and list(rebuilt) == ["z", "a"]
    assert type(rebuilt["z"]) is Params and float(rebuilt["z"].b) == 4.0


def test_flatten_errors(backend):
    _, unflatten = flatten(nested(backend))
    with pytest.raises(ValueError, match=r"unflatten: expected a 1-d vector of size 9 .*got shape \(8,\)"):
        unflatten(backend.asarray(numpy.zeros(8)))
    with pytest.raises(TypeError, match="flatten: a leaf of type NoneType is neither an array nor a number"):
        flatten({"a": backend.asarray([1.0]), "b": None})
    if backend.name == "dask":  # NumPy arrays beside Dask arrays are Dask's constants
        backend.check_device(flatten([backend.asarray([1.0]), numpy.ones(2)])[0])
    elif backend.name != "numpy":
        with pytest.raises(ValueError, match="flatten: arrays from two backends"):
            flatten([backend.asarray([1.0]), numpy.ones(2)])


# ---- optimizers ----

TARGET = {"w": [[1.0, -2.0], [0.5, 3.0]], "b": [-1.0]}


def quadratic_grad(backend):
    """The gradient of ``sum((w - W)**2) + sum((b - B)**2)`` for parameters ``{"w": w, "b": (b,)}``."""
    w_target, b_target = backend.asarray(TARGET["w"]), backend.asarray(TARGET["b"])

    def quadratic_grad(params, i):
        return {"w": 2.0 * (params["w"] - w_target), "b": (2.0 * (params["b"][0] - b_target),)}

    return quadratic_grad


OPTIMIZER_RUNS = [
    (sgd, {"num_iters": 300}),
    (rmsprop, {"step_size": 0.01, "num_iters": 400}),
    (adam, {"step_size": 0.1, "num_iters": 300}),
]


@pytest.mark.full("dask")  # each step adds to one lazy graph that is never computed: minutes for 300 steps
@pytest.mark.parametrize("optimizer, options", OPTIMIZER_RUNS)
def test_optimizers_minimise_a_quadratic_with_nested_parameters(backend, optimizer, options):
    x0 = {"w": backend.asarray(numpy.zeros((2, 2))), "b": (backend.asarray([0.0]),)}
    seen = []
    result = optimizer(quadratic_grad(backend), x0, callback=lambda x, i, g: seen.append(i), **options)
    assert seen == list(range(options["num_iters"]))
    assert list(result) == ["w", "b"] and isinstance(result["b"], tuple)
    backend.check_device(result["w"])
    backend.check_device(result["b"][0])
    numpy.testing.assert_allclose(backend.to_numpy(result["w"]), TARGET["w"], atol=1e-2)
    numpy.testing.assert_allclose(backend.to_numpy(result["b"][0]), TARGET["b"], atol=1e-2)


@pytest.mark.parametrize("name", ["sgd", "rmsprop", "adam"])
def test_optimizers_match_autograd(name):
    x0 = ([numpy.array([3.0, -1.0]), 0.5],)

    def objective_grad(numpy_module):
        return lambda x, i: [[numpy_module.cos(x[0][0]) * (i + 1), x[0][1] * 2.0]]

    ours = getattr(optimizers, name)(objective_grad(np), x0, num_iters=20, step_size=0.05)
    theirs = getattr(autograd.misc.optimizers, name)(objective_grad(autograd.numpy), x0, num_iters=20, step_size=0.05)
    numpy.testing.assert_allclose(ours[0][0], theirs[0][0], rtol=1e-12)
    numpy.testing.assert_allclose(ours[0][1], theirs[0][1], rtol=1e-12)


def test_optimizers_are_differentiable_in_their_hyperparameters():
    def final_loss(step_size):
        x = sgd(lambda x, i: 2.0 * (x - 3.0), numpy.zeros(2), num_iters=10, step_size=step_size)
        return np.sum((x - 3.0) ** 2)

    h = 1e-6
    numerical = (final_loss(0.1 + h) - final_loss(0.1 - h)) / (2 * h)
    assert math.isclose(float(grad(final_loss)(0.1)), float(numerical), rel_tol=1e-7)


# ---- fixed points ----


def newton_sqrt(a):
    return lambda x: 0.5 * np.add(x, np.divide(a, x))  # not `x + ...`: strict raises on raw + traced (README)


def max_distance(x, y):
    return np.max(np.abs(x - y))


def test_fixed_point_sqrt_value_and_gradient(backend):
    data = numpy.array([4.0, 2.0, 0.25])
    a = backend.asarray(data)
    x0 = backend.asarray(numpy.ones(3))

    def total_sqrt(a):
        return np.sum(fixed_point(newton_sqrt, a, x0, max_distance, 1e-12))

    numpy.testing.assert_allclose(backend.to_numpy(total_sqrt(a)), numpy.sum(numpy.sqrt(data)), rtol=1e-12)
    g = grad(total_sqrt)(a)
    backend.check_device(g)
    numpy.testing.assert_allclose(backend.to_numpy(g), 0.5 / numpy.sqrt(data), rtol=1e-10)


def test_fixed_point_higher_order_and_forward_mode():
    def sqrt(a):
        return fixed_point(newton_sqrt, a, 1.0, max_distance, 1e-14)

    assert math.isclose(float(deriv(sqrt)(4.0)), 0.25, rel_tol=1e-10)
    assert math.isclose(float(grad(grad(sqrt))(4.0)), -0.25 * 4.0**-1.5, rel_tol=1e-8)


def test_fixed_point_of_a_cos_against_finite_differences_and_closed_form():
    def solve(a):
        return fixed_point(lambda a: lambda x: a * np.cos(x), a, 0.0, max_distance, 1e-14)

    a = 0.5
    x = float(solve(a))
    assert math.isclose(x, a * math.cos(x), rel_tol=1e-12)
    assert math.isclose(float(grad(solve)(a)), math.cos(x) / (1.0 + a * math.sin(x)), rel_tol=1e-10)
    check_grads(solve, modes=("fwd", "rev"), order=2)(numpy.array([0.3, 0.6]))


# ---- const_graph ----


def test_const_graph_values_and_gradients(backend):
    calls = []

    def f(x, scale):
        calls.append(1)
        y = x
        for _ in range(3):
            y = np.tanh(y) * scale
        return np.sum(y**2)

    cached = const_graph(f)
    for data in ([0.5, -1.0], [2.0, 0.1], [0.0, 3.0]):
        x, scale = backend.asarray(data), backend.asarray(1.5)
        numpy.testing.assert_allclose(backend.to_numpy(cached(x, scale)), backend.to_numpy(f(x, scale)), rtol=1e-14)
        g = grad(cached)(x, scale)
        backend.check_device(g)
        numpy.testing.assert_allclose(backend.to_numpy(g), backend.to_numpy(grad(f)(x, scale)), rtol=1e-14)
    assert len(calls) == 1 + 3 * 2  # traced once; the other calls are the direct f and grad(f) for comparison


def test_const_graph_bound_arguments_and_gradient_on_first_call():
    cached = const_graph(lambda scale, x: np.sum(np.sin(x) * scale), 2.0)
    x = numpy.array([0.1, 0.2])
    numpy.testing.assert_allclose(grad(cached)(x), 2.0 * numpy.cos(x), rtol=1e-14)
    numpy.testing.assert_allclose(cached(x + 1.0), numpy.sum(2.0 * numpy.sin(x + 1.0)), rtol=1e-14)


def test_const_graph_needs_a_dependent_output():
    with pytest.raises(ValueError, match="const_graph: the output of <lambda> does not depend on its arguments"):
        const_graph(lambda x: 1.0)(numpy.ones(2))


def test_module_paths_mirror_autograd():
    import adcore.misc.fixed_points
    import adcore.misc.flatten
    import adcore.misc.tracers

    assert adcore.misc.flatten is flatten and adcore.misc.const_graph is const_graph
    assert adcore.misc.fixed_points.fixed_point is fixed_point and adcore.misc.tracers.const_graph is const_graph
    assert {"sgd", "rmsprop", "adam"} <= set(optimizers.__all__)

"""Property-based tests: the derivatives of the spec table's functions at shapes, dtypes, broadcasting
pairs, axes and ``keepdims`` drawn by hypothesis.

For each drawn case:

- the VJP and the JVP agree: ``<u, J v> == <J^T u, v>`` for random ``u`` and ``v``, both computed by
  adcore (``make_vjp`` and ``make_jvp``) in the input's dtype;
- both match central finite differences (``adcore.test_util.check_grads``, order 1, both modes;
  it also checks that each derivative has the dtype, backend and device of its space);
- the value has the input's dtype (float32 stays float32), backend and device.

The functions are those of the spec table ``test_numpy_rules.SPECS`` marked ``elementwise`` (any
shape for one argument, any broadcasting pair for two; each argument drawn from its domain), and
the reductions below with any ``axis`` and ``keepdims``.

Functions returning a tuple, list or dict of 1 to 3 drawn items (arrays, 0-d arrays, containers)
go through every operator of ``adcore.operators.__all__``: each either differentiates them, checked
against the finite-difference Jacobian of the flattened output (``J^T u``, ``J v``, ``J^T J v``),
or raises a ``TypeError`` naming itself and the function (the operators that need a scalar or an array).

Profiles: ``ci`` (the default: few examples, derandomised, the file runs in well under a minute
on numpy and array-api-strict), ``full`` (that of the full run, ``pytest --full``: more examples,
derandomised) and ``long`` (many examples, random)::

    HYPOTHESIS_PROFILE=long python -m pytest tests/test_properties.py
"""

import dataclasses
import os

import numpy
import pytest
from conftest import TEST_BACKENDS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, mutually_broadcastable_shapes
from test_numpy_rules import SPECS

import adcore.numpy as np
from adcore import make_jvp, make_vjp, operators
from adcore.builtins import isinstance as ad_isinstance
from adcore.core import vspace
from adcore.test_util import TOLERANCES, check_grads
from specs import R, Spec, inputs

_COMMON = {"deadline": None, "suppress_health_check": [HealthCheck.function_scoped_fixture, HealthCheck.too_slow]}
settings.register_profile("ci", max_examples=4, derandomize=True, **_COMMON)
settings.register_profile("full", max_examples=25, derandomize=True, **_COMMON)
settings.register_profile("long", max_examples=200, **_COMMON)
#: applied to each test here (not loaded globally, which would change the other files' hypothesis tests)
PROFILE = settings(settings.get_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci")))

SEEDS = st.integers(0, 2**16)  # of the random inputs, drawn from each argument's domain
#: functions whose value is float64 for float32 inputs by definition (NumPy's float_power computes in float64 at least)
PROMOTE_TO_FLOAT64 = {np.float_power}
PROPERTY_BACKENDS = [case for case in TEST_BACKENDS if case.name in ("numpy", "array_api_strict")]
on_backends = pytest.mark.parametrize("backend", PROPERTY_BACKENDS, ids=lambda case: case.id, indirect=True)


def _unique_functions(specs):
    """One spec per function and dtype set (the table lists each at several shapes), by a unique name."""
    unique = {}
    for spec in specs:
        if any(seen.fun is spec.fun and seen.dtypes == spec.dtypes for seen in unique.values()):
            continue
        kind = "float" if spec.dtypes[0].startswith("float") else "complex"
        name = f"{getattr(spec.fun, '__name__', 'f').strip('<>')}-{kind}"
        while name in unique:
            name += "'"
        unique[name] = spec
    return unique


ELEMENTWISE = _unique_functions(s for s in SPECS if s.elementwise and len(s.shapes) == 1)
BROADCASTING = _unique_functions(s for s in SPECS if s.elementwise and len(s.shapes) == 2)

#: reductions taking ``axis`` (None, an int or a tuple) and ``keepdims``
REDUCTIONS = {
    "sum": np.sum,
    "mean": np.mean,
    "prod": np.prod,
    "max": np.max,
    "min": np.min,
    "var": np.var,
    "std": np.std,
    "nansum": np.nansum,
    "logsumexp": lambda x, axis, keepdims: np.log(np.sum(np.exp(x), axis=axis, keepdims=keepdims)),
}


def _precision(dtype):
    return "float32" if str(dtype).split(".")[-1] in ("float32", "complex64") else "float64"


def check_properties(spec, args, backend):
    """The three properties of this file, for each argument of ``spec.fun`` in turn."""
    rng = numpy.random.default_rng(0)
    for argnum, x in enumerate(args):
        vjp, value = make_vjp(spec.fun, argnum)(*args)
        backend.check_device(value)
        if spec.fun not in PROMOTE_TO_FLOAT64:
            precision = _precision(getattr(value, "dtype", "float64"))
            assert precision == _precision(x.dtype), f"{spec.name}: value of dtype {value.dtype} for an input of {x.dtype}"
        if vspace(value).size == 0 or vspace(x).size == 0:
            continue
        u, v = vspace(value).randn(rng), vspace(x).randn(rng)
        _, jv = make_jvp(spec.fun, argnum)(*args)(v)
        jtu = vjp(vspace(value).covector(u))
        left = float(backend.to_numpy(vspace(value).inner_prod(u, jv)))
        right = float(backend.to_numpy(vspace(x).inner_prod(vspace(x).covector(jtu), v)))
        tolerance = TOLERANCES[_precision(x.dtype)]
        numpy.testing.assert_allclose(left, right, **tolerance, err_msg=f"{spec.name}: <u, J v> != <J^T u, v>")
        check_grads(spec.fun, argnum, modes=("fwd", "rev"), order=1)(*args)


def _skip_if_listed(spec, backend):
    if backend.name in spec.skip:
        pytest.skip(f"{spec.name} on {backend.name}: {spec.skip[backend.name]}")


@on_backends
@pytest.mark.parametrize("name", ELEMENTWISE)
@PROFILE
@given(shape=array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3), seed=SEEDS, data=st.data())
def test_elementwise_at_any_shape(backend, name, shape, seed, data):
    spec = ELEMENTWISE[name]
    _skip_if_listed(spec, backend)
    dtype = data.draw(st.sampled_from(spec.dtypes), label="dtype")
    drawn = dataclasses.replace(spec, name=f"{name}{shape}", shapes=(shape,))
    check_properties(drawn, inputs(backend, drawn, dtype, seed), backend)


@on_backends
@pytest.mark.parametrize("name", BROADCASTING)
@PROFILE
@given(
    shapes=mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, min_side=0, max_side=3),
    seed=SEEDS,
    data=st.data(),
)
def test_binary_at_any_broadcasting_pair(backend, name, shapes, seed, data):
    spec = BROADCASTING[name]
    _skip_if_listed(spec, backend)
    dtype = data.draw(st.sampled_from(spec.dtypes), label="dtype")
    drawn = dataclasses.replace(spec, name=f"{name}{shapes.input_shapes}", shapes=shapes.input_shapes)
    check_properties(drawn, inputs(backend, drawn, dtype, seed), backend)


@st.composite
def axes_of(draw, ndim):
    """None, one axis (possibly negative) or a tuple of distinct axes of an array of ``ndim`` dimensions."""
    if ndim == 0:
        return None
    return draw(
        st.one_of(
            st.none(),
            st.integers(-ndim, ndim - 1),
            st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True).map(tuple),
        )
    )


@on_backends
@pytest.mark.parametrize("name", REDUCTIONS)
@PROFILE
@given(
    shape=array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3),
    keepdims=st.booleans(),
    seed=SEEDS,
    data=st.data(),
)
def test_reduction_over_any_axes(backend, name, shape, keepdims, seed, data):
    axis = data.draw(axes_of(len(shape)), label="axis")
    dtype = data.draw(st.sampled_from(["float64", "float32"]), label="dtype")
    reduction = REDUCTIONS[name]
    spec = Spec(
        f"{name}{shape}_axis{axis}_keepdims{keepdims}", lambda x: reduction(x, axis=axis, keepdims=keepdims), (shape,), (R,)
    )
    check_properties(spec, inputs(backend, spec, dtype, seed), backend)


def test_the_tables_are_drawn_from():
    assert len(ELEMENTWISE) >= 30 and len(BROADCASTING) >= 15
    assert {"exp-float", "log-float", "sqrt-complex"} <= set(ELEMENTWISE)


# ---- functions returning containers, through every operator ----

#: what an item of a drawn container is: an array, a 0-d array, or a container one level down
ITEMS = {
    "sin": lambda x: np.sin(x),
    "square": lambda x: x**2,
    "sum_of_cubes": lambda x: np.sum(x**3),
    "nested_list": lambda x: [np.cos(x) * x[0]],
    "nested_dict": lambda x: {"exp": np.exp(x / 4.0)},
}


@st.composite
def container_functions(draw):
    """``(description, f)``: ``f(x)`` returns a tuple, list or dict of 1 to 3 drawn items."""
    kind = draw(st.sampled_from(["tuple", "list", "dict"]), label="kind")
    names = draw(st.lists(st.sampled_from(sorted(ITEMS)), min_size=1, max_size=3), label="items")

    def f(x):
        items = [ITEMS[name](x) for name in names]
        if kind == "dict":
            return {f"{name}{i}": item for i, (name, item) in enumerate(zip(names, items))}
        return tuple(items) if kind == "tuple" else items

    return f"{kind}{names}", f


def _leaves_of(value):
    """The arrays of a (nested, possibly traced) container, in order."""
    if ad_isinstance(value, dict):
        return [leaf for key in value for leaf in _leaves_of(value[key])]
    if ad_isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in _leaves_of(item)]
    return [value]


def _flat(value):
    return numpy.concatenate([numpy.ravel(numpy.asarray(leaf)) for leaf in value])


def _unflatten_like(template, flat_values, backend):
    """A container shaped like ``template`` whose leaves take ``flat_values`` in order."""
    position = 0

    def rebuild(value):
        nonlocal position
        if isinstance(value, dict):
            return {key: rebuild(item) for key, item in value.items()}
        if isinstance(value, (tuple, list)):
            return type(value)(rebuild(item) for item in value)
        size = int(numpy.size(backend.to_numpy(value)))
        chunk = flat_values[position : position + size].reshape(numpy.shape(backend.to_numpy(value)))
        position += size
        return backend.asarray(chunk)

    return rebuild(template)


def _jacobian_by_differences(f, data, backend, eps=1e-6):
    """The Jacobian of the flattened output of ``f`` by central differences (float64)."""

    def flat_f(d):
        return _flat([backend.to_numpy(leaf) for leaf in _leaves_of(f(backend.asarray(d)))])

    columns = []
    for i in range(data.size):
        step = numpy.zeros(data.size)
        step[i] = eps
        columns.append((flat_f(data + step) - flat_f(data - step)) / (2 * eps))
    return numpy.stack(columns, axis=-1)


#: the operators that need a scalar or an array output: a container must be refused
MUST_REFUSE = {
    "grad",
    "value_and_grad",
    "grad_and_aux",
    "hessian",
    "hessian_tensor_product",
    "hessian_vector_product",
    "hvp",
    "make_hvp",
    "holomorphic_grad",
    "grad_named",
    "multigrad_dict",
    "elementwise_grad",
    "jacobian",
    "jacrev",
    "jacfwd",
    "tensor_jacobian_product",
    "vector_jacobian_product",
}


def _derivatives_through(name, f, x, u, v, backend):
    """What operator ``name`` computes for ``f`` at ``x`` (cotangent ``u``, tangent ``v``), as a flat
    vector to compare with the finite-difference Jacobian ``J``: ``J^T u`` or ``J v`` (see ``_expected``)."""

    def flat(value):
        return _flat([backend.to_numpy(leaf) for leaf in _leaves_of(value)])

    if name == "make_vjp":
        vjp, value = operators.make_vjp(f)(x)
        return flat(value), flat(vjp(u))
    if name == "vjp":
        value, pullback = operators.vjp(f, x)
        return flat(value), flat(pullback(u)[0])
    if name == "make_jvp":
        value, tangent = operators.make_jvp(f)(x)(v)
        return flat(value), flat(tangent)
    if name == "make_jvp_reversemode":  # the tangent only, as autograd's
        return None, flat(operators.make_jvp_reversemode(f)(x)(v))
    if name == "jvp":
        value, tangent = operators.jvp(f, (x,), (v,))
        return flat(value), flat(tangent)
    if name == "linearize":
        value, pushforward = operators.linearize(f, x)
        return flat(value), flat(pushforward(v))
    if name == "deriv":
        return None, flat(operators.deriv(f)(x))
    if name == "checkpoint":
        weights = [leaf * 0.0 + float(i + 1) for i, leaf in enumerate(_leaves_of(u))]

        def weighted(x):
            return sum(np.sum(np.multiply(w, leaf)) for w, leaf in zip(weights, _leaves_of(operators.checkpoint(f)(x))))

        return None, flat(operators.grad(weighted)(x))
    if name == "make_ggnvp":

        def half_squares(t):
            return 0.5 * sum(np.sum(leaf**2) for leaf in _leaves_of(t))

        return None, flat(operators.make_ggnvp(f, half_squares)(x)(v))
    raise AssertionError(f"{name} is neither refused nor checked")


def _expected(name, jacobian, flat_u, flat_v, u):
    """``J^T u``, ``J v``, ``J 1``, ``J^T w`` (checkpoint's weights) or ``J^T J v`` (Gauss-Newton)."""
    if name in ("make_vjp", "vjp"):
        return flat_u @ jacobian
    if name in ("make_jvp", "make_jvp_reversemode", "jvp", "linearize"):
        return jacobian @ flat_v
    if name == "deriv":
        return jacobian @ numpy.ones(jacobian.shape[1])
    if name == "checkpoint":
        weights = numpy.concatenate([numpy.full(int(numpy.size(numpy.asarray(leaf))), float(i + 1)) for i, leaf in enumerate(u)])
        return weights @ jacobian
    return jacobian.T @ (jacobian @ flat_v)


@on_backends
@pytest.mark.parametrize("name", operators.__all__)
@PROFILE
@given(drawn=container_functions(), size=st.integers(1, 3), seed=SEEDS)
def test_every_operator_differentiates_or_refuses_a_container_output(backend, name, drawn, size, seed):
    description, f = drawn
    rng = numpy.random.default_rng(seed)
    data = rng.uniform(-1.0, 1.0, size)
    x = backend.asarray(data)
    if name in MUST_REFUSE:
        with pytest.raises(TypeError, match=rf"^{getattr(operators, name).__name__}: .*{f.__name__}"):
            _refused_call(name, f, x)
        return
    value = f(x)
    leaves = [backend.to_numpy(leaf) for leaf in _leaves_of(value)]
    flat_u = rng.standard_normal(sum(numpy.size(leaf) for leaf in leaves))
    u = _unflatten_like(value, flat_u, backend)
    flat_v = rng.standard_normal(size)
    jacobian = _jacobian_by_differences(f, data, backend)
    got_value, got = _derivatives_through(name, f, x, u, backend.asarray(flat_v), backend)
    if got_value is not None:
        numpy.testing.assert_allclose(got_value, _flat(leaves), rtol=1e-14, err_msg=f"{name}: value of {description}")
    numpy.testing.assert_allclose(
        got,
        _expected(name, jacobian, flat_u, flat_v, [backend.to_numpy(leaf) for leaf in _leaves_of(u)]),
        rtol=1e-6,
        atol=1e-6,
        err_msg=f"{name} of {description}",
    )


def _refused_call(name, f, x):
    v = x * 0.0 + 1.0
    calls = {
        "grad_and_aux": lambda: operators.grad_and_aux(_paired_with_aux(f))(x),
        "hessian_tensor_product": lambda: operators.hessian_tensor_product(f)(x, v),
        "hessian_vector_product": lambda: operators.hessian_vector_product(f)(x, v),
        "hvp": lambda: operators.hvp(f)(x, v),
        "grad_named": lambda: operators.grad_named(f, "x")(x),
        "tensor_jacobian_product": lambda: operators.tensor_jacobian_product(f)(x, 1.0),
        "vector_jacobian_product": lambda: operators.vector_jacobian_product(f)(x, 1.0),
    }
    if name in calls:
        return calls[name]()
    return getattr(operators, name)(f)(x)


def _paired_with_aux(f):
    def paired(x):
        return f(x), "aux"

    paired.__name__ = f.__name__
    return paired

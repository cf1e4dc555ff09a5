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
from adcore import make_jvp, make_vjp
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

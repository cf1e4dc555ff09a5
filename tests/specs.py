"""The spec table machinery: one line per differentiable case, expanded over backends and dtypes.

A test module lists ``Spec`` lines and calls ``spec_tests(SPECS)``, which
returns two parametrised tests: derivatives against finite differences (both
modes, to ``spec.order``) for each dtype, and the traced value against NumPy
in float64 (complex128 for complex specs). Cases a backend cannot run are
listed in ``spec.skip`` (backend name -> reason), which becomes a skip marker.
"""

from dataclasses import dataclass, field

import numpy
import pytest

from adcore import make_vjp
from adcore.test_util import check_grads

R = (-2.0, 2.0)  # any real
P = (0.2, 2.0)  # positive, away from 0
U = (-0.8, 0.8)  # inside (-1, 1)

REAL = ("float64", "float32")

#: backends with SciPy's special functions (``scipy_module("special")``: SciPy, cupyx, which lacks ``jn``, ``iv`` and
#: ``ive``: see ``KNOWN_FAILURES["cupy"]``), and those without
SCIPY_BACKENDS = ("numpy", "cupy")
OTHER_BACKENDS = ("array_api_strict", "torch", "jax", "dask")
COMPLEX = ("complex128", "complex64")


@dataclass
class Spec:
    name: str
    fun: object
    shapes: tuple
    domains: tuple = (R, R, R, R)
    order: int = 2
    joint: bool = False  # differentiate w.r.t. all arguments at once (argnum a tuple), not one by one
    dtypes: tuple = REAL
    skip: dict = field(default_factory=dict)  # backend name -> why this case cannot run there
    elementwise: bool = False  # takes any shape (unary) or broadcasting pair (binary): tests/test_properties.py draws them


def unary(fun, domain=R, shapes=((), (3,), (2, 3)), **options):
    return [Spec(f"{fun.__name__}{shape}", fun, (shape,), (domain,), elementwise=True, **options) for shape in shapes]


BROADCAST_PAIRS = [((3,), (3,)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2,)), ((2, 3), ())]


def binary(fun, domains=(R, R), pairs=BROADCAST_PAIRS, **options):
    return [Spec(f"{fun.__name__}{a}{b}", fun, (a, b), domains, elementwise=True, **options) for a, b in pairs]


def cases(name, fun, shapes, domains=(R, R, R, R), **options):
    return [Spec(name, fun, shapes, domains, **options)]


def inputs(backend, spec, dtype, seed=0):
    """Random arguments of ``spec`` on ``backend``, drawn from its domains (complex: both parts)."""
    rng = numpy.random.default_rng(seed)
    args = []
    for shape, domain in zip(spec.shapes, spec.domains):
        data = rng.uniform(*domain, size=shape)
        if numpy.dtype(dtype).kind == "c":
            data = data + 1j * rng.uniform(*domain, size=shape)
        args.append(backend.asarray(data, dtype))
    return args


def _skip_if_listed(spec, backend):
    if backend.name in spec.skip:
        pytest.skip(f"{spec.name} on {backend.name}: {spec.skip[backend.name]}")


def spec_tests(specs):
    """``(test_derivatives, test_value_matches_numpy)`` parametrised over ``specs`` and their dtypes."""

    @pytest.mark.parametrize("spec, dtype", [pytest.param(s, d, id=f"{s.name}-{d}") for s in specs for d in s.dtypes])
    def test_derivatives(spec, dtype, backend):
        _skip_if_listed(spec, backend)
        args = inputs(backend, spec, dtype)
        for argnum in [tuple(range(len(args)))] if spec.joint else range(len(args)):
            check_grads(spec.fun, argnum, modes=("fwd", "rev"), order=spec.order)(*args)

    @pytest.mark.parametrize("spec", specs, ids=lambda s: s.name)
    def test_value_matches_numpy(spec, backend):
        """The value computed while tracing equals NumPy's, on the input's backend and device."""
        _skip_if_listed(spec, backend)
        args = inputs(backend, spec, spec.dtypes[0])
        expected = spec.fun(*[backend.to_numpy(a) for a in args])
        _, result = make_vjp(spec.fun)(*args)
        backend.check_device(result)
        numpy.testing.assert_allclose(backend.to_numpy(result), expected, rtol=1e-12, atol=1e-12)

    return test_derivatives, test_value_matches_numpy

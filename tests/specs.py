"""The spec table machinery: one line per differentiable case, expanded over backends and dtypes.

A test module lists ``Spec`` lines and calls ``spec_tests(SPECS)``, which
returns two parametrised tests: derivatives against finite differences (both
modes, to ``spec.order``) for each dtype, and the traced value against NumPy
in float64 (complex128 for complex specs). Cases a backend cannot run are
listed in ``spec.skip`` (backend name -> reason), which becomes a skip marker.

The full run (``pytest --full``) checks every shape of a line (``unary`` and
``binary`` give one line several shapes), every dtype and the line's order on
every backend. The default run samples that grid so that every line is still
checked on every backend (``conftest.in_default_run``): one shape and one dtype
per line and backend, rotating with the line and the backend so that together
they cover the shapes and dtypes; on numpy in the first dtype (float64 or
complex128, the tightest tolerance) at the line's order, elsewhere at order 1
(the rules of rules are the same code on every backend; order 2 costs 5 to 8
times order 1, most of all on Dask).
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
    variant: tuple = (0, 1)  # (index, count) of this spec's shapes among those its line expands to (unary, binary)
    full_only: tuple = ()  # backends that check its derivatives only in the full run (--full): too slow for the default run


def unary(fun, domain=R, shapes=((), (3,), (2, 3)), **options):
    return [
        Spec(f"{fun.__name__}{shape}", fun, (shape,), (domain,), elementwise=True, variant=(i, len(shapes)), **options)
        for i, shape in enumerate(shapes)
    ]


BROADCAST_PAIRS = [((3,), (3,)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2,)), ((2, 3), ())]


def binary(fun, domains=(R, R), pairs=BROADCAST_PAIRS, **options):
    return [
        Spec(f"{fun.__name__}{a}{b}", fun, (a, b), domains, elementwise=True, variant=(i, len(pairs)), **options)
        for i, (a, b) in enumerate(pairs)
    ]


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


def grid_position(specs):
    """``spec -> (line, shape, shapes)``: the index of each spec's line in ``specs`` and of its shape among the line's."""
    positions, line = {}, -1
    for spec in specs:
        index, count = spec.variant
        line += index == 0
        positions[id(spec)] = (line, index, count)
    return positions


def spec_tests(specs):
    """``(test_derivatives, test_value_matches_numpy)`` parametrised over ``specs`` and their dtypes.

    Each case carries its place in the grid (``pytest.mark.grid``: line, shape and dtype, each as an
    index and a count), from which ``conftest`` picks the default run's sample.
    """
    positions = grid_position(specs)

    def grid(spec, dtype_index, dtypes):
        line, shape, shapes = positions[id(spec)]
        return pytest.mark.grid(line=line, shape=(shape, shapes), dtype=(dtype_index, dtypes))

    def derivative_marks(spec, dtype_index):
        full = [pytest.mark.full(*spec.full_only)] if spec.full_only else []
        return [grid(spec, dtype_index, len(spec.dtypes)), *full]

    @pytest.mark.parametrize(
        "spec, dtype",
        [pytest.param(s, d, id=f"{s.name}-{d}", marks=derivative_marks(s, i)) for s in specs for i, d in enumerate(s.dtypes)],
    )
    def test_derivatives(spec, dtype, backend, full_run):
        _skip_if_listed(spec, backend)
        args = inputs(backend, spec, dtype)
        order = spec.order if full_run or backend.name == "numpy" else min(spec.order, 1)
        for argnum in [tuple(range(len(args)))] if spec.joint else range(len(args)):
            check_grads(spec.fun, argnum, modes=("fwd", "rev"), order=order)(*args)

    @pytest.mark.parametrize("spec", [pytest.param(s, id=s.name, marks=grid(s, 0, 1)) for s in specs])
    def test_value_matches_numpy(spec, backend):
        """The value computed while tracing equals NumPy's, on the input's backend and device."""
        _skip_if_listed(spec, backend)
        args = inputs(backend, spec, spec.dtypes[0])
        expected = spec.fun(*[backend.to_numpy(a) for a in args])
        _, result = make_vjp(spec.fun)(*args)
        backend.check_device(result)
        numpy.testing.assert_allclose(backend.to_numpy(result), expected, rtol=1e-12, atol=1e-12)

    return test_derivatives, test_value_matches_numpy

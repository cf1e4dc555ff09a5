"""The spec table machinery: one line per differentiable case, expanded over backends and dtypes.

A test module lists ``Spec`` lines and calls ``spec_tests(SPECS)``, which
returns two parametrised tests: derivatives against finite differences (both
modes, to ``spec.order``) for each dtype, and the traced value against NumPy
in float64 (complex128 for complex specs). Cases a backend cannot run are
listed in ``spec.skip`` (backend name -> reason), which becomes a skip marker.

The full run (``pytest --full``) checks every shape of a line (``unary`` and
``binary`` give one line several shapes), every dtype and the line's order on
every backend. The default run samples that grid so that every line is still
checked on every backend (``conftest.in_default_run``) but Dask and the second
strict device, which keep every fourth and every second case
(``BackendCase.sample``): one shape and one dtype
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


# ---- accuracy of elementwise derivatives against mpmath ----

#: the largest relative error of a derivative where its true value is a normal float of the dtype
ACCURACY = {"float64": 1e-10, "float32": 1e-4}


@dataclass(frozen=True)
class Loose:
    """An exception to ``ACCURACY``: relative error up to ``rtol``, or absolute error up to ``atol``, at
    the points ``where(*args)`` selects (all points when None), in ``dtypes``, on ``backends`` (all when
    None), for ``reason``."""

    reason: str
    rtol: float = 0.0
    atol: float = 0.0
    dtypes: tuple = REAL
    backends: tuple | None = None
    where: object = None


@dataclass
class Accurate:
    """One partial derivative of an elementwise function at chosen points, against mpmath at 50 digits.

    ``fun`` takes one array per argument; ``exact(*args)`` is the partial derivative in argument ``argnum``
    at mpmath numbers (the float inputs, exactly); ``points`` holds one float (unary) or one tuple of floats
    (one per argument) per point, given in float64 and rounded to each dtype, the rounded value being the
    input. Points where ``exact`` is undefined once rounded (a pole reached by rounding) are left out.
    """

    name: str
    fun: object
    exact: object
    points: tuple
    argnum: int = 0
    exceptions: tuple = ()
    skip: dict = field(default_factory=dict)  # backend name -> why this function cannot run there


def accurate(name, fun, exacts, points, **options):
    """One ``Accurate`` line per argument of ``fun`` whose partial ``exacts[argnum]`` is given (not None)."""
    suffix = len(exacts) > 1
    return [
        Accurate(f"{name}[{'xyzw'[argnum]}]" if suffix else name, fun, exact, points, argnum, **options)
        for argnum, exact in enumerate(exacts)
        if exact is not None
    ]


_exact_cache = {}


def _arguments(spec, dtype):
    """The points of ``spec`` as one NumPy array per argument, rounded to ``dtype``."""
    rows = [p if isinstance(p, tuple) else (p,) for p in spec.points]
    return [numpy.asarray(column, dtype=dtype) for column in zip(*rows)]


def exact_derivatives(spec, dtype):
    """``(kept, expected)``: which points have an exact derivative in ``dtype`` (a mask), and those
    derivatives as mpmath numbers, computed once per line and dtype."""
    key = (spec.name, dtype)
    if key not in _exact_cache:
        import mpmath

        kept, expected = [], []
        with mpmath.workdps(50):
            for point in zip(*_arguments(spec, dtype)):
                try:
                    value = spec.exact(*(mpmath.mpf(float(a)) for a in point))
                except (ZeroDivisionError, ValueError):
                    value = None
                ok = isinstance(value, mpmath.mpf) and not mpmath.isnan(value)
                kept.append(ok)
                if ok:
                    expected.append(value)
        _exact_cache[key] = numpy.asarray(kept), expected
    return _exact_cache[key]


def computed_derivative(spec, backend, dtype, mode):
    """The partial derivative at ``spec.points`` by adcore, in reverse (``elementwise_grad``) or
    forward (``make_jvp`` along ones) mode, on ``backend``, as a NumPy array of ``dtype``."""
    from adcore import elementwise_grad, make_jvp

    args = [backend.asarray(a, dtype) for a in _arguments(spec, dtype)]
    if mode == "rev":
        result = elementwise_grad(spec.fun, spec.argnum)(*args)
    else:

        def of_one(x):
            return spec.fun(*args[: spec.argnum], x, *args[spec.argnum + 1 :])

        ones = backend.asarray(numpy.ones(len(spec.points)), dtype)
        value, result = make_jvp(of_one)(args[spec.argnum])(ones)
        dtype = backend.to_numpy(value).dtype  # a tangent is in the output's space (float_power's is float64)
    backend.check_device(result)
    result = backend.to_numpy(result)
    assert result.dtype == dtype, f"{spec.name} ({mode}): a {dtype} derivative was expected, not {result.dtype}"
    return result


@dataclass
class Errors:
    """The derivative of one line at its kept points, in one dtype and mode, against mpmath."""

    points: list  # one array of inputs per argument
    computed: numpy.ndarray
    expected: numpy.ndarray  # mpmath's values, rounded to float64
    error: numpy.ndarray  # the relative error, or 0 / inf out of the dtype's normal range (see accuracy_errors)
    ok: numpy.ndarray  # within ACCURACY or the line's exceptions


def accuracy_errors(spec, backend, dtype, mode):
    """The ``Errors`` of ``spec``: the relative error where the exact derivative is a normal float of
    ``dtype``; elsewhere 0 if adcore's value is right for a value out of that range (0 or a subnormal
    for an underflow, the infinity of the right sign for an overflow) and inf if not (NaN, a wrong
    sign, a normal number)."""
    import mpmath

    kept, expected = exact_derivatives(spec, dtype)
    computed = computed_derivative(spec, backend, dtype, mode)[kept].astype(numpy.float64)
    info = numpy.finfo(dtype)
    tiny, huge = mpmath.mpf(float(info.tiny)), mpmath.mpf(float(info.max))
    error, absolute = numpy.empty(len(expected)), numpy.full(len(expected), numpy.inf)
    for i, (c, e) in enumerate(zip(computed, expected)):
        if abs(e) > huge:
            error[i] = 0.0 if abs(c) >= float(info.max) * (1 - ACCURACY[dtype]) and c * e > 0 else numpy.inf
        elif abs(e) < tiny:
            error[i] = 0.0 if abs(c) <= float(info.tiny) else numpy.inf
        elif numpy.isfinite(c):
            absolute[i] = float(abs(mpmath.mpf(float(c)) - e))
            error[i] = float(absolute[i] / abs(e))
        else:
            error[i] = numpy.inf
    points = [a[kept] for a in _arguments(spec, dtype)]
    ok = error <= ACCURACY[dtype]
    for loose in spec.exceptions:
        if dtype in loose.dtypes and (loose.backends is None or backend.name in loose.backends):
            where = numpy.ones(len(expected), bool) if loose.where is None else loose.where(*points)
            ok |= where & ((error <= loose.rtol) | (absolute <= loose.atol))
    return Errors(points, computed, numpy.asarray([float(e) for e in expected]), error, ok)


def accuracy_tests(specs):
    """A test parametrised over ``specs`` and the dtypes: the derivative in both modes is within
    ``ACCURACY`` (or the line's exceptions) of mpmath's at every kept point."""

    @pytest.mark.parametrize("spec, dtype", [pytest.param(s, d, id=f"{s.name}-{d}") for s in specs for d in REAL])
    def test_derivative_accuracy(spec, dtype, backend):
        _skip_if_listed(spec, backend)
        for mode in ("rev", "fwd"):
            e = accuracy_errors(spec, backend, dtype, mode)
            assert e.ok.all(), (
                f"{spec.name} ({mode}, {dtype}, {backend.id}): relative error above {ACCURACY[dtype]:g} at "
                + ", ".join(
                    f"{tuple(float(a[i]) for a in e.points)}: {e.computed[i]!r} for {e.expected[i]!r} (error {e.error[i]:.2g})"
                    for i in numpy.flatnonzero(~e.ok)[:8]
                )
            )

    return test_derivative_accuracy

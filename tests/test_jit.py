"""``adcore.jit``: a replay equals the eager computation, and what cannot be recorded is refused.

- The whole spec table (every module's ``SPECS``): the value, a VJP and a JVP of each line are
  recorded at one input and replayed at another, on every backend, and equal the eager ones there
  bit for bit (the arrays are small: nothing is fused).
- Programs in autograd's style (``test_autograd_programs``) and the benchmarks' workloads, replayed
  step after step, follow the eager trajectory exactly; with large arrays (fused by numexpr) to
  float64 rounding.
- A property test draws random chains of the spec table's elementwise functions.
- Each refusal (a traced value used by Python, a shape depending on values, random numbers) names
  the line of the user's function, and ``on_refusal="eager"`` runs it eagerly instead.
"""

import ast
import math
import re
import sys
import zlib
from functools import partial
from operator import index as operator_index

import numpy
import pytest
import test_array_api
import test_einsum
import test_fft
import test_linalg
import test_numpy_rules
import test_scipy_linalg
import test_scipy_signal_integrate
import test_scipy_special
import test_scipy_stats
import test_selection
from hypothesis import given
from hypothesis import strategies as st
from test_autograd_programs import gaussian_process_log_marginal_likelihood
from test_properties import BROADCASTING, ELEMENTWISE, PROFILE, PROPERTY_BACKENDS

import adcore
import adcore.numpy as np
from adcore import JitError, grad, hessian_vector_product, jacrev, jit, make_jvp, make_vjp, value_and_grad
from adcore.core import vspace
from specs import inputs

jit_module = sys.modules["adcore.jit"]

SPEC_TABLES = {
    "numpy_rules": test_numpy_rules.SPECS,
    "linalg": test_linalg.SPECS,
    "fft": test_fft.SPECS,
    "einsum": test_einsum.CASES,
    "array_api": test_array_api.SPECS,
    "scipy_linalg": test_scipy_linalg.SPECS,
    "scipy_signal_integrate": test_scipy_signal_integrate.SPECS,
    "scipy_special": test_scipy_special.SPECS,
    "scipy_stats": test_scipy_stats.SPECS,
    "selection": test_selection.SPECS,
}
#: every line on every backend in the full run; in the default run each line on every third backend (``spread``),
#: which ones fixed by the line's name (a checksum), so that a line added to a table moves no other line's backends
SPECS = [
    pytest.param(spec, id=f"{table}-{spec.name}", marks=pytest.mark.spread(line=zlib.crc32(f"{table}-{spec.name}".encode())))
    for table, specs in SPEC_TABLES.items()
    for spec in specs
]

#: Spec lines whose course depends on values: jit refuses them, saying why.
SHAPE = "a shape that depends on traced values"
RANK = "_rank gives a Python int computed from traced values"  # lstsq's residuals exist only at full rank
REFUSED = {"where_one_argument": SHAPE, "getitem_mask": SHAPE, **{f"lstsq_{case}": RANK for case in ("vector", "matrix")}}
REFUSED.update({f"lstsq_{case}": RANK for case in ("min_norm", "residuals", "singular_values")})


def assert_same(replayed, eager, backend, exact=True):
    """Equal leaves (arrays, scalars, nested tuples), on ``backend`` and its device: bit for bit if ``exact``."""
    if isinstance(eager, (tuple, list)):
        assert type(replayed) is type(eager) and len(replayed) == len(eager)
        for r, e in zip(replayed, eager):
            assert_same(r, e, backend, exact)
        return
    assert type(replayed) is type(eager), f"{type(replayed)} replayed, {type(eager)} eager"
    if hasattr(eager, "shape") and backend is not None:
        backend.check_device(replayed)
    replayed, eager = numpy.asarray(_host(replayed, backend)), numpy.asarray(_host(eager, backend))
    assert replayed.dtype == eager.dtype and replayed.shape == eager.shape
    if exact:
        assert numpy.array_equal(replayed, eager, equal_nan=True), f"max difference {numpy.nanmax(abs(replayed - eager))}"
    else:  # fused: float64 rounding, relative to the largest entry (cancellation makes small ones differ more)
        numpy.testing.assert_allclose(replayed, eager, rtol=1e-12, atol=1e-12 * numpy.nanmax(abs(eager), initial=0.0))


def _host(value, backend):
    return backend.to_numpy(value) if backend is not None and hasattr(value, "shape") else value


def reverse(fun, argnum):
    """``(args, g) -> (fun(*args), the cotangent of argument argnum for g)``."""

    def value_and_vjp(args, g):
        vjp, ans = make_vjp(fun, argnum)(*args)
        return ans, vjp(g)

    return value_and_vjp


def forward(fun, argnum):
    """``(args, v) -> (fun(*args), the tangent of the output along v)``."""

    def value_and_jvp(args, v):
        return make_jvp(fun, argnum)(*args)(v)

    return value_and_jvp


def spaces(spec, args, argnum, seed):
    """A random cotangent of ``spec.fun(*args)`` and tangent of argument ``argnum``, on their backend."""
    rng = numpy.random.default_rng(seed)
    x = tuple(args[i] for i in argnum) if isinstance(argnum, tuple) else args[argnum]
    value = make_vjp(spec.fun, tuple(range(len(args))))(*args)[1]
    return vspace(value).randn(rng), vspace(x).randn(rng)


@pytest.mark.parametrize("spec", SPECS)
def test_replay_equals_eager_on_the_spec_table(spec, backend):
    """Recorded at one input, replayed at another: value, VJP and JVP equal the eager ones there, bit for bit."""
    if backend.name in spec.skip:
        pytest.skip(f"{spec.name} on {backend.name}: {spec.skip[backend.name]}")
    dtype = spec.dtypes[0]
    first, second = inputs(backend, spec, dtype, seed=0), inputs(backend, spec, dtype, seed=1)
    if spec.name in REFUSED:
        with pytest.raises(JitError, match=REFUSED[spec.name]):
            jit(spec.fun)(*first)
        return
    try:
        expected = make_vjp(spec.fun, tuple(range(len(second))))(*second)[1]
    except Exception as error:  # what this backend cannot do eagerly (KNOWN_FAILURES), jit cannot either
        with pytest.raises(type(error)):
            jit(spec.fun)(*first)
        return
    value = jit(spec.fun)
    value(*first)
    assert_same(value(*second), expected, backend)
    for argnum in [tuple(range(len(first)))] if spec.joint else range(len(first)):
        g0, v0 = spaces(spec, first, argnum, 0)
        g1, v1 = spaces(spec, second, argnum, 1)
        for operator, direction in ((reverse, (g0, g1)), (forward, (v0, v1))):
            eager = operator(spec.fun, argnum)
            try:
                expected = eager(second, direction[1])
            except Exception as error:  # what this backend cannot do eagerly, jit cannot either
                with pytest.raises(type(error)):
                    jit(eager)(first, direction[0])
                continue
            jitted = jit(eager)
            jitted(first, direction[0])
            assert_same(jitted(second, direction[1]), expected, backend)
            assert len(jitted.programs) == 1


QUANTILE_CALLS = {
    "weighted": lambda a, w, q: np.quantile(a, q, axis=1, method="inverted_cdf", weights=w),
    "weighted_nan": lambda a, w, q: np.nanpercentile(a, 100.0 * q, axis=(1, 0), method="inverted_cdf", weights=w.T),
    "traced_q": lambda a, w, q: np.quantile(a * w, q, axis=-1, method="interpolated_inverted_cdf", keepdims=True),
    "nan_traced_q": lambda a, w, q: np.nanquantile(np.where(w > 0.7, np.nan, a), q, axis=0, method="hazen"),
}


@pytest.mark.parametrize("call", QUANTILE_CALLS)
def test_a_replay_selects_by_the_new_values(call, backend):
    """What a quantile selects depends on the values (the sort order, which weights and positions
    count, where the NaNs are): a replay computes it again from the new arguments, the weights and
    ``q`` traced too, instead of selecting the recorded entries."""
    rng = numpy.random.default_rng(7)

    def arguments():
        return (backend.asarray(rng.standard_normal((3, 5))), backend.asarray(rng.random((3, 5))), backend.asarray(rng.random(2)))

    jitted = jit(QUANTILE_CALLS[call])
    jitted(*arguments())
    for _ in range(3):
        args = arguments()
        assert_same(jitted(*args), QUANTILE_CALLS[call](*args), backend)
    assert len(jitted.programs) == 1


# ---- programs in autograd's style, and the benchmarks' workloads ----


def test_logistic_regression_trained_by_a_jitted_gradient_follows_the_eager_trajectory():
    def training_loss(weights, inputs, targets):
        preds = 0.5 * (np.tanh(np.dot(inputs, weights) / 2.0) + 1)
        label_probabilities = preds * targets + (1 - preds) * (1 - targets)
        return -np.sum(np.log(label_probabilities))

    inputs = np.array([[0.52, 1.12, 0.77], [0.88, -1.08, 0.15], [0.52, 0.06, -1.30], [0.74, -2.49, 1.39]])
    targets = np.array([1.0, 1.0, 0.0, 1.0])
    eager, jitted = grad(training_loss), grad(training_loss, jit=True)
    w_eager = w_jit = np.array([0.0, 0.0, 0.0])
    for _ in range(50):
        w_eager = w_eager - 0.01 * eager(w_eager, inputs, targets)
        w_jit = w_jit - 0.01 * jitted(w_jit, inputs, targets)
    assert numpy.array_equal(w_eager, w_jit)
    assert len(jitted.programs) == 1


def test_neural_network_parameters_as_a_list_of_tuples():
    rng = numpy.random.RandomState(0)
    inputs = rng.randn(64, 2)
    targets = (inputs[:, :1] * inputs[:, 1:] > 0).astype(float)
    params = [(0.5 * rng.randn(m, n), 0.5 * rng.randn(n)) for m, n in ((2, 16), (16, 1))]

    def objective(params):
        x = inputs
        for W, b in params:
            outputs = np.dot(x, W) + b
            x = np.tanh(outputs)
        return np.mean(np.logaddexp(0.0, outputs) - targets * outputs)

    step = jit(lambda p: [(W - 0.05 * gW, b - 0.05 * gb) for (W, b), (gW, gb) in zip(p, grad(objective)(p))])
    eager_params = jit_params = params
    for _ in range(20):
        eager_params = [(W - 0.05 * gW, b - 0.05 * gb) for (W, b), (gW, gb) in zip(eager_params, grad(objective)(eager_params))]
        jit_params = step(jit_params)
    assert_same(jit_params, eager_params, None)


def test_gaussian_process_value_and_gradient():
    log_marginal_likelihood = gaussian_process_log_marginal_likelihood()
    eager, jitted = value_and_grad(log_marginal_likelihood), value_and_grad(log_marginal_likelihood, jit=True)
    p_eager = p_jit = np.array([0.0, 0.0, -2.0])
    for _ in range(20):
        value, gradient = eager(p_eager)
        replayed_value, replayed_gradient = jitted(p_jit)
        assert numpy.array_equal(value, replayed_value) and numpy.array_equal(gradient, replayed_gradient)
        p_eager, p_jit = p_eager + 0.01 * gradient, p_jit + 0.01 * replayed_gradient


def test_newtons_method_with_jitted_hessian_vector_products():
    def rosenbrock(x):
        return 100.0 * (x[1] - x[0] ** 2) ** 2 + (1.0 - x[0]) ** 2

    hvp = hessian_vector_product(rosenbrock, jit=True)
    x = np.array([-1.2, 1.0])
    for _ in range(30):
        hessian = np.stack([hvp(x, e) for e in np.eye(2)], axis=1)
        x = x - np.linalg.solve(hessian, grad(rosenbrock, jit=True)(x))
    numpy.testing.assert_allclose(x, [1.0, 1.0], rtol=1e-10)


def test_hessian_vector_product_does_not_compute_the_gradient_it_discards():
    A = numpy.random.default_rng(0).standard_normal((5, 5))

    def energy(x):
        return np.sum(np.tanh(np.matmul(A, x)) ** 2)

    x, v = numpy.ones(5), numpy.arange(5.0)
    jitted = hessian_vector_product(energy, jit=True)
    assert_same(jitted(x, v), hessian_vector_product(energy)(x, v), None)
    program = next(iter(jitted.programs.values()))
    products = called(program).count("matmul")
    assert products == 3, program.source  # A @ x, A @ v, and A.T @ (...); not the gradient's A.T @ (...)


def called(program):
    """The names of the functions a program calls, in the order it calls them (a call's arguments first)."""
    names = []

    def visit(node):
        for child in ast.iter_child_nodes(node):
            visit(child)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and re.fullmatch(r"F\d+", node.func.id):
            names.append(node.func.id)

    visit(ast.parse(program.source))
    return [getattr(program.__globals__[name], "__name__", name) for name in names]


@pytest.mark.parametrize("backend_name", ["numpy", "array_api_strict", "torch", "dask"])
def test_benchmark_workloads_replay_as_eager(backend_name):
    """The derivatives of ``python -m benchmarks`` (small sizes), through their jit contender."""
    from benchmarks import curvature, elementwise, mlp, overhead
    from benchmarks.peers import tree_map

    if backend_name == "torch":
        pytest.importorskip("torch")
    backend = pytest.importorskip("backends").get_backend(backend_name) if backend_name != "numpy" else None
    put = (lambda a: backend.from_numpy(numpy.asarray(a))) if backend else numpy.asarray
    rng = numpy.random.default_rng(0)
    params = tree_map(put, mlp.init_params((6, 5, 3), rng))
    x, y = put(rng.uniform(0, 1, (4, 6))), put(mlp.one_hot(rng.integers(0, 3, 4), 3))
    A = put(curvature.layer_inputs(4, seed=1)[0])
    cases = [
        (grad(partial(overhead.chain, steps=20)), (0.5,)),
        (grad(partial(overhead.chain_sum, steps=20)), (put(numpy.linspace(0.1, 0.9, 10)),)),
        (grad(mlp.loss), (params, x, y)),
        (grad(elementwise.damped_square), (put(rng.standard_normal(100)),)),
        (hessian_vector_product(partial(curvature.tanh_energy, A=A)), (put(numpy.ones(4)), put(numpy.arange(4.0)))),
        (jacrev(partial(curvature.tanh_layer, A=A)), (put(numpy.ones(4)),)),
    ]
    if backend_name != "numpy":
        cases = cases[1:]
    for eager, args in cases:
        jitted = jit(eager)
        jitted(*args)
        replayed, expected = jitted(*args), eager(*args)
        if backend_name == "dask":
            replayed, expected = (tree_map(lambda v: v.compute(), value) for value in (replayed, expected))
        assert_same(replayed, expected, None if backend is None or backend_name == "dask" else _case(backend_name))


def _case(name):
    from conftest import BackendCase

    return BackendCase(name)


def test_large_arrays_are_fused_and_stay_within_rounding():
    pytest.importorskip("numexpr")
    from benchmarks import elementwise

    x = numpy.random.default_rng(0).standard_normal(1 << 16)
    jitted = grad(elementwise.damped_square, jit=True)
    jitted(x)
    for seed in (1, 2):
        x = numpy.random.default_rng(seed).standard_normal(1 << 16)
        assert_same(jitted(x), grad(elementwise.damped_square)(x), None, exact=False)
    program = next(iter(jitted.programs.values()))
    # NumPy's tanh, exp(-x) (in place), 1 / cosh(x)**2 (tanh's partial, one primitive), then the arithmetic of
    # the rest (the chain rule's NaN-safe products too) in one pass, into tanh's buffer
    assert called(program) == ["tanh", "negative", "exp", "_sech_squared", "numexpr"], program.source
    assert "F2(v3, out=v3)" in program.source and "out=v1)" in program.source


def test_container_cotangents_add_no_zeros():
    """The cotangent of a list of (W, b) read item by item is the items' cotangents: no container of
    zeros per item read, no sums with zeros (``forward_container_items``)."""
    rng = numpy.random.default_rng(0)
    params = [(rng.standard_normal((3, 4)), rng.standard_normal(4)), (rng.standard_normal((4, 2)), rng.standard_normal(2))]
    x = rng.standard_normal((5, 3))

    def loss(params, x):
        for w, b in params[:-1]:
            x = np.tanh(np.matmul(x, w) + b)
        w, b = params[-1]
        return np.sum((np.matmul(x, w) + b) ** 2)

    jitted = grad(loss, jit=True)
    jitted(params, x)
    assert_same(jitted(params, 2.0 * x), grad(loss)(params, 2.0 * x), None)
    calls = called(next(iter(jitted.programs.values())))
    assert "container_untake" not in calls and "container_take" not in calls, calls
    assert calls.count("add") == 2, calls  # the forward pass's


def test_chain_rule_products_check_nan_once_on_the_outputs():
    """The chain rule's NaN-safe products (0 where the cotangent is 0 and the partial NaN) are plain
    products checked for NaN on the outputs (``defer_nan_masks``); where the check finds one, the
    masked program gives the eager values."""

    def f(x):
        return np.sum(np.sin(np.sin(x) * 0.5) * 2.0)

    jitted = grad(f, jit=True)
    x = numpy.linspace(-1.0, 1.0, 10)
    jitted(x)
    program = next(iter(jitted.programs.values()))
    assert "multiply_zero_nan" not in called(program) and "has_nan(" in program.source, program.source
    assert_same(jitted(2.0 * x), grad(f)(2.0 * x), None)
    assert program.masked.cache_info().currsize == 0  # no NaN: the masked program was never compiled

    def g(x):
        return np.sum(np.where(x > 0, np.sqrt(np.abs(x)) * np.log(x), 0.0))  # NaN partials where the cotangent is 0

    jitted = grad(g, jit=True)
    jitted(x)
    assert_same(jitted(x), grad(g)(x), None)
    assert not numpy.isnan(jitted(x)).any()
    assert next(iter(jitted.programs.values())).masked.cache_info().currsize == 1


def test_large_chains_of_products_fuse_to_one_short_expression():
    """Without the masks, a fused chain of products reads each value once: its text does not double per product."""
    pytest.importorskip("numexpr")

    def f(x):
        return np.sum(np.sin(np.sin(np.sin(np.sin(x) * 0.5) * 0.5) * 0.5))

    jitted = grad(f, jit=True)
    x = numpy.linspace(-1.0, 1.0, 1 << 15)
    jitted(x)
    assert_same(jitted(0.5 * x), grad(f)(0.5 * x), None, exact=False)
    program = next(iter(jitted.programs.values()))
    sources = [fn.source for fn in program.__globals__.values() if getattr(fn, "__name__", "") == "numexpr"]
    assert sources and all(len(source) < 200 and "where" not in source for source in sources), sources


def test_buffers_reused_in_place_never_hold_a_live_value():
    """A chain of large elementwise calls whose values are read again later (so not fused away)."""

    def f(x):
        a = np.sin(x)
        b = np.cos(a) * a
        c = np.exp(-b) + a
        return np.sum(c * b + np.tanh(a) * x)

    x = numpy.linspace(-1, 1, 1 << 15)
    jitted = grad(f, jit=True)
    jitted(x)
    for scale in (0.5, 2.0):
        assert_same(jitted(scale * x), grad(f)(scale * x), None, exact=False)
    assert "out=" in next(iter(jitted.programs.values())).source


def test_values_read_once_are_written_inside_their_reader_in_the_recorded_order():
    def f(x):
        first = np.sin(x) * np.cos(x)
        c, d = np.tan(x), np.exp(x)
        return first, d * c  # c and d are read in the other order than computed: they keep their lines

    jitted = jit(f)
    jitted(0.3)
    assert jitted(0.7) == f(0.7)
    program = next(iter(jitted.programs.values()))
    assert called(program) == ["sin", "cos", "mul", "tan", "exp", "mul"], program.source
    assert program.source.count(" = ") == 4 and "(F0(v0), F1(v0))" in program.source, program.source


def test_long_programs_are_compiled_in_pieces(monkeypatch):
    """A program longer than ``CHUNK`` calls is a chain of functions sharing values through a list."""
    from adcore import jit_program

    monkeypatch.setattr(jit_program, "CHUNK", 4)

    def f(x, y):
        a = np.sin(x) * y
        b = np.cos(a) * a + np.exp(-a)
        return np.sum(b * x + np.tanh(a) * y)

    for size in (1, 5, 1 << 15):
        x, y = numpy.linspace(-1, 1, size), numpy.linspace(0.5, 2, size)
        for operator in (value_and_grad, hessian_vector_product):
            args = (x, y) if operator is value_and_grad else (x, y, y)
            jitted = operator(f, jit=True)
            jitted(*args)
            program = next(iter(jitted.programs.values()))
            assert program.source.count("def ") > 3
            assert_same(jitted(*[2.0 * a for a in args]), operator(f)(*[2.0 * a for a in args]), None, exact=size < 1 << 14)


def test_recording_work_grows_as_the_program(monkeypatch):
    """The passes and the writer read each call's arguments a bounded number of times (no pass scans the
    program once per call): counted for a recurrence of 50 and 200 steps, written in pieces of 100 calls."""
    from adcore import jit_program
    from benchmarks import overhead

    monkeypatch.setattr(jit_program, "CHUNK", 100)
    reads, arg_refs = [], jit_program.arg_refs

    def counted(instruction):
        reads[-1] += 1
        return arg_refs(instruction)

    monkeypatch.setattr(jit_program, "arg_refs", counted)
    lengths = []
    for steps in (50, 200):
        reads.append(0)
        jitted = grad(partial(overhead.recurrence, steps=steps), jit=True)
        jitted(0.5)
        lengths.append(next(iter(jitted.programs.values())).instructions)
        assert jitted(0.25) == grad(partial(overhead.recurrence, steps=steps))(0.25)
    assert lengths[1] >= 4 * lengths[0] and reads[1] <= 4.2 * reads[0], (lengths, reads)


# ---- signatures and the cache ----


def test_one_recording_per_signature():
    calls = []

    def f(x, n):
        calls.append(1)
        return np.sum(x**n)

    jitted = jit(grad(f))
    x = numpy.array([1.0, 2.0])
    for value in (x, 2 * x, 3 * x):
        numpy.testing.assert_array_equal(jitted(value, 2), grad(f)(value, 2))
    assert len(jitted.programs) == 1
    jitted(x, 3)  # an int is static: a new value records anew
    jitted(numpy.ones(3), 2)  # a new shape
    jitted(numpy.ones(3, dtype="float32"), 2)  # a new dtype
    assert len(jitted.programs) == 4
    assert len(calls) == 4 + 3  # each recording traces f once; each eager grad above once


def test_the_recording_call_returns_what_it_computed_without_a_replay():
    raw_calls = []

    @adcore.primitive
    def doubled(x):
        raw_calls.append(x)
        return 2.0 * x

    constant = numpy.zeros(2)
    jitted = jit(lambda x, scale: (doubled(x) * scale, x, constant, [scale, "static"]))
    x = numpy.array([1.0, 2.0])
    value, same, copy, items = jitted(x, 3.0)
    assert len(raw_calls) == 1  # recorded, not run again by the program
    numpy.testing.assert_array_equal(value, [6.0, 12.0])
    assert same is x and items == [3.0, "static"]  # an input as the caller's object, as a replay returns it
    assert copy is not constant and numpy.array_equal(copy, constant)  # a constant as a fresh copy
    value, same, copy, items = jitted(2.0 * x, 1.0)
    assert len(raw_calls) == 2
    numpy.testing.assert_array_equal(value, [4.0, 8.0])
    assert copy is not constant and items == [1.0, "static"]


def test_python_floats_are_traced_inputs():
    jitted = grad(lambda x, y: np.sin(x) * y, jit=True)
    for x in (0.1, 0.2, 0.3):
        assert jitted(x, 2.0) == grad(lambda x, y: np.sin(x) * y)(x, 2.0)
    assert len(jitted.programs) == 1


def test_the_cache_is_bounded():
    jitted = jit(lambda x: x * 2.0, cache_size=2)
    for n in (1, 2, 3, 4):
        jitted(numpy.ones(n))
    assert len(jitted.programs) == 2


def test_the_default_backend_is_part_of_the_signature():
    jitted = jit(lambda x: np.sin(x) + np.ones(2))
    assert isinstance(jitted(1.0), numpy.ndarray)
    with adcore.use_backend("array_api_strict"):
        result = jitted(1.0)
    assert not isinstance(result, numpy.ndarray)


def test_closures_are_frozen_at_record_time():
    weights = numpy.array([1.0, 2.0])
    jitted = jit(grad(lambda x: np.sum(weights * x**2)))
    first = jitted(numpy.ones(2))
    weights[:] = 10.0  # documented: not seen by the recorded program
    numpy.testing.assert_array_equal(jitted(numpy.ones(2)), first)


def test_constant_outputs_are_fresh_arrays():
    jitted = grad(lambda x, c: np.sum(c), jit=True)  # the gradient does not depend on x: constant zeros
    first = jitted(numpy.ones(3), numpy.ones(2))
    first[:] = 5.0
    numpy.testing.assert_array_equal(jitted(numpy.ones(3), numpy.ones(2)), numpy.zeros(3))


def test_under_an_outer_derivative_jit_runs_eagerly():
    inner = jit(lambda x: np.sin(x) * x)
    assert grad(inner)(0.5) == grad(lambda x: np.sin(x) * x)(0.5)
    assert len(inner.programs) == 0


def test_jit_of_a_jitted_function_inlines_it():
    inner = jit(lambda x: np.sin(x) * 2.0)
    outer = jit(lambda x: inner(x) + 1.0)
    assert outer(0.5) == np.sin(0.5) * 2.0 + 1.0
    assert len(inner.programs) == 0 and len(outer.programs) == 1


def test_static_arguments_and_outputs_pass_through():
    def f(x, name, scale=2):
        return {"name": name, "value": x * scale, "shape": np.shape(x)}

    jitted = jit(f)
    jitted(numpy.ones(2), "a")
    out = jitted(numpy.full(2, 3.0), "a", scale=2)
    assert out["name"] == "a" and out["shape"] == (2,)
    numpy.testing.assert_array_equal(out["value"], [6.0, 6.0])


def test_bad_arguments_of_jit():
    with pytest.raises(TypeError, match="fun must be callable"):
        jit(3)
    with pytest.raises(TypeError, match="on_refusal must be"):
        jit(np.sin, on_refusal="ignore")


# ---- refusals ----


def _refusal_line(fun, *args):
    """The error message of recording ``fun`` at ``args``, checked to name this file."""
    with pytest.raises(JitError) as error:
        jit(fun)(*args)
    message = str(error.value)
    assert "test_jit.py:" in message, message
    return message


def test_branching_on_a_traced_value_is_refused_naming_the_line():
    def f(x):
        if np.sum(x) > 0:  # the line named
            return x
        return -x

    message = _refusal_line(f, numpy.ones(2))
    assert "bool() of a traced value" in message and "if np.sum(x) > 0:  # the line named" in message
    assert "adcore.numpy.where" in message


def _while_positive(x):
    while np.sum(x) > 0:
        x = x - 1.0
    return x


POSITIVE = "bool() of a traced value"
NUMBER = "float(), int(), complex(), operator.index() or .item() of a traced value"
SHAPE_OF_VALUES = "a shape that depends on traced values"
RANDOM = "it draws random numbers"


@pytest.mark.parametrize(
    "conversion, what",
    [
        pytest.param(lambda x: x if np.sum(x) > 0 else -x, POSITIVE, id="if"),
        pytest.param(lambda x: x if bool(x[0]) else -x, POSITIVE, id="bool"),
        pytest.param(_while_positive, POSITIVE, id="while"),
        pytest.param(lambda x: x[0] and x[1], POSITIVE, id="and"),
        pytest.param(lambda x: min(np.sum(x), 3.0), POSITIVE, id="builtin_min"),
        pytest.param(lambda x: float(np.sum(x)), NUMBER, id="float"),
        pytest.param(lambda x: int(np.sum(x)), NUMBER, id="int"),
        pytest.param(lambda x: complex(np.sum(x)), NUMBER, id="complex"),
        pytest.param(lambda x: np.sum(x).item(), NUMBER, id="item"),
        pytest.param(lambda x: math.floor(np.sum(x)), NUMBER, id="math_floor"),
        pytest.param(lambda x: [1.0, 2.0][np.argmax(x)], NUMBER, id="index"),
        pytest.param(lambda x: x * len(range(np.sum(x > 1))), NUMBER, id="range"),
        pytest.param(lambda x: x * operator_index(np.argmin(x)), NUMBER, id="operator_index"),
        pytest.param(lambda x: x * float(np.argmax(x)), NUMBER, id="float_of_argmax"),
        pytest.param(lambda x: f"{np.sum(x):.3f}", "format() of a traced value", id="format"),
        pytest.param(lambda x: bool(np.any(x > 1)), POSITIVE, id="any"),
        pytest.param(lambda x: x if np.allclose(x, 1.0) else -x, "allclose gives a Python bool", id="allclose"),
        pytest.param(lambda x: x[np.nonzero(x)], SHAPE_OF_VALUES, id="nonzero"),
        pytest.param(lambda x: x[x > 1.5], SHAPE_OF_VALUES, id="mask"),
        pytest.param(lambda x: np.where(x > 1.5), SHAPE_OF_VALUES, id="where"),
        pytest.param(lambda x: len(np.flatnonzero(x)), SHAPE_OF_VALUES, id="len_flatnonzero"),
        pytest.param(lambda x: np.argwhere(x), SHAPE_OF_VALUES, id="argwhere"),
        pytest.param(lambda x: grad(lambda y: y * float(y))(x[0]), NUMBER, id="inside_grad"),
        pytest.param(lambda x: x * np.random.randn(2), RANDOM, id="adcore_random"),
        pytest.param(lambda x: x * numpy.random.randn(2), "NumPy's global generator", id="numpy_random"),
    ],
)
def test_each_way_a_value_reaches_python_is_refused(conversion, what):
    """Refused at the recording, naming what reached Python and the line (here) that asked for it."""
    assert what in _refusal_line(conversion, numpy.array([1.0, 2.0]))


def test_numpy_global_random_draws_are_refused():
    with pytest.raises(JitError, match="NumPy's global generator"):
        jit(lambda x: x * numpy.random.randn(2))(numpy.ones(2))


def test_random_draws_of_adcore_name_the_function():
    message = _refusal_line(lambda x: x * np.random.randn(2), numpy.ones(2))
    assert "adcore.numpy.random.randn" in message


def test_refused_signatures_run_eagerly_on_request():
    calls = []

    def f(x):
        calls.append(1)
        return x if np.sum(x) > 0 else -x

    jitted = jit(f, on_refusal="eager")
    numpy.testing.assert_array_equal(jitted(numpy.ones(2)), numpy.ones(2))
    numpy.testing.assert_array_equal(jitted(-numpy.ones(2)), numpy.ones(2))  # not the recorded branch
    assert len(calls) == 3  # the refused recording, then two eager calls


def test_a_refused_signatures_objects_go_with_its_function():
    """The static objects of a refused signature (kept alive while their ids are in its key) are kept by that
    jitted function alone: gone with it, and not replaced by another function's refusal."""
    import gc
    import weakref

    class Static:  # unhashable: the key holds its id, and the signature keeps it alive
        __hash__ = None

    def refused(x, static):
        return x if np.sum(x) > 0 else -x

    first, second = jit(refused, on_refusal="eager"), jit(refused, on_refusal="eager")
    static = Static()
    kept = weakref.ref(static)
    first(numpy.ones(2), static)
    second(numpy.ones(2), Static())
    del static
    gc.collect()
    assert kept() is not None  # first still holds the signature that names it
    del first
    gc.collect()
    assert kept() is None


def test_python_values_of_the_signature_are_allowed():
    def f(x):
        n = x.shape[0] + len(x) + np.ndim(x)
        if np.iscomplexobj(x) or x.dtype == numpy.float32:
            return x
        return x * n

    jitted = jit(f)
    jitted(numpy.ones(3))
    numpy.testing.assert_array_equal(jitted(numpy.full(3, 2.0)), numpy.full(3, 14.0))


# ---- a property test: random programs from the spec table ----

UNARY = sorted(name for name, spec in ELEMENTWISE.items() if spec.dtypes[0] == "float64")
BINARY = sorted(name for name, spec in BROADCASTING.items() if spec.dtypes[0] == "float64")
PROGRAM_SETTINGS = PROFILE  # test_properties' hypothesis profile: 4 programs in the default run, 25 in the full run


@st.composite
def programs(draw):
    """A chain of spec-table functions: each step applies a unary function, or a binary one with an input."""
    steps = draw(st.lists(st.one_of(st.sampled_from(UNARY), st.sampled_from(BINARY)), min_size=1, max_size=6))
    return [(ELEMENTWISE.get(name) or BROADCASTING[name]).fun for name in steps]


def run_program(functions, x, y):
    value = x
    for fun in functions:
        value = fun(value, y) if fun in BINARY_FUNCTIONS else fun(value)
        value = np.tanh(value)  # back into (-1, 1), inside every function's domain
    return np.sum(value * y)


BINARY_FUNCTIONS = {BROADCASTING[name].fun for name in BINARY}


@pytest.mark.parametrize("backend", PROPERTY_BACKENDS, ids=lambda case: case.id, indirect=True)
@PROGRAM_SETTINGS
@given(functions=programs(), size=st.sampled_from([1, 3, 1 << 15]), seed=st.integers(0, 2**16))
def test_random_programs_replay_as_eager(backend, functions, size, seed):
    rng = numpy.random.default_rng(seed)
    x, y, x2, y2 = (backend.asarray(rng.uniform(0.3, 0.7, size)) for _ in range(4))
    for operator in (value_and_grad, partial(hessian_vector_product)):
        eager = operator(partial(run_program, functions), argnum=0)
        jitted = operator(partial(run_program, functions), argnum=0, jit=True)
        args = (x, y) if operator is value_and_grad else (x, y, y)
        args2 = (x2, y2) if operator is value_and_grad else (x2, y2, x)
        jitted(*args)
        assert_same(jitted(*args2), eager(*args2), backend, exact=size < jit_module_fuse_min())


def jit_module_fuse_min():
    from adcore.jit_program import FUSE_MIN_SIZE, _numexpr

    return FUSE_MIN_SIZE if _numexpr() is not None else float("inf")


# ---- the benchmarks' jit rows ----


def test_benchmark_jit_rows_carry_first_calls_and_the_jit_target(monkeypatch, tmp_path):
    import json

    from benchmarks import overhead
    from benchmarks.__main__ import main

    monkeypatch.setattr(overhead, "STEPS", 30)
    path = tmp_path / "r.json"
    assert main(["--quick", "--only", "a,e", "--peers", "adcore.jit", "--json", str(path)]) == 0
    for workload in json.loads(path.read_text())["workloads"]:
        row = workload["contenders"]["adcore.jit"]
        assert row["first_call_seconds"] > 0 and row["hand-written"] > 0
        assert set(workload["jit_target"]) == {"goal", "value", "met"}
        assert workload["jit_target"]["goal"].endswith("first call ahead of jax.jit")


def test_recording_while_another_thread_differentiates_eagerly():
    """The hook is shared by all threads while a recording is open: another thread's calls are not recorded."""
    import threading

    results, stop = [], threading.Event()

    def eager_loop():
        while not stop.is_set():
            results.append(grad(lambda x: np.sum(np.sin(x) ** 2))(numpy.ones(3)))

    thread = threading.Thread(target=eager_loop)
    thread.start()
    try:
        for scale in (1.0, 2.0, 3.0):
            jitted = grad(lambda x: np.sum(np.cos(x) * x), jit=True)
            jitted(numpy.ones(4))
            assert_same(jitted(scale * numpy.ones(4)), grad(lambda x: np.sum(np.cos(x) * x))(scale * numpy.ones(4)), None)
    finally:
        stop.set()
        thread.join()
    expected = grad(lambda x: np.sum(np.sin(x) ** 2))(numpy.ones(3))
    assert results and all(numpy.array_equal(r, expected) for r in results)


def test_a_primitive_declared_signature_only_runs_while_recording():
    """The jit reads ``signature_only`` from the op table: a non-differentiable function of an argument's shape
    that returns a Python number is refused (a value computed from traced values) until the op table declares
    it signature-only (``def_signature_only``); then it runs while recording and its result is a constant of the
    signature (a new shape records anew)."""
    from adcore.core import notrace_primitive
    from adcore.core.ops import def_signature_only, signature_only

    def half_rows(x):
        return x.shape[0] // 2

    undeclared, declared = notrace_primitive(half_rows), notrace_primitive(half_rows)
    def_signature_only(declared)
    assert signature_only(declared) and not signature_only(undeclared)
    with pytest.raises(JitError, match="half_rows"):
        jit(lambda x: x[: undeclared(x)] * 2.0)(numpy.arange(6.0))
    f = jit(lambda x: x[: declared(x)] * 2.0)
    numpy.testing.assert_array_equal(f(numpy.arange(6.0)), [0.0, 2.0, 4.0])
    numpy.testing.assert_array_equal(f(numpy.arange(4.0) + 1.0), [2.0, 4.0])
    numpy.testing.assert_array_equal(grad(lambda x: np.sum(f(x)))(numpy.arange(6.0)), [2.0, 2.0, 2.0, 0.0, 0.0, 0.0])

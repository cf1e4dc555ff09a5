"""The backend registry, the default backend, and what vspaces and scatter-add make on each backend."""

import threading
import warnings

import numpy
import pytest

import adcore
import adcore.numpy as np
import backends
from adcore.core import vspace


def test_backend_of_finds_the_arrays_backend(backend):
    x = backend.asarray([1.0, 2.0])
    assert backends.backend_of(x, 2.0, numpy.float64(1.0), None, "name") is backend.backend
    assert backends.array_backend(2.0) is None
    assert backends.array_backend(numpy.float32(2.0)) is None


def test_available_lists_the_backends_that_run_here():
    names = backends.available()
    assert "numpy" in names and "array_api_strict" in names
    for name in set(backends.NAMES) - set(names):
        assert backends.unavailable_reason(name)


def test_default_backend_and_use_backend():
    assert adcore.default_backend().name == "numpy"
    with adcore.use_backend("array_api_strict") as strict:
        assert strict.name == "array_api_strict"
        z = np.zeros((2, 3))
        assert backends.array_backend(z) is strict and z.shape == (2, 3)
        assert backends.array_backend(np.array([1.0, 2.0])) is strict
        assert backends.array_backend(np.linspace(0, 1, 5)) is strict
    assert adcore.default_backend().name == "numpy"


def test_use_backend_restores_after_an_exception():
    with pytest.raises(RuntimeError):
        with adcore.use_backend("array_api_strict"):
            raise RuntimeError
    assert adcore.default_backend().name == "numpy"


def test_set_backend_does_not_leak_into_other_threads():
    seen = []
    try:
        adcore.set_backend("array_api_strict")
        thread = threading.Thread(target=lambda: seen.append(adcore.default_backend().name))
        thread.start()
        thread.join()
        assert adcore.default_backend().name == "array_api_strict"
    finally:
        adcore.set_backend("numpy")
    assert seen == ["numpy"]


def test_grad_of_python_scalar_under_another_default_backend():
    with adcore.use_backend("array_api_strict"):
        g = adcore.grad(lambda x: x * x)(3.0)
    assert float(backends.get_backend("array_api_strict").to_numpy(g)) == 6.0


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_vspace_makes_zeros_and_ones_on_the_values_device_and_dtype(backend, dtype):
    x = backend.asarray(numpy.ones((2, 3)), dtype)
    vs = vspace(x)
    for made in (vs.zeros(), vs.ones(), vs.randn(numpy.random.default_rng(0)), *vs.standard_basis()):
        backend.check_device(made)
        assert made.dtype == x.dtype and made.shape == (2, 3)
    assert vs.size == 6 and vs.differentiable and not vs.iscomplex


def test_scatter_add_accumulates_repeated_indices(backend):
    b = backend.backend
    dtype = b.dtype("float64")
    index = b.from_numpy(numpy.array([2, 0, 2]), device=backend.device)
    out = b.scatter_add((4,), dtype, backend.device, index, backend.asarray([1.0, 2.0, 3.0]))
    backend.check_device(out)
    numpy.testing.assert_array_equal(backend.to_numpy(out), [2.0, 0.0, 4.0, 0.0])
    mask = b.from_numpy(numpy.array([[True, False], [False, True]]), device=backend.device)
    out = b.scatter_add((2, 2), dtype, backend.device, mask, backend.asarray([5.0, 6.0]))
    numpy.testing.assert_array_equal(backend.to_numpy(out), [[5.0, 0.0], [0.0, 6.0]])
    out = b.scatter_add((2, 3), dtype, backend.device, (slice(None), 1), backend.asarray([7.0, 8.0]))
    numpy.testing.assert_array_equal(backend.to_numpy(out), [[0.0, 7.0, 0.0], [0.0, 8.0, 0.0]])


def test_cupy_is_skipped_with_a_reason_without_a_gpu():
    reason = backends.unavailable_reason("cupy")
    if reason is None:
        pytest.skip("CuPy runs on this machine")
    assert "cupy" in reason.lower() or "cuda" in reason.lower()


def test_scatter_add_with_a_reversed_slice_and_repeats(backend):
    b = backend.backend
    index = (slice(None, None, -1), b.from_numpy(numpy.array([1, 1]), device=backend.device))
    out = b.scatter_add((2, 2), b.dtype("float64"), backend.device, index, backend.asarray([[1.0, 2.0], [3.0, 4.0]]))
    numpy.testing.assert_array_equal(backend.to_numpy(out), [[0.0, 7.0], [0.0, 3.0]])


def test_raw_array_operators_defer_to_a_traced_operand(backend):
    raw = backend.asarray([[1.0, 2.0], [3.0, 4.0]])
    x = backend.asarray([[0.5, -1.0], [2.0, 1.5]])
    cases = {
        "+": (lambda r, y: r + y, numpy.ones((2, 2))),
        "-": (lambda r, y: r - y, -numpy.ones((2, 2))),
        "*": (lambda r, y: r * y, backend.to_numpy(raw)),
        "/": (lambda r, y: r / y, -backend.to_numpy(raw) / backend.to_numpy(x) ** 2),
        "@": (lambda r, y: r @ y, backend.to_numpy(raw).sum(axis=0)[:, None] * numpy.ones((1, 2))),
    }
    for op, (fun, expected) in cases.items():
        g = adcore.grad(lambda y, fun=fun: np.sum(fun(raw, y)))(x)
        backend.check_device(g)
        numpy.testing.assert_allclose(backend.to_numpy(g), expected, rtol=1e-12, err_msg=f"raw {op} traced")


def _needs(name):
    reason = backends.unavailable_reason(name)
    if reason:
        pytest.skip(f"{name} cannot run here: {reason}")


def test_torch_autograd_records_nothing():
    _needs("torch")
    torch_backend = backends.get_backend("torch")
    x = torch_backend.from_numpy(numpy.array([1.0, 2.0]))
    g = adcore.grad(lambda x: np.sum(np.sin(x) * x))(x)
    assert not x.requires_grad and not g.requires_grad and g.grad_fn is None


def test_torch_inputs_requiring_grad_give_results_without_grad_fn():
    # issue 13: torch recorded adcore's operations on tensors with requires_grad=True (README: it records nothing)
    _needs("torch")
    import torch

    from adcore.test_util import check_grads

    x = torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64, requires_grad=True)
    w = torch.tensor([1.5, 0.5, -2.0], dtype=torch.float64, requires_grad=True)  # a constant, as a model's weights

    def loss(x):
        return np.sum(np.sin(x) * w)

    def layer(x):
        return np.tanh(x * w)

    value, gradient = adcore.value_and_grad(loss)(x)
    vjp, y = adcore.make_vjp(layer)(x)
    y_jvp, tangent = adcore.make_jvp(layer)(x)(torch.ones(3, dtype=torch.float64))
    hvp_fn, _ = adcore.make_hvp(loss)(x)
    results = {
        "value": value,
        "grad": gradient,
        "make_vjp value": y,
        "vjp": vjp(torch.ones(3, dtype=torch.float64)),
        "make_jvp value": y_jvp,
        "jvp": tangent,
        "jacobian": adcore.jacobian(layer)(x),
        "hessian": adcore.hessian(loss)(x),
        "hvp": adcore.hvp(loss)(x, torch.ones(3, dtype=torch.float64)),
        "make_hvp": hvp_fn(torch.ones(3, dtype=torch.float64)),
        "elementwise_grad": adcore.elementwise_grad(layer)(x),
    }
    for what, result in results.items():
        assert result.grad_fn is None and not result.requires_grad, f"{what} carries {result.grad_fn}"
    assert torch.is_grad_enabled(), "torch's grad mode is restored after each operator"
    plain = x.detach()
    numpy.testing.assert_allclose(gradient.numpy(), (torch.cos(plain) * w.detach()).numpy(), rtol=1e-14)
    check_grads(loss)(x)
    with torch.no_grad():  # an operator inside a block of the user's without grad leaves it so
        adcore.grad(loss)(x)
        assert not torch.is_grad_enabled()


def test_tensordot_takes_numpys_pair_of_axes(backend):
    # issue 13: tensordot(a, b, axes=(0, 1)) reached torch unconverted and raised
    rng = numpy.random.default_rng(0)
    a_data, b_data = rng.uniform(-1, 1, (3, 4)), rng.uniform(-1, 1, (5, 3))
    a, b = backend.asarray(a_data), backend.asarray(b_data)
    for axes in [(0, 1), ([0], [1]), ((0,), 1)]:
        value = np.tensordot(a, b, axes=axes)
        backend.check_device(value)
        numpy.testing.assert_allclose(backend.to_numpy(value), numpy.tensordot(a_data, b_data, axes=(0, 1)), rtol=1e-14)

    from adcore.test_util import check_grads

    check_grads(lambda a, b: np.tensordot(a, b, axes=(0, 1)), (0, 1))(a, b)


#: indexes mixing integers and an integer array, apart (by a slice) or together
MIXED_INDEXES = {
    "int_slice_array": lambda i: (0, slice(None), i),  # torch: (4, 3) transposed from NumPy's (3, 4)
    "slice_int_array": lambda i: (slice(None), 0, i),
    "array_slice_int": lambda i: (i, slice(None), 0),
    "slice_array_slice_int": lambda i: (slice(None), i, slice(None), 0),
}


@pytest.mark.parametrize("kind", MIXED_INDEXES)
def test_an_integer_beside_an_integer_array_reads_as_numpy_and_as_untraced_or_is_refused(backend, kind):
    # issue 13: on torch x[0, :, [0, 1, 2]] gave one value under grad (NumPy's rule) and another untraced (torch's)
    data = numpy.arange(3 * 3 * 4 * 3, dtype=float).reshape(3, 3, 4, 3)
    positions = numpy.array([2, 0, 1])
    expected = data[MIXED_INDEXES[kind](positions)]
    x = backend.asarray(data)
    index = MIXED_INDEXES[kind](backend.backend.from_numpy(positions, device=backend.device))
    try:
        untraced = x[index]
    except (IndexError, TypeError):  # the library itself refuses such an index (array-api-strict)
        untraced = None
    try:
        _, traced = adcore.make_vjp(lambda x: x[index])(x)
    except NotImplementedError as error:
        assert f"the {backend.name} backend cannot index" in str(error)
        return
    except (IndexError, TypeError):
        assert untraced is None, "adcore refuses what the library reads"
        return
    numpy.testing.assert_array_equal(backend.to_numpy(traced), expected)
    if untraced is not None:
        numpy.testing.assert_array_equal(backend.to_numpy(untraced), expected, err_msg="untraced differs from traced")


def test_jax_backend_enables_float64():
    _needs("jax")
    import jax

    jax_backend = backends.get_backend("jax")
    assert jax.config.jax_enable_x64
    x = jax_backend.from_numpy(numpy.array([1.0, 2.0]))
    assert str(x.dtype) == "float64" and str(adcore.grad(lambda x: np.sum(x**2))(x).dtype) == "float64"


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide"])
@pytest.mark.parametrize(
    ("x", "y"), [(numpy.float64(0.1), 0.7), (0.1, numpy.float64(0.7)), (numpy.float64(3.0), numpy.float64(0.0))]
)
def test_numpy_float64_scalar_arithmetic_is_the_ufuncs(name, x, y):
    # NumPy's scalar operators stand in for the ufunc on float64 scalars: same type, value and warnings
    ufunc = getattr(numpy, name)
    numpy_backend = backends.get_backend("numpy")
    for function in (getattr(numpy_backend, name), numpy_backend.function_for(name, (type(x), type(y)))):
        with numpy.errstate(all="ignore"):
            expected, actual = ufunc(x, y), function(x, y)
        assert type(actual) is type(expected) is numpy.float64
        assert actual == expected or (numpy.isnan(actual) and numpy.isnan(expected))
        if name == "divide" and y == 0.0:
            with pytest.warns(RuntimeWarning, match="divide by zero"):
                function(x, y)


def test_dispatch_cache_follows_the_default_backend_and_the_registry(monkeypatch):
    strict = backends.get_backend("array_api_strict")
    assert type(np.sin(0.5)) is numpy.float64 and type(np.multiply(numpy.float64(0.5), 2.0)) is numpy.float64
    with adcore.use_backend("array_api_strict"):
        assert backends.array_backend(np.sin(0.5)) is strict  # same argument types, another default backend
    assert type(np.sin(0.5)) is numpy.float64
    x = numpy.ones(3)
    assert type(np.exp(x)) is numpy.ndarray
    calls = []
    stand_in = type(
        "StandIn",
        (),
        {"function_for": lambda self, api, types: lambda *a: calls.append(api) or numpy.exp(*a), "multi_device": False},
    )()
    monkeypatch.setitem(backends._by_type, numpy.ndarray, stand_in)
    np.exp(x)
    assert calls == ["exp"]  # the registry changed: the cached NumPy function is not used
    monkeypatch.undo()
    assert type(np.exp(x)) is numpy.ndarray and calls == ["exp"]  # and back: the stand-in's function is not used


def test_numpy_python_floats_still_give_a_float64():
    assert type(backends.get_backend("numpy").multiply(0.5, 2.0)) is numpy.float64


def test_caches_keyed_on_array_types_follow_the_registry(monkeypatch):
    """A backend standing in for NumPy's (as the cupy signature tests' does) leaves no snapshot, fingerprint or
    mutability found for ``numpy.ndarray`` behind: after it goes, NumPy arrays are NumPy's again."""
    from adcore.core import fingerprints, snapshots

    x = numpy.ones(3)
    numpy_backend = backends.get_backend("numpy")
    adcore.make_vjp(lambda x: np.sum(np.multiply(x, x)))(x)
    assert snapshots.find(x).__self__ is numpy_backend and fingerprints.find(x).__self__ is numpy_backend
    stand_in = type(numpy_backend)()
    with monkeypatch.context() as patched:
        patched.setitem(backends._by_type, numpy.ndarray, stand_in)
        adcore.make_vjp(lambda x: np.sum(np.multiply(x, x)))(x)
        assert snapshots.find(x).__self__ is stand_in and fingerprints.find(x).__self__ is stand_in
    assert snapshots.find(x).__self__ is numpy_backend and fingerprints.find(x).__self__ is numpy_backend


NAN, INF = numpy.nan, numpy.inf


@pytest.mark.parametrize("size", [0, 1, 2, 5, 32, 33, 100])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex128"])
def test_numpy_holds_nan_is_exact(size, dtype):
    """The NaN-safe product's check on NumPy arrays of each size (a small real array is summed in Python first):
    True exactly where an entry is NaN, also when inf and -inf (whose sum is NaN) or the largest values (whose
    sum overflows) are present, in views and 2-D arrays, without a warning."""
    from backends.numpy import holds_nan

    x = numpy.linspace(-1, 1, size).astype(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not holds_nan(x) and not holds_nan(x[None]) and not holds_nan(x[::2])
        if size >= 2:
            assert not holds_nan(numpy.full(size, numpy.finfo(dtype).max, dtype))
            x[0], x[-1] = INF, -INF
            assert not holds_nan(x) and not holds_nan(x[None])
            x[size // 2] = NAN
            assert holds_nan(x) and holds_nan(x[None]) and holds_nan(x[size // 2 :: size])


#: (a, b, dtypes) for ``multiply_zero_nan(a, b)``
ZERO_NAN_CASES = [
    ([0.0, 0.0, 2.0, 0.0], [NAN, 1.0, NAN, INF], ("float64", "float32")),  # 0 * NaN only is 0; 0 * inf stays NaN
    ([0.0, 1.0, 0.0], [INF, -INF, 2.0], ("float64", "float32")),  # inf and -inf, no NaN: IEEE's product
    ([NAN, 0.0, 3.0], [0.0, 2.0, 1.0], ("float64", "float32")),  # a NaN in a stays NaN
    ([0.0, 2.0, 0.0], [complex(NAN, 1.0), complex(1.0, NAN), 1j], ("complex128",)),  # either part NaN is NaN
    ([[0.0, 1.0], [0.0, 0.0]], [[1.0, NAN], [NAN, 2.0]], ("float64",)),
    (0.0, NAN, ("float64", "float32")),
    (0.0, 3.0, ("float64",)),
    ([], [], ("float64",)),
]


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # 0 * inf is NaN, IEEE's invalid operation
@pytest.mark.parametrize("a, b, dtype", [(a, b, dtype) for a, b, dtypes in ZERO_NAN_CASES for dtype in dtypes])
def test_multiply_zero_nan_is_zero_only_where_a_is_zero_and_b_nan(backend, a, b, dtype):
    """``Backend.multiply_zero_nan(a, b)`` (the chain rule's product in every elementwise rule) and its in-place
    forms (into ``a`` or ``b``), on arrays of any shape, 0-d and empty included: IEEE's ``a * b``, but 0 where ``a``
    is 0 and ``b`` NaN."""
    x, y = numpy.asarray(a, dtype), numpy.asarray(b, dtype)
    with numpy.errstate(invalid="ignore"):
        expected = numpy.where((x == 0) & numpy.isnan(y), 0, x * y)
    for into in (None, "a", "b"):
        x, y = backend.asarray(a, dtype), backend.asarray(b, dtype)
        if into is None:
            product = backend.backend.multiply_zero_nan(x, y)
        else:
            product = backend.backend.multiply_zero_nan_into(x, y, out=x if into == "a" else y)
        numpy.testing.assert_array_equal(backend.to_numpy(product), expected, err_msg=f"into={into}")


@pytest.mark.parametrize(
    "b", [numpy.array([1, 2]), numpy.array([True, False]), numpy.float32(NAN), 2, NAN, 1j, numpy.zeros((0, 3))]
)
def test_multiply_zero_nan_takes_integers_booleans_and_scalars(b):
    """The NumPy backend's test for NaN (one reduction, no array made) on integer and boolean arrays, NumPy and
    Python scalars and empty arrays, in the chain rule's product on scalars (``times_partial``) too."""
    from adcore.numpy.declare import times_partial

    numpy_backend = backends.get_backend("numpy")
    zeros = numpy.zeros(numpy.shape(b))
    with numpy.errstate(invalid="ignore"):
        expected = numpy.where(numpy.isnan(b), 0.0, zeros * b)
    numpy.testing.assert_array_equal(numpy_backend.multiply_zero_nan(zeros, b), expected)
    numpy.testing.assert_array_equal(numpy_backend.multiply_zero_nan_into(zeros.astype(numpy.result_type(zeros, b)), b), expected)
    for zero in (0.0, numpy.float64(0.0)):
        assert times_partial(zero, b if numpy.ndim(b) == 0 else zero) == 0
    assert type(times_partial(numpy.float64(0.0), NAN)) is numpy.float64
    with numpy.errstate(invalid="ignore"):
        assert numpy.isnan(times_partial(numpy.float64(0.0), INF)) and numpy.isnan(times_partial(numpy.float64(NAN), 1.0))


BROADCASTS = [
    ((), (5,)),
    ((), ()),
    ((3,), (4, 3)),
    ((1, 3), (5, 2, 3)),
    ((2, 1), (2, 4)),
    ((2, 3), (2, 3)),
    ((2, 1, 1), (3, 2, 4, 5)),
]


@pytest.mark.parametrize(("shape", "target"), BROADCASTS)
def test_numpy_broadcast_to_is_numpys_read_only_view(shape, target):
    """The NumPy backend's ``broadcast_to`` (made directly for a C-contiguous array) is ``numpy.broadcast_to``: the
    same values, strides and dtype, read-only, a view that sees later writes; NumPy's view of a transposed array
    and NumPy's errors for shapes that do not fit."""
    backend = backends.get_backend("numpy")
    x = numpy.arange(1.0, 1.0 + numpy.prod(shape, dtype=int), dtype="float32").reshape(shape)
    view, expected = backend.broadcast_to(x, target), numpy.broadcast_to(x, target)
    assert (view.shape, view.strides, view.dtype, view.flags.writeable) == (expected.shape, expected.strides, x.dtype, False)
    numpy.testing.assert_array_equal(view, expected)
    x[...] = 7.0
    numpy.testing.assert_array_equal(view, numpy.broadcast_to(x, target))
    transposed = numpy.ones((3, 4)).T
    numpy.testing.assert_array_equal(backend.broadcast_to(transposed, (2, 4, 3)), numpy.broadcast_to(transposed, (2, 4, 3)))
    for bad in ((3,), (2, 4)), ((2,), ()), ((3,), (-1, 3)):
        with pytest.raises(ValueError):
            backend.broadcast_to(numpy.ones(bad[0]), bad[1])


@pytest.mark.filterwarnings("ignore:overflow:RuntimeWarning")  # cosh(800) in the expected values
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_sech_squared_is_one_over_cosh_squared(backend, dtype):
    """``Backend.sech_squared`` (tanh's derivative) on every backend, to the rounding of the dtype, 0 in the far
    tails and at infinity; on NumPy across its blocks (``SECH_BLOCK``), and on a strided view."""
    from backends.numpy import SECH_BLOCK

    data = numpy.concatenate([numpy.linspace(-30.0, 30.0, SECH_BLOCK + 7), [0.0, 1e-300, 400.0, -800.0, numpy.inf, -numpy.inf]])
    x = data.astype(dtype)
    expected = 1.0 / numpy.cosh(x.astype("float64")) ** 2
    for values, want in ((backend.asarray(x, dtype), expected), (backend.asarray(x[::3], dtype), expected[::3])):
        numpy.testing.assert_allclose(
            backend.to_numpy(backend.backend.sech_squared(values)), want, rtol=4e-7 if dtype == "float32" else 1e-15
        )
    assert backend.to_numpy(backend.backend.sech_squared(backend.asarray(0.5, dtype))).shape == ()


def test_the_elementwise_names_of_the_op_table_take_scalars_on_every_backend():
    """``backends.base.ELEMENTWISE`` is a fact of the Array API standard, not a second inventory of adcore's
    primitives: the standard's elementwise functions (and ``clip``, ``where``) whose arguments may be Python
    scalars beside arrays, so that ``Backend.lookup`` makes the first one an array in a call of scalars only.
    ``backends`` imports nothing of adcore, so the op table cannot be read there; instead every Array API name
    that the op table declares elementwise is in it (the others are ``Backend`` methods, ``multiply_zero_nan``), so a
    primitive added to a family is looked up with the scalar promotion its name needs."""
    array_api_strict = pytest.importorskip("array_api_strict")  # the standard's namespace, nothing more
    from adcore.core.ops import ops
    from backends.base import ELEMENTWISE, Backend

    names = {op.api for op in ops.values() if op.family == "elementwise" and op.api is not None}
    standard = {name for name in names if hasattr(array_api_strict, name)}
    assert len(standard) >= 50 and standard <= ELEMENTWISE, sorted(standard - ELEMENTWISE)
    assert all(callable(getattr(Backend, name, None)) for name in names - standard), sorted(names - standard)


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "any", "all"])
def test_numpy_backends_reductions_are_numpys(name):
    """The NumPy backend's reductions (``ufunc.reduce`` for an ``ndarray``) give NumPy's function's value, type and
    dtype, or its error, for every axis and ``keepdims``, on 0-d, empty, NaN, integer, boolean and complex arrays."""
    reduce = getattr(backends.get_backend("numpy"), name)
    arrays = [
        numpy.array(3.0),
        numpy.array([]),
        numpy.zeros((0, 3)),
        numpy.array([1.0, numpy.nan, -2.0]),
        numpy.arange(6).reshape(2, 3),
        numpy.array([True, False]),
        numpy.array([1, 2], dtype=numpy.int8),
        numpy.array([1 + 2j, 3j]),
        numpy.array([[1.0, 2.0], [3.0, -1.0]], dtype=numpy.float32),
    ]

    def outcome(fun, x, axis, keepdims):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = fun(x, axis=axis, keepdims=keepdims)
        except Exception as error:  # noqa: BLE001 - the error is what is compared
            return type(error), str(error)
        return type(result), result.dtype, numpy.asarray(result).tolist()

    for x in arrays:
        for axis in (None, 0, -1, (0,), 1):
            for keepdims in (False, True):
                expected = outcome(getattr(numpy, name), x, axis, keepdims)
                assert repr(outcome(reduce, x, axis, keepdims)) == repr(expected), (x, axis, keepdims)

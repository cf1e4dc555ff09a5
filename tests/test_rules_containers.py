"""Rules and containers as the libraries built on autograd use them (issue 26, classes 11-13).

- 11: a user's VJP may give an array as the cotangent of a traced list (one row per item) and a
  Python number as the cotangent of an array argument (an indexed item): both hold at every order.
- 12: the Hessian of a function that indexes with a boolean mask selecting nothing.
- 13: NumPy's ``array_like`` arguments take lists everywhere: every function of ``adcore.numpy``,
  ``linalg`` and ``fft`` called with lists gives what it gives for the same values as arrays; and
  ``repeat`` takes an array of counts; a *traced* list or tuple (``adcore.builtins.tuple`` of traced
  values, as a library passes a cotangent) is read there as its values too, never as a scalar.
- 14: objects whose ``shape`` is a method (some libraries' tensor-likes, read by NumPy through
  ``__array__``) are joined and made arrays (``stack``, ``array``, ``concatenate``...) as NumPy does.
"""

import inspect
import warnings

import numpy
import pytest

import adcore
import adcore.numpy as np
from adcore import grad, hessian, jacobian
from adcore.builtins import list as traced_list
from adcore.graph import trace_graph
from adcore.extend import defvjp, primitive
from adcore.test_util import check_grads

# ---- 11: what a user's VJP may return ----


@primitive
def weighted_sum(params):
    """``2 params[0] + 3 params[1]`` of a list of two scalars; its VJP gives the list's cotangent as one array."""
    return params[0] * 2.0 + params[1] * 3.0


defvjp(weighted_sum, lambda ans, params: lambda g: np.stack([2.0 * g, 3.0 * g]))


@primitive
def twice_first(a, b):
    """``2 a``; the VJP of ``b`` is the Python number 0.0."""
    return a * 2.0


defvjp(twice_first, lambda ans, a, b: lambda g: 2.0 * g, lambda ans, a, b: lambda g: 0.0)


def test_an_array_as_the_cotangent_of_a_traced_list_holds_at_second_order(backend):
    x = backend.asarray([1.5, 2.0])

    def f(x):  # 2 x0^2 x1 + 3 x0 x1^2
        return weighted_sum(traced_list([x[0], x[1]])) * x[0] * x[1]

    expected_grad = [4 * 1.5 * 2.0 + 3 * 2.0**2, 2 * 1.5**2 + 6 * 1.5 * 2.0]
    expected_hessian = [[4 * 2.0, 4 * 1.5 + 6 * 2.0], [4 * 1.5 + 6 * 2.0, 6 * 1.5]]
    numpy.testing.assert_allclose(backend.to_numpy(grad(f)(x)), expected_grad)
    numpy.testing.assert_allclose(backend.to_numpy(hessian(f)(x)), expected_hessian)
    numpy.testing.assert_allclose(backend.to_numpy(grad(lambda x: grad(f)(x)[0])(x)), expected_hessian[0])


def test_an_array_as_the_cotangent_of_a_list_of_arguments_holds_at_second_order():
    def f(a, b):
        return weighted_sum(adcore.builtins.tuple((a, b))) * a * b

    rows = grad(lambda a, b: grad(f, argnum=[0, 1])(a, b)[0], argnum=[0, 1])(1.5, 2.0)
    numpy.testing.assert_allclose([float(r) for r in rows], [8.0, 18.0])


def test_a_python_number_as_the_cotangent_of_an_indexed_item_holds_at_second_order(backend):
    x = backend.asarray([1.5, 2.0])

    def f(x):  # 2 x0^2 x1 (the cotangent of x[1] in twice_first is 0.0)
        return twice_first(x[0], x[1]) * x[0] * x[1]

    numpy.testing.assert_allclose(backend.to_numpy(grad(f)(x)), [4 * 1.5 * 2.0, 2 * 1.5**2])
    numpy.testing.assert_allclose(backend.to_numpy(hessian(f)(x)), [[8.0, 6.0], [6.0, 0.0]])


@primitive
def twice_first_of_list(params):
    """``2 params[0]``; the VJP gives the list's cotangent as a tuple whose second item is the Python number 0.0."""
    return params[0] * 2.0


defvjp(twice_first_of_list, lambda ans, params: lambda g: (2.0 * g, 0.0))


def test_a_python_number_as_an_item_of_the_cotangent_of_a_traced_list_holds_at_every_order(backend):
    x = backend.asarray([1.5, 2.0])

    def f(x):  # 2 x0^2 x1 (the cotangent of x[1] in twice_first_of_list is 0.0)
        return twice_first_of_list(traced_list([x[0], x[1]])) * x[0] * x[1]

    numpy.testing.assert_allclose(backend.to_numpy(grad(f)(x)), [4 * 1.5 * 2.0, 2 * 1.5**2])
    numpy.testing.assert_allclose(backend.to_numpy(jacobian(lambda x: f(x) * x)(x))[0], [6 * 1.5**2 * 2.0, 2 * 1.5**3])
    numpy.testing.assert_allclose(backend.to_numpy(hessian(f)(x)), [[8.0, 6.0], [6.0, 0.0]])


# ---- 12: a mask that selects nothing ----


def test_hessian_through_a_mask_selecting_nothing(backend):
    x = backend.asarray([1.0, 2.0, 3.0])
    nothing = backend.asarray([False, False, False], dtype="bool")

    def f(x):
        return np.sum(x[nothing] ** 2) + np.sum(x**3)

    numpy.testing.assert_allclose(backend.to_numpy(hessian(f)(x)), numpy.diag([6.0, 12.0, 18.0]))
    matrix = backend.asarray(numpy.arange(6.0).reshape(3, 2))
    h = hessian(lambda m: np.sum(np.exp(m[nothing])) + np.sum(m**2))(matrix)
    numpy.testing.assert_allclose(backend.to_numpy(h), 2 * numpy.eye(6).reshape(3, 2, 3, 2))


# ---- 13: array_like arguments ----


def test_repeat_takes_an_array_of_counts(backend):
    a = backend.asarray([1.0, 2.0, 3.0])
    counts = backend.asarray([1, 0, 2], dtype="int64")
    numpy.testing.assert_allclose(backend.to_numpy(np.repeat(a, counts)), [1.0, 3.0, 3.0])
    g = grad(lambda a: np.sum(np.repeat(a, counts) ** 2))(a)
    numpy.testing.assert_allclose(backend.to_numpy(g), [2.0, 0.0, 12.0])
    numpy.testing.assert_allclose(np.repeat(numpy.array([1.0, 2.0]), numpy.int64(2)), [1.0, 1.0, 2.0, 2.0])


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_repeat_with_counts_is_one_gather_equal_to_numpys(backend, axis):
    """Counts per element give NumPy's values and errors, and one primitive in the trace (not one per element)."""
    raw = numpy.arange(1.0, 7.0).reshape(2, 3)
    counts = [2, 0, 1, 3, 1, 1] if axis is None else [1, 3] if axis == 0 else [2, 0, 1]
    a = backend.asarray(raw)
    numpy.testing.assert_array_equal(backend.to_numpy(np.repeat(a, counts, axis)), numpy.repeat(raw, counts, axis))
    check_grads(lambda a: np.repeat(a, counts, axis), modes=["fwd", "rev"], order=2)(a)
    names = [node.name for node in trace_graph(lambda a: np.repeat(a, counts, axis), a).nodes]
    assert names.count("take") == 1 and len(names) <= 3, names
    with pytest.raises(ValueError, match="negative"):
        np.repeat(a, [-1] + counts[1:], axis)


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
def test_an_array_of_traced_values_is_one_node(backend, shape):
    """``array``/``stack`` of k traced values records one stacking primitive (autograd's ``array_from_args``),
    not k reshapes and a concatenation; its derivatives in each mode, along every axis."""
    x = backend.asarray(numpy.linspace(0.2, 1.4, 6)[: int(numpy.prod(shape))].reshape(shape))

    def rows(x):
        return np.array([x, 2.0 * x, x * x])

    names = [node.name for node in trace_graph(rows, x).nodes]
    assert names.count("stack_args") == 1 and "concatenate_args" not in names and "reshape" not in names, names
    check_grads(rows, modes=["fwd", "rev"], order=2)(x)
    for axis in range(-len(shape) - 1, len(shape) + 1):
        check_grads(lambda x: np.stack([x, np.sin(x)], axis=axis), modes=["fwd", "rev"], order=2)(x)


@pytest.mark.parametrize("name", ["cholesky", "eig", "eigvals", "eigh", "eigvalsh"])
def test_linalg_takes_a_list_and_a_traced_list(name):
    matrix = [[2.0, 0.5], [0.5, 3.0]]
    fun = getattr(np.linalg, name)
    expected = getattr(numpy.linalg, name)(matrix)
    _assert_same(expected, fun(matrix))

    def total(x):  # the matrix as a list of traced entries
        result = fun([[x[0], x[1]], [x[1], x[2]]])
        values = result[0] if name in ("eig", "eigh") else result
        return np.sum(np.real(values))

    g = grad(total)(np.array([2.0, 0.5, 3.0]))
    assert numpy.all(numpy.isfinite(g)) and not numpy.allclose(g, 0.0)


def test_atleast_1d_and_diff_of_a_list_return_arrays():
    assert isinstance(np.atleast_1d([1.0, 2.0]), numpy.ndarray)
    numpy.testing.assert_allclose(np.diff([1.0, 4.0, 9.0]), [3.0, 5.0])


L1, L1B, I1 = [0.5, 1.5, 2.0], [1.0, 0.25, 3.0], [1, 0, 2]
L2, L2B, L23 = [[2.0, 0.5], [0.5, 3.0]], [[1.0, 2.0], [0.0, 1.5]], [[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]]
#: the argument lists every function is tried with (those NumPy refuses are skipped)
CANDIDATES = [(L1,), (L2,), (L23,), (I1,), ([L2, L2B],), (L1, L1B), (L2, L2B), (L1, I1), (I1, L1), (L2, L1[:2]), (L1, 1), (L2, 1)]
CANDIDATES += [([True, False, True], L1, L1B)]
#: not called: they write or read files, print, or set process-wide state
NOT_CALLED = {"save", "savez", "savez_compressed", "savetxt", "load", "loadtxt", "genfromtxt", "fromfile", "memmap"}
NOT_CALLED |= {"info", "source", "show_config", "show_runtime", "test", "printoptions", "set_printoptions"}
NOT_CALLED |= {"get_printoptions", "seterr", "seterrcall", "setbufsize"}
#: name -> why its result for lists differs from its result for arrays, on purpose
DIFFERS_ON_PURPOSE = {
    "empty_like": "its values are whatever memory held",
    "where": "of Python numbers and lists alone (no array), the result is a list, as autograd's where gives",
}


def _assert_same(expected, actual):
    if isinstance(expected, tuple):  # NumPy's named results (EigResult) compare as tuples
        assert isinstance(actual, tuple) and len(actual) == len(expected)
        for e, a in zip(expected, actual):
            _assert_same(e, a)
    elif isinstance(expected, list):
        assert type(actual) is list and len(actual) == len(expected)
        for e, a in zip(expected, actual):
            _assert_same(e, a)
    else:
        assert type(actual) is type(expected), f"{type(actual).__name__} instead of {type(expected).__name__}"
        if not isinstance(expected, (numpy.ndarray, numpy.generic, int, float, complex)):
            assert actual == expected
        elif getattr(expected, "dtype", None) != object:
            numpy.testing.assert_allclose(numpy.abs(actual), numpy.abs(expected), atol=1e-12)


def _same(expected, actual):
    try:
        _assert_same(expected, actual)
        return True
    except AssertionError:
        return False


def _arrays(args):
    return [numpy.array(a) if isinstance(a, list) else a for a in args]


def _calls(module, numpy_module):
    """``(name, args)`` for each function of ``module`` and each candidate that NumPy's function of that name
    takes as lists, and gives the same for as arrays (some of NumPy's read a list otherwise: ``histogramdd``)."""
    for name in sorted(dir(module)):
        fun, numpy_fun = getattr(module, name), getattr(numpy_module, name, None)
        if name.startswith("_") or name in NOT_CALLED or name in DIFFERS_ON_PURPOSE or not callable(numpy_fun):
            continue
        if inspect.isclass(numpy_fun) or inspect.ismodule(fun):
            continue
        for args in CANDIDATES:
            try:
                of_lists, of_arrays = numpy_fun(*args), numpy_fun(*_arrays(args))
            except Exception:
                continue
            if _same(of_arrays, of_lists):
                yield name, fun, args


def _differences(variants, skipped=()):
    """For each function and candidate of :func:`_calls` (but the names ``skipped``), each ``(label, call)`` of
    ``variants(fun, args)`` whose result differs from the function's for the values as arrays, or that raises
    where that does not, in words."""
    differ = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for module, numpy_module, prefix in ((np, numpy, ""), (np.linalg, numpy.linalg, "linalg."), (np.fft, numpy.fft, "fft.")):
            for name, fun, args in _calls(module, numpy_module):
                if prefix + name in skipped:
                    continue
                try:
                    of_arrays = fun(*_arrays(args))
                except Exception:
                    continue
                for label, call in variants(fun, args):
                    try:
                        result = call()
                    except Exception as error:
                        differ.append(f"{prefix}{name}{tuple(args)}{label}: {type(error).__name__}: {error}")
                        continue
                    if not _same(of_arrays, result):
                        differ.append(f"{prefix}{name}{tuple(args)}{label}: {result!r} instead of {of_arrays!r}")
    return differ


def test_every_function_takes_lists_where_numpy_does():
    """Each function gives for lists what it gives for the same values as arrays (an array, not the list),
    and raises for lists only where it raises for arrays."""
    differ = _differences(lambda fun, args: [("", lambda: fun(*args))])
    assert not differ, "\n".join(differ)


#: the functions that do not yet read a traced list as its values (target: none): primitives whose raw function reads
#: the list's ``dtype`` (an AttributeError), a traced bound of ``clip`` (no rule for it), and those that make a traced
#: value a NumPy value (``asmatrix``, ``min_scalar_type``, ``mintypecode``, the ``q`` of ``percentile``: refused)
TRACED_LIST_NOT_YET = {
    "cov", "corrcoef", "full_like", "polyder", "polyint", "roots", "unwrap", "clip",
    "asmatrix", "min_scalar_type", "mintypecode", "percentile", "nanpercentile",
}  # fmt: skip


def _value(result):
    """``result`` with every box taken off, in tuples and lists too."""
    if isinstance(result, (tuple, list)) and not adcore.core.isbox(result):
        return type(result)(_value(item) for item in result) if type(result) in (tuple, list) else result
    value = adcore.core.getval(result)
    return _value(value) if isinstance(value, (tuple, list)) else value


def _with_traced_list(fun, args, i):
    """``fun(*args)`` with ``args[i]`` (a list) traced as a list: the box a function gets for a list argument
    it is differentiated in, which a library passes on to NumPy's functions as it would the list."""
    results = []

    def traced(items):
        results.append(fun(*args[:i], items, *args[i + 1 :]))
        return np.sum(np.zeros(()))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the output does not depend on the list
        adcore.make_vjp(traced)(args[i])
    return _value(results[0])


def test_every_function_reads_a_traced_list_as_its_values():
    """A traced list where NumPy takes ``array_like`` gives what the values as an array give: ``einsum`` took
    one for a scalar (``einsum("i,i...", traced_tuple, m)`` multiplied ``m``'s column sums by it, a wrong
    number without an error), ``diff`` and ``cumsum`` raised, ``asarray`` returned the traced list, ``unique`` an
    object array."""

    def traced_lists(fun, args):
        for i, arg in enumerate(args):
            if isinstance(arg, list) and all(isinstance(item, (float, list)) for item in arg):
                yield f", argument {i} traced", lambda i=i: _with_traced_list(fun, args, i)

    differ = _differences(traced_lists, skipped=TRACED_LIST_NOT_YET)
    assert not differ, "\n".join(differ)


@pytest.mark.parametrize("subscripts", ["i,i...", "i,ij->j", "i,ij", "...,i...->..."])
def test_einsum_of_a_traced_tuple_is_einsum_of_its_values(subscripts):
    m = numpy.array([[1.0, 2.0], [3.0, 4.0]])
    x = numpy.array([0.76, -0.87])

    def f(x):
        return np.einsum(subscripts, adcore.builtins.tuple((x[0], x[1])), m)

    numpy.testing.assert_allclose(f(x), numpy.einsum(subscripts, x, m))
    columns = [numpy.einsum(subscripts, unit, m) for unit in numpy.eye(2)]  # f is linear in x
    numpy.testing.assert_allclose(jacobian(f)(x), numpy.stack(columns, axis=-1))
    check_grads(lambda x: np.sum(f(x) ** 2), modes=["rev", "fwd"], order=2)(x)


# ---- 14: objects whose shape is a method ----


class TensorLike:
    """A library's tensor-like: ``shape()`` is a method, and NumPy reads the values through ``__array__``."""

    def __init__(self, values):
        self.values = numpy.asarray(values, dtype=float)

    def shape(self):
        return self.values.shape

    def __array__(self, dtype=None, copy=None):
        return self.values if dtype is None else self.values.astype(dtype)


ROWS = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
JOINING = {
    "stack": lambda m, ts: m.stack(ts),
    "stack axis 1": lambda m, ts: m.stack(ts, axis=1),
    "array": lambda m, ts: m.array(ts),
    "array of one": lambda m, ts: m.array(ts[0]),
    "asarray": lambda m, ts: m.asarray(ts[0]),
    "concatenate": lambda m, ts: m.concatenate(ts),
    "hstack": lambda m, ts: m.hstack(ts),
    "vstack": lambda m, ts: m.vstack(ts),
    "dstack": lambda m, ts: m.dstack(ts),
    "column_stack": lambda m, ts: m.column_stack(ts),
    "atleast_2d": lambda m, ts: m.atleast_2d(ts[0]),
    "shape": lambda m, ts: m.shape(ts),
    "ndim": lambda m, ts: m.ndim(ts[0]),
    "size": lambda m, ts: m.size(ts[0]),
    "expand_dims": lambda m, ts: m.expand_dims(ts[0], 0),
    "sum": lambda m, ts: m.sum(ts[0]),
}


@pytest.mark.parametrize("name", JOINING)
def test_objects_whose_shape_is_a_method_are_read_as_numpy_reads_them(name):
    tensors = [TensorLike(row) for row in ROWS]
    expected, actual = JOINING[name](numpy, tensors), JOINING[name](np, tensors)
    assert type(actual) is type(expected)
    numpy.testing.assert_array_equal(actual, expected)


def test_a_traced_array_joined_with_objects_whose_shape_is_a_method():
    """The objects are constants of the derivative, the traced array keeps its own."""
    weights = numpy.arange(9.0).reshape(3, 3)

    def f(x):
        return np.sum(np.stack([TensorLike(ROWS[0]), x ** 2, TensorLike(ROWS[1])]) * weights)

    x = numpy.array([0.5, -1.0, 2.0])
    numpy.testing.assert_allclose(grad(f)(x), 2.0 * x * weights[1])
    numpy.testing.assert_allclose(jacobian(lambda x: np.array([x, TensorLike(ROWS[0])]))(x)[0], numpy.eye(3))

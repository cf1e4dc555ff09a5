"""Functions whose arguments may be iterables read each exactly once, in order (issue 33, item 1).

For every NumPy function that takes a collection of arrays (``stack``, ``concatenate``, the ``*stack``
family, ``block``, ``array``, ``asarray``, ``einsum``'s, ``broadcast_arrays``' and ``meshgrid``'s
operands, ``choose``, ``select``, ``piecewise``, ``lexsort``, ``append``, ``linalg.multi_dot``), given
as an iterable of each kind (list, tuple, generator, ``map``, iterator, and ``range`` of numbers) and
length, of traced values or not:

- ``adcore.numpy`` gives NumPy's value, or raises NumPy's exception type where NumPy refuses the
  argument (a generator in ``stack``: ``TypeError``); where NumPy makes an object array of it
  (``array`` of a generator), which adcore has none of, ``TypeError``;
- traced, the value is NumPy's and the derivatives match finite differences (``check_grads``, both modes);
- under the autograd alias (``autograd.numpy``), a call autograd 1.9.1 takes is taken (a generator in
  ``stack``), with NumPy's value; on numpy, autograd's own value and gradient when autograd is installed.

Before the fix an iterator was read once to look for traced values and what was left handed on:
``stack`` of a generator of three traced arrays stacked the last two (a silent wrong value).
"""

import importlib
import sys

import numpy
import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_properties import PROFILE

import adcore.numpy as np
from adcore import grad, make_vjp, use_backend
from adcore.compat import autograd as alias
from adcore.test_util import check_grads

if importlib.util.find_spec("autograd") is not None and alias._finder not in sys.meta_path:
    import autograd
    import autograd.numpy as autograd_numpy
else:  # pragma: no cover - autograd is a test dependency
    autograd = autograd_numpy = None

#: the module that ``import autograd.numpy`` gives under the alias
ALIAS_NUMPY = importlib.import_module(alias.MODULES["autograd.numpy"])

KINDS = {
    "list": list,
    "tuple": tuple,
    "generator": lambda items: (item for item in items),
    "map": lambda items: map(lambda item: item, items),
    "iterator": iter,
}


def _scaled(x, k):
    return x * (k + 1.0)


#: name -> call(m, items, conditions, kind): the function of module ``m`` (numpy, adcore.numpy or an
#: autograd.numpy) with its iterable argument made by ``kind`` from ``items`` (1-d arrays of length 3)
#: and, where it takes them, ``conditions`` (boolean arrays of the same shape)
CALLS = {
    "stack": lambda m, items, conditions, kind: m.stack(kind(items)),
    "stack_axis1": lambda m, items, conditions, kind: m.stack(kind(items), axis=1),
    "concatenate": lambda m, items, conditions, kind: m.concatenate(kind(items)),
    "concatenate_flat": lambda m, items, conditions, kind: m.concatenate(kind(items), axis=None),
    "hstack": lambda m, items, conditions, kind: m.hstack(kind(items)),
    "vstack": lambda m, items, conditions, kind: m.vstack(kind(items)),
    "dstack": lambda m, items, conditions, kind: m.dstack(kind(items)),
    "column_stack": lambda m, items, conditions, kind: m.column_stack(kind(items)),
    "block": lambda m, items, conditions, kind: m.block(kind(items)),
    "array": lambda m, items, conditions, kind: m.array(kind(items)),
    "asarray": lambda m, items, conditions, kind: m.asarray(kind(items)),
    "einsum": lambda m, items, conditions, kind: m.einsum(",".join("i" * len(items)) + "->i", *kind(items)),
    "broadcast_arrays": lambda m, items, conditions, kind: m.broadcast_arrays(*kind(items)),
    "meshgrid": lambda m, items, conditions, kind: m.meshgrid(*kind(items)),
    "choose": lambda m, items, conditions, kind: m.choose([k % len(items) for k in range(3)], kind(items)),
    "select": lambda m, items, conditions, kind: m.select(kind(conditions), kind(items), default=-1.0),
    "piecewise": lambda m, items, conditions, kind: m.piecewise(
        items[0], kind(conditions), kind([lambda x, k=k: _scaled(x, k) for k in range(len(items))])
    ),
    "lexsort": lambda m, items, conditions, kind: m.lexsort(kind(items)),
    "append": lambda m, items, conditions, kind: m.append(items[0], kind(items)),
    "multi_dot": lambda m, items, conditions, kind: m.linalg.multi_dot(kind([m.outer(item, item) for item in items])),
}
#: a result that is no derivative's business (integer positions)
NOT_DIFFERENTIABLE = {"lexsort"}


def _outcome(call):
    """``("value", numpy value or tuple of them)`` or ``("raises", exception type)``; an object array (NumPy's
    result for a generator in ``array``) counts as ``TypeError``, since adcore has no object arrays."""
    try:
        result = call()
    except Exception as error:  # compared with the exception NumPy (or autograd) raises
        return "raises", type(error)
    if isinstance(result, (tuple, list)):
        return "value", tuple(numpy.asarray(item) for item in result)
    result = numpy.asarray(result)
    return ("raises", TypeError) if result.dtype == object else ("value", result)


def _to_numpy(result, backend):
    if isinstance(result, (tuple, list)):
        return tuple(numpy.asarray(backend.to_numpy(item)) for item in result)
    return numpy.asarray(backend.to_numpy(result))


def _assert_same(got, expected, what):
    assert got[0] == expected[0], f"{what}: {got} where NumPy gives {expected}"
    if got[0] == "raises":
        assert issubclass(got[1], expected[1]), f"{what}: raises {got[1].__name__}, NumPy {expected[1].__name__}"
        return
    got, expected = got[1], expected[1]
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected), f"{what}: {len(got)} results, NumPy {len(expected)}"
        for g, e in zip(got, expected):
            numpy.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-12, err_msg=what)
    else:
        assert got.shape == expected.shape, f"{what}: shape {got.shape}, NumPy {expected.shape}"
        numpy.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12, err_msg=what)


def _joined(m, result):
    """A result that is a tuple of arrays as one array (for ``check_grads``)."""
    return m.stack([m.ravel(item) for item in result]) if isinstance(result, (tuple, list)) else result


def _skip_dask_piecewise(backend, name):
    if backend.name == "dask" and name == "piecewise":
        pytest.skip("piecewise on Dask: a piece of no entries fails in Dask's reshape (a value-dependent size; not issue 33's)")


def _drawn(seed, length):
    rng = numpy.random.default_rng(seed)
    raw = rng.standard_normal((length, 3))
    return raw, raw > 0


def _on(backend, raw, conditions):
    return [backend.asarray(row) for row in raw], [backend.asarray(c, "bool") for c in conditions]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", CALLS)
@PROFILE
@given(length=st.integers(1, 4), seed=st.integers(0, 2**16))
def test_an_iterable_argument_is_read_once_as_numpy_reads_it(backend, name, kind, length, seed):
    _skip_dask_piecewise(backend, name)
    call, make = CALLS[name], KINDS[kind]
    raw, conditions = _drawn(seed, length)
    expected = _outcome(lambda: call(numpy, list(raw), list(conditions), make))
    items, backend_conditions = _on(backend, raw, conditions)
    what = f"{name} of a {kind} of {length} arrays"
    _assert_same(_outcome(lambda: _to_numpy(call(np, items, backend_conditions, make), backend)), expected, what)

    x = backend.asarray(raw)

    def traced(x):
        return _joined(np, call(np, [x[i, ...] for i in range(length)], backend_conditions, make))

    got = _outcome(lambda: _to_numpy(make_vjp(traced)(x)[1], backend))
    if expected[0] == "value":
        expected = ("value", numpy.asarray(_joined(numpy, expected[1])))
    _assert_same(got, expected, f"{what}, traced")
    if expected[0] == "value" and name not in NOT_DIFFERENTIABLE:
        check_grads(traced, modes=("fwd", "rev"), order=1)(x)


@pytest.mark.parametrize("call_name", ["stack", "array", "asarray"])
def test_a_range_of_numbers_is_read_as_numpy_reads_it(backend, call_name):
    """``range`` is a sequence of numbers: ``stack(range(3))`` and ``array(range(3))`` are NumPy's arrays,
    made by the default backend."""
    fun = getattr(np, call_name)
    expected = _outcome(lambda: getattr(numpy, call_name)(range(3)))
    with use_backend(backend.name):
        _assert_same(_outcome(lambda: _to_numpy(fun(range(3)), backend)), expected, f"{call_name}(range(3))")


#: the calls that autograd 1.9.1 takes with any iterable (it reads the argument with a ``for`` loop)
AUTOGRAD_TAKES_ITERABLES = {"stack", "stack_axis1", "concatenate", "concatenate_flat", "hstack", "vstack", "column_stack", "select"}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", CALLS)
@PROFILE
@given(length=st.integers(1, 4), seed=st.integers(0, 2**16))
def test_under_the_alias_an_iterable_is_read_as_autograd_reads_it(backend, name, kind, length, seed):
    """``autograd.numpy`` under the alias takes a generator where autograd does (``stack``), with NumPy's
    value of the listed items, and refuses it where autograd does; on numpy its value and gradient are
    autograd's own."""
    _skip_dask_piecewise(backend, name)
    call, make = CALLS[name], KINDS[kind]
    raw, conditions = _drawn(seed, length)
    expected = _outcome(lambda: call(numpy, list(raw), list(conditions), make))
    if name in AUTOGRAD_TAKES_ITERABLES:
        expected = _outcome(lambda: call(numpy, list(raw), list(conditions), list))
    items, backend_conditions = _on(backend, raw, conditions)
    what = f"autograd.numpy.{name} of a {kind} of {length} arrays"
    _assert_same(_outcome(lambda: _to_numpy(call(ALIAS_NUMPY, items, backend_conditions, make), backend)), expected, what)
    if autograd is None or backend.name != "numpy" or name in NOT_DIFFERENTIABLE:
        return

    def scalar(m, grad_items_of):
        return lambda x: m.sum(_joined(m, call(m, grad_items_of(x), list(conditions), make)) ** 2)

    by_autograd = _outcome(lambda: autograd.grad(scalar(autograd_numpy, lambda x: [x[i, ...] for i in range(length)]))(raw))
    if by_autograd[0] == "value":  # else a derivative autograd lacks (broadcast_arrays'), checked above by check_grads
        by_alias = _outcome(lambda: grad(scalar(ALIAS_NUMPY, lambda x: [x[i, ...] for i in range(length)]))(raw))
        _assert_same(by_alias, by_autograd, f"{what}: gradient against autograd's")

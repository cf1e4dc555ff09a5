"""Writes to arrays between the forward and the backward pass do not change a derivative.

A recorded call keeps snapshots of its mutable constant arguments, and ``make_vjp``
of its input and of the output it returns (``adcore.core.snapshots``): each test
writes to one of them after tracing and checks that ``vjp`` gives exactly the
derivative at the values seen when tracing. Inside ``grad`` and the other operators
that pull back at once, constants are copied up to a budget and checked at the end
beyond it (``adcore.core.constants``): a write then raises, naming the array.
"""

import numpy
import pytest

import adcore.numpy as np
from adcore import elementwise_grad, grad, make_vjp, value_and_grad
from adcore.core import constants, reverse
from test_constants import flags


@pytest.fixture
def mutable(backend):
    if not backend.backend.mutable_arrays:
        pytest.skip(f"{backend.name} arrays cannot be written to")
    return backend


def assert_same(case, actual, expected):
    case.check_device(actual)
    numpy.testing.assert_array_equal(case.to_numpy(actual), expected)


def test_constant_of_multiply(mutable):
    weights = mutable.asarray([1.0, 2.0, 3.0])
    vjp, _ = make_vjp(lambda x: np.sum(np.multiply(weights, x)))(mutable.asarray([0.5, -1.0, 2.0]))
    weights[0] = 100.0
    assert_same(mutable, vjp(mutable.asarray(1.0)), [1.0, 2.0, 3.0])


def test_constant_of_matmul(mutable):
    matrix = mutable.asarray([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    vjp, _ = make_vjp(lambda x: np.sum(np.matmul(matrix, x)))(mutable.asarray([0.5, -1.0, 2.0]))
    matrix[1, 1] = -50.0
    assert_same(mutable, vjp(mutable.asarray(1.0)), [5.0, 7.0, 9.0])


def test_input_of_make_vjp(mutable):
    x = mutable.asarray([0.5, -1.0, 2.0])
    vjp, ans = make_vjp(lambda x: np.sum(x * x))(x)
    x[2] = 7.0
    assert_same(mutable, vjp(mutable.asarray(1.0)), [1.0, -2.0, 4.0])
    assert float(mutable.to_numpy(ans)) == 5.25


def test_output_of_make_vjp(mutable):
    original = [0.5, -1.0, 2.0]
    vjp, ans = make_vjp(np.exp)(mutable.asarray(original))
    expected = mutable.to_numpy(ans).copy()
    ans[0] = 100.0
    assert_same(mutable, vjp(mutable.asarray([1.0, 1.0, 1.0])), expected)


# ---- inside grad: constants are copied up to a budget, beyond it checked at the end; no flag is changed ----


@pytest.fixture
def checked_constants(monkeypatch):
    """Every constant past the copy budget: checked at the end of the backward pass, not copied."""
    monkeypatch.setattr(constants, "COPY_BUDGET", 0)
    monkeypatch.setattr(reverse, "COPY_BUDGET", 0)


def test_constant_written_inside_grad_after_use_gives_the_derivative_of_what_was_read(mutable):
    weights = mutable.asarray([1.0, 2.0, 3.0])

    def loss(x):
        y = np.sum(np.multiply(weights, x))
        weights[0] = 100.0  # after the product: its derivative is that of the values it read
        return y

    assert_same(mutable, grad(loss)(mutable.asarray([0.5, -1.0, 2.0])), [1.0, 2.0, 3.0])


def test_checked_constant_written_inside_grad_raises_naming_it(checked_constants):
    weights = numpy.array([1.0, 2.0, 3.0])

    def loss(x):
        y = np.sum(np.multiply(weights, x))
        weights[0] = 100.0  # would change the derivative of the product above
        return y

    named = r"grad: loss or another thread wrote to an array .*shape \(3,\) and dtype float64 used by multiply"
    with pytest.raises(ValueError, match=named):
        grad(loss)(numpy.array([0.5, -1.0, 2.0]))
    assert weights.flags.writeable and weights[0] == 100.0


@pytest.mark.parametrize("view", ["whole", "reversed", "broadcast", "strided", "transposed"])
def test_checked_constant_written_and_restored_or_left_alone_gives_the_derivative(checked_constants, view):
    owner = numpy.arange(1.0, 13.0).reshape(3, 4)
    constant = {
        "whole": owner,
        "reversed": owner[::-1],
        "broadcast": numpy.broadcast_to(owner[0], (3, 4)),
        "strided": owner[:, ::2],
        "transposed": owner.T,
    }[view]
    expected, ones = numpy.array(constant), numpy.ones(constant.shape)

    def restores(x):
        y = np.sum(np.multiply(constant, x))
        owner[0, 0] = -5.0
        owner[0, 0] = 1.0  # as it was: the derivative reads the values the product read
        return y

    numpy.testing.assert_array_equal(grad(restores)(ones), expected)

    def writes(x):
        y = np.sum(np.multiply(constant, x))
        owner[0, 0] = -5.0
        return y

    with pytest.raises(ValueError, match="wrote to an array that the derivative reads as a constant"):
        grad(writes)(ones)


def test_flags_of_constants_are_never_changed():
    data = numpy.arange(6.0).reshape(2, 3)
    view = data[:, 1]
    fixed = numpy.array([1.0, 2.0])
    fixed.flags.writeable = False
    handed_over = numpy.from_dlpack(numpy.array([1.0, 2.0]))  # memory a C extension owns (a capsule as base)
    arrays = (data, view, fixed, handed_over)
    before = [flags(a) for a in arrays]
    seen = []

    def loss(x):
        y = np.sum(np.matmul(data, x)) + np.sum(view * x[:2] * fixed * handed_over)
        seen.append([flags(a) for a in arrays])
        return y

    for operator in (grad, value_and_grad, elementwise_grad, make_vjp):
        operator(loss)(numpy.ones(3))
        assert seen.pop() == before == [flags(a) for a in arrays]
    with pytest.raises(ZeroDivisionError, match="user error"):
        grad(_fails_after_using(data))(numpy.ones(3))
    assert [flags(a) for a in arrays] == before


def _fails_after_using(constant):
    def fails(x):
        np.sum(np.matmul(constant, x))
        raise ZeroDivisionError("user error")

    return fails


def test_nested_grads_whose_constants_are_views_of_one_owner():
    """Issue 33, item 3: an inner grad inside an outer traced function, both reading views of one
    matrix made before either trace, the inner ending first; and the order reversed."""
    owner = numpy.arange(1.0, 7.0).reshape(2, 3)
    outer_view, inner_view = owner[0], owner[1]

    def inner(y):
        return np.sum(y * inner_view)

    def outer(x):
        y = np.sum(x * outer_view)
        return y + np.sum(grad(inner)(x) * x)

    def outer_inner_first(x):
        return np.sum(grad(inner)(x) * x) + np.sum(x * outer_view)

    for fun in (outer, outer_inner_first):
        numpy.testing.assert_array_equal(grad(fun)(numpy.ones(3)), owner[0] + owner[1])
        assert all(a.flags.writeable for a in (owner, outer_view, inner_view))


def test_make_vjp_copies_constants_so_they_stay_writable():
    weights = numpy.array([1.0, 2.0, 3.0])

    def loss(x):
        y = np.sum(np.multiply(weights, x))
        weights[0] = 100.0  # allowed: make_vjp keeps a copy
        return y

    vjp, _ = make_vjp(loss)(numpy.array([0.5, -1.0, 2.0]))
    numpy.testing.assert_array_equal(vjp(1.0), [1.0, 2.0, 3.0])


def test_constants_used_by_grads_in_two_threads_are_writable_after_both():
    import threading

    shared = numpy.linspace(0.0, 1.0, 50)
    barrier = threading.Barrier(2)
    errors = []

    def loss(x):
        y = np.sum(np.sin(x) * shared)
        barrier.wait(timeout=30)  # both traces hold the constant here
        return y

    def run():
        try:
            numpy.testing.assert_allclose(grad(loss)(numpy.ones(50)), numpy.cos(1.0) * shared)
        except Exception as error:  # noqa: BLE001 - reported by the main thread
            errors.append(error)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and shared.flags.writeable

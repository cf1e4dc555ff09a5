"""Writes to arrays between the forward and the backward pass do not change a derivative.

A recorded call keeps snapshots of its mutable constant arguments, and ``make_vjp``
of its input and of the output it returns (``adcore.core.snapshots``): each test
writes to one of them after tracing and checks that ``vjp`` gives exactly the
derivative at the values seen when tracing. Inside ``grad`` and the other operators
that pull back at once, NumPy constants are marked read-only instead of copied
(``adcore.core.reverse.Constants``): a write raises, naming the array.
"""

import numpy
import pytest

import adcore.numpy as np
from adcore import elementwise_grad, grad, make_vjp, value_and_grad


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


# ---- inside grad: constants are read-only (NumPy) or copied, never silently changed ----


def test_constant_written_inside_grad_raises_naming_it():
    weights = numpy.array([1.0, 2.0, 3.0])

    def loss(x):
        y = np.sum(np.multiply(weights, x))
        weights[0] = 100.0  # would change the derivative of the product above
        return y

    named = r"grad: loss wrote to a read-only array .*shape \(3,\) and dtype float64 used by multiply"
    with pytest.raises(ValueError, match=named):
        grad(loss)(numpy.array([0.5, -1.0, 2.0]))
    assert weights.flags.writeable and weights[0] == 1.0


def test_constants_are_read_only_during_grad_and_writable_after():
    data = numpy.arange(6.0).reshape(2, 3)
    view = data[:, 1]  # a view: the array owning its memory is marked too
    seen = []

    def loss(x):
        y = np.sum(np.matmul(data, x)) + np.sum(view * x[:2])
        seen.append((data.flags.writeable, view.flags.writeable))
        return y

    for operator in (grad, value_and_grad, elementwise_grad):
        operator(loss)(numpy.ones(3))
        assert seen.pop() == (False, False)
        assert data.flags.writeable and view.flags.writeable
    with pytest.raises(ZeroDivisionError, match="user error"):
        grad(_fails_after_using(data))(numpy.ones(3))
    assert data.flags.writeable


def _fails_after_using(constant):
    def fails(x):
        np.sum(np.matmul(constant, x))
        raise ZeroDivisionError("user error")

    return fails


def test_read_only_constant_stays_read_only_and_nested_grads_share_constants():
    fixed = numpy.array([1.0, 2.0])
    fixed.flags.writeable = False
    shared = numpy.array([3.0, 4.0])

    def inner(y):
        return np.sum(y * shared * fixed)

    def outer(x):
        g = grad(inner)(x)
        assert not shared.flags.writeable  # the outer trace still holds it after the inner grad returned
        return np.sum(g * x * shared)

    numpy.testing.assert_allclose(grad(outer)(numpy.ones(2)), shared**2 * fixed)
    assert not fixed.flags.writeable and shared.flags.writeable


def test_flags_are_given_back_for_memory_of_c_extensions_and_views_of_an_owner_another_trace_holds():
    handed_over = numpy.from_dlpack(numpy.array([1.0, 2.0]))  # memory a C extension owns (a capsule): copied, not marked
    owner = numpy.array([3.0, 4.0, 5.0, 6.0])
    first, second = owner[:2], owner[2:]
    seen = []

    def inner(y):
        z = np.sum(y * second)
        seen.append((handed_over.flags.writeable, second.flags.writeable))
        return z  # the inner trace ends while the outer one still holds second's owner

    def outer(x):
        y = np.sum(x * handed_over * first)
        return y + np.sum(grad(inner)(x) * x)

    numpy.testing.assert_array_equal(grad(outer)(numpy.ones(2)), [8.0, 14.0])
    assert seen == [(True, False)]
    assert all(a.flags.writeable for a in (handed_over, owner, first, second))


def test_constants_of_backends_without_read_only_flags_are_copied_inside_grad(mutable):
    if mutable.backend.read_only_flags:
        pytest.skip("NumPy marks constants read-only instead (the tests above)")
    weights = mutable.asarray([1.0, 2.0, 3.0])

    def loss(x):
        y = np.sum(np.multiply(weights, x))
        weights[0] = 100.0
        return y

    assert_same(mutable, grad(loss)(mutable.asarray([0.5, -1.0, 2.0])), [1.0, 2.0, 3.0])


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

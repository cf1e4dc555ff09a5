"""One declaration adds an elementwise primitive (issue 27): ``adcore.extend.elementwise`` in a user's module
gives it both derivative modes at every order, ``jacrev``'s batched rows, ``vmap``'s broadcasting, ``adcore.jit``
and a line of the coverage report, with no other list to edit. A declared fact is what the passes read."""

import warnings

import numpy
import pytest

import adcore.numpy as np
from adcore import grad, jacobian, jit, make_jvp, vmap
from adcore.core.ops import op_of
from adcore.coverage import batching, classify, declared_report
from adcore.extend import elementwise
from adcore.test_util import check_grads
from adcore.vmap import VmapFallbackWarning

# x / (1 + |x|), whose derivative 1 / (1 + |x|)**2 is (1 - |ans|)**2: a rule that reads the output only
softsign = elementwise("softsign", d=lambda ans, x: np.square(1.0 - np.abs(ans)), reads="output", raw=lambda x: x / (1 + abs(x)))

X = [-2.5, -0.3, 0.4, 1.7]


def exact(x):
    return 1.0 / (1.0 + numpy.abs(x)) ** 2


def test_the_declaration_is_one_entry_of_the_op_table():
    op = op_of(softsign)
    assert (op.name, op.family, op.kind, op.reads, op.batch_safe, op.api) == (
        "softsign",
        "elementwise",
        "elementwise",
        ("output",),
        True,
        None,
    )


def test_both_modes_at_every_order(backend):
    x = backend.asarray(X)
    check_grads(softsign, modes=["fwd", "rev"], order=2)(x)
    numpy.testing.assert_allclose(backend.to_numpy(grad(lambda x: np.sum(softsign(x)))(x)), exact(numpy.array(X)), rtol=1e-12)
    tangent = make_jvp(softsign)(x)(backend.asarray([1.0] * 4))[1]
    numpy.testing.assert_allclose(backend.to_numpy(tangent), exact(numpy.array(X)), rtol=1e-12)


def test_jacobian_rows_in_one_batched_pass_and_vmap_without_a_loop(backend):
    x = backend.asarray(X)
    numpy.testing.assert_allclose(backend.to_numpy(jacobian(softsign)(x)), numpy.diag(exact(numpy.array(X))), rtol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error", VmapFallbackWarning)
        batched = vmap(softsign)(backend.asarray([X, X[::-1]]))
    numpy.testing.assert_allclose(backend.to_numpy(batched)[1], numpy.array(X[::-1]) / (1 + numpy.abs(X[::-1])), rtol=1e-12)


def test_jit_replays_the_new_primitive_and_its_derivative(backend):
    def loss(x):
        return np.sum(softsign(x) * x)

    jitted = jit(grad(loss))
    jitted(backend.asarray(X))
    x = backend.asarray([0.5, -1.5, 2.0, 0.1])
    numpy.testing.assert_array_equal(backend.to_numpy(jitted(x)), backend.to_numpy(grad(loss)(x)))
    assert len(jitted.programs) == 1


def test_the_coverage_report_counts_it():
    assert classify(softsign, "softsign") == "vjp+jvp"
    assert batching(softsign) == "rule"
    assert "softsign" in declared_report()["elementwise"]["elementwise"]


def test_a_fact_outside_the_table_is_refused():
    with pytest.raises(ValueError, match="unknown kind"):
        elementwise("not_declared", d=lambda ans, x: 1.0, kind="convex", raw=lambda x: x)

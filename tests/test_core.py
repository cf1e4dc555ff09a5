"""The engine: tracing, nodes, nested traces, registries, and the two worked examples."""

import math
import pathlib
import subprocess
import sys
import weakref

import numpy
import pytest

import adcore.numpy as np
from adcore import grad, jacobian, make_jvp, make_vjp
from adcore.core import VJPNode, getval, toposort, trace, value_and_vjp
from adcore.core import make_vjp as make_vjp_core
from adcore.extend import defjvp, defvjp, notrace_primitive, primitive

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_reverse_worked_example():
    def f(x):
        return x * x

    assert grad(f)(3.0) == 6.0
    vjp, ans = make_vjp(f)(3.0)
    assert ans == 9.0
    assert vjp(1.0) == 6.0

    root = VJPNode.new_root()
    value, end_node = trace(root, f, 3.0)
    nodes = list(toposort(end_node))
    assert value == 9.0
    assert nodes == [end_node, root]
    assert end_node.fun is np.multiply
    assert end_node.parents == (root, root)


def test_forward_worked_example(backend):
    def f(x):
        return np.array([x[0] + x[1], x[0] * x[1], np.sin(x[0])])

    x = backend.asarray([2.0, 3.0])
    jvp = make_jvp(f)(x)
    _, column0 = jvp(backend.asarray([1.0, 0.0]))
    _, column1 = jvp(backend.asarray([0.0, 1.0]))
    numpy.testing.assert_allclose(backend.to_numpy(column0), [1.0, 3.0, math.cos(2.0)], rtol=1e-15)
    numpy.testing.assert_allclose(backend.to_numpy(column1), [1.0, 2.0, 0.0], rtol=1e-15)
    reverse = backend.to_numpy(jacobian(f)(x))
    numpy.testing.assert_allclose(
        numpy.stack([backend.to_numpy(column0), backend.to_numpy(column1)], axis=1), reverse, rtol=1e-15
    )


def test_nested_traces_do_not_confuse_perturbations():
    # Siskind & Pearlmutter's perturbation confusion example: d/dx [x * d/dy (x + y)] = 1.
    assert grad(lambda x: x * grad(lambda y: x + y)(1.0))(2.0) == 1.0

    def forward(x):
        return make_jvp(lambda y: x + y)(1.0)(1.0)[1] * x

    assert make_jvp(forward)(2.0)(1.0)[1] == 1.0


def test_higher_order_by_nesting():
    f = lambda x: x**4  # noqa: E731
    assert grad(grad(grad(f)))(2.0) == pytest.approx(24.0 * 2.0)
    forward_over_reverse = make_jvp(grad(f))(2.0)(1.0)[1]
    assert forward_over_reverse == pytest.approx(12.0 * 4.0)


def test_output_not_depending_on_input_gives_zeros():
    assert grad(lambda x: 5.0)(3.0) == 0.0
    assert make_jvp(lambda x: np.ones(2))(3.0)(1.0)[1].tolist() == [0.0, 0.0]


def test_exception_in_traced_function_leaves_no_state():
    def fails(x):
        np.sin(x)
        raise RuntimeError("user error")

    with pytest.raises(RuntimeError, match="user error"):
        grad(fails)(1.0)
    assert grad(lambda x: x * x)(3.0) == 6.0


def test_long_chain_has_no_recursion_limit():
    def chain(x):
        for _ in range(20_000):
            x = x + 1e-5 * np.sin(x)
        return x

    assert numpy.isfinite(grad(chain)(0.5))


def test_user_defined_primitive_through_extend():
    @primitive
    def cube(x):
        return x * x * x

    defvjp(cube, lambda ans, x: lambda g: g * 3.0 * x**2)
    defjvp(cube, lambda g, ans, x: g * 3.0 * x**2)
    assert grad(cube)(2.0) == 12.0
    assert make_jvp(cube)(2.0)(1.0)[1] == 12.0
    assert grad(grad(cube))(2.0) == 12.0


def test_missing_rules_name_primitive_argnum_and_mode():
    @primitive
    def opaque(x, y):
        return x + y

    defvjp(opaque, lambda ans, x, y: lambda g: g)
    with pytest.raises(NotImplementedError, match="VJP of .*opaque wrt argnum 1 is not defined"):
        grad(opaque, 1)(1.0, 2.0)
    with pytest.raises(NotImplementedError, match="JVP of .*opaque wrt argnum 0 is not defined"):
        make_jvp(opaque)(1.0, 2.0)(1.0)


def test_nondifferentiable_primitive_returns_raw_values():
    @notrace_primitive
    def count_positive(x):
        return int((x > 0).sum())

    def f(x):
        assert count_positive(x) == 2
        return np.sum(x) * count_positive(x)

    numpy.testing.assert_array_equal(grad(f)(numpy.array([1.0, 2.0, -1.0])), [2.0, 2.0, 2.0])


def test_import_adcore_loads_no_optional_library():
    optional = ("cupy", "torch", "jax", "dask", "array_api_strict", "numexpr")
    modules = "adcore, adcore.numpy, adcore.scipy, adcore.array_api"
    code = f"import sys, {modules}; print(sorted(m for m in {optional} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


def test_garbage_collector_is_paused_during_a_trace_and_restored_after():
    import gc

    seen = []

    def f(x):
        seen.append(gc.isenabled())
        return x * x

    assert gc.isenabled()
    grad(f)(3.0)
    with pytest.raises(ZeroDivisionError):
        grad(lambda x: 1 / 0)(1.0)
    assert seen[0] is False and gc.isenabled()


def test_single_use_backward_pass_frees_each_node_after_its_vjp():
    # the output of exp is saved by exp's VJP only; once that VJP has run, nothing holds it
    alive_during_inner_vjp = []
    saved = []

    @primitive
    def probe(x):
        return x

    defvjp(probe, lambda ans, x: lambda g: alive_during_inner_vjp.append(saved[0]() is not None) or g)

    def f(x):
        y = np.exp(probe(x))
        saved.append(weakref.ref(getval(y)))
        return np.sum(y)

    x = numpy.array([0.5, 1.0])
    _, gradient = value_and_vjp(f, x, lambda ans: 1.0)
    numpy.testing.assert_array_equal(gradient, numpy.exp(x))
    assert alive_during_inner_vjp == [False]


def test_reusable_vjp_keeps_saved_values():
    x = numpy.array([0.5, 1.0])
    vjp, _ = make_vjp_core(lambda x: np.sum(np.exp(x) * np.sin(x)), x)
    first = vjp(1.0)
    numpy.testing.assert_array_equal(vjp(1.0), first)
    numpy.testing.assert_array_equal(vjp(2.0), 2.0 * first)


# ---- what nodes keep, and the buffers the backward pass owns ----


def _kept_by_the_graph(f, x):
    """For ``f(x, keep)``, which calls ``keep(value)`` on intermediate values: whether each value is
    still alive when the backward pass starts, that is, kept by a node for its VJP."""
    refs, alive = [], []

    @primitive
    def probe(y):
        return y

    defvjp(probe, lambda ans, y: lambda g: alive.extend(ref() is not None for ref in refs) or g)
    grad(lambda x: probe(f(x, lambda value: refs.append(weakref.ref(getval(value))) or value)))(x)
    return alive


def test_nodes_keep_only_what_their_partials_read():
    x = numpy.linspace(0.5, 1.5, 4)
    # multiply reads its arguments, never its output; sqrt reads its output, not its input; exp its output
    assert _kept_by_the_graph(lambda x, keep: np.sum(keep(np.multiply(x, 2.0))), x) == [False]
    assert _kept_by_the_graph(lambda x, keep: np.sum(np.sqrt(keep(x * 2.0))), x) == [False]
    assert _kept_by_the_graph(lambda x, keep: np.sum(keep(np.exp(x))), x) == [True]
    assert _kept_by_the_graph(lambda x, keep: np.sum(keep(x * 2.0) * x), x) == [True]


def test_what_a_node_keeps_is_declared_in_the_op_table():
    """What each rule reads is a declared fact of the op table (no rule's code is read): a node of ``negative``
    (its partial is -1) keeps neither its input nor its output, one of ``divide`` its output only for ``y``."""
    from adcore.core.ops import op_of

    assert op_of(np.sqrt).reads == ("output",) and op_of(np.sin).reads == ("arguments",)
    assert op_of(np.negative).reads == ("nothing",) and op_of(np.divide).reads == ("arguments", "both")
    x = numpy.linspace(0.5, 1.5, 4)
    assert _kept_by_the_graph(lambda x, keep: np.sum(np.negative(keep(x * 2.0))), x) == [False]
    assert _kept_by_the_graph(lambda x, keep: np.sum(keep(np.negative(x))), x) == [False]
    assert _kept_by_the_graph(lambda x, keep: np.sum(keep(np.divide(x, 2.0))), x) == [False]
    assert _kept_by_the_graph(lambda x, keep: np.sum(keep(np.divide(2.0, x))), x) == [True]


def test_cotangents_given_by_the_user_are_never_written():
    x = numpy.linspace(0.5, 1.5, 1000)
    g = numpy.ones(1000)
    vjp, _ = make_vjp(lambda x: np.exp(np.sin(x) * 2.0) * x)(x)
    first = vjp(g)
    numpy.testing.assert_array_equal(g, numpy.ones(1000))
    numpy.testing.assert_array_equal(vjp(g), first)


def test_ownership_is_not_inherited_by_a_nested_backward_pass():
    from adcore import checkpoint

    x = numpy.linspace(0.5, 1.5, 1000)
    inner = checkpoint(lambda y: np.exp(y) * np.sin(y))

    def f(x):
        y = np.sin(x) * 3.0  # an owned cotangent reaches the checkpoint's VJP, which runs a backward pass
        return np.sum(inner(y) * y)

    y = numpy.sin(x) * 3.0
    inner_y, inner_prime = numpy.exp(y) * numpy.sin(y), numpy.exp(y) * (numpy.sin(y) + numpy.cos(y))
    expected = 3.0 * numpy.cos(x) * (inner_prime * y + inner_y)
    numpy.testing.assert_allclose(grad(f)(x), expected, rtol=1e-12)


def test_identity_vjps_pass_on_ownership_of_their_own_buffer_only():
    """``add``'s VJP gives back ``g`` itself: the pass's ownership goes with it to a single differentiated
    argument (the next product is then in place), never for both arguments or for the user's cotangent."""

    def f(x):
        a = np.sin(x) * 2.0
        b = a + 1.0  # one argument: an owned g passes on
        c = np.exp(b) * b
        return np.sin(c + a) + 1.0  # the user's g is not the pass's; c + a gives one owned g to two arguments

    x, g = numpy.linspace(0.5, 1.5, 1000), numpy.linspace(1.0, 2.0, 1000)
    a = numpy.sin(x) * 2.0
    c = numpy.exp(a + 1.0) * (a + 1.0)
    expected = g * numpy.cos(c + a) * (numpy.exp(a + 1.0) * (a + 2.0) + 1.0) * 2.0 * numpy.cos(x)
    vjp, _ = make_vjp(f)(x)
    numpy.testing.assert_allclose(vjp(g), expected, rtol=1e-12)
    numpy.testing.assert_array_equal(g, numpy.linspace(1.0, 2.0, 1000))
    numpy.testing.assert_allclose(vjp(g), expected, rtol=1e-12)
    numpy.testing.assert_allclose(grad(lambda x: np.sum(f(x)))(x), expected / g, rtol=1e-12)


def test_products_are_written_into_partials_the_rule_made_only():
    """Where the pass does not own ``g``, an elementwise VJP writes ``g * partial`` into the partial if its rule
    made it (``cos(x)`` for ``sin``), never into the node's output (``exp``'s partial), an argument (``multiply``'s)
    or a view of one: a reused VJP gives the same cotangent twice, and the user's arrays are unchanged."""
    from adcore.numpy.declare import made_by_rule, product_into

    g = numpy.linspace(1.0, 2.0, 4)
    g.flags.writeable = False  # the user's cotangent: read only
    made = numpy.cos(numpy.arange(4.0))
    expected = g * made
    assert product_into(g, made, False, made_by_rule(made, None, ())) is made
    numpy.testing.assert_array_equal(made, expected)
    ans, arg = numpy.exp(numpy.arange(4.0)), numpy.arange(4.0)
    assert not any(made_by_rule(value, ans, (arg,)) for value in (ans, arg))
    view = made[1:]  # made by the rule, but a view: memory not its own (Backend.owns_memory)
    assert product_into(g[1:], view, False, made_by_rule(view, None, ())) is not view
    numpy.testing.assert_array_equal(made, expected)
    zero_d = numpy.asarray(3.0)  # a 0-d partial is not written: NumPy's product of 0-d arrays is a scalar
    assert type(product_into(numpy.asarray(2.0), zero_d, False, made_by_rule(zero_d, None, ()))) is numpy.float64

    x, c = numpy.linspace(0.5, 1.5, 1000), numpy.linspace(-1.0, 1.0, 1000)
    user = g, x.copy(), c.copy()
    vjp, _ = make_vjp(lambda x: np.exp(x) * np.sin(x) * (x * c))(x)
    g = numpy.linspace(1.0, 2.0, 1000)
    expected = g * (numpy.exp(x) * (numpy.sin(x) + numpy.cos(x)) * x * c + numpy.exp(x) * numpy.sin(x) * c)
    numpy.testing.assert_allclose(vjp(g), expected, rtol=1e-12)
    numpy.testing.assert_allclose(vjp(g), expected, rtol=1e-12)
    numpy.testing.assert_array_equal(g, numpy.linspace(1.0, 2.0, 1000))
    numpy.testing.assert_array_equal(x, user[1])
    numpy.testing.assert_array_equal(c, user[2])


def test_backward_pass_follows_creation_order_on_shared_nodes():
    def f(x):
        a = np.sin(x)
        b = a * a
        c = np.exp(a) + b
        return np.sum(c * a + b)

    x = numpy.array([0.3, -0.7])
    a = numpy.sin(x)
    expected = numpy.cos(x) * (numpy.exp(a) * a + numpy.exp(a) + 3 * a * a + 2 * a)
    numpy.testing.assert_allclose(grad(f)(x), expected, rtol=1e-12)

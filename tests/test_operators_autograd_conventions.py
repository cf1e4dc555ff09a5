"""The operators where code written for autograd relies on its behaviour (issue 26, classes 6-9).

- ``jacobian`` answers wherever autograd's (always reverse mode) does, also for a primitive that
  has a VJP only and an output larger than the input, from one run of the function;
- every operator follows autograd's convention for complex inputs: the derivative of a real
  function of ``z = x + iy`` is ``df/dx - 1j df/dy`` (``grad`` does; ``jacobian`` must not drop
  the imaginary part in forward mode);
- a derivative of a function whose output does not depend on the input warns
  "Output seems independent of input." (a ``UserWarning``), as autograd's trace does, and only then;
- ``make_vjp`` and ``grad`` trace an ``ndarray`` subclass with the box type registered for it.
"""

import warnings

import numpy
import pytest

import adcore.numpy as np
import adcore.operators as operators
from adcore import (
    deriv,
    elementwise_grad,
    grad,
    hessian,
    holomorphic_grad,
    jacfwd,
    jacobian,
    jacrev,
    make_jvp,
    make_vjp,
    value_and_grad,
)
from adcore.core import Box, RuleNotDefined
from adcore.core.forward import tape_jvp
from adcore.extend import defjvp, defvjp, primitive
from adcore.numpy.boxes import ArrayBox

A = numpy.array([[0.3, -1.2], [0.8, 0.1], [-0.6, 0.9], [0.2, 0.7], [1.1, -0.4]])
X = numpy.array([0.4, -0.7])


# ---- class 6: jacobian never refuses where reverse mode works, and runs the function once ----


def vjp_only_primitive():
    """``sin`` as a user primitive with a VJP rule and no JVP rule."""

    @primitive
    def vjp_only_sin(x):
        return numpy.sin(x)

    defvjp(vjp_only_sin, lambda ans, x: lambda g: g * np.cos(x))
    return vjp_only_sin


def test_jacobian_of_a_primitive_with_a_vjp_only_and_a_larger_output(backend):
    if backend.name != "numpy":
        pytest.skip("the primitive's raw function is NumPy's sin")
    sin = vjp_only_primitive()
    a = backend.asarray(A)

    def f(x):
        return np.matmul(a, sin(x))  # 5 outputs of 2 inputs: forward mode would be the cheaper

    jac = jacobian(f)(backend.asarray(X))
    numpy.testing.assert_allclose(backend.to_numpy(jac), A * numpy.cos(X), rtol=1e-14)
    with pytest.raises(RuleNotDefined):
        jacfwd(f)(backend.asarray(X))


def test_jacobian_falls_back_to_reverse_when_a_jvp_rule_refuses_an_argument(backend):
    """A JVP rule registered for one argument only: found missing in the forward pass through the
    recorded graph, not before; the Jacobian still comes out, in reverse mode."""

    @primitive
    def scaled(x, y):
        return x * y

    defvjp(scaled, lambda ans, x, y: lambda g: g * y, lambda ans, x, y: lambda g: np.sum(g * x))
    defjvp(scaled, lambda g, ans, x, y: g * y)  # no JVP in y
    y = backend.asarray(3.0)
    x = backend.asarray(numpy.linspace(0.1, 1.0, 40))
    jac = jacobian(lambda s: scaled(x, s * y) * s)(backend.asarray(2.0))
    numpy.testing.assert_allclose(backend.to_numpy(jac), 4.0 * 3.0 * numpy.linspace(0.1, 1.0, 40), rtol=1e-14)


def test_jacobian_runs_the_function_once_in_either_mode(backend):
    a = backend.asarray(numpy.tile(A, (40, 1)))
    calls = []

    def wide(x):  # 200 outputs of 2 inputs: forward mode
        calls.append(1)
        return np.tanh(np.matmul(a, x)) * x[0]

    def narrow(x):  # 2 outputs of 200 inputs: reverse mode
        calls.append(1)
        return np.matmul(np.transpose(a), np.sin(x))

    x = backend.asarray(X)
    jac = jacobian(wide)(x)
    assert len(calls) == 1, "jacobian ran the function again for forward mode"
    numpy.testing.assert_allclose(backend.to_numpy(jac), backend.to_numpy(jacrev(wide)(x)), rtol=1e-13, atol=1e-15)
    calls.clear()
    z = backend.asarray(numpy.linspace(-1, 1, 200))
    jac = jacobian(narrow)(z)
    assert len(calls) == 1
    numpy.testing.assert_allclose(backend.to_numpy(jac), backend.to_numpy(jacfwd(narrow)(z)), rtol=1e-13, atol=1e-15)


def test_a_jacobian_in_forward_mode_is_differentiable(backend, monkeypatch):
    """The columns pushed through the recorded graph are traced by an outer derivative (a JVP rule is
    written with differentiable functions), as the rows pulled back are."""
    pushed = []
    monkeypatch.setattr(operators, "tape_jvp", lambda nodes, v: pushed.append(1) or tape_jvp(nodes, v))
    a = backend.asarray(numpy.tile(A, (8, 1)))

    def f(x):  # 40 outputs of 2 inputs, and cumsum's VJP is not batch-safe: forward mode
        return np.cumsum(np.tanh(np.matmul(a, x))) * x[0]

    def norm_of(jacobian_operator):
        return grad(lambda x: np.sum(jacobian_operator(f)(x) ** 2))(backend.asarray(X))

    ours = norm_of(jacobian)
    assert pushed, "jacobian did not take forward mode"
    numpy.testing.assert_allclose(backend.to_numpy(ours), backend.to_numpy(norm_of(jacrev)), rtol=1e-12)


def test_jacobian_of_a_container_argument_in_forward_mode(backend, monkeypatch):
    pushed = []
    monkeypatch.setattr(operators, "tape_jvp", lambda nodes, v: pushed.append(1) or tape_jvp(nodes, v))
    a, b = backend.asarray([0.5, -1.0]), backend.asarray(2.0)

    def f(a, b):  # 50 outputs of 3 inputs, cumsum: forward mode
        return np.cumsum(np.concatenate([a * b, np.sin(a) * b**2, np.reshape(b, (1,))] * 10))

    ours = jacobian(f, (0, 1))(a, b)
    assert len(pushed) == 2  # one batched forward pass per input: a's two columns at once, then b's
    expected = jacrev(f, (0, 1))(a, b)
    for block, reference in zip(ours, expected):
        numpy.testing.assert_allclose(backend.to_numpy(block), backend.to_numpy(reference), rtol=1e-14)


# ---- class 7: autograd's convention for complex inputs in every operator ----

Z = numpy.array([1.0 + 2.0j, -0.5 + 0.25j])


def modulus_squared_rows(z):
    """A real function of a complex input with more outputs than inputs."""
    return np.concatenate([np.abs(z) ** 2, np.real(z) * np.imag(z), np.real(z)] * 3)


def test_jacobian_of_a_real_function_of_a_complex_input_keeps_the_imaginary_part():
    """Each row is ``grad`` of that output entry: ``df/dx - 1j df/dy``."""
    jac = jacobian(modulus_squared_rows)(Z)
    rows = numpy.stack([grad(lambda z, i=i: modulus_squared_rows(z)[i])(Z) for i in range(jac.shape[0])])
    numpy.testing.assert_allclose(jac, rows, rtol=1e-14)
    x, y = Z.real, Z.imag
    numpy.testing.assert_allclose(jac[:2], numpy.diag(2 * x - 2j * y), rtol=1e-14)  # |z|^2 = x^2 + y^2
    numpy.testing.assert_allclose(jac[2:4], numpy.diag(y - 1j * x), rtol=1e-14)  # x y
    for mode in (jacfwd, jacrev):
        numpy.testing.assert_allclose(mode(modulus_squared_rows)(Z), jac, rtol=1e-14)


@pytest.mark.parametrize(
    "f",
    [lambda z: z * z * np.exp(z), lambda z: np.conj(z) * z**2, lambda z: np.real(z) + 1j * np.abs(z) ** 2],
    ids=["holomorphic", "conjugate", "real_and_imaginary"],
)
def test_forward_and_reverse_jacobians_agree_for_complex_inputs_and_outputs(f):
    z = numpy.concatenate([Z] * 3)[:5]
    reverse = jacrev(f)(z)
    numpy.testing.assert_allclose(jacfwd(f)(z), reverse, rtol=1e-13)
    numpy.testing.assert_allclose(jacobian(f)(z), reverse, rtol=1e-13)


def test_every_reverse_operator_gives_df_dx_minus_i_df_dy():
    def f(z):
        return np.sum(np.abs(z) ** 2 + 3.0 * np.imag(z))  # df/dx = 2x, df/dy = 2y + 3

    expected = 2 * Z.real - 1j * (2 * Z.imag + 3.0)
    numpy.testing.assert_allclose(grad(f)(Z), expected, rtol=1e-14)
    numpy.testing.assert_allclose(value_and_grad(f)(Z)[1], expected, rtol=1e-14)
    numpy.testing.assert_allclose(elementwise_grad(f)(Z), expected, rtol=1e-14)
    numpy.testing.assert_allclose(jacobian(f)(Z), expected, rtol=1e-14)
    numpy.testing.assert_allclose(holomorphic_grad(f)(Z), expected, rtol=1e-14)
    numpy.testing.assert_allclose(make_vjp(f)(Z)[0](1.0), expected, rtol=1e-14)
    numpy.testing.assert_allclose(hessian(lambda x: f(x * Z))(1.0), 2 * numpy.sum(numpy.abs(Z) ** 2), rtol=1e-14)


def test_deriv_of_a_complex_input_is_along_one_plus_i():
    """autograd's ``deriv`` pushes its complex ones, ``1 + 1j``: df/dx + df/dy for a real f."""
    numpy.testing.assert_allclose(deriv(lambda z: np.abs(z) ** 2)(Z), 2 * Z.real + 2 * Z.imag, rtol=1e-14)
    numpy.testing.assert_allclose(deriv(lambda x: x**3)(X), 3 * X**2, rtol=1e-14)


# ---- class 8: "Output seems independent of input." where autograd warns ----

INDEPENDENT = "Output seems independent of input."


@pytest.mark.parametrize(
    "derivative",
    [
        lambda f, x: make_vjp(f)(x)[0](f(x)),
        lambda f, x: grad(lambda x: np.sum(f(x)))(x),
        lambda f, x: elementwise_grad(f)(x),
        lambda f, x: jacobian(f)(x),
        lambda f, x: make_jvp(f)(x)(x)[1],
    ],
    ids=["make_vjp", "grad", "elementwise_grad", "jacobian", "make_jvp"],
)
def test_a_derivative_of_an_output_independent_of_the_input_warns(derivative):
    with pytest.warns(UserWarning, match=INDEPENDENT):
        zero = derivative(lambda x: np.ones(2) * 3.0, X)
    numpy.testing.assert_array_equal(zero, numpy.zeros_like(zero))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        derivative(lambda x: np.sin(x) + 3.0, X)


def test_an_output_that_is_a_constant_of_an_outer_trace_warns():
    def outer(y):
        return np.sum(grad(lambda x: y * 2.0)(X)) + y  # the inner output does not depend on x

    with pytest.warns(UserWarning, match=INDEPENDENT):
        assert float(grad(outer)(1.0)) == 1.0


def test_holomorphic_grad_of_a_real_input_warns_as_autograd():
    with pytest.warns(UserWarning, match="Input to holomorphic_grad is not complex"):
        assert complex(holomorphic_grad(lambda z: z * z)(2.0)) == 4.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        holomorphic_grad(lambda z: z * z)(2.0 + 0j)


# ---- class 9: an ndarray subclass of the argument keeps its class and its box type ----


class Tagged(numpy.ndarray):
    """An ndarray subclass, as a library defines one for its own arrays."""


@pytest.fixture
def tagged_box():
    """A box type registered for :class:`Tagged` (autograd's ``Box.type_mappings`` hook); it records the
    class of each value it boxes. Unregistered after the test."""
    boxed = []

    class TaggedBox(ArrayBox):
        __slots__ = []

        def __init__(self, value, trace_id, node):
            boxed.append(type(value))
            super().__init__(value, trace_id, node)

    TaggedBox.register(Tagged)
    yield boxed
    del Box.type_mappings[Tagged], Box.type_mappings[TaggedBox]
    Box.types.discard(TaggedBox)


@pytest.mark.parametrize(
    "operator",
    [
        lambda f, x: make_vjp(f)(x)[0](numpy.ones(3)),
        lambda f, x: grad(lambda x: np.sum(f(x)))(x),
        lambda f, x: jacobian(f)(x),
        lambda f, x: elementwise_grad(f)(x),
    ],
    ids=["make_vjp", "grad", "jacobian", "elementwise_grad"],
)
def test_an_ndarray_subclass_is_traced_by_its_own_box_type(tagged_box, operator):
    x = numpy.arange(1.0, 4.0).view(Tagged)
    seen = []

    def f(x):
        seen.append(type(x))
        return x * x

    derivative = operator(f, x)
    assert seen and all(box_type.__name__ == "TaggedBox" for box_type in seen), seen
    assert tagged_box and set(tagged_box) == {Tagged}, "the argument was traced as a plain ndarray"
    diagonal = numpy.diag(derivative) if derivative.ndim == 2 else derivative
    numpy.testing.assert_allclose(diagonal, 2 * numpy.arange(1.0, 4.0))


def test_make_vjp_keeps_the_subclass_and_still_protects_the_argument(tagged_box):
    x = numpy.arange(1.0, 4.0).view(Tagged)
    vjp, ans = make_vjp(lambda x: x * x)(x)
    assert type(ans) is Tagged
    x[:] = 10.0  # the caller writes to the argument after the call: the VJP is that of the values it read
    numpy.testing.assert_allclose(vjp(numpy.ones(3)), 2 * numpy.arange(1.0, 4.0))

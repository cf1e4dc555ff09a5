"""``grad``'s seed of ones is pulled back without multiplying by it (``adcore.core.Ones``), and a partial derivative
that the rule did not make (an argument, a constant, the output) is lent to the pass (``adcore.core.Lent``), never
written by it nor handed to the user.

The class tested: for every elementwise function of the spec table, at every broadcasting pair, in float64 and
float32 (complex128 for complex lines), the derivatives of ``grad`` and ``elementwise_grad`` equal bit for bit the
pullback of an array of ones by ``make_vjp`` (which multiplies by it); and a derivative whose value is a partial
the rule did not make shares no memory with any array of the user's or of the trace: writing into it changes
neither the user's arrays nor the next derivative.
"""

import numpy
import pytest
from test_numpy_rules import SPECS

import adcore.numpy as np
from adcore import elementwise_grad, grad, make_vjp
from adcore.core import vspace
from specs import inputs

#: one spec per elementwise function, pairs of arguments at each broadcasting pair
ELEMENTWISE = [spec for spec in SPECS if spec.elementwise]


def assert_same(given, expected, what):
    """Equal to the rounding of one product: the pullback multiplies by 1 where ``grad`` does not, exactly, but
    a complex rule's products may round in another order (NumPy's complex ``tanh`` differs by an ulp between
    the two passes, with the seed of ones or without)."""
    numpy.testing.assert_allclose(given, expected, rtol=4 * numpy.finfo(given.dtype).eps, atol=0, err_msg=what)


def _real_scalar(fun):
    """``sum(real(fun(*args)))``: a real scalar of any elementwise function's value."""
    return lambda *args: np.sum(np.real(fun(*args)))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("spec", ELEMENTWISE, ids=lambda spec: spec.name)
def test_grad_equals_the_pullback_of_an_array_of_ones(spec, backend):
    if backend.name in spec.skip:
        pytest.skip(spec.skip[backend.name])
    for dtype in spec.dtypes:
        args = inputs(backend, spec, dtype)
        for argnum in range(len(args)):
            loss = _real_scalar(spec.fun)
            vjp, ans = make_vjp(loss, argnum)(*args)
            expected = backend.to_numpy(vjp(vspace(ans).ones()))
            given = grad(loss, argnum)(*args)
            backend.check_device(given)
            assert given.dtype == args[argnum].dtype, f"{spec.name} in {dtype}: grad's dtype {given.dtype}"
            assert_same(backend.to_numpy(given), expected, f"{spec.name} in {dtype}, argnum {argnum}")
            vjp, ans = make_vjp(spec.fun, argnum)(*args)
            expected = backend.to_numpy(vjp(vspace(ans).ones()))
            if not vspace(ans).iscomplex and vspace(ans).shape == vspace(args[argnum]).shape:
                given = elementwise_grad(spec.fun, argnum)(*args)
                assert_same(backend.to_numpy(given), expected, f"{spec.name} in {dtype}: elementwise_grad")


@pytest.fixture
def mutable(backend):
    if not backend.backend.mutable_arrays:
        pytest.skip(f"{backend.name} arrays cannot be written to")
    return backend


#: functions whose derivative at ``x`` is (a view of) an array that the rule read, not one it made: the constant
#: ``c``, the input ``x``, a node's output, the function's output
LENT = {
    "a constant factor": lambda c: lambda x: np.sum(x * c),
    "a constant factor, broadcast": lambda c: lambda x: np.sum(x[:1] * c),
    "the input": lambda c: lambda x: np.sum(x * np.sin(c)) + np.sum(np.multiply(np.tanh(c), x)),
    "a node's output": lambda c: lambda x: np.sum(np.exp(x)),
    "a reshaped constant": lambda c: lambda x: np.sum(np.reshape(x, (3, 1)) * np.reshape(c, (3, 1))),
    "the output's factor in a second derivative": lambda c: grad(lambda x: np.sum(x * x * c)),
}


@pytest.mark.parametrize("case", list(LENT))
def test_a_lent_partial_is_never_written_nor_handed_out(case, mutable):
    c = mutable.asarray([1.0, 2.0, 3.0])
    x = mutable.asarray([0.5, -1.0, 2.0])
    loss = LENT[case](c)
    if case == "the output's factor in a second derivative":
        derivative = elementwise_grad(loss)(x)
    else:
        derivative = grad(loss)(x)
    first = mutable.to_numpy(derivative).copy()
    derivative[...] = -7.0  # the user's array now: writing to it must reach nothing else
    numpy.testing.assert_array_equal(mutable.to_numpy(c), [1.0, 2.0, 3.0])
    numpy.testing.assert_array_equal(mutable.to_numpy(x), [0.5, -1.0, 2.0])
    again = elementwise_grad(loss)(x) if case == "the output's factor in a second derivative" else grad(loss)(x)
    numpy.testing.assert_array_equal(mutable.to_numpy(again), first)

"""Every differentiable ``adcore.numpy`` primitive against finite differences.

One line per case in ``SPECS``: a name, the function, the shapes of its
arguments and the interval each argument is drawn from. Each case runs on every
backend, in float64 and float32, in forward and reverse mode, to order 2, and
its value is compared with NumPy in float64.
"""

from dataclasses import dataclass

import numpy
import pytest

import adcore.numpy as np
from adcore import grad, make_vjp
from adcore.test_util import check_grads

R = (-2.0, 2.0)  # any real
P = (0.2, 2.0)  # positive, away from 0
U = (-0.8, 0.8)  # inside (-1, 1)


@dataclass
class Spec:
    name: str
    fun: object
    shapes: tuple
    domains: tuple = (R, R, R)
    order: int = 2
    joint: bool = False  # differentiate w.r.t. all arguments at once (argnum a tuple), not one by one


def unary(fun, domain=R, shapes=((), (3,), (2, 3))):
    return [Spec(f"{fun.__name__}{shape}", fun, (shape,), (domain,)) for shape in shapes]


BROADCAST_PAIRS = [((3,), (3,)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2,)), ((2, 3), ())]


def binary(fun, domains=(R, R), pairs=BROADCAST_PAIRS):
    return [Spec(f"{fun.__name__}{a}{b}", fun, (a, b), domains) for a, b in pairs]


def cases(name, fun, shapes, domains=(R, R, R)):
    return [Spec(name, fun, shapes, domains)]


SPECS = [
    *unary(np.negative),
    *unary(np.abs, P),
    *unary(lambda x: np.abs(-x), P),
    *unary(np.exp),
    *unary(np.log, P),
    *unary(np.log1p, P),
    *unary(np.expm1),
    *unary(np.sqrt, P),
    *unary(np.square),
    *unary(np.sin),
    *unary(np.cos),
    *unary(np.tan, U),
    *unary(np.sinh),
    *unary(np.cosh),
    *unary(np.tanh),
    *unary(np.arcsin, U),
    *unary(np.arccos, U),
    *unary(np.arctan),
    *binary(np.add),
    *binary(np.subtract),
    *binary(np.multiply),
    *binary(np.divide, (R, P)),
    *binary(np.true_divide, (R, P)),
    *binary(np.power, (P, R)),
    *binary(np.maximum),
    *binary(np.minimum),
    *cases("power_int_exponent", lambda x: x**3, ((2, 3),)),
    *cases("rpow", lambda x: 2.0**x, ((2, 3),)),
    # both operands traced: array-api-strict raises on `raw + box` instead of deferring to the box
    Spec("operators", lambda x, y: (-x + y) * x / y - (x**2 @ y.T) @ y + 1.0 - 2.0 / y, ((2, 3), (2, 3)), (R, P), joint=True),
    *cases("where", lambda x, y: np.where(x > 0, x, y), ((2, 3), (3,))),
    *cases("clip", lambda x: np.clip(x, -1.0, 1.0), ((2, 3),)),
    *cases("clip_lower", lambda x: np.clip(x, -1.0, None), ((2, 3),)),
    *[
        Spec(f"sum_axis{axis}_keepdims{k}", lambda x, a=axis, k=k: np.sum(x, axis=a, keepdims=k), ((2, 3, 4),))
        for axis in (None, 0, -1, (0, 2))
        for k in (False, True)
    ],
    *[Spec(f"mean_axis{axis}", lambda x, a=axis: np.mean(x, axis=a), ((2, 3, 4),)) for axis in (None, 1, (0, 2))],
    *[Spec(f"prod_axis{axis}", lambda x, a=axis: np.prod(x, axis=a), ((2, 3, 4),)) for axis in (None, 1, (0, 2))],
    *[
        Spec(f"{f.__name__}_axis{axis}_keepdims{k}", lambda x, f=f, a=axis, k=k: f(x, axis=a, keepdims=k), ((2, 3, 4),))
        for f in (np.max, np.min)
        for axis in (None, 0, (1, 2))
        for k in (False, True)
    ],
    *[
        Spec(f"matmul{a}{b}", np.matmul, (a, b))
        for a, b in [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4))]
    ],
    *[
        Spec(f"dot{a}{b}", np.dot, (a, b))
        for a, b in [((3,), (3,)), ((2, 3), (3,)), ((2, 3), (3, 4)), ((), (3,)), ((2, 3, 4), (5, 4, 2))]
    ],
    *[
        Spec(f"tensordot_axes{axes}", lambda a, b, axes=axes: np.tensordot(a, b, axes=axes), shapes)
        for axes, shapes in [
            (1, ((2, 3), (3, 4))),
            (2, ((2, 3, 4), (3, 4))),
            (([1], [0]), ((2, 3), (3, 4))),
            (([0, 2], [1, 0]), ((2, 3, 4), (4, 2, 5))),
        ]
    ],
    *cases("reshape", lambda x: np.reshape(x, (3, 2)), ((2, 3),)),
    *cases("reshape_method", lambda x: x.reshape(6, 1), ((2, 3),)),
    *cases("ravel", np.ravel, ((2, 3),)),
    *cases("transpose", np.transpose, ((2, 3, 4),)),
    *cases("transpose_axes", lambda x: np.transpose(x, (1, -1, 0)), ((2, 3, 4),)),
    *cases("T", lambda x: x.T, ((2, 3),)),
    *cases("expand_dims", lambda x: np.expand_dims(x, (0, -1)), ((2, 3),)),
    *cases("squeeze", lambda x: np.squeeze(x, 1), ((2, 1, 3),)),
    *cases("broadcast_to", lambda x: np.broadcast_to(x, (4, 2, 3)), ((2, 1),)),
    *cases("concatenate", lambda x, y: np.concatenate([x, y, x], axis=1), ((2, 3), (2, 1))),
    *cases("concatenate_flat", lambda x, y: np.concatenate([x, y], axis=None), ((2, 3), (4,))),
    *cases("stack", lambda x, y: np.stack([x, y], axis=-1), ((2, 3), (2, 3))),
    *cases("array_of_boxes", lambda x, y: np.array([[x[0], y], [y, x[1]]]), ((2,), ())),
    *cases("getitem_slices", lambda x: x[1:, ::-2], ((3, 4),)),
    *cases("getitem_int", lambda x: x[1, -1], ((3, 4),)),
    *cases("getitem_none_ellipsis", lambda x: x[None, ..., 1], ((3, 4),)),
    *cases("getitem_mask", lambda x: x[x > 0.0] * 1.0, ((2, 3),)),
    *cases("iterate", lambda x: np.stack([row * i for i, row in enumerate(x)]), ((3, 2),)),
    *cases("astype", lambda x: np.astype(x * 2.0, np.float64) * 3.0, ((2, 3),)),
]


def _inputs(backend, spec, dtype, seed=0):
    rng = numpy.random.default_rng(seed)
    return [backend.asarray(rng.uniform(*domain, size=shape), dtype) for shape, domain in zip(spec.shapes, spec.domains)]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.name)
def test_derivatives(spec, dtype, backend):
    args = _inputs(backend, spec, dtype)
    for argnum in [tuple(range(len(args)))] if spec.joint else range(len(args)):
        check_grads(spec.fun, argnum, modes=("fwd", "rev"), order=spec.order)(*args)


@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.name)
def test_value_matches_numpy(spec, backend):
    """The value computed while tracing equals NumPy's, on the input's backend and device."""
    args = _inputs(backend, spec, "float64")
    expected = spec.fun(*[backend.to_numpy(a) for a in args])
    _, result = make_vjp(spec.fun)(*args)
    backend.check_device(result)
    numpy.testing.assert_allclose(backend.to_numpy(result), expected, rtol=1e-12, atol=1e-12)


def test_getitem_integer_array_accumulates_repeated_indices(backend):
    x = backend.asarray([1.0, 2.0, 3.0])
    index = backend.backend.from_numpy(numpy.array([0, 0, 2]), device=backend.device)
    g = grad(lambda x: np.sum(x[index] * backend.asarray([1.0, 10.0, 100.0])))(x)
    numpy.testing.assert_array_equal(backend.to_numpy(g), [11.0, 0.0, 100.0])
    check_grads(lambda x: x[index] ** 2)(x)


def test_prod_gradient_with_zero_entries(backend):
    g = grad(lambda x: np.prod(x))(backend.asarray([2.0, 0.0, 3.0]))
    numpy.testing.assert_array_equal(backend.to_numpy(g), [0.0, 6.0, 0.0])
    g = grad(lambda x: np.prod(x))(backend.asarray([0.0, 0.0, 3.0]))
    numpy.testing.assert_array_equal(backend.to_numpy(g), [0.0, 0.0, 0.0])
    g = grad(lambda x: np.sum(np.prod(x, axis=1)))(backend.asarray([[2.0, 0.0], [4.0, 5.0]]))
    numpy.testing.assert_array_equal(backend.to_numpy(g), [[0.0, 2.0], [5.0, 4.0]])

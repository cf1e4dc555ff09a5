"""Every differentiable ``adcore.numpy`` primitive against finite differences.

One line per case in ``SPECS``: a name, the function, the shapes of its
arguments and the interval each argument is drawn from. Each case runs on every
backend, in float64 and float32, in forward and reverse mode, to order 2, and
its value is compared with NumPy in float64.
"""

import numpy

import adcore.numpy as np
from adcore import grad
from adcore.test_util import check_grads
from specs import COMPLEX, P, R, Spec, U, binary, cases, spec_tests, unary

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
    *cases("swapaxes", lambda x: np.swapaxes(x, 0, -1), ((2, 3, 4),)),
    *cases("matrix_transpose", np.matrix_transpose, ((2, 3, 4),)),
    *cases("moveaxis", lambda x: np.moveaxis(x, [0, 1], [-1, 0]), ((2, 3, 4),)),
    *[
        Spec(f"diagonal{offset}{axes}", lambda x, o=offset, a=axes: np.diagonal(x, o, *a), ((3, 4, 2),))
        for offset in (0, 1, -2)
        for axes in ((0, 1), (2, 0), (-1, -2))
    ],
    *cases("trace", lambda x: np.trace(x, 1), ((3, 4),)),
    *cases("tril", lambda x: np.tril(x, -1), ((2, 3, 4),)),
    *cases("triu", lambda x: np.triu(x, 1), ((4, 3),)),
    *cases("getitem_slices", lambda x: x[1:, ::-2], ((3, 4),)),
    *cases("getitem_int", lambda x: x[1, -1], ((3, 4),)),
    *cases("getitem_none_ellipsis", lambda x: x[None, ..., 1], ((3, 4),)),
    *cases("getitem_mask", lambda x: x[x > 0.0] * 1.0, ((2, 3),)),
    *cases("iterate", lambda x: np.stack([row * i for i, row in enumerate(x)]), ((3, 2),)),
    *cases("astype", lambda x: np.astype(x * 2.0, np.float64) * 3.0, ((2, 3),)),
    # complex inputs (autograd's convention: the gradient of a real f of z is df/dx - i df/dy)
    *[s for f in (np.exp, np.sin, np.cos, np.tanh, np.square, np.negative, np.conj) for s in unary(f, dtypes=COMPLEX)],
    *unary(np.log, P, dtypes=COMPLEX),
    *unary(np.sqrt, P, dtypes=COMPLEX),
    *binary(np.multiply, dtypes=COMPLEX),
    *binary(np.divide, (R, P), dtypes=COMPLEX),
    *binary(np.add, dtypes=COMPLEX),
    *cases("real_of_complex", lambda z: np.real(z) ** 2 + np.imag(z) * 3.0, ((2, 3),), dtypes=COMPLEX),
    *cases("abs_of_complex", lambda z: np.abs(z) ** 2, ((2, 3),), (P,), dtypes=COMPLEX),
    *cases("complex_matmul", lambda a, b: a @ b, ((2, 3), (3,)), dtypes=COMPLEX, joint=True),
    *cases("sum_of_complex", lambda z: np.sum(z * np.conj(z), axis=0), ((2, 3),), dtypes=COMPLEX),
]


test_derivatives, test_value_matches_numpy = spec_tests(SPECS)


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

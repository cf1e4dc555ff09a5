"""adcore.numpy beyond the rules: creation functions, traced-array behaviour, broadcasting by hypothesis."""

import numpy
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

import adcore
import adcore.numpy as np
from adcore import grad
from adcore.core import isbox
from adcore.test_util import check_grads


@pytest.mark.parametrize(
    "make, expected",
    [
        (lambda: np.zeros((2, 3)), numpy.zeros((2, 3))),
        (lambda: np.ones(4, dtype=np.float32), numpy.ones(4, dtype=numpy.float32)),
        (lambda: np.full((2,), 7.0), numpy.full((2,), 7.0)),
        (lambda: np.eye(3, k=1), numpy.eye(3, k=1)),
        (lambda: np.arange(1, 7, 2), numpy.arange(1, 7, 2)),
        (lambda: np.linspace(0.0, 1.0, 5), numpy.linspace(0.0, 1.0, 5)),
        (lambda: np.array([[1.0, 2.0], [3.0, 4.0]]), numpy.array([[1.0, 2.0], [3.0, 4.0]])),
        (lambda: np.asarray([1.0, 2.0], dtype=np.float32), numpy.array([1.0, 2.0], dtype=numpy.float32)),
    ],
)
def test_creation_functions_honour_the_default_backend(backend, make, expected):
    if backend.device is not None:
        pytest.skip("creation functions make arrays on the default device")
    with adcore.use_backend(backend.name):
        made = make()
    backend.check_device(made)
    assert str(made.dtype).split(".")[-1] == str(expected.dtype)
    numpy.testing.assert_array_equal(backend.to_numpy(made), expected)


def test_like_functions_follow_the_argument(backend):
    x = backend.asarray([[1.0, 2.0]], "float32")
    for made in (np.zeros_like(x), np.ones_like(x), np.full_like(x, 3.0)):
        backend.check_device(made)
        assert made.dtype == x.dtype and made.shape == x.shape


def test_traced_array_behaves_like_an_array(backend):
    seen = {}

    def f(x):
        seen.update(shape=x.shape, ndim=x.ndim, size=x.size, dtype=x.dtype, len=len(x), T=x.T.shape)
        seen["rows"] = [row.shape for row in x]
        mask = x > 0.0
        seen["mask_is_plain"] = not isbox(mask)
        assert bool(x[0, 0] > 0.0)
        return np.sum(np.where(mask, x, 0.0)) + x.sum() + x.mean(axis=0).max()

    x = backend.asarray([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]])
    grad(f)(x)
    assert seen == {
        "shape": (2, 3),
        "ndim": 2,
        "size": 6,
        "dtype": x.dtype,
        "len": 2,
        "T": (3, 2),
        "rows": [(3,), (3,)],
        "mask_is_plain": True,
    }


def test_float32_stays_float32_through_mixed_python_scalars(backend):
    x = backend.asarray([0.5, 1.5], "float32")
    g = grad(lambda x: np.sum(2.0 * np.exp(x) / 3.0 + x**2.0))(x)
    assert g.dtype == x.dtype


@settings(max_examples=25, deadline=None)
@given(
    shapes=mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3),
    op=st.sampled_from([np.add, np.subtract, np.multiply, np.divide, np.maximum]),
)
def test_binary_rules_undo_any_broadcasting(shapes, op):
    rng = numpy.random.default_rng(0)
    x, y = (rng.uniform(0.5, 2.0, size=shape) for shape in shapes.input_shapes)
    check_grads(op, (0, 1), modes=("fwd", "rev"), order=1)(x, y)
    gx, gy = grad(lambda x, y: np.sum(op(x, y)), (0, 1))(x, y)
    assert numpy.shape(gx) == numpy.shape(x) and numpy.shape(gy) == numpy.shape(y)

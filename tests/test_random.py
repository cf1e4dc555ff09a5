"""adcore.numpy.random: NumPy's random numbers under autograd's module paths, on the default backend."""

import numpy
import pytest

import adcore
import adcore.numpy as np
import adcore.numpy.random as npr
from adcore import grad


def test_module_paths_and_shapes():
    from adcore.numpy.random import RandomState, default_rng, randn

    assert np.random is npr and npr.randn is randn
    assert set(numpy.random.__all__) <= set(dir(npr))
    assert RandomState(0).randn(3, 2).shape == (3, 2)
    assert npr.normal(1.0, 2.0, size=(4,)).shape == (4,)
    assert npr.rand(2, 5).shape == (2, 5)
    assert npr.randint(0, 3, size=7).shape == (7,)
    assert default_rng(0).standard_normal((2, 3)).shape == (2, 3)
    assert isinstance(npr.rand(), float)


def test_same_streams_as_numpy():
    rng = npr.RandomState(0)
    assert isinstance(rng, numpy.random.RandomState)
    numpy.testing.assert_array_equal(rng.randn(3, 2), numpy.random.RandomState(0).randn(3, 2))
    numpy.testing.assert_array_equal(npr.RandomState(0).randn(4), npr.RandomState(0).randn(4))
    numpy.testing.assert_array_equal(npr.default_rng(5).normal(size=3), numpy.random.default_rng(5).normal(size=3))
    npr.seed(3)
    first = npr.randn(5)
    numpy.random.seed(3)  # the module functions share NumPy's global state
    numpy.testing.assert_array_equal(first, numpy.random.randn(5))


def test_default_backend_is_respected(backend):
    with adcore.use_backend(backend.name):
        rng = npr.RandomState(0)
        sample = rng.randn(3, 2)
        state = rng.get_state()
        after = rng.normal(size=4)
        rng.set_state(state)
        again = rng.normal(size=4)
        for value in (sample, after, npr.randn(2), npr.default_rng(1).uniform(size=2), npr.permutation(5)):
            assert type(value) is type(backend.asarray([0.0])), f"expected a {backend.name} array, got {type(value)}"
    numpy.testing.assert_array_equal(backend.to_numpy(sample), numpy.random.RandomState(0).randn(3, 2))
    numpy.testing.assert_array_equal(backend.to_numpy(after), backend.to_numpy(again))


def test_samples_are_differentiable_inputs():
    x = npr.RandomState(1).randn(3)
    numpy.testing.assert_allclose(grad(lambda x: np.sum(x**2))(x), 2 * x)


def test_traced_arguments_are_refused():
    with pytest.raises(TypeError, match="traced array cannot become a NumPy array"):
        grad(lambda mu: np.sum(npr.normal(mu, 1.0, size=3)))(np.zeros(3))

"""Dask stays lazy: tracing and the backward pass only build a task graph, computed once by the user."""

import numpy
import pytest

dask = pytest.importorskip("dask", reason="the dask backend needs dask (the [dask] extra)")
da = pytest.importorskip("dask.array")

import adcore.numpy as np  # noqa: E402 - after the skip: without dask the module is skipped
from adcore import grad, value_and_grad  # noqa: E402


class CountComputations(dask.callbacks.Callback):
    """Counts the graphs Dask computes (``_start`` runs once per ``compute``)."""

    def __init__(self):
        super().__init__()
        self.computations = 0

    def _start(self, dsk):
        self.computations += 1


def chunked(data, chunks):
    return da.from_array(numpy.asarray(data, dtype="float64"), chunks=chunks)


def loss(x):
    y = np.tanh(x)
    return np.sum(y**2 * np.exp(-x)) + np.sum(np.cumsum(y, axis=0)[-1]) + np.sum(x @ np.transpose(x))


def test_tracing_and_the_backward_pass_compute_nothing():
    x = chunked(numpy.linspace(-1.0, 1.0, 24).reshape(6, 4), (2, 2))
    with CountComputations() as counter:
        value, gradient = value_and_grad(loss)(x)
    assert counter.computations == 0
    assert isinstance(value, da.Array) and isinstance(gradient, da.Array)


def test_value_and_gradient_are_computed_in_one_pass_over_shared_intermediates():
    data = numpy.linspace(-1.0, 1.0, 24).reshape(6, 4)
    calls = []

    def counted(block):
        if block.size:  # Dask also calls it on an empty block, to learn the output's type
            calls.append(block.shape)
        return block

    x = chunked(data, (3, 4)).map_blocks(counted, dtype="float64")
    value, gradient = value_and_grad(loss)(x)
    with CountComputations() as counter:
        value, gradient = dask.compute(value, gradient)
    assert counter.computations == 1
    assert len(calls) == 2, "each chunk of the input is made once for the value and the gradient together"
    expected_value, expected_gradient = value_and_grad(loss)(data)
    numpy.testing.assert_allclose(value, expected_value, rtol=1e-13)
    numpy.testing.assert_allclose(gradient, expected_gradient, rtol=1e-13)


@pytest.mark.parametrize(
    "fun",
    [
        lambda x: np.sum(np.sin(x) * x),
        lambda x: np.sum(np.where(x > 0, np.log1p(np.abs(x)), x)),
        lambda x: np.sum(np.maximum(x, 0.1) @ np.transpose(x)),
    ],
    ids=["elementwise", "where", "matmul"],
)
def test_the_cotangent_is_chunked_like_the_primal(fun):
    data = numpy.linspace(-1.0, 1.0, 24).reshape(6, 4)
    x = chunked(data, (2, 4))
    gradient = grad(fun)(x)
    assert gradient.chunks == x.chunks
    numpy.testing.assert_allclose(gradient.compute(), grad(fun)(data), rtol=1e-13)


@pytest.mark.parametrize(
    "fun",
    [
        lambda x: np.sum(np.mean(x, axis=0) ** 2),
        lambda x: np.sum(np.sort(x, axis=1)[:, :2]),
        lambda x: np.sum(x[numpy.array([0, 2, 0]), :] ** 2),
        lambda x: np.sum(x[:, 1:] * x[:, :-1]),
    ],
    ids=["reduction", "sort", "repeated-index", "slices"],
)
def test_cotangents_that_reductions_and_scatters_make_are_lazy_and_right(fun):
    data = numpy.linspace(-1.0, 1.0, 24).reshape(6, 4)
    gradient = grad(fun)(chunked(data, (2, 4)))
    assert isinstance(gradient, da.Array)
    numpy.testing.assert_allclose(gradient.compute(), grad(fun)(data), rtol=1e-13)


def test_the_cotangent_of_a_reduction_over_a_large_axis_stays_in_chunks():
    """The sum's VJP broadcasts the cotangent back along the summed axis: in Dask's automatic
    chunks, not one block of 2**24 float64 (128 MiB, Dask's default chunk size, would be one)."""
    x = da.ones((2**25,), chunks=2**22)
    gradient = grad(lambda x: np.sum(np.sin(x)))(x)
    assert len(gradient.chunks[0]) > 1
    assert max(gradient.chunks[0]) * 8 <= dask.utils.parse_bytes(dask.config.get("array.chunk-size"))


def test_a_function_dask_cannot_run_raises_naming_it():
    from adcore.scipy import linalg

    x = chunked(numpy.eye(3) * 2.0, (3, 3))
    with pytest.raises(NotImplementedError, match=r"the dask backend has no scipy\.linalg\.lu_factor"):
        grad(lambda x: np.sum(linalg.lu_factor(x)[0]))(x)


def test_a_boolean_mask_is_refused_with_the_way_out():
    """``x[mask]`` has a size Dask cannot know lazily; ``where`` keeps the shape and works."""
    x = chunked([1.0, 2.0, 3.0], 2)
    with pytest.raises(NotImplementedError, match=r"unknown chunk sizes.*use np\.where\(mask, x, 0\.0\)"):
        grad(lambda x: np.sum(x[x > 1.5]))(x)
    numpy.testing.assert_array_equal(grad(lambda x: np.sum(np.where(x > 1.5, x, 0.0)))(x).compute(), [0.0, 1.0, 1.0])


def logistic_loss(w, X):
    return np.mean(np.log1p(np.exp(-(X @ w))))


@pytest.mark.parametrize("differentiated", ["numpy weights", "dask data"])
def test_numpy_arrays_beside_dask_arrays_are_dask_constants(differentiated):
    """As in Dask (``X @ w`` with ``X`` Dask and ``w`` NumPy): the value and the derivative are lazy Dask
    arrays, computed in one pass, equal to NumPy's."""
    rng = numpy.random.default_rng(0)
    data, w = rng.standard_normal((40, 4)), rng.standard_normal(4)
    X = chunked(data, (10, 4))
    argnum, args, numpy_args = (0, (w, X), (w, data)) if differentiated == "numpy weights" else (1, (w, X), (w, data))
    with CountComputations() as counter:
        value, gradient = value_and_grad(logistic_loss, argnum)(*args)
        hessian_row = grad(lambda w, X: grad(logistic_loss)(w, X)[0])(*args) if argnum == 0 else None
    assert counter.computations == 0
    assert isinstance(value, da.Array) and isinstance(gradient, da.Array)
    assert gradient.shape == numpy_args[argnum].shape and gradient.dtype == numpy.float64
    expected_value, expected_gradient = value_and_grad(logistic_loss, argnum)(*numpy_args)
    numpy.testing.assert_allclose(value.compute(), expected_value, rtol=1e-13)
    numpy.testing.assert_allclose(gradient.compute(), expected_gradient, rtol=1e-13)
    if hessian_row is not None:
        expected_row = grad(lambda w, X: grad(logistic_loss)(w, X)[0])(*numpy_args)
        numpy.testing.assert_allclose(hessian_row.compute(), expected_row, rtol=1e-12)


def test_numpy_arrays_beside_other_backends_are_refused():
    torch = pytest.importorskip("torch")
    either_order = r"(torch \(Tensor\) and numpy|numpy \(ndarray\) and torch)"  # x * box runs as box * x
    with pytest.raises(ValueError, match=rf"multiply: arrays from two backends in one call, {either_order}"):
        grad(lambda w: np.sum(torch.ones(3, dtype=torch.float64) * w))(numpy.ones(3))


def test_a_reshape_against_the_chunks_is_computed_and_differentiated():
    """Dask itself refuses ``(3, 2, 3) -> (3, 3, 2)`` with the first axis in chunks of 1 (what stacking examples
    makes, as ``vmap`` does); adcore's reshape goes through the flat shape, lazily."""
    data = numpy.arange(18.0).reshape(3, 2, 3)
    x = chunked(data, (1, 2, 3))
    with CountComputations() as counter:
        out = np.reshape(x, (3, 3, 2))
        gradient = grad(lambda x: np.sum(np.reshape(x, (3, 3, 2)) * numpy.arange(18.0).reshape(3, 3, 2)))(x)
    assert counter.computations == 0
    numpy.testing.assert_array_equal(out.compute(), data.reshape(3, 3, 2))
    numpy.testing.assert_array_equal(gradient.compute(), numpy.arange(18.0).reshape(3, 2, 3))

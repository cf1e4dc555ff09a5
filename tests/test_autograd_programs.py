"""Programs written in autograd's style, run on adcore by changing only the imports
(``autograd`` -> ``adcore``), with their results checked against finite differences or closed forms."""

import numpy
import numpy.random as npr
import pytest

import adcore.numpy as np
from adcore import grad, hessian, value_and_grad
from adcore.test_util import check_grads


def test_logistic_regression():
    # autograd's README example
    def sigmoid(x):
        return 0.5 * (np.tanh(x / 2.0) + 1)

    def logistic_predictions(weights, inputs):
        return sigmoid(np.dot(inputs, weights))

    def training_loss(weights):
        preds = logistic_predictions(weights, inputs)
        label_probabilities = preds * targets + (1 - preds) * (1 - targets)
        return -np.sum(np.log(label_probabilities))

    inputs = np.array([[0.52, 1.12, 0.77], [0.88, -1.08, 0.15], [0.52, 0.06, -1.30], [0.74, -2.49, 1.39]])
    targets = np.array([True, True, False, True])
    weights = np.array([0.0, 0.0, 0.0])
    check_grads(training_loss, modes=["rev", "fwd"], order=2)(weights + 0.1)
    training_gradient_fun = grad(training_loss)
    initial = training_loss(weights)
    for _ in range(100):
        weights -= training_gradient_fun(weights) * 0.01
    assert initial == pytest.approx(4 * numpy.log(2.0))
    assert training_loss(weights) < 0.5 * initial


def test_neural_network_trained_with_adam():
    from adcore.misc.optimizers import adam

    rng = npr.RandomState(0)
    inputs = rng.randn(64, 2)
    targets = (inputs[:, :1] * inputs[:, 1:] > 0).astype(float)  # XOR-like quadrants

    def init_random_params(scale, layer_sizes):
        return [(scale * rng.randn(m, n), scale * rng.randn(n)) for m, n in zip(layer_sizes[:-1], layer_sizes[1:])]

    def neural_net_predict(params, inputs):
        for W, b in params:
            outputs = np.dot(inputs, W) + b
            inputs = np.tanh(outputs)
        return outputs

    def objective(params, iteration):
        logits = neural_net_predict(params, inputs)
        return np.mean(np.logaddexp(0.0, logits) - targets * logits)

    params = init_random_params(0.5, [2, 16, 1])
    check_grads(lambda p: objective(p, 0), modes=["rev"], order=1)(params)
    initial = objective(params, 0)
    params = adam(grad(objective), params, step_size=0.05, num_iters=300)
    assert objective(params, 0) < 0.3 * initial


def gaussian_process_log_marginal_likelihood():
    """The log marginal likelihood of a Gaussian process with a squared-exponential kernel on 20 noisy
    samples of sin (fixed seed), as a function of its log (amplitude, length, noise)."""
    rng = npr.RandomState(1)
    x = numpy.sort(rng.uniform(-3, 3, 20))
    y = numpy.sin(x) + 0.1 * rng.randn(20)

    def log_marginal_likelihood(log_params):
        amplitude, length, noise = np.exp(log_params)
        sqdist = (x[:, None] - x[None, :]) ** 2
        K = amplitude * np.exp(-0.5 * sqdist / length**2) + (noise + 1e-6) * np.eye(len(x))
        L = np.linalg.cholesky(K)
        alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
        return -0.5 * np.dot(y, alpha) - np.sum(np.log(np.diag(L))) - 0.5 * len(x) * np.log(2 * np.pi)

    return log_marginal_likelihood


def test_gaussian_process_marginal_likelihood():
    log_marginal_likelihood = gaussian_process_log_marginal_likelihood()
    log_params = np.array([0.0, 0.0, -2.0])
    check_grads(log_marginal_likelihood, modes=["rev", "fwd"], order=2)(log_params)
    for _ in range(200):
        value, gradient = value_and_grad(log_marginal_likelihood)(log_params)
        log_params = log_params + 0.01 * gradient
    assert log_marginal_likelihood(log_params) > log_marginal_likelihood(np.array([0.0, 0.0, -2.0]))


def test_newtons_method_with_hessian():
    def rosenbrock(x):
        return 100.0 * (x[1] - x[0] ** 2) ** 2 + (1.0 - x[0]) ** 2

    x = np.array([-1.2, 1.0])
    for _ in range(30):
        x = x - np.linalg.solve(hessian(rosenbrock)(x), grad(rosenbrock)(x))
    numpy.testing.assert_allclose(x, [1.0, 1.0], rtol=1e-10)
    numpy.testing.assert_allclose(hessian(rosenbrock)(np.array([1.0, 1.0])), [[802.0, -400.0], [-400.0, 200.0]])

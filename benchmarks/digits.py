"""The MLP workload: scikit-learn's handwritten digits, a one-hidden-layer tanh classifier,
its loss, its hand-written gradient, and training with Adam.

The model maps 64 pixels to ``hidden`` tanh units to 10 class scores; its
parameters are the tuple ``(w1, b1, w2, b2)`` of shapes ``(64, hidden)``,
``(hidden,)``, ``(hidden, 10)`` and ``(10,)``.
"""

import numpy
from rich.progress import track
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

import adcore
import adcore.numpy as anp

N_PIXELS, N_CLASSES = 64, 10
PARAM_NAMES = ("w1", "b1", "w2", "b2")


def load():
    """The digits, pixels scaled to [0, 1], split 80/20 stratified by class.

    Returns
    -------
    x_train, labels_train, x_test, labels_test : numpy.ndarray
        Pixels of shape ``(n, 64)`` (float64) and integer labels of shape ``(n,)``;
        1437 training and 360 test samples.
    """
    digits = load_digits()
    x_train, x_test, labels_train, labels_test = train_test_split(
        digits.data / 16.0, digits.target, test_size=0.2, stratify=digits.target, random_state=0
    )
    return x_train, labels_train, x_test, labels_test


def one_hot(labels):
    """The float64 one-hot targets of shape ``(n, 10)`` for integer ``labels`` of shape ``(n,)``."""
    return numpy.eye(N_CLASSES)[labels]


def init_params(hidden, seed=0):
    """Parameters drawn from a seeded generator, as NumPy float64 arrays.

    Weights are normal with variance ``1 / fan_in`` (LeCun), biases zero.
    """
    rng = numpy.random.default_rng(seed)
    return (
        rng.standard_normal((N_PIXELS, hidden)) / numpy.sqrt(N_PIXELS),
        numpy.zeros(hidden),
        rng.standard_normal((hidden, N_CLASSES)) / numpy.sqrt(hidden),
        numpy.zeros(N_CLASSES),
    )


def logits(params, x, np):
    """The class scores, shape ``(n, 10)``, for pixels ``x`` of shape ``(n, 64)``.

    ``np`` is the namespace that computes them: ``adcore.numpy`` (or
    ``autograd.numpy``) to differentiate, or a backend's Array API namespace.
    """
    w1, b1, w2, b2 = params
    hidden = np.tanh(np.matmul(x, w1) + b1)
    return np.matmul(hidden, w2) + b2


def loss(params, x, y, np=anp):
    """The mean softmax cross-entropy of the model on pixels ``x`` and one-hot targets ``y``.

    The log-softmax subtracts each row's maximum before exponentiating, so
    large scores do not overflow; the maximum is differentiated too, as in
    plain user code (its cotangent is zero up to rounding, since log-softmax
    ignores shifts). Traced values stay on the left of operators
    (array-api-strict raises on ``raw_array * traced_array``).

    Parameters
    ----------
    params : tuple of arrays
        ``(w1, b1, w2, b2)``, on the backend of ``x``.
    x, y : arrays
        Shapes ``(n, 64)`` and ``(n, 10)``, float64, on any adcore backend.
    np : module, optional
        The differentiable namespace: ``adcore.numpy`` (default), or
        ``autograd.numpy`` for the same loss under HIPS/autograd.

    Returns
    -------
    array
        0-d, float64 (a NumPy scalar on the numpy backend).
    """
    scores = logits(params, x, np)
    shifted = scores - np.max(scores, axis=1, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.sum(log_probs * y) / x.shape[0]


def hand_grad(params, x, y, xp):
    """The gradient of :func:`loss` with respect to ``params``, by backpropagation written by hand.

    With ``p = softmax(scores)`` and ``h`` the hidden activations, the score
    cotangent is ``(p - y) / n`` and tanh's derivative is ``1 - h**2``.

    Parameters
    ----------
    params, x, y
        As for :func:`loss`.
    xp : module
        The Array API namespace of the arrays' backend (``backend.xp``).

    Returns
    -------
    tuple of arrays
        The gradients of ``(w1, b1, w2, b2)``, each of its parameter's shape and dtype.
    """
    w1, b1, w2, b2 = params
    hidden = xp.tanh(x @ w1 + b1)
    scores = hidden @ w2 + b2
    probs = xp.exp(scores - xp.max(scores, axis=1, keepdims=True))
    probs = probs / xp.sum(probs, axis=1, keepdims=True)
    d_scores = (probs - y) / x.shape[0]
    d_pre = (d_scores @ w2.T) * (1.0 - hidden * hidden)
    return x.T @ d_pre, xp.sum(d_pre, axis=0), hidden.T @ d_scores, xp.sum(d_scores, axis=0)


class GradientMismatch(AssertionError):
    """adcore's gradient of :func:`loss` differs from :func:`hand_grad`."""


def check_gradient(params, x, y, backend, rtol=1e-8):
    """Compare adcore's gradient of :func:`loss` with :func:`hand_grad`, entry by entry.

    Returns
    -------
    float
        The largest relative difference over all entries.

    Raises
    ------
    GradientMismatch
        If an entry differs by more than ``rtol`` relative to the hand-written value
        (the message names the parameter and shows the differences).
    """
    worst = 0.0
    for name, ours, theirs in zip(PARAM_NAMES, adcore.grad(loss)(params, x, y), hand_grad(params, x, y, backend.xp)):
        ours, theirs = backend.to_numpy(ours), backend.to_numpy(theirs)
        try:
            numpy.testing.assert_allclose(ours, theirs, rtol=rtol, atol=0, err_msg=f"gradient of {name}")
        except AssertionError as error:
            raise GradientMismatch(str(error)) from None
        nonzero = theirs != 0  # where the hand-written entry is 0, assert_allclose required ours to be 0 too
        worst = max(worst, float(numpy.max(numpy.abs(ours - theirs)[nonzero] / numpy.abs(theirs[nonzero]), initial=0.0)))
    return worst


def train(params, x, y, steps, xp, learning_rate=0.01, betas=(0.9, 0.999), eps=1e-8):
    """``steps`` full-batch Adam steps on :func:`loss`, with a progress bar.

    Adam as in Kingma and Ba (2015), Algorithm 1, with the bias corrections
    folded into the step size (their Section 2). ``xp`` is the backend's Array
    API namespace, which computes the update. Returns the trained parameters
    (new arrays on the backend of ``params``).
    """
    gradient = adcore.grad(loss)
    beta1, beta2 = betas
    m = [xp.zeros_like(p) for p in params]
    v = [xp.zeros_like(p) for p in params]
    for t in track(range(1, steps + 1), description="training the digits MLP"):
        g = gradient(params, x, y)
        m = [beta1 * mi + (1.0 - beta1) * gi for mi, gi in zip(m, g)]
        v = [beta2 * vi + (1.0 - beta2) * gi * gi for vi, gi in zip(v, g)]
        step = learning_rate * (1.0 - beta2**t) ** 0.5 / (1.0 - beta1**t)
        params = tuple(p - step * mi / (xp.sqrt(vi) + eps) for p, mi, vi in zip(params, m, v))
    return params


def accuracy(params, x, labels, backend):
    """The fraction of samples ``x`` whose highest score is at their integer label (labels on the host)."""
    predicted = backend.to_numpy(backend.xp.argmax(logits(params, x, backend.xp), axis=1))
    return float(numpy.mean(predicted == labels))

"""A multilayer perceptron with tanh hidden layers and a softmax cross-entropy loss, and its
gradient by hand: the model of workloads c (784-512-512-10) and h (the digits, 64-256-10).

Parameters are a tuple ``(w1, b1, ..., wk, bk)``: ``wi`` of shape
``(fan_in, fan_out)`` and ``bi`` of shape ``(fan_out,)``, all of one dtype.
"""

from functools import partial

import numpy

import adcore.numpy as anp

from .suite import HAND, compare, gradient_calls, jit_target, skipped_peers, target


def init_params(sizes, rng, dtype="float64"):
    """Weights normal with variance ``1 / fan_in`` (LeCun), biases zero, as NumPy arrays of ``dtype``.

    Parameters
    ----------
    sizes : sequence of int
        Layer widths, inputs first (``(784, 512, 512, 10)``).
    rng : numpy.random.Generator
        The source of the weights.
    """
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        params += [rng.standard_normal((fan_in, fan_out)) / numpy.sqrt(fan_in), numpy.zeros(fan_out)]
    return tuple(p.astype(dtype) for p in params)


def one_hot(labels, classes, dtype="float64"):
    """The one-hot targets of shape ``(n, classes)`` for integer ``labels`` of shape ``(n,)``."""
    return numpy.eye(classes, dtype=dtype)[labels]


def logits(params, x, np):
    """The class scores, shape ``(n, classes)``, for inputs ``x`` of shape ``(n, fan_in)``.

    ``np`` is the namespace that computes them: a differentiable one (``adcore.numpy``,
    ``autograd.numpy``, ``jax.numpy``, torch's) or a backend's Array API namespace.
    """
    h = x
    for layer in range(0, len(params) - 2, 2):
        h = np.tanh(np.matmul(h, params[layer]) + params[layer + 1])
    return np.matmul(h, params[-2]) + params[-1]


def loss(params, x, y, np=anp):
    """The mean softmax cross-entropy of the model on inputs ``x`` and one-hot targets ``y``.

    The log-softmax subtracts each row's maximum before exponentiating, so
    large scores do not overflow; the maximum is differentiated too, as in
    plain user code (its cotangent is zero up to rounding, since log-softmax
    ignores shifts). Traced values stay on the left of operators
    (array-api-strict raises on ``raw_array * traced_array``).

    Parameters
    ----------
    params : tuple of arrays
        ``(w1, b1, ..., wk, bk)``, on the backend and in the dtype of ``x``.
    x, y : arrays
        Shapes ``(n, fan_in)`` and ``(n, classes)``.
    np : namespace, optional
        The differentiable namespace (``adcore.numpy`` by default).

    Returns
    -------
    array
        0-d, of the dtype of ``x`` (a NumPy scalar on the numpy backend).
    """
    scores = logits(params, x, np)
    shifted = scores - np.max(scores, axis=1, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.sum(log_probs * y) / x.shape[0]


def hand_grad(params, x, y, xp):
    """The gradient of :func:`loss` with respect to ``params``, by backpropagation written by hand.

    With ``p = softmax(scores)``, the score cotangent is ``(p - y) / n``; each
    layer passes ``d_pre @ w.T`` down, times tanh's derivative ``1 - h**2``.

    Parameters
    ----------
    params, x, y
        As for :func:`loss`.
    xp : namespace
        The Array API namespace of the arrays' backend (``backend.xp``).

    Returns
    -------
    tuple of arrays
        The gradients of ``(w1, b1, ..., wk, bk)``, each of its parameter's shape and dtype.
    """
    activations = [x]
    for layer in range(0, len(params) - 2, 2):
        activations.append(xp.tanh(activations[-1] @ params[layer] + params[layer + 1]))
    scores = activations[-1] @ params[-2] + params[-1]
    probs = xp.exp(scores - xp.max(scores, axis=1, keepdims=True))
    probs = probs / xp.sum(probs, axis=1, keepdims=True)
    d_pre = (probs - y) / x.shape[0]
    grads = []
    for layer in range(len(params) - 2, -1, -2):
        h = activations[layer // 2]
        grads[:0] = [h.T @ d_pre, xp.sum(d_pre, axis=0)]
        if layer:
            d_pre = (d_pre @ params[layer].T) * (1.0 - h * h)
    return tuple(grads)


#: Workload c: the layer widths and the batch.
SIZES = (784, 512, 512, 10)
BATCH = 256


def mlp_gradient(ctx, dtype):
    """Workload c: the gradient of the MLP's loss with respect to all its weights and biases, in ``dtype``.

    The inputs are random (uniform in [0, 1), like scaled pixels) with random
    labels, from a fixed seed: the time does not depend on the values.
    """
    rng = numpy.random.default_rng(0)
    params = init_params(SIZES, rng, dtype)
    x = rng.uniform(0.0, 1.0, (BATCH, SIZES[0])).astype(dtype)
    y = one_hot(rng.integers(0, SIZES[-1], BATCH), SIZES[-1], dtype)
    put = ctx.adcore.put
    hand = partial(hand_grad, tuple(put(p, dtype) for p in params), put(x, dtype), put(y, dtype), ctx.backend.xp)
    workload_id = f"c{numpy.dtype(dtype).itemsize * 8}"
    figures = compare(ctx, workload_id, gradient_calls(ctx, loss, (params, x, y), dtype), hand, dtype)
    vs_hand = figures.get("adcore", {}).get(HAND)
    return {
        "id": workload_id,
        "title": f"MLP {'-'.join(map(str, SIZES))}, batch {BATCH}, softmax cross-entropy, {dtype}: grad of all weights "
        "(random data, fixed seed)",
        "unit": "ms",
        "dtype": dtype,
        "contenders": figures,
        "skipped": skipped_peers(ctx),
        "target": target("<= 1.10x hand-written", [("{:.2f}x", vs_hand)], vs_hand is not None and vs_hand <= 1.10),
        "jit_target": jit_target(figures, time=1.05),
    }

"""A multilayer perceptron with tanh hidden layers and a softmax cross-entropy loss, and its
gradient by hand: the model of workloads c (784-512-512-10), h (the digits, 64-256-10) and
k (64 tanh layers 32 wide, with a squared-norm loss).

Parameters are a list of ``(w, b)`` tuples, one per layer, as user code holds them: ``w`` of
shape ``(fan_in, fan_out)`` and ``b`` of shape ``(fan_out,)``, all of one dtype. Reading an
item of such a list is itself traced, so these workloads also time containers of parameters.
"""

from functools import partial

import numpy

import adcore.numpy as anp

from .peers import tree_map
from .suite import HAND, compare, gradient_calls, skipped_peers, target


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
        w = rng.standard_normal((fan_in, fan_out)) / numpy.sqrt(fan_in)
        params.append((w.astype(dtype), numpy.zeros(fan_out, dtype=dtype)))
    return params


def one_hot(labels, classes, dtype="float64"):
    """The one-hot targets of shape ``(n, classes)`` for integer ``labels`` of shape ``(n,)``."""
    return numpy.eye(classes, dtype=dtype)[labels]


def logits(params, x, np):
    """The class scores, shape ``(n, classes)``, for inputs ``x`` of shape ``(n, fan_in)``.

    ``np`` is the namespace that computes them: a differentiable one (``adcore.numpy``,
    ``autograd.numpy``, ``jax.numpy``, torch's) or a backend's Array API namespace.
    """
    h = x
    for w, b in params[:-1]:
        h = np.tanh(np.matmul(h, w) + b)
    w, b = params[-1]
    return np.matmul(h, w) + b


def loss(params, x, y, np=anp):
    """The mean softmax cross-entropy of the model on inputs ``x`` and one-hot targets ``y``.

    The log-softmax subtracts each row's maximum before exponentiating, so
    large scores do not overflow; the maximum is differentiated too, as in
    plain user code (its cotangent is zero up to rounding, since log-softmax
    ignores shifts). Traced values stay on the left of operators
    (array-api-strict raises on ``raw_array * traced_array``).

    Parameters
    ----------
    params : list of (array, array)
        ``[(w1, b1), ..., (wk, bk)]``, on the backend and in the dtype of ``x``.
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
    list of (array, array)
        The gradients of ``[(w1, b1), ..., (wk, bk)]``, each of its parameter's shape and dtype.
    """
    activations = tanh_layers(params[:-1], x, xp)
    w, b = params[-1]
    scores = activations[-1] @ w + b
    probs = xp.exp(scores - xp.max(scores, axis=1, keepdims=True))
    probs = probs / xp.sum(probs, axis=1, keepdims=True)
    return backpropagate(params, activations, (probs - y) / x.shape[0], xp)


def tanh_layers(params, x, xp):
    """``[x, h1, ..., hk]``: the input and the outputs of the layers ``h = tanh(h @ w + b)``."""
    activations = [x]
    for w, b in params:
        activations.append(xp.tanh(activations[-1] @ w + b))
    return activations


def backpropagate(params, activations, d_pre, xp):
    """The gradients ``[(dw1, db1), ...]`` from the cotangent ``d_pre`` of the last layer's
    pre-activation, passing ``d_pre @ w.T`` down times tanh's derivative ``1 - h**2``;
    ``activations[i]`` is the input of layer ``i``."""
    grads = []
    for layer in range(len(params) - 1, -1, -1):
        h = activations[layer]
        grads.insert(0, (h.T @ d_pre, xp.sum(d_pre, axis=0)))
        if layer:
            d_pre = (d_pre @ params[layer][0].T) * (1.0 - h * h)
    return grads


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
    hand = partial(hand_grad, tree_map(partial(put, dtype=dtype), params), put(x, dtype), put(y, dtype), ctx.backend.xp)
    workload_id = f"c{numpy.dtype(dtype).itemsize * 8}"
    figures = compare(ctx, workload_id, gradient_calls(ctx, loss, (params, x, y), dtype), hand, dtype)
    vs_hand = figures.get("adcore", {}).get(HAND)
    return {
        "id": workload_id,
        "title": f"MLP {'-'.join(map(str, SIZES))}, batch {BATCH}, softmax cross-entropy, {dtype}: grad of all weights, "
        "a list of (W, b) (random data, fixed seed)",
        "unit": "ms",
        "dtype": dtype,
        "contenders": figures,
        "skipped": skipped_peers(ctx),
        "target": target("<= 1.05x hand-written", [("{:.2f}x", vs_hand)], vs_hand is not None and vs_hand <= 1.05),
    }


#: Workload k: the depth, the width and the batch of the deep narrow network.
DEEP_LAYERS, DEEP_WIDTH, DEEP_BATCH = 64, 32, 32


def deep_loss(params, x, np=anp):
    """``sum(h**2) / n`` for ``h`` the output of ``len(params)`` tanh layers ``h = tanh(h @ w + b)``."""
    h = x
    for w, b in params:
        h = np.tanh(np.matmul(h, w) + b)
    return np.sum(np.square(h)) / x.shape[0]


def deep_hand_grad(params, x, xp):
    """The gradient of :func:`deep_loss` by hand: the output's cotangent is ``2 h / n``, then back
    through every tanh layer as in :func:`hand_grad`."""
    activations = tanh_layers(params, x, xp)
    h = activations[-1]
    return backpropagate(params, activations[:-1], (2.0 / x.shape[0]) * h * (1.0 - h * h), xp)


def deep_network(ctx):
    """Workload k: the gradient of :func:`deep_loss`, 64 tanh layers 32 wide, float64: with small
    matrices the time is the cost per primitive, and that of reading 128 parameters out of a list."""
    rng = numpy.random.default_rng(5)
    params = init_params((DEEP_WIDTH,) * (DEEP_LAYERS + 1), rng)
    x = rng.standard_normal((DEEP_BATCH, DEEP_WIDTH))
    put = ctx.adcore.put
    hand = partial(deep_hand_grad, tree_map(put, params), put(x), ctx.backend.xp)
    figures = compare(ctx, "k", gradient_calls(ctx, deep_loss, (params, x)), hand)
    vs_autograd = figures.get("adcore", {}).get("autograd")
    return {
        "id": "k",
        "title": f"deep network: {DEEP_LAYERS} tanh layers {DEEP_WIDTH} wide, batch {DEEP_BATCH}, float64: grad of all weights, "
        "a list of (W, b)",
        "unit": "ms",
        "contenders": figures,
        "skipped": skipped_peers(ctx),
        "target": target("<= 1.0x autograd", [("{:.2f}x autograd", vs_autograd)], vs_autograd is not None and vs_autograd <= 1.0),
    }

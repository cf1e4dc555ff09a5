"""Workload h: a classifier of scikit-learn's handwritten digits, trained with Adam by each
contender's gradients; the time to reach a fixed test accuracy.

The model (see ``mlp``) maps 64 pixels to ``HIDDEN`` tanh units to 10 class
scores. adcore's training finds how many full-batch Adam steps reach the target
accuracy; every contender then trains that many steps from the same start,
must reach the target too, and is timed doing so.
"""

from functools import partial

import numpy
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

from . import mlp
from .peers import tree_leaves, tree_unflatten
from .suite import HAND, add_ratios, checked_calls, gradient_of, jit_target, launches, put, skipped_peers
from .timing import median_times

N_PIXELS, N_CLASSES = 64, 10
#: The hidden layer: wide enough that the gradient is mostly array work, as in practice
#: (the fixed cost per primitive is measured apart, by the scalar chains).
HIDDEN = 256
#: The test accuracy to reach, full run then --quick, and the most steps tried.
TARGET_ACCURACY = {False: 0.96, True: 0.93}
MAX_STEPS = 500


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


def init_params(hidden=HIDDEN, seed=0):
    """The model's parameters ``[(w1, b1), (w2, b2)]`` from a seeded generator, as NumPy float64 arrays."""
    return mlp.init_params((N_PIXELS, hidden, N_CLASSES), numpy.random.default_rng(seed))


class Adam:
    """Adam as in Kingma and Ba (2015), Algorithm 1, with the bias corrections folded into the step
    size (their Section 2); written with operators only, so it updates any library's arrays."""

    def __init__(self, params, learning_rate=0.01, betas=(0.9, 0.999), eps=1e-8):
        self.learning_rate, self.betas, self.eps = learning_rate, betas, eps
        self.m = [0.0 * p for p in tree_leaves(params)]
        self.v = [0.0 * p for p in tree_leaves(params)]
        self.t = 0

    def step(self, params, grads):
        """The parameters after one step along ``grads`` (new arrays, in the structure of ``params``)."""
        beta1, beta2 = self.betas
        self.t += 1
        grads = tree_leaves(grads)
        self.m = [beta1 * m + (1.0 - beta1) * g for m, g in zip(self.m, grads)]
        self.v = [beta2 * v + (1.0 - beta2) * g * g for v, g in zip(self.v, grads)]
        size = self.learning_rate * (1.0 - beta2**self.t) ** 0.5 / (1.0 - beta1**self.t)
        steps = (p - size * m / (v**0.5 + self.eps) for p, m, v in zip(tree_leaves(params), self.m, self.v))
        return tree_unflatten(params, steps)


def train(gradient, params, x, y, steps):
    """``steps`` full-batch Adam steps on the loss whose gradient is ``gradient(params, x, y)``."""
    adam = Adam(params)
    for _ in range(steps):
        params = adam.step(params, gradient(params, x, y))
    return params


def accuracy(params, x, labels):
    """The fraction of samples ``x`` whose highest score is at their label (NumPy arrays)."""
    return float(numpy.mean(numpy.argmax(mlp.logits(params, x, numpy), axis=1) == labels))


def steps_to_accuracy(gradient, params, x, y, evaluate, goal):
    """How many Adam steps of :func:`train` first bring ``evaluate(params)`` to ``goal`` (None: not in ``MAX_STEPS``)."""
    adam = Adam(params)
    for step in range(1, MAX_STEPS + 1):
        params = adam.step(params, gradient(params, x, y))
        if evaluate(params) >= goal:
            return step
    return None


def digits_classifier(ctx):
    """Workload h: check every contender's gradient of the digits loss, then time training to the target accuracy.

    The issue sets this workload no target (``"target": None``); ``"steps"`` is how many Adam steps it took.
    """
    x_train, labels_train, x_test, labels_test = load()
    y_train = mlp.one_hot(labels_train, N_CLASSES)
    params = init_params()
    inputs = (params, x_train, y_train)
    gradients = {peer.name: (peer, gradient_of(peer, mlp.loss)) for peer in ctx.peers}
    backend_inputs = tuple(put(ctx.adcore, value, "float64") for value in inputs)
    hand_gradient = partial(mlp.hand_grad, xp=ctx.backend.xp)
    calls = {
        name: (peer, partial(gradient, *(put(peer, value, "float64") for value in inputs)))
        for name, (peer, gradient) in gradients.items()
    }
    passed, first_calls = checked_calls(ctx, "h", calls, ctx.adcore.to_numpy(hand_gradient(*backend_inputs)))

    goal = TARGET_ACCURACY[ctx.settings.quick]
    adcore = ctx.adcore
    ctx.progress("h: training with adcore to the accuracy", 0, 1)
    steps = steps_to_accuracy(
        gradients["adcore"][1], *backend_inputs, lambda p: accuracy(adcore.to_numpy(p), x_test, labels_test), goal
    )
    result = {
        "id": "h",
        "title": f"digits classifier 64-{HIDDEN}-10 (scikit-learn digits, 1437 training images), "
        f"full-batch Adam to test accuracy {goal}",
        "unit": "s",
        "target_accuracy": goal,
        "steps": steps,
        "contenders": {},
        "skipped": skipped_peers(ctx),
        "target": None,
    }
    if steps is None:
        ctx.errors.append(f"workload h: adcore's training did not reach test accuracy {goal} in {MAX_STEPS} steps")
        return result
    runs = {HAND: (adcore, partial(train, hand_gradient, *backend_inputs, steps))}
    for name, (peer, _) in passed.items():
        runs[name] = (peer, partial(train, gradients[name][1], *(put(peer, value, "float64") for value in inputs), steps))
    reached = {}
    for index, (name, (peer, run)) in enumerate(list(runs.items())):
        ctx.progress(f"h: training with {name}", index, len(runs))
        reached[name] = accuracy(peer.to_numpy(run()), x_test, labels_test)
        if reached[name] < goal:
            ctx.errors.append(f"workload h, {name}: {steps} steps reach test accuracy {reached[name]:.4f}, not {goal}")
            del runs[name]
    timed = {name: peer.finished(run) for name, (peer, run) in runs.items()}
    seconds = median_times(timed, ctx.synchronize, ctx.repeats("h"), warmup=0, progress=ctx.timing_progress("h"))
    figures = {name: {"seconds": s, "memory_bytes": None, "test_accuracy": reached[name]} for name, s in seconds.items()}
    first_calls[HAND] = {"kernels": launches(ctx, adcore, partial(hand_gradient, *backend_inputs))}
    for name, entry in figures.items():
        entry["first_call_seconds"] = first_calls[name].get("first_call_seconds")  # of the gradient
        entry["kernels"] = first_calls[name]["kernels"]  # of one gradient
    result["contenders"] = add_ratios(figures)
    result["jit_target"] = jit_target(result["contenders"])
    return result

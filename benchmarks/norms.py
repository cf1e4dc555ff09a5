"""Workload n: ``linalg.norm``, its gradient against autograd's and its value against NumPy's.

The row times the gradient of a sum of the norms autograd differentiates (:func:`norm_sum`: vector
2- and 3-norms, the whole-array and Frobenius norms, row and column norms along an axis, a stack of
Frobenius norms) against the hand-written gradient and each peer with NumPy's ``linalg.norm``. Beside
it, each variant of :data:`VARIANTS` alone, at each size of :data:`SIZES`, side by side: adcore's
gradient of ``sum(norm(v, ...))`` over autograd's (the variants autograd differentiates), and, on the
NumPy backend, ``adcore.numpy.linalg.norm`` untraced over ``numpy.linalg.norm`` (every variant). The
target is the issue's: every gradient ahead of autograd's, every untraced call within 1.1x NumPy's.
"""

import math
from functools import partial
from time import perf_counter

import numpy

import adcore
import adcore.numpy as anp

from .suite import HAND, compare, gradient_calls, skipped_peers, target
from .timing import median_times

#: The row's sizes: ``x`` a vector, ``A`` a square matrix, ``B`` a stack of 4 such matrices.
ROW_SIZE = 100

#: The variants' sizes ``n``: vectors of ``n`` entries, ``n x n`` matrices, stacks of 3 of them.
SIZES = (10, 300)

#: (name, operand kind, keyword arguments, whether autograd differentiates it).
VARIANTS = [
    ("vector", "vector", {}, True),
    ("vector ord=1", "vector", {"ord": 1}, False),
    ("vector ord=2", "vector", {"ord": 2}, True),
    ("vector ord=inf", "vector", {"ord": math.inf}, False),
    ("vector ord=-inf", "vector", {"ord": -math.inf}, False),
    ("vector ord=0", "vector", {"ord": 0}, False),
    ("vector ord=3", "vector", {"ord": 3}, True),
    ("matrix", "matrix", {}, True),
    ("matrix fro", "matrix", {"ord": "fro"}, True),
    ("matrix nuc", "matrix", {"ord": "nuc"}, True),
    ("matrix ord=1", "matrix", {"ord": 1}, False),
    ("matrix ord=2", "matrix", {"ord": 2}, False),
    ("matrix ord=inf", "matrix", {"ord": math.inf}, False),
    ("matrix ord=-inf", "matrix", {"ord": -math.inf}, False),
    ("matrix keepdims", "matrix", {"keepdims": True}, True),
    ("rows axis=1", "matrix", {"axis": 1}, True),
    ("columns ord=2 axis=0", "matrix", {"ord": 2, "axis": 0}, True),
    ("matrix axis=(0, 1)", "matrix", {"axis": (0, 1)}, True),
    ("stack fro axis=(1, 2)", "stack", {"ord": "fro", "axis": (1, 2)}, True),
]

#: Each timed call repeats its norm until it takes about this long (a small norm takes microseconds).
CALL_SECONDS = 2e-3


def norm_sum(inputs, np=anp):
    """``|x| + |x|_3 + |A| + |A|_F + sum(|rows of A|) + sum(|columns of A|) + sum(|B_k|_F)`` for
    ``inputs = (x, A, B)``: a vector, a matrix and a stack of matrices."""
    x, A, B = inputs
    norm = np.linalg.norm
    total = norm(x) + norm(x, 3) + norm(A) + norm(A, "fro")
    return total + np.sum(norm(A, axis=1)) + np.sum(norm(A, 2, axis=0)) + np.sum(norm(B, "fro", axis=(1, 2)))


def norm_sum_grad(inputs, xp):
    """The gradient of :func:`norm_sum` by hand: ``x / |x| + x |x| / |x|_3**2`` in ``x``,
    ``2 A / |A|_F + A / |row| + A / |column|`` in ``A``, ``B_k / |B_k|_F`` in ``B``."""
    x, A, B = inputs
    two, three = xp.linalg.vector_norm(x), xp.linalg.vector_norm(x, ord=3)
    frobenius = xp.linalg.vector_norm(A)
    rows = xp.linalg.vector_norm(A, axis=1, keepdims=True)
    columns = xp.linalg.vector_norm(A, axis=0, keepdims=True)
    stack = xp.linalg.vector_norm(B, axis=(1, 2), keepdims=True)
    return (x / two + x * xp.abs(x) / three**2, 2.0 * A / frobenius + A / rows + A / columns, B / stack)


def row_inputs(size, seed):
    """Standard normal ``x`` of shape ``(size,)``, ``A`` of ``(size, size)`` and ``B`` of ``(4, size, size)``."""
    rng = numpy.random.default_rng(seed)
    return rng.standard_normal(size), rng.standard_normal((size, size)), rng.standard_normal((4, size, size))


def operand(kind, n, rng):
    """A standard normal vector of ``n`` entries, ``n x n`` matrix, or stack of 3 of them."""
    return rng.standard_normal({"vector": (n,), "matrix": (n, n), "stack": (3, n, n)}[kind])


def repeat(call, times):
    """A function of no arguments that calls ``call`` ``times`` times."""

    def calls():
        for _ in range(times):
            call()

    return calls


def time_pair(ctx, name, ours, theirs):
    """adcore's and the other contender's seconds per call of ``ours`` and ``theirs``, timed side by side
    (interleaved medians), each timed call repeating them so that it takes about :data:`CALL_SECONDS`."""
    start = perf_counter()
    ours()
    times = max(1, int(CALL_SECONDS / max(perf_counter() - start, 1e-7)))
    timed = {"adcore": repeat(ours, times), name: repeat(theirs, times)}
    seconds = median_times(timed, ctx.synchronize, ctx.repeats("n"), ctx.settings.warmup)
    return seconds["adcore"] / times, seconds[name] / times


def variant_figures(ctx, autograd):
    """For each variant and size: ``{"variant", "n", "adcore_seconds", "numpy_seconds", "untraced_ratio",
    "adcore_grad_seconds", "autograd_grad_seconds", "grad_ratio"}`` (None where not timed); a gradient that
    differs from autograd's is reported in ``ctx.errors``."""
    on_numpy = ctx.backend.name == "numpy"
    figures = []
    rng = numpy.random.default_rng(4)
    for n in SIZES:
        for index, (name, kind, kwargs, differentiable) in enumerate(VARIANTS):
            ctx.progress(f"n: {name}, n={n}", index, len(VARIANTS))
            value = operand(kind, n, rng)
            entry = dict.fromkeys(("adcore_seconds", "numpy_seconds", "untraced_ratio", "adcore_grad_seconds"), None)
            entry.update(variant=name, n=n, autograd_grad_seconds=None, grad_ratio=None)
            if on_numpy:
                ours, theirs = time_pair(ctx, "numpy", partial(anp.linalg.norm, value, **kwargs), partial(numpy.linalg.norm, value, **kwargs))
                entry.update(adcore_seconds=ours, numpy_seconds=theirs, untraced_ratio=ours / theirs)
            if differentiable and autograd is not None:
                ours = adcore.grad(lambda v: anp.sum(anp.linalg.norm(v, **kwargs)))
                theirs = autograd.grad(lambda v: autograd.np.sum(autograd.np.linalg.norm(v, **kwargs)))
                put = ctx.adcore.put(value)
                got, expected = ctx.adcore.to_numpy(ours(put)), theirs(value)
                if not numpy.allclose(got, expected, rtol=1e-9, atol=1e-12):
                    ctx.errors.append(f"workload n, {name} (n={n}): adcore's gradient differs from autograd's")
                    continue
                seconds = time_pair(ctx, "autograd", partial(ours, put), partial(theirs, value))
                entry.update(adcore_grad_seconds=seconds[0], autograd_grad_seconds=seconds[1], grad_ratio=seconds[0] / seconds[1])
            figures.append(entry)
    return figures


def _figure(worst, key, what):
    """A target figure: the largest ratio ``key`` of the variants, naming its variant."""
    if worst is None:
        return f"at most {{:.2f}}x {what}", None
    return f"at most {{:.2f}}x {what} ({worst['variant']}, n={worst['n']})", worst[key]


def _worst(figures, key):
    measured = [entry for entry in figures if entry[key] is not None]
    return max(measured, key=lambda entry: entry[key]) if measured else None


def norms(ctx):
    """Workload n: the gradient of :func:`norm_sum` (``ROW_SIZE``), and each variant's figures (:func:`variant_figures`)."""
    inputs = row_inputs(ROW_SIZE, seed=5)
    linalg = [peer for peer in ctx.peers if hasattr(peer.np, "linalg")]
    unnamed = {peer.name: "its namespace has no NumPy-named linalg.norm" for peer in ctx.peers if peer not in linalg}
    calls = {name: call for name, call in gradient_calls(ctx, norm_sum, (inputs,)).items() if name not in unnamed}
    hand = partial(norm_sum_grad, tuple(map(ctx.adcore.put, inputs)), ctx.backend.xp)
    figures = compare(ctx, "n", calls, hand)
    autograd = next((peer for peer in ctx.peers if peer.name == "autograd"), None)
    variants = variant_figures(ctx, autograd)
    slowest_grad, slowest_untraced = _worst(variants, "grad_ratio"), _worst(variants, "untraced_ratio")
    shown = [_figure(slowest_grad, "grad_ratio", "autograd's gradient"), _figure(slowest_untraced, "untraced_ratio", "NumPy")]
    met = all(value is not None for _, value in shown) and shown[0][1] < 1.0 and shown[1][1] <= 1.1
    return {
        "id": "n",
        "title": f"linalg.norm: gradient of a sum of 7 norms (x {ROW_SIZE}, A {ROW_SIZE} x {ROW_SIZE}, B 4 x {ROW_SIZE} x {ROW_SIZE}), "
        f"float64; each of {len(VARIANTS)} variants alone at n = {', '.join(map(str, SIZES))}",
        "unit": "ms",
        "contenders": figures,
        "skipped": skipped_peers(ctx, unnamed),
        "target": target("every variant's gradient < 1.0x autograd's, untraced <= 1.1x NumPy's", shown, met),
        "variants": variants,
    }

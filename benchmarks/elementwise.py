"""Workload d: one large elementwise function, where the time is the arithmetic and the memory
is the intermediate arrays the backward pass keeps (its peak is measured too)."""

from functools import partial

import numpy

import adcore.numpy as anp

from .suite import HAND, compare, gradient_calls, skipped_peers, target

#: The array's length, full run then --quick (the issue's 4e6: 32 MB arrays, which NumPy's allocator
#: reuses; from 33.5 MB on, each array is mapped afresh and page faults dominate every contender's time).
SIZE = {False: 4 * 10**6, True: 10**6}


def damped_square(x, np=anp):
    """``sum(tanh(x)**2 * exp(-x))``."""
    return np.sum(np.tanh(x) ** 2 * np.exp(-x))


def damped_square_grad(x, xp):
    """The gradient of :func:`damped_square` by hand: ``exp(-x) * t * (2 (1 - t**2) - t)`` with ``t = tanh(x)``."""
    t = xp.tanh(x)
    return xp.exp(-x) * t * (2.0 * (1.0 - t * t) - t)


def large_elementwise(ctx):
    """Workload d: the gradient of :func:`damped_square` on standard normal float64 values, time and peak memory."""
    size = SIZE[ctx.settings.quick]
    x = numpy.random.default_rng(0).standard_normal(size)
    hand = partial(damped_square_grad, ctx.adcore.put(x), ctx.backend.xp)
    figures = compare(ctx, "d", gradient_calls(ctx, damped_square, (x,)), hand, memory=True, warmup=0)
    adcore, base = figures.get("adcore", {}), figures[HAND]
    time_ratio = adcore.get(HAND)
    memory_ratio = (
        adcore["memory_bytes"] / base["memory_bytes"] if adcore.get("memory_bytes") is not None and base["memory_bytes"] else None
    )
    return {
        "id": "d",
        "title": f"large elementwise: grad of sum(tanh(x)**2 * exp(-x)), {size:.0e} float64",
        "unit": "ms",
        "size": size,
        "contenders": figures,
        "skipped": skipped_peers(ctx),
        "target": target(
            "<= 1.5x hand-written time and <= 1.05x its peak memory",
            [("{:.2f}x time", time_ratio), ("{:.2f}x memory", memory_ratio)],
            time_ratio is not None and memory_ratio is not None and time_ratio <= 1.5 and memory_ratio <= 1.05,
        ),
    }

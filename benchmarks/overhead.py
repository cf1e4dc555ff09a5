"""Workloads a, b and g: the cost of one primitive, on long chains of scalar operations.

On scalars the arithmetic is negligible, so the time of a gradient divided by
the number of primitives traced is what one primitive costs the library
(tracing it, recording its node, and running its VJP). Workload b runs the
same chain on a 10-element array; g a much longer recurrence, whose time and
memory should grow linearly with its length.
"""

from functools import partial

import numpy

import adcore.numpy as anp

from .suite import compare, gradient_calls, ratio_or_none, skipped_peers, target

STEPS = 1000
PRIMITIVES_PER_STEP = 3  # sin, multiply, add (both functions)
ARRAY_SIZE = 10
#: Workload g: the recurrence's lengths, long and short (full run, then --quick).
RECURRENCE_STEPS = {False: (100_000, 10_000), True: (10_000, 1_000)}
JAX_ON_RECURRENCE = (
    "not timed on the recurrence: eager JAX costs about 0.4 ms a primitive here (minutes per call), "
    "and jax.jit would compile the unrolled loop"
)


def chain(x, np=anp, steps=STEPS):
    """``steps`` times ``x = sin(x) * 0.999 + 0.001``; ``np`` is the differentiable namespace."""
    for _ in range(steps):
        x = np.sin(x) * 0.999 + 0.001
    return x


def chain_derivative(x, xp, steps=STEPS):
    """The derivative of :func:`chain` at ``x`` (elementwise for an array), by the chain rule written by hand."""
    derivative = 1.0
    for _ in range(steps):
        derivative = derivative * (xp.cos(x) * 0.999)
        x = xp.sin(x) * 0.999 + 0.001
    return derivative


def chain_sum(x, np=anp, steps=STEPS):
    """The sum of :func:`chain` over the entries of array ``x``; its gradient is ``chain_derivative``."""
    return np.sum(chain(x, np, steps))


def recurrence(x, np=anp, steps=RECURRENCE_STEPS[False][0]):
    """``steps`` times ``x = x + 1e-5 * sin(x)``."""
    for _ in range(steps):
        x = x + 1e-5 * np.sin(x)
    return x


def recurrence_derivative(x, xp, steps=RECURRENCE_STEPS[False][0]):
    """The derivative of :func:`recurrence` at ``x``, by the chain rule written by hand."""
    derivative = 1.0
    for _ in range(steps):
        derivative = derivative * (1.0 + 1e-5 * xp.cos(x))
        x = x + 1e-5 * xp.sin(x)
    return derivative


def per_primitive(figures, primitives):
    """``figures`` with each contender's microseconds per primitive added."""
    for entry in figures.values():
        entry["us_per_primitive"] = entry["seconds"] / primitives * 1e6
    return figures


#: The issue's targets: adcore's time per primitive at most these multiples of each peer's.
CHAIN_TARGETS = {"a": {"autograd": 0.35, "torch": 0.70}, "b": {"autograd": 0.45}}


def _chain_workload(ctx, workload_id, title, x, function, primitives):
    hand = partial(chain_derivative, ctx.adcore.put(x), ctx.backend.xp, steps=STEPS)
    figures = per_primitive(compare(ctx, workload_id, gradient_calls(ctx, function, (x,)), hand), primitives)
    limits = CHAIN_TARGETS[workload_id]
    ratios = {peer: ratio_or_none(figures, "adcore", peer) for peer in limits}
    return {
        "id": workload_id,
        "title": title,
        "unit": "us/primitive",
        "steps": STEPS,
        "primitives": primitives,
        "contenders": figures,
        "skipped": skipped_peers(ctx),
        "target": target(
            " and ".join(f"<= {limit:.2f}x {peer}" for peer, limit in limits.items()) + " per primitive",
            [(f"{{:.2f}}x {peer}", ratios[peer]) for peer in limits],
            all(ratios[peer] is not None and ratios[peer] <= limit for peer, limit in limits.items()),
        ),
    }


def scalar_chain(ctx):
    """Workload a: the gradient of a 1000-step chain on a float64 scalar."""
    title = f"scalar chain: grad of {STEPS} x (sin(x) * 0.999 + 0.001), float64 scalar"
    return _chain_workload(ctx, "a", title, 0.5, partial(chain, steps=STEPS), STEPS * PRIMITIVES_PER_STEP)


def array_chain(ctx):
    """Workload b: the gradient of the sum of the same chain on a 10-element float64 array."""
    x = numpy.linspace(0.1, 0.9, ARRAY_SIZE)
    title = f"array chain: grad of sum({STEPS} x (sin(x) * 0.999 + 0.001)), {ARRAY_SIZE} float64"
    return _chain_workload(ctx, "b", title, x, partial(chain_sum, steps=STEPS), STEPS * PRIMITIVES_PER_STEP + 1)


def long_recurrence(ctx, scalar_chain_result=None):
    """Workload g: a long scalar recurrence, timed at two lengths (linearity), with the long one's memory.

    ``scalar_chain_result`` is workload a's result, if it ran: the target
    compares the cost per primitive with a's.
    """
    long_steps, short_steps = RECURRENCE_STEPS[ctx.settings.quick]
    skip = {peer.name: JAX_ON_RECURRENCE for peer in ctx.peers if peer.name in ("jax", "jax.jit")}
    runs = {}
    for steps in (long_steps, short_steps):
        function = partial(recurrence, steps=steps)
        calls = {name: call for name, call in gradient_calls(ctx, function, (0.5,)).items() if name not in skip}
        hand = partial(recurrence_derivative, ctx.adcore.put(0.5), ctx.backend.xp, steps=steps)
        figures = compare(ctx, "g", calls, hand, memory=steps == long_steps, warmup=0)
        runs[steps] = per_primitive(figures, steps * PRIMITIVES_PER_STEP)
    figures = runs[long_steps]
    for name, entry in figures.items():
        short = runs[short_steps].get(name)
        entry["short_seconds"] = short["seconds"] if short else None
        entry["linearity"] = entry["seconds"] / short["seconds"] / (long_steps / short_steps) if short else None
    adcore = figures.get("adcore", {})
    linearity = adcore.get("linearity")
    reference = (scalar_chain_result or {}).get("contenders", {}).get("adcore", {}).get("us_per_primitive")
    vs_chain = adcore["us_per_primitive"] / reference if adcore and reference else None
    return {
        "id": "g",
        "title": f"long recurrence: grad of {long_steps} x (x + 1e-5 sin(x)), float64 scalar; linearity vs {short_steps} steps",
        "unit": "us/primitive",
        "steps": long_steps,
        "short_steps": short_steps,
        "primitives": long_steps * PRIMITIVES_PER_STEP,
        "contenders": figures,
        "skipped": skipped_peers(ctx, skip),
        "target": target(
            "linearity <= 1.3 and per primitive <= 1.5x workload a's",
            [("linearity {:.2f}", linearity), ("{:.2f}x a per primitive", vs_chain)],
            linearity is not None and vs_chain is not None and linearity <= 1.3 and vs_chain <= 1.5,
        ),
    }

"""The per-primitive overhead workload: the derivative of a long chain of scalar operations.

On scalars the arithmetic is negligible, so the time of a gradient divided by
the number of primitives traced is what one primitive costs the library
(tracing it, recording its node, and running its VJP).
"""

import numpy

import adcore.numpy as anp

STEPS = 1000
PRIMITIVES_PER_STEP = 3  # sin, multiply, add


def chain(x, np=anp, steps=STEPS):
    """``steps`` times ``x = sin(x) * 0.999 + 0.001``; ``np`` as for ``digits.loss``."""
    for _ in range(steps):
        x = np.sin(x) * 0.999 + 0.001
    return x


def chain_derivative(x, xp, steps=STEPS):
    """The derivative of :func:`chain` at ``x``, by the chain rule written by hand with namespace ``xp``."""
    derivative = 1.0
    for _ in range(steps):
        derivative = derivative * (xp.cos(x) * 0.999)
        x = xp.sin(x) * 0.999 + 0.001
    return derivative


def start(backend):
    """The chain's starting point 0.5: a Python float on NumPy, a 0-d float64 array of ``backend``
    elsewhere (adcore computes Python scalars on the default backend, NumPy)."""
    return 0.5 if backend.name == "numpy" else backend.from_numpy(numpy.asarray(0.5), dtype="float64")

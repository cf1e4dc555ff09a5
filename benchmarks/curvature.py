"""Workloads e, f and i: second derivatives and full Jacobians.

e times a Hessian-vector product of ``sum(tanh(A @ x)**2)`` (each library's
own HVP operator), f the full Jacobian of ``tanh(A @ x)`` in forward and
reverse mode (each library's ``jacfwd`` and ``jacrev``; autograd has reverse only),
i the full Hessian of the Rosenbrock function (each library's ``hessian``).
"""

from functools import partial

import numpy

import adcore.numpy as anp

from .suite import HAND, compare, skipped_peers, target

HVP_SIZE = 500
JACOBIAN_SIZE = 200
ROSENBROCK_SIZE = 100


def tanh_energy(x, A, np=anp):
    """``sum(tanh(A @ x)**2)`` for a matrix ``A`` of shape ``(m, n)`` and ``x`` of shape ``(n,)``."""
    return np.sum(np.tanh(np.matmul(A, x)) ** 2)


def tanh_energy_hvp(x, v, A, xp):
    """The Hessian of :func:`tanh_energy` at ``x`` times ``v``, by hand.

    With ``t = tanh(A @ x)`` the gradient is ``A.T @ (2 t (1 - t**2))``, and
    the derivative of ``2 t - 2 t**3`` in ``A @ x`` is ``(2 - 6 t**2)(1 - t**2)``,
    so ``H v = A.T @ ((2 - 6 t**2)(1 - t**2) * (A @ v))``.
    """
    t = xp.tanh(A @ x)
    t2 = t * t
    return A.T @ ((2.0 - 6.0 * t2) * (1.0 - t2) * (A @ v))


def tanh_layer(x, A, np=anp):
    """``tanh(A @ x)``: R^n -> R^m."""
    return np.tanh(np.matmul(A, x))


def tanh_layer_jacobian(x, A, xp):
    """The Jacobian of :func:`tanh_layer`, ``(1 - t**2)[:, None] * A`` with ``t = tanh(A @ x)``, shape ``(m, n)``."""
    t = xp.tanh(A @ x)
    return xp.reshape(1.0 - t * t, (-1, 1)) * A


def layer_inputs(size, seed):
    """A standard normal ``A`` of shape ``(size, size)`` scaled by ``1 / sqrt(size)`` (so ``A @ x`` is O(1)), ``x`` and ``v``."""
    rng = numpy.random.default_rng(seed)
    return rng.standard_normal((size, size)) / numpy.sqrt(size), rng.standard_normal(size), rng.standard_normal(size)


def _bound(function, A, np):
    def bound(x):
        return function(x, A, np=np)

    bound.__name__ = function.__name__
    return bound


def hessian_vector_product(ctx):
    """Workload e: the Hessian of :func:`tanh_energy` (``A`` 500 x 500) times a vector."""
    A, x, v = layer_inputs(HVP_SIZE, seed=1)
    calls = {}
    for peer in ctx.peers:
        hvp = peer.hvp(_bound(tanh_energy, peer.put(A), peer.np))
        calls[peer.name] = (peer, partial(hvp, peer.put(x), peer.put(v)))
    put = ctx.adcore.put
    figures = compare(ctx, "e", calls, partial(tanh_energy_hvp, put(x), put(v), put(A), ctx.backend.xp))
    vs_hand = figures.get("adcore", {}).get(HAND)
    return {
        "id": "e",
        "title": f"Hessian-vector product of sum(tanh(A @ x)**2), A {HVP_SIZE} x {HVP_SIZE}, float64",
        "unit": "ms",
        "contenders": figures,
        "skipped": skipped_peers(ctx),
        "target": target("<= 3x hand-written", [("{:.2f}x", vs_hand)], vs_hand is not None and vs_hand <= 3),
    }


def full_jacobian(ctx):
    """Workload f: the Jacobian of :func:`tanh_layer`, R^200 -> R^200, in each library's modes."""
    A, x, _ = layer_inputs(JACOBIAN_SIZE, seed=2)
    calls = {}
    for peer in ctx.peers:
        for mode, jacobian in peer.jacobians.items():
            calls[f"{peer.name} {mode}"] = (peer, partial(jacobian(_bound(tanh_layer, peer.put(A), peer.np)), peer.put(x)))
    put = ctx.adcore.put
    figures = compare(ctx, "f", calls, partial(tanh_layer_jacobian, put(x), put(A), ctx.backend.xp))
    autograd = figures.get("autograd jacobian", {}).get("seconds")
    adcore_modes = [figures[name]["seconds"] for name in ("adcore jacfwd", "adcore jacrev") if name in figures]
    for entry in figures.values():
        entry["autograd"] = entry["seconds"] / autograd if autograd else None
    speedup = autograd / min(adcore_modes) if autograd and adcore_modes else None
    return {
        "id": "f",
        "title": f"full Jacobian of tanh(A @ x), R^{JACOBIAN_SIZE} -> R^{JACOBIAN_SIZE}, float64, forward and reverse mode",
        "unit": "ms",
        "contenders": figures,
        "skipped": skipped_peers(ctx),
        "target": target(
            ">= 5x faster than autograd's jacobian in one mode",
            [("{:.1f}x faster", speedup)],
            speedup is not None and speedup >= 5,
        ),
    }


def rosenbrock(x, np=anp):
    """``sum(100 (x[i+1] - x[i]**2)**2 + (1 - x[i])**2)`` over ``i < n - 1``, for ``x`` of shape ``(n,)``."""
    head, tail = x[:-1], x[1:]
    return np.sum(100.0 * (tail - head**2) ** 2 + (1.0 - head) ** 2)


def rosenbrock_hessian(x, xp):
    """The Hessian of :func:`rosenbrock` by hand, tridiagonal: ``-400 x[i]`` beside the diagonal, and on
    it ``1200 x[i]**2 - 400 x[i+1] + 2`` (for ``i < n - 1``) plus ``200`` (for ``i > 0``)."""
    n = x.shape[0]
    head, tail = x[:-1], x[1:]
    zero = xp.zeros(1, dtype=x.dtype)
    diagonal = xp.concat([1200.0 * head * head - 400.0 * tail + 2.0, zero]) + xp.concat(
        [zero, xp.full(n - 1, 200.0, dtype=x.dtype)]
    )
    beside = xp.eye(n, k=1, dtype=x.dtype) * xp.reshape(xp.concat([-400.0 * head, zero]), (n, 1))
    return xp.eye(n, dtype=x.dtype) * diagonal + beside + xp.matrix_transpose(beside)


def full_hessian(ctx):
    """Workload i: the Hessian of :func:`rosenbrock` in 100 dimensions, by each library's ``hessian``."""
    x = numpy.random.default_rng(3).uniform(-2.0, 2.0, ROSENBROCK_SIZE)
    calls = {}
    for peer in ctx.peers:
        hessian = peer.hessian(partial(rosenbrock, np=peer.np))
        calls[peer.name] = (peer, partial(hessian, peer.put(x)))
    figures = compare(ctx, "i", calls, partial(rosenbrock_hessian, ctx.adcore.put(x), ctx.backend.xp))
    vs_autograd = figures.get("adcore", {}).get("autograd")
    return {
        "id": "i",
        "title": f"Hessian of the Rosenbrock function, R^{ROSENBROCK_SIZE} -> R, float64",
        "unit": "ms",
        "contenders": figures,
        "skipped": skipped_peers(ctx),
        "target": target(
            "<= 1.0x autograd's hessian", [("{:.2f}x autograd", vs_autograd)], vs_autograd is not None and vs_autograd <= 1.0
        ),
    }

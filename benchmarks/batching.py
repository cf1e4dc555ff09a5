"""Workload v: per-example derivatives with ``vmap``, against the Python loop and the peers' ``vmap``.

v1 times the per-example gradients of a small MLP's squared error, with respect to its
parameters, over a batch of examples; v2 the per-example Hessian-vector products of
``sum(tanh(A @ x)**2)``, one ``(x, v)`` pair per example. Each library's own transforms:
``adcore.vmap(adcore.grad)``, ``torch.func.vmap(torch.func.grad)``,
``jax.vmap(jax.grad)``; adcore's Python loop of ``grad`` (the loop that ``vmap`` replaces)
runs beside them, and the hand-written derivative is the batched NumPy computation.
"""

from functools import partial

import numpy

import adcore.numpy as anp

from .curvature import tanh_energy
from .peers import tree_map
from .suite import HAND, compare, ratio_or_none, skipped_peers, target

#: Examples, inputs and hidden units of workload v1's MLP (tanh hidden layer, one output).
EXAMPLES, INPUTS, HIDDEN = 256, 32, 64
#: Workload v2's ``A`` is ``HVP_ROWS x INPUTS``.
HVP_ROWS = 64
LOOP = "adcore loop"


def squared_error(params, x, y, np=anp):
    """``(tanh(x @ W + b) @ w + c - y)**2`` for one example: ``x`` of shape ``(INPUTS,)``, ``y`` a scalar,
    ``params = (W, b, w, c)`` of shapes ``(INPUTS, HIDDEN)``, ``(HIDDEN,)``, ``(HIDDEN,)``, ``()``."""
    W, b, w, c = params
    return (np.sum(np.tanh(np.matmul(x, W) + b) * w) + c - y) ** 2


def squared_error_gradients(params, X, Y, xp):
    """The gradients of :func:`squared_error` for every example at once, by hand.

    With ``h = tanh(X @ W + b)`` and ``r = 2 (h @ w + c - y)`` per example, the gradient in ``w``
    is ``r h``, in ``c`` it is ``r``, in ``b`` it is ``d = r w (1 - h**2)`` and in ``W`` the outer
    product ``x d``. Shapes: the parameters' with a leading batch axis of ``len(X)``.
    """
    W, b, w, c = params
    h = xp.tanh(X @ W + b)
    r = 2.0 * (h @ w + c - Y)
    d = r[:, None] * w * (1.0 - h * h)
    return (X[:, :, None] * d[:, None, :], d, r[:, None] * h, r)


def energy_hvps(X, V, A, xp):
    """The Hessian of :func:`~benchmarks.curvature.tanh_energy` at each row of ``X`` times the same row
    of ``V``, by hand: ``((2 - 6 t**2)(1 - t**2) (v @ A.T)) @ A`` with ``t = tanh(x @ A.T)``, batched."""
    t = xp.tanh(X @ A.T)
    t2 = t * t
    return ((2.0 - 6.0 * t2) * (1.0 - t2) * (V @ A.T)) @ A


def mlp_inputs(seed):
    """The MLP's parameters ``(W, b, w, c)`` and a batch ``X``, ``Y`` of standard normal examples."""
    rng = numpy.random.default_rng(seed)
    W = rng.standard_normal((INPUTS, HIDDEN)) / numpy.sqrt(INPUTS)
    params = (W, rng.standard_normal(HIDDEN), rng.standard_normal(HIDDEN) / numpy.sqrt(HIDDEN), numpy.array(0.5))
    return params, rng.standard_normal((EXAMPLES, INPUTS)), rng.standard_normal(EXAMPLES)


def _stacked(peer, per_example):
    """The Python loop's per-example results (a list of arrays or of tuples of arrays) stacked as ``vmap``'s."""
    stack = peer.backend.xp.stack
    if isinstance(per_example[0], tuple):
        return tuple(stack(list(column)) for column in zip(*per_example))
    return stack(per_example)


def _loop(peer, derivative, shared, X, Y):
    """The Python loop of ``derivative`` over the examples ``X[i], Y[i]`` (after ``shared``, the parameters, if
    not None), stacked as ``vmap``'s results: a function of its inputs (``kernels`` counts on them)."""
    head = () if shared is None else (shared,)
    return _stacked(peer, [derivative(*head, X[i], Y[i]) for i in range(EXAMPLES)])


def per_example_gradients(ctx):
    """Workload v1: the per-example gradients of :func:`squared_error` over ``EXAMPLES`` examples."""
    params, X, Y = mlp_inputs(seed=5)
    calls = {}
    for peer in ctx.peers:
        batched = peer.per_example("grad", partial(squared_error, np=peer.np), in_axes=(None, 0, 0))
        if batched is not None:
            calls[peer.name] = (peer, partial(batched, tree_map(peer.put, params), peer.put(X), peer.put(Y)))
    adcore_peer, put = ctx.adcore, ctx.adcore.put
    one = adcore_peer.grad(squared_error)
    p, X_, Y_ = tree_map(put, params), put(X), put(Y)
    calls[LOOP] = (adcore_peer, partial(_loop, adcore_peer, one, p, X_, Y_))
    figures = compare(ctx, "v1", calls, partial(squared_error_gradients, p, X_, Y_, ctx.backend.xp), memory=True)
    title = f"per-example gradients of an MLP's squared error, {EXAMPLES} examples, {INPUTS}-{HIDDEN}-1 tanh, float64"
    return _result(ctx, "v1", title, figures)


def per_example_hvps(ctx):
    """Workload v2: per-example Hessian-vector products of :func:`~benchmarks.curvature.tanh_energy`."""
    rng = numpy.random.default_rng(6)
    A = rng.standard_normal((HVP_ROWS, INPUTS)) / numpy.sqrt(INPUTS)
    X, V = rng.standard_normal((EXAMPLES, INPUTS)), rng.standard_normal((EXAMPLES, INPUTS))
    calls = {}
    for peer in ctx.peers:
        A_peer = peer.put(A)
        batched = peer.per_example("hvp", lambda x, A_peer=A_peer, peer=peer: tanh_energy(x, A_peer, np=peer.np))
        if batched is not None:
            calls[peer.name] = (peer, partial(batched, peer.put(X), peer.put(V)))
    adcore_peer, put = ctx.adcore, ctx.adcore.put
    A_, X_, V_ = put(A), put(X), put(V)
    one = adcore_peer.hvp(lambda x: tanh_energy(x, A_))
    calls[LOOP] = (adcore_peer, partial(_loop, adcore_peer, one, None, X_, V_))
    figures = compare(ctx, "v2", calls, partial(energy_hvps, X_, V_, A_, ctx.backend.xp), memory=True)
    title = f"per-example Hessian-vector products of sum(tanh(A @ x)**2), A {HVP_ROWS} x {INPUTS}, {EXAMPLES} examples, float64"
    return _result(ctx, "v2", title, figures)


def _result(ctx, workload_id, title, figures):
    """The workload's entry, with the issue's targets: ``vmap`` at most 0.05x the loop and no slower than
    ``torch.func.vmap``, its peak memory within 1.5x of the hand-batched computation's."""
    vs_loop = ratio_or_none(figures, "adcore", LOOP)
    vs_torch = ratio_or_none(figures, "adcore", "torch")
    memory, hand_memory = figures.get("adcore", {}).get("memory_bytes"), figures.get(HAND, {}).get("memory_bytes")
    vs_memory = memory / hand_memory if memory is not None and hand_memory else None
    met = all(value is not None for value in (vs_loop, vs_torch, vs_memory)) and (
        vs_loop <= 0.05 and vs_torch <= 1.0 and vs_memory <= 1.5
    )
    return {
        "id": workload_id,
        "title": title,
        "unit": "ms",
        "contenders": figures,
        "skipped": skipped_peers(ctx, {"autograd": "has no vmap"}),
        "target": target(
            "vmap <= 0.05x the loop of grad, <= 1.0x torch.func.vmap, <= 1.5x the hand-batched memory",
            [("{:.3f}x the loop", vs_loop), ("{:.2f}x torch", vs_torch), ("{:.2f}x memory", vs_memory)],
            met,
        ),
    }

"""Batches of cotangents: one backward pass pushes several cotangents of the output at once.

``jacrev`` pushes all the rows of a Jacobian through one backward pass: the cotangent then has
leading *batch axes*, ``batch_shape + ans.shape``, and the pass runs inside :func:`cotangent_batch`.
A VJP that is correct for such a cotangent (it addresses the trailing axes only, or asks
:func:`batch_ndim`) is *batch-safe*: a fact of the op table (:attr:`~adcore.core.ops.Op.batch_safe`),
implied by an elementwise declaration and declared by :func:`def_batch_safe_vjp` for the other
primitives. A graph with any other primitive is walked one row at a time. This module imports no
array library.
"""

from contextlib import contextmanager
from contextvars import ContextVar

from .ops import declare_facts, ops

_batch_ndim = ContextVar("adcore_cotangent_batch_ndim", default=0)


def def_batch_safe_vjp(*funs):
    """Declare that the VJPs of ``funs`` accept a cotangent of shape ``batch_shape + ans.shape``
    inside :func:`cotangent_batch` and return ``batch_shape + x.shape`` for each argument ``x``."""
    for fun in funs:
        declare_facts(fun, batch_safe=True)


def all_batch_safe(funs):
    """Whether every primitive of ``funs`` (None, a graph's root, counts as safe) has a batch-safe VJP."""
    get = ops.get
    for fun in funs:
        if fun is not None:
            op = get(fun)
            if op is None or not op.batch_safe:
                return False
    return True


@contextmanager
def cotangent_batch(ndim):
    """Within the block, cotangents carry ``ndim`` leading batch axes (what :func:`batch_ndim` reads)."""
    token = _batch_ndim.set(ndim)
    try:
        yield
    finally:
        _batch_ndim.reset(token)


def batch_ndim():
    """The number of leading batch axes of the cotangents now pushed (0 outside :func:`cotangent_batch`)."""
    return _batch_ndim.get()

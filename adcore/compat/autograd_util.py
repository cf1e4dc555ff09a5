"""The helpers of ``autograd.util`` and ``autograd.wrap_util`` that programs written for autograd import.

The alias (:mod:`adcore.compat.autograd`) serves both module paths from here;
``unary_to_nary`` and ``toposort`` are adcore's own.
"""

import warnings
from contextlib import contextmanager

from ..core import next_trace_id, toposort
from ..operators import unary_to_nary

__all__ = ["TraceStack", "trace_stack", "func", "get_doc", "get_name", "quick_grad_check", "subval", "subvals", "toposort", "unary_to_nary", "wraps"]


def func(f):
    """``f`` itself: autograd writes ``func(VSpace.add)`` to name the function under a method."""
    return f


def subvals(x, ivs):
    """``tuple(x)`` with ``x[i] = v`` for each ``(i, v)`` of ``ivs``."""
    x = list(x)
    for i, v in ivs:
        x[i] = v
    return tuple(x)


def subval(x, i, v):
    """``tuple(x)`` with ``x[i] = v``."""
    return subvals(x, [(i, v)])


def get_name(f):
    return getattr(f, "__name__", "[unknown name]")


def get_doc(f):
    return getattr(f, "__doc__", "")


def wraps(fun, namestr="{fun}", docstr="{doc}", **kwargs):
    """A decorator that names ``f`` and gives it a docstring from ``fun``'s (autograd's ``wrap_util.wraps``)."""

    def _wraps(f):
        f.__name__ = namestr.format(fun=get_name(fun), **kwargs)
        f.__doc__ = docstr.format(fun=get_name(fun), doc=get_doc(fun), **kwargs)
        return f

    return _wraps


def quick_grad_check(fun, arg0, extra_args=(), kwargs=None, verbose=True, eps=1e-4, rtol=1e-4, atol=1e-6, rs=None):
    """Deprecated in autograd: ``check_grads(fun, modes=["rev"], order=1)`` at ``arg0``."""
    from ..test_util import check_grads

    warnings.warn("quick_grad_check is deprecated: use adcore.test_util.check_grads", DeprecationWarning, stacklevel=2)
    check_grads(lambda x: fun(x, *extra_args, **(kwargs or {})), modes=["rev"], order=1)(arg0)


class TraceStack:
    """``autograd.tracer.trace_stack``: ``with trace_stack.new_trace() as t:`` gives the id of a new trace,
    for code that boxes values itself (``new_box(x, t, node)``) as autograd's ``trace`` does.

    The id is larger than that of every trace running, so the new trace is the innermost one, and a
    box's ``_trace`` equals ``t`` exactly when it belongs to that trace: what autograd's trace depth
    tells. adcore's ids come from one counter that only grows, so nothing is kept or reset here.
    """

    @contextmanager
    def new_trace(self):
        yield next_trace_id()


trace_stack = TraceStack()

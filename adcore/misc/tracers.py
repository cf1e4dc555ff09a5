"""Trace once, replay: autograd 1.9.1's ``autograd.misc.tracers.const_graph``.

The first call of a ``const_graph`` function runs it under a trace whose
nodes (:class:`ConstGraphNode`) keep each primitive and its constant
arguments. Later calls replay those primitives in order on the new
arguments, without running the Python code again: the loops, branches and
attribute look-ups are paid once. The replayed primitives are ordinary
``adcore.numpy`` calls, so the result stays differentiable.
"""

from functools import partial

from .. import builtins as _builtins  # noqa: F401 - registers the tuple box: the arguments are traced as one tuple
from ..core import Node, toposort, trace
from ..core.wrapping import wraps

__all__ = ["const_graph"]


class ConstGraphNode(Node):
    """A recorded primitive call: its ``parents`` and ``partial_fun(parent_values) -> value``."""

    __slots__ = ["parents", "partial_fun"]

    def __init__(self, value, fun, args, kwargs, parent_argnums, parents):
        constants = list(args)
        for argnum in parent_argnums:
            constants[argnum] = None  # do not keep the traced values of the first call

        def partial_fun(parent_values):
            call_args = list(constants)
            for argnum, parent_value in zip(parent_argnums, parent_values):
                call_args[argnum] = parent_value
            return fun(*call_args, **kwargs)

        self.parents = parents
        self.partial_fun = partial_fun

    def initialize_root(self):
        self.parents = ()


def const_graph(fun, *args, **kwargs):
    """``fun`` recorded on its first call and replayed, without its Python code, on later calls.

    Parameters
    ----------
    fun : callable
        A function of arrays written with ``adcore.numpy`` functions.
    *args, **kwargs
        Bound in front of the call's arguments, as ``functools.partial``.

    Returns
    -------
    callable
        ``cached(*call_args)``: the first call runs ``fun(*args, *call_args, **kwargs)``
        and records its primitives; later calls replay them on the new
        ``call_args`` (same number, shapes and dtypes). Traced arguments give
        traced results, so ``grad(cached)`` works.

    Raises
    ------
    ValueError
        On the first call, if the output does not depend on the arguments
        (there is nothing to replay).

    Notes
    -----
    The replay is only right when the recorded primitives are the ones
    ``fun`` would call: everything that is not a differentiable primitive of
    the arguments is frozen at its first-call value, including Python control
    flow, shapes, and the results of non-differentiable functions
    (comparisons, ``argmax``, ``where`` masks).

    Examples
    --------
    >>> import adcore.numpy as np
    >>> from adcore import grad
    >>> f = const_graph(lambda x: np.sum(np.sin(x) ** 2))
    >>> round(float(f(np.ones(3))), 6), round(float(f(np.zeros(3))), 6)
    (2.12422, 0.0)
    >>> grad(f)(np.zeros(2))
    array([0., 0.])
    """
    bound = partial(fun, *args, **kwargs)
    graph = []

    @wraps(fun)
    def cached(*call_args):
        if not graph:
            end_value, end_node = trace(ConstGraphNode.new_root(), lambda boxed: bound(*boxed), call_args)
            if end_node is None:
                raise ValueError(
                    f"const_graph: the output of {getattr(fun, '__name__', fun)} does not depend on its arguments, "
                    "so there is nothing to record; call it directly"
                )
            graph.extend(reversed(list(toposort(end_node))))
            return end_value
        values = {graph[0]: call_args}
        for node in graph[1:]:
            values[node] = node.partial_fun([values[parent] for parent in node.parents])
        return values[graph[-1]]

    return cached

"""Reverse mode: VJP nodes, the VJP registry and the backward pass.

A rule for primitive ``f`` is a *VJP maker*: called at trace time with the
output ``ans`` and the raw arguments, it returns ``vjp(g)``, which maps the
output cotangent ``g`` to the cotangent of an argument. This module imports no
array library.
"""

from .tracer import Node, gc_paused, primitive_name, trace
from .vspace import accumulate, vspace

primitive_vjps = {}


class VJPNode(Node):
    """Keeps its primitive ``fun``, its parents and the local VJP, a function from
    the output cotangent to the tuple of cotangents of the parents."""

    __slots__ = ["fun", "parents", "vjp"]

    def __init__(self, value, fun, args, kwargs, parent_argnums, parents):
        self.fun = fun
        self.parents = parents
        try:
            vjpmaker = primitive_vjps[fun]
        except KeyError:
            raise NotImplementedError(missing_rule_message("VJP", fun, parent_argnums)) from None
        self.vjp = vjpmaker(parent_argnums, value, args, kwargs)

    def initialize_root(self):
        self.fun = None
        self.parents = ()
        self.vjp = lambda g: ()


def missing_rule_message(mode, fun, argnums):
    argnums = argnums[0] if len(argnums) == 1 else argnums
    which = "argnum" if isinstance(argnums, int) else "argnums"
    return f"{mode} of {primitive_name(fun)} wrt {which} {argnums} is not defined"


def make_vjp(fun, x):
    """Trace ``fun(x)``; return ``(vjp, ans)`` where ``vjp(g)`` is the cotangent of ``x``.

    ``vjp(g)`` maps a cotangent ``g`` of the output's space (same shape and
    dtype as ``ans``) to one of ``x``'s space. If ``ans`` does not depend on
    ``x``, ``vjp`` returns zeros of ``x``'s space.
    """
    start_node = VJPNode.new_root()
    end_value, end_node = trace(start_node, fun, x)
    if end_node is None:

        def vjp(g):
            return vspace(x).zeros()

    else:

        def vjp(g):
            return backward_pass(g, end_node)

    return vjp, end_value


def backward_pass(g, end_node):
    """Walk the graph from ``end_node`` in reverse topological order, summing cotangents per node."""
    outgrads = {end_node: g}
    with gc_paused():
        for node in toposort(end_node):
            outgrad = outgrads.pop(node)
            for parent, parent_g in zip(node.parents, node.vjp(outgrad)):
                outgrads[parent] = accumulate(outgrads.get(parent), parent_g)
    return outgrad


def toposort(end_node):
    """Nodes reachable from ``end_node``, each after every node that consumes it."""
    child_counts = {}
    stack = [end_node]
    while stack:
        node = stack.pop()
        if node in child_counts:
            child_counts[node] += 1
        else:
            child_counts[node] = 1
            stack.extend(node.parents)
    childless = [end_node]
    while childless:
        node = childless.pop()
        yield node
        for parent in node.parents:
            if child_counts[parent] == 1:
                childless.append(parent)
            else:
                child_counts[parent] -= 1


# ---- the registry (autograd 1.9.1's names and calling conventions) ----


def defvjp_argnums(fun, vjpmaker):
    """Register ``vjpmaker(argnums, ans, args, kwargs) -> vjp(g) -> tuple of cotangents``."""
    primitive_vjps[fun] = vjpmaker


def defvjp_argnum(fun, vjpmaker):
    """Register ``vjpmaker(argnum, ans, args, kwargs) -> vjp(g)``, one argument at a time."""

    def vjp_argnums(argnums, ans, args, kwargs):
        vjps = [vjpmaker(argnum, ans, args, kwargs) for argnum in argnums]
        return lambda g: tuple(vjp(g) for vjp in vjps)

    defvjp_argnums(fun, vjp_argnums)


def defvjp(fun, *vjpmakers, argnums=None):
    """Register one VJP maker per argument: ``vjpmaker(ans, *args, **kwargs) -> vjp(g)``.

    ``vjpmakers[i]`` is for argument ``argnums[i]`` (default ``0, 1, ...``);
    ``None`` means the cotangent of that argument is zero. Arguments with no
    maker raise ``NotImplementedError`` when differentiated.
    """
    argnums = range(len(vjpmakers)) if argnums is None else argnums
    makers = {argnum: zero_vjp(argnum) if maker is None else maker for argnum, maker in zip(argnums, vjpmakers)}

    def vjp_argnum(argnum, ans, args, kwargs):
        try:
            maker = makers[argnum]
        except KeyError:
            raise NotImplementedError(missing_rule_message("VJP", fun, (argnum,))) from None
        return maker(ans, *args, **kwargs)

    defvjp_argnum(fun, vjp_argnum)


def zero_vjp(argnum):
    def maker(ans, *args, **kwargs):
        return lambda g: vspace(args[argnum]).zeros()

    return maker


def defvjp_is_zero(fun, argnums=(0,)):
    """The cotangent of each of ``argnums`` is zero (e.g. integer or index arguments)."""
    defvjp(fun, *[None] * len(argnums), argnums=argnums)

"""Forward mode: JVP nodes and the JVP registry.

A JVP rule maps the tangent ``g`` of one argument (with the output ``ans`` and
the raw arguments) to that argument's contribution to the output tangent; a
node sums the contributions of its parents as soon as it is built, so nothing
is walked backwards. This module imports no array library.
"""

from operator import attrgetter

from .reverse import RuleNotDefined, VJPNode, argnums_text, joined_output, reverse_creation_order
from .tracer import Node, primitive_name, trace
from .vspace import VSpace, accumulate, check_rule_output, checking_rules, vspace

primitive_jvps = {}


def output_tangent(fun, parent_argnums, gs, value, args, kwargs):
    """The tangent of ``value = fun(*args, **kwargs)`` for the tangents ``gs`` of the arguments at
    ``parent_argnums`` (``RuleNotDefined`` if ``fun`` has no JVP rule; checked under ``set_debug``)."""
    try:
        jvpmaker = primitive_jvps[fun]
    except KeyError:
        raise RuleNotDefined("JVP", fun, parent_argnums) from None
    g = jvpmaker(parent_argnums, gs, value, args, kwargs)
    if checking_rules.get():
        rule = f"the JVP of {primitive_name(fun)} for {argnums_text(parent_argnums)}"
        check_rule_output(vspace(value), g, rule, "tangent")
    return g


class JVPNode(Node):
    """Holds ``g``, the tangent of its value, computed from its parents' tangents."""

    __slots__ = ["g"]

    def __init__(self, value, fun, args, kwargs, parent_argnums, parents):
        gs = [parents[0].g] if len(parents) == 1 else [parent.g for parent in parents]  # one parent: no comprehension
        self.g = output_tangent(fun, parent_argnums, gs, value, args, kwargs)

    def initialize_root(self, g):
        self.g = g


class TapeNode(VJPNode):
    """A :class:`VJPNode` that also keeps its primitive's call (``call``: output, arguments with every
    constant kept, keyword arguments, argnums), so that tangents can be pushed through the recorded
    graph (:func:`tape_jvp`) as well as cotangents pulled back: both modes from one trace."""

    __slots__ = ["call"]
    keeps_call = True


def tape_order(end_node):
    """The nodes of the graph ending at the :class:`TapeNode` ``end_node``, in the order they were
    recorded (every node after its parents), for :func:`tape_jvp`."""
    return sorted(reverse_creation_order(end_node), key=attrgetter("number"))


def has_jvps(nodes):
    """Whether every primitive recorded in ``nodes`` has a JVP rule (one that may still refuse an argnum)."""
    return all(node.fun is None or node.fun in primitive_jvps for node in nodes)


def tape_jvp(nodes, g):
    """The tangent of the output of a recorded graph (``nodes``, from :func:`tape_order`) along the
    tangent ``g`` of its input: each primitive's JVP rule on the call it recorded, in recording
    order, without running the function again (``RuleNotDefined`` where a rule is missing)."""
    tangents = {}
    for node in nodes:
        if node.fun is None:
            tangents[node] = g
            continue
        value, args, kwargs, argnums = node.call
        tangents[node] = output_tangent(node.fun, argnums, [tangents[parent] for parent in node.parents], value, args, kwargs)
    return tangents[nodes[-1]]


def make_jvp(fun, x):
    """Return ``jvp(g) -> (ans, tangent)``: ``fun(x)`` and its derivative along ``g``.

    ``g`` is in ``x``'s space; the tangent is in the output's space (zeros if
    the output does not depend on ``x``): for a returned container (a tuple, list or
    dict of arrays, at any depth), a container of the same structure.
    """
    fun = joined_output(fun)

    def jvp(g):
        start_node = JVPNode.new_root(g)
        end_value, end_node = trace(start_node, fun, x)
        if end_node is None:
            return end_value, vspace(end_value).zeros()
        return end_value, end_node.g

    return jvp


# ---- the registry (autograd 1.9.1's names and calling conventions) ----


def defjvp_argnums(fun, jvpmaker):
    """Register ``jvpmaker(argnums, gs, ans, args, kwargs) -> output tangent``."""
    primitive_jvps[fun] = jvpmaker


def defjvp_argnum(fun, jvpmaker):
    """Register ``jvpmaker(argnum, g, ans, args, kwargs) -> contribution``; contributions are summed
    (a node with one parent, the common case, takes its one contribution as it is)."""

    def jvp_argnums(argnums, gs, ans, args, kwargs):
        if len(argnums) == 1:
            return jvpmaker(argnums[0], gs[0], ans, args, kwargs)
        out = None
        for argnum, g in zip(argnums, gs):
            out = accumulate(out, jvpmaker(argnum, g, ans, args, kwargs))
        return out

    defjvp_argnums(fun, jvp_argnums)


def defjvp(fun, *jvpfuns, argnums=None):
    """Register one JVP per argument: ``jvpfun(g, ans, *args, **kwargs) -> contribution``.

    ``None`` means the argument does not change the output; ``"same"`` means the
    function is linear in that argument, so its JVP is ``fun`` applied to ``g``.
    """
    argnums = range(len(jvpfuns)) if argnums is None else argnums
    jvps = {argnum: translate_jvp(fun, jvpfun, argnum) for argnum, jvpfun in zip(argnums, jvpfuns)}

    def jvp_argnum(argnum, g, ans, args, kwargs):
        try:
            jvpfun = jvps[argnum]
        except KeyError:
            raise RuleNotDefined("JVP", fun, (argnum,)) from None
        return jvpfun(g, ans, *args, **kwargs)

    defjvp_argnum(fun, jvp_argnum)


def translate_jvp(fun, jvpfun, argnum):
    if jvpfun is None:
        return lambda g, ans, *args, **kwargs: vspace(ans).zeros()
    if jvpfun == "same":
        return lambda g, ans, *args, **kwargs: fun(*subval(args, argnum, g), **kwargs)
    if callable(jvpfun):
        return jvpfun
    raise TypeError(f"defjvp: a JVP must be a function, None or 'same', got {jvpfun!r}")


def def_linear(fun):
    """``fun`` is linear in each argument separately, so its JVP is ``fun`` with the
    tangent put in place of that argument (e.g. ``multiply``, ``sum``, ``reshape``)."""
    defjvp_argnum(fun, lambda argnum, g, ans, args, kwargs: fun(*args[:argnum], g, *args[argnum + 1 :], **kwargs))


def subval(values, i, v):
    values = list(values)
    values[i] = v
    return tuple(values)


# ---- the vector-space operations of a user's space: add is the identity in each argument,
# scalar_mul and inner_prod are bilinear, covector is (real-)linear ----

defjvp(VSpace.add, lambda g, ans, vs, x, y: g, lambda g, ans, vs, x, y: g, argnums=(1, 2))
def_linear(VSpace.scalar_mul)
def_linear(VSpace.inner_prod)
def_linear(VSpace.covector)

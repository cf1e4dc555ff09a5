"""Reverse mode: VJP nodes, the VJP registry and the backward pass.

A rule for primitive ``f`` is a *VJP maker*: called at trace time with the
output ``ans`` and the raw arguments, it returns ``vjp(g)``, which maps the
output cotangent ``g`` to the cotangent of an argument. This module imports no
array library.
"""

from .tracer import Node, TypeMap, gc_paused, primitive_name, trace
from .vspace import VSpace, accumulate, vspace

primitive_vjps = {}

#: ``type -> snapshot(value)``: a copy that later writes to ``value`` cannot reach, for the
#: mutable array types (filled by the array layer); None for immutable types.
snapshots = TypeMap("adcore cannot snapshot", required=False)
_UNSEEN = object()

#: ``type -> join(output)``: a function's output of a container type that holds traced values, made
#: one traced value (filled by ``adcore.builtins``), so that ``make_vjp`` and ``make_jvp`` differentiate
#: each item of a returned tuple, list or dict, at any depth, and return no box; None for other types.
output_joiners = TypeMap("adcore cannot join outputs of", required=False)


class VJPNode(Node):
    """Keeps its primitive ``fun``, its parents and the local VJP, a function from
    the output cotangent to the tuple of cotangents of the parents.

    The VJP maker sees the raw arguments with each mutable array that is not a
    parent (a constant such as data or weights held fixed) replaced by a snapshot
    (:func:`snapshot_constants`), so writes to those arrays between the forward
    and the backward pass cannot change the derivative.
    """

    __slots__ = ["fun", "parents", "vjp"]

    def __init__(self, value, fun, args, kwargs, parent_argnums, parents):
        self.fun = fun
        self.parents = parents
        try:
            vjpmaker = primitive_vjps[fun]
        except KeyError:
            raise NotImplementedError(missing_rule_message("VJP", fun, parent_argnums)) from None
        if len(args) != len(parent_argnums):
            args = snapshot_constants(args, parent_argnums)
        self.vjp = vjpmaker(parent_argnums, value, args, kwargs)

    def initialize_root(self):
        self.fun = None
        self.parents = ()
        self.vjp = lambda g: ()


def snapshot_constants(args, argnums):
    """``args`` with every argument not in ``argnums`` that is a mutable array replaced by its snapshot.

    Which types are mutable, and how they are copied, is registered in
    ``snapshots`` (by the array layer: ``Backend.snapshot``). Cost: one
    dictionary lookup per constant argument of a recorded call, and a copy of
    each mutable array among them (``O(size)`` time and memory, e.g. the data
    matrix of an MLP's first layer); calls on unboxed values pay nothing.
    Measured on NumPy (2 shared CPU cores, medians of interleaved runs): about 5%
    of the time per primitive of a scalar chain (``sin(x) * 0.999 + 0.001``) and
    2-3% of the gradient of the digits MLP of ``python -m benchmarks`` (which
    copies its 1437 x 64 inputs and its labels once per gradient).
    """
    copied = None
    for argnum, arg in enumerate(args):
        if argnum in argnums:
            continue
        snapshot = snapshots.get(type(arg), _UNSEEN)
        if snapshot is _UNSEEN:
            snapshot = snapshots.find(arg)
        if snapshot is not None:
            copied = copied or list(args)
            copied[argnum] = snapshot(arg)
    return args if copied is None else tuple(copied)


def missing_rule_message(mode, fun, argnums):
    argnums = argnums[0] if len(argnums) == 1 else argnums
    which = "argnum" if isinstance(argnums, int) else "argnums"
    return f"{mode} of {primitive_name(fun)} wrt {which} {argnums} is not defined"


def make_vjp(fun, x, single_use=False):
    """Trace ``fun(x)``; return ``(vjp, ans)`` where ``vjp(g)`` is the cotangent of ``x``.

    ``vjp(g)`` maps a cotangent ``g`` of the output's space (same shape and
    dtype as ``ans``) to one of ``x``'s space. If ``ans`` does not depend on
    ``x``, ``vjp`` returns zeros of ``x``'s space.

    Parameters
    ----------
    fun : callable
        The function to trace.
    x : value
        The input (an array, a scalar or a container of them).
    single_use : bool
        True when ``vjp`` is called exactly once, before the caller hands
        anything back to user code (``grad``, ``value_and_grad``,
        ``elementwise_grad``): the backward pass then frees each node's saved
        values as soon as its VJP has run (peak memory of the forward pass, not
        of the graph plus the cotangents), and ``x`` and ``ans`` are not copied.
        When False (the default: ``vjp`` may be called again, by the user or by
        ``jacobian``), nothing is freed, and a mutable array ``x`` and the
        returned ``ans`` are snapshots, so that writing to ``x`` or to ``ans``
        between the calls cannot change what ``vjp`` returns.

    Raises
    ------
    RuntimeError
        From ``vjp``: called a second time after ``make_vjp(..., single_use=True)``.
    """
    if not single_use:
        x = snapshot_value(x)
    start_node = VJPNode.new_root()
    end_value, end_node = trace(start_node, joined_output(fun), x)
    if end_node is None:

        def vjp(g):
            return vspace(x).zeros()

    elif single_use:
        used = []

        def vjp(g):
            if used:
                raise RuntimeError("make_vjp(..., single_use=True): vjp can be called once; its saved values are freed")
            used.append(True)
            return backward_pass(g, end_node, release_saved_values=True)

    else:

        def vjp(g):
            return backward_pass(g, end_node)

        end_value = snapshot_value(end_value)
    return vjp, end_value


def joined_output(fun):
    """``fun`` with a returned container of traced values made one traced value (``output_joiners``)."""

    def joined(x):
        ans = fun(x)
        join = output_joiners.find(ans)
        return ans if join is None else join(ans)

    return joined


def snapshot_value(value):
    """``value``, or its snapshot if it is a mutable array (registered in ``snapshots``)."""
    snapshot = snapshots.find(value)
    return value if snapshot is None else snapshot(value)


def backward_pass(g, end_node, release_saved_values=False):
    """Walk the graph from ``end_node`` in reverse topological order, summing cotangents per node.

    A node's cotangent is dropped once its VJP has run. With
    ``release_saved_values`` the node's VJP (which holds its arguments and
    output) is dropped too (:func:`release_saved_values_of`), so the graph can
    be walked only once.
    """
    outgrads = {end_node: g}
    with gc_paused():
        for node in toposort(end_node):
            outgrad = outgrads.pop(node)
            parent_gs = node.vjp(outgrad)
            if release_saved_values:
                release_saved_values_of(node)
            for parent, parent_g in zip(node.parents, parent_gs):
                outgrads[parent] = accumulate(outgrads.get(parent), parent_g)
    return outgrad


def release_saved_values_of(node):
    """Free what ``node`` saved for its VJP (arguments, output), after the VJP has run."""
    node.vjp = None


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
    defvjp_argnums(fun, vjp_argnums_from(vjpmaker))


def vjp_argnums_from(vjpmaker):
    """A ``defvjp_argnums`` maker from a one-argument ``vjpmaker(argnum, ans, args, kwargs)``.

    A node with one parent (the common case) gets its VJP without a loop.
    """

    def vjp_argnums(argnums, ans, args, kwargs):
        if len(argnums) == 1:
            vjp = vjpmaker(argnums[0], ans, args, kwargs)
            return lambda g: (vjp(g),)
        vjps = [vjpmaker(argnum, ans, args, kwargs) for argnum in argnums]
        return lambda g: tuple(vjp(g) for vjp in vjps)

    return vjp_argnums


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


# ---- the vector-space operations of a user's space (its hooks ``_add``, ``_scalar_mul``, ...) ----


def identity_vjp(ans, vs, *args):
    return lambda g: g


defvjp(VSpace.add, identity_vjp, identity_vjp, argnums=(1, 2))
defvjp(
    VSpace.scalar_mul,
    lambda ans, vs, x, a: lambda g: vs.covector(vs.scalar_mul(vs.covector(g), a)),
    lambda ans, vs, x, a: lambda g: vs.inner_prod(g, vs.covector(x)),
    argnums=(1, 2),
)
defvjp(
    VSpace.inner_prod,
    lambda ans, vs, x, y: lambda g: vs.covector(vs.scalar_mul(y, g)),
    lambda ans, vs, x, y: lambda g: vs.covector(vs.scalar_mul(x, g)),
    argnums=(1, 2),
)
defvjp(VSpace.covector, lambda ans, vs, x: lambda g: vs.covector(g), argnums=(1,))

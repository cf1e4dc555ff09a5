"""Reverse mode: VJP nodes, the VJP registry and the backward pass.

A rule for primitive ``f`` is a *VJP maker*: called at trace time with the
output ``ans`` and the raw arguments, it returns ``vjp(g)``, which maps the
output cotangent ``g`` to the cotangent of an argument. This module imports no
array library.
"""

from operator import attrgetter

from .constants import COPY_BUDGET, Constants, immutable_types, snapshot_value
from .tracer import Node, TypeMap, gc_paused, getval, node_numbers, primitive_name, trace
from .vspace import (
    VSpace,
    accumulate,
    accumulate_into,
    check_rule_output,
    checking_rules,
    dense,
    lazy_cotangents,
    sparse_cotangents,
    vspace,
)

primitive_vjps = {}
#: ``fun -> SavedValuesVJP``: the rules that name what they keep (see :func:`defvjp_saved_values`).
saved_values_vjps = {}

#: ``type -> join(output)``: a function's output of a container type that holds traced values, made
#: one traced value (filled by ``adcore.builtins``), so that ``make_vjp`` and ``make_jvp`` differentiate
#: each item of a returned tuple, list or dict, at any depth, and return no box; None for other types.
output_joiners = TypeMap("adcore cannot join outputs of", required=False)


class VJPNode(Node):
    """Keeps its primitive ``fun``, its parents, its creation ``number`` (which orders the backward
    pass), and what its VJP needs: either a closure ``vjp(g)`` from the rule's VJP maker
    (``saved`` None), or the rule's ``vjp`` with the values it names (``saved``; see
    :class:`SavedValuesVJP`), which needs no closure per node.

    Its constant arguments are kept by its trace's :class:`Constants`. A subclass that sets
    ``keeps_call`` keeps every constant argument, and ``call``: the primitive's output, arguments,
    keyword arguments and differentiated argnums (``adcore.core.forward.TapeNode``).
    """

    __slots__ = ["fun", "parents", "number", "constants", "vjp", "saved"]
    keeps_call = False

    def __init__(self, value, fun, args, kwargs, parent_argnums, parents):
        self.fun, self.parents, self.number, self.constants = fun, parents, next(node_numbers), parents[0].constants
        rule = saved_values_vjps.get(fun)
        if len(args) != len(parent_argnums) and self.keeps_constants(rule, args, parent_argnums):
            args = self.constants.keep(args, parent_argnums, fun)
        if rule is None or checking_rules.get():
            self.vjp, self.saved = closure_vjp(fun, value, args, kwargs, parent_argnums), None
        else:
            ans = None if rule.output_readers.isdisjoint(parent_argnums) else value
            kept = rule.keeps_arguments
            kept = args if kept is True else None if kept is False else kept(args, parent_argnums)
            self.vjp, self.saved = rule.vjp, (ans, kept, kwargs, parent_argnums)
        if self.keeps_call:
            self.call = (value, args, kwargs, parent_argnums)

    def keeps_constants(self, rule, args, argnums):
        """Whether the node keeps the constant arguments of a call that has some (``args`` not all at
        ``argnums``): unless its rule names no use of them, or the one constant of a binary call is
        immutable (``x * 0.5``: nothing to keep)."""
        if rule is not None and not rule.keeps_arguments and not self.keeps_call:
            return False
        return not (len(args) == 2 and type(args[1 - argnums[0]]) in immutable_types)

    def initialize_root(self, constants=None):
        self.fun = None
        self.parents = ()
        self.number = next(node_numbers)
        self.constants = constants or Constants()
        self.vjp, self.saved = lambda g: (), None


def closure_vjp(fun, value, args, kwargs, argnums):
    """The VJP closure of ``fun``'s registered VJP maker for this call, checked under ``set_debug``
    (``RuleNotDefined`` where ``fun`` has no VJP rule)."""
    try:
        vjpmaker = primitive_vjps[fun]
    except KeyError:
        raise RuleNotDefined("VJP", fun, argnums) from None
    vjp = vjpmaker(argnums, value, args, kwargs)
    return checked_vjp(vjp, fun, argnums, args) if checking_rules.get() else vjp


def checked_vjp(vjp, fun, argnums, args):
    """``vjp``, raising ``ValueError`` for a cotangent that has not its argument's shape and dtype (``set_debug``)."""
    spaces = [vspace(args[argnum]) for argnum in argnums]

    def checked(g):
        cotangents = vjp(g)
        for argnum, space, cotangent in zip(argnums, spaces, cotangents):
            check_rule_output(space, cotangent, f"the VJP of {primitive_name(fun)} for argnum {argnum}", "cotangent")
        return cotangents

    return checked


class SavedValuesVJP:
    """A VJP rule that names the values it keeps, so that a node keeps those and needs no closure.

    ``vjp(g, owned, ans, args, kwargs, argnums) -> (cotangents, fresh)`` runs in the backward pass:
    ``ans`` is the output (None unless an argnum in ``output_readers`` is differentiated), ``args``
    the raw arguments (None unless ``keeps_arguments``), ``argnums`` the differentiated ones.
    ``owned`` says that the backward pass owns the buffer ``g`` (it made it and nobody else holds
    it), so the rule may write its result into ``g``; ``fresh`` says that the cotangents returned
    are such buffers, each distinct (then the pass owns them in turn).
    """

    __slots__ = ["vjp", "output_readers", "keeps_arguments"]

    def __init__(self, vjp, output_readers, keeps_arguments):
        self.vjp = vjp
        self.output_readers = frozenset(output_readers)
        self.keeps_arguments = keeps_arguments

    def vjp_maker(self, argnums, ans, args, kwargs):
        """The same rule as a closure, for code that calls the VJP registry (``primitive_vjps``) itself."""
        return lambda g: tuple(map(dense, self.vjp(g, False, ans, args, kwargs, argnums)[0]))


def argnums_text(argnums):
    """``"argnum 1"`` for one argument, ``"argnums (0, 1)"`` for several."""
    return f"argnum {argnums[0]}" if len(argnums) == 1 else f"argnums {tuple(argnums)}"


def defvjp_saved_values(fun, vjp, output_readers=(), keeps_arguments=True):
    """Register a :class:`SavedValuesVJP` for ``fun`` (and its closure form in ``primitive_vjps``).

    ``output_readers``: the argnums whose cotangent reads the output; the node keeps the output
    only when one of them is differentiated (``multiply``'s rule never reads it, ``exp``'s always).
    ``keeps_arguments``: whether the rule reads the arguments (``exp``'s does not), or a function
    ``kept(args, argnums)`` giving what the node keeps of them where a partial reads fewer than all
    (``adcore.numpy.declare.kept_unless_differentiated``).
    """
    rule = saved_values_vjps[fun] = SavedValuesVJP(vjp, output_readers, keeps_arguments)
    primitive_vjps[fun] = rule.vjp_maker


class RuleNotDefined(NotImplementedError):
    """A primitive has no ``mode`` (``"VJP"`` or ``"JVP"``) rule for the arguments differentiated;
    raised when a trace records the call."""

    def __init__(self, mode, fun, argnums):
        super().__init__(f"{mode} of {primitive_name(fun)} wrt {argnums_text(argnums)} is not defined")
        self.mode = mode


def make_vjp(fun, x):
    """Trace ``fun(x)``; return ``(vjp, ans)`` where ``vjp(g)`` is the cotangent of ``x``.

    ``vjp(g)`` maps a cotangent ``g`` of the output's space (same shape and
    dtype as ``ans``) to one of ``x``'s space. If ``ans`` does not depend on
    ``x``, ``vjp`` returns zeros of ``x``'s space. ``vjp`` may be called again
    (by the user or by ``jacobian``), so nothing is freed, and a mutable array
    ``x``, the returned ``ans`` and the constant arrays ``fun`` uses are
    snapshots: writing to them between the calls cannot change what ``vjp``
    returns (:func:`value_and_vjp` is the single-use form, for the operators
    that pull back one cotangent at once).
    """
    x = snapshot_value(x)
    end_value, end_node = trace(VJPNode.new_root(), joined_output(fun), x)
    space = vspace(x)

    def vjp(g):
        return space.zeros() if end_node is None else checked_input_cotangent(space, backward_pass(g, end_node), fun)

    return vjp, snapshot_value(end_value)


def value_and_vjp(fun, x, seed, op="grad"):
    """``(ans, vjp(seed(ans)))`` for ``ans = fun(x)``: one trace and one backward pass at once,
    for the operators that pull back one cotangent (``grad``, ``value_and_grad``, ``elementwise_grad``).

    ``seed(ans)`` returns the output's cotangent (it may raise, e.g. for a non-scalar output).
    Python's garbage collector is paused across the trace and the backward pass, each node's
    saved values are freed once its VJP has run, ``x`` and ``ans`` are not copied, and the
    constant arrays ``fun`` uses are copied up to a budget, beyond it checked at the end
    (:class:`~adcore.core.constants.Constants`).

    Raises
    ------
    ValueError
        If ``fun`` (or another thread) wrote to a constant array kept unchecked after using it, naming
        ``op``, ``fun`` and the arrays.
    """
    constants = Constants(copy_budget=COPY_BUDGET)
    with gc_paused():
        end_value, end_node = trace(VJPNode.new_root(constants), fun, x)
        g = seed(end_value)
        if end_node is None:
            return end_value, vspace(x).zeros()
        cotangent = backward_pass(g, end_node, release_saved_values=True)
    constants.verify(op, fun)
    return end_value, checked_input_cotangent(vspace(x), cotangent, fun)


def checked_input_cotangent(space, cotangent, fun):
    """``cotangent``, the input's at the end of a backward pass, if it has the shape and dtype of the input's
    ``space``; else ``ValueError``: a rule returned a cotangent of another shape or dtype (one check per pass;
    ``set_debug`` checks each rule and names it). Returned writable (``VSpace.writable``)."""
    problem = space.mismatch(getval(cotangent))
    if problem is not None:
        raise ValueError(
            f"the derivative of {getattr(fun, '__name__', 'the function')} has {problem}, its input's: a VJP rule "
            "returned a cotangent of the wrong shape or dtype; adcore.set_debug(True) names the rule"
        )
    return space.writable(cotangent)


def joined_output(fun):
    """``fun`` with a returned container of traced values made one traced value (``output_joiners``)."""

    def joined(x):
        ans = fun(x)
        join = output_joiners.find(ans)
        return ans if join is None else join(ans)

    return joined


def backward_pass(g, end_node, release_saved_values=False):
    """Walk the graph from ``end_node`` in reverse creation order, summing cotangents per node.

    A node's cotangent is dropped once its VJP has run. The pass tracks which
    pending cotangents are buffers it owns (:func:`add_cotangent`), so that VJPs
    and sums may write into them. With ``release_saved_values`` the node's
    saved values are dropped as its VJP runs (:func:`local_vjp`), so the graph
    can be walked only once.
    """
    pending, owned = {end_node: g}, set()
    with gc_paused():
        for node in reverse_creation_order(end_node):
            g = pending.pop(node)
            parent_gs, fresh = local_vjp(node, g, node in owned, release_saved_values)
            for parent, parent_g in zip(node.parents, parent_gs):
                add_cotangent(pending, owned, parent, parent_g, fresh)
    return dense(g)


def local_vjp(node, g, owned, release_saved_values):
    """``(cotangents of node's parents, whether they are fresh buffers)`` for the cotangent ``g`` of
    its output; ``owned``: whether the pass owns ``g`` (a rule with saved values may write into it,
    and may take a sparse cotangent; a closure from a VJP maker gets ``dense(g)``, and a rule gets a lazy
    cotangent, ``Ones`` or ``Lent``, only where it declares ``takes_lazy``, else ``dense(g)``). With
    ``release_saved_values`` the node lets go of what it saved for its VJP (arguments, output)."""
    vjp, saved = node.vjp, node.saved
    if release_saved_values:
        node.vjp = node.saved = None
    if type(g) in sparse_cotangents:
        g = cotangent_for(vjp, g, saved is None)
    return (vjp(g), False) if saved is None else vjp(g, owned, *saved)


def cotangent_for(vjp, g, closure):
    """The sparse cotangent ``g`` as ``vjp`` takes it: a lazy one (``Ones``, ``Lent``) as it is where ``vjp`` declares
    ``takes_lazy``, else made an array; another (``SparseCotangent``) as it is, but made an array for a closure."""
    if type(g) in lazy_cotangents:
        return g if hasattr(vjp, "takes_lazy") else g.dense()
    return g.dense() if closure else g


def add_cotangent(pending, owned, node, g, fresh):
    """Add ``g`` to ``node``'s pending cotangent. The pass owns a fresh ``g`` and any sum it makes;
    a sum is written into an owned buffer where there is one (``accumulate_into``). Ownership is
    per pass and per node, so a backward pass run inside a VJP (``checkpoint``) owns nothing of this one's."""
    prev = pending.get(node)
    if prev is None:
        pending[node] = g
        if fresh:
            owned.add(node)
    elif node in owned:
        pending[node] = accumulate_into(prev, g)
    else:
        pending[node] = accumulate_into(g, prev) if fresh else accumulate(prev, g)
        owned.add(node)


def reverse_creation_order(end_node):
    """The nodes reachable from ``end_node``, latest created first: every node after all the nodes
    that consume it (a node is created after its parents). One traversal, then one sort."""
    seen = {end_node}
    stack = [end_node]
    while stack:
        for parent in stack.pop().parents:
            if parent not in seen:
                seen.add(parent)
                stack.append(parent)
    return sorted(seen, key=attrgetter("number"), reverse=True)


def toposort(end_node):
    """Nodes reachable from ``end_node``, each after every node that consumes it (for nodes of any
    kind; the backward pass orders :class:`VJPNode` by creation number instead)."""
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

    A node with one parent (the common case) gets its VJP without a loop, which takes a lazy cotangent
    where the parent's VJP does (``takes_lazy``).
    """

    def vjp_argnums(argnums, ans, args, kwargs):
        if len(argnums) == 1:
            vjp = vjpmaker(argnums[0], ans, args, kwargs)
            one = lambda g: (vjp(g),)  # noqa: E731 - marked below
            if hasattr(vjp, "takes_lazy"):
                one.takes_lazy = True
            return one
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
            raise RuleNotDefined("VJP", fun, (argnum,)) from None
        return maker(ans, *args, **kwargs)

    defvjp_argnum(fun, vjp_argnum)


_python_numbers = (int, float, complex)


def numbers_in_space(vjpmaker, argnum):
    """``vjpmaker`` of argument ``argnum`` (a ``defvjp`` maker), whose ``vjp`` may return a Python number for an
    argument that is not one (``lambda g: 0.0``, as autograd's rules may, NumPy broadcasting it): that
    number is made a value of the argument's space (every entry the number), so the rules downstream see
    the argument's shape and dtype. The ``vjp`` keeps the argument (a user's rule mostly reads it anyway)."""

    def maker(ans, *args, **kwargs):
        vjp, x = vjpmaker(ans, *args, **kwargs), args[argnum]
        if type(x) in _python_numbers:
            return vjp

        def vjp_in_space(g):
            cotangent = vjp(g)
            if type(cotangent) not in _python_numbers:
                return cotangent
            space = vspace(x)
            return space.scalar_mul(space.ones(), cotangent)

        return vjp_in_space

    return maker


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

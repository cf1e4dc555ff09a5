"""The public extension API: what a user needs to add a primitive and its rules.

The names and calling conventions are autograd 1.9.1's ``autograd.extend``::

    from adcore.extend import primitive, defvjp, defjvp

    @primitive
    def logsumexp(x):
        ...

    defvjp(logsumexp, lambda ans, x: lambda g: g * np.exp(x - ans))
    defjvp(logsumexp, lambda g, ans, x: np.sum(g * np.exp(x - ans)))

A VJP that is also right for a cotangent with leading batch axes (shape
``batch_shape + ans.shape``; it addresses trailing axes only, or reads
``batch_ndim()``) may be declared with ``def_batch_safe_vjp(fun)``: ``jacrev``
then pushes all the rows of a Jacobian through such primitives in one backward pass.

An elementwise primitive is declared in one line by ``elementwise(name, d=partial, ...)``: its rules in
both modes, what its nodes keep, batch-safety, ``vmap``'s broadcasting and its entry in the op table
(``adcore.core.ops``) that the jit and the coverage report read.
"""

from .core import (
    Box,
    JVPNode,
    Node,
    VJPNode,
    VSpace,
    def_linear,
    defjvp,
    defjvp_argnum,
    defjvp_argnums,
    defvjp_argnum,
    defvjp_argnums,
    defvjp_is_zero,
    getval,
    isbox,
    new_box,
    notrace_primitive,
    primitive,
    primitive_jvps,
    primitive_vjps,
    vspace,
)
from .core import defvjp as _defvjp
from .core.batching import batch_ndim, def_batch_safe_vjp
from .core.reverse import numbers_in_space
from .numpy.declare import elementwise


def defvjp(fun, *vjpmakers, argnums=None):
    """Register one VJP maker per argument, ``vjpmaker(ans, *args, **kwargs) -> vjp(g)`` (autograd's ``defvjp``).

    ``vjpmakers[i]`` is for argument ``argnums[i]`` (default ``0, 1, ...``); ``None`` means the cotangent
    of that argument is zero. A ``vjp`` may return a Python number for an argument that is not one
    (``lambda g: 0.0``): it is the array of the argument's shape and dtype holding that number, as NumPy
    broadcasts it; and an array for a list or tuple argument (one row per item). Arguments with no maker
    raise ``NotImplementedError`` when differentiated.
    """
    argnums = range(len(vjpmakers)) if argnums is None else argnums
    makers = [None if maker is None else numbers_in_space(maker, argnum) for argnum, maker in zip(argnums, vjpmakers)]
    _defvjp(fun, *makers, argnums=argnums)


def register_notrace(trace_type, primitive_fun):
    """Make ``primitive_fun`` a constant (zero derivative) for traces of ``trace_type``: ``VJPNode``
    for reverse mode, ``JVPNode`` for forward mode (autograd's ``register_notrace``).

    Unlike autograd, which leaves such a call untraced, the call is recorded with a rule that gives
    zeros: the result is a traced value (with the same value).

    Raises
    ------
    TypeError
        If ``trace_type`` is neither ``VJPNode`` nor ``JVPNode``.
    """
    if trace_type is VJPNode:

        def zero_vjp(argnums, ans, args, kwargs):
            return lambda g: tuple(vspace(args[i]).zeros() for i in argnums)

        defvjp_argnums(primitive_fun, zero_vjp)
    elif trace_type is JVPNode:
        defjvp_argnums(primitive_fun, lambda argnums, gs, ans, args, kwargs: vspace(ans).zeros())
    else:
        raise TypeError(f"register_notrace: trace_type must be VJPNode or JVPNode, got {trace_type!r}")


__all__ = [
    "Box",
    "JVPNode",
    "Node",
    "VJPNode",
    "VSpace",
    "batch_ndim",
    "def_batch_safe_vjp",
    "def_linear",
    "defjvp",
    "defjvp_argnum",
    "defjvp_argnums",
    "defvjp",
    "defvjp_argnum",
    "defvjp_argnums",
    "defvjp_is_zero",
    "elementwise",
    "getval",
    "isbox",
    "new_box",
    "notrace_primitive",
    "primitive",
    "primitive_jvps",
    "primitive_vjps",
    "register_notrace",
    "vspace",
]

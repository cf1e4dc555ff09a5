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
    defvjp,
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
from .numpy.rules import batch_ndim, def_batch_safe_vjp

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
    "getval",
    "isbox",
    "new_box",
    "notrace_primitive",
    "primitive",
    "primitive_jvps",
    "primitive_vjps",
    "vspace",
]

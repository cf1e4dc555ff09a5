"""The engine: tracing, nodes, rule registries, vector spaces, forward and reverse mode.

It imports no array library; arrays enter through the types registered with
``Box.register`` and ``VSpace.register`` (or their resolvers).
"""

from .forward import JVPNode, def_linear, defjvp, defjvp_argnum, defjvp_argnums, make_jvp, primitive_jvps
from .reverse import (
    VJPNode,
    backward_pass,
    defvjp,
    defvjp_argnum,
    defvjp_argnums,
    defvjp_is_zero,
    make_vjp,
    output_joiners,
    primitive_vjps,
    snapshot_value,
    snapshots,
    toposort,
)
from .tracer import Box, Node, getval, isbox, new_box, nondifferentiable, notrace_primitive, primitive, trace
from .vspace import VSpace, accumulate, vspace

__all__ = [
    "Box",
    "JVPNode",
    "Node",
    "VJPNode",
    "VSpace",
    "accumulate",
    "backward_pass",
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
    "make_jvp",
    "make_vjp",
    "new_box",
    "nondifferentiable",
    "notrace_primitive",
    "output_joiners",
    "primitive",
    "primitive_jvps",
    "primitive_vjps",
    "snapshot_value",
    "snapshots",
    "toposort",
    "trace",
    "vspace",
]

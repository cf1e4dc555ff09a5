"""The engine: tracing, nodes, rule registries, vector spaces, forward and reverse mode.

It imports no array library; arrays enter through the types registered with
``Box.register`` and ``VSpace.register`` (or their resolvers).
"""

from .constants import fingerprints, snapshot_value, snapshots
from .forward import JVPNode, def_linear, defjvp, defjvp_argnum, defjvp_argnums, make_jvp, primitive_jvps
from .reverse import (
    RuleNotDefined,
    SavedValuesVJP,
    VJPNode,
    backward_pass,
    defvjp,
    defvjp_argnum,
    defvjp_argnums,
    defvjp_is_zero,
    defvjp_saved_values,
    make_vjp,
    output_joiners,
    primitive_vjps,
    saved_values_vjps,
    toposort,
    value_and_vjp,
)
from .tracer import Box, Node, getval, isbox, new_box, nondifferentiable, notrace_primitive, primitive, trace
from .vspace import VSpace, accumulate, accumulate_into, dense, rules_checked, set_debug, sparse_cotangents, vspace

__all__ = [
    "Box",
    "JVPNode",
    "Node",
    "RuleNotDefined",
    "SavedValuesVJP",
    "VJPNode",
    "VSpace",
    "accumulate",
    "accumulate_into",
    "backward_pass",
    "def_linear",
    "defjvp",
    "defjvp_argnum",
    "defjvp_argnums",
    "defvjp",
    "dense",
    "defvjp_argnum",
    "defvjp_argnums",
    "defvjp_is_zero",
    "defvjp_saved_values",
    "fingerprints",
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
    "rules_checked",
    "saved_values_vjps",
    "set_debug",
    "snapshot_value",
    "snapshots",
    "sparse_cotangents",
    "toposort",
    "trace",
    "value_and_vjp",
    "vspace",
]

"""Graph inspection: the primitives one traced call records, and their Graphviz DOT text.

:func:`trace_graph` runs a function once under a trace whose nodes
(:class:`RecordingNode`) keep the primitive, the parents with the argument
positions they fill, and the shape and dtype of each value, but no values.
The result is a :class:`Graph` of plain records::

    >>> import adcore.numpy as np
    >>> graph = trace_graph(lambda x: np.sin(x) * x, np.ones(3))
    >>> [node.name for node in graph.nodes]
    ['input', 'sin', 'multiply']
    >>> print(graph.to_dot())  # render with: dot -Tpng graph.dot -o graph.png
    digraph adcore {
      node [shape=box, fontname="Helvetica"];
      n0 [label="input\\n(3,) float64", shape=ellipse];
      n1 [label="sin\\n(3,) float64"];
      n2 [label="multiply\\n(3,) float64", peripheries=2];
      n0 -> n1 [label="0"];
      n1 -> n2 [label="0"];
      n0 -> n2 [label="1"];
    }
"""

from dataclasses import dataclass

from .core import Node, toposort, trace
from .core.tracer import primitive_name

__all__ = ["Edge", "Graph", "GraphNode", "trace_graph"]


@dataclass(frozen=True)
class GraphNode:
    """One recorded value: ``id`` (its position in topological order), the ``name`` of the
    primitive that made it (``"input"`` for the traced argument), its ``shape`` (None
    for a container) and ``dtype`` (the dtype's name, e.g. ``"float32"``, or the Python
    type's, e.g. ``"float"`` or ``"tuple"``)."""

    id: int
    name: str
    shape: tuple | None
    dtype: str


@dataclass(frozen=True)
class Edge:
    """``parent`` (a node id) is argument number ``argnum`` of the primitive that made ``child``."""

    parent: int
    child: int
    argnum: int


@dataclass(frozen=True)
class Graph:
    """The nodes and edges of one traced call, and its output ``value``.

    ``nodes`` are in topological order: the input first, the output last.
    Only the nodes the output depends on are kept (those a backward pass
    visits); if the output does not depend on the input, ``nodes`` holds the
    input alone and ``edges`` is empty.
    """

    nodes: list
    edges: list
    value: object

    def to_dot(self, name="adcore"):
        """The graph as Graphviz DOT text (``dot -Tpng`` renders it); no package is needed.

        Each node is labelled with its primitive, shape and dtype; the input is
        an ellipse, the output has a double border, and each edge is labelled
        with the argument position it fills.
        """
        output = self.nodes[-1].id
        lines = [f"digraph {name} {{", '  node [shape=box, fontname="Helvetica"];']
        for node in self.nodes:
            shape = "" if node.shape is None else f"{node.shape} "
            label = _quote(f"{node.name}\n{shape}{node.dtype}")
            style = ", shape=ellipse" if node.id == 0 else ""
            style += ", peripheries=2" if node.id == output and node.id != 0 else ""
            lines.append(f"  n{node.id} [label={label}{style}];")
        lines += [f'  n{edge.parent} -> n{edge.child} [label="{edge.argnum}"];' for edge in self.edges]
        return "\n".join([*lines, "}"])


class RecordingNode(Node):
    """A trace node that keeps the primitive, the parents and their argument positions,
    and the shape and dtype of the value (not the value)."""

    __slots__ = ["fun", "parents", "parent_argnums", "shape", "dtype"]

    def __init__(self, value, fun, args, kwargs, parent_argnums, parents):
        self.fun, self.parents, self.parent_argnums = fun, parents, parent_argnums
        self.shape, self.dtype = _shape_and_dtype(value)

    def initialize_root(self, value):
        self.fun, self.parents, self.parent_argnums = None, (), ()
        self.shape, self.dtype = _shape_and_dtype(value)


def trace_graph(fun, *args, argnum=0):
    """Run ``fun(*args)`` once, traced with respect to argument ``argnum``, and return its graph.

    Parameters
    ----------
    fun : callable
        A function written with ``adcore.numpy`` functions.
    *args
        Its positional arguments.
    argnum : int
        The position of the traced argument (the graph's input node); negative counts from the end.

    Returns
    -------
    Graph
        ``nodes`` (:class:`GraphNode`, the input first and the output last),
        ``edges`` (:class:`Edge`, in the order of the children) and the output
        ``value``; ``graph.to_dot()`` gives Graphviz DOT text.

    Raises
    ------
    TypeError
        If ``argnum`` is not the position of one of ``args``.

    Examples
    --------
    >>> import adcore.numpy as np
    >>> graph = trace_graph(lambda x: x * x, np.ones((2, 3), dtype="float32"))
    >>> graph.nodes[1]
    GraphNode(id=1, name='multiply', shape=(2, 3), dtype='float32')
    >>> graph.edges
    [Edge(parent=0, child=1, argnum=0), Edge(parent=0, child=1, argnum=1)]
    """
    if not (isinstance(argnum, int) and -len(args) <= argnum < len(args)):
        raise TypeError(f"trace_graph: argnum must be the position of one of the {len(args)} argument(s), got {argnum!r}")

    argnum %= len(args)

    def unary_fun(x):
        return fun(*args[:argnum], x, *args[argnum + 1 :])

    root = RecordingNode.new_root(args[argnum])
    value, end_node = trace(root, unary_fun, args[argnum])
    recorded = [root] if end_node is None else list(reversed(list(toposort(end_node))))
    ids = {node: i for i, node in enumerate(recorded)}
    nodes = [GraphNode(ids[node], _name(node), node.shape, node.dtype) for node in recorded]
    edges = [
        Edge(ids[parent], ids[node], argnum) for node in recorded for parent, argnum in zip(node.parents, node.parent_argnums)
    ]
    return Graph(nodes, edges, value)


def _name(node):
    return "input" if node.fun is None else primitive_name(node.fun)


def _shape_and_dtype(value):
    """``(shape, dtype name)`` of an array; ``((), type name)`` of a number; ``(None, type name)`` otherwise."""
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        return tuple(value.shape), str(value.dtype).rsplit(".", 1)[-1]
    if isinstance(value, (int, float, complex)):
        return (), type(value).__name__
    return None, type(value).__name__


def _quote(text):
    """``text`` as a DOT string literal (quotes and backslashes escaped, newlines as ``\\n``)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'

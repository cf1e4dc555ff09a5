"""adcore.graph: the recorded graph of one traced call (nodes, edges, shapes, dtypes) and its DOT text."""

import shutil
import subprocess

import pytest

import adcore.numpy as np
from adcore.graph import Edge, GraphNode, trace_graph


def test_square_is_one_multiply_with_both_edges_from_the_input(backend):
    graph = trace_graph(lambda x: x * x, backend.asarray([1.0, 2.0]))
    assert [node.name for node in graph.nodes] == ["input", "multiply"]
    assert graph.edges == [Edge(0, 1, 0), Edge(0, 1, 1)]
    backend.check_device(graph.value)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_shapes_and_dtypes_are_recorded(backend, dtype):
    x = backend.asarray([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype)
    graph = trace_graph(lambda x: np.sum(np.exp(x), axis=1), x)
    assert graph.nodes == [
        GraphNode(0, "input", (2, 3), dtype),
        GraphNode(1, "exp", (2, 3), dtype),
        GraphNode(2, "sum", (2,), dtype),
    ]


def test_argnum_constants_and_nodes_the_output_does_not_need():
    def f(a, x):
        unused = np.sin(x)  # noqa: F841 - recorded, but not on a path to the output
        return np.tanh(x) + a

    graph = trace_graph(f, 2.0, np.ones(2), argnum=1)
    assert [node.name for node in graph.nodes] == ["input", "tanh", "add"]
    assert graph.edges == [Edge(0, 1, 0), Edge(1, 2, 0)]
    assert trace_graph(f, 2.0, np.ones(2), argnum=-1).nodes == graph.nodes
    scalar = trace_graph(lambda x: x * 3.0, 2.0)
    assert scalar.nodes[0] == GraphNode(0, "input", (), "float")
    independent = trace_graph(lambda x: np.ones(2), np.ones(2))
    assert [node.name for node in independent.nodes] == ["input"] and independent.edges == []


def test_container_input():
    graph = trace_graph(lambda pair: pair[0] * pair[1], (np.ones(2), np.ones(2)))
    assert graph.nodes[0] == GraphNode(0, "input", None, "tuple")
    assert [node.name for node in graph.nodes] == ["input", "container_take", "container_take", "multiply"]


def test_argnum_out_of_range():
    with pytest.raises(TypeError, match="trace_graph: argnum must be the position of one of the 1 argument"):
        trace_graph(lambda x: x, 1.0, argnum=1)


def test_dot_text():
    dot = trace_graph(lambda x: np.sin(x) * x, np.ones(3)).to_dot(name="g")
    assert dot.startswith("digraph g {") and dot.endswith("}")
    assert 'n0 [label="input\\n(3,) float64", shape=ellipse];' in dot
    assert 'n1 [label="sin\\n(3,) float64"];' in dot
    assert 'n2 [label="multiply\\n(3,) float64", peripheries=2];' in dot
    assert 'n0 -> n1 [label="0"];' in dot and 'n1 -> n2 [label="0"];' in dot and 'n0 -> n2 [label="1"];' in dot


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz (dot) is not installed")
def test_dot_renders():
    dot = trace_graph(lambda x: np.sum(np.tanh(x) ** 2), np.ones(3)).to_dot()
    subprocess.run(["dot", "-Tsvg"], input=dot, text=True, check=True, capture_output=True)

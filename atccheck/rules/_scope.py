"""Values a node reads from the enclosing scope through its subgraphs (If branches, Loop bodies)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

if TYPE_CHECKING:  # pragma: no cover
    import onnx


def subgraphs(node: "onnx.NodeProto") -> Iterator["onnx.GraphProto"]:
    import onnx

    for attr in node.attribute:
        if attr.type == onnx.AttributeProto.GRAPH:
            yield attr.g
        elif attr.type == onnx.AttributeProto.GRAPHS:
            yield from attr.graphs


def outer_reads(node: "onnx.NodeProto") -> set[str]:
    """Names the node's subgraphs use without defining them: its implicit inputs."""
    reads: set[str] = set()
    for graph in subgraphs(node):
        reads |= _graph_outer_reads(graph)
    return reads


def _graph_outer_reads(graph: "onnx.GraphProto") -> set[str]:
    defined = {i.name for i in graph.input} | {t.name for t in graph.initializer}
    reads: set[str] = {o.name for o in graph.output}
    for node in graph.node:
        defined.update(o for o in node.output if o)
        reads.update(i for i in node.input if i)
        reads |= outer_reads(node)
    return reads - defined


def node_reads(node: "onnx.NodeProto") -> list[str]:
    """Explicit inputs (non-empty) followed by implicit outer-scope reads, without duplicates."""
    names = [i for i in node.input if i]
    seen = set(names)
    for name in sorted(outer_reads(node)):
        if name not in seen:
            names.append(name)
            seen.add(name)
    return names

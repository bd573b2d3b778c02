"""Small helpers the repair passes share: a node walk, dead-node removal.

Fresh names, the pipeline's shapes and the model opset are in :mod:`atccheck.passes._graph`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from atccheck.passes._graph import drop_initializers, graph_reads, iter_graphs

if TYPE_CHECKING:  # pragma: no cover
    import onnx


def graphs_with_nodes(model: "onnx.ModelProto") -> Iterator[tuple["onnx.GraphProto", "onnx.NodeProto"]]:
    for graph in iter_graphs(model.graph):
        for node in list(graph.node):
            yield graph, node


def remove_dead_nodes(graph: "onnx.GraphProto", protected: set[str] | None = None) -> int:
    """Drop nodes of this graph whose outputs nothing reads (subgraph reads count); returns how many."""
    removed = 0
    while True:
        used = graph_reads(graph) | set(protected or ())
        keep = [n for n in graph.node if any(o in used for o in n.output if o)]
        if len(keep) == len(graph.node):
            break
        removed += len(graph.node) - len(keep)
        del graph.node[:]
        graph.node.extend(keep)
    drop_initializers(graph, {t.name for t in graph.initializer} - graph_reads(graph))
    produced = {o for n in graph.node for o in n.output} | {i.name for i in graph.input}
    infos = [v for v in graph.value_info if v.name in produced]
    if len(infos) != len(graph.value_info):
        del graph.value_info[:]
        graph.value_info.extend(infos)
    return removed

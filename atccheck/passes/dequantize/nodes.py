"""Small graph helpers of the dequantize walk: nodes, attributes, and what is still read once it is done."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.passes._graph import graph_reads

if TYPE_CHECKING:  # pragma: no cover
    import onnx


class Leave(Exception):
    """A node the pass leaves as is; the message says why."""


def make_node(op: str, inputs: list[str], outputs: list[str], **attrs) -> "onnx.NodeProto":
    import onnx

    return onnx.helper.make_node(op, inputs, outputs, name=outputs[0] + "_" + op, **attrs)


def attr(node: "onnx.NodeProto", name: str, default):
    import onnx

    for attr in node.attribute:
        if attr.name == name:
            return onnx.helper.get_attribute_value(attr)
    return default


def live(nodes: list, outputs: set[str]) -> list:
    """The nodes something still reads, in order (dead integer leftovers dropped)."""
    needed = set(outputs)
    keep = []
    for node in reversed(nodes):
        if any(o in needed for o in node.output if o):
            keep.append(node)
            needed.update(i for i in node.input if i)
            for attr in node.attribute:  # values read inside subgraphs
                if attr.type == attr.GRAPH:
                    needed.update(graph_reads(attr.g))
    keep.reverse()
    return keep


def prune(graph: "onnx.GraphProto") -> None:
    used = set(o.name for o in graph.output)
    for node in graph.node:
        used.update(node.input)
        for attr in node.attribute:
            if attr.type == attr.GRAPH:
                used.update(graph_reads(attr.g))
    kept = [t for t in graph.initializer if t.name in used]
    del graph.initializer[:]
    graph.initializer.extend(kept)
    produced = {o for n in graph.node for o in n.output}
    infos = [vi for vi in graph.value_info if vi.name in produced]
    del graph.value_info[:]
    graph.value_info.extend(infos)

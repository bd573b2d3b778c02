"""Whether the static shapes of a graph fit its ops: what ONNX's inference lets through, and the failing node.

ATC compiles a static graph (one per gear with a gear option), and each op's infer-shape
function refuses input shapes that do not fit together. ONNX's strict inference finds most
of those (a Concat or a broadcast that no longer lines up: :attr:`ShapeIndex.broken`), but
takes a Reshape to a constant target without comparing element counts: it writes the target
as the output shape. :func:`reshape_misfits` adds that check, with ONNX's Reshape semantics
(0 copies the input's dim unless ``allowzero``; one -1 takes what is left). It reads only
small constants (the target vector), never weights.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from atccheck.findings import ROOT_GRAPH
from atccheck.model.graph import GraphIndex, attribute_values
from atccheck.model.shapes import ShapeBreak, ShapeIndex, dims_text

if TYPE_CHECKING:  # pragma: no cover
    import onnx


def reshape_misfit(shape: Sequence[int], target: Sequence[int], allowzero: bool = False) -> str | None:
    """Why a Reshape of a static ``shape`` to ``target`` cannot be computed, or None when it can
    (or when the target is invalid ONNX on its own: that is not the shapes' fault)."""
    resolved: list[int] = []
    for axis, size in enumerate(int(d) for d in target):
        if size == 0 and not allowzero:
            if axis >= len(shape):
                return None
            size = shape[axis]
        if size < -1:
            return None
        resolved.append(size)
    free = resolved.count(-1)
    if free > 1:
        return None
    count = 1
    for size in shape:
        count *= size
    known = 1
    for size in resolved:
        if size != -1:
            known *= size
    shown = "[" + ",".join(str(int(d)) for d in target) + "]"
    if free:
        if known == 0 or count % known == 0:
            return None
        return (f"its input {dims_text(shape)} has {count} elements, which the target {shown} cannot hold: the "
                f"dims besides -1 take {known}, and {count} is no multiple of {known}")
    if known == count:
        return None
    return f"the target {shown} holds {known} elements, but its input {dims_text(shape)} has {count}"


def reshape_misfits(model: "onnx.ModelProto", shapes: ShapeIndex, graph: GraphIndex) -> list[ShapeBreak]:
    """Root-graph Reshapes with a constant target that their static input cannot fill."""
    found = []
    for gnode in graph.nodes:
        node = gnode.node
        if gnode.graph != ROOT_GRAPH or node.op_type != "Reshape" or node.domain not in ("", "ai.onnx"):
            continue
        if len(node.input) < 2 or not node.input[1]:
            continue
        info = shapes.get(node.input[0])
        target = graph.const_value(node.input[1])
        if info is None or not info.is_static or target is None or target.ndim != 1:
            continue
        allowzero = bool(attribute_values(node).get("allowzero", 0))
        reason = reshape_misfit(tuple(d for d in info.shape or () if isinstance(d, int)), target.tolist(), allowzero)
        if reason is not None:
            found.append(ShapeBreak(node.name, node.op_type, gnode.index, reason))
    return found


def shape_breaks(model: "onnx.ModelProto", shapes: ShapeIndex, graph: GraphIndex) -> list[ShapeBreak]:
    """Every node whose static input shapes do not fit it: ONNX's strict inference's failing node
    first (with the input shapes it met), then the Reshapes it let through."""
    found = [_with_input_shapes(shapes.broken, model, shapes)] if shapes.broken is not None else []
    found += [b for b in reshape_misfits(model, shapes, graph) if b.index not in {f.index for f in found}]
    return found


def advice(op_type: str) -> str:
    """What to do about a node that breaks at some input sizes: one hint for the rule and the command lint."""
    if op_type == "Reshape":
        return ("re-export with the target computed from the input's shape (e.g. x.reshape(x.shape[0], -1)) rather "
                "than a constant, or keep to the input sizes the target fits")
    return "keep to the input sizes the graph was exported for (or re-export it for the sizes you need)"


def _with_input_shapes(broken: ShapeBreak, model: "onnx.ModelProto", shapes: ShapeIndex) -> ShapeBreak:
    from dataclasses import replace

    if broken.index >= len(model.graph.node):
        return broken
    node = model.graph.node[broken.index]
    shown = [dims_text(info.shape) for name in node.input
             if name and (info := shapes.get(name)) is not None and info.shape is not None]
    return replace(broken, reason=f"{broken.reason} (input shapes {', '.join(shown)})") if shown else broken


def breaks_at(model: "onnx.ModelProto", input_shapes: Mapping[str, tuple[int, ...]],
              graph: GraphIndex | None = None) -> list[ShapeBreak]:
    """The nodes that break when the model's inputs take ``input_shapes`` (one gear's static shapes):
    shape inference with them, ATC's constant folding of shape arithmetic, then :func:`shape_breaks`."""
    from atccheck.model.folding import fold_shapes
    from atccheck.model.shapes import infer_shapes

    graph = graph or GraphIndex(model)
    shapes = infer_shapes(model, input_shapes)
    if shapes.broken is None:
        shapes = fold_shapes(model, shapes, input_shapes, graph).shapes or shapes
    return shape_breaks(model, shapes, graph)

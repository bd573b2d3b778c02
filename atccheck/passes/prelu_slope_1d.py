"""prelu-slope-1d: give PRelu the 1-D slope ATC requires, or spell it out where ONNX cannot."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.domains import STANDARD_DOMAINS
from atccheck.passes._graph import Names, is_float, iter_graphs, prune_initializers, shapes_of
from atccheck.passes.base import FixLink, FixPass, PassContext, PassResult, left, register_pass

if TYPE_CHECKING:  # pragma: no cover
    import onnx


@register_pass
class PreluSlope1d(FixPass):
    """Make every PRelu's slope 1-D, the only form ATC's PRelu accepts.

    The published operator page wants ``slope`` 1-D, of length 1 or C (the channel, axis 1),
    while exporters write per-channel slopes as ``[C, 1, 1]`` so that ONNX broadcasting lines
    them up with axis 1. The two readings agree only in some cases, and the pass keeps ONNX's
    meaning (onnxruntime must compute the same):

    - a slope of one element, or a rank-2 input ``[N, C]`` with slope ``[1, C]``: the
      constant slope is reshaped to 1-D (``[1]`` or ``[C]``); the same numbers everywhere.
    - a per-channel slope on an input of rank 3 or more: in ONNX a 1-D ``[C]`` slope would
      line up with the last axis, not the channel, so no 1-D slope means the same thing. The
      node is written as ``Relu(x) + slope * Min(x, 0)``, which ONNX and ATC read alike and
      which is exact (one term is always zero). The same is done for any other slope shape
      and for a slope computed at run time.

    Every PRelu with a slope that is not 1-D is rewritten, plus 1-D-slope nodes an
    ``input-shape-not-supported`` finding names (a 1-D slope on a rank-4 input means the last
    axis to ONNX but the channel to ATC).
    """

    name = "prelu-slope-1d"
    stage = "repair"
    answers = (FixLink("input-shape-not-supported", "PRelu"),)
    safe = True
    tolerance = 0.0
    rtol = 0.0

    def run(self, model: "onnx.ModelProto", ctx: PassContext) -> PassResult:
        import numpy as np
        from onnx import helper, numpy_helper

        from atccheck.model.graph import GraphIndex

        shapes = shapes_of(model, ctx)
        index = GraphIndex(model)
        names = Names(model)
        asked = {f.location.node for f in ctx.findings if f.location.op_type == "PRelu" and f.fix.pass_name == self.name}
        reshaped: list[str] = []
        spelled: list[str] = []
        notes: list[str] = []
        replaced: set[str] = set()
        for graph in iter_graphs(model.graph):
            nodes: list["onnx.NodeProto"] = []
            for position, node in enumerate(graph.node):
                if node.op_type != "PRelu" or node.domain not in STANDARD_DOMAINS or len(node.input) < 2:
                    nodes.append(node)
                    continue
                label = node.name or f"PRelu_{position}"
                x, slope = node.input[0], node.input[1]
                x_info, s_info = shapes.get(x), shapes.get(slope)
                s_shape = s_info.shape if s_info is not None else None
                value = index.const_value(slope) if index.is_constant(slope) else None
                if value is not None:
                    s_shape = tuple(value.shape)
                rank = x_info.rank if x_info is not None else None
                if s_shape is not None and len(s_shape) == 1 and label not in asked:
                    nodes.append(node)
                    continue
                if value is not None and _reshapable(value.shape, rank):
                    flat = value.reshape(-1)
                    tensor = numpy_helper.from_array(flat, names.fresh(f"{label}/slope"))
                    graph.initializer.append(tensor)
                    node.input[1] = tensor.name
                    replaced.add(slope)
                    reshaped.append(f"{label} {list(value.shape)} -> {list(flat.shape)}")
                    nodes.append(node)
                    continue
                elem = x_info.elem_type if x_info is not None else 0
                if not is_float(elem):
                    notes.append(left(f"PRelu '{label}' left as is: its input type is unknown or not float", label))
                    nodes.append(node)
                    continue
                zero = numpy_helper.from_array(np.zeros((), dtype=helper.tensor_dtype_to_np_dtype(elem)),
                                               names.fresh(f"{label}/zero"))
                graph.initializer.append(zero)
                pos, neg, scaled = (names.fresh(f"{label}/{part}") for part in ("pos", "neg", "scaled"))
                nodes.extend([
                    helper.make_node("Relu", [x], [pos], name=names.fresh(f"{label}/Relu")),
                    helper.make_node("Min", [x, zero.name], [neg], name=names.fresh(f"{label}/Min")),
                    helper.make_node("Mul", [neg, slope], [scaled], name=names.fresh(f"{label}/Mul")),
                    helper.make_node("Add", [pos, scaled], [node.output[0]], name=names.fresh(f"{label}/Add")),
                ])
                spelled.append(f"{label} (slope {list(s_shape) if s_shape is not None else 'of unknown shape'})")
            if len(nodes) != len(graph.node) or reshaped:
                del graph.node[:]
                graph.node.extend(nodes)
        if reshaped:
            notes.insert(0, "slope made 1-D on " + ", ".join(reshaped[:5]) + (" ..." if len(reshaped) > 5 else ""))
        if spelled:
            notes.insert(0, "written as Relu(x) + slope * Min(x, 0) (no 1-D slope means the same in ONNX): "
                         + ", ".join(spelled[:5]) + (" ..." if len(spelled) > 5 else ""))
        prune_initializers(model, replaced)
        return PassResult(model, bool(reshaped or spelled), notes)


def _reshapable(shape: tuple[int, ...], rank: int | None) -> bool:
    """A 1-D slope broadcasts exactly like this one in ONNX, and ATC reads it the same way."""
    size = 1
    for d in shape:
        size *= d
    if size == 1:
        return True
    significant = [d for d in shape if d != 1]
    trailing_only = len(significant) == 1 and shape and shape[-1] == significant[0]
    return bool(trailing_only) and rank is not None and rank <= 2

"""explicit-reduce-axes: write out the axes of Reduce* nodes that reduce over all axes by default."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.domains import STANDARD_DOMAINS
from atccheck.model.schema import input_names
from atccheck.passes._graph import Names, opset_of, shapes_of
from atccheck.passes._repairs import graphs_with_nodes
from atccheck.passes.base import FixLink, FixPass, PassContext, PassResult, left, register_pass

if TYPE_CHECKING:  # pragma: no cover
    import onnx


@register_pass
class ExplicitReduceAxes(FixPass):
    """Give every Reduce* node without axes the explicit list of all its input's axes.

    ONNX reduces over every axis when ``axes`` is absent (or an empty input) and
    ``noop_with_empty_axes`` is 0; the published ATC operator pages say an empty ``axes`` is
    not treated as a full reduction. This pass writes ``axes = [0, ..., rank-1]`` in the form
    the node's opset wants (attribute, or an int64 initializer as input 1 where the schema
    has an ``axes`` input), using the inferred rank of the data input. Nodes whose rank is
    unknown, or with ``noop_with_empty_axes=1`` (no axes then means identity), are left as
    they are and noted. Exact: the same reduction, spelled out.
    """

    name = "explicit-reduce-axes"
    stage = "repair"
    answers = (FixLink("reduce-without-axes"),)
    safe = True
    tolerance = 0.0
    rtol = 0.0

    def run(self, model: "onnx.ModelProto", ctx: PassContext) -> PassResult:
        import numpy as np
        from onnx import helper, numpy_helper

        from atccheck.model.graph import GraphIndex

        opset = opset_of(model)
        shapes = shapes_of(model, ctx)
        index = GraphIndex(model)
        names = Names(model)
        done: list[str] = []
        notes: list[str] = []
        for graph, node in graphs_with_nodes(model):
            if not node.op_type.startswith("Reduce") or node.domain not in STANDARD_DOMAINS:
                continue
            formal = input_names(node.op_type, opset)
            if formal is None:
                continue
            label = node.name or node.op_type
            attrs = {a.name: a for a in node.attribute}
            as_input = "axes" in formal
            if as_input:
                given = node.input[1] if len(node.input) > 1 else ""
                if given:
                    value = index.const_value(given)
                    if value is None or value.size > 0:
                        continue  # axes given (or computed: not ours to judge)
                if "noop_with_empty_axes" in attrs and attrs["noop_with_empty_axes"].i == 1:
                    notes.append(left(f"{node.op_type} '{label}' left as is: noop_with_empty_axes=1 makes it an identity",
                                      label))
                    continue
            elif "axes" in attrs and len(attrs["axes"].ints) > 0:
                continue
            info = shapes.get(node.input[0]) if node.input else None
            if info is None or info.rank is None:
                notes.append(left(f"{node.op_type} '{label}' left as is: the rank of its input is unknown", label))
                continue
            if info.rank == 0:
                continue
            axes = list(range(info.rank))
            if as_input:
                tensor = numpy_helper.from_array(np.array(axes, dtype=np.int64), names.fresh(f"{label}/axes"))
                graph.initializer.append(tensor)
                if len(node.input) > 1:
                    node.input[1] = tensor.name
                else:
                    node.input.append(tensor.name)
            else:
                kept = [a for a in node.attribute if a.name != "axes"]
                del node.attribute[:]
                node.attribute.extend(kept)
                node.attribute.append(helper.make_attribute("axes", axes))
            done.append(label)
        if done:
            notes.insert(0, f"axes written out on {len(done)} node(s): " + ", ".join(done[:5])
                         + (" ..." if len(done) > 5 else ""))
        return PassResult(model, bool(done), notes)

"""fixed-size-padded-output: Ascend gives a data-dependent output a fixed size and pads the rows it does not fill."""

from __future__ import annotations

from collections.abc import Iterable

from atccheck.context import NodeContext
from atccheck.findings import Finding, Severity
from atccheck.model import ascend_shapes
from atccheck.rules.base import Rule, register
from atccheck.tables import Tables


@register
class FixedSizePaddedOutput(Rule):
    """An output ONNX sizes by the data comes out of ATC at a fixed size, with padding rows.

    ## What it does
    Fires on a node whose Ascend infer-shape fact (``op_tables/infer_shapes.json``) for the
    CANN profile makes an output static under a condition the node meets, where the kernel
    fills the rows past the real result with a padding value. Today that is
    NonMaxSuppression under the 2022 op proto (profiles 5.0 and 6.0) with a constant
    ``max_output_boxes_per_class`` below 2^31: the output is
    ``[min(B*C*max_output_boxes_per_class, B*C*S), 3]`` for scores ``[B, C, S]``, and rows
    past the kept boxes hold -1. The finding names the consumers of the output.

    ## Why
    ATC builds the model, so this is no dynamic-shape error (dynamic-shape-unsupported is
    silent on it). But the converted model computes something else than the ONNX model:
    onnxruntime returns only the selected rows, the converted model always returns the full
    table. A Gather of boxes by the last column then indexes with -1, and post-processing
    that counts rows counts padding.

    ## Example
    ``NonMaxSuppression(boxes [1, 100, 4], scores [1, 3, 100], max_output_boxes_per_class=10)``
    checked with ``--cann 6.0``: the output is ``[30, 3]``, its unused rows -1.

    ## Fix
    Drop the rows whose batch index is -1 after the model runs, or in the model before any
    consumer (a mask on column 0, then a Gather of the kept rows), and compare the converted
    model with onnxruntime on inputs that keep fewer boxes than the maximum.

    ## Facts
    ``op_tables/infer_shapes.json``: NonMaxSuppressionV6InferShape (2022 op proto
    ``nn_detect_ops.cc``), the plugin's mapping of ``max_output_boxes_per_class`` to
    ``max_output_size``, and the kernel filling its output with -1 first
    (``non_max_suppression_v7.py``); the 8.1.RC1 kernel and the 2026 op API pad the same way,
    but the 2026 infer-shape function is not in the open sources, so there the output's size
    is reported as unknown by dynamic-shape-unsupported instead.
    """

    code = "AC204"
    name = "fixed-size-padded-output"
    severity = Severity.WARNING

    def node_ops(self, tables: Tables) -> frozenset[str]:
        return frozenset(op for (op, _), fact in tables.infer_shapes.items()
                         if any(out.padding is not None for out in fact.outputs))

    def check_node(self, node: NodeContext) -> Iterable[Finding]:
        ctx = node.ctx
        fact = ctx.tables.infer_shape(node.op_type, ctx.target.profile.id)
        if fact is None or fact.static not in ("always", "when"):
            return
        reading = ascend_shapes.read(node.node, fact, ascend_shapes.Values(ctx.shapes, ctx.folded_values,
                                                                            ctx.graph.const_value))
        if not reading.holds:
            return
        for out in fact.outputs:
            name = node.node.output[out.index] if out.index < len(node.node.output) else ""
            shape = reading.shapes.get(out.index)
            if out.padding is None or not name or shape is None:
                continue
            consumers = sorted({g.label for g in ctx.graph.consumers.get(name, ())})
            used = (f"read by {', '.join(consumers[:5])}{' ...' if len(consumers) > 5 else ''}" if consumers
                    else "a graph output")
            yield self.finding(
                node,
                f"{node.op_type} output {out.index} becomes a fixed {list(shape)} ({out.formula}) under this CANN "
                f"line's {fact.ascend_op}, with the rows past the real result set to {out.padding}, where ONNX "
                f"returns only the real rows; it is {used}",
                hint=f"drop the rows holding {out.padding} before anything reads them (in the model or in "
                "post-processing), and compare with onnxruntime on inputs that keep fewer rows than the maximum",
                source=f"op_tables/infer_shapes.json; {fact.source}",
                data={"output": out.index, "shape": list(shape), "padding": out.padding, "ascend_op": fact.ascend_op,
                      "era": fact.era, "consumers": consumers},
            )

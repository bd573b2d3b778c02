"""axis-not-flattened: a LogSoftmax before opset 13 that ATC computes over one axis, where ONNX flattens."""

from __future__ import annotations

from collections.abc import Iterable

from atccheck.context import NodeContext
from atccheck.findings import Finding, Severity
from atccheck.rules._attrs import effective_attr, fact_applies, reaches_plugin
from atccheck.rules.base import Rule, register

KIND = "axis-not-flattened"


@register
class AxisNotFlattened(Rule):
    """A LogSoftmax before opset 13 whose axis ATC's plugin reads as one axis, where ONNX flattens from it.

    ## What it does
    For the ops the ``axis-not-flattened`` facts name (LogSoftmax), at the opsets they give
    (8-12), compares the axes ONNX normalizes over with the axis CANN's parser plugin passes to
    the Ascend op. Before opset 13, ONNX coerces the input to 2-D at ``axis`` (default 1) and
    normalizes over every axis from there; the plugin passes ``axes=[axis]`` (its default -1).
    Reports a node when the two differ: ``axis`` not the last axis of an input of rank 2 or
    more, or no ``axis`` on an input of rank 3 or more. Stays silent when the input rank is
    unknown.

    ## Why
    ATC converts the model without a word, and the op normalizes over another set of axes:
    each slice along the one axis sums to 1 instead of the whole flattened tail, so the
    outputs differ from onnxruntime's.

    ## Example
    ``LogSoftmax(axis=1)`` at opset 11 on a [N, C, H, W] score map: ONNX normalizes over the
    C*H*W values of each image together, ATC over the C values of each pixel.

    ## Fix
    ``atccheck fix`` writes it as ONNX means it: Flatten at ``axis``, the op on the 2-D result
    (where one axis is all the axes from ``axis``), Reshape back. Or export at opset 13 or
    later, where ``axis`` is one axis in ONNX too.

    ## Facts
    ``op_tables/op_facts.json`` kind ``axis-not-flattened``: the LogSoftmax plugins of both
    generations (canndev ``logsoftmax_plugin.cc``, hicann ops-nn ``logsoftmax_onnx_plugin.cpp``)
    register opsets 8-12 with the parser of opset 13 on. The ONNX operator spec of LogSoftmax-11
    and -13, and the axis default, through the installed onnx's schemas.
    """

    code = "AC319"
    name = "axis-not-flattened"
    severity = Severity.WARNING
    fact_kind = KIND

    def check_node(self, node: NodeContext) -> Iterable[Finding]:
        ctx = node.ctx
        fact = next((f for f in ctx.tables.op_facts_for(KIND, node.op_type, ctx.target.profile.id)
                     if fact_applies(node, f)), None)
        if fact is None or not reaches_plugin(node):
            return
        info = node.input_info(0)
        rank = info.rank if info is not None else None
        axis, given = effective_attr(node, fact.attr or "axis")
        params = fact.params or {}
        plugin_axis = axis if given else params.get("default_axis", -1)
        if rank is None or rank < 2 or not isinstance(axis, int) or not -rank <= axis < rank \
                or not -rank <= plugin_axis < rank:
            return
        onnx_axes = list(range(axis % rank, rank))
        if onnx_axes == [plugin_axis % rank]:
            return
        ascend_op = params.get("ascend_op", "the Ascend op")
        yield self.finding(
            node,
            f"{node.op_type} at opset {node.opset} normalizes over axes {onnx_axes} of its rank-{rank} input "
            f"(ONNX flattens from axis {axis % rank}), but CANN {ctx.target.profile.id}'s plugin passes "
            f"axes=[{plugin_axis % rank}] to {ascend_op}: ATC converts it and computes over that axis alone, so "
            "the outputs differ",
            hint=f"export at opset 13 or later, or reshape the input to 2-D around the {node.op_type}",
            fix_hint=f"run 'atccheck fix' ({{pass_name}}): Flatten, the {node.op_type} on 2-D, Reshape back",
            source=f"op_tables/op_facts.json {KIND}; {fact.source}",
            severity=Severity(fact.severity),
            data={"axis": axis % rank, "onnx_axes": onnx_axes, "plugin_axis": plugin_axis % rank, "rank": rank,
                  "axis_given": given},
        )

"""shape-mismatch: at the static shapes ATC compiles (a gear's, or the given ones), a node's input shapes do not fit it."""

from __future__ import annotations

from collections.abc import Iterable

from atccheck.context import CheckContext
from atccheck.findings import ROOT_GRAPH, Finding, Location, Severity
from atccheck.model.shape_fit import advice, shape_breaks
from atccheck.rules.base import Rule, register

KIND = "infer-shape-check"
ONNX_SOURCE = "onnx shape inference (strict mode) of the node at these shapes"
RESHAPE_SOURCE = "ONNX Reshape semantics (0 copies a dim unless allowzero, one -1 takes the rest)"


@register
class ShapeMismatch(Rule):
    """At the static shapes ATC compiles, a node's input shapes do not fit it.

    ## What it does
    Propagates the static input shapes through the graph (ONNX shape inference, and the
    constant folding of shape arithmetic ATC does) and reports the node where they stop
    fitting: the node whose own strict shape inference fails (a Concat whose inputs no longer
    agree off the axis, a broadcast of two dims that differ and are not 1), and every Reshape
    whose constant target cannot hold its static input (ONNX's inference writes the target
    without counting). With a gear option (``--dynamic-batch``, ``--dynamic-image-size``,
    ``--dynamic-dims``) every gear is one static graph, so the finding names the gears where the
    node breaks; a gear whose shapes break a node is checked on, with the shapes inference could
    still reach.

    ## Why
    ATC compiles one static graph per gear and runs every op's infer-shape function on it; an
    op whose inputs do not fit fails the build. A Reshape with a hard-coded target such as
    ``[1, 64]`` fits the one input size the exporter traced: with batch gears 1,2,4 it fits
    gear 4 only.

    ## Example
    ``x: [N, 16] -> Reshape(shape=[1, 64])``, checked with ``--input-shape x:-1,16
    --dynamic-batch 1,2,4``: gears 1 and 2 break the Reshape.

    ## Fix
    Re-export with the shape computed from the input (``x.reshape(x.shape[0], -1)`` rather than
    a constant), or keep only the gears the graph takes.

    ## Facts
    ``op_tables/op_facts.json`` kind ``infer-shape-check``: in the 2022 op protos (CANN 5.x/6.0)
    Reshape's infer-shape fails a target whose element count differs from the input's with an
    inner error E19999 (``array_ops.cc`` ``ReshapeInfer``), and Add, Sub, Mul and Div fail two
    static shapes that do not broadcast with E89999 (``util.cc``
    ``InferShapeAndTypeTwoInOneOutBroadcast``). Other ops and releases: the node fails, with a
    code that is not known, so the finding names none. One static graph per gear: hicann/ge
    ``compiler/graph/preprocess/multi_batch_options.cc``.
    """

    code = "AC205"
    name = "shape-mismatch"
    severity = Severity.ERROR
    op_types = frozenset()

    def check_model(self, ctx: CheckContext) -> Iterable[Finding]:
        by_index = {g.index: g for g in ctx.graph.nodes if g.graph == ROOT_GRAPH}
        given = ";".join(f"{n}:" + ",".join(map(str, dims)) for n, dims in ctx.input_shapes.items())
        at = f" at {given}" if given else ""
        profile = ctx.target.profile.id
        for found in shape_breaks(ctx.model, ctx.shapes, ctx.graph):
            gnode = by_index.get(found.index)
            label = found.node or (gnode.label if gnode is not None else f"{found.op_type}_{found.index}")
            location = Location(node=label, op_type=found.op_type)
            fact = next(iter(ctx.tables.op_facts_for(KIND, found.op_type, profile)), None)
            atc_error = (fact.params or {}).get("atc_error") if fact is not None else None
            code = (f"ATC's infer-shape fails the node ({atc_error})" if atc_error else
                    f"ATC's infer-shape fails the node (its error code in CANN {profile} is not known)")
            yield self.finding(
                location,
                f"{found.op_type} '{label}' does not fit its inputs{at}: {found.reason}; {code}",
                hint=advice(found.op_type),
                source="; ".join(s for s in (f"op_tables/op_facts.json {KIND}; {fact.source}" if fact else None,
                                             RESHAPE_SOURCE if found.op_type == "Reshape" else ONNX_SOURCE) if s),
                atc_error=atc_error,
                data={"node": label, "op_type": found.op_type, "reason": found.reason,
                      "input_shapes": {n: list(d) for n, d in ctx.input_shapes.items()}},
            )


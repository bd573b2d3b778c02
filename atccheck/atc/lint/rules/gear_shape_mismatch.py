"""gear-shape-mismatch: A gear of the command whose static shapes break a node of the model."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.atc.lint.rule import CommandRule
from atccheck.findings import Severity
from atccheck.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext
    from atccheck.atc.lint.parse import ParsedCommand

KIND = "infer-shape-check"
GEAR_SOURCE = "hicann/ge@ffdcbc9f7:compiler/graph/preprocess/multi_batch_options.cc (one static graph per gear)"


@register
class GearShapeMismatch(CommandRule):
    """A gear of the command whose static shapes break a node of the model.

    ## What it does
    With a model and one gear option (``--dynamic_batch_size``, ``--dynamic_image_size`` or
    ``--dynamic_dims``) that obeys the gear rules, fills the -1 axes of ``--input_shape`` with
    each gear's values and propagates those static shapes through the graph (ONNX shape
    inference, the constant folding of shape arithmetic), as ``atccheck check`` does for its
    own gear options. Reports every gear and node where the shapes stop fitting: the node whose
    strict shape inference fails (a Concat or broadcast that no longer lines up), and a Reshape
    whose constant target cannot hold its input. The graph only: weights are never read.

    ## Why
    ATC builds one static graph per gear and runs each op's infer-shape function on it; a node
    whose inputs do not fit fails the build, for that gear. A Reshape to a hard-coded ``[1, 64]``
    takes a ``[N, 16]`` input at batch 4 only.

    ## Example
    ``--input_shape="x:-1,16" --dynamic_batch_size="1,2,4"`` for a model that reshapes ``x`` to
    a constant ``[1, 64]``: gears 1 and 2 break the Reshape.

    ## Fix
    Keep the gears the graph takes, or re-export the model with the shape computed from the
    input (``x.reshape(x.shape[0], -1)``) rather than a constant.

    ## Facts
    One static graph per gear: hicann/ge ``compiler/graph/preprocess/multi_batch_options.cc``.
    ``op_tables/op_facts.json`` kind ``infer-shape-check``: Reshape fails a target whose element
    count differs with E19999, Add, Sub, Mul and Div fail shapes that do not broadcast with
    E89999 (2022 op protos, CANN 5.x/6.0); other ops and releases fail with a code that is not
    known, and the finding names none.
    """

    code = "AC543"
    name = "gear-shape-mismatch"
    severity = Severity.ERROR
    atc_error = None
    stage = "values"
    precedence = 97

    @classmethod
    def check(cls, cmd: "ParsedCommand", ctx: "CommandContext") -> None:
        from atccheck.atc.facts import gear_flags
        from atccheck.atc.lint.context import complete_shapes
        from atccheck.atc.spec import check_gears_against_shape, gear_shapes, parse_gears
        from atccheck.model.graph import GraphIndex
        from atccheck.model.shape_fit import advice, breaks_at

        reading = ctx.input_shape
        given = [f for f in gear_flags(ctx.tables) if cmd.has(f)]
        if ctx.model is None or not reading.settled or not reading.entries or len(given) != 1:
            return
        occurrence = cmd.last(given[0])
        if occurrence is None or occurrence.value is None or occurrence.has_expansion:
            return
        gears, problems = parse_gears(given[0], occurrence.value.strip('"'))
        entries = complete_shapes(reading.entries, ctx.model)
        if gears is None or problems or check_gears_against_shape(gears, entries):
            return  # gear-rule reports it
        graph = GraphIndex(ctx.model)
        profile = ctx.profile.id if ctx.profile is not None else None
        for label, shapes in gear_shapes(gears, entries):
            for found in breaks_at(ctx.model, shapes, graph):
                node = found.node or f"{found.op_type}_{found.index}"
                fact = next(iter(ctx.tables.op_facts_for(KIND, found.op_type, profile)), None) if profile else None
                code = (fact.params or {}).get("atc_error") if fact is not None else None
                shown = ";".join(f"{n}:" + ",".join(map(str, d)) for n, d in shapes.items())
                ctx.report(
                    cls, given[0],
                    f"gear {label}: {found.op_type} '{node}' does not fit its inputs at {shown}: {found.reason}; "
                    + (f"ATC's infer-shape fails the node ({code})" if code else
                       "ATC's infer-shape fails the node (its error code is not known for this release)"),
                    hint=f"drop gear {label}, or {advice(found.op_type)}",
                    source="; ".join([GEAR_SOURCE] + ([f"op_tables/op_facts.json {KIND}; {fact.source}"] if fact else [])),
                    atc_error=code,
                    data={"gear": label, "node": node, "op_type": found.op_type, "reason": found.reason},
                )

"""out-nodes-invalid: An ``--out_nodes`` entry ATC cannot read or find in the model."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.atc.command_files import file_facts, near_names, parse_out_nodes
from atccheck.atc.lint.files import parsed_graph
from atccheck.atc.lint.rule import CommandRule
from atccheck.findings import Severity
from atccheck.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext
    from atccheck.atc.lint.parse import ParsedCommand


@register
class OutNodesInvalid(CommandRule):
    """An ``--out_nodes`` entry ATC cannot read or find in the model.

    ## What it does
    Splits ``--out_nodes`` as ATC does (entries on ``;``, each ``node:index`` or, for ONNX, an
    output tensor's name) and checks the form, that the two kinds are not mixed (a trailing
    ``;`` adds an empty tensor entry), and with a model that each node exists (by the names ATC's
    parser gives nodes), each index is below the node's output count and each tensor is produced
    by a node.

    ## Why
    ATC stops with E10001 (bad form, mixed kinds, a non-digit index), E10016 for a node it cannot
    find, E10003 for an index too large and E19999 ("User specified tensor[...] is not output of
    graph") for an unknown tensor.

    ## Example
    ``--out_nodes="Conv_12:0;logits"`` (mixed); ``--out_nodes="output:0"`` where ``output`` is a
    tensor, not a node.

    ## Fix
    Use one kind: node names with output indices, or output tensor names.

    ## Facts
    ``op_tables/command_files.json`` ``--out_nodes``: ``hicann/ge@ffdcbc9f7:api/atc/omg.cc``
    405-419, 469-482, 632-714; ``parser/parser/onnx/onnx_parser.cc`` 1246-1261;
    ``inc/graph_metadef/common/ge_common/string_util.h`` 65-86 (the split).
    """

    code = "AC540"
    name = "out-nodes-invalid"
    severity = Severity.ERROR
    atc_error = "E10016"
    stage = "values"
    precedence = 124

    @classmethod
    def check(cls, cmd: "ParsedCommand", ctx: "CommandContext") -> None:
        occurrence = cmd.last("--out_nodes")
        if occurrence is None or occurrence.value is None or occurrence.has_expansion:
            return
        facts = file_facts(ctx.tables)["--out_nodes"]
        value = occurrence.value.strip('"')
        parsed = parse_out_nodes(value, facts)
        for problem in parsed.problems:
            ctx.report(cls, "--out_nodes", problem.message, hint="write \"node:0;node2:1\" or \"tensor1;tensor2\"",
                       atc_error=problem.atc_error, source=problem.source, data={"value": value})
        graph = parsed_graph(ctx)
        if parsed.problems or graph is None:
            return
        checks = {c["error"]: c for c in facts["checks"]}
        for entry in parsed.entries:
            if entry.index is None:
                produced = graph.tensors | set(graph.data) | {t.name for t in ctx.model.graph.initializer}  # type: ignore[union-attr]
                if entry.name not in produced:
                    near = near_names(entry.name, sorted(graph.tensors))
                    ctx.report(cls, "--out_nodes", f"no node outputs a tensor named '{entry.name}': ATC stops "
                               "with E19999 (\"User specified tensor ... is not output of graph\")",
                               hint=f"did you mean {', '.join(near)}?" if near else "use the model's tensor names",
                               atc_error="E19999", source=checks["E19999"]["source"] + " " + checks["E19999"]["lines"],
                               data={"entry": entry.text})
                continue
            if entry.name not in graph.all_names:
                tensor = entry.name in graph.tensors
                near = near_names(entry.name, sorted(graph.nodes))
                hint = (f"'{entry.name}' is a tensor: give tensor names without ':index' (all entries alike)" if tensor
                        else f"did you mean {', '.join(near)}?" if near else "use the model's node names")
                ctx.report(cls, "--out_nodes", f"the model has no node '{entry.name}': ATC stops with E10016",
                           hint=hint, atc_error="E10016",
                           source=f"{facts['reader']} {checks['E10016']['lines']}", data={"entry": entry.text})
                continue
            count = graph.outputs.get(entry.name, 1)
            if entry.index >= count:
                ctx.report(cls, "--out_nodes", f"node '{entry.name}' has {count} output(s); index {entry.index} "
                           "is out of range: ATC stops with E10003", hint=f"use an index below {count}",
                           atc_error="E10003", source=f"{facts['reader']} {checks['E10003']['lines']}",
                           data={"entry": entry.text, "outputs": count})

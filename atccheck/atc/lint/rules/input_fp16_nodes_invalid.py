"""input-fp16-nodes-invalid: An ``--input_fp16_nodes`` name that is not an input of the model."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.atc.command_files import file_facts, near_names, parse_fp16_nodes
from atccheck.atc.lint.files import parsed_graph
from atccheck.atc.lint.rule import CommandRule
from atccheck.findings import Severity
from atccheck.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from atccheck.atc.lint.context import CommandContext
    from atccheck.atc.lint.parse import ParsedCommand


@register
class InputFp16NodesInvalid(CommandRule):
    """An ``--input_fp16_nodes`` name that is not an input of the model.

    ## What it does
    With a model, splits ``--input_fp16_nodes`` on ``;`` as ATC does (names are not trimmed; a
    trailing ``;`` adds an empty name) and checks each name against the parsed graph: a graph
    input (a Data node) passes, any other node or an initializer's Const is not an input, and
    anything else is not in the model.

    ## Why
    ATC stops with E10016 ("Op name ... specified in --input_fp16_nodes is not found in the
    model") or E10017 ("Input Op ... is invalid. The Op type must be Data.").

    ## Example
    ``--input_fp16_nodes="images; masks"`` (the second name is `` masks``);
    ``--input_fp16_nodes=Conv_0``.

    ## Fix
    List graph input names, separated by ``;`` without spaces.

    ## Facts
    ``op_tables/command_files.json`` ``--input_fp16_nodes``: ``hicann/ge@ffdcbc9f7:api/atc/omg.cc``
    172-215; ``parser/parser/onnx/onnx_parser.cc`` 302-357 (Data nodes of the real inputs).
    """

    code = "AC541"
    name = "input-fp16-nodes-invalid"
    severity = Severity.ERROR
    atc_error = "E10016"
    stage = "values"
    precedence = 125

    @classmethod
    def check(cls, cmd: "ParsedCommand", ctx: "CommandContext") -> None:
        occurrence = cmd.last("--input_fp16_nodes")
        if occurrence is None or occurrence.value is None or occurrence.has_expansion:
            return
        graph = parsed_graph(ctx)
        if graph is None:
            return
        facts = file_facts(ctx.tables)["--input_fp16_nodes"]
        found_check, data_check = facts["checks"]
        inputs = ", ".join(graph.data) or "none"
        initializers = {t.name for t in ctx.model.graph.initializer}  # type: ignore[union-attr]
        for name in parse_fp16_nodes(occurrence.value.strip('"')):
            if name in graph.data:
                continue
            if name in graph.all_names:
                ctx.report(cls, "--input_fp16_nodes", f"'{name}' is a node of the model, not an input: ATC stops "
                           "with E10017", hint=f"name graph inputs only (inputs: {inputs})", atc_error="E10017",
                           source=f"{facts['reader']} {data_check['lines']}", data={"name": name})
                continue
            near = near_names(name, list(graph.data))
            shown = "an empty name" if not name else f"'{name}'"
            if name in initializers:
                shown += " is an initializer (a Const node to ATC, under another name), and"
            ctx.report(cls, "--input_fp16_nodes", f"{shown} is not in the model: ATC stops with E10016",
                       hint=f"did you mean {', '.join(near)}?" if near else f"name graph inputs (inputs: {inputs})",
                       source=f"{facts['reader']} {found_check['lines']}", data={"name": name})

"""option-file-entry-unmatched: A node name or op type in a precision file that the model does not have."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.atc.command_files import file_facts, near_names, read_option_file
from atccheck.atc.lint.files import FILE_FLAGS, named_file, parsed_graph
from atccheck.atc.lint.rule import CommandRule
from atccheck.findings import Severity
from atccheck.registry import register

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Mapping
    from typing import Any

    from atccheck.atc.command_files import FileEntry, GraphNames
    from atccheck.atc.lint.context import CommandContext
    from atccheck.atc.lint.parse import ParsedCommand


@register
class OptionFileEntryUnmatched(CommandRule):
    """A node name or op type in a precision file that the model does not have.

    ## What it does
    With a model, compares each node name in ``--keep_dtype``, ``--op_precision_mode`` and
    ``--customize_dtypes`` with the names ATC's parser gives the model's nodes (``<OpType>_<k>``
    for unnamed ones), and each op type (``OpType::``, ``[ByOpType]``, the mixlist's lists) with
    the Ascend IR types the model's ops become. An ONNX type written where the Ascend one is
    meant (``Conv`` for ``Conv2D``) is named.

    ## Why
    ATC does not stop: ``--keep_dtype`` logs "config file contains N operators not in the graph"
    and the others match nothing, so the precision the user asked for is silently not applied.
    Types in the files compiled later (op_precision_mode, mixlist, customize) may also come from
    fusion passes, so an unknown type there is only a caveat.

    ## Example
    ``OpType::Conv`` in a keep_dtype file (the Ascend IR type is ``Conv2D``); a node name with
    a typo.

    ## Fix
    Use the node names of the model and the Ascend IR op types (``atccheck check`` lists the
    mapping; ``atc --mode=3`` too).

    ## Facts
    ``op_tables/command_files.json`` (entries, ``not_found``, ``graph_names``) from
    ``hicann/ge@ffdcbc9f7``: ``keep_dtype_option.cc`` 31-66, 88-120,
    ``parser/parser/onnx/onnx_parser.cc`` 302-357, 398-410; ``op_tables/registry.json`` for the
    Ascend IR types.
    """

    code = "AC538"
    name = "option-file-entry-unmatched"
    severity = Severity.WARNING
    atc_error = None
    stage = "values"
    precedence = 132

    @classmethod
    def check(cls, cmd: "ParsedCommand", ctx: "CommandContext") -> None:
        graph = None
        for flag in FILE_FLAGS:
            found = named_file(ctx, flag)
            if found is None or found.text is None:
                continue
            facts = file_facts(ctx.tables)[flag]
            if facts["entries"] not in ("names-and-types", "types"):
                continue
            graph = graph or parsed_graph(ctx)
            if graph is None:
                return
            for entry in read_option_file(flag, found.text, facts).entries:
                _judge(cls, flag, found.written, entry, graph, facts, ctx)


def _judge(rule: "type[CommandRule]", flag: str, written: str, entry: "FileEntry", graph: "GraphNames", facts: "Mapping[str, Any]",
           ctx: "CommandContext") -> None:
    at_parse = facts["not_found"]["when"] == "parse"
    where = f"{written}:{entry.line}"
    data = {"file": written, "file_line": entry.line, "entry": entry.value, "kind": entry.kind}
    source = f"{facts['reader']} {facts['not_found'].get('lines', '')}".strip()
    if entry.kind == "name":
        if entry.value in graph.all_names:
            return
        near = near_names(entry.value, sorted(graph.all_names))
        ctx.report(rule, flag, f"{where}: the model has no node '{entry.value}'; {facts['not_found']['note']}",
                   hint=f"did you mean {', '.join(near)}?" if near else "use the node names of the model",
                   atc_error=None, severity=Severity.WARNING, source=source, data=data)
        return
    known = graph.ascend_types
    if entry.value in known:
        return
    mapped = graph.ascend.get(entry.value)
    if mapped:
        ctx.report(rule, flag, f"{where}: '{entry.value}' is the ONNX op type; ATC's parser makes the model's "
                   f"{entry.value} nodes Ascend IR {' or '.join(mapped)}", hint=f"write the Ascend IR type "
                   f"({' or '.join(mapped)}, by the node)", atc_error=None,
                   severity=Severity.WARNING, source=source, data={**data, "ascend": list(mapped)})
        return
    unknown_mapping = any(not types for types in graph.ascend.values())
    severity = Severity.WARNING if at_parse and not unknown_mapping else Severity.INFO
    later = "" if at_parse else " (a fusion pass may still create one)"
    ctx.report(rule, flag, f"{where}: no op of the model becomes Ascend IR type '{entry.value}'{later}",
               hint="use the Ascend IR types of the model's ops", atc_error=None, severity=severity, source=source,
               data=data)

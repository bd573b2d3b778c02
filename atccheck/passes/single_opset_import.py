"""single-opset-import: inline model-local functions and keep only the opset imports nodes use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.domains import AI_ONNX, STANDARD_DOMAINS
from atccheck.passes._graph import iter_graphs
from atccheck.passes._onnx_tools import ToolRefused, call_tool, refusal
from atccheck.passes.base import FixLink, FixPass, PassContext, PassResult, register_pass

if TYPE_CHECKING:  # pragma: no cover
    import onnx


@register_pass
class SingleOpsetImport(FixPass):
    """Leave the model one opset import when nothing but standard ops needs more.

    ATC releases accept exactly one ``opset_import`` entry when standard nodes are present
    (E16005), and their parser drops model-local functions, so a call to one is an
    unregistered op. This pass inlines every model-local function with ``onnx.inliner``
    (converting function bodies written for another opset to the model's), writes the
    ``ai.onnx`` domain as the empty string on nodes and imports (one domain, two spellings),
    then removes every import no node of any graph uses. Imports of custom domains that nodes
    still use stay: those nodes need their decompose pass or an ATC custom-op plugin, and the
    finding says so. Functions the inliner cannot take (one calling itself, a body it cannot
    type, subgraphs nested near protobuf's depth limit) are left as they are, with a note.
    Exact: inlining substitutes a function's definition for its call.
    """

    name = "single-opset-import"
    stage = "single-opset-import"
    answers = (
        FixLink("multiple-opset-imports"),
        FixLink("custom-domain-op", when={"status": ("local-function",)}),
        FixLink("custom-domain-op", named=False),
        FixLink("domain-without-opset-import", named=False),
    )
    safe = True
    tolerance = 1e-6
    rtol = 1e-6

    def run(self, model: "onnx.ModelProto", ctx: PassContext) -> PassResult:
        import onnx
        import onnx.inliner

        notes: list[str] = []
        modified = False
        if model.functions:
            names = sorted({f"{f.domain}::{f.name}" for f in model.functions})
            tool = "onnx's inliner"
            problem = refusal(model, tool)
            try:
                inlined = model if problem else call_tool(
                    tool, lambda: onnx.inliner.inline_local_functions(model, convert_version=True))
            except ToolRefused as exc:  # a function calling itself, a body it cannot type, two of one name
                inlined, problem = model, str(exc)
            if problem:
                notes.append(f"model-local functions left as they are: {problem}")
            elif len(inlined.functions) != len(model.functions) or _node_count(inlined) != _node_count(model):
                model = inlined
                modified = True
                notes.append(f"inlined {len(names)} model-local function(s): {', '.join(names[:5])}"
                             + (" ..." if len(names) > 5 else ""))
        renamed = 0
        for graph in iter_graphs(model.graph):
            for node in graph.node:
                if node.domain == AI_ONNX:
                    node.domain = ""
                    renamed += 1
        if renamed:
            modified = True
            notes.append(f"{renamed} node(s) had domain 'ai.onnx' written out; now the empty domain (the same one)")
        used = {node.domain for graph in iter_graphs(model.graph) for node in graph.node}
        for function in model.functions:
            used.add(function.domain)
            used.update(node.domain for node in function.node)
        kept: list["onnx.OperatorSetIdProto"] = []
        dropped: list[str] = []
        standard_version = None
        for entry in model.opset_import:
            if entry.domain in STANDARD_DOMAINS:
                standard_version = max(standard_version or 0, entry.version)
                continue
            if entry.domain in used:
                kept.append(entry)
            else:
                dropped.append(f"{entry.domain} {entry.version}")
        standard_entries = [e for e in model.opset_import if e.domain in STANDARD_DOMAINS]
        rewrite_standard = len(standard_entries) > 1 or any(e.domain == AI_ONNX for e in standard_entries)
        if dropped or rewrite_standard:
            entries = []
            if standard_version is not None:
                entries.append(onnx.helper.make_opsetid("", standard_version))
            entries.extend(kept)
            del model.opset_import[:]
            model.opset_import.extend(entries)
            modified = True
            if dropped:
                notes.append(f"dropped unused opset import(s): {', '.join(dropped)}")
            if rewrite_standard:
                notes.append(f"one ai.onnx import (version {standard_version}) under the empty domain")
        custom = sorted({e.domain for e in kept})
        if custom:
            notes.append(f"still imported because nodes use them: {', '.join(custom)} (their ops need a decompose "
                         "pass or an ATC custom-op plugin)")
        return PassResult(model, modified, notes)


def _node_count(model: "onnx.ModelProto") -> int:
    return sum(len(g.node) for g in iter_graphs(model.graph))

"""rename-duplicate-nodes: give every root-graph node a name no other node or graph input has."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atccheck.passes.base import FixLink, FixPass, PassContext, PassResult, register_pass

if TYPE_CHECKING:  # pragma: no cover
    import onnx


@register_pass
class RenameDuplicateNodes(FixPass):
    """Rename root-graph nodes whose name another node or a graph input already has.

    ATC's pre-check records every root-graph node by name, plus one ``Input`` node per real
    graph input named like the input, and stops with E13009 on a repeat. The first node with
    a name keeps it; each later one (and any node named like a graph input, since inputs
    cannot be renamed) becomes ``<name>_<k>`` with the smallest ``k`` no other name in the
    model uses. Exact: node names are labels, nothing in ONNX refers to them.
    """

    name = "rename-duplicate-nodes"
    stage = "repair"
    answers = (FixLink("duplicate-node-name"),)
    safe = True
    tolerance = 0.0
    rtol = 0.0

    def run(self, model: "onnx.ModelProto", ctx: PassContext) -> PassResult:
        from atccheck.passes._graph import Names

        names = Names(model)  # holds every node name, so a repeated name is never handed back as is
        initializers = {t.name for t in model.graph.initializer}
        seen = {i.name for i in model.graph.input if i.name not in initializers}
        renamed: list[str] = []
        for node in model.graph.node:
            if not node.name:
                continue
            if node.name in seen:
                new = names.fresh(node.name)
                renamed.append(f"{node.name} -> {new}")
                node.name = new
            seen.add(node.name)
        notes = [f"renamed {len(renamed)} node(s): " + ", ".join(renamed[:5]) + (" ..." if len(renamed) > 5 else "")]
        return PassResult(model, bool(renamed), notes if renamed else [])

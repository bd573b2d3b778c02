"""duplicate-node-name: two nodes of the root graph (or a node and a graph input) share a name."""

from __future__ import annotations

from collections.abc import Iterable

from atccheck.context import CheckContext
from atccheck.findings import ROOT_GRAPH, Finding, Location, Severity
from atccheck.model.graph import GraphNode
from atccheck.rules.base import Rule, register

PRECHECK_SOURCE = "hicann/ge@ffdcbc9f7:parser/parser/common/pre_checker.cc; atc_cli.md section 2.1"


@register
class DuplicateNodeName(Rule):
    """A name is used twice among the root graph's nodes and ATC's Input nodes.

    ## What it does
    Lists names the way ATC's pre-check records them: every named node of the root graph
    in order, then one ``Input`` node per real graph input (an input without an
    initializer), named like the input. Fires once for each name that occurs more than
    once, on the second node that uses it (or on the node that takes a graph input's
    name). Nodes inside ``If``/``Loop`` subgraphs are not recorded by the pre-check and
    are not compared. Unnamed nodes are skipped: ATC names them ``<OpType>_<n>``, but which
    ``n`` it picks is not pinned down in the facts, so no collision with them is predicted.

    ## Why
    The pre-check flags a repeated name with cause code 9 ("The name is repeated in the
    graph.") in ``check_result.json`` and ATC fails with E13009 "Operator %s already exists
    in the graph. Ensure that operator names are unique." Hand-edited graphs, merged
    models and some converters produce such names; a node named like a graph input
    collides with the Input node ATC adds for that input.

    ## Example
    Two ``Conv`` nodes both named ``conv``; a ``Relu`` node named ``image`` in a model whose
    input is ``image``.

    ## Fix
    ``atccheck fix`` runs ``rename-duplicate-nodes``, which gives the later nodes unique
    names; node names carry no semantics, so the rewrite is exact.

    ## Facts
    atc_cli.md section 2.1 (synthetic Input nodes, root graph only, cause code 9) and
    ``atc_error_codes.json`` E13009 (the 9.x code; the code older releases print is not in
    the facts); cann_source.md section 4 (unnamed nodes get ``<op_type>_<n>``).
    """

    code = "AC106"
    name = "duplicate-node-name"
    severity = Severity.ERROR
    op_types = frozenset()

    def check_model(self, ctx: CheckContext) -> Iterable[Finding]:
        nodes: dict[str, list[GraphNode]] = {}
        for gnode in ctx.graph.nodes:
            if gnode.graph == ROOT_GRAPH and gnode.node.name:
                nodes.setdefault(gnode.node.name, []).append(gnode)
        inputs = set(ctx.graph.real_inputs)
        for name, users in nodes.items():
            is_input = name in inputs
            count = len(users) + (1 if is_input else 0)
            if count < 2:
                continue
            where = users[1] if len(users) > 1 else users[0]
            op_types = sorted({g.op_type for g in users})
            if is_input:
                message = (
                    f"the name is used by {len(users)} root-graph node{'s' if len(users) != 1 else ''} "
                    f"({', '.join(op_types)}) and by a graph input, for which ATC adds an Input node of that name; "
                    "ATC's pre-check requires unique names"
                )
            else:
                message = (
                    f"the name is used by {len(users)} root-graph nodes ({', '.join(op_types)}); "
                    "ATC's pre-check requires unique names"
                )
            yield self.finding(
                Location(graph=where.graph, node=name, op_type=where.op_type, domain=where.domain),
                message,
                hint="give every node a unique name ('atccheck fix' runs rename-duplicate-nodes)",
                source=PRECHECK_SOURCE,
                atc_error="E13009",
                data={
                    "name": name,
                    "occurrences": count,
                    "node_indices": [g.index for g in users],
                    "graph_input": is_input,
                },
            )

"""domain-without-opset-import: a node names a domain the model does not import."""

from __future__ import annotations

from collections.abc import Iterable

from atccheck.context import NodeContext
from atccheck.findings import Finding, Severity
from atccheck.rules.base import Rule, register
from atccheck.tables import AI_ONNX

PARSER_SOURCE = (
    "hicann/ge@ffdcbc9f7:parser/parser/onnx/onnx_parser.cc (ConstructOriType); "
    "cann_onnx_registry.json parser_facts.domain_not_in_opset_import"
)


@register
class DomainWithoutOpsetImport(Rule):
    """A node's domain has no opset_import entry, spelled exactly as the node spells it.

    ## What it does
    For every node with a non-empty domain (subgraphs included), looks the domain up in the
    model's ``opset_import`` by its raw string, as released CANN parsers do: a node that
    spells ``ai.onnx`` explicitly in a model whose import is ``""`` fires, and so does a
    node of a custom domain that the model never imports. ``Constant`` and the other types
    the parser maps before any lookup are skipped. Nodes with an empty domain are the
    business of ``multiple-opset-imports``: the released parser takes their version from
    the model's only import, whatever it is spelled.

    ## Why
    ATC's parser builds each node's key ``<domain>::<opset>::<OpType>`` from a map of the
    model's ``opset_import`` keyed by the raw domain string. A domain missing from the map
    stops parsing with E19999 "The opset of domain[%s] has no responding version." before
    the pre-check lists any other problem. Only a parser after hicann/ge commit 74f8167a4
    (newer than every released CANN) treats ``""`` and ``ai.onnx`` as one domain.

    ## Example
    A ``Relu`` node with ``domain="ai.onnx"`` in a model whose ``opset_import`` is
    ``("", 13)``; or a ``com.microsoft`` ``FusedConv`` node in a model that imports only
    ``ai.onnx``.

    ## Fix
    For ``ai.onnx`` spelled on the node: give the node the import's spelling (an empty
    domain). For any other domain: replace or decompose the node. Adding an import for
    the domain only moves the failure while default-domain nodes exist (a second import
    fails with E16005, see ``multiple-opset-imports``).

    ## Facts
    hicann/ge parser/parser/onnx/onnx_parser.cc ``ConstructOriType`` (an unknown custom
    op without an import);
    ``cann_onnx_registry.json`` ``parser_facts`` ``domain_not_in_opset_import``;
    hicann/ge parser/parser/common/pre_checker.cc (E19999 aborts parsing; the node is not
    recorded).
    """

    code = "AC104"
    name = "domain-without-opset-import"
    severity = Severity.ERROR
    op_types = None

    def check_node(self, node: NodeContext) -> Iterable[Finding]:
        domain = node.domain
        ctx = node.ctx
        if not domain or node.op_type in ctx.tables.native_types:
            return
        profile = ctx.target.profile
        imports = ctx.opset_imports
        if profile.single_opset_import:  # released behaviour: the map is keyed by the raw string
            if domain in imports:
                return
        elif ctx.opset_for(domain) is not None:
            return
        listed = ", ".join(f"'{d}' {v}" for d, v in imports.items()) or "none"
        spelling = domain == AI_ONNX and "" in imports
        message = (
            f"node domain '{domain}' has no opset_import entry (the model imports {listed}); "
            f"CANN {profile.id} matches the domain string exactly and stops with "
            f"\"The opset of domain[{domain}] has no responding version.\""
        )
        if spelling:
            hint = "set the node's domain to '' to match the model's import; importing 'ai.onnx' as well would fail with E16005"
        else:
            hint = (
                f"replace or decompose the node; importing '{domain}' as well would fail with E16005 "
                "while default-domain nodes exist"
            )
        yield self.finding(
            node,
            message,
            hint=hint,
            source=PARSER_SOURCE,
            atc_error="E19999",
            data={
                "domain": domain,
                "opset_imports": dict(imports),
                "same_domain_spelled_differently": spelling,
            },
        )

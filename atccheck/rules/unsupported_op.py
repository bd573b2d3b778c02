"""unsupported-op: the profile's ONNX parser registers the op at no opset at all."""

from __future__ import annotations

from collections.abc import Iterable

from atccheck.context import NodeContext
from atccheck.domains import is_standard
from atccheck.findings import Finding, Severity
from atccheck.lookup import Status, resolve
from atccheck.rules._helpers import unregistered_error
from atccheck.rules.base import Rule, register

PARSER_SOURCE = "hicann/ge@ffdcbc9f7:parser/parser/common/pre_checker.cc"


@register
class UnsupportedOp(Rule):
    """The op has no parser plugin in this CANN profile, at any opset.

    ## What it does
    Looks each standard-domain node up in the profile's registry of ONNX parser plugins by
    op type. It fires when the op type is registered at no opset at all (Loop, Scan,
    QuantizeLinear, GroupNormalization, Gelu, or a custom op exported into the default
    domain such as FindMax).

    ## Why
    ATC's pre-check looks every node up by ``<domain>::<opset>::<OpType>`` and stops on the
    first miss list with E19010 (CANN 8.x and older) or E13010 (9.x): "No parser is
    registered for Op ...". Only ``If`` has subgraph support; Loop and Scan have no plugin.

    ## Example
    A node ``Gelu`` (opset 20 standard op) in a model checked against ``--cann 8.0``.

    ## Fix
    Decompose the op into registered ops (``atccheck fix`` has ``decompose-*`` passes for
    Gelu, LayerNormalization, GroupNormalization, Mish, HardSwish, Einsum and common
    onnxruntime contrib ops), re-export without it, or write an ATC custom-op plugin.

    ## Facts
    The registry tables (``op_tables/registry.json``) from the CANN plugin sources
    (canndev 2022, hicann 2026) and the published operator lists; the pre-check
    behaviour from hicann/ge parser/parser/common/pre_checker.cc.
    """

    code = "AC101"
    name = "unsupported-op"
    severity = Severity.ERROR
    op_types = None

    def check_node(self, node: NodeContext) -> Iterable[Finding]:
        res = resolve(node)
        if res.status is not Status.UNREGISTERED_OP:
            return
        ctx = node.ctx
        profile = ctx.target.profile
        default_domain = is_standard(node.domain)
        standard = default_domain and node.op_type in _standard_ops()
        if standard:
            what = "a standard ONNX op"
        elif default_domain:
            what = "not a standard ONNX op (a custom op in the default domain)"
        else:
            what = f"in domain '{node.domain}', which has other plugins but not this op"
        yield self.finding(
            node,
            f"{node.op_type} ({what}) has no ONNX parser plugin in CANN {profile.id} at any opset; "
            f"ATC stops at key {node.parser_key}",
            hint="replace it with registered ops, re-export without it, or add an ATC custom-op plugin",
            fix_hint="run 'atccheck fix' ({pass_name}) to rewrite it into registered ops",
            source=f"op_tables/registry.json profile {profile.id}; {PARSER_SOURCE}",
            atc_error=unregistered_error(ctx),
            data={"parser_key": node.parser_key, "standard_onnx_op": standard},
        )


def _standard_ops() -> frozenset[str]:
    global _STANDARD
    if _STANDARD is None:
        from atccheck.model import onnxpb

        _STANDARD = frozenset(s.name for s in onnxpb.all_schemas_with_history() if is_standard(s.domain))
    return _STANDARD


_STANDARD: frozenset[str] | None = None
